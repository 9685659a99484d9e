"""Whom someone marries: "Who does Louisa marry?", "Who is Amy engaged
to?". A search for the question's words finds every line saying "marry"
of anyone ("We do so wish that Charles had married Anne instead"); but the
last sentence that names someone beside a word of a wedding or an
engagement, and names another person too, is more often than not where the
book tells it or looks back on it: "...released from Louisa by the
astonishing and felicitous intelligence of her engagement with Benwick",
"When Amy and Laurie wrote of their engagement", "Robert Martin and
Harriet Smith... were the first to be married". That passage has a slot
of its own in retrieval, and its line is quoted (digest.py), beside the
others. Measured on nine such questions of our books (`reader_questions.py`,
written before this was built): 5 answered by chance lines before, 7 now;
a wedding told without the partner's name ("Five years after Jo's
wedding") is not found, and Emma's last such sentence is the news of
another couple's engagement told to her."""

from __future__ import annotations

import re

from .deaths import last_sentence_naming, one_person_asked
from .vocabulary import WORD, as_written, without_possessive

MARRIAGE = "marriage"  # the sources' mark of the passage where the book last tells someone's marriage
# Words of a wedding or an engagement that happened; "marry", "husband" and "wife" are as often hopes and
# plans ("Henrietta might do worse than marry Charles Hayter") as what came to be.
# "Engaged" in a task, a dance or a room is not betrothed: "If Jo had not been otherwise engaged", "engaged in
# conversation", "she immediately engaged herself till supper".
_MARRIED = re.compile(r"\b(?:married|(?<!otherwise\s)engaged(?!\s+(?:in|on|upon|with|for|herself|himself|themselves"
                      r"|a|an|the|rooms?|lodgings)\b)|engagement|wedding|wed|wedded|betrothed)\b", re.I)
# Where no sentence names someone so, one that names a husband or wife to be: "Miss Morstan has done me the
# honor to accept me as a husband in prospective."
_MARRYING = re.compile(r"\b(?:marry|marries|marrying|marriage|husband|wife|bride|bridegroom)\b", re.I)
_ASKS = re.compile(
    r"^\W*(?:who|whom)\s+(?:does|did|will|do)\s+(?P<who>.+?)\s+(?:marry|wed|end\s+up\s+marrying"
    r"|get\s+(?:married|engaged)\s+to|become\s+engaged\s+to)\W*$"
    r"|^\W*(?:who|whom)\s+(?:is|was)\s+(?P<who2>.+?)\s+(?:married|engaged)\s+to\W*$"
    r"|^\W*who\s+(?:marries|married|weds)\s+(?P<who3>.+?)\W*$"
    r"|^\W*(?:does|did)\s+(?P<who4>.+?)\s+(?:get\s+married|marry)(?:\s+in\s+the\s+end)?\W*$", re.I)


def marriage_asked(question: str, is_name) -> str | None:
    """Whom a question asks whom they marry, if it names one and nothing
    else; None for any other question."""
    return one_person_asked(_ASKS, question, is_name)


def last_told_married(context, name: str, until: int | None, searched) -> tuple[object, int, int] | None:
    """The passage (of the sections `searched`, read before `until`) holding
    the last sentence that names someone beside a word of a wedding or an
    engagement and names another person as well, else the last naming them
    beside any word of marrying; with that sentence's span. None where no
    sentence does."""
    return (last_sentence_naming(context, name, until, searched,
                                 lambda sentence: tells_a_marriage(sentence, name, context.writes_as_name))
            or last_sentence_naming(context, name, until, searched, _MARRYING.search))


def tells_a_marriage(sentence: str, name: str, is_name) -> bool:
    """Whether a line names someone beside a word of a wedding or an engagement, and another person too."""
    return (as_written(name).search(sentence) is not None and _MARRIED.search(sentence) is not None
            and names_another(sentence, name, is_name))


def names_another(sentence: str, name: str, is_name, from_the_first_word: bool = False) -> bool:
    """Whether a sentence names someone besides `name`: a word the book writes as a name, past its first word (a
    sentence's first word is capitalised whatever it is) unless told to look at it too ("Laurie was growing...")."""
    own = {word.lower() for word in WORD.findall(name)}
    return any(word[:1].isupper() and word.lower() not in own and is_name(without_possessive(word))
               for word in WORD.findall(sentence)[0 if from_the_first_word else 1:])
