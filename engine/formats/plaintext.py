"""Plain-text books (Project Gutenberg .txt of any era, or any hard-wrapped text)
into blocks: the body between header and licence, without "Produced by" notes
or illustration captions, split at blank lines, verse kept line by line."""

from __future__ import annotations

import re

from .document import PROSE, VERSE, Block, SourceDocument
from ..structure.headings import parse_heading
from .gutenberg import find_body, is_production_note

# Captions do not nest brackets; a dozen lines is longer than any real one.
_CAPTION = re.compile(r"\[\s*(?:Illustration|Frontispiece|Decoration)\b[^\[\]]{0,1200}\]", re.I)


def parse_plain_text(text: str) -> SourceDocument:
    lines = text.split("\n")
    if lines and lines[0].startswith("?") and "Gutenberg" in lines[0][:60]:
        # Some copies replaced the byte-order mark with a question mark.
        lines[0] = lines[0][1:]
    body = find_body(lines)
    metadata = dict(body.metadata)
    metadata["gutenberg_header"] = "yes" if body.has_header else "no"
    body_lines = _drop_captions(lines[body.start:body.end])
    blocks = split_blocks(body_lines, first_line_number=body.start + 1)
    blocks = _drop_production_notes(blocks)
    return SourceDocument(blocks=blocks, metadata=metadata, source_format="text")


def _drop_captions(lines: list[str]) -> list[str]:
    """Remove "[Illustration: ...]" captions, which may span lines; the line
    count stays the same so source line numbers still hold."""
    joined = "\n".join(lines)
    if not _CAPTION.search(joined):
        return lines
    joined = _CAPTION.sub(lambda match: "\n" * match.group(0).count("\n"), joined)
    return joined.split("\n")


def split_blocks(lines: list[str], first_line_number: int = 1) -> list[Block]:
    blocks: list[Block] = []
    current: list[str] = []
    current_start = 0
    for offset, raw in enumerate(lines):
        line = raw.expandtabs(8).rstrip()
        if line.strip():
            if not current:
                current_start = offset
            current.append(line)
        elif current:
            blocks.append(Block(lines=current, source_line=first_line_number + current_start))
            current = []
    if current:
        blocks.append(Block(lines=current, source_line=first_line_number + current_start))
    blocks = [piece for block in blocks for piece in _split_glued_heading(block)]
    width = _wrap_width(lines)
    for block in blocks:
        if _is_verse(block.lines, width):
            block.kind = VERSE
    return blocks


def _split_glued_heading(block: Block) -> list[Block]:
    """"CHAPTER IV." with the chapter's prose right under it, no blank line
    between: the heading becomes a block of its own."""
    if len(block.lines) < 3:
        return [block]
    heading = parse_heading(block.lines[0])
    if heading is None or heading.kind == "number" or len(block.lines[0].strip()) > 60:
        return [block]
    rest = block.lines[1:]
    if sum(len(line) for line in rest) / len(rest) < 40:
        return [block]  # short lines under it: a heading with its title, or verse
    line = block.source_line
    return [Block(lines=block.lines[:1], source_line=line),
            Block(lines=rest, source_line=line + 1 if line is not None else None)]


def _wrap_width(lines: list[str]) -> int:
    lengths = sorted(len(line.rstrip()) for line in lines if line.strip())
    if not lengths:
        return 70
    return max(40, lengths[int(len(lengths) * 0.9)])


def _is_verse(lines: list[str], width: int) -> bool:
    if len(lines) < 2:
        return False
    # Every line indented: a poem, a letter, an inscription. A paragraph whose
    # first line alone is indented is prose.
    if all(line[:1].isspace() for line in lines):
        return True
    # Several short lines, none near the wrap width: verse set flush left.
    if len(lines) >= 3 and max(len(line) for line in lines) < width * 0.6:
        return True
    return False


def _drop_production_notes(blocks: list[Block]) -> list[Block]:
    front = max(1, len(blocks) // 20)
    return [
        block for index, block in enumerate(blocks)
        if not (index < front and is_production_note(block.first_line))
    ] if blocks else blocks


__all__ = ["parse_plain_text", "split_blocks", "PROSE"]
