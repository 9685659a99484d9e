"""How someone dies: "How does John Thornton die?", "Who killed Drebber?",
"Does Beth die?". A search for the question's words finds lines that say
"die" of anyone, and the words of dying gather as thickly round a canary's
funeral as round a death (nearby.py); but where the book last names
someone in the same sentence as a word of death is, more often than not,
where it tells it or looks back on it: "John Thornton was dead.", "I
described Drebber's death to him, and I gave him the same choice of the
poisoned pills.", "...as to the death of Selden". That passage has a slot
of its own in retrieval, and its line is quoted (digest.py). Measured on
12 deaths in the corpus's books: 7 told so; a death told without the name
("a revolver-shot rang out" for Dave) is not."""

from __future__ import annotations

import re

from .followup import subjects_of, unglossed
from .planning import content_words
from .vocabulary import as_written

DEATH = "death"  # the sources' mark of the passage where the book last names someone beside a word of death
_DEATH_WORDS = re.compile(r"\b(?:dead|died|dies|dying|death|deaths|killed|kill|kills|murdered|murder|slain|slew"
                          r"|drowned|buried|grave|corpse|perished|lifeless|poisoned|strangled|executed|hanged)\b",
                          re.I)
_ASKS = re.compile(
    r"^\W*(?:how|when|where|why)\s+(?:does|did|do|will)\s+(?P<who>.+?)\s+die(?:\s+in\s+the\s+end)?\W*$"
    r"|^\W*(?:does|did)\s+(?P<who2>.+?)\s+die(?:\s+in\s+the\s+end)?\W*$"
    r"|^\W*what\s+(?:does|did)\s+(?P<who3>.+?)\s+die\s+(?:of|from)\W*$"
    r"|^\W*(?:who|what)\s+(?:kills|killed|murders|murdered|has\s+killed|had\s+killed)\s+(?P<who4>.+?)\W*$"
    r"|^\W*(?:how|when|where|why)\s+(?:is|was|were)\s+(?P<who5>.+?)\s+(?:killed|murdered)\W*$"
    r"|^\W*(?:is|was)\s+(?P<who6>.+?)\s+(?:dead|killed|murdered)(?:\s+in\s+the\s+end)?\W*$"
    r"|^\W*(?:what|how)\s+(?:is|was)\s+(?:the\s+cause\s+of\s+)?(?P<who7>.+?)['\u2019]s?\s+death\W*$"
    r"|^\W*what\s+(?:is|was)\s+the\s+cause\s+of\s+(?:the\s+)?death\s+of\s+(?P<who8>.+?)\W*$", re.I)
_SENTENCE_END = re.compile(r"[.!?][\"'\u201d\u2019)]*(?=\s|$)")


def death_asked(question: str, is_name) -> str | None:
    """Whom a question asks how (or whether) they die, if it names one and
    nothing else; None for any other question."""
    return one_person_asked(_ASKS, question, is_name)


def one_person_asked(asks: re.Pattern, question: str, is_name) -> str | None:
    """The one person a question of the form `asks` names (its first group
    that matched); None for any other question, or one naming several."""
    asked = asks.match(unglossed(question))
    if asked is None:
        return None
    who = next(group for group in asked.groups() if group)
    names = subjects_of(f"about {who}") or [word for word in content_words(who) if is_name(word)]
    return names[0] if len(names) == 1 else None


def last_sentence_naming(context, name: str, until: int | None, searched,
                         telling) -> tuple[object, int, int] | None:
    """The passage (of the sections `searched`, read before `until`) holding
    the last sentence that names someone and that `telling` (its text to a
    bool) passes, and that sentence's span; None where none does."""
    text = context.book.text
    end = len(text) if until is None else until
    allowed = None if searched is None else set(searched)
    for named in reversed(list(as_written(name).finditer(text, 0, end))):
        start = max(text.rfind(".", 0, named.start()), text.rfind("!", 0, named.start()),
                    text.rfind("?", 0, named.start())) + 1
        stop = _SENTENCE_END.search(text, named.end())
        stop = min(stop.end() if stop else end, end)
        if not telling(text[start:stop]):
            continue
        for node in context.passages_overlapping(named.start(), named.end()):
            if (node.end or 0) <= end and (allowed is None or context.section_of.get(node.id) in allowed):
                return node, start, stop
    return None


def last_told_dead(context, name: str, until: int | None, searched) -> tuple[object, int, int] | None:
    """The passage (of the sections `searched`, read before `until`) holding
    the last sentence that names someone beside a word of death, and that
    sentence's span; None where no sentence does."""
    return last_sentence_naming(context, name, until, searched, _DEATH_WORDS.search)


def tells_a_death(sentence: str, name: str) -> bool:
    return as_written(name).search(sentence) is not None and _DEATH_WORDS.search(sentence) is not None
