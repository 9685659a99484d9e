#!/usr/bin/env python3
"""How often a citation's support sentence is the one that backs the claim.

    CHAPTERHOUSE_HOME=DIR python tests/benchmarks/citation_support.py

A followed citation lands on the sentence of its passage that best backs the
answer's claim (`engine.answer.support`). Two sets with a written answer and
gold evidence: the development set (each question's reference answer, whole,
as the claim, cited on the passage holding each gold quote: several claims
at once, the hard case) and GutenQA's Emma questions (a one-sentence answer,
cited on the passage holding its evidence). Prints the share of citations
whose support sentence overlaps the gold evidence, for the embedder alone,
the claim's words alone and both (as shipped), against the passage's first
sentence (where a reader lands without it) and chance (the share of a
passage's sentences that overlap the evidence). Books are imported into the
library at $CHAPTERHOUSE_HOME and indexed to stage 1 if they are not already.
Nothing here is a pass/fail test.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

WEIGHTS = {"embedder alone": 0.0, "words alone": 1000.0, "both (shipped)": None}


def cases(context, claim: str, quotes: list[str]):
    """(passage, evidence span) for each quote found whole in one passage."""
    from engine.answer.selection import find_in_text

    for quote in quotes:
        span = find_in_text(context.book.text, quote)
        if span is None:
            continue
        holders = [node for node in context.passages_overlapping(*span)
                   if node.start <= span[0] and span[1] <= node.end]
        if holders:
            yield claim, holders[0], span


def measure(context, found: list, scores: dict) -> None:
    from engine.answer.answering import Citation
    from engine.answer.support import LEXICAL_WEIGHT, with_support

    for claim, passage, (start, end) in found:
        citation = Citation(passage.id, passage.section, "", passage.start, passage.end, passage.text)
        for name, weight in WEIGHTS.items():
            [supported] = with_support(f"{' '.join(claim.split())} [{passage.id}]", [citation], context,
                                       LEXICAL_WEIGHT if weight is None else weight)
            support = supported.support
            scores[name].append(support is not None and support["start"] < end and start < support["end"])
        sentences = [(a, b) for a, b in context.sentences(passage)
                     if b <= passage.end and len(context.book.text[a:b].split()) >= 4]
        overlapping = [a < end and start < b for a, b in sentences]
        scores["first sentence"].append(bool(overlapping) and overlapping[0])
        scores["chance"].append(statistics.mean(overlapping) if overlapping else 0.0)


def main() -> int:
    from engine.answer.evaluate import load_questions, sessions_by_book
    from engine.answer.session import AnswerSession
    from engine.answer_cli import default_books_dir
    from engine.store import Library

    corpus = default_books_dir().parent
    dev = corpus / "qa" / "crosschapter" / "dev.jsonl"
    emma = corpus / "qa" / "gutenqa" / "emma_example_with_evidence.jsonl"
    if not dev.is_file() or not emma.is_file():
        print(f"{corpus}: no question files (set CHAPTERHOUSE_CORPUS)", file=sys.stderr)
        return 2
    library = Library()
    results = {}
    answers = {row["id"]: row["answer"] for row in map(json.loads, dev.read_text(encoding="utf-8").splitlines())}
    scores = {name: [] for name in [*WEIGHTS, "first sentence", "chance"]}
    questions = load_questions(dev, default_books_dir())
    for _path, _indexer, session, book_questions in sessions_by_book(
            questions, library, progress=lambda line: print(line, file=sys.stderr)):
        for question in book_questions:
            measure(session.context, list(cases(session.context, answers[question.id], question.quotes.values())),
                    scores)
    results["development set, whole answer"] = scores
    scores = {name: [] for name in [*WEIGHTS, "first sentence", "chance"]}
    rows = [json.loads(line) for line in emma.read_text(encoding="utf-8").splitlines() if line.strip()]
    book_id = library.import_book(corpus / rows[0]["book_file"]).book_id
    session = AnswerSession(library, book_id, generator=None)
    session.ensure_indexed()
    for row in rows:
        measure(session.context, list(cases(session.context, row["answer"], [row["chunk_must_contain"]])), scores)
    results["GutenQA Emma, one-sentence answer"] = scores
    names = [*WEIGHTS, "first sentence", "chance"]
    print(f"{'support sentence holds the evidence':<36} {'cited':>5}  " + "  ".join(f"{n:>15}" for n in names))
    for label, scores in results.items():
        print(f"{label:<36} {len(scores['chance']):>5}  "
              + "  ".join(f"{statistics.mean(scores[n]) if scores[n] else float('nan'):>15.3f}" for n in names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
