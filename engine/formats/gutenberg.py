"""Project Gutenberg boilerplate: find the body between the header and the licence,
and read the catalogue facts (title, author, language, ebook number) from the header.

Handles every era: the 1990s "SMALL PRINT!" licence, the 2000s
"*** START OF THE/THIS PROJECT GUTENBERG EBOOK" markers, today's markers, and
texts with no header at all. Works on any list of lines, so the HTML and EPUB
readers use it on their paragraph texts too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_START_MARKERS = [
    re.compile(r"^\W*\*{3}\s*START OF (?:THE|THIS) PROJECT GUTENBERG E-?(?:BOOK|TEXT)", re.I),
    re.compile(r"^\W*\*+\s*END\s*\*+\s*THE SMALL PRINT", re.I),
    re.compile(r"^\W*\*{3}\s*START OF THE COPYRIGHTED PROJECT GUTENBERG", re.I),
]
_END_MARKERS = [
    re.compile(r"^\W*\*{3}\s*END OF (?:THE|THIS) PROJECT GUTENBERG E-?(?:BOOK|TEXT)", re.I),
    re.compile(r"^\s*End of (?:the )?Project Gutenberg(?:'s|\u2019s)?\s+(?:E-?(?:book|text)\b|\w)", re.I),
    re.compile(r"^\s*End of (?:the |this )?Project Gutenberg E-?(?:book|text)", re.I),
    re.compile(r"^\W*\*{3}\s*START: FULL LICENSE", re.I),
]
# A 1990s file opens with the licence; the body starts after its closing line.
_SMALL_PRINT_OPEN = re.compile(r"START\W*\*?\W*THE SMALL PRINT", re.I)

_FIELD = re.compile(r"^\s*(Title|Author|Language|Release Date|Posting Date|Original publication|Character set encoding)\s*:\s*(.*)$", re.I)
_EBOOK_NUMBER = re.compile(r"\[\s*E-?(?:Book|text)\s*#\s*(\d+)\s*\]|E-?(?:Book|text)\s*#\s*(\d+)|gutenberg\.org/(?:ebooks/)?(\d+)", re.I)
_OLD_TITLE = re.compile(
    r"^\W*(?:The )?Project Gutenberg(?:'s|\u2019s)? E-?(?:Book|text) (?:of )?(.+?)(?:,\s*by\s+(.+?))?[.*\s]*$", re.I
)
_BY_LINE = re.compile(r"^\s*(?:by|By|BY)\s+(.+?)\s*$")
_PRODUCED_BY = re.compile(
    r"^\s*(?:Produced by|E-?text prepared by|This e-?text was (?:prepared|produced) by|Transcribed from|"
    r"Prepared by|HTML version by|Updated editions? (?:prepared|produced) by)\b", re.I
)

LANGUAGE_CODES = {
    "english": "en", "french": "fr", "german": "de", "spanish": "es", "italian": "it",
    "portuguese": "pt", "dutch": "nl", "latin": "la", "finnish": "fi", "swedish": "sv",
    "danish": "da", "norwegian": "no", "russian": "ru", "greek": "el", "chinese": "zh",
    "japanese": "ja", "polish": "pl", "hungarian": "hu", "czech": "cs", "esperanto": "eo",
}


@dataclass
class Body:
    """Where the book's own text lies in a list of lines, and what the header said."""

    start: int
    end: int
    metadata: dict[str, str] = field(default_factory=dict)
    has_header: bool = False


def find_body(lines: list[str]) -> Body:
    start = _find_start(lines)
    header = lines[:start] if start else []
    end = _find_end(lines, start)
    metadata = read_header(header) if header else {}
    if not header:
        metadata = read_title_page(lines[start:end])
    else:
        # Old files name the book only on their first line ("The Project Gutenberg
        # Etext of A Christmas Carol"); the title page inside the body says the rest.
        title_page = read_title_page(lines[start:end])
        for key, value in title_page.items():
            metadata.setdefault(key, value)
    return Body(start=start, end=end, metadata=metadata, has_header=bool(header))


def _find_start(lines: list[str]) -> int:
    # Markers sit in the first part of a file; never search the whole book for them.
    window = min(len(lines), max(400, len(lines) // 4))
    small_print_open = False
    for index in range(window):
        line = lines[index]
        if _SMALL_PRINT_OPEN.search(line):
            small_print_open = True
        for marker in _START_MARKERS:
            if marker.search(line):
                # "*END*THE SMALL PRINT" closes a licence only if one was opened
                # or the file is plainly a 1990s Gutenberg file.
                if marker is _START_MARKERS[1] and not small_print_open and index > 600:
                    continue
                return index + 1
    return 0


def _find_end(lines: list[str], start: int) -> int:
    floor = start + (len(lines) - start) // 2
    for index in range(start, len(lines)):
        if index < floor:
            continue
        line = lines[index]
        if any(marker.search(line) for marker in _END_MARKERS):
            return index
    return len(lines)


def read_header(header: list[str]) -> dict[str, str]:
    metadata: dict[str, str] = {}
    previous_key = None
    for line in header:
        match = _FIELD.match(line)
        if match:
            key = match.group(1).lower()
            value = match.group(2).strip()
            previous_key = key
            if key == "title" and value:
                metadata["title"] = value
            elif key == "author" and value:
                metadata["author"] = value
            elif key == "language" and value:
                metadata["language"] = LANGUAGE_CODES.get(value.lower(), value)
            elif key == "character set encoding" and value:
                metadata["declared_encoding"] = value
            number = _EBOOK_NUMBER.search(value)
            if number and key in ("release date", "posting date"):
                metadata.setdefault("gutenberg_id", next(g for g in number.groups() if g))
            continue
        # Titles and subtitles continue on indented lines under "Title:".
        if previous_key == "title" and line.startswith((" ", "\t")) and line.strip():
            metadata["title"] = f"{metadata.get('title', '')}: {line.strip()}".strip(": ")
            continue
        previous_key = None
        number = _EBOOK_NUMBER.search(line)
        if number and "gutenberg_id" not in metadata:
            metadata["gutenberg_id"] = next(g for g in number.groups() if g)
        old = _OLD_TITLE.match(line)
        if old and "title" not in metadata:
            metadata["title"] = old.group(1).strip().rstrip(",.")
            if old.group(2):
                metadata.setdefault("author", old.group(2).strip().rstrip(",.*"))
    return metadata


def read_title_page(body: list[str]) -> dict[str, str]:
    """Title and author from the first lines of a body: "Persuasion" ... "by Jane Austen"."""
    metadata: dict[str, str] = {}
    seen: list[str] = []
    for line in body[:80]:
        text = line.strip()
        if not text or _PRODUCED_BY.match(text) or text.lower() in ("cover", "[cover]"):
            continue
        by = _BY_LINE.match(text)
        if by and seen:
            metadata["title"] = _title_from_lines(seen)
            metadata["author"] = by.group(1).split("[")[0].strip().rstrip(".,")
            return metadata
        if text.lower() in ("by", "by:"):
            # "By" alone, the author on the next non-empty line.
            following = [x.strip() for x in body[body.index(line) + 1: body.index(line) + 6] if x.strip()]
            if following and seen:
                metadata["title"] = _title_from_lines(seen)
                metadata["author"] = following[0]
            return metadata
        seen.append(text)
        if len(seen) > 6:
            break
    return metadata


def _title_from_lines(lines: list[str]) -> str:
    title = lines[0].rstrip(".,")
    if title.isupper():
        title = smart_title(title)
    return title


_SMALL_WORDS = {"a", "an", "and", "as", "at", "but", "by", "for", "in", "of", "on", "or", "the", "to", "with", "from"}


def smart_title(text: str) -> str:
    """"THE HOUND OF THE BASKERVILLES" as "The Hound of the Baskervilles"."""
    words = text.lower().split()
    out = []
    for index, word in enumerate(words):
        if index and word in _SMALL_WORDS:
            out.append(word)
        else:
            out.append("-".join(_capitalize(part) for part in word.split("-")))
    return " ".join(out)


def _capitalize(word: str) -> str:
    """"marley's" -> "Marley's", "(the" -> "(The", "p.c." -> "P.C."."""
    if re.fullmatch(r"(?:[a-z]\.){2,}", word):
        return word.upper()
    for index, char in enumerate(word):
        if char.isalpha():
            return word[:index] + char.upper() + word[index + 1:]
    return word


def is_production_note(line: str) -> bool:
    return bool(_PRODUCED_BY.match(line))
