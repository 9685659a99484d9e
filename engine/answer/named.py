"""Chapters a question names in its own words: "Summarize Stave 3", "What
happens in chapter twelve?", "the last chapter", "chapters 2 and 3". A
question that asks about them and nothing more ("what happens", "summarize")
is answered from them alone, as the contents' "Ask About Stave III Only" is;
one that names a chapter beside a subject of its own ("How does the storm in
chapter 3 foreshadow the ending?") is left to the whole book, which it may
need. A chapter is found by its number under the name the book gives it
(Stave III, Adventure II, Part II Chapter 3), or under "chapter" in a book
that calls them something else."""

from __future__ import annotations

import re

from ..structure.numbers import ROMAN_PATTERN, WORD_NUMBER_PATTERN, parse_number
from .planning import content_words

_KINDS = r"chapter|stave|adventure|letter|part|book|volume|section|canto|story|episode"
_NUMBER = rf"\d+|{ROMAN_PATTERN}|{WORD_NUMBER_PATTERN}"
# "chapter 3", "chapters 2 and 3", "chapters 2-4", "Chapter XII", "chapter twelve"
_NUMBERED = re.compile(rf"\b({_KINDS})s?\s+((?:{_NUMBER})(?:\s*(?:,|-|\u2013|and|&|to|through)\s*(?:{_NUMBER}))*)\b",
                       re.IGNORECASE)
_ONE_NUMBER = re.compile(rf"\b(?:{_NUMBER})\b", re.IGNORECASE)
_RANGE = re.compile(rf"\b({_NUMBER})\s*(?:-|\u2013|to|through)\s*({_NUMBER})\b", re.IGNORECASE)
# "the last chapter", "the third stave", "the opening chapter"
_POSITIONED = re.compile(rf"\bthe\s+(first|opening|last|final|closing|{WORD_NUMBER_PATTERN})\s+({_KINDS})\b",
                         re.IGNORECASE)
# Words that ask what a chapter holds rather than about a subject of their own.
GENERIC_WORDS = {"summarize", "summarise", "summary", "summaries", "recap", "happen", "happens", "happened",
                 "happening", "events", "event", "plot", "going", "describe", "description", "overview", "outline",
                 "appear", "appears", "characters", "character", "main", "key", "important", "points", "point",
                 "tell", "story", "explain", "brief", "briefly", "short", "sum", "gist", "covered", "cover",
                 "covers", "chapter", "chapters", "stave", "staves", "part", "parts", "section", "sections", "book",
                 "volume", "letter", "adventure", "canto", "episode", "contents", "content"}


def sections_named_in(question: str, book) -> tuple[list[int], bool]:
    """The ordinals of the sections the question names, and whether it asks
    about them alone (nothing but them and words like "what happens")."""
    wanted: dict[str, set[int]] = {}
    for kind, numbers in _NUMBERED.findall(question):
        wanted.setdefault(kind.lower(), set()).update(_numbers(numbers))
    found = set(_by_numbers(book, wanted)) if wanted else set()
    numbered = [s for s in book.sections if s.number is not None] or list(book.sections)
    for place, kind in _POSITIONED.findall(question):
        place = place.lower()
        if place in ("first", "opening"):
            found.add(numbered[0].ordinal)
        elif place in ("last", "final", "closing"):
            found.add(numbered[-1].ordinal)
        else:
            found |= set(_by_numbers(book, {kind.lower(): {parse_number(place) or 0}}))
    if not found:
        return [], False
    rest = _POSITIONED.sub(" ", _NUMBERED.sub(" ", question))
    only = all(word.lower() in GENERIC_WORDS for word in content_words(rest))
    return sorted(found), only


def _numbers(text: str) -> set[int]:
    values: set[int] = set()
    for low, high in _RANGE.findall(text):
        first, last = parse_number(low), parse_number(high)
        if first and last and first < last <= first + 60:
            values.update(range(first, last + 1))
    values.update(value for value in map(parse_number, _ONE_NUMBER.findall(_RANGE.sub(" ", text))) if value)
    return values


def _by_numbers(book, wanted: dict[str, set[int]]) -> list[int]:
    """Sections numbered as wanted under the names the book gives them: every
    name a section has ("Part II, Chapter III": a part and a chapter) must
    carry a wanted number, and one at least must be wanted. A "chapter" in a
    book with none (staves, stories) is a top-level section so numbered."""
    found = []
    for section in book.sections:
        has = _label_numbers(book, section)
        kinds = {kind for kind, _ in has}
        if not kinds & set(wanted):
            continue
        if all(number in wanted[kind] for kind, number in has if kind in wanted):
            found.append(section.ordinal)
    if found or "chapter" not in wanted:
        return found
    return [s.ordinal for s in book.sections if s.number in wanted["chapter"]
            and "chapter" not in {kind for kind, _ in _label_numbers(book, s)}]


def _label_numbers(book, section) -> set[tuple[str, int]]:
    """The (name, number) pairs of a section's label and of its part's."""
    labels = [section.label] + ([book.parts[section.part - 1].label] if section.part and book.parts else [])
    pairs = set()
    for label in labels:
        for kind, numbers in _NUMBERED.findall(label):
            pairs |= {(kind.lower(), number) for number in _numbers(numbers)}
    return pairs
