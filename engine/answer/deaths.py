"""How someone dies: "How does John Thornton die?", "Who killed Drebber?",
"Does Beth die?". A search for the question's words finds lines that say
"die" of anyone, and the words of dying gather as thickly round a canary's
funeral as round a death (nearby.py); but where the book last names
someone in the same sentence as a word of death is, more often than not,
where it tells it or looks back on it: "John Thornton was dead.", "I
described Drebber's death to him, and I gave him the same choice of the
poisoned pills.", "...as to the death of Selden" (what tells a death:
told_deaths.py). That passage has a slot of its own in retrieval, and its
line is quoted (digest.py). Asked who killed someone, the last such line
naming another person comes first ("Jefferson Hope, the murderer of Enoch
Drebber and of Joseph Stangerson"); where the whole name tells none, its
last word alone may ("the sudden death of the man Hope"). Measured on 15
deaths in the corpus's books (`reader_questions.py`): 5 quoted before
those rules, 11 now; a death told without the name ("a revolver-shot rang
out" for Dave; Beth "quietly drew her last"; Ginger, "I believe it was
Ginger", after "a cart with a dead horse in it") is not."""

from __future__ import annotations

import re

from .followup import subjects_of, unglossed
from .people import HONORIFIC_WORDS, names_another_person
from .planning import content_words
from .told_deaths import tells_a_death, tells_a_killing_by, tells_another_dead
from .vocabulary import as_written, by_surname

DEATH = "death"  # the sources' mark of the passage where the book last names someone beside a word of death
KILLING = "killing"  # the sources' mark of the passages telling whom someone killed
_ASKS = re.compile(
    r"^\W*(?:how|when|where|why)\s+(?:does|did|do|will)\s+(?P<who>.+?)\s+die(?:\s+in\s+the\s+end)?\W*$"
    r"|^\W*(?:does|did)\s+(?P<who2>.+?)\s+die(?:\s+in\s+the\s+end)?\W*$"
    r"|^\W*what\s+(?:does|did)\s+(?P<who3>.+?)\s+die\s+(?:of|from)\W*$"
    r"|^\W*(?:who|what)\s+(?:kills|killed|murders|murdered|has\s+killed|had\s+killed)\s+(?P<who4>.+?)\W*$"
    r"|^\W*(?:how|when|where|why)\s+(?:is|was|were)\s+(?P<who5>.+?)\s+(?:killed|murdered)\W*$"
    r"|^\W*(?:is|was)\s+(?P<who6>.+?)\s+(?:dead|killed|murdered)(?:\s+in\s+the\s+end)?\W*$"
    r"|^\W*(?:what|how)\s+(?:is|was)\s+(?:the\s+cause\s+of\s+)?(?P<who7>.+?)['\u2019]s?\s+death\W*$"
    r"|^\W*what\s+(?:is|was)\s+the\s+cause\s+of\s+(?:the\s+)?death\s+of\s+(?P<who8>.+?)\W*$", re.I)
_VICTIMS_ASKED = re.compile(
    r"^\W*(?:who|whom)\s+(?:is|was|were|are|gets?|got)\s+(?:killed|murdered|slain)\s+by\s+(?P<who>.+?)\W*$"
    r"|^\W*(?:who|whom)\s+(?:does|did|will|has|had)\s+(?P<who2>.+?)\s+(?:kill|murder|slay|killed|murdered|slain)"
    r"(?:\s+in\s+the\s+end)?\W*$"
    r"|^\W*(?:who|what)\s+(?:is|are|was|were)\s+(?P<who3>.+?)['\u2019]s?\s+victims?\W*$", re.I)
# A full stop after a title is no sentence's end: "Shall you care if Jo does marry Mr. Bhaer?" had ended at "Mr.";
# a paragraph's end is one (a chapter's heading is not the first sentence's start).
_SENTENCE_END = re.compile(r"[.!?](?<!\bMr\.)(?<!\bMrs\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bSt\.)(?<!\bMessrs\.)(?<!\bMme\.)"
                           r"[\"'\u201d\u2019)]*(?=\s|$)|\n[ \t]*\n")
# "Lady Elliot", "Sir Charles", "Mr. Hope"; not a sentence's end ("at Michaelmas. Stokes was dead.").
_CAPITALISED_BEFORE = re.compile(r"\b(?:[A-Z][\w'\u2019-]*|Mr\.|Mrs\.|Dr\.|Ms\.|St\.)\s+$")
_WORD_REACH = 30  # characters before a name looked at for a word of it before it
_SENTENCE_REACH = 300  # how far back a sentence's start is looked for at a time


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
                         *tellings, find_namings=None) -> tuple[object, int, int] | None:
    """The passage (of the sections `searched`, read before `until`) holding
    the last sentence that names someone and that the first of `tellings`
    (each its text to a bool) passes, else the second..., and that
    sentence's span; None where none does. `find_namings` (the text and an
    end to the places it names them) finds them otherwise than `as_written`."""
    text = context.book.text
    end = len(text) if until is None else until
    allowed = None if searched is None else set(searched)
    namings = list(find_namings(text, end) if find_namings else as_written(name).finditer(text, 0, end))
    sentences: list[tuple[int, int]] = []  # of the namings, last first, found as needed by the first telling
    for telling in tellings:
        for place, named in enumerate(reversed(namings)):
            if place == len(sentences):
                sentences.append(sentence_holding(text, named.start(), named.end(), end))
            start, stop = sentences[place]
            if not telling(text[start:stop]):
                continue
            for node in context.passages_overlapping(named.start(), named.end()):
                if (node.end or 0) <= end and (allowed is None or context.section_of.get(node.id) in allowed):
                    return node, start, stop
    return None


def sentences_naming(context, name: str, until: int | None, searched, *tellings) -> list[tuple[object, int, int]]:
    """Every sentence naming someone that the first of `tellings` passes,
    else every one the second passes..., in book order (of the sections
    `searched`, read before `until`): its passage and span. Each sentence
    is found once for all the tellings."""
    text = context.book.text
    end = len(text) if until is None else until
    allowed = None if searched is None else set(searched)
    found: list[list[tuple[object, int, int]]] = [[] for _ in tellings]
    seen = set()
    for named in as_written(name).finditer(text, 0, end):
        span = sentence_holding(text, named.start(), named.end(), end)
        if span in seen:
            continue
        seen.add(span)
        # A later telling is only looked at while no earlier one has passed a sentence.
        place = next((place for place, telling in enumerate(tellings)
                      if not any(found[:place]) and telling(text[span[0]:span[1]])), None)
        node = next((node for node in context.passages_overlapping(named.start(), named.end())
                     if (node.end or 0) <= end and (allowed is None or context.section_of.get(node.id) in allowed)),
                    None) if place is not None else None
        if node is not None:
            found[place].append((node, *span))
    return next((sentences for sentences in found if sentences), [])


def sentence_holding(text: str, start: int, end: int, limit: int | None = None) -> tuple[int, int]:
    """The span of the sentence holding the text at `start`-`end`, ending at `limit` at the latest."""
    limit = len(text) if limit is None else limit
    stop = _SENTENCE_END.search(text, end)
    return _sentence_start(text, start), min(stop.end() if stop else limit, limit)


def _sentence_start(text: str, at: int) -> int:
    """Where the sentence holding offset `at` begins: just past the last sentence end before it."""
    reach = at
    while reach > 0:
        reach = max(0, reach - _SENTENCE_REACH)
        ends = [found.end() for found in _SENTENCE_END.finditer(text, reach, at)]
        if ends:
            return ends[-1]
    return 0


def last_told_dead(context, name: str, until: int | None, searched,
                   killer: bool = False) -> tuple[object, int, int] | None:
    """The passage (of the sections `searched`, read before `until`) holding
    the last sentence that tells someone's death, and that sentence's span;
    None where no sentence does. Asked who killed them (`killer`), the last
    naming another person as well comes first: "Jefferson Hope, the
    murderer of Enoch Drebber and of Joseph Stangerson", not "The murder of
    Stangerson was an incident which was entirely unexpected"."""
    told = last_sentence_naming(context, name, until, searched, *death_tellings(name, context.names_a_person, killer))
    last_word = by_surname(name)
    if told is not None or last_word == name or name.split()[0].lower().rstrip(".") in HONORIFIC_WORDS:
        return told
    # "the sudden death of the man Hope" (Jefferson Hope), "Michael lay dead across the threshold" (Black Michael):
    # the name's last word alone, as a name (in capitals: not "in the hope of capturing or killing"), and not
    # another's ("Lady Elliot died" is no telling of Anne Elliot's; "the death of poor Fairfax" is Miss Fairfax's
    # father's: not for a name with a title).
    alone = re.compile(rf"\b{re.escape(last_word)}\b")

    def namings(text: str, end: int):
        return [found for found in alone.finditer(text, 0, end)
                if not _CAPITALISED_BEFORE.search(text, max(0, found.start() - _WORD_REACH), found.start())]
    return last_sentence_naming(context, last_word, until, searched,
                                *death_tellings(last_word, context.names_a_person, killer), find_namings=namings)


def death_tellings(name: str, is_person, killer: bool) -> list:
    """The tests a sentence telling someone's death passes, best first (`last_told_dead`)."""
    def told(sentence: str) -> bool:
        return tells_a_death(sentence, name)

    def told_with_another(sentence: str) -> bool:
        return told(sentence) and names_another_person(sentence, name, is_person)

    return [told_with_another, told] if killer else [told]


def victims_asked(question: str, is_name) -> str | None:
    """Whom a question asks whom they killed ("Who did Tarzan kill?", "Who
    was killed by the king ape Kerchak?"), if it names one; else None."""
    return one_person_asked(_VICTIMS_ASKED, question, is_name)


def told_killing(context, killer: str, until: int | None, searched) -> list[tuple[object, int, int]]:
    """The sentences telling whom someone killed, in book order: the ones
    where they kill ("Tarzan ... killed Kerchak", "killed by Tarzan"), else
    the ones naming them where another named is told dead ("Once satisfied
    that Clayton was dead, Kerchak turned his attention...")."""
    is_person = context.names_a_person
    return sentences_naming(context, killer, until, searched, lambda sentence: tells_a_killing_by(sentence, killer),
                            lambda sentence: tells_another_dead(sentence, killer, is_person))


def killer_asked(question: str) -> bool:
    """Whether a question asks who killed someone ("Who killed Drebber?"), not how they died."""
    asked = _ASKS.match(unglossed(question))
    return asked is not None and asked.group("who4") is not None  # "Who killed X?" of the forms of `_ASKS`
