"""`chapterhouse retrieve`, `chapterhouse ask` and `chapterhouse eval`."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from .durations import duration_text
from .llm.settings import ANSWER_SETTINGS


UP_TO_HELP = ("use the book only up to the end of this section (its number in `chapterhouse sections`): "
              "nothing after it is searched or shown, so nothing later is given away")
ABOUT_HELP = ("ask about this passage: words of the book (the first place they stand is used; case, spacing "
              "and line breaks do not matter); its passages lead the evidence")
AFTER_HELP = ("a follow-up to this earlier question: the subject it names is put beside the new one's pronoun "
              "(\"What becomes of him?\" after \"Who is Marley?\")")
FOLLOW_UP_HELP = "a follow-up to the last question in the book's history (see --after)"
IN_HELP = ("ask about this section only (its number in `chapterhouse sections`; repeat for several): only its "
           "passages are searched")


def add_parsers(commands) -> None:
    retrieve = commands.add_parser("retrieve", help="the evidence for a question (no answer call)")
    retrieve.add_argument("book", metavar="BOOK")
    retrieve.add_argument("question", metavar="QUESTION")
    retrieve.add_argument("--json", action="store_true")
    retrieve.add_argument("--budget", type=int, default=12, help="passages at most (default 12)")
    retrieve.add_argument("--planner", choices=["code", "model", "auto"], default="code")
    retrieve.add_argument("--up-to", type=int, metavar="SECTION", help=UP_TO_HELP)
    retrieve.add_argument("--about", metavar="TEXT", help=ABOUT_HELP)
    retrieve.add_argument("--in", dest="within", type=int, action="append", metavar="SECTION", help=IN_HELP)
    _add_follow_up(retrieve)
    retrieve.set_defaults(handler=run_retrieve)

    ask = commands.add_parser("ask", help="answer a question about a book, citing passages")
    ask.add_argument("book", metavar="BOOK")
    ask.add_argument("question", metavar="QUESTION")
    ask.add_argument("--json", action="store_true", help="print the whole result as JSON at the end")
    ask.add_argument("--budget", type=int, default=12)
    ask.add_argument("--planner", choices=["code", "model", "auto"], default="auto")
    ask.add_argument("--answers", choices=ANSWER_SETTINGS, default=None,
                     help="model: the generator writes an answer under the evidence; evidence: the evidence alone, "
                          "no model loaded (default: the settings' choice)")
    ask.add_argument("--up-to", type=int, metavar="SECTION", help=UP_TO_HELP)
    ask.add_argument("--about", metavar="TEXT", help=ABOUT_HELP)
    ask.add_argument("--in", dest="within", type=int, action="append", metavar="SECTION", help=IN_HELP)
    _add_follow_up(ask)
    ask.add_argument("--no-history", action="store_true",
                     help="do not keep the question and its answer in the book's history (the app's History tab, "
                          "`chapterhouse history`)")
    ask.set_defaults(handler=run_ask)

    related = commands.add_parser("related", help="passages elsewhere in the book that tell of a passage")
    related.add_argument("book", metavar="BOOK")
    related.add_argument("text", metavar="TEXT", help="words of the book: the passage (the first place they stand)")
    related.add_argument("--json", action="store_true")
    related.add_argument("--budget", type=int, default=8, help="passages at most (default 8)")
    related.add_argument("--up-to", type=int, metavar="SECTION", help=UP_TO_HELP)
    related.add_argument("--in", dest="within", type=int, action="append", metavar="SECTION",
                         help="look in this section only (its number in `chapterhouse sections`; repeat for several)")
    related.set_defaults(handler=run_related)

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


def _add_follow_up(command) -> None:
    follow = command.add_mutually_exclusive_group()
    follow.add_argument("--after", metavar="QUESTION", help=AFTER_HELP)
    follow.add_argument("--follow-up", action="store_true", help=FOLLOW_UP_HELP)


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


def _session(reference: str, answers: str | None = None):
    """The book, imported and indexed to stage 1 first if need be."""
    from .answer.session import AnswerSession
    from .index_cli import _Bar
    from .llm.settings import ModelSettings
    from .store import Library

    library = Library()
    book_id = library.resolve(reference)
    settings = ModelSettings.load()
    if answers is not None:
        settings.answers = answers
    session = AnswerSession(library, book_id, settings=settings)
    if session.indexer.status()["stage_reached"] < 1:
        print(f"indexing {session.indexer.book.title} (stage 1, no model needed)\u2026", file=sys.stderr)
        bar = _Bar()
        session.ensure_indexed(progress=bar.update)
        bar.close()
    return session


def _until(session, section: int | None) -> int | None:
    """The end of section N in the text, checked against the book."""
    if section is None:
        return None
    sections = session.context.book.sections
    if not 1 <= section <= len(sections):
        from .errors import ChapterhouseError

        raise ChapterhouseError(f"{session.context.book.title}: --up-to {section}: the book has sections 1 to "
                                f"{len(sections)} (see `chapterhouse sections`)")
    return sections[section - 1].end


def _about(session, text: str | None, given_as: str = "--about") -> tuple[int, int] | None:
    """The span of the book `--about` names, refused in one line when the book does not hold it."""
    if text is None:
        return None
    from .answer.selection import find_in_text
    from .errors import ChapterhouseError

    span = find_in_text(session.context.book.text, text)
    if span is None:
        raise ChapterhouseError(f"{session.context.book.title}: {given_as}: \u201c{' '.join(text.split())[:80]}\u201d "
                                "is not in the book's text (see `chapterhouse text`)")
    return span


def _after(session, args):
    """The earlier question a follow-up follows: given, or the history's last
    (with its answer, where a capable model wrote it)."""
    if not args.follow_up:
        return args.after
    from .answer.followup import earlier_of
    from .errors import ChapterhouseError

    journal = session.library.journal(session.book_id)
    try:
        entries = journal.entries()
    finally:
        journal.close()
    if not entries:
        raise ChapterhouseError(f"{session.context.book.title}: --follow-up: no question asked of it yet to follow "
                                "(see `chapterhouse history`)")
    return earlier_of(entries[-1].result)


def _taken_as(follows: dict) -> str:
    with_answer = " and its answer" if follows.get("answer") else ""
    return f"(Following on from \u201c{follows['question']}\u201d{with_answer}, taken as: {follows['taken_as']})\n"


def _passage(node, labels) -> dict:
    return {"id": node.id, "section": node.section, "label": labels.get(node.section, ""), "start": node.start,
            "end": node.end, "text": node.text}


def run_retrieve(args) -> int:
    from .answer.session import check_question

    check_question(args.question, args.book)  # before a new book's import and indexing, not after
    session = _session(args.book)
    focus = _about(session, args.about)
    after = _after(session, args)
    # As `ask` and the app take it: a name typed without its accents, "so far", the chapters it names.
    found = session.retrieve(args.question, budget=args.budget, planner=args.planner,
                             until=_until(session, args.up_to), focus=focus, within=args.within, after=after)
    return _show_evidence(session, found, args.question, args.json, found.until, focus, found.within, after)


def run_related(args) -> int:
    """Passages elsewhere in the book that tell of the words given (see engine/answer/related.py)."""
    session = _session(args.book)
    until = _until(session, args.up_to)
    focus, within = _about(session, args.text, "TEXT"), session.checked_within(args.within, until)
    found = session.related(focus, budget=args.budget, until=until, within=within)
    from .answer.related import RELATED_QUESTION

    return _show_evidence(session, found, RELATED_QUESTION, args.json, until, focus, within, None)


def _show_evidence(session, found, question: str, as_json: bool, until, focus, within, after) -> int:
    """What `retrieve` and `related` print: the digest and the passages, or all of it as JSON."""
    from .answer.absent import absent_line
    from .answer.digest import digest_markdown
    from .answer.selection import focus_record, within_record
    from .answer.spelling import read_as_line

    plan = found.plan
    digest = session.digest(found)
    labels = session.context.book.cited_labels()
    if as_json:
        part_of = {node.id: index for index, part in enumerate(found.parts) for node in part.passages}
        print(json.dumps({
            "book_id": session.book_id, "title": session.context.book.title,
            "stage": session.indexer.status()["stage_reached"], "question": question,
            "plan": plan.as_dict(), "plan_path": plan.path,
            "passages": [{**_passage(node, labels), "part": part_of.get(node.id)} for node in found.passages],
            "parts": [{"text": part.part.text, "anchors": part.part.anchors, "several": part.part.several,
                       "passages": [node.id for node in part.passages]} for part in found.parts],
            "digest": [line.as_dict() for line in digest],
            "reading_limit": session.context.reading_limit(until),
            "focus": focus_record(session.context, focus) if focus else None,
            "within": within_record(session.context, within) if within else None,
            "named": within_record(session.context, found.named) if found.named else None,
            "overview": found.overview,
            "follows": session.follows(question, after, until),
            "meaning_share": round(found.meaning_share, 3),
            "absent": found.absent,
            "read_as": [list(slip) for slip in found.read_as],
            "stated": found.stated,
            "timings": {"retrieval_ms": round(found.seconds * 1000, 1)},
        }, indent=2, ensure_ascii=False))
        return 0
    if after:
        print(_taken_as(session.follows(question, after, until)))
    if read_as_line(found.read_as):
        print(f"({read_as_line(found.read_as)})\n")
    if absent_line(found.absent):
        print(f"({absent_line(found.absent)})\n")
    if found.stated:
        print(f"{found.stated}\n")
    if digest:
        print(digest_markdown(digest, [part.part.text for part in found.parts]))
        print()
    for node in found.passages:
        print(f"[{node.id}] {labels.get(node.section, '')}: {' '.join(node.text.split())[:160]}\u2026")
    limit = session.context.reading_limit(until)
    up_to = f"; the book up to the end of {limit['label']}" if limit else ""
    print(f"({len(found.passages)} passages from {len(found.sections)} sections in {found.seconds * 1000:.0f} ms"
          f"{up_to})")
    return 0


def _keep_in_history(session, result: dict) -> int | None:
    """Keep an answer in the book's history, as the app does (a stopped one
    too: its evidence is whole). Its id, or None where the disk refuses: the
    answer has been shown all the same, so that is a warning, not a failure."""
    from .errors import StorageError

    journal = session.library.journal(session.book_id)
    try:
        return journal.add(result)
    except StorageError as error:
        print(f"chapterhouse: warning: {session.context.book.title}: {error.reason}, so this answer is not kept in "
              f"the history ({error.path})", file=sys.stderr)
        return None
    finally:
        journal.close()


DRAFT_RESTATED = "[this draft only restates the question, so the app does not show it: the evidence is the answer]"


def run_ask(args) -> int:
    from .answer.absent import absent_line, nothing_to_answer
    from .answer.bookfacts import FACT_SOURCES
    from .answer.digest import digest_markdown, quoted
    from .answer.session import check_question
    from .answer.spelling import read_as_line
    from .llm.types import CancelToken
    import signal

    check_question(args.question, args.book)  # before a new book's import and indexing, not after
    session = _session(args.book, args.answers)
    until = _until(session, args.up_to)
    focus, after = _about(session, args.about), _after(session, args)
    cancel = CancelToken()
    previous = signal.signal(signal.SIGINT, lambda *_: cancel.cancel())
    quiet = args.json

    def on_digest(lines, retrieval):
        if not quiet:
            if after:
                print(_taken_as(session.follows(args.question, after, until)))
            if read_as_line(retrieval.read_as):
                print(f"({read_as_line(retrieval.read_as)})\n")
            if absent_line(retrieval.absent):
                print(f"({absent_line(retrieval.absent)})\n")
            if nothing_to_answer(retrieval.absent):
                return  # that line is the answer: no evidence, no model call
            if retrieval.stated:  # the book's record answers it: no model call
                print(f"Answer (from {FACT_SOURCES[retrieval.overview]}, no model):\n{retrieval.stated}")
                if lines:
                    print("\n" + digest_markdown(lines, [part.part.text for part in retrieval.parts]))
                return
            limit = session.context.reading_limit(until)
            print(f"Evidence (the book up to the end of {limit['label']}):" if limit else "Evidence:")
            print(digest_markdown(lines, [part.part.text for part in retrieval.parts]))
            if not session.writes_answers:
                print("\n(Evidence only, as --answers or the settings ask: no model answer.)")
                return
            print("\nAnswer:" if session.answer_leads else
                  "\nDraft answer (the default model is tiny; see the evidence above):")
            sys.stdout.flush()

    def on_text(piece):
        if not quiet:
            sys.stdout.write(piece)
            sys.stdout.flush()

    def on_retry(retrieval):
        if not quiet:
            print("\n[a part was not found: answering again with 14 passages]")

    # The prompt pass is a silent wait of 20-40 s on a CPU; a terminal is told
    # how far it is, on one line that the answer then overwrites.
    show_reading = not quiet and sys.stderr.isatty()

    def on_reading(done, total, seconds_left):
        if not show_reading:
            return
        line = "" if done >= total else f"[reading the evidence: {done / total:.0%}" + (
            f", about {duration_text(max(1.0, seconds_left))} left]" if seconds_left is not None else "]")
        sys.stderr.write("\r" + line.ljust(60) + ("\r" if not line else ""))
        sys.stderr.flush()

    try:
        result = session.ask(args.question, budget=args.budget, planner=args.planner, cancel=cancel,
                             on_digest=on_digest, on_text=on_text, on_retry=on_retry, on_reading=on_reading,
                             until=until, focus=focus, within=args.within, after=after)
    finally:
        signal.signal(signal.SIGINT, previous)
    kept = not args.no_history and (result.digest or result.answer)  # stopped before any evidence: nothing to keep
    history_id = _keep_in_history(session, result.as_dict()) if kept else None
    if quiet:
        document = result.as_dict()
        document.update(book_id=session.book_id, title=session.context.book.title, history_id=history_id)
        print(json.dumps(document, indent=2, ensure_ascii=False))
        return 130 if result.cancelled else 1 if result.model_error else 0
    print()
    if result.cancelled:
        print("[stopped]")
        return 130
    if result.model_error:
        print(f"chapterhouse: the model could not answer: {result.model_error} (the evidence above stands)",
              file=sys.stderr)
        return 1
    if result.discarded_draft:
        # The text is already on the screen (it streamed); the app would not show it.
        print(DRAFT_RESTATED)
    if result.citations:
        print("\nCited:")
        for citation in result.citations:
            print(f"  [{citation.passage_id}] {citation.label}, characters {citation.start}-{citation.end}"
                  + (f": {quoted(citation.support['text'])}" if citation.support else ""))
    timings = result.timings
    if not result.written or result.retrieval.stated:
        print(f"(retrieval {timings['retrieval'] * 1000:.0f} ms, total {timings['total']} s)")
        return 0
    print(f"\n(retrieval {timings['retrieval'] * 1000:.0f} ms, first token {timings['first_token']} s, "
          f"total {timings['total']} s; {result.citations_dropped} citations dropped)")
    return 0
