#!/usr/bin/env python3
"""What keeping sentence vectors costs stage 1, and what it saves the
evidence digest: the measurement behind `embed_windows_and_sentences`.

    python tests/benchmarks/digest_speed.py [BOOK...]

Each book (default: the bundled sample) is indexed to stage 1 twice in a
scratch library: with the embedder's word-piece vectors pooled per sentence
and stored, and with that turned off (passage vectors only, as before). Then
the development set's questions on that book (or, without the corpus, a few
fixed questions) are retrieved at 12 passages and the digest is timed with
the stored vectors and with every sentence embedded at question time. Prints
seconds and ratios; nothing here is a pass/fail test.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

FALLBACK_QUESTIONS = [
    "How does the door knocker that startles Scrooge reappear after his night with the spirits?",
    "What does the Ghost of Christmas Present show Scrooge at the Cratchits' house?",
    "Why does Scrooge refuse his nephew's invitation to dinner?",
]


def index(path: Path, keep_sentences: bool) -> tuple[float, object, str]:
    from engine.index.indexer import BookIndexer
    from engine.store import Library

    library = Library(Path(tempfile.mkdtemp(prefix="digest-speed-")))
    book_id = library.import_book(path).book_id
    indexer = BookIndexer(library, book_id)
    indexer.embedder.reads_tokens = keep_sentences
    started = time.perf_counter()
    indexer.run(up_to=1)
    return time.perf_counter() - started, library, book_id


def questions_for(path: Path) -> list[str]:
    corpus = Path(os.environ.get("CHAPTERHOUSE_CORPUS", ROOT.parent / "shared" / "corpus"))
    dev = corpus / "qa" / "crosschapter" / "dev.jsonl"
    if dev.is_file():
        found = [row["question"] for row in map(json.loads, dev.read_text().splitlines())
                 if row["book"] == path.stem]
        if found:
            return found
    return FALLBACK_QUESTIONS


def digest_times(library, book_id: str, questions: list[str], stored: bool) -> list[float]:
    from engine.answer.digest import evidence_digest
    from engine.answer.retrieval import retrieve
    from engine.answer.session import AnswerSession

    session = AnswerSession(library, book_id, generator=None)
    context = session.context
    if not stored:
        context.sentence_vectors = lambda passages: {}
    times = []
    for question in questions:
        found = retrieve(session.plan(question), context, budget=12)
        started = time.perf_counter()
        evidence_digest(found, context)
        times.append(time.perf_counter() - started)
    return times


def main() -> int:
    from engine.paths import sample_book_path

    paths = [Path(p) for p in sys.argv[1:]] or [sample_book_path()]
    for path in paths:
        plain_seconds, _, _ = index(path, keep_sentences=False)
        kept_seconds, library, book_id = index(path, keep_sentences=True)
        questions = questions_for(path)
        digest_times(library, book_id, questions[:1], stored=True)  # load the model and the index once
        stored = digest_times(library, book_id, questions, stored=True)
        embedded = digest_times(library, book_id, questions, stored=False)
        print(f"{path.name}: stage 1 {plain_seconds:.1f} s without sentence vectors, {kept_seconds:.1f} s with "
              f"(x{kept_seconds / plain_seconds:.2f})")
        print(f"  digest over {len(questions)} questions, 12 passages: stored vectors mean "
              f"{statistics.mean(stored) * 1000:.0f} ms (max {max(stored) * 1000:.0f}), embedded at question time "
              f"mean {statistics.mean(embedded) * 1000:.0f} ms (max {max(embedded) * 1000:.0f}): "
              f"x{statistics.mean(embedded) / statistics.mean(stored):.0f} faster")
    return 0


if __name__ == "__main__":
    sys.exit(main())
