"""What kind of answer a question expects, where its wording says: "Who
persuaded Anne...?" wants a name, "How old was she...?" a number. The
evidence digest prefers the sentences that hold one (answer-type matching,
as factoid question answering has long done): the embedder ranks a line by
how much it resembles the question, and the line that echoes it most
("Judge Miller's place, it was called.") is seldom the one that answers it.
"""

from __future__ import annotations

import re

from .ages import AGE_PHRASE, asks_age
from .homes import HOME
from .looks import LOOKS
from .occupations import OCCUPATION
from .people import DAYS_AND_MONTHS, HONORIFIC_WORDS
from .planning import LETTER
from .vocabulary import without_possessive

# Capitalised where they stand, and no answer to "Who...?" alone.
_NOT_AN_ANSWER = HONORIFIC_WORDS | DAYS_AND_MONTHS | {"god", "heaven"}

NAME, NUMBER, AGE = "name", "number", "age"
# Kinds told by words gathered near a name (nearby.py), by the kind's name: what someone looks like, what
# they do for a living, where they live.
TELLINGS = (LOOKS, OCCUPATION, HOME)
TELLING_KINDS = {telling.name: telling for telling in TELLINGS}

# "Who...", "Whose...", "What is the name of...", "Which dog...": someone (or
# something) named. "Where..." too: a place the book names.
_ASKS_A_NAME = re.compile(
    r"^\W*(?:who|whom|whose|who's|where)\b"
    r"|^\W*what\s+(?:is|was|are|were)\b.*\bnames?\b"
    r"|^\W*(?:which|what)\s+(?:\w+\s+)?(?:man|men|woman|women|person|people|character|girl|boy|dog|horse)\b",
    re.I)
# A "when" question asks for circumstances as often as for a date: only these.
# "One" is left out of the numbers below: "no one", "one of them".
_ASKS_A_NUMBER = re.compile(r"^\W*(?:how\s+(?:old|many|much|long)|(?:in\s+)?what\s+(?:year|age))\b", re.I)
_NUMBER = re.compile(
    r"\b(?:\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen"
    r"|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|dozen)\b",
    re.I)
# A capitalised word inside a sentence: where a sentence or a quotation
# opens, any word is ('"Remember it!" cried Scrooge').
_WITHIN = re.compile(rf"(?<=[{LETTER},;:]\s)([{LETTER}][{LETTER}'\u2019\-]+)")


def expected_answer(question: str) -> str | None:
    """NAME, NUMBER, AGE, a telling's name (TELLINGS: "looks", "occupation", "home"), or None
    where the wording does not say ("Why...?", "How does...?")."""
    if asks_age(question):  # "How old...?": an age as novels tell it ("at nineteen"), not any number
        return AGE
    if LOOKS.asked(question):  # "What does Stapleton look like?": words of looks ("clean-shaven, prim-faced")
        return LOOKS.name
    if OCCUPATION.asked(question):  # "What is Stapleton's job?": a calling by the name ("the naturalist")
        return OCCUPATION.name
    if HOME.asked(question):  # "Where does Scrooge live?": words of dwelling by the name ("lived in chambers")
        return HOME.name
    if _ASKS_A_NUMBER.search(question):
        return NUMBER
    if _ASKS_A_NAME.search(question):
        return NAME
    return None


def holds_answer(kind: str, sentence: str, asked: set[str], rarity, key) -> bool:
    """Whether the sentence holds an answer of that kind: a number, or a name
    the book uses (`rarity`: the book's `vocabulary.Rarity`) other than those
    the question has (`asked`, words as `key` makes them: "Who nurses
    Buck...?" is not answered by Buck) and other than the few it uses
    everywhere."""
    if kind == AGE:
        return AGE_PHRASE.search(sentence) is not None
    if kind == NUMBER:
        return _NUMBER.search(sentence) is not None
    for found in _WITHIN.finditer(sentence):
        word = without_possessive(found.group(1))
        if (word[0].isupper() and word.lower() not in _NOT_AN_ANSWER and key(word) not in asked
                and _tells_apart(word, rarity)):
            return True
    return False


def _tells_apart(word: str, rarity) -> bool:
    """A name the book uses, in at most a third of its passages: the hero's
    name (Buck, Scrooge, Anne) or the Ghost's is in so many lines that it
    tells none from another. Measured on LiteraryQA (as in digest.py):
    0.200 with every name, 0.203 with these (before "one" left the numbers)."""
    return len(word) > 2 and rarity.is_name(word) and rarity.used(word) <= rarity.count / 3
