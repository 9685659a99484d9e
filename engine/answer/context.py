"""Everything answering needs about one indexed book, loaded once: its
search, the passages' sections, word rarity, and the cards and summaries
that exist so far (a book indexed to stage 1 has none)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..book import Book
from ..index.builders import writer_parameters
from ..index.chunking import sentence_spans
from ..index.search import BookSearch
from ..index.store import CARD, PASSAGE, SECTION_SUMMARY, IndexStore, Node
from ..llm.generator import SMALL_MODEL_PARAMETERS
from .retrieval import Rarity


@dataclass
class BookContext:
    book: Book
    store: IndexStore
    search: BookSearch
    rarity: Rarity
    section_of: dict[str, int | None]
    cards: dict[str, Node] = field(default_factory=dict)
    has_summaries: bool = False
    # Retrieval routes through the summaries only when a capable generator
    # wrote them: the 135M default's are mostly invented, and routing through
    # them cost recall at 6 passages (development set, 10 books at stage 4:
    # 0.762 with, 0.770 without; Persuasion 0.552 against 0.615).
    routes_by_summaries: bool = False
    _sentences: dict[str, list[tuple[int, int]]] = field(default_factory=dict, repr=False)
    _stored: dict[str, tuple[list[tuple[int, int]], np.ndarray] | None] = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, book: Book, store: IndexStore, search: BookSearch) -> "BookContext":
        passages = store.nodes(kind=PASSAGE)
        cards = {node.id.split(":", 1)[1]: node for node in store.nodes(kind=CARD)}
        has_summaries = store.count(SECTION_SUMMARY) > 0
        return cls(book=book, store=store, search=search, rarity=Rarity(passages),
                   section_of={node.id: node.section for node in passages}, cards=cards,
                   has_summaries=has_summaries,
                   routes_by_summaries=has_summaries and not summaries_by_small_model(store))

    def sentences(self, passage: Node) -> list[tuple[int, int]]:
        """The passage's sentence spans: as stage 1 stored them, else split
        once per session (follow-up questions often retrieve the same
        passages, and splitting is a good part of the digest's time)."""
        stored = self.sentence_vectors([passage]).get(passage.id)
        if stored is not None:
            return stored[0]
        spans = self._sentences.get(passage.id)
        if spans is None:
            spans = self._sentences[passage.id] = sentence_spans(self.book.text, passage.start, passage.end)
        return spans

    def sentence_vectors(self, passages: list[Node]) -> dict[str, tuple[list[tuple[int, int]], np.ndarray]]:
        """Sentence spans and vectors that stage 1 stored for these passages
        (none for an index made before they were, or by a remote embedder)."""
        missing = [passage for passage in passages if passage.id not in self._stored]
        if missing:
            found = self.store.sentences(missing)
            for passage in missing:
                self._stored[passage.id] = found.get(passage.id)
        return {passage.id: self._stored[passage.id] for passage in passages if self._stored[passage.id] is not None}

    @property
    def characters(self) -> list[dict]:
        card = self.cards.get("characters")
        return (card.data or {}).get("characters", []) if card else []

    def structure_text(self) -> str:
        """The structural card, or, before stage 4, a map made from the sections."""
        card = self.cards.get("structure")
        if card is not None:
            return card.text
        lines = [f"{self.book.title}{' by ' + self.book.metadata['author'] if self.book.metadata.get('author') else ''}"
                 f": {len(self.book.sections)} sections."]
        lines += [section.display_name for section in self.book.sections]
        return "\n".join(lines)


def summaries_by_small_model(store: IndexStore) -> bool:
    """Whether the generator that wrote the book's summaries is known to be
    under SMALL_MODEL_PARAMETERS: the one that finished stage 2, else the one
    writing them now. A writer of unknown size (an endpoint) counts as capable."""
    stage2 = store.manifest_value("stage2") or {}
    parameters = writer_parameters(stage2.get("generator") or store.manifest_value("generator"))
    return parameters is not None and parameters < SMALL_MODEL_PARAMETERS
