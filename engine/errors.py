"""Errors the engine reports to people: one line, naming the file and the reason."""

from __future__ import annotations

from pathlib import Path


class ChapterhouseError(Exception):
    """Base class for errors shown to the user as a single line."""


class BookImportError(ChapterhouseError):
    """A file could not be imported; nothing was stored."""

    def __init__(self, path: str | Path, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


class BookNotFoundError(ChapterhouseError):
    """A book id or path does not name an imported book."""

    def __init__(self, reference: str):
        self.reference = reference
        super().__init__(f"{reference}: no such book in the library (import it first, or give its file)")
