"""Chapter numbers as books write them: Arabic, Roman, English words, ordinals."""

from __future__ import annotations

import re

_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
ROMAN_PATTERN = r"[IVXLCDM]+|[ivxlcdm]+"
_ROMAN_STRICT = re.compile(r"^M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$")

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}
_ORDINAL_UNITS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
    "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11,
    "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15,
    "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
}
_ORDINAL_TENS = {
    "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50,
    "sixtieth": 60, "seventieth": 70, "eightieth": 80, "ninetieth": 90,
}

_unit_words = "|".join(sorted(list(_UNITS) + list(_ORDINAL_UNITS), key=len, reverse=True))
_tens_words = "|".join(sorted(list(_TENS) + list(_ORDINAL_TENS), key=len, reverse=True))
# "forty-seven", "forty seven", "twentieth", "one hundred", "one hundred and two".
WORD_NUMBER_PATTERN = (
    rf"(?:(?:{_unit_words})[\s-]+hundred(?:[\s-]+(?:and[\s-]+)?)?)?"
    rf"(?:(?:{_tens_words})(?:[\s-]+(?:{_unit_words}))?|(?:{_unit_words}))"
    rf"|(?:{_unit_words})[\s-]+hundred(?:th)?"
)
_WORD_NUMBER_RE = re.compile(rf"^(?:{WORD_NUMBER_PATTERN})$", re.IGNORECASE)


def roman_to_int(text: str) -> int | None:
    """Value of a well-formed Roman numeral, or None ("IIII" and "VX" are rejected)."""
    upper = text.upper()
    if not upper or not _ROMAN_STRICT.match(upper):
        return None
    total = 0
    for index, char in enumerate(upper):
        value = _ROMAN_VALUES[char]
        following = _ROMAN_VALUES[upper[index + 1]] if index + 1 < len(upper) else 0
        total += -value if value < following else value
    return total


def int_to_roman(value: int) -> str:
    pairs = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
             (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
    out = []
    for amount, numeral in pairs:
        while value >= amount:
            out.append(numeral)
            value -= amount
    return "".join(out)


def words_to_int(text: str) -> int | None:
    """Value of an English number or ordinal in words ("Forty-Seven", "twentieth")."""
    if not _WORD_NUMBER_RE.match(text.strip()):
        return None
    total = 0
    current = 0
    for word in re.split(r"[\s-]+", text.strip().lower()):
        if word == "and":
            continue
        if word in ("hundred", "hundredth"):
            current = max(current, 1) * 100
            continue
        for table in (_UNITS, _ORDINAL_UNITS, _TENS, _ORDINAL_TENS):
            if word in table:
                current += table[word]
                break
        else:
            return None
    total += current
    return total


def parse_number(text: str) -> int | None:
    """Value of a chapter number in any of the forms books use, or None."""
    token = text.strip().rstrip(".")
    if not token:
        return None
    if token.isdigit():
        return int(token)
    if re.fullmatch(ROMAN_PATTERN, token):
        return roman_to_int(token)
    return words_to_int(token)
