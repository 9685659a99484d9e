"""Passages (L1): about 400 tokens each with about 50 tokens of overlap, cut at
paragraph or sentence ends, never across a section boundary.

Tokens here are counted with one fixed tokenizer (the WordPiece vocabulary
shipped in resources/), whichever models are active, so passages stay the same
when the user changes the generator or the embedder. Only paragraphs too
long to be a unit of their own are split, where pysbd ends sentences; the
sentences themselves (the digest's lines and their vectors) come from syntok.
"""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..book import Book, Section
from ..paths import resources_dir

PASSAGE_TOKENS = 400
OVERLAP_TOKENS = 50
# A unit (paragraph or sentence) longer than this is split into sentences.
_UNIT_TOKENS = 120
# A last passage shorter than this joins the one before it.
_TAIL_TOKENS = 100


@dataclass(frozen=True)
class ChunkingParameters:
    passage_tokens: int = PASSAGE_TOKENS
    overlap_tokens: int = OVERLAP_TOKENS
    segmenter: str = "fixed"

    def as_dict(self) -> dict:
        return {"passage_tokens": self.passage_tokens, "overlap_tokens": self.overlap_tokens,
                "segmenter": self.segmenter, "tokenizer": tokenizer_fingerprint()}


@dataclass
class PassageSpan:
    section: int
    start: int
    end: int
    tokens: int
    paragraph_first: int
    paragraph_last: int
    title: str | None = None  # a subtitle from the LLM segmenter


@dataclass(frozen=True)
class Unit:
    start: int
    end: int
    tokens: int


def tokenizer_path() -> Path:
    return resources_dir() / "models" / "all-MiniLM-L6-v2" / "tokenizer.json"


@lru_cache(maxsize=1)
def chunking_tokenizer():
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(tokenizer_path()))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


@lru_cache(maxsize=1)
def tokenizer_fingerprint() -> str:
    return "wordpiece:" + hashlib.sha256(tokenizer_path().read_bytes()).hexdigest()[:16]


def count_tokens(texts: list[str]) -> list[int]:
    """Chunking tokens of each text (word pieces, no special tokens)."""
    if not texts:
        return []
    return [len(encoding.ids) for encoding in chunking_tokenizer().encode_batch(texts, add_special_tokens=False)]


# Stored with each passage's sentence rows: rows cut by another splitter (an
# index made before syntok has pysbd's sentences, or syntok's cut at
# semicolons and titles) are made again.
SENTENCE_SPLITTER = "syntok+joins"
# syntok ends a sentence at a title after a dash ("...who arrives at Waterloo Station"--Dr. / "Mortimer looked at
# his watch"): no sentence ends with one.
_ENDS_WITH_A_TITLE = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|St|Messrs|Mme)\.$")
_TITLE_TAIL = 10  # characters: "Messrs." and the edge before it


def sentence_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Sentences of text[start:end], as absolute (start, end) offsets.

    syntok splits inside a long speech in quotation marks, as novels are
    full of, where pysbd keeps the paragraph whole (a fifth of The Sign of
    the Four's words sat in pysbd "sentences" over 60 words, about 1% in
    syntok's): the digest quoted such blocks as one sentence. It also ends
    a sentence at a semicolon before a capital ("...as though it cried, "I
    know him;" / "Marley's Ghost!" and fell again."; 2% of Persuasion's
    sentences), and at a title after a dash ("...who arrives at Waterloo
    Station"--Dr."): the two are one sentence here."""
    from syntok.segmenter import analyze

    spans = []
    for paragraph in analyze(text[start:end]):
        joined = False  # whether the last sentence ended at a semicolon or a title, and goes on in this one
        for sentence in paragraph:
            if sentence:
                last = sentence[-1]
                span = (start + sentence[0].offset, start + last.offset + len(last.value))
                spans[-1:] = [(spans[-1][0], span[1])] if joined else spans[-1:] + [span]
                # Only its last few characters are read for a title: this runs for every sentence indexed.
                joined = last.value == ";" or _ENDS_WITH_A_TITLE.search(
                    text, max(spans[-1][0], spans[-1][1] - _TITLE_TAIL), spans[-1][1]) is not None
    return spans or [(start, end)]


_local = threading.local()


def _cut_points(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Where a long paragraph may be cut between passages: pysbd's sentences.
    It keeps a speech in quotation marks whole, which syntok splits; cutting
    passages at syntok's sentences lowered location recall on the development
    set (stage 1, all 14 books: 0.903 -> 0.888 at 12 passages, 0.766 -> 0.750
    at 6), so passages are cut as before."""
    segmenter = getattr(_local, "segmenter", None)
    if segmenter is None:  # one per thread: a pysbd Segmenter keeps the text it splits
        import pysbd

        segmenter = _local.segmenter = pysbd.Segmenter(language="en", clean=False)
    piece = text[start:end]
    spans = []
    cursor = 0
    for sentence in segmenter.segment(piece):
        stripped = sentence.strip()
        if not stripped:
            continue
        found = piece.find(stripped, cursor)
        if found < 0:  # pysbd altered the text: the rest is one piece
            spans.append((start + cursor, end))
            return spans
        spans.append((start + found, start + found + len(stripped)))
        cursor = found + len(stripped)
    return spans or [(start, end)]


def section_units(book: Book, section: Section) -> list[Unit]:
    """Paragraphs of a section's body, with long ones split into sentences and
    overlong sentences into word runs."""
    paragraphs = [p for p in book.paragraphs if p.section == section.ordinal and p.kind != "heading"]
    texts = [book.text[p.start:p.end] for p in paragraphs]
    units: list[Unit] = []
    for paragraph, tokens in zip(paragraphs, count_tokens(texts)):
        if tokens <= _UNIT_TOKENS:
            units.append(Unit(paragraph.start, paragraph.end, tokens))
            continue
        sentences = _cut_points(book.text, paragraph.start, paragraph.end)
        counts = count_tokens([book.text[s:e] for s, e in sentences])
        for (start, end), count in zip(sentences, counts):
            if count <= PASSAGE_TOKENS // 2:
                units.append(Unit(start, end, count))
            else:
                units.extend(_word_runs(book.text, start, end, count))
    return units


def _word_runs(text: str, start: int, end: int, tokens: int) -> list[Unit]:
    """An enormous sentence (a list, a legal text) cut into runs of words."""
    words = [match.span() for match in re.finditer(r"\S+", text[start:end])]
    pieces = max(2, -(-tokens // (PASSAGE_TOKENS // 3)))
    size = -(-len(words) // pieces)
    runs = []
    for index in range(0, len(words), size):
        group = words[index:index + size]
        run_start, run_end = start + group[0][0], start + group[-1][1]
        runs.append((run_start, run_end))
    counts = count_tokens([text[s:e] for s, e in runs])
    return [Unit(s, e, c) for (s, e), c in zip(runs, counts)]


def fixed_passages(book: Book, section: Section, parameters: ChunkingParameters = ChunkingParameters()) -> list[PassageSpan]:
    units = section_units(book, section)
    return passages_from_units(book, section.ordinal, units, parameters)


def passages_from_units(book: Book, section: int, units: list[Unit], parameters: ChunkingParameters) -> list[PassageSpan]:
    if not units:
        return []
    target, overlap = parameters.passage_tokens, parameters.overlap_tokens
    groups: list[list[Unit]] = []
    current: list[Unit] = []
    size = 0
    for unit in units:
        if current and size + unit.tokens > target:
            groups.append(current)
            current = _overlap(book, current, overlap)
            size = sum(u.tokens for u in current)
        current.append(unit)
        size += unit.tokens
    if current:
        end_of_previous = groups[-1][-1].end if groups else -1
        fresh = [u for u in current if u.start >= end_of_previous]
        if groups and sum(u.tokens for u in fresh) < _TAIL_TOKENS:
            groups[-1].extend(fresh)
        else:
            groups.append(current)
    return [span_of_units(book, section, group) for group in groups]


def _overlap(book: Book, group: list[Unit], overlap: int) -> list[Unit]:
    """The last sentences of a passage, about `overlap` tokens, to open the next."""
    limit = int(overlap * 1.3)
    carried: list[Unit] = []
    size = 0
    for previous in reversed(group):
        if size + previous.tokens <= limit:
            carried.insert(0, previous)
            size += previous.tokens
            continue
        # A paragraph too long to carry whole: carry its closing sentences.
        sentences = _cut_points(book.text, previous.start, previous.end)
        if len(sentences) > 1:
            counts = count_tokens([book.text[s:e] for s, e in sentences])
            for (start, end), count in reversed(list(zip(sentences, counts))):
                if size + count > limit:
                    break
                carried.insert(0, Unit(start, end, count))
                size += count
        break
    return carried


def span_of_units(book: Book, section: int, group: list[Unit]) -> PassageSpan:
    start, end = group[0].start, group[-1].end
    inside = [p.id for p in book.paragraphs if p.end > start and p.start < end]
    return PassageSpan(section=section, start=start, end=end, tokens=sum(u.tokens for u in group),
                       paragraph_first=inside[0], paragraph_last=inside[-1])
