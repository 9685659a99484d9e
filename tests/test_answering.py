"""Answering: plans and their guard, retrieval per part, the evidence digest,
citations, and a real answer from the embedded default model."""

from __future__ import annotations

import json
import os
import pty
import re
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from engine.answer.answering import adds_nothing, answer_messages, resolve_citations
from engine.answer_cli import DRAFT_RESTATED
from engine.answer.planning import GLOBAL, LOCAL, MID, code_plan, content_words, guard_plan, stem
from engine.answer.retrieval import MAX_PER_SECTION, Features, retrieve
from engine.answer.session import AnswerSession
from engine.index.store import Node
from engine.llm import CancelToken, ModelSettings, open_embedder, open_generator

ROOT = Path(__file__).resolve().parent.parent
CHARACTERS = [{"name": "Black Beauty", "also_called": ["Darkie", "Beauty"]}, {"name": "Duchess", "also_called": []}]


def test_code_plan_splits_clauses_and_keeps_the_questions_words():
    plan = code_plan("Which garment does Scrooge's clerk wear in every appearance, and how do its mentions "
                     "track his family's fortunes?")
    assert plan.path == "code" and len(plan.parts) == 2
    assert plan.parts[0].several and not plan.parts[1].several
    assert plan.scope == MID
    # A number word with a capital inside the clause is part of a name, not a count.
    assert [code_plan(q).parts[0].several for q in (
        "How does the old gentleman's visit to Three Chimneys come about?", "Three times he came: why?",
        "What do the three spirits show Scrooge?")] == [False, True, True]
    for part in plan.parts:
        for anchor in part.anchors:
            assert anchor in plan.question
    quoted = code_plan('What does the phrase "little brown book" come to mean?')
    assert "little brown book" in quoted.parts[0].anchors and quoted.scope == LOCAL
    possessive = code_plan("What does John's angry retort about a boy's blunder explain?")
    assert possessive.parts[0].anchors[:2] == ["John's angry retort", "boy's blunder explain"]  # not quotes
    assert "the old lady" in code_plan("Why does he call it 'the old lady'?").parts[0].anchors
    assert code_plan("How is the whole book framed by its first and last scenes?").scope == GLOBAL
    named = code_plan("Where does Darkie first see a hunt?", CHARACTERS)
    assert named.parts[0].names == ["Black Beauty", "Beauty"]
    # "later", "then", "finally" start a clause after a comma or "and", not inside one.
    assert [part.text for part in code_plan("What does Buck learn from Curly's death, and how does that lesson play "
                                            "out in his later fights?").parts] == [
        "What does Buck learn from Curly's death", "how does that lesson play out in his later fights"]
    assert [part.text for part in code_plan("Which warning is repeated by Holmes and later recalled by Sir "
                                            "Henry?").parts] == ["Which warning is repeated by Holmes",
                                                                 "later recalled by Sir Henry"]
    assert [part.text for part in code_plan("What does the narrator later learn about the black horse?").parts] == [
        "What does the narrator later learn about the black horse"]
    # Words of when, like "later" and "then", are no handle on a passage.
    assert content_words("What does she finally realise afterwards, and eventually do?") == ["realise"]


def test_words_are_stemmed_as_the_word_index_stems_them():
    # Whether a sentence holds a question's words (the digest, a claim's
    # support, a draft that restates the question) rests on these.
    assert stem("lived") == stem("live") == stem("living") == stem("Lives")
    assert stem("horses") == stem("Horse") and stem("studies") == stem("study") and stem("broke") != stem("brook")
    assert stem("Scrooge's") == stem("scrooge")


def test_the_guard_keeps_what_the_question_supports():
    question = "Who owned Darkie before the hunt, and what happened to the hare?"
    good = {"scope": "MID", "parts": [
        {"question": "Who owned Darkie before the hunt", "anchors": ["the hunt", "a farmer"], "several": False},
        {"question": "what happened to the hare", "anchors": ["hare"], "several": False, "people": ["Darkie"]}]}
    plan = guard_plan(good, question, CHARACTERS)
    assert plan.path == "model" and plan.scope == MID
    assert plan.parts[0].anchors == ["the hunt"]  # "a farmer" is not the question's
    assert "anchor not in the question: a farmer" in plan.rejected
    assert plan.parts[1].names == ["Black Beauty", "Beauty"]
    for bad in (
        None,
        {"scope": "LOCAL", "parts": []},
        {"scope": "MID", "parts": [{"question": "Look in Chapter 12 for the farmer", "anchors": [], "several": False}]},
        {"scope": "MID", "parts": [{"question": "Who ownd Darkie befor the hunnt", "anchors": [], "several": False}]},
        {"scope": "MID", "parts": [{"question": question, "anchors": ["LOCAL", "Chapter 3"], "several": False}] * 3},
    ):
        fallback = guard_plan(bad, question, CHARACTERS)
        assert fallback.path == "code" and fallback.rejected
        assert [p.text for p in fallback.parts] == [p.text for p in code_plan(question).parts]


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    from engine.store import Library

    library = Library(tmp_path_factory.mktemp("answer-home"))
    book_id = library.import_book(ROOT / "tests" / "fixtures" / "black-beauty-excerpt.txt").book_id
    answering = AnswerSession(library, book_id, generator=open_generator(ModelSettings()),
                              embedder=open_embedder(ModelSettings()))
    answering.ensure_indexed()
    return answering


def test_retrieval_respects_the_budget_the_section_cap_and_the_parts(session):
    question = "What did the old horse say about the hare, and how was the young horse broken in with a bit?"
    plan = session.plan(question)
    assert len(plan.parts) == 2
    chapters = len(session.context.book.sections)
    assert chapters == 3
    for budget in (4, 6, 12):
        found = retrieve(plan, session.context, budget=budget)
        passages = found.passages
        assert len(passages) <= budget
        counts = {}
        for node in passages:
            counts[node.section] = counts.get(node.section, 0) + 1
        if budget <= MAX_PER_SECTION * chapters:
            assert max(counts.values()) <= MAX_PER_SECTION
        else:
            # Three chapters cannot take 12 passages two at a time: the budget
            # is spent all the same (11 of the excerpt's 12 passages), still
            # spread over the chapters.
            assert len(passages) > MAX_PER_SECTION * chapters
            assert max(counts.values()) <= -(-budget // chapters)
        assert all(part.passages for part in found.parts)
        book = session.context.book
        assert all(node.text == book.text[node.start:node.end] for node in passages)
    found = retrieve(plan, session.context, budget=6)
    assert {2, 3} <= set(found.sections)
    several = session.plan("In which chapters does the horse hear each of the three warnings again and again?")
    assert several.parts[0].several
    result = retrieve(several, session.context, budget=6)
    sections = [node.section for node in result.parts[0].passages]
    assert len(sections) == len(set(sections))  # one per section for "several"
    assert result.seconds < 0.5
    off = retrieve(plan, session.context, budget=6, features=Features(anchors=False, rare_words=False))
    assert off.passages


def test_a_book_without_chapters_gets_the_whole_budget(tmp_path):
    """A text with no headings is one section: the cap of two passages a
    section left it two passages of evidence out of 12."""
    from engine.store import Library

    text = (ROOT / "tests" / "fixtures" / "black-beauty-excerpt.txt").read_text()
    body = re.sub(r"^0\d [A-Z].*$", "", text[text.index("01 My Early Home"):], flags=re.M)
    (tmp_path / "no-chapters.txt").write_text(body)
    library = Library(tmp_path / "home")
    book_id = library.import_book(tmp_path / "no-chapters.txt").book_id
    answering = AnswerSession(library, book_id, generator=None, embedder=open_embedder(ModelSettings()))
    answering.ensure_indexed()
    assert len(answering.context.book.sections) == 1
    passages = len(answering.context.section_of)
    for budget in (6, 12):
        found = answering.retrieve("What did the old horse say about the hare?", budget=budget)
        assert len(found.passages) == min(budget, passages) > MAX_PER_SECTION
    several = answering.retrieve("In which chapters does the horse hear each of the warnings again and again?",
                                 budget=6)
    assert several.plan.parts[0].several and len(several.passages) == 6
    early = answering.retrieve("What did the old horse say about the hare?", budget=6,
                               until=answering.context.book.text.index("found a hare"))
    assert len(early.passages) > MAX_PER_SECTION


def test_a_passage_the_readers_position_cuts_through_ranks_on_its_read_part_only(session):
    """Words after the position do not lift the passage it falls in: for a
    reader stopped just before the hare is first named, no list that matched
    on "hare" finds that passage; read to its end, they do."""
    context = session.context
    book = context.book
    until = book.text.index("found a hare")
    cut = context.passages_cut_by(until)
    assert cut and all(node.start < until < node.end for node in cut)
    assert all("hare" not in book.text[node.start:until].lower() for node in cut)
    cut_ids = {node.id for node in cut}
    question = "What happened to the hare?"

    def lexical_finds(retrieval) -> set[str]:
        return {node_id for evidence in retrieval.parts for node_id, lists in evidence.sources.items()
                if node_id in cut_ids and set(lists) & {"anchor", "rare", "bm25"}}

    read_through = session.retrieve(question, budget=6, until=max(node.end for node in cut))
    assert lexical_finds(read_through)
    found = session.retrieve(question, budget=6, until=until)
    assert not lexical_finds(found)
    assert all(node.end <= until for node in found.passages)


def test_a_question_so_far_uses_nothing_after_the_readers_position(session):
    """A reader halfway through Chapter 2 asks about the hunt and the breaking
    in (Chapter 3): nothing after the position is searched, quoted, listed in
    the prompt's map of the book or named through the characters card."""
    context = session.context
    book = context.book
    hunt = book.sections[1]
    until = hunt.body_start + (hunt.end - hunt.body_start) // 2
    question = "What did the old horse say about the hare, and how was the young horse broken in with a bit?"
    whole = session.retrieve(question, budget=6)
    assert any(node.end > until for node in whole.passages)  # the whole book's evidence goes past it
    found = session.retrieve(question, budget=6, until=until)
    assert found.until == until and found.passages
    assert all(node.end <= until for node in found.passages)
    begun = sum(1 for start in context.start_of.values() if start < until)
    assert len(found.passages) == min(6, begun)  # the budget is spent on what has been read
    for node in found.passages:  # the passage the position cuts through is kept up to it
        assert node.text == book.text[node.start:node.end]
    assert any(node.end == until for node in found.passages)
    passages = context.store.nodes(kind="passage")
    cut = next(node for node in passages if node.start < until < node.end)
    unread = next(node for node in passages if node.start >= until)
    _, citations, dropped = resolve_citations(f"He said so [{cut.id}], later [{unread.id}].", context, found)
    assert dropped == 1 and [citation.passage_id for citation in citations] == [cut.id]
    assert (citations[0].end, citations[0].quote) == (until, book.text[cut.start:until])
    assert 2 in found.sections and 3 not in found.sections
    # A part asking for several instances still spends the budget when few chapters are behind the reader.
    first_chapter = book.sections[0].end
    several = session.plan("In which chapters does the horse hear each of the three warnings again and again?")
    assert several.parts[0].several
    early = retrieve(several, context, budget=6, until=first_chapter)
    begun_early = sum(1 for start in context.start_of.values() if start < first_chapter)
    assert len(early.passages) == min(6, begun_early) > 2
    assert all(line.end <= until for line in session.digest(found))
    system = answer_messages(context, found)[0].content
    assert "Chapter 2: The Hunt" in system and "My Breaking In" not in system and "read so far: 2 of 3" in system
    assert "My Breaking In" in answer_messages(context, whole)[0].content
    # Names the book has not used yet are not put into the queries.
    first_named = book.text.index("Darkie")
    card = [{"name": "Darkie", "also_called": ["Black Beauty"]}, {"name": "Ginger", "also_called": []}]
    knowing = replace(context, cards={"characters": Node(id="card:characters", level=3, kind="card", section=None,
                                                          seq=0, text="", data={"characters": card})})
    assert knowing.characters_known_by(None) == card
    assert knowing.characters_known_by(first_named) == [{"name": "Black Beauty", "also_called": []}]  # the title
    assert knowing.characters_known_by(first_named + 10) == [{"name": "Darkie", "also_called": ["Black Beauty"]}]
    # The result says where the reader was; the CLI's section number maps to a section's end.
    limit = context.reading_limit(until)
    assert limit == {"until": until, "section": 2, "label": "Chapter 2: The Hunt", "at_the_reader": False}
    assert context.reading_limit(None) is None


def test_what_just_happened_recalls_the_pages_before_the_readers_place(session):
    from engine.answer.overview import RECENT, asks_what_just_happened
    from engine.errors import ChapterhouseError

    for asked in ("What just happened?", "What did I just read?", "Where was I?", "Recap the last few pages",
                  "what has just happened"):
        assert asks_what_just_happened(asked), asked
    assert not asks_what_just_happened("What happened to the hare?")
    book, context = session.context.book, session.context
    place = book.text.index("found a hare")  # in Chapter 2, the hunt
    # It had been the whole book's outline, its opening and its end: a spoiler, and no recap.
    found = session.retrieve("What just happened?", at=place)
    assert found.overview == RECENT and found.until == place
    before = sorted((start, node_id) for node_id, start in context.start_of.items() if start < place)
    assert [node.id for node in found.passages] == [node_id for _, node_id in before[-2:]]
    assert all(node.end <= place for node in found.passages)
    lines = session.digest(found)  # the last lines read
    assert lines and all(line.end <= place for line in lines) and place - lines[-1].end < 100
    # Not a sentence the place cuts short: half of "\u201cThey have found a hare,\u201d said my mother,
    # \u201cand if they come this way..." had been quoted.
    inside = session.digest(session.retrieve("What just happened?", at=place + 50))
    assert not any("found a hare" in line.text for line in inside) and inside[-1].end <= place
    # A reading limit before the place is kept; without a place or a limit, said so in one line.
    limited = session.retrieve("Where was I?", at=place, until=book.sections[1].start)
    assert all(node.end <= book.sections[1].start for node in limited.passages)
    with pytest.raises(ChapterhouseError, match="what just happened\u201d is told from where the reader is"):
        session.retrieve("What just happened?")


def test_a_question_about_one_scene_keeps_rank_order_within_its_chapter(session):
    # The hunt's passages crowd the top of the ranking: the second pick stays
    # in that chapter instead of being pushed out by a weaker one elsewhere.
    plan = session.plan("Who was riding the horse that fell at the brook?")
    assert plan.scope == LOCAL
    found = retrieve(plan, session.context, budget=4)
    assert [node.section for node in found.ranked][:2] == [2, 2]
    spread = retrieve(session.plan("What did the old horse say about the hare, and how was the young horse broken "
                                   "in with a bit?"), session.context, budget=4)
    assert len({node.section for node in spread.ranked[:3]}) == 3


def test_a_question_about_one_scene_leads_with_the_passage_that_holds_its_words_best(session):
    # The fusion ranks another passage of the first chapter above it (the
    # embedder prefers that one); the words' best passage has a slot of its own, first.
    question = "What did the master give the colt?"
    found = session.retrieve(question, budget=6)
    assert found.plan.scope == LOCAL
    best_by_words = session.context.search.bm25(question, levels=[1], k=1)[0][0]
    assert found.ranked[0].id == best_by_words and "words" in found.parts[0].sources[best_by_words]
    # Not for a question of several parts: their turns share the budget as before.
    spread = session.retrieve("What did the old horse say about the hare, and how was the young horse broken in "
                              "with a bit?", budget=6)
    assert not any("words" in sources for sources in spread.parts[0].sources.values())


def test_a_selection_is_quoted_into_the_question_by_its_own_opening_words():
    from engine.answer.selection import about_question, opening, part_heading, snippet

    selected = "\u201cI shall love it, as long as I live!\u201d cried Scrooge, patting it with his hand."
    # Whole words, at most 60 characters, its own quotation marks left out (they would end the quote early).
    assert snippet(selected) == "I shall love it, as long as I live! cried Scrooge, patting"
    plan = code_plan(about_question("Why does he say this?", selected))
    assert "I shall love it, as long as I live! cried Scrooge, patting" in plan.parts[-1].anchors
    assert opening("Her name was Duchess.") == "Her name was Duchess."
    # Above its evidence, the part the quote became reads as what it is.
    parts = code_plan(about_question("Why does Scrooge praise the knocker?", selected)).parts
    assert [part_heading(part.text) for part in parts] == ["Why does Scrooge praise the knocker",
                                                          "The passage you selected"]
    assert opening(selected) == "I shall love it, as long as I live!\u2026"


def test_a_question_about_a_selected_passage_leads_with_it(session):
    from engine.answer.selection import snippet
    from engine.errors import ChapterhouseError
    from engine.index.store import PASSAGE

    question = "Why does he say this?"
    plain = {node.id for node in session.retrieve(question, budget=4).passages}
    passages = sorted(session.context.store.nodes(kind=PASSAGE), key=lambda node: node.start)
    chosen = next(node for node in passages[len(passages) // 2:] if node.id not in plain)
    start, end = session.context.sentences(chosen)[1]
    text = session.indexer.book.text
    found = session.retrieve(question, budget=4, focus=(start, end))
    pinned = [node_id for evidence in found.parts for node_id, sources in evidence.sources.items()
              if sources == ["selection"]]
    # One passage for a sentence, though overlapping passages hold it twice: the one it is nearest the middle of.
    assert pinned == [found.ranked[0].id] and len(found.passages) <= 4
    assert found.ranked[0].start <= start and end <= found.ranked[0].end
    # The question is planned with the selection's opening words quoted: an anchor on the book's own words.
    assert found.plan.question == f"{question} (about \u201c{snippet(text[start:end])}\u201d)"
    assert any(snippet(text[start:end]) in part.anchors for part in found.plan.parts)
    # A selection across three passages keeps the two that hold most of it.
    first, middle, last = next((passages[i], passages[i + 1], passages[i + 2]) for i in range(len(passages) - 2)
                               if passages[i].section == passages[i + 2].section)
    wide = session.retrieve(question, budget=6, focus=(first.end - 10, last.end))
    assert [node.id for node in wide.ranked[:2]] == [middle.id, last.id]  # of the first, only its last 10 characters
    assert "selection" not in str([wide.parts[i].sources.get(node.id) for i in range(len(wide.parts))
                                   for node in wide.ranked[2:]])
    # With a reader's position before it, the selected passage (in front of the reader) is used whole,
    # and cited, while nothing else after the position is.
    limited = session.retrieve(question, budget=4, focus=(start, end), until=start)
    held = limited.ranked[0]
    assert held.start <= start and end <= held.end
    assert all(node.end <= start for node in limited.passages if node.id != held.id)
    _answer, citations, dropped = resolve_citations(f"Because of this [{held.id}].", session.context, limited)
    assert dropped == 0 and citations[0].end == held.end
    with pytest.raises(ChapterhouseError, match=r"^Black Beauty: characters \d+-\d+ are not text of the book"):
        session.retrieve(question, focus=(len(text), len(text) + 5))


def test_a_collections_citations_name_its_stories_by_their_titles(tmp_path):
    from engine.importer import parse_book
    from engine.paths import sample_book_path
    from engine.store import Library

    carol = sample_book_path().read_text(encoding="utf-8")
    first = carol[carol.index("STAVE I:  MARLEY'S GHOST"):carol.index("STAVE II:  THE FIRST")]
    second = carol[carol.index("STAVE II:  THE FIRST"):carol.index("STAVE III:  THE SECOND")]
    # Two stories as a collection prints them ("Adventure I. Silver Blaze"): a reader knows them by their titles.
    stories = (f"TWO STORIES\n\nby Charles Dickens\n\n\nAdventure I. The Partner's Ghost\n\n"
               f"{first.split(chr(10), 1)[1]}\n\nAdventure II. The \u201c_First_\u201d Spirit\n\n"
               f"{second.split(chr(10), 1)[1]}")
    (tmp_path / "stories.txt").write_text(stories, encoding="utf-8")
    library = Library(tmp_path / "home")
    stories_session = AnswerSession(library, library.import_book(tmp_path / "stories.txt").book_id,
                                    embedder=open_embedder(ModelSettings()))
    stories_session.ensure_indexed()
    book = stories_session.context.book
    # A plain-text edition's underscores for italics are no part of a title shown ("The “_Gloria Scott_”").
    assert book.cited_labels() == {1: "Adventure I: The Partner's Ghost",
                                   2: "Adventure II: The \u201cFirst\u201d Spirit"}
    lines = stories_session.digest(stories_session.retrieve("Who is Marley?"))
    assert lines and {line.label for line in lines} <= set(book.cited_labels().values())
    # A novel's chapters are cited by their numbers alone.
    assert parse_book(sample_book_path()).cited_labels() == {1: "Stave I", 2: "Stave II", 3: "Stave III",
                                                             4: "Stave IV", 5: "Stave V"}


def test_the_chapters_a_question_names_are_found_by_their_numbers(tmp_path):
    from engine.answer.named import chapter_not_in_book, sections_named_in
    from engine.importer import parse_book
    from engine.paths import sample_book_path

    carol = parse_book(sample_book_path())  # five staves
    assert sections_named_in("Summarize Stave 3", carol) == ([3], True)
    assert sections_named_in("What happens in chapter three?", carol) == ([3], True)  # a stave by any name
    assert sections_named_in("What happens in Staves II and III?", carol) == ([2, 3], True)
    assert sections_named_in("Summarise staves 2-4 briefly", carol) == ([2, 3, 4], True)
    assert sections_named_in("Give me a recap of stave 3", carol) == ([3], True)  # "give" had been a subject
    assert sections_named_in("What happens in the last stave?", carol) == ([5], True)
    # A run from either end: "the first three chapters" had got the whole book's outline.
    assert sections_named_in("Give me a summary of the first three chapters", carol) == ([1, 2, 3], True)
    assert sections_named_in("Summarize the last 2 staves", carol) == ([4, 5], True)
    assert sections_named_in("What was the last thing that happened in stave 2?", carol) == ([2], True)
    assert sections_named_in("What does the first chapter tell us about Scrooge?", carol) == ([1], False)
    assert sections_named_in("How does the storm in stave 3 foreshadow the ending?", carol) == ([3], False)
    assert sections_named_in("Who is Marley?", carol) == ([], False)
    assert sections_named_in("What happens in chapter 9?", carol) == ([], False)  # no such stave
    # Said so in one line: its words alone ("what happens") got the whole book's outline.
    assert chapter_not_in_book("What happens in stave 9?", carol) == (
        "A Christmas Carol: A Ghost Story of Christmas: there is no stave 9 in this book, which runs from Stave I to "
        "Stave V")
    assert chapter_not_in_book("Summarize chapters 4-6", carol).endswith("no chapter 6 in this book, which runs from "
                                                                        "Stave I to Stave V")
    assert "no chapter 12 in" in chapter_not_in_book("What happens in the twelfth chapter?", carol)
    # Places in digits, and a chapter 0 (it had been taken for no number, so the question for the whole book).
    assert sections_named_in("What happens in the 3rd stave?", carol) == ([3], True)
    assert "no stave 9 in" in chapter_not_in_book("Summarize the 9th stave", carol)
    for nothing in ("What happens in chapter 0?", "What happens in chapters 0-2?"):
        assert "there is no chapter 0 in this book" in chapter_not_in_book(nothing, carol), nothing
    for fine in ("Summarize Stave V", "What happens in the last stave?", "What happens in part one of the story?",
                 "Who is Marley?", "Does Scrooge read book 2 of his ledger?"):
        assert chapter_not_in_book(fine, carol) is None, fine
    # A book in parts: a chapter number alone is in each part; a part and a chapter, in that part.
    body = "Some words of the chapter go here, and more words follow them in a line.\n\n" * 30
    text = "A TALE OF PARTS\n\nby Nobody\n\n\n" + "".join(
        f"PART {part}.\n\n\n" + "".join(f"CHAPTER {chapter}.\n\n{body}\n\n" for chapter in ("I", "II", "III"))
        for part in ("I", "II"))
    (tmp_path / "parts.txt").write_text(text, encoding="utf-8")
    parts = parse_book(tmp_path / "parts.txt")
    assert [section.label for section in parts.sections][2:4] == ["Part I, Chapter III", "Part II, Chapter I"]
    assert sections_named_in("What happens in chapter 3?", parts) == ([3, 6], True)
    assert sections_named_in("Summarize Part 2, chapter 3", parts) == ([6], True)
    assert sections_named_in("What happens in part two?", parts) == ([4, 5, 6], True)
    # "The first part" of a book in parts is its Part I (it had been its first chapter), "the last part" its last.
    assert sections_named_in("Summarize the first part", parts) == ([1, 2, 3], True)
    assert sections_named_in("What happens in the last part?", parts) == ([4, 5, 6], True)
    assert sections_named_in("Summarize the 2nd part", parts) == ([4, 5, 6], True)
    assert sections_named_in("What happens in the first part of the story?", carol) == ([1], True)  # no parts
    assert chapter_not_in_book("What happens in part three?", parts).endswith(", which runs from Part I to Part II")
    # A number in words with a hyphen is one number, not a range ("Chapter Forty-Seven" of Little Women).
    text = "A TALE OF MANY\n\nby Nobody\n\n\n" + "".join(
        f"CHAPTER {number}\n\n{body}\n\n" for number in ("Twenty", "Twenty-One", "Twenty-Two"))
    (tmp_path / "many.txt").write_text(text, encoding="utf-8")
    many = parse_book(tmp_path / "many.txt")
    assert sections_named_in("Summarize chapter twenty-two", many) == ([3], True)
    assert chapter_not_in_book("Summarize chapter 19", many).endswith(
        ", which runs from Chapter Twenty to Chapter Twenty-Two")
    # A book of one section: no "Section 1 to Section 1".
    (tmp_path / "plain.txt").write_text("A PLAIN TALE\n\nby Nobody\n\n\n" + body, encoding="utf-8")
    assert chapter_not_in_book("What happens in chapter 2?", parse_book(tmp_path / "plain.txt")) == (
        "A Plain Tale: there is no chapter 2 in this book, which is not divided into chapters")


def test_the_chapters_a_question_names_are_found_by_their_titles(tmp_path):
    from engine.answer.named import ChapterTitles, sections_named_in
    from engine.importer import parse_book
    from engine.paths import sample_book_path

    carol = parse_book(sample_book_path())  # Stave I: Marley's Ghost ... Stave V: The End of It
    assert sections_named_in("Summarize Marley's Ghost", carol) == ([1], True)
    assert sections_named_in("What happens in \u201cThe End of It\u201d?", carol) == ([5], True)
    assert sections_named_in("What happens in the stave called The Last of the Spirits?", carol) == ([4], True)
    assert sections_named_in("In 'The Second of the Three Spirits', what does Scrooge see at the Cratchits'?",
                             carol) == ([3], False)
    assert sections_named_in("What does the last of the spirits show Scrooge?", carol) == ([4], False)
    assert sections_named_in("Who is Marley?", carol) == ([], False)
    # A title that is also what the book is about names its chapter only when
    # quoted or called so; bare, it is the subject of the question.
    body = "Some words of the chapter go here, and Ginger Bell reads on by the lamp.\n\n" * 20
    text = "A TALE OF TITLES\n\nby Nobody\n\n\n" + "".join(
        f"CHAPTER {number}. {title}\n\n{body}\n\n"
        for number, title in (("I", "The Old Mill"), ("II", "Ginger Bell"), ("III", "Rain at Night")))
    (tmp_path / "titles.txt").write_text(text, encoding="utf-8")
    titled = parse_book(tmp_path / "titles.txt")
    assert [section.title for section in titled.sections] == ["The Old Mill", "Ginger Bell", "Rain at Night"]
    assert {title.words: title.telling for title in ChapterTitles(titled).titles} == {
        ("old", "mill"): True, ("ginger", "bell"): False, ("rain", "at", "night"): True}
    assert sections_named_in("What does Ginger Bell read?", titled) == ([], False)
    assert sections_named_in("What happens in 'Ginger Bell'?", titled) == ([2], True)
    assert sections_named_in("Summarize the chapter called Ginger Bell", titled) == ([2], True)
    assert sections_named_in("What happens at the old mill?", titled) == ([1], True)
    assert sections_named_in("Who is at the old mill, and why?", titled) == ([1], False)
    assert sections_named_in("What happens in Rain at Night and in chapter 1?", titled) == ([1, 3], True)


def test_a_question_that_names_a_chapter_is_answered_from_it(session):
    from engine.errors import ChapterhouseError

    alone = session.retrieve("What happens in chapter 2?", budget=6)
    assert alone.within == [2] and {node.section for node in alone.passages} == {2}
    stopped = CancelToken()
    stopped.cancel()  # the evidence is what this is about, not the model's words
    result = session.ask("What happens in chapter 2?", budget=6, planner="code", cancel=stopped)
    assert result.within["sections"] == [2] and result.named is None and result.as_dict()["within"] == result.within
    # Beside a subject of its own: half the budget from the chapter first, then the whole book.
    question = "What did the old horse say about the hare in chapter 3?"
    beside = session.retrieve(question, budget=6)
    assert beside.within is None and beside.named == [3]
    assert [node.section for node in beside.ranked[:3]] == [3, 3, 3]
    assert {node.section for node in beside.ranked[3:]} != {3}
    assert 3 in {line.section for line in session.digest(beside)}  # the digest quotes the chapter named too
    assert session.retrieve("What did the old horse say about the hare?", budget=6).named is None
    # Past a reader's position: said in one line, as for a chapter picked.
    third = session.context.book.sections[2]
    with pytest.raises(ChapterhouseError, match="Chapter 3.* lies past the reading limit"):
        session.retrieve("Summarize chapter 3", budget=6, until=third.start - 1)
    assert session.retrieve(question, budget=6, until=third.start - 1).named is None  # not begun: not searched


def test_a_question_about_the_whole_book_gets_the_book_in_outline(session):
    from engine.answer.overview import asks_about_the_whole_book, overview_kind
    from engine.errors import ChapterhouseError

    for whole in ("What is this book about?", "Summarize the novel", "What's the plot?", "How does the story end?",
                  "Who is the main character of the story?", "Give me a synopsis of the whole story",
                  "Remind me of the plot", "Who's who in this book?",
                  # No passage says its theme by that word ("To a collector of fairy tales." had been quoted).
                  "What are the themes of the book?", "What is the moral of the story?",
                  "What lesson does the book teach?"):
        assert asks_about_the_whole_book(whole), whole
    assert overview_kind("Who's who in this book?") == "people"  # it had been the book's outline
    for not_whole in ("What happens to him?", "What is it about?", "Who is Marley?", "What does the knocker mean?",
                      "What does \u201cBah! Humbug!\u201d mean?", "What is the moral of Marley's story?",
                      "Who is Will?"):
        assert not asks_about_the_whole_book(not_whole), not_whole
    # Asked with nothing before, "it" can only be the book ("it" meant the ends of a whale line);
    # "he" is still someone.
    assert asks_about_the_whole_book("How does it end?", alone=True)
    assert asks_about_the_whole_book("What is it about?", alone=True)
    assert not asks_about_the_whole_book("What happens to him?", alone=True)
    context = session.context
    openings = {section.ordinal: min((start, node_id) for node_id, start in context.start_of.items()
                                     if context.section_of[node_id] == section.ordinal)[1]
                for section in context.book.sections}
    outline = session.retrieve("What is this book about?", budget=6)
    assert outline.overview == "outline" and outline.plan.scope == "GLOBAL" and len(outline.passages) == 6
    assert set(openings.values()) <= {node.id for node in outline.passages}  # each chapter's opening
    assert [node.start for node in outline.passages] == sorted(node.start for node in outline.passages)
    # Its digest quotes the outline: lines of each chapter (of five spread from the first to the last, where there
    # are more), those holding most of the words that set it apart from the others.
    digest = session.digest(outline)
    assert len(digest) == 5 and [line.start for line in digest] == sorted(line.start for line in digest)
    assert {line.section for line in digest} == {1, 2, 3}  # three chapters: the other two lines from the longest
    assert all(line.passage_id in {node.id for node in outline.passages} for line in digest)
    ending = session.retrieve("How does the story end?", budget=3)
    last = max(context.start_of, key=context.start_of.get)
    assert ending.overview == "ending" and last in {node.id for node in ending.passages}
    # How it ends: the book's last sentences.
    assert session.digest(ending)[-1].end == max(end for _, end in context.sentences(context.store.node(last)))
    # Up to a reader's position: nothing after it, the outline of what has been read.
    second = context.book.sections[1]
    limited = session.retrieve("What is this book about?", budget=3, until=second.start + 200)
    assert limited.overview == "outline" and {node.section for node in limited.passages} == {1, 2}
    assert all(node.end <= second.start + 200 for node in limited.passages)
    # How it ends is refused in one line before its last chapter: the last pages read are not its ending.
    with pytest.raises(ChapterhouseError, match=r"^Black Beauty: its ending lies past the reading limit \(up to "
                                                r"Chapter 2[^\n]*$"):
        session.retrieve("How does the story end?", budget=3, until=second.start + 200)
    final = context.book.sections[-1]
    read_into_it = session.retrieve("How does the story end?", budget=3, until=final.start + 300)
    assert read_into_it.overview == "ending" and max(node.end for node in read_into_it.passages) == final.start + 300
    # A pronoun, a name or a chapter of its own, or a follow-up, is searched for as usual.
    assert session.retrieve("Why does the hare run in chapter 2?", budget=3).overview is None
    assert session.retrieve("What happens?", budget=3, after="Who was Dick?").overview is None
    assert session.retrieve("How does it end?", budget=3).overview == "ending"
    assert session.retrieve("How does it end?", budget=3, after="Who was Dick?").overview is None
    # "The first line", "the last words": the book's own first or last sentences (a search on "line"
    # and "words" had quoted chance lines), of the book or of a chapter named.
    first_sentence = context.sentences(context.store.node(openings[1]))[0]
    for question in ("What is the first line of the book?", "What is the opening sentence?",
                     "Quote the first paragraph"):
        opening = session.retrieve(question, budget=3)
        assert opening.overview == "opening", question
        assert (session.digest(opening)[0].start, session.digest(opening)[0].end) == first_sentence, question
    # One line where one is asked for ("the first line", "its last sentence"), else the first or last few.
    assert len(session.digest(session.retrieve("What is the first line of the book?", budget=3))) == 1
    assert len(session.digest(session.retrieve("Quote the first paragraph", budget=3))) == 3
    last_words = session.retrieve("What are the last words of the book?", budget=3)
    assert last_words.overview == "ending" and len(session.digest(last_words)) == 3
    assert session.digest(last_words)[-1].end == max(end for _, end in context.sentences(context.store.node(last)))
    [last_sentence] = session.digest(session.retrieve("What is the last sentence of the book?", budget=3))
    assert last_sentence.end == session.digest(last_words)[-1].end
    second_opening = session.retrieve("What is the first sentence of chapter 2?", budget=3)
    assert second_opening.within == [2] and second_opening.overview == "opening"
    assert (session.digest(second_opening)[0].start,
            session.digest(second_opening)[0].end) == context.sentences(context.store.node(openings[2]))[0]
    assert session.retrieve("What are the first words the old horse says?", budget=3).overview is None
    stopped = CancelToken()
    stopped.cancel()
    result = session.ask("Summarize the book", budget=6, planner="code", cancel=stopped)
    assert result.overview == "outline" and result.as_dict()["overview"] == "outline"


def test_an_outline_quotes_a_sentence_the_book_repeats_once_and_no_printers_note(tmp_path):
    from engine.store import Library

    # Each chapter opens with the same line: the outline had quoted it three times.
    refrain = "Here I must go back a little in my story, as old horses do."
    text = (ROOT / "tests" / "fixtures" / "three-chapters.txt").read_text()
    # After the story, a transcriber's notes and a printer's advertisement (A Study in Scarlet's "ending" had been
    # three sentences of its footnotes; Tarzan's, "...READ THE RETURN OF TARZAN").
    notes = ("\n\nORIGINAL TRANSCRIBER\u2019S NOTES:\n\n[Footnote 1: \u201cbridle\u201d: so in the original. The "
             "printer has left a gap in the text here.]\n\n[Footnote 2: A note on the plates of the first "
             "edition, which were lost.]\n\nFOR THE FURTHER ADVENTURES OF THE COLT READ THE SEQUEL\n")
    (tmp_path / "refrain.txt").write_text(re.sub(r"^(0\d [A-Z].*)$", rf"\1\n\n{refrain}", text, flags=re.M) + notes)
    library = Library(tmp_path / "home")
    answering = AnswerSession(library, library.import_book(tmp_path / "refrain.txt").book_id, generator=None,
                              embedder=open_embedder(ModelSettings()))
    answering.ensure_indexed()
    assert answering.context.book.text.count(refrain) == 3
    lines = answering.digest(answering.retrieve("What is this book about?", budget=6))
    assert {line.section for line in lines} == {1, 2, 3}
    assert [line.text for line in lines].count(refrain) <= 1 and len({line.text for line in lines}) == len(lines)
    ending = answering.digest(answering.retrieve("How does the story end?", budget=3))
    story_end = answering.context.book.text.index("ORIGINAL TRANSCRIBER")
    assert ending and all(line.end < story_end for line in ending) and "bridle" in ending[-1].text


def test_a_question_about_a_chapter_as_a_whole_gets_the_chapter_in_outline(session):
    from engine.answer.digest import bare_exchange
    from engine.answer.overview import asks_about_the_chapters
    from engine.errors import ChapterhouseError

    for whole in ("What happens here?", "Summarize this chapter", "How does it end?", "Who are the main characters?"):
        assert asks_about_the_chapters(whole), whole
    for searched in ("Why does he cry here?", "What does the old horse say?", "Who is Squire Gordon?"):
        assert not asks_about_the_chapters(searched), searched
    context = session.context
    in_order = sorted((start, node_id) for node_id, start in context.start_of.items() if context.section_of[node_id] == 2)
    # A search on "summarize" found chance lines; its evidence is the chapter from its start to its end.
    outline = session.retrieve("Summarize chapter 2", budget=6)
    assert outline.overview == "outline" and outline.within == [2] and len(outline.passages) == min(6, len(in_order))
    assert {node.section for node in outline.passages} == {2}
    assert outline.passages[0].id == in_order[0][1] and outline.passages[-1].id == in_order[-1][1]
    # Its digest: a telling line from each fifth of its evidence, in order.
    lines = session.digest(outline)
    assert len(lines) == 5 and [line.start for line in lines] == sorted(line.start for line in lines)
    assert {line.section for line in lines} == {2} and not any(bare_exchange(line.text) for line in lines)
    assert len({line.passage_id for line in lines}) >= 3
    # How it ends: its last pages, and its last sentences.
    ending = session.retrieve("How does chapter 2 end?", budget=3)
    assert ending.overview == "ending" and ending.passages[-1].id == in_order[-1][1]
    last = context.store.node(in_order[-1][1])
    assert session.digest(ending)[-1].end == max(end for _, end in context.sentences(last))
    # Under a reading limit, how chapters 2 and 3 end is refused before chapter 3 is begun, as the book's is.
    third = context.book.sections[2]
    with pytest.raises(ChapterhouseError, match=r"^Black Beauty: the end of Chapter 2 and Chapter 3 lies past the "
                                                r"reading limit \(up to Chapter 2[^\n]*$"):
        session.retrieve("How do chapters 2 and 3 end?", budget=3, until=third.start - 10)
    read_into_it = session.retrieve("How do chapters 2 and 3 end?", budget=3, until=third.start + 300)
    assert read_into_it.overview == "ending" and max(node.end for node in read_into_it.passages) == third.start + 300
    # Picked in the contents and asked "What happens here?": the same outline.
    assert [node.id for node in session.retrieve("What happens here?", budget=6, within=[2]).passages] == [
        node.id for node in outline.passages]
    # Something in it asked about: a search of it alone, as before.
    searched = session.retrieve("What did the old horse say about the hare?", budget=6, within=[2])
    assert searched.overview is None and searched.within == [2]


def test_a_question_about_one_chapter_searches_only_it_and_spends_the_budget_there(session):
    from engine.errors import ChapterhouseError

    question = "What does the old horse say?"
    whole = session.retrieve(question, budget=6)
    assert len({node.section for node in whole.passages}) > 1
    last = len(session.context.book.sections)
    found = session.retrieve(question, budget=6, within=[last])
    assert {node.section for node in found.passages} == {last}
    in_section = sum(1 for section in session.context.section_of.values() if section == last)
    assert len(found.passages) == min(6, in_section) > MAX_PER_SECTION  # the per-section cap is lifted there
    # The chapter is named inside the question, not made a part of the plan of its own.
    name = session.context.book.sections[last - 1].display_name
    assert found.plan.question == f"What does the old horse say, in {name}?" and len(found.plan.parts) == 1
    # Several chapters: the budget is spread over them, and they are named by their headings.
    sections = session.context.book.sections
    both = session.retrieve(question, budget=6, within=[last, 1])
    assert {node.section for node in both.passages} == {1, last} and len(both.passages) == 6
    assert both.within == [1, last]
    assert both.plan.question == f"What does the old horse say, in {sections[0].label} and {sections[-1].label}?"
    # With a reader's position before a chapter, nothing of it is used; before
    # all of those asked about, the question is refused in one line (an answer
    # with no evidence would not say why).
    before = sections[last - 1].start
    assert {node.section for node in session.retrieve(question, budget=6, within=[1, last], until=before).passages} \
        == {1}
    reading = session.context.reading_limit(before)["label"]
    with pytest.raises(ChapterhouseError, match=rf"^Black Beauty: {re.escape(name)} lies past the reading limit "
                                                rf"\(up to {re.escape(reading)}\): nothing there may be used"):
        session.retrieve(question, budget=6, within=[last], until=before)
    with pytest.raises(ChapterhouseError, match=rf"^Black Beauty: section {last + 1}: the book has sections 1 to"):
        session.retrieve(question, within=[last + 1])
    # Named in the question: refused alike, with the chapters the book has.
    with pytest.raises(ChapterhouseError, match=rf"^Black Beauty: there is no chapter 9 in this book, which runs from "
                                                rf"Chapter 1 to Chapter {last}$"):
        session.retrieve("What happens in chapter 9?")
    # Named by where the reader is (`at`): "this chapter" had got the whole book's outline.
    in_two = (sections[1].start + sections[1].end) // 2
    assert session.retrieve("Summarize this chapter", budget=6, at=in_two).within == [2]
    assert session.retrieve("What happened in the previous chapter?", budget=6, at=in_two).within == [1]
    beside = session.retrieve("What does the old horse say about the hare in this chapter?", budget=6, at=in_two)
    assert beside.within is None and beside.named == [2]
    assert session.retrieve("What is this book about?", budget=6, at=in_two).overview == "outline"  # the whole book
    with pytest.raises(ChapterhouseError, match=r"^Black Beauty: there is no chapter after Chapter 3"):
        session.retrieve("What happens in the next chapter?", at=sections[-1].start)
    with pytest.raises(ChapterhouseError, match="\u201cthis chapter\u201d is the one open in the reader"):
        session.retrieve("Summarize this chapter")  # no place given: the command line
    # A question asking for no spoilers is answered from the text before the
    # reader's place, whatever the setting (it got the whole book in outline).
    so_far = session.retrieve("What has happened so far?", budget=6, at=in_two)
    assert so_far.until == in_two and so_far.overview == "outline" and so_far.plan.question == "What has happened?"
    assert so_far.passages and all(node.start < in_two for node in so_far.passages)
    assert {node.section for node in so_far.passages} == {1, 2}
    # At a chapter's heading the reader has read the chapter before (it said "the opening pages").
    assert session.context.reading_limit(sections[2].start)["section"] == 2
    with pytest.raises(ChapterhouseError, match="its ending lies past the reading limit"):
        session.retrieve("How does it end? No spoilers", at=in_two)
    with pytest.raises(ChapterhouseError, match="\u201cso far\u201d is up to where the reader is"):
        session.retrieve("What has happened so far?")


def test_a_follow_up_takes_its_pronouns_as_the_earlier_question_named():
    from engine.answer.followup import earlier_question, follow_up_question, leans_on_earlier, subjects_of

    # A question leans on the one before when it has a personal pronoun and names nobody.
    assert leans_on_earlier("What becomes of him in the end?")
    assert leans_on_earlier("why do they leave?")
    assert not leans_on_earlier("Why does Mr. Darcy dislike her?")  # a name of its own
    assert not leans_on_earlier("What does \u201cBah! Humbug!\u201d mean to him?")  # a quoted phrase
    assert not leans_on_earlier("What does it mean?")  # "it" is too common to lean on anyone
    # The subject: names as written (a title's full stop, no possessive), quoted phrases,
    # and the characters card's names however typed.
    assert subjects_of("Why does Mr. Darcy dislike Elizabeth?") == ["Mr. Darcy", "Elizabeth"]
    assert subjects_of("Marley's ghost: what did it say?") == ["Marley"]
    assert subjects_of("What does \u201cBah! Humbug!\u201d mean?") == ["Bah! Humbug!"]
    card = [{"name": "Jacob Marley", "also_called": ["Marley"]}]
    assert subjects_of("what does marley want?", card) == ["Marley"]
    assert subjects_of("Who is Jacob Marley?", card) == ["Jacob Marley"]  # the longest, once
    assert subjects_of("Who is the old man in the chair?") == []
    assert subjects_of("Who is the King of Ruritania?") == ["King of Ruritania"]  # "of" inside a name
    # Put beside the first pronoun; else before the question mark; where the earlier one names nothing, it is quoted.
    assert follow_up_question("What becomes of him in the end?", "Who is Marley?") == \
        "What becomes of him (Marley) in the end?"
    assert follow_up_question("What does it mean?", "What does \u201cHumbug\u201d mean?") == \
        "What does it (Humbug) mean?"
    assert follow_up_question("And in the end?", "Who is Marley?") == "And in the end (Marley)?"
    # "And Louisa?", "What about chapter 6?": the earlier question asked again of another name or chapter
    # (it had been "And Louisa (Anne)?", a search on two names).
    assert follow_up_question("And Louisa?", "How many times is Anne mentioned?") == \
        "How many times is Louisa mentioned?"
    assert follow_up_question("What about Belle?", "Who is Marley?") == "Who is Belle?"
    assert follow_up_question("And gig?", "What does crupper mean?") == "What does \u201cgig\u201d mean?"
    assert follow_up_question("and Mrs Fezziwig?", "What does Scrooge say about Christmas?") == \
        "What does Mrs Fezziwig say about Christmas?"
    assert follow_up_question("And chapter 6?", "What is chapter 5 called?") == "What is chapter 6 called?"
    assert follow_up_question('And "bah"?', 'Where does Scrooge say "humbug"?') == 'Where does Scrooge say "bah"?'
    # Words quoted stand for words quoted, not for a name ('How many times does bah say humbug?').
    assert follow_up_question('And "bah"?', "How many times does Scrooge say humbug?") == \
        'How many times does Scrooge say "bah"?'
    assert follow_up_question("And why?", "Who is Marley?") == "And why (Marley)?"  # no name or chapter: glossed
    # Named again, in whatever case: as typed (the gloss had hidden what kind of question it is).
    assert follow_up_question("how does marley die", "Who is Marley?") == "how does marley die"
    assert follow_up_question("And his ghost?", "Who is Marley?") == "And his (Marley) ghost?"
    assert follow_up_question("Where does he go?", "Who is the old man in the chair?") == \
        "Where does he (after \u201cWho is the old man in the chair\u201d) go?"
    # A chain: a follow-up to a follow-up reads the earlier one as it was taken, with any passage it was about.
    taken = {"question": "What becomes of him?", "follows": {"question": "Who is Marley?",
                                                           "taken_as": "What becomes of him (Marley)?"}}
    assert follow_up_question("Why does he come back?", earlier_question(taken)) == "Why does he (Marley) come back?"
    about = earlier_question({"question": "Why does he say this?", "focus": {"text": "Bah! Humbug!"}})
    assert about == "Why does he say this? (about \u201cBah! Humbug!\u201d)"


def test_a_follow_up_to_a_capable_models_answer_reads_that_answer():
    from engine.answer.followup import Earlier, earlier_of, follow_up_question, follows_record

    # Where the earlier question asked who did something, the people its answer named come first;
    # where it asked who someone it named is, that one stays the subject.
    warned = Earlier("Who warns Scrooge about the spirits?", "Marley's ghost warns him that three spirits will come.")
    assert follow_up_question("What happens to him in the end?", warned) == \
        "What happens to him (Marley, Scrooge) in the end?"
    named = Earlier("Who is Marley?", "Marley was Scrooge's partner, dead these seven years.")
    assert follow_up_question("What becomes of him?", named) == "What becomes of him (Marley)?"
    unnamed = Earlier("Who is the old man in the chair?", "He is old Fezziwig, to whom Scrooge was apprenticed.")
    assert follow_up_question("Where does he go?", unnamed) == "Where does he (Fezziwig, Scrooge) go?"
    assert follow_up_question("Where does he go?", Earlier(unnamed.question)) == \
        "Where does he (after \u201cWho is the old man in the chair\u201d) go?"
    # Only a capable model's whole answer is carried, without its citations; a draft, a stopped or a failed one not.
    shown = {"question": "Who warns Scrooge?", "lead": "answer", "answer": "Marley's ghost [p1.30, p1.31] warns him."}
    assert earlier_of(shown) == Earlier("Who warns Scrooge?", "Marley's ghost warns him.")
    for other in ({"lead": "digest"}, {"cancelled": True}, {"model_error": "the model could not be loaded"}):
        assert earlier_of({**shown, **other}) == Earlier("Who warns Scrooge?")
    long = earlier_of({**shown, "answer": "word " * 400})
    assert len(long.answer.split()) == 161 and long.answer.endswith("\u2026")
    assert follows_record(warned, "x")["answer"] == warned.answer and "answer" not in follows_record("Who?", "x")


def test_a_follow_up_asking_the_earlier_question_again_is_answered_afresh(session):
    # "And chapter 3?" after "What is chapter 2 called?": the contents answer it, as they did the first.
    found = session.retrieve("And chapter 3?", after="What is chapter 2 called?")
    assert found.stated == "Chapter 3 is called \u201cMy Breaking In\u201d."
    assert session.follows("And chapter 3?", "What is chapter 2 called?")["taken_as"] == "What is chapter 3 called?"
    result = session.ask("And chapter 3?", after="What is chapter 2 called?", planner="code")
    assert result.answer == found.stated and result.follows["taken_as"] == "What is chapter 3 called?"


def test_a_follow_up_question_finds_whom_the_earlier_one_named(session):
    question = "What did the master do to him?"
    plain = session.retrieve(question, budget=4)
    assert "Dick" not in plain.ranked[0].text  # "him" on its own: the passage about the squire's son leads
    followed = session.retrieve(question, budget=4, after="Who was Dick?")
    assert followed.plan.question == "What did the master do to him (Dick)?"
    assert "Dick" in followed.ranked[0].text and "Dick" in " ".join(part.text for part in followed.plan.parts)
    assert session.follows(question, "Who was Dick?") == {"question": "Who was Dick?",
                                                         "taken_as": "What did the master do to him (Dick)?"}
    assert session.follows(question, "  ") is None
    assert session.retrieve(question, budget=4, after=" ").plan.question == question


def test_a_follow_up_answer_is_written_with_the_earlier_answer_in_its_prompt(session):
    from engine.answer.followup import Earlier

    question = "What did the master do to him?"
    earlier = Earlier("Who was Dick?", "Dick was a ploughboy who threw stones and sticks at the colts.")
    found = session.retrieve(question, budget=2, after=earlier)
    prompt = answer_messages(session.context, found, earlier=earlier)[-1].content
    assert "Earlier question: Who was Dick?\nIts answer: Dick was a ploughboy" in prompt
    assert prompt.index("Its answer") < prompt.index("Question: What did the master do to him (Dick)?")
    assert "Earlier question" not in answer_messages(session.context, found, earlier=Earlier("Who was Dick?"))[-1].content

    def first_words(after):
        cancel = CancelToken()
        return session.ask(question, budget=2, cancel=cancel, on_text=lambda piece: cancel.cancel(), after=after)

    generator = session.generator
    saved, generator.parameters = generator.parameters, None  # a generator of unknown size counts as capable
    try:
        carried, alone = first_words(earlier), first_words("Who was Dick?")
    finally:
        generator.parameters = saved
    assert carried.lead == alone.lead == "answer" and carried.cancelled and not carried.retried
    assert carried.follows == {"question": "Who was Dick?", "taken_as": "What did the master do to him (Dick)?",
                               "answer": earlier.answer}
    assert "answer" not in alone.follows
    # The model read the earlier answer: the same evidence, a longer prompt.
    assert [node.id for node in carried.retrieval.passages] == [node.id for node in alone.retrieval.passages]
    assert carried.tokens["prompt"] - alone.tokens["prompt"] >= len(earlier.answer.split())


def test_related_passages_tell_of_the_selection_elsewhere_in_the_book(session):
    from engine.answer.related import RELATED_QUESTION
    from engine.answer.selection import about_question
    from engine.errors import ChapterhouseError

    text = session.context.book.text
    start = text.index("perhaps the hare will get off")
    end = start + len("perhaps the hare will get off")
    held = {node.id for node in session.context.passages_overlapping(start, end)}
    found = session.related((start, end), budget=4)
    picked = [node.id for node in found.ranked]
    # The selection's own passages are left out; the rest of the hunt comes first, then one passage a chapter
    # before a second from any (they reach across the book), two a chapter at most.
    assert len(picked) == 4 and not held & set(picked)
    assert "hare" in found.ranked[0].text
    assert len({node.section for node in found.ranked[:3]}) == 3
    assert max(Counter(node.section for node in found.passages).values()) <= 2
    assert found.plan.question == about_question(RELATED_QUESTION, text[start:end]) and found.focus == (start, end)
    # As a question: the evidence alone, no model call, said to be what it is.
    result = session.ask("ignored", budget=4, focus=(start, end), related=True)
    assert result.question == RELATED_QUESTION and result.related and not result.written and result.answer == ""
    assert [node.id for node in result.retrieval.ranked] == picked and result.digest
    assert result.focus["start"] == start and result.as_dict()["related"] is True
    with pytest.raises(ChapterhouseError, match="^Black Beauty: related passages are found for a passage of the book"):
        session.related(None)


def test_the_digest_quotes_the_book_and_cites_retrieved_passages(session):
    found = session.retrieve("What did the old horse say about the hare and the dogs?", budget=6)
    lines = session.digest(found)
    assert 1 <= len(lines) <= 4  # three, and for one scene what follows its best line
    retrieved = {node.id for node in found.passages}
    book = session.context.book
    for line in lines:
        assert line.passage_id in retrieved
        assert " ".join(book.text[line.start:line.end].split()) == line.text
        assert line.label == book.sections[line.section - 1].label
    assert [line.start for line in lines] == sorted(line.start for line in lines)
    assert any("hare" in line.text for line in lines)


def _one_stave(folder: Path, name: str, opening: str, next_opening: str) -> AnswerSession:
    """One stave of the sample book as a book of its own, indexed (no generator)."""
    from engine.paths import sample_book_path
    from engine.store import Library

    carol = sample_book_path().read_text(encoding="utf-8")
    stave = carol[carol.index(opening):carol.index(next_opening)]
    (folder / f"{name}.txt").write_text(f"A CHRISTMAS CAROL, {name.upper().replace('-', ' ')}\n\n"
                                        f"by Charles Dickens\n\n\n{stave}", encoding="utf-8")
    library = Library(folder / "home")
    answering = AnswerSession(library, library.import_book(folder / f"{name}.txt").book_id,
                              embedder=open_embedder(ModelSettings()))
    answering.ensure_indexed()
    return answering


@pytest.fixture(scope="module")
def stave_one(tmp_path_factory):
    """Stave I of the sample book: Marley, his ghost and his chains."""
    return _one_stave(tmp_path_factory.mktemp("stave-one"), "stave-one", "STAVE I:  MARLEY'S GHOST",
                      "STAVE II:  THE FIRST")


def test_the_digest_leaves_out_lines_that_say_only_who_spoke(stave_one):
    from engine.answer.digest import bare_exchange

    for bare in ('"No, no," said Scrooge.', '"I don\'t know," said Scrooge.', '"But why?" cried Scrooge\'s nephew.'):
        assert bare_exchange(bare), bare
    for telling in ('"Let me leave it alone, then," said Scrooge.', '"But you don\'t keep it."',
                    'Marley was dead: to begin with.', '"Bah!" said Scrooge, "Humbug!"'):
        assert not bare_exchange(telling), telling
    # The embedder ranks "I do," said Scrooge. first for what Scrooge says.
    lines = stave_one.digest(stave_one.retrieve("What does Scrooge say to his nephew?", budget=12))
    assert lines and not any(bare_exchange(line.text) for line in lines)
    assert any("said Scrooge" in line.text or "nephew" in line.text for line in lines)


def test_the_digest_quotes_the_lines_that_answer_from_the_passages_picked_first(stave_one):
    # By the embedder alone, sentences that only name Marley, his ghost or
    # chains outranked these, from the passages retrieval picked first.
    chain = stave_one.retrieve("What is the chain Marley wears made of?", budget=12)
    assert any("I wear the chain I forged in life" in line.text for line in stave_one.digest(chain))
    warning = stave_one.retrieve("What does Marley's ghost warn Scrooge about?", budget=12)
    assert any("warning him to come no nearer" in line.text for line in stave_one.digest(warning))


def test_a_question_who_someone_is_quotes_where_the_book_first_names_them(stave_one):
    from engine.answer.retrieval import INTRODUCTION, asked_who, first_mentioned
    from engine.answer.vocabulary import as_written

    assert [asked_who(q) for q in ("Who is Marley?", "who was old Fezziwig?", "Who is Mr. Brooke?",
                                   "Who is the man at the gate?", "Who is Scrooge's nephew?", "Who killed Marley?")] == [
        "Marley", "Fezziwig", "Mr. Brooke", None, None, None]
    context = stave_one.context
    # Typed in lower case, a name is known by how the book writes it.
    assert [asked_who(q, context.writes_as_name) for q in ("who is marley?", "who was scrooge", "who is the clerk?",
                                                           "who is he?")] == ["Marley", "Scrooge", None, None]
    # Words that ask nothing more: "really" had been taken for part of a name, so no who-is question.
    assert [asked_who(q, context.writes_as_name) for q in (
        "Who is Marley really?", "Who's Marley?", "Who exactly is Marley?", "Who is Marley, again?",
        "who is marley in the book?", "Who is Mr Really?", "Who is Marley's partner?")] == [
        "Marley", "Marley", "Marley", "Marley", "Marley", "Mr Really", None]
    assert as_written("Mr Brooke").search("Laurie's tutor, Mr. Brooke, came") is not None
    first = min((node for node in context.store.nodes(kind="passage") if "Marley" in node.text.title()),
                key=lambda node: node.start)
    for question in ("Who is Marley?", "who is marley"):
        found = stave_one.retrieve(question, budget=6)
        assert found.ranked[0].id == first.id and INTRODUCTION in found.parts[0].sources[first.id]
        # By the embedder alone the digest quoted "Scrooge and Marley's, I believe," and the like.
        lines = stave_one.digest(found)
        assert lines[0].text == "MARLEY was dead: to begin with." and lines[0].passage_id == first.id
    # Not for other questions about him.
    assert INTRODUCTION not in stave_one.retrieve("What does Marley's ghost warn Scrooge about?").parts[0].sources.get(
        first.id, [])
    # Asked where the book first brings him in: the same passage and line (it had quoted "Marley's pigtail").
    assert [first_mentioned(q, context.writes_as_name) for q in (
        "When does Marley first appear?", "Where is Mr. Scrooge first mentioned?", "when is marley introduced",
        "When does Marley's ghost appear?", "When do Scrooge and Marley first meet?")] == [
        "Marley", "Mr. Scrooge", "marley", None, None]
    for question in ("When does Marley first appear?", "when is marley introduced"):
        found = stave_one.retrieve(question, budget=6)
        assert found.ranked[0].id == first.id and INTRODUCTION in found.parts[0].sources[first.id], question
        assert stave_one.digest(found)[0].text == "MARLEY was dead: to begin with.", question


def _three_chapters_text(in_the_first: str, in_the_third: list[str], in_the_second: str | None = None) -> str:
    """The three-chapter fixture's text with a paragraph added to its first chapter (and second) and some to its
    third."""
    text = (ROOT / "tests" / "fixtures" / "three-chapters.txt").read_text()
    text = text.replace("01 My Early Home\n", f"01 My Early Home\n\n{in_the_first}\n", 1)
    if in_the_second is not None:
        text = text.replace("02 The Hunt\n", f"02 The Hunt\n\n{in_the_second}\n", 1)
    for paragraph in in_the_third:
        text = text.replace("03 My Breaking In\n", f"03 My Breaking In\n\n{paragraph}\n", 1)
    return text


def _parsed_with_its_vocabulary(folder: Path, text: str):
    """The text parsed as a book, and its vocabulary counted over its paragraphs (no index)."""
    from types import SimpleNamespace

    from engine.answer.vocabulary import Rarity
    from engine.importer import parse_book

    (folder / "names.txt").write_text(text)
    return parse_book(folder / "names.txt"), Rarity([SimpleNamespace(id=str(n), text=paragraph)
                                                      for n, paragraph in enumerate(text.split("\n\n"))])


def _three_chapters_with(folder: Path, in_the_first: str, in_the_third: list[str],
                         in_the_second: str | None = None) -> AnswerSession:
    """The three-chapter fixture with those paragraphs added (`_three_chapters_text`), imported and indexed."""
    from engine.store import Library

    (folder / "added.txt").write_text(_three_chapters_text(in_the_first, in_the_third, in_the_second))
    library = Library(folder / "home")
    answering = AnswerSession(library, library.import_book(folder / "added.txt").book_id,
                              embedder=open_embedder(ModelSettings()))
    answering.ensure_indexed()
    return answering


def test_someone_named_in_full_later_is_introduced_where_the_book_first_names_them_in_part(tmp_path):
    from engine.answer.retrieval import INTRODUCTION, asked_who

    assert asked_who("Who is Tarzan of the Apes?") == "Tarzan of the Apes"  # "the" had ended the name
    assert asked_who("who is rupert of hentzau", lambda name: True) == "Rupert of Hentzau"
    # "young Rupert" in Chapter 1, "Rupert of Hentzau" only in Chapter 3: the book brings him in in Chapter 1.
    rupert = _three_chapters_with(tmp_path, "There young Rupert, the squire's wild cousin, rode past the gate with "
                                  "his whip.", ["Rupert of Hentzau came to see me broken in, and laughed."])
    found = rupert.retrieve("Who is Rupert of Hentzau?")
    [first] = [node for node in found.passages if INTRODUCTION in found.parts[0].sources[node.id]]
    assert first.section == 1 and "young Rupert" in first.text
    assert any(line.text.startswith("There young Rupert, the squire's wild cousin") for line in rupert.digest(found))


def test_what_a_place_or_thing_the_book_names_is_asked_as_who_someone_is(tmp_path):
    from engine.answer.retrieval import INTRODUCTION, asked_who

    assert [asked_who(q) for q in ("What is Birtwick Park?", "What was the Laconia?", "What exactly is Zenda?",
                                   "What is love?", "What is Jo like?", "What is Scrooge's job?",
                                   "What is the hunt?")] == [
        "Birtwick Park", "Laconia", "Zenda", None, None, None, None]
    park = _three_chapters_with(
        tmp_path, "THE HOUSE AT BIRTWICK PARK.\n\nOur master rode over to Birtwick Park that morning.",
        ["We came home to Birtwick Park at last in the rain.",
         "The groom met us at the gate with a lantern.",
         "Birtwick Park was a large house with a high stone wall, and stood some miles from the town."])
    assert asked_who("what is birtwick park", park.context.writes_as_name) == "Birtwick Park"
    found = park.retrieve("What is Birtwick Park?")
    first = min((node for node in found.passages if "Birtwick" in node.text), key=lambda node: node.start)
    assert INTRODUCTION in found.parts[0].sources[first.id] and first.section == 1
    lines = [line.text for line in park.digest(found)]
    # Where the book brings it in, and the line saying what it is; not the sentences after a line as for a scene
    # (it had been searched as one: "What is Kellynch?" quoted "The charm of Kellynch..." and "She never could
    # accept him.").
    assert "Our master rode over to Birtwick Park that morning." in lines
    assert "THE HOUSE AT BIRTWICK PARK." not in lines  # a heading in capitals is not where the book brings it in
    assert "Birtwick Park was a large house with a high stone wall, and stood some miles from the town." in lines
    assert "The groom met us at the gate with a lantern." not in lines


def test_what_someones_letter_says_is_quoted_from_where_the_letter_opens(tmp_path):
    from engine.answer.expected import expected_answer
    from engine.answer.letters import LETTERS, letter_openings

    for question in ("What does Squire Gordon's letter say?", "What did Squire Gordon write to my master?",
                     "What is in Squire Gordon's note?", "What does the letter from Squire Gordon say?",
                     "What did the telegram to Holmes say?"):
        assert expected_answer(question) == LETTERS.name, question
    assert not LETTERS.asked("Why did she burn the letter?") and not LETTERS.asked("What does Tarzan mean?")
    # Where a letter's own words begin: after a colon ending a paragraph, or opening a quotation, with words of
    # writing before it; not speech brought in by a colon.
    it_ran = "The groom brought a letter from the squire. It ran:\n\nI shall come on Monday."
    assert letter_openings(it_ran, 0, len(it_ran)) == [it_ran.index("I shall")]
    said = "It was a postscript at the end of the letter and it said: 'Please, please, burn this letter.'"
    assert letter_openings(said, 0, len(said)) == [said.index("'Please")]
    # A greeting that is a paragraph of its own tells a letter by itself, after a place and date or not.
    dated = "[To Mrs. Weston.]\n\nWINDSOR-JULY. MY DEAR MADAM,\n\n\u201cIf I made myself intelligible yesterday..."
    assert letter_openings(dated, 0, len(dated)) == [dated.index("MY DEAR")]
    for speech in ('My mother whinnied, and said to me:\n\n"Go to the gate."',
                   'He laughed.\n\n"My dear sir, the letter you wrote is here," said he.',
                   'She wrote nothing that day. She smiled and said, "I am determined I will:" he put out his hands.'):
        assert letter_openings(speech, 0, len(speech)) == [], speech
    # The paragraphs of the third chapter are each put first under its heading: the last given comes first.
    letter = _three_chapters_with(tmp_path, "Squire Gordon came over the hill to see the colts that spring.", [
        "The groom waited at the gate for an answer.",
        "Keep him in the stable till then.",
        "I shall come for the black colt on Monday.",
        "Squire Gordon's groom brought a letter from the squire, and my master opened it at the gate and read it "
        "aloud. It ran:"])
    found = letter.retrieve("What does Squire Gordon's letter say?")
    lines = [line.text for line in letter.digest(found)]
    # The line opening it and the letter's own words after it (its words had found every line saying "say").
    opened = lines.index("It ran:")
    assert lines[opened + 1:opened + 3] == ["I shall come for the black colt on Monday.",
                                            "Keep him in the stable till then."]
    # The passage holding it is marked for the kind, though its words had picked it already.
    holding = [node for node in found.passages if "It ran:" in node.text]
    assert holding and all(LETTERS.name in found.parts[0].sources[node.id] for node in holding)


def test_a_question_who_someone_is_quotes_where_the_book_says_what_they_are(tmp_path):
    from engine.answer.described import DESCRIPTION, describes, introduces_themself
    from engine.answer.looks import looked_at
    from engine.answer.retrieval import INTRODUCTION

    # What the book says of them, not what they do or say, nor their name said or spoken to.
    for name, sentence in (
            ("Kemp", "Dr. Kemp was a tall and slender young man, with flaxen hair."),
            ("Mr. Stapleton", "With the exception of Mr. Frankland, of Lafter Hall, and Mr. Stapleton, the naturalist,"
                              " there are no other men of education within many miles."),
            ("Mrs Clay", "From situation, Mrs Clay was, in Lady Russell's estimate, a very unequal companion."),
            ("Aunt March", "Jo happened to suit Aunt March, who was lame and needed an active person."),
            ("John Manly", "The name of the coachman was John Manly; he had a wife and one little child."),
            ("Jonathan Small", "A map is drawn for them by an Englishman named Jonathan Small."),
            ("Tiny Tim", "Alas for Tiny Tim, he bore a little crutch, and had his limbs supported by an iron frame!")):
        assert describes(name)(sentence), sentence
    for name, sentence in (
            ("Tiny Tim", '"God bless us every one!" said Tiny Tim, the last of all.'),
            ("Kemp", '"I made a mistake, Kemp, a huge mistake, in carrying this thing through alone."'),
            ("Frankland", "It was none other than Mr. Frankland, who was standing outside the gate of his garden."),
            ("Mrs Clay", "Mrs Clay, who had been present while all this passed, now left the room."),
            ("Kemp", "Kemp got up."), ("Kemp", '"Never," said Kemp, he was a fool to think it.'),
            ("Captain Wentworth", "He wished so much to be introduced to Captain Wentworth, that, perhaps, he might "
                                  "join them in the evening."),
            ("Anne", "It was a glance which convinced Anne, that instead of sharing in her wishes, he was not."),
            ("Fezziwig", "In came Mrs. Fezziwig, one vast substantial smile.")):  # his wife, not him
        assert not describes(name)(sentence), sentence
    assert describes("Mrs. Fezziwig")("In came Mrs. Fezziwig, one vast substantial smile.")
    # Another of the family, another person of that name, a list's last, a word, what one wears.
    for name, sentence in (
            ("Mrs. Weston", "Mr. Weston was a native of Highbury."),
            ("John Ferrier", "There galloped Lucy Ferrier, her fair face flushed with the exercise."),
            ("Jo", "After many serious discussions with Meg and Jo, the pattern was chosen."),
            ("Jane", "Clayton, with Jane, the professor and Esmeralda occupied Clayton's car."),
            ("King", "The gardeners began bowing to the King, the Queen, the royal children, and everybody else."),
            ("Ginger", "The master rode on Ginger, the mistress on me, and the young ladies on Sir Oliver."),
            ("King", "But if Fate made me a King, the least I could do was to play the part."),
            ("Arthur", "He is older than Arthur, a man of the world to his finger-tips."),
            ("Sapt", "Opposite me stood old Sapt, a sneering smile on his face."),
            ("Jo", "When Amy was asleep, she called Jo to her and began to bind up the hurt hands."),
            ("Emma", "Emma, who was not really at all frightened herself, tranquillised them."),
            ("Buck", "Buck was the exception."), ("Stapleton", "Stapleton was the cause of the interruption."),
            ("Alice", "Luckily for Alice, the little magic bottle had now had its full effect."),
            ("Professor Porter", "And now, for Jane Porter, the reaction came, and she threw herself down.")):
        assert not describes(name)(sentence), sentence
    for name, sentence in (("Harriet", "Harriet Smith was the natural daughter of somebody."),
                           ("Mr. Weston", "Mr. Weston was a native of Highbury."),
                           ("Mr. Philander", "He was followed by Samuel T. Philander, his secretary and assistant."),
                           ("Francois", "Curly and he were turned over to a black-faced giant called Francois."),
                           ("Tarzan", "THIS IS THE HOUSE OF TARZAN, THE KILLER OF BEASTS AND MANY BLACK MEN."),
                           # Kin or service before the name.
                           ("Black Michael", "At last I was in presence of my brother, Black Michael."),
                           ("Stangerson", "He travelled with his private secretary, Mr. Joseph Stangerson."),
                           ("Mary", "Her own sister, Mary, had been at school while it all occurred."),
                           # Where they are from, of what age and kind.
                           ("Drebber", "Those were the features of Enoch J. Drebber, of Cleveland."),
                           ("Lady Russell", "That Lady Russell, of steady age and character, should have no thought "
                                            "of a second marriage needs no apology.")):
        assert describes(name)(sentence), sentence
    for name, sentence in (("King", "I took formal possession, as a crowned King, of the House of my ancestors."),
                           ("Anne", "Anne, of course, went with them.")):
        assert not describes(name)(sentence), sentence
    # Not "your": someone spoken to, greeted, or signing a letter.
    for sentence in ("Had your father, Miss Morstan, refrained from it, he might be alive.",
                     "“Your servant, Miss Morstan,” he kept repeating.",
                     "But know that I am always your friend, Miss Morstan."):
        assert not describes("Miss Morstan")(sentence), sentence
    # Said in dialogue, it is what someone says of them, often a figure of speech.
    spoken = "\u201cI\u2019m sure Aunt March is a regular Old Man of the Sea to me,\u201d said Jo."
    assert describes("Aunt March")(spoken) and not describes("Aunt March", in_telling=True)(spoken)
    assert describes("Aunt March", in_telling=True)("Jo happened to suit Aunt March, who was lame.")
    # Named in the first chapter, told of in the third, after lines where he only acts.
    jerry = _three_chapters_with(tmp_path, "Then Jerry Barker came into the meadow and stood by the gate.", [
        "Jerry Barker patted my neck and laughed, and Jerry Barker gave me an apple.",
        "Jerry Barker was a cab driver in London, with a wife and two little children.",
        "Jerry Barker led me out of the stable into the yard and looked at my feet.",
        "\u201cWhoa, whoa!\u201d said Jerry Barker, and Jerry Barker stroked my nose.",
        "Jerry Barker sang as Jerry Barker brushed me; who but Jerry Barker would sing so?"])
    found = jerry.retrieve("Who is Jerry Barker?")
    [described] = [node for node in found.passages if DESCRIPTION in found.parts[0].sources[node.id]]
    assert described.section == 3 and "a cab driver" in described.text
    lines = [line.text for line in jerry.digest(found)]
    assert "Jerry Barker was a cab driver in London, with a wife and two little children." in lines
    assert lines[0] == "Then Jerry Barker came into the meadow and stood by the gate."  # the introduction, still
    # Not for other questions about him.
    assert all(DESCRIPTION not in sources for sources in
               jerry.retrieve("What does Jerry Barker give me?").parts[0].sources.values())
    # Called something in dialogue, then told of by the telling pages later in the same chapter: the telling's
    # line; told of only in a later chapter, what was said stands.
    spoken = "\u201cNed Price is a regular old bear in the mornings,\u201d said James."
    told = "Ned Price was the head groom, a stout man of fifty with a red face."
    filler = "\n\n".join(["The rain fell on the roofs of the stables all that week, and the yard was deep in mud. "
                           "The horses stood in their stalls and the boys carried water and hay."] * 12)
    for folder, second, third, expected in (("told", f"{spoken}\n\n{filler}\n\n{told}", "Ned Price whistled.", told),
                                            ("said", f"{spoken}\n\n{filler}", told, spoken)):
        (tmp_path / folder).mkdir()
        ned = _three_chapters_with(tmp_path / folder, "Ned Price came into the yard.", [third], in_the_second=second)
        found = ned.retrieve("Who is Ned Price?")
        [marked] = [node for node in found.passages if DESCRIPTION in found.parts[0].sources[node.id]]
        assert marked.section == 2 and expected in marked.text and (folder == "said" or spoken not in marked.text)
        assert expected in [line.text for line in ned.digest(found)], folder
    # The passage bringing someone in says who they are too: marked for both, and both lines quoted.
    (tmp_path / "same").mkdir()
    brought_in = "Tom Moss came into the meadow and stood by the gate."
    told = "Tom Moss was a farrier's boy from the village, with a wide grin and big hands."
    tom = _three_chapters_with(tmp_path / "same", f"{brought_in} {told}",
                               ["Tom Moss trotted down the lane.", "Tom Moss ate his bread by the pond."])
    found = tom.retrieve("Who is Tom Moss?")
    [both] = [node for node in found.passages if told in node.text]
    assert {INTRODUCTION, DESCRIPTION} <= set(found.parts[0].sources[both.id])
    assert {brought_in, told} <= {line.text for line in tom.digest(found)}
    # Who tells their own name has just been described, no name given yet: that description is quoted too.
    assert introduces_themself("Merrylegs").search('He said, \u201cMy name is Merrylegs. I am very handsome\u201d')
    assert introduces_themself("Ghost of Christmas Past").search('"I am the Ghost of Christmas Past."')
    assert not introduces_themself("Merrylegs").search("I am sure Merrylegs knows the way.")
    (tmp_path / "pony").mkdir()
    looks = "In the next stall stood a little fat gray pony, with a thick mane and tail, a pretty head and a pert nose."
    named = "He turned his head and said, \u201cMy name is Dobbin.\u201d"
    pony = _three_chapters_with(tmp_path / "pony", f"{looks} {named}",
                                ["Dobbin trotted down the lane with the children on his back.", "Dobbin ate his oats."])
    lines = [line.text for line in pony.digest(pony.retrieve("Who is Dobbin?"))]
    assert looks in lines and lines.index(looks) + 1 == lines.index(named)
    assert looked_at("Describe the Ghost of Christmas Past") == "Ghost of Christmas Past"
    assert looks in [line.text for line in pony.digest(pony.retrieve("What does Dobbin look like?"))]
    # Said in a few words ("X was..."), what follows in its paragraph is quoted too; not after a line telling more
    # than who they are, whose next sentence is of another.
    (tmp_path / "short").mkdir()
    short, after = "Sam Hill was the smith.", "He shod every horse in the valley, and he sang at his anvil all day."
    acts, others = "Ned Cole, the carter, shut the gate.", "The mare by the trough did not even lift her head."
    smith = _three_chapters_with(tmp_path / "short", f"Sam Hill came into the yard at noon. {acts} {others}",
                                 ["Sam Hill trotted down the lane.", f"{short} {after}\n\nSam Hill ate his bread.",
                                  "Ned Cole drove the cart to market."])
    lines = [line.text for line in smith.digest(smith.retrieve("Who is Sam Hill?"))]
    assert short in lines and lines.index(short) + 1 == lines.index(after)
    assert lines[0] == "Sam Hill came into the yard at noon."  # the introduction, still
    lines = [line.text for line in smith.digest(smith.retrieve("Who is Ned Cole?"))]
    assert acts in lines and others not in lines


def test_a_question_about_one_scene_quotes_that_scene_and_what_follows_its_best_line(tmp_path):
    from engine.answer.digest import digest_markdown
    from engine.answer.planning import about_one_scene, code_plan

    # A question that spans the story by its words is no scene, whatever its scope.
    for spanning in ("How does the door knocker that startles Scrooge reappear after his night with the spirits?",
                     "What does the narrator later learn about the black horse shot after the hare hunt?",
                     "How does an early joke about poisons anticipate the poison at the heart of the murders?"):
        assert code_plan(spanning).scope == "LOCAL" and not about_one_scene(code_plan(spanning)), spanning
    for scene in ("What did Mr. Davis do to Susie Perkins in response to her drawing?",
                  "Why did Scrooge ask the Ghost of Jacob Marley if he could sit down?"):
        assert about_one_scene(code_plan(scene)), scene
    # The third chapter's paragraphs are each put first under its heading: the last given comes first.
    drawing = _three_chapters_with(tmp_path, "The old master kept a little school beyond the meadow.", [
        "Susie cried all the way home across the meadow that evening.",
        "He took her by the ear and stood her on the platform, slate in hand, for a whole hour.",
        "Well, Susie drew a picture of the schoolmaster on her slate, with a monstrous nose and a hump."])
    found = drawing.retrieve("What did the schoolmaster do when Susie drew a picture of him with a monstrous nose?")
    assert found.plan.scope == "LOCAL" and len(found.plan.parts) == 1
    lines = [line.text for line in drawing.digest(found)]
    drew = lines.index("Well, Susie drew a picture of the schoolmaster on her slate, with a monstrous nose and a hump.")
    # The two lines after it: what it asks may come second, after a line of speech or of setting.
    assert lines[drew + 1:drew + 3] == [
        "He took her by the ear and stood her on the platform, slate in hand, for a whole hour.",
        "Susie cried all the way home across the meadow that evening."]
    assert len(lines) <= 4
    # Shown as one quotation: the three sentences follow one another in the book.
    shown = digest_markdown(drawing.digest(found), [found.parts[0].part.text]).splitlines()
    assert sum("monstrous nose and a hump. He took her by the ear" in line and "Susie cried" in line
               for line in shown) == 1
    assert len(shown) == len(lines) - 2
    # Not for a question asking a name: the line naming one is its answer, not what follows it.
    named = drawing.digest(drawing.retrieve("Who drew a picture of the schoolmaster with a monstrous nose?"))
    assert not any(line.text.startswith("He took her by the ear") for line in named)
    # The scene's lines, not one a chapter: the colt's early days are in the first (lines from the other two,
    # of a riding horse and of being sold at four, had been quoted beside).
    colt = drawing.digest(drawing.retrieve("What did the colt live on while he was young?"))
    assert len(colt) == 4 and {line.section for line in colt} == {1}


@pytest.fixture(scope="module")
def stave_two(tmp_path_factory):
    """Stave II of the sample book: Belle, and the bells that strike the hours."""
    return _one_stave(tmp_path_factory.mktemp("stave-two"), "stave-two", "STAVE II:  THE FIRST",
                      "STAVE III:  THE SECOND")


def test_where_the_book_last_names_someone_leads_the_evidence(session):
    from engine.answer.retrieval import LAST_MENTION, last_mentioned

    context = session.context
    assert [last_mentioned(q, context.writes_as_name) for q in (
        "When does Squire Gordon last appear?", "Where is Daniel last mentioned?", "when do we last see daniel",
        "What is the last we hear of Duchess?", "When does Daniel first appear?", "Who came last?")] == [
        "Squire Gordon", "Daniel", "daniel", "Duchess", None, None]
    # It had been a search on "last" and "appear": lines about the hunt's last moments.
    book = context.book
    last = book.text.rindex("Daniel")
    found = session.retrieve("Where is Daniel last mentioned?", budget=6)
    holding = [node for node in found.passages if LAST_MENTION in found.parts[0].sources[node.id]]
    assert len(holding) == 1 and holding[0].start <= last < holding[0].end
    assert any(line.start <= last < line.end for line in session.digest(found))
    # Up to a reading limit: the last naming read.
    limit = book.sections[2].start
    early = session.retrieve("Where is Daniel last mentioned?", budget=6, until=limit)
    earlier = book.text.rindex("Daniel", 0, limit)
    assert any(line.start <= earlier < line.end for line in session.digest(early))
    assert all(node.end <= limit for node in early.passages)
    # What becomes of someone is told, as often as not, where the book last names them.
    assert [last_mentioned(q, context.writes_as_name) for q in (
        "What happens to Daniel?", "What becomes of Squire Gordon in the end?", "What is Duchess's fate?",
        "What is the fate of Daniel?", "What became of him (Daniel)?", "What happens to Daniel in chapter 2?",
        "What happens in the end?")] == ["Daniel", "Squire Gordon", "Duchess", "Daniel", "Daniel", None, None]
    fate = session.retrieve("What happens to Daniel?", budget=6)
    assert [node.id for node in fate.passages if LAST_MENTION in fate.parts[0].sources[node.id]] == \
        [holding[0].id]


def test_what_becomes_of_several_is_told_where_the_book_last_names_them_all(tmp_path):
    from engine.answer.retrieval import LAST_MENTION, fate_of_several

    assert fate_of_several("What happens to Hal, Charles and Mercedes?") == ["Hal", "Charles", "Mercedes"]
    assert fate_of_several("What becomes of Nell and Dick in the end?") == ["Nell", "Dick"]
    assert fate_of_several("what happens to nell and dick", lambda name: name in ("nell", "dick")) == ["nell", "dick"]
    for other in ("What happens to Nell?", "What happens to the horses and the carts?", "What happens in Stave 3?"):
        assert fate_of_several(other) is None, other
    # Its words ("happens") found chance lines; the ice giving way under the three of The Call of the Wild is told
    # where the book last names them all.
    early = "Nell and Dick played in the meadow every morning, and Nell sang while Dick whistled."
    both = _three_chapters_with(tmp_path, early, [
        "At harvest Nell and Dick came to say good-bye to me.",
        "Years after, Nell married the miller at Weyhill, and Dick went to sea and was never heard of again."])
    found = both.retrieve("What happens to Nell and Dick?", budget=6)
    [last] = [node for node in found.passages if LAST_MENTION in found.parts[0].sources[node.id]]
    assert last.section == 3
    assert any(line.text.startswith("Years after, Nell married the miller") for line in both.digest(found))


def test_the_last_line_naming_someone_everywhere_is_quoted_for_what_becomes_of_them(tmp_path):
    # Named in sixty lines before: the digest's shortlist, the lines sharing most words with the question and the
    # earliest of equals, had held none of the last chapter's ("What happens to Buck at the end?" quoted his
    # first chapter).
    early = " ".join(f"Merrylegs trotted round the meadow for the {n}th time that morning." for n in range(60))
    pony = _three_chapters_with(tmp_path, early, ["Merrylegs went to live with the vicar's children at last."])
    found = pony.retrieve("What happens to Merrylegs at the end?")
    lines = [line.text for line in pony.digest(found)]
    assert "Merrylegs went to live with the vicar's children at last." in lines


@pytest.fixture(scope="module")
def carol(tmp_path_factory):
    """The whole sample book, indexed to stage 1: the app's first book, and its first question's."""
    from engine.paths import sample_book_path
    from engine.store import Library

    library = Library(tmp_path_factory.mktemp("carol-home"))
    answering = AnswerSession(library, library.import_book(sample_book_path()).book_id,
                              embedder=open_embedder(ModelSettings()))
    answering.ensure_indexed()
    return answering


def test_a_thing_asked_to_come_back_is_quoted_from_the_last_passage_naming_it(carol, tmp_path):
    from engine.answer.recurring import RECURRING, recurring_thing
    from engine.paths import sample_book_path
    from engine.store import Library

    rarity = carol.context.rarity
    asked = ("How does the door knocker that startles Scrooge on Christmas Eve reappear after his night with the "
             "spirits?")
    assert recurring_thing(asked, rarity) == recurring_thing("When does the knocker come back?", rarity) == "knocker"
    # Not the rarest word ("Eve" is a name); nothing for a thing the book names everywhere, nor for another question.
    for other in ("How does the spirit return?", "How does the knocker startle Scrooge?", "Who is Marley?",
                  "How does Marley reappear?", "Does the knocker reappear?"):
        assert recurring_thing(other, rarity) is None, other
    # The knocker's return shares one word with the question: it had been 28th of the fused ranking, and the
    # evidence had quoted Stave III ("Scrooge had observed this change...") and Stave V's "There's the window where
    # I saw the wandering Spirits!" for it.
    found = carol.retrieve(asked, budget=6)
    [last] = [node for node in found.passages if RECURRING in found.parts[0].sources[node.id]]
    assert last.section == 5 and "wonderful knocker" in last.text
    lines = carol.digest(found)
    assert lines[0].section == 1 and lines[-1].section == 5
    assert any(line.text.startswith("It's a wonderful knocker!") for line in lines)
    # Each line names the knocker: "Scrooge had observed this change..." of the Ghost's hair had been quoted too.
    assert all("knocker" in line.text for line in lines)
    # Asked in few words it was a scene's lines, Stave I's alone: its return in Stave V had not been quoted.
    again = carol.digest(carol.retrieve("When does the knocker come back?"))
    assert any(line.text.startswith("It's a wonderful knocker!") for line in again)
    assert all("knocker" in line.text for line in again)
    # Searchable by its words alone (a new book's first minute), retrieval also found the passage before, which
    # holds the line too: the line, a candidate once, had been that passage's, and was not quoted.
    library = Library(tmp_path / "home")
    words_only = AnswerSession(library, library.import_book(sample_book_path()).book_id)
    words_only.ensure_searchable()
    found = words_only.retrieve(asked)
    assert len([node for node in found.passages if "wonderful knocker" in node.text]) == 2
    assert any(line.text.startswith("It's a wonderful knocker!") for line in words_only.digest(found))


def test_what_happens_in_a_chapter_or_the_book_is_told_by_lines_holding_words_that_set_a_chapter_apart(carol):
    from engine.answer.chapter_lines import distinctive_words

    context = carol.context
    stave_two = context.search.nodes([node_id for node_id, section in context.section_of.items() if section == 2])
    words = distinctive_words(stave_two, context.rarity)
    assert {"fezziwig", "release"} <= words.keys() and "scrooge" not in words  # he is named on every page
    assert distinctive_words(context.search.nodes(list(context.section_of)), context.rarity) == {}  # the whole book
    # The sentences nearest the mean of the stave's vectors had been quoted: "Nobody ever stopped him in the street
    # to say...", "...Scrooge thought he saw a locomotive hearse...", the ghost's "How it is that I appear before
    # you...": no Marley, no clerk.
    found = carol.retrieve("What happens in Stave I?")
    lines = carol.digest(found)
    # "Stave" is in the headings alone, which no passage holds: the answer had said it is not in this book.
    assert found.absent == [] == carol.retrieve("Summarize Stave 3").absent
    assert len(lines) == 5 and {line.section for line in lines} == {1}
    assert [line.start for line in lines] == sorted(line.start for line in lines)
    assert any("Marley" in line.text for line in lines) and any("clerk" in line.text for line in lines)
    # The book in outline: a line of each stave (the first sentences of Staves I, III and V's openings had been
    # quoted: "MARLEY was dead: to begin with.", "AWAKING in the middle of a prodigiously tough snore...").
    outline = carol.digest(carol.retrieve("What is this book about?"))
    assert [line.section for line in outline] == [1, 2, 3, 4, 5]
    assert not any(line.text.startswith(("MARLEY was dead", "AWAKING")) for line in outline)
    # Two staves in, "so far" is five lines still, the rest from the longer (two had been quoted).
    so_far = carol.digest(carol.retrieve("What has happened so far?", at=context.book.sections[1].start + 3000))
    assert len(so_far) == 5 and {line.section for line in so_far} == {1, 2}
    # Up to a reading limit inside the stave: from what has been read only.
    until = context.book.sections[0].start + (context.book.sections[0].end - context.book.sections[0].start) // 2
    limited = carol.digest(carol.retrieve("What happens in Stave I?", until=until))
    assert limited and all(line.end <= until for line in limited)


def test_a_first_meeting_with_someone_named_with_of_is_where_the_book_names_both(carol):
    from engine.answer.vocabulary import by_surname

    # A name joined by "of" is no first name and surname: "Present" had stood for the Ghost of Christmas Present,
    # and his first meeting with Scrooge been the first passage naming Scrooge beside the word "present" (the
    # charity gentlemen's visit in Stave I).
    assert by_surname("John Brooke") == "Brooke" and by_surname("Ghost of Christmas Present") == "Ghost of Christmas " \
        "Present"
    met = carol.digest(carol.retrieve("When does Scrooge first meet the Ghost of Christmas Present?"))
    assert met[0].section == 3 and "I am the Ghost of Christmas Present" in met[0].text


def test_how_two_people_are_related_is_quoted_where_the_book_names_them_beside_a_word_of_kin(carol, tmp_path):
    from engine.answer.relationships import RELATIONSHIP, relationship_asked

    is_name = carol.context.writes_as_name
    for asked in ("What is the relationship between Scrooge and Marley?", "what's the relationship of Scrooge to "
                  "Marley", "How is Scrooge related to Marley?", "How are Scrooge and Marley related?",
                  "What is Scrooge to Marley?", "Describe Scrooge and Marley's relationship",
                  "How do Scrooge and Marley know each other?"):
        assert relationship_asked(asked, is_name) == ("Scrooge", "Marley"), asked
    for other in ("What is the relationship between Scrooge and Gandalf?", "What is the relationship between love "
                  "and money?", "Who is Marley?", "What is Scrooge to do?", "How is Scrooge related to Scrooge?"):
        assert relationship_asked(other, is_name) is None, other
    # Its words had found scenes where both are named or present ("Scrooge and Marley's, I believe?").
    found = carol.retrieve("What is the relationship between Scrooge and Marley?")
    [tied] = [node for node in found.passages if RELATIONSHIP in found.parts[0].sources[node.id]]
    assert tied.section == 1
    assert any("his seven years' dead partner" in line.text for line in carol.digest(found))
    # Where no sentence names both beside a word of kin, one naming one of them with the other named near it.
    twins = _three_chapters_with(
        tmp_path, "Jem and Tom galloped round the meadow together every morning, Jem ahead and Tom behind.",
        ["Jem trotted up beside me at the gate. \u201cTom is my twin-brother,\u201d he said proudly."])
    found = twins.retrieve("How is Jem related to Tom?")
    assert any(line.text.startswith("\u201cTom is my twin-brother") for line in twins.digest(found))


def test_a_word_of_kin_by_one_of_the_names_tells_the_tie_before_one_elsewhere_in_a_sentence_naming_both(tmp_path):
    from engine.answer.relationships import RELATIONSHIP, tie_beside

    assert tie_beside("Let all respect Tarzan of the Apes and Kala, his mother.", "Kala")
    assert tie_beside("She had a letter from her own sister, Mary, that morning.", "Mary")
    assert tie_beside("My twin-brother Bartholomew and I were the only children.", "Bartholomew")
    assert not tie_beside("Anne walked with Mary, and the vicar's daughter waved.", "Mary")
    # The first and the last sentences naming both beside any word of kin had been the vicar's daughter's and the
    # cousins' (Persuasion's Baronetage, "Elizabeth, daughter of James Stevenson... Anne... Mary").
    sisters = _three_chapters_with(
        tmp_path, "One morning Anne walked to the village with Mary, and the vicar's daughter waved from the lane.",
        ["On Sunday Anne and Mary dined with the cousins at the Great House."],
        in_the_second="In those days Anne was fond of her younger sister Mary, though Mary was often ill and cross.")
    found = sisters.retrieve("What is the relationship between Anne and Mary?")
    assert [node.section for node in found.passages if RELATIONSHIP in found.parts[0].sources[node.id]] == [2]
    assert "In those days Anne was fond of her younger sister Mary, though Mary was often ill and cross." in [
        line.text for line in sisters.digest(found)]


def test_a_name_is_known_and_searched_as_the_book_writes_it(stave_two):
    from engine.answer.digest import _word_key
    from engine.answer.retrieval import asked_who
    from engine.answer.vocabulary import without_possessive

    context = stave_two.context
    assert context.rarity.is_name("Belle") and context.rarity.is_name("fezziwig")
    # Lower case in the book, or capitalised only where a sentence opens ("Suddenly a man...").
    assert not any(map(context.rarity.is_name, ("bell", "warehouse", "suddenly", "although")))
    assert context.rarity.mistaken_by_stem("Belle") and not context.rarity.mistaken_by_stem("Fezziwig")
    assert without_possessive("Belle’s") == without_possessive("Belle's") == "Belle"  # as a question may type it
    # The digest matches a line's words to hers as written, not by the stem ("In time the bells ceased").
    assert _word_key("Belle", context.rarity) != _word_key("bells", context.rarity) == _word_key("bell", context.rarity)
    # The word index stems "Belle" as "bell": searched alone, her name finds the bells that strike the hours.
    by_stem = context.search.nodes([node_id for node_id, _ in context.search.bm25("Belle", levels=[1], k=8)])
    assert any("Belle" not in node.text for node in by_stem)
    found = stave_two.retrieve("What did Belle say to him?", budget=6)
    assert found.plan.rare_words == ["belle"]
    by_rare_word = [node for node in found.passages if "rare" in found.parts[0].sources[node.id]]
    assert by_rare_word and all("Belle" in node.text for node in by_rare_word)
    # Typed in lower case, several words are a name where the book capitalises them together.
    assert [asked_who(q, context.writes_as_name) for q in ("who is the ghost of christmas past?",
                                                           "who was dick wilkins", "who is the young man")] == [
        "Ghost of Christmas Past", "Dick Wilkins", None]
    # Its line telling its name, after the description it follows (described.py).
    lines = [line.text for line in stave_two.digest(stave_two.retrieve("who is the ghost of christmas past?"))]
    assert lines[1] == '"I am the Ghost of Christmas Past."' and lines[0].startswith("Its hair, which hung")
    # Nor does her name bring in the bells through the question's other
    # words' list: four of these six rang them, the first among them.
    told = stave_two.retrieve("What does Belle tell Scrooge?", budget=6).ranked
    ringing = [node for node in told if re.search(r"\bbells?\b", node.text, re.I)]
    assert told[0] not in ringing and len(ringing) <= 1


def test_a_question_asking_who_is_answered_by_lines_that_name_someone(stave_two):
    from engine.answer.digest import _word_key
    from engine.answer.expected import AGE, NAME, NUMBER, expected_answer, holds_answer
    from engine.answer.planning import content_words

    assert [expected_answer(q) for q in (
        "Who persuaded Anne to end the engagement?", "whom was he waiting for", "What is Judge Miller's dog's name?",
        "Which dog had to be shot?", "Where is Buck shipped?", "How old was Anne?", "How many children has Belle?",
        "Why does Belle release Scrooge?", "When does Scrooge wake?", "What does Belle tell Scrooge?",
        "How does the ball end?")] == [NAME, NAME, NAME, NAME, NAME, AGE, NUMBER, None, None, None, None]
    context = stave_two.context

    def names_someone(sentence, question):
        asked = {_word_key(word, context.rarity) for word in content_words(question)}
        return holds_answer(NAME, sentence, asked, context.rarity, lambda word: _word_key(word, context.rarity))

    assert names_someone('"Dick Wilkins, to be sure!" said Scrooge to the Ghost.', "Who was Scrooge's fellow")
    # Not by a name the question has, a title, a word opening a quotation, or
    # one on every other line of the book (Scrooge's, the Ghost's).
    assert not names_someone("Old Fezziwig laid down his pen.", "Who is Fezziwig?")
    assert not names_someone('"Yes!" said Mr. and Mrs. so-and-so.', "Who danced?")
    assert not names_someone('"Remember it!" cried Scrooge to the Ghost.', "Who danced?")
    assert holds_answer(NUMBER, "There were twenty of them.", set(), context.rarity, str)
    assert not holds_answer(NUMBER, "No one was there.", set(), context.rarity, str)
    # The embedder alone quoted the lines most like each question, none naming the one asked for.
    lines = [line.text for line in stave_two.digest(stave_two.retrieve("Who gives the Christmas ball in the "
                                                                       "warehouse?", budget=6))]
    assert any("Fezziwig" in line for line in lines), lines
    lines = [line.text for line in stave_two.digest(stave_two.retrieve("Who was Scrooge's fellow apprentice?",
                                                                       budget=6))]
    assert any("Dick Wilkins" in line for line in lines), lines


def test_a_possessive_typed_without_its_apostrophe_is_read_with_one(stave_one):
    rarity = stave_one.context.rarity
    # "Who is Scrooges nephew?" had been "“Scrooges” (did you mean Scrooge's?) is not in this book", and "who is
    # scrooges clerk" answered nothing at all.
    assert rarity.with_apostrophes("Who is Scrooges nephew? who is marleys partner") == (
        "Who is Scrooge's nephew? who is marley's partner")
    # Words the book writes as they are typed, and plurals of words that are no names, are left alone; so are
    # words of the English word list ("readers"), and small words ("his" had been "hi's").
    assert rarity.with_apostrophes("Why do the ghosts wail? What is Scrooge's clerk called? Is he bless") == (
        "Why do the ghosts wail? What is Scrooge's clerk called? Is he bless")
    assert rarity.with_apostrophes("Do readers like his chains? Was his partner kind?") == (
        "Do readers like his chains? Was his partner kind?")
    # A book printed with curly apostrophes ("Laurie’s") is counted without them: "lauries" is still hers.
    from engine.answer.vocabulary import Rarity

    curly = Rarity([Node(id=f"p{number}", level=1, kind="passage", section=1, seq=number, text=text) for number, text in
                    enumerate(("Laurie’s grandfather took him home.", "They saw Laurie at the gate.",
                               "Then Laurie laughed.", "Old Hi waved to them, and Hi laughed."))])
    assert curly.with_apostrophes("who is lauries grandfather") == "who is laurie's grandfather"
    assert curly.with_apostrophes("who is his father") == "who is his father"  # it had been "Hi's"
    for typed in ("Who is Scrooges nephew?", "who is scrooges nephew"):
        found = stave_one.retrieve(typed, budget=6)
        assert found.absent == [], typed
        assert any("Scrooge's nephew" in line.text for line in stave_one.digest(found)), typed


def test_a_name_typed_in_lower_case_or_by_itself_is_asked_about_as_if_typed_in_full(stave_one, stave_two):
    from engine.answer.wording import plainly_worded, who_is_asked

    # "What's Scrooge's job?" had been searched for "What's"; the kind of question is told by its verb.
    for typed, plain in (("whats Scrooge's job", "what is Scrooge's job"), ("What's happened to Marley?",
                                                                             "What has happened to Marley?"),
                         ("whos Marley?", "who is Marley?"), ("Where's Scrooge's house?", "Where is Scrooge's house?")):
        assert plainly_worded(typed) == plain, typed
    assert plainly_worded("Whose chain is it?") == "Whose chain is it?"
    assert plainly_worded("Who's viewpoint is it told from?") == "Who's viewpoint is it told from?"  # "whose"
    # Emoji had kept "Who is Marley 🙂" from being read as a who-is question.
    assert plainly_worded("Who is Marley \U0001f642") == "Who is Marley"
    assert plainly_worded("\U0001f47b who is Marley? \U0001f44d\U0001f3fd") == "who is Marley?"
    assert plainly_worded("How much is \u00a35 worth?") == "How much is \u00a35 worth?"
    # "summary of ch 3" had got the whole book in outline.
    for typed, plain in (("summary of ch 3", "summary of chapter 3"), ("What happens in Ch. 12?",
                                                                      "What happens in Chapter 12?"),
                         ("ch3 recap", "chapter 3 recap"), ("what is in chap. iv", "what is in chapter iv"),
                         ("tl;dr", "tldr")):
        assert plainly_worded(typed) == plain, typed
    for kept in ("Which church is it?", "Why does Scrooge chuckle?", "What is chapter 3 called?"):
        assert plainly_worded(kept) == kept, kept
    assert stave_one.retrieve("tl;dr").overview == "outline"
    # The book's title after "in" is the book: its capitals had read as a name of its own.
    from engine.answer.wording import with_the_book_for_its_title

    for typed, title, plain in (
            ("What happens in Little Women?", "Little Women", "What happens in the book?"),
            ("Name the major theme used in The Adventures of Sherlock Holmes?", "The Adventures of Sherlock Holmes",
             "Name the major theme used in the book?"),
            ("Who is the heroine of little women", "Little Women", "Who is the heroine of the book"),
            ("What is the moral of A Christmas Carol?", "A Christmas Carol: A Ghost Story of Christmas",
             "What is the moral of the book?"),
            # Quoted or in italics, it is no quotation of the book: "“Christmas Carol”" had been searched for.
            ('Why does Marley wear a chain in "A Christmas Carol"?', "A Christmas Carol: A Ghost Story of Christmas",
             "Why does Marley wear a chain in the book?"),
            ("Who dies in the novel _Little Women_?", "Little Women", "Who dies in the book?"),
            ("Who is the heroine of \u201cPersuasion\u201d?", "Persuasion", "Who is the heroine of the book?"),
            # The title as what is asked of (its capitals had read as a name: a search).
            ("What is Persuasion about?", "Persuasion", "What is the book about?"),
            ("How does The Sign of the Four end?", "The Sign of the Four", "How does the book end?"),
            ("Who narrates Black Beauty?", "Black Beauty", "Who narrates the book?"),
            ("Summarize Little Women", "Little Women", "Summarize the book")):
        assert with_the_book_for_its_title(typed, title) == plain, typed
    for kept in ("Who wrote Little Women?", "Why is it called Little Women?", "What does Little Women mean?",
                 "Describe Little Women", "Who told Little Women?", "How does Little Women feel?",
                 "What is Little Women holding?"):
        assert with_the_book_for_its_title(kept, "Little Women") == kept, kept
    # The title asked about without its words: asked with them, which the book's lines hold.
    from engine.answer.wording import the_title_written

    for typed in ("What does the title mean?", "What is the significance of the title?", "Why this title?",
                  "Why is the novel called that?", "What does the book's title mean?", "Explain the title."):
        assert the_title_written(typed, "Persuasion") == "Why is the book called Persuasion?", typed
    for kept in ("Why is it called that?", "What is Sir Walter's title?", "Why is the book called Persuasion?"):
        assert the_title_written(kept, "Persuasion") == kept, kept
    title = stave_one.context.book.title
    assert the_title_written("Why is the story called that?", title) == f"Why is the book called {title}?"
    assert the_title_written("Why this title?", "A Christmas Carol: A Ghost Story of Christmas") == (
        "Why is the book called A Christmas Carol?")
    assert any("a Christmas carol" in line.text
               for line in stave_one.digest(stave_one.retrieve("What does the title mean?")))
    assert stave_one.retrieve(f"What happens in {title}?").overview == "outline"
    # "the final scene", "the last thing that happened in chapter 2": how it ends.
    assert stave_one.retrieve("What is the final scene of the book?").overview == "ending"
    assert stave_one.retrieve("What was the last thing that happened in the stave?").overview == "ending"
    assert stave_one.retrieve("What happens last?").overview == "ending"
    assert stave_one.retrieve("Who appears first?").overview == stave_one.retrieve(
        "What is the first scene?").overview == "opening"
    rarity = stave_one.context.rarity
    # Names are told by their capitals: "what is scrooge's job" had searched for a job, not Scrooge's.
    assert rarity.with_names_capitalised("what is scrooge's job? where was marley") == (
        "what is Scrooge's job? where was Marley")
    assert rarity.with_names_capitalised("why is the chain long") == "why is the chain long"
    # A question that capitalises its names itself is taken as typed.
    assert rarity.with_names_capitalised("Why does Marley visit scrooge?") == "Why does Marley visit scrooge?"
    # A name alone, or "tell me about" one, asks who that is; not the book's other words, nor a chapter.
    for typed in ("marley", "Marley?", "tell me about marley", "Tell me more about Jacob Marley."):
        assert who_is_asked(typed, rarity.is_name).lower().startswith("who is "), typed
    for kept in ("chains", "tell me about the chains", "Stave 1", "tell me about stave one", "Mr."):
        assert who_is_asked(kept, rarity.is_name) == kept, kept
    # After an earlier question a name alone asks that question again of them, as before.
    assert who_is_asked("Marley?", rarity.is_name, alone=False) == "Marley?"
    asked = stave_one.retrieve("Who is Marley?")
    for typed in ("marley", "tell me about marley", "whos marley"):
        found = stave_one.retrieve(typed)
        assert found.order == asked.order, typed
        assert stave_one.digest(found)[0].text == stave_one.digest(asked)[0].text, typed
    # A family's name the book writes ("the three Miss Fezziwigs") followed by what is asked of someone.
    two = stave_two.context.rarity
    assert two.with_apostrophes("what is fezziwigs job") == "what is fezziwig's job"
    assert two.with_apostrophes("Who are the Fezziwigs?") == "Who are the Fezziwigs?"


def test_a_slip_of_the_keyboard_is_read_as_the_word_meant_and_said_so(stave_one):
    from engine.answer.spelling import read_as_line, slips

    vocabulary = stave_one.context.rarity.frequency
    # "What does Jo look lik?" was no question about looks, "summarize chaper 3" none about a chapter.
    assert slips("Wat is the chian Marley wears made of?", vocabulary) == [("Wat", "What"), ("chian", "chain")]
    assert slips("summarize chaper 3", vocabulary) == [("chaper", "chapter")]  # a word questions ask with
    # Words, though the book never uses them, British spellings, names and a capitalised first word that may be
    # one ("Scroge": absent.py offers the book's nearest name) are left as typed.
    for kept in ("Who is the protagonist?", "What is foreshadowing?", "Summarise the colour of the chain",
                 "Scroge is who?", "who is frodo", "Why is Marley's ghost here?", "What do his asides say?"):
        assert slips(kept, vocabulary) == [], kept
    typed = stave_one.retrieve("Wat is the chian Marley wears made of?", budget=12)
    assert typed.read_as == [("Wat", "What"), ("chian", "chain")]
    assert read_as_line(typed.read_as) == "Read “Wat” as “What”, “chian” as “chain”."
    assert any("I wear the chain I forged in life" in line.text for line in stave_one.digest(typed))
    assert stave_one.retrieve("What is the chain Marley wears made of?", budget=12).read_as == []


def test_a_name_the_book_never_uses_is_said_to_be_missing(stave_one):
    from engine.answer.absent import absent_line

    def absent(question):
        return stave_one.retrieve(question, budget=3).absent

    # Before, "Who is Gandalf?" got three chance passages and no word that he is not in the book.
    assert absent("Who is Gandalf?") == [{"name": "Gandalf", "closest": None, "alone": True}]
    assert stave_one.retrieve("Who is Gandalf?", budget=3).passages == []  # chance passages passed for evidence
    assert absent("who was gandalf") == [{"name": "gandalf", "closest": None, "alone": True}]
    # A slip of the keyboard gets the book's nearest name.
    assert absent("Why does Scroge count his money?") == [{"name": "Scroge", "closest": "Scrooge", "alone": False}]
    assert stave_one.retrieve("Why does Scroge count his money?", budget=3).passages  # the rest of it is searched
    assert absent_line(absent("Why does Scroge count his money?")) == (
        "\u201cScroge\u201d (did you mean Scrooge?) is not in this book: the evidence is for the rest of the question.")
    # Names the book uses, however written; a part in the story; the author.
    for known in ("Who is Marley?", "who is jacob marley", "What does Scrooge's clerk earn?", "Who is the narrator?",
                  "Who is the man at the door?", "Why did Dickens write about Marley?", "What does MARLEY wear?",
                  "Who is speaking?", "who is talking"):  # a verb, not someone named "speaking"
        assert absent(known) == [], known
    stopped = CancelToken()
    stopped.cancel()  # the evidence alone: no model call
    assert stave_one.ask("Who is Gandalf?", budget=3, planner="code", cancel=stopped).as_dict()["absent"] == [
        {"name": "Gandalf", "closest": None, "alone": True}]


def test_a_name_with_accents_is_found_however_it_is_typed(tmp_path):
    from engine.store import Library

    scenes = ("The rain fell on the square of Yonville, and the chemist closed his shop for the night.",
              "Emma walked by the river with Léon, who spoke of music and of the sea.",
              "At the inn Héloïse served the soup while the doctor read his newspaper.",
              "The market was loud with farmers, and the cafe by the church was full; the café on the hill was not.")
    body = "\n\n".join(f"{scene} " * 3 for scene in scenes)
    (tmp_path / "yonville.txt").write_text("A TALE OF YONVILLE\n\nby Nobody\n\n\n" + "".join(
        f"CHAPTER {number}\n\n{body}\n\n" for number in ("I", "II", "III")), encoding="utf-8")
    library = Library(tmp_path / "home")
    answering = AnswerSession(library, library.import_book(tmp_path / "yonville.txt").book_id,
                              embedder=open_embedder(ModelSettings()))
    answering.ensure_indexed()
    rarity = answering.context.rarity
    # The vocabulary had counted "Léon" as "on": "who is léon" was no name,
    # and "Who is Leon?" typed on an English keyboard was "not in this book".
    assert rarity.is_name("Léon") and rarity.is_name("leon") and rarity.is_name("Heloise")
    assert rarity.spelled_as_written("Who is Leon? who is heloise") == "Who is Léon? who is héloïse"
    assert rarity.spelled_as_written("Is the cafe open?") == "Is the cafe open?"  # the book writes it both ways
    for question in ("Who is Leon?", "who is léon", "Why does Leon walk by the river?"):
        found = answering.retrieve(question, budget=3)
        assert found.absent == [] and "Léon" in found.ranked[0].text, question
        assert any("Léon" in line.text for line in answering.digest(found)), question
    assert "Héloïse" in answering.digest(answering.retrieve("who is heloise", budget=3))[0].text
    assert answering.retrieve("Who is Leonn?", budget=3).absent == [
        {"name": "Leonn", "closest": "Léon", "alone": True}]


def test_who_the_main_characters_are_is_answered_by_the_people_named_most(tmp_path):
    from engine.answer.people import main_people
    from engine.answer.places import main_places
    from engine.answer.vocabulary import as_written
    from engine.store import Library

    scenes = ("Anne walked with Captain Wentworth to the shop, and Anne said nothing of it.",
              "Later Anne walked with Lady Russell in Bath, and Anne waited in Bath for her answer.",
              "The Musgroves dined with Mr Musgrove at Uppercross, and Anne sang for the Admiral.",
              "Mary told Anne that Wentworth was come, and Lady Russell sighed at Merry Christmas.")
    # What Anne calls Lady Russell, then what the telling says she is.
    told = ("\u201cLady Russell is a dreadful old tyrant,\u201d said Anne. "
            "Lady Russell was a widow of steady age and character.")
    chapters = [("I", " ".join(scenes) + " " + told), ("II", " ".join(scenes)),
                ("III", "At Lyme poor Louisa fell, and Anne ran for help while Louisa lay still. " + " ".join(scenes))]
    (tmp_path / "people.txt").write_text("A TALE OF PEOPLE\n\nby Nobody\n\n\n" + "".join(
        f"CHAPTER {number}\n\n{text}\n\n{text}\n\n" for number, text in chapters), encoding="utf-8")
    library = Library(tmp_path / "home")
    answering = AnswerSession(library, library.import_book(tmp_path / "people.txt").book_id,
                              embedder=open_embedder(ModelSettings()))
    answering.ensure_indexed()
    context = answering.context
    # Not a place ("in Bath"), a family, a title alone, a greeting; "Wentworth" is Captain Wentworth.
    people = main_people(context.book, context.rarity)
    assert people == ["Anne", "Lady Russell", "Captain Wentworth", "Mr Musgrove", "Louisa"]
    assert not {"Bath", "Uppercross", "Lyme", "Musgroves", "Admiral", "Merry Christmas", "Wentworth"} & set(people)
    # A name of two words whose first the book writes in lower case alone: "Tiny Tim" (a tiny cup) had been left out.
    (tmp_path / "tiny").mkdir()
    scene = ("Bob carried Tiny Tim home on his shoulder, and Tiny Tim sang. Bob gave Tiny Tim a tiny cup of punch. "
             "A merry Christmas, said Bob; Merry Christmas, said Tiny Tim.")
    carol, vocabulary = _parsed_with_its_vocabulary(tmp_path / "tiny", "A CAROL\n\nby Nobody\n\n\n" + "".join(
        f"CHAPTER {number}\n\n{scene}\n\n{scene}\n\n" for number in ("I", "II", "III")))
    assert main_people(carol, vocabulary) == ["Tiny Tim", "Bob"]
    # Before, the whole book in outline: chapter openings that named no one in particular.
    found = answering.retrieve("Who are the main characters?")
    assert found.overview == "people" and [part.part.text for part in found.parts] == people
    lines = answering.digest(found)
    assert [line.part for line in lines] == list(range(len(people)))
    assert all(as_written(people[line.part]).search(line.text) for line in lines)
    assert lines[people.index("Louisa")].section == 3  # where the book first names her
    # Where the telling says who someone is, soon after first naming them, rather than any first naming.
    assert lines[people.index("Lady Russell")].text == "Lady Russell was a widow of steady age and character."
    assert lines[people.index("Anne")].text == scenes[0]
    # Up to the reader's place, only those named so far.
    in_one = context.book.sections[0].end - 10
    early = answering.retrieve("Who are the characters so far?", at=in_one)
    assert "Louisa" not in [part.part.text for part in early.parts]
    # Read up to just before what the telling says of Lady Russell: that line is not shown, nothing past the place is.
    before_told = context.book.text.index("Lady Russell was a widow")
    so_far = answering.retrieve("Who are the characters so far?", at=before_told)
    lines = answering.digest(so_far)
    assert "Lady Russell" in [part.part.text for part in so_far.parts]
    assert all(line.end <= before_told for line in lines) and not any("widow" in line.text for line in lines)
    # Where it is set: the places it names most, alike (Lyme, named twice, too seldom to tell).
    assert main_places(context.book, context.rarity) == ["Bath", "Uppercross"]
    found = answering.retrieve("Where is the story set?")
    assert found.overview == "places" and [part.part.text for part in found.parts] == ["Bath", "Uppercross"]
    assert [line.text.count("Bath") > 0 for line in answering.digest(found)][:1] == [True]
    # LiteraryQA's wording had been searched for "majority" and "occur".
    for asked in ("Where did the majority of the story occur?", "Where does most of the action happen?"):
        assert answering.retrieve(asked).overview == "places", asked
    # "Who is the protagonist?" had been searched for lines holding "protagonist".
    for asked in ("Who is the protagonist?", "Who is the hero of the story?", "who is the heroine"):
        assert answering.retrieve(asked).overview == "people", asked


def test_a_main_characters_line_names_them_though_their_sentence_runs_past_the_passages_end(tmp_path):
    from engine.store import Library

    # First told of in a sentence longer than a passage (Persuasion's "...her brother, Captain Wentworth, is just
    # returned to England..."): the passage's first sentence, which names someone else, had been quoted for him.
    rain = ", ".join(f"and the rain fell on the {road} road" for road in ("long", "wet", "old", "dark") * 24)
    told = ("When the Crofts called this morning they happened to say that her brother, Captain Harcourt, was just "
            f"returned to England and coming to see them, {rain}.")
    scene = ("Anne walked with Captain Harcourt to the shop, and Anne said nothing of it. Later Anne waited for "
             "Captain Harcourt in Bath.")
    (tmp_path / "rain.txt").write_text(
        "A TALE\n\nby Nobody\n\n\nCHAPTER I\n\nAnne sat at home all the winter with her father, and Anne read to "
        f"him.\n\n{told}\n\n" + "".join(f"CHAPTER {number}\n\n{scene}\n\n{scene}\n\n" for number in ("II", "III")))
    library = Library(tmp_path / "home")
    answering = AnswerSession(library, library.import_book(tmp_path / "rain.txt").book_id,
                              embedder=open_embedder(ModelSettings()))
    answering.ensure_indexed()
    found = answering.retrieve("Who are the main characters?")
    [harcourt] = [part for part in found.parts if part.part.text == "Captain Harcourt"]
    text = answering.context.book.text
    assert harcourt.passages[0].end < text.index(told) + len(told)  # the sentence runs past the passage
    lines = {found.parts[line.part].part.text: line.text for line in answering.digest(found)}
    assert lines["Captain Harcourt"] == told
    # Up to a reader's place inside that sentence, no further.
    inside = text.index("the dark road")
    so_far = answering.retrieve("Who are the main characters so far?", at=inside)
    assert all(line.end <= inside for line in answering.digest(so_far))


def test_where_a_book_naming_no_place_often_is_set_is_answered_by_its_outline_saying_why(carol):
    from engine.answer.overview import NO_PLACES, overview_evidence

    # A Christmas Carol names London twice and "the city" in lower case: its outline had been shown as if asked
    # what the book is about.
    found = carol.retrieve("Where is the story set?")
    assert found.overview == NO_PLACES and found.plan.scope == "GLOBAL" and len(found.passages) == 12
    assert overview_evidence(found.overview) == "the book in outline, as it names no place often enough to list"
    assert len({line.section for line in carol.digest(found)}) == 5  # a line of each stave, as for its outline


def test_who_someone_the_book_never_names_is_gets_no_made_up_answer(session):
    assert session.writes_answers  # the default model would write a draft from chance passages
    result = session.ask("Who is Gandalf?", budget=3, planner="code")
    assert result.retrieval.absent == [{"name": "Gandalf", "closest": None, "alone": True}]
    assert result.written is False and result.answer == "" and result.tokens["prompt"] == 0
    assert result.digest == [] and result.citations == []


def test_a_short_line_that_introduces_someone_is_quoted(tmp_path):
    from engine.store import Library

    # Moby-Dick's first two chapters (Project Gutenberg #2701, public domain).
    library = Library(tmp_path / "home")
    book_id = library.import_book(ROOT / "tests" / "fixtures" / "moby-dick-excerpt.txt").book_id
    answering = AnswerSession(library, book_id, embedder=open_embedder(ModelSettings()))
    answering.ensure_indexed()
    # Lines under four words were left out, the book's first among them.
    lines = answering.digest(answering.retrieve("who is ishmael?", budget=6))
    assert lines[0].text == "Call me Ishmael."
    # Not for other questions: three words say too little ("Ishmael, said I").
    assert all(len(line.text.split()) > 3 for line in answering.digest(answering.retrieve("Why does he go to sea?")))
    # Who tells it: the telling says "I" (it had got the chapters' openings as if the book were asked about).
    told = answering.retrieve("Who is the narrator?")
    assert told.overview == "first person" and answering.digest(told)[0].text == "Call me Ishmael."


def test_the_one_telling_a_book_is_named_where_others_speak_to_them_or_where_its_title_names_them(tmp_path):
    from engine.answer.overview import NAMED_TELLER, overview_evidence
    from engine.store import Library

    library = Library(tmp_path / "home")
    embedder = open_embedder(ModelSettings())

    def indexed(title: str, chapters: list[str]) -> AnswerSession:
        path = tmp_path / f"{title.lower().replace(' ', '-')}.txt"
        path.write_text(f"{title}\n\nby Nobody\n\n\n" + "".join(
            f"CHAPTER {number}\n\n{text}\n\n" for number, text in zip(("I", "II", "III", "IV"), chapters)))
        answering = AnswerSession(library, library.import_book(path).book_id, embedder=embedder)
        answering.ensure_indexed()
        return answering

    # Told by a man others speak to as "Watson" in every chapter; the telling says "I", never his name. An old
    # sailor's boy is spoken to as well, in one chapter of four: no teller for that.
    chapters = [
        "I had been ill all winter, and my old wound ached whenever the fog came up from the river. Holmes sat by "
        "the fire with his violin across his knees. \u201cYou look pale, Watson,\u201d said he. \u201cI am tired, "
        "Holmes,\u201d I answered, and I took the chair opposite him. I watched him fill his pipe while I read.",
        "We drove to Norwood in a cab, and I held the lady's letter in my hand all the way. Holmes said nothing "
        "until the horses stopped. \u201cKeep your revolver ready, Watson,\u201d he whispered. I nodded, and I felt "
        "my heart beat as we climbed the dark stair of the house.",
        "I slept late, for I was weary. Holmes had gone out before I woke, and I found his note on the table. "
        "\u201cYou did well last night, Watson,\u201d it said. I put it in my pocket and I waited for him.",
        "The old sailor met us at the wharf with his boy. \u201cCome along, Jack,\u201d said the old man. "
        "\u201cFetch the lantern, Jack!\u201d I followed them down to the water, and Holmes paid the man. I confess "
        "that I was proud of my friend that night, and I said so."]
    watson = indexed("THE FOG", chapters)
    teller = watson.context.teller
    assert teller is not None and (teller.name, teller.in_title) == ("Watson", False)
    text = watson.context.book.text
    assert text[teller.shown_at:].startswith("Watson,\u201d said he")
    told = watson.retrieve("Who narrates the book?")  # "narrates" had been searched for: chance lines
    assert told.overview == NAMED_TELLER and told.stated == (
        "The Fog is told in the first person by Watson: its telling says \u201cI\u201d, and others speak to the "
        "one telling it as \u201cWatson\u201d.")
    lines = watson.digest(told)
    assert lines[0].text == "\u201cYou look pale, Watson,\u201d said he." and len(lines) >= 2
    assert all("Watson" not in line.text for line in lines[1:])  # then where the telling says "I"
    assert overview_evidence(NAMED_TELLER).startswith("where the book first names the one telling it")
    result = watson.ask("Who is the narrator?", planner="code")  # stated: no model call
    assert result.answer == told.stated and result.tokens["prompt"] == 0
    # Asked of a chapter ("narrates" had sent it to a search): that chapter is told so, from its own lines.
    for asked in ("Who narrates chapter 2?", "Who is the narrator of chapter 2?"):
        chapter = watson.retrieve(asked)
        assert chapter.overview == NAMED_TELLER and chapter.stated.startswith(
            "Chapter II of The Fog is told in the first person by Watson"), asked
        assert {node.section for node in chapter.passages} == {2}, asked
    # A reader who has not reached the line naming him is not told the name.
    early = watson.retrieve("Who is the narrator?", until=text.index("\u201cYou look pale"))
    assert early.overview == "first person" and early.stated == (
        "The Fog is told in the first person, by one of its people: its telling says \u201cI\u201d.")
    # The same book without Watson: the boy spoken to in one chapter of four is no teller.
    spoken_to_watson = r"\u201c[^\u201d]*Watson,\u201d (?:said he|he whispered|it said)\."
    alone = indexed("THE WHARF", [re.sub(spoken_to_watson, "", chapter) for chapter in chapters])
    assert "Watson" not in alone.context.book.text and "Jack" in alone.context.book.text
    assert alone.context.teller is None and alone.retrieve("Who narrates the book?").overview == "first person"
    # Spoken to by name in one chapter of four, too seldom to tell; the book calls itself his reminiscences (A Study
    # in Scarlet's narrator had been "one of its people").
    moor = tmp_path / "the-moor.txt"
    moor.write_text("THE MOOR\n\nby Nobody\n\n\n(_Being a reprint from the reminiscences of_ JOHN H. WATSON, M.D.)"
                    "\n\n" + "".join(f"CHAPTER {number}\n\n{text}\n\n" for number, text in zip(
                        ("I", "II", "III", "IV"), [re.sub(spoken_to_watson, "", chapter) for chapter in chapters[:3]]
                        + ["\u201cDr. Watson, Mr. Holmes,\u201d said the sailor, introducing us. " + chapters[3]])))
    reminiscences = AnswerSession(library, library.import_book(moor).book_id, embedder=embedder)
    reminiscences.ensure_indexed()
    teller = reminiscences.context.teller
    assert teller is not None and teller.name == "Watson"
    assert teller.written_as == "reminiscences of John H. Watson, M.D."
    assert reminiscences.context.book.text[teller.shown_at:].startswith("Watson, Mr. Holmes")
    assert reminiscences.retrieve("Who tells the story?").stated == (
        "The Moor is told in the first person by Watson: the book calls itself the \u201creminiscences of John H. "
        "Watson, M.D.\u201d, and its telling says \u201cI\u201d.")
    # The memoirs of one the title names are another's telling of them ("Memoirs of Sherlock Holmes").
    memoirs = tmp_path / "memoirs.txt"
    memoirs.write_text(moor.read_text().replace("THE MOOR", "MEMOIRS OF JOHN WATSON").replace(
        "reminiscences of_ JOHN H. WATSON", "memoirs of_ JOHN WATSON"))
    not_his = AnswerSession(library, library.import_book(memoirs).book_id, embedder=embedder)
    not_his.ensure_indexed()
    assert not_his.context.teller is None
    # Told by a horse the title names, which only others call by its name.
    bess = indexed("BLACK BESS", [
        "The first place that I can remember was a wide meadow with a pond in it. My mother was a quiet mare, and I "
        "ran beside her all day. When I was four years old the squire came to look at me. \u201cWhat shall we call "
        "her?\u201d said his wife. \u201cShe is as black as night; call her Black Bess,\u201d said the squire.",
        "I was taken to the town, and I learned to wear a bridle and a saddle. The groom was kind to me, and I did "
        "my best for him. \u201cSteady, Black Bess,\u201d he would say, and I stood still for him.",
        "Many years after, I stood in a quiet field again. I was old, and my work was done, and I was content."])
    teller = bess.context.teller
    assert teller is not None and (teller.name, teller.in_title) == ("Black Bess", True)
    told = bess.retrieve("Who tells the story?")
    assert told.stated == ("Black Bess is told in the first person by Black Bess, whom its title names: its "
                           "telling says \u201cI\u201d, not \u201cBlack Bess\u201d.")
    assert [line.text for line in bess.digest(told)][:2] == [
        "\u201cShe is as black as night; call her Black Bess,\u201d said the squire.",
        "I was taken to the town, and I learned to wear a bridle and a saddle."]
    # "the narrator" in a question about something else is searched as the teller's name (the book never writes
    # "narrator"), once the reader has read the line that shows it; the plan keeps the question's words.
    from engine.answer.narrator import with_the_teller_named
    assert with_the_teller_named("What does the groom tell the narrator's mother?", teller) == (
        "What does the groom tell Black Bess's mother?")
    assert with_the_teller_named("What does the narrator hear?", teller, until=teller.shown_at) == (
        "What does the narrator hear?")
    assert with_the_teller_named("What does the narrator hear?", None) == "What does the narrator hear?"
    assert bess.retrieve("What does the groom say to the narrator?").plan.parts[0].text.endswith("the narrator")
    # What becomes of the narrator asks of her, by name, not who tells the book (until her name is read).
    for asked in ("What happens to the narrator?", "Where does the narrator end up?"):
        befalls = bess.retrieve(asked)
        assert befalls.overview is None and "Black Bess" in befalls.plan.question, asked
        assert bess.retrieve(asked, until=teller.shown_at).overview == "first person", asked
    # A place the title names, said only in dialogue, tells nothing ("Treasure Island").
    island = indexed("SKULL ISLAND", [
        "I was a boy at the inn when the captain came. \u201cSkull Island!\u201d he cried, and I shivered.",
        "We sailed at dawn, and I kept the watch. \u201cWe sail for Skull Island,\u201d said the mate to me.",
        "I saw the hill at last, and I knew that my fortune was made. \u201cSkull Island,\u201d said I."])
    assert island.context.told_in_first_person and island.context.teller is None
    # The one telling it is among the main people, first where the book names them less than others: the telling
    # says "I". Watson is named as often as the others.
    cast = bess.retrieve("Who are the main characters?")
    assert cast.overview == "people" and cast.plan.parts[0].text == "Black Bess"
    assert "call her Black Bess" in bess.digest(cast)[0].text
    assert [part.text for part in watson.retrieve("Who are the main characters?").plan.parts].count("Watson") == 1


def test_a_book_no_one_in_it_tells_is_said_to_be_told_in_the_third_person(stave_one):
    from engine.answer.narrator import outside_dialogue, told_in_first_person

    # Dialogue is left out, a speech over several paragraphs too (each opens with a quotation mark).
    speech = '"I am here," she said.\n\n"I was there all day.\n\n"And I stayed."\n\nShe went home alone.'
    assert [speech[begin:end].strip() for begin, end in outside_dialogue(speech)] == ["she said.", "She went home alone."]
    assert not told_in_first_person(speech) and told_in_first_person("I went to sea, and my ship sailed.")
    opening = min((node for node in stave_one.context.store.nodes(kind="passage") if node.section),
                  key=lambda node: node.start)
    # LiteraryQA's wording had been searched ("narrative", "written"): lines holding "narrative" by chance.
    for question in ("Who is the narrator?", "Who tells the story?", "What is the point of view?",
                     "What style of narrative is used in the story?", "What point of view is the book written in?",
                     # A book of stories asked about as such; and the person asked for ("stories" had been searched).
                     "What point of view are the stories told in?", "In which person is it told?",
                     "Which character is the narrator for the majority of the stories?"):
        told = stave_one.retrieve(question)
        assert told.overview == "third person" and [node.id for node in told.passages] == [opening.id], question
        assert told.stated.startswith("A Christmas Carol, Stave One is told in the third person"), question
        assert stave_one.digest(told)[0].passage_id == opening.id


def test_the_contents_say_how_many_chapters_there_are_and_what_they_are_called(session):
    from engine.errors import ChapterhouseError

    # "How many chapters?" searched the text for "chapters" (chance lines).
    book, context = session.context.book, session.context
    first_passages = {section.ordinal: context.passages_overlapping(section.body_start, section.body_start)[0].id
                      for section in book.sections}
    contents = session.retrieve("How many chapters are there?")
    assert contents.overview == "contents" and contents.passages == []
    assert contents.stated == "Black Beauty has 3 chapters, from Chapter 1: My Early Home to Chapter 3: My Breaking In."
    headings = session.digest(contents)  # each as printed, a link to its chapter
    assert [line.text for line in headings] == ["01 My Early Home", "02 The Hunt", "03 My Breaking In"]
    assert all(book.text[line.start:line.end] == line.text and line.passage_id == first_passages[line.section]
               for line in headings)
    for question, stated in (("What is chapter 2 called?", "Chapter 2 is called \u201cThe Hunt\u201d."),
                             ('Which chapter is called "The Hunt"?', "Chapter 2 is called \u201cThe Hunt\u201d."),
                             ("Which chapter is My Breaking In?", "Chapter 3 is called \u201cMy Breaking In\u201d."),
                             ("What is the title of the last chapter?",
                              "Chapter 3 is called \u201cMy Breaking In\u201d.")):
        named = session.retrieve(question)
        assert named.stated == stated, question
        assert [line.section for line in session.digest(named)] == [int(stated.split()[1])]
    here = session.retrieve("What is this chapter called?", at=book.sections[2].body_start + 10)
    assert here.stated == "Chapter 3 is called \u201cMy Breaking In\u201d."
    # Up to a reading limit: the count, and only the headings of the chapters begun.
    limited = session.retrieve("List the chapters", until=book.sections[1].start + 100)
    assert limited.stated.startswith("Black Beauty has 3 chapters; you have begun 2 of them")
    assert [line.section for line in session.digest(limited)] == [1, 2]
    with pytest.raises(ChapterhouseError, match="Chapter 3: My Breaking In lies past the reading limit"):
        session.retrieve("What is chapter 3 called?", until=book.sections[1].start + 100)
    part = session.retrieve("What is the first part called?")  # the excerpt's chapters are all in Part I
    assert part.stated == ("Part I has no title of its own; its 3 chapters run from Chapter 1: My Early Home to "
                           "Chapter 3: My Breaking In.")
    counted = session.retrieve("How many chapters are there in chapters 2 to 3?")
    assert counted.stated == "There are 2 chapters, from Chapter 2: The Hunt to Chapter 3: My Breaking In."


def test_a_book_of_adventures_is_asked_how_many_stories_it_has(tmp_path):
    from engine.answer.bookfacts import book_fact
    from engine.importer import parse_book

    tales = "".join(f"ADVENTURE {number}. THE {title}\n\n" + f"Holmes went to see the {title.lower()}. " * 40 + "\n\n"
                    for number, title in (("I", "RED LEAGUE"), ("II", "BLUE CARBUNCLE"), ("III", "COPPER BEECHES")))
    (tmp_path / "tales.txt").write_text(f"THE ADVENTURES\n\nby Nobody\n\n\n{tales}", encoding="utf-8")
    book = parse_book(tmp_path / "tales.txt")
    assert len(book.sections) == 3
    for question in ("How many stories are in the book?", "How many tales are there?",
                     "How many adventures are there?"):
        kind, stated = book_fact(question, book, [])
        assert kind == "contents" and stated.startswith("The Adventures has 3 adventures"), question


def test_a_part_asked_about_in_a_book_not_in_parts_is_said_to_be_none():
    from engine.answer.bookfacts import book_fact
    from engine.answer.named import sections_named_in
    from engine.importer import parse_book
    from engine.paths import sample_book_path

    carol = parse_book(sample_book_path())  # five staves, no parts
    whole = ("A Christmas Carol: A Ghost Story of Christmas is not divided into parts; it has 5 staves, from "
             "Stave I: Marley's Ghost to Stave V: The End of It.")
    # The part had been let go: the whole book's count as if it answered, or "the first volume" its first stave.
    for question, stated in (("How many staves are in part 2?", whole), ("What is part 3 called?", whole),
                             ("List the chapters of part two", whole),
                             ("What is the first volume called?", whole.replace("into parts", "into volumes"))):
        assert book_fact(question, carol, sections_named_in(question, carol)[0]) == ("contents", stated), question
    # About the story in its first part: searched, as before ("part one of the story" may be its beginning).
    assert book_fact("What happens in part one?", carol, sections_named_in("What happens in part one?", carol)[0]) \
        is None


def test_who_wrote_the_book_is_answered_from_its_record(session):
    # "Who wrote this book?" quoted a line that says "wrote". Who wrote it, what it is called, when it came out:
    # its record, and its title page quoted (in no passage).
    book = session.context.book
    for question, stated in (("Who wrote this book?", "Black Beauty is by Anna Sewell."),
                             ("Who is the author of Black Beauty?", "Black Beauty is by Anna Sewell."),
                             ("What is this book called?", "This book is Black Beauty, by Anna Sewell."),
                             ("When was it published?",
                              "Black Beauty, by Anna Sewell: the book's opening pages give the year 1877.")):
        record = session.retrieve(question)
        assert (record.overview, record.stated, record.passages) == ("record", stated, []), question
    [title_page] = session.digest(record)
    assert (title_page.label, title_page.passage_id, title_page.section) == ("Title page", "", None)
    assert title_page.text == "BLACK BEAUTY The Autobiography of a Horse by Anna Sewell [English Quaker -- 1820-1878.]"
    assert " ".join(book.text[title_page.start:title_page.end].split()) == title_page.text
    # The record is the answer: no model is asked.
    result = session.ask("Who is the author?")
    assert (result.answer, result.lead, result.tokens["prompt"]) == ("Black Beauty is by Anna Sewell.", "answer", 0)
    assert result.as_dict()["stated"] == result.answer


def test_how_long_the_book_is_is_counted_from_its_chapters(session):
    # Its words counted, pages and hours of reading; its longest chapter; how much is left.
    book = session.context.book
    words = [len(book.text[section.start:section.end].split()) for section in book.sections]
    length = session.retrieve("How long will it take me to read?")
    assert length.overview == "length" and session.digest(length) == []
    assert length.stated == (f"Black Beauty runs to {sum(words):,} words in 3 chapters, about "
                             f"{round(sum(words) / 300)} pages: about 15 minutes of reading at 250 words a minute.")
    longest = book.sections[words.index(max(words))]
    assert session.retrieve("Which chapter is the longest?").stated == (
        f"Of the 3 chapters of Black Beauty, the longest is {longest.display_name}, at {max(words):,} words.")
    at = book.sections[1].body_start  # the heading's words read
    unread = len(book.text[at:book.sections[1].end].split()) + words[2]
    left = session.retrieve("How much is left?", at=at)
    assert left.stated.startswith(f"From where you are in Chapter 2: The Hunt, {unread:,} of its {sum(words):,} "
                                  "words are left")
    assert "which is not known here" in session.retrieve("How much is left?").stated  # no place given
    for question in ("What chapter am I in?", "Where am I?", "How far have I read?"):
        place = session.retrieve(question, at=at)
        assert place.overview == "length" and place.stated.startswith(
            f"You are in Chapter 2: The Hunt, {(sum(words) - unread) / sum(words):.0%} of the way through Black "
            f"Beauty (about page {round((sum(words) - unread) / 300)} of {round(sum(words) / 300)}), with "
            "about "), question
    assert session.retrieve("Where am I?").stated.startswith("Where you are reading is not known here")
    chapter_left = session.retrieve("How long until the end of this chapter?", at=at)
    assert chapter_left.stated.startswith(f"From where you are, {unread - words[2]:,} of the {words[1]:,} words of "
                                          "Chapter 2: The Hunt are left")
    second = session.retrieve("How long is chapter 2?")
    assert second.stated.startswith(f"Chapter 2: The Hunt runs to {words[1]:,} words")
    assert [line.section for line in session.digest(second)] == [2]


def test_how_often_a_name_or_a_word_is_used_is_counted_in_the_text(session):
    # Counted in the text, the first use in each chapter its evidence.
    book = session.context.book
    body_start = book.sections[0].start
    gordons = len(re.findall(r"\bGordon\b", book.text[body_start:]))
    gordon = session.retrieve("how many times is gordon mentioned?")
    assert gordon.overview == "count" and gordon.plan.parts[0].anchors == ["Gordon"]  # as the book writes it
    assert gordon.stated.startswith(f"\u201cGordon\u201d is written {gordons} times in Black Beauty, in ")
    # A word the book does not write as a name is how often something happens: searched as before.
    assert session.retrieve("How many times is the master mentioned?").overview is None
    meadows = [body_start + found.start() for found in re.finditer(r"(?i)\bmeadow\b", book.text[body_start:])]
    meadow = session.retrieve("How often does the word 'meadow' appear?")
    assert meadow.overview == "count" and meadow.stated.startswith(
        f"\u201cmeadow\u201d is written {len(meadows)} times in Black Beauty, in ")
    # No more than twelve uses: the passage of each (it had been the first in each chapter only); quoted each
    # where they are no more than six, else a passage's first, of the first, middle and last passage.
    holding = list(dict.fromkeys(session.context.passages_overlapping(at, at)[-1].id for at in meadows))
    assert 6 < len(meadows) <= 12 and [node.id for node in meadow.passages] == holding
    assert [line.passage_id for line in session.digest(meadow)] == [holding[0], holding[len(holding) // 2],
                                                                   holding[-1]]
    assert all("meadow" in line.text.lower() for line in session.digest(meadow))
    saddles = session.retrieve("How many times is the word saddle used?")
    assert saddles.stated.startswith("\u201csaddle\u201d is written 4 times")
    lines = session.digest(saddles)  # each use's sentence, once (two are in one)
    assert len(lines) == 3 and all(any(line.start <= at < line.end for line in lines) for at in saddles.uses)
    # Many: the passage of its first use in each chapter.
    horses = session.retrieve("How many times is the word 'horse' used?")
    assert len(horses.uses) > 12 and [node.section for node in horses.passages] == sorted(
        {book.section_at(at).ordinal for at in horses.uses})
    assert all(node.start <= min(at for at in horses.uses if book.section_at(at).ordinal == node.section) < node.end
               for node in horses.passages)
    assert session.retrieve("How often does the old horse run?").overview is None  # how often it happens: searched
    # Up to a reading limit: only the uses before it, and no passage shown past it.
    last_chapter = book.section_at(meadows[-1]).ordinal
    limit = min(at for at in meadows if book.section_at(at).ordinal == last_chapter) + 20  # inside a passage
    read = session.retrieve("How often does the word 'meadow' appear?", until=limit)
    assert read.stated.startswith(f"\u201cmeadow\u201d is written {sum(at < limit for at in meadows)} times in "
                                  "Black Beauty up to where you have read")
    assert read.passages[-1].section == last_chapter and all(node.end <= limit for node in read.passages)


def test_how_often_someone_says_a_word_counts_the_lines_the_book_gives_them():
    from engine.answer.counting import how_often
    from engine.importer import parse_book
    from engine.paths import sample_book_path

    carol = parse_book(sample_book_path())

    def paragraph(at: int) -> str:
        return " ".join(carol.text[carol.text.rfind("\n\n", 0, at):carol.text.find("\n\n", at)].split())

    # It had said how often "humbug" is written (9 times), the nephew's two among them.
    phrase, stated, found = how_often("How many times does Scrooge say humbug?", carol)
    assert phrase == "humbug" and stated == (
        "Scrooge says \u201chumbug\u201d 6 times where the book names who is speaking, in Stave I: Marley's Ghost; "
        "\u201chumbug\u201d is written 9 times in A Christmas Carol: A Ghost Story of Christmas in all.")
    assert paragraph(found[0]) == '"Bah!" said Scrooge, "Humbug!"'
    assert all("Scrooge" in paragraph(at) and "nephew" not in paragraph(at) for at in found)
    assert how_often("How many times is humbug said by Scrooge?", carol)[2] == found
    nephew = how_often("How often does Scrooge's nephew say humbug?", carol)
    assert nephew[1].startswith("Scrooge's nephew says \u201chumbug\u201d twice where the book names who is speaking")
    assert all(re.search(r"(?:said|cried) Scrooge's nephew", paragraph(at)) for at in nephew[2])
    # Passers-by wishing him a merry Christmas in a paragraph about him are not him.
    merry = how_often('How many times does Scrooge say "Merry Christmas"?', carol)
    assert merry[2] and not any("fellows said" in paragraph(at) for at in merry[2])
    assert how_often("How many times does Fred say humbug?", carol)[1].startswith(
        "Where the book names who is speaking, Fred never says \u201chumbug\u201d; "
        "\u201chumbug\u201d is written 9 times")
    # Up to a reading limit; no one named, all uses as before.
    limit = found[3] + len("humbug")
    assert how_often("How many times does Scrooge say humbug?", carol, until=limit)[1].startswith(
        "Up to where you have read, Scrooge says \u201chumbug\u201d 4 times where the book names who is speaking, in "
        "Stave I: Marley's Ghost; \u201chumbug\u201d is written 5 times in")
    assert how_often("How many times does he say humbug?", carol)[1].startswith("\u201chumbug\u201d is written 9 times")


def test_which_chapters_someone_is_in_is_answered_from_the_text(session):
    from engine.answer.counting import chapters_naming
    from engine.importer import parse_book
    from engine.paths import sample_book_path

    # It had been a search for scenes like the question: lines from some of them, not which they are.
    carol = parse_book(sample_book_path())
    title = "A Christmas Carol: A Ghost Story of Christmas"
    for question, stated in (
            ("In which staves does Marley appear?",
             f"In {title}, \u201cMarley\u201d is in 4 of its 5 staves (36 times in all): Staves I\u2013III and V."),
            ("Which chapters mention Fezziwig?",
             f"In {title}, \u201cFezziwig\u201d is only in Stave II: The First of the Three Spirits (19 times)."),
            ("What chapters is Tiny Tim in?",
             f"In {title}, \u201cTiny Tim\u201d is in 3 of its 5 staves (22 times in all): Stave III: The Second "
             "of the Three Spirits, Stave IV: The Last of the Spirits and Stave V: The End of It."),
            ("Which chapters mention 'the knocker'?",
             f"In {title}, \u201cthe knocker\u201d is in 2 of its 5 staves (4 times in all): Stave I: Marley's Ghost "
             "and Stave V: The End of It.")):
        assert chapters_naming(question, carol)[1] == stated, question
    # Not a name the book writes with a capital, nor quoted: a scene, searched.
    assert chapters_naming("Which chapter is the knocker in?", carol) is None
    assert chapters_naming("Who is Marley?", carol) is None
    # Through the session: the count's evidence, up to a reading limit.
    book = session.context.book
    gordon = session.retrieve("In which chapters does Squire Gordon appear?")
    assert gordon.overview == "count" and gordon.stated == (
        "In Black Beauty, \u201cSquire Gordon\u201d is in 2 of its 3 chapters (twice in all): Chapter 2: The Hunt and "
        "Chapter 3: My Breaking In.")
    assert {node.section for node in gordon.passages} == {2, 3}
    daniel = session.retrieve("which chapters is daniel in", until=book.sections[2].start)
    assert daniel.stated == ("In Black Beauty up to where you have read, \u201cDaniel\u201d is only in Chapter 1: My "
                             "Early Home (once).")


def test_when_the_story_is_set_is_answered_by_the_years_or_times_of_year_its_text_names(tmp_path):
    from engine.answer.counting import years_named
    from engine.importer import parse_book
    from engine.paths import sample_book_path

    text = (ROOT / "tests" / "fixtures" / "three-chapters.txt").read_text()
    # Years as a text writes them, and numbers that are no years: a sum, thousands, a price.
    text = text.replace("01 My Early Home\n", "01 My Early Home\n\nIt was in the spring of 1850, and the farm was "
                        "worth 1,500 pounds, or \u00a31800 at the most.\n", 1)
    text = text.replace("03 My Breaking In\n", "03 My Breaking In\n\nBy June 15, 1852, I was four years old.\n", 1)
    (tmp_path / "years.txt").write_text(text)
    book = parse_book(tmp_path / "years.txt")
    for asked in ("When is the story set?", "What year does it take place?", "In what time period is the book set?",
                  "When does the story take place?"):
        phrase, stated, found = years_named(asked, book)
        assert stated == ("The years Three Chapters from Black Beauty names: 1850, 1852, in Chapter 1 and Chapter 3; "
                          "where they stand is quoted below."), asked
        assert [book.text[at:at + 4] for at in found] == ["1850", "1852"]
    assert years_named("When does the hunt take place?", book) is None  # a scene: searched
    # Up to a reading limit.
    assert years_named("When is it set?", book, until=book.sections[2].start)[1].startswith(
        "The year Three Chapters from Black Beauty names up to where you have read: 1850, in Chapter 1; "
        "where it stands")
    # A book naming no year (A Christmas Carol): the times of year it names most, not in a name ("the Ghost of
    # Christmas Present"); one naming neither gets its outline, as before.
    carol = parse_book(sample_book_path())
    phrase, stated, found = years_named("When is the story set?", carol)
    assert phrase == "Christmas" and stated.startswith("A Christmas Carol: A Ghost Story of Christmas names no year; "
                                                       "the times of year it names most: Christmas (")
    assert "Christmas Day (" in stated and all(carol.text[at:at + 9] == "Christmas" for at in found)
    assert not any(re.match(r"Christmas\s+[A-Z][a-z]", carol.text[at:at + 30]) for at in found)
    (tmp_path / "timeless.txt").write_text(_three_chapters_text("", []).replace("spring", "morning"))
    assert years_named("When is the story set?", parse_book(tmp_path / "timeless.txt")) is None


def test_someones_first_name_surname_or_full_name_is_the_name_the_book_writes_beside_theirs(stave_one):
    from engine.answer.followup import follow_up_question
    from engine.answer.full_names import full_name

    context = stave_one.context
    book, rarity = context.book, context.rarity
    # Its words ("first", "name") had found lines naming Scrooge; the names written beside his are the answer.
    marley = stave_one.retrieve("What is Marley's first name?")
    assert marley.overview == "names written" and marley.stated.startswith(
        "Marley's first name is Jacob: A Christmas Carol, Stave One writes \u201cJacob Marley\u201d twice, in ")
    lines = stave_one.digest(marley)
    assert len(lines) == 2 and all("Jacob Marley" in " ".join(line.text.split()) for line in lines)
    for asked in ("What was Marley's first name?", "What's the first name of Marley?", "what is marley's first name",
                  "What is the first name of Marley in the book?"):
        assert full_name(asked, book, rarity)[1] == marley.stated, asked
    assert full_name("What's the Christian name of Marley?", book, rarity)[1].startswith(
        "Marley's Christian name is Jacob: ")
    assert full_name("What is Jacob's surname?", book, rarity)[1].startswith("Jacob's surname is Marley: ")
    assert full_name("What is Marley's full name?", book, rarity)[1].startswith(
        "Marley's full name, as the book writes it, is \u201cJacob Marley\u201d: ")
    # "called Scrooge Scrooge" repeats his name; "Ebenezer Scrooge" once is said as no more than it is.
    ebenezer = full_name("What is Scrooge's first name?", book, rarity)[1]
    assert ebenezer.startswith("A Christmas Carol, Stave One writes another name beside \u201cScrooge\u201d only "
                               "once, \u201cEbenezer Scrooge\u201d, in ")
    assert ebenezer.endswith(": whether it is Scrooge's first name the line below shows.")
    # Up to a reading limit; no name beside it; a name the book does not write, and other questions: searched.
    before = book.text.index("Jacob Marley")
    assert full_name("What is Marley's first name?", book, rarity, until=before)[1].startswith(
        "A Christmas Carol, Stave One up to where you have read writes no other name beside \u201cMarley\u201d (")
    for not_asked in ("What is the full name of the book?", "What is the first name mentioned in the book?",
                      "What is Fezziwig's first name?", "What is Mrs. Scrooge's first name?",
                      "What is the name of Scrooge's partner?"):
        assert full_name(not_asked, book, rarity) is None, not_asked
    # A follow-up asks it again of another name: "And Scrooge's?"; or of whom the one before asked about.
    assert follow_up_question("And Scrooge's?", "What is Marley's first name?") == "What is Scrooge's first name?"
    for follow_up in ("What was his first name?", "And his first name?"):
        assert stave_one.retrieve(follow_up, after="Who is Marley?").stated == marley.stated, follow_up
    # The book's counts too ("he (Marley)" read as "Marley"): follow-ups had skipped them, and searched.
    counted = stave_one.retrieve("How many times is he mentioned?", after="Who is Marley?")
    assert counted.overview == "count" and counted.stated == stave_one.retrieve("How many times is Marley "
                                                                               "mentioned?").stated


def test_a_follow_ups_glossed_pronoun_reads_as_the_name_for_the_kind_of_question_it_is():
    from engine.answer.expected import RELATION, expected_answer
    from engine.answer.followup import unglossed
    from engine.answer.occupations import OCCUPATION

    assert unglossed("How many times is he (Marley) mentioned?") == "How many times is Marley mentioned?"
    assert unglossed("What was his (Marley) job?") == "What was Marley's job?"
    assert unglossed("Where does her (Anne) father live?") == "Where does Anne's father live?"
    assert unglossed("What happens to her (Anne) in the end?") == "What happens to Anne in the end?"
    assert unglossed("Does she (Anne) marry him (Wentworth)?") == "Does Anne marry Wentworth?"
    assert unglossed("What becomes of him (Marley, Scrooge)?") == "What becomes of him (Marley, Scrooge)?"
    assert OCCUPATION.asked("What was his (Marley) job?") and expected_answer("Who is his (Holmes) brother?") == \
        RELATION


def test_a_short_names_real_name_is_the_longer_form_the_book_writes_near_it(tmp_path):
    from engine.answer.full_names import full_name

    book, rarity = _parsed_with_its_vocabulary(tmp_path, _three_chapters_text(
        "The eldest was Roberta, and Bobbie was what they all called her. \"Come,\" said Roberta, and Bobbie ran to "
        "the gate. Tim came too; Mr. Timothy nodded to Tim, and Mr. Timothy went in.",
        ["Then Bobbie waved, and Bobbie laughed."],
        in_the_second="On the shelf sat an old doll that everyone called Barbara, and Barbara had a blue dress."))
    # "What is Bobbie's real name?" had been "no other name beside Bobbie"; the doll Barbara (a form of Bobbie
    # too, by the table of names) is never written near her.
    name, stated, uses = full_name("What is Bobbie's real name?", book, rarity)
    assert name == "Roberta" and stated.startswith(
        "\u201cBobbie\u201d is a short form of \u201cRoberta\u201d (by a table of English names), a name Three "
        "Chapters from Black Beauty also writes, twice, in Chapter 1")
    assert [book.text[at:at + 7] for at in uses] == ["Roberta", "Roberta"]
    assert full_name("What is Bobbie's full name?", book, rarity)[0] == "Roberta"
    # A longer form written after a title is a surname: "Mr. Timothy" is no first name of Tim's.
    assert full_name("What is Tim's real name?", book, rarity)[1].startswith(
        "Three Chapters from Black Beauty writes no other name beside \u201cTim\u201d")


def test_where_two_people_first_meet_is_the_first_passage_naming_both(tmp_path):
    from engine.answer.meetings import MEETING, meeting_asked

    answering = _three_chapters_with(
        tmp_path, "Nell the miller's girl often came to the meadow with apples, and Nell sang as she walked.",
        ["One morning Nell stopped at the forge, and Mr. Hobbs lifted his hat to her; she laughed, and he "
         "laughed too."],
        in_the_second="The blacksmith, Mr. Tom Hobbs, kept the forge by the bridge, and Hobbs shod every horse in the "
                      "parish.")
    is_name = answering.context.writes_as_name
    for asked in ("When does Nell meet Tom Hobbs?", "Where do Nell and Hobbs first meet?",
                  "How did Nell meet Mr. Hobbs for the first time?"):
        assert meeting_asked(asked, is_name) is not None, asked
    for not_asked in ("When does Nell meet Hobbs again?", "When does Nell meet the blacksmith?",
                      "Why does Nell sing?"):
        assert meeting_asked(not_asked, is_name) is None, not_asked
    # Its words ("meet") are in no line of the book; the first passage naming both is where they meet.
    found = answering.retrieve("When does Nell meet Tom Hobbs?", budget=4)
    meeting = [node for node in found.passages if MEETING in found.parts[0].sources[node.id]]
    assert len(meeting) == 1 and meeting[0].section == 3
    lines = answering.digest(found)
    assert any(line.text.startswith("One morning Nell stopped at the forge") for line in lines)
    # Up to a reading limit before they meet: no such passage.
    before = answering.context.book.sections[2].start
    early = answering.retrieve("When does Nell meet Tom Hobbs?", budget=4, until=before)
    assert not any(MEETING in sources for sources in early.parts[0].sources.values())


def test_where_the_one_telling_the_book_meets_someone_is_where_the_telling_first_names_them(tmp_path):
    from engine.answer.meetings import MEETING

    # Told by Jet, whose name the telling never writes (it says "I"): only those speaking to him do.
    answering = _three_chapters_with(
        tmp_path, "\u201cCome here, Jet,\u201d said the master. \u201cGood boy, Jet.\u201d I went to him.",
        ["\u201cWhoa, Jet,\u201d said Jerry Barker, and Jerry Barker gave me an apple."],
        in_the_second="Then Jerry Barker came into the meadow, and Jerry Barker looked at my feet.")
    for asked in ("When does Jet first meet Jerry Barker?", "When does Jerry Barker meet Jet?"):
        found = answering.retrieve(asked, budget=4)
        meeting = [node for node in found.passages if MEETING in found.parts[0].sources[node.id]]
        # Not the first passage naming both (the third chapter's): where the telling first names Jerry.
        assert len(meeting) == 1 and meeting[0].section == 2, asked
        assert any(line.text.startswith("Then Jerry Barker came into the meadow") for line in answering.digest(found))
    # Earlier where they tell Jet their own name ("I am Stapleton, of Merripit House." a page before the telling's
    # '"Excellent!" said Stapleton.', whose line, bare, had not been quoted).
    (tmp_path / "told").mkdir()
    told = _three_chapters_with(
        tmp_path / "told", "\u201cCome here, Jet,\u201d said the master. \u201cGood boy, Jet.\u201d I went to him. "
        "A stranger stood at the gate. \u201cGood morning, Jet,\u201d said he. "
        "\u201cI am Jerry Barker, the cabman.\u201d",
        ["\u201cWhoa, Jet,\u201d said Jerry Barker, and Jerry Barker gave me an apple."],
        in_the_second="Then Jerry Barker came into the meadow, and Jerry Barker looked at my feet.")
    found = told.retrieve("When does Jet first meet Jerry Barker?", budget=4)
    [meeting] = [node for node in found.passages if MEETING in found.parts[0].sources[node.id]]
    assert meeting.section == 1
    assert any("I am Jerry Barker, the cabman" in line.text for line in told.digest(found))


def test_how_someone_dies_is_where_the_book_last_names_them_beside_a_word_of_death(tmp_path):
    from engine.answer.deaths import DEATH, death_asked, last_told_dead
    from engine.answer.told_deaths import tells_a_death

    answering = _three_chapters_with(
        tmp_path, "Old Jem the carter fed us every morning, and Jem found the robin lying dead under the hedge.",
        ["In the spring old Jem died in his sleep, and Mr. Hale buried him by the church wall. The new carter was a "
         "young man."], in_the_second="Jem grew thin that winter, and he coughed in the stable.")
    is_name = answering.context.writes_as_name
    for asked in ("How does Jem die?", "When did old Jem die?", "Does Jem die?", "Who killed Jem?", "Is Jem dead?",
                  "What was the cause of Jem's death?", "How was Jem killed?"):
        assert death_asked(asked, is_name) == "Jem", asked
    for not_asked in ("Why does Jem fear death?", "How does the story end?", "What happens to Jem?"):
        assert death_asked(not_asked, is_name) is None, not_asked
    # Its words ("die") found the robin lying dead; the last sentence naming him beside a word of death tells it.
    found = answering.retrieve("How does Jem die?", budget=4)
    told = [node for node in found.passages if DEATH in found.parts[0].sources[node.id]]
    assert len(told) == 1 and told[0].section == 3
    assert any(line.text.startswith("In the spring old Jem died in his sleep") for line in answering.digest(found))
    # The sentence told goes on past "Mr.".
    _, start, end = last_told_dead(answering.context, "Jem", None, None)
    assert answering.context.book.text[start:end].strip() == (
        "In the spring old Jem died in his sleep, and Mr. Hale buried him by the church wall.")
    # A death told of another, or a charge of murder, is no telling of Jem's.
    assert not tells_a_death("The carter Bill was tried for the murder of Jem at the assizes, and acquitted.", "Jem")
    assert not tells_a_death("Bill was dead by the spring, and Jem wept for him.", "Jem")
    assert tells_a_death("Then Bill killed Jem with a blow of the spade.", "Jem")
    # Up to a reading limit before it: the robin's line is the last one, and no more than that is claimed.
    early = answering.retrieve("How does Jem die?", budget=4, until=answering.context.book.sections[1].start)
    assert all(node.section == 1 for node in early.passages if DEATH in early.parts[0].sources[node.id])


def test_what_becomes_of_someone_who_dies_is_told_where_the_book_tells_the_death_and_where_it_last_names_them(
        tmp_path):
    from engine.answer.deaths import DEATH
    from engine.answer.retrieval import LAST_MENTION, fate_asked

    for asked in ("What happens to Jem?", "What becomes of Jem in the end?", "What is Jem's fate?"):
        assert fate_asked(asked) == "Jem", asked
    assert fate_asked("what happened to jem", lambda name: name == "jem") == "jem"  # typed in lower case
    for not_asked in ("When does Jem last appear?", "What happens to Jem and Bill?", "How does Jem die?"):
        assert fate_asked(not_asked, lambda name: True) is None, not_asked
    # Remembered after his death: the last passage naming him had been all that answered ("Kerchak was dead." was
    # never quoted for "What happens to Kerchak?", nor "Marley was dead" for Marley).
    answering = _three_chapters_with(
        tmp_path, "Old Jem the carter fed us every morning.",
        ["On Sundays the children still sang old Jem's songs by the church wall."],
        in_the_second="In the spring old Jem died in his sleep, and Mr. Hale buried him by the church wall.")
    found = answering.retrieve("What happens to Jem?", budget=4)
    sources = found.parts[0].sources
    assert [node.section for node in found.passages if DEATH in sources[node.id]] == [2]
    assert [node.section for node in found.passages if LAST_MENTION in sources[node.id]] == [3]
    lines = [line.text for line in answering.digest(found)]
    assert "In the spring old Jem died in his sleep, and Mr. Hale buried him by the church wall." in lines
    assert "On Sundays the children still sang old Jem's songs by the church wall." in lines


def test_a_death_is_told_where_its_words_are_said_of_the_one_named_and_not_of_another_or_supposed(tmp_path):
    from engine.answer.deaths import DEATH, killer_asked, last_told_dead
    from engine.answer.told_deaths import tells_a_death

    told = [("Kerchak was dead.", "Kerchak"),
            ("and to Tiny Tim, who did NOT die, he was a second father.", "Tiny Tim"),
            ("Pip, the canary, who lay dead in the cage, was buried under the fern.", "Pip"),
            ("Fortune came at last; but Fanny Harville did not live to know it.", "Fanny Harville"),
            ("Griffin, the most gifted physicist the world has ever seen, ended in infinite disaster his strange and "
             "terrible career.", "Griffin"),
            ("I described Drebber's death to him.", "Drebber"), ("He had killed the murderer of Kala.", "Kala"),
            ("It was the desire to frighten old Sir Charles to death.", "Sir Charles"),
            ("Jefferson Hope, the murderer of Enoch Drebber and of Joseph Stangerson.", "Joseph Stangerson"),
            ("He found Pete where he had been killed in his blankets.", "Pete"), ("Jem was killed by Bill.", "Jem")]
    for sentence, name in told:
        assert tells_a_death(sentence, name), sentence
    not_told = [("Since his father died, Sir Charles's younger brother died unmarried.", "Sir Charles"),  # an owner
                ("For Tarzan had killed so often for food.", "Tarzan"),  # the killer
                ("Then Bill killed Jem with a blow of the spade.", "Bill"),
                ("Scrooge knew he was dead?", "Scrooge"), ("They both died when Laurie was a little child.", "Laurie"),
                ("Mr. Laurence used to be fond of the child who died.", "Mr. Laurence"),
                ("Well, if Black Michael died, and if I slew Rupert, all would be well.", "Black Michael"),
                ("Well, if Black Michael died, and if I, the play-actor, slew Rupert, all would be well.", "Rupert"),
                ("The King may die.", "King"), ("To-day Kemp is to die.", "Kemp"),
                ("A dreadful fear passed over Jo, as she thought, \u201cBeth is dead.\u201d", "Beth"),
                ("He could not hope to frighten Sir Henry to death.", "Sir Henry"),
                ("Buck was too near dead to be of use.", "Buck"), ("Buck broke it out from a dead standstill.", "Buck"),
                ("Captain Morstan came to my hut in the dead of the night.", "Captain Morstan"),
                ("Holmes had been buried in the morning papers.", "Holmes"),
                ("Tarzan wondered what the chest they had buried contained.", "Tarzan"),
                ("Dr. Kemp did not live by practice.", "Kemp"),
                ("Jefferson Hope looked round to see if there was a second grave.", "Jefferson Hope"),
                ("Stapleton's attempt ended in the death of the unfortunate convict.", "Stapleton"),
                ("It was the attempted murder of Mr. Sherlock Holmes.", "Sherlock Holmes")]
    for sentence, name in not_told:
        assert not tells_a_death(sentence, name), sentence
    assert killer_asked("Who killed Jem?") and killer_asked("who murdered old Jem")
    assert not killer_asked("How did Jem die?")

    answering = _three_chapters_with(
        tmp_path, "Old Jem Stokes the carter fed us every morning, and Jem Stokes laughed at the dogs.",
        ["The news came at Michaelmas. Stokes was dead.",
         "The murder of Tom Quill was a thing no one in the village spoke of."],
        in_the_second="Tom Quill kept the inn. Then Bill Hale, the murderer of Tom Quill, went away to sea.")
    # Who killed him: the last line telling his death that names another ("Bill Hale, the murderer of Tom Quill"),
    # not the last telling it ("The murder of Tom Quill was a thing...").
    _, start, end = last_told_dead(answering.context, "Tom Quill", None, None, killer=True)
    assert answering.context.book.text[start:end].strip() == (
        "Then Bill Hale, the murderer of Tom Quill, went away to sea.")
    found = answering.retrieve("Who killed Tom Quill?", budget=4)
    assert any(line.text.startswith("Then Bill Hale, the murderer of Tom Quill") for line in answering.digest(found))
    _, start, end = last_told_dead(answering.context, "Tom Quill", None, None)
    assert answering.context.book.text[start:end].strip().startswith("The murder of Tom Quill was a thing")
    # How Jem Stokes died: his name's last word alone where the whole name tells nothing, and a line of three words
    # quoted.
    _, start, end = last_told_dead(answering.context, "Jem Stokes", None, None)
    assert answering.context.book.text[start:end].strip() == "Stokes was dead."
    found = answering.retrieve("How does Jem Stokes die?", budget=4)
    assert [node.section for node in found.passages if DEATH in found.parts[0].sources[node.id]] == [3]
    assert "Stokes was dead." in [line.text for line in answering.digest(found)]


def test_whom_someone_killed_is_where_the_book_tells_them_kill_or_tells_another_dead_beside_them(tmp_path):
    from engine.answer.deaths import KILLING, victims_asked
    from engine.answer.told_deaths import tells_a_killing_by

    answering = _three_chapters_with(
        tmp_path, "Old Jem Stokes the carter fed us every morning, and Jem Stokes laughed at the dogs.",
        ["Once the squire was sure that Jem Stokes was dead, Tom Quill ran to the harbour.",
         "Tom Quill said that he would kill any dog that barked."],
        in_the_second="Bill Hale grew angry that winter. Then Bill Hale killed the old dog Rover with a spade.")
    is_name = answering.context.writes_as_name
    for asked in ("Who did Bill Hale kill?", "Whom does Bill Hale kill?", "Who was killed by Bill Hale?",
                  "Who were Bill Hale's victims?"):
        assert victims_asked(asked, is_name) == "Bill Hale", asked
    for not_asked in ("Who killed Bill Hale?", "How did Bill Hale kill Rover?", "Why did Bill Hale kill Rover?"):
        assert victims_asked(not_asked, is_name) is None, not_asked
    # The one who kills is the subject, not one named after a preposition; not a killing supposed, nor "shot" past.
    sentence = "She was taken by Terkoz; but Tarzan of the Apes took her away from Terkoz and killed him."
    assert tells_a_killing_by(sentence, "Tarzan") and not tells_a_killing_by(sentence, "Terkoz")
    assert tells_a_killing_by("Jem was killed by Bill.", "Bill") and not tells_a_killing_by("Jem was killed by Bill.",
                                                                                              "Jem")
    assert tells_a_killing_by("Meet Mr. Jefferson Hope, the murderer of Enoch Drebber.", "Jefferson Hope")
    # A longer form of the name is no other person: "Enoch" of "Enoch Drebber", asked of "Drebber".
    from engine.answer.people import names_another_person
    assert not names_another_person("That was how Enoch Drebber came to his end.", "Drebber", lambda *_a, **_k: True)
    assert names_another_person("Then Bill Hale killed Enoch Drebber.", "Drebber", lambda *_a, **_k: True)
    assert not tells_a_killing_by("Well, if I, the play-actor, slew Rupert, all would be well.", "Rupert")
    assert not tells_a_killing_by("And as Buck shot past him the axe crashed down.", "Buck")
    # Where the book tells him kill; the digest quotes it.
    found = answering.retrieve("Who did Bill Hale kill?", budget=4)
    assert [node.section for node in found.passages if KILLING in found.parts[0].sources[node.id]] == [2]
    assert "Then Bill Hale killed the old dog Rover with a spade." in [line.text for line in answering.digest(found)]
    # Where the book never tells him kill, a line naming him that tells another dead (not his threat to kill).
    found = answering.retrieve("Who was killed by Tom Quill?", budget=4)
    assert [node.section for node in found.passages if KILLING in found.parts[0].sources[node.id]] == [3]
    assert "Once the squire was sure that Jem Stokes was dead, Tom Quill ran to the harbour." in [
        line.text for line in answering.digest(found)]
    # No one told killed by him: no such slot.
    found = answering.retrieve("Who did Jem Stokes kill?", budget=4)
    assert not any(KILLING in sources for sources in found.parts[0].sources.values())


def test_whom_someone_marries_is_where_the_book_last_tells_their_wedding_naming_another(tmp_path):
    from engine.answer.marriages import MARRIAGE, marriage_asked, names_a_marriage_to_be, tells_a_marriage

    answering = _three_chapters_with(
        tmp_path, "Molly the dairymaid laughed and said she would marry a lord one day, and Molly meant it.",
        ["At Michaelmas Molly and Jerry Barker were married in the village church. The bells rang all day.",
         "Jerry Barker drove the cart to market on Tuesdays."],
        in_the_second="Molly wept when the hounds passed, and Molly said a wedding was a foolish thing. In October "
                      "the carts went to the fair at Bristol, and at Bristol Molly sold her cheeses.")
    is_name, is_person = answering.context.writes_as_name, answering.context.names_a_person
    for asked in ("Who does Molly marry?", "Who did Molly marry?", "Whom does Molly marry?", "Who is Molly married to?",
                  "Who does Molly become engaged to?", "Who marries Molly?", "Does Molly get married?",
                  "Who is Molly's husband?", "Who was Molly\u2019s future husband?"):
        assert marriage_asked(asked, is_name) == "Molly", asked
    for not_asked in ("Why does Molly want to marry a lord?", "What happens to Molly?", "Who does Molly love?"):
        assert marriage_asked(not_asked, is_name) is None, not_asked
    # Busy, or engaged for a dance, is not betrothed.
    assert tells_a_marriage("When Molly and Jerry Barker wrote of their engagement, all rejoiced.", "Molly", is_person)
    for busy in ("If Molly had not been otherwise engaged, Jerry Barker would have amused her.",
                 "Molly was engaged in talk with Jerry Barker.", "Molly engaged herself to Jerry Barker till supper.",
                 "Molly had engaged to be as merry as Jerry Barker.",
                 "The cheeses engaged Molly, and Jerry Barker too."):
        assert not tells_a_marriage(busy, "Molly", is_person), busy
    # A wedding told of others, or naming only a month and a place beside her own, or wished, tells none of hers.
    for not_hers in ("When Jerry Barker wrote of his engagement, the squire feared that Molly would weep.",
                     "Five years after Molly's wedding, on a mellow October day, she went to the fair at Bristol.",
                     "Jerry Barker was telling Molly the history of his sister's engagement.",
                     "We do so wish that Molly had married Jerry Barker instead."):
        assert not tells_a_marriage(not_hers, "Molly", is_person), not_hers
    assert is_person("Barker", titled=True) and not is_person("October") and not is_person("Bristol")
    # Where nothing tells it, a line naming another beside a word of marrying: past "Mr." too.
    assert names_a_marriage_to_be("Shall you care if Molly does marry Mr. Barker?", "Molly", is_person)
    assert not names_a_marriage_to_be("Molly said a husband was a foolish thing.", "Molly", is_person)
    # Its words ("marry") found her hopes and her scorn; the last line naming her beside a wedding, and
    # naming another, tells it.
    found = answering.retrieve("Who does Molly marry?", budget=4)
    told = [node for node in found.passages if MARRIAGE in found.parts[0].sources[node.id]]
    assert len(told) == 1 and told[0].section == 3
    assert "At Michaelmas Molly and Jerry Barker were married in the village church." in [
        line.text for line in answering.digest(found)]


def test_how_someone_changes_quotes_what_the_book_first_says_they_are_and_how_it_last_tells_them_changed(tmp_path):
    from engine.answer.changes import CHANGE, FIRST_TOLD, change_asked

    answering = _three_chapters_with(
        tmp_path, "Molly was a sharp-tongued dairymaid who scolded every horse in the yard and kicked the dogs.",
        ["Molly sang in the dairy while Jerry Barker grew tired of the farm and went to sea.",
         "Years went by before Molly came back to the farm at Michaelmas. She had grown gentle and patient with "
         "every creature, and the horses came to her call."],
        in_the_second="Molly wept when the hounds passed, and the weather changed.")
    is_name = answering.context.writes_as_name
    for asked in ("How does Molly change?", "How did Molly change over the story?", "How has Molly changed?",
                  "How is Molly different at the end of the book?", "Does Molly change?",
                  "How does Molly develop as a character?", "In what ways does Molly change by the end?",
                  "What changes does Molly go through?", "Describe Molly's transformation",
                  "How do the years change Molly?"):
        assert change_asked(asked, is_name) == "Molly", asked
    for not_asked in ("How does Molly change her mind?", "How is Molly's cart different from the others?",
                      "How does the weather change?", "How do Molly and Jerry Barker change?",
                      "Who does Molly marry?"):
        assert change_asked(not_asked, is_name) is None, not_asked
    # Its words ("change") found the weather changing; the first line saying what she is, and the last of
    # her last paragraphs telling a change of her ("She had grown...", after her name; not Jerry Barker's), tell it.
    found = answering.retrieve("How does Molly change?", budget=4)
    sources = found.parts[0].sources
    [first] = [node for node in found.passages if FIRST_TOLD in sources[node.id]]
    [left] = [node for node in found.passages if CHANGE in sources[node.id]]
    assert (first.section, left.section) == (1, 3)
    quoted = [line.text for line in answering.digest(found)]
    assert "Molly was a sharp-tongued dairymaid who scolded every horse in the yard and kicked the dogs." in quoted
    assert "She had grown gentle and patient with every creature, and the horses came to her call." in quoted
    assert not any("Jerry Barker grew tired" in line for line in quoted)
    # A reader in chapter 2 is told how the book has left her so far: nothing of chapter 3.
    early = answering.retrieve("How does Molly change?", budget=4,
                               until=answering.context.book.text.index("03 My Breaking In"))
    [left] = [node for node in early.passages if CHANGE in early.parts[0].sources[node.id]]
    assert left.section == 2 and "the weather changed" in left.text
    assert not any("grown gentle" in line.text for line in answering.digest(early))


def test_questions_to_start_with_ask_of_the_chapter_last_read_and_what_just_happened_once_past_the_first(
        tmp_path, session):
    from engine.answer.starters import starter_questions
    from engine.importer import parse_book

    (tmp_path / "three.txt").write_text((ROOT / "tests" / "fixtures" / "three-chapters.txt").read_text())
    book = parse_book(tmp_path / "three.txt")
    first, second = book.sections[0], book.sections[1]
    assert starter_questions(book) == starter_questions(book, first.body_start + 400) == [
        "Who are the main characters?", "Who tells the story?", "What happens in Chapter 1?",
        "When is the story set?", "How long will it take me to read?"]
    assert starter_questions(book, second.start + 200)[2:] == [
        "What happens in Chapter 2?", "When is the story set?", "What just happened?"]
    # Each is answered from the book, asked where the reader is as the panel asks it.
    here = len(session.context.book.text) // 2
    for question in starter_questions(session.context.book, here):
        found = session.retrieve(question, at=here)
        assert found.stated or session.digest(found), question


def test_names_beside_a_name_are_told_from_titles_nouns_headings_and_chance_neighbours(tmp_path):
    from engine.answer.full_names import full_name

    book, rarity = _parsed_with_its_vocabulary(tmp_path, _three_chapters_text(
        "Squire John Gordon and Mrs. Gordon came by, and the Keeper with them. Then John Gordon spoke to the Keeper, "
        "and Squire Gordon rode on.\n\nThe Keeper Gordon had sent said Duchess Gordon was the best mare he knew.",
        ["CAMP JOHN\nGordon came, and a stone said JOHN GORDON in letters. Tell Dick Gordon came, said Mrs. Gordon. "
         "Mr. Gordon nodded."]))
    # A title is none of the name ("Squire John Gordon"); a capitalised noun after "the" is none either ("the
    # Keeper Gordon had sent"); a heading's capitals end at its line, a stone's are a name ("JOHN GORDON").
    squire = full_name("What is Squire Gordon's first name?", book, rarity)
    assert squire[0] == "John Gordon" and squire[1].startswith(
        "Squire Gordon's first name is John: Three Chapters from Black Beauty writes \u201cJohn Gordon\u201d 3 times, "
        "in 2 of its 3 chapters: Chapter 1 (2), Chapter 3 (1)")
    assert "Keeper" not in squire[1] and "Camp" not in squire[1]
    assert "it also writes \u201cDuchess Gordon\u201d (once) and \u201cDick Gordon\u201d (once)" in squire[1]
    # A woman's title names her husband's family: "John Gordon" is not Mrs. Gordon's name.
    assert full_name("What is Mrs. Gordon's first name?", book, rarity)[1] == (
        "Three Chapters from Black Beauty writes no other name beside \u201cMrs. Gordon\u201d (twice), so it gives "
        "no first name for Mrs. Gordon.")
    # A man's title the book never writes with a first name does not pick one of the family's out.
    assert full_name("What is Mr. Gordon's first name?", book, rarity)[1].startswith(
        "Three Chapters from Black Beauty writes no other name beside \u201cMr. Gordon\u201d; beside "
        "\u201cGordon\u201d it writes \u201cJohn Gordon\u201d (")
    # A name once ("Tell Dick Gordon came") is said as no more than it is.
    assert full_name("What is Dick's surname?", book, rarity)[1].startswith(
        "Three Chapters from Black Beauty writes another name beside \u201cDick\u201d only once, \u201cDick "
        "Gordon\u201d, in Chapter 3")


def test_questions_about_the_story_that_share_those_words_are_searched(session):
    from engine.answer.bookfacts import book_fact

    book, context = session.context.book, session.context
    for question in ("Who wrote the letter?", "When was the will written?", "How many horses are there?",
                     "Who named the horse?", "What happens in chapter 2?", "What is the name of the horse?",
                     "How many letters does the master write?", "Who wrote to Duchess?",
                     "How long did the hunt last?", "How long is the field?", "How much did the master pay?"):
        assert book_fact(question, book, context.sections_named_in(question)[0]) is None, question
        assert session.retrieve(question).stated is None, question
    assert book_fact("What is the name of the third part?", book, []) is None  # not "What is this book called?"


def test_a_question_for_a_name_or_number_has_a_line_holding_its_rarest_words_quoted(stave_one):
    """"Who had a saucepan?": the lines the embedder likes best name someone
    beside a fire; the one line with the saucepan (the question's word the
    book seldom uses) is quoted in place of the weakest, three lines still."""
    found = stave_one.retrieve("Who had a saucepan?")
    assert found.plan.rare_words == ["saucepan"]
    lines = stave_one.digest(found)
    assert len(lines) <= 3 and any("little saucepan of gruel" in line.text for line in lines)


def test_names_and_words_of_a_kind_are_found_as_a_whole_word_search_finds_them(stave_one):
    """Faster patterns (a name's letters first, a kind's words as a trie),
    the same finds as searching for them between word boundaries."""
    from engine.answer.looks import LOOKS
    from engine.answer.people import place_shares
    from engine.answer.vocabulary import as_written

    text = ("To Bath, said Mr. Brooke; in BATH, not Bathurst nor inBath. Mr Brooke went to Bath and to bath "
            "at D'Arnot's, with D'Arnot. Marley_Bath is one word.")
    for name in ("Bath", "Mr Brooke", "D'Arnot", "Brooke", "Arnot", "Mr. Brooke went"):
        plain = re.compile(r"\b" + r"\.?\s+".join(re.escape(word.rstrip(".")) for word in name.split()) + r"\b",
                           re.I)
        assert [m.span() for m in as_written(name).finditer(text)] == [m.span() for m in plain.finditer(text)], name
    assert len(as_written("Bath").findall(text)) == 4 and len(as_written("Mr Brooke").findall(text)) == 2
    assert as_written(" ").search("no name") is not None  # an empty name (a card's blank) does not raise
    # In its case ("In Bath" and "bath" are not counted as after "in" and as the place), as the text writes it.
    assert place_shares("Bath", "He went to Bath. In Bath, at Bath, from Bath; Bath was fine; a bath.") == (
        5, 0.4, 0.2)
    assert place_shares("Bathurst", "in Bathurst, at Bathurst, to Bathurst") == (3, 2 / 3, 1 / 3)
    # The longest of the words that begin alike, each part of a joined word, whole words only.
    described = "Her cheeks were red, prim-faced and clean-shaven; faces, cheek, lean-jawed, Eyebrows."
    assert LOOKS.pattern.findall(described) == ["cheeks", "faced", "clean-shaven", "cheek", "lean", "jawed",
                                             "Eyebrows"]
    plain = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, LOOKS.words), key=len, reverse=True)) + r")\b", re.I)
    book = stave_one.context.book.text
    assert [m.span() for m in LOOKS.pattern.finditer(book)] == [m.span() for m in plain.finditer(book)]


def test_what_a_book_opening_works_out_ahead_leaves_its_answers_as_they_were(stave_one):
    """`prepare` (the app calls it as a book opens) works out what first
    questions of some kinds would wait for; the answers are those of a
    session that works it out when asked."""
    from engine.answer.expected import TELLINGS

    fresh = AnswerSession(stave_one.library, stave_one.book_id, embedder=stave_one.context.search.embedder)
    fresh.prepare()
    assert set(fresh.context._word_places) == {telling.name for telling in TELLINGS}
    # The main people and where each is told of: the first question offered to a reader.
    assert fresh.context._people and fresh.context._described
    for question in ("What does Scrooge look like?", "What is Scrooge's job?", "Where does Scrooge live?",
                     "How old is Scrooge?", "What happens in Stave 1?", "Who are the main characters?"):
        found, before = fresh.retrieve(question), stave_one.retrieve(question)
        assert [node.id for node in found.passages] == [node.id for node in before.passages], question
        assert [line.text for line in fresh.digest(found)] == [line.text for line in stave_one.digest(before)]


def test_what_someone_looks_like_is_answered_by_where_the_book_describes_them(stave_one):
    from engine.answer.expected import expected_answer
    from engine.answer.looks import LOOKS, asks_looks, describes

    for asked in ("What does Scrooge look like?", "Describe Marley", "How is Dr Mortimer described?",
                  "Describe Anne Elliot's appearance", "What is Jo's appearance?", "How does Buck look?"):
        assert asks_looks(asked) and expected_answer(asked) == LOOKS.name, asked
    # Two scenes compared, or someone's words described, are searched as other questions are.
    for not_asked in ("Compare Meg's appearance at the party with Amy's at the ball",
                      "How does Holmes describe the case?", "What does Scrooge say about Christmas?"):
        assert not asks_looks(not_asked), not_asked
    assert describes("made his eyes red, his thin lips blue") and not describes("his eyes were red")
    # Its words found lines saying "looked" ("looked at Scrooge as Marley used to look"); now the passage
    # where words of looks gather after his name has a reserved slot and its description is quoted first.
    text = stave_one.context.book.text
    description = text.index("A frosty rime was on his head")
    found = stave_one.retrieve("What does Scrooge look like?")
    describing = [node for node in found.passages if "looks" in found.parts[0].sources[node.id]]
    assert any(node.start <= description < node.end for node in describing)
    lines = stave_one.digest(found)
    assert any("froze his old features" in line.text or "frosty rime" in line.text for line in lines[:2])
    assert not any("looked" in line.text.lower() for line in lines[:1])
    # A name of several words whose last is no name alone is asked about whole, not as "Ghost" and "Christmas".
    from types import SimpleNamespace

    from engine.answer.nearby import names_asked
    written = SimpleNamespace(writes_as_name=lambda name: name in {"Ghost of Christmas Past", "Ghost", "Christmas"})
    assert names_asked("Describe the Ghost of Christmas Past", written) == ["Ghost of Christmas Past"]
    # Asked of no one: no such slots, the digest as for any question.
    plot = stave_one.retrieve("Describe the plot")
    assert not any("looks" in sources for sources in plot.parts[0].sources.values())


def test_what_someone_is_like_is_answered_by_where_the_book_tells_their_character(stave_one):
    from engine.answer.character import CHARACTER
    from engine.answer.expected import expected_answer
    from engine.answer.looks import LOOKS
    from engine.answer.nearby import uses_of

    for asked in ("What is Scrooge like?", "What kind of person is Scrooge?", "What sort of man was Marley?",
                  "Describe Scrooge's character", "What is Scrooge's personality?", "What are Scrooge's traits?",
                  "How would you describe Scrooge's temperament?", "What sort of fellow is Scrooge?"):
        assert expected_answer(asked) == CHARACTER.name, asked
    # His looks are asked as before; a scene, or what a thing is like, is searched as other questions are.
    assert expected_answer("Describe Scrooge") == expected_answer("What does Scrooge look like?") == LOOKS.name
    for not_asked in ("What is Scrooge like at the end?", "What does Scrooge like?"):
        assert expected_answer(not_asked) != CHARACTER.name, not_asked
    # Its words found "any person in the town" and what Scrooge would like; now the passage where words of
    # temper gather by his name has a slot, and its line is quoted.
    text = stave_one.context.book.text
    told = text.index("tight-fisted")
    found = stave_one.retrieve("What is Scrooge like?")
    telling = [node for node in found.passages if CHARACTER.name in found.parts[0].sources[node.id]]
    assert any(node.start <= told < node.end for node in telling)
    assert any("covetous, old sinner" in line.text or "solitary as an oyster" in line.text
               for line in stave_one.digest(found))
    # A surname asked with a title is not the others of the family: "Mr Elliot" is not "Sir Walter Elliot".
    family = ("Vanity was the end of Sir Walter Elliot's character. Lady Elliot had been an excellent woman. "
              "Mr Elliot was without heart. Then Mr. William Elliot bowed.")
    assert [use.start() for use in uses_of("Elliot", ["Mr Elliot", "Elliot"], family)] == [
        family.index("Mr Elliot") + len("Mr "), family.index("Mr. William Elliot") + len("Mr. William ")]
    assert len(list(uses_of("Elliot", ["Elliot"], family))) == 4  # asked without a title: all of them
    # Asked of no one ("What is the weather like?" reads as the kind): no such slots.
    weather = stave_one.retrieve("What is the weather like?")
    assert not any(CHARACTER.name in sources for sources in weather.parts[0].sources.values())


def test_what_kind_of_animal_someone_is_is_where_the_book_tells_their_breed(tmp_path):
    from engine.answer.breeds import BREED
    from engine.answer.character import CHARACTER
    from engine.answer.expected import expected_answer

    for asked in ("What breed is Rover?", "What kind of dog is Rover?", "What breed of dog was Rover?",
                  "What is Rover's breed?", "What kind of horse is Ginger?"):
        assert expected_answer(asked) == BREED.name, asked
    for not_asked in ("What kind of person is Beth?", "What kind of man is Mr Elliot?"):
        assert expected_answer(not_asked) == CHARACTER.name, not_asked
    answering = _three_chapters_with(
        tmp_path, "Rover's father was a great collie, and his mother a Scotch shepherd dog from the hills.",
        ["The strange dog, no matter what the breed, soon learned to fear Rover.",
         "Rover ran to the gate and barked at the dog of the kind carter."],
        in_the_second="Rover chased the hare with the other dogs.")
    # Its words ("dog", "breed", "kind") found lines of any dog; the passage where words of breed gather near the
    # name has a slot, and its line is quoted first.
    found = answering.retrieve("What kind of dog is Rover?", budget=4)
    told = [node for node in found.passages if BREED.name in found.parts[0].sources[node.id]]
    assert told and told[0].section == 1
    lines = answering.digest(found)
    assert lines[0].text == "Rover's father was a great collie, and his mother a Scotch shepherd dog from the hills."


def test_the_words_of_every_kind_are_found_in_one_pass_as_each_kind_alone_finds_them():
    from engine.answer.expected import TELLINGS
    from engine.answer.nearby import places_of_kinds
    from engine.paths import sample_book_path

    # "well-bred" is a word of character, and "bred" alone one of breed: each kind has its own there.
    text = sample_book_path().read_text(encoding="utf-8") + "\n\nA well-bred, curly-haired, thorough-bred mare.\n"
    together = places_of_kinds(TELLINGS, text)
    for telling in TELLINGS:
        alone = [(found.start(), found.group().lower()) for found in telling.pattern.finditer(text)]
        assert together[telling.name] == ([place for place, _ in alone], [word for _, word in alone]), telling.name
    assert "bred" in together["breed"][1] and "well-bred" in together["character"][1]


def test_someone_asked_about_by_a_short_name_is_told_where_the_book_gives_the_full_one(tmp_path):
    from engine.answer.looks import LOOKS
    from engine.answer.nearby import other_forms

    assert "Margaret" in other_forms("Meg") and "Beth" in other_forms("Elizabeth")
    # The book describes her where it brings her in by her full name, and calls her Meg afterwards.
    meg = _three_chapters_with(tmp_path, "Of the four, Margaret was the eldest, tall and fair, with large brown eyes "
                               "and plenty of soft brown hair.", ["Meg laughed at the gate.", "Meg ran home.",
                                                                   "Then Meg went to the meadow."])
    found = meg.retrieve("Describe Meg")
    told = [node for node in found.passages if LOOKS.name in found.parts[0].sources[node.id]]
    assert any("Margaret was the eldest" in node.text for node in told)
    assert any(line.text.startswith("Of the four, Margaret was the eldest") for line in meg.digest(found))


def test_what_someone_does_for_a_living_is_answered_by_a_calling_by_their_name(stave_one):
    from engine.answer.expected import expected_answer
    from engine.answer.occupations import OCCUPATION

    for asked in ("What is Marley's job?", "What was Scrooge's profession?", "What does Marley do for a living?",
                  "What is Scrooge by trade?", "How does Scrooge earn his living?", "What does Marley do?"):
        assert OCCUPATION.asked(asked) and expected_answer(asked) == OCCUPATION.name, asked
    for not_asked in ("What does Marley do in the end?", "What is Scrooge's opinion of Christmas?"):
        assert not OCCUPATION.asked(not_asked), not_asked
    # The book says it in passing, beside the name; the passages where a calling follows Marley's name have
    # slots of their own (its words, "job", are nowhere in the stave).
    text = stave_one.context.book.text
    found = stave_one.retrieve("What was Marley's job?")
    told = [node for node in found.passages if OCCUPATION.name in found.parts[0].sources[node.id]]
    assert told and all(OCCUPATION.count(node.text) >= 1 for node in told)
    assert all(any(0 <= node.start - at < 600 or node.start <= at < node.end for at in
                   (found.start() for found in re.finditer(r"\bMarley\b", text))) for node in told)


def test_where_someone_lives_is_answered_by_words_of_dwelling_by_their_name(stave_one):
    from engine.answer.expected import expected_answer
    from engine.answer.homes import HOME

    for asked in ("Where does Scrooge live?", "Where did Marley live?", "Where is Scrooge's house?",
                  "Where is Scrooge living now?", "What is the name of Scrooge's house?", "What is Scrooge's address?"):
        assert HOME.asked(asked) and expected_answer(asked) == HOME.name, asked
    for not_asked in ("Where does the story take place?", "Where does Scrooge go after the funeral?",
                      "Why does Scrooge live alone?"):
        assert not HOME.asked(not_asked), not_asked
    # Its words found "External heat and cold had little influence on Scrooge"; now the passage where words of
    # dwelling gather after his name has slots of its own, and the line telling it is quoted first.
    found = stave_one.retrieve("Where does Scrooge live?")
    told = [node for node in found.passages if HOME.name in found.parts[0].sources[node.id]]
    assert told and all(HOME.count(node.text) >= HOME.in_a_passage for node in told)
    assert stave_one.digest(found)[0].text == ("He lived in chambers which had once belonged to his deceased "
                                               "partner.")


def test_where_someone_comes_from_is_answered_by_words_of_birth_and_dwelling_by_their_name(tmp_path):
    from engine.answer.expected import expected_answer
    from engine.answer.homes import HOME, ORIGIN

    for asked in ("Where is Buck from?", "Where does Mr. Weston come from?", "Where was Tarzan born?",
                  "Where did Lucy grow up?", "What is Harriet's hometown?", "Where is Drebber from originally?"):
        assert ORIGIN.asked(asked) and not HOME.asked(asked) and expected_answer(asked) == ORIGIN.name, asked
    for not_asked in ("Where does Scrooge live?", "Where does the money come from in the end?",
                      "When was Tarzan born?"):
        assert expected_answer(not_asked) != ORIGIN.name, not_asked
    # Where words of birth and dwelling gather near the name: the passages have slots, the line is quoted first.
    told = "Sam Hill was born at Leeds, and he was a native of the north, raised in a cottage by the mill."
    sam = _three_chapters_with(tmp_path, "Sam Hill came into the yard from the lane.", [
        "Sam Hill trotted down the lane from the town.", told, "Sam Hill took the letter from the post."])
    found = sam.retrieve("Where is Sam Hill from?")
    assert any(ORIGIN.name in sources for sources in found.parts[0].sources.values())
    assert [line.text for line in sam.digest(found)][0] == told


def test_someones_kin_is_answered_by_a_line_naming_someone_beside_the_word_of_kin(stave_one):
    from types import SimpleNamespace

    from engine.answer.expected import RELATION, asked_kin, expected_answer, holds_answer
    from engine.answer.vocabulary import Rarity

    for asked in ("Who is Holmes's brother?", "Who was Scrooge's partner?", "Who is the father of Tiny Tim?",
                  "Who is Mary married to?", "Who is Anne's elder sister?", "What is the name of Laurie's tutor?",
                  "What is Scrooge's clerk's name?", "What is Holmes's brother called?"):
        assert expected_answer(asked) == RELATION, asked
    assert expected_answer("Who is Marley?") != RELATION and expected_answer("Who married Mary?") != RELATION
    # A name by the word of kin, with nothing but "his", "the", a title between; not a name in a list beside it.
    rarity = Rarity([SimpleNamespace(id=str(n), text=text) for n, text in enumerate(
        ["He met Mycroft.", "He met Bob.", "He met Elizabeth.", "He met Walter.", "He met Sherlock.",
         "He met Brooke."] + ["."] * 20)])

    def answers(question: str, sentence: str) -> bool:
        return holds_answer(RELATION, sentence, {"holmes", "anne", "tim"}, rarity, str.lower, asked_kin(question))

    assert answers("Who is Holmes's brother?", "It was my brother Mycroft.")
    assert answers("Who is Holmes's brother?", "His younger brother, Mycroft, was there.")
    assert answers("Who is Tiny Tim's father?", "In came little Bob, the father, with Tiny Tim upon his shoulder.")
    assert answers("Who is Anne's father?", "Her father, Sir Walter, was vain.")
    assert answers("What is the name of Laurie's tutor?", "Mr. Brooke, my tutor, doesn't stay here.")
    assert not answers("Who is Anne's father?", "Her knowledge of her father and Elizabeth inclined her to think so.")
    assert not answers("Who is Holmes's brother?", "Sherlock Holmes had a brother.")  # the one asked about
    # Asked in the plural, each is named beside the singular.
    assert answers("Who are Holmes's brothers?", "It was my brother Mycroft.")
    assert asked_kin("Who are Tiny Tim's parents?")[0] == "parent" and "child" in asked_kin("Who are Bob's children?")
    assert answers("Who are Bob's children?", "His child, Mycroft, was there.")
    # On the book: "Scrooge and he were partners" names no one else; the Ghost's line does.
    lines = stave_one.digest(stave_one.retrieve("Who was Scrooge's partner?"))
    assert any("I was your partner, Jacob Marley" in line.text for line in lines)


def test_what_a_name_means_is_answered_by_where_a_word_of_meaning_stands_by_it(tmp_path):
    from engine.answer.expected import expected_answer
    from engine.answer.meanings import MEANING

    for asked in ("What does Tarzan mean in the ape language?", "What does the name Tublat mean?",
                  "What is the meaning of Kerchak's name?", "What is the translation of Tarzan in ape language?",
                  "What does humbug mean?"):
        assert MEANING.asked(asked) and expected_answer(asked) == MEANING.name, asked
    for not_asked in ("What does Scrooge mean when he says humbug?", "What does Tarzan do?"):
        assert not MEANING.asked(not_asked), not_asked
    # The book tells it beside the name where it brings the name in; its words, "mean", are everywhere.
    meaning = _three_chapters_with(tmp_path, "Old Tublat, whose name meant Broken Nose in the speech of the carters, "
                                   "kept the gate.", ["I mean to run, said Tublat.", "Tublat did not mean it.",
                                                      "What do you mean, Tublat?"])
    found = meaning.retrieve("What does Tublat mean?")
    told = [node for node in found.passages if MEANING.name in found.parts[0].sources[node.id]]
    assert told and "Broken Nose" in told[0].text  # the first passage telling it leads
    assert "meant Broken Nose" in meaning.digest(found)[0].text


def test_what_a_word_means_is_the_dictionarys_senses_with_the_books_uses_for_evidence(stave_one, session, monkeypatch):
    from engine.answer import dictionary
    from engine.answer.bookfacts import DEFINITION
    from engine.answer.definitions import MAX_SENSES, defined, looks_up, word_asked
    from engine.answer.dictionary import look_up

    is_name = stave_one.context.rarity.is_name
    for asked, word in [("What does humbug mean?", "humbug"), ("What does \u2018gruel\u2019 mean here?", "gruel"),
                        ("Define door-nail", "door-nail"), ("What is a phaeton?", "phaeton"),
                        ("What is the meaning of the word ejaculated?", "ejaculated"), ("What are gaiters?", "gaiters"),
                        ("look up Countenance", "countenance"), ("what does HUMBUG mean in this book", "humbug"),
                        ("What does t\u00eate-\u00e0-t\u00eate mean?", "t\u00eate-\u00e0-t\u00eate")]:
        assert word_asked(asked, is_name) == word, asked
    for not_asked in ("What does Marley mean?", "What does he mean?", "What does the knocker mean?",
                      "What does Scrooge mean when he says humbug?", "What are they?", "What is Scrooge's job?",
                      "What is the meaning of Christmas to Scrooge?", "What does Tarzan mean in the ape language?",
                      "What does love mean in this book?"):  # a common word asked of the book: a question about it
        assert word_asked(not_asked, is_name) is None, not_asked
    # A word the book capitalises only in places' names is still a word ("Pondicherry Lodge"); not one after a
    # title or a first name, nor one standing alone.
    text = "He came to live at Pondicherry Lodge, with Mr. Brown. John Manly drove Buck to the Lodge gate."
    named = {"lodge", "brown", "manly", "buck", "pondicherry"}.__contains__
    assert word_asked("What does lodge mean?", lambda word: named(word.lower()), text.replace("the Lodge", "it")) == \
        "lodge"
    assert [word_asked(f"What does {word} mean?", lambda word: named(word.lower()), text)
            for word in ("Lodge", "brown", "manly", "Buck")] == [None, None, None, None]
    # A selection in the reader is looked up when it is a word or two, not a name: a capital where no sentence starts.
    assert [looks_up(selected, before) for selected, before in [
        ("humbug!", "was a "), ("door-nail,", "as dead as a "), ("Humbug", '"Bah!" said Scrooge, "'),
        ("Nobody", "upon the hob. "), ("Scrooge's", "squeezing, grasping, "), ("Marley", "Old "),
        ("He said it twice", "")]] == ["humbug", "door-nail", "Humbug", "Nobody", None, None, None]
    # The word as written, else the word it is a form of, however a compound is joined; "See Hostler." followed.
    assert look_up("ejaculated").word == "ejaculate" and look_up("candour").word == "candor"
    assert look_up("carriages").word == "carriage" and look_up("door-nail").word == "doornail"
    assert look_up("t\u00eate-\u00e0-t\u00eate").word == "tete-a-tete"  # typed with its accents, written without
    assert any("care of horses" in sense.text for sense in look_up("ostler").senses)
    phaeton = look_up("phaeton")
    assert phaeton.senses[0].part_of_speech == "noun" and "four-wheeled carriage" in phaeton.senses[0].text
    humbug = look_up("humbug")  # a noun's first sense, the verb's, then the noun's next ones
    assert [sense.part_of_speech for sense in humbug.senses] == ["noun", "verb", "noun", "noun"]
    assert look_up("gig").senses[0].text == "A fiddle."  # the dictionary's first: not what a book means by it
    assert not any("Webster" in sense.text for sense in look_up("door-nail").senses)  # the editors' marks left out
    assert look_up("serendipity") is None and look_up("Tarzan") is None
    # An entry is decoded alone from its letter's file: as the whole file, parsed, has it.
    whole = json.loads((dictionary._data_folder() / "words_G.json").read_text(encoding="utf-8"))
    sample = [*list(whole)[:20], *list(whole)[-20:], "gig", "gon\"iff"]
    assert all(dictionary._raw_entry(word) == whole[word] for word in sample) and dictionary._raw_entry("gigz") is None

    text = stave_one.context.book.text
    uses = [found.start() for found in re.finditer(r"(?<!\w)humbug(?!\w)", text, re.I)]
    found = stave_one.retrieve("What does humbug mean?")
    assert found.overview == DEFINITION and found.stated.startswith("The dictionary (GCIDE")
    first = stave_one.context.book.section_at(uses[0]).display_name
    assert "a hoax" in found.stated and f"uses it {len(uses)} times, first in {first}. Its lines" in found.stated
    lines = stave_one.digest(found)
    assert lines and all("humbug" in line.text.lower() for line in lines)  # the book's uses show its sense
    assert all("humbug" in node.text.lower() for node in found.passages)
    formed = stave_one.retrieve("What does ejaculated mean?")
    assert formed.stated.startswith("\u201cejaculated\u201d is a form of \u201cejaculate\u201d")
    # Up to a reading limit, only the uses read are counted and shown.
    early = stave_one.retrieve("What does humbug mean?", until=uses[1] + len("humbug"))
    assert "uses it 2 times" in early.stated and "up to where you have read" in early.stated
    assert early.passages and all(node.start <= uses[1] for node in early.passages)
    unused = stave_one.retrieve("What is a phaeton?")
    assert unused.stated.endswith("does not use \u201cphaeton\u201d.") and not unused.passages
    # Of a word's many senses, a few: the one nearest the book's lines first, by the embedder.
    book, embed = stave_one.context.book, stave_one.context.search.embedder.embed
    fly = defined("What does fly mean?", book, is_name, embed=embed)[1]
    assert f"{MAX_SENSES}. (" in fly and f"{MAX_SENSES + 1}. (" not in fly
    gig = defined("What does gig mean?", session.context.book, is_name, embed=embed)[1]
    assert "1. (noun) A light carriage" in gig and "2. (noun) A fiddle" in gig  # "in a light gig"
    # The book's lines are read from the sentence vectors stage 1 stored: only the senses are embedded now.
    embedded = []
    stored = defined("What does gig mean?", session.context.book, is_name,
                     embed=lambda texts: embedded.extend(texts) or embed(texts),
                     stored_vector=session.context.sentence_vector_at)[1]
    assert stored == gig and embedded and all(text.startswith("gig: ") for text in embedded)
    # Its uses as the book writes them, plurals too ("hares out of the woods").
    hares = len(re.findall(r"(?<!\w)hares?(?!\w)", session.context.book.text[session.context.book.sections[0].start:],
                           re.I))
    assert len(defined("What is a hare?", session.context.book, is_name)[2]) == hares > 0
    # "What does this mean?" about a word selected is its meaning, of the whole book; about more, as asked.
    gruel = text.index("gruel")
    selected = stave_one.retrieve("What does this mean?", focus=(gruel, gruel + len("gruel")))
    assert selected.overview == DEFINITION and selected.plan.question == "What does \u201cgruel\u201d mean?"
    sentence = (gruel - 40, gruel + len("gruel"))
    assert stave_one.retrieve("What does this mean?", focus=sentence).overview != DEFINITION
    assert stave_one.retrieve("Why is it here?", focus=(gruel, gruel + len("gruel"))).overview != DEFINITION
    # A name is the book's to explain, and a word the dictionary lacks is searched.
    assert stave_one.retrieve("What does Marley mean?").overview != DEFINITION
    assert stave_one.retrieve("What does serendipity mean?").stated is None
    # Without the dictionary's data (a packaging that left it out), a word's meaning is searched as before.
    monkeypatch.setattr(dictionary, "_data_folder", lambda: None)
    dictionary._letter.cache_clear()
    assert stave_one.retrieve("What does gruel mean?").stated is None and look_up("gruel") is None
    monkeypatch.undo()
    dictionary._letter.cache_clear()
    assert look_up("gruel") is not None


def test_how_old_someone_is_is_answered_by_where_an_age_stands_by_their_name(session):
    from engine.answer.ages import AGE_PHRASE

    told = ["at nineteen; involve", "the elegant little woman of seven-and-twenty, with", "twenty years old",
            "a year old", "aged twenty", "at the age of nineteen.", "a ten-year-old boy", "of five and forty."]
    assert [AGE_PHRASE.search(text) is not None for text in told] == [True] * len(told)
    not_ages = ["at one time", "of one mind", "at ten o'clock", "of fifty pounds", "at twenty miles",
                "at three in the morning", "to leave Bath at nine this morning", "under the influence of four summers",
                "talked fluently at twelve months"]
    assert [AGE_PHRASE.search(text) for text in not_ages] == [None] * len(not_ages)
    # "old" and a name the book uses often pick no passage out: the one where an age stands by the name has a
    # reserved slot, and the digest leads with its line.
    found = session.retrieve("How old was the young horse when Squire Gordon came to look at him?")
    assert "age" in {source for sources in found.parts[0].sources.values() for source in sources}
    assert "When I was four years old Squire Gordon came to look at me." in [
        line.text for line in session.digest(found)]


def test_a_question_with_courtesies_or_asked_indirectly_is_taken_plainly(stave_one):
    from engine.answer.wording import plainly_worded

    for typed, plain in (("Who is Marley? please", "Who is Marley?"), ("who is marley thanks", "who is marley"),
                         ("Please, who is Belle?", "who is Belle?"), ("What happens in stave 2, please?",
                                                                       "What happens in stave 2?"),
                         ("Can you tell me who Marley is?", "Who is Marley?"),
                         ("Could you please tell me where Bath is?", "Where is Bath?"),
                         ("Do you know how old Anne is?", "How old is Anne?"),
                         ("Tell me how the story ends", "How the story ends?"),
                         ("Remind me who Marley is", "Who is Marley?"), ("I forget who Belle was", "Who was Belle?"),
                         ("can you remind me where Bath is", "Where is Bath?")):
        assert plainly_worded(typed) == plain, typed
    for kept in ("Why does Scrooge say thanks?", "Who is Mr Thanks?", "Who says please?", "Tell me about Anne",
                 "please", "Did Scrooge thank the boy?"):
        assert plainly_worded(kept) == kept, kept
    # "who is marley thanks" had asked who "marley thanks" is ("not in this book"); "who Marley is" was no
    # who-is question, so its digest did not lead with where the book first names him.
    asked = stave_one.retrieve("Who is Marley?")
    assert stave_one.digest(asked)[0].text == "MARLEY was dead: to begin with."
    for typed in ("who is marley thanks", "Can you tell me who Marley is?", "Remind me who Marley is"):
        found = stave_one.retrieve(typed)
        assert found.absent == [] and found.order == asked.order, typed
        assert stave_one.digest(found)[0].text == "MARLEY was dead: to begin with.", typed


def test_a_question_that_quotes_the_book_is_answered_by_the_lines_holding_the_quotation(session):
    # The lines beside it that shared the question's other words were noise.
    for question in ("Where does the narrator remember 'a large pleasant meadow'?",
                     "Why does the horse recall \u201ca large, pleasant meadow\u201d?"):  # punctuation aside
        lines = session.digest(session.retrieve(question))
        assert lines and all("a large pleasant meadow" in line.text for line in lines), question


def test_who_said_a_line_is_answered_by_the_speech_from_where_it_names_its_speaker(stave_one):
    # The speech's last sentence alone does not say who speaks it; its paragraph does, before it.
    [line] = stave_one.digest(stave_one.retrieve("Who said 'there's more of gravy than of grave about you'?"))
    assert line.text.startswith('"Because," said Scrooge, "a little thing affects them.')
    assert line.text.endswith("There's more of gravy than of grave about you, whatever you are!\"")
    book = stave_one.context.book
    assert " ".join(book.text[line.start:line.end].split()) == line.text
    [said] = stave_one.digest(stave_one.retrieve("Who said 'Mankind was my business'?"))
    assert said.text == '"Business!" cried the Ghost, wringing its hands again. "Mankind was my business.'
    # A line holding the words quoted is quoted however bare (it had been left out as saying only who spoke).
    [asked] = stave_one.digest(stave_one.retrieve('Who said "Are there no prisons?"'))
    assert asked.text == '"Are there no prisons?" asked Scrooge.'
    # Not for another question: the line as it stands.
    [quoted] = stave_one.digest(stave_one.retrieve("Why is there 'more of gravy than of grave' about the Ghost?"))
    assert quoted.text.startswith("There's more of gravy")
    # Asked of a selection: the plan's part is the selection, and the question still asks who spoke.
    text = book.text
    gravy = text.index("There's more of gravy")
    selected = stave_one.digest(stave_one.retrieve("Who says this?", focus=(gravy, gravy + 40)))
    assert selected[0].text.startswith('"Because," said Scrooge,') and selected[0].end > gravy
    # The selection's own line leads, however short: a bare exchange had been left out, another line quoted.
    prisons = text.index("Are there no prisons?")
    [own] = stave_one.digest(stave_one.retrieve("Who is speaking?", focus=(prisons, prisons + 21)))
    assert own.text == '"Are there no prisons?" asked Scrooge.'
    # Asked why: its own line and lines telling of it elsewhere (it had been its own line alone).
    knocker = text.index("saw in the knocker, without its undergoing")
    why = stave_one.digest(stave_one.retrieve("Why does he see this?", focus=(knocker, knocker + 42)))
    assert any(line.start <= knocker < line.end for line in why) and len(why) > 1
    assert sum("saw in the knocker, without its undergoing" in line.text for line in why) == 1


def test_who_someone_is_is_answered_from_lines_that_name_them():
    from types import SimpleNamespace

    from engine.answer.digest import _naming_the_one_asked_about
    from engine.answer.retrieval import asked_who

    def line(sentence):
        return (5.0, 0, 0, len(sentence), sentence, SimpleNamespace(id="p1.1", section=1))

    # The word index stems "Belle" as "bell": A Christmas Carol's digest for
    # "Who was Belle?" quoted two lines about the church's bell beside hers.
    bells = [line("The bell struck twelve."), line('"Belle," said the husband, turning to his wife.'),
             line("He saw this bell begin to swing.")]
    assert [item[4] for item in _naming_the_one_asked_about(bells, asked_who("Who was Belle"))] == [
        '"Belle," said the husband, turning to his wife.']
    assert _naming_the_one_asked_about(bells, asked_who("Why does the bell ring")) == bells  # not a who-is
    assert _naming_the_one_asked_about(bells[:1], asked_who("Who was Belle")) == bells[:1]  # none name her


def test_a_sentence_the_book_repeats_is_quoted_once(tmp_path):
    from engine.store import Library

    # The excerpt twice over: every sentence stands in two places of the book.
    excerpt = (ROOT / "tests" / "fixtures" / "black-beauty-excerpt.txt").read_text(encoding="utf-8")
    twice = tmp_path / "black-beauty-twice.txt"
    twice.write_text(f"{excerpt}\n\n{excerpt}", encoding="utf-8")
    library = Library(tmp_path / "home")
    book_id = library.import_book(twice).book_id
    answering = AnswerSession(library, book_id, embedder=open_embedder(ModelSettings()))
    answering.ensure_indexed()
    found = answering.retrieve("What did the old horse say about the hare and the dogs?", budget=12)
    texts = [" ".join(node.text.split()) for node in found.passages]
    assert len(set(texts)) < len(texts)  # the same passage retrieved from both copies
    lines = answering.digest(found)
    assert lines and any("hare" in line.text for line in lines)
    assert len({line.text for line in lines}) == len(lines)


def test_digest_lines_come_from_different_sections_first():
    from types import SimpleNamespace

    from engine.answer.digest import _choose

    def pair(score, passage_id, section):
        return (score, (0, 0, 0, 0, f"sentence {score}", SimpleNamespace(id=passage_id, section=section)))

    scored = [pair(0.9, "p1.1", 1), pair(0.88, "p1.1", 1), pair(0.85, "p1.2", 1), pair(0.8, "p4.1", 4)]
    assert [item[0] for item in _choose(scored, several_passages=True)] == [0.9, 0.8, 0.85]
    # One passage only: its best sentences, whatever their passage.
    alone = [pair(0.9, "p1.1", 1), pair(0.88, "p1.1", 1)]
    assert [item[0] for item in _choose(alone, several_passages=False)] == [0.9, 0.88]


def test_a_digest_line_is_shown_in_quotation_marks_without_an_unpaired_one():
    from engine.answer.digest import quoted

    assert quoted("The hare was killed.") == "\u201cThe hare was killed.\u201d"
    assert quoted('"What hare?" I said.') == '"What hare?" I said.'  # dialogue keeps its own marks
    # The last sentence of a speech: its closing mark would stand unpaired inside ours.
    assert quoted('They could not get away."') == "\u201cThey could not get away.\u201d"
    assert quoted('He called it "the sign of the four."') == "\u201cHe called it \"the sign of the four.\"\u201d"
    # Cut from inside a speech: the mark it lacks is added, the book's own kept.
    assert quoted('God save you!" cried a cheerful voice.') == '"God save you!" cried a cheerful voice.'
    assert quoted("Marley's Ghost!\u201d and fell again.") == "\u201cMarley's Ghost!\u201d and fell again."
    assert quoted('He said, "My dear Scrooge, how are you?') == '\u201cHe said, "My dear Scrooge, how are you?"\u201d'


def test_the_digest_weighs_a_books_rare_words_above_its_common_ones(session):
    from engine.answer.digest import word_weight

    rarity = session.context.rarity
    common, rare = "mother", "squire"  # in nearly every passage of Black Beauty's opening chapters, and in two
    assert rarity.frequency[common] > 3 * rarity.frequency[rare] > 0
    assert word_weight(rare, rarity) > 2 * word_weight(common, rarity) > 0
    assert word_weight("zeppelin", rarity) > word_weight(rare, rarity)  # never in the book: the most telling


def test_a_books_search_files_are_opened_with_its_context_not_by_its_first_question(session):
    # Opened by the first retrieval, they made each book's first question
    # the slowest (21-164 ms here with a cold disk cache, 476 ms seen in a run).
    fresh = AnswerSession(session.library, session.book_id, embedder=session.context.search.embedder)
    assert not fresh.indexer.search().is_open
    assert fresh.context.search.is_open


def test_a_session_keeps_what_it_worked_out_until_the_index_changes(session):
    """The app refreshes its session before every question: that must not
    redo the word counts and sentence splits unless a stage has landed."""
    from engine.answer.looks import LOOKS
    from engine.index.searchfiles import build_generation

    context = session.context
    passage = context.store.nodes(kind="passage")[0]
    spans = context.sentences(passage)
    session.refresh()
    assert session.context is context and context.sentences(passage) is spans
    session.prepare()
    titles, looks = context.chapter_titles, context.word_places(LOOKS)
    build_generation(session.indexer.folder, session.indexer.store)  # what a finished stage publishes
    session.refresh()
    assert session.context is not context
    assert session.context.sentences(passage) == spans
    # What the text alone gave is kept: not worked out again for the first question after a stage lands.
    assert session.context.chapter_titles is titles and session.context.word_places(LOOKS) is looks


def test_citations_that_do_not_resolve_are_dropped(session):
    found = session.retrieve("What did the old horse say about the hare?", budget=4)
    real = found.passages[0].id
    text = f"The old horse spoke [{real}]. Then [p99.9] and [s2] and [{real}, p7.7]; see [note]."
    cleaned, citations, dropped = resolve_citations(text, session.context, found)
    assert [c.passage_id for c in citations] == [real]
    assert dropped == 4  # p99.9, s2, p7.7, note
    assert "p99.9" not in cleaned and "[s2]" not in cleaned and "[note]" not in cleaned
    assert cleaned.count(f"[{real}]") == 2
    citation = citations[0]
    book = session.context.book
    assert citation.quote == book.text[citation.start:citation.end]
    assert citation.label == book.sections[citation.section - 1].label
    assert citation.start <= citation.support["start"] < citation.support["end"] <= citation.end


def test_a_citation_points_to_the_sentence_that_backs_its_claim(session):
    from engine.answer.support import claims, with_support

    # The claim is the answer's sentence citing the passage; a citation after a full stop belongs to that sentence.
    assert claims("Marley's ghost warns him [p1.30, p1.31]. He leaves. [p1.2]\n2. The knocker [p5.4] changes.") == {
        "p1.30": "Marley's ghost warns him.", "p1.31": "Marley's ghost warns him.", "p1.2": "He leaves.",
        "p5.4": "The knocker changes."}
    assert claims("[p1.1] The hare ran off.") == {"p1.1": "The hare ran off."}
    found = session.retrieve("What did the old horse say about the hare, and how was the young horse broken in with "
                             "a bit?", budget=6)
    hare = next(node for node in found.passages if "perhaps the hare" in node.text)
    bit = next(node for node in found.passages if "bit into my mouth" in node.text)
    # Resolving an answer's citations finds each one's support.
    answer, citations, _ = resolve_citations(
        f"The old horse said the hare might get off [{hare.id}]. The cold steel of the bit felt very bad in the "
        f"mouth [{bit.id}]. [{found.passages[0].id}]", session.context, found)
    supported = {citation.passage_id: citation.support for citation in citations}
    text = session.context.book.text
    for passage, words in ((hare, "perhaps the hare will get off"), (bit, "cold hard steel")):
        support = supported[passage.id]
        assert passage.start <= support["start"] < support["end"] <= passage.end
        assert support["text"] == " ".join(text[support["start"]:support["end"]].split())
        assert words in support["text"], support
    # A passage cited by no sentence of its own is backed by the sentence before.
    assert supported[found.passages[0].id] is not None
    bare = [replace(citation, support=None) for citation in citations]
    assert with_support("", bare, session.context) == bare  # no claim: no support


def test_evidence_only_answers_load_no_model(session):
    """With answers set to "evidence", asking gives the digest and stops:
    no generator is loaded, planned with, or called."""
    settings = ModelSettings(answers="evidence")
    settings.save(session.library.root / "models.json")
    assert ModelSettings.load(session.library.root / "models.json").answers == "evidence"
    evidence_only = AnswerSession(session.library, session.book_id, settings=settings,
                                  embedder=session.context.search.embedder)
    assert not evidence_only.writes_answers and not evidence_only.answer_leads  # said without a model
    digests, pieces = [], []
    result = evidence_only.ask("What did the old horse say about the hare and the dogs?",
                               on_digest=lambda lines, found: digests.append(lines), on_text=pieces.append)
    assert evidence_only._generator is None and evidence_only.indexer._generator is None
    assert result.digest and digests == [result.digest] and not pieces
    assert (result.written, result.answer, result.citations, result.lead) == (False, "", [], "digest")
    assert result.plan.path == "code" and result.timings["first_token"] is None
    assert result.as_dict()["written"] is False and result.tokens["prompt"] == 0
    from engine.llm.errors import ModelError

    with pytest.raises(ModelError, match="answers must be model or evidence"):
        (session.library.root / "models.json").write_text('{"answers": "sometimes"}')
        ModelSettings.load(session.library.root / "models.json")


def test_a_real_answer_from_the_default_model(session):
    order = []
    pieces = []
    result = session.ask("What did the old horse say about the hare?", budget=4,
                         on_digest=lambda lines, retrieval: order.append("digest"),
                         on_text=lambda piece: (order.append("text"), pieces.append(piece)))
    assert order[0] == "digest" and "text" in order
    assert result.lead == "digest"  # a 135M model's answer is a draft under the evidence
    assert result.answer and not result.cancelled
    assert result.plan.path == "code"  # the toy model is not asked to plan
    for citation in result.citations:
        assert citation.passage_id in {node.id for node in result.retrieval.passages}
    data = result.as_dict()
    assert data["citations_valid"] == len(result.citations)
    assert data["timings"]["first_token"] >= data["timings"]["retrieval"]
    assert data["tokens"]["prompt"] > 500 and data["tokens"]["generated"] > 0
    for part in data["parts"]:
        for passage in part["passages"]:
            assert passage["text"] == session.context.book.text[passage["start"]:passage["end"]]
    assert "".join(pieces).strip()


def test_cancel_an_answer_within_a_second(session):
    cancel = CancelToken()
    outcome = {}

    def work():
        outcome["result"] = session.ask("How was the young horse broken in, and what did his master do?",
                                        budget=12, cancel=cancel)
        outcome["at"] = time.perf_counter()

    thread = threading.Thread(target=work)
    thread.start()
    time.sleep(2.0)  # inside the long prompt
    cancelled_at = time.perf_counter()
    cancel.cancel()
    thread.join(30)
    assert outcome["result"].cancelled
    assert outcome["at"] - cancelled_at < 1.0


def test_retrieve_command_imports_indexes_and_prints_verbatim_evidence(chapterhouse_home, fixtures):
    result = subprocess.run(
        [sys.executable, "-m", "engine", "retrieve", str(fixtures / "three-chapters.txt"),
         "What did the old horse say about the hare and the dogs?", "--json", "--budget", "4"],
        capture_output=True, text=True, cwd=ROOT, env={**os.environ, "CHAPTERHOUSE_HOME": str(chapterhouse_home)})
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["stage"] == 1 and document["plan_path"] == "code"
    from engine.importer import parse_book

    book = parse_book(fixtures / "three-chapters.txt")
    assert 1 <= len(document["passages"]) <= 4
    for passage in document["passages"]:
        assert {"id", "section", "label", "start", "end", "text", "part"} <= set(passage)
        # The book's own words at its own span: no situating sentence mixed in.
        assert passage["text"] == book.text[passage["start"]:passage["end"]]
        assert passage["label"] == book.sections[passage["section"] - 1].label
    assert document["digest"] and document["timings"]["retrieval_ms"] < 100
    assert document["reading_limit"] is None
    # Up to the end of Chapter 1 (a reader who has read no further): nothing later.
    env = {**os.environ, "CHAPTERHOUSE_HOME": str(chapterhouse_home)}
    so_far = subprocess.run([sys.executable, "-m", "engine", "retrieve", "Three Chapters from Black Beauty",
                             "What did the old horse say about the hare and the dogs?", "--json", "--up-to", "1"],
                            capture_output=True, text=True, cwd=ROOT, env=env)
    assert so_far.returncode == 0, so_far.stderr
    limited = json.loads(so_far.stdout)
    assert limited["passages"] and {passage["section"] for passage in limited["passages"]} <= {None, 1}
    assert limited["reading_limit"]["until"] == book.sections[0].end
    assert limited["reading_limit"]["label"] == book.sections[0].display_name
    beyond = subprocess.run([sys.executable, "-m", "engine", "retrieve", "Three Chapters from Black Beauty", "hare",
                             "--up-to", "4"], capture_output=True, text=True, cwd=ROOT, env=env)
    assert beyond.returncode == 2 and beyond.stderr.count("\n") == 1
    assert "--up-to 4: the book has sections 1 to 3" in beyond.stderr
    # A name the book never uses: said first, above the evidence.
    missing = subprocess.run([sys.executable, "-m", "engine", "retrieve", "Three Chapters from Black Beauty",
                              "Who is Gandalf?"], capture_output=True, text=True, cwd=ROOT, env=env)
    assert missing.returncode == 0, missing.stderr
    assert missing.stdout.startswith("(\u201cGandalf\u201d is not in this book: nothing in it says who that is.)\n")
    # A slip of the keyboard: how it was read, first.
    slipped = subprocess.run([sys.executable, "-m", "engine", "retrieve", "Three Chapters from Black Beauty",
                              "What did the old horse say about the hare and the dgos?"], capture_output=True,
                             text=True, cwd=ROOT, env=env)
    assert slipped.returncode == 0, slipped.stderr
    assert slipped.stdout.startswith("(Read \u201cdgos\u201d as \u201cdogs\u201d.)\n")
    # "So far" in the question: up to --up-to, planned without those words; without it, refused in one line.
    asked = subprocess.run([sys.executable, "-m", "engine", "retrieve", "Three Chapters from Black Beauty",
                            "What did the old horse say about the hare so far?", "--json", "--up-to", "1"],
                           capture_output=True, text=True, cwd=ROOT, env=env)
    assert asked.returncode == 0, asked.stderr
    taken = json.loads(asked.stdout)
    assert taken["plan"]["question"] == "What did the old horse say about the hare?"
    assert taken["reading_limit"]["until"] == book.sections[0].end
    unplaced = subprocess.run([sys.executable, "-m", "engine", "retrieve", "Three Chapters from Black Beauty",
                               "What has happened so far?"], capture_output=True, text=True, cwd=ROOT, env=env)
    assert unplaced.returncode == 2 and unplaced.stderr.count("\n") == 1 and "\u201cso far\u201d" in unplaced.stderr


def test_a_question_with_no_words_is_refused_before_a_new_book_is_imported(chapterhouse_home, fixtures):
    from engine.store import Library

    env = {**os.environ, "CHAPTERHOUSE_HOME": str(chapterhouse_home)}
    book = str(fixtures / "three-chapters.txt")
    pasted = "Where does the hare run? " * 100
    for command, question, reason in (("retrieve", "   ", "the question is empty; ask something about the book"),
                                      ("ask", "?? --", "the question has no words; ask something about the book"),
                                      ("ask", pasted, "the question is 2,499 characters long; ask in at most 2,000")):
        result = subprocess.run([sys.executable, "-m", "engine", command, book, question], capture_output=True,
                                text=True, cwd=ROOT, env=env)
        assert result.returncode == 2
        assert result.stderr == f"chapterhouse: error: {book}: {reason}\n"
    # Told at once: the book was not imported (nor indexed) for a question that could not be asked.
    assert Library().list_books() == []


def _read_terminal(leader: int, into: list[bytes]) -> None:
    """Drain a pseudo-terminal until its other end is closed (so the child
    never blocks on a full terminal buffer)."""
    try:
        while chunk := os.read(leader, 4096):
            into.append(chunk)
    except OSError:  # EIO: the child closed the terminal
        pass
    finally:
        os.close(leader)


def test_ask_command_streams_evidence_then_the_draft_and_reports_json(chapterhouse_home, fixtures):
    env = {**os.environ, "CHAPTERHOUSE_HOME": str(chapterhouse_home)}
    question = "What did the old horse say about the hare and the dogs?"
    # stderr is a terminal here, as for a person typing the command.
    leader, follower = pty.openpty()
    child = subprocess.Popen([sys.executable, "-m", "engine", "ask", str(fixtures / "three-chapters.txt"), question],
                             stdout=subprocess.PIPE, stderr=follower, text=True, cwd=ROOT, env=env)
    os.close(follower)
    terminal = []
    reader = threading.Thread(target=_read_terminal, args=(leader, terminal))
    reader.start()
    stdout, _ = child.communicate(timeout=600)
    reader.join(10)
    plain = subprocess.CompletedProcess(child.args, child.returncode, stdout, b"".join(terminal).decode())
    assert plain.returncode == 0, plain.stderr
    # While the model reads the evidence, the terminal says how far it is (on
    # stderr, one line overwritten, so stdout stays the answer alone).
    assert "[reading the evidence: 0%]" in plain.stderr
    assert re.search(r"\[reading the evidence: \d+%, about \d+ s left\]", plain.stderr), plain.stderr
    assert "reading the evidence" not in plain.stdout
    # The evidence comes first, then the small model's draft, then the timings.
    evidence, draft = plain.stdout.index("Evidence:"), plain.stdout.index("Draft answer")
    assert evidence < draft < plain.stdout.index("first token")
    # A draft that only restates the question, which the app hides, is marked as such.
    written = plain.stdout[plain.stdout.index("\n", draft):plain.stdout.index("(retrieval")]
    written = written.replace(DRAFT_RESTATED, "")
    assert (DRAFT_RESTATED in plain.stdout) == adds_nothing(written, question), plain.stdout
    result = subprocess.run([sys.executable, "-m", "engine", "ask", "Three Chapters from Black Beauty", question,
                             "--json"], capture_output=True, text=True, cwd=ROOT, env=env)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["lead"] == "digest" and document["digest"] and not document["cancelled"]
    assert {"answer", "citations", "citations_dropped", "not_found", "retried", "timings", "tokens"} <= set(document)
    assert document["timings"]["first_token"] is not None and document["tokens"]["prompt"] > 0
    evidence = subprocess.run([sys.executable, "-m", "engine", "ask", "Three Chapters from Black Beauty", question,
                               "--answers", "evidence"], capture_output=True, text=True, cwd=ROOT, env=env)
    assert evidence.returncode == 0, evidence.stderr
    assert "Evidence:" in evidence.stdout and "Evidence only" in evidence.stdout
    assert "Draft answer" not in evidence.stdout and "first token" not in evidence.stdout


def test_the_ask_command_heads_a_capable_models_answer_as_the_answer(chapterhouse_home, fixtures, monkeypatch,
                                                                     capsys):
    import engine.answer.session
    from engine.cli import main

    # The embedded 135M stands in for a capable model: only the size check is told otherwise.
    monkeypatch.setattr(engine.answer.session, "is_small", lambda generator: False)
    assert main(["ask", str(fixtures / "three-chapters.txt"), "What did the old horse say about the hare?",
                 "--planner", "code", "--budget", "2"]) == 0
    printed = capsys.readouterr().out
    assert "Draft answer" not in printed
    assert printed.index("Evidence:") < printed.index("\nAnswer:\n") < printed.index("first token")


def test_the_ask_command_states_what_the_books_record_says(chapterhouse_home, fixtures, capsys):
    from engine.cli import main

    assert main(["ask", str(fixtures / "three-chapters.txt"), "How many chapters are there?", "--no-history"]) == 0
    printed = capsys.readouterr().out
    assert ("Answer (from the book's contents, no model):\nThree Chapters from Black Beauty has 3 chapters, from "
            "Chapter 1: My Early Home to Chapter 3: My Breaking In.\n") in printed
    assert "\u201c02 The Hunt\u201d [p2.1, Chapter 2]" in printed and "Draft answer" not in printed


def test_eval_harness_reports_recall_baselines_and_ablations(tmp_path, fixtures, chapterhouse_home):
    books = tmp_path / "books"
    books.mkdir()
    (books / "three-chapters.txt").write_bytes((fixtures / "three-chapters.txt").read_bytes())
    questions = tmp_path / "questions.jsonl"
    questions.write_text("\n".join(json.dumps(row) for row in [
        {"id": "q1", "book": "three-chapters", "relation": "arc", "question": "How does the colt's life change "
         "from the meadow with his mother to being broken in with a bit and bridle?",
         "sections": [{"ordinal": 1, "evidence": "While I was young I lived upon my mother's milk"},
                      {"ordinal": 3, "evidence": "It means to teach a horse to wear a saddle and bridle"}],
         "answer": "He grows up and is broken in."},
        {"id": "q2", "book": "three-chapters", "relation": "setup_and_payoff", "question": "What does the old horse "
         "say about the hare, and what happens to the young heir at the brook?",
         "sections": [{"ordinal": 2}], "answer": "The hare is killed and the squire's son dies."},
        # Worded unlike the text (the hare, the dogs, the huntsmen), as readers often ask.
        {"id": "q3", "book": "three-chapters", "relation": "arc", "question": "What does the poor creature the "
         "pack pursued suffer in the end, and how do the riders take it?", "sections": [{"ordinal": 2}]},
        # Retrieved as the app retrieves it, from the chapter it names alone: so the
        # chapter given as needed here, another one, is missed at every budget.
        {"id": "q4", "book": "three-chapters", "relation": "arc", "question": "Summarize chapter 3",
         "sections": [{"ordinal": 1}]},
    ]) + "\n")
    out = tmp_path / "results.json"
    result = subprocess.run([sys.executable, "-m", "engine", "eval", "--questions", str(questions), "--books",
                             str(books), "--budgets", "4,2", "--out", str(out)], capture_output=True, text=True,
                            cwd=ROOT, env={**os.environ, "CHAPTERHOUSE_HOME": str(chapterhouse_home)})
    assert result.returncode == 0, result.stderr
    assert "location recall" in result.stdout and "ablation" in result.stdout
    report = json.loads(out.read_text())
    overall = report["location_recall"]["all"]
    assert set(overall) == {"ladder", "bm25", "dense", "hybrid"}
    assert set(overall["ladder"]) == {"4", "2"}
    assert 0.0 <= overall["ladder"]["4"]["location_recall"] <= 1.0
    assert "relation:arc" in report["location_recall"] and "book:three-chapters" in report["location_recall"]
    assert "ladder without rare words" in report["ablations"]["all"]
    # Each question, with what each method missed: the figures' detail.
    first = next(entry for entry in report["questions"] if entry["id"] == "q1")
    assert first["book"] == "three-chapters" and first["relation"] == "arc" and first["required"] == [1, 3]
    assert set(first["missed"]) == {"ladder", "bm25", "dense", "hybrid"}
    assert set(first["missed"]["ladder"]) == {"4", "2"}
    assert all(set(missed) <= {1, 3} for budgets in first["missed"].values() for missed in budgets.values())
    assert [entry["id"] for entry in report["questions"]] == ["q1", "q2", "q3", "q4"]
    assert report["questions"][3]["missed"]["ladder"] == {"4": [1], "2": [1]}
    recall_at_4 = statistics.mean(1 - len(entry["missed"]["ladder"]["4"]) / len(entry["required"])
                                  for entry in report["questions"])
    assert round(recall_at_4, 3) == overall["ladder"]["4"]["location_recall"]
    assert "ladder without vectors" in report["ablations"]["all"]  # a new book's first seconds
    # Each feature off at every budget, over all questions and over those worded unlike the text.
    low = "wording:low overlap with the text"
    assert report["location_recall"][low]["ladder"]["4"]["questions"] == 2
    for scope in ("all", low):
        assert set(report["ablations"][scope]["ladder without rare words"]) == {"4", "2"}
    table = result.stdout[result.stdout.index("ablation"):]
    assert all(heading in table.splitlines()[1] for heading in ("ALL @4", "ALL @2", "low overlap @4", "low overlap @2"))
    # Read up to the last section each question needs, the ladder shows nothing after it.
    assert set(report["so_far"]) == {"4", "2"}
    assert report["so_far"]["4"]["questions"] == 4 and report["so_far"]["4"]["passages_after_the_limit"] == 0
    assert 0.0 < report["so_far"]["4"]["location_recall"] <= 1.0
    mid_section = report["so_far"]["4"]["mid_section"]  # a position inside a passage: it is cut there
    assert mid_section["questions"] == 4 and mid_section["passages_after_the_limit"] == 0
    assert "for a reader who has read up to the last section a question needs" in result.stdout
    assert "for a reader half-way through that section" in result.stdout
    assert report["latency"]["ladder"]["mean_ms"] < 100
    # The digest quotes only retrieved passages, so it cannot cover more
    # required sections than retrieval found.
    quoted = report["answers"]["digest_sections"]
    assert quoted["questions"] == 4 and quoted["budget"] == 4
    assert 0.0 < quoted["required_sections_quoted"] <= overall["ladder"]["4"]["location_recall"]
    assert 0.0 < quoted["mean_ms"] <= quoted["max_ms"]  # what the digest costs, a figure for the report
    assert "digest_sections" in result.stdout
    assert report["books"]["three-chapters"]["stage"] == 1 and "stage:1" in report["location_recall"]
    assert "goals:" in result.stdout and "clearly above the three baselines" in result.stdout
    # Beside location recall, whether the passages hold the gold quotes: the
    # one question with quotes, for the ladder and every baseline.
    for method in ("ladder", "bm25", "dense", "hybrid"):
        for budget in ("4", "2"):
            entry = overall[method][budget]
            assert 0.0 <= entry["evidence_recall"] <= 1.0
    assert "evidence_recall" not in report["ablations"]["all"]["ladder without rare words"]["4"]
    assert "evidence recall (gold quotes held by a retrieved passage), all questions @4: ladder" in result.stdout
    assert 0.0 <= quoted["gold_quotes_quoted"] <= 1.0


def test_eval_harness_scores_evidence_strings_and_whether_the_digest_quotes_them(tmp_path, fixtures, library):
    from engine.answer.evaluate import format_report, load_questions, run_evaluation

    (tmp_path / "books").mkdir()
    (tmp_path / "books" / "three-chapters.txt").write_bytes((fixtures / "three-chapters.txt").read_bytes())
    questions = tmp_path / "qa" / "evidence.jsonl"
    questions.parent.mkdir()
    # GutenQA's format: the book by its file, the evidence as a string a passage must hold.
    questions.write_text("\n".join(json.dumps({"book_file": "books/three-chapters.txt", "question": question,
                                               "chunk_must_contain": evidence, "answer": ""})
                                   for question, evidence in [
        ("What did the old horse say about the hare and the dogs?", "a hare wild with fright rushed by"),
        ("What did the colt live on while he was young?", "I lived upon my mother's milk")]) + "\n"
        # GutenQA's other questions on our books: a reference answer, no evidence string.
        + json.dumps({"book_file": "books/three-chapters.txt", "query_id": "q.7", "evidence": None,
                      "question": "What did the old horse say about the hare and the dogs?",
                      "answer": "A hare wild with fright rushed by and made for the woods."}) + "\n")
    loaded = load_questions(questions, tmp_path / "books")
    assert [question.kind for question in loaded] == ["evidence", "evidence", "answers"]
    assert loaded[2].id == "q.7" and loaded[2].answers == ["A hare wild with fright rushed by and made for the woods."]
    report = run_evaluation(loaded, library, budgets=(4,), ablations=False, progress=lambda _: None)
    # Scored as LiteraryQA's are: the digest against the reference answer.
    scored = report["answers"]["digest"]
    assert scored["questions"] == 1 and scored["answer_recall"] == 1.0 and 0.0 < scored["token_f1"] < 1.0
    assert set(report["evidence"]) == {"ladder", "bm25", "dense", "hybrid"}
    for entry in report["evidence"].values():
        assert entry["questions"] == 2 and entry["hit@1"] <= entry["hit@5"] <= entry["hit@20"]
        assert 0.0 <= entry["mrr"] <= 1.0
    assert report["evidence"]["ladder"]["hit@20"] == 1.0
    # The digest of the app's retrieval quotes the hare's flight; for the
    # colt's food the embedder prefers other lines of the right passage.
    assert report["answers"]["digest_evidence"] == {"questions": 2, "budget": 4, "evidence_quoted": 0.5}
    assert "digest_evidence: questions 2, budget 4, evidence_quoted 0.5" in format_report(report)


def test_a_bad_question_file_or_an_empty_question_is_one_line(session, tmp_path):
    from engine.answer.evaluate import load_questions
    from engine.errors import ChapterhouseError

    good = '{"book": "b", "question": "q", "sections": [{"ordinal": 1}]}'
    for lines, message in ((["", good, '{"book": "b"'], "line 3 is not valid JSON (Expecting ',' delimiter)"),
                           ([good, '["b"]'], "line 2 is not a JSON object"),
                           ([good, '{"book": "b", "question": "q", "sections": [{"ord": 1}]}'],
                            "line 2 lacks a field a question needs ('ordinal')")):
        path = tmp_path / "questions.jsonl"
        path.write_text("\n".join(lines))
        with pytest.raises(ChapterhouseError) as caught:
            load_questions(path, tmp_path)
        assert str(caught.value) == f"{path}: {message}"
    path.write_text(good)
    assert [q.sections for q in load_questions(path, tmp_path)] == [[1]]
    with pytest.raises(ChapterhouseError, match="the question is empty"):
        session.ask("   ")
    with pytest.raises(ChapterhouseError, match="the question has no words"):
        session.retrieve("??? ###")
    with pytest.raises(ChapterhouseError, match="the question is 2,001 characters long; ask in at most 2,000"):
        session.retrieve("Why? " + "x" * 1996)


def test_the_harness_says_which_goals_a_run_meets():
    from engine.answer.evaluate import Question, Row, format_report, goal_lines, summarize

    def rows(book: str, required: list[int], ladder: dict, baselines: list[int]) -> list[Row]:
        question = Question(id=book, book_path=Path(f"{book}.txt"), question="?", sections=required)
        made = [Row(question, "ladder", budget, found, 0.02) for budget, found in ladder.items()]
        return made + [Row(question, method, budget, baselines, 0.01)
                       for method in ("bm25", "dense", "hybrid") for budget in ladder]

    books = {"full": {"title": "Full", "sections": 9, "stage": 4, "summaries": True, "summary_routing": False},
             "plain": {"title": "Plain", "sections": 9, "stage": 1, "summaries": False, "summary_routing": False}}
    report = summarize(rows("full", [1, 2, 3], {12: [1, 2, 3], 6: [1, 2]}, [1]) +
                       rows("plain", [4, 5], {12: [4], 6: [4]}, [4]), books)
    text = "\n".join(goal_lines(report))
    assert "stage 1 only, 12 passages: recall 0.500 over 1 questions (goal >= 0.85): NOT met" in text
    assert "full ladder (only 1 of 2 books, 1 questions), 12 passages: recall 1.000 (goal >= 0.9): met" in text
    assert "every required section found for 100% (goal >= 75%): met" in text
    assert "full ladder, 6 passages: recall 0.667 (goal >= 0.8): NOT met" in text
    # The plain book's ladder only ties its baselines: named, at both budgets.
    assert "NOT met for plain [1] @12 (0.500 vs 0.500), plain [1] @6 (0.500 vs 0.500)" in text
    assert "retrieval under 100 ms: mean 20.0 ms, max 20.0 ms: met" in text
    # A stage-4 figure from summaries that did not route retrieval says so.
    assert ("summaries not used to route retrieval (written by a generator under 1B) for 1 of 1 books with "
            "summaries: full") in format_report(report)
    books["full"]["summary_routing"] = True
    assert "summaries not used to route" not in format_report(report)
    # A run without a book at stage 1 alone says the stage-1 goal was not measured.
    only_full = "\n".join(goal_lines(summarize(rows("full", [1, 2, 3], {12: [1, 2, 3], 6: [1, 2]}, [1]),
                                                {"full": books["full"]})))
    assert "stage 1 only: not measured, no book of this run is at stage 1 alone" in only_full
    assert "full ladder (1 books, 1 questions)" in only_full


def test_a_draft_reads_only_the_passages_picked_first(session):
    import re

    from engine.answer.answering import answer_messages

    retrieval = session.retrieve("How does the colt's life change from the meadow to being broken in?", budget=12)
    assert len(retrieval.passages) > 3
    blocks = lambda messages: re.findall(r"^\[(p\d+\.\d+)\]", messages[1].content, re.M)  # noqa: E731
    assert blocks(answer_messages(session.context, retrieval)) == [node.id for node in retrieval.passages]
    first = sorted(retrieval.ranked[:3], key=lambda node: node.start)
    assert blocks(answer_messages(session.context, retrieval, 3)) == [node.id for node in first]


def test_not_found_retries_once_with_more_passages_unless_it_is_a_draft(session):
    question = 'Reply with the two words "not found" and nothing else: what colour is the moon in this book?'
    draft = session.ask(question, budget=2)
    assert draft.lead == "digest" and not draft.retried  # the digest already shows all that was found
    assert not session.answer_leads
    generator = session.generator
    saved, generator.parameters = generator.parameters, None  # a generator of unknown size counts as capable
    first = []
    try:
        assert session.answer_leads
        capable = session.ask(question, budget=2, on_digest=lambda digest, found: first.append(found))
    finally:
        generator.parameters = saved
    assert capable.lead == "answer" and capable.retried
    assert 2 < len(capable.retrieval.passages) <= 14
    # The timings are those of the evidence shown first, not of the retry's.
    assert capable.retrieval is not first[0] and capable.timings["retrieval"] == round(first[0].seconds, 4)
    assert capable.tokens["prompt"] > draft.tokens["prompt"]  # both calls are counted


def test_a_draft_that_only_restates_the_question_adds_nothing():
    from engine.answer.answering import adds_nothing

    question = "How does the door knocker that startles Scrooge reappear after his night with the spirits?"
    assert adds_nothing("1. How does the door knocker that startles Scrooge reappear after his night with the "
                        "spirits?\nThe answer is:", question)
    assert adds_nothing("", question)
    assert not adds_nothing("On Christmas morning Scrooge blesses the knocker and praises its honest expression "
                            "[p6.3].", question)
    # The 135M's draft in screenshot 5: the question retold twice, with a typo.
    asked = ("How does the door knocker that startles Scrooge on Christmas Eve reappear after his night with the "
             "spirits?")
    retold = "The door knocker that startsles Scrooge on Christmas Eve reappears after his night with the spirits"
    assert adds_nothing(f"1. {retold}\n{retold}", asked)
    # A short answer of new words is an answer.
    assert not adds_nothing("Fezziwig [p2.3].", "Who was Scrooge's first employer?")
    assert not adds_nothing("His nephew Fred.", "Who invites Scrooge to Christmas dinner?")


def test_citation_validity_counts_only_the_citations_an_answer_wrote():
    from engine.answer.evaluate import Question, Row, summarize

    def answered(valid: int, dropped: int) -> Row:
        result = {"answer": "", "citations_valid": valid, "citations_dropped": dropped, "not_found": False,
                  "timings": {"first_token": 1.0, "total": 2.0}, "tokens": {"prompt": 10, "generated": 5}}
        return Row(Question(id="q", book_path=Path("b.txt"), question="?", sections=[1]), "answer", 12, [1], 0.01,
                   answer=result)

    silent = summarize([answered(0, 0)], {})["answers"]["generated"]
    assert silent["citation_validity"] is None and silent["citations_written"] == 0
    mixed = summarize([answered(3, 1), answered(0, 0)], {})["answers"]["generated"]
    assert mixed["citation_validity"] == 0.75 and mixed["citations_written"] == 4


def test_evidence_recall_counts_the_gold_quotes_the_passages_hold():
    """Location recall counts a required section found by any passage of it;
    evidence recall asks whether a retrieved passage holds the section's
    gold quote, whole or cut in two by a passage boundary."""
    from engine.answer.evaluate import Question, Row, format_report, summarize

    quotes = {1: "the old horse stood by the gate in the rain all night",
              2: "a letter came from the squire",
              3: "nobody ever found the key"}
    question = Question(id="q", book_path=Path("b.txt"), question="?", sections=[1, 2, 3], quotes=quotes)
    plain = Question(id="p", book_path=Path("b.txt"), question="?", sections=[1])
    ladder = ["It was cold. The old horse stood by the gate", "in the rain all night, and then slept.",
              "In the morning a letter came from the squire!", "Chapter 3 had no key in it."]
    rows = [Row(question, "ladder", 12, [1, 2, 3], 0.01, ranked_texts=ladder,
                digest_sections=[1, 2], digest_lines=["A letter came from the squire.", "It was cold."]),
            Row(question, "bm25", 12, [2], 0.01, ranked_texts=["In the morning a letter came from the squire!"]),
            Row(question, "ladder without anchors", 12, [1, 2], 0.01),
            Row(plain, "ladder", 12, [1], 0.01, ranked_texts=["Anything."])]
    report = summarize(rows, {})
    overall = report["location_recall"]["all"]
    # Two of the three gold quotes: the first only across a passage boundary.
    book = report["location_recall"]["book:b"]
    assert book["ladder"]["12"]["evidence_recall"] == round(2 / 3, 3)
    assert book["bm25"]["12"]["evidence_recall"] == round(1 / 3, 3)
    # The question without quotes is not counted as holding none of them.
    assert overall["ladder"]["12"]["evidence_recall"] == round(2 / 3, 3)
    assert overall["ladder"]["12"]["location_recall"] == 1.0
    assert "evidence_recall" not in report["ablations"]["all"]["ladder without anchors"]["12"]
    assert report["answers"]["digest_sections"]["gold_quotes_quoted"] == round(1 / 3, 3)
    assert ("evidence recall (gold quotes held by a retrieved passage), all questions @12: ladder 0.667, bm25 0.333"
            in format_report(report))


def test_the_draft_and_the_digest_are_scored_on_the_same_questions():
    """The model answers only the first few questions of a run: its F1 stood
    beside the digest's over every question, and a set without required
    sections (LiteraryQA) reported a location recall of 0 for its answers."""
    from engine.answer.evaluate import Question, Row, summarize

    def question(number: int) -> Question:
        return Question(id=str(number), book_path=Path("b.txt"), question="Who keeps the inn?",
                        answers=["the old innkeeper"], kind="answers")

    first, second = question(1), question(2)
    result = {"answer": "The old innkeeper keeps it.", "citations_valid": 0, "citations_dropped": 0,
              "not_found": False, "timings": {"first_token": 1.0, "total": 2.0}, "tokens": {"prompt": 10, "generated": 5}}
    rows = [Row(first, "ladder", 12, [1], 0.01, digest="\u201cThe innkeeper was old.\u201d [Chapter 1]"),
            Row(second, "ladder", 12, [1], 0.01, digest="\u201cNothing here.\u201d [Chapter 2]"),
            Row(first, "answer", 12, [1], 0.01, answer=result)]
    answers = summarize(rows, {})["answers"]
    assert answers["digest"]["questions"] == 2
    # Whether a digest holds the answer's words, which its F1 cannot say: whole sentences against three words.
    assert answers["digest"]["answer_recall"] == 0.5 > answers["digest"]["token_f1"]
    generated = answers["generated"]
    assert generated["questions"] == 1 and generated["token_f1"] > generated["digest_token_f1"] > 0
    assert generated["digest_token_f1"] > answers["digest"]["token_f1"]  # the first question's digest alone
    assert "location_recall" not in generated
    assert generated["model_errors"] == 0
    # An answer the model could not write is counted, not hidden in the F1.
    failed = {**result, "answer": "", "model_error": "m.gguf: model file not found"}
    rows.append(Row(second, "answer", 12, [1], 0.01, answer=failed))
    assert summarize(rows, {})["answers"]["generated"]["model_errors"] == 1
