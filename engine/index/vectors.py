"""Embedding passages longer than the embedder reads.

all-MiniLM-L6-v2 reads 256 word pieces; a passage has about 400. Each passage
is read in overlapping windows that each fit, and every window keeps its own
vector; a passage's dense score is that of its best window. Measured by
tests/benchmarks/passage_windows.py (recall of the right passage among all
passages of the book, for a sentence taken from the passage's end, or start):

                         end sentences      start sentences
                         @1      @5          @1      @5
    A Christmas Carol
      truncated at 256   0.05    0.21        0.66    0.84
      windows averaged   0.23    0.53        0.28    0.62
      windows, best one  0.29    0.68        0.49    0.78
    The Sign of the Four
      truncated at 256   0.07    0.19        0.59    0.79
      windows averaged   0.24    0.53        0.28    0.55
      windows, best one  0.37    0.63        0.50    0.73

Truncation makes the last third of every passage invisible; averaging blurs
every passage; the best window keeps both ends findable, for about twice the
embedding time of truncation.
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


def embed_windows(embedder, texts: list[str], cancel: CancelToken | None = None, group: int = 4) -> list[np.ndarray]:
    """For each text, the unit vectors of its windows (one row each). Works in
    small groups so a cancel is honoured within about a second."""
    results: list[np.ndarray] = []
    counts = [embedder.count_tokens(text) for text in texts]
    for start in range(0, len(texts), group):
        if cancel is not None and cancel.cancelled:
            raise InterruptedError("embedding cancelled")
        pieces: list[str] = []
        sizes: list[int] = []
        for index in range(start, min(len(texts), start + group)):
            windows = windows_of(texts[index], counts[index], embedder.max_tokens, embedder.count_tokens)
            pieces.extend(windows)
            sizes.append(len(windows))
        vectors = embedder.embed(pieces, cancel)
        offset = 0
        for size in sizes:
            results.append(vectors[offset:offset + size])
            offset += size
    return results


def embed_windows_and_sentences(embedder, texts: list[str], sentences: list[list[tuple[int, int]]],
                                cancel: CancelToken | None = None, group: int = 4):
    """`embed_windows`, plus a vector for each sentence of each text (spans
    relative to the text) from the same reading: the mean of its word pieces'
    vectors in the window that holds most of it. A sentence read in its
    passage serves the evidence digest as well as one embedded alone
    (development set, 12 passages: required sections quoted 0.540 against
    0.525, evidence sentences 0.096 against 0.097), and costs no second pass."""
    windows_out: list[np.ndarray] = []
    sentences_out: list[np.ndarray] = []
    counts = [embedder.count_tokens(text) for text in texts]
    for start in range(0, len(texts), group):
        pieces: list[str] = []
        owners: list[tuple[int, int]] = []  # (text index, the window's start in it)
        for index in range(start, min(len(texts), start + group)):
            cursor = 0
            for piece in windows_of(texts[index], counts[index], embedder.max_tokens, embedder.count_tokens):
                offset = texts[index].find(piece, cursor)
                cursor = offset + 1
                pieces.append(piece)
                owners.append((index, offset))
        read = embedder.embed_with_tokens(pieces, cancel)
        for index in range(start, min(len(texts), start + group)):
            mine = [(offset, tokens) for (owner, offset), tokens in zip(owners, read) if owner == index]
            windows_out.append(np.stack([tokens.pooled for _, tokens in mine]))
            sentences_out.append(_pool_sentences(mine, sentences[index], embedder.dimension))
    return windows_out, sentences_out


def _pool_sentences(windows, spans: list[tuple[int, int]], dimension: int) -> np.ndarray:
    vectors = np.zeros((len(spans), dimension), dtype=np.float32)
    starts = [np.array([o[0] + offset for o in read.offsets]) for offset, read in windows]
    ends = [np.array([o[1] + offset for o in read.offsets]) for offset, read in windows]
    for row, (first, last) in enumerate(spans):
        best = None
        for (_, read), token_starts, token_ends in zip(windows, starts, ends):
            inside = np.nonzero((token_starts >= first) & (token_ends <= last))[0]
            if len(inside) and (best is None or len(inside) > len(best[1])):
                best = (read, inside)
        if best is not None:
            vectors[row] = best[0].tokens[best[1]].mean(axis=0)
    # A sentence no window reached keeps a zero row: the digest embeds it alone.
    return normalize(vectors) * (np.linalg.norm(vectors, axis=1, keepdims=True) > 0)


def embed_passages(embedder, texts: list[str], cancel: CancelToken | None = None) -> np.ndarray:
    """One unit vector per text: the average of its windows (for comparison
    and for callers that need a single vector)."""
    if not texts:
        return np.zeros((0, embedder.dimension), dtype=np.float32)
    return normalize(np.stack([windows.mean(axis=0) for windows in embed_windows(embedder, texts, cancel)]))
