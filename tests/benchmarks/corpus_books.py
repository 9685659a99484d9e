"""The corpus's books for the benchmarks that ask about them: the folder
CHAPTERHOUSE_CORPUS names (default ../shared/corpus), or None, said on
stderr, where it is absent."""

from __future__ import annotations

import sys
from pathlib import Path


def corpus_books() -> Path | None:
    from engine.answer_cli import default_books_dir

    books = default_books_dir()
    if not books.is_dir():
        print(f"{books}: no corpus (set CHAPTERHOUSE_CORPUS)", file=sys.stderr)
        return None
    return books
