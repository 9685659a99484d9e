"""The evaluation harness: `chapterhouse eval --questions FILE`.

Retrieval is measured apart from answering. For the cross-chapter set the
measure is location recall: the share of a question's required sections
found among the retrieved passages' sections, at a fixed passage budget,
for the ladder method (retrieved as the app retrieves: a question that names
a chapter or asks about the whole book is taken so) and, in the same run and
budget, the baselines a plain RAG app would use (BM25, dense, hybrid RRF
top-k). Beside it, evidence recall: the share of the set's gold evidence
quotes that a retrieved passage holds (a section can be found by a passage
that does not hold its evidence).
An ablation table turns off, one at a time, what the method adds. GutenQA
questions with gold evidence strings are scored by Hit@1/5/20 and MRR;
LiteraryQA questions by token F1 and ROUGE-L of the evidence digest (and of
generated answers, when asked for) against the two reference answers.
"""

from __future__ import annotations

import json
import re
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from ..errors import ChapterhouseError
from .planning import STOPWORDS
from .retrieval import Features, baseline

BASELINES = ("bm25", "dense", "hybrid")
# The ladder for a reader who has read up to the end of the last section a
# question needs ("Only what I have read"): it must find the same evidence
# and show nothing after that point.
SO_FAR = "ladder so far"
SO_FAR_MID_SECTION = "ladder so far, mid-section"
ABLATIONS = ("anchors", "rare_words", "names", "summaries", "whole_question", "vectors")
# Issue #5's goals for location recall on the development set.
GOAL_STAGE1_AT_12 = 0.85
GOAL_FULL_AT_12, GOAL_FULL_ALL_FOUND, GOAL_FULL_AT_6 = 0.90, 0.75, 0.80
CLEAR_MARGIN = 0.02  # "clearly above a baseline": by more than this
LATENCY_GOAL_MS = 100


@dataclass
class Question:
    id: str
    book_path: Path
    question: str
    relation: str = ""
    sections: list[int] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    evidence: str | None = None
    # The gold evidence quote of each required section (cross-chapter set).
    quotes: dict[int, str] = field(default_factory=dict)
    kind: str = "crosschapter"  # crosschapter | evidence | answers
    # Share of the question's content words that its required sections use:
    # low for questions asked in the reader's words rather than the book's.
    overlap: float | None = None


LOW_OVERLAP = 0.5
LOW_OVERLAP_SCOPE = "wording:low overlap with the text"


def lexical_overlap(question: str, book, sections: list[int]) -> float:
    from .planning import content_words

    asked = {w.lower() for w in content_words(question)}
    text = " ".join(book.text[book.sections[o - 1].start:book.sections[o - 1].end]
                    for o in sections if 0 < o <= len(book.sections)).lower()
    present = {w for w in asked if re.search(rf"\b{re.escape(w)}", text)}
    return len(present) / len(asked) if asked else 1.0


def load_questions(path: Path, books_dir: Path) -> list[Question]:
    corpus_root = books_dir.parent
    questions = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise ChapterhouseError(f"{path}: line {number} is not valid JSON ({error.msg})") from None
        if not isinstance(row, dict):
            raise ChapterhouseError(f"{path}: line {number} is not a JSON object")
        try:
            question = _question_of(row, number, books_dir, corpus_root)
        except (KeyError, TypeError, AttributeError) as error:
            raise ChapterhouseError(f"{path}: line {number} lacks a field a question needs ({error})") from None
        if question is not None:
            questions.append(question)
    return questions


def _question_of(row: dict, number: int, books_dir: Path, corpus_root: Path) -> Question | None:
    """A question of one of the known formats; None for a row of none of them."""
    if "book" in row and "sections" in row:
        return Question(id=row.get("id", str(number)), book_path=books_dir / f"{row['book']}.txt",
                        question=row["question"], relation=row.get("relation", ""),
                        sections=[s["ordinal"] for s in row["sections"]],
                        quotes={s["ordinal"]: s["evidence"] for s in row["sections"] if s.get("evidence")},
                        answers=[row["answer"]] if row.get("answer") else [])
    if row.get("chunk_must_contain"):
        return Question(id=f"{row.get('title', 'book')}-{row.get('row', number)}",
                        book_path=corpus_root / row["book_file"], question=row["question"],
                        answers=[row.get("answer", "")], evidence=row["chunk_must_contain"], kind="evidence")
    if row.get("answers"):
        return Question(id=f"{row.get('gutenberg_id', 'book')}-{row.get('qa_index', number)}",
                        book_path=corpus_root / row["book_file"], question=row["question"],
                        answers=list(row["answers"]), kind="answers")
    if row.get("answer") and row.get("book_file"):  # GutenQA's questions on our books: one reference answer
        return Question(id=row.get("query_id", str(number)), book_path=corpus_root / row["book_file"],
                        question=row["question"], answers=[row["answer"]], kind="answers")
    return None


# ------------------------------------------------------------ metrics


def location_recall(required: list[int], found: set[int]) -> float:
    return sum(1 for s in required if s in found) / len(required) if required else 0.0


def normal_words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower().replace("\u2019", "'"))


def token_f1(prediction: str, reference: str) -> float:
    ours, theirs = normal_words(prediction), normal_words(reference)
    if not ours or not theirs:
        return 0.0
    common = sum((_counts(ours) & _counts(theirs)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(ours), common / len(theirs)
    return 2 * precision * recall / (precision + recall)


def rouge_l(prediction: str, reference: str) -> float:
    ours, theirs = normal_words(prediction), normal_words(reference)
    if not ours or not theirs:
        return 0.0
    previous = [0] * (len(theirs) + 1)
    for word in ours:
        current = [0]
        for j, other in enumerate(theirs, start=1):
            current.append(previous[j - 1] + 1 if word == other else max(previous[j], current[-1]))
        previous = current
    lcs = previous[-1]
    if lcs == 0:
        return 0.0
    precision, recall = lcs / len(ours), lcs / len(theirs)
    return 2 * precision * recall / (precision + recall)


def answer_recall(prediction: str, reference: str) -> float:
    """Share of a reference answer's words the prediction holds (its
    content words, where it has any): a digest quotes whole sentences, so
    its F1 against a three-word answer is bound by its length, not by
    whether it holds the answer ("Lady Russell", "Seattle")."""
    wanted = set(normal_words(reference))
    wanted = (wanted - STOPWORDS) or wanted
    return len(wanted & set(normal_words(prediction))) / len(wanted) if wanted else 0.0


def _counts(items):
    from collections import Counter

    return Counter(items)


def contains_evidence(text: str, evidence: str) -> bool:
    squash = lambda value: " ".join(normal_words(value))  # noqa: E731
    return squash(evidence) in squash(text)


def holds_quote(text: str, quote: str) -> bool:
    """Whether a passage holds a gold quote: whole, or half of a long one
    (a passage boundary may cut a quote in two)."""
    if contains_evidence(text, quote):
        return True
    words = quote.split()
    if len(words) < 8:
        return False
    half = len(words) // 2
    return contains_evidence(text, " ".join(words[:half])) or contains_evidence(text, " ".join(words[half:]))


def repeats_quote(line: str, quote: str) -> bool:
    """Whether a digest line quotes a gold quote: most of the quote's words
    (a line is one sentence; a gold quote may run over two)."""
    said = set(normal_words(line))
    words = normal_words(quote)
    return bool(words) and sum(1 for word in words if word in said) >= 0.6 * len(words)


def evidence_recall(quotes: dict[int, str], texts: list[str], holds=holds_quote) -> float:
    """Share of the gold quotes that one of `texts` holds (retrieved
    passages; with `repeats_quote`, the digest's lines)."""
    return sum(1 for quote in quotes.values() if any(holds(text, quote) for text in texts)) / len(quotes)


# ------------------------------------------------------------ running


@dataclass
class Row:
    question: Question
    method: str
    budget: int
    sections: list[int]
    seconds: float
    ranked_texts: list[str] = field(default_factory=list)
    digest: str = ""
    answer: dict | None = None
    digest_sections: list[int] | None = None  # sections the evidence digest quotes
    digest_lines: list[str] | None = None  # the evidence digest's lines, where it was made
    digest_seconds: float = 0.0
    beyond: int = 0  # passages shown from after the reading limit (SO_FAR rows; must be 0)


def sessions_by_book(questions: list[Question], library, stage: int = 1, progress: Callable[[str], None] = print):
    """Each book the questions are about, imported and indexed to at least
    `stage` where it is not yet: (its file, indexer, answering session with
    no generator, its questions), one book at a time."""
    from ..index.indexer import BookIndexer
    from .session import AnswerSession

    by_book: dict[Path, list[Question]] = defaultdict(list)
    for question in questions:
        by_book[question.book_path].append(question)
    for path, book_questions in by_book.items():
        book_id = library.import_book(path).book_id
        indexer = BookIndexer(library, book_id)
        if indexer.status()["stage_reached"] < stage:
            progress(f"indexing {path.name} to stage {stage}\u2026")
            indexer.run(up_to=stage)
        session = AnswerSession(library, book_id, generator=None)
        session.prepare()  # as the app does when a book opens: its first question is timed as any other
        yield path, indexer, session, book_questions


def run_evaluation(questions: list[Question], library, *, budgets=(12, 6), stage: int = 1, ablations: bool = True,
                   answers: int = 0, planner: str = "code", progress: Callable[[str], None] = print) -> dict:
    rows: list[Row] = []
    answered = 0
    books_info = {}
    for path, indexer, session, book_questions in sessions_by_book(questions, library, stage, progress):
        context = session.context
        books_info[path.stem] = {"title": context.book.title, "sections": len(context.book.sections),
                                 "stage": indexer.status()["stage_reached"],
                                 "summaries": context.has_summaries,
                                 "summary_routing": context.routes_by_summaries}
        progress(f"{context.book.title}: {len(book_questions)} questions, indexed to stage "
                 f"{books_info[path.stem]['stage']}")
        for question in book_questions:
            if question.sections:
                question.overlap = lexical_overlap(question.question, context.book, question.sections)
            for budget in budgets:
                # As the app retrieves: a question naming a chapter, or about the whole book, is taken so.
                # Timed whole, as the reader waits for it: reading the question (chapters it names, slips
                # of the keyboard) and the book's record as well as the search.
                started = time.perf_counter()
                found = session.retrieve(question.question, budget=budget, planner=planner)
                seconds = time.perf_counter() - started
                quoted, digest_seconds, lines = None, 0.0, None
                if question.kind in ("crosschapter", "evidence") and budget == budgets[0]:
                    started = time.perf_counter()
                    lines = session.digest(found)
                    digest_seconds = time.perf_counter() - started
                    if question.kind == "crosschapter":
                        quoted = sorted({line.section for line in lines if line.section is not None})
                rows.append(Row(question, "ladder", budget, found.sections, seconds,
                                ranked_texts=[n.text for n in found.ranked],
                                digest=session.digest_text(found)
                                if question.kind == "answers" and budget == budgets[0] else "",
                                digest_sections=quoted,
                                digest_lines=None if lines is None else [line.text for line in lines],
                                digest_seconds=digest_seconds))
                if question.kind == "crosschapter" and question.sections:
                    last = context.book.sections[min(max(question.sections), len(context.book.sections)) - 1]
                    # At the end of the last section a question needs, and half-way through it (a
                    # position inside a passage: the passage is cut there).
                    for method, limit in ((SO_FAR, last.end), (SO_FAR_MID_SECTION, (last.body_start + last.end) // 2)):
                        try:
                            limited = session.retrieve(question.question, budget=budget, planner=planner, until=limit)
                        except ChapterhouseError:  # refused in one line (a chapter it names lies past the limit)
                            rows.append(Row(question, method, budget, [], 0.0))
                            continue
                        rows.append(Row(question, method, budget, limited.sections, limited.seconds,
                                        beyond=sum(1 for node in limited.passages
                                                   if node.end > limit or node.start >= limit)))
                for method in BASELINES:
                    started = time.perf_counter()
                    nodes = baseline(context.search, question.question, method, budget)
                    rows.append(Row(question, method, budget, sorted({n.section for n in nodes}),
                                    time.perf_counter() - started, ranked_texts=[n.text for n in nodes]))
                if ablations and question.kind == "crosschapter":
                    for feature in ABLATIONS:
                        found = session.retrieve(question.question, budget=budget, planner=planner,
                                                 features=replace(Features(), **{feature: False}))
                        rows.append(Row(question, f"ladder without {feature.replace('_', ' ')}", budget,
                                        found.sections, found.seconds))
            if question.kind == "evidence":
                deep = session.retrieve(question.question, budget=20, planner=planner)
                rows.append(Row(question, "ladder", 20, deep.sections, deep.seconds,
                                ranked_texts=[n.text for n in deep.ranked]))
                for method in BASELINES:
                    nodes = baseline(context.search, question.question, method, 20)
                    rows.append(Row(question, method, 20, [], 0.0, ranked_texts=[n.text for n in nodes]))
            if answered < answers:
                answered += 1
                result = session.ask(question.question, budget=budgets[0], planner=planner)
                rows.append(Row(question, "answer", budgets[0], result.retrieval.sections, result.retrieval.seconds,
                                answer=result.as_dict()))
    return summarize(rows, books_info)


def summarize(rows: list[Row], books_info: dict) -> dict:
    report: dict = {"books": books_info, "location_recall": {}, "ablations": {}, "evidence": {}, "answers": {},
                    "latency": {}, "so_far": {}}
    so_far = [r for r in rows if r.method == SO_FAR]

    def limited_figures(members: list[Row]) -> dict:
        return {"questions": len(members),
                "location_recall": round(statistics.mean(location_recall(r.question.sections, set(r.sections))
                                                          for r in members), 3),
                "passages_after_the_limit": sum(r.beyond for r in members)}

    for budget in sorted({r.budget for r in so_far}, reverse=True):
        report["so_far"][str(budget)] = limited_figures([r for r in so_far if r.budget == budget])
        # The last needed section half read: its evidence may lie in the half not read yet.
        report["so_far"][str(budget)]["mid_section"] = limited_figures(
            [r for r in rows if r.method == SO_FAR_MID_SECTION and r.budget == budget])
    crosschapter = [r for r in rows if r.question.kind == "crosschapter"
                    and r.method not in ("answer", SO_FAR, SO_FAR_MID_SECTION)]
    groups: dict[tuple, list[Row]] = defaultdict(list)
    for row in crosschapter:
        groups[(row.method, row.budget, "all")].append(row)
        groups[(row.method, row.budget, f"book:{row.question.book_path.stem}")].append(row)
        stage = books_info.get(row.question.book_path.stem, {}).get("stage")
        if stage is not None:
            groups[(row.method, row.budget, f"stage:{stage}")].append(row)
        groups[(row.method, row.budget, f"relation:{row.question.relation}")].append(row)
        if row.question.overlap is not None and row.question.overlap <= LOW_OVERLAP:
            groups[(row.method, row.budget, LOW_OVERLAP_SCOPE)].append(row)
    for (method, budget, scope), members in groups.items():
        recalls = [location_recall(r.question.sections, set(r.sections)) for r in members]
        entry = {"questions": len(members), "location_recall": round(statistics.mean(recalls), 3),
                 "all_found": round(sum(1 for x in recalls if x == 1.0) / len(recalls), 3),
                 "none_found": round(sum(1 for x in recalls if x == 0.0) / len(recalls), 3)}
        quoted = [r for r in members if r.question.quotes]
        if quoted and (method == "ladder" or method in BASELINES):  # the rows that keep their passages' texts
            entry["evidence_recall"] = round(statistics.mean(evidence_recall(r.question.quotes, r.ranked_texts)
                                                             for r in quoted), 3)
        target = report["ablations"] if method.startswith("ladder without") else report["location_recall"]
        target.setdefault(scope, {}).setdefault(method, {})[str(budget)] = entry
    report["questions"] = _per_question(crosschapter)
    for method in {r.method for r in rows if r.method == "ladder" or r.method in BASELINES}:
        times = [r.seconds for r in rows if r.method == method and r.seconds > 0]
        if times:
            report["latency"][method] = {"mean_ms": round(1000 * statistics.mean(times), 1),
                                         "max_ms": round(1000 * max(times), 1)}
    quoting = [r for r in crosschapter if r.digest_sections is not None]
    if quoting:
        # The digest is what the default model's user reads first: how many of
        # the sections an answer needs does it quote from?
        shares = [location_recall(r.question.sections, set(r.digest_sections)) for r in quoting]
        with_quotes = [r for r in quoting if r.question.quotes]
        report["answers"]["digest_sections"] = {
            "questions": len(quoting), "budget": quoting[0].budget,
            "required_sections_quoted": round(statistics.mean(shares), 3),
            "all_quoted": round(sum(1 for x in shares if x == 1.0) / len(shares), 3),
            **({"gold_quotes_quoted": round(statistics.mean(
                evidence_recall(r.question.quotes, r.digest_lines, repeats_quote) for r in with_quotes), 3)}
               if with_quotes else {}),
            "mean_ms": round(1000 * statistics.mean(r.digest_seconds for r in quoting), 1),
            "max_ms": round(1000 * max(r.digest_seconds for r in quoting), 1)}
    digested = [r for r in rows
                if r.question.kind == "evidence" and r.method == "ladder" and r.digest_lines is not None]
    if digested:
        # What the default model's user reads first: does it quote the gold evidence?
        report["answers"]["digest_evidence"] = {
            "questions": len(digested), "budget": digested[0].budget,
            "evidence_quoted": round(sum(1 for r in digested if any(
                repeats_quote(line, r.question.evidence) for line in r.digest_lines)) / len(digested), 3)}
    evidence_rows = [r for r in rows if r.question.kind == "evidence" and r.budget == 20]
    for method in {r.method for r in evidence_rows}:
        hits = {1: 0, 5: 0, 20: 0}
        reciprocal = []
        members = [r for r in evidence_rows if r.method == method]
        for row in members:
            rank = next((i for i, text in enumerate(row.ranked_texts, start=1)
                         if contains_evidence(text, row.question.evidence)), None)
            for k in hits:
                hits[k] += rank is not None and rank <= k
            reciprocal.append(1.0 / rank if rank else 0.0)
        report["evidence"][method] = {"questions": len(members), **{f"hit@{k}": round(v / len(members), 3)
                                                                     for k, v in hits.items()},
                                      "mrr": round(statistics.mean(reciprocal), 3)}
    digest_rows = [r for r in rows if r.question.kind == "answers" and r.method == "ladder" and r.digest]
    if digest_rows:
        report["answers"]["digest"] = _answer_scores([(r.digest, r.question.answers) for r in digest_rows])
    answer_rows = [r for r in rows if r.method == "answer" and r.answer]
    if answer_rows:
        scored = [(r.answer["answer"], r.question.answers) for r in answer_rows if r.question.answers]
        # The digest on the same questions: its figure above covers every
        # question, the model answers only the first few.
        digest_of = {id(r.question): r.digest for r in digest_rows}
        digest_scored = [(digest_of[id(r.question)], r.question.answers) for r in answer_rows
                         if r.question.answers and id(r.question) in digest_of]
        citations = [r.answer for r in answer_rows]
        made = sum(c["citations_valid"] + c["citations_dropped"] for c in citations)
        with_sections = [r for r in answer_rows if r.question.sections]
        report["answers"]["generated"] = {
            **(_answer_scores(scored) if scored else {}),
            **({f"digest_{key}": value for key, value in _answer_scores(digest_scored).items() if key != "questions"}
               if digest_scored else {}),
            "questions": len(answer_rows),
            # Share of the citations the model wrote that resolve to passages
            # (None when it wrote none: nothing was shown, nothing was wrong).
            "citation_validity": round(sum(c["citations_valid"] for c in citations) / made, 3) if made else None,
            "citations_written": made,
            "not_found_rate": round(sum(1 for c in citations if c["not_found"]) / len(citations), 3),
            "first_token_seconds": round(statistics.mean(c["timings"]["first_token"] or 0 for c in citations), 2),
            "total_seconds": round(statistics.mean(c["timings"]["total"] for c in citations), 2),
            "prompt_tokens": round(statistics.mean(c["tokens"]["prompt"] for c in citations)),
            "generated_tokens": round(statistics.mean(c["tokens"]["generated"] for c in citations)),
            # Answers the model could not write (not loaded, failed): their evidence alone was scored.
            "model_errors": sum(1 for c in citations if c.get("model_error")),
        }
        if with_sections:  # a set without required sections (LiteraryQA) has no recall to report
            report["answers"]["generated"]["location_recall"] = round(statistics.mean(
                location_recall(r.question.sections, set(r.sections)) for r in with_sections), 3)
    return report


def _per_question(rows: list[Row]) -> list[dict]:
    """Each cross-chapter question with the required sections each method
    missed at each budget: where to look first when a figure moves."""
    by_question: dict[str, dict] = {}
    for row in rows:
        if row.method != "ladder" and row.method not in BASELINES:
            continue
        question = row.question
        required = sorted(set(question.sections))
        entry = by_question.setdefault(question.id, {"id": question.id, "book": question.book_path.stem,
                                                     "relation": question.relation, "required": required,
                                                     "missed": {}})
        entry["missed"].setdefault(row.method, {})[str(row.budget)] = sorted(set(required) - set(row.sections))
    return list(by_question.values())


def _answer_scores(pairs: list[tuple[str, list[str]]]) -> dict:
    f1 = [max(token_f1(prediction, ref) for ref in refs) for prediction, refs in pairs]
    rouge = [max(rouge_l(prediction, ref) for ref in refs) for prediction, refs in pairs]
    held = [max(answer_recall(prediction, ref) for ref in refs) for prediction, refs in pairs]
    return {"questions": len(pairs), "token_f1": round(statistics.mean(f1), 3),
            "rouge_l": round(statistics.mean(rouge), 3), "answer_recall": round(statistics.mean(held), 3)}


def format_report(report: dict) -> str:
    lines = []
    recall = report["location_recall"]
    if recall:
        methods = ["ladder", *BASELINES]
        budgets = sorted({b for scope in recall.values() for m in scope.values() for b in m}, key=int, reverse=True)
        header = f"{'location recall':42s}" + "".join(f"{m + ' @' + b:>13s}" for b in budgets for m in methods)
        lines.append(header)
        scopes = (["all"] + sorted(s for s in recall if s.startswith("stage:"))
                  + sorted(s for s in recall if s.startswith("book:"))
                  + sorted(s for s in recall if s.startswith("relation:"))
                  + sorted(s for s in recall if s.startswith("wording:")))
        for scope in scopes:
            cells = []
            for budget in budgets:
                for method in methods:
                    entry = recall.get(scope, {}).get(method, {}).get(budget)
                    cells.append(f"{entry['location_recall']:13.3f}" if entry else f"{'-':>13s}")
            name = _scope_name(scope, report["books"])
            count = recall[scope]["ladder"][budgets[0]]["questions"] if "ladder" in recall.get(scope, {}) else ""
            lines.append(f"{name[:36]:36s}{str(count):>6s}" + "".join(cells))
        overall = recall["all"]["ladder"]
        for budget in budgets:
            entry = overall[budget]
            lines.append(f"ladder @{budget}: every required section found for {entry['all_found']:.0%} of questions, "
                         f"none for {entry['none_found']:.0%}")
        lines.extend(_evidence_lines(recall, budgets))
        lines.extend(_routing_lines(report["books"]))
    lines.extend(_ablation_lines(report))
    for budget, entry in report.get("so_far", {}).items():
        whole = recall.get("all", {}).get("ladder", {}).get(budget) if recall else None
        against = f" (whole book {whole['location_recall']:.3f})" if whole else ""
        lines.append(f"ladder @{budget} for a reader who has read up to the last section a question needs: "
                     f"{entry['location_recall']:.3f}{against}; passages shown from after that point: "
                     f"{entry['passages_after_the_limit']}")
        mid = entry.get("mid_section")
        if mid:
            lines.append(f"ladder @{budget} for a reader half-way through that section: {mid['location_recall']:.3f}; "
                         f"passages shown from after that point: {mid['passages_after_the_limit']}")
    for method, entry in report["evidence"].items():
        lines.append(f"evidence strings, {method:8s}: hit@1 {entry['hit@1']:.3f}  hit@5 {entry['hit@5']:.3f}  "
                     f"hit@20 {entry['hit@20']:.3f}  MRR {entry['mrr']:.3f}  ({entry['questions']} questions)")
    for name, entry in report["answers"].items():
        lines.append(f"answers, {name}: " + ", ".join(f"{k} {v}" for k, v in entry.items()))
    for method, entry in report["latency"].items():
        lines.append(f"retrieval latency {method:8s}: mean {entry['mean_ms']} ms, max {entry['max_ms']} ms")
    lines.extend(goal_lines(report))
    return "\n".join(lines)


def _evidence_lines(recall: dict, budgets: list[str]) -> list[str]:
    """Evidence recall beside location recall: the ladder spreads its budget
    over sections, so it finds more of the sections an answer needs than a
    plain top-k, but within each one it may not pick the passage that holds
    the gold quote."""
    lines = []
    for scope, name in (("all", "all questions"), (LOW_OVERLAP_SCOPE, "low overlap")):
        for budget in budgets:
            cells = [(method, recall.get(scope, {}).get(method, {}).get(budget, {}).get("evidence_recall"))
                     for method in ("ladder", *BASELINES)]
            if cells[0][1] is not None:
                lines.append(f"evidence recall (gold quotes held by a retrieved passage), {name} @{budget}: "
                             + ", ".join(f"{method} {value:.3f}" for method, value in cells if value is not None))
    return lines


def _routing_lines(books: dict) -> list[str]:
    """Which books' summaries route retrieval: without it, a stage-4 figure
    equal to stage 1's reads as if the upper rungs had been tried and failed."""
    with_summaries = sorted(name for name, info in books.items() if info.get("summaries"))
    unrouted = [name for name in with_summaries if not books[name].get("summary_routing")]
    if not unrouted:
        return []
    return [f"summaries not used to route retrieval (written by a generator under 1B) for {len(unrouted)} of "
            f"{len(with_summaries)} books with summaries: {', '.join(unrouted)}"]


def _ablation_lines(report: dict) -> list[str]:
    """The ablation table: the ladder with one feature off at a time, at each
    budget, over all questions and over those worded least like the text
    (what rare words, names and the upper tiers are for), and per stage when
    the run's books stand at different stages (names and summaries exist only
    from stages 2-4)."""
    ablations = report["ablations"]
    stages = sorted(scope for scope in ablations if scope.startswith("stage:"))
    scopes = [scope for scope in ["all", LOW_OVERLAP_SCOPE] + (stages if len(stages) > 1 else [])
              if ablations.get(scope)]
    if not scopes:
        return []
    budgets = sorted({budget for method in ablations["all"].values() for budget in method}, key=int, reverse=True)
    columns = [(scope, budget) for scope in scopes for budget in budgets]
    full = {(scope, budget): report["location_recall"][scope]["ladder"][budget]["location_recall"]
            for scope, budget in columns}

    def heading(scope: str, budget: str) -> str:
        name = "low overlap" if scope == LOW_OVERLAP_SCOPE else _scope_name(scope, report["books"])
        return f"{name[:12]} @{budget}"

    lines = ["ablation (the ladder with one feature off at a time; change from the full method in brackets):",
             f"  {'':32s}" + "".join(f"{heading(scope, budget):>17s}" for scope, budget in columns),
             f"  {'full method':32s}" + "".join(f"{full[column]:17.3f}" for column in columns)]
    for method in sorted(ablations["all"]):
        cells = []
        for scope, budget in columns:
            value = ablations[scope].get(method, {}).get(budget, {}).get("location_recall")
            cells.append(f"{value:9.3f} ({value - full[(scope, budget)]:+.3f})" if value is not None else f"{'-':>17s}")
        lines.append(f"  {method:32s}" + "".join(cells))
    return lines


def _scope_name(scope: str, books: dict) -> str:
    if scope == "all":
        return "ALL"
    kind, name = scope.split(":", 1)
    if kind == "stage":
        return f"books at stage {name}"
    if kind == "book" and name in books:
        return f"{name} [{books[name]['stage']}]"
    return name


def goal_lines(report: dict) -> list[str]:
    """Each of issue #5's goals beside what this run measured."""
    recall = report["location_recall"]
    if "all" not in recall or "ladder" not in recall["all"]:
        return []
    lines = ["goals:"]
    mark = lambda ok: "met" if ok else "NOT met"  # noqa: E731

    def ladder(scope: str, budget: str) -> dict | None:
        return recall.get(scope, {}).get("ladder", {}).get(budget)

    stage1 = ladder("stage:1", "12")
    if stage1:
        lines.append(f"  stage 1 only, 12 passages: recall {stage1['location_recall']:.3f} over "
                     f"{stage1['questions']} questions (goal >= {GOAL_STAGE1_AT_12}): "
                     f"{mark(stage1['location_recall'] >= GOAL_STAGE1_AT_12)}")
    else:
        lines.append("  stage 1 only: not measured, no book of this run is at stage 1 alone (an eval on a new "
                     "library indexes each book to stage 1)")
    full12, full6 = ladder("stage:4", "12"), ladder("stage:4", "6")
    if full12:
        books = sum(1 for info in report["books"].values() if info["stage"] == 4)
        # The goal is for the whole set: a subset's figure is not a verdict on it.
        subset = f"only {books} of {len(report['books'])} books" if books < len(report["books"]) else f"{books} books"
        lines.append(f"  full ladder ({subset}, {full12['questions']} questions), 12 passages: recall "
                     f"{full12['location_recall']:.3f} (goal >= {GOAL_FULL_AT_12}): "
                     f"{mark(full12['location_recall'] >= GOAL_FULL_AT_12)}; every required section found for "
                     f"{full12['all_found']:.0%} (goal >= {GOAL_FULL_ALL_FOUND:.0%}): "
                     f"{mark(full12['all_found'] >= GOAL_FULL_ALL_FOUND)}")
    if full6:
        lines.append(f"  full ladder, 6 passages: recall {full6['location_recall']:.3f} (goal >= {GOAL_FULL_AT_6}): "
                     f"{mark(full6['location_recall'] >= GOAL_FULL_AT_6)}")
    if not full12:
        lines.append("  full ladder: no book of this run is indexed to stage 4 (run with --stage 4)")
    budgets = sorted(recall["all"]["ladder"], key=int, reverse=True)
    behind = []
    for scope in ["all"] + sorted(s for s in recall if s.startswith("book:")):
        for budget in budgets:
            ours = ladder(scope, budget)
            best = max((recall[scope][m][budget]["location_recall"] for m in BASELINES
                        if budget in recall[scope].get(m, {})), default=None)
            if ours and best is not None and ours["location_recall"] <= best + CLEAR_MARGIN:
                behind.append(f"{_scope_name(scope, report['books'])} @{budget} "
                              f"({ours['location_recall']:.3f} vs {best:.3f})")
    lines.append(f"  clearly above the three baselines (by more than {CLEAR_MARGIN}), overall and per book: "
                 + ("met" if not behind else "NOT met for " + ", ".join(behind)))
    low = recall.get(LOW_OVERLAP_SCOPE)
    if low and "ladder" in low:
        budget = budgets[0]
        best = max(low[m][budget]["location_recall"] for m in BASELINES if budget in low.get(m, {}))
        lines.append(f"  low-overlap questions, {budget} passages: ladder {low['ladder'][budget]['location_recall']:.3f} "
                     f"vs best baseline {best:.3f}")
    latency = report["latency"].get("ladder")
    if latency:
        lines.append(f"  retrieval under {LATENCY_GOAL_MS} ms: mean {latency['mean_ms']} ms, max {latency['max_ms']} ms: "
                     f"{mark(latency['max_ms'] < LATENCY_GOAL_MS)}")
    generated = report["answers"].get("generated")
    if generated:
        validity = generated["citation_validity"]
        lines.append("  shown citations resolve: 100% (unresolvable ones are dropped before display); of those "
                     f"the model wrote, {'none written' if validity is None else f'{validity:.0%} resolved'}")
    return lines
