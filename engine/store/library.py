"""The library: one folder per book under the user's data dir.

    books/<book id>/manifest.json    format version, what the book is, where it came from
    books/<book id>/book.sqlite      metadata, text, parts, sections, paragraphs
    books/<book id>/original/<file>  the file as imported

An import is written into a staging folder and moved into place in one rename,
so a crash or kill mid-import leaves no half-stored book: either the folder is
complete or it is not there. Staging folders of dead processes are swept away.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .. import __version__
from ..book import Book
from ..errors import BookDamagedError, BookImportError, BookNotFoundError, ChapterhouseError, StorageError, \
    storage_problem
from ..formats import BOOK_SUFFIXES
from ..importer import parse_book
from ..paths import data_dir
from ..processes import process_alive
from .bookdb import BookDatabase, write_book

MANIFEST_FORMAT_VERSION = 1
_STAGING_PREFIX = ".staging-"


@dataclass
class BookSummary:
    book_id: str
    title: str
    author: str | None
    language: str | None
    gutenberg_id: str | None
    sections: int
    characters: int
    source_file: str
    source_bytes: int
    imported_at: str
    sections_method: str
    folder: Path
    # Its manifest and database both spoilt: listed by its file's name, to be repaired or removed.
    damaged: bool = False

    def to_dict(self) -> dict:
        data = dict(self.__dict__)
        data["folder"] = str(self.folder)
        return data


@dataclass
class ImportResult:
    book_id: str
    created: bool  # False: the same text was already in the library
    summary: BookSummary


class Library:
    def __init__(self, root: Path | None = None):
        self.root = Path(root) if root is not None else data_dir()
        self.books_dir = self.root / "books"
        self.books_dir.mkdir(parents=True, exist_ok=True)
        self._sweep_staging()

    # ------------------------------------------------------------ importing

    def import_book(self, path: str | Path, on_stage: Callable[[str], None] | None = None) -> ImportResult:
        """Import a book file; importing the same text again changes nothing."""
        path = Path(path)
        if on_stage:
            on_stage("reading")
        book = parse_book(path)
        existing = self.summary(book.book_id) if self.has_book(book.book_id) else None
        if existing is not None:
            return ImportResult(book.book_id, False, existing)
        if on_stage:
            on_stage("storing")
        try:
            self._store(book, path)
        except (OSError, sqlite3.OperationalError) as error:
            problem = storage_problem(error, self.books_dir)
            if problem is None:
                raise
            reason = "the disk is full" if problem == "full" else f"the library folder is not writable ({self.root})"
            raise BookImportError(path, f"{reason}; nothing was stored") from None
        return ImportResult(book.book_id, True, self.summary(book.book_id))

    def _store(self, book: Book, source: Path) -> None:
        staging = self.books_dir / f"{_STAGING_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:8]}"
        staging.mkdir()
        try:
            original = staging / "original"
            original.mkdir()
            data = source.read_bytes()
            (original / source.name).write_bytes(data)
            write_book(staging / "book.sqlite", book)
            _write_json_durably(staging / "manifest.json", manifest_of(book, source.name, data, time.time()))
            _fsync_tree(staging)
            target = self.books_dir / book.book_id
            try:
                os.rename(staging, target)
            except OSError:
                if not self.has_book(book.book_id):  # lost a race to an identical import: fine
                    raise
            _fsync_dir(self.books_dir)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)

    def _sweep_staging(self) -> None:
        for folder in self.books_dir.glob(f"{_STAGING_PREFIX}*"):
            pid_text = folder.name[len(_STAGING_PREFIX):].split("-")[0]
            owner_alive = pid_text.isdigit() and int(pid_text) != os.getpid() and process_alive(int(pid_text))
            if owner_alive and time.time() - folder.stat().st_mtime < 24 * 3600:
                continue
            shutil.rmtree(folder, ignore_errors=True)

    # ------------------------------------------------------------ reading

    def has_book(self, book_id: str) -> bool:
        return _is_book_folder(self.books_dir / book_id)

    def folder(self, book_id: str) -> Path:
        folder = self.books_dir / book_id
        if not _is_book_folder(folder):
            raise BookNotFoundError(book_id)
        return folder

    def manifest(self, book_id: str) -> dict:
        path = self.folder(book_id) / "manifest.json"
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):  # JSON and UTF-8 errors are ValueErrors
            return self._remade_manifest(book_id)

    def _remade_manifest(self, book_id: str) -> dict:
        """The manifest, lost or spoilt (a disk error, a sync tool), made again
        from what it summarises: the book's database and its original file.
        Raises BookDamagedError if the database is damaged too."""
        folder = self.books_dir / book_id
        with self.open(book_id) as database:
            book = database.load()
        source = original_file(folder)
        data = source.read_bytes() if source is not None else b""
        manifest = manifest_of(book, source.name if source is not None else "", data,
                               (source or folder / "book.sqlite").stat().st_mtime)
        try:
            replace_manifest(folder, manifest)
        except OSError:
            pass  # a disk that takes no writes: made again next time
        return manifest

    def summary(self, book_id: str) -> BookSummary:
        manifest = self.manifest(book_id)
        return BookSummary(
            book_id=book_id, title=manifest.get("title") or "Untitled", author=manifest.get("author"),
            language=manifest.get("language"), gutenberg_id=manifest.get("gutenberg_id"),
            sections=manifest.get("sections", 0), characters=manifest.get("characters", 0),
            source_file=manifest.get("source_file", ""), source_bytes=manifest.get("source_bytes", 0),
            imported_at=manifest.get("imported_at", ""), sections_method=manifest.get("sections_method", ""),
            folder=self.books_dir / book_id,
        )

    def list_books(self) -> list[BookSummary]:
        summaries = []
        for folder in self.books_dir.iterdir():
            if folder.name.startswith(".") or not _is_book_folder(folder):
                continue
            try:
                summaries.append(self.summary(folder.name))
            except BookDamagedError:
                # Manifest and database both spoilt: listed all the same, so
                # that it can be repaired or removed (in the app too).
                summaries.append(_damaged_summary(folder))
            except (OSError, ValueError):
                continue  # unreadable just now (its original file, say): it hides no other book
            except BookNotFoundError:
                continue  # removed while the library was being listed
        return sorted(summaries, key=lambda s: (s.title.casefold(), s.book_id))

    def journal(self, book_id: str):
        """The book's history of questions and its reading position."""
        from .journal import BookJournal

        return BookJournal(self.folder(book_id) / "book.sqlite")

    def reading_progress(self, summary: BookSummary) -> float | None:
        """The share of the book read (the app keeps how far the reader has
        read in the book's journal), or None for a book never opened."""
        journal = self.journal(summary.book_id)
        try:
            read_to = journal.get("read_to")
        finally:
            journal.close()
        return None if read_to is None or not summary.characters else min(1.0, read_to / summary.characters)

    def open(self, book_id: str) -> BookDatabase:
        return BookDatabase(self.folder(book_id) / "book.sqlite")

    def load(self, book_id: str) -> Book:
        with self.open(book_id) as database:
            return database.load()

    def resolve(self, reference: str, import_files: bool = True) -> str:
        """Book id for a reference: an id, a unique id prefix, a unique title, or
        the path of a book file (imported first when `import_files`)."""
        reference = reference.strip()
        if self.has_book(reference):
            return reference
        path = Path(reference).expanduser()
        if path.is_file():
            if import_files:
                return self.import_book(path).book_id
            book = parse_book(path)
            if self.has_book(book.book_id):
                return book.book_id
            raise BookNotFoundError(reference)
        books = self.list_books()
        if len(reference) >= 4:
            by_prefix = [b for b in books if b.book_id.startswith(reference.lower())]
            if len(by_prefix) == 1:
                return by_prefix[0].book_id
        wanted = reference.casefold()
        # "A Christmas Carol" finds "A Christmas Carol: A Ghost Story of Christmas".
        by_title = [b for b in books if wanted in (b.title.casefold(), b.title.split(":")[0].strip().casefold())]
        if len(by_title) == 1:
            return by_title[0].book_id
        if len(by_title) > 1:
            raise ChapterhouseError(f"{reference}: several books have this title; give the book id")
        if os.sep in reference or path.suffix.lower() in BOOK_SUFFIXES:
            raise BookImportError(reference, "no such file (and no book in the library by that name)")
        raise BookNotFoundError(reference)

    # ------------------------------------------------------------ removing

    def remove(self, book_id: str) -> None:
        """Remove a book and everything stored for it. The folder is first moved
        aside, so a crash mid-delete leaves either the whole book or a staging
        folder that the next start sweeps away."""
        folder = self.folder(book_id)
        doomed = self.books_dir / f"{_STAGING_PREFIX}{os.getpid()}-removed-{uuid.uuid4().hex[:8]}"
        try:
            os.rename(folder, doomed)
        except OSError as error:
            if storage_problem(error) != "read-only":
                raise
            raise StorageError(folder, "the book cannot be removed: the library folder is not writable") from None
        shutil.rmtree(doomed, ignore_errors=True)


def _is_book_folder(folder: Path) -> bool:
    # Either file makes a stored book: an import moves the whole folder into
    # place at once, so a lone database means a manifest lost since.
    return (folder / "manifest.json").is_file() or (folder / "book.sqlite").is_file()


def manifest_of(book: Book, source_name: str, data: bytes, imported_at: float) -> dict:
    """What the library lists of a book without opening its database."""
    return {
        "format_version": MANIFEST_FORMAT_VERSION,
        "book_id": book.book_id,
        "title": book.metadata.get("title"),
        "author": book.metadata.get("author"),
        "language": book.metadata.get("language"),
        "gutenberg_id": book.metadata.get("gutenberg_id"),
        "source_file": source_name,
        "source_sha256": hashlib.sha256(data).hexdigest(),
        "source_bytes": len(data),
        "source_format": book.metadata.get("source_format"),
        "sections": len(book.sections),
        "sections_method": book.metadata.get("sections_method"),
        "paragraphs": len(book.paragraphs),
        "characters": len(book.text),
        "imported_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(imported_at)),
        "chapterhouse_version": __version__,
    }


def _write_json_durably(path: Path, data: dict) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2, ensure_ascii=False)
        handle.write("\n")
        handle.flush()
        os.fsync(handle.fileno())


def replace_manifest(folder: Path, manifest: dict) -> None:
    """Write a book's manifest whole or not at all (a spare moved over it)."""
    spare = folder / f"manifest.json.{uuid.uuid4().hex[:8]}"
    try:
        _write_json_durably(spare, manifest)
        os.replace(spare, folder / "manifest.json")
    except OSError:
        spare.unlink(missing_ok=True)
        raise


def _fsync_tree(folder: Path) -> None:
    for path in folder.rglob("*"):
        if path.is_file():
            with open(path, "rb") as handle:
                os.fsync(handle.fileno())
    _fsync_dir(folder)


def _fsync_dir(folder: Path) -> None:
    if os.name != "posix":
        return
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def read_manifest(folder: Path) -> dict:
    """A book folder's manifest as stored; empty when lost or spoilt."""
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return manifest if isinstance(manifest, dict) else {}


def original_file(folder: Path) -> Path | None:
    """The book's file as imported, kept in its folder (None if gone)."""
    originals = sorted(path for path in (folder / "original").glob("*") if path.is_file())
    return originals[0] if originals else None


def _damaged_summary(folder: Path) -> BookSummary:
    """What can be said of a book nothing of which can be read: its file's name."""
    source = original_file(folder)
    name = source.name if source is not None else ""
    return BookSummary(book_id=folder.name, title=name or "Unreadable book", author=None, language=None,
                       gutenberg_id=None, sections=0, characters=0, source_file=name, source_bytes=0,
                       imported_at="", sections_method="", folder=folder, damaged=True)
