"""Everything that thinks: the generator (llama.cpp, or an OpenAI-compatible
server) and the embedder (ONNX Runtime, or a server), the model catalogue, the
user's choice of models, and downloads on request.

Names are loaded on first use, so importing a light submodule (the catalogue,
the settings) does not load numpy, ONNX Runtime or llama.cpp.
"""

from __future__ import annotations

from importlib import import_module

_HOMES = {
    "EMBEDDER": "catalogue", "GENERATOR": "catalogue", "Catalogue": "catalogue", "CatalogueModel": "catalogue",
    "Embedder": "embedder", "OnnxEmbedder": "embedder",
    "ContextLimitError": "errors", "ModelError": "errors", "RemoteError": "errors",
    "Generator": "generator",
    "embedder_spec": "loading", "generator_spec": "loading", "open_embedder": "loading",
    "open_generator": "loading", "release_all": "loading",
    "ModelChoice": "settings", "ModelSettings": "settings",
    "TRUNCATE_ERROR": "types", "TRUNCATE_LONGEST_END": "types", "TRUNCATE_LONGEST_START": "types",
    "CancelToken": "types", "ChatMessage": "types", "Completion": "types", "DeviceInfo": "types",
    "EndpointSettings": "types", "GenerationOptions": "types", "GenerationStream": "types", "Usage": "types",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value
