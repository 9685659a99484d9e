"""The `chapterhouse` command (also `python -m engine`).

    chapterhouse import PATH...        import books (a no-op for a text already there)
    chapterhouse list [--json]         the library
    chapterhouse sections BOOK [--json]
    chapterhouse text BOOK             the stored normalized text
    chapterhouse remove BOOK           delete a book and everything stored for it
    chapterhouse repair BOOK           make a damaged book again from its file, keeping its history
    chapterhouse index BOOK [--stage N] [--segmenter fixed|llm]   build the ladder index
    chapterhouse status BOOK [--json]  how far the index has got
    chapterhouse retrieve BOOK "QUESTION" / ask BOOK "QUESTION"   evidence, and an answer citing it
    chapterhouse history BOOK [--json|--markdown|--show ID|--delete ID]   the questions asked of a book
    chapterhouse models ...            the model catalogue: list, use, remote, download, check
    chapterhouse gui [BOOK]            the desktop app

BOOK is a book id (or a unique prefix of one), a unique title, or a book file's
path (imported first if needed). Errors are one line on stderr, exit code 2.
The JSON shapes are documented in README.md and kept stable.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from . import __version__
from .errors import ChapterhouseError

EXIT_BAD_INPUT = 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 0
    _utf8_output()
    try:
        return args.handler(args)
    except ChapterhouseError as error:
        print(f"chapterhouse: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="chapterhouse", description="Chapterhouse: an offline reading assistant.")
    parser.add_argument("--version", action="version", version=f"chapterhouse {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    command = commands.add_parser("import", help="import book files (.txt, .epub, .html, .zip)")
    command.add_argument("paths", nargs="+", metavar="PATH")
    command.add_argument("--json", action="store_true", help="print one JSON object per book")
    command.set_defaults(handler=_import)

    command = commands.add_parser("list", help="list the books in the library")
    command.add_argument("--json", action="store_true")
    command.set_defaults(handler=_list)

    command = commands.add_parser("sections", help="show a book's sections")
    command.add_argument("book", metavar="BOOK")
    command.add_argument("--json", action="store_true")
    command.set_defaults(handler=_sections)

    command = commands.add_parser("text", help="print a book's stored normalized text")
    command.add_argument("book", metavar="BOOK")
    command.set_defaults(handler=_text)

    command = commands.add_parser("remove", help="remove a book and everything stored for it")
    command.add_argument("book", metavar="BOOK")
    command.set_defaults(handler=_remove)

    from .answer_cli import add_parsers as add_answer_parsers
    from .history_cli import add_parser as add_history_parser
    from .index_cli import add_parsers as add_index_parsers
    from .models_cli import add_parser as add_models_parser

    add_index_parsers(commands)
    add_answer_parsers(commands)
    add_history_parser(commands)
    add_models_parser(commands)

    command = commands.add_parser("gui", help="start the desktop app")
    command.add_argument("book", metavar="BOOK", nargs="?")
    command.set_defaults(handler=_gui)
    return parser


def _library():
    from .store import Library

    return Library()


def _import(args) -> int:
    library = _library()
    failed = False
    for path in args.paths:
        try:
            result = library.import_book(path)
        except ChapterhouseError as error:
            print(f"chapterhouse: error: {error}", file=sys.stderr)
            failed = True
            continue
        summary = result.summary
        if args.json:
            print(json.dumps({"status": "imported" if result.created else "already-imported", **summary.to_dict()},
                             ensure_ascii=False))
        else:
            verb = "imported" if result.created else "already in the library"
            print(f"{verb}: {summary.book_id}  {summary.title}  ({summary.sections} sections)")
    return EXIT_BAD_INPUT if failed else 0


def _list(args) -> int:
    books = _library().list_books()
    if args.json:
        print(json.dumps([book.to_dict() for book in books], indent=2, ensure_ascii=False))
        return 0
    if not books:
        print("The library is empty. Import a book with: chapterhouse import PATH")
        return 0
    for book in books:
        if book.damaged:
            print(f"{book.book_id}  {book.title}  (damaged: repair it with `chapterhouse repair {book.book_id}`)")
            continue
        author = f" by {book.author}" if book.author else ""
        print(f"{book.book_id}  {book.title}{author}  ({book.sections} sections, {book.characters:,} characters)")
    return 0


def sections_document(library, book_id: str) -> dict:
    """The `sections --json` document."""
    manifest = library.manifest(book_id)
    with library.open(book_id) as database:
        metadata = database.metadata()
        counts = database.paragraph_counts()
        parts = database.parts()
        sections = database.sections()
        text = database.text()
    return {
        "book_id": book_id,
        "title": metadata.get("title"),
        "author": metadata.get("author"),
        "language": metadata.get("language"),
        "gutenberg_id": metadata.get("gutenberg_id"),
        "format_version": manifest.get("format_version"),
        "sections_method": metadata.get("sections_method"),
        "synthetic": metadata.get("sections_synthetic") == "yes",
        "characters": len(text),
        "parts": [
            {"ordinal": p.ordinal, "label": p.label, "title": p.title, "heading": p.heading, "start": p.start, "end": p.end}
            for p in parts
        ],
        "sections": [
            {
                "ordinal": s.ordinal, "label": s.label, "title": s.title, "heading": s.heading,
                "number": s.number, "kind": s.kind, "part": s.part,
                "start": s.start, "end": s.end, "body_start": s.body_start,
                "words": len(text[s.start:s.end].split()),
                "paragraphs": dict(zip(("first", "last", "count"), counts.get(s.ordinal, (None, None, 0)))),
            }
            for s in sections
        ],
    }


def _sections(args) -> int:
    from .book import readable

    library = _library()
    book_id = library.resolve(args.book)
    document = sections_document(library, book_id)
    if args.json:
        print(json.dumps(document, indent=2, ensure_ascii=False))
        return 0
    print(f"{document['title']}  [{book_id}]")
    if document["synthetic"]:
        print("(no chapter headings found: synthetic sections of about 5,000 words)")
    parts = {p["ordinal"]: p for p in document["parts"]}
    current_part = None
    for section in document["sections"]:
        if section["part"] != current_part and section["part"] in parts:
            current_part = section["part"]
            part = parts[current_part]
            print(f"  {part['label']}{': ' + readable(part['title']) if part['title'] else ''}")
        indent = "    " if current_part else "  "
        title = f": {readable(section['title'])}" if section["title"] else ""
        print(f"{indent}{section['ordinal']:>3}. {section['label']}{title}  ({section['words']:,} words)")
    return 0


def _text(args) -> int:
    library = _library()
    book_id = library.resolve(args.book)
    with library.open(book_id) as database:
        sys.stdout.write(database.text())
        sys.stdout.write("\n")
    return 0


def _remove(args) -> int:
    library = _library()
    book_id = library.resolve(args.book, import_files=False)
    title = library.summary(book_id).title
    library.remove(book_id)
    print(f"removed: {book_id}  {title}")
    return 0


def _gui(args) -> int:
    # The engine never loads Qt: the desktop app runs as its own process.
    import subprocess

    command = [sys.executable, "-m", "desktop"] + ([args.book] if args.book else [])
    return subprocess.call(command)


def _utf8_output() -> None:
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure:
            try:
                reconfigure(encoding="utf-8")
            except (ValueError, OSError):
                pass
