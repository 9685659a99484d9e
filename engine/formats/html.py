"""HTML and XHTML (Gutenberg HTML books, EPUB chapters) into blocks.

Paragraph structure comes from the markup: block elements make blocks, <br>
makes a line break (verse), h1-h6 keep their level as a heading hint. Page
numbers, illustrations with their captions, and tables of contents made of
in-book links are left out. Element ids are kept as anchors so an EPUB's
table of contents can point at blocks.
"""

from __future__ import annotations

import re
import warnings

from bs4 import BeautifulSoup, Comment, NavigableString, Tag, XMLParsedAsHTMLWarning

from .document import PROSE, VERSE, Block

_BLOCK_TAGS = frozenset({
    "address", "article", "aside", "blockquote", "body", "center", "dd", "div", "dl", "dt",
    "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main",
    "ol", "p", "pre", "section", "table", "tbody", "td", "th", "thead", "tr", "ul", "html",
})
_SKIP_TAGS = frozenset({"script", "style", "head", "title", "nav", "figcaption", "img", "svg", "object", "audio", "video", "iframe", "math"})
_SKIP_CLASSES = re.compile(
    r"\b(?:pagenum|pageno|page-?number|pgnum|caption|figcenter|figleft|figright|figure|illustration|illo|"
    r"pg-boilerplate|pgheader|pg-header|pg-footer|pgfooter|footnote-?marker|linenum)\b",
    re.I,
)
# Gutenberg's frame; its older EPUBs' back matter ("More...", "About Project Gutenberg") too.
_SKIP_IDS = re.compile(r"^(?:pg-header|pg-footer|pg-machine-header|pg-start-separator|pg-end-separator|"
                       r"more_info_header|bm_info|about_pg_header|pg_trailer)$", re.I)
# EPUB 3 structural semantics of pages that are not the book's text (Standard
# Ebooks' titlepage, imprint, colophon and uncopyright); notes go too, with
# the numbers that call them, as a plain text's appendix after "THE END" does:
# the book's last pages are its ending.
_SKIP_EPUB_TYPES = frozenset({
    "titlepage", "halftitlepage", "imprint", "colophon", "copyright-page", "toc", "toc-brief", "loi", "lot",
    "landmarks", "page-list", "index", "endnotes", "footnotes", "rearnotes", "noteref",
})
_VERSE_CLASSES = re.compile(r"\b(?:poem|poetry|verse|stanza|song|letter|quote-?verse)\b", re.I)
_LISTING_TAGS = frozenset({"table", "ul", "ol", "dl", "p", "div", "blockquote", "center"})
_EXTERNAL_SCHEMES = ("http:", "https:", "mailto:", "ftp:", "data:", "javascript:")
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_SPACES = re.compile(r"[ \t\r\n\f\u00a0]+")


def _soup(markup: bytes | str) -> BeautifulSoup:
    with warnings.catch_warnings():
        # XHTML parsed by the forgiving HTML parser is what we want.
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        return BeautifulSoup(markup, "lxml")


def html_blocks(markup: bytes | str, document_name: str = "") -> list[Block]:
    """Blocks of one HTML/XHTML document; anchors are "document_name#id"."""
    soup = _soup(markup)
    root = soup.body or soup
    walker = _Walker(document_name)
    if document_name:
        walker.pending_anchors.append(document_name)
    walker.visit(root)
    walker.flush()
    return walker.blocks


def html_title(markup: bytes | str) -> str | None:
    soup = _soup(markup)
    return " ".join(soup.title.get_text().split()) if soup.title and soup.title.get_text().strip() else None


def html_meta(markup: bytes | str) -> dict[str, str]:
    """Dublin Core meta tags that Gutenberg HTML carries."""
    soup = _soup(markup)
    found: dict[str, str] = {}
    for meta in soup.find_all("meta"):
        name = (meta.get("name") or meta.get("property") or "").lower()
        content = (meta.get("content") or "").strip()
        if not content:
            continue
        if name in ("dc.title", "dcterms.title", "og:title"):
            found.setdefault("title", content)
        elif name in ("dc.creator", "dcterms.creator", "author"):
            found.setdefault("author", content)
        elif name in ("dc.language", "dcterms.language"):
            found.setdefault("language", content)
    return found


def _is_internal_link(element: Tag) -> bool:
    href = (element.get("href") or "").strip().lower()
    return bool(href) and not href.startswith(_EXTERNAL_SCHEMES)


def _is_link_listing(element: Tag) -> bool:
    """Three or more links into the book making up most of the element's text."""
    links = [a for a in element.find_all("a") if _is_internal_link(a)]
    if len(links) < 3:
        return False
    total = len(" ".join(element.get_text().split()))
    linked = sum(len(" ".join(a.get_text().split())) for a in links)
    return total > 0 and linked * 5 >= total * 2


class _Walker:
    def __init__(self, document_name: str):
        self.document_name = document_name
        self.blocks: list[Block] = []
        self.lines: list[str] = [""]
        self.pending_anchors: list[str] = []
        self.level: int | None = None
        self.verse_depth = 0
        self.link_chars = 0
        self.link_depth = 0

    def visit(self, node: Tag) -> None:
        for child in node.children:
            if isinstance(child, Comment):
                continue
            if isinstance(child, NavigableString):
                self._text(str(child))
                continue
            if not isinstance(child, Tag):
                continue
            self._element(child)

    def _element(self, element: Tag) -> None:
        name = element.name.lower() if element.name else ""
        self._note_anchor(element)
        if name in _SKIP_TAGS or self._skipped(element):
            return
        if name == "br":
            self.lines.append("")
            return
        if name in _LISTING_TAGS and _is_link_listing(element):
            # A table of contents or index made of links into the book.
            self.flush()
            self._keep_anchors_of(element)
            return
        if name == "a" and _is_internal_link(element):
            self.link_depth += 1
            before = self._length()
            self.visit(element)
            self.link_chars += self._length() - before
            self.link_depth -= 1
            return
        if name not in _BLOCK_TAGS:
            self.visit(element)
            return
        self.flush()
        verse = name == "pre" or bool(_VERSE_CLASSES.search(" ".join(element.get("class") or [])))
        if verse:
            self.verse_depth += 1
        if name in _HEADINGS:
            self.level = _HEADINGS[name]
        if name == "pre":
            for line in element.get_text().split("\n"):
                self.lines[-1] += line
                self.lines.append("")
        else:
            self.visit(element)
        self.flush()
        if name in _HEADINGS:
            self.level = None
        if verse:
            self.verse_depth -= 1

    def _keep_anchors_of(self, element: Tag) -> None:
        for inner in element.find_all(True):
            self._note_anchor(inner)

    def _skipped(self, element: Tag) -> bool:
        classes = " ".join(element.get("class") or [])
        if classes and _SKIP_CLASSES.search(classes):
            return True
        if _SKIP_EPUB_TYPES.intersection((element.get("epub:type") or "").split()):
            return True
        identifier = element.get("id") or ""
        return bool(identifier and _SKIP_IDS.match(identifier))

    def _note_anchor(self, element: Tag) -> None:
        for attribute in ("id", "name"):
            value = element.get(attribute)
            if value and (attribute == "id" or element.name == "a"):
                self.pending_anchors.append(f"{self.document_name}#{value}")

    def _text(self, text: str) -> None:
        if self.verse_depth and "\n" in text and self.lines[-1].strip() == "" and not text.strip():
            return
        self.lines[-1] += _SPACES.sub(" ", text)

    def _length(self) -> int:
        return sum(len(line.strip()) for line in self.lines)

    def flush(self) -> None:
        lines = [" ".join(line.split()) for line in self.lines]
        lines = [line for line in lines if line]
        total = sum(len(line) for line in lines)
        in_links = self.link_chars
        self.lines, self.link_chars = [""], 0
        if not lines:
            return
        if total and in_links >= total * 0.9 and self.level is None:
            # A paragraph that is only links within the book: a table of contents
            # or an index line. Its anchors still point at whatever follows.
            return
        kind = VERSE if len(lines) > 1 or self.verse_depth else PROSE
        block = Block(lines=lines, kind=kind, markup_level=self.level, anchors=self.pending_anchors)
        self.pending_anchors = []
        self.blocks.append(block)
