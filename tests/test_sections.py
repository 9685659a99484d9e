"""Section detection on small texts that each carry one structure books use."""

from __future__ import annotations

from book_files import prose
from engine.importer import parse_book
from engine.structure.sections import SYNTHETIC_SECTION_WORDS


def _book(tmp_path, body: str, name: str = "book.txt"):
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    return parse_book(path)


def _chapter_text(seed: str, paragraphs: int = 2) -> str:
    return "\n\n".join(prose(seed, sentences=5 * paragraphs))


def test_sample_book_has_its_five_staves(sample_book):
    book = parse_book(sample_book)
    assert [s.label for s in book.sections] == ["Stave I", "Stave II", "Stave III", "Stave IV", "Stave V"]
    assert [s.ordinal for s in book.sections] == [1, 2, 3, 4, 5]
    for section in book.sections:
        assert book.text[section.start:section.end].startswith(section.heading)
        assert section.start < section.body_start < section.end
    # The preface is front matter, not a section; the contents list is gone.
    assert book.sections[0].start > book.text.index("PREFACE")
    assert "Stave   I: Marley's Ghost" not in book.text
    assert book.metadata["sections_synthetic"] == "no"


def test_volumes_are_parents_and_restarted_numbers_get_unique_labels(tmp_path):
    body = "EMMA\n\nBy Jane Austen\n\n"
    for volume in ("I", "II"):
        body += f"\n\nVOLUME {volume}\n\n"
        for chapter in ("I", "II", "III"):
            body += f"\n\nCHAPTER {chapter}\n\n\n{_chapter_text(f'V{volume}C{chapter}')}\n"
    book = _book(tmp_path, body)
    assert [p.label for p in book.parts] == ["Volume I", "Volume II"]
    assert [s.label for s in book.sections] == [
        "Volume I, Chapter I", "Volume I, Chapter II", "Volume I, Chapter III",
        "Volume II, Chapter I", "Volume II, Chapter II", "Volume II, Chapter III",
    ]
    assert [s.part for s in book.sections] == [1, 1, 1, 2, 2, 2]
    assert "VIICI" in book.text[book.sections[3].start:book.sections[3].end]
    assert all(book.parts[s.part - 1].start < s.start < book.parts[s.part - 1].end for s in book.sections)


def test_prologue_and_epilogue_join_the_chapters_but_a_preface_does_not(tmp_path):
    body = (
        "PREFACE\n\nA word before the story.\n\n"
        f"PROLOGUE\n\n{_chapter_text('prologue')}\n\n"
        f"CHAPTER ONE\n\n{_chapter_text('one')}\n\n"
        f"CHAPTER TWO\n\n{_chapter_text('two')}\n\n"
        f"CHAPTER FORTY-SEVEN\n\n{_chapter_text('late')}\n\n"
        f"EPILOGUE\n\n{_chapter_text('epilogue')}\n"
    )
    book = _book(tmp_path, body)
    # Forty-seven does not follow two: it is not the third chapter of this family.
    labels = [s.label for s in book.sections]
    assert labels[0] == "Prologue" and labels[1:3] == ["Chapter One", "Chapter Two"]
    assert "Preface" not in labels
    assert book.text.startswith("PREFACE")


def test_epilogue_after_the_last_chapter(tmp_path):
    body = "".join(f"CHAPTER {n}\n\n{_chapter_text(str(n))}\n\n" for n in ("I", "II", "III"))
    body += f"THE EPILOGUE\n\n{_chapter_text('end')}\n"
    book = _book(tmp_path, body)
    assert [s.label for s in book.sections] == ["Chapter I", "Chapter II", "Chapter III", "Epilogue"]
    assert book.text[book.sections[-1].start:].startswith("THE EPILOGUE")


def test_titles_on_the_next_line_or_in_the_same_block(tmp_path):
    next_line = "".join(
        f"Chapter {n}\n\n{title}\n\n\n{_chapter_text(title)}\n\n\n"
        for n, title in (("I", "Out to Sea"), ("II", "The Savage Home"), ("III", "Life and Death"))
    )
    book = _book(tmp_path, next_line, "tarzan.txt")
    assert [s.title for s in book.sections] == ["Out to Sea", "The Savage Home", "Life and Death"]
    assert book.text[book.sections[1].body_start:].startswith("The morning was grey")

    same_block = "".join(
        f"CHAPTER {n}\n{title}\n\n\n{_chapter_text(title)}\n\n\n"
        for n, title in (("ONE", "PLAYING PILGRIMS"), ("TWO", "A MERRY CHRISTMAS"), ("THREE", "THE LAURENCE BOY"))
    )
    book = _book(tmp_path, same_block, "little-women.txt")
    assert [(s.label, s.title) for s in book.sections] == [
        ("Chapter One", "PLAYING PILGRIMS"), ("Chapter Two", "A MERRY CHRISTMAS"), ("Chapter Three", "THE LAURENCE BOY")]
    assert book.sections[0].display_name == "Chapter One: Playing Pilgrims"


def test_first_paragraph_is_not_mistaken_for_a_title(tmp_path):
    body = "".join(f"Chapter {n}\n\n\n{_chapter_text(n)}\n\n\n" for n in ("1", "2", "3"))
    book = _book(tmp_path, body)
    assert [s.title for s in book.sections] == [None, None, None]
    assert book.text[book.sections[0].body_start:].startswith("The morning was grey")


def test_collection_headed_by_story_titles_is_found_through_its_contents(tmp_path):
    titles = ["The Adventure of the Empty House", "The Adventure of the Norwood Builder", "The Adventure of the Dancing Men"]
    body = "THE RETURN\n\n\nCONTENTS:\n\n" + "".join(f"     {t}\n\n" for t in titles) + "\n\n"
    body += "".join(f"\n\n{t.upper()}\n\n\n{_chapter_text(t)}\n" for t in titles)
    book = _book(tmp_path, body)
    assert [s.label for s in book.sections] == titles
    assert book.metadata["sections_method"] == "contents-titles"
    assert "CONTENTS" not in book.text


def test_unlabelled_contents_listing_is_not_sections(tmp_path):
    listing = "\n".join(f"   {n}. {t}" for n, t in (("I", "A Scandal"), ("II", "The League"), ("III", "A Case")))
    body = f"THE ADVENTURES\n\n{listing}\n\n\n"
    body += "".join(f"{n}. {t.upper()}\n\n{_chapter_text(t)}\n\n" for n, t in (("I", "A Scandal"), ("II", "The League"), ("III", "A Case")))
    book = _book(tmp_path, body)
    assert [s.title for s in book.sections] == ["A SCANDAL", "THE LEAGUE", "A CASE"]
    assert book.sections[0].start == book.text.index("I. A SCANDAL")
    assert "I. A Scandal" not in book.text and "II. The League" not in book.text


def test_text_without_headings_gets_synthetic_sections(tmp_path):
    paragraphs = prose("nobody", sentences=2600)  # about 36,000 words
    book = _book(tmp_path, "\n\n".join(paragraphs))
    words = len(book.text.split())
    assert book.metadata["sections_synthetic"] == "yes"
    assert book.metadata["sections_method"] == "synthetic"
    assert len(book.sections) == round(words / SYNTHETIC_SECTION_WORDS) or len(book.sections) == words // SYNTHETIC_SECTION_WORDS
    assert [s.label for s in book.sections][:2] == ["Section 1", "Section 2"]
    for section in book.sections[:-1]:
        assert SYNTHETIC_SECTION_WORDS <= len(book.text[section.start:section.end].split()) < SYNTHETIC_SECTION_WORDS + 200
    # Sections tile the whole text at paragraph ends.
    assert book.sections[0].start == 0 and book.sections[-1].end == len(book.text)
    for before, after in zip(book.sections, book.sections[1:]):
        assert book.text[before.end:after.start] == "\n\n"


def test_heading_glued_to_its_first_paragraph(tmp_path):
    body = "".join(
        f"CHAPTER {n}.\n" + "\n".join(prose(n, 5)[0][i:i + 70] for i in range(0, 280, 70)) + "\n\n"
        + _chapter_text(n) + "\n\n"
        for n in ("I", "II", "III")
    )
    book = _book(tmp_path, body)
    assert [s.label for s in book.sections] == ["Chapter I", "Chapter II", "Chapter III"]
    assert book.text[book.sections[1].start:].startswith("CHAPTER II.\n\nThe morning was grey")


def test_a_stack_of_headings_is_not_a_listing(tmp_path):
    body = ""
    for volume in ("I", "II"):
        body += f"VOLUME {volume}\n\nBOOK {volume}\n\n"
        body += "".join(f"CHAPTER {n}\n\n{_chapter_text(volume + n)}\n\n" for n in ("I", "II"))
    book = _book(tmp_path, body)
    assert len(book.sections) == 4
    assert book.text.startswith("VOLUME I\n\nBOOK I\n\nCHAPTER I")
    assert book.sections[0].label.endswith("Chapter I")
