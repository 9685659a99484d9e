"""Bad model input: a one-line error naming the file or URL and what to do,
and the program carries on (the errors are ordinary exceptions, never a crash)."""

from __future__ import annotations

import shutil
import socket
import struct
import time

import pytest

from engine.llm import ModelError, ModelSettings, RemoteError
from engine.llm.embedder import OnnxEmbedder, read_folder
from engine.llm.llama import LlamaGenerator
from engine.llm.loading import embedder_spec, generator_spec
from engine.llm.memory import available_memory_bytes
from engine.llm.remote import EndpointSettings, RemoteGenerator


@pytest.fixture(scope="module")
def default_gguf():
    return generator_spec(ModelSettings())["path"]


def _one_line(error: Exception, where) -> str:
    message = str(error)
    assert "\n" not in message
    assert message.startswith(str(where))
    return message


def test_missing_model_file(tmp_path):
    path = tmp_path / "absent.gguf"
    with pytest.raises(ModelError) as caught:
        LlamaGenerator(path)
    assert "not found" in _one_line(caught.value, path) and "models use" in str(caught.value)


def test_a_file_that_is_not_a_model(tmp_path):
    path = tmp_path / "notes.gguf"
    path.write_text("These are my reading notes, not a model.\n" * 50)
    with pytest.raises(ModelError) as caught:
        LlamaGenerator(path)
    assert "not a GGUF model file" in _one_line(caught.value, path)


def test_truncated_gguf(tmp_path, default_gguf):
    path = tmp_path / "cut.gguf"
    with open(default_gguf, "rb") as source:
        path.write_bytes(source.read(5_000_000))  # header and metadata intact, weights cut off
    with pytest.raises(ModelError) as caught:
        LlamaGenerator(path, gpu_layers=0)
    assert "truncated" in _one_line(caught.value, path)


def test_gguf_with_damaged_metadata(tmp_path, default_gguf):
    data = bytearray(open(default_gguf, "rb").read(200_000))
    data[24:32] = struct.pack("<Q", 1 << 40)  # the first key's length: absurd
    path = tmp_path / "damaged.gguf"
    path.write_bytes(bytes(data))
    with pytest.raises(ModelError) as caught:
        LlamaGenerator(path, gpu_layers=0)
    assert "damaged or truncated" in _one_line(caught.value, path)


def test_model_larger_than_free_memory(tmp_path):
    free = available_memory_bytes()
    if free is None:
        pytest.skip("free memory is unknown on this platform")
    path = tmp_path / "enormous.gguf"
    with open(path, "wb") as handle:
        handle.write(b"GGUF" + struct.pack("<IQQ", 3, 1, 0))
        handle.truncate(free * 2)  # sparse: takes no disk
    with pytest.raises(ModelError) as caught:
        LlamaGenerator(path, gpu_layers=0)
    assert "of memory but only" in _one_line(caught.value, path)


def test_unreachable_endpoint():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: nothing listens there
    url = f"http://127.0.0.1:{port}"
    started = time.perf_counter()
    with pytest.raises(RemoteError) as caught:
        RemoteGenerator(EndpointSettings(url, retries=1, connect_timeout=1))
    message = _one_line(caught.value, url)
    assert "connection refused" in message and "Settings" in message
    assert time.perf_counter() - started < 5


def test_not_an_http_url():
    with pytest.raises(RemoteError, match="not an http"):
        RemoteGenerator(EndpointSettings("localhost:8080"))


def test_embedder_folder_problems(tmp_path):
    with pytest.raises(ModelError, match="not a folder"):
        read_folder(tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelError, match="no .onnx model"):
        read_folder(tmp_path / "empty")
    spec = embedder_spec(ModelSettings())
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "model.onnx").write_bytes(b"\x08\x07garbage" * 100)
    shutil.copy(spec["tokenizer_path"], broken / "tokenizer.json")
    with pytest.raises(ModelError) as caught:
        OnnxEmbedder(broken / "model.onnx", broken / "tokenizer.json")
    assert "not a valid ONNX model" in _one_line(caught.value, broken / "model.onnx")
    with pytest.raises(ModelError) as caught:
        OnnxEmbedder(spec["model_path"], broken / "missing-tokenizer.json")
    assert "tokenizer.json not found" in str(caught.value)


def test_an_uninstalled_catalogue_model_is_never_downloaded_implicitly():
    from engine.llm import ModelChoice, open_generator

    settings = ModelSettings(generator=ModelChoice(id="qwen3-4b-instruct-2507-q4_k_m"))
    with pytest.raises(ModelError, match="models download qwen3-4b-instruct-2507-q4_k_m"):
        open_generator(settings)
