"""What the LLM writes for the ladder: situating sentences (one per passage)
and summaries (per section part, per section, and tiers over groups of three).

Each section is read once: its text, with passage markers, is the shared
prompt prefix of every question about it (the situating sentence of each of
its passages, then its summary), so llama.cpp keeps its key/value state and
only the short question after it is processed per call.

Small models go wrong in predictable ways (empty answers, loops, invented
chapter numbers, other languages, talk about "the passage"). Every answer is
checked and a bad one counted: a bad summary is replaced by sentences of the
section itself; a bad situating sentence by none (a template naming the
section, indexed with every passage, lowered recall).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..book import Book, Section
from ..llm.generator import is_small
from ..llm.settings import SITUATING_SETTINGS
from ..llm.types import CancelToken, ChatMessage, GenerationOptions
from ..structure.numbers import WORD_NUMBER_PATTERN
from .store import PART_SUMMARY, SECTION_SUMMARY, Node

MAX_SITUATING_WORDS = 40
MAX_SUMMARY_WORDS = 90
PASSAGES_PER_PART = 12
# Room kept in the context for the question and the answer.
_RESERVED_TOKENS = 700
_COMMON_WORDS = {"the", "a", "an", "of", "in", "to", "and", "is", "was", "his", "her", "he", "she", "they", "at",
                 "with", "on", "for", "by", "as", "from", "after", "before", "while", "when", "their", "it"}
_META = re.compile(r"\b(passage|this sentence|the text above|as an ai|i cannot|i can't|here is|here's|"
                   r"summary:|sentence:|in one sentence|at most \d+ words|i wrote)\b|\[P\d+\]|<\||```|https?://", re.I)
# "Chapter 12", "stave three", "CHAPTER IV": numbers a small model tends to invent.
_NUMBERED = re.compile(
    rf"\b(?i:chapter|stave|section|volume|adventure)\s+([0-9]+|[IVXLC]+\b|(?i:{WORD_NUMBER_PATTERN})\b)")


@dataclass
class WritingStats:
    situating_written: int = 0
    situating_rejected: int = 0
    summaries_written: int = 0
    summary_fallbacks: int = 0
    prompt_tokens: int = 0
    processed_prompt_tokens: int = 0
    generated_tokens: int = 0
    reasons: dict[str, int] = field(default_factory=dict)

    def count(self, completion) -> None:
        self.prompt_tokens += completion.usage.prompt_tokens
        self.processed_prompt_tokens += completion.usage.processed_prompt_tokens
        self.generated_tokens += completion.usage.completion_tokens

    def reject(self, reason: str) -> None:
        self.reasons[reason] = self.reasons.get(reason, 0) + 1

    def as_dict(self) -> dict:
        return dict(self.__dict__)


class Cancelled(Exception):
    """Raised between LLM calls when indexing is cancelled."""


def section_name(section: Section) -> str:
    return f"{section.label}, \u2018{section.title}\u2019" if section.title else section.label


def writes_situating(generator, setting: str = "auto") -> bool:
    """Whether stage 2 asks this generator for situating sentences."""
    if setting not in SITUATING_SETTINGS:
        raise ValueError(f"situating sentences: {setting!r} is not one of {', '.join(SITUATING_SETTINGS)}")
    if setting != "auto":
        return setting == "on"
    # Measured on The Prisoner of Zenda (development set, 12 passages): the
    # 135M default's situating sentences lowered location recall from 0.81
    # (stage 1, and the full ladder without them) to 0.69.
    return not is_small(generator)


def parts_of(passages: list[Node], generator, book: Book) -> list[list[Node]]:
    """Consecutive passages whose text fits the context beside the questions,
    at most twelve per part."""
    budget = generator.context_size - _RESERVED_TOKENS
    parts: list[list[Node]] = []
    current: list[Node] = []
    used = 0
    for passage in passages:
        tokens = generator.count_tokens(passage.text) + 6
        if tokens > budget:
            from ..llm.errors import ContextLimitError

            raise ContextLimitError(tokens + _RESERVED_TOKENS, 0, generator.context_size)
        if current and (len(current) >= PASSAGES_PER_PART or used + tokens > budget):
            parts.append(current)
            current, used = [], 0
        current.append(passage)
        used += tokens
    if current:
        parts.append(current)
    return parts


def marked_text(book: Book, part: list[Node]) -> str:
    """The part's text with a [Pn] marker where each passage begins."""
    starts = {passage.start: number for number, passage in enumerate(part, start=1)}
    start, end = part[0].start, part[-1].end
    pieces, cursor = [], start
    for offset in sorted(starts):
        pieces.append(book.text[cursor:offset])
        pieces.append(f"[P{starts[offset]}] ")
        cursor = offset
    pieces.append(book.text[cursor:end])
    return "".join(pieces)


def _prefix(book: Book, section: Section, text: str) -> list[ChatMessage]:
    author = book.metadata.get("author")
    system = (f"You help index the book \u201c{book.title}\u201d{' by ' + author if author else ''}. "
              "You read one part of it and answer questions about it in plain English, briefly and only from the text.")
    return [ChatMessage("system", system), ChatMessage("user", f"{section_name(section)}\n\n{text}\n\n---\n")]


def _ask(generator, prefix: list[ChatMessage], question: str, options: GenerationOptions, cancel: CancelToken,
         stats: WritingStats) -> str:
    cancel.wait_while_paused()  # an answer the reader is waiting for goes first
    if cancel.cancelled:
        raise Cancelled()
    messages = prefix[:-1] + [ChatMessage("user", prefix[-1].content + question)]
    completion = generator.complete(messages, options, cancel)
    stats.count(completion)
    if completion.finish_reason == "cancelled":
        raise Cancelled()
    return completion.text


def situate_and_summarize(generator, book: Book, section: Section, passages: list[Node], cancel: CancelToken,
                          stats: WritingStats, built_by: str, situate: bool = True
                          ) -> tuple[dict[str, str], list[Node]]:
    """Situating sentences for the section's passages (when `situate`; a
    rejected one is left out) and its summary nodes (part summaries first
    when it has several parts)."""
    contexts: dict[str, str] = {}
    part_summaries: list[tuple[list[Node], str]] = []
    parts = parts_of(passages, generator, book)
    known = known_words(book, book.text[section.start:section.end])
    for part in parts:
        prefix = _prefix(book, section, marked_text(book, part))
        seen: set[str] = set()
        for passage in part if situate else []:
            opening = " ".join(book.text[passage.start:passage.end].split()[:14])
            # A plain question works better with small models than a task description.
            question = (f"In the part that begins \u201c{opening}\u2026\u201d, who is there, where are they, and "
                        f"what happens? Answer in one sentence of at most {MAX_SITUATING_WORDS} words, without "
                        "chapter numbers.")
            answer = _ask(generator, prefix, question,
                          GenerationOptions(max_tokens=72, temperature=0.0, repeat_penalty=1.1, stop=("\n",)),
                          cancel, stats)
            sentence, reason = check_situating(answer, section, seen, book.text[passage.start:passage.end], known)
            if sentence is None:
                stats.situating_rejected += 1
                stats.reject(reason)
                continue
            stats.situating_written += 1
            seen.add(_normal(sentence))
            contexts[passage.id] = sentence
        question = (f"Summarize the text above in at most {MAX_SUMMARY_WORDS - 10} words: the main events, "
                    "the people involved and what changes.")
        answer = _ask(generator, prefix, question,
                      GenerationOptions(max_tokens=150, temperature=0.0, repeat_penalty=1.15), cancel, stats)
        summary, reason = check_summary(answer, section, known)
        if summary is None:
            stats.summary_fallbacks += 1
            stats.reject(reason)
            summary = extractive_summary(book, part[0].start, part[-1].end)
        else:
            stats.summaries_written += 1
        part_summaries.append((part, summary))

    nodes: list[Node] = []
    if len(part_summaries) > 1:
        for index, (part, summary) in enumerate(part_summaries, start=1):
            nodes.append(Node(id=f"s{section.ordinal}.{index}", level=2, kind=PART_SUMMARY, section=section.ordinal,
                              seq=index, text=summary, start=part[0].start, end=part[-1].end,
                              title=f"{section.label}, part {index}", sections=[section.ordinal], built_by=built_by))
        joined = "\n".join(f"Part {i}: {node.text}" for i, node in enumerate(nodes, start=1))
        text = combine(generator, book, [section_name(section)], joined, cancel, stats, built_by)
    else:
        text = part_summaries[0][1]
    nodes.append(Node(id=f"s{section.ordinal}", level=2, kind=SECTION_SUMMARY, section=section.ordinal, seq=0,
                      text=text, start=section.start, end=section.end, title=section_name(section),
                      sections=[section.ordinal], built_by=built_by))
    return contexts, nodes


def combine(generator, book: Book, names: list[str], summaries: str, cancel: CancelToken, stats: WritingStats,
            built_by: str) -> str:
    """One summary of several consecutive summaries (a section's parts, a tier)."""
    system = (f"You summarize the book \u201c{book.title}\u201d. Write plain English prose, only from the summaries given.")
    question = (f"These are summaries of consecutive parts of the book ({'; '.join(names)}).\n\n{summaries}\n\n"
                f"Write one summary of all of them in at most {MAX_SUMMARY_WORDS} words, keeping the order of events.")
    cancel.wait_while_paused()
    if cancel.cancelled:
        raise Cancelled()
    completion = generator.complete([ChatMessage("system", system), ChatMessage("user", question)],
                                    GenerationOptions(max_tokens=170, temperature=0.0, repeat_penalty=1.15,
                                                      truncation="truncate-longest-end"), cancel)
    stats.count(completion)
    if completion.finish_reason == "cancelled":
        raise Cancelled()
    text, reason = check_summary(completion.text, None, known_words(book, " ".join(names) + "\n" + summaries))
    if text is None:
        stats.summary_fallbacks += 1
        stats.reject(reason)
        return " ".join(_first_sentence(line.split(": ", 1)[-1]) for line in summaries.splitlines() if line.strip())
    stats.summaries_written += 1
    return text


# ------------------------------------------------------------ guards


def check_situating(answer: str, section: Section, seen: set[str], passage: str = "",
                    known: frozenset[str] = frozenset()) -> tuple[str | None, str]:
    """The sentence to keep, or None with the reason it was refused; `known`
    holds the words its names must come from (the section's: known_words)."""
    text = " ".join(answer.strip().strip("\"\u201c\u201d'").split())
    text = re.sub(r"^(sure|certainly|okay|answer)[,:!.]?\s+", "", text, flags=re.I)
    # "The Ghost, in passage [P4], is introduced": the reference goes, the sentence stays.
    text = re.sub(r",?\s*\b(in|from)\s+(this\s+)?(passage|part)\s*(\[P\d+\])?,?", "", text, flags=re.I)
    text = re.sub(r"\s*\[P\d+\]", "", text).strip(" ,")
    if not text:
        return None, "empty"
    text = _first_sentence(text)
    words = text.split()
    if len(words) < 4:
        return None, "too short"
    if len(words) > MAX_SITUATING_WORDS:
        return None, "too long"
    problem = _common_problems(text, section)
    if problem:
        return None, problem
    if _normal(text) in seen:
        return None, "repeated"
    if passage and _copies(text, passage):
        return None, "copies the passage"
    if known and invents_names(text, known):
        return None, "invented names"
    if not text.endswith((".", "!", "?")):
        text += "."
    return text[0].upper() + text[1:], ""


def check_summary(answer: str, section: Section | None, known: frozenset[str] = frozenset()
                  ) -> tuple[str | None, str]:
    """The summary to keep (cut to length), or None with the reason it was
    refused; `known` holds the words of what it summarizes (known_words), to
    catch invented names."""
    text = " ".join(answer.strip().split())
    text = re.sub(r"^(sure|certainly|okay|summary)[,:!.]?\s+", "", text, flags=re.I)
    text = _without_lead_in(text)
    if len(text.split()) < 8:
        return None, "empty"
    words = text.split()
    if len(words) > MAX_SUMMARY_WORDS * 2:
        return None, "too long"
    problem = _common_problems(text, section)
    if problem:
        return None, problem
    if known and invents_names(text, known):
        return None, "invented names"
    if len(words) > MAX_SUMMARY_WORDS:
        text = _cut_at_sentence(text, MAX_SUMMARY_WORDS)
    return text, ""


def _common_problems(text: str, section: Section | None) -> str:
    letters = [char for char in text if char.isalpha()]
    if not letters or sum(1 for char in letters if char.isascii()) < 0.9 * len(letters):
        return "not English"
    words = [word.strip(".,;:!?\"'()").lower() for word in text.split()]
    if not _COMMON_WORDS & set(words):
        return "not English"
    if _META.search(text):
        return "talks about the task"
    if _looping(words):
        return "repetition"
    for number in _NUMBERED.findall(text):
        if section is None or not _same_number(number, section):
            return "invented chapter number"
    return ""


_YEAR = re.compile(r"\b1[0-9]{3}\b|\b20[0-9]{2}\b")
_OPENS_SENTENCE = re.compile(r"(^|[.!?:;\"\u201c(]|\d\.)$")


def invents_names(text: str, known: frozenset[str], allowed: int = 1) -> bool:
    """More than `allowed` capitalised words (not opening a sentence) that the
    source never uses, or a year it never mentions: "In December 2017, John
    Howard led a team to the North Pole", about a chapter of Black Beauty.
    `known` is the source's vocabulary (known_words)."""
    if any(year not in known for year in _YEAR.findall(text)):
        return True
    invented = set()
    previous = ""
    for token in text.split():
        word = re.sub(r"^[^A-Za-z]+|('s|\u2019s)?[^A-Za-z]*$", "", token)
        if word[:1].isupper() and word[1:2].islower() and not _OPENS_SENTENCE.search(previous):
            if any(part.lower() not in known for part in re.findall(r"[A-Za-z]+", word)):
                invented.add(word)
        previous = token
    return len(invented) > allowed


def known_words(book: Book, text: str) -> frozenset[str]:
    """What a summary may name: the words (lower case) and four-digit numbers
    of the text summarized, the book's title and its author. Built once per
    section, not per sentence checked."""
    source = f"{book.title} {book.metadata.get('author') or ''}\n{text}"
    return frozenset(word.lower() for word in re.findall(r"[A-Za-z]+|\b\d{4}\b", source))


def _same_number(number: str, section: Section) -> bool:
    from ..structure.numbers import parse_number

    return section.number is not None and parse_number(number) == section.number


def _copies(text: str, source: str, run: int = 8) -> bool:
    """Eight words in a row taken from the passage: a quotation, not a situation."""
    words = _normal(text).split()
    haystack = " " + _normal(source) + " "
    return any(f" {' '.join(words[i:i + run])} " in haystack for i in range(len(words) - run + 1))


def _looping(words: list[str]) -> bool:
    """A small model stuck in a loop repeats the same three words."""
    trigrams = [tuple(words[i:i + 3]) for i in range(len(words) - 2)]
    return len(trigrams) >= 6 and len(set(trigrams)) < len(trigrams) * 0.7


# "In the story, the main events include: 1. ...": the 135M default opens
# most summaries so, and a card line cut at "1." said nothing.
_LEAD_IN = re.compile(r"^(in (the|this) (story|text|chapter|part),?\s*)?(the )?main events( in (the|this) "
                      r"(story|text|chapter|part))? (are|include)\s*:?\s*(\(?1[.)]\s+)?", re.I)


def _without_lead_in(text: str) -> str:
    stripped = _LEAD_IN.sub("", text)
    return stripped[:1].upper() + stripped[1:] if stripped != text else text


def summary_line(summary: str) -> str:
    """A summary's first sentence, for one-line maps (a numbered item's "2."
    is not a sentence end)."""
    text = _without_lead_in(" ".join(summary.split()))
    first = re.split(r"(?<!\bMr\.)(?<!\bMrs\.)(?<!\bDr\.)(?<!\bSt\.)(?<=[A-Za-z'\")\u2019\u201d][.!?])\s"
                     r"|;\s*\(?2[.)]\s|\s\(?2[.)]\s", text, maxsplit=1)[0]
    first = first.rstrip(" ;,:")
    ended = first.endswith((".", "!", "?")) or first[-2:-1] in (".", "!", "?")
    return first + "." if first and not ended else first


def _first_sentence(text: str) -> str:
    match = re.search(r"(?<=[.!?])[\"\u201d']?\s+(?=[A-Z\"\u201c])", text)
    return text[:match.start()].strip() if match and len(text[:match.start()].split()) >= 5 else text.strip()


def _cut_at_sentence(text: str, words: int) -> str:
    kept = " ".join(text.split()[:words])
    end = max(kept.rfind(". "), kept.rfind("! "), kept.rfind("? "))
    return kept[:end + 1] if end > len(kept) // 2 else kept + "\u2026"


def _normal(text: str) -> str:
    return " ".join(re.sub(r"[^\w ]", "", text.lower()).split())


def extractive_summary(book: Book, start: int, end: int, words: int = 70) -> str:
    """A faithful stand-in: the opening sentences of the text itself."""
    from .chunking import sentence_spans

    out: list[str] = []
    count = 0
    for paragraph in book.paragraphs:
        if paragraph.end <= start or paragraph.start >= end or paragraph.kind == "heading":
            continue
        for s, e in sentence_spans(book.text, max(start, paragraph.start), min(end, paragraph.end)):
            sentence = " ".join(book.text[s:e].split())
            out.append(sentence)
            count += len(sentence.split())
            if count >= words:
                return " ".join(out)
    return " ".join(out)
