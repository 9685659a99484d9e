"""What a word of the book means: "What does humbug mean?", "What is a
phaeton?", "Define countenance". Old novels are full of words a reader
today stops at, and the book rarely explains them: a search for the word
finds the lines that use it, not what it means. So the dictionary
(dictionary.py) answers, without a model, with the sense the book means
first, and the lines where the book uses the word are the evidence: they
show which sense it has here. A name the book writes with a capital ("What does Tarzan mean?") is
not looked up: the book tells what its names mean (meanings.py)."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

from .bookfacts import as_sentence, chapter_name, counted, phrase_pattern
from .dictionary import SOURCE, Entry, Sense, look_up
from .people import HONORIFIC_WORDS
from .planning import STOPWORDS, content_words, stem, words
from .spelling import word_frequency
from .vocabulary import folded

# One word, or two ("drawing room", "en route"), quoted or not, accented or not ("tête-à-tête").
_LETTER = r"[^\W\d_]"
_WORDS_OF_IT = rf"{_LETTER}(?:{_LETTER}|[\u2019'-])*(?:\s+{_LETTER}(?:{_LETTER}|-)*)?"
_WORD = rf"[\"'\u2018\u201c]?(?P<{{name}}>{_WORDS_OF_IT})[\"'\u2019\u201d]?"
_TERM = r"(?:the\s+(?:word|term|expression)\s+)?"
# "What does humbug mean here?", "... in this book?": still the word's meaning, shown by the book's uses.
# A common word asked of the book ("What does love mean in this book?") asks about the book, not the word.
_IN_IT = r"\s+here|\s+in\s+(?:this|the)\s+(?:book|novel|story|chapter|stave|passage|context|sentence)"
_HERE = rf"(?:{_IN_IT})?"
_IN_THE_BOOK = re.compile(rf"(?:{_IN_IT})\W*$", re.I)
_ASKS = re.compile(
    rf"^\W*what\s+(?:does|do|did)\s+{_TERM}{_WORD.format(name='a')}\s+mean{_HERE}\W*$"
    rf"|^\W*(?:what\s+(?:is|are|was)\s+)?the\s+(?:meaning|definition)s?\s+of\s+{_TERM}{_WORD.format(name='b')}"
    rf"{_HERE}\W*$"
    rf"|^\W*(?:define|definition\s+of|meaning\s+of|look\s+up)\s+{_TERM}{_WORD.format(name='c')}{_HERE}\W*$"
    rf"|^\W*what\s+(?:is|was)\s+(?:a|an)\s+{_WORD.format(name='d')}\W*$"
    # "What are gaiters?": one word, plural; "What are they?" is no word's meaning.
    r"|^\W*what\s+(?:are|were)\s+[\"'\u2018\u201c]?(?P<e>[A-Za-z-]+s)[\"'\u2019\u201d]?\W*$", re.I)


# Senses told at most; the book's lines and the senses the embedder compares to pick the one to lead.
MAX_SENSES = 4
_CONTEXTS, _CANDIDATES = 12, 24
_SHARED_WORDS_WEIGHT = 0.3  # beside the embedder's likeness (cosines of about 0.2-0.5)
_COMMON = 10_000  # seen this often in the English word list: a common word (gig 9,686; cab 26,619)
_REACH = 300  # characters each side of a use: the words a sense shares with it; embedded where no vector is stored
# A sense's first characters the embedder reads: its gist comes first, then examples ("as, a light gig");
# on the 44 words, 36 led as with whole senses, the slowest word 69 ms instead of 90.
_SENSE_READ = 160
# The words before a use of the one asked about (an adjective or two between) tell whether the book uses it
# as a noun or a verb.
_WORDS_BACK = 3
_BEFORE_A_NOUN = frozenset("a an the this that these those his her my our their your its some any no every each "
                           "one".split())
_BEFORE_A_VERB = frozenset("to i you he she we they will would shall should can could may might must not "
                           "did does do".split())
# The text before a word where a sentence starts: a full stop (quotes or a bracket after it), a paragraph's
# start, or a quotation opening right before it (said Scrooge, "Humbug!").
_SENTENCE_STARTS = re.compile(r"(?:[.!?][\"'\u2019\u201d)]*|\n\s*\n|^)[\s\"'\u2018\u201c(_-]*$|[\"\u2018\u201c]$")
# The capitalised word right before a use: "Pondicherry" before "Lodge".
_NAME_BEFORE = re.compile(r"\b([A-Z][\w'\u2019-]*)\.?\s+$")
# A question about a selection that asks what it means.
_THIS = r"(?:this|that|it|these|those)(?:\s+words?)?|the\s+words?"
_WHAT_IT_MEANS = re.compile(
    rf"^\W*(?:what\s+(?:does|do|did)\s+(?:{_THIS})\s+mean|(?:define|look\s+up)(?:\s+(?:{_THIS}))?"
    rf"|what\s+(?:is|are)\s+(?:the\s+)?(?:meaning|definition)s?(?:\s+of\s+(?:{_THIS}))?|meaning|definition"
    rf"|what\s+(?:is|are)\s+(?:this|that|these|those|it))\W*$", re.I)
# A selection in the reader that can be looked up: a word or two, its punctuation left out.
_SELECTED_WORD = re.compile(rf"^\W*({_WORDS_OF_IT})\W*$")


def looks_up(selected: str, before: str = "") -> str | None:
    """The word a selection in the reader holds, if it is a word or two
    ("humbug!", "door-nail", "drawing room"); None for anything longer, and
    for a name: a word with a capital where, by the text `before` it, no
    sentence starts ("said Scrooge", not "“Humbug!”")."""
    found = _SELECTED_WORD.match(selected)
    if found is None or len(found.group(1)) > 30:
        return None
    word = re.sub(r"[\u2019']s$", "", " ".join(found.group(1).split())).strip("\u2019'")  # "Scrooge's": "Scrooge"
    if word[:1].isupper() and before.strip() and not _SENTENCE_STARTS.search(before):
        return None
    return word


def asks_what_it_means(question: str) -> bool:
    """Whether a question about a selection asks what the words selected
    mean ("What does this mean?", "Define it", "meaning?")."""
    return _WHAT_IT_MEANS.match(question) is not None


def look_up_question(word: str) -> str:
    """The question a word selected in the reader is looked up with."""
    return f"What does \u201c{word}\u201d mean?"


def word_asked(question: str, is_name, text: str | None = None) -> str | None:
    """The word (or two) whose meaning a question asks, if it asks nothing
    else and the word is not a name in the book (given its `text`, a word
    the book capitalises only inside names of places, "What does lodge
    mean?" of "Pondicherry Lodge", is a word); None for any other question."""
    asked = _ASKS.match(question.strip())
    if asked is None:
        return None
    word = next(group for group in asked.groups() if group).strip().strip("\u2019'")
    parts = word.split()
    if any(part.lower() in STOPWORDS or is_name(part) and not (text and _in_names_only(part, text))
           for part in parts):
        return None  # "What does he mean?", "What does Tarzan mean?"
    if _IN_THE_BOOK.search(question) and word_frequency(word) >= _COMMON:
        return None  # "What does love mean in this book?" asks about the book, not the word
    return " ".join(parts).lower()


def _in_names_only(word: str, text: str) -> bool:
    """Whether the text writes a word capitalised only after another
    capitalised word, neither a title nor a first name ("Pondicherry
    Lodge", "Baker Street"; not "Mr. Brown", "John Manly", nor "Buck"
    alone): a word of its places' names."""
    from .nearby import other_forms  # nearby reads follow-ups, which read this module

    uses = re.finditer(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.I)
    capitalised = [use for use in uses if use.group()[0].isupper()]
    for use in capitalised:
        before = _NAME_BEFORE.search(text, max(0, use.start() - 40), use.start())
        if before is None or before.group(1).lower() in HONORIFIC_WORDS or other_forms(before.group(1)):
            return False
    return bool(capitalised)


def defined(question: str, book, is_name, until: int | None = None,
            embed=None, stored_vector=None) -> tuple[str, str, list[int]] | None:
    """For a question asking what a word means: the word, the dictionary's
    senses of it and how often the book uses it in one statement, and where
    each use starts (up to `until`, a reading limit); None for any other
    question, or for a word the dictionary does not have (it is then
    searched as any question is). `embed` (texts to unit vectors) picks the
    sense nearest the book's lines to lead; `stored_vector` (an offset to
    the stored vector of the sentence holding it, or None) spares embedding
    those lines."""
    word = word_asked(question, is_name, book.text)
    if word is None:
        return None
    found = look_up(word)
    if found is None:
        return None
    start, end = (book.sections[0].start if book.sections else 0), len(book.text) if until is None else until
    uses = sorted({use.start() for form in {word, found.word}
                   for use in _written(form).finditer(book.text, start, end)})
    used_as = _used_as(book.text, uses)
    entry = look_up(word, used_as=used_as)  # its senses of that part of speech first
    shown = _nearest_first(entry, used_as, book.text, uses[:_CONTEXTS], embed, stored_vector)
    # One sense a line: a numbered list in the app, the terminal and Markdown.
    senses = "".join(f"\n{number}. ({sense.part_of_speech}) {as_sentence(sense.text.rstrip(';'))}"
                     for number, sense in enumerate(shown[:MAX_SENSES], 1))
    asked_as, found_as = f"\u201c{word}\u201d", f"\u201c{entry.word}\u201d"
    if entry.word == word:
        statement = f"The dictionary ({SOURCE}) gives {asked_as} as:{senses}"
    elif _unjoined(entry.word) == _unjoined(word):  # "door-nail", which it writes "doornail"
        statement = f"The dictionary ({SOURCE}) gives {asked_as} (written {found_as}) as:{senses}"
    else:
        statement = f"{asked_as} is a form of {found_as}, which the dictionary ({SOURCE}) gives as:{senses}"
    title, read = re.split(r"[:;]", book.title)[0], " up to where you have read" if until is not None else ""
    if uses:
        first = book.section_at(uses[0])
        where = f", first in {chapter_name(first)}" if first is not None else ""
        times = "once" if len(uses) == 1 else counted(len(uses), "time")
        told = f"{title} uses it {times}{read}{where}. Its lines below show the sense it has there."
    else:
        told = f"{title} does not use {asked_as}{read}."
    return entry.word, f"{statement}\n{told}", uses


def _nearest_first(entry: Entry, used_as: str | None, text: str, uses: list[int], embed,
                   stored_vector=None) -> list[Sense]:
    """The entry's senses, those of the part of speech the book uses the
    word as first (a hare is not "to tease"); among them, for a word seldom
    used today, the one nearest the book's uses leads: a
    "gig" in Black Beauty is "a light carriage", the fifth noun sense (after
    "a fiddle"), the Hound's moor is not the Moors of Morocco. Nearest by
    the embedder, and by the share of the sense's words that text holds
    (the embedder alone took a cab for "a Hebrew dry measure"). A common
    word's first sense is its everyday one (Tarzan's "cabin", "a cottage
    or small house; a hut"), where the small embedder strays ("a small
    room"): it keeps the dictionary's order. The right sense led for 36
    of 44 words of our books so, against 32 in the dictionary's order and
    29 by the embedder alone (tests/benchmarks/word_senses.py)."""
    senses = list(entry.senses)
    contexts = [_around(text, use) for use in uses]
    candidates = [index for index, sense in enumerate(senses[:_CANDIDATES])
                  if used_as is None or sense.part_of_speech == used_as]
    if embed is None or not contexts or len(candidates) < 2 or word_frequency(entry.word) >= _COMMON:
        return senses
    meanings = embed([f"{entry.word}: {senses[index].text[:_SENSE_READ]}" for index in candidates])
    likeness = (meanings @ _read(uses, contexts, embed, stored_vector).T).mean(axis=1)
    held = {stem(word) for context in contexts for word in words(context)}
    own = stem(entry.word)
    shared = []
    for index in candidates:
        its_words = {stem(word) for word in content_words(senses[index].text)} - {own}
        shared.append(len(its_words & held) / max(1, len(its_words)))
    nearest = candidates[int(np.argmax(likeness + _SHARED_WORDS_WEIGHT * np.array(shared)))]
    return [senses[nearest]] + senses[:nearest] + senses[nearest + 1:]


def _read(uses: list[int], contexts: list[str], embed, stored_vector) -> np.ndarray:
    """A unit vector for each use: the stored vector of its sentence, read
    in its passage, where stage 1 stored one (the same 36 of 44 senses led
    as with the text round each use embedded now, in 25 ms a word instead of
    about 350), else that text embedded."""
    vectors = [stored_vector(use) if stored_vector is not None else None for use in uses]
    missing = [row for row, vector in enumerate(vectors) if vector is None]
    for row, vector in zip(missing, embed([contexts[row] for row in missing]) if missing else []):
        vectors[row] = vector
    return np.array(vectors)


def _around(text: str, offset: int) -> str:
    """The text each side of a use: measured on six words of our books (gig, hare, moor, tor, humbug,
    countenance), the sense nearest it was the right one more often than the one nearest its sentence."""
    return " ".join(text[max(0, offset - _REACH):offset + _REACH].split())


def _used_as(text: str, uses: list[int]) -> str | None:
    """"noun" where the book mostly writes the word after an article or a
    possessive ("the hare", "a light gig"), "verb" where after "to" or
    someone doing it ("to hare", "they moor"); None where it cannot tell."""
    kinds = Counter()
    for use in uses:
        if text[use].isupper() and _NAME_BEFORE.search(text, max(0, use - 40), use):
            kinds["noun"] += 1  # a word of a name: "Pondicherry Lodge"
            continue
        clause = re.split(r"[.,;:!?\"\u201c\u201d()]", text[max(0, use - 40):use])[-1]
        before = [word.lower() for word in re.findall(r"[A-Za-z]+", clause)][-_WORDS_BACK:]
        told = next((word for word in reversed(before) if word in _BEFORE_A_NOUN or word in _BEFORE_A_VERB), "")
        kinds["noun" if told in _BEFORE_A_NOUN else "verb" if told in _BEFORE_A_VERB else None] += 1
    decided = [(count, kind) for kind, count in kinds.items() if kind is not None]
    return max(decided)[1] if decided and max(decided)[0] * 2 > sum(count for count, _ in decided) else None


def _written(word: str) -> re.Pattern:
    """The word as the book may write it: in any case, its parts joined in
    any way, a plural's ending ("our bearing reins were shortened")."""
    return re.compile(phrase_pattern(word).pattern.removesuffix(r"(?!\w)") + r"(?:s|es)?(?!\w)", re.I)


def _unjoined(word: str) -> str:
    return re.sub(r"[\s-]", "", folded(word))
