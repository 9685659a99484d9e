"""Reading a book file of any supported kind into a SourceDocument.

Supported: plain text (Project Gutenberg or not), Gutenberg HTML, EPUB 2/3,
and a ZIP holding one of those. Everything else, and every damaged or hostile
file, is refused with a BookImportError naming the file and the reason.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from ..errors import BookImportError
from .archive import MAX_BOOK_BYTES, UnsafeArchive, member_names, open_zip, read_member
from .decoding import UndecodableText, decode_text
from .document import Block, SourceDocument, TocEntry
from .epub import EpubError, read_epub
from .gutenberg import find_body
from .html import html_blocks, html_meta, html_title
from .plaintext import parse_plain_text

__all__ = ["Block", "SourceDocument", "TocEntry", "read_document", "document_from_bytes", "MAX_BOOK_BYTES", "BOOK_SUFFIXES"]

BOOK_SUFFIXES = (".txt", ".text", ".epub", ".html", ".htm", ".xhtml", ".zip")
_TEXT_SUFFIXES = (".txt", ".text", "")
_HTML_SUFFIXES = (".html", ".htm", ".xhtml")
# Signatures of files people may try to open that are not books we read.
_SIGNATURES = [
    (b"%PDF-", "a PDF document (import the book as plain text, HTML or EPUB)"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"\x1f\x8b", "a gzip archive (unpack it, or use a ZIP)"),
    (b"7z\xbc\xaf", "a 7-Zip archive (unpack it, or use a ZIP)"),
    (b"Rar!", "a RAR archive (unpack it, or use a ZIP)"),
    (b"\x7fELF", "a program, not a book"),
    (b"MZ", "a program, not a book"),
    (b"{\\rtf", "an RTF document (save it as plain text first)"),
    (b"\xd0\xcf\x11\xe0", "an old Microsoft Office document"),
]


def read_document(path: str | Path) -> SourceDocument:
    path = Path(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise BookImportError(path, "no such file") from None
    except OSError as error:
        raise BookImportError(path, f"cannot read the file ({error.strerror or error})") from None
    if path.is_dir():
        raise BookImportError(path, "is a folder, not a book file")
    if size > MAX_BOOK_BYTES:
        raise BookImportError(path, f"file is {size / (1024 * 1024):.0f} MB, over the 50 MB limit for a book")
    try:
        data = path.read_bytes()
    except OSError as error:
        raise BookImportError(path, f"cannot read the file ({error.strerror or error})") from None
    return document_from_bytes(data, path.name, path)


def document_from_bytes(data: bytes, name: str, report_as: str | Path | None = None) -> SourceDocument:
    report_as = report_as if report_as is not None else name
    try:
        document = _dispatch(data, name, inside_zip=False)
    except (UnsafeArchive, EpubError, UndecodableText, _NotABook) as error:
        raise BookImportError(report_as, str(error)) from None
    if not any(block.text.strip() for block in document.blocks):
        raise BookImportError(report_as, "no book text found in the file")
    return document


_EBOOK_NUMBER = re.compile(rb"\[\s*e-?book\s*#\s*(\d+)\s*\]", re.I)


class _NotABook(ValueError):
    pass


def _dispatch(data: bytes, name: str, inside_zip: bool) -> SourceDocument:
    if not data.strip():
        raise _NotABook("file is empty")
    suffix = PurePosixPath(name.lower()).suffix
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        if _is_epub(data) or suffix == ".epub":
            return read_epub(data)
        if inside_zip:
            raise _NotABook("a ZIP inside a ZIP is not read")
        return _from_zip(data)
    if suffix == ".epub":
        raise _NotABook("corrupt EPUB: not a ZIP archive")
    if suffix == ".zip":
        raise _NotABook("corrupt ZIP archive: no ZIP signature")
    for signature, what in _SIGNATURES:
        if data.startswith(signature):
            raise _NotABook(f"not a book file: {what}")
    if _looks_binary(data):
        raise _NotABook("not a text file (binary data)")
    if suffix in _HTML_SUFFIXES or _looks_html(data):
        return _from_html(data)
    text, encoding = decode_text(data)
    document = parse_plain_text(text)
    document.metadata["encoding"] = encoding
    return document


def _is_epub(data: bytes) -> bool:
    # The EPUB container starts with an uncompressed "mimetype" member.
    return b"mimetypeapplication/epub+zip" in data[:200] or b"META-INF/container.xml" in data[-65536:]


def _from_zip(data: bytes) -> SourceDocument:
    archive = open_zip(data)
    names = [n for n in member_names(archive) if not PurePosixPath(n).name.startswith((".", "__MACOSX"))
             and "__MACOSX/" not in n]
    for suffixes in ((".epub",), _HTML_SUFFIXES, (".txt", ".text")):
        found = [n for n in names if PurePosixPath(n.lower()).suffix in suffixes]
        if len(found) == 1:
            inner = found[0]
            return _dispatch(read_member(archive, inner), inner, inside_zip=True)
        if len(found) > 1:
            listed = ", ".join(sorted(found)[:4])
            raise _NotABook(f"archive holds several books ({listed}); import one at a time")
    raise _NotABook("archive holds no .txt, .html or .epub book")


def _looks_binary(data: bytes) -> bool:
    sample = data[:65536]
    if sample.startswith((b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf")):
        return False
    if b"\x00" in sample:
        # UTF-16/32 text without a byte-order mark has NULs in a regular pattern.
        zero_share = max(sample[phase::2].count(0) for phase in (0, 1)) / max(1, len(sample) // 2)
        return zero_share < 0.4
    controls = sum(1 for byte in sample if byte < 32 and byte not in (9, 10, 12, 13, 27))
    return controls > len(sample) // 100


def _looks_html(data: bytes) -> bool:
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith((b"<!doctype html", b"<html")) or (head.startswith(b"<?xml") and b"<html" in head)


def _from_html(data: bytes) -> SourceDocument:
    blocks = html_blocks(data)
    metadata = html_meta(data)
    body = find_body([block.text.split("\n")[0] if block.text else "" for block in blocks])
    for key, value in body.metadata.items():
        metadata.setdefault(key, value)
    if "title" not in metadata and (title := html_title(data)):
        metadata["title"] = title
    if "gutenberg_id" not in metadata:
        # Today's Gutenberg HTML keeps the ebook number in its (skipped) header.
        number = _EBOOK_NUMBER.search(data[:20000])
        if number:
            metadata["gutenberg_id"] = number.group(1).decode()
    metadata["gutenberg_header"] = "yes" if body.has_header or b"pg-header" in data[:20000] else "no"
    return SourceDocument(blocks=blocks[body.start:body.end], metadata=metadata, source_format="html")
