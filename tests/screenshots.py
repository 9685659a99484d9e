#!/usr/bin/env python3
"""Screenshots of the real window in its main states, for people to look at.

    python tests/screenshots.py [OUT_DIR] [--dark] [--scale 2]

Runs offscreen (QT_QPA_PLATFORM=offscreen) with a fresh library in a
temporary folder and the embedded default models: the library while a book
indexes, the reader, find in book, an answer with citations and the book
map, a followed citation, the settings dialog, evidence only, a question
limited to what the reader has read, a question about a passage selected in
the reader, one about chapters picked in the contents, a name the book
never uses, one about a single scene, and a question on a long book just
imported, answered by its words while its vectors are still being made.
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?", default="screenshots")
    parser.add_argument("--dark", action="store_true")
    parser.add_argument("--scale", type=float, default=1.0)
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if args.scale != 1.0:
        os.environ["QT_SCALE_FACTOR"] = str(args.scale)
    home = tempfile.mkdtemp(prefix="chapterhouse-shots-")
    atexit.register(shutil.rmtree, home, True)  # after Qt and the engine let go of its files
    os.environ["CHAPTERHOUSE_HOME"] = home
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    suffix = ("-dark" if args.dark else "") + (f"-x{args.scale:g}" if args.scale != 1.0 else "")

    from PySide6.QtGui import QColor, QPalette
    from PySide6.QtTest import QTest

    from desktop.app import create_application
    from desktop.main_window import MainWindow
    from engine.paths import sample_book_path
    from engine.store import Library

    app = create_application()
    if args.dark:
        app.setStyle("Fusion")
        palette = QPalette()
        for role, colour in ((QPalette.ColorRole.Window, "#202124"), (QPalette.ColorRole.WindowText, "#e8eaed"),
                             (QPalette.ColorRole.Base, "#2a2b2e"), (QPalette.ColorRole.AlternateBase, "#303134"),
                             (QPalette.ColorRole.Text, "#e8eaed"), (QPalette.ColorRole.Button, "#303134"),
                             (QPalette.ColorRole.ButtonText, "#e8eaed"), (QPalette.ColorRole.Highlight, "#8ab4f8"),
                             (QPalette.ColorRole.HighlightedText, "#202124"), (QPalette.ColorRole.Mid, "#5f6368"),
                             (QPalette.ColorRole.Link, "#8ab4f8"), (QPalette.ColorRole.PlaceholderText, "#9aa0a6")):
            palette.setColor(role, QColor(colour))
        for role in (QPalette.ColorRole.ButtonText, QPalette.ColorRole.Text, QPalette.ColorRole.WindowText):
            palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#80868b"))
        app.setPalette(palette)

    library = Library()
    excerpt = library.import_book(ROOT / "tests" / "fixtures" / "black-beauty-excerpt.txt").book_id
    window = MainWindow(library, index_stage=4)
    window.resize(1440, 900)
    window.show()

    def wait(condition, seconds: float) -> None:
        deadline = time.time() + seconds
        while not condition() and time.time() < deadline:
            app.processEvents()
            time.sleep(0.02)
        for _ in range(10):
            app.processEvents()

    def shot(name: str, widget=None) -> None:
        for _ in range(10):
            app.processEvents()
        path = out / f"{name}{suffix}.png"
        (widget or window).grab().save(str(path))
        print(path)

    window.start()
    window.import_file(sample_book_path())
    wait(lambda: window.book is not None, 60)
    window.show_library()
    wait(lambda: window.indexing.current is not None and window.indexing.states.get(window.indexing.current)
         and window.indexing.states[window.indexing.current].progress is not None, 120)
    wait(lambda: False, 2)
    shot("1-library-indexing")

    window.open_book(window.book.book_id)
    wait(lambda: window.pages.currentIndex() == 1, 30)
    window.contents._activate(window.contents.section_item(2))
    shot("2-reader")

    window.find_in_book()
    window.find_bar.field.setText("Fezziwig")
    shot("3-find")
    window.find_bar.close_bar()

    window.ask_panel.question.setText("How does the door knocker that startles Scrooge on Christmas Eve reappear "
                                      "after his night with the spirits?")
    done = []
    window.ask_panel.answerFinished.connect(lambda result: done.append(result))
    window.ask_panel.ask()
    wait(lambda: window.ask_panel.result is not None and window.ask_panel.result.get("digest"), 120)
    shot("4-answer-streaming")
    wait(lambda: bool(done), 600)
    shot("5-answer-with-citations")
    result = done[0]
    window.ask_panel.follow_link(f"cite:{result['citations'][0]['passage_id']}" if result["citations"] else "quote:0")
    shot("6-citation-followed")

    from desktop.settings_dialog import SettingsDialog
    from engine.llm.settings import ModelSettings

    dialog = SettingsDialog(ModelSettings.load(), "SmolLM2-135M: CPU (this llama.cpp build has no GPU support)", window)
    dialog.resize(620, dialog.sizeHint().height())
    dialog.show()
    shot("7-settings", dialog)
    dialog.answers.setCurrentIndex(dialog.answers.findData("evidence"))
    settings = dialog.settings()
    dialog.close()

    # The same question with answers set to the evidence alone.
    window.apply_settings(settings)
    done.clear()
    window.ask_panel.ask()
    wait(lambda: bool(done), 120)
    shot("8-evidence-only")

    # "Only what I have read": a reader who has read into Stave II asks about the knocker.
    window.contents._activate(window.contents.section_item(2))
    wait(lambda: False, 1)
    window.reader.mark_read_to(window.reader.offset_read_to())  # the contents leapt there: say it was read
    window.ask_panel.so_far.setChecked(True)
    window.ask_panel.question.setText("What does the knocker on Scrooge's door turn into?")
    done.clear()
    window.ask_panel.ask()
    wait(lambda: bool(done), 120)
    shot("9-only-what-i-have-read")
    window.ask_panel.so_far.setChecked(False)

    # A passage selected in the reader, then Ask About the Selection.
    text = window.book.text
    start = text.index("It's a wonderful knocker!")
    window.reader.scroll_to_offset(start)
    wait(lambda: window.reader.is_offset_visible(start), 10)
    window.reader.setTextCursor(window.reader.document_span(start, start + len("It's a wonderful knocker!")))
    window.reader.ask_about_selection()
    window.ask_panel.question.setText("Why does he say this?")
    shot("11-ask-about-the-selection")
    done.clear()
    window.ask_panel.ask()
    wait(lambda: bool(done), 120)
    shot("12-answer-about-the-selection")

    # Three staves picked in the contents (a click, then Ctrl-clicks), asked about together.
    window.contents.clearSelection()
    for ordinal in (2, 3, 4):
        window.contents.section_item(ordinal).setSelected(True)
    window.ask_about_chapter([2, 3, 4])
    window.ask_panel.question.setText("How do the spirits change Scrooge?")
    done.clear()
    window.ask_panel.ask()
    wait(lambda: bool(done), 120)
    shot("13-answer-about-chapters")

    # A follow-up: "him" taken as whom the question before named.
    window.ask_panel.question.setText("Who is Marley?")
    done.clear()
    window.ask_panel.ask()
    wait(lambda: bool(done), 120)
    window.ask_panel.question.clear()
    QTest.keyClicks(window.ask_panel.question, "What becomes of him in the end?")
    shot("14-follow-up-typed")
    done.clear()
    window.ask_panel.ask()
    wait(lambda: bool(done), 120)
    shot("15-answer-to-a-follow-up")

    # Find Related Passages on the knocker Scrooge praises in Stave V.
    window.reader.setTextCursor(window.reader.document_span(start, start + len("It's a wonderful knocker!")))
    done.clear()
    window.related_action.trigger()
    wait(lambda: bool(done), 120)
    shot("16-related-passages")

    # Questions typed as readers type them: one chapter named, the whole
    # book, a name not in it, a chapter it has not (refused in one line, the
    # answer before kept), "so far" with the setting unticked (up to what
    # has been read), who is in the book, who tells it, and the book's own
    # facts (its contents, its author), answered from its record; one typed
    # in a hurry (slips of the keyboard, no apostrophe), read as meant; one
    # about a single scene, its sentences that follow one another one quotation.
    refused = []
    window.ask_panel.answerFailed.connect(refused.append)
    for name, question in (("17-a-chapter-named", "Summarize Stave 3"),
                           ("18-the-whole-book", "What is this book about?"),
                           ("19-a-name-not-in-the-book", "Why does Scroge count his money?"),
                           ("20-a-chapter-not-in-the-book", "What happens in stave 9?"),
                           ("21-so-far-asked", "What has happened so far?"),
                           ("22-the-main-characters", "Who are the main characters?"),
                           ("23-who-tells-it", "Who is the narrator?"),
                           ("24-the-contents", "How many chapters are there?"),
                           ("25-who-wrote-it", "Who wrote this book?"),
                           ("26-how-long-is-it", "How long will it take me to read?"),
                           ("27-how-often", "How many times is Marley mentioned?"),
                           ("28-how-often-someone-says-it", "How many times does Scrooge say humbug?"),
                           ("29-which-chapters", "In which staves does Marley appear?"),
                           ("30-what-someone-looks-like", "What does Scrooge look like?"),
                           ("31-what-just-happened", "What just happened?"),
                           ("32-a-first-name", "What is Marley's first name?"),
                           ("33-where-someone-lives", "Where does Scrooge live?"),
                           ("34-typed-in-a-hurry", "wat happend to scrooges nephew"),
                           ("37-one-scene", "Why did Scrooge ask the Ghost of Jacob Marley if he could sit down?"),
                           ("38-when-it-is-set", "When is the story set?"),
                           ("39-who-tells-their-name", "Who is the Ghost of Christmas Past?"),
                           ("40-how-someone-changes", "How does Scrooge change?"),
                           ("41-what-someone-is-like", "What is Scrooge like?"),
                           ("42-how-someone-dies", "Does Tiny Tim die?"),
                           ("43-how-two-are-related", "What is the relationship between Scrooge and Marley?"),
                           ("44-where-it-is-set", "Where is the story set?"),
                           ("45-what-becomes-of-someone", "What happens to Marley?")):
        window.ask_panel.question.setText(question)
        done.clear()
        refused.clear()
        window.ask_panel.ask()
        wait(lambda: bool(done) or bool(refused), 120)
        shot(name)
    # A word selected in the reader and looked up (its right-click menu): a dictionary's senses, the book's uses.
    reader, text = window.reader, window.book.text
    word = text.index("humbug")
    reader.setTextCursor(reader.document_span(word, word + len("humbug")))
    menu = reader.context_menu(reader.cursorRect().center())
    menu.adjustSize()
    shot("36-look-up-in-the-menu", menu)
    menu.deleteLater()
    done.clear()
    window.ask_panel.look_up("humbug")
    wait(lambda: bool(done), 120)
    shot("35-a-word-looked-up")
    window.open_book(excerpt)
    wait(lambda: window.book is not None and window.book.book_id == excerpt, 30)

    # A long book just imported: a question gets its answer by the book's
    # words while its vectors are still being made.
    long_book = Path(home) / "four-carols.txt"
    long_book.write_text("\n\n".join([sample_book_path().read_text(encoding="utf-8")] * 4), encoding="utf-8")
    window.import_file(long_book)
    wait(lambda: window.book is not None and window.book.book_id != excerpt, 60)
    window.ask_panel.question.setText("What does Scrooge see in the knocker of his door?")
    done.clear()
    window.ask_panel.ask()
    wait(lambda: bool(done), 120)
    shot("10-new-book-answered-by-its-words")
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
