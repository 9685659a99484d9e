"""How someone changes: "How does Scrooge change?", "How is Scrooge
different at the end?", "How do the spirits change Scrooge?". A search for
the question's words finds every line saying "change" of anything ("the
Ghost grew older", "on 'Change, amongst the merchants"), and the embedder
ranks a short line that only names him ('"You are?" repeated Scrooge')
over the one that tells it. The answer is how the book first says who
they are, and how it leaves them: in the last few paragraphs naming
them, the last sentence from their name on whose word of change is said
of them, by name or as "he" or "she" ("He became as good a friend, as
good a master, and as good a man, as the good old city knew"; "It was
Ginger! but how changed!"; "Amy's nature was growing sweeter, deeper, and
more tender"; not "Laurie was growing more serious" of Amy). Both
passages have slots of their own in retrieval, and their lines are
quoted (digest.py). Measured on nine such questions of our books
(`reader_questions.py`, written before this was built): 1 answered by a
chance line before, 8 now; Meg's last word of change is chapters before
the end ("how much improved her sister Meg was")."""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Callable

from ..index.chunking import sentence_spans
from .deaths import last_sentence_naming, one_person_asked
from .described import describes
from .followup import unglossed
from .marriages import names_another
from .people import HONORIFIC_WORDS
from .vocabulary import WORD, as_written, without_possessive

CHANGE = "change"  # the sources' mark of the passage where the book last tells someone changed
FIRST_TOLD = "first told"  # and of the passage that first says who they are, for the change
# The last paragraphs naming someone: where the book leaves them. Further back, a word of change is
# as often about a scene ("the Ghost grew older") as about them.
_LAST_PARAGRAPHS = 8
_CHANGED = re.compile(r"\b(?:chang(?:e|ed|es|ing)|became|become|becomes|alter(?:ed|ation)|no\s+longer"
                      r"|transform(?:ed|ation)|grown|growing|grew|improved)\b", re.I)
# The fewest words of a line quoted for what someone was, before they changed.
_DESCRIBING_WORDS = 6
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+")
# Who a line's word of change may be about, where the line follows their name in its paragraph.
_PRONOUNS = {"he", "she", "him", "his", "her"}
# What may follow "change" and still ask how they change in the story as a whole: "over the story", "by the end
# of the book", "as a character"; not "from the small boy who replaces James into...", a question of its own.
_TAIL = (r"(?:\s+(?:over|during|throughout|through|across|in|by|at|towards?|from)"
         r"(?:\s+(?:the|this|its|his|her|course|whole|rest|end|ending|beginning|start|story|book|novel|tale|chapters?"
         r"|years?|time|of|to|and|finish|first|last|pages?))+)?(?:\s+as\s+an?\s+(?:character|person))?")
_ASKS = re.compile(
    rf"^\W*(?:how|in\s+what\s+ways?)\s+(?:does|did|do|has|have|will)\s+(?P<who>.+?)\s+"
    rf"(?:change|changed|develop|developed|evolve|evolved|grow|grown|mature|matured){_TAIL}\W*$"
    rf"|^\W*(?:how|in\s+what\s+ways?)\s+(?:does|did|do|has|have)\s+.+?\s+(?:change|changed|transform|transformed)"
    rf"\s+(?P<who2>.+?)\W*$"
    rf"|^\W*(?:how|in\s+what\s+ways?)\s+(?:is|was)\s+(?P<who3>.+?)\s+(?:changed|different|transformed){_TAIL}\W*$"
    rf"|^\W*(?:does|did)\s+(?P<who4>.+?)\s+(?:ever\s+)?(?:change|grow\s+up){_TAIL}\W*$"
    rf"|^\W*what\s+(?:changes|change)\s+(?:in|does)\s+(?P<who5>.+?)(?:\s+(?:undergo|go\s+through|make))?{_TAIL}\W*$"
    rf"|^\W*(?:describe|what\s+is|trace)\s+(?P<who6>.+?)['\u2019]s?\s+(?:transformation|change|development"
    rf"|character\s+arc|arc){_TAIL}\W*$", re.I)


def says_what_they_were(name: str) -> Callable[[str], bool]:
    """Whether a sentence (or any sentence of a passage) says who someone is
    (described.py) in a few words at least: "Scrooge was his sole executor,
    his sole administrator..."; not "Buck was the exception", which says
    too little of what he was before he changed."""
    describing = describes(name)
    return lambda text: any(describing(sentence) and len(sentence.split()) >= _DESCRIBING_WORDS
                            for sentence in _SENTENCE_BREAK.split(text))


def change_asked(question: str, is_name) -> str | None:
    """Whom a question asks how they change, if it names one and nothing
    else ("How do the spirits change Scrooge?"; not "How does Scrooge change
    his mind about Christmas?", nor "How does the nephew's invitation
    develop?"); None for any other question."""
    asked = _ASKS.match(unglossed(question))
    name = one_person_asked(_ASKS, question, is_name) if asked else None
    if name is None:
        return None
    who = next(group for group in asked.groups() if group)
    own = {word.lower() for word in WORD.findall(name)} | HONORIFIC_WORDS | {"the"}
    return name if all(word.lower() in own for word in WORD.findall(without_possessive(who))) else None


def tells_a_change_of(sentence: str, name: str, is_name) -> bool:
    """Whether a line tells a change of someone: the last name or pronoun
    before its word of change is theirs ("Amy's nature was growing
    sweeter"), or "he", "she" where no one else is named before it ("He
    became as good a friend"); not "Some people laughed to see the
    alteration in him", "Laurie was growing more serious" of Amy."""
    changed = _CHANGED.search(sentence)
    if changed is None:
        return False
    own = {word.lower() for word in WORD.findall(name)}
    before = list(WORD.finditer(sentence, 0, changed.start()))
    for word in reversed(before):
        token = without_possessive(word.group())
        if token.lower() in own:
            return True
        if token.lower() in _PRONOUNS:
            return not names_another(sentence[:word.start()], name, is_name, from_the_first_word=True)
        if token[:1].isupper() and is_name(token):
            return False
    return False


def where_they_are_left(context, name: str, until: int | None, searched) -> tuple[object, int, int] | None:
    """The passage (of the sections `searched`, read before `until`) holding
    the last line telling a change of someone (`last_told_changed`), else the
    last sentence naming them; with that line's span. None where no sentence
    names them."""
    return (last_told_changed(context, name, until, searched)
            or last_sentence_naming(context, name, until, searched, lambda sentence: True))


def last_told_changed(context, name: str, until: int | None, searched) -> tuple[object, int, int] | None:
    """The passage (of the sections `searched`, read before `until`) holding
    the last sentence of the last few paragraphs naming someone, at or after
    their name, that tells a change of them (`tells_a_change_of`); with that
    sentence's span. None where none does."""
    text = context.book.text
    end = len(text) if until is None else until
    allowed = None if searched is None else set(searched)
    paragraphs = context.book.paragraphs
    starts = [paragraph.start for paragraph in paragraphs]
    # The last few paragraphs naming them, last first, each with where it first does.
    last: dict[int, int] = {}
    for found in reversed(list(as_written(name).finditer(text, 0, end))):
        place = bisect_right(starts, found.start()) - 1
        if place >= 0 and (place in last or len(last) < _LAST_PARAGRAPHS):
            last[place] = found.start()
        elif place not in last:
            break
    for place, first in sorted(last.items(), reverse=True):
        paragraph = paragraphs[place]
        for start, stop in reversed(sentence_spans(text, paragraph.start, min(paragraph.end, end))):
            if stop <= first or not tells_a_change_of(text[start:stop], name, context.writes_as_name):
                continue
            for node in context.passages_overlapping(start, stop):
                if (node.end or 0) <= end and (allowed is None or context.section_of.get(node.id) in allowed):
                    return node, start, stop
    return None
