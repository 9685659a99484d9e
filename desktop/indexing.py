"""Indexing books in the background, one at a time, with progress and cancel.

A newly imported book gets stage 1 first (searchable by its words within
seconds, by meaning once its vectors are made), then the LLM stages up to
the target; a book with stage 1 done waits for any
queued book that has none before starting its LLM stages, and the book the
reader has open goes before other waiting books. Books left
half-indexed when the app closed are picked up again at start. While the
reader waits for an answer, the indexing job pauses at its next safe point so
the answer gets the CPU. A book that another process is indexing (the
`chapterhouse index` command) is tried again every little while.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from PySide6.QtCore import QObject, QTimer, Signal

from engine.index.indexer import BookIndexer, IndexingBusy, Progress
from engine.llm.types import CancelToken

from .tasks import BACKGROUND, TaskRunner

log = logging.getLogger(__name__)
FULL_LADDER = 4


@dataclass
class IndexState:
    book_id: str
    stage_reached: int
    running: bool = False
    progress: Progress | None = None
    error: str | None = None


class IndexingManager(QObject):
    progressed = Signal(str, object)  # book id, Progress
    stageReached = Signal(str, int)  # book id, stage
    finished = Signal(str, int, bool)  # book id, stage reached, cancelled
    failed = Signal(str, str)  # book id, message
    queued = Signal(str, int)  # book id, stage reached so far: waiting for its turn
    waiting = Signal(str, int)  # book id, stage: another process is indexing it; tried again later
    searchable = Signal(str)  # book id: a new book's words are searchable; its stage 1 goes on
    busy_retry_ms = 15000

    def __init__(self, library, runner: TaskRunner, target_stage: int = FULL_LADDER, parent=None):
        super().__init__(parent)
        self.library = library
        self.runner = runner
        self.target_stage = target_stage
        self.queue: list[str] = []
        self.current: str | None = None
        self.cancel: CancelToken | None = None
        self.states: dict[str, IndexState] = {}
        self._task = None
        self._preempted: str | None = None
        self.waiting_for_others: set[str] = set()
        self.progressed.connect(self._record_progress)  # queued: emitted from the worker

    # ------------------------------------------------------------ queue

    def enqueue(self, book_id: str, first: bool = False, preempt: bool = False) -> None:
        """Queue a book. A new import comes first and may preempt the running
        job: that one stops at its next checkpoint and resumes after."""
        if self.target_stage < 1:
            return
        self.waiting_for_others.discard(book_id)
        if book_id == self.current and not (self.cancel is not None and self.cancel.cancelled):
            return
        # A book whose job is stopping (new settings, say) is queued to run again after it.
        if book_id in self.queue:
            self.queue.remove(book_id)
        if first:
            self.queue.insert(0, book_id)
        else:
            self.queue.append(book_id)
        self.states.setdefault(book_id, IndexState(book_id, 0))
        self.queued.emit(book_id, self.states[book_id].stage_reached)
        if preempt and self.current is not None and self.cancel is not None:
            interrupted = self.current
            self.queue.insert(1, interrupted)
            self._preempted = interrupted
            self.cancel.cancel()
            return
        self._next()

    def resume_unfinished(self, statuses: dict[str, int]) -> None:
        """After a restart: queue every book that has not reached the target."""
        for book_id, stage in statuses.items():
            self.states[book_id] = IndexState(book_id, stage)
            if stage < self.target_stage:
                self.enqueue(book_id)

    def refresh(self, book_ids: list[str]) -> None:
        """Queue books at the target stage whose index needs a run all the
        same (sentence vectors it was made without), behind everything else."""
        for book_id in book_ids:
            if book_id not in self.active():
                self.enqueue(book_id)

    def active(self) -> set[str]:
        """Books indexing now or waiting their turn (or for another process)."""
        return set(self.queue) | self.waiting_for_others | ({self.current} if self.current else set())

    def cancel_book(self, book_id: str) -> None:
        self.waiting_for_others.discard(book_id)
        if book_id in self.queue:
            self.queue.remove(book_id)
        if book_id == self.current and self.cancel is not None:
            self.cancel.cancel()
        if self._preempted == book_id:
            self._preempted = None

    def prefer(self, book_id: str) -> None:
        """The book the reader has open is indexed next; no running job is
        stopped for it, and books not yet searchable still go before it."""
        if book_id in self.queue and self.queue[0] != book_id:
            self.queue.remove(book_id)
            self.queue.insert(0, book_id)

    def cancel_all(self) -> None:
        self.queue.clear()
        self.waiting_for_others.clear()
        if self.cancel is not None:
            self.cancel.cancel()

    def pause(self) -> None:
        if self.cancel is not None:
            self.cancel.pause()

    def resume(self) -> None:
        if self.cancel is not None:
            self.cancel.resume()

    def busy(self) -> bool:
        return self.current is not None

    # ------------------------------------------------------------ running

    def _next(self) -> None:
        if self.current is not None or not self.queue:
            return
        book_id = self.queue.pop(0)
        self.current = book_id
        self.cancel = CancelToken()
        cancel = self.cancel
        target = self.target_stage
        state = self.states.setdefault(book_id, IndexState(book_id, 0))
        state.running, state.error = True, None

        def work(context):
            indexer = BookIndexer(self.library, book_id)
            try:
                # Stage 1 on its own first: questions work as soon as it lands.
                result = indexer.run(up_to=1, progress=lambda p: self.progressed.emit(book_id, p), cancel=cancel)
                if not result.cancelled:
                    self.stageReached.emit(book_id, indexer.status()["stage_reached"])
                    if target > 1 and self._unsearchable_waiting():
                        # Every book becomes searchable before any gets the slow
                        # LLM stages: this one steps back behind those.
                        return indexer.status()["stage_reached"], False, True
                if not result.cancelled and target > 1:
                    result = indexer.run(up_to=target, progress=lambda p: self.progressed.emit(book_id, p),
                                         cancel=cancel)
                return indexer.status()["stage_reached"], result.cancelled, False
            except IndexingBusy:
                return indexer.status()["stage_reached"], False, False, True
            finally:
                indexer.close()

        self._task = self.runner.submit(
            work, name=f"Indexing {book_id}", lane=BACKGROUND,
            on_success=lambda outcome: self._done(book_id, *outcome),
            on_error=lambda message: self._failed(book_id, message),
        )

    def _record_progress(self, book_id: str, progress: Progress) -> None:
        state = self.states.get(book_id)
        if state is not None and state.running:
            if progress.searchable and state.stage_reached < 1 and not (state.progress and state.progress.searchable):
                self.searchable.emit(book_id)
            state.progress = progress

    def is_searchable(self, book_id: str) -> bool:
        """Whether a book can be searched, as far as its indexing has said."""
        state = self.states.get(book_id)
        return state is not None and (state.stage_reached >= 1 or bool(state.progress and state.progress.searchable))

    def _unsearchable_waiting(self) -> bool:
        """Whether a queued book has no stage 1 yet (read from the worker: a snapshot is enough)."""
        return any(self.states[b].stage_reached < 1 for b in list(self.queue) if b in self.states)

    def _done(self, book_id: str, stage: int, cancelled: bool, yielded: bool = False, busy: bool = False) -> None:
        state = self.states[book_id]
        state.stage_reached, state.running, state.progress = stage, False, None
        self.current, self.cancel = None, None
        preempted = self._preempted == book_id
        self._preempted = None
        if busy:
            if book_id not in self.queue:
                self.waiting_for_others.add(book_id)
                QTimer.singleShot(self.busy_retry_ms, self, lambda: self._try_again(book_id))
                self.waiting.emit(book_id, stage)
            self._next()
            return
        if yielded and book_id not in self.queue:
            behind = [i for i, b in enumerate(self.queue) if b in self.states and self.states[b].stage_reached < 1]
            self.queue.insert(behind[-1] + 1 if behind else len(self.queue), book_id)
        # A job stopped to let a new book go first is not "cancelled" to the reader.
        self.finished.emit(book_id, stage, cancelled and not preempted)
        self._next()

    def _try_again(self, book_id: str) -> None:
        """A book another process was indexing: queued again unless the
        reader cancelled it meanwhile (or queued it by hand)."""
        if book_id in self.waiting_for_others:
            self.waiting_for_others.discard(book_id)
            self.enqueue(book_id)

    def _failed(self, book_id: str, message: str) -> None:
        state = self.states[book_id]
        state.running, state.error, state.progress = False, message, None
        self.current, self.cancel = None, None
        log.warning("indexing %s failed: %s", book_id, message)
        self.failed.emit(book_id, message)
        self._next()
