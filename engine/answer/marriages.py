"""Whom someone marries: "Who does Louisa marry?", "Who is Amy engaged
to?". A search for the question's words finds every line saying "marry"
of anyone ("We do so wish that Charles had married Anne instead"); but the
last sentence that names someone in the same clause as a word of a wedding
or an engagement, and names another person too, is more often than not
where the book tells it or looks back on it: "...released from Louisa by
the astonishing and felicitous intelligence of her engagement with
Benwick", "When Amy and Laurie wrote of their engagement", "Harriet Smith
marries Robert Martin." Where none does, the last naming them and another
beside a word of marrying: "Shall you care if Jo does marry Mr. Bhaer?"
That passage has a slot of its own in retrieval, and its line is quoted
(digest.py), beside the others. Measured on nine such questions of our
books (`reader_questions.py`, written before this was built): 5 answered
by chance lines before, 7 with the first rule, 9 now that the other
person must be no month or place ("Five years after Jo's wedding, ... a
mellow October day") and the name share the word's clause ("When Amy and
Laurie wrote of their engagement, Mrs. March feared that Jo..."). A
wedding told without the partner's name is not found.
"""

from __future__ import annotations

import re

from .deaths import last_sentence_naming, one_person_asked
from .people import names_another_person
from .told_deaths import named_near
from .vocabulary import WORD, without_possessive

MARRIAGE = "marriage"  # the sources' mark of the passage where the book last tells someone's marriage
# Words of a wedding or an engagement that happened; "marry", "husband" and "wife" are as often hopes and
# plans ("Henrietta might do worse than marry Charles Hayter") as what came to be.
# "Engaged" in a task, a dance or a room is not betrothed: "If Jo had not been otherwise engaged", "engaged in
# conversation", "she immediately engaged herself till supper", "the subject which already engaged her mind",
# "the only literary pursuit which engaged Harriet", "Mr. Elton's time is so engaged".
# Nor is one engaged to do something ("Jo had engaged to be as lively and amiable as an absent mind"), but one
# "engaged to be married" is.
_MARRIED = re.compile(r"\b(?:married|(?<!otherwise\s)(?<!\bso\s)(?<!\btoo\s)(?<!\bmuch\s)(?<!\bvery\s)engaged"
                      r"(?!\s+(?-i:[A-Z]))(?!\s+(?:in|on|upon|with|for|herself|himself|themselves"
                      r"|a|an|the|rooms?|lodgings|her|his|their|my|our|your|its|every|all)\b)"
                      r"(?!\s+to\s+(?:be\s+(?!married\b)|dine|go|come|call|spend|meet|walk|ride|dance|play|drink"
                      r"|take|stay)\b)|engagement|wedding|wed|wedded|betrothed)\b", re.I)
# Where no sentence names someone so, one that names a husband or wife to be: "Miss Morstan has done me the
# honor to accept me as a husband in prospective."
_MARRYING = re.compile(r"\b(?:marry|marries|marrying|marriage|husband|wife|bride|bridegroom)\b", re.I)
# What was wished or might have been, not what came to be.
_WISHED = re.compile(r"\b(?:wish|wished|wishes|wishing|instead|if\s+only|would\s+have|might\s+have|should\s+have"
                     r"|could\s+have)\b", re.I)
# A wedding someone's own: "her eldest daughter's engagement" is the daughter's.
_POSSESSIVE_BEFORE = re.compile(r"\b[\w-]+['\u2019]s\b")
_OWNER_REACH = 25  # characters before a word of a wedding where its owner is named
_ASKS = re.compile(
    r"^\W*(?:who|whom)\s+(?:does|did|will|do)\s+(?P<who>.+?)\s+(?:marry|wed|end\s+up\s+marrying"
    r"|get\s+(?:married|engaged)\s+to|become\s+engaged\s+to)\W*$"
    r"|^\W*(?:who|whom)\s+(?:is|was)\s+(?P<who2>.+?)\s+(?:married|engaged)\s+to\W*$"
    r"|^\W*who\s+(?:marries|married|weds)\s+(?P<who3>.+?)\W*$"
    r"|^\W*(?:does|did)\s+(?P<who4>.+?)\s+(?:get\s+married|marry)(?:\s+in\s+the\s+end)?\W*$"
    # "Who is Jo's husband?": the kin word alone found lines of any husband's arm.
    r"|^\W*who\s+(?:is|was|becomes)\s+(?P<who5>.+?)['\u2019]s?\s+(?:future\s+)?(?:husband|wife|spouse|fianc[e\u00e9]e?"
    r"|betrothed|bride|bridegroom)\W*$", re.I)


def marriage_asked(question: str, is_name) -> str | None:
    """Whom a question asks whom they marry, if it names one and nothing
    else; None for any other question."""
    return one_person_asked(_ASKS, question, is_name)


def last_told_married(context, name: str, until: int | None, searched) -> tuple[object, int, int] | None:
    """The passage (of the sections `searched`, read before `until`) holding
    the last sentence that names someone beside a word of a wedding or an
    engagement and names another person as well, else the last naming them
    and another beside any word of marrying, else the last naming them
    beside such a word; with that sentence's span. None where no sentence
    does."""
    return last_sentence_naming(context, name, until, searched,
                                lambda sentence: tells_a_marriage(sentence, name, context.names_a_person),
                                lambda sentence: names_a_marriage_to_be(sentence, name, context.names_a_person),
                                _MARRYING.search)


def tells_a_marriage(sentence: str, name: str, is_person) -> bool:
    """Whether a line names someone beside a word of a wedding or an engagement, and another person too; not
    a wish ("We do so wish that Charles had married Anne instead"), nor another's wedding named beside them
    ("Mrs Musgrove was giving Mrs Croft the history of her eldest daughter's engagement")."""
    if _WISHED.search(sentence):
        return False
    own = {word.lower() for word in WORD.findall(name)}
    spans = [(start, end) for start, end in _spans(_MARRIED, sentence)
             if not any(without_possessive(word).lower() not in own
                        for word in _POSSESSIVE_BEFORE.findall(sentence, max(0, start - _OWNER_REACH), start))]
    return named_near(sentence, name, spans) and names_another_person(sentence, name, is_person)


def names_a_marriage_to_be(sentence: str, name: str, is_person) -> bool:
    """Whether a line names someone beside a word of marrying ("Shall you care if Jo does marry Mr. Bhaer?"),
    and another person too."""
    return named_near(sentence, name, _spans(_MARRYING, sentence)) and names_another_person(sentence, name, is_person)


def _spans(words: re.Pattern, sentence: str) -> list[tuple[int, int]]:
    return [(found.start(), found.end()) for found in words.finditer(sentence)]


def names_another(sentence: str, name: str, is_name, from_the_first_word: bool = False) -> bool:
    """Whether a sentence names someone besides `name`: a word the book writes as a name, past its first word (a
    sentence's first word is capitalised whatever it is) unless told to look at it too ("Laurie was growing...")."""
    own = {word.lower() for word in WORD.findall(name)}
    return any(word[:1].isupper() and word.lower() not in own and is_name(without_possessive(word))
               for word in WORD.findall(sentence)[0 if from_the_first_word else 1:])
