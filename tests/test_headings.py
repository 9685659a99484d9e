import pytest

from engine.structure.headings import parse_heading
from engine.structure.numbers import int_to_roman, parse_number, roman_to_int, words_to_int


@pytest.mark.parametrize(
    "text, value",
    [("XLVII", 47), ("iv", 4), ("MCMXCIV", 1994), ("IIII", None), ("VX", None),
     ("Forty-Seven", 47), ("forty seven", 47), ("twentieth", 20), ("ONE", 1), ("one hundred and two", 102),
     ("07", 7), ("fortyish", None), ("", None)],
)
def test_numbers_in_every_form(text, value):
    assert parse_number(text) == value


def test_roman_round_trip():
    for value in range(1, 400):
        assert roman_to_int(int_to_roman(value)) == value
    assert words_to_int("ninety-nine") == 99


@pytest.mark.parametrize(
    "line, kind, number, label, title",
    [
        ("STAVE I:  MARLEY'S GHOST", "stave", 1, "Stave I", "MARLEY'S GHOST"),
        ("CHAPTER FORTY-SEVEN", "chapter", 47, "Chapter Forty-Seven", None),
        ("Chapter 27", "chapter", 27, "Chapter 27", None),
        ("CHAPTER I. MR. SHERLOCK HOLMES.", "chapter", 1, "Chapter I", "MR. SHERLOCK HOLMES."),
        ("Chapter XIV. The End.", "chapter", 14, "Chapter XIV", "The End."),
        ("01 My Early Home", "number", 1, "Chapter 1", "My Early Home"),
        ("XXVIII  Conclusion", "number", 28, "Chapter XXVIII", "Conclusion"),
        ("I. A SCANDAL IN BOHEMIA", "number", 1, "Chapter I", "A SCANDAL IN BOHEMIA"),
        ("PART II.", "part", 2, "Part II", None),
        ("BOOK THE FIRST", "book", 1, "Book the First", None),
        ("VOLUME III", "volume", 3, "Volume III", None),
        ("Adventure XI. The Final Problem", "adventure", 11, "Adventure XI", "The Final Problem"),
        ("THE EPILOGUE", "epilogue", None, "Epilogue", None),
        ("PROLOGUE: The Storm", "prologue", None, "Prologue", "The Storm"),
        ("Part II: _The Country of the Saints._", "part", 2, "Part II", "The Country of the Saints."),
    ],
)
def test_heading_lines(line, kind, number, label, title):
    heading = parse_heading(line)
    assert heading is not None
    assert (heading.kind, heading.number, heading.label, heading.title) == (kind, number, label, title)


@pytest.mark.parametrize(
    "line",
    ["I went home that night.", "Part of the city was dark.", "Book is on the shelf", "1894",
     "THE ADVENTURE OF THE EMPTY HOUSE", "Contents", "chapter one began badly", "I Thought so",
     "Chapter " + "very long title " * 10],
)
def test_prose_is_not_a_heading(line):
    assert parse_heading(line) is None


def test_table_of_contents_lines_read_leniently():
    entry = parse_heading("I  Out to Sea", in_listing=True)
    assert (entry.number, entry.title) == (1, "Out to Sea")
    words = parse_heading("TWENTY-ONE  LAURIE MAKES MISCHIEF", in_listing=True)
    assert (words.number, words.title) == (21, "LAURIE MAKES MISCHIEF")
    assert parse_heading("TWENTY-ONE  LAURIE MAKES MISCHIEF") is None
