"""The model catalogue (models/catalogue.json) and where each model is on disk.

A catalogue model is installed when its files are found: inside the Python
package that ships it (the embedded defaults) or in the user's models folder
(after `chapterhouse models download ID`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path

from ..paths import data_dir, models_catalogue_path, resources_dir
from .errors import ModelError

GENERATOR, EMBEDDER = "generator", "embedder"


@dataclass(frozen=True)
class ModelFile:
    name: str
    size_bytes: int | None = None
    sha256: str | None = None
    url: str | None = None
    size_approximate: bool = False


@dataclass(frozen=True)
class CatalogueModel:
    id: str
    name: str
    role: str
    files: tuple[ModelFile, ...]
    license: str
    default: bool = False
    python_package: str | None = None
    tokenizer: str | None = None  # repository-relative path, for packages that ship no tokenizer
    parameters: int | None = None  # a generator's size, for indexes that did not record it
    context_length: int | None = None
    chat_format: str | None = None
    max_tokens: int | None = None
    dimension: int | None = None
    pooling: str = "mean"
    query_prefix: str = ""
    ram_mb: int | None = None
    vram_mb: int | None = None
    notes: str = ""
    extra: dict = field(default_factory=dict, compare=False)

    @property
    def size_bytes(self) -> int:
        return sum(f.size_bytes or 0 for f in self.files)

    @property
    def downloadable(self) -> bool:
        return all(f.url for f in self.files)

    def download_dir(self) -> Path:
        return models_dir() / self.id

    def installed_folder(self) -> Path | None:
        """Where this model's files all are, or None."""
        for folder in (self._package_folder(), self.download_dir()):
            if folder is not None and all((folder / f.name).is_file() for f in self.files):
                return folder
        return None

    def _package_folder(self) -> Path | None:
        if not self.python_package:
            return None
        spec = find_spec(self.python_package)
        if spec is None or not spec.submodule_search_locations:
            return None
        return Path(list(spec.submodule_search_locations)[0])

    def main_file(self) -> Path | None:
        folder = self.installed_folder()
        return folder / self.files[0].name if folder else None

    def tokenizer_path(self) -> Path | None:
        if self.tokenizer:
            return resources_dir().parent / self.tokenizer
        folder = self.installed_folder()
        return folder / "tokenizer.json" if folder else None


def models_dir() -> Path:
    """Models the user downloaded through Chapterhouse."""
    return data_dir() / "models"


class Catalogue:
    def __init__(self, models: list[CatalogueModel]):
        self.models = models

    @classmethod
    def load(cls, path: Path | None = None) -> "Catalogue":
        path = path or models_catalogue_path()
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise ModelError(path, f"cannot read the model catalogue ({error})") from None
        return cls([_entry(item) for item in data.get("models", [])])

    def get(self, model_id: str) -> CatalogueModel:
        for model in self.models:
            if model.id == model_id:
                return model
        known = ", ".join(m.id for m in self.models)
        raise ModelError(model_id, f"no such model in the catalogue (known: {known})")

    def default(self, role: str) -> CatalogueModel:
        return next(m for m in self.models if m.role == role and m.default)

    def by_role(self, role: str) -> list[CatalogueModel]:
        return [m for m in self.models if m.role == role]


def _entry(item: dict) -> CatalogueModel:
    known = set(CatalogueModel.__dataclass_fields__) - {"files", "python_package", "extra"}
    files = tuple(ModelFile(**f) for f in item.get("files", []))
    return CatalogueModel(
        files=files,
        python_package=(item.get("source") or {}).get("python_package"),
        extra={k: v for k, v in item.items() if k not in known and k not in ("files", "source")},
        **{k: v for k, v in item.items() if k in known},
    )
