"""`chapterhouse history BOOK`: the questions asked of a book, in the app or
with `chapterhouse ask` (both keep them in the book's journal)."""

from __future__ import annotations

import json
import time

from .errors import ChapterhouseError, StorageError
from .store.journal import entry_tags


def add_parser(commands) -> None:
    history = commands.add_parser("history", help="the questions asked of a book, with their answers")
    history.add_argument("book", metavar="BOOK")
    shown = history.add_mutually_exclusive_group()
    shown.add_argument("--json", action="store_true", help="every question with its stored result, as JSON")
    shown.add_argument("--markdown", action="store_true",
                       help="every question with its evidence, answer and citations (the app's export)")
    shown.add_argument("--show", type=int, metavar="ID", help="one question in full, as Markdown")
    shown.add_argument("--delete", type=int, metavar="ID", help="delete one question from the history")
    history.set_defaults(handler=run_history)


def run_history(args) -> int:
    from .store import Library

    library = Library()
    book_id = library.resolve(args.book, import_files=False)
    summary = library.summary(book_id)
    journal = library.journal(book_id)
    try:
        entries = journal.entries()
        if args.delete is not None:
            _entry(entries, args.delete, summary.title)
            try:
                journal.remove(args.delete)
            except StorageError as error:
                raise ChapterhouseError(f"{summary.title}: {error.reason}, so the question stays in the history "
                                        f"({error.path})") from None
            print(f"deleted question {args.delete} from the history of {summary.title}")
        elif args.show is not None:
            from .store.journal import entry_markdown

            print(entry_markdown(_entry(entries, args.show, summary.title)).rstrip())
        elif args.markdown:
            print(journal.markdown(summary.title, summary.author), end="")
        elif args.json:
            print(json.dumps({"book_id": book_id, "title": summary.title,
                              "questions": [{"id": entry.id, "asked_at": entry.asked_at, "question": entry.question,
                                             "answer": entry.answer, "result": entry.result}
                                            for entry in entries]}, indent=2, ensure_ascii=False))
        elif not entries:
            print(f"No questions asked of {summary.title} yet. Ask one with: chapterhouse ask {book_id} \"QUESTION\"")
        else:
            for entry in entries:
                print(f"{entry.id:>4}  {time.strftime('%Y-%m-%d %H:%M', time.localtime(entry.asked_at))}  "
                      f"{entry_tags(entry.result)}{' '.join(entry.question.split())}  ({_gist(entry.result)})")
    finally:
        journal.close()
    return 0


def _entry(entries, entry_id: int, title: str):
    for entry in entries:
        if entry.id == entry_id:
            return entry
    raise ChapterhouseError(f"{title}: no question {entry_id} in its history (see `chapterhouse history`)")


def _gist(result: dict) -> str:
    """What the stored answer holds, in a few words."""
    if result.get("damaged"):
        return "its record is damaged: the answer's text only"
    lines, citations = len(result.get("digest", [])), len(result.get("citations", []))
    if result.get("related"):
        found = sum(len(part.get("passages", [])) for part in result.get("parts", []))
        return f"{found} related passage{'s' if found != 1 else ''}"
    evidence = f"{lines} evidence line{'s' if lines != 1 else ''}"
    if result.get("cancelled"):
        return f"{evidence}; stopped before the answer was done"
    if result.get("model_error"):
        return f"{evidence}; the model could not answer"
    if result.get("written") is False or not result.get("answer"):
        return evidence
    kind = "draft" if result.get("lead") == "digest" else "answer"
    return f"{evidence}; {kind} citing {citations} passage{'s' if citations != 1 else ''}"
