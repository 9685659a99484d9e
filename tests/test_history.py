"""A book's history of questions from the command line: `chapterhouse ask`
keeps what it answers where the app keeps its own (the book's journal), and
`chapterhouse history` lists, shows, exports and deletes them."""

from __future__ import annotations

import gc
import json
import subprocess

import pytest

from engine.cli import main
from engine.store import Library

QUESTIONS = ["What did the old horse say about the hare and the dogs?", "Who is Duchess?", "Why did the hare run?"]


def _run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    printed = capsys.readouterr()
    return code, printed.out, printed.err


def test_questions_asked_from_the_command_line_are_kept_in_the_books_history(fixtures, capsys):
    book = str(fixtures / "three-chapters.txt")
    code, out, _ = _run(capsys, "history", book)
    assert code == 2  # not imported yet: a history is never a reason to import a book
    code, out, _ = _run(capsys, "ask", book, QUESTIONS[0], "--answers", "evidence")
    assert code == 0 and "Evidence:" in out
    code, out, _ = _run(capsys, "ask", "Three Chapters from Black Beauty", QUESTIONS[1], "--answers", "evidence",
                        "--json")
    asked = json.loads(out)
    assert code == 0 and isinstance(asked["history_id"], int)
    code, out, _ = _run(capsys, "ask", "Three Chapters from Black Beauty", QUESTIONS[2], "--answers", "evidence",
                        "--no-history", "--json")
    assert code == 0 and json.loads(out)["history_id"] is None

    # What the app's History tab reads: the same journal, in the order asked.
    library = Library()
    book_id = asked["book_id"]
    journal = library.journal(book_id)
    stored = journal.entries()
    journal.close()
    assert [entry.question for entry in stored] == QUESTIONS[:2]
    assert stored[1].id == asked["history_id"] and stored[1].result["digest"] == asked["digest"]

    code, out, _ = _run(capsys, "history", book_id)
    lines = out.splitlines()
    assert code == 0 and len(lines) == 2
    assert lines[1].split()[0] == str(asked["history_id"]) and QUESTIONS[1] in lines[1]
    assert f"({len(asked['digest'])} evidence line" in lines[1]

    code, out, _ = _run(capsys, "history", book_id, "--json")
    listed = json.loads(out)
    assert [entry["question"] for entry in listed["questions"]] == QUESTIONS[:2]
    assert listed["questions"][1]["result"]["citations"] == asked["citations"]

    code, out, _ = _run(capsys, "history", book_id, "--show", str(asked["history_id"]))
    assert out.startswith(f"## {QUESTIONS[1]}\n") and "**Evidence**" in out
    assert all(line["label"] in out for line in asked["digest"])
    code, markdown, _ = _run(capsys, "history", book_id, "--markdown")
    assert markdown.startswith("# Questions about Three Chapters from Black Beauty by Anna Sewell\n")
    assert out.strip() in markdown

    code, out, err = _run(capsys, "history", book_id, "--delete", "9999")
    assert code == 2 and out == ""
    assert err.strip() == ("chapterhouse: error: Three Chapters from Black Beauty: no question 9999 in its history "
                           "(see `chapterhouse history`)")
    code, out, _ = _run(capsys, "history", book_id, "--delete", str(stored[0].id))
    assert code == 0 and "deleted question" in out
    code, out, _ = _run(capsys, "history", book_id)
    assert QUESTIONS[0] not in out and QUESTIONS[1] in out
    _run(capsys, "history", book_id, "--delete", str(asked["history_id"]))
    code, out, _ = _run(capsys, "history", book_id)
    assert out.startswith("No questions asked of Three Chapters from Black Beauty yet.")


def test_on_a_disk_that_takes_no_writes_an_answer_is_shown_and_says_it_is_not_kept(small_filesystem, fixtures,
                                                                                   monkeypatch, capsys):
    monkeypatch.setenv("CHAPTERHOUSE_HOME", str(small_filesystem / "home"))
    code, out, _ = _run(capsys, "ask", str(fixtures / "three-chapters.txt"), QUESTIONS[0], "--answers", "evidence",
                        "--json")
    assert code == 0
    book_id = json.loads(out)["book_id"]
    gc.collect()  # the answer's session, and with it its files on that disk, are let go of
    subprocess.run(["mount", "-o", "remount,ro", str(small_filesystem)], check=True)
    try:
        code, out, err = _run(capsys, "ask", book_id, QUESTIONS[1], "--answers", "evidence")
        assert code == 0 and "Evidence:" in out  # the answer is given all the same
        assert err.strip().startswith("chapterhouse: warning: Three Chapters from Black Beauty: the data folder is "
                                      "not writable, so this answer is not kept in the history (")
        code, out, err = _run(capsys, "history", book_id, "--delete", "1")
        assert code == 2 and "so the question stays in the history" in err
        code, out, _ = _run(capsys, "history", book_id)
        assert code == 0 and QUESTIONS[0] in out and QUESTIONS[1] not in out
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(small_filesystem)], check=True)


@pytest.mark.parametrize("shown", [["--json"], []])
def test_a_history_row_whose_record_is_damaged_is_listed_as_such(fixtures, capsys, shown):
    library = Library()
    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    journal = library.journal(book_id)
    journal.add({"question": QUESTIONS[0], "answer": "It said run."})
    journal._connection.execute("UPDATE history SET result = '{not json'")
    journal.close()
    code, out, _ = _run(capsys, "history", book_id, *shown)
    assert code == 0
    if shown:
        assert json.loads(out)["questions"][0]["result"]["damaged"] is True
    else:
        assert "its record is damaged: the answer's text only" in out


def test_a_question_about_a_passage_from_the_command_line(fixtures, capsys):
    book = str(fixtures / "three-chapters.txt")
    code, out, err = _run(capsys, "ask", book, "Why was she called that?", "--about", "her NAME was\n  duchess",
                          "--answers", "evidence", "--json")
    assert code == 0, err
    asked = json.loads(out)
    focus = asked["focus"]
    assert focus["text"] == "Her name was Duchess" and focus["label"] == "Chapter 1: My Early Home"
    held = [passage for part in asked["parts"] for passage in part["passages"]
            if passage["start"] <= focus["start"] and focus["end"] <= passage["end"]]
    assert held and "Her name was Duchess" in held[0]["text"]
    assert asked["plan"]["question"] == "Why was she called that? (about \u201cHer name was Duchess\u201d)"
    code, out, _ = _run(capsys, "history", asked["book_id"])
    assert "[about \u201cHer name was Duchess\u201d] Why was she called that?" in out
    code, out, _ = _run(capsys, "history", asked["book_id"], "--show", str(asked["history_id"]))
    assert "; about the passage in Chapter 1: My Early Home: \u201cHer name was Duchess\u201d*" in out
    code, out, _ = _run(capsys, "retrieve", asked["book_id"], "Why was she called that?",
                        "--about", "Her name was Duchess", "--json")
    assert code == 0 and json.loads(out)["focus"] == focus
    code, out, err = _run(capsys, "retrieve", asked["book_id"], "Who?", "--about", "a purple elephant")
    assert code == 2 and err == ("chapterhouse: error: Three Chapters from Black Beauty: --about: \u201ca purple "
                                 "elephant\u201d is not in the book's text (see `chapterhouse text`)\n")


def test_the_history_of_a_damaged_book_is_one_line(fixtures, capsys):
    import os

    from engine.index.repair import repair_book

    library = Library()
    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    journal = library.journal(book_id)
    journal.add({"question": QUESTIONS[1], "answer": "The colt's mother."})
    journal.close()
    database = library.folder(book_id) / "book.sqlite"
    database.write_bytes(os.urandom(database.stat().st_size))
    code, out, err = _run(capsys, "history", book_id)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"chapterhouse: error: {database}: the book's database is damaged (")
    # Wholly spoilt, its questions cannot be read back; repaired from its file, the book lists an empty history.
    assert repair_book(library, book_id).questions_kept == 0
    code, out, _ = _run(capsys, "history", book_id)
    assert code == 0 and out.startswith("No questions asked of Three Chapters from Black Beauty yet.")


def test_a_question_about_one_chapter_from_the_command_line(fixtures, capsys):
    book = str(fixtures / "three-chapters.txt")
    code, out, err = _run(capsys, "retrieve", book, "What happens here?", "--in", "2", "--json")
    assert code == 0, err
    found = json.loads(out)
    assert found["passages"] and {passage["section"] for passage in found["passages"]} == {2}
    assert found["within"]["sections"] == [2] and found["within"]["label"].startswith("Chapter 2")
    code, out, _ = _run(capsys, "ask", found["book_id"], "What happens here?", "--in", "2", "--answers", "evidence",
                        "--json")
    asked = json.loads(out)
    assert code == 0 and asked["within"] == found["within"]
    code, out, _ = _run(capsys, "history", found["book_id"])
    assert f"[in {found['within']['short']}] What happens here?" in out
    code, out, _ = _run(capsys, "retrieve", found["book_id"], "What happens here?", "--in", "3", "--in", "1",
                        "--json")
    several = json.loads(out)
    assert code == 0 and several["within"] == {"sections": [1, 3], "label": "Chapter 1 and Chapter 3",
                                               "short": "Chapter 1 and Chapter 3"}
    assert {passage["section"] for passage in several["passages"]} == {1, 3}
    code, out, err = _run(capsys, "retrieve", found["book_id"], "What happens here?", "--in", "3", "--up-to", "1")
    assert code == 2 and err.startswith("chapterhouse: error: Three Chapters from Black Beauty: Chapter 3")
    assert "lies past the reading limit (up to Chapter 1" in err and err.count("\n") == 1
    code, out, err = _run(capsys, "retrieve", found["book_id"], "What happens here?", "--in", "9")
    assert code == 2 and err == ("chapterhouse: error: Three Chapters from Black Beauty: section 9: the book has "
                                 "sections 1 to 3 (see `chapterhouse sections`)\n")
    # A question that names a chapter and asks nothing else of it is about it, as with --in.
    code, out, err = _run(capsys, "retrieve", found["book_id"], "Summarize chapter two", "--json")
    named = json.loads(out)
    assert code == 0 and named["within"] == found["within"] and named["named"] is None
    assert {passage["section"] for passage in named["passages"]} == {2}
    code, out, err = _run(capsys, "ask", found["book_id"], "What happens in the last chapter?", "--up-to", "1",
                          "--answers", "evidence")
    assert code == 2 and "Chapter 3" in err and "lies past the reading limit (up to Chapter 1" in err
    # Named beside a subject of its own, half the evidence comes from it first, the rest from the whole book.
    code, out, err = _run(capsys, "retrieve", found["book_id"], "What did the old horse say about the hare in "
                          "chapter 3?", "--json", "--budget", "4")
    beside = json.loads(out)
    assert code == 0 and beside["within"] is None and beside["named"]["sections"] == [3]
    sections = [passage["section"] for passage in beside["passages"]]
    assert sections.count(3) >= 2 and set(sections) != {3}
    # About the whole book and nothing in it: the book in outline.
    code, out, err = _run(capsys, "retrieve", found["book_id"], "What is this book about?", "--json", "--budget", "3")
    outline = json.loads(out)
    assert code == 0 and outline["overview"] == "outline" and outline["plan"]["scope"] == "GLOBAL"
    assert [passage["section"] for passage in outline["passages"]] == [1, 2, 3]
    # Asked, both are kept saying so: in the list, and in the export.
    for question in ("What did the old horse say about the hare in chapter 3?", "What is this book about?"):
        code, out, err = _run(capsys, "ask", found["book_id"], question, "--answers", "evidence")
        assert code == 0, err
    code, out, _ = _run(capsys, "history", found["book_id"])
    assert "[naming Chapter 3] What did the old horse say about the hare in chapter 3?" in out
    assert "[whole book] What is this book about?" in out
    code, out, _ = _run(capsys, "history", found["book_id"], "--markdown")
    assert f"; naming {beside['named']['label']}, half the evidence from it*" in out
    assert "; about the whole book, from the book in outline, each chapter's opening across it*" in out
    chapter = found["within"]["label"]  # "What happens here?", asked of it alone: it in outline
    assert f"; about {chapter} only, as a whole, from its passages spread from start to end*" in out


def test_a_follow_up_question_from_the_command_line(fixtures, capsys):
    book = str(fixtures / "three-chapters.txt")
    code, out, err = _run(capsys, "ask", book, "What does she tell him?", "--follow-up", "--answers", "evidence")
    assert code == 2 and err.splitlines()[-1] == ("chapterhouse: error: Three Chapters from Black Beauty: "
                                                  "--follow-up: no question asked of it yet to follow (see "
                                                  "`chapterhouse history`)")
    code, out, err = _run(capsys, "retrieve", book, "What does she tell him?", "--after", "Who is Duchess?", "--json")
    found = json.loads(out)
    assert code == 0 and found["follows"] == {"question": "Who is Duchess?",
                                              "taken_as": "What does she (Duchess) tell him?"}
    assert found["plan"]["question"] == "What does she (Duchess) tell him?"
    code, out, _ = _run(capsys, "retrieve", book, "What does she tell him?", "--json")
    assert json.loads(out)["follows"] is None
    # In a terminal, how the question was taken comes first.
    code, out, _ = _run(capsys, "ask", book, QUESTIONS[1], "--answers", "evidence")
    code, out, _ = _run(capsys, "ask", book, "What does she tell him?", "--follow-up", "--answers", "evidence")
    assert code == 0 and out.startswith("(Following on from \u201cWho is Duchess?\u201d, taken as: What does she "
                                        "(Duchess) tell him?)\n")
    # A follow-up to a follow-up reads the one before as it was taken.
    code, out, _ = _run(capsys, "ask", book, "Why does she say it?", "--follow-up", "--answers", "evidence", "--json")
    chained = json.loads(out)
    assert chained["follows"] == {"question": "What does she (Duchess) tell him?",
                                  "taken_as": "Why does she (Duchess) say it?"}
    code, out, _ = _run(capsys, "history", book)
    assert "[after \u201cWhat does she (Duchess) tell him?\u201d] Why does she say it?" in out
    code, out, _ = _run(capsys, "history", book, "--show", str(chained["history_id"]))
    assert ("following on from \u201cWhat does she (Duchess) tell him?\u201d, taken as \u201cWhy does she "
            "(Duchess) say it?\u201d*") in out
    # The last answer written by a capable model goes with it: the people it named, and the answer itself.
    journal = Library().journal(chained["book_id"])
    journal.add({**chained, "question": "Who does Duchess speak to?", "follows": None, "lead": "answer",
                 "answer": "She speaks to her foal, Darkie [p1.3], about kicking and biting."})
    journal.close()
    code, out, _ = _run(capsys, "retrieve", book, "What does he learn?", "--follow-up")
    assert code == 0 and out.startswith("(Following on from \u201cWho does Duchess speak to?\u201d and its answer, "
                                        "taken as: What does he (Darkie, Duchess) learn?)\n")
    code, out, _ = _run(capsys, "ask", book, "What does he learn?", "--follow-up", "--answers", "evidence", "--json")
    followed = json.loads(out)
    assert followed["follows"]["answer"] == "She speaks to her foal, Darkie, about kicking and biting."
    code, out, _ = _run(capsys, "history", book, "--show", str(followed["history_id"]))
    assert "following on from \u201cWho does Duchess speak to?\u201d and its answer, taken as" in out
    with pytest.raises(SystemExit) as refused:
        _run(capsys, "ask", book, "Why?", "--follow-up", "--after", "Who is Duchess?")
    assert refused.value.code == 2 and "not allowed with argument" in capsys.readouterr().err


def test_related_passages_from_the_command_line(fixtures, capsys):
    book = str(fixtures / "three-chapters.txt")
    code, out, err = _run(capsys, "related", book, "perhaps the hare will get off", "--json", "--budget", "3")
    assert code == 0, err
    found = json.loads(out)
    assert found["question"] == "Where else does the book tell of this?" and 1 <= len(found["passages"]) <= 3
    start, end = found["focus"]["start"], found["focus"]["end"]
    assert found["focus"]["text"] == "perhaps the hare will get off"
    assert all(passage["end"] <= start or passage["start"] >= end for passage in found["passages"])  # not itself
    code, out, _ = _run(capsys, "related", found["book_id"], "perhaps the hare will get off", "--budget", "3")
    assert code == 0 and out.count("\n[p") == len(found["passages"]) and "passages from" in out
    code, out, _ = _run(capsys, "related", found["book_id"], "perhaps the hare will get off", "--in", "3", "--json")
    assert code == 0 and {passage["section"] for passage in json.loads(out)["passages"]} == {3}
    # Found in the app, they are kept in the history, which says what they are.
    from engine.answer.session import AnswerSession

    library = Library()
    session = AnswerSession(library, found["book_id"], generator=None)
    journal = library.journal(found["book_id"])
    journal.add(session.ask("", budget=3, focus=(start, end), related=True).as_dict())
    journal.close()
    code, out, _ = _run(capsys, "history", found["book_id"])
    assert (f"[about \u201cperhaps the hare will get off\u201d] Where else does the book tell of this?  "
            f"({len(found['passages'])} related passages)") in out
    code, out, err = _run(capsys, "related", found["book_id"], "no such words")
    assert code == 2 and err == ("chapterhouse: error: Three Chapters from Black Beauty: TEXT: \u201cno such "
                                 "words\u201d is not in the book's text (see `chapterhouse text`)\n")


def test_a_model_that_cannot_be_loaded_loses_the_answer_not_the_evidence(fixtures, chapterhouse_home, capsys):
    from engine.llm.settings import FILE, ModelChoice, ModelSettings

    missing = chapterhouse_home / "no-such-model.gguf"
    ModelSettings(generator=ModelChoice(source=FILE, path=str(missing))).save()
    code, out, err = _run(capsys, "ask", str(fixtures / "three-chapters.txt"), QUESTIONS[0], "--json")
    result = json.loads(out)
    assert code == 1 and str(missing) in result["model_error"] and "model file not found" in result["model_error"]
    assert result["digest"] and result["parts"][0]["passages"] and result["answer"] == "" and not result["citations"]
    assert result["plan"]["path"] == "code"  # no model to plan with either
    assert result["history_id"] is not None  # kept, as the evidence is the answer
    code, out, err = _run(capsys, "ask", result["book_id"], QUESTIONS[1])
    assert code == 1 and out.startswith("Evidence:") and "\u201c" in out
    assert err == f"chapterhouse: the model could not answer: {result['model_error']} (the evidence above stands)\n"
    code, out, _ = _run(capsys, "history", result["book_id"])
    assert QUESTIONS[0] in out and QUESTIONS[1] in out and out.count("; the model could not answer") == 2
    code, out, _ = _run(capsys, "history", result["book_id"], "--show", str(result["history_id"]))
    assert f"*The model could not answer ({result['model_error']}): the evidence is what the book holds.*" in out


def test_an_answers_markdown_quotes_the_sentence_backing_each_citation():
    from engine.store.journal import HistoryEntry, entry_markdown

    passage = "The colts ran to the hedge. \u201cPerhaps the hare will get off,\u201d said the old horse. They waited."
    cited = {"passage_id": "p2.1", "section": 2, "label": "Chapter 2", "start": 100, "end": 100 + len(passage),
             "quote": passage}
    support = {"start": 128, "end": 180, "text": "\u201cPerhaps the hare will get off,\u201d said the old horse."}
    backed = entry_markdown(HistoryEntry(1, 0.0, "What did the old horse say?", "He hoped it would escape [p2.1].",
                                         {"citations": [{**cited, "support": support}]}))
    assert f"- [p2.1] Chapter 2: {support['text']}\n" in backed  # dialogue keeps its own quotation marks
    plain = entry_markdown(HistoryEntry(1, 0.0, "What did the old horse say?", "See [p2.1].",
                                        {"citations": [{**cited, "support": None}]}))
    assert "- [p2.1] Chapter 2: \u201cThe colts ran to the hedge." in plain  # an older record: the passage's opening
    # The evidence's sentences that follow one another in the book, one quotation.
    lines = [{"part": 0, "text": text, "passage_id": "p2.1", "section": 2, "label": "Chapter 2", "start": start,
              "end": start + len(text), "score": 0.5} for text, start in (("The colts ran to the hedge.", 100),
                                                                        ("They waited.", 128), ("It rained.", 400))]
    evidence = entry_markdown(HistoryEntry(1, 0.0, "What did the colts do?", "", {"digest": lines}))
    assert "- \u201cThe colts ran to the hedge. They waited.\u201d \u2014 Chapter 2 [p2.1]\n" in evidence
    assert "- \u201cIt rained.\u201d \u2014 Chapter 2 [p2.1]\n" in evidence
