"""Where two people first meet: "When does Jo meet Laurie?", "Where do
Anne and Wentworth first meet?", "How does Watson meet Holmes?". The
question's words ("meet") pick out every meeting in the book, or none; the
first passage that names both is where the book first brings them
together, and it has a slot of its own in retrieval (`passage_naming`
with `also`), its line naming both quoted (digest.py). "Meet again" asks for a later meeting, and is searched.
Where one of the two tells the book ("When does Watson first meet Miss
Morstan?"), the telling says "I", not their name: the first passage where
the telling names the other is where the narrator meets them ("Miss
Morstan entered the room with a firm step"; the first naming both was a
later line of talk, "A word with you, Watson")."""

from __future__ import annotations

import re

from .described import introduces_themself
from .followup import subjects_of, unglossed
from .planning import content_words
from .narrator import NARRATOR_SPOKEN_TO_SHARE, NARRATOR_TOLD_SHARE, name_shares
from .vocabulary import as_written, by_surname

MEETING = "meeting"  # the sources' mark of the passage where two people first stand together
_MEETS = r"(?:meet|meets|met|encounter|encounters|come\s+across|run\s+into)"
# Where the one telling the book meets someone, the other's name is in the telling in at least this share of its
# uses (narrator.py: the teller's is in under NARRATOR_TOLD_SHARE).
_OTHER_TOLD_SHARE = 0.3
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


def _as_written_or_by_surname(name: str) -> re.Pattern:
    return as_written(by_surname(name))


def narrator_first(context, names: tuple[str, str]) -> tuple[tuple[str, str], bool]:
    """The two people met, the one telling the book first where one does
    (a book told in the first person, whose telling all but never writes
    their name, and often the other's), and whether one does."""
    if not context.told_in_first_person:
        return names, False
    shares = [name_shares(context, by_surname(name)) for name in names]
    for narrator in (0, 1):
        (told, spoken_to), (other_told, _) = shares[narrator], shares[1 - narrator]
        if told < NARRATOR_TOLD_SHARE and other_told >= _OTHER_TOLD_SHARE and spoken_to >= NARRATOR_SPOKEN_TO_SHARE:
            return (names[narrator], names[1 - narrator]), True
    return names, False


def first_told_naming(context, name: str) -> int | None:
    """Where the book's telling (not its dialogue) first names someone."""
    return next((named.start() for named in as_written(name).finditer(context.book.text)
                 if context.in_telling(named.start())), None)


def first_met_by_the_teller(context, name: str) -> int | None:
    """Where the one telling the book first meets someone: where its telling
    first names them (by their surname, if they have one), or earlier, where
    they tell their own name ("I am Stapleton, of Merripit House."; the
    telling first names him a page later, in '"Excellent!" said Stapleton.')."""
    told = first_told_naming(context, by_surname(name))
    own = introduces_themself(name).search(context.book.text)
    return min((at for at in (told, own.start() if own else None) if at is not None), default=None)


def told_not_said(sentence: str) -> bool:
    """Whether a line holds no quotation: the telling's, not a line of talk."""
    return not any(mark in sentence for mark in '"\u201c\u201d')
