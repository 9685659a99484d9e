"""Faults while indexing: a full disk, a data folder that cannot be written,
the model server dying mid-stage. Each gives a clear error, the index stays at
its last checkpoint, and the book stays usable at the stages already done:
on a disk that takes no writes it can still be searched and asked about.
Search files found damaged later are rebuilt from the book's records."""

from __future__ import annotations

import gc
import os
import shutil
import sqlite3
import subprocess
import tempfile
from pathlib import Path

import pytest

from engine.answer.session import AnswerSession
from engine.errors import ChapterhouseError, StorageError
from engine.index.indexer import BookIndexer, IndexingError, builder_lock
from engine.index.searchfiles import current_generation
from engine.llm import ModelChoice, ModelError, ModelSettings, open_embedder
from engine.llm.remote import EndpointSettings, RemoteGenerator
from engine.store import Library


@pytest.fixture(scope="module")
def embedder():
    return open_embedder(ModelSettings())


def _integrity(library: Library, book_id: str) -> str:
    connection = sqlite3.connect(library.folder(book_id) / "book.sqlite")
    try:
        return connection.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        connection.close()


def test_a_full_disk_stops_indexing_cleanly_and_it_resumes(small_filesystem, fixtures, embedder):
    library = Library(small_filesystem / "home")
    book_id = library.import_book(fixtures / "black-beauty-excerpt.txt").book_id
    indexer = BookIndexer(library, book_id, embedder=embedder)
    ballast = small_filesystem / "ballast"
    free = os.statvfs(small_filesystem).f_bavail * os.statvfs(small_filesystem).f_frsize
    ballast.write_bytes(b"\0" * (free - 48 * 1024))  # leave room for a section or two
    with pytest.raises(IndexingError) as caught:
        indexer.run(up_to=1)
    message = str(caught.value)
    assert "\n" not in message and "disk is full" in message and "resumes" in message
    assert _integrity(library, book_id) == "ok"
    assert library.load(book_id).sections  # the book itself is untouched
    done_before = indexer.status()["stages"]["1"]["done"]
    assert done_before < 3

    ballast.unlink()
    resumed = BookIndexer(library, book_id, embedder=embedder)
    result = resumed.run(up_to=1)
    assert result.completed_stage == 1
    assert resumed.status()["counts"]["passage"] == len({n.id for n in resumed.store.nodes(kind="passage")})
    assert resumed.search().search("the hare", k=1)


def test_a_data_folder_that_cannot_be_written(small_filesystem, fixtures, embedder):
    library = Library(small_filesystem / "home")
    book_id = library.import_book(fixtures / "black-beauty-excerpt.txt").book_id
    subprocess.run(["mount", "-o", "remount,ro", str(small_filesystem)], check=True)
    try:
        with pytest.raises(IndexingError, match="data folder is not writable"):
            BookIndexer(library, book_id, embedder=embedder).run(up_to=1)
        assert library.load(book_id).title == "Black Beauty"  # reading still works
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(small_filesystem)], check=True)


def _indexed_and_asked_once(library: Library, fixtures, embedder) -> str:
    """A book at stage 1 with one question in its history, every connection closed."""
    book_id = library.import_book(fixtures / "black-beauty-excerpt.txt").book_id
    indexer = BookIndexer(library, book_id, embedder=embedder)
    indexer.run(up_to=1)
    indexer.close()
    journal = library.journal(book_id)
    journal.add({"question": "Who is Duchess?", "answer": ""})
    journal.close()
    return book_id


def _evidence_session(library: Library, book_id: str, embedder) -> AnswerSession:
    return AnswerSession(library, book_id, settings=ModelSettings(answers="evidence"), embedder=embedder)


def _answers_from_the_stored_index(session: AnswerSession) -> None:
    assert session.indexer.status()["stage_reached"] == 1
    result = session.ask("What did the old horse say about the hare and the dogs?")
    text = session.indexer.book.text
    assert result.digest and all(text[line.start:line.end] == line.text for line in result.digest)
    assert any("hare" in line.text for line in result.digest)


def test_a_full_disk_still_answers_from_what_is_stored(small_filesystem, fixtures, embedder):
    library = Library(small_filesystem / "home")
    book_id = _indexed_and_asked_once(library, fixtures, embedder)
    ballast = small_filesystem / "ballast"
    stats = os.statvfs(small_filesystem)
    ballast.write_bytes(b"\0" * (stats.f_bavail * stats.f_frsize))

    session = _evidence_session(library, book_id, embedder)
    assert not session.indexer.store.writable  # SQLite cannot make its WAL index file
    _answers_from_the_stored_index(session)
    journal = library.journal(book_id)
    assert [entry.question for entry in journal.entries()] == ["Who is Duchess?"]
    with pytest.raises(StorageError, match="book.sqlite: the disk is full$"):
        journal.add({"question": "Why did the hare run?", "answer": ""})
    journal.close()
    with pytest.raises(IndexingError, match="Black Beauty: the disk is full"):  # not "disk I/O error"
        session.indexer.run(up_to=1)

    ballast.unlink()
    assert session.indexer.run(up_to=1).completed_stage == 1  # takes a writable store now
    assert session.indexer.store.writable
    journal = library.journal(book_id)
    journal.add({"question": "Why did the hare run?", "answer": ""})
    assert len(journal.entries()) == 2
    journal.close()
    assert _integrity(library, book_id) == "ok"


def test_a_read_only_disk_still_answers_from_what_is_stored(small_filesystem, fixtures, embedder):
    library = Library(small_filesystem / "home")
    book_id = _indexed_and_asked_once(library, fixtures, embedder)
    copies_before = {path.name for path in Path(tempfile.gettempdir()).glob("chapterhouse-index-*")}
    subprocess.run(["mount", "-o", "remount,ro", str(small_filesystem)], check=True)
    try:
        session = _evidence_session(library, book_id, embedder)
        assert not session.indexer.store.writable
        _answers_from_the_stored_index(session)  # Tantivy's lock file cannot be made there
        journal = library.journal(book_id)
        assert journal.get("position", 0) == 0 and len(journal.entries()) == 1
        assert library.reading_progress(library.summary(book_id)) is None  # the library list reads it
        with pytest.raises(StorageError, match="the data folder is not writable"):
            journal.set("position", 1200)
        journal.close()
        with pytest.raises(IndexingError, match="data folder is not writable"):
            session.indexer.run(up_to=1)
        del session
        gc.collect()
        copies_after = {path.name for path in Path(tempfile.gettempdir()).glob("chapterhouse-index-*")}
        assert copies_after == copies_before  # the private copy of the text index went with the session
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(small_filesystem)], check=True)


def test_a_read_only_disk_still_shows_what_a_crash_left_in_the_write_ahead_log(small_filesystem, fixtures):
    import sys

    library = Library(small_filesystem / "home")
    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    database = library.folder(book_id) / "book.sqlite"
    # An answer is saved, then the app dies before SQLite folds its log into the file.
    crash = ("import os, sys, pathlib; from engine.store.journal import BookJournal; "
             "BookJournal(pathlib.Path(sys.argv[1])).add({'question': 'Why did the hare run?', 'answer': 'Fear.'}); "
             "os._exit(0)")
    subprocess.run([sys.executable, "-c", crash, str(database)], check=True, cwd=Path(__file__).parent.parent)
    assert database.with_name("book.sqlite-wal").stat().st_size > 0
    database.with_name("book.sqlite-shm").unlink()  # e.g. a backup that skips it; SQLite cannot make it here
    subprocess.run(["mount", "-o", "remount,ro", str(small_filesystem)], check=True)
    try:
        journal = library.journal(book_id)
        assert [entry.question for entry in journal.entries()] == ["Why did the hare run?"]
        with pytest.raises(StorageError, match="the data folder is not writable"):
            journal.add({"question": "And then?", "answer": ""})
        journal.close()
        assert library.load(book_id).title == "Three Chapters from Black Beauty"
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(small_filesystem)], check=True)
    assert [entry.question for entry in library.journal(book_id).entries()] == ["Why did the hare run?"]


def test_an_import_or_removal_on_a_disk_that_takes_no_writes_is_one_line_and_changes_nothing(small_filesystem,
                                                                                              fixtures):
    from engine.errors import BookImportError

    library = Library(small_filesystem / "home")
    kept = library.import_book(fixtures / "three-chapters.txt").book_id
    ballast = small_filesystem / "ballast"
    stats = os.statvfs(small_filesystem)
    ballast.write_bytes(b"\0" * (stats.f_bavail * stats.f_frsize))
    with pytest.raises(BookImportError) as caught:
        library.import_book(fixtures / "black-beauty-excerpt.txt")
    assert str(caught.value) == f"{fixtures / 'black-beauty-excerpt.txt'}: the disk is full; nothing was stored"
    assert sorted(p.name for p in library.books_dir.iterdir()) == [kept]  # no half-made book, no staging left
    ballast.unlink()
    subprocess.run(["mount", "-o", "remount,ro", str(small_filesystem)], check=True)
    try:
        with pytest.raises(BookImportError, match="the library folder is not writable .*; nothing was stored$"):
            library.import_book(fixtures / "black-beauty-excerpt.txt")
        assert [book.book_id for book in library.list_books()] == [kept]
        with pytest.raises(StorageError, match=f"{kept}: the book cannot be removed: the library folder is not "
                                               "writable$"):
            library.remove(kept)
        assert library.load(kept).title == "Three Chapters from Black Beauty"
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(small_filesystem)], check=True)


def test_the_model_server_failing_mid_stage(tmp_path, fixtures, embedder):
    from servers import start_llama_server, stop

    process, url = start_llama_server(tmp_path)
    port = int(url.rsplit(":", 1)[1])
    library = Library(tmp_path / "home")
    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    endpoint = EndpointSettings(url, model="smollm2", context_size=4096, retries=0, timeout=20)
    remote = RemoteGenerator(endpoint)
    indexer = BookIndexer(library, book_id, generator=remote, embedder=embedder)
    indexer.run(up_to=1)

    def kill_after_first_section(event):
        if event.stage == 2 and event.detail == "Chapter 2" and process.poll() is None:
            process.kill()
            process.wait(10)

    with pytest.raises(ModelError) as caught:
        indexer.run(up_to=2, progress=kill_after_first_section)
    assert "\n" not in str(caught.value) and url in str(caught.value)
    status = indexer.status()
    assert status["stages"]["1"]["done"] == 3 and status["stages"]["2"]["done"] == 1
    assert indexer.search().search("the hare", k=1)  # usable at the stages done

    process, _ = start_llama_server(tmp_path, port=port)
    try:
        finished = BookIndexer(library, book_id, generator=RemoteGenerator(endpoint), embedder=embedder)
        result = finished.run(up_to=2)
        stats = result.stats[2]
        assert stats["situating_written"] + stats["situating_rejected"] == 6 - len(
            finished.store.nodes(kind="passage", section=1))
        assert finished.status()["stage_reached"] == 2
    finally:
        stop(process)


def test_settings_can_point_indexing_at_a_remote_generator(tmp_path, fixtures, embedder):
    settings = ModelSettings(generator=ModelChoice(source="remote", endpoint=EndpointSettings("http://127.0.0.1:9")))
    library = Library(tmp_path / "home")
    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    indexer = BookIndexer(library, book_id, settings=settings, embedder=embedder)
    assert indexer.run(up_to=1).completed_stage == 1  # stage 1 needs no generator
    with pytest.raises(ModelError, match="connection refused"):
        indexer.run(up_to=2)
    assert indexer.status()["stage_reached"] == 1



def test_an_indexing_lock_that_cannot_be_made(tmp_path, fixtures, embedder):
    library = Library(tmp_path / "home")
    book_id = library.import_book(fixtures / "black-beauty-excerpt.txt").book_id
    indexer = BookIndexer(library, book_id, embedder=embedder)
    (library.folder(book_id) / "indexing.lock").mkdir()  # something in the lock file's way
    with pytest.raises(IndexingError) as caught:
        indexer.run(up_to=1)
    message = str(caught.value)
    assert message.startswith("Black Beauty: storage failed") and "\n" not in message
    assert indexer.status()["stage_reached"] == 0


QUESTION = "What did the old horse say about the hare and the dogs?"


def _damage(library: Library, book_id: str, how: str) -> Path:
    """One of the current generation's search files spoilt; its folder."""
    folder = current_generation(library.folder(book_id) / "index").folder
    if how == "vectors":
        (folder / "vectors.hnsw").write_bytes(b"not an index")
    elif how == "text index":
        shutil.rmtree(folder / "tantivy-1")
    elif how == "all files":
        shutil.rmtree(folder.parent)
    else:
        (folder / "vectors.json").write_text('{"ids": ')
    return folder


def _passages(library: Library, book_id: str, embedder) -> list[str]:
    session = _evidence_session(library, book_id, embedder)
    try:
        return [node.id for node in session.retrieve(QUESTION).ranked]
    finally:
        session.indexer.close()


def test_damaged_search_files_are_rebuilt_from_the_books_records(tmp_path, fixtures, embedder):
    """The search files derive from the book's records: one spoilt (a disk
    error, a sync tool) made every question fail with hnswlib's "Index seems
    to be corrupted", or, with the text index gone, silently lose its words."""
    library = Library(tmp_path / "home")
    book_id = _indexed_and_asked_once(library, fixtures, embedder)
    index = library.folder(book_id) / "index"
    expected = _passages(library, book_id, embedder)
    assert len(expected) == 11  # of the excerpt's 12 passages, best first
    for how in ("vectors", "text index", "id map", "all files"):
        damaged = _damage(library, book_id, how)
        assert _passages(library, book_id, embedder) == expected, how
        # Published again, for every later search: the spoilt folder is gone.
        assert current_generation(index).folder != damaged and not damaged.exists()
        assert BookIndexer(library, book_id, embedder=embedder).status()["searchable"]

    # While the book is being indexed (its run will publish new files), a
    # search rebuilds them for itself and publishes nothing.
    damaged = _damage(library, book_id, "vectors")
    with builder_lock(index):
        assert _passages(library, book_id, embedder) == expected
        assert current_generation(index).folder == damaged
    assert _passages(library, book_id, embedder) == expected
    assert current_generation(index).folder != damaged


def test_damaged_search_files_on_a_disk_that_takes_no_writes(small_filesystem, fixtures, embedder):
    library = Library(small_filesystem / "home")
    book_id = _indexed_and_asked_once(library, fixtures, embedder)
    expected = _passages(library, book_id, embedder)
    damaged = _damage(library, book_id, "vectors")
    rebuilt_before = set(Path(tempfile.gettempdir()).glob("chapterhouse-search-*"))
    subprocess.run(["mount", "-o", "remount,ro", str(small_filesystem)], check=True)
    try:
        assert _passages(library, book_id, embedder) == expected  # rebuilt in a private folder
        assert current_generation(library.folder(book_id) / "index").folder == damaged
        gc.collect()
        assert set(Path(tempfile.gettempdir()).glob("chapterhouse-search-*")) == rebuilt_before  # gone with it
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(small_filesystem)], check=True)


def test_damaged_search_files_that_cannot_be_rebuilt_are_one_line(small_filesystem, tmp_path, fixtures, embedder,
                                                                   monkeypatch):
    library = Library(tmp_path / "home")
    book_id = _indexed_and_asked_once(library, fixtures, embedder)
    damaged = _damage(library, book_id, "vectors")
    subprocess.run(["mount", "-o", "remount,ro", str(small_filesystem)], check=True)
    monkeypatch.setattr(tempfile, "tempdir", str(small_filesystem))  # no room for a private rebuild
    try:
        with builder_lock(library.folder(book_id) / "index"):  # nor for a published one: the book is being indexed
            with pytest.raises(ChapterhouseError) as caught:
                _passages(library, book_id, embedder)
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(small_filesystem)], check=True)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{damaged / 'vectors.hnsw'}: unreadable (")
    assert "rebuilding the book's search files failed" in message and "Read-only file system" in message, message
