"""A book's own vocabulary, counted once per book from its passages: how
many passages hold each word (a question's rare words are its best handles
on the book), and which words the book writes as names (capitalised inside
sentences, nearly never in lower case), where the passages naming each
are: the word index's stems cannot tell "Belle" from the bells."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter

from ..index.store import Node
from .planning import LETTER, STOPWORDS, stem
from .spelling import in_the_word_list

# A word as the book's vocabulary counts it: two letters or more (accented
# ones too: "Léon", "Thénardier"), with its apostrophes and hyphens.
WORD = re.compile(rf"[{LETTER}][{LETTER}'\-]+")
# A word the book writes in lower case in more than this share of the
# passages using it is not a name.
_NAME_LOWER_SHARE = 0.1
_POSSESSIVE = re.compile(r"['\u2019]s?$")
# A word and the one after it; the words a question asks of someone, after a name typed without its "'s".
_WORD_AND_NEXT = re.compile(rf"(?P<word>{WORD.pattern})(?=\s+(?P<next>[{LETTER}]+))?")
_ASKED_OF_SOMEONE = set("""
    job work profession occupation trade calling house home address name names first last full surname real age
    father mother parents brother brothers sister sisters wife husband son sons daughter daughters children child
    uncle aunt nephew niece cousin friend friends partner clerk servant master dog horse fate death family
    appearance eyes hair face
""".split())
# A word that opens a sentence, a paragraph or a quotation is capitalised whatever it is.
_CAPITAL_WORD = rf"[A-Z\u00c0-\u00d6\u00d8-\u00de][{LETTER}'\-]+"
_SENTENCE_OPENING = re.compile(rf"(?:\A\s*|[.!?][\"'\u201d\u2019)]*\s+|\n\s*\n\s*)({_CAPITAL_WORD})")
_QUOTE_OPENING = re.compile(rf"(?:(?<=\s)|(?<=\A)|(?<=--))[\"'\u201c\u2018_(]+({_CAPITAL_WORD})")


@functools.lru_cache(maxsize=65536)
def folded(word: str) -> str:
    """A word as the vocabulary keys it: lower case, without accents, so
    that "Leon" typed on an English keyboard is the book's "Léon"."""
    if word.isascii():
        return word.lower()
    return "".join(char for char in unicodedata.normalize("NFKD", word.lower()) if not unicodedata.combining(char))


def without_possessive(word: str) -> str:
    """The word without a possessive ending: "Belle's" -> "Belle"."""
    return _POSSESSIVE.sub("", word)


class Rarity:
    """How many passages of the book hold each word, and which words it
    writes as names."""

    def __init__(self, passages: list[Node]):
        self.count = len(passages) or 1
        frequency: Counter = Counter()
        uses: Counter = Counter()  # times written, over the passages (where two overlap, twice)
        written_lower: Counter = Counter()  # passages that write the word in lower case
        written_within: Counter = Counter()  # passages that capitalise the word inside a sentence
        opening_a_quote: Counter = Counter()  # passages where it opens a quotation
        capitalised: dict[str, list[tuple[int, str]]] = {}  # word -> (times, passage id) where written so
        accented: dict[str, Counter] = {}  # word -> its forms with accents, as written
        plain: set[str] = set()  # the words written without accents
        for node in passages:
            found = Counter(WORD.findall(node.text))
            keys = {word: word.lower() if word.isascii() else folded(word) for word in found}
            frequency.update(set(keys.values()))
            written_lower.update({keys[w] for w in found if w[0].islower()})
            opening = Counter(_SENTENCE_OPENING.findall(node.text))
            quoted = Counter(_QUOTE_OPENING.findall(node.text))
            written_within.update({keys[w] for w, count in found.items()
                                   if w[0].isupper() and count > opening[w] + quoted[w]})
            opening_a_quote.update({folded(w) for w in quoted})
            times: Counter = Counter()
            for word, count in found.items():
                uses[keys[word]] += count
                if word[0].isupper():
                    times[folded(without_possessive(word))] += count
                if not word.isascii():
                    accented.setdefault(keys[word], Counter())[word] += count
            plain.update([key for word, key in keys.items() if word.isascii()])
            for word, count in times.items():
                capitalised.setdefault(word, []).append((count, node.id))
        self.accented = accented
        self._written_plain = plain & accented.keys()  # "cafe" beside "café"
        self.frequency = frequency
        self.uses = uses
        self.words_written = sum(uses.values())
        self.written_lower = written_lower
        self.written_within = written_within
        self.opening_a_quote = opening_a_quote
        # The passages that name each rare name, most mentions first: the
        # word index's stems cannot tell "Belle" from the bells.
        self.naming = {word: [node_id for _, node_id in sorted(found, key=lambda item: -item[0])]
                       for word, found in capitalised.items() if self.is_name(word) and self(word) is not None}

    def is_name(self, word: str, lower_share: float = _NAME_LOWER_SHARE) -> bool:
        """Whether the book writes the word as a name: capitalised nearly
        everywhere it is used (in all passages but `lower_share` of them),
        and not only where a sentence begins ("Laurie", "Belle"; not "bell",
        nor "Suddenly")."""
        word = folded(word.strip("'."))
        used, lower = self.frequency.get(word, 0), self.written_lower.get(word, 0)
        # Opening a quotation, a name ('"Belle," said the husband') and a
        # common word ('"Remember," said the Ghost') look alike: there only
        # a word the book never writes in lower case counts.
        return lower <= lower_share * used and (
            self.written_within.get(word, 0) > 0 or (lower == 0 and self.opening_a_quote.get(word, 0) > 0))

    @functools.cached_property
    def lower_by_stem(self) -> Counter:
        """Passages writing a word of each stem in lower case (a passage with two such words counts twice)."""
        counts: Counter = Counter()
        for word, passages in self.written_lower.items():
            counts[stem(word)] += passages
        return counts

    def mistaken_by_stem(self, word: str) -> bool:
        """Whether the word index's stem of a name stands mostly for other
        words: "Belle" is stemmed "bell", and the book rings bells in more
        passages than it names her ("Frank" in Emma names him more often than
        anything is frank)."""
        word = folded(word)
        return word in self.naming and self.lower_by_stem.get(stem(word), 0) > len(self.naming[word])

    def passages_naming(self, name: str) -> list[str]:
        """The passages that name a rare name, most mentions first."""
        return self.naming.get(folded(name), [])

    def used(self, word: str) -> int:
        """How many passages hold the word (any case, with or without its accents)."""
        return self.frequency.get(folded(word), 0)

    def spelled_as_written(self, text: str) -> str:
        """The text with each word the book writes only with accents written
        so ("Who is Leon?" -> "Who is Léon?"; not "cafe" where it has "café"
        and "cafe" both): the word index matches words as written, and an
        English keyboard has no "é"."""
        def as_the_book_writes(found: re.Match) -> str:
            typed = found.group()
            forms = self.accented.get(folded(typed)) if typed.isascii() else None
            if not forms or typed.lower() in self._written_plain:
                return typed
            form = forms.most_common(1)[0][0]
            return form.lower() if typed.islower() else form
        return WORD.sub(as_the_book_writes, text) if self.accented else text

    def with_names_capitalised(self, text: str, words_of_asking: frozenset[str] | set[str] = frozenset()) -> str:
        """The text, typed with no name capitalised, with each word the
        book writes as a name capitalised ("what is scrooge's job"
        -> "what is Scrooge's job"): a question's names are told by their
        capitals. Not `words_of_asking` ("stave", "chapter": a book's
        headings capitalise them, and a capital in a question is a subject
        of its own); nor where the question capitalises a name itself
        ("Tarzan's grass rope ... a wager in a colonial settlement?": the
        book capitalises "Colonial")."""
        if any(word[0].isupper() and self.is_name(without_possessive(word)) for word in WORD.findall(text)):
            return text

        def capitalised(found: re.Match) -> str:
            typed = found.group()
            bare = without_possessive(typed)
            return typed[:1].upper() + typed[1:] if (typed.islower() and bare not in words_of_asking
                                                     and self.is_name(bare)) else typed
        return WORD.sub(capitalised, text)

    def with_apostrophes(self, text: str) -> str:
        """The text with a name's possessive typed without its apostrophe
        written with one ("Who is Scrooges nephew?" -> "Who is Scrooge's
        nephew?"): where the book writes the name and neither the book nor
        an English word list has the word as typed, or the word after it is
        one a question asks of someone ("whats stapletons job": the book
        writes "the Stapletons"). "Holmes" is left alone."""
        def with_its_apostrophe(found: re.Match) -> str:
            typed = found["word"]
            key = folded(typed)
            if (len(key) < 3 or not key.endswith("s") or key.endswith("ss") or _POSSESSIVE.search(key)
                    or key in STOPWORDS):  # "his mother": not "Hi's"
                return typed
            name = key[:-1]
            # "the Stapletons", "flattering chronicles" (a newspaper's name in The Memoirs), "readers": only
            # before a word asked of someone ("whats stapletons job").
            asked_of_someone = (found["next"] or "").lower() in _ASKED_OF_SOMEONE
            if (key in self.frequency or in_the_word_list(key)) and not asked_of_someone:
                return typed
            # "Judge Miller's" is the only way The Call of the Wild writes Miller ("Laurie’s" is counted as "Laurie")
            named = self.is_name(name) or self.is_name(f"{name}'s")
            return typed[:-1] + "'s" if named else typed
        return _WORD_AND_NEXT.sub(with_its_apostrophe, text)

    @functools.cached_property
    def names(self) -> list[str]:
        """The words the book writes as names, lower case."""
        return [word for word in self.frequency if self.is_name(word)]

    def __call__(self, word: str) -> float | None:
        """Share of passages with the word; None if absent or too common to help."""
        found = self.used(word)
        if found == 0:
            return None
        share = found / self.count
        return share if share <= 0.04 else None


def by_surname(name: str) -> str:
    """ "John Brooke" is "Mr. Brooke" or "Brooke" as often as not: the last word of a name of several; not of
    a name joined by "of" ("the Ghost of Christmas Present" is no "Present": "When does Scrooge first meet
    the Ghost of Christmas Present?" had found the first passage naming Scrooge beside the word "present")."""
    words_of = name.split()
    return words_of[-1] if len(words_of) > 1 and "of" not in words_of[1:-1] else name


def as_written(name: str) -> re.Pattern:
    """A name as a text may write it: in any case ("MARLEY"), with or
    without a title's full stop ("Mr Brooke", "Mr. Brooke")."""
    words = [re.escape(word.rstrip(".")) for word in name.split()]
    if not words:  # no name: as before, a pattern of nothing but a word's edge
        return re.compile(r"\b\b", re.I)
    first, *others = words
    # A word's start is checked after its letters, not before: a pattern
    # opening with "\b" is tried at every place in the text, one opening
    # with the name's letters only where they are (a search of a novel for
    # "Bath": 15 ms against 6, or 0.6 in its case).
    begin = rf"{first}(?<!\w{first})" if re.match(r"\w", name) else rf"\b{first}"
    return re.compile(r"\.?\s+".join([begin, *others]) + r"\b", re.I)
