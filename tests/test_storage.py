"""Per-book storage: folders, SQLite in WAL mode, manifest, idempotent import,
and no half-stored book after a crash or a kill."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.book import text_id
from engine.store import Library

ROOT = Path(__file__).resolve().parent.parent


def test_book_is_stored_in_its_own_folder(library, sample_book, chapterhouse_home):
    result = library.import_book(sample_book)
    assert result.created
    folder = chapterhouse_home / "books" / result.book_id
    assert (folder / "original" / sample_book.name).read_bytes() == sample_book.read_bytes()
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["format_version"] == 1
    assert manifest["book_id"] == result.book_id
    assert manifest["sections"] == 5
    assert manifest["source_file"] == sample_book.name

    connection = sqlite3.connect(folder / "book.sqlite")
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    text = connection.execute("SELECT text FROM content").fetchone()[0]
    assert text_id(text) == result.book_id
    rows = connection.execute("SELECT ordinal, label, start, end FROM sections ORDER BY ordinal").fetchall()
    assert [row[1] for row in rows] == ["Stave I", "Stave II", "Stave III", "Stave IV", "Stave V"]
    assert all(text[start:end].startswith("STAVE") for _, _, start, end in rows)
    paragraphs = connection.execute("SELECT COUNT(*), COUNT(section) FROM paragraphs").fetchone()
    assert paragraphs[0] > paragraphs[1] > 100  # front matter paragraphs belong to no section
    connection.close()


def test_stored_book_reads_back_equal(library, sample_book):
    from engine.importer import parse_book

    book_id = library.import_book(sample_book).book_id
    stored = library.load(book_id)
    parsed = parse_book(sample_book)
    assert stored.text == parsed.text
    assert stored.sections == parsed.sections
    assert stored.paragraphs == parsed.paragraphs
    assert stored.metadata["title"] == "A Christmas Carol: A Ghost Story of Christmas"
    with library.open(book_id) as database:
        section = database.sections()[2]
        assert database.text_span(section.start, section.end) == stored.text[section.start:section.end]
        assert [p.section for p in database.paragraphs(section=3)] == [3] * len(database.paragraphs(section=3))


def test_reimport_is_a_no_op_and_another_edition_is_another_book(library, sample_book, tmp_path):
    first = library.import_book(sample_book)
    folder = library.folder(first.book_id)
    stamp = (folder / "manifest.json").stat().st_mtime_ns
    copy = tmp_path / "renamed-copy.txt"
    copy.write_bytes(sample_book.read_bytes().replace(b"\r\n", b"\n"))  # same text, other bytes
    again = library.import_book(copy)
    assert not again.created and again.book_id == first.book_id
    assert (folder / "manifest.json").stat().st_mtime_ns == stamp
    assert len(library.list_books()) == 1

    edition = tmp_path / "other-edition.txt"
    edition.write_bytes(sample_book.read_bytes().replace(b"Scrooge", b"Mr. Scrooge", 1))
    other = library.import_book(edition)
    assert other.created and other.book_id != first.book_id
    assert len(library.list_books()) == 2


def test_resolve_by_id_prefix_title_and_path(library, sample_book, tmp_path):
    book_id = library.import_book(sample_book).book_id
    assert library.resolve(book_id) == book_id
    assert library.resolve(book_id[:6]) == book_id
    assert library.resolve("a christmas carol") == book_id
    assert library.resolve(str(sample_book)) == book_id
    from engine.errors import BookImportError, BookNotFoundError

    with pytest.raises(BookNotFoundError):
        library.resolve("no such book")
    # A path to no file says so, rather than "no such book in the library".
    missing = tmp_path / "missing.epub"
    with pytest.raises(BookImportError, match="missing.epub: no such file"):
        library.resolve(str(missing))


def test_remove_deletes_the_book_and_only_it(library, sample_book, fixtures):
    keep = library.import_book(fixtures / "black-beauty-excerpt.txt").book_id
    gone = library.import_book(sample_book).book_id
    library.remove(gone)
    assert [b.book_id for b in library.list_books()] == [keep]
    assert not (library.books_dir / gone).exists()
    assert [p.name for p in library.books_dir.iterdir()] == [keep]


# A child process that imports a book and is killed with SIGKILL while the
# database is half written (it blocks at that point until killed).
_CHILD = r"""
import sys, time
from pathlib import Path
import engine.store.library as library_module
from engine.store import Library

real_write_book = library_module.write_book

def write_then_hang(path, book):
    real_write_book(path, book)
    Path(sys.argv[2]).write_text(str(path))
    time.sleep(600)

if sys.argv[3] == "hang-after-database":
    library_module.write_book = write_then_hang
Library().import_book(sys.argv[1])
"""


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")
def test_killed_import_leaves_no_half_stored_book_and_can_be_redone(library, sample_book, chapterhouse_home, tmp_path):
    marker = tmp_path / "reached"
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(sample_book), str(marker), "hang-after-database"],
        cwd=ROOT, env={**os.environ, "CHAPTERHOUSE_HOME": str(chapterhouse_home)},
    )
    deadline = time.time() + 60
    while not marker.exists() and time.time() < deadline and child.poll() is None:
        time.sleep(0.05)
    assert marker.exists(), "the child never reached the database write"
    staging = Path(marker.read_text()).parent
    assert staging.exists() and staging.name.startswith(".staging-")
    child.send_signal(signal.SIGKILL)
    child.wait(10)

    reopened = Library()
    assert reopened.list_books() == []
    assert not staging.exists(), "the dead import's staging folder was not swept"
    result = reopened.import_book(sample_book)
    assert result.created and len(reopened.load(result.book_id).sections) == 5


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")
@pytest.mark.parametrize("delay", [0.0, 0.15, 0.3, 0.45, 0.6])
def test_kill_at_any_moment_leaves_the_library_consistent(sample_book, chapterhouse_home, tmp_path, delay, fixtures):
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(sample_book), str(tmp_path / "unused"), "plain"],
        cwd=ROOT, env={**os.environ, "CHAPTERHOUSE_HOME": str(chapterhouse_home)},
    )
    time.sleep(delay)
    child.send_signal(signal.SIGKILL)
    child.wait(10)
    library = Library()
    books = library.list_books()
    assert len(books) <= 1
    for book in books:  # whatever is listed is whole
        stored = library.load(book.book_id)
        assert len(stored.sections) == 5 and stored.text.startswith("A CHRISTMAS CAROL")
    assert not [p for p in library.books_dir.iterdir() if p.name.startswith(".")]
    result = library.import_book(sample_book)
    assert result.created == (not books)


def test_a_book_removed_while_the_library_is_listed_is_left_out(library, fixtures, monkeypatch):
    from engine.store.library import Library

    kept = library.import_book(fixtures / "three-chapters.txt").book_id
    removed = library.import_book(fixtures / "black-beauty-excerpt.txt").book_id
    real_summary = Library.summary

    def summary_after_a_removal(self, book_id):
        if book_id == removed and self.has_book(removed):
            self.remove(removed)  # another thread's removal, between listing the folders and reading one
        return real_summary(self, book_id)

    monkeypatch.setattr(Library, "summary", summary_after_a_removal)
    assert [summary.book_id for summary in library.list_books()] == [kept]


def test_reading_progress_is_the_share_read_and_none_before_a_book_is_opened(library, fixtures):
    summary = library.import_book(fixtures / "three-chapters.txt").summary
    assert library.reading_progress(summary) is None
    journal = library.journal(summary.book_id)
    journal.set("read_to", summary.characters // 4)
    journal.close()
    assert abs(library.reading_progress(summary) - 0.25) < 0.001


def test_the_exported_history_quotes_the_evidence_as_the_app_shows_it(library, fixtures):
    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    journal = library.journal(book_id)
    try:
        journal.add({"question": "What hare?", "answer": "", "lead": "digest", "citations": [], "digest": [
            {"text": '"What hare?" I said.', "label": "Chapter 2", "passage_id": "p2.2"},
            {"text": "They could not get away.\"", "label": "Chapter 3", "passage_id": "p3.1"}]})
        text = journal.markdown("Three Chapters")
    finally:
        journal.close()
    assert '- "What hare?" I said. \u2014 Chapter 2 [p2.2]' in text  # dialogue keeps its own marks
    assert "- \u201cThey could not get away.\u201d \u2014 Chapter 3 [p3.1]" in text  # no unpaired mark
    assert "**Draft answer**" not in text


def test_a_damaged_book_database_is_one_line_and_hides_no_other_book(library, fixtures, chapterhouse_home):
    """A failing drive or a sync tool can spoil a book's database: SQLite's
    "file is not a database" came out as a traceback, and the app listed no
    book at all. Now it names the file and what to do, and the rest of the
    library is untouched."""
    from engine.errors import BookDamagedError
    from engine.index.indexer import stage_reached
    from engine.index.store import IndexStore

    keep = library.import_book(fixtures / "black-beauty-excerpt.txt").book_id
    spoilt = library.import_book(fixtures / "three-chapters.txt").book_id
    database = library.folder(spoilt) / "book.sqlite"
    header_lost = os.urandom(database.stat().st_size)
    page_lost = database.read_bytes()[:4096] + os.urandom(database.stat().st_size - 4096)
    for damage, reason in ((header_lost, "file is not a database"), (page_lost, "database disk image is malformed")):
        database.write_bytes(damage)
        with pytest.raises(BookDamagedError) as caught:
            library.load(spoilt)
        assert str(caught.value) == (f"{database}: the book's database is damaged ({reason}); repair the book "
                                     "(Repair in the library, or `chapterhouse repair`) to make it again from its "
                                     "original file")
    for reader in (lambda: stage_reached(library, spoilt), lambda: library.journal(spoilt),
                   lambda: IndexStore(database)):
        database.write_bytes(header_lost)
        with pytest.raises(BookDamagedError, match="file is not a database"):
            reader()
    result = subprocess.run([sys.executable, "-m", "engine", "retrieve", spoilt, "the hare"], capture_output=True,
                            text=True, cwd=ROOT, env={**os.environ, "CHAPTERHOUSE_HOME": str(chapterhouse_home)})
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "damaged" in result.stderr
    # Nothing else is touched, and the advice works (so does removing it and importing it again).
    assert {b.book_id for b in library.list_books()} == {keep, spoilt}
    assert library.load(keep).sections
    repaired = subprocess.run([sys.executable, "-m", "engine", "repair", spoilt], capture_output=True, text=True,
                              cwd=ROOT, env={**os.environ, "CHAPTERHOUSE_HOME": str(chapterhouse_home)})
    assert repaired.returncode == 0, repaired.stderr
    assert repaired.stdout == ("Three Chapters from Black Beauty: repaired from its original file; kept 0 questions "
                               "(the history could not be read); no reading position was kept; build its index "
                               f"again with: chapterhouse index {spoilt}\n")
    assert library.load(spoilt).sections
    library.remove(spoilt)
    assert library.import_book(fixtures / "three-chapters.txt").book_id == spoilt
    assert library.load(spoilt).sections


def test_an_index_record_that_cannot_be_read_is_one_line(library, fixtures, chapterhouse_home):
    """A byte spoilt inside a record (SQLite reads the row, its JSON is
    broken) came out of every question as a JSONDecodeError traceback."""
    from engine.errors import BookDamagedError
    from engine.index.indexer import BookIndexer, stage_in_use
    from engine.index.store import IndexStore
    from engine.llm.settings import ModelSettings

    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    BookIndexer(library, book_id).run(up_to=1)
    database = library.folder(book_id) / "book.sqlite"
    with sqlite3.connect(database) as connection:
        connection.execute("UPDATE index_nodes SET sections = '[1,' WHERE id = 'p1.1'")
        connection.execute("UPDATE index_manifest SET value = '{\"key' WHERE key = 'embedder'")
        # Vector and sentence blobs cut short: a numpy ValueError from every publish and question.
        connection.execute("UPDATE index_vectors SET vector = substr(vector, 1, 7) WHERE node_id = 'p1.2'")
        connection.execute("UPDATE index_sentences SET spans = substr(spans, 1, 12) WHERE node_id = 'p1.2'")
    connection.close()
    store = IndexStore(database)
    try:
        with pytest.raises(BookDamagedError, match=r"\(the vector of index record p1.2 cannot be read\)"):
            store.vectors()
        with pytest.raises(BookDamagedError, match=r"\(the sentences of index record p1.2 cannot be read\)"):
            store.sentences([store.node("p1.2")])
        with pytest.raises(BookDamagedError) as caught:
            store.nodes(level=1)
        assert str(caught.value).startswith(f"{database}: the book's database is damaged (index record p1.1 cannot "
                                            "be read); repair the book")
        with pytest.raises(BookDamagedError, match="index manifest entry embedder cannot be read"):
            store.manifest_value("embedder")
        with pytest.raises(BookDamagedError, match="index manifest entry embedder cannot be read"):
            store.manifest()
    finally:
        store.close()
    # Listing the library asks which embedder built the index: the window lists the book as damaged.
    with pytest.raises(BookDamagedError, match="index manifest entry embedder cannot be read"):
        stage_in_use(library, book_id, ModelSettings.load())
    result = subprocess.run([sys.executable, "-m", "engine", "retrieve", book_id, "the hare"], capture_output=True,
                            text=True, cwd=ROOT, env={**os.environ, "CHAPTERHOUSE_HOME": str(chapterhouse_home)})
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "is damaged" in result.stderr


def test_a_lost_or_spoilt_manifest_is_made_again_from_the_book(library, fixtures):
    """The manifest only summarises the book's database and file: spoilt, it
    hid the book from the library for good, and importing the file again
    died with a JSONDecodeError traceback."""
    from engine.errors import BookDamagedError

    keep = library.import_book(fixtures / "black-beauty-excerpt.txt").book_id
    path = fixtures / "three-chapters.txt"
    book_id = library.import_book(path).book_id
    manifest = library.folder(book_id) / "manifest.json"
    original = json.loads(manifest.read_text())
    lasting = {key: value for key, value in original.items() if key != "imported_at"}
    for spoil in (lambda: manifest.write_text('{"title": "Thr'), lambda: manifest.write_bytes(b"\xff\xfe\x00"),
                  manifest.unlink):
        spoil()
        assert [b.title for b in library.list_books()] == ["Black Beauty", "Three Chapters from Black Beauty"]
        remade = json.loads(manifest.read_text())  # written back for the next reader
        assert {key: value for key, value in remade.items() if key != "imported_at"} == lasting
        assert library.import_book(path).created is False
    # Spoilt along with the database, the book is listed by its file's name,
    # as damaged (it was left out, so the app offered no way to remove it), and
    # importing its file again says what to do.
    manifest.write_text("{")
    database = library.folder(book_id) / "book.sqlite"
    database.write_bytes(os.urandom(database.stat().st_size))
    listed = library.list_books()
    assert [(b.book_id, b.title, b.damaged) for b in listed] == [(keep, "Black Beauty", False),
                                                                  (book_id, "three-chapters.txt", True)]
    with pytest.raises(BookDamagedError, match="repair the book"):
        library.import_book(path)
    shown = subprocess.run([sys.executable, "-m", "engine", "list"], capture_output=True, text=True, cwd=ROOT,
                           env={**os.environ, "CHAPTERHOUSE_HOME": str(library.root)})
    assert shown.returncode == 0, shown.stderr
    assert f"{book_id}  three-chapters.txt  (damaged: repair it with `chapterhouse repair {book_id}`)" in shown.stdout
    library.remove(book_id)
    assert library.import_book(path).created
