"""A question about the whole book and nothing in particular: "What is this
book about?", "Summarize the novel", "What's the plot?". No passage answers
it by its words, and a search on them finds noise (chance lines that say
"book" or "happen"). Its evidence is the book in outline instead: each
chapter's opening passage, where the chapter sets its scene, spread evenly
across the book when it has more chapters than the budget, and more from the
longest chapters when it has fewer. Its scope is GLOBAL, so a capable model
also reads the book's summaries and cards where the ladder has them.

So with chapters asked about and nothing in them in particular ("Summarize
Stave 3", "What happens in Silver Blaze?", "How does chapter 5 end?", or the
contents' "Ask About Stave III Only" with "What happens here?"): their
passages spread from first to last, or their first or last pages.

"Who are the main characters?" is about the whole book too: its evidence is
the people the book names most (people.py), each where the book says who
they are, if it does within a quarter of the book of first naming them,
else where it first names them, one part of the evidence each. So is "Who
is the narrator?": where the telling says "I", or the opening of a book no
one in it tells (narrator.py)."""

from __future__ import annotations

import re
import time

from ..index.store import Node
from .bookfacts import BOOK_RECORD, CONTENTS, COUNT, DEFINITION, LENGTH, NAMES_WRITTEN, WORDS_A_MINUTE
from .described import DESCRIPTION
from .followup import PERSONAL_PRONOUNS, subjects_of
from .named import GENERIC_WORDS
from .narrator import (FIRST_PERSON, NAMED_TELLER, THIRD_PERSON, Teller, outside_dialogue, says_i,
                       told_in_first_person)
from .people import PEOPLE_LISTED, within
from .places import PLACES_LISTED, main_places
from .planning import GLOBAL, Plan, PlanPart, content_words, words
from .retrieval import PartEvidence, Retrieval, cut_at, passage_naming
from .selection import within_record

# Words that name the book itself, or ask of it as a whole.
_WHOLE_BOOK = {"book", "novel", "story", "tale", "whole", "entire", "overall", "general", "generally", "work",
               "books", "novels", "stories", "tales", "works", "collection",  # a book of stories: "the stories"
               "author", "writer", "plot", "plots", "synopsis", "give", "quick", "narrator", "narrators",
               "narrates", "narrated", "narrating", "narration", "begin", "begins",
               "beginning", "start", "starts", "opening", "opens", "end", "ends", "ending", "ended", "finish",
               "finishes", "conclude", "concludes", "conclusion", "people", "persons", "cast", "list", "name", "names",
               "tells", "told", "telling", "point", "view", "perspective", "person", "set", "setting", "settings",
               "take", "takes", "place", "places", "location", "locations",
               "who's", "who\u2019s", "remind", "refresh",  # "Who's who in this book?", "Remind me of the plot"
               "style", "narrative", "written", "used", "voice",  # "What style of narrative is used in the story?"
               # "Where did the majority of the story occur?", "Where does most of the action happen?"
               "occur", "occurs", "occurred", "majority", "most", "mostly", "action", "located", "tldr",
               "protagonist", "protagonists", "hero", "heroine", "central", "lead", "leading",  # "Who is the hero?"
               "last", "final", "closing", "first",  # "What is the final scene of the book?"
               # "What is the moral of the story?": no passage says so by those words; the book in outline shows it
               "theme", "themes", "moral", "morals", "message", "messages", "lesson", "lessons", "idea", "ideas",
               "teach", "teaches", "taught"}
_TEXT_UNITS = r"(?:lines?|sentences?|words?|paragraphs?|pages?)"
# "the final scene", "the last thing", "What happens last?"; "the first scene", "Who appears first?"
_MOMENTS = rf"(?:{_TEXT_UNITS}|things?|events?|scenes?|moments?)"
_ENDING = re.compile(rf"\b(?:end|ends|ending|ended|finish|finishes|conclude|concludes|conclusion"
                     rf"|(?:last|final|closing)\s+{_MOMENTS})\b|\b(?:last|finally)\W*$", re.I)
_OPENING = re.compile(rf"\b(?:begin|begins|beginning|start|starts|opening|opens|first\s+{_MOMENTS})\b"
                      r"|\bfirst\W*$", re.I)
# "What is the last sentence of the book?", "its first line": one sentence asked for, not its last few.
_ONE_SENTENCE = re.compile(r"\b(?:first|last|final|closing|opening)\s+(?:line|sentence)\b", re.I)


def asks_one_sentence(question: str) -> bool:
    return _ONE_SENTENCE.search(question) is not None


_PEOPLE = re.compile(r"\b(?:characters?|people|persons|cast|protagonists?|hero|heroine)\b"
                     r"|^\W*who(?:'s|\s+is|\s+are)\s+in\b|^\W*who(?:['\u2019]s|\s+is)\s+who\b", re.I)
_WHEN = re.compile(r"^\W*when\b", re.I)
_PLACES = re.compile(r"\b(?:set|setting|settings|take\s+place|takes\s+place|places|locations?)\b|^\W*where\b", re.I)
_NARRATOR = re.compile(r"\bnarrat(?:or|ors|es|ed|ing|ion|ive)\b|\bwho\s+(?:tells|is\s+telling|told)\b"
                       r"|\bpoint\s+of\s+view\b|\bperspective\b|\b(?:first|third)[-\s]person\b"
                       r"|\b(?:which|what)\s+person\b", re.I)  # "In which person is it told?"
# "What just happened?", "What did I just read?", "Where was I?": the pages just before the reader's place.
_JUST_READ = re.compile(
    r"^\W*(?:what\s+(?:has\s+)?just\s+happened|what\s+(?:did|have)\s+I\s+just\s+(?:read|been\s+reading)"
    r"|(?:recap|summari[sz]e|sum\s+up)\s+(?:what\s+I\s+(?:have\s+)?just\s+read|the\s+last\s+(?:few\s+)?"
    r"(?:pages?|paragraphs?))|where\s+was\s+I|what\s+was\s+(?:I\s+reading|happening))\W*$", re.I)
# A main character's line is where the book says who they are, if it does within this share of it after first
# naming them (1 / 4); else where it first names them.
DESCRIBED_WITHIN = 4
# The kinds of whole-book question, and what the evidence of each is, as an answer says it.
OUTLINE, OPENING, ENDING, PEOPLE, PLACES, RECENT = "outline", "opening", "ending", "people", "places", "recent"
# Asked who is in it or where it is set, of a book naming no one or no place often enough to list: its outline.
NO_PEOPLE, NO_PLACES = "outline:people", "outline:places"
# The passages just before the reader's place that "What just happened?" recalls.
RECENT_PASSAGES = 2
NARRATOR = "narrator"  # asked; answered as one of these two
TELLER = "teller"  # the sources' mark of the passage where the book names the one telling it
OVERVIEW_EVIDENCE = {OUTLINE: "the book in outline, each chapter's opening across it",
                     OPENING: "the book's first pages", ENDING: "the book's last pages",
                     RECENT: "the pages just before where you are",
                     PEOPLE: "the people it names most, each where it says who they are or first names them",
                     PLACES: "the places it names most, each where it first names them",
                     NO_PEOPLE: "the book in outline, as it names no one often enough to list",
                     NO_PLACES: "the book in outline, as it names no place often enough to list",
                     FIRST_PERSON: "where its telling says \u201cI\u201d outside dialogue, from the first such line to "
                                   "its last chapter",
                     NAMED_TELLER: "where the book first names the one telling it, then where its telling says "
                                   "\u201cI\u201d outside dialogue, from the first such line to its last chapter",
                     THIRD_PERSON: "its first lines",
                     CONTENTS: "its contents, each chapter's heading as printed",
                     BOOK_RECORD: "its record: the title and author its file gives, and its title page",
                     LENGTH: f"its length: the words of its chapters, counted, read at {WORDS_A_MINUTE} words a minute",
                     COUNT: "where its text uses what was asked about, counted: each use, or each chapter's first",
                     NAMES_WRITTEN: "where its text writes the name found beside the one asked about: each use, or "
                                    "each chapter's first",
                     DEFINITION: "where its text uses the word asked about: each use, or each chapter's first"}
_THE_BOOK = re.compile(r"\b(?:this|the|that)\s+(?:whole\s+|entire\s+)?(?:book|novel|story|tale|work)\b", re.I)
# "it", "this", "that" left once "this book" is taken out refer to something said before.
_REFERENCES = PERSONAL_PRONOUNS | {"it", "its", "this", "that", "these", "those"}


def asks_about_the_whole_book(question: str, alone: bool = False) -> bool:
    """Whether a question asks about the book as a whole and names nothing
    in it: every content word is one like "book", "about", "happens" or
    "summarize", and no pronoun points at someone or something else.
    `alone`: asked with nothing before it, where "How does it end?" and
    "What is it about?" can mean nothing but the book."""
    if subjects_of(question) or any(word[:1].isupper() and word != "I" for word in words(question)[1:]):
        return False  # a name or a quoted phrase of its own ("Who is Will?": a name the stopwords would miss)
    rest = _THE_BOOK.sub(" ", question)
    references = PERSONAL_PRONOUNS if alone else _REFERENCES
    if any(word.lower() in references for word in words(rest)):
        return False
    return all(word.lower() in GENERIC_WORDS | _WHOLE_BOOK for word in content_words(rest))


# "this chapter", "the stave", "here", "it" in "How does it end?": the
# chapters asked about, not something said before.
_THE_CHAPTERS = re.compile(
    rf"\b(?:(?:this|the|that|these|those)\s+(?:{'|'.join(sorted(GENERIC_WORDS))})s?|here|its?)\b", re.I)


def asks_about_the_chapters(question: str) -> bool:
    """Whether a question about chapters picked in the contents asks about
    them as a whole ("What happens here?", "Summarize this chapter", "How
    does it end?") rather than about something in them."""
    return asks_about_the_whole_book(_THE_CHAPTERS.sub(" ", question))


def overview_evidence(kind: str | None, chapters: list[int] | None = None) -> str | None:
    """What a question's evidence is when it asks about the whole book, or
    about `chapters` as a whole, as an answer says it (None: a search)."""
    if kind is None or chapters is None:
        return OVERVIEW_EVIDENCE.get(kind) if kind else None
    theirs = "its" if len(chapters) == 1 else "their"
    return {OUTLINE: f"{theirs} passages spread from start to end", OPENING: f"{theirs} first pages",
            ENDING: f"{theirs} last pages",
            PEOPLE: f"the people {theirs} pages name most, each where told of or first named",
            PLACES: f"the places {theirs} pages name most, each where first named",
            NO_PEOPLE: f"{theirs} passages spread from start to end, as {theirs} pages name no one often enough to "
                       "list",
            NO_PLACES: f"{theirs} passages spread from start to end, as {theirs} pages name no place often enough "
                       "to list",
            CONTENTS: f"{theirs} heading{'' if len(chapters) == 1 else 's'} as printed",
            LENGTH: f"{theirs} words, counted",
            }.get(kind, OVERVIEW_EVIDENCE.get(kind))  # who tells it: as of the book


def asks_what_just_happened(question: str) -> bool:
    """"What just happened?", "What did I just read?", "Where was I?": a
    recap of the pages before the reader's place."""
    return _JUST_READ.search(question) is not None


def overview_kind(question: str) -> str:
    """Which whole-book question it is: what just happened, who tells it,
    where it is set, who is in it, how it ends, how it begins, or what it
    is (its outline)."""
    if asks_what_just_happened(question):
        return RECENT
    if _NARRATOR.search(question):
        return NARRATOR
    if _PLACES.search(question) and not _WHEN.match(question):  # "When is it set?" asks for a time
        return PLACES
    if _PEOPLE.search(question):
        return PEOPLE
    return ENDING if _ENDING.search(question) else OPENING if _OPENING.search(question) else OUTLINE


def overview(plan: Plan, question: str, context, budget: int = 12, until: int | None = None,
             within: list[int] | None = None) -> Retrieval:
    """The book in outline: `budget` passages spread over its chapters (those
    begun before `until`; with `within`, those chapters only), each chapter's
    opening first; for a question on how it ends ("How does the novel
    end?"), its last passages; on how it begins, its first."""
    started = time.perf_counter()
    begun = context.sections_begun(until)
    if within is not None:
        asked = set(within)
        begun = [section for section in (begun if begun is not None else within) if section in asked]
    by_section: dict[int, list[tuple[int, str]]] = {}
    for node_id, section in context.section_of.items():
        start = context.start_of.get(node_id, 0)
        if section is None or (begun is not None and section not in begun) or (until is not None and start >= until):
            continue
        by_section.setdefault(section, []).append((start, node_id))
    sections = sorted(by_section)
    for section in sections:
        by_section[section].sort()
    kind = overview_kind(question)
    if kind in (PEOPLE, PLACES):
        names = _with_the_teller(context, context.main_people(until, begun, min(PEOPLE_LISTED, budget)), until,
                                 begun, min(PEOPLE_LISTED, budget)) if kind == PEOPLE else \
            main_places(context.book, context.rarity, until, begun, limit=min(PLACES_LISTED, budget))
        if names:
            return _each_where_first_named(plan, context, names, kind, until, within, begun, started)
        kind = NO_PEOPLE if kind == PEOPLE else NO_PLACES  # none named often enough (A Christmas Carol's places)
    in_order = [node_id for section in sections for _, node_id in by_section[section]]
    named_teller = stated = None
    if kind == NARRATOR:
        # Chapters asked about are told as they are: A Study in Scarlet's second part is in the third person.
        first_person = context.told_in_first_person if within is None else told_in_first_person("\n\n".join(
            context.book.text[section.body_start:section.end]
            for section in (context.book.sections[ordinal - 1] for ordinal in sections)))
        kind = FIRST_PERSON if first_person else THIRD_PERSON
        chosen = _saying_i(context, in_order) if kind == FIRST_PERSON else in_order[:1]
        teller = context.teller if kind == FIRST_PERSON else None
        told = context.book.title if within is None else \
            f"{within_record(context, within)['short']} of {context.book.title}"
        # The line that names them first: a reader who has not reached it is not told the name; a question about
        # chapters gets it from them only.
        if teller is not None and (until is None or teller.shown_at < until):
            holding = [node for node in context.passages_overlapping(teller.shown_at, teller.shown_at + 1)
                       if within is None or node.section in sections]
            kind, stated = NAMED_TELLER, teller_statement(told, teller)
            if holding:  # its line first, marked for the digest
                named_teller = teller
                chosen = [holding[0].id] + [node_id for node_id in chosen if node_id != holding[0].id]
        else:
            stated = told_statement(told, kind)
    elif kind == ENDING:
        chosen = in_order[-budget:]
    elif kind == RECENT:  # `until` is the reader's place
        chosen = in_order[-min(budget, RECENT_PASSAGES):]
    elif kind == OPENING:
        chosen = in_order[:budget]
    else:
        chosen = _outline(by_section, sections, budget)
    nodes = [cut_at(node, until) for node in context.search.nodes(chosen)]
    plan.scope = GLOBAL
    parts = [PartEvidence(part=part) for part in plan.parts]
    parts[0].passages = sorted(nodes, key=lambda node: node.start or 0)
    for node in parts[0].passages:
        parts[0].sources[node.id] = ["overview"] + ([TELLER] if named_teller and node.id == chosen[0] else [])
    return Retrieval(plan=plan, parts=parts, seconds=time.perf_counter() - started,
                     order=[node.id for node in parts[0].passages], until=until,
                     meaning_share=context.meaning_share, overview=kind, within=within, stated=stated)


def told_statement(title: str, kind: str) -> str:
    """How the book is told, where no teller is named, as its answer says it."""
    if kind == FIRST_PERSON:
        return f"{title} is told in the first person, by one of its people: its telling says \u201cI\u201d."
    return (f"{title} is told in the third person: its telling hardly ever says \u201cI\u201d outside dialogue, so "
            "none of its people tells it.")


def teller_statement(title: str, teller: Teller) -> str:
    """Who tells the book, as its answer says it."""
    if teller.in_title:
        return (f"{title} is told in the first person by {teller.name}, whom its title names: its telling says "
                f"\u201cI\u201d, not \u201c{teller.name}\u201d.")
    if teller.written_as:
        return (f"{title} is told in the first person by {teller.name}: the book calls itself the "
                f"\u201c{teller.written_as}\u201d, and its telling says \u201cI\u201d.")
    return (f"{title} is told in the first person by {teller.name}: its telling says \u201cI\u201d, and others "
            f"speak to the one telling it as \u201c{teller.name}\u201d.")


def _each_where_first_named(plan: Plan, context, names: list[str], kind: str, until: int | None,
                            within: list[int] | None, begun: list[int] | None, started: float) -> Retrieval:
    """The people or places the book (or the chapters `within`) names
    most, one part each, its evidence the first passage naming them; for
    people, where the book says who they are, if it does soon after."""
    plan.scope = GLOBAL
    plan.parts = [PlanPart(text=name) for name in names]
    parts, order = [], []
    for part in plan.parts:
        evidence = PartEvidence(part=part)
        found = person_passage(context, part.text, until, begun) if kind == PEOPLE else \
            (passage_naming(context, part.text, until, begun), False)
        if found[0] is not None:
            passage, described = found
            evidence.passages = [cut_at(passage, until)]
            evidence.sources[passage.id] = ["overview"] + ([DESCRIPTION] if described else [])
            order.append(passage.id)
        parts.append(evidence)
    return Retrieval(plan=plan, parts=parts, seconds=time.perf_counter() - started, order=list(dict.fromkeys(order)),
                     until=until, meaning_share=context.meaning_share, overview=kind, within=within)


def person_passage(context, name: str, until: int | None, begun: list[int] | None) -> tuple[Node | None, bool]:
    """The passage to quote for one of the main people (before `until`, in
    the sections `begun`), and whether it says who they are: where the
    book first does, within a quarter of it from their first naming, in
    its telling if it does there, else in dialogue ("Kala was the youngest
    mate of a male called Tublat", not "And then he spied Kala"); else
    that first naming."""
    first = passage_naming(context, name, until, begun)
    if first is None:
        return None, False
    end = min(first.start + len(context.book.text) // DESCRIBED_WITHIN,
              len(context.book.text) if until is None else until)
    span = context.where_described(name, first.start, end)
    if span is None:
        return first, False
    allowed = None if begun is None else set(begun)
    # Passages overlap: of those holding the words, the one with most text around them, so that it holds their
    # sentence.
    holding = [node for node in context.passages_overlapping(*span) if node.start <= span[0] and span[1] <= node.end
               and (until is None or node.end <= until) and (allowed is None or node.section in allowed)]
    described = max(holding, key=lambda node: min(span[0] - node.start, node.end - span[1]), default=None)
    return (described, True) if described is not None else (first, False)


def work_out_main_people(context) -> None:
    """Find now the main people of the whole book and where each is told of, for the first asking."""
    for name in _with_the_teller(context, context.main_people(None, None, PEOPLE_LISTED), None, None, PEOPLE_LISTED):
        person_passage(context, name, None, None)


def _with_the_teller(context, names: list[str], until: int | None, begun: list[int | None] | None,
                     limit: int) -> list[str]:
    """The main people, with the one telling the book first where the book
    names them (narrator.teller) and they are not among those it names most:
    the telling says "I", so Black Beauty was missing from Black Beauty's.
    Not for a reader who has not reached where the book names them."""
    teller = context.teller
    if teller is None or (until is not None and teller.shown_at >= until):
        return names
    section = context.book.section_at(teller.shown_at)
    if begun is not None and (section.ordinal if section else None) not in begun:
        return names
    if any(name == teller.name or within(name, teller.name) or within(teller.name, name) for name in names):
        return names
    return [teller.name] + names[:limit - 1]


def _saying_i(context, in_order: list[str]) -> list[str]:
    """Passages where the telling says "I": the first, the first from
    half-way, the first of the last chapter read (the narrator throughout)."""
    last_section = context.section_of.get(in_order[-1]) if in_order else None
    starts = [0, len(in_order) // 2,
              next((index for index, node_id in enumerate(in_order) if context.section_of.get(node_id) == last_section),
                   len(in_order))]
    chosen: list[str] = []
    for start in starts:
        for node_id in in_order[start:]:
            if node_id in chosen:
                continue
            node = context.search.store.node(node_id)
            if node is not None and says_i(node.text, 0, len(node.text), outside_dialogue(node.text)):
                chosen.append(node_id)
                break
    return chosen or in_order[:1]


def _outline(by_section: dict[int, list[tuple[int, str]]], sections: list[int], budget: int) -> list[str]:
    """Each chapter's opening, evenly spaced chapters when there are more than
    the budget; with fewer, more from the longest, spread through them to
    their last."""
    if len(sections) > budget:  # evenly spaced chapters, the first and the last among them
        sections = sorted({sections[round(i * (len(sections) - 1) / max(1, budget - 1))] for i in range(budget)})
    counts = {section: 1 for section in sections}
    while sum(counts.values()) < budget:
        roomy = [s for s in sections if counts[s] < len(by_section[s])]
        if not roomy:
            break
        widest = max(roomy, key=lambda s: (len(by_section[s]) / counts[s], -s))
        counts[widest] += 1
    return [by_section[s][round(j * (len(by_section[s]) - 1) / max(1, counts[s] - 1))][1]
            for s in sections for j in range(counts[s])]
