"""Repairing a book: its database made again from the original file kept in
its folder, with what can still be read of its history of questions and
its reading position; its index is then built again from the start.

For a database that SQLite cannot read (a failing drive, a sync tool, a copy
cut short) or an index record that cannot be read. Removing the book and
importing it again did the same but lost the reader's history.

Crash safety: the new database is written beside the old one and moved over
it in one rename, after the search files made from the old one are moved
aside. A kill before the rename leaves the old database (still damaged: the
repair can simply be run again); after it, the repaired book with no index,
which the next run builds.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import uuid
from dataclasses import dataclass
from pathlib import Path

from ..errors import ChapterhouseError, StorageError, storage_problem
from ..importer import parse_book
from ..store.bookdb import write_book
from ..store.journal import READER_KEYS, BookJournal, salvage_journal
from ..store.library import manifest_of, original_file, read_manifest, replace_manifest
from .indexer import building

_SPARE_PREFIX = "book.sqlite.repair-"


class RepairError(ChapterhouseError):
    """A book cannot be repaired; nothing of it was changed."""


@dataclass
class RepairReport:
    book_id: str
    title: str
    questions_kept: int
    questions_lost: int | None  # None: not even how many there were could be read
    position_kept: bool

    def describe(self) -> str:
        kept = f"kept {self.questions_kept} question{'s' if self.questions_kept != 1 else ''}"
        if self.questions_lost:
            kept += f" ({self.questions_lost} could not be read)"
        elif self.questions_lost is None:
            kept += " (the history could not be read)"
        kept += " and the reading position" if self.position_kept else "; no reading position was kept"
        return f"{self.title}: repaired from its original file; {kept}"


def repair_book(library, book_id: str, wait: bool = True) -> RepairReport:
    """Make a book's database again from its original file, keeping what
    can be read of its journal. Raises RepairError (nothing changed) when the
    original file is gone or no longer reads as the same text, IndexingBusy
    while the book is being indexed, StorageError when the disk refuses."""
    folder = library.folder(book_id)
    source = original_file(folder)
    if source is None:
        raise RepairError(f"{folder}: the book cannot be repaired: its original file is gone; remove it and "
                          "import its file again")
    book = parse_book(source)  # a BookImportError names the file and why it cannot be read
    if book.book_id != book_id:
        raise RepairError(f"{source}: the book cannot be repaired: its file now reads as a different text "
                          "(it was imported by another version); remove it and import its file again")
    database = folder / "book.sqlite"
    index = folder / "index"
    try:
        with building(index, book.title, wait):
            salvaged = salvage_journal(database)
            _sweep_spares(folder)
            spare = folder / f"{_SPARE_PREFIX}{uuid.uuid4().hex[:8]}"
            try:
                write_book(spare, book)
                journal = BookJournal(spare)
                try:
                    journal.restore(salvaged)
                finally:
                    journal.close()
                _fsync(spare)
                _checkpoint(database)
                _set_aside(index, folder)
                for leftover in ("book.sqlite-wal", "book.sqlite-shm"):  # the old database's: would spoil the new
                    (folder / leftover).unlink(missing_ok=True)
                os.replace(spare, database)
            finally:
                _sweep_spares(folder)
            imported_at = read_manifest(folder).get("imported_at")
            # Lost with the manifest, the import's time is the kept file's.
            manifest = manifest_of(book, source.name, source.read_bytes(), source.stat().st_mtime)
            if imported_at:
                manifest["imported_at"] = imported_at
            replace_manifest(folder, manifest)
    except (OSError, sqlite3.OperationalError) as error:
        problem = storage_problem(error, folder)
        if problem is None:
            raise
        reason = "the disk is full" if problem == "full" else "the library folder is not writable"
        raise StorageError(folder, f"the book cannot be repaired: {reason}") from None
    return RepairReport(book_id=book_id, title=book.title, questions_kept=len(salvaged.history),
                        questions_lost=salvaged.history_lost,
                        position_kept=any(key in salvaged.reader_state for key in READER_KEYS))


def _checkpoint(database: Path) -> None:
    """Move what the old database's WAL holds into it, where it can be: its
    WAL goes before the new database takes its place, and a kill in between
    must not lose its last commits."""
    try:
        connection = sqlite3.connect(database)
        try:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            connection.close()
    except sqlite3.Error:
        pass  # damaged past that: what could be read of it was salvaged


def _set_aside(index: Path, folder: Path) -> None:
    """The search files made from the old database go: moved aside in one
    rename first, so no reader opens them with the new one."""
    if not index.exists():
        return
    doomed = folder / f".index-removed-{uuid.uuid4().hex[:8]}"
    os.rename(index, doomed)
    shutil.rmtree(doomed, ignore_errors=True)


def _sweep_spares(folder: Path) -> None:
    """What a killed repair left: spare databases (with their WAL files)
    and search files set aside but not yet deleted."""
    for path in folder.glob(f"{_SPARE_PREFIX}*"):
        path.unlink(missing_ok=True)
    for path in folder.glob(".index-removed-*"):
        shutil.rmtree(path, ignore_errors=True)


def _fsync(path: Path) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())
