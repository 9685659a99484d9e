"""Where two people first meet: "When does Jo meet Laurie?", "Where do
Anne and Wentworth first meet?", "How does Watson meet Holmes?". The
question's words ("meet") pick out every meeting in the book, or none; the
first passage that names both is where the book first brings them
together, and it has a slot of its own in retrieval (`passage_naming`
with `also`), its line naming both quoted (digest.py). "Meet again" asks for a later meeting, and is searched."""

from __future__ import annotations

import re

from .followup import subjects_of, unglossed
from .planning import content_words
from .vocabulary import as_written

MEETING = "meeting"  # the sources' mark of the passage where two people first stand together
_MEETS = r"(?:meet|meets|met|encounter|encounters|come\s+across|run\s+into)"
_FIRST = r"(?:\s+(?:for\s+the\s+first\s+time|first|in\s+the\s+(?:book|novel|story)))*"
_ASKS = re.compile(
    rf"^\W*(?:when|where|how|in\s+which\s+chapter)\s+(?:does|did|do)\s+(?P<who>.+?)\s+(?:first\s+)?{_MEETS}\s+"
    rf"(?P<other>.+?){_FIRST}\W*$"
    rf"|^\W*(?:when|where|how|in\s+which\s+chapter)\s+(?:do|did)\s+(?P<who2>.+?)\s+and\s+(?P<other2>.+?)\s+"
    rf"(?:first\s+)?{_MEETS}(?:\s+each\s+other)?{_FIRST}\W*$", re.I)


def meeting_asked(question: str, is_name) -> tuple[str, str] | None:
    """The two people a question asks where they first meet, each as the
    question names them; None for any other question (or "meet again")."""
    question = unglossed(question)
    asked = _ASKS.match(question)
    if asked is None or re.search(r"\bagain\b", question, re.I):
        return None
    who = asked.group("who") or asked.group("who2")
    other = asked.group("other") or asked.group("other2")
    names = [_name_in(part, is_name) for part in (who, other)]
    return (names[0], names[1]) if all(names) and names[0] != names[1] else None


def _name_in(words: str, is_name) -> str | None:
    """The one name a part of the question holds: capitalised ("Mr Elliot"), or a word the book writes as one."""
    found = subjects_of(f"about {words}")
    if not found:
        found = [word for word in content_words(words) if is_name(word)]
    return found[0] if len(found) == 1 else None


def names_both(sentence: str, names: tuple[str, str]) -> bool:
    return all(_as_written_or_by_surname(name).search(sentence) for name in names)


def names_the_one_met(sentence: str, names: tuple[str, str]) -> bool:
    return _as_written_or_by_surname(names[1]).search(sentence) is not None


def by_surname(name: str) -> str:
    """ "John Brooke" is "Mr. Brooke" or "Brooke" as often as not: the last word of a name of several."""
    return name.split()[-1] if len(name.split()) > 1 else name


def _as_written_or_by_surname(name: str) -> re.Pattern:
    return as_written(by_surname(name))
