"""EPUB 2 and 3, Gutenberg HTML, and ZIP archives holding a book."""

from __future__ import annotations

import pytest

from book_files import prose, write_epub, zip_files
from engine.formats.html import html_blocks
from engine.importer import parse_book

CHAPTERS = [
    (["CHAPTER I.", "Down the Rabbit-Hole"], prose("Alice", 30)),
    (["CHAPTER II.", "The Pool of Tears"], prose("the Rabbit", 30)),
    (["CHAPTER III.", "A Caucus-Race"], prose("the Dodo", 30)),
]


@pytest.mark.parametrize("version", [2, 3])
def test_epub_sections_follow_its_table_of_contents(tmp_path, version):
    path = write_epub(tmp_path / f"book{version}.epub", CHAPTERS, version=version, title="Wonderland",
                      author="Lewis Carroll", front_matter=["A short note before the tale begins."])
    book = parse_book(path)
    assert book.metadata["source_format"] == "epub"
    assert book.metadata["sections_method"] == "epub-toc"
    assert book.metadata["title"] == "Wonderland"
    assert book.metadata["author"] == "Lewis Carroll"
    assert book.metadata["language"] == "en"
    if version == 2:
        assert book.metadata["gutenberg_id"] == "99999"
    assert [(s.label, s.title) for s in book.sections] == [
        ("Chapter I", "Down the Rabbit-Hole"), ("Chapter II", "The Pool of Tears"), ("Chapter III", "A Caucus-Race")]
    for section, (_, paragraphs) in zip(book.sections, CHAPTERS):
        text = book.text[section.start:section.end]
        assert text.startswith("CHAPTER")
        assert paragraphs[0] in text and paragraphs[-1] in text
        # XHTML paragraphs stay paragraphs.
        inside = [p for p in book.paragraphs if p.section == section.ordinal and p.kind != "heading"]
        assert [book.text[p.start:p.end] for p in inside] == paragraphs
    assert book.text.index("A short note") < book.sections[0].start


# The back matter Project Gutenberg's older EPUBs end with (as in its Pride
# and Prejudice): its licence is marked as such, its two headings are not.
GUTENBERG_BACK_MATTER = """<?xml version='1.0' encoding='utf-8'?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>More...</title></head>
<body><h2 id="more_info_header">More...</h2>
<div id="bm_info"><h3>More books by Lewis Carroll</h3><div id="bm_more_by_author"></div></div>
<h2 id="about_pg_header">About Project Gutenberg</h2>
<div class="pgmonospaced pgheader" id="pg_trailer">End of the Project Gutenberg EBook of Wonderland</div>
</body></html>"""


def test_the_back_matter_of_a_gutenberg_epub_is_left_out(tmp_path):
    book = parse_book(write_epub(tmp_path / "pg.epub", CHAPTERS, version=2, back_matter=GUTENBERG_BACK_MATTER))
    assert book.text.rstrip().endswith(CHAPTERS[-1][1][-1])
    for gone in ("More...", "More books", "Project Gutenberg"):
        assert gone not in book.text


def _semantic_page(body_type: str, section_type: str, html: str) -> str:
    return f"""<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>x</title></head>
<body epub:type="{body_type}"><section id="{section_type}" epub:type="{section_type}">{html}</section></body></html>"""


def test_the_pages_around_an_epubs_text_are_left_out(tmp_path):
    # As Standard Ebooks makes them: marked with EPUB 3's structural semantics.
    before = [("Titlepage", _semantic_page("frontmatter", "titlepage", "<h1>Wonderland</h1><p>By Lewis Carroll.</p>")),
              ("Imprint", _semantic_page("frontmatter", "imprint", "<h2>Imprint</h2><p>This ebook is the product of "
                                         "many hours of hard work by volunteers for Standard Ebooks.</p>"))]
    after = [("Endnotes", _semantic_page("backmatter", "endnotes", '<h2>Endnotes</h2><ol><li id="note-1" '
                                         'epub:type="endnote"><p>The Dodo is an extinct bird.</p></li></ol>')),
             ("Colophon", _semantic_page("backmatter", "colophon", "<h2>Colophon</h2><p>Wonderland was published in "
                                         "1865. This ebook was produced for Standard Ebooks.</p>")),
             ("Uncopyright", _semantic_page("backmatter", "copyright-page", "<h2>Uncopyright</h2><p>May you do good "
                                            "and not evil. Copyright pages exist to tell you that you cannot.</p>"))]
    for version in (2, 3):
        book = parse_book(write_epub(tmp_path / f"se{version}.epub", CHAPTERS, version=version, title="Wonderland",
                                     matter=(before, after)))
        assert [section.label for section in book.sections] == ["Chapter I", "Chapter II", "Chapter III"]
        assert book.text.startswith("CHAPTER I.") and book.text.endswith(CHAPTERS[-1][1][-1])
        for gone in ("Standard Ebooks", "Lewis Carroll", "extinct bird", "Uncopyright", "May you do good"):
            assert gone not in book.text
    # The number that calls a note goes with the note.
    called = html_blocks('<p>The Dodo came back.<a href="back1.xhtml#note-1" epub:type="noteref">1</a></p>')
    assert [block.text for block in called] == ["The Dodo came back."]


def test_epub_toc_with_unnumbered_chapter_sized_entries(tmp_path):
    chapters = [([title], prose(title, 120)) for title in ("The Storm", "The Wreck", "The Island")]
    book = parse_book(write_epub(tmp_path / "named.epub", chapters, version=3))
    assert [s.label for s in book.sections] == ["The Storm", "The Wreck", "The Island"]
    assert book.metadata["sections_method"] == "epub-toc"


def test_gutenberg_html(fixtures):
    book = parse_book(fixtures / "call-of-the-wild-excerpt.html")
    assert book.metadata["source_format"] == "html"
    assert book.metadata["title"] == "The Call of the Wild"
    assert book.metadata["author"] == "Jack London"
    assert book.metadata["gutenberg_id"] == "215"
    assert [(s.label, s.title) for s in book.sections] == [
        ("Chapter I", "Into the Primitive"), ("Chapter II", "The Law of Club and Fang"),
        ("Chapter III", "The Dominant Primordial Beast")]
    # Header, licence, contents table, caption and page numbers are all gone.
    for gone in ("Project Gutenberg", "LICENSE", "Contents", "Illustration", "[Pg 7]"):
        assert gone not in book.text
    verse = [p for p in book.paragraphs if p.kind == "verse"]
    assert book.text[verse[0].start:verse[0].end].startswith("\u201cOld longings nomadic leap,\nChafing")


@pytest.mark.parametrize("inner", ["txt", "html", "epub"])
def test_zip_holding_one_book(tmp_path, fixtures, inner):
    if inner == "txt":
        source = fixtures / "black-beauty-excerpt.txt"
    elif inner == "html":
        source = fixtures / "call-of-the-wild-excerpt.html"
    else:
        source = write_epub(tmp_path / "inner.epub", CHAPTERS)
    direct = parse_book(source)
    archive = zip_files(tmp_path / "book.zip", {f"folder/{source.name}": source.read_bytes(),
                                                "folder/images/cover.jpg": b"\xff\xd8\xff\xe0 not really"})
    zipped = parse_book(archive)
    assert zipped.book_id == direct.book_id
    assert [s.label for s in zipped.sections] == [s.label for s in direct.sections]
