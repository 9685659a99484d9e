#!/usr/bin/env python3
"""Import time of the 14 benchmark books (read, find sections, store), and the
largest file's time. Goal: under 1 s per book on a 2-core laptop CPU.

    python tests/benchmarks/import_speed.py [--corpus DIR] [--repeat N]

Prints one line per book and a summary; each figure is the best of N runs
into a fresh library (so every run really stores the book).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

GOAL_SECONDS = 1.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default=os.environ.get("CHAPTERHOUSE_CORPUS", ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    books = sorted((Path(args.corpus) / "gutenberg").glob("*.txt"))
    if not books:
        print(f"no books in {args.corpus}/gutenberg (set --corpus or CHAPTERHOUSE_CORPUS)")
        return 2

    from engine.store import Library

    rows = []
    for path in books:
        best = float("inf")
        sections = 0
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as home:
                library = Library(Path(home))
                started = time.perf_counter()
                result = library.import_book(path)
                best = min(best, time.perf_counter() - started)
                sections = result.summary.sections
        rows.append((path, best, sections))
        print(f"{path.stem:34s} {path.stat().st_size / 1e6:6.2f} MB  {sections:3d} sections  {best:6.3f} s")

    largest = max(rows, key=lambda row: row[0].stat().st_size)
    slowest = max(rows, key=lambda row: row[1])
    total = sum(row[1] for row in rows)
    print()
    print(f"largest file: {largest[0].name} ({largest[0].stat().st_size / 1e6:.2f} MB) imported in {largest[1]:.3f} s")
    print(f"slowest: {slowest[0].stem} {slowest[1]:.3f} s = {slowest[1] / GOAL_SECONDS:.2f} x the 1 s goal")
    print(f"all {len(rows)} books: {total:.2f} s, mean {total / len(rows):.3f} s per book")
    return 0 if slowest[1] < GOAL_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
