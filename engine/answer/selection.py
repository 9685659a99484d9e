"""What the reader picked out to ask about. A passage (a selection in the
app's reader, `--about TEXT` on the command line): the passages that hold it
are pinned into the evidence, and its opening words are added to the question
as a quoted phrase, so the plan anchors on them and the ranking, the answer's
prompt and the history all say what "this" is. Chapters (the contents'
"Ask About Stave III Only", `--in SECTION`): only their passages are
searched, and their names are put in the question."""

from __future__ import annotations

import re

# The longest quoted phrase the code planner takes as an anchor (planning.QUOTED).
SNIPPET_CHARACTERS = 60
# A selection across more passages than this keeps those holding most of it:
# the rest of the budget stays for the rest of the book.
FOCUS_PASSAGES = 2
# What the record keeps of the selected text (a selection can be a chapter).
SHOWN_CHARACTERS = 200
# Left off the ends of a quoted snippet: its own quotation marks and dangling punctuation.
_EDGES = " ,;:-\u2014\"'\u201c\u201d\u2018\u2019"


def snippet(text: str, limit: int = SNIPPET_CHARACTERS) -> str:
    """The selection's opening words, whole words only and as the book has
    them (so that, quoted, they match it as a phrase), less its double
    quotation marks (the words' own would end the quote early)."""
    words = re.sub("[\"\u201c\u201d]", "", text).split()
    kept: list[str] = []
    for word in words:
        if len(" ".join(kept + [word])) > limit:
            break
        kept.append(word)
    if not kept and words:
        kept = [words[0][:limit]]
    return " ".join(kept).strip(_EDGES)


def opening(text: str, limit: int = 40) -> str:
    """A selection's first words for a list of questions, marked where cut."""
    words = snippet(text, limit)
    return words if words == snippet(text, len(text)) else words + "\u2026"


def about_question(question: str, text: str) -> str:
    """The question as planned and answered: the reader's words, then what they are about."""
    return f"{question.strip()} (about \u201c{snippet(text)}\u201d)"


def part_heading(text: str) -> str:
    """How a part of the plan is headed above its evidence: the part that a
    selection's quote became reads as such, not as the quote cut short."""
    text = text.strip()
    return "The passage you selected" if text.startswith("(about \u201c") and text.endswith("\u201d)") else text


def shown_text(text: str, limit: int = SHOWN_CHARACTERS) -> str:
    """The text on one line, cut at a word after `limit` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + "\u2026"


def find_in_text(book_text: str, wanted: str) -> tuple[int, int] | None:
    """Where the words of `wanted` first stand in the book, whatever the
    spacing, line breaks and case in between (None: nowhere)."""
    words = wanted.split()
    if not words:
        return None
    found = re.search(r"\s+".join(re.escape(word) for word in words), book_text, re.IGNORECASE)
    return found.span() if found else None


def focus_record(context, focus: tuple[int, int]) -> dict:
    """What is kept of a selection with the answer: its span, where it is, its opening."""
    start, end = focus
    section = context.book.section_at(start)
    return {"start": start, "end": end, "label": section.display_name if section else "the opening pages",
            "text": shown_text(context.book.text[start:end])}


def within_question(question: str, label: str) -> str:
    """The question as planned and answered when it is about some chapters:
    their names inside it, so the plan does not make them a part of their own."""
    question = question.strip()
    if question.endswith("?"):
        return f"{question[:-1].rstrip()}, in {label}?"
    return f"{question} (in {label})"


def within_record(context, within: list[int]) -> dict:
    """What is kept of the chapters a question was about: their ordinals,
    their names (one chapter's in full, with its title; several by their
    headings) and a short name for lists."""
    sections = context.book.sections
    return {"sections": list(within), "label": sections_label(sections, within),
            "short": sections_named(sections, within)}


def sections_label(sections, ordinals: list[int]) -> str:
    """Chapters as a question about them names them: one in full, with its
    title; several by their headings."""
    return sections[ordinals[0] - 1].display_name if len(ordinals) == 1 else sections_named(sections, ordinals)


def sections_named(sections, ordinals: list[int]) -> str:
    """Sections by their headings, a run of three or more as its ends:
    "Stave I, Stave III to Stave V"."""
    runs: list[list[int]] = []
    for ordinal in sorted(set(ordinals)):
        if runs and ordinal == runs[-1][-1] + 1:
            runs[-1].append(ordinal)
        else:
            runs.append([ordinal])
    named = []
    for run in runs:
        first, last = sections[run[0] - 1].label, sections[run[-1] - 1].label
        named += [f"{first} to {last}"] if len(run) > 2 else [sections[o - 1].label for o in run]
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
