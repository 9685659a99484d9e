"""`chapterhouse retrieve`, `chapterhouse ask` and `chapterhouse eval`."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from .paths import data_dir


def add_parsers(commands) -> None:
    evaluate = commands.add_parser("eval", help="measure retrieval (and answers) on a question set")
    evaluate.add_argument("--questions", required=True, type=Path, help="JSONL: the cross-chapter set, GutenQA or LiteraryQA")
    evaluate.add_argument("--books", type=Path, default=None,
                          help="folder of the book files (default: $CHAPTERHOUSE_CORPUS/gutenberg or ../shared/corpus/gutenberg)")
    evaluate.add_argument("--out", type=Path, help="write the full results as JSON")
    evaluate.add_argument("--budgets", default="12,6", help="passage budgets, comma-separated (default 12,6)")
    evaluate.add_argument("--stage", type=int, default=1, choices=[1, 2, 3, 4],
                          help="index books to at least this stage first (default 1)")
    evaluate.add_argument("--answers", type=int, default=0, help="also generate answers for the first N questions")
    evaluate.add_argument("--planner", choices=["code", "model"], default="code")
    evaluate.add_argument("--no-ablations", action="store_true")
    evaluate.add_argument("--books-only", default="", help="only these book slugs, comma-separated")
    evaluate.set_defaults(handler=run_eval)


def default_books_dir() -> Path:
    root = Path(__file__).resolve().parent.parent
    corpus = Path(os.environ.get("CHAPTERHOUSE_CORPUS", root.parent / "shared" / "corpus"))
    return corpus / "gutenberg"


def run_eval(args) -> int:
    from .answer.evaluate import format_report, load_questions, run_evaluation
    from .errors import ChapterhouseError
    from .store import Library

    books = args.books or default_books_dir()
    if not args.questions.is_file():
        raise ChapterhouseError(f"{args.questions}: no such question file")
    questions = load_questions(args.questions, books)
    if args.books_only:
        wanted = set(args.books_only.split(","))
        questions = [q for q in questions if q.book_path.stem in wanted]
    missing = sorted({str(q.book_path) for q in questions if not q.book_path.is_file()})
    if missing:
        raise ChapterhouseError(f"{missing[0]}: book file not found (give --books DIR)")
    budgets = tuple(int(b) for b in args.budgets.split(","))
    report = run_evaluation(questions, Library(), budgets=budgets, stage=args.stage, ablations=not args.no_ablations,
                            answers=args.answers, planner=args.planner,
                            progress=lambda message: print(message, file=sys.stderr))
    print(format_report(report))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))
        print(f"results: {args.out}", file=sys.stderr)
    return 0
