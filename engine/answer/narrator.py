"""Who tells the book: "Who is the narrator?" finds nothing by its words (a
search on "narrator" returns chance lines). Whether the telling says "I"
outside its dialogue does tell: in our books 19 to 71 times in a thousand
words where one of the people tells it (Black Beauty, Watson, Rassendyll;
Moby-Dick 11.6, Ishmael giving way to the whale's lore), at most 6.4 where
no one does (Little Women's letters; Persuasion none). The
evidence is then where the telling says "I": its first such sentence, one
half-way through, and one in its last chapter; or, told in the third
person, the book's opening."""

from __future__ import annotations

import re

# Dialogue: a quotation, or one left open to its paragraph's end (a speech
# over several paragraphs opens each with a quotation mark).
_QUOTED = re.compile(r"\u201c[^\u201d]*?\u201d|\"[^\"]*?\"|\u2018[^\u2019]{0,400}?\u2019(?![a-z])", re.S)
_LEFT_OPEN = re.compile(r"[\u201c\"\u2018].*", re.S)
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
# Verbs that tag a line of dialogue with its speaker.
SPEECH_VERBS = {"said", "says", "say", "cried", "replied", "asked", "exclaimed", "returned", "answered", "added",
                "retorted", "observed", "remarked", "continued", "demanded", "inquired", "enquired", "muttered",
                "whispered", "shouted", "rejoined", "repeated", "interposed", "resumed"}
_FIRST_PERSON = re.compile(r"\b(?:I|me|my|myself)\b")
# First-person words in a thousand words of the telling, at least, for a book told by one of its people.
FIRST_PERSON_PER_THOUSAND = 9


def outside_dialogue(text: str) -> list[tuple[int, int]]:
    """The spans of the text that are telling, not dialogue, paragraph by paragraph."""
    spans, at = [], 0
    for paragraph in _PARAGRAPH_BREAK.split(text):
        start = text.index(paragraph, at)
        at = start + len(paragraph)
        told = 0
        for quote in _QUOTED.finditer(paragraph):
            spans.append((start + told, start + quote.start()))
            told = quote.end()
        rest = paragraph[told:]
        opened = _LEFT_OPEN.search(rest)
        spans.append((start + told, start + told + (opened.start() if opened else len(rest))))
    return [(begin, end) for begin, end in spans if end > begin]


def told_in_first_person(text: str) -> bool:
    """Whether one of the book's people tells it (see the module's figures)."""
    words = said = 0
    for begin, end in outside_dialogue(text):
        told = text[begin:end]
        words += len(told.split())
        said += len(_FIRST_PERSON.findall(told))
    return words > 0 and 1000 * said / words >= FIRST_PERSON_PER_THOUSAND


def says_i(text: str, start: int, end: int, telling: list[tuple[int, int]]) -> bool:
    """Whether the telling (not its dialogue) says "I" between `start` and
    `end` of the text whose telling spans are `telling`."""
    for begin, stop in telling:
        if stop > start and begin < end:
            if _FIRST_PERSON.search(text, max(begin, start), min(stop, end)):
                return True
    return False
