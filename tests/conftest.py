"""Shared fixtures. Every test gets its own CHAPTERHOUSE_HOME, so nothing touches
the user's real library. Tests over the benchmark corpus find it through
CHAPTERHOUSE_CORPUS (default: ../shared/corpus next to the checkout) and skip
with the reason when it is absent."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
sys.path.insert(0, str(Path(__file__).resolve().parent))


def corpus_root() -> Path:
    return Path(os.environ.get("CHAPTERHOUSE_CORPUS", ROOT.parent / "shared" / "corpus")).resolve()


@pytest.fixture
def corpus() -> Path:
    root = corpus_root()
    if not (root / "gutenberg").is_dir():
        pytest.skip(f"benchmark corpus not found at {root} (set CHAPTERHOUSE_CORPUS)")
    return root


@pytest.fixture(autouse=True)
def chapterhouse_home(tmp_path_factory, monkeypatch) -> Path:
    home = tmp_path_factory.mktemp("chapterhouse-home")
    monkeypatch.setenv("CHAPTERHOUSE_HOME", str(home))
    return home


@pytest.fixture
def library(chapterhouse_home):
    from engine.store import Library

    return Library()


@pytest.fixture
def sample_book() -> Path:
    from engine.paths import sample_book_path

    return sample_book_path()


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def small_filesystem(tmp_path):
    """A real 8 MB filesystem (tmpfs) that can fill up or turn read-only."""
    mount = tmp_path / "fs"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mount)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a test filesystem here ({made.stderr.decode().strip() or 'not permitted'})")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], capture_output=True)
