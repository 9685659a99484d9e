"""Engine work off the UI thread.

Three lanes, as in Picard, each its own QThreadPool: an urgent lane
(opening a book, answering), a background lane (importing, indexing: long
jobs, one at a time) and a quick lane (saving the reading position, reading
the library's list), so neither a long background job nor a busy urgent one
delays the small things. A task is a plain
function that receives a TaskContext; its result, progress and errors come
back to the UI thread by queued signals. Cancellation is cooperative: the
function checks `context.cancelled` between steps.
"""

from __future__ import annotations

import logging
import threading
import traceback
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from engine.errors import ChapterhouseError

log = logging.getLogger(__name__)

URGENT = "urgent"
BACKGROUND = "background"
QUICK = "quick"


class TaskCancelled(Exception):
    """Raised inside a task function to stop early; reported as cancelled."""


class TaskContext:
    def __init__(self, signals: "TaskSignals"):
        self._signals = signals
        self._cancel = threading.Event()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def cancel(self) -> None:
        self._cancel.set()

    def check(self) -> None:
        if self._cancel.is_set():
            raise TaskCancelled()

    def progress(self, stage: str, done: int = 0, total: int = 0) -> None:
        self._signals.progress.emit(stage, done, total)


class TaskSignals(QObject):
    progress = Signal(str, int, int)
    succeeded = Signal(object)
    failed = Signal(str)
    cancelled = Signal()
    finished = Signal()


class Task(QRunnable):
    def __init__(self, function: Callable[[TaskContext], Any], name: str):
        super().__init__()
        self.setAutoDelete(False)
        self.name = name
        self.function = function
        self.signals = TaskSignals()
        self.context = TaskContext(self.signals)

    def cancel(self) -> None:
        self.context.cancel()

    def run(self) -> None:
        try:
            result = self.function(self.context)
        except TaskCancelled:
            self._emit(self.signals.cancelled)
        except ChapterhouseError as error:
            self._emit(self.signals.failed, str(error))
        except MemoryError:
            self._emit(self.signals.failed, f"{self.name}: out of memory")
        except OSError as error:
            # A full disk or a vanished folder: say so plainly.
            where = f"{error.filename}: " if error.filename else ""
            self._emit(self.signals.failed, f"{self.name}: {where}{error.strerror or error}")
        except Exception as error:  # never let a worker take the app down
            log.error("task %s failed:\n%s", self.name, traceback.format_exc())
            self._emit(self.signals.failed, f"{self.name} failed unexpectedly: {error}")
        else:
            if self.context.cancelled:
                self._emit(self.signals.cancelled)
            else:
                self._emit(self.signals.succeeded, result)
        finally:
            self._emit(self.signals.finished)

    @staticmethod
    def _emit(signal, *args) -> None:
        try:
            signal.emit(*args)
        except RuntimeError:
            # The app quit while this task ran on (past the window's wait for
            # its workers): its signals are gone with the window, and nobody
            # is left to tell. Raised here it printed a traceback at exit.
            pass


class TaskRunner(QObject):
    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._pools = {URGENT: QThreadPool(self), BACKGROUND: QThreadPool(self), QUICK: QThreadPool(self)}
        self._pools[URGENT].setMaxThreadCount(2)
        self._pools[BACKGROUND].setMaxThreadCount(1)
        self._pools[QUICK].setMaxThreadCount(1)
        self._running: set[Task] = set()

    def submit(
        self,
        function: Callable[[TaskContext], Any],
        *,
        name: str,
        lane: str = URGENT,
        on_success: Callable[[Any], None] | None = None,
        on_error: Callable[[str], None] | None = None,
        on_progress: Callable[[str, int, int], None] | None = None,
        on_cancelled: Callable[[], None] | None = None,
    ) -> Task:
        task = Task(function, name)
        if on_success:
            task.signals.succeeded.connect(on_success)
        if on_error:
            task.signals.failed.connect(on_error)
        if on_progress:
            task.signals.progress.connect(on_progress)
        if on_cancelled:
            task.signals.cancelled.connect(on_cancelled)
        task.signals.finished.connect(lambda: self._running.discard(task))
        self._running.add(task)
        self._pools[lane].start(task)
        return task

    def busy(self) -> bool:
        return bool(self._running)

    def cancel_all(self) -> None:
        for task in list(self._running):
            task.cancel()

    def wait(self, milliseconds: int = -1) -> bool:
        return all(pool.waitForDone(milliseconds) for pool in self._pools.values())
