"""Retrieval per part of the plan, with reserved slots.

Each part of a plan ranks passages from several lists: exact anchor matches
(phrase queries), the question's rare words, stemmed BM25 and dense search
(names resolved through the characters card added to the words), and, where
a capable generator wrote summaries, the sections whose summaries answer the
part best. The lists are fused by reciprocal rank fusion. A one-part question
about one scene first gets the passage that holds its words best (BM25's
first), which the fusion can bury; one asking who someone is, the passage
that first names them. Parts then take turns picking their best
passage, so every part gets its share of the budget, under two caps: at
most two passages from one section, and one per section for a part that
asks for several instances (three coughs are in three chapters). A budget
those caps cannot spend (a book of five sections, a reader still in
chapter 2) goes to more from the same sections. Up to a reader's position
(`until`), nothing after it is shown: no spoilers. A passage the position
cuts through is kept up to it (a reader on the first page has no whole
passage behind them yet). A passage the reader selected to ask about
(`focus`) comes first, whole, wherever it is.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Callable

from ..index.search import RRF_K
from ..index.store import SECTION_SUMMARY, Node
from .ages import asks_age, passages_telling_age
from .changes import CHANGE, FIRST_TOLD, change_asked, says_what_they_were, where_they_are_left
from .deaths import DEATH, KILLING, death_asked, killer_asked, last_told_dead, told_killing, victims_asked
from .described import DESCRIPTION, describes
from .expected import TELLINGS
from .followup import unglossed
from .marriages import MARRIAGE, last_told_married, marriage_asked
from .meetings import MEETING, by_surname, first_met_by_the_teller, meeting_asked, narrator_first
from .narrator import with_the_teller_named
from .nearby import names_asked, other_names_written, passages_telling
from .people import HONORIFIC_WORDS, a_noun_or_a_place, names_another_person
from .planning import (LOCAL, STOPWORDS, Plan, PlanPart, capitalised_as_a_name, content_words,
                       joins_a_name, stem, words)
from .recurring import RECURRING, recurring_thing
from .relationships import RELATIONSHIP, relationship_asked, sentences_telling_the_tie
from .selection import FOCUS_PASSAGES
from .vocabulary import Rarity, as_written, without_possessive

MAX_PER_SECTION = 2
INTRODUCTION = "introduction"  # the sources' mark of the passage that first names someone asked about
LAST_MENTION = "last mention"  # and of the passage that last names someone ("When does Mrs Clay last appear?")
WHOLE_QUESTION_WEIGHT = {"code": 4.0, "model": 1.0}
# Weights of the ranked lists in the fusion of one part.
LIST_WEIGHTS = {"anchor": 1.0, "rare": 0.8, "bm25": 1.0, "dense": 1.0, "summary": 0.7}
_DEPTH = 40
# A rare word's list: its best passages by BM25 (a rare word is in at most
# 4% of a book's passages). Deeper lists trade one set for another: at 12 /
# 24, GutenQA Emma MRR 0.634 -> 0.650 / 0.659 and hit@5 0.733 -> 0.767 (our
# BM25: 0.648 / 0.767), but follow-ups at 6 passages 0.796 -> 0.788 / 0.772,
# the development set at 6 passages 0.771 -> 0.769 / 0.772 and Little Women
# at 12 no longer clearly above its baselines.
_RARE_DEPTH = 8
_KILLING_SLOTS = 3  # passages telling whom someone killed: "Who did Tarzan kill?" has several answers
_ANCHOR_LIMIT = 12
# Reserved for the passages telling the age of someone a how-old question names (ages.py).
_AGE_SLOTS = 2
# Reserved for the passages telling what someone looks like (nearby.py).
_TELLING_SLOTS = 2
# "Crowded": at least this many of the first passages share the best one's section.
_CROWD_TOP, _CROWD_SIZE = 5, 3


@dataclass
class Features:
    """What retrieval may use; the harness turns each off in turn."""

    anchors: bool = True
    rare_words: bool = True
    names: bool = True
    summaries: bool = True  # route through section summaries (upper tiers)
    whole_question: bool = True
    # The dense list. Off, retrieval is what a question gets while a new
    # book's vectors are still being made (development set, 12 passages:
    # 0.884 against 0.903; 6 passages: 0.687 against 0.771).
    vectors: bool = True


@dataclass
class PartEvidence:
    part: PlanPart
    passages: list[Node] = field(default_factory=list)
    sources: dict[str, list[str]] = field(default_factory=dict)  # node id -> lists that found it


@dataclass
class Retrieval:
    plan: Plan
    parts: list[PartEvidence]
    seconds: float
    order: list[str] = field(default_factory=list)  # passage ids in the order they were picked
    until: int | None = None  # only the text before this offset was used (a reader's position)
    # Share of the book's passages searched by meaning as well as by words:
    # under 1 while a new book's vectors are still being made.
    meaning_share: float = 1.0
    focus: tuple[int, int] | None = None  # the span of text the question is about (a reader's selection)
    within: list[int] | None = None  # the sections the question is about (a chapter), the only ones searched
    named: list[int] | None = None  # sections the question names, half the budget taken from them first
    # A question about the whole book: "outline" (each chapter's opening), "opening" or "ending" (its first or
    # last passages), not a search.
    overview: str | None = None
    # Names the question uses and the book never does, each {"name", "closest"} (absent.py).
    absent: list[dict] = field(default_factory=list)
    # Slips of the keyboard in its other words, each (as typed, as read) (spelling.py).
    read_as: list[tuple[str, str]] = field(default_factory=list)
    # A question about the book itself ("Who wrote it?", "How many chapters?"): its answer, from the book's
    # record (bookfacts.py), with `overview` the kind of fact.
    stated: str | None = None
    # A how-often question's uses counted, where each starts in the text (counting.py): the digest quotes them.
    uses: list[int] = field(default_factory=list)

    @property
    def ranked(self) -> list[Node]:
        """Passages in the order they were picked: each part's best first."""
        by_id = {node.id: node for part in self.parts for node in part.passages}
        return [by_id[node_id] for node_id in self.order if node_id in by_id]

    @property
    def passages(self) -> list[Node]:
        """All passages, each once, in book order."""
        seen: dict[str, Node] = {}
        for part in self.parts:
            for node in part.passages:
                seen.setdefault(node.id, node)
        return sorted(seen.values(), key=lambda node: (node.start or 0))

    @property
    def sections(self) -> list[int]:
        return sorted({node.section for node in self.passages if node.section is not None})


def retrieve(plan: Plan, context, budget: int = 12, features: Features | None = None,
             until: int | None = None, focus: tuple[int, int] | None = None,
             within: list[int] | None = None, leave_out: set[str] | None = None,
             named: list[int] | None = None) -> Retrieval:
    """Passages for each part of the plan, at most `budget` in all; with
    `until`, only the text before that offset; with `focus` (the span of
    text the reader asks about), the passages holding it first, whole
    wherever it is; with `within` (section ordinals: a chapter asked
    about), only from those sections; with `named` (sections the question
    names beside a subject of its own), half the budget from those first.
    Passages in `leave_out` are not picked."""
    features = features or Features()
    started = time.perf_counter()
    searched = searched_sections(context, until, within)
    rankings = _part_rankings(plan, context, features, until, searched)
    parts = [PartEvidence(part=part) for part in plan.parts]
    picks = _Picks(parts, leave_out or set())
    chosen = picks.chosen
    pinned = _focus_passages(context, focus)[:budget]
    for node in pinned:
        picks.take(node.id, node.section, _part_about(node, parts), ["selection"])
    # Chapters the question names beside a subject of its own: half the
    # budget from their own ranking first, the rest as usual.
    named_searched = _named_sections(named, searched)
    if named_searched:
        reserve = -(-budget // 2) - len(chosen)
        picks.take_turns(_part_rankings(plan, context, features, until, named_searched), -(-budget // 2),
                         section_cap=-(-reserve // len(named_searched)), mark="named")
    # A passage with a slot of its own, for a question that asks where the
    # book tells something of someone named: "Who is Mrs Smith?", the
    # passage that first names her, where a novel introduces its people
    # ("Miss Hamilton, now Mrs Smith, had shewn her kindness..."; the fused
    # ranking favours scenes where the name is everywhere and says least
    # about who she is), and the first saying what she is, where that comes
    # later (described.py); "When does Mrs Clay last appear?", the one that last
    # names her (it had been a search on "last" and "appear"; "What happens to
    # Hal, Charles and Mercedes?", the last naming them all); "When does Jo
    # meet Laurie?", the first naming both (meetings.py); "How does John
    # Thornton die?", the last naming him beside a word of death (deaths.py);
    # "Who does Louisa marry?", the last telling her engagement (marriages.py);
    # "How does Scrooge change?", the first saying who he is and the last
    # telling him changed (changes.py); "How does the door knocker... reappear...?", the last naming the
    # knocker (recurring.py).
    for entry_of, mark in ((_introduction, INTRODUCTION), (_description_entry, DESCRIPTION),
                           (_last_naming_entry, LAST_MENTION), (_meeting_entry, MEETING), (_death_entry, DEATH),
                           (_marriage_entry, MARRIAGE), (_first_told_entry, FIRST_TOLD), (_change_entry, CHANGE),
                           (_recurring_entry, RECURRING)):
        entry = entry_of(plan, context, until, searched)
        if entry is not None:
            # Picked already (the passage introducing Scrooge also says who he is): marked for this too, so the
            # digest quotes its line for it.
            picks.take_slots([entry], budget, mark)
    # A question about one scene: the passage holding its words best has a
    # reserved slot, first. Where the embedder misses that passage, the
    # fusion buries it under passages both lists find (GutenQA Emma: hit@1
    # 0.500 -> 0.567, MRR 0.590 -> 0.634; development set unchanged).
    best_by_words = _best_by_words(plan, context, features, until, searched, rankings[0] if rankings else [])
    if best_by_words is not None:
        picks.take_slots([best_by_words], budget, "words", mark_picked=False)
    # "How old was Anne Elliot when...?": the passages where an age stands
    # nearest her name have reserved slots. Its words pick out none ("old",
    # a name found everywhere), and the age is told in words of the book's
    # own ("to throw herself away at nineteen"; ages.py).
    picks.take_slots(_telling_age(plan, context, features, until, searched), budget, "age", mark_picked=False)
    # "What does Stapleton look like?": the passages where words of looks
    # gather near his name ("a small, slim, clean-shaven, prim-faced man");
    # its words found lines saying "looked" of anyone (nearby.py). A kind
    # found otherwise than by its words gathering (a letter's opening) marks
    # a passage picked already too: the digest quotes the letter from the
    # passage so marked. The others' digest weighs their marked passages, and
    # keeps to those it found itself.
    for telling, told in _tellings(plan, context, features, until, searched):
        picks.take_slots(told, budget, telling.name, mark_picked=telling.finds is not None)
    # "Who did Tarzan kill?": the passages telling whom he killed (deaths.py); its words found lines saying
    # "kill" of anyone.
    picks.take_slots(_killings(plan, context, until, searched), budget, KILLING)
    # "What is the relationship between Stapleton and Beryl?": the first and last passages naming both beside a
    # word of kin (relationships.py); its words found scenes where both are present.
    picks.take_slots(_ties(plan, context, until, searched), budget, RELATIONSHIP)
    # Two rounds: first one passage per section (the answer usually spans
    # sections), then a second from a section already chosen. A one-part
    # question whose best passages crowd into one section is about one scene:
    # there rank order wins (GutenQA Emma hit@5 0.63 -> 0.70, the
    # cross-chapter set unchanged).
    # A book of few sections (A Christmas Carol has five staves), or a reader
    # early in a book, cannot spend the budget at two passages a section: the
    # budget left after the usual rounds goes to more from the same sections,
    # and a part asking for several instances may then take more than one
    # from a section.
    sections = len(context.book.sections) if searched is None else sum(1 for s in searched if s is not None)
    cap = max(MAX_PER_SECTION, -(-budget // max(1, sections)))
    # (cap on passages per section, whether a "several" part takes one per section)
    if _concentrated(plan, rankings):
        rounds = [(cap, True)]
    else:
        rounds = [(1, True), (MAX_PER_SECTION, True)] + ([(cap, True)] if cap > MAX_PER_SECTION else [])
    if cap > MAX_PER_SECTION or until is not None or within is not None:
        rounds.append((cap, False))
    for section_cap, one_per_section_for_several in rounds:
        picks.take_turns(rankings, budget, section_cap, depth=_DEPTH if section_cap == 1 else None,
                         one_per_section_for_several=one_per_section_for_several)
    # The passage a reader selected is in front of them: it is used whole
    # even past their position; nothing else after it is.
    uncut = {node.id for node in pinned}
    nodes = {node.id: node if node.id in uncut else cut_at(node, until) for node in context.search.nodes(list(chosen))}
    for node_id, index in chosen.items():
        if node_id in nodes:
            parts[index].passages.append(nodes[node_id])
    for evidence in parts:
        evidence.passages.sort(key=lambda node: node.start or 0)
    return Retrieval(plan=plan, parts=parts, seconds=time.perf_counter() - started, order=list(chosen), until=until,
                     meaning_share=context.meaning_share, focus=focus, within=within, named=named_searched or None)


class _Picks:
    """The passages chosen so far, for which part, and how many from each section."""

    def __init__(self, parts: list[PartEvidence], left_out: set[str]):
        self.parts = parts
        self.left_out = left_out
        self.chosen: dict[str, int] = {}  # node id -> part index, in the order picked
        self.per_section: Counter = Counter()
        self.picked_by_part = [set() for _ in parts]

    def take(self, node_id: str, section: int | None, index: int, sources: list[str]) -> None:
        self.chosen[node_id] = index
        self.per_section[section] += 1
        self.picked_by_part[index].add(section)
        self.parts[index].sources[node_id] = sources

    def mark(self, node_id: str, mark: str) -> None:
        """Mark a passage picked already as picked for `mark` too."""
        held = self.parts[self.chosen[node_id]].sources
        held[node_id] = held[node_id] + [mark]  # a new list: the rankings' own are not changed

    def take_slots(self, entries: list, budget: int, mark: str, mark_picked: bool = True) -> None:
        """Give ranking entries slots of their own, at most two a section and
        `budget` passages in all, marked `mark`; those picked already are
        marked for it too, unless not `mark_picked`."""
        if mark_picked:
            for node_id in [entry[0] for entry in entries if entry[0] in self.chosen]:
                self.mark(node_id, mark)
        waiting = [entry for entry in entries if entry[0] not in self.chosen]
        if waiting:
            self.take_turns([waiting], min(budget, len(self.chosen) + len(waiting)), MAX_PER_SECTION, mark=mark)

    def take_turns(self, rankings, up_to: int, section_cap: int, depth: int | None = None,
                   one_per_section_for_several: bool = False, mark: str | None = None) -> None:
        """Parts take turns picking their next best passage (within the first
        `depth` of their ranking) until `up_to` are chosen or none can be:
        at most `section_cap` a section, one a section for a part asking for
        several instances when so told; `mark` names the round in the sources."""
        cursors = [0] * len(self.parts)
        while len(self.chosen) < up_to:
            progress = False
            for index, (evidence, ranking) in enumerate(zip(self.parts, rankings)):
                if len(self.chosen) >= up_to:
                    break
                limit = min(len(ranking), depth or len(ranking))
                while cursors[index] < limit:
                    node_id, section, sources = ranking[cursors[index]]
                    cursors[index] += 1
                    if (node_id in self.chosen or node_id in self.left_out
                            or self.per_section[section] >= section_cap):
                        continue
                    if (one_per_section_for_several and evidence.part.several
                            and section in self.picked_by_part[index]):
                        continue
                    self.take(node_id, section, index, (sources + [mark]) if mark else sources)
                    progress = True
                    break
            if not progress:
                break


def _named_sections(named: list[int] | None, searched: list[int | None] | None) -> list[int]:
    """The named sections that may be searched (begun before a reader's position, in the chapters asked about)."""
    if not named:
        return []
    return [section for section in named if searched is None or section in searched]


def _part_rankings(plan: Plan, context, features: Features, until: int | None, searched: list[int | None] | None):
    """Each part's ranking of the passages in the sections `searched`."""
    rankings = [_rank_part(part, plan, context, features, until, searched) for part in plan.parts]
    if features.whole_question and len(plan.parts) > 1:
        whole = PlanPart(text=plan.question, anchors=[], several=any(p.several for p in plan.parts))
        whole_ranking = _rank_part(whole, plan, context, features, until, searched)
        # Parts cut from the question by code are weak queries on their own
        # ("how is it fulfilled"): there the whole question leads. Measured on
        # the development set (location recall at 6 passages 0.749 -> 0.766).
        weight = WHOLE_QUESTION_WEIGHT[plan.path]
        rankings = [_blend(ranking, whole_ranking, weight) for ranking in rankings]
    return rankings


def searched_sections(context, until: int | None, within: list[int] | None) -> list[int | None] | None:
    """The sections searched in (None: the whole book): those begun before
    a reader's position, and of those, the ones a question is about."""
    begun = context.sections_begun(until)
    if within is None:
        return begun
    asked = set(within)
    return [section for section in (begun if begun is not None else within) if section in asked]


def _focus_passages(context, focus: tuple[int, int] | None) -> list[Node]:
    """The passages holding most of the selected text: the one holding most,
    with the selection nearest its middle (passages overlap: a sentence is
    often in two), then another only for what that one lacks."""
    if focus is None:
        return []
    start, end = focus
    end = max(start + 1, end)
    held = context.passages_overlapping(start, end)

    def overlap(node: Node) -> int:
        return min(node.end, end) - max(node.start or 0, start)

    middle = (start + end) / 2
    held.sort(key=lambda node: (-overlap(node), abs((node.start or 0) + node.end - 2 * middle)))
    kept: list[Node] = []
    for node in held:
        if len(kept) == FOCUS_PASSAGES:
            break
        holds = (max(node.start or 0, start), min(node.end, end))  # the part of the selection it holds
        if not any((other.start or 0) <= holds[0] and holds[1] <= other.end for other in kept):
            kept.append(node)
    return sorted(kept, key=lambda node: node.start or 0)


def _part_about(node: Node, parts: list[PartEvidence]) -> int:
    """The part whose words the passage shares most (the one the selection's quote went to)."""
    held = {stem(word) for word in content_words(node.text)}
    shared = [len(held & {stem(word) for word in content_words(evidence.part.text)}) for evidence in parts]
    return max(range(len(parts)), key=lambda index: (shared[index], index))


def cut_at(node: Node, until: int | None) -> Node:
    """The passage up to `until`, where it runs past it."""
    if until is None or node.end is None or node.start is None or node.end <= until:
        return node
    return replace(node, end=until, text=node.text[:until - node.start])


def _concentrated(plan: Plan, rankings) -> bool:
    if len(plan.parts) != 1 or plan.parts[0].several or plan.scope != LOCAL or not rankings[0]:
        return False
    best_section = rankings[0][0][1]
    return sum(1 for _, section, _ in rankings[0][:_CROWD_TOP] if section == best_section) >= _CROWD_SIZE


def _rank_part(part: PlanPart, plan: Plan, context, features: Features, until: int | None = None,
               searched: list[int | None] | None = None):
    """The part's passages, best first: (node id, section, names of the lists
    that found it), from the sections `searched` (None: all; the passages after
    `until` are dropped below)."""
    search = context.search
    # "the narrator" searched as the teller's name (narrator.py); the digest still reads the part as asked.
    part = replace(part, text=with_the_teller_named(part.text, context.teller, until))
    # (name, weight, ranking, the words a lexical list matches on)
    lists: list[tuple[str, float, list[tuple[str, float]], str | None]] = []
    if features.anchors:
        for anchor in candidate_anchors(part):
            found = search.phrase(anchor, levels=[1], k=_ANCHOR_LIMIT + 1, sections=searched)
            # A phrase the book uses, but not everywhere: a handle on the right scenes.
            if 0 < len(found) <= _ANCHOR_LIMIT:
                lists.append(("anchor", LIST_WEIGHTS["anchor"], found, anchor))
    if features.rare_words:
        own = {w.lower() for w in content_words(part.text)}
        for word in plan.rare_words:
            if word in own or len(plan.parts) == 1:
                if context.rarity.mistaken_by_stem(word):
                    found = _naming(context, word, searched)
                else:
                    found = search.bm25(word, levels=[1], k=_RARE_DEPTH, sections=searched)
                lists.append(("rare", LIST_WEIGHTS["rare"], found, word))
    query = _words_query(part, features, context.rarity)
    lists.append(("bm25", LIST_WEIGHTS["bm25"], search.bm25(query, levels=[1], k=_DEPTH, sections=searched), query))
    if features.vectors:
        lists.append(("dense", LIST_WEIGHTS["dense"], search.dense(part.text, levels=[1], k=_DEPTH, sections=searched),
                      None))
    if features.summaries and context.routes_by_summaries:
        routed = []
        read = context.sections_read(until)
        if searched is not None:
            allowed = set(searched)
            read = [section for section in (read if read is not None else searched) if section in allowed]
        for summary_id, _ in search.bm25(part.text, levels=[2], k=3, sections=read):
            node = search.store.node(summary_id)
            if node is not None and node.kind == SECTION_SUMMARY and node.section is not None:
                routed.extend(search.bm25(part.text, levels=[1], k=2, sections=[node.section]))
        lists.append(("summary", LIST_WEIGHTS["summary"], routed, None))
    for node in context.passages_cut_by(until):
        lists = _ranked_on_what_was_read(node, until, lists, part, context)
    scores: dict[str, float] = {}
    sources: dict[str, list[str]] = {}
    for name, weight, ranked, _words in lists:
        for rank, (node_id, _) in enumerate(ranked, start=1):
            scores[node_id] = scores.get(node_id, 0.0) + weight / (RRF_K + rank)
            sources.setdefault(node_id, []).append(name)
    return [(node_id, context.section_of.get(node_id), sources[node_id])
            for node_id in sorted(scores, key=lambda n: -scores[n])
            if until is None or context.start_of.get(node_id, 0) < until]


def _naming(context, name: str, searched: list[int | None] | None) -> list[tuple[str, float]]:
    """A rare name's list: the passages that name it (of the sections
    searched), most mentions first. The word index stems "Belle" as "bell":
    searched by its words, she was lost among the bells striking the hours."""
    allowed = None if searched is None else set(searched)
    found = [node_id for node_id in context.rarity.passages_naming(name)
             if allowed is None or context.section_of.get(node_id) in allowed]
    return [(node_id, 1.0 / place) for place, node_id in enumerate(found[:_RARE_DEPTH], start=1)]


def _words_query(part: PlanPart, features: Features, rarity: Rarity) -> str:
    """What the part's BM25 list searches for: its words, and the other names
    of the people it mentions; not a name whose stem stands mostly for other
    words ("Belle": "bell"), which its own list finds (see `_naming`)."""
    text = " ".join(word for word in part.text.split()
                    if not rarity.mistaken_by_stem(without_possessive(word.strip(".,;:!?\"()“”"))))
    return f"{text} {' '.join(part.names)}" if features.names and part.names else text


def _best_by_words(plan: Plan, context, features: Features, until: int | None, searched, ranking):
    """The passage that holds a one-part question about one scene (LOCAL)
    best by its words, as its ranking has it (sections searched, read
    before `until`); None for any other question, or for a passage a
    reader's position cuts through (its unread words may be what matched)."""
    if plan.scope != LOCAL or len(plan.parts) != 1 or plan.parts[0].several:
        return None
    query = _words_query(plan.parts[0], features, context.rarity)
    best = context.search.bm25(query, levels=[1], k=1, sections=searched)
    cut = {node.id for node in context.passages_cut_by(until)}
    if not best or best[0][0] in cut:
        return None
    return next((entry for entry in ranking if entry[0] == best[0][0]), None)


def _telling_age(plan: Plan, context, features: Features, until: int | None, searched) -> list:
    """For a question asking how old someone is, the passages where an age
    stands nearest a name it asks about (read before `until`), as ranking
    entries; none for any other question."""
    if not features.rare_words or not asks_age(plan.question):
        return []
    names = [without_possessive(word) for word in re.findall(r"\b[A-Z][\w'\u2019]*", plan.question)[1:]]
    names = [name for name in dict.fromkeys(names) if context.writes_as_name(name)]
    found = passages_telling_age(context, names, searched) if names else []
    return [(node_id, context.section_of.get(node_id), ["age"]) for node_id, _ in found
            if until is None or context.start_of.get(node_id, 0) < until][:_AGE_SLOTS]


def _tellings(plan: Plan, context, features: Features, until: int | None, searched) -> list:
    """For a question asking what someone looks like, the kind (nearby.py)
    and the passages where its words gather nearest a name it asks about
    (read before `until`), as ranking entries; none for any other question."""
    if not features.rare_words:
        return []
    found = []
    for telling in TELLINGS:
        names = names_asked(plan.question, context) if telling.asked(plan.question) else []
        told = [node_id for node_id, _ in passages_telling(telling, context, names, searched, until,
                                                            plan.question)][:_TELLING_SLOTS] if names else []
        # The first passage telling it by another form of the name has a slot too ("Margaret" for "Meg").
        others = other_names_written(names, context) if telling.first_leads else []
        told += [node_id for node_id, _ in passages_telling(telling, context, others, searched, until)
                 if node_id not in told][:1] if others else []
        if told:
            found.append((telling, [(node_id, context.section_of.get(node_id), [telling.name]) for node_id in told]))
    return found


# "Who is Mrs Smith?", "Who was old Fezziwig?": a name asked about and nothing
# else. Readers add words that ask nothing more: "Who's Marley?", "Who exactly
# is Stapleton?", "Who is Stapleton, really?", "Who is Fezziwig in the book?".
_ONLY_EMPHASIS = r"(?-i:really|exactly|actually|again|anyway)"
_WHO_IS = re.compile(
    rf"^\s*who(?:\s+{_ONLY_EMPHASIS})?(?:\s+(?:is|was|are|were)|['\u2019]s)\s+(?P<name>.+?)"
    rf"(?:,?\s+{_ONLY_EMPHASIS}|\s+in\s+(?:the|this)\s+(?:book|story|novel))?[\s?!.]*$", re.I)
# Words a question or a sentence may put before a name ("old Fezziwig", "poor Tiny Tim").
BEFORE_A_NAME = ("the", "old", "young", "little", "poor")
# How many passages naming someone are looked through for the first: a main character is named in most.
_NAMED_PASSAGES = 1000


# "What is Kellynch Hall?", "What was the Laconia?": a place or a thing the book names, asked as who someone is
# (asked_who): where the book brings it in and says what it is. As typed, it is no more than "what is love?".
_WHAT_IS = re.compile(_WHO_IS.pattern.replace("who", "what", 1), re.I)


def who_is_words(question: str, what: bool = False) -> str | None:
    """What a "Who is ...?" question asks about (with `what`, a "What is
    ...?" one too), after any of BEFORE_A_NAME, as typed ("who was old
    fezziwig?" -> "fezziwig"); None for another question."""
    found = _WHO_IS.match(question) or (_WHAT_IS.match(question) if what else None)
    if found is None:
        return None
    name = found.group("name").split()
    while name and name[0].lower() in BEFORE_A_NAME:
        name = name[1:]
    return " ".join(name)


def asked_who(question: str, is_name=None) -> str | None:
    """The name a question asks about and nothing else ("Who is Mrs Smith?"
    -> "Mrs Smith"), after any of BEFORE_A_NAME: capitalised, or one the
    book writes as a name (`is_name`, as `BookContext.writes_as_name`: "who
    is tiny tim?" -> "Tiny Tim"); None for any other question ("Who is the
    man at the gate?")."""
    name = who_is_words(question, what=True)
    if name is None:
        return None
    if not capitalised_as_a_name(name) and (is_name is None or not name or not is_name(name)):
        return None
    words_of = name.split()
    return " ".join(word if joins_a_name(words_of, place) else word[:1].upper() + word[1:]
                    for place, word in enumerate(words_of))


# "When does Mrs Clay first appear?", "Where is Wentworth first mentioned?", "When is Fezziwig introduced?"
_FIRST_MENTION = re.compile(
    r"\bfirst\s+(?:appears?|appeared|mentioned|named|introduced|meets?|met|comes?\s+in|shows?\s+up|seen|see|heard"
    r"|hear|enters?|entered)\b|\bintroduced\b|\bfirst\s+(?:appearance|mention)\b", re.I)


def first_mentioned(question: str, is_name=None) -> str | None:
    """Whom a question asks where the book first brings in, if it names one
    and nothing else: "When does Mrs Clay first appear?" -> "Mrs Clay";
    typed in lower case, a word the book writes as a name (`is_name`)."""
    return _the_one_mentioned(question, _FIRST_MENTION, is_name)


# "When does Mrs Clay last appear?", "Where is Marley last mentioned?", "the last we hear of Fezziwig"
# "What happens to Spitz?", "What becomes of John Thornton?", "What is Selden's fate?": told, as often as
# not, where the book last names them ("John Thornton was dead"; "...the death of Selden").
_SOMEONE = r"(?:(?!(?:in|during|after|when|before|at|on)\b)[\w'\u2019.-]+\s+){0,3}[\w'\u2019.-]+"
_FATE = (rf"^\W*what\s+(?:happens|happened|will\s+happen|is\s+going\s+to\s+happen)\s+to\s+{_SOMEONE}"
         r"(?:\s+(?:in\s+the\s+end|at\s+the\s+end|in\s+the\s+book|finally|eventually|afterwards?|later))?\W*$"
         rf"|^\W*what\s+(?:becomes|became|will\s+become)\s+of\s+{_SOMEONE}(?:\s+in\s+the\s+end)?\W*$"
         rf"|^\W*what\s+(?:is|was)\s+(?:the\s+fate\s+of\s+{_SOMEONE}|{_SOMEONE}['\u2019]s?\s+fate)\W*$")
_LAST_MENTION = re.compile(
    r"\blast\s+(?:appears?|appeared|mentioned|named|seen|see|heard|hear|shows?\s+up|showed\s+up|comes?\s+in"
    r"|appearance|mention)\b|\blast\s+(?:time\s+)?(?:we|the\s+reader|you)\s+(?:see|hear)\b"
    rf"|\bfinal\s+(?:appearance|mention)\b|{_FATE}", re.I)


def last_mentioned(question: str, is_name=None) -> str | None:
    """Whom a question asks where the book last names, if it names one and
    nothing else: "When does Mrs Clay last appear?" -> "Mrs Clay"; so too
    what becomes of them ("What happens to Spitz?"), a follow-up's "him
    (Marley)" read as the name."""
    return _the_one_mentioned(unglossed(question), _LAST_MENTION, is_name)


_FATE_ASKED = re.compile(_FATE, re.I)


def fate_asked(question: str, is_name=None) -> str | None:
    """Whom a question asks what becomes of ("What happens to Kala?"), if it
    names one and nothing else: where the book tells their death, that is
    their fate, though it names them after ("Kala" in Tarzan's memories)."""
    return _the_one_mentioned(unglossed(question), _FATE_ASKED, is_name)


# "What happens to Hal, Charles and Mercedes?", "What becomes of Meg and John?": told, as for one, where the book
# last names them, here all of them together (the ice gives way under the three).
_FATE_OF_SEVERAL = re.compile(
    r"^\W*what\s+(?:happens|happened|will\s+happen)\s+to\s+(?P<to>[^?]+?)(?:\s+in\s+the\s+end)?\W*$"
    r"|^\W*what\s+(?:becomes|became|will\s+become)\s+of\s+(?P<of>[^?]+?)(?:\s+in\s+the\s+end)?\W*$", re.I)
_SEVERAL_JOINED = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+", re.I)


def fate_of_several(question: str, is_name=None) -> list[str] | None:
    """The two or more people a question asks what becomes of, each a name
    (capitalised, or one the book writes as a name: `is_name`), joined by
    commas or "and"; None for any other question."""
    asked = _FATE_OF_SEVERAL.match(unglossed(question))
    if asked is None:
        return None
    names = [name for name in _SEVERAL_JOINED.split(asked["to"] or asked["of"]) if name]
    if len(names) < 2 or not all(capitalised_as_a_name(name) or (is_name is not None and is_name(name))
                                 for name in names):
        return None
    return names


def _the_one_mentioned(question: str, asking: re.Pattern, is_name) -> str | None:
    """The one name a question asking so (`asking`) names, if it names one and nothing else."""
    if not asking.search(question):
        return None
    from .followup import subjects_of  # followup's names: capitalised runs, as a question types them

    names = subjects_of(question)
    if not names and is_name is not None:
        # The words asking first; a question asking what becomes of someone is all asking ("what happens to spitz").
        names = [word for word in content_words(asking.sub(" ", question)) if is_name(word)] or [
            word for word in content_words(question) if is_name(word)]
    return names[0] if len(names) == 1 else None


def introduced(question: str, is_name=None) -> str | None:
    """The one a question asks who they are, or where the book first brings them in."""
    return asked_who(question, is_name) or first_mentioned(question, is_name)


def _introduction(plan: Plan, context, until: int | None, searched):
    """For a question asking who someone is, or where the book first brings
    them in, the first passage that names them (of the sections searched,
    read before `until`, not one the position cuts through): (node id,
    section, sources); else None."""
    name = introduced(plan.question, context.writes_as_name)
    if name is None:
        return None
    first = passage_naming(context, name, until, searched)
    # "Rupert of Hentzau" is brought in as "young Rupert" chapters before the book writes him in full; not
    # "the Ghost of Christmas Past", nor a title ("King of Ruritania").
    head, _, rest = name.partition(" of ")
    if (rest and " " not in head and head.lower() not in HONORIFIC_WORDS and context.writes_as_name(head)
            and not a_noun_or_a_place(head, context.book.text)):
        by_head = passage_naming(context, head, until, searched)
        first = by_head if by_head is not None and (first is None or by_head.start < first.start) else first
    return (first.id, first.section, ["phrase"]) if first is not None else None


def _description_entry(plan: Plan, context, until: int | None, searched):
    """For a question asking who someone is, the first passage that says
    so ("Kala was the youngest mate of a male called Tublat", chapters
    after she is first named; described.py); where that is said in
    dialogue and the telling says so in the same chapter, the telling's
    ("Jo happened to suit Aunt March, who was lame", not Jo's "Aunt March
    is a regular Old Man of the Sea to me"): (node id, section, sources);
    else None."""
    name = asked_who(plan.question, context.writes_as_name)
    if name is None:
        return None
    described = passage_naming(context, name, until, searched, holding=describes(name))
    if described is not None and not describes(name, in_telling=True)(described.text):
        # Only in its chapter: a telling's line chapters later ("Stapleton was the cause of the interruption") says
        # less than Dr. Mortimer's "Mr. Stapleton, the naturalist".
        described = passage_naming(context, name, until, [described.section],
                                   holding=describes(name, in_telling=True)) or described
    return (described.id, described.section, ["phrase"]) if described is not None else None


def _last_naming_entry(plan: Plan, context, until: int | None, searched):
    """For a question asking where the book last names someone, the last
    passage that names them (of the sections searched, read before
    `until`, not one the position cuts through), or what becomes of several,
    the last naming them all: (node id, section, sources); else None."""
    several = fate_of_several(plan.question, context.writes_as_name)
    if several:
        others = [as_written(name) for name in several[1:]]  # once, not once for each passage looked at
        together = passage_naming(context, several[0], until, searched, last=True,
                                  holding=lambda text: all(other.search(text) for other in others))
        return (together.id, together.section, ["phrase"]) if together is not None else None
    return _last_passage_naming(context, last_mentioned(plan.question, context.writes_as_name), until, searched)


def _recurring_entry(plan: Plan, context, until: int | None, searched):
    """For a question asking how a thing comes back, the last passage naming
    it (recurring.py): (node id, section, sources); else None."""
    return _last_passage_naming(context, recurring_thing(plan.question, context.rarity), until, searched)


def _last_passage_naming(context, name: str | None, until: int | None, searched):
    """The last passage naming `name` as a ranking entry; None where there is no name or no such passage."""
    last = passage_naming(context, name, until, searched, last=True) if name is not None else None
    return (last.id, last.section, ["phrase"]) if last is not None else None


def _meeting_entry(plan: Plan, context, until: int | None, searched):
    """For a question asking where two people first meet, the first passage
    naming both (meetings.py): (node id, section, sources); else None."""
    names = meeting_asked(plan.question, context.writes_as_name)
    if not names:
        return None
    (_, met), told_by_one = narrator_first(context, names)
    if told_by_one:
        # The telling says "I", not the narrator's name: where it first names the other.
        at = first_met_by_the_teller(context, met)
        node = next((node for node in context.passages_overlapping(at, at + 1)
                     if (until is None or (node.end or 0) <= until)
                     and (searched is None or context.section_of.get(node.id) in searched)), None) \
            if at is not None else None
        return (node.id, node.section, ["phrase"]) if node is not None else None
    together = passage_naming(context, by_surname(names[0]), until, searched, also=by_surname(names[1]))
    return (together.id, together.section, ["phrase"]) if together is not None else None


def _death_entry(plan: Plan, context, until: int | None, searched):
    """For a question asking how someone dies, or what becomes of them, the
    passage where the book last names them beside a word of death
    (deaths.py): (node id, section, sources); else None."""
    name = death_asked(plan.question, context.writes_as_name) or fate_asked(plan.question, context.writes_as_name)
    told = last_told_dead(context, name, until, searched, killer_asked(plan.question)) if name else None
    return (told[0].id, told[0].section, ["phrase"]) if told is not None else None


def _killings(plan: Plan, context, until: int | None, searched) -> list:
    """For a question asking whom someone killed, up to `_KILLING_SLOTS`
    passages telling it, in book order, those naming another person first
    (the one killed), as ranking entries; none for any other question."""
    killer = victims_asked(plan.question, context.writes_as_name)
    if killer is None:
        return []
    told = told_killing(context, killer, until, searched)
    told.sort(key=lambda found: not names_another_person(context.book.text[found[1]:found[2]], killer,
                                                         context.names_a_person))
    nodes = list(dict.fromkeys(node.id for node, _, _ in told))[:_KILLING_SLOTS]
    return sorted(((node_id, context.section_of.get(node_id), ["phrase"]) for node_id in nodes),
                  key=lambda entry: context.start_of.get(entry[0], 0))


def _ties(plan: Plan, context, until: int | None, searched) -> list:
    """For a question asking how two people are related, the passages
    telling what one is to the other (relationships.py), as ranking
    entries; none for any other question."""
    pair = relationship_asked(plan.question, context.writes_as_name)
    if pair is None:
        return []
    return [(node.id, node.section, ["phrase"])
            for node, _, _ in sentences_telling_the_tie(context, pair, until, searched)]


def _marriage_entry(plan: Plan, context, until: int | None, searched):
    """For a question asking whom someone marries, the passage where the
    book last tells their wedding or engagement (marriages.py): (node id,
    section, sources); else None."""
    name = marriage_asked(plan.question, context.writes_as_name)
    told = last_told_married(context, name, until, searched) if name else None
    return (told[0].id, told[0].section, ["phrase"]) if told is not None else None


def _first_told_entry(plan: Plan, context, until: int | None, searched):
    """For a question asking how someone changes, the first passage saying
    who they are in a few words (changes.py), where it is in the book's
    first third (it says what they were): (node id, section, sources);
    else None."""
    name = change_asked(plan.question, context.writes_as_name)
    first = passage_naming(context, name, until, searched, holding=says_what_they_were(name)) if name else None
    if first is None or (first.start or 0) > len(context.book.text) / 3:
        return None
    return first.id, first.section, ["phrase"]


def _change_entry(plan: Plan, context, until: int | None, searched):
    """For a question asking how someone changes, the passage where the book
    last tells them changed, else last names them (changes.py): (node id,
    section, sources); else None."""
    name = change_asked(plan.question, context.writes_as_name)
    told = where_they_are_left(context, name, until, searched) if name else None
    return (told[0].id, told[0].section, ["phrase"]) if told is not None else None


def passage_naming(context, name: str, until: int | None, searched, last: bool = False,
                   also: str | None = None, holding: Callable[[str], bool] | None = None) -> Node | None:
    """The first (or `last`) passage that names someone as written (of the
    sections `searched`, read before `until`, not one the position cuts
    through), and `also` another, if given (where two first meet), and
    where `holding` is given, whose text it holds."""
    cut = {node.id for node in context.passages_cut_by(until)}
    naming = sorted((node_id for node_id, _ in context.search.phrase(name, levels=[1], k=_NAMED_PASSAGES,
                                                                      sections=searched)
                     if node_id not in cut and (until is None or context.start_of.get(node_id, 0) < until)),
                    key=lambda node_id: context.start_of.get(node_id, 0), reverse=last)
    # The word index is stemmed ("Belle" finds the church's bell): the first
    # passage that names them as written.
    written = [as_written(name).search] + ([as_written(also).search] if also else []) + ([holding] if holding else [])
    for start in range(0, len(naming), 8):
        batch = sorted(context.search.nodes(naming[start:start + 8]), key=lambda node: node.start or 0, reverse=last)
        first = next((node for node in batch if all(test(node.text) for test in written)), None)
        if first is not None:
            return first
    return None


def _ranked_on_what_was_read(node: Node, until: int, lists, part: PlanPart, context):
    """The lists with the passage a reader's position cuts through ranked on
    its read part only, so nothing after the position counts: a lexical list
    keeps it only if every word it matched there is in that part; the dense
    list scores that part afresh. (Summaries route through sections read to
    their end, which this passage's is not.)"""
    read_text = context.book.text[node.start:until]
    read = {stem(word) for word in content_words(read_text)}
    whole = {stem(word) for word in content_words(node.text)}
    kept = []
    for name, weight, ranked, matched_on in lists:
        if all(node_id != node.id for node_id, _ in ranked):
            kept.append((name, weight, ranked, matched_on))
            continue
        if matched_on is not None:
            if not {stem(word) for word in content_words(matched_on)} & whole <= read:
                ranked = [(node_id, score) for node_id, score in ranked if node_id != node.id]
        elif name == "dense":
            ranked = [(node_id, score) for node_id, score in ranked if node_id != node.id]
            vector = context.read_part_vector(node, until)
            if vector is not None:
                similarity = float(vector @ context.search.query_vector(part.text))
                ranked = sorted(ranked + [(node.id, similarity)], key=lambda item: -item[1])
        kept.append((name, weight, ranked, matched_on))
    return kept


def candidate_anchors(part: PlanPart) -> list[str]:
    """The plan's anchors, and every two- and three-word run of the part's
    content words: whichever the book really uses will match as a phrase."""
    found = list(part.anchors)
    run: list[str] = []
    for token in words(part.text) + [""]:
        if token and token.lower().strip("'") not in STOPWORDS and len(token) > 1:
            run.append(token.strip("'\u2018\u2019"))
            continue
        for size in (3, 2):
            for start in range(0, len(run) - size + 1):
                found.append(" ".join(run[start:start + size]))
        run = []
    return list(dict.fromkeys(found))[:12]


def _blend(part_ranking, whole_ranking, weight: float = 0.5):
    """A part's ranking nudged by the whole question's (RRF of the two)."""
    scores: dict[str, float] = {}
    info: dict[str, tuple] = {}
    for ranking, factor in ((part_ranking, 1.0), (whole_ranking, weight)):
        for rank, (node_id, section, sources) in enumerate(ranking, start=1):
            scores[node_id] = scores.get(node_id, 0.0) + factor / (RRF_K + rank)
            info.setdefault(node_id, (section, sources))
    return [(node_id, info[node_id][0], info[node_id][1]) for node_id in sorted(scores, key=lambda n: -scores[n])]


def baseline(search, question: str, method: str, budget: int) -> list[Node]:
    """Plain RAG: one similarity ranking, top-k passages."""
    if method == "bm25":
        ranked = search.bm25(question, levels=[1], k=budget)
        return search.nodes([node_id for node_id, _ in ranked])
    if method == "dense":
        ranked = search.dense(question, levels=[1], k=budget)
        return search.nodes([node_id for node_id, _ in ranked])
    return [hit.node for hit in search.search(question, levels=[1], k=budget)]
