"""The reader: a book's stored text laid out for reading.

The QTextDocument is written from the book's paragraphs, one text block per
paragraph, by slices on the UI thread (DocumentBuilder), so a character
offset in the stored text maps to a document position through the paragraph
that holds it. That map is what lets a section, and later a cited passage,
be scrolled into view and highlighted. The view also keeps how far the
reader has read (ReadingProgress).
"""

from __future__ import annotations

import time
from bisect import bisect_right
from dataclasses import dataclass

from PySide6.QtCore import QPoint, QPointF, Qt, QTimer, Signal
from PySide6.QtGui import (QColor, QFont, QFontMetricsF, QPalette, QTextBlockFormat, QTextCharFormat, QTextCursor,
                           QTextDocument, QTextFormat)
from PySide6.QtWidgets import QApplication, QMenu, QTextBrowser, QTextEdit

from engine.answer.definitions import looks_up
from engine.book import Book

from .reading_progress import ReadingProgress

READING_COLUMN_EM = 38  # characters per line that stay comfortable to read
DOCUMENT_MARGIN = 24
_LINE_SEPARATOR = "\u2028"  # a line break inside one paragraph (verse, two-line headings)
_SCROLL_MARGIN_PX = 12
_LAYOUT_BLOCKS_PER_STEP = 20
_WRITE_PARAGRAPHS_PER_STEP = 50
# Layout work per turn of the event loop. Two slices can run back to back, and
# an indexing worker's long native calls add to each: 30 ms slices made
# 76-108 ms stalls while Little Women was laid out and indexed, 15 ms ones 64.
_LAYOUT_SLICE_SECONDS = 0.015


@dataclass
class OffsetMap:
    """Stored-text offsets to document positions."""

    paragraph_starts: list[int]
    paragraph_ends: list[int]
    block_positions: list[int]
    text: str

    def to_document(self, offset: int) -> int:
        if not self.paragraph_starts:
            return 0
        index = max(0, bisect_right(self.paragraph_starts, offset) - 1)
        start = self.paragraph_starts[index]
        inner = min(max(offset, start), self.paragraph_ends[index]) - start
        prefix = self.text[start:start + inner]
        # Qt counts UTF-16 units; characters outside the BMP take two.
        wide = sum(1 for char in prefix if ord(char) > 0xFFFF)
        return self.block_positions[index] + inner + wide

    def to_text(self, position: int) -> int:
        """The stored-text offset of a document position (a selection's end)."""
        if not self.block_positions:
            return 0
        index = max(0, bisect_right(self.block_positions, position) - 1)
        start, end = self.paragraph_starts[index], self.paragraph_ends[index]
        units, offset = position - self.block_positions[index], start
        while units > 0 and offset < end:  # Qt counts UTF-16 units; characters outside the BMP take two
            units -= 2 if ord(self.text[offset]) > 0xFFFF else 1
            offset += 1
        return offset


# Reading colours (page, text, the margin beside the column, the scroll bar's
# handle); "system" follows the window's palette.
READING_COLOURS = {"sepia": ("#f4ecd8", "#5b4636", "#e6dcc3", "#d3c4a3"),
                   "night": ("#1d1f21", "#d4d0c8", "#141516", "#45494d")}
READING_COLOUR_NAMES = {"system": "As the &Window", "sepia": "&Sepia", "night": "&Night"}


def reader_font() -> QFont:
    font = QFont()
    font.setFamilies(["Literata", "Georgia", "Charter", "Cambria", "DejaVu Serif", "Noto Serif", "Times New Roman", "serif"])
    font.setStyleHint(QFont.StyleHint.Serif)
    font.setPointSizeF(13.0)
    return font


def reading_width(point_size: float | None = None) -> int:
    """Width of the reading column in pixels (text plus document margins)."""
    font = reader_font()
    if point_size:
        font.setPointSizeF(point_size)
    metrics = QFontMetricsF(font)
    return int(metrics.averageCharWidth() * READING_COLUMN_EM * 2 + 2 * DOCUMENT_MARGIN)


def build_document(book: Book) -> tuple[QTextDocument, OffsetMap]:
    """The whole book as a QTextDocument at once (tests, tools)."""
    builder = DocumentBuilder(book)
    builder.write()
    return builder.result()


class DocumentBuilder:
    """Writes a book into a QTextDocument on the UI thread, a slice of
    paragraphs at a time (about 80 ms in all for a million characters).
    Not in a worker: a document made there has to be moved to the UI thread,
    and `moveToThread` from a worker that holds the GIL deadlocked against
    the UI thread deleting a widget, which waited for the GIL while holding
    the Qt lock that `moveToThread` needs."""

    def __init__(self, book: Book):
        self.book = book
        self.document = QTextDocument()
        self.document.setDefaultFont(reader_font())
        self.document.setDocumentMargin(DOCUMENT_MARGIN)
        self.document.setUndoRedoEnabled(False)
        self._cursor = QTextCursor(self.document)
        self._next = 0
        self._starts: list[int] = []
        self._ends: list[int] = []
        self._positions: list[int] = []
        self._section_starts = {section.start for section in book.sections} | {part.start for part in book.parts}

        self._prose = QTextBlockFormat()
        self._prose.setLineHeight(145, QTextBlockFormat.LineHeightTypes.ProportionalHeight.value)
        self._prose.setBottomMargin(9)
        self._verse = QTextBlockFormat(self._prose)
        self._verse.setLeftMargin(36)
        self._verse.setLineHeight(130, QTextBlockFormat.LineHeightTypes.ProportionalHeight.value)
        self._heading = QTextBlockFormat()
        self._heading.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        self._heading.setTopMargin(30)
        self._heading.setBottomMargin(14)
        self._heading.setLineHeight(125, QTextBlockFormat.LineHeightTypes.ProportionalHeight.value)
        self._heading.setPageBreakPolicy(QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore)
        # A title under a heading ("PLAYING PILGRIMS") sits close to it.
        self._subheading = QTextBlockFormat(self._heading)
        self._subheading.setTopMargin(0)
        self._plain = QTextCharFormat()
        self._strong = QTextCharFormat()
        self._strong.setFontWeight(QFont.Weight.DemiBold)
        # Relative, so headings follow the reader's font size.
        self._strong.setProperty(QTextFormat.Property.FontSizeAdjustment, 1)

    @property
    def done(self) -> bool:
        return self._next >= len(self.book.paragraphs)

    def write(self, seconds: float | None = None) -> bool:
        """Write paragraphs until the book is all in (True) or `seconds` have passed."""
        deadline = None if seconds is None else time.perf_counter() + seconds
        paragraphs, text, cursor = self.book.paragraphs, self.book.text, self._cursor
        while not self.done:
            for _ in range(_WRITE_PARAGRAPHS_PER_STEP):
                if self.done:
                    break
                paragraph = paragraphs[self._next]
                if self._next:
                    cursor.insertBlock()
                self._next += 1
                is_heading = paragraph.kind == "heading"
                if is_heading:
                    block_format = self._heading if paragraph.start in self._section_starts else self._subheading
                else:
                    block_format = self._verse if paragraph.kind == "verse" else self._prose
                cursor.setBlockFormat(block_format)
                cursor.setCharFormat(self._strong if is_heading else self._plain)
                self._starts.append(paragraph.start)
                self._ends.append(paragraph.end)
                self._positions.append(cursor.position())
                cursor.insertText(text[paragraph.start:paragraph.end].replace("\n", _LINE_SEPARATOR))
            if deadline is not None and time.perf_counter() >= deadline:
                break
        return self.done

    def result(self) -> tuple[QTextDocument, OffsetMap]:
        return self.document, OffsetMap(self._starts, self._ends, self._positions, self.book.text)


class ReaderView(QTextBrowser):
    """Read-only text view with a centred reading column, a highlighted
    passage (a citation the reader followed) and find-in-book matches."""

    positionChanged = Signal(int)  # stored-text offset at the top of the view
    readToChanged = Signal(int)  # how far the reader has read (ReadingProgress)
    askAboutRequested = Signal(int, int)  # the stored-text span of the selection to ask about
    relatedRequested = Signal(int, int)  # the span of the selection to find related passages for
    lookUpRequested = Signal(str)  # a word selected, to be looked up in the dictionary
    findRequested = Signal(str)  # words selected, to find through the book
    MIN_POINT_SIZE, MAX_POINT_SIZE = 9.0, 30.0

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setReadOnly(True)
        self.setOpenLinks(False)
        self.setLineWrapMode(QTextEdit.LineWrapMode.WidgetWidth)
        self.setFrameShape(QTextBrowser.Shape.NoFrame)
        self.setFont(reader_font())
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.setPlaceholderText("Open a book to start reading.")
        self._map: OffsetMap | None = None
        self._document: QTextDocument | None = None
        self.verticalScrollBar().valueChanged.connect(self._report_position)
        self.progress = ReadingProgress()
        self._scroll_value = 0
        self._unnoted_step = 0  # pixels scrolled since the progress last heard
        self._progress_timer = QTimer(self)
        self._progress_timer.setSingleShot(True)
        self._progress_timer.setInterval(0)
        self._progress_timer.timeout.connect(self._note_progress)
        self._layout_timer = QTimer(self)
        self._layout_timer.setInterval(0)
        self._layout_timer.timeout.connect(self._lay_out_ahead)
        self._laid_out_until = None
        self._report_when_laid_out = False
        self._pending_jump: int | None = None
        self._passage_highlight: list[QTextEdit.ExtraSelection] = []
        self._find_highlights: list[QTextEdit.ExtraSelection] = []
        self.point_size = reader_font().pointSizeF()
        self.colours = "system"
        self.ask_about_keys = ""  # the window's shortcut for Ask About the Selection, shown in the text's menu
        self.related_keys = ""  # and for Find Related Passages

    def show_book(self, document: QTextDocument, offsets: OffsetMap, read_to: int | None = None) -> None:
        previous = self._document
        if abs(self.point_size - reader_font().pointSizeF()) > 0.01:
            font = reader_font()
            font.setPointSizeF(self.point_size)
            document.setDefaultFont(font)
        self._passage_highlight, self._find_highlights = [], []
        document.setParent(self)
        self._document = document
        self._map = None  # no position reports while the document changes
        self.setDocument(document)
        self._map = offsets
        self.progress = ReadingProgress(read_to)
        self._scroll_value, self._unnoted_step = self.verticalScrollBar().value(), 0
        if previous is not None:
            previous.deleteLater()
        self._fit_column()
        self._restart_layout()

    def _restart_layout(self) -> None:
        self._pending_jump = None
        self._laid_out_until = self.document().firstBlock()
        self._report_when_laid_out = True
        self._layout_timer.start()

    def _lay_out_ahead(self) -> None:
        """Lay the book out a slice at a time while the reader is idle, so that
        jumping to a late chapter does not stall the window laying out all the
        ones before it. A jump asked for beyond the laid-out part waits here
        until its place is laid out."""
        layout = self.document().documentLayout()
        block = self._laid_out_until
        deadline = time.perf_counter() + _LAYOUT_SLICE_SECONDS
        while block.isValid() and time.perf_counter() < deadline:
            for _ in range(_LAYOUT_BLOCKS_PER_STEP):
                if not block.isValid():
                    break
                block = block.next()
            if block.isValid():
                layout.blockBoundingRect(block)
        self._laid_out_until = block
        if not block.isValid():
            self._layout_timer.stop()
        if self._pending_jump is not None and not self._beyond_layout(self._pending_jump):
            offset, self._pending_jump = self._pending_jump, None
            self._scroll_now(offset)
        if self._report_when_laid_out:
            # The first page is in front of the reader now, even if nothing scrolls.
            self._report_when_laid_out = False
            self._progress_timer.start()

    def _beyond_layout(self, offset: int) -> bool:
        """Whether `offset` lies past the part of the book laid out so far."""
        frontier = self._laid_out_until
        if frontier is None or not frontier.isValid():
            return False
        return self.document().findBlock(self._map.to_document(offset)).blockNumber() > frontier.blockNumber()

    def has_book(self) -> bool:
        return self._map is not None

    def scroll_to_offset(self, offset: int) -> None:
        """Bring the paragraph holding `offset` to the top of the view: now, or,
        when the layout has not reached it yet, as soon as it has (laying a
        long book out up to its end at once would freeze the window)."""
        if self._map is None:
            return
        if self._beyond_layout(offset):
            self._pending_jump = offset
            return
        self._pending_jump = None
        self._scroll_now(offset)

    def _scroll_now(self, offset: int) -> None:
        position = self._map.to_document(offset)
        cursor = QTextCursor(self.document())
        cursor.setPosition(min(position, self.document().characterCount() - 1))
        block = cursor.block()
        layout = self.document().documentLayout()
        top = layout.blockBoundingRect(block).top()
        # The layout tells the view its new height only later, on a timer: tell
        # it now, or the scroll bar stops short of a place just laid out.
        layout.documentSizeChanged.emit(layout.documentSize())
        # Leave a little air above a heading rather than cutting it at the edge.
        self.verticalScrollBar().setValue(max(0, int(top) - _SCROLL_MARGIN_PX))
        self.setTextCursor(cursor)

    # ------------------------------------------------------------ passages

    def document_span(self, start: int, end: int) -> QTextCursor:
        cursor = QTextCursor(self.document())
        cursor.setPosition(self._map.to_document(start))
        cursor.setPosition(self._map.to_document(end), QTextCursor.MoveMode.KeepAnchor)
        return cursor

    def show_passage(self, start: int, end: int, sentence: tuple[int, int] | None = None) -> None:
        """Scroll to a passage and highlight it (a followed citation); with
        `sentence` (the one backing the claim cited), scroll to that one's
        paragraph and mark it more strongly within the passage."""
        if self._map is None:
            return
        self.scroll_to_offset(sentence[0] if sentence else start)
        self._passage_highlight = [self._highlight(start, end, 60)]
        if sentence:
            self._passage_highlight.append(self._highlight(*sentence, 150))
        self._apply_selections()

    def _highlight(self, start: int, end: int, alpha: int) -> QTextEdit.ExtraSelection:
        selection = QTextEdit.ExtraSelection()
        selection.cursor = self.document_span(start, end)
        colour = self.palette().color(self.palette().ColorRole.Highlight)
        colour.setAlpha(alpha)
        selection.format.setBackground(colour)
        return selection

    def marked_sentence(self) -> tuple[int, int] | None:
        """The sentence marked within the highlighted passage (document positions), if any."""
        if len(self._passage_highlight) < 2:
            return None
        cursor = self._passage_highlight[1].cursor
        return cursor.selectionStart(), cursor.selectionEnd()

    def clear_passage(self) -> None:
        self._passage_highlight = []
        self._apply_selections()

    def highlighted_span(self) -> tuple[int, int] | None:
        if not self._passage_highlight:
            return None
        cursor = self._passage_highlight[0].cursor
        return cursor.selectionStart(), cursor.selectionEnd()

    # ------------------------------------------------------------ find

    def find_all(self, text: str, limit: int = 2000) -> list[QTextCursor]:
        """Every match of `text` (case-insensitive), highlighted; returns them in order."""
        self._find_highlights = []
        matches: list[QTextCursor] = []
        if text:
            document = self.document()
            cursor = QTextCursor(document)
            colour = QColor(255, 214, 0, 140)
            while len(matches) < limit:
                cursor = document.find(text, cursor)
                if cursor.isNull():
                    break
                matches.append(QTextCursor(cursor))
                selection = QTextEdit.ExtraSelection()
                selection.cursor = QTextCursor(cursor)
                selection.format.setBackground(colour)
                self._find_highlights.append(selection)
        self._apply_selections()
        return matches

    def show_match(self, cursor: QTextCursor) -> None:
        self.setTextCursor(cursor)
        self.ensureCursorVisible()

    def _apply_selections(self) -> None:
        self.setExtraSelections(self._find_highlights + self._passage_highlight)

    # ------------------------------------------------------------ font size

    def set_colours(self, name: str) -> None:
        """Read on the window's colours, or on sepia or night ones whatever the
        system's (a reader's choice, kept by the window)."""
        self.colours = name if name in READING_COLOURS else "system"
        palette = QApplication.palette(self)
        if self.colours in READING_COLOURS:
            page, text, margin, handle = (QColor(colour) for colour in READING_COLOURS[self.colours])
            for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
                palette.setColor(group, QPalette.ColorRole.Base, page)
                palette.setColor(group, QPalette.ColorRole.Text, text)
                palette.setColor(group, QPalette.ColorRole.Window, margin)
                # The scroll bar beside the page: a bright handle on a night page glares.
                palette.setColor(group, QPalette.ColorRole.Button, handle)
                palette.setColor(group, QPalette.ColorRole.ButtonText, text)
        self.setPalette(palette)
        self.setAutoFillBackground(self.colours in READING_COLOURS)  # the margins beside the column too

    def set_point_size(self, size: float) -> None:
        size = max(self.MIN_POINT_SIZE, min(self.MAX_POINT_SIZE, size))
        if abs(size - self.point_size) < 0.01:
            return
        top = self.reading_position() if self._map is not None else None
        self.point_size = size
        font = reader_font()
        font.setPointSizeF(size)
        self.setFont(font)
        self.document().setDefaultFont(font)
        self._fit_column()  # the column holds as many characters a line at every size
        if top is not None:
            # The new font undoes the layout: lay it out again by slices.
            self._restart_layout()
            self.scroll_to_offset(top)

    def reading_position(self) -> int:
        """Where the reader is: the place a jump is on its way to, or the top of the view."""
        return self._pending_jump if self._pending_jump is not None else self.offset_at_top()

    def offset_at_top(self) -> int:
        """The stored-text offset of the first paragraph in view."""
        if self._map is None:
            return 0
        return self._map.paragraph_starts[self._paragraph_at(self.verticalScrollBar().value() + _SCROLL_MARGIN_PX + 1)]

    def offset_read_to(self) -> int:
        """The stored-text offset where the last paragraph in view ends: what
        the reader has had in front of them (a question "so far" uses no more)."""
        if self._map is None:
            return 0
        bottom = self.verticalScrollBar().value() + self.viewport().height() - 1
        return self._map.paragraph_ends[self._paragraph_at(bottom)]

    def _paragraph_at(self, y: int) -> int:
        # Ask the layout (document coordinates) rather than the viewport, which may
        # not have caught up with the scroll bar when this runs.
        position = self.document().documentLayout().hitTest(QPointF(self.document().documentMargin() + 1, y),
                                                             Qt.HitTestAccuracy.FuzzyHit)
        block_start = self.document().findBlock(max(0, position)).position()
        return max(0, bisect_right(self._map.block_positions, block_start) - 1)

    def is_offset_visible(self, offset: int) -> bool:
        if self._map is None:
            return False
        cursor = QTextCursor(self.document())
        cursor.setPosition(self._map.to_document(offset))
        rect = self.cursorRect(cursor)
        return self.viewport().rect().intersects(rect)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_column()

    def _fit_column(self) -> None:
        """Keep lines at a readable length by centring a column in wide windows.
        The column is exactly the width the document was laid out at, so showing
        it needs no new layout."""
        available = self.width() - 2 * self.frameWidth() - self.verticalScrollBar().sizeHint().width()
        spare = max(0, available - reading_width(self.point_size))
        self.setViewportMargins(spare // 2, 0, spare - spare // 2, 0)
        # QTextEdit wraps the text when its own size changes, before these
        # margins narrow the viewport; the viewport's resize then reports no
        # change of width, and the text stayed wrapped wider than the column
        # (lines cut at the right, a horizontal scroll bar).
        width = self.viewport().width()
        if self.lineWrapMode() == QTextEdit.LineWrapMode.WidgetWidth and self.document().textWidth() != width:
            self.document().setTextWidth(width)

    def _report_position(self, value: int) -> None:
        self._unnoted_step += value - self._scroll_value
        self._scroll_value = value
        if self._map is not None:
            self._progress_timer.start()
            self.positionChanged.emit(self.offset_at_top())

    def _note_progress(self) -> None:
        """Tell the reading progress how the view moved since the last turn of
        the event loop (what it skipped was never painted). Not in the scroll
        handler: finding the last line in view can take a layout's 10 ms."""
        step, self._unnoted_step = self._unnoted_step, 0
        if self._map is None:
            return
        before = self.progress.read_to
        self.progress.moved(self.offset_at_top(), self.offset_read_to(), step, self.viewport().height())
        if self.progress.read_to != before:
            self.readToChanged.emit(self.progress.read_to)

    # ------------------------------------------------------------ how far the reader has read

    def read_to(self) -> int:
        """The stored-text offset up to which the book has been read (see ReadingProgress)."""
        if self._map is None:
            return 0
        self._note_pending_progress()
        return self.progress.read_to if self.progress.read_to is not None else self.offset_read_to()

    def mark_read_to(self, offset: int) -> None:
        self._note_pending_progress()  # a move noted after this would undo it
        self.progress.set(offset)
        self.readToChanged.emit(offset)

    def _note_pending_progress(self) -> None:
        if self._progress_timer.isActive():
            self._progress_timer.stop()
            self._note_progress()

    def paragraph_end_at(self, point: QPoint) -> int:
        """Where the paragraph under a point of the viewport ends."""
        return self._map.paragraph_ends[self._paragraph_at(self.verticalScrollBar().value() + point.y())]

    def selected_span(self) -> tuple[int, int] | None:
        """The stored-text span of the text selected, if any of it is text."""
        cursor = self.textCursor()
        if self._map is None or not cursor.hasSelection() or not cursor.selectedText().strip():
            return None
        start, end = self._map.to_text(cursor.selectionStart()), self._map.to_text(cursor.selectionEnd())
        return (start, end) if end > start else None

    def selected_words(self) -> str | None:
        """The selection when it is a few words on one line (what find can look for)."""
        selected = self.textCursor().selectedText()
        if not selected.strip() or len(selected) > 60 or any(mark in selected for mark in "\u2029\u2028\n"):
            return None
        return selected.strip()

    def ask_about_selection(self) -> None:
        span = self.selected_span()
        if span is not None:
            self.askAboutRequested.emit(*span)

    def find_related(self) -> None:
        span = self.selected_span()
        if span is not None:
            self.relatedRequested.emit(*span)

    def context_menu(self, point: QPoint) -> QMenu:
        """The standard menu (copy, select all) and, on the text, "ask about
        the selection" and "I have read up to here"."""
        menu = self.createStandardContextMenu(point)
        if self._map is not None:
            menu.addSeparator()
            if self.selected_span() is not None:
                # The window's shortcut is shown after a tab (the menu's shortcut
                # column); set on this action it would clash with the window's.
                ask = menu.addAction("Ask About the Selection" + (f"\t{self.ask_about_keys}" if self.ask_about_keys
                                                                  else ""))
                ask.setStatusTip("Ask a question about the selected passage: it leads the evidence")
                ask.triggered.connect(self.ask_about_selection)
                related = menu.addAction("Find Related Passages" + (f"\t{self.related_keys}" if self.related_keys
                                                                    else ""))
                related.setStatusTip("Passages elsewhere in the book that tell of the selected one")
                related.triggered.connect(self.find_related)
            words, span = self.selected_words(), self.selected_span()
            word = looks_up(words, self._map.text[max(0, span[0] - 40):span[0]]) if words and span else None
            if word:
                look_up = menu.addAction(f"Look Up \u201c{word}\u201d")
                look_up.setStatusTip("What the word means, from a dictionary, with the book's lines that use it")
                look_up.triggered.connect(lambda: self.lookUpRequested.emit(word))
            if words is not None:
                find = menu.addAction(f"Find \u201c{words}\u201d in the Book")
                find.triggered.connect(lambda: self.findRequested.emit(words))
            offset = self.paragraph_end_at(point)
            mark = menu.addAction("I Have Read Up to Here")
            mark.setStatusTip("Questions asked only from what you have read use the book up to this paragraph")
            mark.triggered.connect(lambda: self.mark_read_to(offset))
        return menu

    def contextMenuEvent(self, event) -> None:
        menu = self.context_menu(event.pos())
        menu.exec(event.globalPos())
        menu.deleteLater()
