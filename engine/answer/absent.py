"""Names a question uses that the book never does: "Who is Gandalf?" asked
of A Christmas Carol, or "Why does Scroge count his money?" with a slip of
the keyboard. The passages found for the rest of the question are no answer
about them, so the answer says so in one line above the evidence, with the
book's nearest name where one is close ("did you mean Scrooge?")."""

from __future__ import annotations

import difflib
import itertools
import re
from collections import Counter

from .followup import subjects_of
from .named import without_chapter_references
from .planning import QUOTED, STOPWORDS
from .retrieval import who_is_words
from .vocabulary import WORD, folded, without_possessive

_ROMAN = re.compile(r"^[IVXLC]+$")  # "John Clayton III"
# How close a name of the book must be to a missing word to be offered in its place.
_CLOSE = 0.8
# Who someone is in a story, asked without a name ("Who is the narrator?").
_ROLES = {"narrator", "author", "writer", "hero", "heroine", "protagonist", "antagonist", "villain", "character",
          "characters", "main", "speaker", "storyteller"}


def names_not_in_book(question: str, context) -> list[dict]:
    """Each name the question uses and the book does not, as typed, with the
    book's closest name ({"name", "closest", "alone"}: closest None where
    none is near; alone when a who-is question asks about nothing else). A
    name is missing when one of its words is in none of the book's
    passages; the book's title and author do not count as missing."""
    known = {folded(word) for word in WORD.findall(" ".join(filter(None, (
        context.book.title, context.book.metadata.get("author")))))}
    absent = []
    for name in _names_asked(question):
        words = [without_possessive(word) for word in WORD.findall(name)]
        missing = [word for word in words if not _ROMAN.match(word) and folded(word) not in known
                   and not _in_book(word, context.rarity.frequency)]
        if not missing:
            continue
        closest = [_closest(word, context) for word in missing]
        suggestion = None
        if all(closest):
            swapped = dict(zip(missing, closest))
            suggestion = " ".join(swapped.get(word, word) for word in words)
        absent.append({"name": " ".join(words), "closest": suggestion,
                       # "Who is Gandalf?": the question is about nothing else
                       "alone": who_is_words(question) == name})
    return absent


def _in_book(word: str, vocabulary) -> bool:
    """Whether the book uses the word, or its possessive ("Judge Miller's"),
    or each part of it ("Christmas-morning")."""
    lowered = folded(word)  # "Leon" for the book's "Léon"
    if lowered in vocabulary or f"{lowered}'s" in vocabulary:
        return True
    parts = [part for part in lowered.split("-") if part]
    return len(parts) > 1 and all(part in vocabulary or len(part) < 2 for part in parts)


def _names_asked(question: str) -> list[str]:
    """The question's names: its capitalised ones ("Why does Gandalf ...?"),
    and whom a who-is question asks about however typed ("who is gandalf")."""
    quoted = {(double or single).strip() for double, single in QUOTED.findall(question)}
    # A chapter named by its number is no name: "Summarize Stave 3" had been told that "Stave" is not in the book
    # (it is only in the headings, which no passage holds).
    names = [subject for subject in subjects_of(without_chapter_references(question)) if subject not in quoted]
    asked = who_is_words(question)
    # A name typed in lower case: a few words, none of them a question's
    # small words ("who is the man who noticed ...?"), a part in the story
    # ("who is the narrator?") or a verb ("Who is speaking?" about a
    # selection had been refused as asking about someone named "speaking").
    if (asked and len(asked.split()) <= 3
            and not any(word.lower() in STOPWORDS or word.lower() in _ROLES or word.endswith("ing")
                        for word in asked.split())
            and not any(asked.lower() in name.lower() or name.lower() in asked.lower() for name in names)):
        names.append(asked)
    return names


def _closest(word: str, context) -> str | None:
    """The book's name nearest a missing word, as the book writes it."""
    names = context.rarity.names
    match = difflib.get_close_matches(folded(word), names, n=1, cutoff=_CLOSE)
    if not match:
        return None
    # As the book mostly writes it ("Holmes", not a heading's "HOLMES"; "Thénardier").
    forms = context.rarity.accented.get(match[0]) or Counter(found.group() for found in itertools.islice(
        re.finditer(rf"\b{re.escape(match[0])}\b", context.book.text, re.I), 50))
    return forms.most_common(1)[0][0] if forms else match[0].title()


def nothing_to_answer(absent: list[dict]) -> bool:
    """Whether the question asks only who someone is that the book never
    names ("Who is Gandalf?"): no passage answers it, and a model would
    make an answer up from them."""
    return any(entry.get("alone") for entry in absent)


def absent_line(absent: list[dict], mark=lambda text: text, suggest=None) -> str | None:
    """The one line an answer shows for names the book never uses; `mark`
    formats a name (escaping it for a page), `suggest(index, name)` the
    book's nearest name (a link that asks again with it)."""
    if not absent:
        return None
    said = []
    for index, entry in enumerate(absent):
        closest = entry["closest"] and (suggest(index, entry["closest"]) if suggest else mark(entry["closest"]))
        said.append(f"\u201c{mark(entry['name'])}\u201d" + (f" (did you mean {closest}?)" if closest else ""))
    names = said[0] if len(said) == 1 else ", ".join(said[:-1]) + " or " + said[-1]
    missing = f"{names} {'is' if len(said) == 1 else 'are'} not in this book"
    if nothing_to_answer(absent):
        return f"{missing}: nothing in it says who that is."
    return f"{missing}: the evidence is for the rest of the question."


def respelled(question: str, entry: dict) -> str:
    """The question with a missing name replaced by the book's nearest one."""
    return re.sub(rf"\b{re.escape(entry['name'])}\b", entry["closest"], question, count=1, flags=re.I)
