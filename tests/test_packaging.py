"""The launcher that puts the app in the desktop's applications menu, and the app's icon."""

from __future__ import annotations

import configparser
import importlib.util
import os
import shlex
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parent.parent


def _bootstrap():
    spec = importlib.util.spec_from_file_location("bootstrap", ROOT / "packaging" / "bootstrap.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_launcher_lists_the_app_with_its_icon_and_offers_it_for_books(tmp_path, qtbot):
    from PySide6.QtGui import QIcon

    from desktop.app import APP_ICON, create_application

    scripts = Path(sys.executable).parent  # this environment's, where chapterhouse-desktop is installed
    entry = _bootstrap().write_launcher(tmp_path / "applications", scripts)
    assert entry == tmp_path / "applications" / "chapterhouse.desktop"
    parsed = configparser.ConfigParser(interpolation=None)
    parsed.optionxform = str  # the keys are case-sensitive
    parsed.read_string(entry.read_text(encoding="utf-8"))
    desktop = parsed["Desktop Entry"]
    assert desktop["Type"] == "Application" and desktop["Name"] == "Chapterhouse"
    program, argument = shlex.split(desktop["Exec"])
    assert Path(program) == scripts / "chapterhouse-desktop" and Path(program).is_file() and argument == "%f"
    assert Path(desktop["Icon"]) == APP_ICON
    assert set(desktop["MimeType"].strip(";").split(";")) == {"application/epub+zip", "text/plain"}
    app = create_application(prepare=False)
    assert not QIcon(desktop["Icon"]).pixmap(48, 48).isNull()
    assert not app.windowIcon().isNull() and app.desktopFileName() == entry.stem
