"""How often a name or a word is used: "How many times does Scrooge say
humbug?", "How often is Marley mentioned?", "How many times does the word
'whale' appear?". Counted in the text as written, whole words in any case,
by chapter: a model cannot count, and a search returns a dozen passages, not
how many there are. What is counted is a phrase the question quotes, what
follows "say" or "use", the words after "the word", or else a name the book
writes with a capital: "How often does Scrooge go to bed?" asks how often
something happens, and is searched as any question is."""

from __future__ import annotations

import re
from collections import Counter

from .bookfacts import FUNCTION_WORDS, as_sentence, chapter_name, counted, main_noun, phrase_pattern
from .planning import QUOTED, STOPWORDS, words

# "How many times", "How often": a count of uses in the text.
_HOW_OFTEN = re.compile(r"^\W*(?:how\s+(?:many\s+times|often|frequently)|(?:what\s+is\s+)?the\s+number\s+of\s+times)\b"
                        r"|^\W*how\s+many\s+(?:mentions|occurrences|uses)\b", re.I)
_SAYING = re.compile(r"\b(?:say|says|said|saying|utter|utters|uttered|use|uses|used)"
                     r"\s+(?:the\s+word\s+|the\s+phrase\s+)?(?P<what>.+)$", re.I)
_COUNTING_WORDS = {"times", "often", "frequently", "word", "words", "phrase", "appear", "appears", "appeared",
                   "used", "use", "mentioned", "mention", "mentions", "named", "occur", "occurs", "occurrences",
                   "uses", "written", "come", "comes", "show", "shows", "up", "whole", "number", "book", "novel",
                   "story", "text", "called", "referred", "refer", "said", "says", "say"}
# "the word whale", "the phrase God bless us": words asked about as words.
_A_WORD = re.compile(r"\b(?:word|phrase|expression)\b", re.I)
# Share of a phrase's uses written with a capital for it to be a name the book uses ("Marley", not "bed").
_NAME_SHARE = 0.9
# Chapters listed by name with their counts; past this many, the three with most.
_CHAPTERS_LISTED = 6


def how_often(question: str, book, until: int | None = None) -> tuple[str, str, list[int]] | None:
    """For "How many times does Scrooge say humbug?", "How often is Marley
    mentioned?", "How many times does the word 'Christmas' appear?": what is
    counted, the answer in one line, and where in the text each use starts
    (up to `until`, a reading limit); None for any other question."""
    asked = _HOW_OFTEN.search(question)
    if asked is None:
        return None
    phrase, named_as_such = _counted_phrase(question[asked.end():])
    if not re.search(r"\w", phrase):  # nothing to count: "How many times?", a quotation of dots
        return None
    start = book.sections[0].start if book.sections else 0
    end = len(book.text) if until is None else until
    pattern = phrase_pattern(phrase)
    if not named_as_such:  # "How often does Scrooge go to bed?" asks how often something happens: searched
        uses = [match.group() for match in pattern.finditer(book.text, start)]
        if not uses or sum(1 for use in uses if use[:1].isupper()) < _NAME_SHARE * len(uses):
            return None
    matches = list(pattern.finditer(book.text, start, end))
    found = [match.start() for match in matches]
    if matches and not named_as_such:  # as the book writes it ("marley": "Marley")
        phrase = Counter(" ".join(match.group().split()) for match in matches).most_common(1)[0][0]
    read = " up to where you have read" if until is not None else ""
    if not found:
        return phrase, f"\u201c{phrase}\u201d is not written anywhere in {book.title}{read}.", []
    by_section = Counter(section.ordinal for section in map(book.section_at, found) if section)
    sections = [book.sections[ordinal - 1] for ordinal in sorted(by_section)]
    where = ", ".join(f"{section.label} ({by_section[section.ordinal]})" for section in sections)
    if len(sections) > _CHAPTERS_LISTED:
        most = sorted(sections, key=lambda section: (-by_section[section.ordinal], section.ordinal))[:3]
        where = "most in " + ", ".join(f"{section.label} ({by_section[section.ordinal]})" for section in most)
    times = "once" if len(found) == 1 else "twice" if len(found) == 2 else f"{len(found):,} times"
    chapters = counted(len(book.sections), main_noun(book.sections)).split(" ", 1)[-1]
    spread = (f"in {chapter_name(sections[0])}" if len(sections) == 1 else
              f"in all {len(sections)} of its {chapters}: {where}" if len(sections) == len(book.sections) else
              f"in {len(sections)} of its {len(book.sections)} {chapters}: {where}")
    return phrase, as_sentence(f"\u201c{phrase}\u201d is written {times} in {book.title}{read}, {spread}"), found


def _counted_phrase(rest: str) -> tuple[str, bool]:
    """What a how-often question counts, and whether it says that it is
    words it asks about: a phrase it quotes, what follows "say" or "use"
    ("does Scrooge say humbug": "humbug"); else its words left once the
    asking is taken out ("is Tiny Tim mentioned": "Tiny Tim"), which count
    only where the book writes them as a name."""
    quoted = QUOTED.search(rest)
    if quoted:
        return " ".join((quoted.group(1) or quoted.group(2)).split()).strip(" .,;:!?"), True
    saying = _SAYING.search(rest)
    if saying:
        rest = saying.group("what")
    kept = [word for word in words(rest) if word.lower() not in _COUNTING_WORDS | FUNCTION_WORDS | STOPWORDS]
    return " ".join(kept), saying is not None or _A_WORD.search(rest) is not None
