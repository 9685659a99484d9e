"""What built an index: the identity of the generator and the embedder (model
id, backend, a checksum of the weights), recorded in the manifest so a change
of model is noticed and only the affected work redone."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

_SAMPLE = 4 * 1024 * 1024


@lru_cache(maxsize=16)
def _file_checksum(path: str, size: int, mtime: float) -> str:
    """A known catalogue sha256 when the file is a catalogue model, else a fast
    fingerprint: size plus the sha256 of its first and last 4 MB."""
    from ..llm.catalogue import Catalogue

    try:
        for model in Catalogue.load().models:
            for item in model.files:
                if item.sha256 and item.name == Path(path).name and item.size_bytes == size:
                    return f"sha256:{item.sha256}"
    except Exception:  # a damaged catalogue must not stop indexing
        pass
    digest = hashlib.sha256(str(size).encode())
    with open(path, "rb") as handle:
        digest.update(handle.read(_SAMPLE))
        if size > 2 * _SAMPLE:
            handle.seek(size - _SAMPLE)
            digest.update(handle.read(_SAMPLE))
    return f"sample-sha256:{digest.hexdigest()}"


def checksum(path: Path) -> str:
    """A model file's fingerprint as manifests record it."""
    stat = path.stat()
    return _file_checksum(str(path), stat.st_size, stat.st_mtime)


def generator_identity(generator, situating: bool = True) -> dict:
    path = getattr(generator, "path", None)
    if path is not None:
        identity = {"backend": "llama.cpp", "model": generator.model_id, "file": Path(path).name,
                    "checksum": checksum(Path(path))}
    else:
        identity = {"backend": "remote", "model": generator.model_id, "url": generator.device.device}
    identity["situating"] = situating
    if getattr(generator, "parameters", None):
        identity["parameters"] = generator.parameters  # not in the key: a size is no new model
    identity["key"] = _key(identity)
    return identity


def writer_parameters(identity: dict | None) -> int | None:
    """The size of the generator a manifest names: recorded since sizes were,
    else the catalogue's figure for its model id; None when unknown."""
    if not identity:
        return None
    if identity.get("parameters"):
        return int(identity["parameters"])
    from ..llm.catalogue import Catalogue
    from ..llm.errors import ModelError

    try:
        return next((model.parameters for model in Catalogue.load().models if model.id == identity.get("model")),
                    None)
    except (ModelError, TypeError):  # a damaged catalogue leaves the size unknown, nothing worse
        return None


def embedder_identity(embedder) -> dict:
    path = getattr(embedder, "model_path", None)
    if path is not None:
        identity = {"backend": "onnxruntime", "model": embedder.model_id, "file": Path(path).name,
                    "checksum": checksum(Path(path)), "dimension": embedder.dimension,
                    "max_tokens": embedder.max_tokens,
                    "sentence_vectors": bool(getattr(embedder, "reads_tokens", False))}  # not in the key
    else:
        identity = {"backend": "remote", "model": embedder.model_id, "url": embedder.device.device,
                    "dimension": embedder.dimension}
    identity["key"] = _key(identity)
    return identity


def _key(identity: dict) -> str:
    parts = [str(identity.get(name, "")) for name in ("backend", "model", "file", "checksum", "url", "dimension")]
    # Indexes built before situating sentences became optional all have them:
    # only their absence changes the key, so those indexes are not rebuilt.
    if identity.get("situating") is False:
        parts.append("without situating sentences")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]
