"""Passages elsewhere in the book that tell of one the reader selected (Find
Related Passages; `chapterhouse related`): the knocker of Stave I finds the
knocker of Stave V. The selection itself is the query: its words (rare ones
counting most, runs of them as phrases), its meaning, and the other names
of the people it names; picked as a question's passages are, one a section
first, so that they reach across the book (from one gold quote of the
development set, 8 passages reach 0.74 of the other sections its question
needs, against 0.65 best first and 0.60 for plain BM25:
tests/benchmarks/related_links.py); the passages holding the selection are
left out (the reader has them in front of them). No model is called."""

from __future__ import annotations

import re

from .planning import MID, Plan, PlanPart, anchors_of, names_in, rare_words
from .selection import about_question, shown_text

RELATED_QUESTION = "Where else does the book tell of this?"
RELATED_BUDGET = 8
# What of a long selection (a paragraph, a page) is searched: its opening.
QUERY_CHARACTERS = 600


def related_plan(text: str, characters: list[dict] | None, rarity) -> Plan:
    """A one-part plan made of the selected text."""
    # Dashes between words ("change--not a knocker") would glue them into one.
    query = re.sub(r"-{2,}|[\u2013\u2014]", " ", shown_text(text, QUERY_CHARACTERS).rstrip("\u2026"))
    part = PlanPart(text=query, anchors=anchors_of(query), several=False, names=names_in(query, characters))
    return Plan(question=about_question(RELATED_QUESTION, text), scope=MID, parts=[part], path="code",
                rare_words=rare_words(query, rarity) if rarity else [])
