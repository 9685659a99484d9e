"""House rules that hold the architecture together."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_engine_never_imports_qt_or_the_desktop():
    offenders = {
        str(path.relative_to(ROOT)): sorted(_imports(path) & {"PySide6", "PyQt5", "PyQt6", "shiboken6", "desktop"})
        for path in (ROOT / "engine").rglob("*.py")
    }
    assert {name: found for name, found in offenders.items() if found} == {}


def test_the_layout_a_newcomer_expects():
    for name in ("pyproject.toml", "engine", "desktop", "models", "resources", "tests", "packaging", "README.md"):
        assert (ROOT / name).exists(), name
    assert (ROOT / "resources" / "sample" / "a-christmas-carol.txt").stat().st_size > 100_000
