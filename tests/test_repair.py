"""Repairing a damaged book: made again from its original file, keeping what
can be read of its history and reading position (removing it and importing
it again lost them), resumable after a kill, refused in one line when it
cannot be done."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from engine.errors import BookDamagedError, StorageError
from engine.index.indexer import BookIndexer, IndexingBusy, building
from engine.index.repair import RepairError, repair_book
from engine.store import Library

PAGE = 4096
ROOT = Path(__file__).resolve().parent.parent


def _ask_many(library, book_id: str, count: int) -> None:
    """Questions with long answers: one history row to a page or two."""
    journal = library.journal(book_id)
    try:
        for number in range(count):
            journal.add({"question": f"Question {number}?", "answer": f"ROW{number:03d} " + "an answer " * 400,
                         "digest": [], "citations": []})
        journal.set("position", 1234)
        journal.set("read_to", 2345)
    finally:
        journal.close()


def _spoil_the_page_holding(database, marker: bytes, every: bool = False) -> None:
    """The page where `marker` is first stored (`every`: all pages holding it)."""
    with sqlite3.connect(database) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every row in the file itself
    connection.close()
    data = bytearray(database.read_bytes())
    found = [data.index(marker)] if not every else [m.start() for m in re.finditer(re.escape(marker), data)]
    for page in {offset // PAGE for offset in found}:
        data[page * PAGE:(page + 1) * PAGE] = b"\xff" * PAGE
    database.write_bytes(bytes(data))


def test_a_write_that_reaches_a_spoilt_page_is_one_line(library, fixtures):
    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    _ask_many(library, book_id, 10)
    _spoil_the_page_holding(library.folder(book_id) / "book.sqlite", b"ROW009 ", every=True)  # where rows are added
    journal = library.journal(book_id)
    try:
        with pytest.raises(BookDamagedError, match=r"\(database disk image is malformed\); repair the book"):
            journal.add({"question": "One more?", "answer": ""})
        assert len(journal.entries()) == 9
    finally:
        journal.close()


def test_a_damaged_book_is_repaired_from_its_file_keeping_its_history(library, fixtures):
    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    BookIndexer(library, book_id).run(up_to=1)
    _ask_many(library, book_id, 40)
    database = library.folder(book_id) / "book.sqlite"
    _spoil_the_page_holding(database, b"ROW017 ")
    # The rows on other pages still read (one spoilt row made the book unopenable).
    journal = library.journal(book_id)
    try:
        listed = [entry.question for entry in journal.entries()]
        assert journal.get("read_to") == 2345
    finally:
        journal.close()
    assert "Question 17?" not in listed and {"Question 0?", "Question 16?", "Question 18?", "Question 39?"} <= set(listed)

    report = repair_book(library, book_id)
    assert (report.questions_kept, report.questions_lost, report.position_kept) == (len(listed), 40 - len(listed), True)
    assert report.describe() == (f"Three Chapters from Black Beauty: repaired from its original file; kept {len(listed)}"
                                 f" questions ({40 - len(listed)} could not be read) and the reading position")
    with sqlite3.connect(database) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    connection.close()
    journal = library.journal(book_id)
    try:
        kept = journal.entries()
        assert [entry.question for entry in kept] == listed
        assert kept[0].result["answer"].startswith("ROW000 ") and [e.id for e in kept][:2] == [1, 2]
        assert (journal.get("position"), journal.get("read_to")) == (1234, 2345)
    finally:
        journal.close()
    # Its index was made from the old database: gone, and built again from the start.
    assert not (library.folder(book_id) / "index").exists()
    assert [path.name for path in library.folder(book_id).iterdir() if path.name.startswith((".", "book.sqlite."))] == []
    indexer = BookIndexer(library, book_id)
    assert indexer.status()["stage_reached"] == 0
    assert indexer.run(up_to=1).completed_stage == 1
    indexer.close()
    summary = library.summary(book_id)
    assert (summary.title, summary.sections, summary.damaged) == ("Three Chapters from Black Beauty", 3, False)


def test_a_book_whose_database_and_manifest_are_lost_is_made_whole_again(library, fixtures):
    keep = library.import_book(fixtures / "black-beauty-excerpt.txt").book_id
    book_id = library.import_book(fixtures / "call-of-the-wild-excerpt.html").book_id
    imported_at = library.summary(book_id).imported_at
    folder = library.folder(book_id)
    (folder / "book.sqlite").write_bytes(os.urandom(8 * PAGE))
    (folder / "manifest.json").write_text("{")
    assert [b.damaged for b in library.list_books() if b.book_id == book_id] == [True]
    report = repair_book(library, book_id)
    assert (report.questions_kept, report.questions_lost, report.position_kept) == (0, None, False)
    summary = library.summary(book_id)
    assert (summary.title, summary.damaged, summary.source_file) == ("The Call of the Wild", False,
                                                                     "call-of-the-wild-excerpt.html")
    assert summary.imported_at == imported_at  # lost with the manifest: the kept file's time
    assert library.load(book_id).sections and library.load(keep).sections


def test_a_book_that_cannot_be_repaired_is_one_line_and_left_as_it_was(library, fixtures, tmp_path):
    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    folder = library.folder(book_id)
    database = folder / "book.sqlite"
    database.write_bytes(b"\0" * PAGE)
    original = next((folder / "original").iterdir())
    # Its file no longer reads as the text it was imported as (another version's import, say).
    original.write_text(original.read_text(encoding="utf-8") + "\nAn added line.\n", encoding="utf-8")
    with pytest.raises(RepairError) as caught:
        repair_book(library, book_id)
    assert str(caught.value) == (f"{original}: the book cannot be repaired: its file now reads as a different text "
                                 "(it was imported by another version); remove it and import its file again")
    original.unlink()
    with pytest.raises(RepairError, match="its original file is gone; remove it and import its file again"):
        repair_book(library, book_id)
    assert database.read_bytes() == b"\0" * PAGE
    with pytest.raises(BookDamagedError):
        library.load(book_id)


def test_a_repair_waits_for_no_indexing_and_a_killed_one_is_run_again(library, fixtures, monkeypatch):
    import engine.index.repair as repair

    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    BookIndexer(library, book_id).run(up_to=1)
    _ask_many(library, book_id, 3)
    folder = library.folder(book_id)
    with building(folder / "index", "Three Chapters"):
        with pytest.raises(IndexingBusy, match="being indexed here already"):
            repair_book(library, book_id, wait=False)
    # Killed between setting the old search files and WAL aside and moving
    # the new database into place: the old database stays, with its history.
    def killed(source, target):
        raise KeyboardInterrupt

    monkeypatch.setattr(repair.os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        repair_book(library, book_id)
    monkeypatch.undo()
    assert not (folder / "book.sqlite-wal").exists() and not list(folder.glob("book.sqlite.repair-*"))
    journal = library.journal(book_id)
    try:
        assert [entry.question for entry in journal.entries()] == ["Question 0?", "Question 1?", "Question 2?"]
    finally:
        journal.close()
    assert library.load(book_id).sections
    # What a kill at a worse moment leaves is swept by the next repair.
    (folder / "book.sqlite.repair-0dead0de").write_bytes(b"half a database")
    (folder / ".index-removed-0dead0de").mkdir()
    report = repair_book(library, book_id)
    assert (report.questions_kept, report.questions_lost, report.position_kept) == (3, 0, True)
    assert sorted(path.name for path in folder.iterdir()) == ["book.sqlite", "indexing.lock", "manifest.json",
                                                              "original"]


def test_a_repair_on_a_full_disk_says_so_and_changes_nothing(fixtures, small_filesystem, monkeypatch):
    monkeypatch.setenv("CHAPTERHOUSE_HOME", str(small_filesystem / "home"))
    library = Library()
    book_id = library.import_book(fixtures / "black-beauty-excerpt.txt").book_id
    _ask_many(library, book_id, 2)
    folder = library.folder(book_id)
    kept = ("book.sqlite", "manifest.json", "original")

    def stored():
        return {path.relative_to(folder): path.read_bytes() for path in folder.rglob("*")
                if path.is_file() and path.relative_to(folder).parts[0] in kept}

    before = stored()
    ballast = small_filesystem / "ballast"
    stats = os.statvfs(small_filesystem)
    ballast.write_bytes(b"\0" * (stats.f_bavail * stats.f_frsize))
    with pytest.raises(StorageError) as caught:
        repair_book(library, book_id)
    assert str(caught.value) == f"{folder}: the book cannot be repaired: the disk is full"
    assert stored() == before and not list(folder.glob("book.sqlite.repair-*"))
    ballast.unlink()
    report = repair_book(library, book_id)
    assert (report.questions_kept, report.position_kept) == (2, True)


def test_a_page_spoilt_inside_the_index_is_one_line_and_repaired(library, fixtures, chapterhouse_home):
    """A page damaged past the file's header shows only when a query reaches
    it: questions and indexing died with a "database disk image is
    malformed" traceback."""
    book_id = library.import_book(fixtures / "black-beauty-excerpt.txt").book_id
    indexer = BookIndexer(library, book_id)
    indexer.run(up_to=1)
    indexer.close()
    database = library.folder(book_id) / "book.sqlite"
    with sqlite3.connect(database) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    data = bytearray(database.read_bytes())
    page = data.rindex("perhaps the hare will".encode()) // PAGE  # the last copy: a passage's, in the index
    data[page * PAGE:(page + 1) * PAGE] = b"\xff" * PAGE
    database.write_bytes(bytes(data))
    assert library.load(book_id).sections  # the book's own text is untouched

    def chapterhouse(*arguments):
        return subprocess.run([sys.executable, "-m", "engine", *arguments], capture_output=True, text=True, cwd=ROOT,
                              env={**os.environ, "CHAPTERHOUSE_HOME": str(chapterhouse_home)})

    for arguments in (("retrieve", book_id, "What did the old horse say about the hare?"),
                      ("index", book_id, "--stage", "1")):
        result = chapterhouse(*arguments)
        assert result.returncode == 2, result.stderr
        assert result.stderr.splitlines()[-1] == (
            f"chapterhouse: error: {database}: the book's database is damaged (database disk image is malformed); "
            "repair the book (Repair in the library, or `chapterhouse repair`) to make it again from its original "
            "file")
    assert chapterhouse("repair", book_id).returncode == 0
    assert chapterhouse("index", book_id, "--stage", "1").returncode == 0
    found = chapterhouse("retrieve", book_id, "What did the old horse say about the hare?", "--json")
    assert found.returncode == 0 and "hare" in found.stdout


def test_a_page_spoilt_inside_the_books_text_is_one_line_and_repaired(library, fixtures, chapterhouse_home):
    book_id = library.import_book(fixtures / "black-beauty-excerpt.txt").book_id
    database = library.folder(book_id) / "book.sqlite"
    _spoil_the_page_holding(database, "perhaps the hare will".encode())  # the first copy: the book's text
    with pytest.raises(BookDamagedError, match="repair the book"):
        library.load(book_id)
    for command in ("text", "sections"):
        result = subprocess.run([sys.executable, "-m", "engine", command, book_id], capture_output=True, text=True,
                                cwd=ROOT, env={**os.environ, "CHAPTERHOUSE_HOME": str(chapterhouse_home)})
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert result.stderr.startswith(f"chapterhouse: error: {database}: the book's database is damaged (")
    repair_book(library, book_id)
    assert "perhaps the hare will" in library.load(book_id).text


def test_a_books_text_changed_on_disk_where_sqlite_cannot_tell_is_one_line_and_repaired(library, fixtures,
                                                                                          chapterhouse_home):
    """Bytes changed inside the stored text leave SQLite's own structure
    whole: the text read as garbage, quoted as the book's words."""
    book_id = library.import_book(fixtures / "black-beauty-excerpt.txt").book_id
    database = library.folder(book_id) / "book.sqlite"
    with sqlite3.connect(database) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    data = bytearray(database.read_bytes())
    at = data.index(b"perhaps the hare will")
    data[at:at + 7] = b"pe#h@ps"
    database.write_bytes(bytes(data))
    with sqlite3.connect(database) as connection:  # SQLite finds nothing wrong
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    connection.close()
    with pytest.raises(BookDamagedError, match=r"\(the book's text no longer matches what was imported\); repair "):
        library.load(book_id)
    result = subprocess.run([sys.executable, "-m", "engine", "text", book_id], capture_output=True, text=True,
                            cwd=ROOT, env={**os.environ, "CHAPTERHOUSE_HOME": str(chapterhouse_home)})
    assert result.returncode == 2 and result.stdout == "" and result.stderr.count("\n") == 1
    repair_book(library, book_id)
    assert "perhaps the hare will" in library.load(book_id).text


def test_a_passage_changed_on_disk_where_sqlite_cannot_tell_is_one_line_and_repaired(library, fixtures,
                                                                                        chapterhouse_home):
    book_id = library.import_book(fixtures / "black-beauty-excerpt.txt").book_id
    BookIndexer(library, book_id).run(up_to=1)
    database = library.folder(book_id) / "book.sqlite"
    with sqlite3.connect(database) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    data = bytearray(database.read_bytes())
    copies = [found.start() for found in re.finditer(b"perhaps the hare will", data)]
    assert len(copies) >= 2  # the book's text, then its passage's
    data[copies[1]:copies[1] + 7] = b"pe#h@ps"
    database.write_bytes(bytes(data))
    env = {**os.environ, "CHAPTERHOUSE_HOME": str(chapterhouse_home)}
    question = "What did the old horse say about the hare?"
    result = subprocess.run([sys.executable, "-m", "engine", "retrieve", book_id, question], capture_output=True,
                            text=True, cwd=ROOT, env=env)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert re.match(rf"chapterhouse: error: {re.escape(str(database))}: the book's database is damaged \(index "
                    r"record p\d+\.\d+ no longer matches the book's text\); repair the book", result.stderr)
    repair_book(library, book_id)
    BookIndexer(library, book_id).run(up_to=1)
    result = subprocess.run([sys.executable, "-m", "engine", "retrieve", book_id, question, "--json"],
                            capture_output=True, text=True, cwd=ROOT, env=env)
    assert result.returncode == 0 and any("perhaps the hare will" in passage["text"]
                                          for passage in json.loads(result.stdout)["passages"])
