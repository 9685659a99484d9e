"""Find in the book: next and previous, every match highlighted."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget


class FindBar(QWidget):
    closed = Signal()

    def __init__(self, reader, parent=None):
        super().__init__(parent)
        self.reader = reader
        self.matches = []
        self.current = -1
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        self.field = QLineEdit(self)
        self.field.setPlaceholderText("Find in book")
        self.field.setClearButtonEnabled(True)
        self.field.textChanged.connect(self.search)
        self.field.returnPressed.connect(self.next)
        self.count = QLabel(self)
        self.count.setMinimumWidth(90)
        previous = QToolButton(self)
        previous.setText("\u25b2")
        previous.setToolTip("Previous match (Shift+Enter)")
        previous.clicked.connect(self.previous)
        following = QToolButton(self)
        following.setText("\u25bc")
        following.setToolTip("Next match (Enter)")
        following.clicked.connect(self.next)
        close = QToolButton(self)
        close.setText("\u2715")
        close.setToolTip("Close (Esc)")
        close.setAutoRaise(True)
        close.clicked.connect(self.close_bar)
        for widget in (QLabel("Find:", self), self.field, previous, following, self.count, close):
            layout.addWidget(widget)
        layout.setStretch(1, 1)
        # Scoped to the bar: the ask panel has its own Esc (stop answering).
        close_key = QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.close_bar)
        close_key.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        back_key = QShortcut(QKeySequence("Shift+Return"), self.field, self.previous)
        back_key.setContext(Qt.ShortcutContext.WidgetShortcut)

    def open_bar(self) -> None:
        self.show()
        self.field.setFocus()
        self.field.selectAll()
        if self.field.text():
            self.search(self.field.text())

    def close_bar(self) -> None:
        self.reader.find_all("")
        self.hide()
        self.closed.emit()

    def search(self, text: str) -> None:
        self.matches = self.reader.find_all(text)
        self.current = -1
        if not text:
            self.count.setText("")
            return
        if not self.matches:
            self.count.setText("no match")
            return
        # Start at the first match after what the reader is looking at.
        top = self.reader.cursorForPosition(self.reader.viewport().rect().topLeft()).position()
        self.current = next((i for i, m in enumerate(self.matches) if m.selectionStart() >= top), 0) - 1
        self.next()

    def next(self) -> None:
        self._move(1)

    def previous(self) -> None:
        self._move(-1)

    def _move(self, step: int) -> None:
        if not self.matches:
            return
        self.current = (self.current + step) % len(self.matches)
        self.reader.show_match(self.matches[self.current])
        total = f"{len(self.matches)}+" if len(self.matches) >= 2000 else str(len(self.matches))
        self.count.setText(f"{self.current + 1} of {total}")
