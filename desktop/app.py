"""Starting the desktop app: `chapterhouse gui [BOOK]` or `python -m desktop`."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from engine import __version__
from engine.paths import config_dir, resources_dir, sample_book_path
from engine.store import Library

from .main_window import LAST_BOOK_KEY, MainWindow
from .responsiveness import prepare_process
from .single_instance import claim_or_hand_over

APP_ICON = resources_dir() / "icons" / "chapterhouse.svg"


def create_application(argv: list[str] | None = None, prepare: bool = True) -> QApplication:
    """The application, and with `prepare` the process made ready for a
    window that never freezes (see responsiveness)."""
    app = QApplication.instance() or QApplication(argv if argv is not None else sys.argv[:1])
    app.setApplicationName("Chapterhouse")
    app.setOrganizationName("Chapterhouse")
    app.setApplicationVersion(__version__)
    app.setWindowIcon(QIcon(str(APP_ICON)))
    app.setDesktopFileName("chapterhouse")  # the launcher's entry (packaging/bootstrap.py launcher)
    # Window state lives in the user's config dir (or under CHAPTERHOUSE_HOME).
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(config_dir()))
    if prepare:
        prepare_process()
    return app


def open_initial_book(window: MainWindow, book: str | None) -> None:
    """Open what the user asked for; with nothing asked, the book that was
    being read when the app last closed (none if it closed on the library, or
    the book has gone since), and on the very first start the bundled sample."""
    if book is None:
        last = QSettings().value(LAST_BOOK_KEY)
        if last is None:
            window.import_file(sample_book_path())
        elif last and window.library.has_book(last):
            window.open_book(last)
        return
    path = Path(book).expanduser()
    if path.is_file():
        window.import_file(path)
        return
    try:
        window.open_book(window.library.resolve(book, import_files=False))
    except Exception as error:  # shown in the window, like every other engine error
        window.banner.show_message(str(error))


def bring_forward(window: MainWindow, request: dict) -> None:
    """Another start's request: show this window on top, and open its book if it named one."""
    if window.isMinimized():
        window.showNormal()
    window.raise_()
    window.activateWindow()
    if request.get("open"):
        open_initial_book(window, request["open"])


def _as_request(book: str | None) -> dict:
    # The running app has its own working folder: send a file as an absolute path.
    if book is not None and Path(book).expanduser().is_file():
        book = str(Path(book).expanduser().resolve())
    return {"open": book}


def run(book: str | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    app = create_application(prepare=False)  # a second start hands over at once
    library = Library()
    instance = claim_or_hand_over(library.root, config_dir(), _as_request(book))
    if instance is None:
        print("Chapterhouse is already running" + (f"; {book} was handed to it." if book else "; its window was brought forward."))
        return 0
    prepare_process()
    window = MainWindow(library)
    instance.requested.connect(lambda request: bring_forward(window, request))
    window.show()
    window.start()
    open_initial_book(window, book)
    try:
        return app.exec()
    finally:
        instance.close()


def main() -> int:
    return run(sys.argv[1] if len(sys.argv) > 1 else None)
