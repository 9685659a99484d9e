"""The main window: the library or the reader (contents beside the text) on
the left, the ask panel on the right, indexing progress in the status bar.

Every engine call runs as a task off the UI thread (urgent: opening a book,
answering; background: indexing; quick: the library list, the reading
position); the window only reacts to the signals that come back. Errors
appear in a banner at the top of the window, never as a crash.
"""

from __future__ import annotations

import html
import os
import sqlite3
import threading
from contextlib import suppress
from dataclasses import replace
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QEvent, QSettings, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QAction, QActionGroup, QDesktopServices, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine.answer.starters import starter_questions
from engine.book import Book
from engine.errors import BookDamagedError, ChapterhouseError, StorageError, damaged_book_id
from engine.formats import BOOK_SUFFIXES
from engine.store import Library

from .ask_panel import AskPanel
from .contents_view import ContentsView
from .find_bar import FindBar
from .indexing import IndexingManager
from .library_view import DAMAGED, LibraryView, describe_progress
from .reader_view import READING_COLOUR_NAMES, DocumentBuilder, ReaderView
from .tasks import QUICK, URGENT, TaskRunner

_FILE_FILTER = "Books (*.txt *.epub *.html *.htm *.zip);;All files (*)"
# Writing an opened book into its document, per turn of the event loop.
_WRITE_SLICE_SECONDS = 0.015
_LIBRARY_PAGE, _READER_PAGE = 0, 1
LAST_BOOK_KEY = "session/openBook"  # the book in the reader when the window closed ("" for none)
_PANE_KEYS = {True: "window/contentsShown", False: "window/askPanelShown"}  # by "is it the contents"


class ErrorBanner(QFrame):
    """A dismissable one-line message across the top of the window."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("errorBanner")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet(
            "#errorBanner { background: palette(base); border: 1px solid #c0392b; border-radius: 4px; }"
            "#errorBanner QLabel { color: #c0392b; }"
        )
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        close = QToolButton(self)
        close.setText("\u2715")
        close.setAutoRaise(True)
        close.setToolTip("Dismiss")
        close.clicked.connect(self.hide)
        # What can be done about it, where something can (a damaged book: Repair).
        self.action = QPushButton(self)
        self.action.clicked.connect(self._act)
        self._on_action: Callable[[], None] | None = None
        layout.addWidget(self.label, 1)
        layout.addWidget(self.action, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.action.hide()
        self.hide()

    def show_message(self, message: str, action: tuple[str, Callable[[], None]] | None = None) -> None:
        self.label.setText(message)
        self._on_action = action[1] if action else None
        self.action.setText(action[0] if action else "")
        self.action.setVisible(action is not None)
        self.show()

    def _act(self) -> None:
        act = self._on_action
        self.hide()
        if act is not None:
            act()


class MainWindow(QMainWindow):
    bookOpened = Signal(str)  # book id, once its text is on screen
    importFailed = Signal(str)
    libraryChanged = Signal()

    def __init__(self, library: Library | None = None, index_stage: int = 4, parent=None):
        super().__init__(parent)
        self.library = library or Library()
        self.tasks = TaskRunner(self)
        self.indexing = IndexingManager(self.library, self.tasks, target_stage=index_stage, parent=self)
        self.book: Book | None = None
        self._opening: str | None = None
        self.back_stack: list[int] = []
        self._sessions: dict[str, object] = {}
        self._sessions_lock = threading.Lock()  # workers make sessions: one per book
        self._sessions_epoch = 0  # bumped when sessions are dropped: one being prepared then is not kept
        self._statuses: dict[str, int] = {}
        self._indexing_stages: dict[str, int] = {}  # the stage each book's indexing last reported working on
        self._pause_when_searchable: str | None = None  # a question waits for this book's words
        self._titles: dict[str, str] = {}  # for progress lines, without a file read per event
        # Removed in this run: a listing read before the removal must not
        # show them again, nor queue them for indexing.
        self._removed: set[str] = set()
        self._restarting = False  # new settings stopped indexing, and it resumes as soon as they apply
        self._maximized_before_full_screen = False
        self.setWindowTitle("Chapterhouse")
        self.setAcceptDrops(True)
        self.resize(1400, 860)

        self.banner = ErrorBanner(self)
        self._banner_about_a_question = False
        self.library_view = LibraryView(self)
        self.contents = ContentsView(self)
        self.reader = ReaderView(self)
        self.find_bar = FindBar(self.reader, self)
        self.find_bar.hide()
        self.ask_panel = AskPanel(self.tasks, self)

        reading = QWidget(self)
        reading_layout = QVBoxLayout(reading)
        reading_layout.setContentsMargins(0, 0, 0, 0)
        reading_layout.setSpacing(0)
        reading_layout.addWidget(self.reader, 1)
        reading_layout.addWidget(self.find_bar)
        self.reader_splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.reader_splitter.addWidget(self.contents)
        self.reader_splitter.addWidget(reading)
        self.reader_splitter.setStretchFactor(1, 1)
        self.reader_splitter.setSizes([260, 760])
        self.pages = QStackedWidget(self)
        self.pages.addWidget(self.library_view)
        self.pages.addWidget(self.reader_splitter)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.pages)
        self.splitter.addWidget(self.ask_panel)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setSizes([1000, 400])

        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(6, 6, 6, 0)
        layout.setSpacing(6)
        layout.addWidget(self.banner)
        layout.addWidget(self.splitter, 1)
        self.setCentralWidget(central)

        self.index_label = QLabel(self)
        self.progress = QProgressBar(self)
        self.progress.setMaximumWidth(180)
        self.progress.setRange(0, 100)
        self.progress.hide()
        self.cancel_index = QToolButton(self)
        self.cancel_index.setText("Stop indexing")
        self.cancel_index.setAutoRaise(True)
        self.cancel_index.hide()
        self.cancel_index.clicked.connect(self._stop_current_indexing)
        self.statusBar().addPermanentWidget(self.index_label)
        self.statusBar().addPermanentWidget(self.progress)
        self.statusBar().addPermanentWidget(self.cancel_index)

        self.contents.sectionActivated.connect(self.reader.scroll_to_offset)
        self.reader.positionChanged.connect(self.contents.follow)
        self.reader.positionChanged.connect(lambda _offset: self._position_timer.start())
        self._position_timer = QTimer(self)
        self._position_timer.setSingleShot(True)
        self._position_timer.setInterval(800)
        self._position_timer.timeout.connect(self._save_position)
        self._writing = None  # (DocumentBuilder, (position, read to), history) of the book being opened
        self._write_timer = QTimer(self)
        self._write_timer.setInterval(0)
        self._write_timer.timeout.connect(self._write_slice)
        self.library_view.openRequested.connect(self.open_book)
        self.library_view.importRequested.connect(self.choose_file)
        self.library_view.removeRequested.connect(self.confirm_remove)
        self.library_view.repairRequested.connect(self.confirm_repair)
        self.library_view.cancelIndexingRequested.connect(self._cancel_indexing)
        self.library_view.indexRequested.connect(self.index_now)
        self.library_view.showFolderRequested.connect(self.show_book_folder)
        self.library_view.target_stage = index_stage
        self.ask_panel.passageActivated.connect(self.show_passage)
        self.ask_panel.citationActivated.connect(
            lambda start, end, sentence_start, sentence_end: self.show_passage(start, end,
                                                                               (sentence_start, sentence_end)))
        self.ask_panel.sectionActivated.connect(self.show_section)
        self.ask_panel.answerFinished.connect(self._answer_finished)
        self.ask_panel.answerStarted.connect(self._answer_started)
        self.ask_panel.answerEnded.connect(self._answer_ended)
        self.ask_panel.answerFailed.connect(self._question_failed)
        self.ask_panel.questionStarted.connect(self._load_answer_model)
        self.ask_panel.export_button.clicked.connect(self.export_history)
        self.ask_panel.historyDeleteRequested.connect(self.delete_history_entry)
        self.ask_panel.historyShown.connect(self.reload_history)
        self.reader.askAboutRequested.connect(self.ask_about)
        self.reader.relatedRequested.connect(self.find_related)
        self.reader.lookUpRequested.connect(self.ask_panel.look_up)
        self.contents.askAboutRequested.connect(self.ask_about_chapter)
        self.ask_panel.chaptersAskedAbout.connect(
            lambda ordinals: self.contents.show_asked_about(ordinals, self.reader.offset_at_top()))
        self.reader.findRequested.connect(self.find_words)
        self.ask_panel.session_provider = self._session_for
        self.ask_panel.read_to_provider = self.reader.read_to
        self.ask_panel.position_provider = self.reader.reading_position
        # Not on every scroll: reading how far the reader has read would note the
        # move there and then, in the scroll handler (ReaderView defers it a turn).
        self.reader.readToChanged.connect(lambda _offset: (self._show_read_to(), self._position_timer.start()))
        self.indexing.progressed.connect(self._index_progress)
        self.indexing.stageReached.connect(self._index_stage)
        self.indexing.searchable.connect(self._index_searchable)
        self.indexing.finished.connect(self._index_finished)
        self.indexing.failed.connect(self._index_failed)
        self.indexing.queued.connect(self._index_queued)
        self.indexing.waiting.connect(self._index_waiting)
        self._build_actions()
        self._restore_window_state()
        self.pages.currentChanged.connect(self._page_shown)
        self.pages.setCurrentIndex(_LIBRARY_PAGE)
        self._page_shown(_LIBRARY_PAGE)

    # ------------------------------------------------------------ actions

    def _build_actions(self) -> None:
        toolbar = self.addToolBar("Main")
        toolbar.setObjectName("mainToolbar")
        toolbar.setMovable(False)
        file_menu = self.menuBar().addMenu("&File")
        view_menu = self.menuBar().addMenu("&View")
        book_menu = self.menuBar().addMenu("&Book")

        def action(text, shortcut, slot, menu, tool=False, tip=None):
            item = QAction(text, self)
            if shortcut:
                item.setShortcut(shortcut)
            item.triggered.connect(slot)
            if tip:
                item.setToolTip(tip)
            menu.addAction(item)
            if tool:
                toolbar.addAction(item)
            return item

        self.library_action = action("&Library", QKeySequence("Ctrl+L"), self.show_library, view_menu, True,
                                     "The books you imported (Ctrl+L)")
        self.open_action = action("&Open Book\u2026", QKeySequence.StandardKey.Open, self.choose_file, file_menu, True,
                                  "Import and open a book file (Ctrl+O)")
        file_menu.addSeparator()
        self.export_action = action("&Export Questions as Markdown\u2026", QKeySequence("Ctrl+E"),
                                    self.export_history, file_menu)
        self.settings_action = action("&Settings\u2026", QKeySequence("Ctrl+,"), self.open_settings, file_menu, True,
                                      "Models and how they run")
        file_menu.addSeparator()
        action("&Quit", QKeySequence.StandardKey.Quit, self.close, file_menu)
        toolbar.addSeparator()
        self.back_action = action("\u2190 &Back", QKeySequence("Alt+Left"), self.go_back, book_menu, True,
                                  "Back to where you were before following a citation (Alt+Left)")
        self.back_action.setEnabled(False)
        self.find_action = action("&Find in Book", QKeySequence.StandardKey.Find, self.find_in_book, book_menu, True,
                                  "Find in the book (Ctrl+F)")
        self.ask_action = action("&Ask a Question", QKeySequence("Ctrl+K"), self.focus_question, book_menu, True,
                                 "Ask about this book (Ctrl+K)")
        self.ask_about_action = action("Ask About the &Selection", QKeySequence("Ctrl+Shift+K"),
                                       self.reader.ask_about_selection, book_menu)
        self.ask_about_action.setEnabled(False)
        self.reader.ask_about_keys = self.ask_about_action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        self.reader.copyAvailable.connect(self.ask_about_action.setEnabled)
        self.related_action = action("Find &Related Passages", QKeySequence("Ctrl+Shift+R"), self.reader.find_related,
                                     book_menu)
        self.related_action.setEnabled(False)
        self.reader.related_keys = self.related_action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        self.reader.copyAvailable.connect(self.related_action.setEnabled)
        self.follow_up_action = action("Ask a &Follow-up", QKeySequence("Ctrl+J"), self.ask_follow_up, book_menu)
        self.next_evidence_action = action("&Next Evidence Passage", QKeySequence("F8"),
                                           lambda: self.ask_panel.step_evidence(1), book_menu)
        self.previous_evidence_action = action("&Previous Evidence Passage", QKeySequence("Shift+F8"),
                                               lambda: self.ask_panel.step_evidence(-1), book_menu)
        self.stop_action = action("&Stop Answering", QKeySequence("Ctrl+."), self.ask_panel.stop, book_menu)
        book_menu.addSeparator()
        self.read_to_page_action = action("I Have &Read Up to This Page", None, self.read_up_to_this_page, book_menu)
        toolbar.addSeparator()
        smaller = action("&Smaller Text", QKeySequence.StandardKey.ZoomOut,
                         lambda: self.reader.set_point_size(self.reader.point_size - 1), view_menu, True,
                         "Smaller text (Ctrl+-)")
        larger = action("&Larger Text", QKeySequence.StandardKey.ZoomIn,
                        lambda: self.reader.set_point_size(self.reader.point_size + 1), view_menu, True,
                        "Larger text (Ctrl++)")
        smaller.setIconText("A\u2212")  # on the toolbar
        larger.setIconText("A+")
        view_menu.addSeparator()
        # Panes a reader can put away on a small screen (kept for the next start).
        self.contents_action = action("Show &Contents", QKeySequence("Ctrl+Shift+T"),
                                      lambda checked: self.show_pane(self.contents, checked), view_menu)
        self.ask_panel_action = action("Show the &Ask Panel", QKeySequence("Ctrl+Shift+A"),
                                       lambda checked: self.show_pane(self.ask_panel, checked), view_menu)
        for item in (self.contents_action, self.ask_panel_action):
            item.setCheckable(True)
            item.setChecked(True)
        self.full_screen_action = action("&Full Screen", QKeySequence.StandardKey.FullScreen, self.toggle_full_screen,
                                         view_menu)
        self.full_screen_action.setCheckable(True)
        help_menu = self.menuBar().addMenu("&Help")
        action("&Keyboard Shortcuts", QKeySequence.StandardKey.HelpContents, self.show_shortcuts, help_menu)
        action("&About Chapterhouse", None, self.show_about, help_menu)
        colours_menu = view_menu.addMenu("Reading &Colours")
        self.colour_actions = QActionGroup(self)
        for name, label in READING_COLOUR_NAMES.items():
            item = self.colour_actions.addAction(label)
            item.setCheckable(True)
            item.setData(name)
            item.triggered.connect(lambda _checked=False, name=name: self.set_reading_colours(name))
            colours_menu.addAction(item)

    def shortcuts(self) -> list[tuple[str, str]]:
        """Every key the window answers to, with what it does: the menus'
        shortcuts as they are set, then the keys that act inside a pane."""
        keys = [(item.shortcut().toString(QKeySequence.SequenceFormat.NativeText), item.text().replace("&", ""))
                for menu in self.menuBar().findChildren(QMenu) for item in menu.actions()
                if not item.shortcut().isEmpty()]
        keys = list(dict.fromkeys(keys))  # a submenu's actions are found twice
        return keys + [("Enter", "Ask (in the question box; Shift+Enter: a new line)"),
                       ("Up, Down", "The book's earlier questions (in an empty question box)"),
                       ("Esc", "Stop the answer (in the ask panel); close Find (in the find bar)"),
                       ("Enter, Shift+Enter", "Next and previous match (in the find bar)"),
                       ("Enter, Delete", "Open, remove the selected book (in the library)"),
                       ("Down, Esc", "To the books, clear the filter (in the library's filter)"),
                       ("Delete", "Delete the selected question (in the history)"),
                       ("Ctrl+click, Shift+click", "Pick several chapters to ask about together (in the contents; "
                                                   "then right-click)")]

    def show_shortcuts(self) -> None:
        rows = "".join(f"<tr><td><b>{html.escape(key)}</b>&nbsp;&nbsp;</td><td>{html.escape(what)}</td></tr>"
                       for key, what in self.shortcuts())
        QMessageBox.information(self, "Keyboard Shortcuts", f"<table>{rows}</table>")

    def show_about(self) -> None:
        from engine import __version__
        from engine.llm.catalogue import models_dir
        from engine.paths import config_dir

        places = [("Library", self.library.root), ("Downloaded models", models_dir()), ("Settings", config_dir())]
        QMessageBox.about(self, "About Chapterhouse", (
            f"<h3>Chapterhouse {html.escape(__version__)}</h3><p>An offline reading assistant: questions about a "
            "whole book, answered from its own passages, each claim citing them. Everything runs on this "
            "computer; nothing is sent anywhere.</p><p>"
            + "<br>".join(f"{name}: {html.escape(str(path))}" for name, path in places) + "</p>"))

    def set_reading_colours(self, name: str) -> None:
        self.reader.set_colours(name)
        for item in self.colour_actions.actions():
            item.setChecked(item.data() == self.reader.colours)
        QSettings().setValue("reader/colours", self.reader.colours)

    def choose_file(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Open books", str(Path.home()), _FILE_FILTER)
        self.import_files(paths)

    def show_library(self) -> None:
        self.pages.setCurrentIndex(_LIBRARY_PAGE)
        if self._position_timer.isActive():  # the list shows how far the open book has been read
            self._save_position_now()
        self.refresh_library()

    def find_in_book(self) -> None:
        """Ctrl+F: find in the open book (the words selected, if any), or on
        the library page, filter it."""
        if self.pages.currentIndex() == _LIBRARY_PAGE:
            self.library_view.find()
        elif self.book is not None:
            self.find_words(self.reader.selected_words())

    def find_words(self, words: str | None) -> None:
        if words:
            self.find_bar.field.setText(words)
        self.find_bar.open_bar()

    def _page_shown(self, page: int) -> None:
        on_library = page == _LIBRARY_PAGE
        self.find_action.setText("&Find in Library" if on_library else "&Find in Book")
        self.find_action.setToolTip("Filter the library by title or author (Ctrl+F)" if on_library else
                                    "Find in the book (Ctrl+F)")

    def show_pane(self, pane: QWidget, shown: bool) -> None:
        """Show or put away the contents or the ask panel."""
        pane.setVisible(shown)
        splitter, width = (self.reader_splitter, 260) if pane is self.contents else (self.splitter, 400)
        index = splitter.indexOf(pane)
        if shown and splitter.sizes()[index] == 0:
            # Dragged shut before it was put away: shown again, it gets its width back.
            sizes = splitter.sizes()
            other = 1 - index
            sizes[other], sizes[index] = max(sizes[other] - width, width), width
            splitter.setSizes(sizes)
        item = self.contents_action if pane is self.contents else self.ask_panel_action
        item.setChecked(shown)
        QSettings().setValue(_PANE_KEYS[item is self.contents_action], shown)

    def toggle_full_screen(self) -> None:
        if self.isFullScreen():
            self.showNormal()
            if self._maximized_before_full_screen:
                self.showMaximized()
        else:
            self._maximized_before_full_screen = self.isMaximized()
            self.showFullScreen()
        self.full_screen_action.setChecked(self.isFullScreen())

    def _bring_back_ask_panel(self) -> None:
        if not self.ask_panel.isVisible():  # asking brings the panel back
            self.show_pane(self.ask_panel, True)

    def focus_question(self) -> None:
        self._bring_back_ask_panel()
        self.ask_panel.question.setFocus()
        self.ask_panel.question.selectAll()

    def ask_follow_up(self) -> None:
        """The next question follows on from the answer shown, whatever its words."""
        shown = self.ask_panel.result
        if self.ask_panel.busy():
            self.statusBar().showMessage("A follow-up follows the answer being written: ask it once it has ended.",
                                         5000)
            return
        if self.book is None or not shown or not shown.get("question"):
            self.statusBar().showMessage("A follow-up follows the answer shown: ask a question first.", 5000)
            return
        self.ask_panel.follow_up(shown)
        self.focus_question()

    def find_related(self, start: int, end: int) -> None:
        """Passages elsewhere in the book that tell of a passage selected in the reader."""
        if self.ask_panel.busy():
            self.statusBar().showMessage("An answer is being written: find related passages once it has ended.", 5000)
            return
        self._bring_back_ask_panel()
        self.ask_panel.find_related(start, end)

    def ask_about(self, start: int, end: int) -> None:
        """The next question is about a passage selected in the reader."""
        self.ask_panel.set_focus(start, end)
        self.focus_question()

    def ask_about_chapter(self, ordinals: list[int]) -> None:
        """The next question is about some chapters of the contents."""
        self.ask_panel.set_within(ordinals)
        self.focus_question()

    # ------------------------------------------------------------ library

    def start(self) -> None:
        """Show the library and pick up indexing left unfinished last time."""
        def listed(books):
            self._restarting = False
            books = self._still_present(books)
            self._show_books(books)
            self.indexing.resume_unfinished({summary.book_id: stage for summary, stage, _ in books
                                             if stage != DAMAGED})
            ready = [summary.book_id for summary, stage, _ in books if stage >= max(1, self.indexing.target_stage)]
            if ready:
                self.tasks.submit(lambda context: self._lacking_sentence_vectors(ready), name="Checking the indexes",
                                  lane=QUICK, on_success=self.indexing.refresh, on_error=self._error)

        self.tasks.submit(self._read_library, name="Reading the library", lane=QUICK, on_success=listed,
                          on_error=self._start_failed)

    def _start_failed(self, message: str) -> None:
        self._restarting = False  # indexing did not go on: a stop says it resumes next time again
        self._error(message)

    def refresh_library(self) -> None:
        self.tasks.submit(self._read_library, name="Reading the library", lane=QUICK, on_success=self._show_books,
                          on_error=self._error)

    def _reading_progress(self, summaries) -> dict[str, float | None]:
        """How much of each book has been read (in a worker; a journal that
        cannot be read leaves its book's cell empty)."""
        shares = {}
        for summary in summaries:
            try:
                shares[summary.book_id] = self.library.reading_progress(summary)
            except (OSError, sqlite3.Error, StorageError, BookDamagedError):
                shares[summary.book_id] = None
        return shares

    def _lacking_sentence_vectors(self, book_ids: list[str]) -> list[str]:
        """Books indexed before stage 1 kept sentence vectors: one more run
        adds them, so the evidence digest takes milliseconds, not a second."""
        from engine.index.indexer import lacks_sentence_vectors

        return [book_id for book_id in book_ids if lacks_sentence_vectors(self.library, book_id)]

    def _read_library(self, context) -> list[tuple]:
        """Every book with the stage its index has reached and whether it can
        be searched (in a worker); a book that other models than the
        settings' built counts as at a lower stage
        (engine.index.indexer.stage_in_use), so it is indexed again."""
        from engine.index.indexer import is_searchable, stage_in_use
        from engine.llm.errors import ModelError
        from engine.llm.settings import ModelSettings

        try:
            settings = ModelSettings.load()
        except ModelError:
            settings = None  # unreadable settings are reported when a model is opened
        specs: dict = {}  # what the settings name, worked out once for all the books
        books = []
        for summary in self.library.list_books():
            try:
                stage = stage_in_use(self.library, summary.book_id, settings, specs)
            except BookDamagedError:
                books.append((summary, DAMAGED, False))  # one damaged book hides none of the others
                continue
            books.append((summary, stage, stage >= 1 or is_searchable(self.library, summary.book_id)))
        return books

    def _still_present(self, books) -> list[tuple]:
        return [entry for entry in books if entry[0].book_id not in self._removed]

    def _show_books(self, books) -> None:
        books = self._still_present(books)
        self._statuses = {summary.book_id: stage for summary, stage, _ in books}
        self._titles.update({summary.book_id: summary.title for summary, *_ in books})
        self.library_view.show_books(books)
        summaries = [summary for summary, *_ in books]
        self.tasks.submit(lambda context: self._reading_progress(summaries), name="Reading how far each book is read",
                          lane=QUICK, on_success=self.library_view.set_read, on_error=lambda _message: None)
        for book_id, state in self.indexing.states.items():
            if state.progress is not None:
                self.library_view.set_status(book_id, describe_progress(state.progress))
            elif book_id in self.indexing.waiting_for_others:
                self._show_waiting(book_id)
            elif state.error:
                self._show_failed(book_id)
        for book_id in self.indexing.queue:
            self._index_queued(book_id, self._statuses.get(book_id, 0))
        self.libraryChanged.emit()

    def import_file(self, path: str | Path) -> None:
        """Import a book file off the UI thread, open it and index it in the background."""
        self.import_files([path])

    def import_files(self, paths: list) -> None:
        """Book files dropped or picked together: imported one after another
        off the UI thread; the first that imports is opened, the others are
        listed and queued for indexing."""
        if paths:
            self.banner.hide()
            self._import_next([Path(path) for path in paths], opening=True)

    def _import_next(self, paths: list[Path], opening: bool) -> None:
        path, rest = paths[0], paths[1:]
        self.statusBar().showMessage(f"Importing {path.name}\u2026"
                                     + (f" ({len(rest)} more to come)" if rest else ""))

        def imported(result) -> None:
            self._imported(result, opening)
            if rest:
                self._import_next(rest, opening=False)

        def failed(message: str) -> None:
            self._import_error(message)
            if rest:  # the next one is opened in its place
                self._import_next(rest, opening)

        self.tasks.submit(lambda context: self.library.import_book(path), name=f"Importing {path.name}",
                          lane=URGENT, on_success=imported, on_error=failed)

    def _imported(self, result, opening: bool = True) -> None:
        self._removed.discard(result.book_id)  # imported again after a removal
        self._titles[result.book_id] = result.summary.title
        self.statusBar().showMessage(f"{'Imported' if result.created else 'Already in the library'}: "
                                     f"{result.summary.title}", 5000)
        if opening:
            self.open_book(result.book_id)
            self.indexing.enqueue(result.book_id, first=True, preempt=True)
        else:
            self.indexing.enqueue(result.book_id)
        self.refresh_library()

    def show_book_folder(self, book_id: str) -> None:
        """The book's folder (its original file, database and search files) in the file manager."""
        try:
            folder = self.library.folder(book_id)
        except ChapterhouseError as error:  # removed meanwhile (by the command line, say)
            self._error(str(error))
            return
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))

    def confirm_remove(self, book_id: str) -> None:
        # The title as listed: a damaged book's summary cannot be read again.
        title = self.library_view.title_of(book_id)
        answer = QMessageBox.question(self, "Remove book", f"Remove \u201c{title}\u201d from the library, with its "
                                      "index and its history of questions? The original file is not touched.")
        if answer == QMessageBox.StandardButton.Yes:
            self.remove_book(book_id)

    def confirm_repair(self, book_id: str) -> None:
        title = self.library_view.title_of(book_id)
        answer = QMessageBox.question(
            self, "Repair book", f"Make \u201c{title}\u201d again from the file it was imported from? Its questions "
            "and reading position are kept, as far as they can still be read; its index is built again from the "
            "start.")
        if answer == QMessageBox.StandardButton.Yes:
            self.repair_book(book_id)

    def repair_book(self, book_id: str) -> None:
        """Make a (damaged) book again from its original file, in a worker,
        keeping its journal; then index it again."""
        from engine.index.repair import repair_book

        session = self._let_go_of(book_id)
        self.statusBar().showMessage(f"Repairing {self.library_view.title_of(book_id)}\u2026")

        def repair(context):
            if session is not None:
                session.indexer.close()
            # Waits for an indexing job on the book to stop at its next checkpoint.
            return repair_book(self.library, book_id)

        def repaired(report) -> None:
            self._titles[book_id] = report.title
            self.statusBar().showMessage(f"{report.describe()}; indexing it again.", 15000)
            self.refresh_library()
            self.indexing.enqueue(book_id, first=True)
            self._update_active()

        self.tasks.submit(repair, name="Repairing the book", lane=URGENT, on_success=repaired, on_error=self._error)

    def _let_go_of(self, book_id: str):
        """Stop everything the window does with a book (its indexing, the
        reader and the questions on it) before it is removed or repaired;
        returns its answer session, to be closed in the worker."""
        self.indexing.cancel_book(book_id)
        if self._opening == book_id:
            self._opening = None
        if self.book is not None and self.book.book_id == book_id:
            self.ask_panel.stop()
            self.book = None
            self.ask_panel.set_book(None)
            self.show_library()
        self._sessions_epoch += 1
        return self._sessions.pop(book_id, None)

    def remove_book(self, book_id: str) -> None:
        from engine.index.indexer import builder_lock

        self._removed.add(book_id)
        session = self._let_go_of(book_id)
        lock = builder_lock(self.library.folder(book_id) / "index")

        def remove(context):
            # An indexing job on this book stops at its next checkpoint and
            # lets go of the book's builder lock; only then is it deleted.
            if not lock.acquire(timeout=120):
                raise RuntimeError("indexing did not stop")
            try:
                if session is not None:
                    session.indexer.close()
                self.library.remove(book_id)
            finally:
                lock.release()

        self.tasks.submit(remove, name="Removing the book", lane=QUICK, on_success=lambda _: self.refresh_library(),
                          on_error=self._error)

    # ------------------------------------------------------------ reading

    def open_book(self, book_id: str) -> None:
        """Load a stored book and lay it out off the UI thread, then show it."""
        self.statusBar().showMessage("Opening\u2026")
        # Only the latest request may show its book: an older load, or one for a
        # book removed meanwhile, is dropped when it arrives.
        self._opening = book_id

        def load(context):
            book = self.library.load(book_id)
            context.check()
            journal = self.library.journal(book_id)
            try:
                position = journal.get("position", 0)
                # A book read before the reading progress was kept: read up to where the reader stopped.
                read_to = journal.get("read_to", position or None)
                history = journal.entries()
            finally:
                journal.close()
            return book, (position, read_to), history  # where the reader is, how far they have read

        def failed(message: str) -> None:
            # A book removed, or another asked for, while this one loaded: nothing to say.
            if self._opening == book_id:
                self._error(message)

        self.tasks.submit(load, name="Opening the book", lane=URGENT, on_success=self._write_book, on_error=failed)

    def _write_book(self, loaded) -> None:
        """Lay the loaded book into a document here, by slices between events
        (Qt objects made in a worker have to change threads, which can deadlock)."""
        book, place, history = loaded
        if book.book_id != self._opening:
            return
        self._writing = (DocumentBuilder(book), place, history)
        self._write_timer.start()

    def _write_slice(self) -> None:
        builder, place, history = self._writing
        if builder.book.book_id != self._opening:  # another book was asked for meanwhile
            self._write_timer.stop()
            self._writing = None
            return
        if not builder.write(_WRITE_SLICE_SECONDS):
            return
        self._write_timer.stop()
        self._writing = None
        document, offsets = builder.result()
        self._show_book(builder.book, document, offsets, place, history)

    def _show_book(self, book, document, offsets, place, history) -> None:
        self._opening = None
        self.book = book
        self.back_stack.clear()
        self.back_action.setEnabled(False)
        self.contents.show_book(book)
        position, read_to = place
        self.reader.show_book(document, offsets, read_to)
        self.pages.setCurrentIndex(_READER_PAGE)
        self.ask_panel.set_book(book)
        self.ask_panel.show_history(history)
        if position:
            self.reader.scroll_to_offset(int(position))
        self._show_read_to()
        self.ask_panel.show_starters(book.book_id, starter_questions(book, self.reader.read_to()))
        self.indexing.prefer(book.book_id)
        self._prepare_answers(book.book_id)
        author = book.metadata.get("author")
        self.setWindowTitle(f"{book.title} \u2014 Chapterhouse")
        self.statusBar().showMessage(f"{book.title}{' by ' + author if author else ''} \u00b7 "
                                     f"{len(book.sections)} sections", 5000)
        self.bookOpened.emit(book.book_id)

    def read_up_to_this_page(self) -> None:
        """The reader says they have read up to the end of the page in view
        (after a leap ahead, say, or to take it back to here)."""
        if self.book is not None and self.reader.has_book():
            self.reader.mark_read_to(self.reader.offset_read_to())

    def _show_read_to(self) -> None:
        """Tell the ask panel where "what I have read" ends now."""
        if self.book is not None and self.reader.has_book():
            self.ask_panel.show_read_to(self.book.section_at(max(0, self.reader.read_to() - 1)))

    def _save_position_now(self) -> None:
        self._position_timer.stop()
        self._save_position()

    def _save_position(self) -> None:
        if self.book is None:
            return
        book_id, offset, read_to = self.book.book_id, self.reader.reading_position(), self.reader.read_to()

        def save(context):
            journal = self.library.journal(book_id)
            try:
                journal.set("position", offset)
                journal.set("read_to", read_to)
            finally:
                journal.close()

        self.tasks.submit(save, name="Saving the reading position", lane=QUICK, on_error=lambda _m: None)

    def show_passage(self, start: int, end: int, sentence: tuple[int, int] | None = None) -> None:
        """Follow a citation: remember where the reader was, then go and
        highlight (the sentence backing the claim too, where it is known)."""
        if self.book is None:
            return
        self.pages.setCurrentIndex(_READER_PAGE)
        self.back_stack.append(self.reader.reading_position())
        self.back_action.setEnabled(True)
        self.reader.show_passage(start, end, sentence)

    def show_section(self, ordinal: int) -> None:
        if self.book is None or not (1 <= ordinal <= len(self.book.sections)):
            return
        self.pages.setCurrentIndex(_READER_PAGE)
        self.back_stack.append(self.reader.reading_position())
        self.back_action.setEnabled(True)
        self.reader.scroll_to_offset(self.book.sections[ordinal - 1].start)

    def go_back(self) -> None:
        if not self.back_stack:
            return
        self.reader.clear_passage()
        self.reader.scroll_to_offset(self.back_stack.pop())
        self.back_action.setEnabled(bool(self.back_stack))

    # ------------------------------------------------------------ answering

    def _answer_started(self) -> None:
        """An answer goes before background indexing, except while the book
        being asked about is made searchable by its words (seconds): the
        question waits for that, then the rest of its indexing waits."""
        if self._banner_about_a_question:  # why the last question was refused: this one is another
            self.banner.hide()
            self._banner_about_a_question = False
        book_id = self.book.book_id if self.book else None
        if self.indexing.current == book_id and not self.indexing.is_searchable(book_id):
            self._pause_when_searchable = book_id
        else:
            self.indexing.pause()

    def _index_searchable(self, book_id: str) -> None:
        self.library_view.mark_searchable(book_id)
        if self._pause_when_searchable == book_id:
            self._pause_when_searchable = None
            if self.ask_panel.busy():
                self.indexing.pause()

    def _answer_ended(self) -> None:
        self._pause_when_searchable = None
        self.indexing.resume()

    def _session_for(self, book_id: str, cancel, notify):
        """A book's answering session (made in the worker, kept)."""
        from engine.answer.session import AnswerSession

        with self._sessions_lock:
            session = self._sessions.get(book_id)
            if session is None:
                session = AnswerSession(self.library, book_id)
                self._sessions[book_id] = session
            else:
                session.refresh()
        if not session.indexer.status()["searchable"]:
            notify("Making the book searchable first\u2026")
            if book_id in self.indexing.active():
                session.ensure_searchable(cancel=cancel)  # its indexing goes on to make the vectors
            else:
                session.ensure_indexed(cancel=cancel)  # nothing else would make them
        return session

    def _prepare_answers(self, book_id: str) -> None:
        """Load a searchable book's passages and search files now, in a worker,
        so its first question does not wait for them (a third of a second for
        Little Women), then what first questions of some kinds would wait for
        (`AnswerSession.prepare`). A book still being indexed loads them when asked;
        called again as each stage of the open book's index lands, the new index is
        loaded here, not by the next question (a quarter of a second)."""
        epoch = self._sessions_epoch

        def prepare(context):
            # Imported here, in the worker: the first import of the answering
            # modules (their patterns compiled) kept the UI thread 40-50 ms.
            from engine.answer.session import AnswerSession

            # The UI thread never takes the lock (loading takes a third of a
            # second): it drops sessions and bumps the epoch instead.
            with self._sessions_lock:
                if epoch != self._sessions_epoch:
                    return
                session = self._sessions.get(book_id)
                if session is not None:
                    session.refresh()  # a stage landed, or nothing did: then it keeps what it has
                else:
                    session = AnswerSession(self.library, book_id)
                    if epoch != self._sessions_epoch:
                        return
                    self._sessions[book_id] = session  # as a question would keep it
                if session.indexer.status()["stage_reached"] < 1:
                    return
                session.context  # the property loads them
            # Out of the lock: a question asked meanwhile need not wait for the rest.
            session.prepare()

        self.tasks.submit(prepare, name="Preparing the book's answers", lane=URGENT, on_error=lambda _message: None)

    def _load_answer_model(self) -> None:
        """The reader has begun typing a question: load the model that will
        write its answer now, not after Ask (about a second for the default,
        several for a 3-4B model read from disk), and have it read the start
        every answer on this book shares (1.5-4 s of the default's prompt
        pass). An Ask meanwhile takes over from where it got to."""
        if self.book is None:
            return
        book_id, until = self.book.book_id, self.ask_panel.reading_until()

        def load(context):
            with self._sessions_lock:  # a worker's lock: the book's session, made as it opened
                session = self._sessions.get(book_id)
            if session is not None:
                session.prepare_answer(until, cancel=context)  # nothing where answers are left to the evidence

        # A model that fails to load says so when the question needs it.
        self.tasks.submit(load, name="Loading the answer model", lane=URGENT, on_error=lambda _message: None)

    def _answer_finished(self, result: dict) -> None:
        if result.get("model_error"):  # the evidence is shown; why there is no answer goes on top
            self._show_failure(result["model_error"])
        self._change_history(lambda journal: journal.add(result), "Saving the answer",
                             "this answer is not kept in the history")

    def delete_history_entry(self, entry_id: int) -> None:
        self._change_history(lambda journal: journal.remove(entry_id), "Deleting from the history",
                             "the question stays in the history")

    def reload_history(self) -> None:
        """Read the open book's history again: `chapterhouse ask` adds to it
        while the app is open."""
        self._change_history(lambda journal: None, "Reading the history", "the history shown may be out of date")

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        # Back from a terminal, say: a history in view shows what was asked there.
        if event.type() == QEvent.Type.ActivationChange and self.isActiveWindow() and self.ask_panel.history_in_view():
            self.reload_history()

    def _change_history(self, change, name: str, refused: str) -> None:
        """Change the open book's history in a worker, then show it as stored
        (unless another book was opened meanwhile)."""
        if self.book is None:
            return
        book_id, title = self.book.book_id, self.book.title

        def write(context):
            journal = self.library.journal(book_id)
            try:
                change(journal)
                return journal.entries()
            except StorageError as error:
                raise ChapterhouseError(f"{title}: {error.reason}, so {refused} ({error.path})") from None
            finally:
                journal.close()

        def written(entries) -> None:
            if self.book is not None and self.book.book_id == book_id:
                self.ask_panel.show_history(entries)

        self.tasks.submit(write, name=name, lane=QUICK, on_success=written, on_error=self._error)

    def export_history(self) -> None:
        if self.book is None:
            return
        book = self.book
        default = Path.home() / f"{book.title.split(':')[0].strip()} - questions.md"
        path, _ = QFileDialog.getSaveFileName(self, "Export questions and answers", str(default), "Markdown (*.md)")
        if path:
            self.export_history_to(Path(path))

    def export_history_to(self, path: Path) -> None:
        book = self.book

        def export(context):
            journal = self.library.journal(book.book_id)
            try:
                text = journal.markdown(book.title, book.metadata.get("author"))
            finally:
                journal.close()
            # Written aside and moved into place: the file is never seen half
            # written, and a failed export leaves an earlier one whole.
            partial = path.with_name(path.name + ".partial")
            try:
                partial.write_text(text, encoding="utf-8")
                os.replace(partial, path)
            except OSError as error:
                with suppress(OSError):
                    partial.unlink()
                raise OSError(error.errno, error.strerror, str(path)) from None
            return path

        self.tasks.submit(export, name="Exporting", lane=QUICK,
                          on_success=lambda written: self.statusBar().showMessage(f"Exported to {written}", 5000),
                          on_error=self._error)

    # ------------------------------------------------------------ indexing

    def index_now(self, book_id: str) -> None:
        """Index a book that stopped short of the target (cancelled, or failed
        on an error the user has fixed): it resumes from its checkpoint."""
        self.banner.hide()
        self.indexing.enqueue(book_id, first=True)
        self._update_active()

    def _cancel_indexing(self, book_id: str) -> None:
        self.indexing.cancel_book(book_id)
        self._update_active()

    def _update_active(self) -> None:
        self.library_view.set_active(self.indexing.active())

    def _index_progress(self, book_id: str, progress) -> None:
        stage_before = self._indexing_stages.get(book_id)
        self._indexing_stages[book_id] = progress.stage
        if stage_before is not None and progress.stage > stage_before:
            self._prepare_answers_if_open(book_id)  # the stage before it landed (summaries, cards) inside the run
        text = describe_progress(progress)
        self.library_view.set_status(book_id, text)
        # The title without its subtitle: the status bar also holds the open book's line.
        self.index_label.setText(f"{self._titles.get(book_id, book_id).split(':')[0]}: {text}")
        self.progress.setValue(round(100 * progress.done / progress.total) if progress.total else 0)
        self.progress.show()
        self.cancel_index.show()

    def _index_queued(self, book_id: str, stage: int) -> None:
        self.library_view.set_status(book_id, f"{self.library_view.stage_name(book_id, stage)}; waiting its turn")
        self._update_active()

    def _index_stage(self, book_id: str, stage: int) -> None:
        self._statuses[book_id] = stage
        self.library_view.set_stage(book_id, stage)
        self._prepare_answers_if_open(book_id)

    def _prepare_answers_if_open(self, book_id: str) -> None:
        """A stage of a book's index landed: where the book is open, its new index is loaded for questions now."""
        if self.book is not None and self.book.book_id == book_id:
            self._prepare_answers(book_id)

    def _index_finished(self, book_id: str, stage: int, cancelled: bool) -> None:
        self._statuses[book_id] = stage
        if not cancelled:  # stopped: nothing new landed, and the window may be closing
            self._prepare_answers_if_open(book_id)
        if book_id in self.indexing.queue:  # stopped to let a new import go first
            self._index_queued(book_id, stage)
        else:
            self.library_view.set_stage(book_id, stage)
        self._update_active()
        if not self.indexing.busy():
            self.progress.hide()
            self.cancel_index.hide()
            self.index_label.setText("")
        if cancelled and book_id not in self.indexing.queue and not self._restarting:
            self.statusBar().showMessage("Indexing stopped; it resumes where it stopped next time.", 5000)

    def _index_waiting(self, book_id: str, stage: int) -> None:
        self._index_finished(book_id, stage, False)
        self._show_waiting(book_id)

    def _show_waiting(self, book_id: str) -> None:
        stage = self._statuses.get(book_id, 0)
        self.library_view.set_status(
            book_id, f"{self.library_view.stage_name(book_id, stage)}; waiting for another Chapterhouse process",
            "Another Chapterhouse process (the chapterhouse index command, say) is indexing this book; "
            "indexing goes on here when it stops.")

    def _index_failed(self, book_id: str, message: str) -> None:
        self._index_finished(book_id, self._statuses.get(book_id, 0), False)
        if book_id in self._removed:
            return  # it failed because the book is gone, as the reader asked
        self._show_failed(book_id)
        self._show_failure(message)

    def _show_failed(self, book_id: str) -> None:
        stage = self._statuses.get(book_id, 0)
        self.library_view.set_status(book_id, f"{self.library_view.stage_name(book_id, stage)}; stopped by an error")

    def _stop_current_indexing(self) -> None:
        if self.indexing.current:
            self.indexing.cancel_book(self.indexing.current)

    # ------------------------------------------------------------ settings

    def open_settings(self) -> None:
        from engine.llm.settings import ModelSettings

        from .settings_dialog import SettingsDialog

        try:
            current = ModelSettings.load()
        except Exception as error:  # a damaged settings file is reported, not fatal
            self.banner.show_message(str(error))
            return
        device = ""
        for session in list(self._sessions.values()):
            generator = getattr(session, "_generator", None)
            if generator is not None:
                device = f"{generator.model_id}: {generator.device.describe()}"
        dialog = SettingsDialog(current, device, self)
        if dialog.exec() == SettingsDialog.DialogCode.Accepted:
            self.apply_settings(dialog.settings())

    def apply_settings(self, settings) -> None:
        from engine.llm.loading import release_all

        previous = _settings_in_force()
        try:
            settings.save()
        except ChapterhouseError as error:  # a full disk: nothing changes, and it says so
            self._error(str(error))
            return
        self._sessions_epoch += 1
        self._sessions.clear()  # the next question's session reads the new settings
        if previous is not None and replace(settings, answers=previous.answers) == previous:
            # Only how answers are given changed: no model or index depends on it.
            self.statusBar().showMessage("Settings saved.", 6000)
            return
        self._restarting = True  # indexing stops here and goes on at once, not "next time"
        self.indexing.cancel_all()

        def reload(context):
            release_all()

        self.tasks.submit(reload, name="Changing models", lane=QUICK,
                          on_success=lambda _: self.start(), on_error=self._start_failed)
        self.statusBar().showMessage("Settings saved; books are re-indexed where the change requires it.", 6000)

    # ------------------------------------------------------------ errors

    def _import_error(self, message: str) -> None:
        self._error(message)
        self.importFailed.emit(message)

    def _error(self, message: str) -> None:
        self.statusBar().clearMessage()
        self._show_failure(message)

    def _question_failed(self, message: str) -> None:
        self._show_failure(message)
        self._banner_about_a_question = True  # the next question's start clears it

    def _show_failure(self, message: str) -> None:
        self._banner_about_a_question = False
        book_id = damaged_book_id(message)
        if book_id is not None and self.library.has_book(book_id):
            self.banner.show_message(message, ("Repair\u2026", lambda: self.confirm_repair(book_id)))
        else:
            self.banner.show_message(message)

    # ------------------------------------------------------------ drag and drop

    def dragEnterEvent(self, event) -> None:
        if any(Path(url.toLocalFile()).suffix.lower() in BOOK_SUFFIXES for url in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        paths = [Path(url.toLocalFile()) for url in event.mimeData().urls()]
        books = [path for path in paths if path.suffix.lower() in BOOK_SUFFIXES]
        if books:
            self.import_files(books)
            event.acceptProposedAction()

    # ------------------------------------------------------------ window state

    def _restore_window_state(self) -> None:
        settings = QSettings()
        geometry = settings.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        for key, splitter in (("window/splitter", self.splitter), ("window/readerSplitter", self.reader_splitter)):
            state = settings.value(key)
            if state is not None:
                splitter.restoreState(state)
        size = settings.value("reader/pointSize")
        if size is not None:
            self.reader.set_point_size(float(size))
        self.set_reading_colours(settings.value("reader/colours", "system"))
        for is_contents, pane in ((True, self.contents), (False, self.ask_panel)):
            if settings.value(_PANE_KEYS[is_contents], True, type=bool) is False:
                self.show_pane(pane, False)

    def closeEvent(self, event) -> None:
        settings = QSettings()
        if not self.isFullScreen():  # the next start opens as a window, where it was before
            settings.setValue("window/geometry", self.saveGeometry())
        settings.setValue("window/splitter", self.splitter.saveState())
        settings.setValue("window/readerSplitter", self.reader_splitter.saveState())
        settings.setValue("reader/pointSize", self.reader.point_size)
        # The book being read is opened again at the next start; from the library, none.
        reading = self.book is not None and self.pages.currentIndex() == _READER_PAGE
        settings.setValue(LAST_BOOK_KEY, self.book.book_id if reading else "")
        self._save_position_now()
        self.indexing.cancel_all()
        self.ask_panel.stop()
        self.tasks.cancel_all()
        self.tasks.wait(5000)
        super().closeEvent(event)


def _settings_in_force():
    """The saved model settings, or None where the file is unreadable (then
    any new settings count as a change)."""
    from engine.llm.errors import ModelError
    from engine.llm.settings import ModelSettings

    try:
        return ModelSettings.load()
    except ModelError:
        return None
