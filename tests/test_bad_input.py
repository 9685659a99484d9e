"""Bad input: a one-line error naming the file and the reason, exit code 2 from
the command line, and nothing stored (the library keeps what it had)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from book_files import prose, write_epub
from engine.errors import BookImportError

ROOT = Path(__file__).resolve().parent.parent


def _empty(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    return path, "file is empty"


def _blank(tmp_path):
    path = tmp_path / "blank.txt"
    path.write_bytes(b"\r\n   \n\t\n")
    return path, "file is empty"


def _binary(tmp_path):
    path = tmp_path / "data.txt"
    rng = random.Random(3)
    path.write_bytes(bytes(rng.randrange(256) for _ in range(20000)))
    return path, "binary data"


def _picture(tmp_path):
    path = tmp_path / "cover.epub.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(2000))
    return path, "a PNG image"


def _huge(tmp_path):
    path = tmp_path / "huge.txt"
    with open(path, "wb") as handle:
        handle.truncate(51 * 1024 * 1024)  # sparse: no disk used
    return path, "over the 50 MB limit"


def _corrupt_epub(tmp_path):
    good = write_epub(tmp_path / "good.epub", [(["CHAPTER I."], prose("x"))]).read_bytes()
    path = tmp_path / "broken.epub"
    path.write_bytes(good[: len(good) // 2])
    return path, "corrupt"


def _epub_without_container(tmp_path):
    path = tmp_path / "nocontainer.epub"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", "application/epub+zip")
        archive.writestr("OEBPS/chapter.xhtml", "<html><body><p>text</p></body></html>")
    return path, "no META-INF/container.xml"


def _corrupt_zip(tmp_path):
    path = tmp_path / "broken.zip"
    rng = random.Random(5)
    path.write_bytes(b"PK\x03\x04" + bytes(rng.randrange(256) for _ in range(4000)))
    return path, "corrupt ZIP archive"


def _zip_bomb(tmp_path):
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("book.txt", b"\0" * (30 * 1024 * 1024))
    return path, "ZIP bomb"


def _zip_oversized_member(tmp_path):
    path = tmp_path / "big.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("book.txt", b"a" * (60 * 1024 * 1024))
    return path, "over the 50 MB limit"


def _zip_climbing_out(tmp_path):
    path = tmp_path / "evil.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("../../etc/book.txt", "CHAPTER I\n\nSome text.\n")
    return path, "unsafe path in archive"


def _drm_epub(tmp_path):
    encryption = b"""<?xml version="1.0"?>
<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#">
<enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>
<enc:CipherData><enc:CipherReference URI="OEBPS/chapter01.xhtml"/></enc:CipherData></enc:EncryptedData>
</encryption>"""
    path = write_epub(tmp_path / "locked.epub", [(["CHAPTER I."], prose("x"))],
                      extra_members={"META-INF/encryption.xml": encryption})
    return path, "DRM-protected"


def _adept_epub(tmp_path):
    path = write_epub(tmp_path / "adept.epub", [(["CHAPTER I."], prose("x"))],
                      extra_members={"META-INF/rights.xml": b"<rights/>"})
    return path, "DRM-protected (Adobe ADEPT"


def _undecodable(tmp_path):
    rng = random.Random(7)
    noise = bytes(rng.randrange(128, 256) for _ in range(6000))
    path = tmp_path / "mystery.txt"
    path.write_bytes(b"CHAPTER I\n\n" + noise)
    return path, "could not be decoded"


BAD_FILES = [_empty, _blank, _binary, _picture, _huge, _corrupt_epub, _epub_without_container, _corrupt_zip,
             _zip_bomb, _zip_oversized_member, _zip_climbing_out, _drm_epub, _adept_epub, _undecodable]


@pytest.mark.parametrize("make_bad_file", BAD_FILES, ids=lambda f: f.__name__.strip("_"))
def test_bad_file_is_refused_with_its_name_and_reason_and_nothing_is_stored(tmp_path, library, sample_book,
                                                                            make_bad_file):
    library.import_book(sample_book)
    before = sorted(p.name for p in library.books_dir.iterdir())
    path, reason = make_bad_file(tmp_path)
    with pytest.raises(BookImportError) as caught:
        library.import_book(path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(str(path))
    assert reason in message
    assert sorted(p.name for p in library.books_dir.iterdir()) == before
    assert [b.title for b in library.list_books()] == ["A Christmas Carol: A Ghost Story of Christmas"]


@pytest.mark.parametrize("make_bad_file", BAD_FILES, ids=lambda f: f.__name__.strip("_"))
def test_command_line_reports_bad_input_in_one_line_with_exit_code_2(tmp_path, chapterhouse_home, make_bad_file):
    path, reason = make_bad_file(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "engine", "import", str(path)], capture_output=True, text=True, cwd=ROOT,
        env={**os.environ, "CHAPTERHOUSE_HOME": str(chapterhouse_home)},
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"chapterhouse: error: {path}: ") and reason in lines[0]
    assert result.stdout == ""
    assert not any((chapterhouse_home / "books").iterdir())


def test_missing_file_and_folder(tmp_path, library):
    with pytest.raises(BookImportError, match="no such file"):
        library.import_book(tmp_path / "nowhere.txt")
    with pytest.raises(BookImportError, match="folder"):
        library.import_book(tmp_path)


def test_utf16_without_byte_order_mark_is_text_not_binary(tmp_path, library):
    body = "CHAPTER I\n\nThe first chapter.\n\nCHAPTER II\n\nThe second chapter.\n" * 3
    path = tmp_path / "wide.txt"
    path.write_bytes(body.encode("utf-16-le"))
    result = library.import_book(path)
    assert result.created and "The first chapter." in library.load(result.book_id).text



def test_font_obfuscation_is_not_drm(tmp_path, library):
    encryption = b"""<?xml version="1.0"?>
<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#">
<enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.idpf.org/2008/embedding"/>
<enc:CipherData><enc:CipherReference URI="OEBPS/fonts/serif.otf"/></enc:CipherData></enc:EncryptedData>
</encryption>"""
    path = write_epub(tmp_path / "fonts.epub", [(["CHAPTER I."], prose("x")), (["CHAPTER II."], prose("y"))],
                      extra_members={"META-INF/encryption.xml": encryption})
    assert library.import_book(path).created
