#!/usr/bin/env python3
"""Set up Chapterhouse in a virtual environment and run it or its tests.

    python3 packaging/bootstrap.py app [BOOK]    set up, then open the desktop app
                                                 (on the bundled sample book by default)
    python3 packaging/bootstrap.py test [ARGS]   set up, then run the test suite
                                                 (ARGS go to pytest)
    python3 packaging/bootstrap.py launcher      set up, then add Chapterhouse to the
                                                 desktop's applications menu (Linux;
                                                 it opens .epub and .txt books too)

Needs only Python 3.11+ and a C/C++ compiler (llama-cpp-python builds from
source). The environment lives in .venv (or $CHAPTERHOUSE_VENV) and is reused:
it is reinstalled only when pyproject.toml changes. Uses only the standard
library, so it runs before anything is installed.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# A native llama.cpp build crashes on some CPUs (general-protection fault in
# ggml's AMX code); this portable x86-64 build is safe everywhere. Set
# CMAKE_ARGS yourself for GPU builds (see README).
PORTABLE_CMAKE_ARGS = "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
STAMP_NAME = ".chapterhouse-install.json"


def venv_dir() -> Path:
    return Path(os.environ.get("CHAPTERHOUSE_VENV", ROOT / ".venv")).resolve()


def venv_python(folder: Path) -> Path:
    return folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def ensure_environment(extras: set[str]) -> Path:
    if sys.version_info < (3, 11):
        sys.exit(f"Chapterhouse needs Python 3.11 or newer; this is {sys.version.split()[0]}.")
    folder = venv_dir()
    python = venv_python(folder)
    if not python.exists():
        print(f"Creating the virtual environment in {folder}", flush=True)
        venv.EnvBuilder(with_pip=True).create(folder)
    stamp_path = folder / STAMP_NAME
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    try:
        stamp = json.loads(stamp_path.read_text())
    except (OSError, ValueError):
        stamp = {}
    installed_extras = set(stamp.get("extras", []))
    if stamp.get("pyproject") == wanted and extras <= installed_extras:
        return python
    extras = extras | (installed_extras if stamp.get("pyproject") == wanted else set())
    environment = dict(os.environ)
    if not environment.get("CMAKE_ARGS"):
        environment["CMAKE_ARGS"] = PORTABLE_CMAKE_ARGS
    print("Installing Chapterhouse and its dependencies (the first time, llama-cpp-python "
          "compiles from source: about 5-10 minutes)", flush=True)
    run([str(python), "-m", "pip", "install", "--upgrade", "pip"], environment)
    target = f".[{','.join(sorted(extras))}]" if extras else "."
    run([str(python), "-m", "pip", "install", "--editable", target], environment)
    stamp_path.write_text(json.dumps({"pyproject": wanted, "extras": sorted(extras)}))
    return python


def run(command: list[str], environment: dict[str, str] | None = None) -> None:
    completed = subprocess.run(command, cwd=ROOT, env=environment)
    if completed.returncode != 0:
        sys.exit(f"Set-up failed: {' '.join(command)} exited with {completed.returncode}")


def write_launcher(applications: Path, scripts: Path) -> Path:
    """A freedesktop.org desktop entry for the app in `scripts` (the virtual
    environment's bin folder), in `applications`: the applications menu lists
    it, with its icon, and offers it for book files."""
    applications.mkdir(parents=True, exist_ok=True)
    entry = applications / "chapterhouse.desktop"
    program = scripts / ("chapterhouse-desktop.exe" if os.name == "nt" else "chapterhouse-desktop")
    entry.write_text("\n".join([
        "[Desktop Entry]",
        "Type=Application",
        "Name=Chapterhouse",
        "GenericName=Reading Assistant",
        "Comment=Read a book and ask questions about it, answered from its own passages, offline",
        f'Exec="{program}" %f',
        f"Icon={ROOT / 'resources' / 'icons' / 'chapterhouse.svg'}",
        "Terminal=false",
        "Categories=Office;Viewer;",
        "MimeType=application/epub+zip;text/plain;",
        "",
    ]), encoding="utf-8")
    return entry


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("app", "test", "launcher"):
        print(__doc__)
        return 2
    action, rest = argv[0], argv[1:]
    if action == "app":
        python = ensure_environment(set())
        return subprocess.call([str(python), "-m", "desktop", *rest], cwd=ROOT)
    if action == "launcher":
        python = ensure_environment(set())
        data_home = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
        entry = write_launcher(data_home / "applications", python.parent)
        print(f"Added {entry}: Chapterhouse is in the applications menu, and offered for .epub and .txt books.")
        return 0
    python = ensure_environment({"test"})
    environment = dict(os.environ)
    environment.setdefault("QT_QPA_PLATFORM", "offscreen")
    return subprocess.call([str(python), "-m", "pytest", *rest], cwd=ROOT, env=environment)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
