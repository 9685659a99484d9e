#!/usr/bin/env python3
"""What a follow-up's earlier question is worth to retrieval.

    CHAPTERHOUSE_HOME=DIR python tests/benchmarks/follow_ups.py [--questions FILE] [--budgets 12,6]

Each development question that names someone (its first subject, as
`engine.answer.followup.subjects_of` finds it) is turned into the question a
reader asks after "Who is NAME?": the name replaced by a pronoun ("How does
Scrooge's view change?" becomes "How does their view change?"). Location
recall (the share of a question's required sections among the retrieved
passages' sections) is measured, per budget, for the question as written,
the pronoun question alone, and the pronoun question as a follow-up to "Who
is NAME?" (`after=`). Prints the three figures and the share of the loss
the follow-up wins back. Books are imported into the library at
$CHAPTERHOUSE_HOME and indexed to stage 1 if they are not already (the eval
harness's library can be reused). Nothing here is a pass/fail test.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

# A name in these places reads as the subject of its clause: "they", else "them".
_SUBJECT_BEFORE = {"does", "did", "do", "is", "was", "has", "had", "can", "could", "would", "will", "when", "where",
                   "why", "how", "that", "and", "as", "before", "after", "while", "until", "who", "what"}


def pronoun_question(question: str, subject: str) -> str:
    """The question with the subject (and each of its words) replaced by a pronoun."""
    names = sorted({subject} | {word for word in subject.replace(".", " ").split() if len(word) > 2}, key=len,
                   reverse=True)
    pattern = re.compile(r"\b(" + "|".join(re.escape(name) for name in names) + r")(['\u2019]s)?\b")

    def pronoun(match: re.Match) -> str:
        if match.group(2):
            return "their"
        before = question[:match.start()].split()
        return "they" if not before or before[-1].lower().strip(",;:") in _SUBJECT_BEFORE else "them"

    replaced = pattern.sub(pronoun, question)
    return re.sub(r"\b(they|them|their)(\s+(they|them|their)\b)+", r"\1", replaced)  # "Jacob Marley" -> one


def main() -> int:
    from engine.answer.evaluate import load_questions, location_recall, sessions_by_book
    from engine.answer.followup import subjects_of
    from engine.answer.retrieval import retrieve
    from engine.answer_cli import default_books_dir
    from engine.store import Library

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    corpus = default_books_dir().parent
    parser.add_argument("--questions", type=Path, default=corpus / "qa" / "crosschapter" / "dev.jsonl")
    parser.add_argument("--budgets", default="12,6")
    args = parser.parse_args()
    if not args.questions.is_file():
        print(f"{args.questions}: no question file (set CHAPTERHOUSE_CORPUS)", file=sys.stderr)
        return 2
    budgets = [int(budget) for budget in args.budgets.split(",")]
    questions = [q for q in load_questions(args.questions, default_books_dir()) if q.sections]
    recall = defaultdict(list)  # (budget, form) -> recalls
    examples = []
    books = sessions_by_book(questions, Library(), progress=lambda line: print(line, file=sys.stderr))
    for _path, _indexer, session, book_questions in books:
        characters = session.context.characters_known_by(None)
        for question in book_questions:
            subjects = subjects_of(question.question, characters)
            if not subjects:
                continue
            asked = pronoun_question(question.question, subjects[0])
            earlier = f"Who is {subjects[0]}?"
            if len(examples) < 5:
                examples.append((question.question, earlier, asked))
            for budget in budgets:
                for form, text, after in (("as written", question.question, None), ("pronoun alone", asked, None),
                                          ("follow-up", asked, earlier)):
                    found = retrieve(session.plan(text, after=after), session.context, budget=budget)
                    recall[(budget, form)].append(location_recall(question.sections, set(found.sections)))
    counted = len(recall[(budgets[0], "as written")])
    print(f"{counted} of {len(questions)} questions name someone; e.g.:")
    for written, earlier, asked in examples:
        print(f"  {written}\n    -> {earlier} / {asked}")
    print(f"\n{'budget':>6}  {'as written':>10}  {'pronoun alone':>13}  {'follow-up':>9}  {'loss won back':>13}")
    for budget in budgets:
        written, alone, followed = (statistics.mean(recall[(budget, form)])
                                    for form in ("as written", "pronoun alone", "follow-up"))
        back = (followed - alone) / (written - alone) if written > alone else float("nan")
        print(f"{budget:>6}  {written:>10.3f}  {alone:>13.3f}  {followed:>9.3f}  {back:>13.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
