"""Where a book says who someone is: "Who is Kemp?" is answered by "Dr. Kemp
was a tall and slender young man", "Who is Stapleton?" by "Mr. Stapleton,
the naturalist", not by a line where they only act or speak. The first
passage that describes someone so has a slot of its own in retrieval, and
the digest quotes a describing line. Someone who says who they are ("My
name is Merrylegs", "I am the Ghost of Christmas Past") has mostly just
been described, before a name was given: "a little fat gray pony, with a
thick mane and tail"."""

from __future__ import annotations

import functools
import re
from typing import Callable

from .narrator import SPEECH_VERBS, outside_dialogue
from .people import HONORIFIC_WORDS, WOMEN_S_TITLES
from .planning import STOPWORDS

DESCRIPTION = "description"  # the sources' mark of the passage that first says who someone is
# What follows "was" or a comma where the book tells what someone is: "was a", "is the", ", his agent".
# Not a distance or a time: "D'Arnot was a hundred yards in advance", "he was the first to move"; nor what
# they were in a scene: "Buck was the exception", "Stapleton was the cause of the interruption".
_DESCRIBED_BY = (r"(?:a|an|the|one|his|her|my|our|their|its|this|that)"
                 r"(?!\s+(?:hundred|thousand|dozen|few|mile|yard|foot|moment|minute|while|first|last|next"
                 r"|exception|cause|case|same|matter|reason|result)\b)")
# After a name and a comma: not "that", "this" ("to be introduced to Captain Wentworth, that, perhaps, he might...",
# "which convinced Anne, that instead of...": a clause, not what they are).
_APPOSED_BY = _DESCRIBED_BY.replace("|its|this|that)", "|its)")
# Or where they are from, or of what age and kind: "Mr. Frankland, of Lafter Hall", "Enoch J. Drebber, of
# Cleveland", "Lady Russell, of steady age and character" (not "Anne, of course", "a crowned King, of the House of
# my ancestors").
_APPOSED_BY = (f"(?:{_APPOSED_BY}|of\\s+(?-i:[A-Z])\\w*"
               f"|of\\s+[\\w-]+\\s+(?:age|years|character|birth|family|fortune|rank|means|temper|mind|habits|manners))")
# The title right before a name: a woman's ("Mrs. Fezziwig") is not the one of that name asked without it;
# "Mr. Weston" is not the Mrs. Weston asked about.
_TITLE_BEFORE = re.compile(rf"\b({'|'.join(sorted(HONORIFIC_WORDS | WOMEN_S_TITLES))})\.?\s+$", re.I)
# "If Fate made me a King, the least I could do...": a name after "a" is a word, not the one named; after "and",
# the last of a list ("After many discussions with Meg and Jo, the pattern was chosen"); after "than", one
# compared ("He is older than Arthur, a man of the world").
_NOT_APPOSED_AFTER = re.compile(r"\b(?:a|an|and|than)\s+$", re.I)
# The word right before a name, where it is capitalised: "Lucy Ferrier" is not John Ferrier.
_CAPITALISED_BEFORE = re.compile(r"\b([A-Z][\w'\u2019]*)\.?\s+$")
# "Old Sapt, a sneering smile on his face": what they wear on their face or in their hand, not what they are
# ("Mrs. Fezziwig, one vast substantial smile" is what she is).
_LOOKS_WORN = r"(?:smile|smiles|frown|grin|look|expression|face|hand|hands|eyes|tears|hat|pipe)\s+(?:on|in|upon)\b"
# "Clayton, with Jane, the professor and Esmeralda occupied the car", "bowing to the King, the Queen, the royal
# children", "the master on Ginger, the mistress on me, and the young ladies on Sir Oliver": a list, not what Jane,
# the King or Ginger is. ("AND MANY" of a line in capitals is no list.)
_NOT_A_LIST = r"(?![^.;:!?]{0,30}?(?-i:\band\s+[A-Z])|[^.;:!?,]{0,30},\s+(?:and\s+)?(?:the|a|an)\s)"
# "Luckily for Alice, the little magic bottle had now had its full effect", "for Jane Porter, the reaction came":
# the words after the comma are a clause's subject, not what they are.
_NOT_A_CLAUSE = r"(?![^.;:!?,]{0,40}?\s(?:had|has|was|were|is|are|would|could|should|will|did|came|went|seemed)\b)"
# Kin or service named before the name: "that sly knave, my brother, Black Michael", "his private secretary, Mr.
# Joseph Stangerson"; not "your": one spoken to ("Had your father, Miss Morstan, refrained...", "Your servant, Miss
# Morstan", a letter's "always your friend, JANE PORTER").
_KIN_OR_SERVICE = (r"brother|sister|half-brother|half-sister|cousin|uncle|aunt|father|mother|son|daughter|wife|husband"
                   r"|nephew|niece|grandfather|grandmother|godmother|godfather|guardian|ward|friend|servant|master"
                   r"|mistress|secretary|valet|maid|butler|coachman|groom|partner|clerk|agent|landlady|landlord")
# '"God bless us every one!" said Tiny Tim, the last of all': a speaker named, not described; nor one spoken
# to ("I made a mistake, Kemp, a huge mistake").
_SPOKEN = re.compile(rf"(?:\b(?:{'|'.join(sorted(SPEECH_VERBS))})\s+|,\s*)(?:[A-Z][\w'.-]*\s+)*$")


def describes(name: str, also: str | None = None, in_telling: bool = False) -> Callable[[str], bool]:
    """Whether a sentence says who or what someone is: their name (its
    last word, or `also`, the name the book brings them in by) before "was
    a", "is the", ", a", ", who was", ", he bore a" ("Hal was a youngster
    of nineteen or twenty"; "Mrs Clay was, in Lady Russell's estimate, a
    very unequal..."; "Alas for Tiny Tim, he bore a little crutch"), after
    kin or service ("my brother, Black Michael"), or
    after "name was", "named", "called" ("an Englishman
    named Jonathan Small", "The name of the coachman was John Manly"); not
    where they are a speaker named or someone spoken to, nor where a woman's
    title comes before a name asked without one ("Mrs. Fezziwig, one vast
    substantial smile" is not Fezziwig), another title before one asked
    with a title ("Mr. Weston" is not Mrs. Weston) or another first name
    before one asked with a first name ("Lucy Ferrier" is not John
    Ferrier); a surname may follow a first name asked ("Harriet Smith was
    the natural daughter of somebody"); with `in_telling`, only outside
    dialogue ("I'm sure Aunt March is a regular Old Man of the Sea to me"
    is what Jo calls her, not who she is)."""
    return _describing(name, also, in_telling).holds


def first_described(text: str, name: str, start: int, end: int) -> tuple[int, int] | None:
    """Where `text`, between `start` and `end`, first says who someone is
    (see `describes`) in its telling, else where it first does in its
    dialogue ("I'm sure Aunt March is a regular Old Man of the Sea to me"
    is what Jo calls her; a paper read out is dialogue too: "Sir Charles
    was a widower"): the span of the describing words; None where it does
    not. One pass for both."""
    describing, telling = _describing(name, None, False), _describing(name, None, True)
    said = None
    for named in describing.naming.finditer(text, start, end):
        # The pattern is read only around each naming ("named Jonathan Small" ends with it): scanning a quarter
        # of a book with it took 4-8 ms a name.
        found = describing.told.search(text, max(start, named.start() - _AROUND), min(end, named.end() + _AROUND))
        if found is None:
            continue
        # Whether it is told or said is read in its paragraph, where a quotation opens.
        opening = text.rfind("\n\n", start, found.start())
        opening = start if opening < 0 else opening + 2
        closing = text.find("\n\n", found.end(), end)
        paragraph = text[opening:end if closing < 0 else closing]
        for match in describing.told.finditer(paragraph):
            if opening + match.start() < found.start() or not describing.passes(paragraph, match):
                continue
            span = (opening + match.start(), opening + match.end())
            if telling.told_there(paragraph, match):
                return span
            said = said or span
    return said


_AROUND = 60  # characters around a naming where its describing words stand


@functools.lru_cache(maxsize=64)
def _describing(name: str, also: str | None, in_telling: bool) -> "_Describing":
    return _Describing(name, also, in_telling)


@functools.lru_cache(maxsize=64)
def _told(name: str, also: str | None) -> tuple[re.Pattern, re.Pattern]:
    """The pattern of a describing line for a name, and of the name alone (2 ms to compile: once a name)."""
    words_of = [name.split()[-1]] + ([also] if also else [])
    named = rf"(?:{'|'.join(re.escape(word) for word in words_of)})\b"
    told = re.compile(
        rf"\b(?P<apposed>{named}),\s+(?:{_APPOSED_BY}(?!(?:\s+\w+){{0,2}}\s+{_LOOKS_WORN})"
        rf"{_NOT_A_LIST}{_NOT_A_CLAUSE}"
        rf"|who\s+(?:was|is)(?!\s+(?:\w+ing|not)\b)|(?:he|she)\s+(?:was|bore|wore|had)\s+{_DESCRIBED_BY})\b"
        rf"|\b(?P<subject>{named})(?:\s+(?-i:[A-Z][a-z'\u2019-]+))?\s+(?:was|is|had\s+been)"
        rf"(?:,[^,.;!?]{{1,40}},)?\s+{_DESCRIBED_BY}\b(?![^.;,!?]{{0,20}}\bself\b)"
        rf"|\b(?:my|his|her|their|our)\s+(?:[\w'\u2019-]+\s+)?(?:{_KIN_OR_SERVICE}),\s+"
        rf"(?:(?-i:[A-Z])[\w'\u2019.-]*\s+){{0,2}}(?P<kin>{named})(?!['\u2019]s\b)"
        rf"|\b(?:name\b[^.;!?]{{0,30}}\b(?:was|is)|named|called)\s+(?:\w+\.?\s+)?\b(?P<called>{named})"
        # Where the name ends the phrase: not "she called Jo to her".
        rf"(?=\s*(?:[.,;:!?)\"'\u201d\u2019]|$)|\s+(?:and|who|which|but)\b)", re.I)
    return told, re.compile(rf"\b{named}", re.I)


class _Describing:
    """The pattern of a describing line for one name, and the tests a match must pass."""

    def __init__(self, name: str, also: str | None, in_telling: bool):
        self.told, self.naming = _told(name, also)
        # Asked of "Fezziwig", not "Mrs. Fezziwig, one vast substantial smile"; of "Mrs. Weston", not "Mr. Weston".
        title = name.split()[0].lower().rstrip(".") if " " in name else None
        self.title = title if title in HONORIFIC_WORDS | WOMEN_S_TITLES else None
        # Asked by a first name and a surname ("John Ferrier"), another's first name before the surname is another
        # person ("Lucy Ferrier"); asked with a title ("Mr. Philander"), a first name may be theirs ("Samuel T.").
        given = [word.lower().rstrip(".") for word in name.split()[:-1]]
        self.own_words = set(given) if given and not set(given) & (HONORIFIC_WORDS | WOMEN_S_TITLES) else set()
        self.in_telling = in_telling

    def of_them(self, sentence: str, found: re.Match) -> bool:
        at = found.start(next(group for group in ("apposed", "subject", "kin", "called") if found.group(group)))
        if found.group("apposed") and _NOT_APPOSED_AFTER.search(sentence, max(0, at - 5), at):
            return False
        before = _TITLE_BEFORE.search(sentence, max(0, at - 12), at)
        if self.title is None and before is not None and before.group(1).lower() in WOMEN_S_TITLES:
            return False
        if before is not None and self.title is not None and before.group(1).lower() != self.title:
            return False
        if self.own_words:
            word = _CAPITALISED_BEFORE.search(sentence, max(0, at - 20), at)
            return word is None or word.group(1).lower() in self.own_words | STOPWORDS
        return True

    def told_there(self, sentence: str, found: re.Match) -> bool:
        return not self.in_telling or any(begin <= found.start() < end for begin, end in outside_dialogue(sentence))

    def passes(self, sentence: str, found: re.Match) -> bool:
        return ((found.group("apposed") is None or not _SPOKEN.search(sentence, 0, found.start()))
                and self.of_them(sentence, found) and self.told_there(sentence, found))

    def holds(self, sentence: str) -> bool:
        return any(self.passes(sentence, found) for found in self.told.finditer(sentence))


def introduces_themself(name: str, also: str | None = None) -> re.Pattern:
    """A line where someone tells their own name: "My name is Merrylegs", "I
    am the Ghost of Christmas Past", "Call me Ishmael"."""
    words_of = [re.escape(name)] + [re.escape(name.split()[-1])] + ([re.escape(also)] if also else [])
    return re.compile(rf"\b(?:my\s+name\s+is|i\s+am|i['\u2019]m|call\s+me)\s+(?:the\s+)?"
                      rf"(?:{'|'.join(words_of)})\b", re.I)
