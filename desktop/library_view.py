"""The library: every imported book with its author, size and how far its
index has got (with live progress while it is being built)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.durations import duration_text

BOOK_ID_ROLE = Qt.ItemDataRole.UserRole
SORT_ROLE = Qt.ItemDataRole.UserRole + 1  # what a column sorts by where its text would mislead ("16 k" < "2 M")
# The stage shown for a book whose database cannot be read: it can be
# repaired (made again from its original file) or removed.
DAMAGED = -1
STAGE_NAMES = {DAMAGED: "damaged: repair it", 0: "not indexed", 1: "searchable (stage 1 of 4)",
               2: "stage 2 of 4", 3: "stage 3 of 4", 4: "fully indexed"}


def describe_progress(progress) -> str:
    share = progress.done / progress.total if progress.total else 0
    left = ""
    if progress.eta_seconds:
        left = f", {duration_text(progress.eta_seconds)} left"
    if progress.stage_name == "vectors":  # a searchable book's vectors made again: its stage stands
        return f"updating its vectors {share:.0%}{left}"
    if progress.stage == 1 and progress.searchable:  # its words searchable, its vectors being made
        return f"searchable by its words; indexing stage 1 of 4: {progress.stage_name} {share:.0%}{left}"
    return f"indexing stage {progress.stage} of 4: {progress.stage_name} {share:.0%}{left}"


class _BookItem(QTableWidgetItem):
    """A cell that sorts by its sort value (a number), else by its text
    without regard to case."""

    def __lt__(self, other) -> bool:
        mine, theirs = self.data(SORT_ROLE), other.data(SORT_ROLE)
        if mine is not None and theirs is not None:
            return mine < theirs
        return self.text().casefold() < other.text().casefold()


def _key(widget: QWidget, key, slot) -> None:
    """A key that acts only while `widget` has the focus (PySide ignores a
    context given to QShortcut's constructor along with its slot)."""
    shortcut = QShortcut(QKeySequence(key), widget)
    shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
    shortcut.activated.connect(slot)


class LibraryView(QWidget):
    openRequested = Signal(str)
    importRequested = Signal()
    removeRequested = Signal(str)
    repairRequested = Signal(str)
    cancelIndexingRequested = Signal(str)
    indexRequested = Signal(str)
    showFolderRequested = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 12, 12, 12)
        heading = QLabel("<h2>Library</h2>", self)
        self.hint = QLabel("Drop a book file (.txt, .epub, .html or .zip) here, or import one.", self)
        self.hint.setEnabled(False)
        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText("Filter by title or author")
        self.filter.setClearButtonEnabled(True)
        self.filter.setAccessibleName("Filter the books")
        self.filter.textChanged.connect(self._apply_filter)
        self.filter.returnPressed.connect(self._go_to_list)
        _key(self.filter, Qt.Key.Key_Down, self._go_to_list)
        _key(self.filter, Qt.Key.Key_Escape, self.filter.clear)
        self.table = QTableWidget(0, 5, self)
        self.table.setHorizontalHeaderLabels(["Title", "Author", "Size", "Index", "Read"])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.setShowGrid(False)
        self.table.setAlternatingRowColors(True)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.ResizeToContents)
        # A double click or Enter opens the selected book, Delete removes it.
        self.table.itemDoubleClicked.connect(lambda item: self._emit_open())
        _key(self.table, Qt.Key.Key_Return, self._emit_open)
        _key(self.table, Qt.Key.Key_Enter, self._emit_open)
        _key(self.table, QKeySequence.StandardKey.Delete, lambda: self._emit(self.removeRequested))
        self.table.setAccessibleName("Books in the library")
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._row_menu)

        buttons = QHBoxLayout()
        self.import_button = QPushButton("Import\u2026", self)
        self.open_button = QPushButton("Open", self)
        # One button: stops a book's indexing, or starts it again (after a
        # stop, or an error such as a full disk that the user has since fixed).
        self.index_button = QPushButton("Index now", self)
        # Wide enough for either label: the buttons beside it stay put as it changes.
        self.index_button.setMinimumWidth(self.index_button.sizeHint().width()
                                          + self.index_button.fontMetrics().horizontalAdvance("Stop indexing")
                                          - self.index_button.fontMetrics().horizontalAdvance("Index now"))
        self.remove_button = QPushButton("Remove\u2026", self)
        self.repair_button = QPushButton("Repair\u2026", self)
        self.repair_button.setToolTip("Make the book again from the file it was imported from, keeping its questions "
                                      "and reading position; its index is built again")
        self.import_button.clicked.connect(self.importRequested)
        self.open_button.clicked.connect(self._emit_open)
        self.remove_button.clicked.connect(lambda: self._emit(self.removeRequested))
        self.repair_button.clicked.connect(lambda: self._emit(self.repairRequested))
        self.index_button.clicked.connect(self._index_clicked)
        buttons.addWidget(self.import_button)
        buttons.addStretch(1)
        for button in (self.index_button, self.repair_button, self.remove_button, self.open_button):
            buttons.addWidget(button)
        top = QHBoxLayout()
        top.addWidget(heading)
        top.addStretch(1)
        top.addWidget(self.filter)
        self.filter.setMinimumWidth(260)
        layout.addLayout(top)
        layout.addWidget(self.hint)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        self._stages: dict[str, int] = {}
        self._items: dict[str, list[QTableWidgetItem]] = {}  # each book's cells, wherever sorting puts them
        self._words_only: set[str] = set()  # stage 0 books searchable by their words
        self._active: set[str] = set()  # books indexing or waiting their turn
        self.target_stage = 4
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self._update_buttons()

    def stage_name(self, book_id: str, stage: int) -> str:
        if stage == 0 and book_id in self._words_only:
            return "searchable by its words (stage 1 unfinished)"
        return STAGE_NAMES.get(stage, f"stage {stage}")

    def mark_searchable(self, book_id: str) -> None:
        """A book whose stage 1 has published its words (its vectors may be unmade)."""
        self._words_only.add(book_id)

    def show_books(self, books: list[tuple], indexing: str | None = None) -> None:
        """books: (BookSummary, stage reached[, searchable]) tuples."""
        selected = self.selected_book()
        self.table.setSortingEnabled(False)  # rows stay where they are put while they are filled
        self.table.setRowCount(0)
        self._items = {}
        self._words_only = {summary.book_id for summary, _stage, *searchable in books if searchable and searchable[0]}
        for summary, stage, *_ in books:
            row = self.table.rowCount()
            self.table.insertRow(row)
            size = f"{summary.characters / 1e6:.1f} M characters" if summary.characters >= 1e6 else \
                f"{summary.characters // 1000:,} k characters"
            if summary.damaged:
                size = ""  # nothing of it could be read
            cells = [summary.title, summary.author or "", size, self.stage_name(summary.book_id, stage), ""]
            sort_values = [None, None, -1 if summary.damaged else summary.characters, stage, -1.0]
            items = self._items[summary.book_id] = []
            for column, (text, sort_value) in enumerate(zip(cells, sort_values)):
                item = _BookItem(text)
                item.setData(BOOK_ID_ROLE, summary.book_id)
                item.setData(SORT_ROLE, sort_value)
                item.setToolTip(f"{summary.title}\n{summary.source_file}\n{summary.sections} sections")
                self.table.setItem(row, column, item)
                items.append(item)
            self._stages[summary.book_id] = stage
        self.table.setSortingEnabled(True)  # sorted again by the column the reader chose
        self.hint.setVisible(not books)
        self.filter.setVisible(bool(books))
        self.select(selected)
        self._apply_filter()
        self._update_buttons()

    @property
    def _rows(self) -> dict[str, int]:
        """Each book's row as the table is sorted now."""
        return {book_id: self.table.row(items[0]) for book_id, items in self._items.items()}

    def _row_of(self, book_id: str | None) -> int | None:
        items = self._items.get(book_id)
        return self.table.row(items[0]) if items else None

    def find(self) -> None:
        """Ctrl+F on the library: type to filter it."""
        if self.filter.isVisible():
            self.filter.setFocus(Qt.FocusReason.ShortcutFocusReason)
            self.filter.selectAll()

    def _go_to_list(self) -> None:
        """From the filter to the books it leaves, the first selected if none is."""
        if self.selected_book() is None:
            shown = [row for row in range(self.table.rowCount()) if not self.table.isRowHidden(row)]
            if not shown:
                return
            self.table.selectRow(shown[0])
        self.table.setFocus(Qt.FocusReason.OtherFocusReason)

    def _apply_filter(self) -> None:
        words = self.filter.text().casefold().split()
        selected = self.selected_book()  # asked first: a hidden row's selection is not reported
        for row in range(self.table.rowCount()):
            listed = f"{self.table.item(row, 0).text()} {self.table.item(row, 1).text()}".casefold()
            self.table.setRowHidden(row, not all(word in listed for word in words))
        if selected is not None and self.table.isRowHidden(self._row_of(selected)):
            self.table.clearSelection()  # no button acts on a book out of sight
            self._update_buttons()

    def set_status(self, book_id: str, text: str, explanation: str = "") -> None:
        if book_id in self._items:
            self._items[book_id][3].setText(text)
            self._items[book_id][3].setToolTip(explanation)

    def set_read(self, shares: dict[str, float | None]) -> None:
        """How much of each book has been read (None: never opened)."""
        for book_id, share in shares.items():
            if book_id not in self._items:
                continue
            item = self._items[book_id][4]
            item.setText(f"{max(1, round(share * 100))}%" if share else "")
            item.setData(SORT_ROLE, share or -1.0)
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            item.setToolTip("How far you have read: what questions asked \u201conly from what I have read\u201d use"
                            if share else "Not read yet")

    def set_stage(self, book_id: str, stage: int) -> None:
        self._stages[book_id] = stage
        self.set_status(book_id, self.stage_name(book_id, stage))
        if book_id in self._items:
            self._items[book_id][3].setData(SORT_ROLE, stage)
        self._update_buttons()

    def set_active(self, book_ids: set[str]) -> None:
        self._active = set(book_ids)
        self._update_buttons()

    def title_of(self, book_id: str) -> str:
        return self._items[book_id][0].text() if book_id in self._items else book_id

    def selected_book(self) -> str | None:
        items = self.table.selectedItems()
        return items[0].data(BOOK_ID_ROLE) if items else None

    def select(self, book_id: str | None) -> None:
        row = self._row_of(book_id)
        if row is not None:
            self.table.selectRow(row)

    def row_menu(self, book_id: str) -> QMenu:
        """A book's right-click menu: what its buttons do, and its folder."""
        self.select(book_id)
        menu = QMenu(self)
        for button in (self.open_button, self.index_button, self.repair_button, self.remove_button):
            action = menu.addAction(button.text(), button.click)
            action.setEnabled(button.isEnabled())
        menu.addSeparator()
        menu.addAction("Show in File Manager", lambda: self.showFolderRequested.emit(book_id))
        return menu

    def _row_menu(self, point) -> None:
        item = self.table.itemAt(point)
        if item is not None:
            menu = self.row_menu(item.data(BOOK_ID_ROLE))
            menu.exec(self.table.viewport().mapToGlobal(point))
            menu.deleteLater()

    def _emit_open(self) -> None:
        self._emit(self.openRequested)

    def _emit(self, signal) -> None:
        book_id = self.selected_book()
        if book_id:
            signal.emit(book_id)

    def _index_clicked(self) -> None:
        book_id = self.selected_book()
        if book_id:
            (self.cancelIndexingRequested if book_id in self._active else self.indexRequested).emit(book_id)

    def _update_buttons(self) -> None:
        book_id = self.selected_book()
        damaged = self._stages.get(book_id) == DAMAGED
        self.remove_button.setEnabled(book_id is not None)
        self.repair_button.setEnabled(book_id is not None)
        # A damaged book may still open (its text whole, its index spoilt); if
        # not, opening says so, with Repair beside the message.
        self.open_button.setEnabled(book_id is not None)
        active = book_id in self._active
        self.index_button.setText("Stop indexing" if active else "Index now")
        self.index_button.setEnabled(book_id is not None and not damaged and
                                     (active or self._stages.get(book_id, 0) < self.target_stage))
