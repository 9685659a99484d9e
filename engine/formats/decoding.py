"""Bytes to text: byte-order marks, the encoding a Gutenberg header declares,
UTF-8, Windows-1252/Latin-1, then charset-normalizer's guess; line endings of
any kind (CRLF, LF, lone CR, mixed) become LF."""

from __future__ import annotations

import codecs
import re

_BOMS = [
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
]
_DECLARED = re.compile(rb"Character set encoding:\s*([A-Za-z0-9_.:-]+)", re.I)
_ENCODING_ALIASES = {"iso-8859-1": "cp1252", "iso8859-1": "cp1252", "latin-1": "cp1252", "latin1": "cp1252"}
# C0 controls other than tab/newline/CR/form feed, and the C1 block: never in real prose.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")


class UndecodableText(ValueError):
    pass


def decode_text(data: bytes) -> tuple[str, str]:
    """Decoded text with LF line endings, and the name of the encoding used."""
    text, encoding = _decode(data)
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text, encoding


def _decode(data: bytes) -> tuple[str, str]:
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(encoding), encoding
            except UnicodeDecodeError as error:
                raise UndecodableText(f"invalid {encoding} text after its byte-order mark ({error.reason})") from None
    candidates = []
    declared = _DECLARED.search(data[:8000])
    if declared:
        name = declared.group(1).decode("ascii", "ignore").lower()
        candidates.append(_ENCODING_ALIASES.get(name, name))
    candidates += ["utf-8", "cp1252"]
    for encoding in candidates:
        try:
            codecs.lookup(encoding)
            text = data.decode(encoding)
        except (LookupError, UnicodeDecodeError):
            continue
        if _plausible(text) and (encoding == "utf-8" or _mostly_ascii(text)):
            return text, encoding
    guessed = _guess(data)
    if guessed:
        return guessed
    raise UndecodableText("text is in an encoding that could not be decoded (not UTF-8, UTF-16 or Windows-1252/Latin-1)")


def _plausible(text: str) -> bool:
    if not text:
        return True
    sample = text[:200_000]
    return len(_CONTROL.findall(sample)) <= max(2, len(sample) // 2000)


def _mostly_ascii(text: str) -> bool:
    """Text in a Latin-script single-byte encoding is mostly ASCII; bytes that
    decode to a wall of accented letters are not such text."""
    sample = text[:200_000]
    return sum(1 for char in sample if ord(char) > 127) <= len(sample) * 0.2


def _guess(data: bytes) -> tuple[str, str] | None:
    from charset_normalizer import from_bytes

    best = from_bytes(data[:1_000_000]).best()
    if best is None or best.chaos > 0.25:
        return None
    try:
        text = data.decode(best.encoding)
    except (UnicodeDecodeError, LookupError):
        return None
    return (text, best.encoding) if _plausible(text) else None
