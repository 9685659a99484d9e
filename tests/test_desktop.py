"""The first window, driven for real offscreen: it imports the bundled sample
book off the UI thread, shows its contents and text, and scrolls to a section
when one is clicked."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl  # noqa: E402
from PySide6.QtGui import QDropEvent  # noqa: E402
from PySide6.QtWidgets import QMenu  # noqa: E402

from desktop.app import create_application, open_initial_book  # noqa: E402
from desktop.main_window import MainWindow  # noqa: E402
from engine.store import Library  # noqa: E402


@pytest.fixture
def window(qtbot, chapterhouse_home):
    create_application()
    main = MainWindow(Library())
    qtbot.addWidget(main)
    main.resize(1100, 760)
    main.show()
    qtbot.waitExposed(main)
    yield main
    main.close()


def _open_sample(qtbot, window):
    with qtbot.waitSignal(window.bookOpened, timeout=20000) as opened:
        open_initial_book(window, None)
    return opened.args[0]


def test_opens_the_sample_book_with_its_contents(qtbot, window):
    book_id = _open_sample(qtbot, window)
    assert window.library.has_book(book_id)
    labels = [window.contents.topLevelItem(i).text(0) for i in range(window.contents.topLevelItemCount())]
    assert labels == ["Beginning", "Stave I: Marley's Ghost", "Stave II: The First of the Three Spirits",
                      "Stave III: The Second of the Three Spirits", "Stave IV: The Last of the Spirits",
                      "Stave V: The End of It"]
    assert window.reader.toPlainText().startswith("A CHRISTMAS CAROL")
    assert "Marley was dead" in window.reader.toPlainText().replace("MARLEY", "Marley")
    assert "Christmas Carol" in window.windowTitle()


def test_the_text_wraps_to_the_reading_column_at_every_size(qtbot, window):
    """The centred column's margins narrowed the viewport after the text had
    wrapped to the wider one: on a book's first opening its lines ran past
    the column's right edge, cut off, over a horizontal scroll bar."""
    from desktop.reader_view import reading_width

    window.resize(1600, 900)
    _open_sample(qtbot, window)
    reader = window.reader

    def wrapped_to_the_column() -> bool:
        return (reader.document().textWidth() == reader.viewport().width()
                and reader.horizontalScrollBar().maximum() == 0)

    qtbot.waitUntil(wrapped_to_the_column, timeout=5000)
    assert reader.viewport().width() == reading_width(reader.point_size)  # centred, with room to spare
    # A larger font widens the column: as many characters a line at every size.
    reader.set_point_size(reader.point_size + 3)
    qtbot.waitUntil(wrapped_to_the_column, timeout=5000)
    assert reader.viewport().width() == reading_width(reader.point_size)
    window.resize(1000, 760)  # narrower than the column: the text wraps to what there is
    qtbot.waitUntil(lambda: reader.viewport().width() < reading_width(reader.point_size), timeout=5000)
    qtbot.waitUntil(wrapped_to_the_column, timeout=5000)


def test_clicking_a_section_scrolls_the_reader_to_it(qtbot, window):
    _open_sample(qtbot, window)
    stave_three = window.book.sections[2]
    assert not window.reader.is_offset_visible(stave_three.start)
    item = window.contents.section_item(3)
    rect = window.contents.visualItemRect(item)
    qtbot.mouseClick(window.contents.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: window.reader.is_offset_visible(stave_three.start), timeout=5000)
    top = window.reader.cursorForPosition(QPoint(10, 20)).block().text()
    assert top.startswith("STAVE III")
    assert window.reader.offset_at_top() == stave_three.start
    # Scrolling back up moves the contents' marker with the reader.
    window.reader.scroll_to_offset(window.book.sections[0].body_start + 5)
    qtbot.waitUntil(lambda: window.contents.currentItem() is window.contents.section_item(1), timeout=5000)


def test_dropping_a_book_file_imports_and_opens_it(qtbot, window, fixtures):
    path = fixtures / "black-beauty-excerpt.txt"
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(QPointF(200, 200), Qt.DropAction.CopyAction, data, Qt.MouseButton.NoButton,
                       Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(window.bookOpened, timeout=20000) as opened:
        window.dropEvent(event)
    assert window.library.summary(opened.args[0]).title == "Black Beauty"
    assert window.contents.topLevelItem(1).text(0) == "Part I"
    assert window.contents.topLevelItem(1).child(0).text(0) == "Chapter 1: My Early Home"


def test_books_dropped_together_are_all_imported_and_the_first_good_one_opened(qtbot, window, fixtures, tmp_path):
    bad = tmp_path / "empty.epub"
    bad.write_bytes(b"")
    not_a_book = tmp_path / "notes.pdf"
    not_a_book.write_bytes(b"%PDF-1.4")
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(path)) for path in
                  (bad, not_a_book, fixtures / "three-chapters.txt", fixtures / "black-beauty-excerpt.txt")])
    event = QDropEvent(QPointF(200, 200), Qt.DropAction.CopyAction, data, Qt.MouseButton.NoButton,
                       Qt.KeyboardModifier.NoModifier)
    opened = []
    window.bookOpened.connect(opened.append)
    window.dropEvent(event)
    qtbot.waitUntil(lambda: len(window.library.list_books()) == 2, timeout=30000)
    qtbot.wait(500)  # time enough to open another book, were one opened
    titles = {book.book_id: book.title for book in window.library.list_books()}
    # The empty file is said in one line; the next book is opened in its place, the last one only listed.
    assert str(bad) in window.banner.label.text() and "file is empty" in window.banner.label.text()
    assert [titles[book_id] for book_id in opened] == ["Three Chapters from Black Beauty"]
    # Both are queued for indexing (or being indexed).
    assert all(book_id in window.indexing.queue or book_id == window.indexing.current for book_id in titles)


def test_a_bad_file_shows_a_message_in_the_window(qtbot, window, tmp_path):
    bad = tmp_path / "empty.epub"
    bad.write_bytes(b"")
    with qtbot.waitSignal(window.importFailed, timeout=10000):
        window.import_file(bad)
    assert window.banner.isVisible()
    assert str(bad) in window.banner.label.text() and "file is empty" in window.banner.label.text()
    assert window.library.list_books() == []


def test_an_export_that_cannot_be_written_names_the_file(qtbot, window, tmp_path):
    _open_sample(qtbot, window)
    target = tmp_path / "no such folder" / "questions.md"
    window.export_history_to(target)
    qtbot.waitUntil(window.banner.isVisible, timeout=10000)
    assert window.banner.label.text() == f"Exporting: {target}: No such file or directory"
    # An export that fails half-way leaves the earlier one whole (it is written aside, then moved).
    window.banner.hide()
    earlier = tmp_path / "questions.md"
    earlier.write_text("An earlier export\n", encoding="utf-8")
    (tmp_path / "questions.md.partial").mkdir()  # where the new one would be written: it cannot be
    window.export_history_to(earlier)
    qtbot.waitUntil(window.banner.isVisible, timeout=10000)
    assert window.banner.label.text() == f"Exporting: {earlier}: Is a directory"
    assert earlier.read_text(encoding="utf-8") == "An earlier export\n"


def test_qt_bindings_keep_none_alive(qtbot):
    """PySide6 6.12.0 under Python 3.11 dropped a reference to None on each
    call of a void method (setText, setValue, processEvents...): None's count
    ran down and the app died ("Fatal Python error: none_dealloc") after some
    thousands of calls. pyproject.toml keeps that release out; this catches a
    binding with the same fault."""
    import sys

    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QLabel

    create_application()
    label = QLabel()
    qtbot.addWidget(label)
    before = sys.getrefcount(None)
    for _ in range(2000):
        label.setText("x")
        QCoreApplication.processEvents()
    assert sys.getrefcount(None) > before - 200


def test_the_library_sorts_by_any_column_and_filters_by_title_or_author(qtbot, fixtures):
    from desktop.library_view import LibraryView

    library = Library()
    for name in ("black-beauty-excerpt.txt", "three-chapters.txt", "call-of-the-wild-excerpt.html"):
        library.import_book(fixtures / name)
    books = library.list_books()
    by_title = {book.title: book for book in books}
    create_application()
    view = LibraryView()
    qtbot.addWidget(view)
    view.show_books([(book, 1) for book in books])
    view.set_read({by_title["The Call of the Wild"].book_id: 0.5, by_title["Black Beauty"].book_id: 0.02})

    def column(number):
        return [view.table.item(row, number).text() for row in range(view.table.rowCount())
                if not view.table.isRowHidden(row)]

    assert column(0) == ["Black Beauty", "The Call of the Wild", "Three Chapters from Black Beauty"]
    # Sizes by their number of characters, not their text ("8 k" after "16 k").
    view.table.sortByColumn(2, Qt.SortOrder.AscendingOrder)
    assert column(0) == sorted(by_title, key=lambda title: by_title[title].characters)
    view.table.sortByColumn(4, Qt.SortOrder.DescendingOrder)
    assert column(0)[:2] == ["The Call of the Wild", "Black Beauty"] and column(4)[:2] == ["50%", "2%"]
    # Progress and selection follow each book wherever sorting put it.
    call = by_title["The Call of the Wild"].book_id
    view.set_status(call, "indexing stage 2 of 4: section summaries 10%")
    assert view.table.item(view._rows[call], 0).text() == "The Call of the Wild"
    assert view.table.item(view._rows[call], 3).text() == "indexing stage 2 of 4: section summaries 10%"
    view.select(call)
    assert view.selected_book() == call and view.title_of(call) == "The Call of the Wild"
    # A listing again keeps the order the reader chose, and the selection.
    view.table.sortByColumn(2, Qt.SortOrder.AscendingOrder)
    view.show_books([(book, 1) for book in reversed(books)])
    assert column(2) == sorted(column(2), key=lambda size: int(size.split()[0]))
    assert view.selected_book() == call
    view.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    view.filter.setText("sewell")
    assert column(0) == ["Black Beauty", "Three Chapters from Black Beauty"]
    assert view.selected_book() is None and not view.open_button.isEnabled()  # the one selected is out of sight
    view.filter.setText("CALL  wild")
    assert column(0) == ["The Call of the Wild"]
    view.filter.clear()
    assert len(column(0)) == 3


def _map_of_three_chapters(qtbot):
    """A book map 302 px wide of a book of three chapters of 1,000 characters."""
    from types import SimpleNamespace

    from desktop.book_map import BookMap

    book_map = BookMap()
    qtbot.addWidget(book_map)
    book = SimpleNamespace(sections=[SimpleNamespace(ordinal=n, display_name=f"Chapter {n}", start=1000 * (n - 1),
                                                     end=1000 * n) for n in (1, 2, 3)])
    book_map.set_book(book)
    book_map.resize(302, 30)
    return book_map, book


def test_a_long_question_wraps_in_its_box_and_enter_asks_it(qtbot):
    from desktop.question_box import QuestionBox

    box = QuestionBox()
    qtbot.addWidget(box)
    box.resize(300, 30)
    box.show()
    qtbot.waitExposed(box)
    assert box.lines_shown() == 1
    question = "How does the door knocker that startles Scrooge on Christmas Eve reappear after his night with the spirits?"
    box.setText(question)
    qtbot.waitUntil(lambda: box.lines_shown() > 1)  # the whole question in view, not its last words
    assert box.text() == question and box.lines_shown() <= 4
    assert box.textCursor().position() == 0  # a question put back in the box shows its start
    box.setText(question * 6)
    qtbot.waitUntil(lambda: box.lines_shown() == 4)  # taller than four lines, it scrolls
    assert box.verticalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAsNeeded
    box.setText("Who is Marley?")
    qtbot.waitUntil(lambda: box.lines_shown() == 1)
    box.moveCursor(box.textCursor().MoveOperation.End)
    qtbot.keyClick(box, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)  # a new line, not a question
    assert box.text() == "Who is Marley?\n"
    with qtbot.waitSignal(box.submitted, timeout=1000):
        qtbot.keyClick(box, Qt.Key.Key_Return)
    assert box.text() == "Who is Marley?\n"  # Enter asks; it adds no line


def test_a_book_file_dragged_onto_the_question_box_goes_on_to_the_window(qtbot, fixtures):
    from PySide6.QtGui import QDragEnterEvent
    from PySide6.QtWidgets import QApplication

    from desktop.question_box import QuestionBox

    box = QuestionBox()
    qtbot.addWidget(box)
    box.show()
    qtbot.waitExposed(box)

    def entered(data: QMimeData) -> bool:
        event = QDragEnterEvent(QPoint(5, 5), Qt.DropAction.CopyAction, data, Qt.MouseButton.NoButton,
                                Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(box.viewport(), event)
        return event.isAccepted()

    book = QMimeData()
    book.setUrls([QUrl.fromLocalFile(str(fixtures / "black-beauty-excerpt.txt"))])
    book.setText(str(fixtures / "black-beauty-excerpt.txt"))  # as file managers also offer it
    assert not entered(book)  # refused here, it reaches the window, which imports it
    words = QMimeData()
    words.setText("Who is Marley?")
    assert entered(words)  # text is still dropped into the question


def test_the_book_map_keeps_a_gap_between_marked_sections(qtbot):
    book_map, _ = _map_of_three_chapters(qtbot)
    book_map.mark({1, 2, 3}, cited={1, 2})
    image = book_map.grab().toImage()
    window = book_map.palette().color(book_map.palette().ColorRole.Window)
    bands = dict(book_map.bands())
    middle = image.height() // 2
    for ordinal in (1, 2):  # where section 1 meets 2 (both cited) and 2 meets 3 (cited, evidence)
        assert image.pixelColor(round(bands[ordinal].right()), middle) == window
        assert image.pixelColor(round(bands[ordinal].center().x()), middle) != window


def test_the_book_map_ticks_where_in_a_section_each_passage_lies(qtbot):
    book_map, _ = _map_of_three_chapters(qtbot)
    book_map.mark({2}, cited={2})
    plain = book_map.grab().toImage()
    # Chapter 2 runs from 1000 to 2000: one quoted passage in its first half, one not quoted near its end.
    book_map.mark({2}, cited={2}, passages=[(1200, 1400, True), (1800, 1900, False)])
    ticked = book_map.grab().toImage()
    bands = dict(book_map.bands())
    assert abs(book_map.x_at(1500) - bands[2].center().x()) < 1 and book_map.x_at(-5) is None
    foot, middle = round(bands[2].bottom()) - 1, plain.height() // 2
    quoted, other, between = (round(book_map.x_at(offset)) for offset in (1300, 1850, 1600))
    assert ticked.pixelColor(quoted, foot) != plain.pixelColor(quoted, foot)
    assert ticked.pixelColor(other, foot) != plain.pixelColor(other, foot)
    # A quoted passage's tick is stronger than one only retrieved.
    assert ticked.pixelColor(quoted, foot) != ticked.pixelColor(other, foot)
    assert ticked.pixelColor(between, foot) == plain.pixelColor(between, foot)  # no passage there
    assert ticked.pixelColor(quoted, middle) == plain.pixelColor(quoted, middle)  # the band itself as before
    assert book_map.describe(bands[2].center().x()) == "Chapter 2 \u2014 cited (2 passages)"
    assert book_map.describe(bands[1].center().x()) == "Chapter 1"
    book_map.mark(set())
    assert not book_map.passages


def test_the_book_map_hatches_what_an_answer_so_far_could_not_use(qtbot):
    book_map, book = _map_of_three_chapters(qtbot)
    book_map.mark({1}, cited={1})
    whole = book_map.grab().toImage()
    assert book_map.unread_x() is None
    book_map.mark({1}, cited={1}, read_to=1500)  # the reader is halfway through Chapter 2
    so_far = book_map.grab().toImage()
    bands = dict(book_map.bands())
    assert abs(book_map.unread_x() - bands[2].center().x()) < 1
    row = so_far.height() // 2

    def differs(left: float, right: float) -> bool:
        return any(whole.pixelColor(x, row) != so_far.pixelColor(x, row) for x in range(round(left), round(right)))

    assert not differs(bands[1].left(), bands[2].center().x() - 2)  # what was read looks as before
    assert differs(bands[3].left() + 2, bands[3].right() - 2)  # the rest is hatched
    assert book_map.describe(bands[3].center().x()) == "Chapter 3 \u2014 not read yet, so not used"
    assert book_map.describe(bands[1].center().x()) == "Chapter 1 \u2014 cited"
    book_map.set_book(book)
    assert book_map.read_to is None


def test_the_process_is_prepared_for_a_window_that_never_freezes(qtbot):
    import gc
    import sys

    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    create_application()
    # Python's default (5 ms) let a worker's Python hold the UI thread off for
    # 5 ms at each of a repaint's calls: 100-190 ms stalls while indexing.
    assert sys.getswitchinterval() <= 0.001
    # What lives as long as the process (modules, the embedder) is left out of
    # the garbage collector's full walks: 40-60 ms each here, seen as a 106 ms
    # stall in CI while a book was laid out.
    assert gc.get_freeze_count() > 10000


def test_the_app_exits_without_an_error_with_a_model_loaded(tmp_path):
    """The process set-up freezes what is alive out of the garbage collector;
    frozen, llama.cpp's bindings were cleared at exit before the model they
    free: "TypeError: 'NoneType' object is not callable" on every quit."""
    import os
    import subprocess
    import sys

    script = ("from desktop.app import create_application\n"
              "from engine.llm.loading import open_generator\n"
              "create_application()\n"
              "open_generator()\n")
    environment = dict(os.environ, QT_QPA_PLATFORM="offscreen", CHAPTERHOUSE_HOME=str(tmp_path))
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    assert "Exception ignored" not in run.stderr and "Traceback" not in run.stderr, run.stderr


def test_a_remote_embedder_is_not_asked_before_the_window_shows(qtbot, monkeypatch):
    """A local embedder is loaded before the window shows; a remote one is
    not, since a slow or stopped server would hold the window back."""
    from engine.llm import ModelChoice, ModelSettings, remote

    contacted = []
    monkeypatch.setattr(remote.RemoteEmbedder, "__init__", lambda self, *args, **kwargs: contacted.append(args))
    ModelSettings(embedder=ModelChoice(source="remote", endpoint=remote.EndpointSettings("http://127.0.0.1:9"))).save()
    create_application()
    assert contacted == []


def test_the_app_opens_again_the_book_being_read_when_it_closed(qtbot, fixtures):
    """The sample book on the very first start; after that, the book that was
    in the reader when the window closed, or none if it closed on the library."""
    create_application()
    library = Library()

    def start() -> MainWindow:
        window = MainWindow(library)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        window.start()
        return window

    first = start()
    with qtbot.waitSignal(first.bookOpened, timeout=20000):
        open_initial_book(first, None)
    assert first.book.title.startswith("A Christmas Carol")
    other = library.import_book(fixtures / "three-chapters.txt").book_id
    with qtbot.waitSignal(first.bookOpened, timeout=20000):
        first.open_book(other)
    first.close()
    second = start()
    with qtbot.waitSignal(second.bookOpened, timeout=20000):
        open_initial_book(second, None)
    assert second.book.book_id == other and second.pages.currentIndex() == 1
    second.show_library()
    second.close()
    third = start()
    open_initial_book(third, None)
    qtbot.wait(1500)  # time enough to open a book, were one opened
    assert third.book is None and third.pages.currentIndex() == 0
    assert [book.book_id for book in library.list_books()].count(other) == 1  # nothing imported again
    third.close()


def test_reading_colours_are_chosen_from_the_view_menu_and_kept(qtbot, window):
    from PySide6.QtGui import QPalette
    from PySide6.QtWidgets import QApplication

    _open_sample(qtbot, window)
    base = QPalette.ColorRole.Base
    assert window.reader.colours == "system"
    night = next(item for item in window.colour_actions.actions() if item.data() == "night")
    night.trigger()
    assert night.isChecked() and window.reader.palette().color(base).name() == "#1d1f21"
    assert window.reader.palette().color(QPalette.ColorRole.Text).name() == "#d4d0c8"
    # The scroll bar beside the page goes dark with it.
    assert window.reader.verticalScrollBar().palette().color(QPalette.ColorRole.Button).name() == "#45494d"
    window.close()
    again = MainWindow(Library())
    qtbot.addWidget(again)
    assert again.reader.colours == "night" and again.reader.palette().color(base).name() == "#1d1f21"
    checked = [item.data() for item in again.colour_actions.actions() if item.isChecked()]
    assert checked == ["night"]
    again.set_reading_colours("system")
    assert again.reader.palette().color(base) == QApplication.palette().color(base)


def test_the_help_menu_lists_every_shortcut_as_set(qtbot, window, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    keys = dict(window.shortcuts())
    assert keys["Ctrl+K"] == "Ask a Question" and keys["Ctrl+Shift+K"] == "Ask About the Selection"
    assert keys["Ctrl+F"] == "Find in Library" and keys["Alt+Left"] == "\u2190 Back"
    assert keys["Esc"].startswith("Stop the answer") and keys["Ctrl++"] == "Larger Text"
    shown = []
    monkeypatch.setattr(QMessageBox, "information", lambda parent, title, text: shown.append(text))
    monkeypatch.setattr(QMessageBox, "about", lambda parent, title, text: shown.append(text))
    help_menu = next(menu for menu in window.menuBar().findChildren(QMenu) if menu.title() == "&Help")
    for item in help_menu.actions():
        item.trigger()
    assert "<b>Ctrl+Shift+K</b>" in shown[0] and "Ask About the Selection" in shown[0]
    assert str(window.library.root) in shown[1] and "nothing is sent anywhere" in shown[1]


def test_a_citation_shows_its_passage_when_the_pointer_rests_on_it(qtbot, window, fixtures):
    from dataclasses import asdict

    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QToolTip

    from desktop.ask_panel import markdown_html
    from engine.answer.answering import resolve_citations
    from engine.answer.digest import quoted
    from engine.answer.session import AnswerSession
    from engine.llm.settings import ModelSettings

    ModelSettings(answers="evidence").save()
    library = window.library
    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    session = AnswerSession(library, book_id)
    session.ensure_indexed()
    asked = session.ask("What did the old horse say about the hare?")
    cited = asked.retrieval.ranked[0]
    answer, citations, _ = resolve_citations(f"**The hare** was killed [{cited.id}].\n\n- by the dogs\n- in the "
                                             "field <b>&c</b>", session.context, asked.retrieval)
    result = {**asked.as_dict(), "answer": answer, "lead": "answer", "written": True,
              "citations": [asdict(c) for c in citations]}
    with qtbot.waitSignal(window.bookOpened, timeout=20000):
        window.open_book(book_id)
    panel = window.ask_panel
    panel.show_result(result)
    preview = panel.link_preview(f"cite:{cited.id}")
    support = citations[0].support  # the sentence of the passage backing the claim, shown rather than its opening
    assert "hare" in support["text"]
    assert preview == f"{citations[0].label}: {quoted(support['text'])}\n(click to read it in the book)"
    assert panel.link_preview("quote:0").startswith(result["digest"][0]["label"])
    assert panel.link_preview("cite:p99.1") == ""
    view = panel.answer_view
    point = next(QPoint(x, y) for y in range(0, view.viewport().height(), 3)
                 for x in range(0, view.viewport().width(), 3) if view.anchorAt(QPoint(x, y)) == f"cite:{cited.id}")
    QApplication.sendEvent(view.viewport(), QHelpEvent(QEvent.Type.ToolTip, point, view.viewport().mapToGlobal(point)))
    assert QToolTip.text() == preview
    # Followed, it shows the passage with that sentence marked within it.
    with qtbot.waitSignal(panel.citationActivated) as activated:
        panel.follow_link(f"cite:{cited.id}")
    assert activated.args == [cited.start, cited.end, support["start"], support["end"]]
    reader = window.reader
    passage, sentence = reader.document_span(cited.start, cited.end), reader.document_span(support["start"],
                                                                                           support["end"])
    assert reader.highlighted_span() == (passage.selectionStart(), passage.selectionEnd())
    assert reader.marked_sentence() == (sentence.selectionStart(), sentence.selectionEnd())
    qtbot.waitUntil(lambda: reader.is_offset_visible(support["start"]), timeout=5000)
    # The answer's Markdown is rendered (a capable model writes some), its raw HTML shown as text,
    # and its links take the palette's colour, not a fixed blue.
    shown = view.toPlainText()
    assert f"The hare was killed [{citations[0].label}].\nby the dogs\nin the field <b>&c</b>" in shown
    assert "**" not in shown
    bold = view.document().find("The hare")
    assert bold.charFormat().fontWeight() == 700
    items = ("by the dogs", "in the field <b>&c</b>")
    assert [block.textList() is not None for block in _blocks(view.document()) if block.text() in items] == [True] * 2
    assert "color:#" not in markdown_html(f"[\\[Chapter 1\\]](cite:{cited.id})")
    # While it streams, the answer keeps its line breaks (its Markdown is rendered once it ends).
    # Its citations of evidence passages are links already, named by their section; others wait for the end.
    panel.result = {**result, "answer": "", "citations": []}
    panel._streamed = f"**The hare** ran [{cited.id}].\nThe dogs followed [p99.1] <b>"
    panel._render(streaming=True)
    label = asked.labels[cited.section]
    assert f"**The hare** ran [{label}].\nThe dogs followed [p99.1] <b>" in view.toPlainText()
    assert f'href="cite:{cited.id}"' in view.toHtml() and "cite:p99.1" not in view.toHtml()
    assert panel.link_preview(f"cite:{cited.id}").startswith(f"{label}: " + quoted(" ".join(cited.text.split()))[:30])
    with qtbot.waitSignal(panel.passageActivated) as activated:
        panel.follow_link(f"cite:{cited.id}")
    assert activated.args == [cited.start, cited.end]
    # A draft that only restated the question is said to be left out, not shown as an empty draft.
    panel.show_result({**result, "answer": "", "citations": [], "lead": "digest", "discarded_draft": "The hare?"})
    assert "The model's draft only restated the question" in view.toPlainText()
    assert "Draft answer" not in view.toPlainText()
    # Quoted sentences that follow one another read as one quotation, its link highlighting them all.
    first = result["digest"][0]
    second = {**first, "text": "The dogs followed.", "start": first["end"] + 1, "end": first["end"] + 19}
    panel.show_result({**result, "digest": [first, second]})
    assert view.toHtml().count('href="quote:0-1"') == 1 and 'href="quote:1"' not in view.toHtml()
    assert quoted(" ".join(first["text"].split()) + " The dogs followed.") in view.toPlainText()
    assert panel.link_preview("quote:0-1").startswith(first["label"]) and panel.link_preview("quote:1-0") == ""
    with qtbot.waitSignal(panel.passageActivated) as activated:
        panel.follow_link("quote:0-1")
    assert activated.args == [first["start"], second["end"]]


def _blocks(document):
    block = document.begin()
    while block.isValid():
        yield block
        block = block.next()


def test_up_and_down_recall_the_questions_asked_before(qtbot):
    from desktop.question_box import QuestionBox

    create_application()
    box = QuestionBox()
    qtbot.addWidget(box)
    box.show()
    box.earlier = ["Who is Duchess?", "Why did the hare run?"]
    qtbot.keyClick(box, Qt.Key.Key_Up)
    assert box.text() == "Why did the hare run?"
    qtbot.keyClick(box, Qt.Key.Key_Up)
    qtbot.keyClick(box, Qt.Key.Key_Up)  # stays at the first
    assert box.text() == "Who is Duchess?"
    qtbot.keyClick(box, Qt.Key.Key_Down)
    assert box.text() == "Why did the hare run?"
    qtbot.keyClick(box, Qt.Key.Key_Down)
    assert box.text() == ""
    # The reader's own text: the keys move the cursor, nothing is recalled over it.
    qtbot.keyClicks(box, "What did the old horse say")
    qtbot.keyClick(box, Qt.Key.Key_Up)
    assert box.text() == "What did the old horse say"


def test_the_contents_ask_about_a_part_or_the_chapters_picked_together(qtbot, fixtures):
    from desktop.contents_view import ORDINAL_ROLE, ContentsView
    from engine.answer.selection import sections_named

    library = Library()
    book = library.load(library.import_book(fixtures / "black-beauty-excerpt.txt").book_id)
    contents = ContentsView()
    qtbot.addWidget(contents)
    contents.show_book(book)
    opening, part = contents.topLevelItem(0), contents.topLevelItem(1)
    assert opening.text(0) == "Beginning" and part.text(0).startswith("Part I")
    assert [action.text() for action in contents.section_menu(opening).actions()] == ["Go to"]

    def offered(item) -> tuple[str, list[int]]:
        menu = contents.section_menu(item)
        asked = []
        contents.askAboutRequested.connect(asked.append)
        menu.actions()[1].trigger()
        contents.askAboutRequested.disconnect(asked.append)
        menu.deleteLater()
        return menu.actions()[1].text(), asked[0]

    assert offered(part) == ("Ask About Part I Only", [1, 2, 3])
    assert offered(contents.section_item(2)) == ("Ask About Chapter 2 Only", [2])
    # The item right-clicked among several selected: all of them.
    contents.section_item(1).setSelected(True)
    contents.section_item(3).setSelected(True)
    assert offered(contents.section_item(3)) == ("Ask About Chapter 1 and Chapter 3 Only", [1, 3])
    assert offered(contents.section_item(2)) == ("Ask About Chapter 2 Only", [2])  # not one of them
    # Reading on does not undo the pick; with one section picked, the contents follow the reader.
    contents.follow(book.sections[1].start)
    assert {item.data(0, ORDINAL_ROLE) for item in contents.selectedItems()} == {1, 3}
    contents.section_item(3).setSelected(False)
    contents.follow(book.sections[1].start)
    assert contents.selectedItems() == [contents.section_item(2)]
    assert sections_named(book.sections, [1, 2, 3]) == "Chapter 1 to Chapter 3"
    assert sections_named(book.sections, [3, 1, 2, 1]) == "Chapter 1 to Chapter 3"
    assert sections_named(book.sections, [1, 2]) == "Chapter 1 and Chapter 2"


def test_the_panes_are_put_away_and_back_and_the_reader_goes_full_screen(qtbot, window):
    _open_sample(qtbot, window)
    reading_width = window.reader.width()
    window.contents_action.trigger()
    window.ask_panel_action.trigger()
    qtbot.waitUntil(lambda: window.reader.width() > reading_width + 500, timeout=5000)  # the page has the room
    assert window.contents.isHidden() and window.ask_panel.isHidden()
    assert not window.contents_action.isChecked() and not window.ask_panel_action.isChecked()
    window.close()
    # Kept for the next start.
    again = MainWindow(Library())
    qtbot.addWidget(again)
    again.resize(1100, 760)
    again.show()
    qtbot.waitExposed(again)
    _open_sample(qtbot, again)
    assert again.contents.isHidden() and again.ask_panel.isHidden()
    assert not again.contents_action.isChecked() and not again.ask_panel_action.isChecked()
    again.contents_action.trigger()
    qtbot.waitUntil(lambda: again.contents.width() >= 200, timeout=5000)
    # Asking brings the ask panel back.
    again.ask_action.trigger()
    qtbot.waitUntil(lambda: again.ask_panel.width() >= 300, timeout=5000)
    assert again.ask_panel_action.isChecked() and again.ask_panel.question.hasFocus()
    # Dragged shut, then put away and shown again from the menu: it has its width back.
    again.reader_splitter.setSizes([0, sum(again.reader_splitter.sizes())])
    again.contents_action.trigger()
    again.contents_action.trigger()
    qtbot.waitUntil(lambda: again.contents.width() >= 200, timeout=5000)
    again.full_screen_action.trigger()
    qtbot.waitUntil(again.isFullScreen, timeout=5000)
    assert again.full_screen_action.isChecked()
    again.full_screen_action.trigger()
    qtbot.waitUntil(lambda: not again.isFullScreen(), timeout=5000)
    assert not again.full_screen_action.isChecked()
    again.close()


def test_a_worker_that_outlives_the_window_ends_quietly(qtbot):
    """A task still running when the app quits (past the window's wait for
    its workers) finds its signals gone: it ends without a traceback."""
    import shiboken6

    from desktop.tasks import TaskCancelled, TaskRunner

    def succeeds(context):
        return "done"

    def is_cancelled(context):
        raise TaskCancelled()

    def fails(context):
        return 1 / 0

    runner = TaskRunner()
    for work in (succeeds, is_cancelled, fails):
        task = runner.submit(work, name="Outliving the window")
        assert runner.wait(5000)
        shiboken6.delete(task.signals)
        task.run()  # as a pool thread would, after the window and its objects are gone
