"""The benchmark corpus: the 14 reference section maps, and every other edition,
encoding and EPUB importing with sensible sections. Skipped, with the reason,
where the corpus is absent (a stranger's clone)."""

from __future__ import annotations

import json
import re

import pytest

from conftest import corpus_root
from engine.importer import parse_book
from engine.structure.headings import parse_heading

REFERENCE_BOOKS = sorted(p.stem for p in (corpus_root() / "sections").glob("*.json")) or ["(corpus absent)"]


def _normal(text: str) -> str:
    return " ".join(text.replace("\u2019", "'").replace("\u201c", '"').replace("\u201d", '"').split()).casefold()


@pytest.mark.corpus
@pytest.mark.parametrize("slug", REFERENCE_BOOKS)
def test_sections_agree_with_the_reference_map(corpus, slug):
    reference = json.loads((corpus / "sections" / f"{slug}.json").read_text())["sections"]
    book = parse_book(corpus / "gutenberg" / f"{slug}.txt")
    assert len(book.sections) == len(reference)
    assert [s.ordinal for s in book.sections] == [r["ordinal"] for r in reference]
    assert len({s.label for s in book.sections}) == len(book.sections), "labels must resolve to one section each"
    for section, expected in zip(book.sections, reference):
        text = book.text[section.start:section.end]
        # The section starts with its heading, exactly as printed in the book.
        assert _normal(section.heading) == _normal(expected["label"])
        assert _normal(text).startswith(_normal(expected["label"]))
        printed = parse_heading(expected["label"])
        if printed is not None and printed.number is not None:
            assert section.number == printed.number
        if section.title is not None:
            assert _normal(section.title) == _normal(expected["title"])
        else:  # no title: the reference records the first line of text instead
            assert _normal(book.text[section.body_start:]).startswith(_normal(expected["title"]))
    assert book.sections == sorted(book.sections, key=lambda s: s.start)


VARIANTS = {
    # file: (sections, parts, first label, last label)
    "variants/a-christmas-carol.1990s-smallprint.carol10.txt": (5, 0, "Stave 1", "Stave 5"),
    "variants/a-christmas-carol.2000s-the-header.carol13.txt": (5, 0, "Stave 1", "Stave 5"),
    "variants/a-christmas-carol.2018-the-header.pg46.txt": (5, 0, "Stave I", "Stave V"),
    "variants/a-study-in-scarlet.ascii-edition.244.txt": (14, 2, "Part I, Chapter I", "Part II, Chapter VII"),
    "variants/a-study-in-scarlet.latin1-edition.244-8.txt": (14, 2, "Part I, Chapter I", "Part II, Chapter VII"),
    "variants/little-women.2000s-the-header.lwmen12.txt": (47, 0, "Chapter One", "Chapter Forty-Seven"),
    "variants/little-women.2010-this-header.514.txt": (47, 0, "Chapter One", "Chapter Forty-Seven"),
    "variants/persuasion.pg-git-2024-body-only.105-0.txt": (24, 0, "Chapter I", "Chapter XXIV"),
    "variants/the-call-of-the-wild.pg-git-2024-body-only.215-0.txt": (7, 0, "Chapter I", "Chapter VII"),
    "extra/emma.txt": (55, 3, "Volume I, Chapter I", "Volume III, Chapter XIX"),
    "extra/the-adventures-of-sherlock-holmes.txt": (12, 0, "Adventure I", "Adventure XII"),
}
EPUBS = {
    "persuasion.gitenberg-calibre.epub": (24, 2, "Volume One, Chapter I", "Volume Two, Chapter XII"),
    "pg11.alices-adventures-in-wonderland.epub": (12, 0, "Chapter I", "Chapter XII"),
    "pg1342.pride-and-prejudice.epub": (61, 0, "Chapter 1", "Chapter 61"),
    "pg1661.the-adventures-of-sherlock-holmes.epub": (12, 0, "Chapter I", "Chapter XII"),
    "pg2701.moby-dick.epub": (136, 0, "Chapter 1", "Epilogue"),
}


@pytest.mark.corpus
@pytest.mark.parametrize("name", sorted(VARIANTS) + [f"epub/{name}" for name in sorted(EPUBS)])
def test_every_edition_imports_with_sensible_sections(corpus, name):
    expected = VARIANTS.get(name) or EPUBS[name.split("/", 1)[1]]
    folder = corpus / ("gutenberg" if not name.startswith("epub/") else "")
    book = parse_book(folder / name)
    count, parts, first, last = expected
    assert len(book.sections) == count
    assert len(book.parts) == parts
    assert book.sections[0].label == first and book.sections[-1].label == last
    assert book.metadata["sections_synthetic"] == "no"
    assert book.metadata.get("title") and book.metadata.get("author")
    for section in book.sections:
        words = len(book.text[section.start:section.end].split())
        assert words > 40, f"{section.label} has only {words} words"  # Moby-Dick has a 50-word chapter
    for boilerplate in ("*** START OF", "*** END OF", "SMALL PRINT", "Produced by", "About Project Gutenberg"):
        assert boilerplate not in book.text
    assert not re.search(r"\[Illustration", book.text)


@pytest.mark.corpus
def test_editions_of_one_book_are_different_books_with_the_same_chapters(corpus):
    same_text = parse_book(corpus / "gutenberg" / "variants" / "a-christmas-carol.2018-the-header.pg46.txt")
    assert same_text.book_id == parse_book(corpus / "gutenberg" / "a-christmas-carol.txt").book_id
    editions = [
        corpus / "gutenberg" / "a-christmas-carol.txt",
        corpus / "gutenberg" / "variants" / "a-christmas-carol.2000s-the-header.carol13.txt",
        corpus / "gutenberg" / "variants" / "a-christmas-carol.1990s-smallprint.carol10.txt",
    ]
    books = [parse_book(path) for path in editions]
    assert len({book.book_id for book in books}) == 3
    for book in books:
        assert [s.number for s in book.sections] == [1, 2, 3, 4, 5]
        assert book.text[book.sections[-1].body_start:].lower().startswith("yes! and the bedpost was his own")
