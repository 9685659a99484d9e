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
from .vocabulary import WORD, as_written

DEATH = "death"  # the sources' mark of the passage where the book last names someone beside a word of death
_DEATH_WORDS = re.compile(r"\b(?:dead|died|dies|dying|death|deaths|killed|kill|kills|murdered|murder|slain|slew"
                          r"|drowned|buried|grave|corpse|perished|lifeless|poisoned|strangled|executed|hanged)\b",
                          re.I)
# A charge names the dead without telling the death: "the man Hope, who was suspected of the murder of Mr. Enoch
# Drebber".
_CHARGED_WITH = re.compile(r"\b(?:suspected|accused|convicted|guilty|innocent|arrested|tried|charged|acquitted)"
                           r"\s+(?:of|with|for)\s+(?:the\s+|a\s+|his\s+|her\s+)?$", re.I)
_ASKS = re.compile(
    r"^\W*(?:how|when|where|why)\s+(?:does|did|do|will)\s+(?P<who>.+?)\s+die(?:\s+in\s+the\s+end)?\W*$"
    r"|^\W*(?:does|did)\s+(?P<who2>.+?)\s+die(?:\s+in\s+the\s+end)?\W*$"
    r"|^\W*what\s+(?:does|did)\s+(?P<who3>.+?)\s+die\s+(?:of|from)\W*$"
    r"|^\W*(?:who|what)\s+(?:kills|killed|murders|murdered|has\s+killed|had\s+killed)\s+(?P<who4>.+?)\W*$"
    r"|^\W*(?:how|when|where|why)\s+(?:is|was|were)\s+(?P<who5>.+?)\s+(?:killed|murdered)\W*$"
    r"|^\W*(?:is|was)\s+(?P<who6>.+?)\s+(?:dead|killed|murdered)(?:\s+in\s+the\s+end)?\W*$"
    r"|^\W*(?:what|how)\s+(?:is|was)\s+(?:the\s+cause\s+of\s+)?(?P<who7>.+?)['\u2019]s?\s+death\W*$"
    r"|^\W*what\s+(?:is|was)\s+the\s+cause\s+of\s+(?:the\s+)?death\s+of\s+(?P<who8>.+?)\W*$", re.I)
# A full stop after a title is no sentence's end: "Shall you care if Jo does marry Mr. Bhaer?" had ended at "Mr.";
# a paragraph's end is one (a chapter's heading is not the first sentence's start).
_SENTENCE_END = re.compile(r"[.!?](?<!\bMr\.)(?<!\bMrs\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bSt\.)(?<!\bMessrs\.)(?<!\bMme\.)"
                           r"[\"'\u201d\u2019)]*(?=\s|$)|\n[ \t]*\n")
_NEAR_WORDS = 10  # how many words apart a name and a word of what befell them may be and be told together
_CLAUSE_BREAK = re.compile(r"[,;:()\u2014\u2013]|--")
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
                         *tellings) -> tuple[object, int, int] | None:
    """The passage (of the sections `searched`, read before `until`) holding
    the last sentence that names someone and that the first of `tellings`
    (each its text to a bool) passes, else the second..., and that
    sentence's span; None where none does."""
    text = context.book.text
    end = len(text) if until is None else until
    allowed = None if searched is None else set(searched)
    namings = list(as_written(name).finditer(text, 0, end))
    sentences: list[tuple[int, int]] = []  # of the namings, last first, found as needed by the first telling
    for telling in tellings:
        for place, named in enumerate(reversed(namings)):
            if place == len(sentences):
                stop = _SENTENCE_END.search(text, named.end())
                sentences.append((_sentence_start(text, named.start()), min(stop.end() if stop else end, end)))
            start, stop = sentences[place]
            if not telling(text[start:stop]):
                continue
            for node in context.passages_overlapping(named.start(), named.end()):
                if (node.end or 0) <= end and (allowed is None or context.section_of.get(node.id) in allowed):
                    return node, start, stop
    return None


def _sentence_start(text: str, at: int) -> int:
    """Where the sentence holding offset `at` begins: just past the last sentence end before it."""
    reach = at
    while reach > 0:
        reach = max(0, reach - _SENTENCE_REACH)
        ends = [found.end() for found in _SENTENCE_END.finditer(text, reach, at)]
        if ends:
            return ends[-1]
    return 0


def last_told_dead(context, name: str, until: int | None, searched) -> tuple[object, int, int] | None:
    """The passage (of the sections `searched`, read before `until`) holding
    the last sentence that names someone beside a word of death, and that
    sentence's span; None where no sentence does."""
    return last_sentence_naming(context, name, until, searched, lambda sentence: tells_a_death(sentence, name))


def tells_a_death(sentence: str, name: str) -> bool:
    """Whether a line names someone in the same clause as a word of death that is not a charge's: "the sudden death
    of the man Hope, who was suspected of the murder of Mr. Enoch Drebber" tells no death of Drebber's."""
    deaths = [(found.start(), found.end()) for found in _DEATH_WORDS.finditer(sentence)
              if _CHARGED_WITH.search(sentence, 0, found.start()) is None]
    return named_near(sentence, name, deaths)


def named_near(sentence: str, name: str, spans: list[tuple[int, int]]) -> bool:
    """Whether the sentence names someone in the same clause as one of the `spans`, a few words apart."""
    for named in as_written(name).finditer(sentence):
        for start, end in spans:
            between = sentence[min(end, named.end()):max(start, named.start())]
            if not _CLAUSE_BREAK.search(between) and len(WORD.findall(between)) <= _NEAR_WORDS:
                return True
    return False
