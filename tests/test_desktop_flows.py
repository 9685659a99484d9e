"""The desktop app's real flows, driven offscreen with the real default models
on a short book: drag-and-drop import, stage-1 indexing with progress, asking
with a streamed answer, following a citation and going back, stopping,
cancelling and resuming indexing across a restart, settings, history export,
and the event loop's longest stall while all of that runs."""

from __future__ import annotations

import os
import re
import sqlite3
import threading
import time

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QElapsedTimer, QEvent, QMimeData, QPoint, QPointF, Qt, QTimer, QUrl  # noqa: E402
from PySide6.QtGui import QDropEvent  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from desktop.app import create_application  # noqa: E402
from desktop.ask_panel import ENTRY_ROLE, SPAN_ROLE  # noqa: E402
from desktop.main_window import MainWindow  # noqa: E402
from engine.answer.digest import quoted  # noqa: E402
from engine.answer.selection import shown_text  # noqa: E402
from engine.cli import main as chapterhouse  # noqa: E402
from engine.llm.types import CancelToken  # noqa: E402
from engine.store import Library  # noqa: E402

QUESTION = "What did the old horse say about the hare and the dogs?"


class StallMeter:
    """The longest gap between ticks of a 10 ms timer on the UI thread: how
    long the event loop was kept from running."""

    def __init__(self):
        self.clock = QElapsedTimer()
        self.longest = 0
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._tick)

    def start(self) -> None:
        self.clock.start()
        self.timer.start()

    def _tick(self) -> None:
        self.longest = max(self.longest, self.clock.restart())

    def stop(self) -> int:
        self.timer.stop()
        return self.longest


def _window(qtbot, index_stage: int = 1) -> MainWindow:
    create_application()
    main = MainWindow(Library(), index_stage=index_stage)
    qtbot.addWidget(main)
    main.resize(1200, 800)
    main.show()
    qtbot.waitExposed(main)
    main.start()
    return main


def test_on_a_full_disk_a_book_still_opens_and_answers_and_the_answer_says_it_was_not_kept(
        qtbot, fixtures, small_filesystem, monkeypatch):
    from engine.index.indexer import BookIndexer
    from engine.llm.settings import ModelSettings

    monkeypatch.setenv("CHAPTERHOUSE_HOME", str(small_filesystem / "home"))
    ModelSettings(answers="evidence").save()
    library = Library()
    book_id = library.import_book(fixtures / "black-beauty-excerpt.txt").book_id
    indexer = BookIndexer(library, book_id)
    indexer.run(up_to=1)
    indexer.close()
    journal = library.journal(book_id)
    journal.add({"question": QUESTION, "answer": ""})
    journal.close()
    assert not (library.folder(book_id) / "book.sqlite-shm").exists()  # as after the app quit
    ballast = small_filesystem / "ballast"
    stats = os.statvfs(small_filesystem)
    ballast.write_bytes(b"\0" * (stats.f_bavail * stats.f_frsize))

    window = _window(qtbot)
    view = window.library_view
    qtbot.waitUntil(lambda: view.table.rowCount() == 1, timeout=5000)
    assert view.table.item(0, 3).text().startswith("searchable")  # its stage read from the full disk
    with qtbot.waitSignal(window.bookOpened, timeout=20000):
        window.open_book(book_id)
    panel = window.ask_panel
    assert panel.history.count() == 1
    panel.question.setText("Why did the hare run to the woods?")
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as finished:
        panel.ask()
    assert finished.args[0]["digest"] and "Evidence only" in panel.answer_view.toPlainText()
    qtbot.waitUntil(window.banner.isVisible, timeout=10000)
    message = window.banner.label.text()
    assert message.startswith("Black Beauty: the disk is full, so this answer is not kept in the history (")
    assert message.endswith("book.sqlite)") and "\n" not in message
    assert panel.history.count() == 1
    assert window.indexing.current is None  # nothing was queued to index again

    window.banner.hide()
    window.apply_settings(ModelSettings(answers="model"))
    assert window.banner.isVisible()
    assert window.banner.label.text().endswith("models.json: the settings were not saved: the disk is full")
    assert ModelSettings.load().answers == "evidence"  # the file in force is untouched
    assert not list((small_filesystem / "home" / "config").glob("*.tmp"))
    window.close()


def _window_on_a_searchable_book(qtbot, fixtures) -> MainWindow:
    """A window open on the three-chapter book, indexed to stage 1, its answers the evidence alone."""
    from engine.index.indexer import BookIndexer
    from engine.llm.settings import ModelSettings

    ModelSettings(answers="evidence").save()
    library = Library()
    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    BookIndexer(library, book_id).run(up_to=1)
    window = _window(qtbot)
    with qtbot.waitSignal(window.bookOpened, timeout=20000):
        window.open_book(book_id)
    return window


def _drop(window: MainWindow, path) -> None:
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(path))])
    window.dropEvent(QDropEvent(QPointF(300, 300), Qt.DropAction.CopyAction, data, Qt.MouseButton.NoButton,
                                Qt.KeyboardModifier.NoModifier))


def _import_and_index(qtbot, window: MainWindow, path) -> str:
    with qtbot.waitSignal(window.indexing.finished, timeout=120000) as finished:
        _drop(window, path)
    book_id, stage, cancelled = finished.args
    assert (stage, cancelled) == (1, False)
    qtbot.waitUntil(lambda: window.book is not None and window.book.book_id == book_id, timeout=20000)
    return book_id


def _ask_until_the_digest(qtbot, panel) -> None:
    """Ask QUESTION and wait until its evidence digest has arrived (the answer is still running)."""
    panel.question.setText(QUESTION)
    digests = []
    panel.relay.digest.connect(lambda ticket, payload: digests.append(ticket))
    panel.ask()
    qtbot.waitUntil(lambda: bool(digests), timeout=60000)


def test_the_first_book_indexed_loads_no_model_or_tokenizer_in_a_worker(qtbot, fixtures, monkeypatch):
    """Parsing the tokenizers and making the embedder's ONNX session hold the
    GIL for about 0.3 s: done by the first indexing job, they froze the window
    (a stall check failed when its test ran alone). The app does them before
    its window shows."""
    from engine.index.chunking import chunking_tokenizer
    from engine.llm import loading

    built_on_the_ui_thread = []

    class RecordingEmbedder(loading.OnnxEmbedder):
        def __init__(self, *args, **kwargs):
            built_on_the_ui_thread.append(threading.current_thread() is threading.main_thread())
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(loading, "OnnxEmbedder", RecordingEmbedder)
    monkeypatch.setattr(loading, "_loaded", {})  # nothing loaded yet, as in a new process
    chunking_tokenizer.cache_clear()
    window = _window(qtbot)
    assert built_on_the_ui_thread == [True] and chunking_tokenizer.cache_info().currsize == 1
    _import_and_index(qtbot, window, fixtures / "three-chapters.txt")
    assert built_on_the_ui_thread == [True]


def test_an_indexed_book_is_ready_to_answer_before_its_first_question(qtbot, fixtures, monkeypatch):
    """Loading a book's passages and search files took a third of a second
    (Little Women) after the first question was asked; it is done in a worker
    as the book opens, and the question uses what was loaded."""
    from engine.answer.context import BookContext
    from engine.index.indexer import BookIndexer
    from engine.llm.settings import ModelSettings

    ModelSettings(answers="evidence").save()
    library = Library()
    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    BookIndexer(library, book_id).run(up_to=1)
    loaded_in_a_worker = []
    real_load = BookContext.load.__func__

    def load(cls, *args):
        loaded_in_a_worker.append(threading.current_thread() is not threading.main_thread())
        return real_load(cls, *args)

    monkeypatch.setattr(BookContext, "load", classmethod(load))
    window = _window(qtbot)
    with qtbot.waitSignal(window.bookOpened, timeout=20000):
        window.open_book(book_id)
    qtbot.waitUntil(lambda: loaded_in_a_worker == [True], timeout=20000)
    with qtbot.waitSignal(window.ask_panel.answerFinished, timeout=60000) as finished:
        window.ask_panel.question.setText(QUESTION)
        window.ask_panel.ask()
    assert finished.args[0]["digest"]
    assert loaded_in_a_worker == [True]  # the question used the passages loaded as the book opened


def test_the_answer_model_loads_and_reads_the_books_rules_while_the_question_is_typed(qtbot, fixtures,
                                                                                       monkeypatch):
    """The first question loaded the model after Ask (a second for the
    default, several for a 3-4B model), then read the rules and the book's
    card every answer begins with (1.5-4 s); both happen as the reader types."""
    from engine.answer.answering import answer_rules
    from engine.index.indexer import BookIndexer
    from engine.llm import loading

    library = Library()
    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    BookIndexer(library, book_id).run(up_to=1)
    opened_in = []
    real_open = loading.open_generator

    def open_generator(*args, **kwargs):
        opened_in.append(threading.current_thread() is threading.main_thread())
        return real_open(*args, **kwargs)

    monkeypatch.setattr(loading, "open_generator", open_generator)
    window = _window(qtbot)
    with qtbot.waitSignal(window.bookOpened, timeout=20000):
        window.open_book(book_id)
    qtbot.waitUntil(lambda: book_id in window._sessions, timeout=20000)
    window.ask_panel.so_far.setChecked(False)
    window.ask_panel.question.setText("Who?")  # a question put back in the box is not one being typed
    assert window.tasks.wait(10000) and opened_in == []
    window.ask_panel.question.clear()
    stalls = StallMeter()
    stalls.start()
    with qtbot.waitSignal(window.ask_panel.questionStarted, timeout=1000):
        qtbot.keyClicks(window.ask_panel.question, "What did the old horse say")
    qtbot.waitUntil(lambda: window._sessions[book_id]._generator is not None, timeout=30000)
    assert window.tasks.wait(30000)
    assert opened_in == [False]  # loaded once, in a worker
    assert stalls.stop() < 100, f"the window stalled {stalls.longest} ms while the model loaded and read"
    # It has read the start every answer on this book shares: the question's answer reads only the rest.
    session, rules = window._sessions[book_id], [answer_rules(window._sessions[book_id].context)]
    assert session.generator.cached_prefix(rules) == session.generator.count_prompt_tokens(rules) > 150
    with qtbot.assertNotEmitted(window.ask_panel.questionStarted, wait=100):
        qtbot.keyClicks(window.ask_panel.question, " about the hare?")  # once per question
    # "Only what I have read" ticked under the question: its answer starts
    # with the sections begun by the reader's position, read ahead in turn.
    limited = [answer_rules(session.context, window.ask_panel.read_to_provider())]
    assert limited[0].content != rules[0].content
    with qtbot.waitSignal(window.ask_panel.questionStarted, timeout=1000):
        window.ask_panel.so_far.setChecked(True)
    assert window.tasks.wait(30000)
    assert session.generator.cached_prefix(limited) == session.generator.count_prompt_tokens(limited)


def test_a_damaged_book_is_listed_as_such_and_hides_no_other(qtbot, fixtures, monkeypatch):
    """One book's spoilt database made "Reading the library" fail: the
    window listed no book at all. Repaired, it reads and indexes again."""
    from PySide6.QtWidgets import QMessageBox

    from engine.index.indexer import BookIndexer

    library = Library()
    keep = library.import_book(fixtures / "black-beauty-excerpt.txt").book_id
    BookIndexer(library, keep).run(up_to=1)
    spoilt = library.import_book(fixtures / "three-chapters.txt").book_id
    database = library.folder(spoilt) / "book.sqlite"
    database.write_bytes(os.urandom(database.stat().st_size))
    # Its manifest spoilt too, a book was not listed at all: nothing offered to remove it.
    lost = library.import_book(fixtures / "call-of-the-wild-excerpt.html").book_id
    (library.folder(lost) / "book.sqlite").write_bytes(b"\0" * 4096)
    (library.folder(lost) / "manifest.json").write_text("{")
    window = _window(qtbot)
    view = window.library_view
    qtbot.waitUntil(lambda: len(view._rows) == 3, timeout=10000)
    assert view.table.item(view._rows[spoilt], 3).text() == "damaged: repair it"
    assert view.table.item(view._rows[lost], 0).text() == "call-of-the-wild-excerpt.html"
    assert view.table.item(view._rows[lost], 2).text() == ""  # its size is unknown, not 0
    assert view.table.item(view._rows[lost], 3).text() == "damaged: repair it"
    assert lost not in window.indexing.queue
    assert view.table.item(view._rows[keep], 3).text() == "searchable (stage 1 of 4)"
    assert spoilt not in window.indexing.queue and window.indexing.current is None  # nothing to index in it
    view.table.selectRow(view._rows[spoilt])
    assert view.remove_button.isEnabled() and view.open_button.isEnabled() and not view.index_button.isEnabled()
    window.open_book(spoilt)
    qtbot.waitUntil(window.banner.isVisible, timeout=10000)
    assert window.banner.label.text() == (f"{database}: the book's database is damaged (file is not a database); "
                                          "repair the book (Repair in the library, or `chapterhouse repair`) to make "
                                          "it again from its original file")
    assert window.banner.action.isVisible() and window.banner.action.text() == "Repair\u2026"
    # Repair, offered with the message, makes the book again from its file and indexes it.
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *args: asked.append(args[2]) or QMessageBox.StandardButton.Yes)
    qtbot.mouseClick(window.banner.action, Qt.MouseButton.LeftButton)
    assert not window.banner.isVisible()
    assert asked.pop().startswith("Make \u201cThree Chapters from Black Beauty\u201d again from the file")
    qtbot.waitUntil(lambda: view.table.item(view._rows[spoilt], 3).text() == "searchable (stage 1 of 4)",
                    timeout=60000)
    with qtbot.waitSignal(window.bookOpened, timeout=20000):
        window.open_book(spoilt)
    with qtbot.waitSignal(window.bookOpened, timeout=20000):
        window.open_book(keep)
    window._error("Another error")
    assert not window.banner.action.isVisible()
    # So does Repair in the library.
    window.show_library()
    view.table.selectRow(view._rows[lost])
    assert view.repair_button.isEnabled()
    qtbot.mouseClick(view.repair_button, Qt.MouseButton.LeftButton)
    assert asked and asked[0].startswith("Make \u201ccall-of-the-wild-excerpt.html\u201d again from the file")
    qtbot.waitUntil(lambda: lost in view._rows and view.table.item(view._rows[lost], 0).text() == "The Call of the Wild",
                    timeout=20000)
    assert window.statusBar().currentMessage().startswith("The Call of the Wild: repaired from its original file; "
                                                          "kept 0 questions")
    qtbot.waitUntil(lambda: view.table.item(view._rows[lost], 3).text() == "searchable (stage 1 of 4)", timeout=60000)
    with qtbot.waitSignal(window.bookOpened, timeout=20000):
        window.open_book(lost)


def test_a_damaged_history_row_or_reading_position_hides_nothing_else(qtbot, fixtures):
    """A history row or a reading position whose stored JSON could not be
    read made the book fail to open (a JSONDecodeError in the banner) and
    left the library's Read column empty for every book."""
    library = Library()
    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    other = library.import_book(fixtures / "black-beauty-excerpt.txt").book_id
    for each, read_to in ((book_id, 4000), (other, 100)):
        journal = library.journal(each)
        journal.set("read_to", read_to)
        journal.close()
    journal = library.journal(book_id)
    journal.add({"question": "Who is Duchess?", "answer": "The colt's mother."})
    journal.add({"question": "What happens at the brook?", "answer": "The young heir falls."})
    journal.set("position", 1500)
    journal.close()
    with sqlite3.connect(library.folder(book_id) / "book.sqlite") as connection:
        connection.execute("UPDATE history SET result = substr(result, 1, 12) WHERE question = 'Who is Duchess?'")
        connection.execute("UPDATE reader_state SET value = '{\"pos' WHERE key = 'read_to'")
    connection.close()

    journal = library.journal(book_id)
    try:
        damaged, whole = journal.entries()
        assert damaged.result == {"question": "Who is Duchess?", "answer": "The colt's mother.", "damaged": True}
        assert whole.result["answer"] == "The young heir falls."
        assert journal.get("read_to") is None and journal.get("position") == 1500
        exported = journal.markdown("Three Chapters")
    finally:
        journal.close()
    assert "The colt's mother." in exported and "The stored record of this answer is damaged" in exported

    window = _window(qtbot)
    view = window.library_view
    # The other book's share read is shown; the damaged value's book shows none.
    qtbot.waitUntil(lambda: other in view._rows and view.table.item(view._rows[other], 4).text() == "1%",
                    timeout=10000)
    assert view.table.item(view._rows[book_id], 4).text() == ""
    with qtbot.waitSignal(window.bookOpened, timeout=20000):
        window.open_book(book_id)
    panel = window.ask_panel
    qtbot.waitUntil(lambda: panel.history.count() == 2, timeout=10000)
    assert not window.banner.isVisible()
    oldest = panel.history.item(1)
    assert oldest.text() == "Who is Duchess?"
    panel.history.itemClicked.emit(oldest)
    shown = panel.answer_view.toPlainText()
    assert "The colt's mother." in shown and "The stored record of this answer is damaged" in shown
    assert panel.evidence.topLevelItemCount() == 0


def test_a_question_is_deleted_from_the_history_or_asked_again(qtbot, fixtures):
    from engine.index.indexer import BookIndexer
    from engine.llm.settings import ModelSettings

    ModelSettings(answers="evidence").save()
    library = Library()
    book_id = library.import_book(fixtures / "black-beauty-excerpt.txt").book_id
    BookIndexer(library, book_id).run(up_to=1)
    journal = library.journal(book_id)
    journal.add({"question": QUESTION, "answer": "That the hare was killed."})
    journal.add({"question": "Who is Duchess?", "answer": "The colt's mother."})
    journal.close()
    window = _window(qtbot)
    with qtbot.waitSignal(window.bookOpened, timeout=20000):
        window.open_book(book_id)
    panel = window.ask_panel
    qtbot.waitUntil(lambda: panel.history.count() == 2, timeout=10000)
    # The Delete key deletes the question selected, from the book's journal too.
    panel.history.setCurrentRow(0)
    assert panel.history.currentItem().text() == "Who is Duchess?"
    panel.history.setFocus()
    qtbot.keyClick(panel.history, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: panel.history.count() == 1, timeout=10000)
    assert panel.history.item(0).text() == QUESTION
    journal = library.journal(book_id)
    try:
        assert [entry.question for entry in journal.entries()] == [QUESTION]
    finally:
        journal.close()
    # Asked again, it is answered anew and kept once more.
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as finished:
        panel.ask_again(panel.history.item(0))
    assert finished.args[0]["question"] == QUESTION and finished.args[0]["parts"]
    qtbot.waitUntil(lambda: panel.history.count() == 2, timeout=10000)
    assert [panel.history.item(row).text() for row in range(2)] == [QUESTION, QUESTION]
    # A question asked from a terminal meanwhile shows when the History tab comes into view.
    panel.tabs.setCurrentIndex(2)
    panel.history.setCurrentRow(1)
    assert chapterhouse(["ask", book_id, "Why did the hare run?", "--answers", "evidence"]) == 0
    panel.tabs.setCurrentIndex(0)
    panel.tabs.setCurrentIndex(2)
    qtbot.waitUntil(lambda: panel.history.count() == 3, timeout=10000)
    assert panel.history.item(0).text() == "Why did the hare run?"
    panel.history.setCurrentRow(2)
    panel.tabs.setCurrentIndex(0)
    panel.tabs.setCurrentIndex(2)
    assert window.tasks.wait(10000)
    qtbot.wait(100)  # what the worker read is shown on the UI thread's next turn
    assert panel.history.currentRow() == 2  # read again unchanged, the list is left as it was
    # So does one asked while the History tab was in view, when the window is next activated.
    assert chapterhouse(["ask", book_id, "Who is Duchess?", "--answers", "evidence"]) == 0
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    QApplication.sendEvent(window, QEvent(QEvent.Type.ActivationChange))
    qtbot.waitUntil(lambda: panel.history.count() == 4, timeout=10000)
    # The filter keeps the questions with the words typed, in the question or its answer.
    def shown():
        return [panel.history.item(row).text() for row in range(panel.history.count())
                if not panel.history.item(row).isHidden()]

    panel.history_filter.setText("DUCHESS")
    assert shown() == ["Who is Duchess?"]
    panel.history_filter.setText("hare  run")
    assert shown() == ["Why did the hare run?"]
    panel.history_filter.clear()
    assert len(shown()) == 4
    # Up in the empty question box recalls them, each once, the last asked first.
    assert panel.question.earlier == [QUESTION, "Why did the hare run?", "Who is Duchess?"]


def test_a_stage_landing_for_the_open_book_is_loaded_for_questions_before_the_next_one(qtbot, fixtures):
    """Each stage publishes a new index: the open book's session loads it in a
    worker as the stage lands, keeping what the text alone gave, so the next
    question does not wait for the load."""
    from engine.index.indexer import Progress
    from engine.index.searchfiles import build_generation

    window = _window_on_a_searchable_book(qtbot, fixtures)
    book_id = window.book.book_id
    qtbot.waitUntil(lambda: book_id in window._sessions, timeout=20000)
    assert window.tasks.wait(20000)
    session = window._sessions[book_id]
    before = session.context
    build_generation(session.indexer.folder, session.indexer.store)  # what a finished stage publishes
    window._index_finished(book_id, 1, False)  # as the indexing queue reports it
    assert window.tasks.wait(20000)
    loaded = session._context  # the worker's, not one a question will load
    assert loaded is not None and loaded is not before and loaded.chapter_titles is before.chapter_titles
    session.refresh()  # what a question does first: nothing left to load
    assert session._context is loaded
    # A stage landing inside a run (summaries, then cards): heard as the run moves on to the next stage.
    window._index_progress(book_id, Progress(stage=2, stage_name="summaries", done=0, total=3, eta_seconds=None))
    build_generation(session.indexer.folder, session.indexer.store)
    window._index_progress(book_id, Progress(stage=3, stage_name="cards", done=0, total=3, eta_seconds=None))
    assert window.tasks.wait(20000)
    assert session._context is not None and session._context is not loaded


def test_answers_being_prepared_for_a_book_removed_meanwhile_are_not_kept(qtbot, fixtures):
    """The window drops a removed book's session without waiting for a worker
    that is preparing one; that worker's session is then not kept."""
    from engine.index.indexer import BookIndexer

    library = Library()
    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    BookIndexer(library, book_id).run(up_to=1)
    window = _window(qtbot)
    with window._sessions_lock:  # the preparing worker waits here while the book is removed
        window._prepare_answers(book_id)
        window.remove_book(book_id)
    qtbot.waitUntil(lambda: window.library.list_books() == [], timeout=60000)
    assert window.tasks.wait(10000)
    assert book_id not in window._sessions


def test_drop_index_ask_stream_follow_a_citation_go_back_and_export(qtbot, fixtures, tmp_path):
    window = _window(qtbot)
    stalls = StallMeter()
    stalls.start()
    progress = []
    window.indexing.progressed.connect(lambda book_id, p: progress.append(p))
    book_id = _import_and_index(qtbot, window, fixtures / "three-chapters.txt")

    # Indexing showed its stage and percentage, in the library and the status bar.
    assert progress and progress[0].stage == 1 and progress[-1].done == progress[-1].total
    row = window.library_view._rows[book_id]
    assert window.library_view.table.item(row, 3).text() == "searchable (stage 1 of 4)"
    assert window.library_view.table.item(row, 0).text() == "Three Chapters from Black Beauty"

    # Ask: the evidence comes first, then the answer streams in pieces.
    panel = window.ask_panel
    panel.budget = 4
    renders = []
    panel.answer_view.textChanged.connect(lambda: renders.append(panel._streamed))
    statuses = []  # what the status line says at each report of the model's prompt pass
    panel.relay.reading.connect(lambda *report: statuses.append(panel.status.text()))
    panel.question.setText(QUESTION)
    with qtbot.waitSignal(panel.answerFinished, timeout=300000) as finished:
        qtbot.mouseClick(panel.ask_button, Qt.MouseButton.LeftButton)
        assert panel.stop_button.isEnabled() and not panel.ask_button.isEnabled()
    result = finished.args[0]
    streamed = [text for text in renders if text]
    assert len(set(streamed)) >= 2, "the answer did not arrive in pieces"
    # The silent wait before the first words says how far the model has read, and how long is left.
    assert statuses[0] == "Evidence found; the model is reading it\u2026 0%"
    assert any(re.fullmatch(r"Evidence found; the model is reading it\u2026 \d+%, about \d+ s left", text)
               for text in statuses), statuses
    assert statuses[-1] == "Evidence found; the model is writing\u2026"
    assert (result["answer"] or result["discarded_draft"]) and not result["cancelled"]
    assert panel.evidence.topLevelItemCount() >= 1
    assert "Evidence in" in panel.status.text()
    panel.question.setText("Another question, being typed")
    assert panel.answer_view.toPlainText().startswith(QUESTION)  # the page says what it answers
    assert panel.book_map.evidence and panel.book_map.cited <= panel.book_map.evidence
    # Each evidence passage has its tick on the map, the quoted ones marked.
    spans = {(p["start"], p["end"]) for part in result["parts"] for p in part["passages"]}
    assert {(start, end) for start, end, _ in panel.book_map.passages} == spans
    quoted_spans = {(start, end) for start, end, quoted in panel.book_map.passages if quoted}
    assert any(start <= result["digest"][0]["start"] < end for start, end in quoted_spans)
    assert panel.ask_button.isEnabled() and not panel.stop_button.isEnabled()

    # Follow the first quoted sentence's mark: the reader shows it, highlighted.
    reader = window.reader
    quoted = result["digest"][0]
    far_away = 0 if quoted["start"] > len(window.book.text) // 2 else window.book.sections[-1].end - 1
    reader.scroll_to_offset(far_away)
    qtbot.waitUntil(lambda: not reader.is_offset_visible(quoted["start"]), timeout=5000)
    before = reader.offset_at_top()
    # Its mark is its own, or a run's of the sentences that follow it in the book ("quote:0-1"), one quotation.
    target = re.search(r'href="quote:(0(?:-\d+)?)"', panel.answer_view.toHtml()).group(1)
    last = result["digest"][int(target.split("-")[-1])]
    panel.answer_view.anchorClicked.emit(QUrl(f"quote:{target}"))
    qtbot.waitUntil(lambda: reader.is_offset_visible(quoted["start"]), timeout=5000)
    span = reader.document_span(quoted["start"], last["end"])
    assert reader.highlighted_span() == (span.selectionStart(), span.selectionEnd())
    assert window.back_action.isEnabled()

    # A passage in the evidence list, clicked, is shown and highlighted whole.
    group = panel.evidence.topLevelItem(panel.evidence.topLevelItemCount() - 1)
    entry = group.child(0)
    start, end = entry.data(0, Qt.ItemDataRole.UserRole)
    qtbot.mouseClick(panel.evidence.viewport(), Qt.MouseButton.LeftButton,
                     pos=panel.evidence.visualItemRect(entry).center())
    qtbot.waitUntil(lambda: reader.is_offset_visible(start), timeout=5000)
    span = reader.document_span(start, end)
    assert reader.highlighted_span() == (span.selectionStart(), span.selectionEnd())
    qtbot.keyClick(window, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)  # back to the quote

    # Back (Alt+Left) returns to where the reader was and clears the highlight.
    qtbot.keyClick(window, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: reader.highlighted_span() is None, timeout=5000)
    assert abs(reader.offset_at_top() - before) < 200
    assert not window.back_action.isEnabled()

    # The answer joins the book's history and exports as Markdown with citations.
    qtbot.waitUntil(lambda: panel.history.count() == 1, timeout=10000)
    out = tmp_path / "questions.md"
    window.export_history_to(out)
    qtbot.waitUntil(out.exists, timeout=10000)
    text = out.read_text(encoding="utf-8")
    assert QUESTION in text and "Three Chapters from Black Beauty" in text
    assert quoted["text"][:40] in " ".join(text.split())

    # The book map: a click on a section's band opens that section.
    ordinal = max(panel.book_map.evidence)
    band = dict(panel.book_map.bands())[ordinal]
    qtbot.mouseClick(panel.book_map, Qt.MouseButton.LeftButton, pos=band.center().toPoint())
    qtbot.waitUntil(lambda: reader.is_offset_visible(window.book.sections[ordinal - 1].start), timeout=5000)
    longest = stalls.stop()
    assert longest < 100, f"the event loop stalled for {longest} ms"
    window.close()

    # The history survives a restart, and an entry shows its answer again.
    restarted = _window(qtbot)
    with qtbot.waitSignal(restarted.bookOpened, timeout=20000):
        restarted.open_book(book_id)
    history = restarted.ask_panel.history
    assert history.count() == 1 and QUESTION in history.item(0).text()
    history.itemClicked.emit(history.item(0))
    assert restarted.ask_panel.question.text() == QUESTION
    assert restarted.ask_panel.answer_view.toPlainText().startswith(QUESTION)
    assert quoted["text"][:40] in " ".join(restarted.ask_panel.answer_view.toPlainText().split())
    restarted.close()


def test_removing_a_book_while_it_indexes_deletes_it_cleanly(qtbot, sample_book, chapterhouse_home):
    window = _window(qtbot)
    started = []
    window.indexing.progressed.connect(lambda book_id, p: started.append(book_id))
    window.import_file(sample_book)
    qtbot.waitUntil(lambda: bool(started), timeout=60000)
    book_id = started[0]
    folder = window.library.folder(book_id)
    with qtbot.waitSignal(window.libraryChanged, timeout=120000):
        window.remove_book(book_id)
    qtbot.waitUntil(lambda: window.library.list_books() == [], timeout=120000)
    assert not folder.exists()
    # The library is read again after the removal, in the worker: wait for the redraw.
    qtbot.waitUntil(lambda: window.library_view.table.rowCount() == 0, timeout=10000)
    assert window.book is None and window.pages.currentIndex() == 0
    assert not window.banner.isVisible()
    window.close()


def test_stop_cuts_an_answer_short_and_the_window_stays_usable(qtbot, fixtures):
    window = _window(qtbot)
    _import_and_index(qtbot, window, fixtures / "three-chapters.txt")
    panel = window.ask_panel
    _ask_until_the_digest(qtbot, panel)
    started = time.monotonic()
    panel.question.setFocus()
    qtbot.waitUntil(panel.question.hasFocus, timeout=2000)
    with qtbot.waitSignal(panel.answerFinished, timeout=30000) as finished:
        qtbot.keyClick(panel.question, Qt.Key.Key_Escape)
    assert time.monotonic() - started < 5
    assert finished.args[0]["cancelled"]
    assert panel.status.text().startswith("Stopped")
    assert panel.ask_button.isEnabled()
    assert panel.evidence.topLevelItemCount() >= 1  # the evidence stays


def test_cancel_indexing_then_restart_resumes_where_it_stopped(qtbot, sample_book):
    window = _window(qtbot)
    done_so_far = []
    window.indexing.progressed.connect(lambda book_id, p: done_so_far.append(p.done))
    with qtbot.waitSignal(window.indexing.finished, timeout=120000) as finished:
        window.import_file(sample_book)
        qtbot.waitUntil(lambda: any(done_so_far), timeout=60000)  # a section is committed
        qtbot.waitUntil(lambda: any(s.progress is not None for s in window.indexing.states.values()), timeout=5000)
        window.refresh_library()  # a redrawn library keeps showing the live progress
        qtbot.waitUntil(lambda: "indexing stage 1 of 4" in window.library_view.table.item(0, 3).text(),
                        timeout=5000)
        assert window.cancel_index.isVisible() and window.progress.isVisible()
        qtbot.mouseClick(window.cancel_index, Qt.MouseButton.LeftButton)
    book_id, stage, cancelled = finished.args
    assert (stage, cancelled) == (0, True)
    assert not window.progress.isVisible()
    window.close()

    restarted = _window(qtbot)
    resumed = []
    restarted.indexing.progressed.connect(lambda _book, p: resumed.append(p.done))
    with qtbot.waitSignal(restarted.indexing.finished, timeout=180000) as finished:
        pass
    assert finished.args == [book_id, 1, False]
    assert resumed[0] > 0, "indexing started again from the beginning"
    restarted.close()


def test_a_full_disk_is_a_message_and_index_now_resumes_after_space_is_freed(qtbot, fixtures, small_filesystem,
                                                                              monkeypatch):
    home = small_filesystem / "home"
    monkeypatch.setenv("CHAPTERHOUSE_HOME", str(home))
    book_id = Library().import_book(fixtures / "black-beauty-excerpt.txt").book_id
    ballast = small_filesystem / "ballast"
    stats = os.statvfs(small_filesystem)
    ballast.write_bytes(b"\0" * (stats.f_bavail * stats.f_frsize - 48 * 1024))  # room for a section or two
    window = _window(qtbot)  # resumes the unindexed book, which runs out of space
    with qtbot.waitSignal(window.indexing.failed, timeout=120000) as failed:
        pass
    assert failed.args[0] == book_id and "disk is full" in failed.args[1]
    assert window.banner.isVisible() and "disk is full" in window.banner.label.text()
    view = window.library_view
    qtbot.waitUntil(lambda: view.table.rowCount() == 1, timeout=5000)
    assert "stopped by an error" in view.table.item(0, 3).text()
    with qtbot.waitSignal(window.libraryChanged, timeout=10000):
        window.refresh_library()  # a redrawn library still says so
    assert "stopped by an error" in view.table.item(0, 3).text()
    assert view.index_button.text() == "Index now" and not view.index_button.isEnabled()  # nothing selected
    view.select(book_id)
    assert view.index_button.text() == "Index now" and view.index_button.isEnabled()

    from engine.index.indexer import BookIndexer

    ballast.unlink()
    checked = BookIndexer(window.library, book_id)
    committed = checked.status()["stages"]["1"]["done"]
    checked.close()
    resumed = []
    window.indexing.progressed.connect(lambda _book, p: resumed.append(p.done))
    with qtbot.waitSignal(window.indexing.finished, timeout=120000) as finished:
        qtbot.mouseClick(view.index_button, Qt.MouseButton.LeftButton)
        assert view.index_button.text() == "Stop indexing"
    assert finished.args == [book_id, 1, False]
    assert resumed[0] == committed  # sections stored before the disk filled are not redone
    assert not window.banner.isVisible()
    assert view.table.item(0, 3).text().startswith("searchable")
    assert not view.index_button.isEnabled()  # at its target stage: nothing left to index
    window.close()


def test_settings_round_trip_and_a_missing_model_is_a_message(qtbot, fixtures, chapterhouse_home):
    from desktop.settings_dialog import SettingsDialog
    from engine.llm.settings import FILE, ModelChoice, ModelSettings

    window = _window(qtbot)
    dialog = SettingsDialog(ModelSettings.load(), "", window)
    dialog.threads.setValue(2)
    dialog.context.setValue(4096)
    dialog.gpu_layers.setValue(0)
    assert dialog.changes() == []  # no model changed: nothing to re-index
    dialog.situating.setCurrentIndex(dialog.situating.findData("off"))
    assert len(dialog.changes()) == 1 and "situating sentences" in dialog.changes()[0]
    window.apply_settings(dialog.settings())
    saved = ModelSettings.load()
    assert (saved.threads, saved.context_size, saved.gpu_layers, saved.situating_sentences) == (2, 4096, 0, "off")
    again = SettingsDialog(saved, "", window)
    assert (again.threads.value(), again.context.value(), again.gpu_layers.value()) == (2, 4096, 0)
    assert again.situating.currentText() == "Never"
    again.context.setValue(10)  # typed in: below any useful context
    assert again.settings().context_size == 1024
    again.context.setValue(0)
    assert again.settings().context_size is None  # the model's own
    again.context.setValue(4096)

    missing = chapterhouse_home / "no-such-model.gguf"
    again.generator.combo.setCurrentIndex(again.generator.combo.findData("__file__"))
    again.generator.path.setText(str(missing))
    assert again.generator.path.isVisibleTo(again)
    notes = again.changes()
    assert len(notes) == 1 and "redo their summaries, situating sentences and cards" in notes[0]
    window.apply_settings(again.settings())
    assert ModelSettings.load().generator == ModelChoice(source=FILE, path=str(missing))

    _import_and_index(qtbot, window, fixtures / "three-chapters.txt")
    window.ask_panel.question.setText(QUESTION)
    with qtbot.waitSignal(window.ask_panel.answerFinished, timeout=60000) as finished:
        window.ask_panel.ask()
    # The model is lost, not the evidence: shown, kept in the history, and why there is no answer on top.
    result = finished.args[0]
    assert str(missing) in result["model_error"] and result["digest"] and not result["answer"]
    assert window.banner.isVisible() and str(missing) in window.banner.label.text()
    shown = window.ask_panel.answer_view.toPlainText()
    assert "Evidence" in shown and f"The model could not answer ({result['model_error']})" in shown
    assert window.ask_panel.status.text().endswith("; the model could not answer.")
    assert window.ask_panel.ask_button.isEnabled()
    qtbot.waitUntil(lambda: window.ask_panel.history.count() == 1, timeout=10000)
    # A question refused is about what it was about when asked again (shortened).
    window.ask_panel.set_within([2])
    window.ask_panel.question.setPlainText("?!")
    with qtbot.waitSignal(window.ask_panel.answerFailed, timeout=60000) as refused:
        window.ask_panel.ask()
    assert "the question has no words" in refused.args[0]
    assert window.ask_panel.within == [2] and window.ask_panel.about_row.isVisible()


def test_evidence_only_answers_say_so_and_load_no_model(qtbot, fixtures):
    from desktop.settings_dialog import SettingsDialog
    from engine.llm.settings import ModelSettings

    window = _window(qtbot)
    dialog = SettingsDialog(ModelSettings.load(), "", window)
    dialog.answers.setCurrentIndex(dialog.answers.findData("evidence"))
    assert dialog.changes() == []  # nothing to re-index
    window.apply_settings(dialog.settings())
    assert ModelSettings.load().answers == "evidence"
    assert SettingsDialog(ModelSettings.load(), "", window).answers.currentData() == "evidence"

    _import_and_index(qtbot, window, fixtures / "three-chapters.txt")
    panel = window.ask_panel
    panel.question.setText(QUESTION)
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as finished:
        panel.ask()
    result = finished.args[0]
    assert result["written"] is False and result["digest"] and not result["answer"]
    shown = panel.answer_view.toPlainText()
    assert "Evidence only" in shown and "Draft answer" not in shown
    assert re.fullmatch(r"Evidence in \d+ ms\.", panel.status.text())  # no model time to report
    assert window._sessions[window.book.book_id]._generator is None  # no model loaded to answer
    assert panel.ask_button.isEnabled()


def test_a_question_so_far_uses_only_what_the_reader_has_read(qtbot, fixtures, tmp_path):
    from dataclasses import replace

    from desktop.ask_panel import AskPanel
    from engine.llm.settings import ModelSettings

    window = _window(qtbot)
    window.apply_settings(replace(ModelSettings.load(), answers="evidence"))  # the evidence is what is checked
    _import_and_index(qtbot, window, fixtures / "three-chapters.txt")
    panel, reader = window.ask_panel, window.reader
    qtbot.waitUntil(lambda: reader.offset_read_to() > 0, timeout=10000)
    read_to = reader.offset_read_to()
    first = window.book.sections[0]
    assert read_to < first.end  # the first page of Chapter 1 is all that has been read
    qtbot.mouseClick(panel.so_far, Qt.MouseButton.LeftButton, pos=QPoint(8, panel.so_far.height() // 2))
    assert panel.so_far.isChecked()
    panel.question.setText(QUESTION)  # the hare is in Chapter 2
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as finished:
        panel.ask()
    result = finished.args[0]
    passages = [passage for part in result["parts"] for passage in part["passages"]]
    assert passages and all(passage["end"] <= read_to for passage in passages)
    assert all(line["end"] <= read_to for line in result["digest"])
    assert result["reading_limit"] == {"until": read_to, "section": 1, "label": first.display_name,
                                       "at_the_reader": False}
    assert f"From the book up to where you have read, in {first.display_name}" in panel.answer_view.toPlainText()
    assert panel.book_map.evidence <= {1} and panel.book_map.read_to == read_to
    # The choice is kept for next time; the history and its export say what the answer was limited to.
    assert AskPanel(window.tasks).so_far.isChecked()
    qtbot.waitUntil(lambda: panel.history.count() == 1, timeout=10000)
    assert panel.history.item(0).text() == f"[up to {first.label}] {QUESTION}"
    out = tmp_path / "questions.md"
    window.export_history_to(out)
    qtbot.waitUntil(out.exists, timeout=10000)
    assert f"from the book up to where the reader had read, in {first.display_name}" in out.read_text(encoding="utf-8")
    # Unticked, the whole book answers again.
    qtbot.mouseClick(panel.so_far, Qt.MouseButton.LeftButton, pos=QPoint(8, panel.so_far.height() // 2))
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as finished:
        panel.ask()
    whole = finished.args[0]
    assert whole["reading_limit"] is None and panel.book_map.read_to is None
    qtbot.waitUntil(lambda: panel.history.count() == 2, timeout=10000)
    assert panel.history.item(0).text() == QUESTION  # the newest first, about the whole book
    assert any(passage["end"] > read_to for part in whole["parts"] for passage in part["passages"])
    assert "where you have read" not in panel.answer_view.toPlainText()
    # Jumped ahead to Chapter 3 (nothing between is read): "What just happened?" is told from where the
    # reader is, and says so, beside the box's "up to Chapter 1" (it had said "where you have read"); the
    # history's export says it too.
    third = window.book.sections[2]
    reader.scroll_to_offset(third.body_start)
    qtbot.waitUntil(lambda: window.book.section_at(reader.reading_position()).ordinal == 3, timeout=10000)
    assert window.book.section_at(reader.read_to()).ordinal == 1 and panel.so_far.text().endswith(
        f"(up to {first.label})")
    panel.question.setText("What just happened?")
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as finished:
        panel.ask()
    recalled = finished.args[0]
    assert recalled["reading_limit"]["section"] == 3 and recalled["reading_limit"]["at_the_reader"]
    shown = panel.answer_view.toPlainText()
    assert f"From the book up to where you are, in {third.display_name}" in shown and "you have read" not in shown
    qtbot.waitUntil(lambda: panel.history.count() == 3, timeout=10000)
    window.export_history_to(out)
    qtbot.waitUntil(lambda: f"up to where the reader was, in {third.display_name}" in out.read_text(
        encoding="utf-8"), timeout=10000)


def test_what_i_have_read_is_how_far_the_reader_read_on(qtbot, fixtures):
    """Reading on page by page counts; a leap ahead (the contents, a citation)
    does not until the reader comes back; re-reading keeps the furthest point;
    the reader can set it by hand, and it is kept with the book."""
    from dataclasses import replace

    from engine.llm.settings import ModelSettings

    window = _window(qtbot)
    window.apply_settings(replace(ModelSettings.load(), answers="evidence"))
    book_id = _import_and_index(qtbot, window, fixtures / "three-chapters.txt")
    panel, reader = window.ask_panel, window.reader
    first, second, third = window.book.sections
    qtbot.waitUntil(lambda: reader.read_to() > 0, timeout=10000)
    start = reader.read_to()
    assert start == reader.offset_read_to() < first.end  # the first page, in front of the reader
    assert panel.so_far.text() == f"Only what I have read (up to {first.label})"
    assert panel.question.placeholderText() == f"Ask about {window.book.title.split(':')[0]}\u2026"

    window.show_section(third.ordinal)  # the contents: a leap over text never in view
    qtbot.waitUntil(lambda: reader.is_offset_visible(third.start), timeout=5000)
    qtbot.keyClick(reader, Qt.Key.Key_Down)  # reading on over there
    assert reader.offset_read_to() > second.end and reader.read_to() == start
    assert panel.so_far.text().endswith(f"(up to {first.label})")
    window.read_to_page_action.trigger()  # unless the reader says so (Book menu)
    assert reader.read_to() == reader.offset_read_to() and panel.so_far.text().endswith(f"(up to {third.label})")
    reader.mark_read_to(start)

    window.go_back()  # back where they were, then on a page at a time
    qtbot.waitUntil(lambda: reader.offset_at_top() < start, timeout=5000)
    while reader.read_to() < second.end:
        before = reader.read_to()
        qtbot.keyClick(reader, Qt.Key.Key_PageDown)
        qtbot.waitUntil(lambda: reader.read_to() > before, timeout=5000)
    furthest = reader.read_to()
    assert panel.so_far.text().endswith(f"(up to {window.book.section_at(furthest - 1).label})")
    reader.scroll_to_offset(0)  # re-reading the beginning keeps the furthest point
    qtbot.waitUntil(lambda: reader.offset_at_top() == 0, timeout=5000)
    assert reader.read_to() == furthest

    qtbot.mouseClick(panel.so_far, Qt.MouseButton.LeftButton, pos=QPoint(8, panel.so_far.height() // 2))
    panel.question.setText(QUESTION)  # the hare is in Chapter 2, read now though not in view
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as finished:
        panel.ask()
    result = finished.args[0]
    passages = [passage for part in result["parts"] for passage in part["passages"]]
    assert all(passage["end"] <= furthest for passage in passages)
    assert any(passage["section"] == second.ordinal for passage in passages)
    assert result["reading_limit"]["until"] == furthest

    # By hand, from the text's menu: back to the first paragraph of Chapter 1 in view.
    point = next(QPoint(40, y) for y in range(0, reader.viewport().height(), 10)
                 if reader.paragraph_end_at(QPoint(40, y)) > first.body_start)
    marked = reader.paragraph_end_at(point)
    menu = reader.context_menu(point)
    [mark] = [action for action in menu.actions() if action.text() == "I Have Read Up to Here"]
    mark.trigger()
    assert marked < first.end and reader.read_to() == marked
    assert panel.so_far.text().endswith(f"(up to {first.label})")
    # The library says how much of each book has been read.
    window.show_library()
    share = f"{max(1, round(marked / len(window.book.text) * 100))}%"
    qtbot.waitUntil(lambda: window.library_view.table.item(window.library_view._rows[book_id], 4).text() == share,
                    timeout=10000)
    window.close()

    restarted = _window(qtbot)
    with qtbot.waitSignal(restarted.bookOpened, timeout=20000):
        restarted.open_book(book_id)
    qtbot.waitUntil(lambda: restarted.ask_panel.so_far.text().endswith(f"(up to {first.label})"), timeout=5000)
    qtbot.wait(200)  # the page laid out again reads nothing on
    assert restarted.reader.read_to() == marked
    restarted.close()


def test_saving_settings_while_the_model_writes_summaries_stops_it_cleanly(qtbot, fixtures, monkeypatch):
    """Saving settings lets go of the loaded models while stage 2 is in the
    middle of a generation: the job stops at its next checkpoint (freeing
    llama.cpp's memory under it used to crash the app) and indexing resumes.
    A change to how answers are given stops nothing."""
    from dataclasses import replace

    from engine.llm.settings import ModelSettings

    window = _window(qtbot, index_stage=2)
    stages, ends, messages = [], [], []
    window.indexing.progressed.connect(lambda book_id, p: stages.append(p.stage))
    window.indexing.finished.connect(lambda book_id, stage, cancelled: ends.append((stage, cancelled)))
    window.statusBar().messageChanged.connect(messages.append)
    _drop(window, fixtures / "three-chapters.txt")
    qtbot.waitUntil(lambda: 2 in stages, timeout=120000)
    qtbot.wait(1500)  # into the first summary's generation
    window.apply_settings(replace(ModelSettings.load(), answers="evidence"))
    assert window.statusBar().currentMessage() == "Settings saved."
    qtbot.wait(1000)
    assert ends == [] and window.indexing.current is not None  # still writing summaries
    window.apply_settings(replace(ModelSettings.load(), threads=2))
    qtbot.waitUntil(lambda: (2, False) in ends, timeout=300000)
    assert (1, True) in ends, ends  # stopped mid-stage 2, then resumed
    assert not [message for message in messages if "next time" in message]  # it went on at once
    qtbot.waitUntil(lambda: window.library_view.table.item(0, 3).text() == "stage 2 of 4", timeout=10000)

    # A restart that fails says why, and a later stop says again that indexing resumes next time.
    from engine.errors import ChapterhouseError

    def unreadable(context):
        raise ChapterhouseError("library: unreadable")

    monkeypatch.setattr(window, "_read_library", unreadable)
    window.apply_settings(replace(ModelSettings.load(), threads=1))
    qtbot.waitUntil(lambda: window.banner.isVisible(), timeout=10000)
    assert window.banner.label.text() == "library: unreadable"
    book_id = window.library.list_books()[0].book_id
    window._index_finished(book_id, 2, True)  # as when the reader stops indexing
    assert "resumes where it stopped next time" in window.statusBar().currentMessage()


def test_reading_position_and_font_size_survive_a_restart(qtbot, fixtures):
    window = _window(qtbot)
    book_id = _import_and_index(qtbot, window, fixtures / "three-chapters.txt")
    third = window.book.sections[-1].start
    window.reader.scroll_to_offset(third)
    window.reader.set_point_size(window.reader.point_size + 4)
    size = window.reader.point_size
    window.close()

    restarted = _window(qtbot)
    with qtbot.waitSignal(restarted.bookOpened, timeout=20000):
        restarted.open_book(book_id)
    qtbot.waitUntil(lambda: restarted.reader.is_offset_visible(third), timeout=5000)
    assert abs(restarted.reader.point_size - size) < 0.01
    restarted.close()


def test_find_in_book_counts_highlights_and_steps_through_matches(qtbot, fixtures):
    window = _window(qtbot, index_stage=0)
    with qtbot.waitSignal(window.bookOpened, timeout=20000):
        _drop(window, fixtures / "three-chapters.txt")
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    bar = window.find_bar
    assert bar.isVisible() and bar.field.hasFocus()
    qtbot.keyClicks(bar.field, "hare")
    expected = window.reader.toPlainText().lower().count("hare")
    assert expected >= 2
    assert bar.count.text() == f"1 of {expected}"
    assert len(window.reader.extraSelections()) == expected
    first = window.reader.textCursor().selectionStart()
    qtbot.keyClick(bar.field, Qt.Key.Key_Return)
    assert bar.count.text() == f"2 of {expected}"
    assert window.reader.textCursor().selectionStart() > first
    qtbot.keyClick(bar.field, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert bar.count.text() == f"1 of {expected}"
    assert window.reader.textCursor().selectionStart() == first
    qtbot.keyClick(bar.field, Qt.Key.Key_Escape)
    assert not bar.isVisible() and window.reader.extraSelections() == []


def test_a_question_is_answered_while_the_book_keeps_indexing(qtbot, fixtures):
    """The urgent lane answers while the background lane's LLM indexing waits,
    then indexing carries on by itself; the window never stalls."""
    window = _window(qtbot, index_stage=2)
    stalls = StallMeter()
    stalls.start()
    with qtbot.waitSignal(window.indexing.stageReached, timeout=120000):
        _drop(window, fixtures / "three-chapters.txt")
    qtbot.waitUntil(lambda: window.book is not None, timeout=20000)
    assert window.indexing.busy()  # now writing section summaries with the model
    panel = window.ask_panel
    panel.budget = 4
    panel.question.setText(QUESTION)
    paused_during_answer = []
    panel.relay.digest.connect(lambda _ticket, _payload: paused_during_answer.append(window.indexing.cancel.paused))
    with qtbot.waitSignal(panel.answerFinished, timeout=300000) as finished:
        panel.ask()
    assert not finished.args[0]["cancelled"] and finished.args[0]["tokens"]["generated"] > 0
    assert paused_during_answer == [True]
    with qtbot.waitSignal(window.indexing.finished, timeout=600000) as indexed:
        pass
    assert indexed.args[1:] == [2, False]
    longest = stalls.stop()
    assert longest < 100, f"the event loop stalled for {longest} ms"


def test_a_book_just_dropped_answers_by_its_words_before_its_vectors_are_made(qtbot, monkeypatch):
    """A question on a new book waits seconds for its words, not a minute for
    its vectors: the evidence comes while stage 1 goes on (paused meanwhile),
    and says how it was found."""
    from dataclasses import replace

    from engine.index import indexer as indexer_module
    from engine.llm.settings import ModelSettings
    from engine.paths import sample_book_path

    words_cut = threading.Event()  # the cutting waits until the question has been asked
    real_cut = indexer_module.fixed_passages
    monkeypatch.setattr(indexer_module, "fixed_passages",
                        lambda *args: (words_cut.wait(30), real_cut(*args))[1])
    window = _window(qtbot, index_stage=1)
    window.apply_settings(replace(ModelSettings.load(), answers="evidence"))
    searchable, finished, paused = [], [], []
    window.indexing.searchable.connect(searchable.append)
    window.indexing.finished.connect(lambda *args: finished.append(args))
    _drop(window, sample_book_path())
    qtbot.waitUntil(lambda: window.book is not None and window.indexing.current is not None, timeout=60000)
    book_id = window.book.book_id
    panel = window.ask_panel
    panel.question.setText("What does Scrooge see in the knocker of his door?")

    def note_pause(_ticket, _payload):
        paused.append(window.indexing.cancel.paused)

    panel.relay.digest.connect(note_pause)
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as answered:
        panel.ask()
        qtbot.waitUntil(lambda: panel.status.text() == "Making the book searchable first\u2026", timeout=10000)
        assert not searchable and not window.indexing.cancel.paused  # the words are being cut
        words_cut.set()
    panel.relay.digest.disconnect(note_pause)
    result = answered.args[0]
    assert searchable == [book_id] and not finished, "the answer waited for the vectors"
    assert paused == [True]  # the rest of stage 1 waits for the answer
    assert result["meaning_share"] == 0.0 and result["digest"] and result["parts"][0]["passages"]
    assert re.fullmatch(r"Evidence in \d+ ms by words only \(the book is still being indexed\)\.", panel.status.text())
    def index_text():
        return window.library_view.table.item(window.library_view._rows[book_id], 3).text()

    qtbot.waitUntil(lambda: index_text().startswith(
        "searchable by its words; indexing stage 1 of 4: passages"), timeout=10000)  # resumed after the answer
    # Stopped there, the library still says it can be searched, as it will after a restart.
    window._stop_current_indexing()
    qtbot.waitUntil(lambda: bool(finished), timeout=20000)
    assert finished == [(book_id, 0, True)]
    assert index_text() == "searchable by its words (stage 1 unfinished)"
    assert [searchable for summary, stage, searchable in window._read_library(None)
            if summary.book_id == book_id] == [True]
    with qtbot.waitSignal(window.indexing.finished, timeout=300000) as indexed:
        window.indexing.enqueue(book_id)
    assert indexed.args == [book_id, 1, False]
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as answered:
        panel.ask()
    assert answered.args[0]["meaning_share"] == 1.0
    assert re.fullmatch(r"Evidence in \d+ ms\.", panel.status.text())


def test_books_waiting_to_be_indexed_say_so_and_each_gets_its_turn(qtbot, fixtures):
    library = Library()
    first = library.import_book(fixtures / "three-chapters.txt").book_id
    second = library.import_book(fixtures / "black-beauty-excerpt.txt").book_id
    create_application()
    window = MainWindow(library, index_stage=1)
    qtbot.addWidget(window)
    window.show()
    finished = []
    window.indexing.finished.connect(lambda book_id, stage, cancelled: finished.append((book_id, stage, cancelled)))
    window.start()

    def label(book_id):
        row = window.library_view._rows.get(book_id)
        return window.library_view.table.item(row, 3).text() if row is not None else ""

    qtbot.waitUntil(lambda: window.indexing.current is not None, timeout=10000)
    waiting = second if window.indexing.current == first else first
    qtbot.waitUntil(lambda: label(waiting) == "not indexed; waiting its turn", timeout=10000)
    qtbot.waitUntil(lambda: len(finished) == 2, timeout=120000)
    assert sorted(finished) == sorted([(first, 1, False), (second, 1, False)])
    assert label(first) == label(second) == "searchable (stage 1 of 4)"
    window.close()


def test_a_book_indexed_before_sentence_vectors_gets_them_at_start(qtbot, fixtures):
    """A finished index made before stage 1 kept sentence vectors is queued
    once more when the app starts, and keeps its stage meanwhile."""
    from engine.index.indexer import BookIndexer, lacks_sentence_vectors

    library = Library()
    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    indexer = BookIndexer(library, book_id)
    indexer.run(up_to=1)
    with indexer.store.transaction() as connection:
        connection.execute("DELETE FROM index_sentences")
    indexer.close()
    assert lacks_sentence_vectors(library, book_id)
    create_application()
    window = MainWindow(library, index_stage=1)
    qtbot.addWidget(window)
    window.show()
    shown = []
    # Connected after the window's own slot: reads the cell it has just set.
    window.indexing.progressed.connect(
        lambda *_: shown.append(window.library_view.table.item(window.library_view._rows[book_id], 3).text()))
    with qtbot.waitSignal(window.indexing.finished, timeout=120000) as finished:
        window.start()
    assert finished.args == [book_id, 1, False]
    assert not lacks_sentence_vectors(library, book_id)
    assert any(text.startswith("updating its vectors") for text in shown), shown
    window.close()


def test_a_book_another_process_is_indexing_waits_for_it_then_goes_on(qtbot, fixtures):
    """The `chapterhouse index` command holds a book's lock: the library says
    so (no error), the book stays cancellable, and the app indexes it once
    the lock is free, without being asked again."""
    from filelock import FileLock

    library = Library()
    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    other_process = FileLock(library.folder(book_id) / "indexing.lock")
    other_process.acquire()
    create_application()
    window = MainWindow(library, index_stage=1)
    qtbot.addWidget(window)
    window.indexing.busy_retry_ms = 300
    window.show()
    failures, waits = [], []
    window.indexing.failed.connect(lambda *args: failures.append(args))
    window.indexing.waiting.connect(lambda *args: waits.append(args))
    window.start()
    qtbot.waitUntil(lambda: len(waits) >= 2, timeout=60000)  # tried again, still held
    row = window.library_view._rows[book_id]
    assert window.library_view.table.item(row, 3).text() == "not indexed; waiting for another Chapterhouse process"
    assert "indexing goes on here when it stops" in window.library_view.table.item(row, 3).toolTip()
    assert book_id in window.indexing.active() and not window.banner.isVisible() and failures == []
    with qtbot.waitSignal(window.indexing.finished, timeout=120000) as finished:
        other_process.release()
    assert finished.args == [book_id, 1, False] and failures == []
    assert window.library_view.table.item(row, 3).text() == "searchable (stage 1 of 4)"
    window.close()


def test_every_queued_book_becomes_searchable_before_any_gets_the_llm_stages(qtbot, fixtures):
    library = Library()
    books = [library.import_book(fixtures / name).book_id for name in ("three-chapters.txt",
                                                                      "black-beauty-excerpt.txt")]
    create_application()
    window = MainWindow(library, index_stage=2)
    qtbot.addWidget(window)
    window.show()
    events = []
    window.indexing.stageReached.connect(lambda book_id, stage: events.append((book_id, "reached", stage)))
    window.indexing.progressed.connect(lambda book_id, p: events.append((book_id, "working", p.stage)))
    window.start()
    qtbot.waitUntil(lambda: all((b, "reached", 1) in events for b in books), timeout=120000)
    qtbot.waitUntil(lambda: any(kind == "working" and stage == 2 for _, kind, stage in events), timeout=60000)
    window.indexing.cancel_all()
    second_searchable = max(events.index((b, "reached", 1)) for b in books)
    first_llm_work = next(i for i, (_, kind, stage) in enumerate(events) if kind == "working" and stage == 2)
    assert second_searchable < first_llm_work
    qtbot.waitUntil(lambda: not window.indexing.busy(), timeout=30000)
    window.close()


def test_opening_another_book_mid_answer_drops_the_old_answer(qtbot, fixtures):
    library = Library()
    first = library.import_book(fixtures / "three-chapters.txt").book_id
    second = library.import_book(fixtures / "black-beauty-excerpt.txt").book_id
    window = _window(qtbot)
    qtbot.waitUntil(lambda: not window.indexing.busy() and not window.indexing.queue, timeout=120000)
    with qtbot.waitSignal(window.bookOpened, timeout=20000):
        window.open_book(first)
    panel = window.ask_panel
    _ask_until_the_digest(qtbot, panel)
    with qtbot.waitSignal(panel.answerEnded, timeout=30000):
        with qtbot.waitSignal(window.bookOpened, timeout=20000):
            window.open_book(second)
    assert window.book.book_id == second
    # The old answer is gone: the new book's questions to start with stand in its place.
    assert panel.result is None and panel.answer_view.toPlainText().startswith("Questions to start with")
    assert "Evidence" not in panel.answer_view.toPlainText()
    assert panel.evidence.topLevelItemCount() == 0 and panel.history.count() == 0
    assert panel.ask_button.isEnabled() and not panel.busy()
    journal = library.journal(first)
    try:
        assert journal.entries() == []  # the abandoned answer is not recorded
    finally:
        journal.close()


def test_a_book_is_written_into_its_page_on_the_ui_thread_by_slices(qtbot, fixtures, tmp_path, monkeypatch):
    """Opening a book makes no Qt object in a worker: one made there must be
    moved to the UI thread, and `moveToThread` from a worker holding the GIL
    deadlocked (seen once in the suite) against the UI thread deleting a
    widget. The document is written here instead, a slice per turn of the
    event loop, so a long book keeps the window responsive."""
    from PySide6.QtCore import QObject

    from desktop import reader_view
    from engine.paths import resources_dir

    moved, writers, interrupt = [], [], {}
    real_move, real_write = QObject.moveToThread, reader_view.DocumentBuilder.write
    monkeypatch.setattr(QObject, "moveToThread", lambda obj, thread: (moved.append(obj), real_move(obj, thread))[1])

    def write(builder, seconds=None):
        writers.append(threading.current_thread() is threading.main_thread())
        if interrupt.pop(builder.book.book_id, None):  # another book asked for while this one is being written
            window.open_book(other)
        return real_write(builder, seconds)

    monkeypatch.setattr(reader_view.DocumentBuilder, "write", write)
    sample = (resources_dir() / "sample" / "a-christmas-carol.txt").read_text(encoding="utf-8")
    long_book = tmp_path / "six-carols.txt"
    long_book.write_text("\n\n".join([sample] * 6), encoding="utf-8")
    library = Library()
    book_id = library.import_book(long_book).book_id
    window = _window(qtbot)
    stalls = StallMeter()
    stalls.start()
    with qtbot.waitSignal(window.bookOpened, timeout=20000):
        window.open_book(book_id)
    longest = stalls.stop()
    assert len(writers) > 1 and all(writers)  # by slices, all on the UI thread
    assert moved == []
    document = window.reader.document()
    assert document.thread() is window.thread() and document.blockCount() == len(window.book.paragraphs)
    assert longest < 100, f"the window stalled {longest} ms while the book was written"
    # A second book asked for while the first is being written wins.
    other = library.import_book(fixtures / "three-chapters.txt").book_id
    opened = []
    window.bookOpened.connect(opened.append)
    interrupt[book_id] = True
    window.open_book(book_id)
    qtbot.waitUntil(lambda: bool(opened), timeout=20000)
    qtbot.wait(200)
    assert not interrupt and opened == [other] and window.book.book_id == other


def test_a_jump_into_a_long_book_just_opened_never_stalls(qtbot, tmp_path):
    """Opening a long book at a saved place near its end, or following a
    citation there at once, must not lay the whole book out in one go (about
    a quarter of a second for a million characters): the jump waits for the
    layout, which goes by slices."""
    from desktop.reader_view import ReaderView, build_document
    from engine.importer import parse_book
    from engine.paths import resources_dir

    sample = (resources_dir() / "sample" / "a-christmas-carol.txt").read_text(encoding="utf-8")
    long_book = tmp_path / "ten-carols.txt"
    long_book.write_text("\n\n".join([sample] * 10), encoding="utf-8")
    book = parse_book(long_book)
    assert len(book.text) > 900_000
    document, offsets = build_document(book)
    create_application()
    view = ReaderView()
    qtbot.addWidget(view)
    view.resize(900, 700)
    view.show()
    qtbot.waitExposed(view)
    stalls = StallMeter()
    stalls.start()
    view.show_book(document, offsets)
    target = book.paragraphs[len(book.paragraphs) * 9 // 10].start
    with qtbot.waitSignal(view.positionChanged, timeout=10000):
        view.scroll_to_offset(target)
        assert view.reading_position() == target  # on its way
    longest = stalls.stop()
    assert view.is_offset_visible(target)
    assert view.offset_at_top() == target
    assert longest < 100, f"the event loop stalled for {longest} ms"


def test_the_open_book_is_indexed_next(qtbot, fixtures):
    from engine.index.indexer import BookIndexer

    library = Library()
    books = [library.import_book(fixtures / name).book_id
             for name in ("three-chapters.txt", "black-beauty-excerpt.txt", "call-of-the-wild-excerpt.html")]
    for book_id in books:
        indexer = BookIndexer(library, book_id)
        indexer.run(up_to=1)
        indexer.close()
    create_application()
    window = MainWindow(library, index_stage=2)
    qtbot.addWidget(window)
    window.show()
    window.start()
    qtbot.waitUntil(lambda: window.indexing.current is not None, timeout=20000)
    running, (waiting, opened) = window.indexing.current, window.indexing.queue
    assert {running, waiting, opened} == set(books)
    with qtbot.waitSignal(window.bookOpened, timeout=20000):
        window.open_book(opened)
    assert window.indexing.current == running  # not stopped for it
    assert window.indexing.queue == [opened, waiting]
    window.indexing.cancel_all()
    qtbot.waitUntil(lambda: not window.indexing.busy(), timeout=30000)
    window.close()


def test_a_book_removed_while_it_opens_is_dropped_without_a_message(qtbot, fixtures, monkeypatch):
    """Removed while it loads, and while the library listing read at start
    is on its way: no error, and the stale listing neither shows the book
    again nor queues it for indexing."""
    library = Library()
    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    window = _window(qtbot)
    removed = threading.Event()
    load = window.library.load

    def load_after_the_removal(wanted):
        removed.wait(60)
        return load(wanted)  # the folder is gone by now

    monkeypatch.setattr(window.library, "load", load_after_the_removal)
    rows_shown, queued = [], []
    window.libraryChanged.connect(lambda: rows_shown.append(window.library_view.table.rowCount()))
    window.indexing.queued.connect(lambda queued_id, _stage: queued.append(queued_id))
    window.open_book(book_id)
    window.remove_book(book_id)  # before the start's listing reaches the window
    qtbot.waitUntil(lambda: window.library.list_books() == [], timeout=120000)
    removed.set()
    qtbot.waitUntil(lambda: not window.tasks.busy() and not window.indexing.busy(), timeout=10000)
    qtbot.wait(100)  # the failed load's signal, if any, has been delivered
    assert not window.banner.isVisible(), window.banner.label.text()
    assert window.book is None and window.pages.currentIndex() == 0
    assert book_id not in queued
    assert rows_shown and not any(rows_shown)
    window.close()


def test_a_capable_models_answer_streams_above_the_evidence(qtbot, fixtures, monkeypatch):
    """With a model of 1B parameters or more the answer leads, from its first
    word: the page never shows it as a small model's draft under the digest."""
    from engine.llm import generator as generator_module

    monkeypatch.setattr(generator_module, "SMALL_MODEL_PARAMETERS", 0)  # the 135M stands in for a 3-4B model
    window = _window(qtbot)
    _import_and_index(qtbot, window, fixtures / "three-chapters.txt")
    panel = window.ask_panel
    pages = []
    panel.answer_view.textChanged.connect(lambda: pages.append(panel.answer_view.toPlainText().splitlines()))
    panel.question.setText(QUESTION)
    with qtbot.waitSignal(panel.answerFinished, timeout=240000) as finished:
        panel.ask()
    result = finished.args[0]
    assert result["lead"] == "answer"
    both = [lines for lines in pages if "Answer" in lines and "Evidence" in lines]
    assert both, "the answer never streamed beside the evidence"
    assert all(lines.index("Answer") < lines.index("Evidence") for lines in both)
    assert not any(line.startswith("Draft answer") for lines in pages for line in lines)
    # A follow-up to it carries that answer to the model, and the page says so.
    assert result["answer"]
    panel.question.setText("What did he do then?")
    assert panel.about.text() == f"Following on from \u201c{QUESTION}\u201d"
    with qtbot.waitSignal(panel.answerEnded, timeout=240000):
        panel.ask()
        qtbot.waitUntil(lambda: "and its answer: taken as" in panel.answer_view.toPlainText(), timeout=120000)
        panel.stop()
    follows = panel.result["follows"] if panel.result else None
    assert follows is not None and follows["question"] == QUESTION
    assert follows["answer"].split()[:3] == result["answer"].split()[:3]
    # Asked again from the history, it carries that answer again.
    qtbot.waitUntil(lambda: panel.history.count() == 2, timeout=10000)
    with qtbot.waitSignal(panel.answerEnded, timeout=240000):
        panel.ask_again(panel.history.item(0))
        qtbot.waitUntil(lambda: "and its answer: taken as" in panel.answer_view.toPlainText(), timeout=120000)
        panel.stop()
    assert panel.result["follows"]["answer"] == follows["answer"]
    window.close()


def test_the_library_is_worked_from_the_keyboard(qtbot, fixtures, monkeypatch):
    """Ctrl+F on the library filters it (in the book, finds in the book);
    Down or Enter goes from the filter to the books, Enter opens one, Delete
    asks to remove it, Esc clears the filter."""
    from PySide6.QtWidgets import QMessageBox

    library = Library()
    for name in ("black-beauty-excerpt.txt", "three-chapters.txt", "call-of-the-wild-excerpt.html"):
        library.import_book(fixtures / name)
    window = _window(qtbot, index_stage=0)
    view = window.library_view
    qtbot.waitUntil(lambda: len(view._rows) == 3, timeout=10000)
    assert window.find_action.text() == "&Find in Library"
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert view.filter.hasFocus()
    qtbot.keyClicks(view.filter, "call")
    qtbot.keyClick(view.filter, Qt.Key.Key_Down)
    assert view.table.hasFocus() and view.title_of(view.selected_book()) == "The Call of the Wild"
    with qtbot.waitSignal(window.bookOpened, timeout=20000):
        qtbot.keyClick(view.table, Qt.Key.Key_Return)
    assert window.book.title == "The Call of the Wild" and window.pages.currentIndex() == 1
    assert window.find_action.text() == "&Find in Book"
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert window.find_bar.isVisible() and window.find_bar.field.hasFocus()
    window.find_bar.close_bar()

    window.show_library()
    window.find_in_book()
    assert view.filter.hasFocus() and view.filter.selectedText() == "call"
    qtbot.keyClick(view.filter, Qt.Key.Key_Escape)
    assert view.filter.text() == "" and not any(view.table.isRowHidden(row) for row in range(3))
    qtbot.keyClicks(view.filter, "sewell")
    view.table.clearSelection()
    qtbot.keyClick(view.filter, Qt.Key.Key_Return)
    assert view.title_of(view.selected_book()) == "Black Beauty" and view.table.hasFocus()
    qtbot.keyClick(view.table, Qt.Key.Key_Escape)  # the filter's keys act in the filter only
    assert view.filter.text() == "sewell"
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *args: asked.append(args[2]) or QMessageBox.StandardButton.No)
    qtbot.keyClick(view.table, Qt.Key.Key_Delete)
    assert asked == ["Remove \u201cBlack Beauty\u201d from the library, with its index and its history of questions? "
                     "The original file is not touched."]
    assert len(library.list_books()) == 3  # answered No: nothing removed
    # A book's right-click menu does what its buttons do, and shows its folder.
    from PySide6.QtGui import QDesktopServices

    view.filter.clear()
    call = next(book.book_id for book in library.list_books() if book.title == "The Call of the Wild")
    menu = view.row_menu(call)
    assert view.selected_book() == call
    assert [action.text() for action in menu.actions() if action.text()] == [
        "Open", "Index now", "Repair\u2026", "Remove\u2026", "Show in File Manager"]
    # (Index now is off as its button is: this window indexes no stage at all.)
    assert [action.isEnabled() for action in menu.actions() if action.text()] == [True, False, True, True, True]
    opened_urls = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened_urls.append(url.toLocalFile()) or True)
    next(action for action in menu.actions() if action.text() == "Show in File Manager").trigger()
    assert opened_urls == [str(library.folder(call))]
    next(action for action in menu.actions() if action.text() == "Remove\u2026").trigger()
    assert asked[-1].startswith("Remove \u201cThe Call of the Wild\u201d")
    menu.deleteLater()
    view.select(next(book.book_id for book in library.list_books() if book.title == "Black Beauty"))
    # A double click opens a book too.
    place = view.table.visualItemRect(view._items[view.selected_book()][0]).center()
    with qtbot.waitSignal(window.bookOpened, timeout=20000):
        qtbot.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=place)  # as a real double click begins
        qtbot.mouseDClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=place)
    assert window.book.title == "Black Beauty"


def test_a_question_about_a_passage_selected_in_the_reader(qtbot, fixtures, monkeypatch):
    """Select text, right-click, Ask About the Selection: the next question is
    about it (its passage leads the evidence) and the history says so."""
    from PySide6.QtGui import QTextCursor

    window = _window_on_a_searchable_book(qtbot, fixtures)
    reader, panel = window.reader, window.ask_panel
    text = window.book.text
    start = text.index("Her name was Duchess")
    end = start + len("Her name was Duchess")
    assert not window.ask_about_action.isEnabled()
    cursor = reader.document_span(start, end)
    reader.setTextCursor(cursor)
    assert window.ask_about_action.isEnabled() and reader.selected_span() == (start, end)
    point = reader.cursorRect(cursor).center()
    menu = reader.context_menu(point)
    ask_about = next(action for action in menu.actions() if action.text().startswith("Ask About the Selection"))
    assert ask_about.text() == "Ask About the Selection\tCtrl+Shift+K"  # with the window's shortcut shown
    ask_about.trigger()
    menu.deleteLater()
    assert panel.about_row.isVisible() and panel.focus == (start, end)
    assert panel.about.text() == "About the passage in Chapter 1: My Early Home: \u201cHer name was Duchess\u201d"
    assert panel.question.hasFocus()
    panel.question.setText("Why was she called that?")
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as finished:
        panel.ask()
    assert not panel.about_row.isVisible() and panel.focus is None  # the next question is about the book again
    result = finished.args[0]
    assert result["focus"]["start"] == start and result["focus"]["text"] == "Her name was Duchess"
    first = [passage for part in result["parts"] for passage in part["passages"]]
    assert any(passage["start"] <= start and end <= passage["end"] for passage in first)
    assert "About the passage in Chapter 1: My Early Home" in panel.answer_view.toPlainText()
    qtbot.waitUntil(lambda: panel.history.count() == 1, timeout=10000)
    assert panel.history.item(0).text() == "[about \u201cHer name was Duchess\u201d] Why was she called that?"
    # The answer, or one from the history, copies as Markdown with its evidence, as the export has it.
    for menu in (panel.answer_menu(QPoint(5, 5)), panel.history_menu(panel.history.item(0))):
        QApplication.clipboard().clear()
        copy = next(action for action in menu.actions() if action.text().startswith("Copy") and "Markdown" in
                    action.text())
        assert copy.isEnabled()
        copy.trigger()
        menu.deleteLater()
        copied = QApplication.clipboard().text()
        assert copied.startswith("## Why was she called that?\n")
        assert "about the passage in Chapter 1: My Early Home: \u201cHer name was Duchess\u201d" in copied
        assert "**Evidence**" in copied and result["digest"][0]["passage_id"] in copied
    # The evidence marks the passage holding the selection.
    marked = [panel.evidence.topLevelItem(i).child(j) for i in range(panel.evidence.topLevelItemCount())
              for j in range(panel.evidence.topLevelItem(i).childCount())
              if "(selected) " in panel.evidence.topLevelItem(i).child(j).text(0)]
    assert len(marked) == 1 and marked[0].data(0, SPAN_ROLE)[0] <= start < end <= marked[0].data(0, SPAN_ROLE)[1]
    # A passage of the evidence can be asked about, or copied, from its right-click menu.
    passage_item = panel.evidence.topLevelItem(0).child(0)
    span = passage_item.data(0, SPAN_ROLE)
    menu = panel.evidence_menu(passage_item)
    assert [action.text() for action in menu.actions()] == ["Show in the Book", "Ask About This Passage",
                                                           "Find Related Passages", "Copy the Passage"]
    menu.actions()[3].trigger()
    assert QApplication.clipboard().text() == text[span[0]:span[1]]
    menu.actions()[1].trigger()
    menu.deleteLater()
    assert panel.focus == span and panel.about_row.isVisible()
    panel.clear_focus()
    assert [action.text() for action in panel.evidence_menu(panel.evidence.topLevelItem(0)).actions()] == [
        "Show in the Book"]  # a section's heading
    # Asked again from the history, it is about the same passage.
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as again:
        panel.ask_again(panel.history.item(0))
    assert again.args[0]["focus"] == result["focus"]
    # Nothing selected, nothing to ask about.
    reader.moveCursor(QTextCursor.MoveOperation.Start)
    assert reader.selected_span() is None and not window.ask_about_action.isEnabled()
    # The menu's Find looks for the words selected through the book; so does Ctrl+F with them selected.
    reader.setTextCursor(reader.document_span(start, end))
    menu = reader.context_menu(point)
    next(action for action in menu.actions() if action.text() == "Find \u201cHer name was Duchess\u201d in the Book"
         ).trigger()
    menu.deleteLater()
    assert window.find_bar.isVisible() and window.find_bar.field.text() == "Her name was Duchess"
    assert window.find_bar.count.text() == f"1 of {text.count('Her name was Duchess')}"
    window.find_bar.close_bar()
    other = text.index("hare")
    reader.setTextCursor(reader.document_span(other, other + 4))
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert window.find_bar.field.text() == "hare" and window.find_bar.field.hasFocus()
    window.find_bar.close_bar()
    # A word selected is looked up: the dictionary's senses, the book's lines with the word for evidence.
    # A name is not a word to look up.
    duchess = text.index("Duchess")
    reader.setTextCursor(reader.document_span(duchess, duchess + len("Duchess")))
    menu = reader.context_menu(point)
    assert not [action for action in menu.actions() if action.text().startswith("Look Up")]
    menu.deleteLater()
    reader.setTextCursor(reader.document_span(other, other + 4))
    menu = reader.context_menu(point)
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as looked_up:
        next(action for action in menu.actions() if action.text() == "Look Up \u201chare\u201d").trigger()
    menu.deleteLater()
    assert looked_up.args[0]["question"] == "What does \u201chare\u201d mean?" and looked_up.args[0]["focus"] is None
    assert looked_up.args[0]["stated"].startswith("The dictionary (GCIDE, grown from Webster's of 1913) gives "
                                                  "\u201chare\u201d as:\n1. (noun)")
    assert looked_up.args[0]["digest"] and all("hare" in line["text"] for line in looked_up.args[0]["digest"])
    assert panel.status.text().startswith("Answered from the GCIDE dictionary in")
    page = panel.answer_view.toPlainText()  # a sense a line
    assert "as:\n1. (noun)" in page and "\n2. (" in page
    # "What does this mean?" about a word selected asks the same.
    panel.set_focus(other, other + 4)
    panel.question.setText("What does this mean?")
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as this_word:
        panel.ask()
    assert this_word.args[0]["stated"] == looked_up.args[0]["stated"] and this_word.args[0]["focus"] is None


def test_a_selection_maps_back_to_the_books_text_across_wide_characters(tmp_path):
    """Qt counts a character outside the Basic Multilingual Plane as two
    positions; a selection after one must still name the book's own span."""
    from desktop.reader_view import build_document
    from engine.importer import parse_book

    path = tmp_path / "wide.txt"
    path.write_text("A Title\n\nCHAPTER I\n\nThe \U0001d504 sign and \U0001f600 then Duchess ran.\n"
                    "A second line of the same paragraph.\n\nAnother paragraph with Duchess.\n", encoding="utf-8")
    book = parse_book(path)
    create_application()
    _document, offsets = build_document(book)
    for paragraph in book.paragraphs:
        for offset in range(paragraph.start, paragraph.end + 1):
            assert offsets.to_text(offsets.to_document(offset)) == offset
    assert "\U0001f600" in book.text  # the wide characters are there to be counted


def test_a_book_listed_as_damaged_by_its_index_still_opens_to_be_read(qtbot, fixtures):
    """Its index spoilt, its text whole: Open reads it, and a question says
    what is wrong, with Repair beside the message."""
    from engine.index.indexer import BookIndexer
    from engine.llm.settings import ModelSettings

    ModelSettings(answers="evidence").save()
    library = Library()
    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    BookIndexer(library, book_id).run(up_to=1)
    with sqlite3.connect(library.folder(book_id) / "book.sqlite") as connection:
        connection.execute("UPDATE index_manifest SET value = '{\"key' WHERE key = 'embedder'")
    connection.close()
    window = _window(qtbot)
    view = window.library_view
    qtbot.waitUntil(lambda: book_id in view._rows, timeout=10000)
    assert view.table.item(view._rows[book_id], 3).text() == "damaged: repair it"
    view.select(book_id)
    assert view.open_button.isEnabled()
    with qtbot.waitSignal(window.bookOpened, timeout=20000):
        qtbot.mouseClick(view.open_button, Qt.MouseButton.LeftButton)
    assert "Her name was Duchess" in window.reader.toPlainText()
    window.ask_panel.question.setText("Who is Duchess?")
    with qtbot.waitSignal(window.ask_panel.answerFailed, timeout=20000):
        window.ask_panel.ask()
    qtbot.waitUntil(window.banner.isVisible, timeout=5000)
    assert "index manifest entry embedder cannot be read" in window.banner.label.text()
    assert window.banner.action.isVisible() and window.banner.action.text() == "Repair\u2026"


def _ask(qtbot, panel, question: str) -> dict:
    panel.question.clear()
    QTest.keyClicks(panel.question, question)
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as finished:
        panel.ask()
    return finished.args[0]


def test_a_book_opened_offers_questions_to_start_with_and_a_click_asks_one(qtbot, fixtures):
    window = _window_on_a_searchable_book(qtbot, fixtures)
    panel = window.ask_panel
    # The reader has not begun: the first chapter is the one asked about, and how long the book takes to read.
    assert panel.answer_view.toPlainText().split("\n") == [
        "Questions to start with; or ask your own above.", "Who are the main characters?", "Who tells the story?",
        "What happens in Chapter 1?", "When is the story set?", "How long will it take me to read?"]
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as finished:
        panel.follow_link("starter:2")
    assert finished.args[0]["question"] == "What happens in Chapter 1?" == panel.question.text()
    assert finished.args[0]["within"]["sections"] == [1] and finished.args[0]["digest"]
    assert "Questions to start with" not in panel.answer_view.toPlainText()
    # Offered while nothing is shown only: an answer on screen is not covered by them.
    panel.show_starters(window.book.book_id, ["Who tells the story?"])
    assert "Questions to start with" not in panel.answer_view.toPlainText()
    # The main characters: each name a link asking who they are.
    people = _ask(qtbot, panel, "Who are the main characters?")
    names = [part["text"] for part in people["parts"]]
    assert people["overview"] == "people" and names
    assert all(f'href="who:{index}"' in panel.answer_view.toHtml() for index in range(len(names)))
    assert "Click a name to ask who they are." in panel.answer_view.toPlainText()
    assert panel.link_preview("who:0") == f"Click to ask who {names[0]} is"
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as asked:
        panel.follow_link("who:0")
    assert asked.args[0]["question"] == f"Who is {names[0]}?" and asked.args[0]["digest"]
    # Who tells it: said in one line, from the book's telling, no model.
    told = _ask(qtbot, panel, "Who tells the story?")
    assert told["overview"] == "first person" and " is told in the first person, by one of its people" in told["answer"]
    assert told["answer"] in panel.answer_view.toPlainText()
    assert panel.status.text().startswith("Answered from the book's telling in ")


def test_a_follow_up_question_is_taken_as_following_the_answer_shown(qtbot, fixtures):
    window = _window_on_a_searchable_book(qtbot, fixtures)
    panel = window.ask_panel
    window.follow_up_action.trigger()  # nothing to follow yet: said, and nothing changes
    assert window.statusBar().currentMessage() == "A follow-up follows the answer shown: ask a question first."
    assert panel.after is None and not panel.about_row.isVisible()
    panel.question.setFocus()
    _ask(qtbot, panel, "Who is Duchess?")
    assert not panel.about_row.isVisible()  # the question answered is not taken as following itself
    qtbot.waitUntil(lambda: panel.history.count() == 1, timeout=10000)
    # A question that names nobody its pronouns could mean follows on from the answer shown, as the line says.
    panel.question.clear()
    QTest.keyClicks(panel.question, "What does she tell him?")
    assert panel.about_row.isVisible() and panel.about.text() == "Following on from \u201cWho is Duchess?\u201d"
    assert panel.about_clear.toolTip() == "Ask it on its own"
    result = _ask(qtbot, panel, "What does she tell him?")
    assert result["follows"] == {"question": "Who is Duchess?", "taken_as": "What does she (Duchess) tell him?"}
    assert result["plan"]["question"] == "What does she (Duchess) tell him?"
    assert ("Following on from \u201cWho is Duchess?\u201d: taken as \u201cWhat does she (Duchess) tell him?\u201d"
            in panel.answer_view.toPlainText())
    qtbot.waitUntil(lambda: panel.history.count() == 2, timeout=10000)
    assert panel.history.item(0).text() == "[after \u201cWho is Duchess?\u201d] What does she tell him?"
    # The question it followed is a link to its answer.
    earlier = f"earlier:{panel.history.item(1).data(ENTRY_ROLE)}"
    assert f'href="{earlier}"' in panel.answer_view.toHtml()
    assert panel.link_preview(earlier) == "Click to see its answer again"
    panel.follow_link(earlier)
    assert panel.result["question"] == "Who is Duchess?" and panel.question.text() == "Who is Duchess?"
    panel.show_result(result)
    # The line's \u00d7 asks it on its own; a name of its own needs no line.
    panel.question.clear()
    QTest.keyClicks(panel.question, "Why does she say so?")
    assert panel.about.text() == "Following on from \u201cWhat does she tell him?\u201d"
    panel.about_clear.click()
    assert not panel.about_row.isVisible()
    QTest.keyClicks(panel.question, " ")
    assert not panel.about_row.isVisible()  # stays dismissed while the question is typed
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as alone:
        panel.ask()
    assert alone.args[0]["follows"] is None
    panel.question.clear()
    QTest.keyClicks(panel.question, "What does Duchess tell him?")
    assert not panel.about_row.isVisible()
    # Chosen from the history's menu: a follow-up to that question, pronoun or not.
    qtbot.waitUntil(lambda: panel.history.count() == 3, timeout=10000)
    first = panel.history.item(2)
    menu = panel.history_menu(first)
    assert [action.text() for action in menu.actions() if action.text()] == [
        "Show the Answer", "Ask Again", "Ask a Follow-up", "Copy as Markdown", "Delete from History"]
    next(action for action in menu.actions() if action.text() == "Ask a Follow-up").trigger()
    menu.deleteLater()
    assert panel.about_row.isVisible() and panel.about.text() == "Following on from \u201cWho is Duchess?\u201d"
    assert panel.question.hasFocus() and panel.question.placeholderText() == "Ask a follow-up\u2026"
    chosen = _ask(qtbot, panel, "And at the end?")
    assert chosen["follows"]["taken_as"] == "And at the end (Duchess)?" and not panel.about_row.isVisible()
    # Asked again from the history, a follow-up follows the same question.
    qtbot.waitUntil(lambda: panel.history.count() == 4, timeout=10000)
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as again:
        panel.ask_again(panel.history.item(2))
    assert again.args[0]["follows"] == result["follows"]
    # Book › Ask a Follow-up (Ctrl+J) follows the answer shown.
    window.follow_up_action.trigger()
    assert panel.after is not None and panel.about.text() == "Following on from \u201cWhat does she tell him?\u201d"
    assert panel.question.hasFocus()
    panel.clear_focus()
    # The answer's own menu offers it too; a chapter picked afterwards is what the question is about.
    menu = panel.answer_menu(QPoint(5, 5))
    follow = next(action for action in menu.actions() if action.text() == "Ask a Follow-up")
    assert follow.isEnabled()
    follow.trigger()
    menu.deleteLater()
    assert panel.after is not None
    panel.set_within([2])
    assert panel.after is None and panel.about.text().startswith("About Chapter 2")
    # A follow-up refused is still a follow-up when asked again, and the answer it follows stays on the screen.
    panel.show_result(result)
    panel.follow_up(result)
    panel.question.setPlainText("?!")
    with qtbot.waitSignal(panel.answerFailed, timeout=60000) as refused:
        panel.ask()
    assert "the question has no words" in refused.args[0] and panel.status.text() == refused.args[0]
    assert panel.result is result and panel.question.text() == "?!"
    assert panel.answer_view.toPlainText().startswith("What does she tell him?\nFollowing on from")
    assert panel.evidence.topLevelItemCount() > 0
    assert panel.after is not None and panel.about.text() == "Following on from \u201cWhat does she tell him?\u201d"
    window.close()


def test_related_passages_are_found_for_a_selection(qtbot, fixtures):
    window = _window_on_a_searchable_book(qtbot, fixtures)
    reader, panel = window.reader, window.ask_panel
    start = window.book.text.index("perhaps the hare will get off")
    end = start + len("perhaps the hare will get off")
    assert not window.related_action.isEnabled()
    cursor = reader.document_span(start, end)
    reader.setTextCursor(cursor)
    assert window.related_action.isEnabled()
    menu = reader.context_menu(reader.cursorRect(cursor).center())
    related = next(action for action in menu.actions() if action.text().startswith("Find Related Passages"))
    assert related.text() == "Find Related Passages\tCtrl+Shift+R"  # with the window's shortcut shown
    menu.deleteLater()
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as finished:
        related.trigger()
    result = finished.args[0]
    assert result["related"] and result["question"] == "Where else does the book tell of this?"
    assert result["focus"]["text"] == "perhaps the hare will get off" and not result["written"]
    passages = [passage for part in result["parts"] for passage in part["passages"]]
    assert passages and all(passage["end"] <= start or passage["start"] >= end for passage in passages)
    shown = panel.answer_view.toPlainText()
    assert "Passages elsewhere in the book that tell of it" in shown and "Evidence only" not in shown
    assert "About the passage in Chapter 2" in shown and panel.status.text().startswith("Evidence in ")
    qtbot.waitUntil(lambda: panel.history.count() == 1, timeout=10000)
    assert panel.history.item(0).text() == ("[about \u201cperhaps the hare will get off\u201d] Where else does the "
                                            "book tell of this?")
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as again:
        panel.ask_again(panel.history.item(0))
    assert again.args[0]["related"] and again.args[0]["focus"] == result["focus"]
    # One search at a time: while an answer is written, the action says so and asks nothing.
    shown, panel.cancel = panel.result, CancelToken()
    window.related_action.trigger()
    assert window.statusBar().currentMessage().startswith("An answer is being written: find related passages once")
    assert panel.result is shown
    panel.cancel = None
    # A passage of the evidence finds its own related passages from its right-click menu.
    passage_item = panel.evidence.topLevelItem(0).child(0)
    span = passage_item.data(0, SPAN_ROLE)
    menu = panel.evidence_menu(passage_item)
    related = next(action for action in menu.actions() if action.text() == "Find Related Passages")
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as onward:
        related.trigger()
    menu.deleteLater()
    assert onward.args[0]["related"] and (onward.args[0]["focus"]["start"], onward.args[0]["focus"]["end"]) == span
    # A selection that holds the whole book leaves nothing elsewhere, and says so.
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as everything:
        panel.find_related(0, len(window.book.text))
    assert not [passage for part in everything.args[0]["parts"] for passage in part["passages"]]
    assert "Nothing elsewhere in the book was found to tell of it." in panel.answer_view.toPlainText()
    window.close()


def test_a_question_about_chapters_picked_in_the_contents(qtbot, fixtures):
    from desktop.contents_view import ORDINAL_ROLE

    window = _window_on_a_searchable_book(qtbot, fixtures)
    panel, contents = window.ask_panel, window.contents
    name = window.book.sections[1].display_name
    menu = contents.section_menu(contents.section_item(2))
    assert [action.text() for action in menu.actions()] == ["Go to", "Ask About Chapter 2 Only"]
    menu.actions()[1].trigger()
    menu.deleteLater()
    assert panel.about_row.isVisible() and panel.about.text() == f"About {name} only" and panel.within == [2]
    assert panel.question.hasFocus()
    panel.question.setText("What happens here?")
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as finished:
        panel.ask()
    result = finished.args[0]
    assert result["within"] == {"sections": [2], "label": name, "short": "Chapter 2"} and panel.within is None
    assert {passage["section"] for part in result["parts"] for passage in part["passages"]} == {2}
    # Nothing asked of it in particular: the chapter in outline, not a search on "happens".
    assert result["overview"] == "outline"
    assert (f"About {name} only, as a whole: the evidence is its passages spread from start to end."
            in panel.answer_view.toPlainText())
    qtbot.waitUntil(lambda: panel.history.count() == 1, timeout=10000)
    assert panel.history.item(0).text() == "[in Chapter 2] What happens here?"
    # Its tooltip: when it was asked, and the evidence's first line (answers are left to the evidence here).
    tip = panel.history.item(0).toolTip()
    assert re.fullmatch(r"Asked \d\d \w{3} \d{4}, \d\d:\d\d\n\n.+", tip, re.DOTALL)
    assert tip.split("\n\n")[1] == shown_text(quoted(result["digest"][0]["text"]), 400)
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as again:
        panel.ask_again(panel.history.item(0))
    assert again.args[0]["within"] == result["within"]
    # Several chapters, picked with Ctrl-clicks that do not leave the page being read.
    reader_at = window.reader.verticalScrollBar().value()
    for ordinal in (2, 3):
        item = contents.section_item(ordinal)
        QTest.mouseClick(contents.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier,
                         contents.visualItemRect(item).center())
    assert window.reader.verticalScrollBar().value() == reader_at
    menu = contents.section_menu(contents.section_item(3))
    assert [action.text() for action in menu.actions()] == ["Go to", "Ask About Chapter 2 and Chapter 3 Only"]
    menu.actions()[1].trigger()
    menu.deleteLater()
    assert panel.within == [2, 3] and panel.about.text() == "About Chapter 2 and Chapter 3 only"

    def picked() -> set[int]:
        return {item.data(0, ORDINAL_ROLE) for item in contents.selectedItems()}
    assert picked() == {2, 3}
    window.reader.scroll_to_offset(window.book.sections[0].start)  # reading on leaves them picked
    qtbot.wait(100)
    assert picked() == {2, 3}
    panel.question.setText("What happens here?")
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as finished:
        panel.ask()
    both = finished.args[0]
    # Asked, the next question is about the whole book again: the contents no longer show the two picked, and
    # follow the reader again (they had stayed picked, and the contents still, as if the scope held).
    assert picked() == {1}
    window.reader.scroll_to_offset(window.book.sections[2].start)
    qtbot.waitUntil(lambda: picked() == {3}, timeout=5000)
    # Picked again from the history's menu or the panel, they show picked again; put aside, they do not.
    panel.set_within([1, 2])
    assert picked() == {1, 2}
    panel.clear_focus()
    assert picked() == {3}
    assert both["within"] == {"sections": [2, 3], "label": "Chapter 2 and Chapter 3",
                              "short": "Chapter 2 and Chapter 3"}
    assert {passage["section"] for part in both["parts"] for passage in part["passages"]} == {2, 3}
    qtbot.waitUntil(lambda: panel.history.count() == 3, timeout=10000)
    assert panel.history.item(0).text() == "[in Chapter 2 and Chapter 3] What happens here?"
    # F8 and Shift+F8 step through the evidence in the book, in book order, going round at the ends.
    spans = sorted({(passage["start"], passage["end"]) for part in both["parts"] for passage in part["passages"]})
    shown = []
    panel.passageActivated.connect(lambda start, end: shown.append((start, end)))
    for _ in range(len(spans) + 1):
        window.next_evidence_action.trigger()
    assert shown == spans + spans[:1]
    qtbot.waitUntil(lambda: window.reader.is_offset_visible(spans[0][0]), timeout=10000)
    window.previous_evidence_action.trigger()
    window.previous_evidence_action.trigger()
    assert shown[-2:] == [spans[-1], spans[-2]]
    panel.evidence.setCurrentItem(panel.evidence.topLevelItem(1))  # a section's heading: from its first passage
    window.next_evidence_action.trigger()
    assert shown[-1] == (panel.evidence.topLevelItem(1).child(0).data(0, SPAN_ROLE))
    # A chapter past where the reader is, with "Only what I have read" ticked:
    # said in one line, and the question stays about it for when the box is unticked.
    window.reader.verticalScrollBar().setValue(0)
    panel.so_far.setChecked(True)
    panel.set_within([3])
    panel.ask()
    assert not panel.busy() and panel.within == [3] and panel.about_row.isVisible()
    assert panel.status.text() == ("Chapter 3 lies past where you have read (up to Chapter 1): untick \u201cOnly "
                                   "what I have read\u201d to ask about it.")
    panel.so_far.setChecked(False)
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as unlimited:
        panel.ask()
    assert unlimited.args[0]["within"]["sections"] == [3]
    # A selection and a chapter do not add up: the last one chosen is what the question is about.
    panel.set_within([3])
    panel.set_focus(0, 20)
    assert panel.within is None and panel.focus == (0, 20)
    panel.clear_focus()
    # Typed, a question that names a chapter and asks nothing else of it is about that chapter alone.
    panel.question.setText("Summarize chapter 2")
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as typed:
        panel.ask()
    assert typed.args[0]["within"]["sections"] == [2] and typed.args[0]["overview"] == "outline"
    qtbot.waitUntil(lambda: panel.history.item(0).text() == "[in Chapter 2] Summarize chapter 2", timeout=10000)
    # Something in the chapter asked about: a search of it alone.
    panel.set_within([2])
    panel.question.setText("What did the old horse say about the hare?")
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as searched:
        panel.ask()
    assert searched.args[0]["within"]["sections"] == [2] and searched.args[0]["overview"] is None
    assert f"About {name} only: nothing else is searched." in panel.answer_view.toPlainText()
    # Named beside a subject of its own, the page says where the evidence comes from first.
    panel.question.setText("What did the old horse say about the hare in chapter 3?")
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as beside:
        panel.ask()
    assert beside.args[0]["within"] is None and beside.args[0]["named"]["sections"] == [3]
    assert ("The question names Chapter 3: half the evidence comes from it first, the rest from the whole book."
            in panel.answer_view.toPlainText())
    qtbot.waitUntil(lambda: panel.history.item(0).text().startswith("[naming Chapter 3] What did"), timeout=10000)
    # Past where the reader has read, it is said in one line, and the answer shown stays.
    panel.so_far.setChecked(True)
    with qtbot.waitSignal(panel.answerFailed, timeout=60000) as refused:
        panel.question.setText("What happens in chapter 3?")
        panel.ask()
    assert "Chapter 3" in refused.args[0] and "lies past the reading limit" in refused.args[0]
    assert panel.result["named"]["sections"] == [3]
    with qtbot.waitSignal(panel.answerFailed, timeout=60000) as unread_ending:
        panel.question.setText("How does the story end?")
        panel.ask()
    assert "its ending lies past the reading limit" in unread_ending.args[0]
    with qtbot.waitSignal(panel.answerFailed, timeout=60000) as no_such_chapter:
        panel.question.setText("What happens in chapter 9?")
        panel.ask()
    assert "there is no chapter 9 in this book, which runs from Chapter 1 to" in no_such_chapter.args[0]
    assert not window.banner.isHidden() and "no chapter 9" in window.banner.label.text()
    # About the whole book and nothing in it: the page says what its evidence is.
    panel.so_far.setChecked(False)
    # "This chapter": the one open in the reader (it had got the whole book in outline).
    window.reader.scroll_to_offset(window.book.sections[2].start + 10)
    panel.question.setText("Summarize this chapter")
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as this_chapter:
        panel.ask()
    assert this_chapter.args[0]["within"]["sections"] == [3] and this_chapter.args[0]["overview"] == "outline"
    assert window.banner.isHidden()  # why the question before was refused is gone with the next one
    # "So far" in the question: up to what the reader has read, as if "Only what I have read" were ticked.
    panel.question.setText("What has happened so far?")
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as so_far:
        panel.ask()
    read_to = window.reader.read_to()
    assert so_far.args[0]["reading_limit"]["until"] == read_to < window.book.sections[1].start
    shown = [passage for part in so_far.args[0]["parts"] for passage in part["passages"]]
    assert shown and all(passage["end"] <= read_to for passage in shown)
    panel.question.setText("How does the story end?")
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as whole:
        panel.ask()
    assert whole.args[0]["overview"] == "ending"
    assert ("A question about the whole book: its evidence is the book's last pages."
            in panel.answer_view.toPlainText())
    qtbot.waitUntil(lambda: panel.history.item(0).text() == "[whole book] How does the story end?", timeout=10000)
    # A name the book never uses is said to be missing, not answered with chance passages.
    panel.question.setText("Who is Gandalf?")
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as missing:
        panel.ask()
    assert missing.args[0]["absent"] == [{"name": "Gandalf", "closest": None, "alone": True}]
    assert "\u201cGandalf\u201d is not in this book: nothing in it says who that is." in panel.answer_view.toPlainText()
    assert "Evidence only" not in panel.answer_view.toPlainText()  # not the settings: nothing to answer from
    # A slip of the keyboard: the book's nearest name, a click away from asking again with it.
    panel.question.setText("What was Darkey called later?")
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as slip:
        panel.ask()
    assert slip.args[0]["absent"] == [{"name": "Darkey", "closest": "Darkie", "alone": False}]
    assert "(did you mean Darkie?) is not in this book" in panel.answer_view.toPlainText()
    assert 'href="respell:0"' in panel.answer_view.toHtml()
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as again:
        panel.follow_link("respell:0")
    assert again.args[0]["question"] == "What was Darkie called later?" and again.args[0]["absent"] == []
    # A slip in another word is read as the word meant, and the answer says so.
    panel.question.setText("Wat did the squire say about the horse?")
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as misspelt:
        panel.ask()
    assert misspelt.args[0]["read_as"] == [["Wat", "What"]]
    assert "Read \u201cWat\u201d as \u201cWhat\u201d." in panel.answer_view.toPlainText()
    # The book's own facts: its record is the answer (no model), over its title page, a click from the reader.
    panel.question.setText("Who wrote this book?")
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as record:
        panel.ask()
    stated = "Three Chapters from Black Beauty is by Anna Sewell."
    assert record.args[0]["stated"] == record.args[0]["answer"] == stated
    assert record.args[0]["parts"][0]["passages"] == []
    page = panel.answer_view.toPlainText()
    assert page.index("Answer") < page.index(stated) < page.index("Evidence") and "Evidence only" not in page
    assert panel.status.text().startswith("Answered from the book's record in")
    title_page = record.args[0]["digest"][0]
    assert title_page["label"] == "Title page" and title_page["end"] < window.book.sections[0].start
    assert panel.link_preview("quote:0") == "Title page (click to read it in the book)"
    panel.follow_link("quote:0")
    span = window.reader.document_span(title_page["start"], title_page["end"])
    qtbot.waitUntil(lambda: window.reader.highlighted_span() == (span.selectionStart(), span.selectionEnd()),
                    timeout=5000)
    qtbot.waitUntil(lambda: panel.history.item(0).text() == "[whole book] Who wrote this book?", timeout=10000)
    panel.question.setText("What is chapter 2 called?")
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as contents:
        panel.ask()
    assert contents.args[0]["answer"] == "Chapter 2 is called \u201cThe Hunt\u201d."
    assert [line["section"] for line in contents.args[0]["digest"]] == [2]
    assert contents.args[0]["within"]["sections"] == [2]
    assert ("About Chapter 2: The Hunt only, as a whole: the evidence is its heading as printed."
            in panel.answer_view.toPlainText())
    # "And chapter 3?" follows on from it, and is that question asked again of chapter 3.
    panel.question.setText("And chapter 3?")
    assert panel.follows() is not None and not panel.about_row.isHidden()
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as again_of:
        panel.ask()
    assert again_of.args[0]["answer"] == "Chapter 3 is called \u201cMy Breaking In\u201d."
    assert again_of.args[0]["follows"]["taken_as"] == "What is chapter 3 called?"
    # How much is left: counted from where the reader is.
    window.reader.scroll_to_offset(window.book.sections[2].start + 10)
    panel.question.setText("How much is left?")
    with qtbot.waitSignal(panel.answerFinished, timeout=60000) as left:
        panel.ask()
    assert left.args[0]["overview"] == "length"
    assert left.args[0]["answer"].startswith("From where you are in Chapter 3: My Breaking In, ")
    window.close()
