"""One book's SQLite database: metadata, the normalized text, parts, sections
and paragraphs. WAL mode, so a reader (the desktop app) never blocks a writer
(the indexer of later issues)."""

from __future__ import annotations

import functools
import inspect
import re
import shutil
import sqlite3
import tempfile
from contextlib import contextmanager
from pathlib import Path

from ..book import Book, Paragraph, Part, Section, text_id
from ..errors import BookDamagedError

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE metadata (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE content (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    text TEXT NOT NULL
);
CREATE TABLE parts (
    ordinal INTEGER PRIMARY KEY,
    label TEXT NOT NULL,
    title TEXT,
    heading TEXT,
    start INTEGER NOT NULL,
    end INTEGER NOT NULL
);
CREATE TABLE sections (
    ordinal INTEGER PRIMARY KEY,
    label TEXT NOT NULL UNIQUE,
    title TEXT,
    heading TEXT,
    number INTEGER,
    kind TEXT NOT NULL,
    start INTEGER NOT NULL,
    end INTEGER NOT NULL,
    body_start INTEGER NOT NULL,
    part INTEGER REFERENCES parts(ordinal)
);
CREATE TABLE paragraphs (
    id INTEGER PRIMARY KEY,
    section INTEGER REFERENCES sections(ordinal),
    start INTEGER NOT NULL,
    end INTEGER NOT NULL,
    kind TEXT NOT NULL
);
CREATE INDEX paragraphs_by_section ON paragraphs(section);
CREATE INDEX paragraphs_by_start ON paragraphs(start);
"""


def connect(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(path, check_same_thread=False)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")
    connection.execute("PRAGMA foreign_keys=ON")
    return connection


def is_damage(error: sqlite3.Error) -> bool:
    """A damaged file: "file is not a database", "database disk image is
    malformed" (plain DatabaseError), or stored text that is not UTF-8 any
    more; not a locked, full or unwritable database, nor misuse."""
    return type(error) is sqlite3.DatabaseError or \
        (isinstance(error, sqlite3.OperationalError) and "could not decode" in str(error).lower())


@contextmanager
def damage_reported(path: Path, opening: sqlite3.Connection | None = None):
    """Damage (`is_damage`) as BookDamagedError naming the file, closing the
    connection being opened; any other error stays as it is."""
    try:
        yield
    except sqlite3.DatabaseError as error:
        if not is_damage(error):
            raise
        if opening is not None:
            opening.close()
        raise BookDamagedError(path, str(error)) from None


def reports_damage(cls):
    """A class decorator: every public method (but close and transaction)
    reports damage (`is_damage`) as BookDamagedError naming the file
    (`self.path`). A page damaged past the file's header shows only when a
    query reaches it, and came out of questions and indexing as a
    traceback."""
    for name, member in list(vars(cls).items()):
        if not name.startswith("_") and inspect.isfunction(member) and name not in ("close", "transaction"):
            setattr(cls, name, _reporting(member))
    return cls


def _reporting(method):
    @functools.wraps(method)
    def reporting(self, *args, **kwargs):
        with damage_reported(self.path):
            return method(self, *args, **kwargs)
    return reporting


def open_read_only(path: Path, schema: str = "", **options) -> sqlite3.Connection:
    """A read-only connection that works where no write can: on a full or
    read-only disk SQLite may not be able to make the WAL index file, and the
    database is then read without it (nothing can be written there meanwhile,
    and commits a crash left in the WAL are still read). Tables of
    `schema` that the file lacks yet are made empty in memory, so readers see
    "nothing stored" rather than an error."""
    options.setdefault("check_same_thread", False)
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, **options)
    with damage_reported(path, connection):
        try:
            tables = _table_names(connection)
        except sqlite3.OperationalError:
            connection.close()
            connection = None
    if connection is None:
        connection = _open_without_wal_index(path, options)
        with damage_reported(path, connection):
            tables = _table_names(connection)
    for statement in schema.split(";"):
        made = re.match(r"\s*CREATE TABLE (?:IF NOT EXISTS )?(\w+)", statement)
        if made and made.group(1) not in tables:
            connection.execute(statement.replace("CREATE TABLE", "CREATE TEMP TABLE", 1))
    return connection


def _table_names(connection: sqlite3.Connection) -> set[str]:
    return {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _open_without_wal_index(path: Path, options: dict) -> sqlite3.Connection:
    """Read a database whose WAL index file cannot be made. As immutable, SQLite
    ignores the WAL; if a crash left commits there (no checkpoint folded them
    in), they are read from a private copy instead, held in memory."""
    log = path.with_name(path.name + "-wal")
    if log.is_file() and log.stat().st_size > 0:
        try:
            return _recovered_in_memory(path, log, options)
        except (OSError, sqlite3.Error):
            pass  # no room in the temp folder either: the file as last checkpointed
    return sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True, **options)


def _recovered_in_memory(path: Path, log: Path, options: dict) -> sqlite3.Connection:
    with tempfile.TemporaryDirectory(prefix="chapterhouse-wal-") as folder:
        copy = Path(folder) / path.name
        shutil.copyfile(path, copy)
        shutil.copyfile(log, copy.with_name(copy.name + "-wal"))
        source = sqlite3.connect(copy)
        try:
            memory = sqlite3.connect(":memory:", **options)
            source.backup(memory)
        finally:
            source.close()
    return memory


def write_book(path: Path, book: Book) -> None:
    """Create the database for a new book in one transaction."""
    connection = connect(path)
    try:
        with connection:
            connection.executescript(_SCHEMA)
            connection.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            connection.executemany(
                "INSERT INTO metadata(key, value) VALUES (?, ?)",
                sorted(book.metadata.items()),
            )
            connection.execute("INSERT INTO metadata(key, value) VALUES ('book_id', ?)", (book.book_id,))
            connection.execute("INSERT INTO content(id, text) VALUES (1, ?)", (book.text,))
            connection.executemany(
                "INSERT INTO parts VALUES (?, ?, ?, ?, ?, ?)",
                [(p.ordinal, p.label, p.title, p.heading, p.start, p.end) for p in book.parts],
            )
            connection.executemany(
                "INSERT INTO sections VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(s.ordinal, s.label, s.title, s.heading, s.number, s.kind, s.start, s.end, s.body_start, s.part)
                 for s in book.sections],
            )
            connection.executemany(
                "INSERT INTO paragraphs VALUES (?, ?, ?, ?, ?)",
                [(p.id, p.section, p.start, p.end, p.kind) for p in book.paragraphs],
            )
        # Fold the write-ahead log into the file so the folder can be moved whole.
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()


@reports_damage
class BookDatabase:
    """Read access to a stored book."""

    def __init__(self, path: Path):
        self.path = path
        self._connection = open_read_only(path)
        version = self._connection.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            self._connection.close()
            raise BookDamagedError(path, f"book database version {version}, expected {SCHEMA_VERSION}")

    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> "BookDatabase":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def metadata(self) -> dict[str, str]:
        return dict(self._connection.execute("SELECT key, value FROM metadata"))

    def text(self) -> str:
        """The book's text, checked against its id (a hash of the text made at
        import): SQLite notices a spoilt page of its own structure, not bytes
        changed inside the text it holds, which would read as garbage."""
        text = self._connection.execute("SELECT text FROM content WHERE id = 1").fetchone()[0]
        stored_id = self._connection.execute("SELECT value FROM metadata WHERE key = 'book_id'").fetchone()
        if stored_id is None or text_id(text) != stored_id[0]:
            raise BookDamagedError(self.path, "the book's text no longer matches what was imported")
        return text

    def text_span(self, start: int, end: int) -> str:
        # substr() is 1-based and counts characters, like Python slicing.
        row = self._connection.execute(
            "SELECT substr(text, ?, ?) FROM content WHERE id = 1", (start + 1, max(0, end - start))
        ).fetchone()
        return row[0]

    def parts(self) -> list[Part]:
        rows = self._connection.execute("SELECT ordinal, label, title, heading, start, end FROM parts ORDER BY ordinal")
        return [Part(*row) for row in rows]

    def sections(self) -> list[Section]:
        rows = self._connection.execute(
            "SELECT ordinal, label, title, heading, number, kind, start, end, body_start, part "
            "FROM sections ORDER BY ordinal"
        )
        return [Section(*row) for row in rows]

    def paragraphs(self, section: int | None = None) -> list[Paragraph]:
        query = "SELECT id, start, end, kind, section FROM paragraphs"
        if section is not None:
            rows = self._connection.execute(query + " WHERE section = ? ORDER BY id", (section,))
        else:
            rows = self._connection.execute(query + " ORDER BY id")
        return [Paragraph(*row) for row in rows]

    def paragraph_counts(self) -> dict[int | None, tuple[int, int, int]]:
        """Per section ordinal: (first paragraph id, last id, count)."""
        rows = self._connection.execute(
            "SELECT section, MIN(id), MAX(id), COUNT(*) FROM paragraphs GROUP BY section"
        )
        return {row[0]: (row[1], row[2], row[3]) for row in rows}

    def load(self) -> Book:
        metadata = self.metadata()
        return Book(
            book_id=metadata.pop("book_id"), text=self.text(), metadata=metadata,
            sections=self.sections(), parts=self.parts(), paragraphs=self.paragraphs(),
        )
