"""Words of one kind gathered near a name: what someone looks like ("tall,
thin, with a long nose like a beak"; looks.py). A question of that kind
names someone and says little else the text shares ("What does Stapleton
look like?"), so its own words find lines that say "looked" of anyone.
Where the words of the kind gather within a sentence or two of the name are
the passages that tell it (retrieval reserves them slots), and a line
holding several of them after the name is what the digest quotes first.
(Words of dying were tried the same way, "How does Beth die?": they gather
as thickly round a canary's funeral or a play's poisoning near her name as
round her death, which the book tells in words of its own.)"""

from __future__ import annotations

import functools
import re
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Callable

from .followup import subjects_of, unglossed
from .people import HONORIFIC_WORDS
from .planning import content_words
from .vocabulary import as_written

# How far before a use of the name the words are counted, and how far after (what is told of someone
# mostly follows their name: "Scrooge! ... The cold within him froze his old features").
_BEFORE, _AFTER = 300, 600
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_LISTED = 8
_USES_LOOKED_AT = 24


@dataclass(frozen=True)
class Telling:
    """One kind of thing told of someone, by its words."""
    name: str  # "looks": the sources' mark of its passages, the expected answer's kind
    words: frozenset[str]
    asks: re.Pattern  # a question that asks it of someone, and nothing more
    in_a_passage: int  # distinct words of the kind near a name for a passage to tell it
    in_a_line: int  # and in a sentence, for a line to
    asking_words: frozenset[str] = frozenset()  # the question's words that ask it, not words of the text's
    # Whether the first passage telling it leads: a novel describes its people where it brings them in.
    first_leads: bool = False
    # Where a kind is told otherwise than by its words gathering (a letter's words come after the line telling
    # of it): (context, names, searched, until, question) -> a ranked list as `passages_telling` gives.
    finds: Callable | None = field(default=None, compare=False)

    @property
    def pattern(self) -> re.Pattern:
        return _patterns(self.words)

    def asked(self, question: str) -> bool:
        """Whether the question asks it, a follow-up as if asked plainly ("What was his (Marley) job?")."""
        return self.asks.search(unglossed(question)) is not None

    def count(self, text: str) -> int:
        """How many distinct words of the kind the text holds."""
        return len({word.lower() for word in self.pattern.findall(text)})

    def places(self, text: str) -> tuple[list[int], list[str]]:
        """Where the text uses a word of the kind, and which (lower case), in order."""
        return places_of_kinds([self], text)[self.name]


def places_of_kinds(tellings, text: str) -> dict[str, tuple[list[int], list[str]]]:
    """Where the text uses a word of each kind, and which (lower case), in
    order; read in one pass for all (a pass is 0.07 s of Little Women)."""
    kinds_of: dict[str, list[str]] = {}
    for telling in tellings:
        for word in telling.words:
            kinds_of.setdefault(word.lower(), []).append(telling.name)
    found: dict[str, tuple[list[int], list[str]]] = {telling.name: ([], []) for telling in tellings}
    # Whole words only (a word's edge on both sides), so the union finds each kind's words as its own pattern would.
    for match in _patterns(frozenset(kinds_of)).finditer(text):
        word = match.group().lower()
        for name in kinds_of[word]:
            found[name][0].append(match.start())
            found[name][1].append(word)
        if "-" in word:  # "well-bred" is a word of character; a kind without it has "bred" there
            whole = set(kinds_of[word])
            at = match.start()
            for part in word.split("-"):
                for name in kinds_of.get(part, []):
                    if name not in whole:
                        found[name][0].append(at)
                        found[name][1].append(part)
                at += len(part) + 1
    return found


_COMPILED: dict[frozenset, re.Pattern] = {}


def _patterns(words: frozenset[str]) -> re.Pattern:
    """Any of the words, whole, in any case: the longest that fits where
    several begin alike ("cheeks", not "cheek")."""
    if words not in _COMPILED:
        _COMPILED[words] = re.compile(r"\b" + _as_a_trie(_trie(word.lower() for word in words)) + r"\b", re.I)
    return _COMPILED[words]


def _trie(words) -> dict:
    root: dict = {}
    for word in words:
        node = root
        for letter in word:
            node = node.setdefault(letter, {})
        node[""] = {}  # a word ends here
    return root


def _as_a_trie(node: dict) -> str:
    """The words under a trie's node as one regular expression that shares
    their beginnings ("c(?:heeks?|urly|...)"): a plain alternation of 120
    words tries each at every place in the text, five times slower (0.4 s
    for Little Women, where this takes 0.08 s)."""
    branches = [re.escape(letter) + _as_a_trie(child) for letter, child in sorted(node.items()) if letter]
    if not branches:
        return ""
    either = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return f"(?:{either})?" if "" in node else either


def names_asked(question: str, context) -> list[str]:
    """Whom a question asks about: the names it types ("the Ghost of
    Christmas Past"), else its words the book writes as names ("stapleton");
    with the surname alone where the book writes that as a name ("Dr
    Mortimer" is also "Dr. James Mortimer", "Sherlock Holmes" mostly
    "Holmes"; "the Ghost of Christmas Past" is not "Past")."""
    # A name of several words whose last is no name alone: "the Ghost of Christmas Past" (it had been read as
    # "Ghost" and "Christmas", and found Marley's ghost).
    names = [name for name in subjects_of(question)
             if context.writes_as_name(name.split()[-1]) or (" " in name and context.writes_as_name(name))]
    names = names or [word for word in content_words(question) if context.writes_as_name(word)]
    surnames = [name.split()[-1] for name in names if len(name.split()) > 1 and (
        name.split()[0].lower().rstrip(".") in HONORIFIC_WORDS or name.split()[-2][:1].isupper())]
    return list(dict.fromkeys(names + [surname for surname in surnames if context.writes_as_name(surname)]))


def other_names_written(names: list[str], context) -> list[str]:
    """The other forms of the first names asked about that the book writes
    as names: "Describe Meg" is told where the book brings her in as
    "Margaret, the eldest of the four"."""
    others = [other for name in names if " " not in name for other in other_forms(name)
              if context.writes_as_name(other)]
    return [other for other in dict.fromkeys(others) if other not in names]


@functools.lru_cache(maxsize=1)
def nick_namer():
    """The table of first names' short forms, loaded once a process (0.05 s here)."""
    from nicknames import NickNamer  # a hand-made table of English names and their short forms (2,700 pairs)

    return NickNamer()


def other_forms(name: str) -> list[str]:
    """The other forms of a first name, capitalised: "Meg" -> "Margaret",
    "Megan"...; "Elizabeth" -> "Beth", "Betsy"... (the book's own are kept
    by whoever asks)."""
    namer = nick_namer()
    return sorted(other.capitalize() for other in namer.canonicals_of(name) | namer.nicknames_of(name))


def longer_forms(name: str) -> list[str]:
    """The longer first names a short one is a form of, capitalised: "Bobbie" -> "Barbara", "Roberta"."""
    return sorted(other.capitalize() for other in nick_namer().canonicals_of(name))


def passages_telling(telling: Telling, context, names: list[str], searched: list[int | None] | None = None,
                     until: int | None = None, question: str = "") -> list[tuple[str, float]]:
    """The passages (of the sections `searched`, before `until`) where most
    words of the kind stand near one of the names, as a ranked list, the
    fullest first (or the first, where `first_leads`)."""
    if telling.finds is not None:
        return telling.finds(context, names, searched, until, question)
    text = context.book.text
    end = len(text) if until is None else until
    allowed = None if searched is None else set(searched)
    places, found_words = context.word_places(telling)  # found once a book: Anne is named 497 times in Persuasion
    uses = []  # (distinct words of the kind near it, start, end) of each use of a name they gather near
    for name in names:
        for named in uses_of(name, names, text, end):
            after = min(end, named.end() + _AFTER)
            words = len(set(found_words[bisect_left(places, named.start() - _BEFORE):bisect_left(places, after)]))
            if words >= telling.in_a_passage:
                uses.append((words, named.start(), after))
    # The fullest, and the first, only: Beth is named 400 times, each use a look-up of its passages.
    kept = sorted(uses, key=lambda use: (-use[0], use[1]))[:_USES_LOOKED_AT] + sorted(uses, key=lambda use: use[1])[:1]
    most: dict[str, int] = {}
    for words, start, after in kept:
        for node in context.passages_overlapping(start, after):
            # The words may stand before the name, in the passage before this one: only one holding some.
            if ((allowed is None or context.section_of.get(node.id) in allowed) and node.end <= end
                    and telling.count(node.text) > 0):
                most[node.id] = max(most.get(node.id, 0), words)
    ranked = sorted(most, key=lambda node_id: (-most[node_id], context.start_of.get(node_id, 0)))
    first = min(most, key=lambda node_id: context.start_of.get(node_id, 0), default=None)
    if telling.first_leads and first is not None:
        ranked = [first] + [node_id for node_id in ranked if node_id != first]
    return [(node_id, 1.0 / place) for place, node_id in enumerate(ranked[:_LISTED], start=1)]


def near_names(context, names: list[str]) -> list[tuple[int, int]]:
    """The stretches of text from each use of one of the names to the end of
    its paragraph, or the next (a description often opens one of its own:
    "...Dr. James Mortimer ... Come in!" / "He was a very tall, thin man"),
    at most a few sentences on."""
    text = context.book.text
    stretches = []
    for name in names:
        for named in uses_of(name, names, text):
            ends = [found.start() for found in _PARAGRAPH_BREAK.finditer(text, named.end(), named.end() + _AFTER)]
            stop = ends[1] if len(ends) > 1 else named.end() + _AFTER
            if ends and ends[0] - named.end() > _AFTER // 2:  # a long paragraph of its own: to its end
                stop = ends[0]
            stretches.append((named.start(), stop))
    return sorted(stretches)


def uses_of(name: str, names: list[str], text: str, end: int | None = None):
    """The uses of one of the names asked about, as written, up to `end`;
    of a surname asked with a title ("Mr Elliot"), not where another title
    stands before it: "Sir Walter Elliot", "Lady Elliot", "Miss Elliot"
    are others of the family."""
    titles = {full.split()[0].lower().rstrip(".") for full in names
              if len(full.split()) > 1 and full.split()[-1] == name and full.split()[0].lower().rstrip(".") in
              HONORIFIC_WORDS}
    for named in as_written(name).finditer(text, 0, len(text) if end is None else end):
        if titles:
            before = _TITLED_BEFORE.search(text, max(0, named.start() - _TITLE_REACH), named.start())
            if before is not None and before.group(1).lower() not in titles:
                continue
        yield named


_TITLED_BEFORE = re.compile(rf"\b({'|'.join(sorted(HONORIFIC_WORDS))})\.?\s+(?:(?-i:[A-Z])[\w'\u2019-]*\.?\s+){{0,2}}$",
                            re.I)
_TITLE_REACH = 40


def tells_near(telling: Telling, sentence: str, start: int, end: int, stretches: list[tuple[int, int]]) -> bool:
    """Whether a line at start-end holds enough words of the kind and stands
    near one of the names asked about (`near_names`): "He was a
    remarkable-looking man, tall, handsome" after "Barrymore", not another
    man's face elsewhere."""
    return telling.count(sentence) >= telling.in_a_line and any(begin < end and start < stop
                                                                 for begin, stop in stretches)
