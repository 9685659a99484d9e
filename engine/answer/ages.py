"""How old someone is: "How old was Anne Elliot when she became engaged?"
The words of such a question ("old", a name the book uses everywhere) pick
no passage out, and novels tell an age in words of their own: "to throw
herself away at nineteen", "the elegant little woman of seven-and-twenty",
"twenty years old". So the passages where such a phrase stands near a name
the question asks about are a list of their own in retrieval, and the
digest prefers a line holding one (expected.py)."""

from __future__ import annotations

import re

from .vocabulary import as_written

_UNITS = (r"two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen"
          r"|seventeen|eighteen|nineteen")
_TENS = r"twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
# "nineteen", "twenty-one", "seven-and-twenty", "five and forty", "20"
_AGE_NUMBER = (rf"(?:\d{{1,3}}|(?:{_UNITS})(?:[-\s]and[-\s](?:{_TENS}))?|(?:{_TENS})(?:[-\s](?:one|{_UNITS}))?)")
# "twenty years old", "a year old", "aged twenty", "the age of nineteen", "at nineteen", "a woman of
# seven-and-twenty", "a ten-year-old": not "at one" or "of one mind" ("one" is left out).
AGE_PHRASE = re.compile(
    rf"\b(?:(?:{_AGE_NUMBER}|a)\s+years?\s+(?:old|of\s+age)|{_AGE_NUMBER}-years?-old"
    rf"|(?:aged|age\s+of|at)\s+{_AGE_NUMBER}(?![-\s]*(?:years?|days?|weeks?|months?|hours?|minutes?|miles?"
    rf"|pounds?|shillings?|guineas?|thousand|hundred|o'clock|times|of|per|this|that|to-?morrow|to-?night|sharp"
    rf"|precisely|exactly|past|punctually)\b|\s+in\s+the\s+(?:morning|afternoon|evening|night)\b)(?=[\s,;:.!?)]|$)"
    # "a woman of seven-and-twenty," but not "of four summers"
    rf"|of\s+{_AGE_NUMBER}(?=\s*[,;:.!?)]|$)"
    rf")", re.I)
_ASKS_AGE = re.compile(r"^\W*(?:how\s+old|(?:at\s+)?what\s+age)\b|\bhow\s+old\b", re.I)
# How near a name an age phrase must stand to be taken as that person's: a sentence or two.
_REACH = 300
_LISTED = 8


def asks_age(question: str) -> bool:
    return _ASKS_AGE.search(question) is not None


def passages_telling_age(context, names: list[str], searched: list[int | None] | None = None) -> list[tuple[str, float]]:
    """The passages (of the sections `searched`; None: all) where an age
    phrase stands within a sentence or two of one of the names, nearest
    first, as a ranked list."""
    text = context.book.text
    patterns = [as_written(name) for name in names]
    allowed = None if searched is None else set(searched)
    nearest: dict[str, int] = {}
    for found in context.age_phrases:
        window_start = max(0, found[0] - _REACH)
        window = text[window_start:found[1] + _REACH]
        distances = [abs(window_start + named.start() - found[0]) for pattern in patterns
                     for named in pattern.finditer(window)]
        if not distances:
            continue
        for node in context.passages_overlapping(found[0], found[1]):
            if allowed is None or context.section_of.get(node.id) in allowed:
                nearest[node.id] = min(nearest.get(node.id, _REACH * 2), min(distances))
    ranked = sorted(nearest, key=lambda node_id: (nearest[node_id], context.start_of.get(node_id, 0)))
    return [(node_id, 1.0 / place) for place, node_id in enumerate(ranked[:_LISTED], start=1)]


def age_phrases(text: str) -> list[tuple[int, int]]:
    """Every age phrase of the text, as spans: the phrase matched only
    around each number word or "year" (found by plain string search), a
    quarter of the time of matching it over the whole text (Little Women:
    45 ms against 190)."""
    lowered = text.lower()
    places = [found.start() for found in re.finditer(r"\d", text)]
    for word in _NUMBER_WORDS:
        place = lowered.find(word)
        while place != -1:
            places.append(place)
            place = lowered.find(word, place + 1)
    found: dict[int, int] = {}
    for place in sorted(places):
        for match in AGE_PHRASE.finditer(text, max(0, place - _BEFORE_NUMBER), place + _AFTER_NUMBER):
            # Matched again without the window's end, which hides what follows ("at twelve | months").
            whole = AGE_PHRASE.match(text, match.start())
            if whole is not None:
                found.setdefault(whole.start(), whole.end())
    return sorted(found.items())


_NUMBER_WORDS = (_UNITS + "|" + _TENS + "|year").split("|")
# An age phrase reaches this far before its number ("the age of ") and after it ("-and-twenty years old").
_BEFORE_NUMBER, _AFTER_NUMBER = 16, 40
