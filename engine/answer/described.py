"""Where a book says who someone is: "Who is Kemp?" is answered by "Dr. Kemp
was a tall and slender young man", "Who is Stapleton?" by "Mr. Stapleton,
the naturalist", not by a line where they only act or speak. The first
passage that describes someone so has a slot of its own in retrieval, and
the digest quotes a describing line. Someone who says who they are ("My
name is Merrylegs", "I am the Ghost of Christmas Past") has mostly just
been described, before a name was given: "a little fat gray pony, with a
thick mane and tail"."""

from __future__ import annotations

import re
from typing import Callable

from .narrator import SPEECH_VERBS, outside_dialogue
from .people import WOMEN_S_TITLES

DESCRIPTION = "description"  # the sources' mark of the passage that first says who someone is
# What follows "was" or a comma where the book tells what someone is: "was a", "is the", ", his agent".
# Not a distance or a time: "D'Arnot was a hundred yards in advance", "he was the first to move".
_DESCRIBED_BY = (r"(?:a|an|the|one|his|her|my|our|their|its|this|that)"
                 r"(?!\s+(?:hundred|thousand|dozen|few|mile|yard|foot|moment|minute|while|first|last|next)\b)")
# After a name and a comma: not "that", "this" ("to be introduced to Captain Wentworth, that, perhaps, he might...",
# "which convinced Anne, that instead of...": a clause, not what they are).
_APPOSED_BY = _DESCRIBED_BY.replace("|its|this|that)", "|its)")
# Right before a name: it is a woman's ("Mrs. Fezziwig"), not the one of that name without it.
_A_WOMAN_S_TITLE = re.compile(rf"\b(?:{'|'.join(sorted(WOMEN_S_TITLES))})\.?\s+$", re.I)
# '"God bless us every one!" said Tiny Tim, the last of all': a speaker named, not described; nor one spoken
# to ("I made a mistake, Kemp, a huge mistake").
_SPOKEN = re.compile(rf"(?:\b(?:{'|'.join(sorted(SPEECH_VERBS))})\s+|,\s*)(?:[A-Z][\w'.-]*\s+)*$")


def describes(name: str, also: str | None = None, in_telling: bool = False) -> Callable[[str], bool]:
    """Whether a sentence says who or what someone is: their name (its
    last word, or `also`, the name the book brings them in by) before "was
    a", "is the", ", a", ", who was", ", he bore a" ("Hal was a youngster
    of nineteen or twenty"; "Mrs Clay was, in Lady Russell's estimate, a
    very unequal..."; "Alas for Tiny Tim, he bore a little crutch"), or
    after "name was", "named", "called" ("an Englishman
    named Jonathan Small", "The name of the coachman was John Manly"); not
    where they are a speaker named or someone spoken to, nor where a woman's
    title comes before a name asked without one ("Mrs. Fezziwig, one vast
    substantial smile" is not Fezziwig); with `in_telling`, only outside
    dialogue ("I'm sure Aunt March is a regular Old Man of the Sea to me"
    is what Jo calls her, not who she is)."""
    words_of = [name.split()[-1]] + ([also] if also else [])
    named = rf"(?:{'|'.join(re.escape(word) for word in words_of)})\b"
    told = re.compile(
        rf"\b(?P<apposed>{named}),\s+(?:{_APPOSED_BY}|who\s+(?:was|is)(?!\s+\w+ing\b)"
        rf"|(?:he|she)\s+(?:was|bore|wore|had)\s+{_DESCRIBED_BY})\b"
        rf"|\b(?P<subject>{named})\s+(?:was|is|had\s+been)(?:,[^,.;!?]{{1,40}},)?\s+{_DESCRIBED_BY}\b"
        rf"|\b(?:name\b[^.;!?]{{0,30}}\b(?:was|is)|named|called)\s+(?:\w+\.?\s+)?\b(?P<called>{named})", re.I)
    # Asked of "Fezziwig", not "Mrs. Fezziwig, one vast substantial smile".
    hers = " " in name and name.split()[0].lower().rstrip(".") in WOMEN_S_TITLES

    def of_them(sentence: str, found: re.Match) -> bool:
        at = found.start(next(group for group in ("apposed", "subject", "called") if found.group(group)))
        return hers or _A_WOMAN_S_TITLE.search(sentence, max(0, at - 10), at) is None

    def told_there(sentence: str, found: re.Match) -> bool:
        return not in_telling or any(begin <= found.start() < end for begin, end in outside_dialogue(sentence))

    def holds(sentence: str) -> bool:
        return any((found.group("apposed") is None or not _SPOKEN.search(sentence, 0, found.start()))
                   and of_them(sentence, found) and told_there(sentence, found) for found in told.finditer(sentence))
    return holds


def introduces_themself(name: str, also: str | None = None) -> re.Pattern:
    """A line where someone tells their own name: "My name is Merrylegs", "I
    am the Ghost of Christmas Past", "Call me Ishmael"."""
    words_of = [re.escape(name)] + [re.escape(name.split()[-1])] + ([re.escape(also)] if also else [])
    return re.compile(rf"\b(?:my\s+name\s+is|i\s+am|i['\u2019]m|call\s+me)\s+(?:the\s+)?"
                      rf"(?:{'|'.join(words_of)})\b", re.I)
