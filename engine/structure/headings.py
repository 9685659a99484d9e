"""Reading one line as a heading: "CHAPTER FORTY-SEVEN", "Stave III: The Second
of the Three Spirits", "PART II.", "01 My Early Home", "XIV. The End", "THE
EPILOGUE". Only the shape of the line is judged here; whether a family of such
lines really structures the book is decided in `sections`."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .numbers import ROMAN_PATTERN, WORD_NUMBER_PATTERN, parse_number

# Keyword as written -> (kind, display word). Containers group sections.
_KEYWORDS = {
    "chapter": ("chapter", "Chapter"), "chap": ("chapter", "Chapter"),
    "stave": ("stave", "Stave"), "adventure": ("adventure", "Adventure"),
    "letter": ("letter", "Letter"), "canto": ("canto", "Canto"),
    "episode": ("episode", "Episode"), "section": ("section", "Section"),
    "part": ("part", "Part"), "book": ("book", "Book"),
    "volume": ("volume", "Volume"), "vol": ("volume", "Volume"),
}
CONTAINER_KINDS = frozenset({"part", "book", "volume"})
# Numbered prose openers that belong to a book but are not its sections.
FRONT_KINDS = frozenset({"preface", "introduction", "foreword"})
SPECIAL_KINDS = frozenset({"prologue", "epilogue", "afterword", "postscript", "envoi"}) | FRONT_KINDS

_NUMBER = rf"(?P<num>(?:the\s+)?(?:\d{{1,4}}|{ROMAN_PATTERN}|{WORD_NUMBER_PATTERN}))"
_SEPARATOR = r"[\s]*[.:,;\-\u2013\u2014]+[\s]*|\s+"
_KEYWORD_LINE = re.compile(
    rf"^(?P<kw>chapter|chap\.?|stave|adventure|letter|canto|episode|section|part|book|volume|vol\.)\s+"
    rf"{_NUMBER}(?:(?P<sep>{_SEPARATOR})(?P<title>.*?))?\s*$",
    re.IGNORECASE,
)
_BARE_LINE = re.compile(
    r"^(?P<num>\d{1,3}|[IVXLCDM]+)(?:(?P<sep>\s*[.:\u2014\u2013]\s*|\s+)(?P<title>\S.*?))?\s*\.?$"
)
# In a table of contents: "TWENTY-ONE  LAURIE MAKES MISCHIEF".
_LISTING_WORD_LINE = re.compile(
    rf"^(?P<num>{WORD_NUMBER_PATTERN})(?:(?P<sep>\s*[.:\u2014\u2013]\s*|\s+)(?P<title>\S.*?))?\s*\.?$", re.IGNORECASE
)
_SPECIAL_LINE = re.compile(
    r"^(?:the\s+)?(?P<kw>prologue|epilogue|preface|introduction|foreword|afterword|postscript|l[\u2019']envoi|envoi)"
    r"(?:\s*[.:\-\u2013\u2014]+\s*(?P<title>.*?)|\s*)\s*$",
    re.IGNORECASE,
)
MAX_HEADING_CHARS = 100


@dataclass(frozen=True)
class Heading:
    kind: str  # chapter, stave, part, ..., "number" for a bare numeral, prologue, ...
    number: int | None
    number_text: str | None
    title: str | None
    text: str

    @property
    def is_container(self) -> bool:
        return self.kind in CONTAINER_KINDS

    @property
    def number_style(self) -> str | None:
        if self.number_text is None:
            return None
        token = self.number_text.strip()
        if token.isdigit():
            return "arabic"
        return "roman" if re.fullmatch(ROMAN_PATTERN, token) else "words"

    @property
    def label(self) -> str:
        """The heading's name in the book's own numbering: "Stave III", "Chapter
        Forty-Seven", "Part 2", "Epilogue"."""
        if self.kind in SPECIAL_KINDS:
            return "L'Envoi" if self.kind == "envoi" else self.kind.capitalize()
        word = "Chapter" if self.kind == "number" else _display_word(self.kind)
        return f"{word} {display_number(self.number_text, self.number)}".strip()


def _display_word(kind: str) -> str:
    for found_kind, display in _KEYWORDS.values():
        if found_kind == kind:
            return display
    return kind.capitalize()


def display_number(number_text: str | None, number: int | None) -> str:
    if number_text is None:
        return "" if number is None else str(number)
    token = re.sub(r"^the\s+", "", number_text.strip(), flags=re.I)
    article = "the " if token != number_text.strip() else ""
    if token.isdigit():
        return str(int(token))
    if re.fullmatch(ROMAN_PATTERN, token):
        return token.upper()
    words = " ".join(word.capitalize() for word in token.split())
    return article + "-".join(part[:1].upper() + part[1:] for part in words.split("-"))


def parse_heading(line: str, in_listing: bool = False) -> Heading | None:
    """The heading a single line states, or None if it is not shaped like one.
    `in_listing` reads a table-of-contents line, where "I  Out to Sea" is an entry."""
    text = " ".join(line.split())
    if not text or len(text) > MAX_HEADING_CHARS:
        return None
    return _keyword_heading(text) or _special_heading(text) or _bare_heading(text, in_listing)


def _keyword_heading(text: str) -> Heading | None:
    match = _KEYWORD_LINE.match(text)
    if not match or not match.group("kw")[0].isupper():
        return None
    keyword = match.group("kw").lower().rstrip(".")
    kind = _KEYWORDS[keyword][0]
    number_text = match.group("num")
    number = parse_number(re.sub(r"^the\s+", "", number_text, flags=re.I))
    if number is None:
        return None
    title = _clean_title(match.group("title"))
    separator = match.group("sep") or ""
    if title and not separator.strip() and not _starts_like_title(title):
        # "Part of the city" or "Book is on the shelf": prose, not a heading.
        return None
    if title and len(title.split()) > 16:
        return None
    return Heading(kind=kind, number=number, number_text=number_text, title=title, text=text)


def _special_heading(text: str) -> Heading | None:
    match = _SPECIAL_LINE.match(text)
    if not match or not text[0].isupper():
        return None
    keyword = match.group("kw").lower()
    kind = "envoi" if "envoi" in keyword else keyword
    title = _clean_title(match.group("title"))
    if title and len(title.split()) > 12:
        return None
    return Heading(kind=kind, number=None, number_text=None, title=title, text=text)


def _bare_heading(text: str, in_listing: bool) -> Heading | None:
    match = _BARE_LINE.match(text) or (_LISTING_WORD_LINE.match(text) if in_listing else None)
    if not match:
        return None
    number_text = match.group("num")
    number = parse_number(number_text)
    if number is None or number == 0:
        return None
    title = _clean_title(match.group("title"))
    separator = match.group("sep") or ""
    if title:
        if not _starts_like_title(title) or len(title.split()) > 12:
            return None
        if not separator.strip() and number_text == "I" and not title.isupper() and not in_listing:
            # "I Went" reads as a sentence; "I. The Beginning" or "I  OUT TO SEA" as a heading.
            return None
        if title.endswith((",", ";")):
            return None
    return Heading(kind="number", number=number, number_text=number_text, title=title, text=text)


def _clean_title(title: str | None) -> str | None:
    return tidy_title(title) if title else None


def tidy_title(title: str) -> str | None:
    """A title without layout marks: surrounding dashes, colons, _italic_ underscores."""
    title = " ".join(title.split()).strip("\u2014\u2013-: ")
    if title.startswith("_") and title.endswith("_") or title.count("_") == 2 and title.startswith("_"):
        title = title.replace("_", "")
    return title.strip() or None


def _starts_like_title(title: str) -> bool:
    first = title.lstrip("\"'\u201c\u2018(_[")[:1]
    return bool(first) and (first.isupper() or first.isdigit())
