"""The table-of-contents sidebar: parts as parents, sections under them."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QApplication, QMenu, QTreeWidget, QTreeWidgetItem

from engine.answer.selection import sections_named
from engine.book import Book, readable

OFFSET_ROLE = Qt.ItemDataRole.UserRole
ORDINAL_ROLE = Qt.ItemDataRole.UserRole + 1
PART_ROLE = Qt.ItemDataRole.UserRole + 2  # a part's ordinal
# A longer name than this in the section menu reads as a count of sections.
_MENU_NAME_CHARACTERS = 40


class ContentsView(QTreeWidget):
    sectionActivated = Signal(int)  # stored-text offset to scroll to
    askAboutRequested = Signal(list)  # the ordinals of the sections to ask about

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setHeaderHidden(True)
        self.setRootIsDecorated(True)
        self.setUniformRowHeights(True)
        # Ctrl- and Shift-clicks pick several sections to ask about together.
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setAccessibleName("Table of contents")
        self.itemClicked.connect(self._activate)
        self.itemActivated.connect(self._activate)
        self._section_items: dict[int, QTreeWidgetItem] = {}
        self._section_starts: list[tuple[int, int]] = []
        self._sections = []
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)

    def show_book(self, book: Book) -> None:
        self.clear()
        self._section_items.clear()
        parents: dict[int, QTreeWidgetItem] = {}
        first_start = min([s.start for s in book.sections] + [p.start for p in book.parts], default=0)
        if first_start > 0:
            opening = QTreeWidgetItem(self, ["Beginning"])
            opening.setData(0, OFFSET_ROLE, 0)
            opening.setToolTip(0, "Title page and front matter")
        for part in book.parts:
            item = QTreeWidgetItem(self, [f"{part.label}: {readable(part.title)}" if part.title else part.label])
            item.setData(0, OFFSET_ROLE, part.start)
            item.setData(0, PART_ROLE, part.ordinal)
            item.setExpanded(True)
            parents[part.ordinal] = item
        for section in book.sections:
            parent = parents.get(section.part) if section.part else None
            label = section.display_name
            if parent is not None:
                # Under "Part II" the part prefix of a label is noise.
                prefix = f"{book.parts[section.part - 1].label}, "
                label = label[len(prefix):] if label.startswith(prefix) else label
            item = QTreeWidgetItem(parent if parent is not None else self, [label])
            item.setData(0, OFFSET_ROLE, section.start)
            item.setData(0, ORDINAL_ROLE, section.ordinal)
            item.setToolTip(0, section.display_name)
            self._section_items[section.ordinal] = item
        self._section_starts = [(s.start, s.ordinal) for s in book.sections]
        self._sections = book.sections
        self.expandAll()

    def section_item(self, ordinal: int) -> QTreeWidgetItem | None:
        return self._section_items.get(ordinal)

    def follow(self, offset: int) -> None:
        """Mark the section the reader is in, without emitting a jump."""
        if len(self.selectedItems()) > 1:
            return  # chapters picked to ask about together stay picked while the reader reads on
        current = None
        for start, ordinal in self._section_starts:
            if start <= offset:
                current = ordinal
            else:
                break
        item = self._section_items.get(current) if current else None
        if item is not None and item is not self.currentItem():
            self.blockSignals(True)
            # Said outright: the selection command otherwise follows the keys held (Ctrl adds to the pick).
            self.setCurrentItem(item, 0, QItemSelectionModel.SelectionFlag.ClearAndSelect)
            self.scrollToItem(item)
            self.blockSignals(False)

    def show_asked_about(self, ordinals: list[int], offset: int) -> None:
        """Show the sections the next question is about picked; with none
        (the question asked, or the pick dropped), only the section the
        reader is in, at `offset`, as the contents follow the reader again:
        chapters left picked would say the next question is about them too."""
        self.blockSignals(True)
        self.clearSelection()
        for ordinal in ordinals:
            item = self._section_items.get(ordinal)
            if item is not None:
                item.setSelected(True)
        if not ordinals:
            self.setCurrentItem(None)  # `follow` marks a section only when it is not the current item already
        self.blockSignals(False)
        if not ordinals:
            self.follow(offset)

    def _activate(self, item: QTreeWidgetItem) -> None:
        # A Ctrl- or Shift-click adds to the sections picked; it does not go there.
        picking = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
        if QApplication.keyboardModifiers() & picking:
            return
        self._go_to(item)

    def sections_of(self, item: QTreeWidgetItem) -> list[int]:
        """The sections an item stands for: a section, or a part's sections."""
        ordinal = item.data(0, ORDINAL_ROLE)
        if ordinal is not None:
            return [int(ordinal)]
        part = item.data(0, PART_ROLE)
        return [s.ordinal for s in self._sections if part is not None and s.part == part]

    def sections_to_ask_about(self, item: QTreeWidgetItem) -> list[int]:
        """The item's sections, or, when it is one of several selected items,
        all of theirs."""
        items = self.selectedItems() if item.isSelected() else [item]
        return sorted({ordinal for each in items for ordinal in self.sections_of(each)})

    def section_menu(self, item: QTreeWidgetItem) -> QMenu:
        """A section's menu: go there, or ask a question about it alone (or
        about the part, or the sections selected with it)."""
        menu = QMenu(self)
        menu.addAction("Go to", lambda: self._go_to(item))
        ordinals = self.sections_to_ask_about(item)
        if ordinals:
            menu.addAction(f"Ask About {self._menu_name(item, ordinals)} Only",
                           lambda: self.askAboutRequested.emit(ordinals))
        return menu

    def _go_to(self, item: QTreeWidgetItem) -> None:
        offset = item.data(0, OFFSET_ROLE)
        if offset is not None:
            self.sectionActivated.emit(int(offset))

    def _menu_name(self, item: QTreeWidgetItem, ordinals: list[int]) -> str:
        if item.data(0, PART_ROLE) is not None and ordinals == self.sections_of(item):
            return item.text(0).split(":")[0]  # "Part 2"
        name = sections_named(self._sections, ordinals)
        return name if len(name) <= _MENU_NAME_CHARACTERS else f"These {len(ordinals)} Sections"

    def _menu(self, point) -> None:
        item = self.itemAt(point)
        if item is not None:
            menu = self.section_menu(item)
            menu.exec(self.viewport().mapToGlobal(point))
            menu.deleteLater()
