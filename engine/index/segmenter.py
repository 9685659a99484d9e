"""Narrative-aware segmentation by the LLM (LitSeg-Lite, shared/seeds/001):
an alternative to the fixed splitter, chosen per book.

The model reads a section with numbered sentences and returns JSON segments:
a main sentence range, optional context sentences from elsewhere in the
section, and a short subtitle. The answer is validated (schema, ranges in
bounds, every sentence covered); a bad answer is retried once; gaps are
repaired by attaching sentences to the segment on their left; oversized
segments are cut by the fixed splitter; and a section the model cannot
segment at all falls back to the fixed splitter.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..book import Book, Section
from ..llm.types import CancelToken, ChatMessage, GenerationOptions
from .chunking import (
    ChunkingParameters,
    PassageSpan,
    Unit,
    count_tokens,
    passages_from_units,
    sentence_spans,
    span_of_units,
)
from .writing import Cancelled, WritingStats, section_name

_MAX_SEGMENT_TOKENS = 600
_MIN_SEGMENT_TOKENS = 60
_RESERVED = 1200  # the instructions and the JSON answer
_MAX_SENTENCES_PER_CALL = 140

SEGMENT_SCHEMA = {
    "type": "object",
    "properties": {"segments": {"type": "array", "minItems": 1, "maxItems": 40, "items": {
        "type": "object",
        "properties": {
            "start": {"type": "integer", "minimum": 1},
            "end": {"type": "integer", "minimum": 1},
            "context": {"type": "array", "maxItems": 4, "items": {"type": "integer", "minimum": 1}},
            "subtitle": {"type": "string", "maxLength": 60},
        },
        "required": ["start", "end", "subtitle"],
    }}},
    "required": ["segments"],
}


@dataclass
class SegmentationStats:
    sections: int = 0
    llm_sections: int = 0
    fallback_sections: int = 0
    retries: int = 0
    repaired_gaps: int = 0
    llm_windows: int = 0  # stretches of a section the model segmented
    fallback_windows: int = 0  # stretches left to the fixed splitter


def section_sentences(book: Book, section: Section) -> list[Unit]:
    units = []
    for paragraph in book.paragraphs:
        if paragraph.section != section.ordinal or paragraph.kind == "heading":
            continue
        spans = sentence_spans(book.text, paragraph.start, paragraph.end)
        for (start, end), tokens in zip(spans, count_tokens([book.text[s:e] for s, e in spans])):
            units.append(Unit(start, end, tokens))
    return units


def llm_passages(generator, book: Book, section: Section, cancel: CancelToken, writing: WritingStats,
                 stats: SegmentationStats, parameters: ChunkingParameters) -> list[PassageSpan]:
    stats.sections += 1
    sentences = section_sentences(book, section)
    if not sentences:
        return []
    spans: list[PassageSpan] = []
    segmented = False
    for window in _windows(generator, book, sentences):
        segments = _segment_window(generator, book, section, window, cancel, writing, stats)
        if segments is None:
            # This stretch keeps the fixed splitter; the rest of the section need not.
            stats.fallback_windows += 1
            spans.extend(passages_from_units(book, section.ordinal, window, parameters))
            continue
        segmented = True
        stats.llm_windows += 1
        for first, last, subtitle, context in segments:
            units = window[first:last + 1]
            size = sum(u.tokens for u in units)
            if size > _MAX_SEGMENT_TOKENS:
                pieces = passages_from_units(book, section.ordinal, units, parameters)
            else:
                pieces = [span_of_units(book, section.ordinal, units)]
            for piece in pieces:
                piece.title = subtitle or None
            spans.extend(pieces)
    if not segmented:
        stats.fallback_sections += 1
        return passages_from_units(book, section.ordinal, sentences, parameters)
    stats.llm_sections += 1
    return _merge_small(book, spans)


def _windows(generator, book: Book, sentences: list[Unit]) -> list[list[Unit]]:
    budget = generator.context_size - _RESERVED
    windows, current, used = [], [], 0
    for unit in sentences:
        tokens = generator.count_tokens(book.text[unit.start:unit.end]) + 4
        if current and (used + tokens > budget or len(current) >= _MAX_SENTENCES_PER_CALL):
            windows.append(current)
            current, used = [], 0
        current.append(unit)
        used += tokens
    if current:
        windows.append(current)
    return windows


def _segment_window(generator, book, section, window, cancel, writing, stats):
    numbered = "\n".join(f"[{i}] {' '.join(book.text[u.start:u.end].split())}" for i, u in enumerate(window, start=1))
    target = max(2, round(sum(u.tokens for u in window) / 400))
    messages = [
        ChatMessage("system", "You divide a chapter of a novel into passages at narrative boundaries: a change of "
                              "scene, time, place or the people present. Answer in JSON."),
        ChatMessage("user", f"{section_name(section)} of \u201c{book.title}\u201d, {len(window)} numbered sentences:\n\n"
                            f"{numbered}\n\nDivide sentences 1 to {len(window)} into about {target} passages of "
                            "consecutive sentences. For each give start and end (sentence numbers, inclusive), context "
                            "(numbers of earlier sentences needed to understand it, often none) and a subtitle of a "
                            "few words."),
    ]
    for attempt in range(2):
        if cancel.cancelled:
            raise Cancelled()
        completion = generator.complete(messages, GenerationOptions(
            max_tokens=60 + 45 * target * 2, temperature=0.0 if attempt == 0 else 0.4, seed=attempt,
            json_schema=SEGMENT_SCHEMA), cancel)
        writing.count(completion)
        if completion.finish_reason == "cancelled":
            raise Cancelled()
        segments = _validated(completion.data, len(window), stats)
        if segments is not None:
            return segments
        stats.retries += 1
    return None


def _validated(data, count: int, stats: SegmentationStats):
    """Segments as (first index, last index, subtitle, context ids), 0-based,
    covering every sentence; None if the answer is unusable."""
    if not isinstance(data, dict) or not isinstance(data.get("segments"), list):
        return None
    raw = []
    for item in data["segments"]:
        try:
            start, end = int(item["start"]), int(item["end"])
        except (KeyError, TypeError, ValueError):
            continue
        if 1 <= start <= end <= count:
            context = [int(c) - 1 for c in item.get("context", []) if isinstance(c, int) and 1 <= c <= count]
            raw.append((start - 1, end - 1, str(item.get("subtitle", "")).strip()[:60], context))
    if not raw:
        return None
    raw.sort()
    segments = []
    covered_to = -1
    for start, end, subtitle, context in raw:
        if end <= covered_to:
            continue  # entirely inside an earlier segment
        start = max(start, covered_to + 1)
        if segments and start > covered_to + 1:
            # A gap: its sentences join the segment on their left.
            previous = segments[-1]
            segments[-1] = (previous[0], start - 1, previous[2], previous[3])
            stats.repaired_gaps += 1
        elif not segments and start > 0:
            start = 0
            stats.repaired_gaps += 1
        segments.append((start, end, subtitle, context))
        covered_to = end
    if covered_to < count - 1:
        last = segments[-1]
        segments[-1] = (last[0], count - 1, last[2], last[3])
        stats.repaired_gaps += 1
    return segments


def _merge_small(book: Book, spans: list[PassageSpan]) -> list[PassageSpan]:
    merged: list[PassageSpan] = []
    for span in spans:
        if merged and (span.tokens < _MIN_SEGMENT_TOKENS or merged[-1].tokens < _MIN_SEGMENT_TOKENS) \
                and merged[-1].tokens + span.tokens <= _MAX_SEGMENT_TOKENS:
            previous = merged[-1]
            previous.end, previous.tokens = span.end, previous.tokens + span.tokens
            previous.paragraph_last = span.paragraph_last
        else:
            merged.append(span)
    return merged
