"""Errors the engine reports to people: one line, naming the file and the reason."""

from __future__ import annotations

import errno
import re
import shutil
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


class StorageError(ChapterhouseError):
    """The library's disk refused a write (full, or not writable); what was
    stored before is kept and can still be read."""

    def __init__(self, path: str | Path, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


class BookDamagedError(ChapterhouseError):
    """A book's database cannot be read (damaged on disk: a failing drive, a
    sync tool, a copy cut short). The other books are untouched."""

    def __init__(self, path: str | Path, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: the book's database is damaged ({reason}); repair the book (Repair in the "
                         "library, or `chapterhouse repair`) to make it again from its original file")


def damaged_book_id(message: str) -> str | None:
    """The id of the book whose database a BookDamagedError's message names
    (its folder's name), or None for any other message: the app offers the
    repair where it shows the message."""
    match = re.match(r"(.+)[\\/]book\.sqlite: the book's database is damaged ", message)
    return Path(match.group(1)).name if match else None


def storage_problem(error: BaseException, folder: Path | None = None) -> str | None:
    """What a failed write says about the disk: "full", "read-only", or None
    when it is something else. SQLite often reports a full disk only as a
    "disk I/O error", so the folder's free space is asked as well."""
    text = str(error).lower()
    code = getattr(error, "errno", None)
    if "full" in text or "no space left" in text or code == errno.ENOSPC:
        return "full"
    if code in (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOTDIR) or "readonly" in text \
            or "read-only" in text or "permission denied" in text or "not a directory" in text \
            or "unable to open" in text:
        return "read-only"
    if folder is not None:
        folder = next((f for f in (folder, *folder.parents) if f.exists()), folder)
        try:
            if shutil.disk_usage(folder).free < 256 * 1024:
                return "full"
        except OSError:
            pass
    return None
