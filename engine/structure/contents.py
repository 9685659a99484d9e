"""Tables of contents (and lists of illustrations) printed in a plain-text book.

They are not sections and are dropped from the stored text, but their entries
are good hints: the titles of chapters whose heading line gives only a number,
and the story titles of a collection whose headings have no number at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..formats.document import Block
from .headings import Heading, parse_heading

_LISTING_HEAD = re.compile(
    r"^\s*(?:(?:table\s+of\s+)?contents?|list\s+of\s+(?:illustrations|plates|chapters)|illustrations|chapters)"
    r"(?:\s+of\s+(?:volume|vol\.?|part|book)\s+\S+)?[\s.:]*$",
    re.IGNORECASE,
)
# "Out to Sea ........ 23" or "Out to Sea      23": a trailing page number.
_PAGE_NUMBER = re.compile(r"(?:\s*\.{2,}\s*|\s{2,})(?:\d{1,4}|[ivxlc]{1,6})\s*$")
_MAX_ENTRY_CHARS = 100


@dataclass
class ContentsEntry:
    key: tuple
    heading: Heading | None
    title: str | None


@dataclass
class Contents:
    """Blocks that hold printed tables of contents, and what they list."""

    blocks: set[int] = field(default_factory=set)
    entries: list[ContentsEntry] = field(default_factory=list)

    def titles_by_number(self) -> dict[int, str]:
        titles: dict[int, str] = {}
        for entry in self.entries:
            heading = entry.heading
            if heading and heading.number is not None and not heading.is_container and entry.title:
                titles.setdefault(heading.number, entry.title)
        return titles

    def unnumbered_titles(self) -> list[str]:
        return [entry.title for entry in self.entries if entry.heading is None and entry.title]


def find_contents(blocks: list[Block]) -> Contents:
    found = Contents()
    search_limit = max(60, len(blocks) // 4)
    index = 0
    while index < min(len(blocks), search_limit):
        block = blocks[index]
        if _is_unlabelled_listing(block):
            found.blocks.add(index)
            found.entries.extend(entry for line in block.lines if (entry := _entry(line, None)))
            index += 1
            continue
        if not _LISTING_HEAD.match(block.first_line):
            index += 1
            continue
        end, entries = _read_listing(blocks, index)
        found.blocks.update(range(index, end))
        found.entries.extend(entries)
        index = end
    return found


def _read_listing(blocks: list[Block], head: int) -> tuple[int, list[ContentsEntry]]:
    """Read entries after a "Contents" line until prose, or until a line repeats
    an entry (the body's first heading); returns the end block and the entries."""
    read: list[tuple[int, list[ContentsEntry]]] = [(head, [])]
    seen: set[tuple] = set()
    kinds_by_number: dict[int, set[str]] = {}
    container: int | None = None
    position, lines = head, blocks[head].lines[1:]
    while lines is not None:
        if _is_prose(lines):
            _give_back_opening_heading(blocks, read)
            break
        block_entries = []
        for line in lines:
            entry = _entry(line, container)
            if entry is None:
                continue
            if entry.key in seen or _restates(entry, kinds_by_number):
                break
            if entry.heading and entry.heading.is_container:
                container = entry.heading.number
            block_entries.append(entry)
        else:
            seen.update(entry.key for entry in block_entries)
            for entry in block_entries:
                if entry.heading and entry.heading.number is not None and not entry.heading.is_container:
                    kinds_by_number.setdefault(entry.heading.number, set()).add(entry.heading.kind)
            if block_entries:
                read.append((position, block_entries))
            position += 1
            # A marked-up heading (h1-h6) is never a listing entry: the listing ended.
            lines = blocks[position].lines if position < len(blocks) and blocks[position].markup_level is None else None
            continue
        break
    # A listing of numbered entries ends with its last numbered entry; a title
    # line after it ("Black Beauty" before "Part I") belongs to the body.
    entries = [entry for _, block_entries in read for entry in block_entries]
    numbered = sum(1 for entry in entries if entry.heading is not None)
    if numbered * 2 >= len(entries):
        while len(read) > 1 and all(entry.heading is None for entry in read[-1][1]):
            read.pop()
    entries = [entry for _, block_entries in read for entry in block_entries]
    return read[-1][0] + 1, entries


def _is_unlabelled_listing(block: Block) -> bool:
    """A block of three or more lines, each a numbered heading ("I. A Scandal in
    Bohemia" / "II. The Red-headed League" / ...): contents printed without a title."""
    if len(block.lines) < 3:
        return False
    numbered = [parse_heading(line, in_listing=True) for line in block.lines]
    numbers = [heading.number for heading in numbered if heading is not None and heading.number is not None]
    return len(numbers) * 5 >= len(block.lines) * 4 and numbers == sorted(numbers) and len(set(numbers)) == len(numbers)


def _restates(entry: ContentsEntry, kinds_by_number: dict[int, set[str]]) -> bool:
    """"Chapter I" after a listing of "I  Out to Sea": the same number in another
    style is the body's first heading, not another entry."""
    heading = entry.heading
    if heading is None or heading.number is None or heading.is_container:
        return False
    kinds = kinds_by_number.get(heading.number)
    return bool(kinds) and heading.kind not in kinds


def _give_back_opening_heading(blocks: list[Block], read: list) -> None:
    """The listing ran into prose: if its last blocks are a flush-left heading
    (and the title under it), they open the body rather than end the listing."""
    for take in (1, 2):
        if len(read) <= take:
            return
        position = read[-take][0]
        block = blocks[position]
        heading = parse_heading(block.first_line)
        if heading is not None and not block.lines[0][:1].isspace() and read[-take][0] + take - 1 == read[-1][0]:
            del read[-take:]
            return


def _entry(line: str, container: int | None) -> ContentsEntry | None:
    if not line.strip():
        return None
    # Page numbers are set apart by dot leaders or a wide gap: look before joining spaces.
    text = " ".join(_PAGE_NUMBER.sub("", line.strip()).split()) or " ".join(line.split())
    heading = parse_heading(text, in_listing=True)
    if heading is not None:
        if heading.is_container:
            key = ("container", heading.kind, heading.number)
        elif heading.number is not None:
            key = ("section", container, heading.number)
        else:
            key = ("special", heading.kind)
        return ContentsEntry(key=key, heading=heading, title=heading.title)
    normalized = normalize_title(text)
    if not normalized:
        return None
    return ContentsEntry(key=("title", normalized), heading=None, title=text)


def _is_prose(lines: list[str]) -> bool:
    if any(len(line.strip()) > _MAX_ENTRY_CHARS for line in lines):
        return True
    if len(lines) < 2:
        return False
    long_lines = [line for line in lines if len(line.strip()) > 55]
    unindented = [line for line in lines if not line[:1].isspace()]
    parsed = [line for line in lines if parse_heading(line, in_listing=True)]
    # Wrapped prose: long flush-left lines that read as no entry at all.
    return len(long_lines) * 2 >= len(lines) and len(unindented) == len(lines) and not parsed


def normalize_title(text: str) -> str:
    """Comparable form of a title: case, punctuation and spacing ignored."""
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    return " ".join(re.sub(r"[^\w' ]+", " ", text.casefold()).split())
