#!/usr/bin/env python3
"""The LLM segmenter (LitSeg-Lite) against the fixed splitter.

    python tests/benchmarks/segmentation_compare.py [--sections N] [BOOK...]

For each book (default: A Christmas Carol, The Call of the Wild and The Sign
of the Four from the corpus), both ways cut the first N sections into
passages; at each boundary the sentence before and the sentence after are
embedded, and their mean cosine similarity is printed (lower is better: a
boundary between different scenes). Retrieval with each segmentation is
compared by the answering harness (`chapterhouse eval`) on a home indexed
with `--segmenter llm` (see the README).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def boundary_similarity(book, spans, embedder) -> tuple[float, int]:
    from engine.index.chunking import sentence_spans

    pairs = []
    for before, after in zip(spans, spans[1:]):
        if before.section != after.section:
            continue
        previous = [s for s in sentence_spans(book.text, before.start, after.start) if s[1] <= after.start]
        following = sentence_spans(book.text, after.start, after.end)
        if previous and following:
            pairs.append((book.text[previous[-1][0]:previous[-1][1]], book.text[following[0][0]:following[0][1]]))
    if not pairs:
        return float("nan"), 0
    left = embedder.embed([a for a, _ in pairs])
    right = embedder.embed([b for _, b in pairs])
    return float(np.mean(np.sum(left * right, axis=1))), len(pairs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("books", nargs="*")
    parser.add_argument("--sections", type=int, default=3, help="sections per book (the LLM reads every sentence)")
    args = parser.parse_args()

    from engine.importer import parse_book
    from engine.index.chunking import ChunkingParameters, fixed_passages
    from engine.index.segmenter import SegmentationStats, llm_passages
    from engine.index.writing import WritingStats
    from engine.llm import CancelToken, ModelSettings, open_embedder, open_generator
    from engine.paths import sample_book_path

    corpus = Path(os.environ.get("CHAPTERHOUSE_CORPUS", ROOT.parent / "shared" / "corpus")) / "gutenberg"
    paths = [Path(p) for p in args.books] or [sample_book_path()] + [
        corpus / name for name in ("the-call-of-the-wild.txt", "the-sign-of-the-four.txt") if (corpus / name).exists()]
    generator, embedder = open_generator(ModelSettings()), open_embedder(ModelSettings())
    print(f"generator {generator.model_id}; boundary similarity = mean cosine of the sentences either side")
    for path in paths:
        book = parse_book(path)
        sections = book.sections[:args.sections]
        fixed = [span for s in sections for span in fixed_passages(book, s)]
        stats, writing = SegmentationStats(), WritingStats()
        started = time.perf_counter()
        llm = [span for s in sections
               for span in llm_passages(generator, book, s, CancelToken(), writing, stats, ChunkingParameters())]
        seconds = time.perf_counter() - started
        fixed_score, fixed_count = boundary_similarity(book, fixed, embedder)
        llm_score, llm_count = boundary_similarity(book, llm, embedder)
        print(f"{book.title} ({len(sections)} sections)")
        print(f"  fixed splitter   {fixed_score:.3f}  over {fixed_count} boundaries, {len(fixed)} passages")
        print(f"  LLM segmenter    {llm_score:.3f}  over {llm_count} boundaries, {len(llm)} passages; "
              f"{stats.llm_windows} stretches segmented by the model, {stats.fallback_windows} fell back, "
              f"{stats.retries} retries, {stats.repaired_gaps} gaps repaired; {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
