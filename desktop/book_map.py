"""The book map: a strip of the book's sections, each as wide as its text,
marking the ones the evidence comes from (and, darker, the ones the answer
cites), so a reader sees at a glance that an answer draws on chapters 16,
24 and 40. A tick at the foot of a band shows where in it a passage lies: in a
book of five staves, or one with no chapters at all, the bands alone would
say little. An answer limited to what the reader has read shows the rest of
the book hatched. A click on a section jumps to it."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget


_GAP = 2  # pixels between sections
_TICK = 5  # height of a passage's tick, in pixels, at the foot of its band


class BookMap(QWidget):
    sectionClicked = Signal(int)  # section ordinal

    def __init__(self, parent=None):
        super().__init__(parent)
        self.sections: list[tuple[int, str, int]] = []  # ordinal, label, length
        self._starts: list[int] = []  # each section's start in the text
        self.evidence: set[int] = set()
        self.cited: set[int] = set()
        self.read_to: int | None = None  # the answer used the text before this offset only
        self.passages: list[tuple[int, int, bool]] = []  # evidence passages: start, end, cited
        self.setMouseTracking(True)
        self.setMinimumHeight(26)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setToolTip("The book's sections: the marked ones hold the evidence")
        self.setAccessibleName("Book map")

    def sizeHint(self) -> QSize:
        return QSize(300, 30)

    def set_book(self, book) -> None:
        self.sections = [(s.ordinal, s.display_name, max(1, s.end - s.start)) for s in book.sections]
        self._starts = [s.start for s in book.sections]
        self.evidence, self.cited, self.read_to, self.passages = set(), set(), None, []
        self.update()

    def mark(self, evidence: set[int], cited: set[int] | None = None, read_to: int | None = None,
             passages: list[tuple[int, int, bool]] | None = None) -> None:
        self.evidence = set(evidence)
        self.cited = set(cited or ())
        self.read_to = read_to
        self.passages = list(passages or ())
        self.update()

    def x_at(self, offset: int, bands: list[tuple[int, QRectF]] | None = None) -> float | None:
        """Where a place in the text lies on the strip (None before the first
        section or with no sections)."""
        placed = self._place(offset, bands or self.bands())
        return placed[1] if placed else None

    def _place(self, offset: int, bands: list[tuple[int, QRectF]]) -> tuple[int, float] | None:
        """The section a place in the text is in, and its x on the strip."""
        for (ordinal, rect), start, (_, _, length) in zip(bands, self._starts, self.sections):
            if start <= offset <= start + length:
                return ordinal, rect.left() + rect.width() * (offset - start) / length
        return None

    def unread_x(self, bands: list[tuple[int, QRectF]] | None = None) -> float | None:
        """Where the unread part of the strip begins, for an answer limited to
        what the reader has read (None otherwise)."""
        if self.read_to is None:
            return None
        for (_, rect), start, (_, _, length) in zip(bands or self.bands(), self._starts, self.sections):
            if self.read_to < start + length:
                return rect.left() + rect.width() * max(0, self.read_to - start) / length
        return None

    def bands(self) -> list[tuple[int, QRectF]]:
        total = sum(length for _, _, length in self.sections) or 1
        width = self.width() - 2
        x = 1.0
        rects = []
        for ordinal, _, length in self.sections:
            w = width * length / total
            rects.append((ordinal, QRectF(x, 4, max(1.0, w), self.height() - 8)))
            x += w
        return rects

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        palette = self.palette()
        base = palette.color(palette.ColorRole.Mid)
        base.setAlpha(70)
        accent = palette.color(palette.ColorRole.Highlight)
        light = QColor(accent)
        light.setAlpha(120)
        bands = self.bands()
        for ordinal, rect in bands:
            colour = accent if ordinal in self.cited else light if ordinal in self.evidence else base
            painter.fillRect(rect, colour)
        foot = bands[0][1].bottom() - _TICK if bands else 0.0
        for start, end, quoted in self.passages:
            placed = self._place(start, bands)
            if placed is None:
                continue
            ordinal, left = placed
            right = self.x_at(end, bands) or left
            # On a cited band (the highlight colour) the tick takes the colour
            # made to be read on it; elsewhere the text's.
            tick = palette.color(palette.ColorRole.HighlightedText if ordinal in self.cited
                                 else palette.ColorRole.Text)
            tick.setAlpha(255 if quoted else 120)
            painter.fillRect(QRectF(left, foot, max(2.0, right - left), _TICK), tick)
        unread = self.unread_x(bands)
        if unread is not None and bands:
            top, bottom = bands[0][1].top(), bands[0][1].bottom()
            hatch = QColor(palette.color(palette.ColorRole.Text))
            hatch.setAlpha(90)
            painter.fillRect(QRectF(unread, top, bands[-1][1].right() - unread, bottom - top),
                             QBrush(hatch, Qt.BrushStyle.BDiagPattern))
            painter.fillRect(QRectF(unread - 1, 0, 2, self.height()), palette.color(palette.ColorRole.Text))
        # Gaps drawn after every band (a band would cover the one before it), so
        # marked neighbours read as sections, not as one progress bar.
        painter.setPen(QPen(palette.color(palette.ColorRole.Window), _GAP))
        for _, rect in bands[:-1]:
            if rect.width() > 2 * _GAP:
                x = round(rect.right())
                painter.drawLine(x, round(rect.top()), x, round(rect.bottom()))
        painter.end()

    def section_at(self, x: float) -> int | None:
        for ordinal, rect in self.bands():
            if rect.left() <= x < rect.right() + 0.5:
                return ordinal
        return None

    def describe(self, x: float) -> str | None:
        """What the strip shows at x: the section, whether it is cited or
        holds evidence (and in how many passages), whether it was unread."""
        ordinal = self.section_at(x)
        if ordinal is None:
            return None
        label = self.sections[ordinal - 1][1]
        state = " \u2014 cited" if ordinal in self.cited else " \u2014 evidence" if ordinal in self.evidence else ""
        start, length = self._starts[ordinal - 1], self.sections[ordinal - 1][2]
        held = sum(1 for passage_start, _, _ in self.passages if start <= passage_start < start + length)
        if held:
            state += f" ({held} passage{'s' if held > 1 else ''})"
        unread = self.unread_x()
        if unread is not None and x >= unread:
            state += " \u2014 not read yet, so not used"
        return f"{label}{state}"

    def mouseMoveEvent(self, event) -> None:
        text = self.describe(event.position().x())
        if text is not None:
            QToolTip.showText(event.globalPosition().toPoint(), text, self)

    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            ordinal = self.section_at(event.position().x())
            if ordinal is not None:
                self.sectionClicked.emit(ordinal)
