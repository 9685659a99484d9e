"""Everything answering needs about one indexed book, loaded once: its
search, the passages' sections, word rarity, and the cards and summaries
that exist so far (a book indexed to stage 1 has none)."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..book import Book
from ..errors import BookDamagedError
from ..index.builders import writer_parameters
from ..index.chunking import sentence_spans
from ..index.search import BookSearch
from ..index.store import CARD, PASSAGE, SECTION_SUMMARY, IndexStore, Node
from ..index.vectors import embed_windows
from ..llm.generator import SMALL_MODEL_PARAMETERS
from .ages import age_phrases
from .described import first_described
from .expected import TELLINGS
from .nearby import Telling, places_of_kinds
from .named import ChapterTitles, sections_named_in
from .narrator import Teller, outside_dialogue, teller, told_in_first_person
from .people import (DAYS, HONORIFIC_WORDS, MONTHS, NO_ONE, a_noun_or_a_place, main_people, mostly_a_place,
                     written_capitalised)
from .vocabulary import Rarity


# How a sentence ends: its stop, then any closing quotation marks, brackets or marks of italics.
_SENTENCE_END = re.compile(r"[.!?\u2026][\"'\u201d\u2019)\]_*]*\s*$")
_PARAGRAPH_END = re.compile(r"[ \t]*(?:\r?\n[ \t]*){2}")  # a blank line: a heading or a letter's signature is whole
# What a context works out from the book's text alone, once (cached properties), kept across index generations.
_FROM_THE_TEXT = ("chapter_titles", "told_in_first_person", "age_phrases", "telling_spans", "teller")


@dataclass
class TextFindings:
    """What a context found in the book's text alone (`BookContext.from_the_text`)."""
    text: str
    word_places: dict
    named: dict
    cached: dict


@dataclass
class BookContext:
    book: Book
    store: IndexStore
    search: BookSearch
    rarity: Rarity
    section_of: dict[str, int | None]
    start_of: dict[str, int] = field(default_factory=dict)  # passage id -> where it starts in the text
    cards: dict[str, Node] = field(default_factory=dict)
    has_summaries: bool = False
    # Retrieval routes through the summaries only when a capable generator
    # wrote them: the 135M default's are mostly invented, and routing through
    # them cost recall at 6 passages (development set, 10 books at stage 4:
    # 0.762 with, 0.770 without; Persuasion 0.552 against 0.615).
    routes_by_summaries: bool = False
    _sentences: dict[tuple[str, int], list[tuple[int, int]]] = field(default_factory=dict, repr=False)
    _stored: dict[str, tuple[list[tuple[int, int]], np.ndarray] | None] = field(default_factory=dict, repr=False)
    _first_uses: dict[str, float] = field(default_factory=dict, repr=False)
    _by_start: list[tuple[int, str]] | None = field(default=None, repr=False)  # (start, passage id), in order
    _read_parts: dict[tuple[str, int], np.ndarray | None] = field(default_factory=dict, repr=False)
    _named: dict[tuple[str, int | None], tuple[list[int], bool]] = field(default_factory=dict, repr=False)
    _written_as_names: dict[str, bool] = field(default_factory=dict, repr=False)
    _word_places: dict[str, tuple[list[int], list[str]]] = field(default_factory=dict, repr=False)
    _people: dict[tuple, list[str]] = field(default_factory=dict, repr=False)
    _described: dict[tuple[str, int, int], tuple[int, int] | None] = field(default_factory=dict, repr=False)
    _persons: dict[tuple[str, bool], bool] = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, book: Book, store: IndexStore, search: BookSearch) -> "BookContext":
        passages = store.nodes(kind=PASSAGE)
        # Passages are the book's own words, quoted as such: bytes changed on
        # disk inside one (which SQLite cannot tell) would be quoted as the book's.
        changed = next((node for node in passages if node.text != book.text[node.start:node.end]), None)
        if changed is not None:
            raise BookDamagedError(store.path, f"index record {changed.id} no longer matches the book's text")
        cards = {node.id.split(":", 1)[1]: node for node in store.nodes(kind=CARD)}
        has_summaries = store.count(SECTION_SUMMARY) > 0
        search.open()  # the first question's retrieval then finds them open (21-164 ms here, cold)
        return cls(book=book, store=store, search=search, rarity=Rarity(passages),
                   section_of={node.id: node.section for node in passages},
                   start_of={node.id: node.start or 0 for node in passages}, cards=cards,
                   has_summaries=has_summaries,
                   routes_by_summaries=has_summaries and not summaries_by_small_model(store))

    def from_the_text(self) -> "TextFindings":
        """What this context worked out from the book's text alone (chapter
        titles, where words of looks and callings stand, ages told, who tells
        it, chapters named in questions): a new index generation changes none
        of it, and working it out again made the first question after each
        stage landed wait (Little Women: "What does Jo look like?" 142 ms
        after the load instead of 87)."""
        return TextFindings(text=self.book.text, word_places=dict(self._word_places), named=dict(self._named),
                            cached={name: self.__dict__[name] for name in _FROM_THE_TEXT if name in self.__dict__})

    def keep(self, findings: "TextFindings") -> None:
        """Take over what a context of the same text found (`from_the_text`)."""
        if findings.text != self.book.text:
            return
        for name, value in findings.cached.items():
            self.__dict__.setdefault(name, value)
        self._word_places.update(findings.word_places)
        self._named.update(findings.named)

    def sentences(self, passage: Node) -> list[tuple[int, int]]:
        """The passage's sentence spans: as stage 1 stored them, else split
        once per session (follow-up questions often retrieve the same
        passages, and splitting is a good part of the digest's time)."""
        stored = self.sentence_vectors([passage]).get(passage.id)
        if stored is not None:
            return self._without_a_cut_end(stored[0], passage)
        key = (passage.id, passage.end)  # a passage cut at a reader's position splits on its own
        spans = self._sentences.get(key)
        if spans is None:
            spans = self._sentences[key] = self._without_a_cut_end(
                sentence_spans(self.book.text, passage.start, passage.end), passage)
        return spans

    def _without_a_cut_end(self, spans: list[tuple[int, int]], passage: Node) -> list[tuple[int, int]]:
        """The spans without a last one that the passage's end cuts short: a
        reader's position inside a sentence ("What just happened?" had quoted
        "He wanted it because it was his nature, because he had b"), or a
        passage's window ending inside a long one ("Sir George Burnwell tried
        to get"). It is whole in the next passage, or not yet read."""
        if len(spans) < 2 or passage.end is None:
            return spans
        start, end = spans[-1]
        text = self.book.text
        if end < passage.end or end >= len(text) or _SENTENCE_END.search(text, start, end) \
                or _PARAGRAPH_END.match(text, end):
            return spans
        return spans[:-1]

    def sentence_vectors(self, passages: list[Node]) -> dict[str, tuple[list[tuple[int, int]], np.ndarray]]:
        """Sentence spans and vectors that stage 1 stored for these passages
        (none for an index made before they were, or by a remote embedder)."""
        missing = [passage for passage in passages if passage.id not in self._stored]
        if missing:
            found = self.store.sentences(missing)
            for passage in missing:
                self._stored[passage.id] = found.get(passage.id)
        return {passage.id: self._stored[passage.id] for passage in passages if self._stored[passage.id] is not None}

    def sentence_vector_at(self, offset: int) -> np.ndarray | None:
        """The stored vector of the sentence holding `offset` (read in its
        passage's context: see TokenVectors), or None where stage 1 stored none."""
        for passage in self.passages_overlapping(offset, offset):
            stored = self.sentence_vectors([passage]).get(passage.id)
            if stored is None:
                continue
            spans, vectors = stored
            held = next((row for row, (start, end) in enumerate(spans) if start <= offset < end), None)
            if held is not None:
                return vectors[held]
        return None

    @cached_property
    def chapter_titles(self) -> ChapterTitles:
        return ChapterTitles(self.book)

    def sections_named_in(self, question: str, here: int | None = None) -> tuple[list[int], bool]:
        """named.sections_named_in, once per question and place (scope and retrieval both ask)."""
        if (question, here) not in self._named:
            self._named[question, here] = sections_named_in(question, self.book, self.chapter_titles, here)
        return self._named[question, here]

    def main_people(self, until: int | None, sections: list[int] | None, limit: int) -> list[str]:
        """people.main_people, once per reading place and sections: it reads the whole text (Little Women 86 ms)."""
        key = (until, tuple(sections) if sections is not None else None, limit)
        if key not in self._people:
            self._people[key] = main_people(self.book, self.rarity, until, sections, limit=limit)
        return self._people[key]

    def where_described(self, name: str, start: int, end: int) -> tuple[int, int] | None:
        """Where the text between `start` and `end` first says who someone is
        (described.py), in its telling, else in dialogue; once per name and span."""
        key = (name, start, end)
        if key not in self._described:
            self._described[key] = first_described(self.book.text, name, start, end)
        return self._described[key]

    @cached_property
    def told_in_first_person(self) -> bool:
        """Whether one of the book's people tells it (narrator.py); worked out once, when first asked."""
        return told_in_first_person("\n\n".join(self.book.text[s.body_start:s.end] for s in self.book.sections))

    @cached_property
    def teller(self) -> Teller | None:
        """Who tells the book, by name, where one of its people does and it can be told (narrator.py); worked out
        once, when first asked (40 names weighed: The Return of Sherlock Holmes 75 ms)."""
        return teller(self)

    @cached_property
    def telling_spans(self) -> list[tuple[int, int]]:
        """The spans of the text that are telling, not dialogue (narrator.py), in order; found once, when first
        asked."""
        return outside_dialogue(self.book.text)

    @cached_property
    def _telling_starts(self) -> list[int]:
        return [start for start, _ in self.telling_spans]

    def in_telling(self, at: int) -> bool:
        """Whether the text at offset `at` is telling, not dialogue."""
        place = bisect_right(self._telling_starts, at) - 1
        return place >= 0 and self.telling_spans[place][0] <= at < self.telling_spans[place][1]

    @cached_property
    def age_phrases(self) -> list[tuple[int, int]]:
        """Where the text tells someone's age ("at nineteen"; ages.py), found once, when first asked."""
        return age_phrases(self.book.text)

    def word_places(self, telling: Telling) -> tuple[list[int], list[str]]:
        """Where the text uses a word of a kind (nearby.py: looks), found once, when first asked: every kind the
        engine asks of in one pass."""
        if telling.name not in self._word_places:
            kinds = [telling] + [other for other in TELLINGS
                                 if other.name != telling.name and other.name not in self._word_places]
            self._word_places.update(places_of_kinds(kinds, self.book.text))
        return self._word_places[telling.name]

    @cached_property
    def meaning_share(self) -> float:
        """Share of the passages the dense index holds (a context lives as
        long as one published generation, so this is counted once)."""
        return min(1.0, self.search.embedded_passages() / len(self.section_of)) if self.section_of else 1.0

    @property
    def characters(self) -> list[dict]:
        card = self.cards.get("characters")
        return (card.data or {}).get("characters", []) if card else []

    def characters_known_by(self, until: int | None) -> list[dict]:
        """The characters card as a reader who has read up to `until` could
        know it: only the names the text has used so far (the card is written
        from the whole book; "the stranger" may be a name not yet given)."""
        if until is None:
            return self.characters
        known = []
        for character in self.characters:
            names = [name for name in [character.get("name", "")] + list(character.get("also_called", []))
                     if name and self._first_use(name) < until]
            if names:
                known.append({**character, "name": names[0], "also_called": names[1:]})
        return known

    def _first_use(self, name: str) -> float:
        """Where the text first uses a name as a word (inf: never); kept, as
        each question asked "so far" needs it again."""
        found = self._first_uses.get(name)
        if found is None:
            match = re.search(rf"(?<!\w){re.escape(name)}(?!\w)", self.book.text)
            found = self._first_uses[name] = match.start() if match else float("inf")
        return found

    def writes_as_name(self, name: str) -> bool:
        """Whether the book writes these words as a name: one word as
        `Rarity.is_name` says; several, capitalised in nearly every place
        the book uses them together ("Tiny Tim", though "tiny" alone is an
        adjective; "Ghost of Christmas Past"). Kept: a who-is question asks
        it twice."""
        found = self._written_as_names.get(name)
        if found is None:
            found = self.rarity.is_name(name) if len(name.split()) == 1 else written_capitalised(name, self.book.text)
            self._written_as_names[name] = found
        return found

    def names_a_person(self, word: str, titled: bool = False) -> bool:
        """Whether a capitalised word names someone: the book writes it as a
        name, and it is no title, people or day, nor, unless a title stands
        before it ("Mrs. March"), a month, a place or a noun ("the Ghost")."""
        found = self._persons.get((word, titled))
        if found is None:
            folded = word.lower()
            if folded in HONORIFIC_WORDS | NO_ONE | DAYS or not self.writes_as_name(word):
                found = False
            elif " " in word:  # a name of two words: "New York" is a place (its uses read: kept)
                found = titled or not mostly_a_place(word, self.book.text)
            else:
                found = titled or not (folded in MONTHS or a_noun_or_a_place(word, self.book.text))
            self._persons[(word, titled)] = found
        return found

    def sections_begun(self, until: int | None) -> list[int | None] | None:
        """Sections that start before `until` (None: the front matter), to
        search in; None when the whole book may be used."""
        if until is None:
            return None
        return [None] + [section.ordinal for section in self.book.sections if section.start < until]

    def passages_cut_by(self, until: int | None) -> list[Node]:
        """The passages a reader's position falls inside (two where passages overlap)."""
        if until is None:
            return []
        return [node for node in self.passages_overlapping(until, until) if (node.start or 0) < until]

    def passages_overlapping(self, start: int, end: int) -> list[Node]:
        """The passages that hold any of the text from `start` to `end` (or,
        for an empty span, the place `start`), in book order."""
        if self._by_start is None:
            self._by_start = sorted((begin, node_id) for node_id, begin in self.start_of.items())
        first = bisect_left(self._by_start, (start, ""))
        last = bisect_left(self._by_start, (max(end, start + 1), ""))
        nearest = [self.store.node(node_id) for _, node_id in self._by_start[max(0, first - 3):last]]
        return [node for node in nearest if node is not None and node.end is not None and node.end > start]

    def read_part_vector(self, node: Node, until: int) -> np.ndarray | None:
        """A unit vector for a passage's text up to `until`: the mean of its
        stored sentence vectors there (no model call), else the text embedded
        now; None when not one sentence of it has been read."""
        key = (node.id, until)
        if key not in self._read_parts:
            stored = self.sentence_vectors([node]).get(node.id)
            if stored is not None:
                spans, vectors = stored
                read = [index for index, (_, end) in enumerate(spans) if end <= until]
                vector = vectors[read].mean(axis=0) if read else None
            else:
                text = self.book.text[node.start:until]
                vector = embed_windows(self.search.embedder, [text])[0].mean(axis=0) if text.strip() else None
            if vector is not None:
                vector = vector / (np.linalg.norm(vector) or 1.0)
            self._read_parts[key] = vector
        return self._read_parts[key]

    def sections_read(self, until: int | None) -> list[int] | None:
        """Sections read to their end by `until` (their summaries tell nothing later)."""
        if until is None:
            return None
        return [section.ordinal for section in self.book.sections if section.end <= until]

    def reading_limit(self, until: int | None, at: int | None = None) -> dict | None:
        """Where a reader's position falls, for showing and for the record;
        whether it is where the reader is (`at`: "What just happened?" after a
        jump ahead) rather than the furthest they have read."""
        if until is None:
            return None
        # Between two sections (at a chapter's heading), the one before.
        begun = [section for section in self.book.sections if section.start < until]
        section = self.book.section_at(max(0, until - 1)) or (begun[-1] if begun else None)
        return {"until": until, "section": section.ordinal if section else None,
                "label": section.display_name if section else "the opening pages", "at_the_reader": until == at}

    def structure_text(self, until: int | None = None) -> str:
        """The structural card, or, before stage 4, a map made from the
        sections. Up to `until`, always the map, of the sections begun: the
        card and later titles describe what the reader has not read yet."""
        card = self.cards.get("structure")
        if card is not None and until is None:
            return card.text
        sections = [s for s in self.book.sections if until is None or s.start < until]
        total = f"{len(self.book.sections)} sections" if until is None else (
            f"read so far: {len(sections)} of {len(self.book.sections)} sections")
        lines = [f"{self.book.title}{' by ' + self.book.metadata['author'] if self.book.metadata.get('author') else ''}"
                 f": {total}."]
        lines += [section.display_name for section in sections]
        return "\n".join(lines)


def summaries_by_small_model(store: IndexStore) -> bool:
    """Whether the generator that wrote the book's summaries is known to be
    under SMALL_MODEL_PARAMETERS: the one that finished stage 2, else the one
    writing them now. A writer of unknown size (an endpoint) counts as capable."""
    stage2 = store.manifest_value("stage2") or {}
    parameters = writer_parameters(stage2.get("generator") or store.manifest_value("generator"))
    return parameters is not None and parameters < SMALL_MODEL_PARAMETERS
