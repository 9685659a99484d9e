"""The book's own sections, found without any model call.

Every block that is shaped like a heading is a candidate. Candidates fall into
families (all "CHAPTER n" lines, all "Stave n" lines, all bare numerals...);
the family whose numbers run in sequence through the book is the section
family, Part/Book/Volume headings around it become parents, a prologue before
it and an epilogue after it join it. Collections whose story headings carry
no number are found through their printed table of contents; EPUBs use their
own table of contents where its entries are chapter-sized. A text with no
usable headings is cut into synthetic sections of about 5,000 words.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace

from ..formats.document import HEADING, Block, SourceDocument
from .contents import Contents, find_contents, normalize_title
from .headings import CONTAINER_KINDS, FRONT_KINDS, SPECIAL_KINDS, Heading, parse_heading, tidy_title

SYNTHETIC_SECTION_WORDS = 5000
# Headings closer than this (in words of text between them) form a listing.
_LISTING_GAP_WORDS = 12
_MAX_HEADING_LINES = 4


@dataclass
class SectionSpec:
    first_block: int  # the heading block (or first text block of a synthetic section)
    end_block: int  # exclusive
    label: str
    title: str | None
    heading: str | None  # heading line as the book prints it
    number: int | None
    kind: str
    part: int | None = None  # index into Structure.parts
    heading_blocks: int = 1  # blocks at first_block that are heading or title


@dataclass
class PartSpec:
    first_block: int
    end_block: int
    label: str
    title: str | None
    heading: str
    number: int | None
    kind: str
    heading_blocks: int = 1


@dataclass
class Structure:
    sections: list[SectionSpec]
    parts: list[PartSpec] = field(default_factory=list)
    dropped_blocks: set[int] = field(default_factory=set)
    method: str = "headings"  # headings | contents-titles | epub-toc | markup | synthetic

    @property
    def synthetic(self) -> bool:
        return self.method == "synthetic"


@dataclass
class _Candidate:
    block: int
    heading: Heading


def detect_structure(document: SourceDocument) -> Structure:
    blocks = document.blocks
    contents = find_contents(blocks)
    dropped = set(contents.blocks)
    structure = None
    if document.toc:
        structure = _from_publisher_toc(document, dropped)
    if structure is None:
        structure = _from_headings(blocks, dropped, contents)
    if structure is None:
        structure = _from_contents_titles(blocks, dropped, contents)
    if structure is None:
        structure = _from_markup(blocks, dropped)
    if structure is None:
        structure = _synthetic(blocks, dropped)
    structure.dropped_blocks |= dropped
    for section in structure.sections:
        for offset in range(section.heading_blocks):
            blocks[section.first_block + offset].kind = HEADING
    for part in structure.parts:
        for offset in range(part.heading_blocks):
            blocks[part.first_block + offset].kind = HEADING
    return structure


# ---------------------------------------------------------------- candidates


def _block_heading(block: Block) -> Heading | None:
    if not block.lines or len(block.lines) > _MAX_HEADING_LINES:
        return None
    if block.markup_level is None and any(len(line.strip()) > 100 for line in block.lines):
        return None
    heading = parse_heading(block.first_line)
    if heading is None:
        return None
    if len(block.lines) > 1 and block.markup_level is None:
        # "CHAPTER ONE" / "PLAYING PILGRIMS" is a heading with its title below;
        # "CHAPTER I. It was a dark..." wrapped into a paragraph is not.
        rest = " ".join(line.strip() for line in block.lines[1:])
        if len(rest) > 100 or rest.endswith((",", ";")):
            return None
    return heading


def _candidates(blocks: list[Block], dropped: set[int]) -> list[_Candidate]:
    found = [
        _Candidate(index, heading)
        for index, block in enumerate(blocks)
        if index not in dropped and (heading := _block_heading(block)) is not None
    ]
    return _without_listings(blocks, found, dropped)


def _without_listings(blocks: list[Block], found: list[_Candidate], dropped: set[int]) -> list[_Candidate]:
    """Runs of three or more headings with almost no text between them are an
    unlabelled table of contents: drop them (and their blocks, before the body)."""
    if len(found) < 3:
        return found
    gaps = [
        sum(blocks[i].word_count() for i in range(a.block + 1, b.block))
        for a, b in zip(found, found[1:])
    ]
    runs: list[list[int]] = [[0]]
    for index, gap in enumerate(gaps, start=1):
        if gap < _LISTING_GAP_WORDS:
            runs[-1].append(index)
        else:
            runs.append([index])
    # "VOLUME I / BOOK I / CHAPTER I" is a heading stack, not a listing: count
    # only section-level headings.
    listed_members = {
        member for run in runs
        if sum(1 for k in run if not found[k].heading.is_container) >= 3
        for member in run
    }
    in_run = [index in listed_members for index in range(len(found))]
    kept = [candidate for candidate, listed in zip(found, in_run) if not listed]
    listed_blocks = [candidate.block for candidate, listed in zip(found, in_run) if listed]
    first_kept = kept[0].block if kept else len(blocks)
    dropped.update(block for block in listed_blocks if block < first_kept)
    return kept


def _family_key(heading: Heading) -> tuple:
    if heading.kind == "number":
        return ("number", heading.number_style)
    return (heading.kind,)


# ---------------------------------------------------------------- families


def _sequence(members: list[_Candidate], containers: list[_Candidate]) -> list[_Candidate]:
    """Longest run of members numbered one after another in reading order.
    Numbering may restart at 1 after a Part/Book/Volume heading."""
    if not members:
        return []
    container_blocks = [c.block for c in containers]

    def follows(previous: _Candidate, current: _Candidate) -> bool:
        a, b = previous.heading.number, current.heading.number
        if a is None or b is None:
            return True
        if b == a + 1:
            return True
        return b == 1 and any(previous.block < block < current.block for block in container_blocks)

    best_length = [1] * len(members)
    back: list[int | None] = [None] * len(members)
    for j in range(len(members)):
        # Only look back a little: a chain link is almost always the previous member.
        for i in range(max(0, j - 8), j):
            if follows(members[i], members[j]) and best_length[i] + 1 > best_length[j]:
                best_length[j] = best_length[i] + 1
                back[j] = i
    end = max(range(len(members)), key=lambda k: (best_length[k], -k))
    chain = []
    cursor: int | None = end
    while cursor is not None:
        chain.append(members[cursor])
        cursor = back[cursor]
    return chain[::-1]


def _from_headings(blocks: list[Block], dropped: set[int], contents: Contents) -> Structure | None:
    candidates = _candidates(blocks, dropped)
    families: dict[tuple, list[_Candidate]] = defaultdict(list)
    for candidate in candidates:
        families[_family_key(candidate.heading)].append(candidate)
    container_families = {key: members for key, members in families.items() if key[0] in CONTAINER_KINDS}
    all_containers = [c for members in container_families.values() for c in members]

    best: list[_Candidate] = []
    best_key: tuple | None = None
    for key, members in families.items():
        if key[0] in CONTAINER_KINDS or key[0] in SPECIAL_KINDS:
            continue
        chain = _sequence(members, all_containers)
        # Named keywords ("CHAPTER") beat bare numerals on a tie.
        rank = (len(chain), key[0] != "number")
        if len(chain) >= 2 and (not best or rank > (len(best), best_key[0] != "number")):
            best, best_key = chain, key
    parts_source: list[_Candidate] = []
    if best:
        sections = _extended(best, candidates)
        parts_source = _containers_around(sections, container_families)
    else:
        # No chapter family: Part/Book/Volume headings are the sections themselves.
        chains = [_sequence(members, []) for members in container_families.values()]
        chains = [chain for chain in chains if len(chain) >= 2]
        if not chains:
            return None
        sections = max(chains, key=len)
    sections = _with_prologue_and_epilogue(candidates, sections, parts_source)
    return _build(blocks, sections, parts_source, contents, method="headings")


def _extended(chain: list[_Candidate], candidates: list[_Candidate]) -> list[_Candidate]:
    """Continue the chain with the next numbers printed in another style, as in
    editions that switch from "ADVENTURE VI. ..." to "VII. THE ADVENTURE OF ...".
    Only headings that carry a title on their line qualify: a lone "VII." is too
    often a subsection."""
    chain = list(chain)
    while chain[-1].heading.number is not None:
        wanted = chain[-1].heading.number + 1
        following = next(
            (c for c in candidates
             if c.block > chain[-1].block and c.heading.number == wanted and not c.heading.is_container
             and c.heading.kind not in SPECIAL_KINDS
             and (c.heading.title or c.heading.kind != "number")),
            None,
        )
        if following is None:
            break
        if following.heading.kind == "number":
            # Label it in the chain's own word: "Adventure VII", not "Chapter VII".
            following = _Candidate(following.block, replace(following.heading, kind=chain[-1].heading.kind))
        chain.append(following)
    return chain


def _containers_around(sections: list[_Candidate], container_families: dict) -> list[_Candidate]:
    """The container family that encloses the sections: its headings fall
    before and among them, each followed by at least one section."""
    first, last = sections[0].block, sections[-1].block
    best: list[_Candidate] = []
    for members in container_families.values():
        chain = _sequence([m for m in members if m.block <= last], [])
        # Each container must be followed by a section before the next container.
        useful = []
        for index, member in enumerate(chain):
            following = chain[index + 1].block if index + 1 < len(chain) else None
            if any(member.block < s.block and (following is None or s.block < following) for s in sections):
                useful.append(member)
        if not useful:
            continue
        # The first container sits before the first section it holds.
        if useful[0].block > first and len(useful) == 1 and len(chain) == 1:
            continue
        if len(useful) > len(best):
            best = useful
    return best


def _with_prologue_and_epilogue(candidates, sections, parts) -> list[_Candidate]:
    first, last = sections[0].block, sections[-1].block
    floor = max([p.block for p in parts if p.block < first], default=-1)
    before = [c for c in candidates if c.heading.kind == "prologue" and floor < c.block < first]
    after = [c for c in candidates if c.heading.kind in ("epilogue", "afterword", "postscript", "envoi") and c.block > last]
    return before[-1:] + sections + after[:1]


def _from_contents_titles(blocks: list[Block], dropped: set[int], contents: Contents) -> Structure | None:
    """A collection whose stories are headed by their titles alone ("THE
    ADVENTURE OF THE EMPTY HOUSE"), found through the printed contents."""
    titles = [normalize_title(t) for t in contents.unnumbered_titles()]
    if len(titles) < 2:
        return None
    wanted = {title: index for index, title in enumerate(titles)}
    found: list[_Candidate] = []
    next_expected = 0
    for index, block in enumerate(blocks):
        if index in dropped or len(block.lines) > 2:
            continue
        key = normalize_title(" ".join(line.strip() for line in block.lines))
        position = wanted.get(key)
        if position is not None and position >= next_expected:
            text = " ".join(line.strip() for line in block.lines)
            found.append(_Candidate(index, Heading(kind="title", number=position + 1, number_text=None, title=None, text=text)))
            next_expected = position + 1
    if len(found) < 2 or len(found) * 2 < len(titles):
        return None
    return _build(blocks, found, [], contents, method="contents-titles")


def _from_markup(blocks: list[Block], dropped: set[int]) -> Structure | None:
    """HTML/EPUB headings of one level that recur through the book."""
    by_level: dict[int, list[int]] = defaultdict(list)
    for index, block in enumerate(blocks):
        if index not in dropped and block.markup_level is not None and block.markup_level <= 3:
            by_level[block.markup_level].append(index)
    total_words = sum(block.word_count() for block in blocks) or 1
    for level in sorted(by_level):
        indexes = by_level[level]
        if len(indexes) < 2:
            continue
        spans = [sum(blocks[i].word_count() for i in range(a, b)) for a, b in zip(indexes, indexes[1:] + [len(blocks)])]
        if sorted(spans)[len(spans) // 2] < 300 or sum(spans) < total_words * 0.6:
            continue
        found = [
            _Candidate(i, Heading(kind="title", number=n + 1, number_text=None, title=None, text=blocks[i].text.replace("\n", " ")))
            for n, i in enumerate(indexes)
        ]
        return _build(blocks, found, [], Contents(), method="markup")
    return None


def _from_publisher_toc(document: SourceDocument, dropped: set[int]) -> Structure | None:
    """Sections from an EPUB's own table of contents, where its entries are
    chapter-sized; None sends the book through heading detection instead."""
    blocks = document.blocks
    entries = [e for e in document.toc if e.block_index is not None and e.block_index not in dropped]
    if len(entries) < 2:
        return None
    ordered: list[tuple[int, str, int]] = []
    seen_blocks: set[int] = set()
    for entry in entries:
        if entry.block_index in seen_blocks:
            continue
        seen_blocks.add(entry.block_index)
        ordered.append((entry.block_index, " ".join(entry.title.split()), entry.depth))
    ordered.sort()
    headed = [(i, title, depth, parse_heading(title)) for i, title, depth in ordered]
    containers = [_Candidate(i, h) for i, _, _, h in headed if h is not None and h.is_container]
    if not containers:
        # Some tables of contents list only chapters; the volumes are in the text.
        containers = [c for c in _candidates(blocks, set(dropped)) if c.heading.is_container]
    chain: list[_Candidate] = []
    # Entries nest (a story and its numbered scenes): chain each depth on its own.
    for depth in sorted({d for _, _, d, _ in headed}):
        sections_c = [
            _Candidate(i, h) for i, _, d, h in headed
            if d == depth and h is not None and not h.is_container and h.kind not in FRONT_KINDS
        ]
        found = _sequence(sections_c, containers)
        if len(found) > len(chain):
            chain = found
    total_words = sum(block.word_count() for block in blocks) or 1
    if len(chain) >= 2:
        parts = _containers_around(chain, {(c.heading.kind,): [x for x in containers if x.heading.kind == c.heading.kind] for c in containers})
        chain = _with_prologue_and_epilogue([_Candidate(i, h) for i, _, _, h in headed if h], chain, parts)
        return _build(blocks, chain, parts, Contents(), method="epub-toc")
    # Unnumbered entries: use them if they are chapter-sized and cover the book.
    indexes = [i for i, _, _ in ordered]
    spans = [sum(blocks[k].word_count() for k in range(a, b)) for a, b in zip(indexes, indexes[1:] + [len(blocks)])]
    kept = [(i, title) for (i, title, _), words in zip(ordered, spans) if words >= 200]
    if len(kept) < 2 or sum(w for w in spans if w >= 200) < total_words * 0.6:
        return None
    median = sorted(spans)[len(spans) // 2]
    if median < 500:
        return None
    found = [
        _Candidate(i, Heading(kind="title", number=n + 1, number_text=None, title=None, text=title))
        for n, (i, title) in enumerate(kept)
    ]
    return _build(blocks, found, [], Contents(), method="epub-toc")


# ---------------------------------------------------------------- building


def _build(blocks, section_candidates, part_candidates, contents: Contents, method: str) -> Structure:
    titles_by_number = contents.titles_by_number()
    boundaries = sorted({c.block for c in section_candidates} | {p.block for p in part_candidates})
    next_boundary = {b: (boundaries[k + 1] if k + 1 < len(boundaries) else len(blocks)) for k, b in enumerate(boundaries)}

    parts: list[PartSpec] = []
    for index, candidate in enumerate(part_candidates):
        following = part_candidates[index + 1].block if index + 1 < len(part_candidates) else len(blocks)
        title, extra = _title_below(blocks, candidate, {}, majority=False, limit=next_boundary[candidate.block])
        heading = candidate.heading
        parts.append(PartSpec(
            first_block=candidate.block, end_block=following, label=heading.label,
            title=heading.title or title, heading=" ".join(blocks[candidate.block].first_line.split()),
            number=heading.number, kind=heading.kind, heading_blocks=1 + extra,
        ))

    majority = _titles_usually_below(blocks, section_candidates)
    sections: list[SectionSpec] = []
    for candidate in section_candidates:
        heading = candidate.heading
        extra = 0
        title = heading.title
        if heading.kind == "title":
            label = _label_from_title(heading.text)
        else:
            label = heading.label
            if title is None:
                title, extra = _title_below(blocks, candidate, titles_by_number, majority, next_boundary[candidate.block])
        # The heading as it reads in the stored text (spacing normalized).
        printed = " ".join(blocks[candidate.block].first_line.split())
        sections.append(SectionSpec(
            first_block=candidate.block, end_block=next_boundary[candidate.block], label=label,
            title=title, heading=printed, number=heading.number, kind=heading.kind,
            heading_blocks=1 + extra,
        ))
    for section in sections:
        for part_index, part in enumerate(parts):
            if part.first_block < section.first_block < part.end_block:
                section.part = part_index
    _disambiguate_labels(sections, parts)
    return Structure(sections=sections, parts=parts, method=method)


def _title_below(blocks, candidate: _Candidate, titles_by_number: dict[int, str], majority: bool,
                 limit: int) -> tuple[str | None, int]:
    """A title printed under a bare heading: in the same block ("CHAPTER ONE" /
    "PLAYING PILGRIMS") or as the next short block ("Chapter I" / "Out to Sea").
    Returns the title and how many extra blocks it takes."""
    block = blocks[candidate.block]
    if len(block.lines) > 1:
        return tidy_title(" ".join(line.strip() for line in block.lines[1:])), 0
    following = candidate.block + 1
    if following >= limit or following >= len(blocks):
        return None, 0
    nxt = blocks[following]
    if not _title_shaped(nxt):
        return None, 0
    text = tidy_title(" ".join(line.strip() for line in nxt.lines)) or ""
    listed = titles_by_number.get(candidate.heading.number) if candidate.heading.number is not None else None
    if listed and normalize_title(listed) == normalize_title(text):
        return text, 1
    if majority:
        return text, 1
    return None, 0


def _title_shaped(block: Block) -> bool:
    if len(block.lines) > 2 or block.markup_level is not None and block.markup_level > 4:
        return False
    text = " ".join(line.strip() for line in block.lines)
    if len(text) > 90 or not text[:1].isalnum() or not text[:1].isupper() and not text[:1].isdigit():
        return False
    return not text.endswith((",", ";", ":"))


def _titles_usually_below(blocks, candidates: list[_Candidate]) -> bool:
    """Most headings of the family carry a title-shaped block right below them,
    and those blocks are short, unlike the first paragraph of a chapter."""
    bare = [c for c in candidates if c.heading.title is None and c.heading.kind != "title"]
    if len(bare) < 2:
        return False
    shaped = 0
    for candidate in bare:
        block = blocks[candidate.block]
        if len(block.lines) > 1:
            shaped += 1
            continue
        following = candidate.block + 1
        if following < len(blocks) and _title_shaped(blocks[following]) and len(blocks[following].lines) == 1 \
                and len(blocks[following].first_line) <= 60:
            shaped += 1
    return shaped * 10 >= len(bare) * 7


def _label_from_title(text: str) -> str:
    label = " ".join(text.split())
    if label.isupper():
        from ..formats.gutenberg import smart_title
        label = smart_title(label)
    return label


def _disambiguate_labels(sections: list[SectionSpec], parts: list[PartSpec]) -> None:
    """A label resolves to exactly one section: where chapter numbering restarts in
    each part, "Chapter I" becomes "Part II, Chapter I"."""
    counts = Counter(section.label for section in sections)
    if any(count > 1 for count in counts.values()):
        # Name every section in a part the same way, not only the clashing ones.
        for section in sections:
            if section.part is not None:
                section.label = f"{parts[section.part].label}, {section.label}"
    counts = Counter(section.label for section in sections)
    seen: Counter = Counter()
    for section in sections:
        if counts[section.label] > 1:
            seen[section.label] += 1
            section.label = f"{section.label} ({seen[section.label]})"


def _synthetic(blocks: list[Block], dropped: set[int]) -> Structure:
    """About 5,000 words per section, cut at paragraph ends."""
    sections: list[SectionSpec] = []
    start = None
    words = 0
    kept = [i for i in range(len(blocks)) if i not in dropped]
    for index in kept:
        if start is None:
            start = index
        words += blocks[index].word_count()
        if words >= SYNTHETIC_SECTION_WORDS:
            sections.append(_synthetic_section(len(sections) + 1, start, index + 1))
            start, words = None, 0
    if start is not None:
        if sections and words < SYNTHETIC_SECTION_WORDS // 4:
            sections[-1].end_block = len(blocks)
        else:
            sections.append(_synthetic_section(len(sections) + 1, start, len(blocks)))
    if sections:
        sections[-1].end_block = len(blocks)
    return Structure(sections=sections, method="synthetic")


def _synthetic_section(number: int, first: int, end: int) -> SectionSpec:
    return SectionSpec(first_block=first, end_block=end, label=f"Section {number}", title=None,
                       heading=None, number=number, kind="synthetic", heading_blocks=0)


