#!/usr/bin/env python3
"""How often Find Related Passages leads from one piece of evidence to the
other chapters a question needs.

    CHAPTERHOUSE_HOME=DIR python tests/benchmarks/related_links.py [--questions FILE] [--budget 8]

For each development question that needs two sections or more, each section's
gold evidence quote is found in the book and taken as the reader's selection.
Related passages are found for it (`session.related`), and so are the same
number of passages by plain BM25, dense and hybrid search on the quote (the
passages holding the quote left out of every list). Printed: the share of the
question's *other* required sections each method reaches, and of selections
that reach at least one. Books are imported into the library at
$CHAPTERHOUSE_HOME and indexed to stage 1 if they are not already. Nothing
here is a pass/fail test.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

METHODS = ("related", "bm25", "dense", "hybrid")


def baseline_sections(context, method: str, quote: str, budget: int, held: set[str]) -> set[int]:
    """The sections of the first `budget` passages a plain ranking finds for the quote, less the held ones."""
    search = context.search
    deep = budget + len(held)
    if method == "bm25":
        ids = [node_id for node_id, _ in search.bm25(quote, levels=[1], k=deep)]
    elif method == "dense":
        ids = [node_id for node_id, _ in search.dense(quote, levels=[1], k=deep)]
    else:
        ids = [hit.node.id for hit in search.search(quote, levels=[1], k=deep)]
    kept = [node_id for node_id in ids if node_id not in held][:budget]
    return {context.section_of.get(node_id) for node_id in kept}


def main() -> int:
    from engine.answer.evaluate import load_questions, sessions_by_book
    from engine.answer.selection import find_in_text
    from engine.answer_cli import default_books_dir
    from engine.store import Library

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    corpus = default_books_dir().parent
    parser.add_argument("--questions", type=Path, default=corpus / "qa" / "crosschapter" / "dev.jsonl")
    parser.add_argument("--budget", type=int, default=8)
    args = parser.parse_args()
    if not args.questions.is_file():
        print(f"{args.questions}: no question file (set CHAPTERHOUSE_CORPUS)", file=sys.stderr)
        return 2
    questions = [q for q in load_questions(args.questions, default_books_dir()) if len(set(q.sections)) > 1]
    reached = defaultdict(list)  # method -> share of the other required sections reached, per selection
    any_reached = defaultdict(list)
    missing_quotes = 0
    books = sessions_by_book(questions, Library(), progress=lambda line: print(line, file=sys.stderr))
    for _path, _indexer, session, book_questions in books:
        context = session.context
        for question in book_questions:
            required = set(question.sections)
            for section, quote in question.quotes.items():
                span = find_in_text(context.book.text, quote)
                if span is None:
                    missing_quotes += 1
                    continue
                others = required - {section}
                held = {node.id for node in context.passages_overlapping(*span)}
                found = {"related": set(session.related(span, budget=args.budget).sections)}
                for method in METHODS[1:]:
                    found[method] = baseline_sections(context, method, context.book.text[span[0]:span[1]],
                                                      args.budget, held)
                for method in METHODS:
                    share = len(found[method] & others) / len(others)
                    reached[method].append(share)
                    any_reached[method].append(share > 0)
    selections = len(reached["related"])
    print(f"{selections} selections (gold quotes of {len(questions)} questions needing two sections or more; "
          f"{missing_quotes} quotes not found in the text), {args.budget} passages each")
    print(f"{'method':>8}  {'other sections reached':>22}  {'at least one':>12}")
    for method in METHODS:
        print(f"{method:>8}  {statistics.mean(reached[method]):>22.3f}  {statistics.mean(any_reached[method]):>12.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
