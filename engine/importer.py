"""From a file on disk to a Book: read the format, find the sections, assemble."""

from __future__ import annotations

from pathlib import Path

from .book import Book, assemble
from .formats import read_document
from .structure.sections import detect_structure


def parse_book(path: str | Path) -> Book:
    """Read and structure a book file; raises BookImportError on bad input."""
    path = Path(path)
    document = read_document(path)
    structure = detect_structure(document)
    book = assemble(document, structure)
    book.metadata.setdefault("title", _title_from_name(path))
    return book


def _title_from_name(path: Path) -> str:
    stem = path.name.split(".")[0]
    return " ".join(stem.replace("_", " ").replace("-", " ").split()).title() or "Untitled"
