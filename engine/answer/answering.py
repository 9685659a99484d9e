"""The answer: one generator call with the labelled passages, the checklist of
the plan's parts and the rules of DESIGN.md, about 120 words, citing passage
ids. Every citation is resolved to its passage (section label and span in the
book); one that does not resolve is dropped and counted, never shown. If a
part comes back "not found", retrieval is widened to 14 passages once.
"""

from __future__ import annotations

import re
import time
from dataclasses import asdict, dataclass, field

from ..index.store import BOOK_SUMMARY, SECTION_SUMMARY, TIER_SUMMARY
from ..llm.types import CancelToken, ChatMessage, GenerationOptions
from .digest import DigestLine
from .followup import Earlier
from .planning import GLOBAL, MID, Plan, content_words, stem
from .retrieval import Retrieval, cut_at
from .support import with_support

RETRY_BUDGET = 14
# A small generator's answer is a draft under the digest: it reads the best
# passages only (each part's first picks), which halves its wait on a CPU.
DRAFT_PASSAGES = 6
ANSWER_TOKENS = 220
_CITATION = re.compile(r"\[([^\[\]]{1,80})\]")
_PASSAGE_ID = re.compile(r"\bp\d+\.\d+\b")
_NOT_FOUND = re.compile(r"\bnot found\b", re.I)
RULES = (
    "Rules: answer only from the passages. For each part of the checklist, pick the passage whose scene matches "
    "the question's own description (object, person, place, first or last, who speaks). Objects are literal, not "
    "symbols. A later part that refers back (\"that horse\") keeps the same character. A line belongs only to the "
    "speaker the passage names. Answer every part, each from its own passage; write \"not found\" only for a part "
    "with no plausible passage. Cite the passages you use by their ids in square brackets, like [p3.2]. "
    "About 120 words."
)


@dataclass
class Citation:
    passage_id: str
    section: int | None
    label: str
    start: int
    end: int
    quote: str
    # The passage's sentence that best backs the answer's claim citing it: {"start", "end", "text"}.
    support: dict | None = None


@dataclass
class AnswerResult:
    question: str
    answer: str
    lead: str  # "digest" (a small model's answer is a draft) or "answer"
    citations: list[Citation]
    citations_dropped: int
    not_found: bool
    retried: bool
    digest: list[DigestLine]
    retrieval: Retrieval
    plan: Plan
    timings: dict = field(default_factory=dict)
    tokens: dict = field(default_factory=dict)
    cancelled: bool = False
    labels: dict[int, str] = field(default_factory=dict)  # section ordinal -> label
    discarded_draft: str = ""  # a draft that only restated the question, kept for the record
    written: bool = True  # False when the settings leave answers to the evidence digest alone
    # Why the model gave no answer (it could not be loaded or run): the evidence stands without it.
    model_error: str | None = None
    # {"until", "section", "label", "at_the_reader"}: nothing after a reader's position was used
    reading_limit: dict | None = None
    focus: dict | None = None  # {"start", "end", "label", "text"}: the selected text the question is about
    within: dict | None = None  # {"sections", "label", "short"}: the chapters the question is about, the only ones used
    named: dict | None = None  # {"sections", "label", "short"}: chapters the question names, half the evidence from them
    overview: str | None = None  # a question about the whole book: "outline", "opening" or "ending" (retrieval.py)
    follows: dict | None = None  # {"question", "taken_as"}: the earlier question a follow-up followed
    related: bool = False  # passages elsewhere telling of the `focus`, found without a model

    def as_dict(self) -> dict:
        return {
            "question": self.question, "answer": self.answer, "lead": self.lead, "cancelled": self.cancelled,
            "citations": [asdict(c) for c in self.citations], "citations_valid": len(self.citations),
            "citations_dropped": self.citations_dropped, "not_found": self.not_found, "retried": self.retried,
            "digest": [line.as_dict() for line in self.digest],
            "parts": [{"text": part.part.text, "passages": [_passage_dict(self, node) for node in part.passages]}
                      for part in self.retrieval.parts],
            "plan": self.plan.as_dict(), "plan_path": self.plan.path,
            "timings": self.timings, "tokens": self.tokens, "discarded_draft": self.discarded_draft,
            "written": self.written, "reading_limit": self.reading_limit, "focus": self.focus, "within": self.within,
            "named": self.named, "overview": self.overview, "follows": self.follows, "related": self.related,
            "meaning_share": round(self.retrieval.meaning_share, 3), "model_error": self.model_error,
            "absent": self.retrieval.absent, "stated": self.retrieval.stated,
            "read_as": [list(slip) for slip in self.retrieval.read_as],
        }


def _passage_dict(result: AnswerResult, node) -> dict:
    return {"id": node.id, "section": node.section, "label": result.labels.get(node.section, ""),
            "start": node.start, "end": node.end, "text": node.text}


def answer_messages(context, retrieval: Retrieval, passages: int | None = None,
                    earlier: Earlier | None = None) -> list[ChatMessage]:
    """System rules and the book's structural card first (the same for every
    question on this book, so its prompt state is reused), then the evidence:
    all retrieved passages, or the `passages` picked first, in book order;
    for a follow-up, the earlier question and the answer it was given."""
    book = context.book
    system = answer_rules(context, retrieval.until)
    labels = book.cited_labels()
    blocks = [f"[{node.id}] ({labels.get(node.section, '')}) {' '.join(node.text.split())}"
              for node in _shown(retrieval, passages)]
    ladder = _ladder_notes(context, retrieval)
    checklist = "\n".join(f"{i}. {part.part.text}" for i, part in enumerate(retrieval.parts, start=1))
    before = (f"\n\nEarlier question: {earlier.question}\nIts answer: {earlier.answer}\n(The question below follows "
              "on from it.)" if earlier is not None and earlier.answer else "")
    user = ("Passages:\n" + "\n\n".join(blocks) + (f"\n\nSummaries:\n{ladder}" if ladder else "") + before
            + f"\n\nChecklist:\n{checklist}\n\nQuestion: {retrieval.plan.question}\nAnswer:")
    return [system, ChatMessage("user", user)]


def answer_rules(context, until: int | None = None) -> ChatMessage:
    """What every answer prompt on this book begins with: the rules and the
    book's structural card (up to `until`, the sections begun)."""
    book = context.book
    author = book.metadata.get("author")
    return ChatMessage("system", f"You answer a reader's questions about the book \u201c{book.title}\u201d"
                                 f"{' by ' + author if author else ''}.\n\nAbout the book:\n"
                                 f"{context.structure_text(until)}\n\n{RULES}")


def _shown(retrieval: Retrieval, limit: int | None) -> list:
    if limit is None:
        return retrieval.passages
    return sorted(retrieval.ranked[:limit], key=lambda node: node.start or 0)


def _ladder_notes(context, retrieval: Retrieval) -> str:
    """Summaries by scope: the sections the passages come from for MID (and
    for a question about chapters, whatever its scope: "Summarize the last
    chapter"), the upper tiers and cards for GLOBAL. Up to a reader's
    position, only the summaries of sections read to their end (tiers and
    cards tell the rest)."""
    store = context.store
    notes = []
    labels = context.book.cited_labels()
    read = context.sections_read(retrieval.until)
    if retrieval.plan.scope in (MID, GLOBAL) or retrieval.within:
        for section in retrieval.sections[:6]:
            node = store.node(f"s{section}")
            if node is not None and node.kind == SECTION_SUMMARY and (read is None or section in read):
                notes.append(f"{labels.get(section, '')}: {node.text}")
    if retrieval.plan.scope == GLOBAL and retrieval.until is None:
        for node in store.nodes(kind=TIER_SUMMARY)[:3] + store.nodes(kind=BOOK_SUMMARY):
            notes.append(f"{node.title}: {node.text}")
        for name in ("characters", "themes"):
            card = context.cards.get(name)
            if card is not None:
                notes.append(f"{card.title}: {card.text[:800]}")
    return "\n".join(notes)


def resolve_citations(text: str, context, retrieval: Retrieval) -> tuple[str, list[Citation], int]:
    """The answer with unresolvable citations removed, the citations that
    resolve (in order of first use, each with the sentence backing its
    claim), and how many were dropped."""
    store = context.store
    labels = context.book.cited_labels()
    citations: dict[str, Citation] = {}
    dropped = 0
    # As shown to the model: cut at a reader's position, a selected passage whole.
    shown = {node.id: node for node in retrieval.passages}

    def replace(match: re.Match) -> str:
        nonlocal dropped
        kept = []
        for token in re.split(r"[,;\s]+", match.group(1)):
            token = token.strip()
            if not token:
                continue
            if token in shown:
                node = shown[token]
            else:
                node = store.node(token) if _PASSAGE_ID.fullmatch(token) else None
                unread = node is not None and retrieval.until is not None and node.start >= retrieval.until
                if node is None or node.kind != "passage" or unread:
                    dropped += 1
                    continue
                node = cut_at(node, retrieval.until)
            kept.append(token)
            citations.setdefault(token, Citation(token, node.section, labels.get(node.section, ""), node.start,
                                                 node.end, node.text))
        return f"[{', '.join(kept)}]" if kept else ""

    cleaned = _CITATION.sub(replace, text)
    cleaned = re.sub(r"[ \t]+([.,;:])", r"\1", re.sub(r"[ \t]{2,}", " ", cleaned)).strip()
    return cleaned, with_support(cleaned, list(citations.values()), context), dropped


def generate_answer(generator, context, retrieval: Retrieval, cancel: CancelToken, on_text=None,
                    passages: int | None = None, on_reading=None, earlier: Earlier | None = None) -> dict:
    """One generator call; returns the raw text, timings and token counts."""
    started = time.perf_counter()
    stream = generator.stream(answer_messages(context, retrieval, passages, earlier),
                              GenerationOptions(max_tokens=ANSWER_TOKENS, temperature=0.0, repeat_penalty=1.1,
                                                truncation="truncate-longest-end"), cancel, on_reading)
    first = None
    pieces = []
    for piece in stream:
        if first is None:
            first = time.perf_counter() - started
        pieces.append(piece)
        if on_text is not None:
            on_text(piece)
    completion = stream.result
    return {"text": "".join(pieces), "first_token": first, "seconds": time.perf_counter() - started,
            "finish": completion.finish_reason, "prompt": completion.usage.prompt_tokens,
            "processed": completion.usage.processed_prompt_tokens, "generated": completion.usage.completion_tokens}


_FILLER = {stem(w) for w in ("answer", "question", "passage", "passages", "checklist", "part")}


def adds_nothing(answer: str, question: str) -> bool:
    """True for a draft that only echoes the question ("1. How does ...? The
    answer is:", or the question retold with a typo), which tiny models write
    often: showing it would be noise. Words count once each, by light stem,
    so a question retold twice is still an echo; a short answer of new words
    ("Fezziwig.") is not one."""
    asked = {stem(w) for w in content_words(question)}
    said = [stem(w) for w in content_words(_CITATION.sub(" ", answer))]
    said = [w for w in said if w not in _FILLER]
    new = set(said) - asked
    if not new:
        return True
    echoed = sum(1 for w in said if w in asked) / len(said)
    return len(new) < 3 and echoed >= 0.5


def not_found(text: str) -> bool:
    return bool(_NOT_FOUND.search(text))
