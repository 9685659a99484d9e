"""Questions to start with. A reader who opens a book and finds an empty
answer panel does not know what it may be asked, nor which questions it
answers well. The panel offers a few kinds the engine answers from the
book's own lines whatever the book, with the chapter the reader is in:
"Who are the main characters?", "Who tells the story?", "What happens in
Stave II?", "Where is the story set?", "When is the story set?". None
asks for more than the reader has reached by its wording (not "How does
the story end?", nor "How does Scrooge change?"). Questions naming the
book's people were tried and left out: "Who is Ghost?" (A Christmas
Carol names "the Ghost" second most), "What does John look like?" of
Black Beauty, whose lead is the horse telling it."""

from __future__ import annotations

MAIN_CHARACTERS = "Who are the main characters?"
WHO_TELLS = "Who tells the story?"
WHERE_SET = "Where is the story set?"
WHEN_SET = "When is the story set?"


def starter_questions(book, here=None) -> list[str]:
    """Five questions to start with: the main characters, who tells the
    story, what happens in the chapter `here` (a `Section`: where the reader
    is; else the first), and where and when the story is set."""
    chapter = here if here is not None else (book.sections[0] if book.sections else None)
    questions = [MAIN_CHARACTERS, WHO_TELLS]
    if chapter is not None:
        questions.append(f"What happens in {chapter.cited_name}?")
    return questions + [WHERE_SET, WHEN_SET]
