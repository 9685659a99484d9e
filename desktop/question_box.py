"""The box a question is typed in: it wraps a long question onto more lines
(a single-line field hid all but its last words), grows with it up to a few
lines, and asks on Enter (Shift+Enter starts a new line). It says when the
reader begins typing, so the answer's model can load meanwhile."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit, QSizePolicy

_MOST_LINES = 4  # taller than this, the box scrolls: the answer needs the room


class QuestionBox(QPlainTextEdit):
    submitted = Signal()
    typed = Signal()  # the reader changed the text (typing, pasting, undoing; not setText)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setTabChangesFocus(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.document().setDocumentMargin(3)
        self.document().documentLayout().documentSizeChanged.connect(lambda _size: self._fit())
        self._setting = False
        self.textChanged.connect(self._changed)
        # Questions asked before (oldest first), recalled with Up and Down
        # while the box is empty or shows one of them unchanged.
        self.earlier: list[str] = []
        self._recalled: int | None = None
        self._fit()

    # The same calls as a one-line field, for the panel and its callers.
    def text(self) -> str:
        return self.toPlainText()

    def setText(self, text: str) -> None:
        self._setting = True
        try:
            self.setPlainText(text)
        finally:
            self._setting = False
        self.moveCursor(QTextCursor.MoveOperation.Start)  # a question taller than the box shows its start

    def _changed(self) -> None:
        # Every edit of the reader's (keys, paste, drop, undo) comes through
        # here; only the program's own setText does not count.
        if not self._setting:
            self.typed.emit()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not (
                event.modifiers() & Qt.KeyboardModifier.ShiftModifier):
            self.submitted.emit()
            return
        if event.key() in (Qt.Key.Key_Up, Qt.Key.Key_Down) and self._recall(-1 if event.key() == Qt.Key.Key_Up else 1):
            return
        super().keyPressEvent(event)

    def _recall(self, step: int) -> bool:
        """Show the question before or after the one recalled; False where the
        keys should move the cursor instead (the reader's own text)."""
        shown = self.text()
        recalled = self._recalled is not None and self._recalled < len(self.earlier) and \
            shown == self.earlier[self._recalled]
        if not self.earlier or not (recalled or not shown.strip()):
            return False
        index = (len(self.earlier) if not recalled else self._recalled) + step
        if index >= len(self.earlier):
            self._recalled = None
            self.setText("")
        else:
            self._recalled = max(0, index)
            self.setText(self.earlier[self._recalled])
            self.moveCursor(QTextCursor.MoveOperation.End)
        return True

    def canInsertFromMimeData(self, source) -> bool:
        # A book file dropped here is for the window to import (as anywhere
        # else on it), not a path to paste into the question.
        if source.hasUrls() and any(url.isLocalFile() for url in source.urls()):
            return False
        return super().canInsertFromMimeData(source)

    def lines_shown(self) -> int:
        """How many lines of text the box is tall enough for now."""
        return max(1, round((self.height() - self._frame_height()) / self.fontMetrics().lineSpacing()))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()  # a narrower box wraps onto more lines

    def _fit(self) -> None:
        wrapped = self._wrapped_lines()
        height = max(1, min(_MOST_LINES, wrapped)) * self.fontMetrics().lineSpacing() + self._frame_height()
        if self.height() != height or self.minimumHeight() != height:
            self.setFixedHeight(height)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded if wrapped > _MOST_LINES
                                        else Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def _wrapped_lines(self) -> int:
        count = 0
        block = self.document().firstBlock()
        while block.isValid():
            layout = block.layout()
            count += max(1, layout.lineCount() if layout is not None else 1)
            block = block.next()
        return count

    def _frame_height(self) -> int:
        margins = self.contentsMargins()
        return int(2 * self.document().documentMargin()) + margins.top() + margins.bottom() + 2 * self.frameWidth()
