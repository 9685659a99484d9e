"""The checks on what the LLM writes for the ladder. The bad answers here are
the kinds the 135M default really wrote for Black Beauty and Zenda."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.importer import parse_book
from engine.index.writing import known_words, check_situating, check_summary, invents_names

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "three-chapters.txt"


@pytest.fixture(scope="module")
def hunt():
    book = parse_book(FIXTURE)
    section = book.sections[1]  # Chapter 2, "The Hunt"
    return book, section, known_words(book, book.text[section.start:section.end])


def test_a_faithful_summary_is_kept_and_cut_to_length(hunt):
    _, section, known = hunt
    summary = ("Early one spring morning the colts hear the cry of the hounds and run to the upper part of the "
               "field, where they can look over the hedge. The old mare tells her son that the men are hunting a "
               "hare, and warns him that such sport costs good horses dear. The frightened hare is caught and torn "
               "by the dogs while the gentlemen look pleased. Then two riders try to leap the brook: a young horse "
               "falls, his rider, the squire's only son, breaks his neck, and the black horse with a broken leg is "
               "shot. The mare is sad for days, for that black horse was her own foal, and she never forgets it.")
    kept, reason = check_summary(summary, section, known)
    assert kept is not None and reason == ""
    assert len(kept.split()) <= 90 and kept.endswith(".")


@pytest.mark.parametrize("answer, reason", [
    ("Sure.", "empty"),
    ("In December 2017, John Howard led a team of seven to the North Pole, joined by his brother James.",
     "invented names"),
    ("In 1832 the hunt crossed the field and the young horse fell at the brook, and the rider died.",
     "invented names"),
    ("Here is a summary of the passage: the hounds chase a hare and a horse falls at the brook.",
     "talks about the task"),
    ("In Chapter 7 the hounds chase a hare across the field and the young horse falls at the brook.",
     "invented chapter number"),
    ("the hare the hare the hare the hare the hare the hare the hare the hare the hare the hare", "repetition"),
])
def test_a_bad_summary_is_refused_with_its_reason(hunt, answer, reason):
    _, section, known = hunt
    assert check_summary(answer, section, known) == (None, reason)


def test_one_unknown_name_is_tolerated_two_are_invention(hunt):
    _, _, known = hunt
    # A misspelling or an epithet is not an invention; a new cast is.
    assert not invents_names("The colts watch the hunt from the hedge with old Manley.", known)
    assert invents_names("The colts watch Lord Ashwood and Lady Harriet ride past the hedge.", known)
    # Names the section uses, the book's title and its author are all known.
    assert not invents_names("Anna Sewell tells how the colts watch the hounds and the hare.", known)
    # A capital that opens a sentence or a numbered item is not a name.
    assert not invents_names("The hunt. Afterwards everyone was sad. 1. Dogs ran.", known)


def test_situating_sentences_are_checked_against_their_passage_and_section(hunt):
    book, section, known = hunt
    passage = book.text[section.body_start:section.end]
    kept, _ = check_situating("Early in the spring, the colts hear the hounds and run to the hedge.", section,
                              set(), passage, known)
    assert kept == "Early in the spring, the colts hear the hounds and run to the hedge."
    copied = " ".join(passage.split()[20:34])
    assert check_situating(copied, section, set(), passage, known) == (None, "copies the passage")
    assert check_situating(kept, section, {"early in the spring the colts hear the hounds and run to the hedge"},
                           passage, known) == (None, "repeated")
    assert check_situating("At Zenda, Rupert of Hentzau meets Flavia near the hedge of the meadow.", section,
                           set(), passage, known) == (None, "invented names")


def test_lead_ins_go_and_map_lines_are_whole_sentences(hunt):
    from engine.index.writing import summary_line

    _, section, known = hunt
    kept, _ = check_summary("In the story, the main events include: 1. The colts hear the hounds and run to the "
                            "hedge; 2. The hare is caught; 3. A young horse falls at the brook.", section, known)
    assert kept.startswith("The colts hear the hounds")
    # The first sentence of a numbered list is its first item, not "1."
    assert summary_line("The main events in the text are: 1. The hare is caught; 2. A horse falls.") == \
        "The hare is caught."
    assert summary_line("The squire's son, Mr. Gordon's heir, falls at the brook. Then the horse is shot.") == \
        "The squire's son, Mr. Gordon's heir, falls at the brook."


def test_a_card_alias_that_is_another_frequent_name_is_refused():
    from engine.index.cards import plausible_alias

    frequent = ["Scrooge", "Bob Cratchit", "Ghost", "Marley", "Bob"]
    assert not plausible_alias("Scrooge", "Bob Cratchit", frequent)
    assert plausible_alias("Bob", "Bob Cratchit", frequent)  # part of the same name
    assert plausible_alias("Darkie", "Black Beauty", frequent)  # an epithet, not another character
