"""The main window: table of contents beside the reader.

Every engine call (import, load) runs as a task off the UI thread; the window
only reacts to the signals that come back. Errors appear in a banner at the
top of the window, never as a crash.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QProgressBar,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine.book import Book
from engine.formats import BOOK_SUFFIXES
from engine.store import Library

from .contents_view import ContentsView
from .reader_view import ReaderView, build_document
from .tasks import BACKGROUND, URGENT, TaskRunner

_FILE_FILTER = "Books (*.txt *.epub *.html *.htm *.zip);;All files (*)"


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
        layout.addWidget(self.label, 1)
        layout.addWidget(close)
        self.hide()

    def show_message(self, message: str) -> None:
        self.label.setText(message)
        self.show()


class MainWindow(QMainWindow):
    bookOpened = Signal(str)  # book id, once its text is on screen
    importFailed = Signal(str)

    def __init__(self, library: Library | None = None, parent=None):
        super().__init__(parent)
        self.library = library or Library()
        self.tasks = TaskRunner(self)
        self.book: Book | None = None
        self.setWindowTitle("Chapterhouse")
        self.setAcceptDrops(True)
        self.resize(1180, 780)

        self.banner = ErrorBanner(self)
        self.contents = ContentsView(self)
        self.reader = ReaderView(self)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.contents)
        self.splitter.addWidget(self.reader)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([280, 900])

        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(6, 6, 6, 0)
        layout.setSpacing(6)
        layout.addWidget(self.banner)
        layout.addWidget(self.splitter, 1)
        self.setCentralWidget(central)

        self.progress = QProgressBar(self)
        self.progress.setMaximumWidth(180)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.statusBar().addPermanentWidget(self.progress)

        self.contents.sectionActivated.connect(self.reader.scroll_to_offset)
        self.reader.positionChanged.connect(self.contents.follow)
        self._build_menus()
        self._restore_window_state()

    # ------------------------------------------------------------ menus

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        open_action = QAction("&Open Book\u2026", self)
        open_action.setShortcut(QKeySequence.StandardKey.Open)
        open_action.triggered.connect(self.choose_file)
        file_menu.addAction(open_action)
        file_menu.addSeparator()
        quit_action = QAction("&Quit", self)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        file_menu.addAction(quit_action)

    def choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a book", str(Path.home()), _FILE_FILTER)
        if path:
            self.import_file(path)

    # ------------------------------------------------------------ engine work

    def import_file(self, path: str | Path) -> None:
        """Import a book file in the background, then open it."""
        path = Path(path)
        self.banner.hide()
        self._busy(f"Importing {path.name}\u2026")
        self.tasks.submit(
            lambda context: self.library.import_book(path, on_stage=lambda stage: context.progress(stage)),
            name=f"Importing {path.name}",
            lane=BACKGROUND,
            on_success=lambda result: self.open_book(result.book_id),
            on_error=self._import_error,
        )

    def open_book(self, book_id: str) -> None:
        """Load a stored book and lay it out off the UI thread, then show it."""
        self._busy("Opening\u2026")

        def load(context):
            book = self.library.load(book_id)
            context.check()
            document, offsets = build_document(book)
            return book, document, offsets

        self.tasks.submit(load, name="Opening the book", lane=URGENT, on_success=self._show_book, on_error=self._error)

    def _show_book(self, loaded) -> None:
        book, document, offsets = loaded
        self.book = book
        self.contents.show_book(book)
        self.reader.show_book(document, offsets)
        author = book.metadata.get("author")
        self.setWindowTitle(f"{book.title} \u2014 Chapterhouse")
        self._idle(f"{book.title}{' by ' + author if author else ''} \u00b7 {len(book.sections)} sections")
        self.bookOpened.emit(book.book_id)

    def _import_error(self, message: str) -> None:
        self._error(message)
        self.importFailed.emit(message)

    def _error(self, message: str) -> None:
        self._idle("")
        self.banner.show_message(message)

    def _busy(self, message: str) -> None:
        self.statusBar().showMessage(message)
        self.progress.setRange(0, 0)
        self.progress.show()

    def _idle(self, message: str) -> None:
        self.progress.hide()
        self.statusBar().showMessage(message)

    # ------------------------------------------------------------ drag and drop

    def dragEnterEvent(self, event) -> None:
        if any(Path(url.toLocalFile()).suffix.lower() in BOOK_SUFFIXES for url in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        for url in event.mimeData().urls():
            path = Path(url.toLocalFile())
            if path.suffix.lower() in BOOK_SUFFIXES:
                self.import_file(path)
                event.acceptProposedAction()
                return

    # ------------------------------------------------------------ window state

    def _restore_window_state(self) -> None:
        settings = QSettings()
        geometry = settings.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        splitter = settings.value("window/splitter")
        if splitter is not None:
            self.splitter.restoreState(splitter)

    def closeEvent(self, event) -> None:
        settings = QSettings()
        settings.setValue("window/geometry", self.saveGeometry())
        settings.setValue("window/splitter", self.splitter.saveState())
        self.tasks.cancel_all()
        self.tasks.wait(5000)
        super().closeEvent(event)
