"""What someone's letter says: "What does Wentworth's letter say?", "What
did Laura Lyons write to Sir Charles?", "What does the letter to Sir Henry
say?". The question's words ("letter", "say") find every line saying
"say", and its name every scene the writer is in; a letter's own words
seldom share any with the question, and come after the line telling of it
("her eyes devoured the following words:", "It ran:"). So the passages
where a letter opens near a name the question asks about have slots of
their own in retrieval (through `nearby.Telling.finds`), and the digest
quotes the line opening it with the two sentences after it."""

from __future__ import annotations

import re
from bisect import bisect_left

from .nearby import Telling, uses_of

# Words that tell of a letter written, sent or read. Left out: "hand" and "paper", in a hundred phrases that
# tell of none.
_WORDS = frozenset("""
    letter letters note notes telegram telegrams message messages wire postscript envelope envelopes
    wrote written write writes writing scrawled pencilled signed signature addressed dated postmark post
    ran runs read reads
""".split())
_WRITINGS = r"(?:letter|letters|note|notes|telegram|telegrams|message|wire|postscript)"
_SAYING = r"(?:say|says|said|contain|contains|contained|tell|tells|told|mean|means|read|reads|ask|asks|asked)"
# The whole question asks what someone's letter says, and nothing more: "Why did she burn the letter?" asks about
# a scene, and is searched as such.
_ASKS = re.compile(
    rf"^\W*(?:what\s+(?:does|did|do)\s+(?P<who>.+?)['\u2019]s?\s+{_WRITINGS}\s+{_SAYING}(?:\s+\w+)?"
    rf"|what\s+(?:does|did|do)\s+the\s+{_WRITINGS}\s+(?:from|of|by|to)\s+(?P<who2>.+?)\s+{_SAYING}(?:\s+\w+)?"
    rf"|what\s+(?:is|was)\s+(?:written\s+)?in\s+(?P<who3>.+?)['\u2019]s?\s+{_WRITINGS}"
    rf"|what\s+(?:is|was)\s+(?:written\s+)?in\s+the\s+{_WRITINGS}\s+(?:from|of|by|to)\s+(?P<who4>.+?)"
    r"|what\s+(?:does|did)\s+(?P<who5>.+?)\s+write(?:\s+(?:to|in|about)\s+.+?)?"
    r")(?:\s+in\s+the\s+(?:book|novel|story))?\W*$", re.I)
# The question's words of asking: "say" found every line saying "say", "letter" every letter of the book.
_ASKING = frozenset({"letter", "letters", "note", "notes", "telegram", "telegrams", "message", "messages", "wire",
                     "postscript", "say", "says", "said", "contain", "contains", "contained", "tell", "tells",
                     "told", "mean", "means", "read", "reads", "write", "wrote", "written"})


# Where a letter's own words begin: after a colon that ends a paragraph ("It ran:", "was as follows:--",
# "her eyes devoured the following words:") or opens a quotation ("it said: 'Please, please..."), or at a
# greeting that is a paragraph of its own ("MY DEAR LIZZY,", "WINDSOR-JULY. MY DEAR MADAM,").
_OPENING = re.compile(r":[\u2014-]*[ \t]*\n[ \t]*\n[ \t]*|:[\u2014-]*[ \t]*(?=[\"\u201c\u2018'])"
                      r"|\n[ \t]*\n[ \t]*(?:[^\n.!?]{1,30}\.\s+)?"  # a place and date first: "WINDSOR-JULY."
                      r"(?P<greeting>(?=[\"\u201c']?(?:my\s+)?(?:dear(?:est)?|sir|madam)\b[^\n]{0,40},[ \t]*\n))",
                      re.I)
_WRITING = re.compile(r"\b(?:letter|letters|note|telegram|message|wire|postscript|envelope|wrote|written|writing"
                      r"|ran|runs|follows|following|effect|signed|dated)\b", re.I)
# How far before an opening a word of writing tells that a letter opens there; how far before a use of the name
# an opening is taken for theirs (the letter names them as it opens: "TO TARZAN OF THE APES"), and how far after
# it (the writer named, then the letter read: "Captain Wentworth, having sealed his letter...").
_WRITING_REACH = 300
_OPENING_BEFORE_NAME, _OPENING_AFTER_NAME = 300, 2000
_LISTED = 4
_ASKED_NOUN_WEIGHT = 2
# A kind of writing as the question may name it, and as the book does.
_NOUN_FAMILIES = {"letters": "letter", "notes": "note", "telegrams": "telegram|wire", "telegram": "telegram|wire",
                  "wire": "telegram|wire", "messages": "message"}


def letter_openings(text: str, start: int, end: int) -> list[int]:
    """Where letters' own words begin between `start` and `end`: an opening
    with a word of writing in the lines before it (in its own sentence, for
    a quotation opened within a paragraph: '...she said: "I am determined I
    will:"' is speech)."""
    return [found.end() for found in _OPENING.finditer(text, start, end) if writing_told(text, found)]


def writing_told(text: str, opening: re.Match) -> int:
    """How many words of writing tell of a letter before an opening; a
    greeting that is a paragraph of its own tells one by itself ("MY DEAR
    MADAM," after "[To Mrs. Weston.]")."""
    begin = max(0, opening.start() - _WRITING_REACH)
    if "\n" not in opening.group():
        begin = max(begin, *(text.rfind(stop, begin, opening.start()) for stop in (". ", "? ", "! ", "\n")))
    told = len({word.lower() for word in _WRITING.findall(text, begin, opening.start() + 1)})
    return max(told, 1) if opening.group("greeting") is not None else told


def passages_holding_letters(context, names: list[str], searched: list[int | None] | None = None,
                             until: int | None = None, question: str = "") -> list[tuple[str, float]]:
    """The passages (of the sections `searched`, before `until`) where a
    letter's words begin near a use of one of the names, those told most
    fully first (the kind of writing the question asks, "letter" or
    "telegram", counting for two words), the nearest of those, as a ranked
    list (`nearby.passages_telling`'s)."""
    text = context.book.text
    nouns = {_NOUN_FAMILIES.get(noun.lower(), noun.lower()) for noun in re.findall(_WRITINGS, question, re.I)}
    asked = re.compile(rf"\b(?:{'|'.join(sorted(nouns))})s?\b", re.I) if nouns else None
    end = len(text) if until is None else until
    allowed = None if searched is None else set(searched)
    # The book's openings, each with how many words of writing tell of it, found once: a name's uses are close
    # enough for their reaches to overlap (Wentworth is named 300 times).
    openings: list[tuple[int, int, int]] = []  # (start, end, words of writing)
    for found in _OPENING.finditer(text, 0, end):
        told = writing_told(text, found)
        if told:
            told += _ASKED_NOUN_WEIGHT * bool(asked and asked.search(text, max(0, found.start() - _WRITING_REACH),
                                                                     found.start()))
            openings.append((found.start(), found.end(), told))
    starts = [start for start, _, _ in openings]
    # an opening -> (how many words of writing tell of it, how far it is from the nearest use of a name)
    nearest: dict[int, tuple[int, int]] = {}
    for name in names:
        for named in uses_of(name, names, text, end):
            reach = min(end, named.end() + _OPENING_AFTER_NAME)
            for start, stop, told in openings[bisect_left(starts, named.start() - _OPENING_BEFORE_NAME):
                                              bisect_left(starts, reach)]:
                if stop <= reach:
                    distance = abs(stop - named.start())
                    nearest[stop] = min(nearest.get(stop, (-told, distance)), (-told, distance))
    ranked: list[str] = []
    # "Elizabeth opened the letter... an envelope containing two sheets of letter-paper, written quite through...
    # It was dated from Rosings...": of all the letters near Darcy, his.
    for opening in sorted(nearest, key=lambda at: (nearest[at], at)):
        holding = [node for node in context.passages_overlapping(opening, opening + 1)
                   if (allowed is None or context.section_of.get(node.id) in allowed) and node.end <= end]
        # Of two passages holding it, the one holding more of the letter.
        best = max(holding, key=lambda node: min(node.end, opening + 400) - opening, default=None)
        if best is not None and best.id not in ranked:
            ranked.append(best.id)
        if len(ranked) == _LISTED:
            break
    return [(node_id, 1.0 / place) for place, node_id in enumerate(ranked, start=1)]


LETTERS = Telling(name="letter", words=_WORDS, asks=_ASKS, in_a_passage=2, in_a_line=1, asking_words=_ASKING,
                  finds=passages_holding_letters)
