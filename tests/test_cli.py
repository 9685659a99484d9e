"""The `chapterhouse` command line and its JSON output (read by benchmarks)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def cli(chapterhouse_home):
    def run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
        result = subprocess.run(
            [sys.executable, "-m", "engine", *args], capture_output=True, text=True, encoding="utf-8", cwd=ROOT,
            env={**os.environ, "CHAPTERHOUSE_HOME": str(chapterhouse_home)},
        )
        if check:
            assert result.returncode == 0, result.stderr
        return result

    return run


def test_import_list_sections_text_remove(cli, sample_book, fixtures):
    first = cli("import", str(sample_book))
    assert first.stdout.startswith("imported: ")
    book_id = first.stdout.split()[1]
    assert "already in the library" in cli("import", str(sample_book)).stdout

    imported = json.loads(cli("import", "--json", str(fixtures / "black-beauty-excerpt.txt")).stdout)
    assert imported["status"] == "imported" and imported["title"] == "Black Beauty"

    books = json.loads(cli("list", "--json").stdout)
    assert [b["title"] for b in books] == ["A Christmas Carol: A Ghost Story of Christmas", "Black Beauty"]
    assert {"book_id", "title", "author", "sections", "characters", "source_file", "imported_at"} <= set(books[0])

    listing = cli("sections", book_id).stdout
    assert "Stave III: The Second of the Three Spirits" in listing

    document = json.loads(cli("sections", book_id[:8], "--json").stdout)
    assert document["book_id"] == book_id
    assert document["synthetic"] is False
    assert [s["label"] for s in document["sections"]] == ["Stave I", "Stave II", "Stave III", "Stave IV", "Stave V"]
    section = document["sections"][0]
    assert set(section) == {"ordinal", "label", "title", "heading", "number", "kind", "part", "start", "end",
                            "body_start", "words", "paragraphs"}
    text = cli("text", book_id).stdout
    assert text[section["start"]:section["end"]].startswith("STAVE I: MARLEY'S GHOST")
    assert section["paragraphs"]["count"] > 10

    removed = cli("remove", book_id)
    assert removed.stdout.startswith(f"removed: {book_id}")
    assert [b["title"] for b in json.loads(cli("list", "--json").stdout)] == ["Black Beauty"]


def test_book_given_by_path_is_imported_first(cli, fixtures):
    document = json.loads(cli("sections", str(fixtures / "black-beauty-excerpt.txt"), "--json").stdout)
    assert [s["title"] for s in document["sections"]] == ["My Early Home", "The Hunt", "My Breaking In"]
    assert document["parts"][0]["label"] == "Part I"
    assert len(json.loads(cli("list", "--json").stdout)) == 1


def test_unknown_book_is_a_one_line_error(cli):
    result = cli("sections", "no-such-book", check=False)
    assert result.returncode == 2
    assert result.stderr.strip() == "chapterhouse: error: no-such-book: no such book in the library (import it first, or give its file)"


def test_one_bad_file_does_not_stop_the_others(cli, sample_book, tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    result = cli("import", str(empty), str(sample_book), check=False)
    assert result.returncode == 2
    assert "file is empty" in result.stderr
    assert result.stdout.startswith("imported: ")


def test_console_script_is_installed():
    script = Path(sys.executable).with_name("chapterhouse" + (".exe" if os.name == "nt" else ""))
    assert script.exists(), "pip install did not create the chapterhouse command"
    result = subprocess.run([str(script), "--version"], capture_output=True, text=True)
    assert result.stdout.startswith("chapterhouse ")
