"""Plain-text import: every Gutenberg era, encoding and line ending gives the
same book (same normalized text, same id, same sections)."""

from __future__ import annotations

import re

import pytest

from book_files import with_gutenberg_frame
from engine.importer import parse_book

EXTRA_NOTE = "\n\nA NOTE ON THE TEXT\n\nThe café's façade, the naïve clerk and £5 are kept as printed.\n"


@pytest.fixture(scope="module")
def carol_body(tmp_path_factory) -> str:
    from engine.paths import sample_book_path

    raw = sample_book_path().read_text(encoding="utf-8-sig").replace("\r\n", "\n")
    start = raw.index("\n", raw.index("*** START OF THIS PROJECT GUTENBERG EBOOK")) + 1
    end = raw.index("End of the Project Gutenberg EBook")
    body = raw[start:end]
    body = body.replace("Produced by Jose Menendez", "")
    return body.rstrip() + EXTRA_NOTE


def _write(tmp_path, name: str, text: str, encoding: str, newline: str) -> str:
    data = text.replace("\n", newline).encode(encoding)
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("era", ["1990s", "2000s", "today", "none"])
@pytest.mark.parametrize(
    "encoding, newline",
    [("utf-8", "\n"), ("utf-8-sig", "\r\n"), ("latin-1", "\r\n"), ("cp1252", "\r"), ("utf-8", "mixed")],
)
def test_every_era_encoding_and_line_ending_gives_the_same_book(tmp_path, carol_body, era, encoding, newline):
    declared = {"latin-1": "ISO-8859-1", "cp1252": "ISO-8859-1"}.get(encoding, "UTF-8")
    text = with_gutenberg_frame(carol_body, era, title="A Christmas Carol", author="Charles Dickens",
                                number=46, encoding=declared)
    if newline == "mixed":
        lines = text.split("\n")
        text = "".join(line + ("\r\n", "\n", "\r")[index % 3] for index, line in enumerate(lines))
        newline = "\n"
    path = _write(tmp_path, f"carol-{era}.txt", text, encoding, newline)
    book = parse_book(path)

    reference = parse_book(_write(tmp_path, "reference.txt", carol_body, "utf-8", "\n"))
    assert book.text == reference.text
    assert book.book_id == reference.book_id
    assert [s.label for s in book.sections] == ["Stave I", "Stave II", "Stave III", "Stave IV", "Stave V"]
    assert book.sections[0].title == "MARLEY'S GHOST"
    assert "café's façade, the naïve clerk and £5" in book.text
    for boilerplate in ("Project Gutenberg", "SMALL PRINT", "Produced by", "START OF", "Release Date"):
        assert boilerplate not in book.text
    if era != "none":
        assert book.metadata["title"] == "A Christmas Carol"
        assert book.metadata["author"] == "Charles Dickens"
    if era in ("2000s", "today"):
        assert book.metadata["gutenberg_id"] == "46"
        assert book.metadata["language"] == "en"


def test_headerless_text_takes_title_and_author_from_its_title_page(tmp_path):
    body = "Persuasion\n\n\nby Jane Austen\n\n(1818)\n\n\n\nChapter 1\n\n\nSir Walter Elliot, of Kellynch Hall.\n\n" \
           "Chapter 2\n\n\nMr Shepherd, a civil, cautious lawyer.\n"
    book = parse_book(_write(tmp_path, "persuasion.txt", body, "utf-8", "\n"))
    assert book.metadata["title"] == "Persuasion"
    assert book.metadata["author"] == "Jane Austen"
    assert book.metadata["gutenberg_header"] == "no"


def test_table_of_contents_captions_and_production_notes_are_stripped(fixtures):
    book = parse_book(fixtures / "black-beauty-excerpt.txt")
    assert book.metadata["title"] == "Black Beauty"
    assert book.metadata["author"] == "Anna Sewell"
    assert book.metadata["gutenberg_id"] == "271"
    # The printed contents lists all 49 chapters; none of its lines survive.
    assert "Farmer Thoroughgood" not in book.text
    assert "Contents" not in book.text
    assert "Produced by" not in book.text
    assert [s.label for s in book.sections] == ["Chapter 1", "Chapter 2", "Chapter 3"]
    assert [s.title for s in book.sections] == ["My Early Home", "The Hunt", "My Breaking In"]
    assert [p.label for p in book.parts] == ["Part I"]
    assert all(s.part == 1 for s in book.sections)


def test_illustration_captions_are_removed_even_across_lines(tmp_path):
    body = (
        "CHAPTER I\n\nThe house stood alone.\n\n[Illustration: The house\non the hill, at dusk]\n\n"
        "Nobody lived there. [Illustration] It was empty.\n\n"
        "CHAPTER II\n\nThe second chapter begins here.\n"
    )
    book = parse_book(_write(tmp_path, "captions.txt", body, "utf-8", "\n"))
    assert "Illustration" not in book.text
    assert "Nobody lived there.  It was empty." in book.text or "Nobody lived there. It was empty." in book.text
    assert len(book.sections) == 2


def test_prose_is_unwrapped_and_verse_keeps_its_lines(tmp_path):
    body = (
        "CHAPTER I\n\nThis is a long paragraph that was hard\nwrapped at a fixed width and must read\n"
        "as one line of prose again.\n\n"
        "         \u201cOld longings nomadic leap,\n          Chafing at custom's chain;\n"
        "          Again from its brumal sleep\n          Wakens the ferine strain.\u201d\n\n"
        "A coal-\nmine and a well-known road.\n\nCHAPTER II\n\nMore text follows here.\n"
    )
    book = parse_book(_write(tmp_path, "verse.txt", body, "utf-8", "\n"))
    assert "hard wrapped at a fixed width and must read as one line of prose again." in book.text
    assert "\u201cOld longings nomadic leap,\nChafing at custom's chain;" in book.text
    assert "A coal-mine and a well-known road." in book.text
    kinds = {book.text[p.start:p.end][:10]: p.kind for p in book.paragraphs}
    assert kinds["\u201cOld longi"] == "verse"
    assert kinds["This is a "] == "prose"


def test_paragraph_spans_tile_each_section(fixtures):
    book = parse_book(fixtures / "black-beauty-excerpt.txt")
    for section in book.sections:
        inside = [p for p in book.paragraphs if p.section == section.ordinal]
        assert inside[0].start == section.start and inside[-1].end == section.end
        assert book.text[inside[0].start:inside[0].end] == "01 My Early Home" or section.ordinal > 1
        for before, after in zip(inside, inside[1:]):
            assert book.text[before.end:after.start] == "\n\n"
    ids = [p.id for p in book.paragraphs]
    assert ids == list(range(1, len(ids) + 1))
    assert not re.search(r"\n{3,}", book.text)
