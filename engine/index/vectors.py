"""Embedding passages longer than the embedder reads.

all-MiniLM-L6-v2 reads 256 word pieces; a passage has about 400. Cut at 256,
the last third of every passage would be invisible to dense search. Instead
the passage is read in overlapping windows that each fit, and the window
vectors are averaged (then normalized): every sentence counts.
tests/benchmarks/passage_windows.py measures the choice: how often a
sentence from the end of a passage finds its passage, truncated versus
windowed, and what the windows cost.
"""

from __future__ import annotations

import math
import re

import numpy as np

from ..llm.embedder import normalize
from ..llm.types import CancelToken

# Windows overlap by a quarter, so no sentence is cut off at every window edge.
_WINDOW_OVERLAP = 0.25
_SPECIAL_TOKENS = 2  # [CLS] and [SEP]


def windows_of(text: str, tokens: int, max_tokens: int, count_tokens=None) -> list[str]:
    """Overlapping word windows of `text` (which has `tokens` word pieces), each
    at most `max_tokens` word pieces long (checked with `count_tokens` when
    given, since words differ in how many pieces they take)."""
    room = max_tokens - _SPECIAL_TOKENS
    if tokens <= room:
        return [text]
    words = [match.span() for match in re.finditer(r"\S+", text)]
    per_word = tokens / max(1, len(words))
    window = max(8, int(room / per_word * 0.95))
    for _ in range(6):
        pieces = _word_windows(text, words, window)
        if count_tokens is None or all(count_tokens(piece) <= room for piece in pieces):
            return pieces
        window = max(8, int(window * 0.9))
    return pieces


def _word_windows(text: str, words: list[tuple[int, int]], window: int) -> list[str]:
    step = max(1, int(window * (1 - _WINDOW_OVERLAP)))
    count = max(2, math.ceil((len(words) - window) / step) + 1)
    step = max(1, math.ceil((len(words) - window) / (count - 1)))
    pieces = []
    for index in range(count):
        first = min(index * step, max(0, len(words) - window))
        group = words[first:first + window]
        pieces.append(text[group[0][0]:group[-1][1]])
    return pieces


def embed_passages(embedder, texts: list[str], cancel: CancelToken | None = None, group: int = 4) -> np.ndarray:
    """One unit vector per text, averaging windows where a text is too long.
    Works in small groups so a cancel is honoured within about a second."""
    if not texts:
        return np.zeros((0, embedder.dimension), dtype=np.float32)
    counts = [embedder.count_tokens(text) for text in texts]
    vectors = np.zeros((len(texts), embedder.dimension), dtype=np.float32)
    for start in range(0, len(texts), group):
        if cancel is not None and cancel.cancelled:
            raise InterruptedError("embedding cancelled")
        pieces: list[str] = []
        owners: list[int] = []
        for index in range(start, min(len(texts), start + group)):
            for piece in windows_of(texts[index], counts[index], embedder.max_tokens, embedder.count_tokens):
                pieces.append(piece)
                owners.append(index)
        window_vectors = embedder.embed(pieces, cancel)
        for index in set(owners):
            mine = window_vectors[[i for i, owner in enumerate(owners) if owner == index]]
            vectors[index] = mine.mean(axis=0)
    return normalize(vectors)
