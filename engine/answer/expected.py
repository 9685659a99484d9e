"""What kind of answer a question expects, where its wording says: "Who
persuaded Anne...?" wants a name, "How old was she...?" a number. The
evidence digest prefers the sentences that hold one (answer-type matching,
as factoid question answering has long done): the embedder ranks a line by
how much it resembles the question, and the line that echoes it most
("Judge Miller's place, it was called.") is seldom the one that answers it.
"""

from __future__ import annotations

import functools
import re

from .ages import AGE_PHRASE, asks_age
from .breeds import BREED
from .character import CHARACTER
from .followup import unglossed
from .homes import HOME, ORIGIN
from .letters import LETTERS
from .looks import LOOKS
from .meanings import MEANING
from .occupations import OCCUPATION
from .people import DAYS_AND_MONTHS, HONORIFIC_WORDS
from .planning import LETTER
from .vocabulary import without_possessive

# Capitalised where they stand, and no answer to "Who...?" alone.
_NOT_AN_ANSWER = HONORIFIC_WORDS | DAYS_AND_MONTHS | {"god", "heaven"}

NAME, NUMBER, AGE, RELATION = "name", "number", "age", "relation"
# Kinds told by words gathered near a name (nearby.py), by the kind's name: what someone looks like, what
# they do for a living, where they live, where they come from, what a name means, what kind of animal they
# are, what they are like, what their letters say. Breed before character: "What kind of dog is Buck?" asks
# both, and the passages taking their slots first fill the section cap.
TELLINGS = (LOOKS, OCCUPATION, HOME, ORIGIN, MEANING, BREED, CHARACTER, LETTERS)
TELLING_KINDS = {telling.name: telling for telling in TELLINGS}

# "Who...", "Whose...", "What is the name of...", "Which dog...": someone (or
# something) named. "Where..." too: a place the book names.
_ASKS_A_NAME = re.compile(
    r"^\W*(?:who|whom|whose|who's|where)\b"
    r"|^\W*what\s+(?:is|was|are|were)\b.*\bnames?\b"
    r"|^\W*(?:which|what)\s+(?:\w+\s+)?(?:man|men|woman|women|person|people|character|girl|boy|dog|horse)\b",
    re.I)
# "Who is Anne's father?", "Who is the brother of Mrs Barrymore?", "Who is Mary married to?", "What is the
# name of Scrooge's clerk?": someone named beside the word of kin or of the place they hold ("Bob, the
# father", "Selden... my younger brother"), not any line with a name.
_KIN = (r"father|mother|parents?|brothers?|sisters?|wife|husband|spouse|sons?|daughters?|children|child|uncle"
        r"|aunt|nephew|niece|cousins?|grandfather|grandmother|grandson|granddaughter|guardian|godfather"
        r"|godmother|stepfather|stepmother|fianc[eé]e?|sweetheart|lover|master|mistress|servant|partner|friend"
        r"|clerk|employer|apprentice|butler|maid|nurse|governess|tutor|landlady|landlord|valet|coachman|groom"
        r"|owner")
_ASKS_KIN = re.compile(
    rf"^\W*who\s+(?:is|was|are|were)\s+(?:(?P<whose>.+?)['\u2019]s?\s+(?:\w+\s+)?(?P<kin>{_KIN})"
    rf"|the\s+(?:\w+\s+)?(?P<kin2>{_KIN})\s+of\s+(?P<whose2>.+?)"
    r"|(?P<whose3>.+?)\s+(?P<married>married|engaged)(?:\s+to)?)\W*$"
    rf"|^\W*what\s+(?:is|was)\s+(?:the\s+name\s+of\s+(?P<whose4>.+?)['\u2019]s?\s+(?:\w+\s+)?(?P<kin4>{_KIN})"
    rf"|(?P<whose5>.+?)['\u2019]s?\s+(?:\w+\s+)?(?P<kin5>{_KIN})['\u2019]s\s+name"
    rf"|(?P<whose6>.+?)['\u2019]s?\s+(?:\w+\s+)?(?P<kin6>{_KIN})\s+called)\W*$", re.I)
_KIN_SINGULAR = {"brother", "sister", "son", "daughter", "parent", "cousin"}
_ONE_OF = {"children": "child"}
# Words of kin the book may use for the one asked: "papa", "mamma".
_KIN_ALSO = {"father": ("papa", "pa"), "mother": ("mamma", "mama", "ma", "marmee"), "wife": ("married",),
             "husband": ("married",)}
# How many words from the word of kin a name may stand, and the words that may stand between them ("her
# father, Sir Walter", "Bob, the father", "my younger brother Mycroft").
_KIN_REACH = 4
BETWEEN_KIN_AND_NAME = HONORIFIC_WORDS | {"the", "his", "her", "my", "your", "their", "our", "own", "dear", "poor",
                                          "young", "younger", "elder", "eldest", "youngest", "late", "good", "is",
                                          "was", "of", "mr", "mrs"}
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
    """NAME, NUMBER, AGE, RELATION, a telling's name (TELLINGS: "looks",
    "occupation", "home", "origin", "meaning", "character", "breed", "letter"), or None where the wording
    does not say ("Why...?", "How does...?")."""
    question = unglossed(question)  # a follow-up as if asked plainly: "Who is his (Holmes) brother?"
    if asks_age(question):  # "How old...?": an age as novels tell it ("at nineteen"), not any number
        return AGE
    if BREED.asked(question):  # "What breed is Buck?", "What kind of dog is Buck?": words of breed by the name
        return BREED.name
    if CHARACTER.asked(question):  # "What is Scrooge like?", "Describe Jo's character": words of temper and conduct
        return CHARACTER.name
    if LETTERS.asked(question):  # "What does Wentworth's letter say?": words of writing by the name ("It ran:")
        return LETTERS.name
    if LOOKS.asked(question):  # "What does Stapleton look like?": words of looks ("clean-shaven, prim-faced")
        return LOOKS.name
    if OCCUPATION.asked(question):  # "What is Stapleton's job?": a calling by the name ("the naturalist")
        return OCCUPATION.name
    if HOME.asked(question):  # "Where does Scrooge live?": words of dwelling by the name ("lived in chambers")
        return HOME.name
    if ORIGIN.asked(question):  # "Where is Buck from?": words of dwelling and birth by the name ("Here he was born")
        return ORIGIN.name
    if MEANING.asked(question):  # "What does Tarzan mean?": a word of meaning by the name ("which meant")
        return MEANING.name
    if _ASKS_KIN.search(question):
        return RELATION
    if _ASKS_A_NUMBER.search(question):
        return NUMBER
    if _ASKS_A_NAME.search(question):
        return NAME
    return None


def holds_answer(kind: str, sentence: str, asked: set[str], rarity, key, kin: tuple[str, ...] = ()) -> bool:
    """Whether the sentence holds an answer of that kind: a number, or a name
    the book uses (`rarity`: the book's `vocabulary.Rarity`) other than those
    the question has (`asked`, words as `key` makes them: "Who nurses
    Buck...?" is not answered by Buck) and other than the few it uses
    everywhere; for RELATION, such a name beside a word of `kin` the
    question asks (`asked_kin`: "my brother Mycroft")."""
    if kind == AGE:
        return AGE_PHRASE.search(sentence) is not None
    if kind == NUMBER:
        return _NUMBER.search(sentence) is not None
    if kind == RELATION:
        return _names_kin(sentence, kin, asked, rarity, key)
    return any(_a_name_answering(found, asked, rarity, key) for found in _WITHIN.finditer(sentence))


def asked_kin(question: str) -> tuple[str, ...]:
    """The words of kin a question asks someone's ("father", "papa", "pa"); none for any other question."""
    found = _ASKS_KIN.search(unglossed(question))
    if found is None:
        return ()
    if found.group("married"):
        return ("married", "wife", "husband", "engaged")
    kin = next(found.group(group) for group in ("kin", "kin2", "kin4", "kin5", "kin6") if found.group(group)).lower()
    # Asked in the plural ("Who are Jo's sisters?"), the book names each one beside the singular: "my sister Margaret".
    one = _ONE_OF.get(kin, kin[:-1] if kin.endswith("s") and kin[:-1] in _KIN_SINGULAR else kin)
    return tuple(dict.fromkeys((one, kin, *_KIN_ALSO.get(one, ()))))


def _names_kin(sentence: str, kin: tuple[str, ...], asked: set[str], rarity, key) -> bool:
    """Whether a name other than those asked stands by a word of kin asked,
    with nothing but words like "his", "the", "younger" or a title between:
    "my brother Mycroft", "Bob, the father"; not "her father and Elizabeth"."""
    words = list(re.finditer(r"[\w'\u2019]+", sentence))
    pattern = _kin_pattern(kin)
    for place, word in enumerate(words):
        if not pattern.match(word.group()):
            continue
        for step in (-1, 1):
            other = place + step
            while 0 <= other < len(words) and abs(other - place) <= _KIN_REACH:
                if _a_name_answering(words[other], asked, rarity, key, group=0):
                    return True
                if words[other].group().lower() not in BETWEEN_KIN_AND_NAME:
                    break
                other += step
    return False


@functools.lru_cache(maxsize=16)
def _kin_pattern(kin: tuple[str, ...]) -> re.Pattern:
    return re.compile(rf"^(?:{'|'.join(map(re.escape, kin))})s?$", re.I)


def _a_name_answering(found: re.Match, asked: set[str], rarity, key, group: int = 1) -> bool:
    word = without_possessive(found.group(group))
    return (word[:1].isupper() and word.lower() not in _NOT_AN_ANSWER and key(word) not in asked
            and _tells_apart(word, rarity))


def _tells_apart(word: str, rarity) -> bool:
    """A name the book uses, in at most a third of its passages: the hero's
    name (Buck, Scrooge, Anne) or the Ghost's is in so many lines that it
    tells none from another. Measured on LiteraryQA (as in digest.py):
    0.200 with every name, 0.203 with these (before "one" left the numbers)."""
    return len(word) > 2 and rarity.is_name(word) and rarity.used(word) <= rarity.count / 3
