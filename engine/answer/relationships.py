"""How two people are related: "What is the relationship between Scrooge
and Marley?", "How is Thaddeus Sholto related to Bartholomew?", "How are
Bobbie and Peter related?". Its words find scenes where both are present
("He placed himself between Griffin and the nearest window"); where the book
says what one is to the other, it names both in one sentence beside a word
of kin or standing ("Scrooge had not bestowed one thought on Marley, since
his last mention of his seven years' dead partner"; "Lucy Ferrier... her
adopted father" for John Ferrier, by his surname), or one of them beside
such a word with the other named a few sentences away ("He married Beryl
Garcia", of Stapleton; "Mr. Thaddeus Sholto, brother of the deceased").
The first and the last such sentences (where the book brings the tie in,
and where it leaves it) have slots of their own in retrieval, and the
digest quotes them; of either, those where the word stands by one of the
names come first ("her own sister, Mary", "Kala, his mother"). A tie told
with neither name near ("Duchess was the mother of them both", Black
Beauty telling) is not found, and one beside another's word of kin may be
taken for theirs ("Thornton's partners")."""

from __future__ import annotations

import functools
import re

from .deaths import sentences_naming
from .expected import BETWEEN_KIN_AND_NAME
from .followup import unglossed
from .vocabulary import as_written, by_surname, without_possessive

RELATIONSHIP = "relationship"  # the sources' mark of a passage telling what one is to the other
# Words of kin, and of the other ties a reader asks about ("twin", "adopted", "engaged", "neighbour"); not
# "children" nor "child": "the three children went home up the hill" says nothing of a tie. A set of words, not a
# pattern: every sentence naming either is looked at (Buck: 400), and a pattern of a hundred words took half the time.
_TIES = frozenset("""
    father fathers mother mothers parent parents brother brothers sister sisters wife wives husband husbands spouse
    son sons daughter daughters uncle uncles aunt aunts nephew nephews niece nieces cousin cousins grandfather
    grandmother grandson granddaughter guardian godfather godmother stepfather stepmother fiance fiancee fiancé
    fiancée betrothed sweetheart lover lovers master mistress servant servants partner partners friend friends clerk
    employer apprentice butler maid nurse governess tutor landlady landlord valet coachman groom owner twin twins
    twin-brother twin-sister half-brother half-sister brother-in-law sister-in-law adopted adopt foster married marry
    marriage engaged engagement neighbour neighbours neighbor neighbors relation relations relative relatives related
    kinsman kinswoman companion companions comrade comrades rival rivals enemy enemies love loved student students
    schoolfellow playfellow
""".split())
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_NAME = r"(?P<{}>(?:the\s+)?[\w'\u2019.-]+(?:\s+[\w'\u2019.-]+){{0,3}}?)"
_ASKS = [re.compile(pattern.format(a=_NAME.format("a"), b=_NAME.format("b")), re.I) for pattern in (
    r"^\W*(?:what(?:\s+is|\s+was|['\u2019]s)\s+|describe\s+)?(?:the\s+)?(?:relationship|relation|connection|tie|bond)"
    r"\s+(?:between|of)\s+{a}\s+(?:and|to|with)\s+{b}\W*$",
    r"^\W*(?:what(?:\s+is|\s+was|['\u2019]s)\s+|describe\s+)?{a}\s+and\s+{b}['\u2019]s?\s+(?:relationship|relation"
    r"|connection)\W*$",
    r"^\W*how\s+(?:is|was)\s+{a}\s+(?:related|connected)\s+to\s+{b}\W*$",
    r"^\W*what\s+(?:\w+\s+)?(?:relationship|relation|connection|tie)\s+(?:does|did|do)\s+{a}\s+(?:share|have|bear)"
    r"\s+(?:with|to)\s+{b}\W*$",
    r"^\W*how\s+(?:are|were)\s+{a}\s+and\s+{b}\s+(?:related|connected)(?:\s+to\s+each\s+other)?\W*$",
    r"^\W*how\s+(?:do|did)\s+{a}\s+and\s+{b}\s+know\s+each\s+other\W*$",
    r"^\W*(?:what|who)\s+(?:is|was)\s+{a}\s+to\s+{b}\W*$",
)]
# How far before or after a sentence telling a tie the other may be named (a few sentences).
_NEAR = 400
# How many words from a name a word of kin may stand ("her own sister, Mary": three).
_TIE_REACH = 4
# A sentence longer than this is a list or a paragraph of speech, not a line saying what one is to the other.
_LONGEST = 400


def relationship_asked(question: str, writes_as_name) -> tuple[str, str] | None:
    """The two people a question asks how they are related, as it names
    them (both written as names by the book); None for any other question."""
    question = unglossed(question)
    for asks in _ASKS:
        asked = asks.match(question)
        if asked is None:
            continue
        pair = tuple(re.sub(r"^the\s+", "", without_possessive(asked[group].strip()), flags=re.I)
                     for group in ("a", "b"))
        if all(writes_as_name(name) for name in pair) and pair[0].lower() != pair[1].lower():
            return pair
    return None


def tells_the_tie(sentence: str, pair: tuple[str, str], both: bool = True) -> bool:
    """Whether a sentence names both (or one, unless `both`) beside a word of
    kin or standing; a name of several words by its surname too ("Lucy
    Ferrier... her adopted father" for John Ferrier)."""
    named = sum(_names(name).search(sentence) is not None for name in pair)
    return named >= (2 if both else 1) and _holds_a_tie(sentence)


def _holds_a_tie(sentence: str) -> bool:
    return not _TIES.isdisjoint(_WORD.findall(sentence.lower()))


# Kept: each sentence naming either is matched against the other's (Buck is named in 400).
@functools.lru_cache(maxsize=256)
def _names(name: str) -> re.Pattern:
    return as_written(by_surname(name))


_TOKEN = re.compile(r"[\w'\u2019-]+")
_POSSESSIVE = re.compile(r"['\u2019]s?$")


def tie_beside(sentence: str, name: str) -> bool:
    """Whether a word of kin or standing stands by the name, with nothing
    but words like "his", "own", "the" between: "Kala, his mother", "her own
    sister, Mary", "My twin-brother Bartholomew"; not a word of kin elsewhere
    in the sentence ("Anne walked with Mary, and the vicar's daughter
    waved")."""
    tokens = [(found.start(), found.end(), found.group().lower()) for found in _TOKEN.finditer(sentence)]
    for named in _names(name).finditer(sentence):
        before = [token for token in tokens if token[1] <= named.start()][::-1]
        after = [token for token in tokens if token[0] >= named.end()]
        for side in (before, after):
            for _, _, word in side[:_TIE_REACH]:
                word = _POSSESSIVE.sub("", word)
                if word in _TIES:
                    return True
                if word not in BETWEEN_KIN_AND_NAME:
                    break
    return False


def sentences_telling_the_tie(context, pair: tuple[str, str], until: int | None, searched) -> list:
    """The first and the last sentences naming both beside a word of kin or
    standing (of the sections `searched`, read before `until`), each
    (passage, start, end), in book order and in different passages; where
    none does, of those naming one of them beside such a word with the
    other named within a few sentences. Of either, those where the word
    stands by one of the names first (`tie_beside`: "her own sister, Mary"
    with Anne, not the Baronetage's "...Elizabeth, daughter of James
    Stevenson..." naming Anne and Mary)."""
    text = context.book.text
    first, second = pair
    beside_a_tie = {name: sentences_naming(context, name, until, searched, _holds_a_tie) for name in pair}
    for near in (0, _NEAR):
        for by_the_name in (True, False):
            found = {}
            for name, other in ((first, second), (second, first)):
                for node, start, end in beside_a_tie[name]:
                    if end - start < _LONGEST and _names(other).search(text, max(0, start - near), end + near) \
                            and (not by_the_name or tie_beside(text[start:end], name)):
                        found[(node.id, start)] = (node, start, end)
            if found:
                ordered = sorted(found.values(), key=lambda item: item[1])
                return ordered[:1] + [item for item in ordered[-1:] if item[0].id != ordered[0][0].id]
    return []
