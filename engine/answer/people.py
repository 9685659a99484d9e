"""The people a book names most: "Who are the main characters?" asked of a
book with no characters card (stage 1, or no capable model). The names are
the book's own, as it writes them inside sentences (cards.character_candidates),
less what is no person: places ("at Bath", "in Lyme", "Baker Street"),
titles alone ("the Admiral"), phrases like "Merry Christmas", families
("the Cratchits"), and the shorter forms of a name already listed
("Thornton" for John Thornton, "Holmes" for Sherlock Holmes)."""

from __future__ import annotations

import functools
import re
from collections import Counter

from ..index.cards import HONORIFICS, character_candidates
from .planning import capitalised_as_a_name
from .vocabulary import WORD, as_written, without_possessive

# A name often written after one of these is a place: "at Bath", "from Lyme".
BEFORE_A_PLACE = r"in|from|near|into|through|towards|toward|at"
_PLACE_SHARE = 0.15
# The last word of a place's name: "Kellynch Hall", "Baker Street".
PLACE_WORDS = {"hall", "house", "street", "place", "mire", "lodge", "cottage", "park", "square", "road", "lane",
               "abbey", "court", "station", "church", "castle", "manor", "farm", "inn", "hotel", "bridge", "river",
               "hill", "valley", "town", "city", "county", "island"}
DAYS = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "sundays", "christmas"}
MONTHS = {"january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december"}
DAYS_AND_MONTHS = DAYS | MONTHS
HONORIFIC_WORDS = {word.lower() for word in HONORIFICS} | {"admiral", "judge", "general", "doctor", "squire"}
# A woman's titles: "Mrs. Fezziwig" is not Fezziwig, and a wife's title names her husband's family, not her.
WOMEN_S_TITLES = {"mrs", "ms", "miss", "lady", "madame", "dame", "aunt", "mother", "sister"}
# Capitalised, and no one: peoples and languages, the book's own apparatus, abbreviations.
NO_ONE = {"english", "french", "german", "greek", "indian", "russian", "italian", "spanish", "dutch", "irish",
          "scotch", "scottish", "american", "chinese", "japanese", "african", "roman", "turkish", "egyptian",
          "portuguese", "swiss", "welsh", "british", "european", "arab", "persian", "polish", "austrian", "latin",
          "footnote", "chapter", "volume", "illustration", "st", "mt", "majesty", "highness", "lordship",
          "ladyship", "excellency"}
PEOPLE_LISTED = 8
# A name of several words is written capitalised in at least this share of the places its words stand together.
_CAPITALISED_SHARE = 0.9


def main_people(book, rarity, until: int | None = None, sections: list[int] | None = None,
                limit: int = PEOPLE_LISTED) -> list[str]:
    """Up to `limit` names of people, most named first, as the book mostly
    writes them; from the text before `until`, in the `sections` given."""
    people: list[str] = []
    text = book.text if until is None else book.text[:until]
    for name in character_candidates(book, limit=5 * limit, until=until, sections=sections):
        words = name.replace(".", "").split()
        own = [word for word in words if word.lower() not in HONORIFIC_WORDS]
        if (not own or any(word.lower() in PLACE_WORDS | DAYS_AND_MONTHS | NO_ONE for word in words)
                or not (all(rarity.is_name(word) for word in own) or _named_with_a_word(own, rarity, text))):
            continue  # a title alone, a place, a day, or words the book also writes in lower case
        if _family(name, rarity) or any(within(name, kept) or within(kept, name) for kept in people):
            continue
        if mostly_a_place(name, text):
            continue
        people.append(name)
        if len(people) >= limit:
            break
    return people


def _named_with_a_word(own: list[str], rarity, text: str) -> bool:
    """Whether a name of several words ends in a name and is written
    capitalised nearly wherever its words stand together, though the book
    writes the others in lower case alone: "Tiny Tim", "Black Michael"."""
    return len(own) > 1 and rarity.is_name(own[-1]) and written_capitalised(" ".join(own), text)


def written_capitalised(name: str, text: str) -> bool:
    """Whether the text writes words capitalised nearly wherever they stand together ("Tiny Tim", "Ghost of
    Christmas Past")."""
    uses = [found.group() for found in as_written(name).finditer(text)]
    return bool(uses) and sum(1 for use in uses if capitalised_as_a_name(use)) >= _CAPITALISED_SHARE * len(uses)


def place_shares(name: str, text: str) -> tuple[int, float, float]:
    """How often a name is used, and the shares of its uses after "in",
    "at", "from"... and after "to" (Anne 1% and 5%, Bath 41% and 28%)."""
    # As written, in its case: "Bath", not "bath". Each use's words before
    # it are looked at, not the whole text searched for "in Bath" and "to
    # Bath": that took 45 ms a name in The Adventures of Sherlock Holmes.
    uses = after_a_place_word = after_to = 0
    for named in re.finditer(as_written(name).pattern, text):  # its pattern without re.I
        uses += 1
        before = max(0, named.start() - _WORDS_BEFORE_REACH)
        after_a_place_word += _AFTER_A_PLACE_WORD_HERE.search(text, before, named.start()) is not None
        after_to += _AFTER_TO_HERE.search(text, before, named.start()) is not None
    if uses == 0:
        return 0, 0.0, 0.0
    return uses, after_a_place_word / uses, after_to / uses


_WORDS_BEFORE_REACH = 40
_AFTER_A_PLACE_WORD_HERE = re.compile(rf"\b(?:{BEFORE_A_PLACE})\s+$")
_AFTER_TO_HERE = re.compile(r"\bto\s+$")


# A capitalised word written after "the" in this share of its uses is a noun, not a name ("the Ghost"); one
# written after "in", "at", "from" in this share, a place ("Bath" 41%, "Anne" 1%).
_AFTER_THE_SHARE = 0.3
_AFTER_A_PLACE_WORD_SHARE = 0.3
_CAPITALISED = re.compile(r"\b[A-Z][a-z]+\b")
_AFTER_THE = re.compile(r"\b[Tt]he\s+([A-Z][a-z]+)\b")
_AFTER_A_PLACE_WORD = re.compile(rf"\b(?:{BEFORE_A_PLACE})\s+([A-Z][a-z]+)\b")


def a_noun_or_a_place(word: str, text: str) -> bool:
    """Whether a capitalised word (as "Ghost", "Freetown") is a noun the
    text mostly writes after "the" ("the Ghost", "the Keeper"), or a place
    it writes after "in", "at", "from" ("at Freetown"), rather than a name."""
    capitalised, after_the, after_a_place_word = capitalised_words(text)
    return (after_the[word] >= _AFTER_THE_SHARE * capitalised[word]
            or after_a_place_word[word] > _AFTER_A_PLACE_WORD_SHARE * capitalised[word])


@functools.lru_cache(maxsize=4)
def capitalised_words(text: str) -> tuple[Counter, Counter, Counter]:
    """How often each capitalised word is written, how often after "the", and
    after "in", "at", "from"... (a book's text, counted once). Match by match,
    not by `findall`: a worker counting them lets the window's thread run
    between matches, not only after the whole text (30 ms for Little Women)."""
    return tuple(Counter(found.group(group) for found in pattern.finditer(text))
                 for pattern, group in ((_CAPITALISED, 0), (_AFTER_THE, 1), (_AFTER_A_PLACE_WORD, 1)))


def mostly_a_place(name: str, text: str) -> bool:
    """Whether a name may be a place, not someone: written after "in",
    "at", "from"... in more than _PLACE_SHARE of its uses, or after "to" in
    more (one goes to London, and speaks or writes to someone); or not found."""
    uses, after_a_place_word, after_to = place_shares(name, text)
    return uses == 0 or after_a_place_word > _PLACE_SHARE or after_to > _PLACE_SHARE


def within(shorter: str, longer: str) -> bool:
    """Whether one name's words are a run of another's ("Thornton" in "John Thornton")."""
    small, large = shorter.replace(".", "").split(), longer.replace(".", "").split()
    return len(small) < len(large) and any(large[i:i + len(small)] == small for i in range(len(large)))


def _family(name: str, rarity) -> bool:
    """"the Cratchits", "the Miss Musgroves": a family, not one person (not "Holmes")."""
    last = name.split()[-1]
    return len(last) > 3 and last.endswith("s") and rarity.is_name(last[:-1])


def names_another_person(sentence: str, name: str, is_person) -> bool:
    """Whether a sentence names a person besides `name` (`is_person(word, titled)`, as
    `BookContext.names_a_person`), past its first word: not a month or a place ("Five years after Jo's wedding,
    ... a mellow October day"; "Jo found herself married and settled at Plumfield")."""
    own = {word.lower() for word in WORD.findall(name)}
    # Words of a longer form of the name are theirs too: "Enoch" in "Enoch Drebber" for "Drebber".
    fuller = re.compile(rf"(?:(?-i:[A-Z])[\w'\u2019-]*\.?\s+){{1,3}}{as_written(name).pattern}")
    own |= {word.lower() for found in fuller.finditer(sentence) for word in WORD.findall(found.group())}
    words = WORD.findall(sentence)
    for place, word in enumerate(words[1:], start=1):
        bare = without_possessive(word)
        if not word[:1].isupper() or bare.lower() in own:
            continue
        before = words[place - 1]
        if before.lower() in HONORIFIC_WORDS:
            if is_person(bare, titled=True):
                return True
        elif place > 1 and before[:1].isupper():  # a name's second word: "New York" is judged whole
            if is_person(f"{before} {bare}"):
                return True
        elif is_person(bare):
            return True
    return False
