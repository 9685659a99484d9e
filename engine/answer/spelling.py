"""Slips of the keyboard in a question's ordinary words: "wat happend to
beth", "summarize chaper 3", "What does Jo look lik?". The kinds of
question are told by such words ("happened to", "chapter 3", "look like"),
and a word the book never uses finds nothing. A word in lower case that
neither the book nor an English word list knows is read as the word one
letter away from it that the book uses most ("happend": "happened",
"lik": "like", "scroge": "scrooge"), or that questions ask with ("chaper":
"chapter" in a book of staves); the answer says how it was read. A
capitalised word is a name, and a slip in one is pointed out by absent.py
("did you mean Scrooge?"), not mended behind the reader's back."""

from __future__ import annotations

import functools
import gzip
import json
import pkgutil
import re

from .named import GENERIC_WORDS

# Chat spellings of question words that the word list has as words of their own ("wat" is a Dutch word in it).
_CHAT = {"wat": "what", "wot": "what", "wht": "what", "abt": "about", "whn": "when", "wher": "where"}
# The words a question opens with, as a capitalised first word's slip may be read.
_OPENING_WORDS = {"what", "who", "whom", "whose", "where", "when", "why", "how", "which", "does", "did", "is", "was",
                  "are", "were", "can", "could", "would", "will", "should", "has", "have", "had", "tell", "describe",
                  "summarize", "summarise", "explain", "list", "name", "give", "show", "find", "quote"}
# A word of the word list is a slip for one a letter away only where it is this rare there (uses in its
# 1.6 billion words: "chian" 50, "fordo" 50, "foreshadowing" 137), and the other this many times as common
# ("chain" 34,981).
_SELDOM, _OFTENER = 100, 100
# Words questions ask with, which a book need not use ("chapter" in A Christmas Carol, of five staves).
_ASKING_WORDS = _OPENING_WORDS | GENERIC_WORDS | {"like", "look", "looks", "live", "lives", "mean", "means", "meaning",
                                                 "mentioned", "named", "called", "character", "characters", "happen"}
# A word typed in lower case (or opening the question with a capital), three letters or more, not part of a
# possessive or a hyphenated word.
_TYPED_WORD = re.compile(r"(?<![\w'\u2019-])[A-Za-z][a-z]{2,}(?![\w'\u2019-])")


@functools.lru_cache(maxsize=1)
def word_list():
    """The English word list, loaded once a process (0.3 s here)."""
    from spellchecker import SpellChecker  # pyspellchecker: an English word list by frequency

    checker = SpellChecker(language=None, distance=1)
    checker.word_frequency.load_json(_english_word_counts())
    return checker


# An entry of pyspellchecker's word list: "aardvark": 106
_ENTRY = re.compile(r'"([^"\\]+)"\s*:\s*(\d+)')


def _english_word_counts() -> dict[str, int]:
    """pyspellchecker's English word counts, read entry by entry. Its own
    loading parses the 2.7 MB list in one call that holds Python's lock for
    0.1 s, and the window's thread, which needs that lock to draw, stalled
    as a book opened (its answers are prepared in a worker meanwhile)."""
    text = gzip.decompress(pkgutil.get_data("spellchecker", "resources/en.json.gz")).decode("utf-8")
    return {found.group(1): int(found.group(2)) for found in _ENTRY.finditer(text)} or json.loads(text)


def slips(question: str, vocabulary) -> list[tuple[str, str]]:
    """Each word of the question taken for a slip, with the word read in its
    place, in the order typed. `vocabulary`: the book's words (lower case)
    and how many passages hold each."""
    found: list[tuple[str, str]] = []
    typed = [match.group() for match in _TYPED_WORD.finditer(question)
             if match.group().islower() or not question[:match.start()].strip(" \t\"'\u201c\u2018(")]
    for word in dict.fromkeys(typed):
        read = _read_as(word.lower(), vocabulary)
        # A capitalised first word may be a name ("Scroge is who?"): absent.py offers the book's nearest.
        if read is not None and (word.islower() or read in _OPENING_WORDS):
            found.append((word, read.capitalize() if word[0].isupper() else read))
    return found


def _read_as(word: str, vocabulary) -> str | None:
    """The word meant by one typed in lower case, or None where it is a word."""
    if word in vocabulary:
        return None
    if word in _CHAT:
        return _CHAT[word]
    words = word_list()
    if _inflected(word, words):  # "asides": a word of the list with an ending, not a slip for "aside"
        return None
    # Only words the book uses, or questions do: the word list's nearest to a name the book never uses is a
    # word no more asked about ("frodo": "fordo"), and absent.py says the name is not in the book.
    near = [other for other in words.edit_distance_1(word) if other in vocabulary or other in _ASKING_WORDS]
    if word in words:  # "protagonist", "foreshadowing": words the book need not use; not "chian" for "chain"
        seldom = words.word_frequency[word]
        near = [other for other in near if seldom < _SELDOM and words.word_frequency[other] >= _OFTENER * seldom]
    read = max(near, key=lambda other: (vocabulary.get(other, 0), other), default=None)
    if read is None or american_spelling(word) == american_spelling(read):
        return None  # "summarise", "colour": a word, spelled as in Britain (the word list is American)
    return read


_ENDINGS = ("s", "es", "ed", "ing")


def _inflected(word: str, words) -> bool:
    """Whether the word is one of the list's with an ending ("asides", "chronicles")."""
    return any(word.endswith(ending) and len(word) - len(ending) >= 3 and word[:-len(ending)] in words
               for ending in _ENDINGS)


def word_frequency(word: str) -> int:
    """How often the English word list has seen a word (0 where never)."""
    return word_list().word_frequency[word.lower()]


def in_the_word_list(word: str) -> bool:
    """Whether the English word list has the word (lower case) as it is: "chronicles", "readers", not
    "lauries" (the list has names too: "laurie")."""
    return word in word_list()


_BRITISH = ((re.compile(r"is(e|es|ed|ing|ation|ations)$"), r"iz\1"), (re.compile(r"our"), "or"),
            (re.compile(r"tre$"), "ter"), (re.compile(r"ll(ed|ing|er)$"), r"l\1"), (re.compile(r"ogue$"), "og"),
            (re.compile(r"ence$"), "ense"))


def american_spelling(word: str) -> str:
    """The word as American dictionaries and word lists spell it: "colour", "color"; "realised", "realized"."""
    for pattern, replacement in _BRITISH:
        word = pattern.sub(replacement, word)
    return word


def respelled(question: str, found: list[tuple[str, str]]) -> str:
    """The question with each slip replaced by the word read for it."""
    for typed, read in found:
        question = re.sub(rf"(?<![\w'\u2019-]){re.escape(typed)}(?![\w'\u2019-])", read, question)
    return question


def read_as_line(found: list[tuple[str, str]]) -> str | None:
    """The one line an answer shows for the words read otherwise than typed."""
    if not found:
        return None
    return "Read " + ", ".join(f"\u201c{typed}\u201d as \u201c{read}\u201d" for typed, read in found) + "."
