"""A book as the engine stores it: one normalized text, its sections (with parts
as parents), and its paragraphs, all addressed by character spans in that text."""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_right
from dataclasses import asdict, dataclass, field

from .formats.document import SourceDocument
from .formats.gutenberg import smart_title
from .structure.sections import Structure

PARAGRAPH_SEPARATOR = "\n\n"
# Words a plain-text edition marks as italic: "_Gloria Scott_".
_ITALICS = re.compile(r"(?<![\w_])_([^_\n]+)_(?![\w_])")


@dataclass
class Paragraph:
    id: int  # 1-based, reading order
    start: int
    end: int
    kind: str  # prose | verse | heading
    section: int | None  # section ordinal; None in front matter


def readable(text: str) -> str:
    """Title case for text printed in capitals ("MARLEY'S GHOST"), without a
    plain-text edition's underscores for italics ("The “_Gloria Scott_”")."""
    text = _ITALICS.sub(r"\1", text)
    letters = [char for char in text if char.isalpha()]
    if len(letters) > 3 and all(char.isupper() for char in letters):
        return smart_title(text)
    return text


# Sections that are stories of their own, each known by its title ("Adventure I. Silver Blaze").
STORY_KINDS = {"adventure"}


@dataclass
class Part:
    ordinal: int
    label: str
    title: str | None
    heading: str
    start: int
    end: int


@dataclass
class Section:
    ordinal: int  # 1-based, reading order
    label: str  # in the book's own numbering: "Stave III", "Chapter 27"
    title: str | None
    heading: str | None  # the heading line as printed; None for synthetic sections
    number: int | None
    kind: str
    start: int  # span in the stored text, heading included
    end: int
    body_start: int  # first character after the heading and title
    part: int | None = None  # Part.ordinal

    @property
    def display_name(self) -> str:
        """"Stave I: Marley's Ghost" (a title printed in capitals is shown in title case)."""
        return f"{self.label}: {readable(self.title)}" if self.title else self.label

    @property
    def cited_name(self) -> str:
        """What a citation calls it: its label, and its title where it is a
        story of a collection ("Adventure I: Silver Blaze"; a reader knows the
        stories by their titles, a novel's chapters by their numbers)."""
        return self.display_name if self.kind in STORY_KINDS else self.label


@dataclass
class Book:
    book_id: str
    text: str
    metadata: dict[str, str]
    sections: list[Section]
    parts: list[Part] = field(default_factory=list)
    paragraphs: list[Paragraph] = field(default_factory=list)

    @property
    def title(self) -> str:
        return self.metadata.get("title") or "Untitled"

    def section_at(self, offset: int) -> Section | None:
        """The section holding this offset, or None (front matter, back matter)."""
        index = bisect_right([section.start for section in self.sections], offset) - 1
        if index >= 0 and offset < self.sections[index].end:
            return self.sections[index]
        return None

    def cited_labels(self) -> dict[int, str]:
        """Each section's name as citations show it, by ordinal."""
        return {section.ordinal: section.cited_name for section in self.sections}

    def section_text(self, ordinal: int) -> str:
        section = self.sections[ordinal - 1]
        return self.text[section.start:section.end]

    def to_dict(self) -> dict:
        return asdict(self)


def text_id(text: str) -> str:
    """Book id: the same normalized text is the same book, whatever file it came in."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def assemble(document: SourceDocument, structure: Structure) -> Book:
    pieces: list[str] = []
    spans: dict[int, tuple[int, int]] = {}
    position = 0
    for index, block in enumerate(document.blocks):
        if index in structure.dropped_blocks:
            continue
        text = block.text
        if not text:
            continue
        if pieces:
            pieces.append(PARAGRAPH_SEPARATOR)
            position += len(PARAGRAPH_SEPARATOR)
        spans[index] = (position, position + len(text))
        pieces.append(text)
        position += len(text)
    text = "".join(pieces)

    def span_of(first_block: int, end_block: int) -> tuple[int, int] | None:
        inside = [spans[i] for i in range(first_block, end_block) if i in spans]
        return (inside[0][0], inside[-1][1]) if inside else None

    parts: list[Part] = []
    part_ordinal_of: dict[int, int] = {}
    for index, spec in enumerate(structure.parts):
        span = span_of(spec.first_block, spec.end_block)
        if span is None:
            continue
        parts.append(Part(len(parts) + 1, spec.label, spec.title, spec.heading, *span))
        part_ordinal_of[index] = len(parts)

    sections: list[Section] = []
    section_of_block: dict[int, int] = {}
    for spec in structure.sections:
        span = span_of(spec.first_block, spec.end_block)
        if span is None:
            continue
        body = span_of(spec.first_block + spec.heading_blocks, spec.end_block)
        ordinal = len(sections) + 1
        sections.append(Section(
            ordinal=ordinal, label=spec.label, title=spec.title, heading=spec.heading,
            number=spec.number, kind=spec.kind, start=span[0], end=span[1],
            body_start=body[0] if body else span[1],
            part=part_ordinal_of.get(spec.part) if spec.part is not None else None,
        ))
        for block in range(spec.first_block, spec.end_block):
            section_of_block[block] = ordinal

    paragraphs = [
        Paragraph(id=number, start=span[0], end=span[1], kind=document.blocks[index].kind,
                  section=section_of_block.get(index))
        for number, (index, span) in enumerate(sorted(spans.items()), start=1)
    ]
    metadata = {key: value for key, value in document.metadata.items() if value}
    metadata["source_format"] = document.source_format
    metadata["sections_method"] = structure.method
    metadata["sections_synthetic"] = "yes" if structure.synthetic else "no"
    return Book(book_id=text_id(text), text=text, metadata=metadata, sections=sections,
                parts=parts, paragraphs=paragraphs)
