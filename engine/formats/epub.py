"""EPUB 2 and 3 through ebooklib: Dublin Core metadata, the OPF spine in reading
order, the nav (EPUB 3) or NCX (EPUB 2) table of contents, and each XHTML
chapter into blocks. DRM-protected books are refused with the reason."""

from __future__ import annotations

import io
import posixpath
import re
import warnings
import zipfile
from urllib.parse import unquote
from xml.etree import ElementTree

from .archive import UnsafeArchive, member_names, open_zip, read_member
from .document import SourceDocument, TocEntry
from .gutenberg import find_body
from .html import html_blocks

# Font obfuscation is not DRM: the IDPF and Adobe schemes only scramble fonts.
_FONT_OBFUSCATION = {
    "http://www.idpf.org/2008/embedding",
    "http://ns.adobe.com/pdf/enc#RC",
}
_GUTENBERG_ID = re.compile(r"gutenberg\.org/(?:ebooks/)?(\d+)")


class EpubError(ValueError):
    pass


def read_epub(data: bytes) -> SourceDocument:
    archive = open_zip(data)
    _refuse_drm(archive)
    names = set(member_names(archive))
    if "META-INF/container.xml" not in names:
        raise EpubError("corrupt EPUB: no META-INF/container.xml")
    book = _load(data)
    metadata = _metadata(book)

    blocks = []
    for idref, linear in book.spine:
        item = book.get_item_with_id(idref)
        if item is None or (linear or "yes").lower() == "no":
            continue
        if not item.media_type or "html" not in item.media_type:
            continue
        try:
            content = item.get_content()
        except Exception as error:  # ebooklib reads lazily; a missing member surfaces here
            raise EpubError(f"corrupt EPUB: cannot read {item.get_name()} ({error})") from None
        blocks.extend(html_blocks(content, document_name=item.get_name()))
    if not blocks:
        raise EpubError("EPUB holds no readable text (empty spine)")

    body = find_body([block.text.split("\n")[0] if block.text else "" for block in blocks])
    for key, value in body.metadata.items():
        if key in ("title", "author") and body.has_header:
            metadata.setdefault(key, value)
        elif key not in metadata:
            metadata[key] = value
    if body.has_header:
        metadata["gutenberg_header"] = "yes"
    blocks = blocks[body.start:body.end]

    anchor_to_block: dict[str, int] = {}
    for index, block in enumerate(blocks):
        for anchor in block.anchors:
            anchor_to_block.setdefault(anchor, index)
    def block_of(href: str | None) -> int | None:
        if not href:
            return None
        found = anchor_to_block.get(href)
        # An id the reader dropped (an empty anchor paragraph): fall back to the file.
        return found if found is not None else anchor_to_block.get(href.partition("#")[0])

    toc = [TocEntry(title=title, block_index=block_of(href), depth=depth) for title, href, depth in _flatten_toc(book.toc)]
    return SourceDocument(blocks=blocks, metadata=metadata, source_format="epub", toc=toc)


def _refuse_drm(archive: zipfile.ZipFile) -> None:
    names = set(member_names(archive))
    if "META-INF/rights.xml" in names:
        raise EpubError("EPUB is DRM-protected (Adobe ADEPT rights.xml); remove the DRM with the seller's tools first")
    if "META-INF/sinf.xml" in names:
        raise EpubError("EPUB is DRM-protected (Apple FairPlay)")
    if "META-INF/encryption.xml" not in names:
        return
    try:
        tree = ElementTree.fromstring(read_member(archive, "META-INF/encryption.xml"))
    except ElementTree.ParseError:
        raise EpubError("EPUB is DRM-protected (unreadable encryption.xml)") from None
    algorithms = {
        element.get("Algorithm", "")
        for element in tree.iter()
        if element.tag.endswith("EncryptionMethod")
    }
    if algorithms - _FONT_OBFUSCATION:
        raise EpubError("EPUB is DRM-protected (its content is encrypted)")


def _load(data: bytes):
    from ebooklib import epub

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return epub.read_epub(io.BytesIO(data), options={"ignore_ncx": False})
    except UnsafeArchive:
        raise
    except Exception as error:  # ebooklib raises KeyError, EpubException, lxml errors...
        reason = getattr(error, "msg", None) or str(error) or type(error).__name__
        raise EpubError(f"corrupt EPUB ({reason})") from None


def _metadata(book) -> dict[str, str]:
    def first(name: str) -> str | None:
        try:
            values = book.get_metadata("DC", name)
        except Exception:
            return None
        for value, _attributes in values:
            if value and str(value).strip():
                return " ".join(str(value).split())
        return None

    metadata: dict[str, str] = {}
    if title := first("title"):
        metadata["title"] = title
    if author := first("creator"):
        if "," in author and author.count(",") == 1 and " " not in author.split(",")[0].strip():
            last, given = (part.strip() for part in author.split(","))
            author = f"{given} {last}"
        metadata["author"] = author
    if language := first("language"):
        metadata["language"] = language
    for value, _attributes in book.get_metadata("DC", "identifier"):
        match = _GUTENBERG_ID.search(str(value or ""))
        if match:
            metadata["gutenberg_id"] = match.group(1)
    return metadata


def _flatten_toc(entries, depth: int = 0) -> list[tuple[str, str | None, int]]:
    from ebooklib import epub

    flat: list[tuple[str, str | None, int]] = []
    for entry in entries or []:
        if isinstance(entry, tuple) and len(entry) == 2:
            section, children = entry
            href = getattr(section, "href", None)
            flat.append((getattr(section, "title", "") or "", _anchor(href), depth))
            flat.extend(_flatten_toc(children, depth + 1))
        elif isinstance(entry, (epub.Link, epub.Section)):
            flat.append((entry.title or "", _anchor(getattr(entry, "href", None)), depth))
    return flat


def _anchor(href: str | None) -> str | None:
    """TOC hrefs and block anchors share one form: "dir/file.html" or "dir/file.html#id"."""
    if not href:
        return None
    path, _, fragment = unquote(href).partition("#")
    path = posixpath.normpath(path) if path else path
    return f"{path}#{fragment}" if fragment else path
