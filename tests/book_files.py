"""Writers of real book files for tests: EPUB 2 (NCX) and EPUB 3 (nav) packages
written member by member as the spec lays them out, ZIP archives, and the
Gutenberg header styles of each era wrapped around a body text."""

from __future__ import annotations

import zipfile
from html import escape
from pathlib import Path

CONTAINER_XML = """<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>
"""


def chapter_xhtml(title_lines: list[str], paragraphs: list[str], anchor: str) -> str:
    heading = "<br/>".join(escape(line) for line in title_lines)
    body = "\n".join(f"<p>{escape(p)}</p>" for p in paragraphs)
    return f"""<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
<head><title>{escape(title_lines[0])}</title></head>
<body><div class="chapter"><h2 id="{anchor}">{heading}</h2>
{body}
</div></body></html>
"""


def write_epub(
    path: Path,
    chapters: list[tuple[list[str], list[str]]],
    *,
    version: int = 3,
    title: str = "A Test Book",
    author: str = "Ann Author",
    front_matter: list[str] | None = None,
    extra_members: dict[str, bytes] | None = None,
    toc_labels: list[str] | None = None,
    back_matter: str | None = None,
    matter: tuple[list[tuple[str, str]], list[tuple[str, str]]] = ([], []),
) -> Path:
    """An EPUB with one XHTML file per chapter: (heading lines, paragraphs);
    `back_matter`: a last XHTML document in the spine, not in the contents;
    `matter`: documents before and after the chapters, each (its label in
    the contents, its XHTML), as Standard Ebooks' titlepage, imprint,
    colophon and uncopyright are."""
    files = []
    if front_matter:
        files.append(("front.xhtml", chapter_xhtml([title], front_matter, "front"), None))
    before, after = matter
    files += [(f"front{number}.xhtml", xhtml, "") for number, (_, xhtml) in enumerate(before, start=1)]
    for number, (heading, paragraphs) in enumerate(chapters, start=1):
        files.append((f"chapter{number:02d}.xhtml", chapter_xhtml(heading, paragraphs, f"c{number}"), f"c{number}"))
    files += [(f"back{number}.xhtml", xhtml, "") for number, (_, xhtml) in enumerate(after, start=1)]
    if back_matter:
        files.append(("bm.html", back_matter, None))
    labels = ([label for label, _ in before] + (toc_labels or [" ".join(heading) for heading, _ in chapters])
              + [label for label, _ in after])
    manifest = "\n".join(
        f'<item id="f{i}" href="{name}" media-type="application/xhtml+xml"/>' for i, (name, _, _) in enumerate(files)
    )
    spine = "\n".join(f'<itemref idref="f{i}"/>' for i in range(len(files)))
    # In the contents: each chapter by its heading's anchor, each document of `matter` by its name.
    chapter_files = [(name, f"#{anchor}" if anchor else "") for name, _, anchor in files if anchor is not None]
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        archive.writestr("META-INF/container.xml", CONTAINER_XML)
        for name, content, _ in files:
            archive.writestr(f"OEBPS/{name}", content)
        if version == 3:
            nav_items = "\n".join(
                f'<li><a href="{name}{anchor}">{escape(label)}</a></li>'
                for (name, anchor), label in zip(chapter_files, labels)
            )
            archive.writestr("OEBPS/nav.xhtml", f"""<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
<head><title>Contents</title></head>
<body><nav epub:type="toc" id="toc"><h1>Contents</h1><ol>
{nav_items}
</ol></nav></body></html>
""")
            opf = f"""<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:identifier id="id">urn:uuid:0b1f6c2e-test</dc:identifier>
<dc:title>{escape(title)}</dc:title><dc:creator>{escape(author)}</dc:creator><dc:language>en</dc:language>
<meta property="dcterms:modified">2024-01-01T00:00:00Z</meta>
</metadata>
<manifest>
<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
{manifest}
</manifest>
<spine>
{spine}
</spine>
</package>
"""
        else:
            points = "\n".join(
                f'<navPoint id="n{i}" playOrder="{i}"><navLabel><text>{escape(label)}</text></navLabel>'
                f'<content src="{name}{anchor}"/></navPoint>'
                for i, ((name, anchor), label) in enumerate(zip(chapter_files, labels), start=1)
            )
            archive.writestr("OEBPS/toc.ncx", f"""<?xml version="1.0" encoding="UTF-8"?>
<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1">
<head><meta name="dtb:uid" content="http://www.gutenberg.org/99999"/></head>
<docTitle><text>{escape(title)}</text></docTitle>
<navMap>
{points}
</navMap></ncx>
""")
            opf = f"""<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="2.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">
<dc:identifier id="id" opf:scheme="URI">http://www.gutenberg.org/ebooks/99999</dc:identifier>
<dc:title>{escape(title)}</dc:title><dc:creator opf:file-as="Author, Ann">{escape(author)}</dc:creator>
<dc:language>en</dc:language>
</metadata>
<manifest>
<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>
{manifest}
</manifest>
<spine toc="ncx">
{spine}
</spine>
</package>
"""
        archive.writestr("OEBPS/content.opf", opf)
        for name, data in (extra_members or {}).items():
            archive.writestr(name, data)
    return path


def zip_files(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def prose(seed: str, sentences: int = 40) -> list[str]:
    """Paragraphs of plain English prose, distinct per seed."""
    words = [
        "The morning was grey over the moor when {s} set out along the lane.",
        "Nobody at the inn had seen {s} since the night of the storm.",
        "A letter lay on the table, folded twice, and {s} read it slowly.",
        "The dog followed {s} to the gate and would go no farther.",
        "It was late in the afternoon before {s} came back to the house.",
    ]
    lines = [words[i % len(words)].format(s=seed) for i in range(sentences)]
    return [" ".join(lines[i:i + 5]) for i in range(0, len(lines), 5)]


# ------------------------------------------------------------ Gutenberg eras

SMALL_PRINT_HEADER = """********The Project Gutenberg Etext of {title}.********
                       by {author}
*******This file should be named test10.txt or test10.zip******

Information about Project Gutenberg (one page)

We produce about one million dollars for each hour we work.

****START**THE SMALL PRINT!**FOR PUBLIC DOMAIN ETEXTS**START****
Why is this "Small Print!" statement here?  You know: lawyers.
They tell us you might sue us if there is something wrong with
your copy of this etext.

*END*THE SMALL PRINT! FOR PUBLIC DOMAIN ETEXTS*Ver.07.02.92*END*

"""
SMALL_PRINT_FOOTER = "\n\nEnd of The Project Gutenberg Etext of {title}.\n"

HEADER_2000S = """The Project Gutenberg EBook of {title}, by {author}

This eBook is for the use of anyone anywhere at no cost and with
almost no restrictions whatsoever.

Title: {title}

Author: {author}

Release Date: Dec, 1992  [EBook #{number}]

Language: English

Character set encoding: {encoding}

*** START OF THE PROJECT GUTENBERG EBOOK, {upper} ***

Produced by A Volunteer

"""
FOOTER_2000S = "\n\nEnd of the Project Gutenberg EBook of {title}, by {author}\n\n*** END OF THE PROJECT GUTENBERG EBOOK, {upper} ***\n\nThis file should be named...\n"

HEADER_TODAY = """The Project Gutenberg eBook of {title}

This ebook is for the use of anyone anywhere in the United States and
most other parts of the world at no cost and with almost no restrictions
whatsoever.

Title: {title}

Author: {author}

Release date: May 1, 1996 [eBook #{number}]
                Most recently updated: November 4, 2022

Language: English



*** START OF THE PROJECT GUTENBERG EBOOK {upper} ***
"""
FOOTER_TODAY = "\n\n*** END OF THE PROJECT GUTENBERG EBOOK {upper} ***\n\nUpdated editions will replace the previous one.\n"


def with_gutenberg_frame(body: str, era: str, title: str = "The Test Book", author: str = "Ann Author",
                         number: int = 4242, encoding: str = "UTF-8") -> str:
    fields = dict(title=title, author=author, number=number, upper=title.upper(), encoding=encoding)
    if era == "1990s":
        return SMALL_PRINT_HEADER.format(**fields) + body + SMALL_PRINT_FOOTER.format(**fields)
    if era == "2000s":
        return HEADER_2000S.format(**fields) + body + FOOTER_2000S.format(**fields)
    if era == "today":
        return HEADER_TODAY.format(**fields) + body + FOOTER_TODAY.format(**fields)
    if era == "none":
        return body
    raise ValueError(era)
