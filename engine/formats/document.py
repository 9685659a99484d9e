"""What every reader (plain text, HTML, EPUB) hands to section detection.

A source document is a list of blocks: paragraphs, verse, headings. Each block
keeps its raw lines so heading detection can look at line shape, and knows how
to render itself as normalized text (hard-wrapped prose unwrapped, verse and
headings kept line by line).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

PROSE = "prose"
VERSE = "verse"
HEADING = "heading"

_SPACES = re.compile(r"[ \t\u00a0]+")


@dataclass
class Block:
    lines: list[str]
    kind: str = PROSE
    # Heading level from markup (h1=1 ... h6=6); None for plain text.
    markup_level: int | None = None
    # Element ids (EPUB "file#id") that point at or just before this block.
    anchors: list[str] = field(default_factory=list)
    # 1-based line in the decoded source, for plain text; diagnostic only.
    source_line: int | None = None

    @property
    def first_line(self) -> str:
        return self.lines[0].strip() if self.lines else ""

    @property
    def text(self) -> str:
        if self.kind in (VERSE, HEADING):
            return "\n".join(_SPACES.sub(" ", line.strip()) for line in self.lines if line.strip())
        return unwrap(self.lines)

    def word_count(self) -> int:
        return sum(len(line.split()) for line in self.lines)


def unwrap(lines: list[str]) -> str:
    """Join hard-wrapped lines into one paragraph; a line ending in a hyphen or dash
    joins without a space ("coal-" + "mine" is "coal-mine")."""
    out: list[str] = []
    for raw in lines:
        line = _SPACES.sub(" ", raw.strip())
        if not line:
            continue
        if out and not out[-1].endswith(("-", "\u2014", "\u2013")):
            out.append(" ")
        out.append(line)
    return "".join(out)


@dataclass
class TocEntry:
    """One entry of a publisher's table of contents (EPUB nav or NCX)."""

    title: str
    block_index: int | None
    depth: int = 0


@dataclass
class SourceDocument:
    blocks: list[Block]
    metadata: dict[str, str] = field(default_factory=dict)
    source_format: str = "text"
    toc: list[TocEntry] = field(default_factory=list)
