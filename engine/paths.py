"""Where Chapterhouse keeps its files: the user's data, config and cache dirs
(platformdirs), all under one folder when CHAPTERHOUSE_HOME is set (tests,
portable installs)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "Chapterhouse"
HOME_VARIABLE = "CHAPTERHOUSE_HOME"


def _override() -> Path | None:
    value = os.environ.get(HOME_VARIABLE)
    return Path(value).expanduser() if value else None


def data_dir() -> Path:
    home = _override()
    return home if home else Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def config_dir() -> Path:
    home = _override()
    return home / "config" if home else Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def cache_dir() -> Path:
    home = _override()
    return home / "cache" if home else Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))


RESOURCES_VARIABLE = "CHAPTERHOUSE_RESOURCES"


def resources_dir() -> Path:
    """The project's resources/ folder (sample book, icons, stylesheets)."""
    value = os.environ.get(RESOURCES_VARIABLE)
    if value:
        return Path(value)
    return Path(__file__).resolve().parent.parent / "resources"


def sample_book_path() -> Path:
    return resources_dir() / "sample" / "a-christmas-carol.txt"


def models_catalogue_path() -> Path:
    """The catalogue of known models: models/catalogue.json in the project."""
    return resources_dir().parent / "models" / "catalogue.json"
