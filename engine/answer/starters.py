"""Questions to start with. A reader who opens a book and finds an empty
answer panel does not know what it may be asked, nor which questions it
answers well. The panel offers a few kinds the engine answers from the
book's own lines or its record whatever the book, with the chapter the
reader last read: "Who are the main characters?", "Who tells the story?",
"What happens in Stave II?", "When is the story set?", and "What just
happened?" for a reader past the first chapter, "How long will it take
me to read?" for one not yet. None asks for more than the reader has reached
by its wording (not "How does the story end?", nor "How does Scrooge
change?"). Left out: questions naming the book's people ("Who is Ghost?":
A Christmas Carol names "the Ghost" second most; "What does John look
like?" of Black Beauty, whose lead is the horse telling it), and "Where
is the story set?" (Little Women names Washington most, where the
father's hospital is; A Christmas Carol names no place often enough)."""

from __future__ import annotations

MAIN_CHARACTERS = "Who are the main characters?"
WHO_TELLS = "Who tells the story?"
WHEN_SET = "When is the story set?"
JUST_HAPPENED = "What just happened?"
HOW_LONG = "How long will it take me to read?"


def starter_questions(book, read_to: int = 0) -> list[str]:
    """Five questions to start with, for a reader who has read the book up
    to `read_to` (a character offset): the main characters, who tells the
    story, what happens in the chapter last read (else the first), when the
    story is set, and what just happened, or, before they are past the
    first chapter, how long the book takes to read."""
    chapter = book.section_at(max(0, read_to - 1)) or (book.sections[0] if book.sections else None)
    questions = [MAIN_CHARACTERS, WHO_TELLS]
    if chapter is not None:
        questions.append(f"What happens in {chapter.cited_name}?")
    begun = bool(book.sections) and read_to > book.sections[0].end  # a first page in view is not a start
    return questions + [WHEN_SET, JUST_HAPPENED if begun else HOW_LONG]
