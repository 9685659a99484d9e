"""Who tells the book: "Who is the narrator?" finds nothing by its words (a
search on "narrator" returns chance lines). Whether the telling says "I"
outside its dialogue does tell: in our books 19 to 71 times in a thousand
words where one of the people tells it (Black Beauty, Watson, Rassendyll;
Moby-Dick 11.6, Ishmael giving way to the whale's lore), at most 6.4 where
no one does (Little Women's letters; Persuasion none). The
evidence is then where the telling says "I": its first such sentence, one
half-way through, and one in its last chapter; or, told in the third
person, the book's opening.

Who tells it, by name: the telling says "I", so the teller's name is all
but never in it; others speak to them by it. A name the telling writes in
under a fifth of its uses, most of whose uses speak to them ("Perhaps you
are right, Watson,") and that stands in a third of the chapters or more,
is the teller's (Watson in four Holmes books; not Sahib, Jack or Professor
Coram of one story, nor Zenda's Bert); so is a person named in the title
whom the telling all but never names and someone speaks to (Black Beauty:
2 of 14 uses in the telling, 1 spoken to; others speak to a horse less),
no place ("Treasure Island"). Where no one is spoken to so, one whom the
title page or a heading calls the book's writer ("the reminiscences of JOHN
H. WATSON, M.D.") and the telling's text names."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from .people import HONORIFIC_WORDS, PLACE_WORDS
from .vocabulary import as_written, by_surname

# How a book is told, as a whole-book question's evidence is marked: told by one of its people, by one the book
# names (`teller`), by none.
FIRST_PERSON, NAMED_TELLER, THIRD_PERSON = "first person", "named teller", "third person"
# Dialogue: a quotation, or one left open to its paragraph's end (a speech
# over several paragraphs opens each with a quotation mark).
_QUOTED = re.compile(r"\u201c[^\u201d]*?\u201d|\"[^\"]*?\"|\u2018[^\u2019]{0,400}?\u2019(?![a-z])", re.S)
_LEFT_OPEN = re.compile(r"[\u201c\"\u2018].*", re.S)
PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
# Verbs that tag a line of dialogue with its speaker.
SPEECH_VERBS = {"said", "says", "say", "cried", "replied", "asked", "exclaimed", "returned", "answered", "added",
                "retorted", "observed", "remarked", "continued", "demanded", "inquired", "enquired", "muttered",
                "whispered", "shouted", "rejoined", "repeated", "interposed", "resumed"}
_FIRST_PERSON = re.compile(r"\b(?:I|me|my|myself)\b")
# First-person words in a thousand words of the telling, at least, for a book told by one of its people.
FIRST_PERSON_PER_THOUSAND = 9


def outside_dialogue(text: str) -> list[tuple[int, int]]:
    """The spans of the text that are telling, not dialogue, paragraph by paragraph."""
    spans, at = [], 0
    for paragraph in PARAGRAPH_BREAK.split(text):
        start = text.index(paragraph, at)
        at = start + len(paragraph)
        told = 0
        for quote in _QUOTED.finditer(paragraph):
            spans.append((start + told, start + quote.start()))
            told = quote.end()
        rest = paragraph[told:]
        opened = _LEFT_OPEN.search(rest)
        spans.append((start + told, start + told + (opened.start() if opened else len(rest))))
    return [(begin, end) for begin, end in spans if end > begin]


def told_in_first_person(text: str) -> bool:
    """Whether one of the book's people tells it (see the module's figures)."""
    words = said = 0
    for begin, end in outside_dialogue(text):
        told = text[begin:end]
        words += len(told.split())
        said += len(_FIRST_PERSON.findall(told))
    return words > 0 and 1000 * said / words >= FIRST_PERSON_PER_THOUSAND


def says_i(text: str, start: int, end: int, telling: list[tuple[int, int]]) -> bool:
    """Whether the telling (not its dialogue) says "I" between `start` and
    `end` of the text whose telling spans are `telling`."""
    for begin, stop in telling:
        if stop > start and begin < end:
            if _FIRST_PERSON.search(text, max(begin, start), min(stop, end)):
                return True
    return False


# The one telling a book in the first person: their name is in the telling in under this share of its uses (it says
# "I": Watson in 0 of 24 in The Sign of the Four, 3 of 114 in The Hound; Holmes in 110 of 135, Rassendyll 7 of 25,
# "Black Beauty" 2 of 14), and most of its uses speak to them ("Perhaps you are right, Watson,": 18 of
# 24). Jonathan Small, whose story is told aloud, is in the telling in 5 of 40 uses, but spoken to in 13.
NARRATOR_TOLD_SHARE = 0.2
NARRATOR_SPOKEN_TO_SHARE = 0.5
# The teller is spoken to throughout: named in at least this share of the chapters (Watson in 10 of 12 in The Sign
# of the Four; Sahib in 3, one story's Jack in 2 of 11).
_TELLER_SECTIONS_SHARE = 1 / 3
# The people weighed as the teller: the book's most named (Watson is 4th of The Sign of the Four's).
_TELLER_CANDIDATES = 40
# "right, Watson," / "“Watson!": a name between a comma or an opening quotation and the end of a phrase.
_SPOKEN_TO_BEFORE = re.compile(r"(?:,\s+|[\u201c\"])(?:(?-i:[A-Z])[\w.]*\s+)?$")
_SPOKEN_TO_AFTER = re.compile(r"[,.!?]")
# A run of capitalised words in a title, its article left out: "The Adventures of Sherlock Holmes" holds
# "Adventures" and "Sherlock Holmes".
_TITLE_NAME = re.compile(r"(?:(?:The|A|An)\s+)?((?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*)*)")


@dataclass(frozen=True)
class Teller:
    """Who tells a book, by name, and where the book shows it: where someone
    first speaks to them by it, or, for a name the title gives, where the
    text first uses it; for one a heading names as its writer (`written_as`,
    "the reminiscences of John H. Watson, M.D."), where the telling's text
    first names them."""
    name: str
    shown_at: int
    in_title: bool
    written_as: str | None = None


def spoken_to_at(text: str, start: int, end: int) -> bool:
    """Whether the name at `start`-`end` of the text speaks to someone ("right, Watson,")."""
    return (_SPOKEN_TO_BEFORE.search(text, max(0, start - 20), start) is not None
            and _SPOKEN_TO_AFTER.match(text, end) is not None)


def name_shares(context, name: str) -> tuple[float, float]:
    """The shares of a name's uses that stand in the book's telling, not its dialogue, and that speak to them."""
    text = context.book.text
    uses = told = spoken_to = 0
    # As written in its case: "JOHN H. WATSON, M.D." on a title page is no use of the name in the telling.
    for named in re.finditer(as_written(name).pattern, text):
        uses += 1
        told += context.in_telling(named.start())
        spoken_to += spoken_to_at(text, named.start(), named.end())
    return (told / uses, spoken_to / uses) if uses else (1.0, 0.0)


def teller(context) -> Teller | None:
    """Who tells a book told in the first person, by name, where it can be
    told (see the module's notes); None for a book told in the third
    person, or one whose teller nobody names often enough."""
    if not context.told_in_first_person:
        return None
    text, sections = context.book.text, context.book.sections
    body_start = sections[0].body_start if sections else 0
    for run in _TITLE_NAME.finditer(context.book.title or ""):
        name = run.group(1)
        # Whole: "Beauty" alone is no name ("the beauty of the place"), "Black Beauty" is. Spoken to at least once,
        # and no place's name ("Treasure Island" is seldom in its telling either).
        told, spoken_to = name_shares(context, name)
        if context.names_a_person(name) and told < NARRATOR_TOLD_SHARE and spoken_to > 0 \
                and not PLACE_WORDS.intersection(name.lower().split()):
            first = next((use.start() for use in re.finditer(as_written(name).pattern, text)
                          if use.start() >= body_start), None)
            if first is not None:
                return Teller(name=name, shown_at=first, in_title=True)
    starts = [section.start for section in sections]
    found: list[tuple[int, int, str, int]] = []  # (chapters naming them, uses, name, where first spoken to)
    for name in context.main_people(None, None, _TELLER_CANDIDATES):
        told, spoken_to = name_shares(context, by_surname(name))
        if told >= NARRATOR_TOLD_SHARE or spoken_to < NARRATOR_SPOKEN_TO_SHARE:
            continue
        uses = list(re.finditer(as_written(by_surname(name)).pattern, text))
        chapters = {bisect_right(starts, use.start()) for use in uses}
        first = next(use.start() for use in uses if spoken_to_at(text, use.start(), use.end()))
        found.append((len(chapters), len(uses), name, first))
    found = [candidate for candidate in found if candidate[0] >= _TELLER_SECTIONS_SHARE * len(sections)]
    if not found:
        return _written_by(context)
    _, _, name, first = max(found)
    return Teller(name=name, shown_at=first, in_title=False)


# A heading that says whose writing the book is: "(Being a reprint from the reminiscences of JOHN H. WATSON,
# M.D....)", "Extract from the Diary of Dr. Watson"; the name a run of capitalised words and initials after it.
_WRITINGS_OF = re.compile(
    r"\b(?:reminiscences|memoirs?|recollections|journal|diary|narrative|papers|notes|confessions)\s+of[\W_]{0,3}"
    r"(?P<name>(?:(?-i:[A-Z])[\w'\u2019.]*\s+){0,3}(?-i:[A-Z])[\w'\u2019]*)(?:,\s+(?-i:[A-Z])\.(?:(?-i:[A-Z])\.)+)?",
    re.I)


def _written_by(context) -> Teller | None:
    """The teller a heading or the title page names as the book's writer,
    where the telling's text names them too (A Study in Scarlet's Watson,
    spoken to by name too seldom for `teller`); not a name in the book's
    own title ("Memoirs of Sherlock Holmes" are Watson's)."""
    text, sections = context.book.text, context.book.sections
    if not sections:
        return None
    headings = [(0, sections[0].body_start)] + [(section.start, section.body_start) for section in sections[1:]]
    title = set(re.findall(r"[\w'\u2019]+", (context.book.title or "").lower()))
    for start, end in headings:
        for found in _WRITINGS_OF.finditer(text, start, end):
            words = [word for word in found["name"].split() if word.lower().rstrip(".") not in HONORIFIC_WORDS]
            if not words or len(words[-1]) < 3 or words[-1].lower() in title:
                continue
            surname = words[-1].capitalize() if words[-1].isupper() else words[-1]
            first = next((use.start() for use in as_written(surname).finditer(text, sections[0].body_start)
                          if not any(head <= use.start() < body for head, body in headings)), None)
            if first is None:
                continue
            writer = re.sub(r"\b[A-Z]{3,}\b", lambda capitals: capitals.group().capitalize(),
                            " ".join(found.group(0).replace("_", " ").split()))
            return Teller(name=surname, shown_at=first, in_title=False, written_as=writer)
    return None


# "the narrator" in a question about something in the book: the one telling it, by name.
_THE_NARRATOR = re.compile(r"\bthe\s+narrator\b", re.I)
# What befalls the one telling it, in words a question about the telling also uses ("end", "happens").
_BEFALLS_THE_NARRATOR = re.compile(r"\b(?:happens?|happened|become|becomes)\s+(?:of|to)\s+the\s+narrator\b"
                                   r"|\bthe\s+narrator\s+(?:end|ends|ended|ending)\s+up\b", re.I)


def asks_what_befalls_the_teller(question: str, told: Teller | None, until: int | None = None) -> bool:
    """Whether a question asks what becomes of the one telling the book, who
    has a name the reader has read ("Where does the narrator end up?", "What
    happens to the narrator?"): a search for them, not who tells it."""
    return (with_the_teller_named(question, told, until) != question
            and _BEFALLS_THE_NARRATOR.search(question) is not None)


def with_the_teller_named(question: str, told: Teller | None, until: int | None = None) -> str:
    """The question with "the narrator" read as the teller's name, where the
    book names one (`teller`) and, for a reader part-way through, they have
    read the line that shows it: "What does the narrator later learn about
    the black horse shot after the hare hunt?" searches for "Black Beauty",
    whom others call so, where "narrator" is a word the book never uses
    (development set: Black Beauty at 12 passages 0.698 -> 0.760, every
    question of which says "the narrator"). Retrieval reads it so; a
    question about the telling itself ("Who is the narrator?") is told
    apart on its own words before."""
    if told is None or (until is not None and told.shown_at >= until):
        return question
    return _THE_NARRATOR.sub(told.name, question)
