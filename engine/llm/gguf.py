"""A first look at a GGUF file before llama.cpp loads it, so a wrong file gets a
plain answer ("not a GGUF model") instead of a loader trace."""

from __future__ import annotations

import struct
from pathlib import Path

from .errors import ModelError

GGUF_MAGIC = b"GGUF"
_SUPPORTED_VERSIONS = (2, 3)
_HEADER_BYTES = 24  # magic, version, tensor count, metadata count


def check_gguf(path: Path) -> int:
    """Raise ModelError unless `path` looks like a GGUF model; returns its size."""
    if not path.exists():
        raise ModelError(path, "model file not found; choose a GGUF file with `chapterhouse models use PATH`")
    if path.is_dir():
        raise ModelError(path, "is a folder; a generator model is a single .gguf file")
    size = path.stat().st_size
    with open(path, "rb") as handle:
        header = handle.read(_HEADER_BYTES)
    if header[:4] != GGUF_MAGIC:
        raise ModelError(path, "not a GGUF model file (llama.cpp models end in .gguf; convert or download one)")
    if len(header) < _HEADER_BYTES:
        raise ModelError(path, "GGUF file is truncated (download it again)")
    version, tensors, _ = struct.unpack("<IQQ", header[4:])
    if version not in _SUPPORTED_VERSIONS:
        raise ModelError(path, f"GGUF version {version} is not supported (expected 2 or 3); update the model file")
    if tensors == 0 or size < 1024:
        raise ModelError(path, "GGUF file holds no weights (truncated or a vocabulary-only file)")
    return size


# GGUF metadata value types, and the struct format of the fixed-size ones.
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9


def read_metadata(path: Path) -> dict[str, object]:
    """The GGUF key/value metadata (architecture, context length, layer count,
    chat template...). Arrays (the vocabulary) are skipped, not loaded."""
    with open(path, "rb") as handle:
        header = handle.read(_HEADER_BYTES)
        if len(header) < _HEADER_BYTES or header[:4] != GGUF_MAGIC:
            raise ModelError(path, "not a GGUF model file")
        _, _, count = struct.unpack("<IQQ", header[4:])
        metadata: dict[str, object] = {}
        try:
            for _ in range(count):
                key = _read_string(handle)
                kind = struct.unpack("<I", handle.read(4))[0]
                value = _read_value(handle, kind)
                if value is not _SKIPPED:
                    metadata[key] = value
        except (struct.error, UnicodeDecodeError, ValueError):
            raise ModelError(path, "GGUF metadata is damaged or truncated (download the file again)") from None
    return metadata


_SKIPPED = object()


def _read_string(handle) -> str:
    length = struct.unpack("<Q", handle.read(8))[0]
    if length > 1 << 26:
        raise ValueError("implausible string length")
    data = handle.read(length)
    if len(data) != length:
        raise ValueError("truncated")
    return data.decode("utf-8")


def _read_value(handle, kind: int):
    if kind in _SCALARS:
        fmt = _SCALARS[kind]
        return struct.unpack(fmt, handle.read(struct.calcsize(fmt)))[0]
    if kind == _STRING:
        return _read_string(handle)
    if kind == _ARRAY:
        item_kind, length = struct.unpack("<IQ", handle.read(12))
        if item_kind in _SCALARS:
            handle.seek(struct.calcsize(_SCALARS[item_kind]) * length, 1)
        elif item_kind == _STRING:
            for _ in range(length):
                handle.seek(struct.unpack("<Q", handle.read(8))[0], 1)
        else:
            for _ in range(length):
                _read_value(handle, item_kind)
        return _SKIPPED
    raise ValueError(f"unknown GGUF value type {kind}")


def model_facts(path: Path) -> dict[str, object]:
    """What the app shows and plans with: architecture, name, training context,
    layers, whether a chat template is embedded."""
    metadata = read_metadata(path)
    architecture = str(metadata.get("general.architecture", ""))
    return {
        "architecture": architecture,
        "name": metadata.get("general.name"),
        "context_length": metadata.get(f"{architecture}.context_length"),
        "layers": metadata.get(f"{architecture}.block_count"),
        "chat_template": "tokenizer.chat_template" in metadata,
    }
