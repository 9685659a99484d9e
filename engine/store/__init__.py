"""Per-book storage: the library of imported books and each book's database."""

from .bookdb import BookDatabase
from .library import BookSummary, ImportResult, Library

__all__ = ["BookDatabase", "BookSummary", "ImportResult", "Library"]
