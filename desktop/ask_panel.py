"""The ask panel: a question box, the answer as it streams, citations that
jump to their passage, the evidence grouped by section, the book map, the
plan on demand, and the book's history of questions.

The work runs in the urgent lane; the text comes back in batches (every 50
ms) so a fast model cannot flood the UI thread with signals.
"""

from __future__ import annotations

import html
import re
import threading
import time

from PySide6.QtCore import QEvent, QObject, QSettings, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QKeySequence, QShortcut, QTextDocument
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QTabWidget,
    QTextBrowser,
    QToolButton,
    QToolTip,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.answer.absent import absent_line, nothing_to_answer, respelled
from engine.answer.bookfacts import FACT_SOURCES
from engine.answer.definitions import look_up_question
from engine.answer.digest import adjacent_runs, quoted, run_text
from engine.answer.followup import earlier_of, earlier_question, leans_on_earlier
from engine.answer.named import asks_only_what_was_read
from engine.answer.overview import PEOPLE, RECENT, overview_evidence
from engine.answer.related import RELATED_BUDGET, RELATED_QUESTION
from engine.answer.selection import (focus_record, part_heading, sections_label, sections_named, shown_text,
                                     within_record)
from engine.answer.spelling import read_as_line
from engine.answer.support import CITATION_MARKER, marker_ids
from engine.durations import duration_text
from engine.store.journal import HistoryEntry, entry_markdown, entry_tags
from engine.llm.types import CancelToken

from .book_map import BookMap
from .question_box import QuestionBox
from .tasks import URGENT, TaskCancelled

SPAN_ROLE = Qt.ItemDataRole.UserRole
ENTRY_ROLE = Qt.ItemDataRole.UserRole + 1  # a history item's id in the book's journal
ASKED_ROLE = Qt.ItemDataRole.UserRole + 2  # when a history item was asked (Unix time)
SEARCH_ROLE = Qt.ItemDataRole.UserRole + 3  # what the history's filter looks in, made once per item
FOLLOWED_AS_ROLE = Qt.ItemDataRole.UserRole + 4  # a history question as a follow-up to it reads it
_SO_FAR = "Only what I have read"


class _Relay(QObject):
    """Carries what the worker produces to the UI thread."""

    digest = Signal(int, object)  # ticket, payload
    retry = Signal(int)
    notice = Signal(int, str)
    reading = Signal(int, int, int, object)  # ticket, prompt tokens read, to read, seconds left


class AskPanel(QWidget):
    passageActivated = Signal(int, int)  # start, end in the stored text
    # A citation followed: its passage's start and end, and the sentence backing the claim.
    citationActivated = Signal(int, int, int, int)
    sectionActivated = Signal(int)  # section ordinal
    answerFinished = Signal(object)  # the result as a dict
    answerStarted = Signal()
    answerFailed = Signal(str)
    answerEnded = Signal()  # after any of finished, failed or stopped
    historyDeleteRequested = Signal(int)  # a history entry's id
    historyShown = Signal()  # the History tab came into view: it may have changed outside the app
    # The reader began a question (once per question, and again when "Only
    # what I have read" changes under it): its model may load and read ahead now.
    questionStarted = Signal()
    # The chapters the next question is about (empty: the whole book again), for the contents to show picked.
    chaptersAskedAbout = Signal(list)

    def __init__(self, runner, parent=None):
        super().__init__(parent)
        self.runner = runner
        # callable(book_id, cancel, notify) -> AnswerSession, run in a worker; notify(text)
        # tells the reader what the question is waiting for.
        self.session_provider = None
        # callable() -> the stored-text offset the reader has read to (the end of the page in view)
        self.read_to_provider = None
        self.position_provider = None  # where the reader is: "this chapter" is the one there
        self.budget = 12  # passages of evidence per answer
        # Each question gets a ticket; what a worker sends after the reader
        # moved on (another book, another question) is dropped.
        self._ticket = 0
        self.book = None
        self.result: dict | None = None
        self.cancel: CancelToken | None = None
        self._buffer: list[str] = []
        self._buffer_lock = threading.Lock()
        self._streamed = ""
        self._asked = ""  # the question the page answers, shown above it
        self._flush = QTimer(self)
        self._flush.setInterval(50)
        self._flush.timeout.connect(self._flush_text)

        self.question = QuestionBox(self)
        self.question.setPlaceholderText("Ask about this book\u2026")
        self.question.submitted.connect(lambda: self.ask())
        self.question.typed.connect(self._question_typed)
        self.question.textChanged.connect(self._update_follow_up)
        self._question_begun = False
        self.question.setAccessibleName("Question")
        self.ask_button = QPushButton("Ask", self)
        self.ask_button.setDefault(True)
        self.ask_button.clicked.connect(lambda: self.ask())
        self.stop_button = QPushButton("Stop", self)
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop)
        row = QHBoxLayout()
        row.addWidget(self.question, 1)
        row.addWidget(self.ask_button, 0, Qt.AlignmentFlag.AlignTop)  # beside the first line of a long question
        row.addWidget(self.stop_button, 0, Qt.AlignmentFlag.AlignTop)
        # A passage selected in the reader that the next question is about.
        self.focus: tuple[int, int] | None = None
        self.within: list[int] | None = None  # or a chapter it is about
        # Or the answer it follows on from ("Why does he leave?" after "Who is
        # Marley?"): chosen (Ask a Follow-up), or the answer shown when the
        # question names nobody its pronouns could mean, unless the reader
        # says it stands on its own.
        self.after: dict | None = None
        self._on_its_own = False
        self.about = QLabel(self)
        self.about.setWordWrap(True)
        self.about.setTextFormat(Qt.TextFormat.PlainText)
        self.about_clear = QToolButton(self)
        self.about_clear.setText("\u00d7")
        self.about_clear.setAutoRaise(True)
        self.about_clear.setToolTip("Ask about the whole book instead")
        self.about_clear.setAccessibleName("Ask about the whole book instead")
        self.about_clear.clicked.connect(self._dismiss_about)
        self.about_row = QWidget(self)
        about_layout = QHBoxLayout(self.about_row)
        about_layout.setContentsMargins(0, 0, 0, 0)
        about_layout.addWidget(self.about, 1)
        about_layout.addWidget(self.about_clear, 0, Qt.AlignmentFlag.AlignTop)
        self.about_row.hide()
        self.so_far = QCheckBox(_SO_FAR, self)
        self.so_far.setToolTip("Answer from the book up to where you have read: nothing after it is searched, quoted "
                               "or summarised, so nothing later is given away. It is the furthest place you read on "
                               "to; a citation, a search or the contents taking you further ahead does not count. "
                               "Right-click the text to set it.")
        self.so_far.setChecked(QSettings().value("ask/soFar", False, type=bool))
        self.so_far.toggled.connect(lambda checked: QSettings().setValue("ask/soFar", checked))
        self.so_far.toggled.connect(self._reading_limit_changed)

        self.status = QLabel("", self)
        self.status.setWordWrap(True)
        self.book_map = BookMap(self)
        self.book_map.sectionClicked.connect(self.sectionActivated)

        self.answer_view = QTextBrowser(self)
        self.answer_view.setOpenLinks(False)
        self.answer_view.anchorClicked.connect(self._link)
        self.answer_view.setAccessibleName("Answer")
        self.answer_view.setPlaceholderText("Answers appear here, linked to the passages.")
        self.answer_view.viewport().installEventFilter(self)  # a citation's passage shown on hover
        self.answer_view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.answer_view.customContextMenuRequested.connect(self._answer_menu)
        self._asked_at: float | None = None  # when the answer shown was asked

        self.evidence = QTreeWidget(self)
        self.evidence.setHeaderHidden(True)
        self.evidence.setWordWrap(True)
        self.evidence.itemClicked.connect(self._evidence_clicked)
        self.evidence.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.evidence.customContextMenuRequested.connect(self._evidence_menu)
        self.evidence.setAccessibleName("Evidence by section")
        self.plan_view = QTextBrowser(self)
        self.history = QListWidget(self)
        self.history.setWordWrap(True)  # a long question is read whole, not cut at the panel's edge
        self.history.setSpacing(2)
        self.history.itemClicked.connect(self._history_clicked)
        self.history.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.history.customContextMenuRequested.connect(self._history_menu)
        self.history.setToolTip("Click a question to see its answer again; right-click to ask it again or delete it")
        self.history.installEventFilter(self)  # the Delete key deletes the question selected
        self.export_button = QPushButton("Export as Markdown\u2026", self)
        history_page = QWidget(self)
        history_layout = QVBoxLayout(history_page)
        history_layout.setContentsMargins(0, 0, 0, 0)
        self.history_filter = QLineEdit(self)
        self.history_filter.setPlaceholderText("Filter the questions")
        self.history_filter.setClearButtonEnabled(True)
        self.history_filter.setAccessibleName("Filter the questions")
        self.history_filter.textChanged.connect(self._filter_history)
        history_layout.addWidget(self.history_filter)
        history_layout.addWidget(self.history, 1)
        history_layout.addWidget(self.export_button)
        self.tabs = QTabWidget(self)
        self.tabs.addTab(self.evidence, "Evidence")
        self.tabs.addTab(self.plan_view, "Plan")
        self.tabs.addTab(history_page, "History")
        self.tabs.currentChanged.connect(lambda _index: self.history_in_view() and self.historyShown.emit())

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(row)
        layout.addWidget(self.about_row)
        layout.addWidget(self.so_far)
        layout.addWidget(self.status)
        layout.addWidget(self.book_map)
        layout.addWidget(self.answer_view, 3)
        layout.addWidget(self.tabs, 2)

        self.relay = _Relay()
        self.relay.digest.connect(lambda ticket, payload: self._is_current(ticket) and self._show_digest(payload))
        self.relay.retry.connect(lambda ticket: self._is_current(ticket) and self._retrying())
        self.relay.notice.connect(lambda ticket, text: self._is_current(ticket) and self.status.setText(text))
        self.relay.reading.connect(
            lambda ticket, done, total, left: self._is_current(ticket) and self._reading(done, total, left))
        self._reading_prefix = "Evidence found"
        # Esc stops from within the panel; the window's Stop action works anywhere.
        stop_key = QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.stop)
        stop_key.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.set_book(None)

    # ------------------------------------------------------------ book

    def set_book(self, book) -> None:
        self.stop()
        self._abandon()
        self.book = book
        self._question_begun = False
        enabled = book is not None
        for widget in (self.question, self.ask_button, self.export_button, self.so_far):
            widget.setEnabled(enabled)
        self.so_far.setText(_SO_FAR)  # where it ends comes with the book's page (show_read_to)
        self.clear_focus()
        if book is not None:
            self.book_map.set_book(book)
        self.answer_view.clear()
        self.evidence.clear()
        self.plan_view.clear()
        self.history.clear()
        self.history_filter.clear()
        self.question.earlier = []
        self.status.setText("" if enabled else "Open a book to ask about it.")
        self.result = None
        self._asked = ""
        self._starters: list[str] = []
        self._update_follow_up()

    def show_starters(self, book_id: str, questions: list[str]) -> None:
        """Offer questions to start with (engine/answer/starters.py) while the
        open book has no answer shown: a click asks one."""
        if self.book is None or self.book.book_id != book_id or self.result is not None or self.busy() \
                or self.answer_view.toPlainText().strip() and not self._starters:
            return
        self._starters = list(questions)
        items = "".join(f"<li><a href=\"starter:{index}\">{html.escape(question)}</a></li>"
                        for index, question in enumerate(self._starters))
        self.answer_view.setHtml(f"<p><i>Questions to start with; or ask your own above.</i></p><ul>{items}</ul>")

    def set_focus(self, start: int, end: int) -> None:
        """Make the next question about this span of the book (a selection)."""
        if self.book is None:
            return
        self.clear_focus()
        self.focus = (start, end)
        section = self.book.section_at(start)
        where = section.display_name if section is not None else "the opening pages"
        self.about.setText(f"About the passage in {where}: {quoted(shown_text(self.book.text[start:end]))}")
        self._show_about("The next question is about this passage: it leads the evidence")
        self.question.setPlaceholderText("Ask about the selected passage\u2026")

    def set_within(self, ordinals: list[int]) -> None:
        """Make the next question about some chapters: only their passages are searched."""
        count = len(self.book.sections) if self.book is not None else 0
        ordinals = sorted({ordinal for ordinal in ordinals if 1 <= ordinal <= count})
        if not ordinals:
            return
        self.clear_focus()
        self.within = ordinals
        self.chaptersAskedAbout.emit(ordinals)
        sections = self.book.sections
        one = len(ordinals) == 1
        self.about.setText(f"About {sections_label(sections, ordinals)} only")
        self._show_about(f"The next question is about {'this chapter' if one else 'these chapters'}: only "
                         f"{'its' if one else 'their'} passages are searched")
        self.question.setPlaceholderText(f"Ask about {sections_named(sections, ordinals)}\u2026")

    def clear_focus(self) -> None:
        """The next question is about the whole book (no selection, no
        chapter, no answer chosen to follow on from)."""
        self.focus = None
        if self.within is not None:
            self.within = None
            self.chaptersAskedAbout.emit([])
        self.after = None
        self.about_row.hide()
        # The panel stays beside the library too: say which book it asks about.
        self.question.setPlaceholderText(f"Ask about {self.book.title.split(':')[0]}\u2026"
                                         if self.book is not None else "Ask about this book\u2026")
        self._update_follow_up()

    def follow_up(self, result: dict) -> None:
        """Make the next question a follow-up to this answer's question."""
        if self.book is None or not result.get("question"):
            return
        self.clear_focus()
        self.after = result
        self._update_follow_up()
        self.question.setPlaceholderText("Ask a follow-up\u2026")
        self.question.setFocus()

    def follows(self) -> dict | None:
        """The answer the question being typed follows on from, if any: one
        chosen, or the answer shown when the question leans on it."""
        if self.book is None or self.focus is not None or self.within is not None:
            return None
        if self.after is not None:
            return self.after
        shown, typed = self.result, self.question.text().strip()
        if (self._on_its_own or self.cancel is not None or not shown or not shown.get("question")
                or shown.get("damaged") or typed == shown["question"].strip() or not leans_on_earlier(typed)):
            return None
        return shown

    def _update_follow_up(self) -> None:
        if not self.question.text().strip():
            self._on_its_own = False  # a new question: it may follow on again
        if self.focus is not None or self.within is not None:
            return  # the line says what the question is about
        earlier = self.follows()
        if earlier is None:
            self.about_row.hide()
            return
        self.about.setText(f"Following on from {quoted(' '.join(earlier['question'].split()))}")
        self._show_about("The question is taken as following on from this one: whom its \u201che\u201d, "
                         "\u201cshe\u201d or \u201cthey\u201d means is whom that one named, and \u201cAnd "
                         "Louisa?\u201d asks that one again of Louisa",
                         "Ask it on its own")

    def _show_about(self, tip: str, clear_tip: str = "Ask about the whole book instead") -> None:
        self.about.setToolTip(tip)
        self.about_clear.setToolTip(clear_tip)
        self.about_clear.setAccessibleName(clear_tip)
        self.about_row.show()

    def _dismiss_about(self) -> None:
        """The line's \u00d7: a follow-up asked on its own, else about the whole book."""
        if self.focus is None and self.within is None:
            self._on_its_own = True
        self.clear_focus()

    def show_read_to(self, section) -> None:
        """Say where "what I have read" ends: in `section`, or in the opening pages (None)."""
        text = f"{_SO_FAR} (up to {section.label if section is not None else 'the opening pages'})"
        if text != self.so_far.text():
            self.so_far.setText(text)

    def history_in_view(self) -> bool:
        return self.tabs.currentIndex() == 2 and self.isVisible()

    def show_history(self, entries) -> None:
        listed = [self.history.item(row).data(ENTRY_ROLE) for row in range(self.history.count())]
        if listed and listed == [entry.id for entry in reversed(entries)]:
            return  # as shown (set_book empties it for another book): the reader's selection and scrolling stay
        self.history.clear()
        # For Up and Down in the question box: each question once, where it was last asked.
        self.question.earlier = list(reversed(dict.fromkeys(entry.question for entry in reversed(entries))))
        for entry in reversed(entries):
            focus = (entry.result or {}).get("focus")
            item = QListWidgetItem(f"{entry_tags(entry.result)}{entry.question}")
            item.setData(SPAN_ROLE, entry.result)
            item.setData(ENTRY_ROLE, entry.id)
            item.setData(ASKED_ROLE, entry.asked_at)
            # Read back, a stored result is converted whole each time: not per keystroke of the filter.
            item.setData(SEARCH_ROLE, f"{item.text()} {entry.answer} {(focus or {}).get('text', '')}".casefold())
            item.setToolTip(_history_tip(entry))
            if (entry.result or {}).get("question"):
                item.setData(FOLLOWED_AS_ROLE, earlier_question(entry.result))
            self.history.addItem(item)
        self._filter_history()

    def _filter_history(self) -> None:
        """Hide the questions that lack the words typed (in the question, the
        passage it was about, or its answer)."""
        words = self.history_filter.text().casefold().split()
        for row in range(self.history.count()):
            item = self.history.item(row)
            item.setHidden(not all(word in item.data(SEARCH_ROLE) for word in words))

    # ------------------------------------------------------------ asking

    def reading_until(self) -> int | None:
        """Where the book ends for the next question: the reader's position
        with "Only what I have read" ticked, else nowhere (None)."""
        return self.read_to_provider() if self.so_far.isChecked() and self.read_to_provider is not None else None

    def _question_typed(self) -> None:
        if self.book is not None and self.question.text().strip() and not self._question_begun:
            self._question_begun = True
            self.questionStarted.emit()

    def _reading_limit_changed(self) -> None:
        # The answer's start names the sections up to the reader's position:
        # what was read ahead for the other setting would mostly be read again.
        if self._question_begun and self.cancel is None:
            self.questionStarted.emit()

    def find_related(self, start: int, end: int) -> None:
        """Passages elsewhere in the book that tell of this span (a selection): asked at once."""
        if self.book is None or self.cancel is not None:
            return
        self.set_focus(start, end)
        self.question.setText(RELATED_QUESTION)
        self.ask(related=True)

    def look_up(self, word: str) -> None:
        """What a word selected in the reader means, asked at once of the
        whole book: the dictionary's senses, the book's uses for evidence."""
        if self.book is None or self.cancel is not None:
            return
        self.clear_focus()
        self.question.setText(look_up_question(word))
        self.ask()

    def ask(self, related: bool = False) -> None:
        question = self.question.text().strip()
        if not question or self.book is None or self.cancel is not None or self.session_provider is None:
            return
        if self._past_reading_limit():
            return
        earlier = self.follows()  # before the answer on screen is cleared
        shown_before = (self.result, self._asked_at)
        self._question_begun = False  # the next question typed may want a model the settings changed to
        self.cancel = CancelToken()
        cancel = self.cancel
        self._ticket += 1
        ticket = self._ticket
        self._streamed = ""
        self._asked = question
        self.result = None
        self._starters = []  # asked: what comes in its place is not to be covered by them
        self.answer_view.clear()
        self.evidence.clear()
        self.plan_view.clear()
        self.book_map.mark(set())
        self.status.setText("Finding the evidence\u2026")
        self.ask_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self.answerStarted.emit()
        relay = self.relay
        provider = self.session_provider
        budget = self.budget
        book_id = self.book.book_id
        until = self.reading_until()
        if until is None and self.read_to_provider is not None and asks_only_what_was_read(question):
            until = self.read_to_provider()  # "so far": what the reader has had in front of them, as when ticked
        at = self.position_provider() if self.position_provider is not None else None
        focus, within = self.focus, self.within
        if related:
            budget = RELATED_BUDGET
        after = earlier_of(earlier) if earlier is not None else None
        self._on_its_own = False
        self.clear_focus()  # the next question is about the whole book again, unless the reader selects anew

        def work(context):
            session = provider(book_id, cancel, lambda text: relay.notice.emit(ticket, text))
            if cancel.cancelled:
                raise TaskCancelled()
            result = session.ask(
                question, budget=budget, cancel=cancel,
                on_digest=lambda lines, retrieval: relay.digest.emit(
                    ticket, _digest_payload(session, lines, retrieval, session.follows(question, after, until),
                                            related, at)),
                on_text=lambda piece: self._receive(ticket, piece),
                on_retry=lambda retrieval: relay.retry.emit(ticket),
                on_reading=lambda done, total, left: relay.reading.emit(ticket, done, total, left), until=until,
                focus=focus, within=within, after=after, related=related, at=at)
            return result.as_dict()

        def unless_stale(handler):
            def handle(*args):
                if self._is_current(ticket):
                    handler(*args)
                elif not self.busy():  # a newer question ends for itself
                    self.answerEnded.emit()
            return handle

        self._flush.start()

        def failed(message: str) -> None:
            self._failed(message, shown_before)
            # A question that failed is about what it was about when asked
            # again, unless the reader has picked something else since.
            if self.focus is None and self.within is None and self.after is None:
                if focus is not None:
                    self.set_focus(*focus)
                elif within is not None:
                    self.set_within(within)
                elif earlier is not None:
                    self.follow_up(earlier)

        self.runner.submit(work, name="Answering", lane=URGENT, on_success=unless_stale(self._finished),
                           on_error=unless_stale(failed),
                           on_cancelled=unless_stale(lambda: self._stopped_early(shown_before)))

    def _past_reading_limit(self) -> bool:
        """With "Only what I have read" ticked, chapters asked about that the
        reader has not begun: nothing in them may be used, so the question is
        not asked (it would find no evidence without saying why)."""
        until = self.reading_until()
        if self.within is None or until is None:
            return False
        sections = self.book.sections
        if any(sections[ordinal - 1].start < until for ordinal in self.within):
            return False
        here = self.book.section_at(max(0, until - 1))
        one = len(self.within) == 1
        self.status.setText(f"{sections_named(sections, self.within)} {'lies' if one else 'lie'} past where you have "
                            f"read (up to {here.label if here is not None else 'the opening pages'}): untick "
                            f"\u201c{_SO_FAR}\u201d to ask about {'it' if one else 'them'}.")
        return True

    def stop(self) -> None:
        if self.cancel is not None:
            self.cancel.cancel()
            self.status.setText("Stopping\u2026")

    def busy(self) -> bool:
        return self.cancel is not None

    def _is_current(self, ticket: int) -> bool:
        return ticket == self._ticket

    def _abandon(self) -> None:
        """Forget the running question (its worker stops on the cancel)."""
        self._ticket += 1
        self._idle()
        with self._buffer_lock:
            self._buffer = []

    def _receive(self, ticket: int, piece: str) -> None:  # worker thread
        with self._buffer_lock:
            if ticket == self._ticket:
                self._buffer.append(piece)

    def _flush_text(self) -> None:
        with self._buffer_lock:
            pieces, self._buffer = self._buffer, []
        if pieces:
            self._streamed += "".join(pieces)
            self._render(streaming=True)

    def _retrying(self) -> None:
        self._streamed = ""
        self._reading_prefix = "Answering again with more passages"
        self.status.setText("A part was not found: answering again with more passages\u2026")

    def _reading(self, done: int, total: int, seconds_left: float | None) -> None:
        """The model's pass over the prompt, the silent wait before its first
        words (20-40 s on a laptop CPU): say how far it is."""
        if done >= total:
            self.status.setText(f"{self._reading_prefix}; the model is writing\u2026")
            return
        left = f", about {duration_text(max(1.0, seconds_left))} left" if seconds_left is not None else ""
        self.status.setText(f"{self._reading_prefix}; the model is reading it\u2026 {done / total:.0%}{left}")

    def _show_digest(self, payload: dict) -> None:
        self.result = {**(self.result or {}), **payload}
        written = payload.get("written", True)
        self._reading_prefix = f"Evidence found{_how_found(payload)}"
        self.status.setText(f"{self._reading_prefix}; the model is reading it\u2026" if written
                            else f"{self._reading_prefix}.")
        self._render(streaming=written)
        self._fill_evidence(payload["parts"], _cited_passages(payload), payload.get("focus"))
        self._fill_plan(payload["plan"])
        self.book_map.mark(*_map_marks(self.result))

    def _finished(self, result: dict) -> None:
        self._flush_text()
        self._idle()
        self.result = result
        self._asked_at = time.time()
        self._render(streaming=False)
        self._show_details(result)
        timings = result["timings"]
        if result["cancelled"]:
            self.status.setText("Stopped. The evidence above is complete; the answer is cut short.")
        else:
            first = timings.get("first_token")
            evidence = f"Evidence in {timings['retrieval'] * 1000:.0f} ms{_how_found(result)}"
            if result.get("stated"):
                source = FACT_SOURCES.get(result.get("overview"), "the book's record")
                self.status.setText(f"Answered from {source} in {timings['retrieval'] * 1000:.0f} ms "
                                    "(no model).")
            elif result.get("written") is False:  # no model call: the evidence is all there is
                self.status.setText(f"{evidence}.")
            elif result.get("model_error"):
                self.status.setText(f"{evidence}; the model could not answer.")
            else:
                self.status.setText(f"{evidence}{f'; first words after {first:.1f} s' if first else ''}; "
                                    f"done in {timings['total']:.1f} s.")
        self._update_follow_up()  # a question typed meanwhile may follow on from this answer
        self.answerFinished.emit(result)
        self.answerEnded.emit()

    def _failed(self, message: str, shown_before: tuple[dict | None, float | None]) -> None:
        self._idle()
        self._show_again(*shown_before)
        self.status.setText(message)
        self.answerFailed.emit(message)
        self.answerEnded.emit()

    def _stopped_early(self, shown_before: tuple[dict | None, float | None]) -> None:
        self._idle()
        self._show_again(*shown_before)
        self.status.setText("Stopped before any evidence was found.")
        self.answerEnded.emit()

    def _show_again(self, result: dict | None, asked_at: float | None) -> None:
        """The answer shown before a question that failed or was stopped
        before showing anything of its own: a refused question, say, does not
        take the last answer off the screen (nor what a follow-up follows)."""
        if result is None or self.result is not None:
            return
        self.result, self._asked_at, self._asked = result, asked_at, result["question"]
        self._render(streaming=False)
        self._show_details(result)
        self._update_follow_up()

    def _idle(self) -> None:
        self._flush.stop()
        self.cancel = None
        self.ask_button.setEnabled(True)
        self.stop_button.setEnabled(False)

    # ------------------------------------------------------------ showing

    def show_result(self, result: dict, asked_at: float | None = None) -> None:
        """A past answer from the history."""
        self.result = result
        self._asked_at = asked_at
        self._streamed = ""
        self._asked = result["question"]
        self.question.setText(result["question"])
        self._render(streaming=False)
        self._show_details(result)

    def _show_details(self, result: dict) -> None:
        """An answer's evidence tree, plan and marks on the book map (a record
        from the history whose row was damaged has none of them)."""
        self._fill_evidence(result.get("parts", []), _cited_passages(result), result.get("focus"))
        if "plan" in result:
            self._fill_plan(result["plan"])
        else:
            self.plan_view.clear()
        self.book_map.mark(*_map_marks(result))

    def _render(self, streaming: bool) -> None:
        result = self.result or {}
        digest_html = _digest_html(result.get("digest", []), [p["text"] for p in result.get("parts", [])],
                                   people=result.get("overview") == PEOPLE)
        if streaming:
            answer = _streaming_html(self._streamed, result.get("parts", []))  # rendered as Markdown once it ends
        else:
            answer = _answer_html(result.get("answer", ""), result.get("citations", []))
        draft = result.get("lead", "digest") == "digest"
        heading = "Draft answer (small model: trust the evidence above)" if draft else "Answer"
        body = (f"<p>{answer}</p>" if streaming else answer) if answer else "<p><i>\u2026</i></p>"
        answer_block = f"<h4>{heading}</h4>{body}" if (answer or streaming) else ""
        if not streaming and not answer and result.get("discarded_draft"):
            what, where = ("draft", "above") if draft else ("answer", "below")
            answer_block = (f"<p><i>The model's {what} only restated the question, so it is not shown: "
                            f"the evidence {where} is the answer.</i></p>")
        if not streaming and result.get("damaged"):
            answer_block = (f"<h4>Answer</h4><p>{html.escape(result.get('answer', ''))}</p><p><i>The stored record "
                            "of this answer is damaged: its evidence and citations cannot be shown.</i></p>")
        if not streaming and result.get("model_error"):
            answer_block = (f"<p><i>The model could not answer ({html.escape(result['model_error'])}): the "
                            "evidence is what the book holds on the question.</i></p>")
        if not streaming and result.get("written") is False and result.get("digest"):
            answer_block = "<p><i>Evidence only, as set in Settings › Answers: no model answer.</i></p>"
        if nothing_to_answer(result.get("absent") or []):
            answer_block = ""  # the line above the evidence says why: nothing in the book answers it
        if result.get("related"):
            answer_block = ("<p><i>Passages elsewhere in the book that tell of it, found by their words and meaning "
                            "(no model answer). The evidence below lists them by chapter.</i></p>"
                            if result.get("digest") else
                            "<p><i>Nothing elsewhere in the book was found to tell of it.</i></p>")
        if result.get("stated"):  # the book's record answers it: no model call
            stated = html.escape(result["stated"]).replace("\n", "<br>")  # a dictionary's senses, one a line
            answer_block = f"<h4>Answer</h4><p>{stated}</p>"
        evidence_block = f"<h4>Evidence</h4>{digest_html}" if digest_html else ""
        page = evidence_block + answer_block if draft else answer_block + evidence_block
        limit = result.get("reading_limit")
        if page and limit:
            # "What just happened?" after a jump ahead: where the reader is, not the furthest read.
            where = "you are" if limit.get("at_the_reader") else "you have read"
            page = (f"<p><i>From the book up to where {where}, in {html.escape(limit['label'])}: "
                    "nothing after it is used.</i></p>") + page
        focus, within = result.get("focus"), result.get("within")
        if page and focus:
            page = (f"<p><i>About the passage in {html.escape(focus['label'])}: "
                    f"{html.escape(quoted(focus['text']))}</i></p>") + page
        if page and within:
            outline = overview_evidence(result.get("overview"), within["sections"])
            said = f", as a whole: the evidence is {outline}" if outline else ": nothing else is searched"
            page = f"<p><i>About {html.escape(within['label'])} only{said}.</i></p>" + page
        outline = None if within else overview_evidence(result.get("overview"))
        if page and outline:
            about = "what you have just read" if result.get("overview") == RECENT else "the whole book"
            ask_more = " Click a name to ask who they are." if result.get("overview") == PEOPLE else ""
            page = f"<p><i>A question about {about}: its evidence is {outline}.{ask_more}</i></p>" + page
        named = result.get("named")
        if page and named:
            page = (f"<p><i>The question names {html.escape(named['short'])}: half the evidence comes from "
                    f"{'it' if len(named['sections']) == 1 else 'them'} first, the rest from the whole book.</i></p>"
                    + page)
        missing = absent_line(result.get("absent") or [], mark=html.escape,
                              suggest=lambda index, name: f"<a href=\"respell:{index}\">{html.escape(name)}</a>")
        if (page or nothing_to_answer(result.get("absent") or [])) and missing:  # then it is the whole answer
            page = f"<p><i>{missing}</i></p>" + page
        read_as = read_as_line([tuple(slip) for slip in result.get("read_as") or []])
        if page and read_as:
            page = f"<p><i>{html.escape(read_as)}</i></p>" + page
        follows = result.get("follows")
        if page and follows:
            earlier = html.escape(quoted(follows["question"]))
            item = None if streaming else self._followed_item(follows["question"])
            if item is not None:  # a click shows its answer again
                earlier = f"<a href=\"earlier:{item.data(ENTRY_ROLE)}\">{earlier}</a>"
            and_answer = " and its answer" if follows.get("answer") else ""
            page = (f"<p><i>Following on from {earlier}{and_answer}: taken as "
                    f"{html.escape(quoted(follows['taken_as']))}"
                    "</i></p>") + page
        if page and self._asked:  # the line above may show only part of it, or another question being typed
            page = f"<p><b>{html.escape(self._asked)}</b></p>" + page
        bar = self.answer_view.verticalScrollBar()
        at_end = bar.value() >= bar.maximum() - 4
        self.answer_view.setHtml(page)
        if at_end and streaming:
            bar.setValue(bar.maximum())

    def _fill_evidence(self, parts: list[dict], cited: set[str], focus: dict | None = None) -> None:
        self.evidence.clear()
        by_section: dict[int, list[dict]] = {}
        for part in parts:
            for passage in part["passages"]:
                by_section.setdefault(passage["section"], [])
                if passage["id"] not in {p["id"] for p in by_section[passage["section"]]}:
                    by_section[passage["section"]].append(passage)
        for section in sorted(by_section):
            passages = sorted(by_section[section], key=lambda p: p["start"])
            label = passages[0]["label"]
            title = self.book.sections[section - 1].display_name if self.book and section else label
            top = QTreeWidgetItem(self.evidence, [f"{title}  ({len(passages)})"])
            top.setData(0, SPAN_ROLE, (passages[0]["start"], passages[0]["end"]))
            for passage in passages:
                flat = " ".join(passage["text"].split())
                mark = "\u2605 " if passage["id"] in cited else ""
                # The passage holding the selection the question was about.
                selected = focus is not None and passage["start"] < focus["end"] and focus["start"] < passage["end"]
                item = QTreeWidgetItem(top, [f"{mark}{'(selected) ' if selected else ''}{flat[:110]}\u2026"])
                item.setData(0, SPAN_ROLE, (passage["start"], passage["end"]))
                item.setToolTip(0, f"[{passage['id']}] {label}" + (" \u2014 cited" if mark else "")
                                + (" \u2014 holds the passage you selected" if selected else ""))
                full = QTreeWidgetItem(item, [flat])
                full.setData(0, SPAN_ROLE, (passage["start"], passage["end"]))
            top.setExpanded(True)

    def _fill_plan(self, plan: dict) -> None:
        rows = "".join(
            f"<li>{html.escape(part['text'])}"
            f"{'<br><small>anchors: ' + html.escape(', '.join(part['anchors'])) + '</small>' if part['anchors'] else ''}"
            f"{' <small>(several instances)</small>' if part['several'] else ''}</li>" for part in plan["parts"])
        made = "the model" if plan["path"] == "model" else "code, from the question"
        self.plan_view.setHtml(f"<p>Scope: <b>{plan['scope']}</b>; planned by {made}.</p><ol>{rows}</ol>")

    # ------------------------------------------------------------ clicks

    def _link(self, url: QUrl) -> None:
        target = url.path() or url.toString().split(":", 1)[1]
        if url.scheme() == "earlier":
            item = self._history_item(int(target)) if target.isdigit() else None
            if item is not None:
                self.show_result(item.data(SPAN_ROLE), item.data(ASKED_ROLE))
            return
        if url.scheme() == "starter":  # a question to start with, offered as the book opened
            self._ask_listed(target, self._starters, str)
            return
        if url.scheme() == "who":  # one of the main people listed: who they are
            self._ask_listed(target, (self.result or {}).get("parts") or [], lambda part: f"Who is {part['text']}?")
            return
        if url.scheme() == "respell":  # "did you mean Scrooge?": asked again with the book's name
            self._ask_listed(target, (self.result or {}).get("absent") or [],
                             lambda name: respelled(self.result.get("question") or self._asked, name))
            return
        if self.result is None or url.scheme() not in ("cite", "quote"):
            return
        if url.scheme() == "quote":
            quoted_lines = _quoted_lines(self.result, target)
            span = (quoted_lines[0]["start"], quoted_lines[-1]["end"]) if quoted_lines else None
        else:
            span = _span_of(self.result, target)
            support = _support_of(self.result, target)
            if span and support:
                self.citationActivated.emit(*span, support["start"], support["end"])
                return
        if span:
            self.passageActivated.emit(*span)

    def _ask_listed(self, target: str, items: list, question_of) -> None:
        """Ask the question `question_of` makes of the item a link numbers (`target`), unless one is being answered."""
        if target.isdigit() and int(target) < len(items) and self.cancel is None:
            self.question.setText(question_of(items[int(target)]))
            self.ask()

    def _history_item(self, entry_id: int) -> QListWidgetItem | None:
        for row in range(self.history.count()):
            if self.history.item(row).data(ENTRY_ROLE) == entry_id:
                return self.history.item(row)
        return None

    def _followed_item(self, earlier: str) -> QListWidgetItem | None:
        """The history's latest question that a follow-up followed (as `earlier` reads it)."""
        for row in range(self.history.count()):
            if self.history.item(row).data(FOLLOWED_AS_ROLE) == earlier:
                return self.history.item(row)
        return None

    def step_evidence(self, step: int) -> bool:
        """Show the next (1) or previous (-1) passage of the evidence in the
        book, from the one picked in the tree, going round at the ends;
        False when there is no evidence."""
        passages = [top.child(row) for top in (self.evidence.topLevelItem(index)
                                                for index in range(self.evidence.topLevelItemCount()))
                    for row in range(top.childCount())]
        if not passages:
            return False
        current = self.evidence.currentItem()
        while current is not None and current.parent() is not None and current not in passages:
            current = current.parent()  # a passage's full text: the passage
        if current in passages:
            index = (passages.index(current) + step) % len(passages)
        elif current is not None:  # a section's heading: its first passage, or the one before it
            index = (passages.index(current.child(0)) + min(step, 0)) % len(passages)
        else:
            index = 0 if step > 0 else len(passages) - 1
        self.evidence.setCurrentItem(passages[index])
        self.evidence.scrollToItem(passages[index])
        self._evidence_clicked(passages[index])
        return True

    def _evidence_clicked(self, item: QTreeWidgetItem) -> None:
        span = item.data(0, SPAN_ROLE)
        if span:
            self.passageActivated.emit(*span)

    def evidence_menu(self, item: QTreeWidgetItem) -> QMenu:
        """A passage of the evidence: read it in the book, ask about it, find
        the passages related to it, copy it."""
        menu = QMenu(self)
        span = item.data(0, SPAN_ROLE)
        menu.addAction("Show in the Book", lambda: self._evidence_clicked(item))
        if span is not None and item.parent() is not None:  # a passage, not a section's heading
            menu.addAction("Ask About This Passage", lambda: self.set_focus(*span) or self.question.setFocus())
            related = menu.addAction("Find Related Passages", lambda: self.find_related(*span))
            related.setEnabled(self.cancel is None)
            text = self.book.text[span[0]:span[1]]
            menu.addAction("Copy the Passage", lambda: QApplication.clipboard().setText(text))
        return menu

    def _evidence_menu(self, point) -> None:
        item = self.evidence.itemAt(point)
        if item is not None and self.book is not None:
            menu = self.evidence_menu(item)
            menu.exec(self.evidence.viewport().mapToGlobal(point))
            menu.deleteLater()

    def _history_clicked(self, item: QListWidgetItem) -> None:
        result = item.data(SPAN_ROLE)
        if result:
            self.show_result(result, item.data(ASKED_ROLE))

    def history_menu(self, item: QListWidgetItem) -> QMenu:
        menu = QMenu(self)
        menu.addAction("Show the Answer", lambda: self._history_clicked(item))
        again = menu.addAction("Ask Again", lambda: self.ask_again(item))
        again.setEnabled(self.cancel is None)  # one question at a time
        menu.addAction("Ask a Follow-up", lambda: self.follow_up(item.data(SPAN_ROLE) or {}))
        menu.addAction("Copy as Markdown", lambda: _copy_markdown(item.data(SPAN_ROLE), item.data(ASKED_ROLE)))
        menu.addSeparator()
        menu.addAction("Delete from History", lambda: self.historyDeleteRequested.emit(item.data(ENTRY_ROLE)))
        return menu

    def _history_menu(self, point) -> None:
        item = self.history.itemAt(point)
        if item is not None:
            menu = self.history_menu(item)
            menu.exec(self.history.viewport().mapToGlobal(point))
            menu.deleteLater()

    def answer_menu(self, point) -> QMenu:
        """The answer's menu: copy, select all, and the whole answer as
        Markdown with its evidence and citations, once it has ended."""
        menu = self.answer_view.createStandardContextMenu(point)
        menu.addSeparator()
        result, asked_at = self.result, self._asked_at
        copy = menu.addAction("Copy Answer as Markdown", lambda: _copy_markdown(result, asked_at))
        copy.setEnabled(result is not None and self.cancel is None)
        follow = menu.addAction("Ask a Follow-up", lambda: self.follow_up(result))
        follow.setEnabled(bool(result and result.get("question")) and self.cancel is None)
        return menu

    def _answer_menu(self, point) -> None:
        menu = self.answer_menu(point)
        menu.exec(self.answer_view.viewport().mapToGlobal(point))
        menu.deleteLater()

    def ask_again(self, item: QListWidgetItem) -> None:
        """A question from the history asked anew: the book may be further
        indexed, or read further, than when it was first asked."""
        result = item.data(SPAN_ROLE) or {}
        if result.get("question") and self.cancel is None:
            self.question.setText(result["question"])
            focus, within, follows = result.get("focus"), result.get("within"), result.get("follows")
            if result.get("related") and focus:
                self.find_related(focus["start"], focus["end"])
                return
            if focus:
                self.set_focus(focus["start"], focus["end"])
            elif within:
                self.set_within(within["sections"])
            elif follows:
                # With the earlier answer it carried, if any (earlier_of reads it from a led answer).
                self.follow_up({"question": follows["question"], "lead": "answer" if follows.get("answer") else "",
                                "answer": follows.get("answer", "")})
            else:
                self._on_its_own = True  # it was asked on its own: it is again
            self.ask()

    def eventFilter(self, watched, event) -> bool:
        if watched is self.history and event.type() == QEvent.Type.KeyPress \
                and event.matches(QKeySequence.StandardKey.Delete) and self.history.currentItem() is not None:
            self.historyDeleteRequested.emit(self.history.currentItem().data(ENTRY_ROLE))
            return True
        if watched is self.answer_view.viewport() and event.type() == QEvent.Type.ToolTip:
            preview = self.link_preview(self.answer_view.anchorAt(event.pos()))
            if preview:
                QToolTip.showText(event.globalPos(), preview, self.answer_view)
            else:
                QToolTip.hideText()
            return True
        return super().eventFilter(watched, event)

    def link_preview(self, href: str) -> str:
        """What a mark in the answer points to, to read before following it:
        a citation's passage (its opening), or where a quoted sentence stands."""
        if self.result is None or ":" not in href:
            return ""
        scheme, target = href.split(":", 1)
        if scheme == "cite":
            for citation in self.result.get("citations", []):
                if citation["passage_id"] == target:  # the sentence backing the claim, else the passage's opening
                    opening = quoted(shown_text((citation.get("support") or {}).get("text") or citation["quote"]))
                    return f"{citation['label']}: {opening}\n(click to read it in the book)"
            passage = _evidence_passages(self.result).get(target)  # while the answer streams
            if passage is not None:
                return f"{passage['label']}: {quoted(shown_text(passage['text']))}\n(click to read it in the book)"
        if scheme == "quote" and (quoted_lines := _quoted_lines(self.result, target)):
            return f"{quoted_lines[0]['label']} (click to read it in the book)"
        if scheme == "earlier" and target.isdigit() and self._history_item(int(target)) is not None:
            return "Click to see its answer again"
        if scheme == "who" and target.isdigit() and int(target) < len(parts := self.result.get("parts") or []):
            return f"Click to ask who {parts[int(target)]['text']} is"
        return ""

    def follow_link(self, href: str) -> None:
        """Follow a mark in the answer ("cite:ID", "quote:N", "earlier:HISTORY_ID", "respell:N", "starter:N" or
        "who:N") as a click would."""
        self._link(QUrl(href))


def _how_found(result: dict) -> str:
    """A word on evidence found while the book's vectors were still being
    made: found by its words alone, or by meaning in part of the book."""
    share = result.get("meaning_share", 1.0)
    if share >= 1.0:
        return ""
    if share <= 0.0:
        return " by words only (the book is still being indexed)"
    return f" by words, and by meaning in {share:.0%} of the book (still being indexed)"


def _copy_markdown(result: dict | None, asked_at: float | None) -> None:
    """An answer as the history exports it, to the clipboard."""
    if result:
        entry = HistoryEntry(0, asked_at or time.time(), result.get("question", ""), result.get("answer", ""), result)
        QApplication.clipboard().setText(entry_markdown(entry))


def _history_tip(entry: HistoryEntry) -> str:
    """When a question was asked, and what its answer says (or, for the
    evidence alone, its first line)."""
    asked = time.strftime("%d %b %Y, %H:%M", time.localtime(entry.asked_at))
    digest = (entry.result or {}).get("digest") or []
    gist = entry.answer or (quoted(digest[0]["text"]) if digest else "")
    return f"Asked {asked}" + (f"\n\n{shown_text(gist, 400)}" if gist else "")


def _digest_payload(session, lines, retrieval, follows: dict | None = None, related: bool = False,
                    at: int | None = None) -> dict:
    labels = session.context.book.cited_labels()
    return {
        "digest": [line.as_dict() for line in lines],
        "parts": [{"text": part.part.text, "passages": [
            {"id": n.id, "section": n.section, "label": labels.get(n.section, ""), "start": n.start, "end": n.end,
             "text": n.text} for n in part.passages]} for part in retrieval.parts],
        "plan": retrieval.plan.as_dict(),
        # Known before the first word, so a capable model's answer streams
        # above the evidence rather than jumping there when it ends.
        "lead": "answer" if session.answer_leads or retrieval.stated else "digest",
        "written": session.writes_answers and not related and not nothing_to_answer(retrieval.absent)
        and not retrieval.stated,
        "stated": retrieval.stated,
        "related": related,
        "reading_limit": session.context.reading_limit(retrieval.until, at),
        "focus": focus_record(session.context, retrieval.focus) if retrieval.focus else None,
        "within": within_record(session.context, retrieval.within) if retrieval.within else None,
        "named": within_record(session.context, retrieval.named) if retrieval.named else None,
        "overview": retrieval.overview,
        "follows": follows,
        "meaning_share": round(retrieval.meaning_share, 3),
        "absent": retrieval.absent,
        "read_as": [list(slip) for slip in retrieval.read_as],
    }


def _span_of(result: dict, passage_id: str) -> tuple[int, int] | None:
    for citation in result.get("citations", []):
        if citation["passage_id"] == passage_id:
            return citation["start"], citation["end"]
    passage = _evidence_passages(result).get(passage_id)
    return (passage["start"], passage["end"]) if passage is not None else None


def _support_of(result: dict, passage_id: str) -> dict | None:
    return next((citation.get("support") for citation in result.get("citations", [])
                 if citation["passage_id"] == passage_id), None)


def _evidence_passages(result: dict) -> dict[str, dict]:
    return {passage["id"]: passage for part in result.get("parts", []) for passage in part["passages"]}


def _streaming_html(streamed: str, parts: list[dict]) -> str:
    """An answer as it streams: plain text with its line breaks, and each
    citation of an evidence passage already a link named by its section (a
    click reads it in the book before the answer ends); any other stays as
    written until the answer ends and the engine resolves it."""
    passages = _evidence_passages({"parts": parts})

    def link(match: re.Match) -> str:
        ids = marker_ids(match)
        if not all(i in passages for i in ids):
            return html.escape(match.group())
        return " ".join(f'<a href="cite:{i}">[{html.escape(passages[i]["label"])}]</a>' for i in ids)

    pieces, last = [], 0
    for match in CITATION_MARKER.finditer(streamed):
        pieces += [html.escape(streamed[last:match.start()]), link(match)]
        last = match.end()
    pieces.append(html.escape(streamed[last:]))
    return "".join(pieces).replace("\n", "<br>")


def _digest_html(lines: list[dict], parts: list[str], people: bool = False) -> str:
    """The quoted sentences, each linked to itself (quote:N), so a click
    highlights that very sentence rather than its whole passage; sentences
    that follow one another, one quotation linked to them all (quote:N-M).
    For the book's main `people`, each name heads its lines as a link that
    asks who they are (who:N)."""
    out = []
    runs = adjacent_runs(lines)
    for index, part in enumerate(parts):
        mine = [run for run in runs if lines[run[0]]["part"] == index]
        if not mine:
            continue
        if people:
            out.append(f"<p><a href=\"who:{index}\"><i>{html.escape(part)}</i></a></p>")
        elif len(parts) > 1:
            out.append(f"<p><i>{html.escape(part_heading(part))}</i></p>")
        items = "".join(
            f"<li>{html.escape(quoted(run_text(lines, run)))} <a href=\"quote:{_quote_target(run)}\">"
            f"[{html.escape(lines[run[0]]['label'])}]</a></li>" for run in mine)
        out.append(f"<ul>{items}</ul>")
    return "".join(out)


def _quote_target(run: list[int]) -> str:
    return str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}"


def _quoted_lines(result: dict | None, target: str) -> list[dict]:
    """The digest's lines a "quote:N" or "quote:N-M" link stands for; none for a target that is neither."""
    lines = (result or {}).get("digest", [])
    first, _, last = target.partition("-")
    last = last or first
    if not (first.isdigit() and last.isdigit()) or not int(first) <= int(last) < len(lines):
        return []
    return lines[int(first):int(last) + 1]


def _answer_html(answer: str, citations: list[dict]) -> str:
    """A finished answer as the page shows it: its Markdown rendered (a 3-4B
    model writes **bold**, lists and paragraphs; raw HTML stays text), each
    citation a link named by its section."""
    if not answer.strip():
        return ""  # Qt would make an empty paragraph of it
    labels = {c["passage_id"]: c["label"] for c in citations}

    def link(match: re.Match) -> str:
        ids = marker_ids(match)
        return " ".join(f"[\\[{_markdown_escaped(labels[i])}\\]](cite:{i})" for i in ids if i in labels)

    return markdown_html(CITATION_MARKER.sub(link, answer))


def markdown_html(text: str) -> str:
    """Markdown as an HTML fragment for a page of the panel, by Qt's own
    parser: the body only (the page sets its font), and links in the
    palette's colour (Qt writes a fixed blue into each)."""
    document = QTextDocument()
    document.setMarkdown(text, QTextDocument.MarkdownFeature.MarkdownNoHTML)
    page = document.toHtml()
    body = re.search(r"<body[^>]*>(.*)</body>", page, re.DOTALL)
    return _LINK_COLOUR.sub(r"\1\2\3", body.group(1).strip() if body else html.escape(text))


_LINK_COLOUR = re.compile(r'(<a href="[^"]*">)<span style=" color:#[0-9a-fA-F]{6};">(.*?)</span>(</a>)', re.DOTALL)


def _markdown_escaped(text: str) -> str:
    return re.sub(r"([\\`*_{}\[\]()#+\-.!<>|])", r"\\\1", text)


def _map_marks(result: dict) -> tuple[set[int], set[int], int | None, list[tuple[int, int, bool]]]:
    """Sections holding evidence, the ones quoted or cited (the digest's
    sentences count as cited, since they are what the reader is shown first),
    where the text the answer could use ends, and each evidence passage's
    span, marked if quoted or cited."""
    evidence = {p["section"] for part in result.get("parts", []) for p in part["passages"]}
    cited = {c["section"] for c in result.get("citations", [])}
    cited |= {line["section"] for line in result.get("digest", [])}
    limit = result.get("reading_limit")
    quoted = _cited_passages(result)
    spans = {(p["start"], p["end"], p["id"] in quoted) for part in result.get("parts", []) for p in part["passages"]}
    return evidence, {s for s in cited if s is not None}, limit["until"] if limit else None, sorted(spans)


def _cited_passages(result: dict) -> set[str]:
    return ({c["passage_id"] for c in result.get("citations", [])}
            | {line["passage_id"] for line in result.get("digest", [])})
