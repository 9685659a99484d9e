#!/usr/bin/env python3
"""How to embed a 400-token passage with an embedder that reads 256: the
measurement behind engine/index/vectors.py.

    python tests/benchmarks/passage_windows.py [BOOK...]

For every passage longer than the embedder's limit, a sentence from its end
(beyond the first 256 word pieces) and one from its start are used as
queries; dense search over all passages should find the passage they came
from. Compared: truncating each passage at the limit, and averaging the
vectors of overlapping windows that cover it. Prints recall@1 and recall@5
for the end and start sentences, and the embedding time of each way.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def main() -> int:
    from engine.importer import parse_book
    from engine.index.chunking import count_tokens, fixed_passages, sentence_spans
    from engine.index.vectors import embed_passages, windows_of
    from engine.llm import ModelSettings, open_embedder
    from engine.paths import sample_book_path

    paths = [Path(p) for p in sys.argv[1:]] or [sample_book_path()]
    embedder = open_embedder(ModelSettings(threads=2))
    limit = embedder.max_tokens - 2
    for path in paths:
        book = parse_book(path)
        passages = [span for section in book.sections for span in fixed_passages(book, section)]
        texts = [book.text[p.start:p.end] for p in passages]
        tail_queries, head_queries = [], []
        for index, passage in enumerate(passages):
            sentences = sentence_spans(book.text, passage.start, passage.end)
            if len(sentences) < 3 or embedder.count_tokens(texts[index]) <= limit:
                continue
            lengths = count_tokens([book.text[passage.start:e] for _, e in sentences])
            tail = [(s, e) for (s, e), upto in zip(sentences, lengths) if upto > limit + 20]
            if tail:
                s, e = tail[-1]
                tail_queries.append((book.text[s:e], index))
            s, e = sentences[0]
            head_queries.append((book.text[s:e], index))

        started = time.perf_counter()
        truncated = embedder.embed(texts)  # the embedder cuts each text at its limit
        truncated_seconds = time.perf_counter() - started
        started = time.perf_counter()
        windowed = embed_passages(embedder, texts)
        windowed_seconds = time.perf_counter() - started
        # Every window kept as a vector of its own; a passage scores its best window.
        pieces, owners = [], []
        for index, text in enumerate(texts):
            for piece in windows_of(text, embedder.count_tokens(text), embedder.max_tokens, embedder.count_tokens):
                pieces.append(piece)
                owners.append(index)
        window_vectors = embedder.embed(pieces)
        owners = np.array(owners)

        print(f"{book.title}: {len(passages)} passages, {len(tail_queries)} longer than {limit} word pieces")
        for name, queries in (("end sentences", tail_queries), ("start sentences", head_queries)):
            vectors = embedder.embed([query for query, _ in queries])
            for way, matrix in (("truncated", truncated), ("windows-mean", windowed), ("windows-max", None)):
                ranks = []
                for vector, (_, target) in zip(vectors, queries):
                    if matrix is None:
                        scores = np.full(len(texts), -1.0)
                        np.maximum.at(scores, owners, window_vectors @ vector)
                    else:
                        scores = matrix @ vector
                    order = np.argsort(-scores)
                    ranks.append(int(np.where(order == target)[0][0]) + 1)
                ranks = np.array(ranks)
                print(f"  {name:16s} {way:12s} recall@1 {np.mean(ranks <= 1):.2f}  recall@5 {np.mean(ranks <= 5):.2f}"
                      f"  (n={len(ranks)})")
        print(f"  embedding time: truncated {truncated_seconds:.1f} s, windows {windowed_seconds:.1f} s "
              f"({windowed_seconds / truncated_seconds:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
