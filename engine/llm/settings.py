"""Which models the user chose, and how to run them, stored as JSON in the
user's config dir (models.json). Written atomically: a crash mid-save keeps
the previous choice."""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..errors import storage_problem
from ..paths import config_dir
from .errors import ModelError
from .types import EndpointSettings

CATALOGUE, FILE, FOLDER, REMOTE = "catalogue", "file", "folder", "remote"
# Situating sentences in stage 2: "auto" (only with generators of 1B
# parameters or more, see index.writing), always, or never.
SITUATING_SETTINGS = ("auto", "on", "off")
# Answers: the generator writes one under the evidence digest ("model"), or
# the digest is the whole answer and no generator is loaded ("evidence"): on
# a CPU with the 135M default, a draft costs half a minute and says little.
ANSWER_SETTINGS = ("model", "evidence")
SETTINGS_FILE = "models.json"
# Prompts (answers, summaries) run to thousands of tokens and are cut to
# fit the context; below this not even a cut one fits: a slip, not a setting.
MIN_CONTEXT = 1024


@dataclass
class ModelChoice:
    """A catalogue model, a file (GGUF) or folder (ONNX) of the user's, or an endpoint."""

    source: str = CATALOGUE
    id: str | None = None  # catalogue id; None means the default
    path: str | None = None
    endpoint: EndpointSettings | None = None

    def describe(self) -> str:
        if self.source == REMOTE and self.endpoint:
            return f"{self.endpoint.model or 'default model'} at {self.endpoint.url}"
        if self.source in (FILE, FOLDER):
            return str(self.path)
        return self.id or "default"


@dataclass
class ModelSettings:
    generator: ModelChoice = field(default_factory=ModelChoice)
    embedder: ModelChoice = field(default_factory=ModelChoice)
    gpu_layers: str | int = "auto"  # "auto": all layers when the build can offload; or a count
    threads: int | None = None  # None: llama.cpp and ONNX Runtime choose
    context_size: int | None = None  # None: the model's own, at most 8k
    situating_sentences: str = "auto"  # one of SITUATING_SETTINGS
    answers: str = "model"  # one of ANSWER_SETTINGS

    @classmethod
    def load(cls, path: Path | None = None) -> "ModelSettings":
        path = path or settings_path()
        if not path.exists():
            return cls()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(
                generator=_choice(data.get("generator")),
                embedder=_choice(data.get("embedder")),
                gpu_layers=_layers(data.get("gpu_layers", "auto")),
                threads=_at_least("threads", data.get("threads"), 1),
                context_size=_at_least("context_size", data.get("context_size"), MIN_CONTEXT),
                situating_sentences=_one_of("situating_sentences", data.get("situating_sentences", "auto"),
                                            SITUATING_SETTINGS),
                answers=_one_of("answers", data.get("answers", "model"), ANSWER_SETTINGS),
            )
        except (ValueError, TypeError, AttributeError) as error:
            raise ModelError(path, f"model settings are unreadable ({error}); fix or delete the file") from None

    def save(self, path: Path | None = None) -> Path:
        path = path or settings_path()
        temporary = path.with_suffix(".tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(temporary, "w", encoding="utf-8") as handle:
                json.dump(asdict(self), handle, indent=2)
                handle.write("\n")
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, path)
        except OSError as error:
            # The settings in force stay those of the file, which is untouched.
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)
            reason = {"full": "the disk is full", "read-only": "the folder is not writable"}.get(
                storage_problem(error, path.parent), error.strerror or str(error))
            raise ModelError(path, f"the settings were not saved: {reason}") from None
        return path

    def choice(self, role: str) -> ModelChoice:
        return self.generator if role == "generator" else self.embedder

    def set_choice(self, role: str, choice: ModelChoice) -> None:
        if role == "generator":
            self.generator = choice
        else:
            self.embedder = choice


def settings_path() -> Path:
    return config_dir() / SETTINGS_FILE


def _layers(value) -> str | int | None:
    """GPU layers: "auto" (or null), -1 for all, 0 for the CPU only, or a count."""
    if value in (None, "auto") or (isinstance(value, int) and not isinstance(value, bool) and value >= -1):
        return value
    raise ValueError(f"gpu_layers must be auto or a whole number of layers (-1 for all), not {value!r}")


def _at_least(key: str, value, minimum: int) -> int | None:
    """A count of at least `minimum`, or None (the runtime's own choice)."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < minimum):
        raise ValueError(f"{key} must be a whole number of at least {minimum}, or left out, not {value!r}")
    return value


def _one_of(key: str, value, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise ValueError(f"{key} must be {', '.join(allowed[:-1])} or {allowed[-1]}, not {value!r}")
    return value


def _choice(data: dict | None) -> ModelChoice:
    if not data:
        return ModelChoice()
    endpoint = data.get("endpoint")
    return ModelChoice(
        source=data.get("source", CATALOGUE),
        id=data.get("id"),
        path=data.get("path"),
        endpoint=EndpointSettings(**endpoint) if endpoint else None,
    )


def reindex_notice(role: str, before: str, after: str) -> str:
    """What a change of model means for books already indexed."""
    if before == after:
        return "No change."
    if role == "generator":
        return ("Books indexed before will redo their summaries, situating sentences and cards with the new "
                "generator (their passages and vectors stay).")
    return "Books indexed before will recompute their vectors with the new embedder (nothing else is redone)."
