"""`chapterhouse index BOOK`, `chapterhouse status BOOK` and `chapterhouse repair BOOK`."""

from __future__ import annotations

import json
import signal
import sys
import time

from .durations import duration_text
from .llm.settings import SITUATING_SETTINGS
from .llm.types import CancelToken


def add_parsers(commands) -> None:
    index = commands.add_parser("index", help="build a book's ladder index (progressive, resumable)")
    index.add_argument("book", metavar="BOOK")
    index.add_argument("--stage", type=int, choices=[1, 2, 3, 4], default=4,
                       help="stop after this stage (1 passages, 2 section summaries and situating sentences, "
                            "3 summaries, 4 cards)")
    index.add_argument("--situating", choices=SITUATING_SETTINGS, default=None,
                       help="write a situating sentence per passage in stage 2 (default: the settings' choice, "
                            "auto: only with generators of 1B parameters or more)")
    index.add_argument("--segmenter", choices=["fixed", "llm"], default="fixed",
                       help="how passages are cut: the fixed splitter or the LLM (LitSeg-Lite)")
    index.add_argument("--json", action="store_true", help="print the run's figures as JSON at the end")
    index.set_defaults(handler=run_index)

    status = commands.add_parser("status", help="how far a book's index has got")
    status.add_argument("book", metavar="BOOK")
    status.add_argument("--json", action="store_true")
    status.set_defaults(handler=show_status)

    repair = commands.add_parser("repair", help="make a damaged book again from its original file, keeping its "
                                                "history of questions and reading position")
    repair.add_argument("book", metavar="BOOK")
    repair.set_defaults(handler=run_repair)


def run_repair(args) -> int:
    from .index.repair import repair_book
    from .store import Library

    library = Library()
    book_id = library.resolve(args.book, import_files=False)
    report = repair_book(library, book_id, wait=False)
    print(f"{report.describe()}; build its index again with: chapterhouse index {book_id}")
    return 0


def run_index(args) -> int:
    from .index.indexer import BookIndexer
    from .store import Library

    library = Library()
    book_id = library.resolve(args.book)
    indexer = BookIndexer(library, book_id, segmenter=args.segmenter, situating=args.situating)
    cancel = CancelToken()
    previous = signal.signal(signal.SIGINT, lambda *_: cancel.cancel())
    bar = _Bar()
    try:
        result = indexer.run(args.stage, progress=bar.update, cancel=cancel)
    finally:
        signal.signal(signal.SIGINT, previous)
        bar.close()
    status = indexer.status()
    if args.json:
        print(json.dumps({"result": {"completed_stage": result.completed_stage, "cancelled": result.cancelled,
                                     "stats": result.stats}, "status": status}, indent=2))
    elif result.cancelled:
        print(f"stopped: {status['title']} is indexed to stage {status['stage_reached']}; "
              "run the same command to resume")
    else:
        print(f"indexed: {status['title']} to stage {status['stage_reached']} "
              f"({status['counts']['passage']} passages)")
    return 130 if result.cancelled else 0


def show_status(args) -> int:
    from .index.indexer import BookIndexer
    from .store import Library

    library = Library()
    book_id = library.resolve(args.book, import_files=False)
    indexer = BookIndexer(library, book_id)
    status = indexer.status()
    if args.json:
        print(json.dumps(status, indent=2))
        return 0
    print(f"{status['title']}  [{book_id}]: stage {status['stage_reached']} of 4"
          f"{', searchable' if status['searchable'] else ', not searchable yet'}")
    for number, stage in status["stages"].items():
        mark = "done" if stage["done"] == stage["total"] else f"{stage['done']}/{stage['total']}"
        print(f"  {number}. {stage['name']:22s} {mark}")
    counts = status["counts"]
    print(f"  {counts['passage']} passages, {counts['section-summary']} section summaries, "
          f"{counts['tier-summary'] + counts['book-summary']} tier summaries, {counts['card']} cards")
    return 0


class _Bar:
    """A one-line progress bar on stderr: stage, percentage, time left."""

    def __init__(self):
        self.last = 0.0
        self.previous = None
        self.shown = False
        self.tty = sys.stderr.isatty()

    def update(self, event) -> None:
        now = time.monotonic()
        final = event.done >= event.total
        news = (event.stage, event.detail) != self.previous
        if now - self.last < 0.25 and not final and not news:
            return
        self.last = now
        self.previous = (event.stage, event.detail)
        share = event.done / event.total if event.total else 1.0
        filled = int(share * 24)
        eta = "" if event.eta_seconds is None else f"  {duration_text(event.eta_seconds)} left"
        line = (f"stage {event.stage}/4 {event.stage_name:20s} [{'#' * filled}{'-' * (24 - filled)}] "
                f"{share * 100:5.1f}%{eta}  {event.detail}")
        if self.tty:
            sys.stderr.write("\r" + line[:110].ljust(110))
        elif final or event.detail:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown and self.tty:
            sys.stderr.write("\n")
