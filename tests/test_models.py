"""The model catalogue, the user's choice of models, downloads on request
(against a real HTTP server on 127.0.0.1), and `chapterhouse models`."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from engine.llm import CancelToken, Catalogue, ModelError, ModelSettings
from engine.llm.catalogue import CatalogueModel, ModelFile
from engine.llm.download import download_model, file_sha256
from engine.llm.loading import embedder_spec, generator_spec

ROOT = Path(__file__).resolve().parent.parent


def test_catalogue_defaults_are_installed_and_match_their_checksums():
    catalogue = Catalogue.load()
    generator, embedder = catalogue.default("generator"), catalogue.default("embedder")
    for model in (generator, embedder):
        path = model.main_file()
        assert path is not None and path.is_file()
        assert path.stat().st_size == model.files[0].size_bytes
        assert file_sha256(path) == model.files[0].sha256
    assert embedder.tokenizer_path().is_file()
    recommended = {m.id for m in catalogue.by_role("generator")}
    assert {"qwen3-4b-instruct-2507-q4_k_m", "llama-3.2-3b-instruct-q4_k_m", "gemma-3-4b-it-q4_k_m"} <= recommended
    assert "bge-small-en-v1.5" in {m.id for m in catalogue.by_role("embedder")}
    for model in catalogue.models:
        assert model.license and model.ram_mb and model.files
        assert model.default or model.downloadable


def test_settings_round_trip_in_the_config_dir(chapterhouse_home):
    from engine.llm import ModelChoice
    from engine.llm.remote import EndpointSettings

    settings = ModelSettings(generator=ModelChoice(source="file", path="/models/x.gguf"),
                             embedder=ModelChoice(source="remote", endpoint=EndpointSettings("http://h:1", model="e")),
                             gpu_layers=12, threads=3, context_size=4096, situating_sentences="off")
    path = settings.save()
    assert path == chapterhouse_home / "config" / "models.json"
    assert ModelSettings.load() == settings
    path.write_text(path.read_text().replace('"situating_sentences": "off"', '"situating_sentences": "often"'))
    with pytest.raises(ModelError, match=r"models\.json: .*situating_sentences must be auto, on or off"):
        ModelSettings.load()
    path.write_text("{ not json")
    with pytest.raises(ModelError, match="unreadable"):
        ModelSettings.load()
    for field, value, message in (("threads", -2, "threads must be a whole number of at least 1"),
                                  ("context_size", 100, "context_size must be a whole number of at least 1024"),
                                  ("gpu_layers", "lots", "gpu_layers must be auto or a whole number")):
        path.write_text(json.dumps({field: value}))
        with pytest.raises(ModelError, match=message):
            ModelSettings.load()
    path.write_text(json.dumps({"gpu_layers": -1, "threads": None, "context_size": 2048}))
    assert (ModelSettings.load().gpu_layers, ModelSettings.load().context_size) == (-1, 2048)


def test_situating_sentences_auto_follows_the_generators_size():
    from engine.index.writing import writes_situating

    class Sized:
        def __init__(self, parameters):
            self.parameters = parameters

    assert not writes_situating(Sized(134_515_008))  # the embedded default
    assert writes_situating(Sized(4_022_468_096))  # a 4B model
    assert writes_situating(Sized(None))  # an endpoint: its size is unknown
    assert writes_situating(Sized(134_515_008), "on") and not writes_situating(Sized(4_022_468_096), "off")
    with pytest.raises(ValueError, match="not one of auto, on, off"):
        writes_situating(Sized(None), "sometimes")


# ------------------------------------------------------------ downloads


class _Files(BaseHTTPRequestHandler):
    files: dict[str, bytes] = {}
    cut_after: int | None = None  # bytes to send before dropping the connection, once
    ranges: list[str] = []

    def do_GET(self):  # noqa: N802 (http.server's naming)
        data = self.files.get(self.path)
        if data is None:
            self.send_error(404)
            return
        start = 0
        header = self.headers.get("Range")
        if header:
            self.ranges.append(header)
            start = int(header.split("=")[1].split("-")[0])
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(len(data) - start))
        self.end_headers()
        body = data[start:]
        if _Files.cut_after is not None:
            body, _Files.cut_after = body[:_Files.cut_after], None
            self.wfile.write(body)
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def file_server():
    payload = os.urandom(3 * 1024 * 1024 + 123)
    _Files.files = {"/weights.gguf": payload, "/tokenizer.json": b'{"fake": true}'}
    _Files.ranges = []
    _Files.cut_after = None
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Files)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", payload
    server.shutdown()


def _model(url: str, payload: bytes, sha: str | None = None) -> CatalogueModel:
    return CatalogueModel(
        id="test-model", name="Test", role="generator", license="MIT",
        files=(ModelFile("weights.gguf", len(payload), sha or hashlib.sha256(payload).hexdigest(), f"{url}/weights.gguf"),
               ModelFile("tokenizer.json", None, None, f"{url}/tokenizer.json")),
    )


def test_download_resumes_and_checks_the_checksum(file_server, tmp_path):
    url, payload = file_server
    model = _model(url, payload)
    _Files.cut_after = 1024 * 1024
    with pytest.raises(ModelError, match="interrupted.*run it again to resume"):
        download_model(model, folder=tmp_path)
    partial = tmp_path / "weights.gguf.part"
    assert partial.stat().st_size == 1024 * 1024
    assert not (tmp_path / "weights.gguf").exists()

    seen = []
    folder = download_model(model, folder=tmp_path, progress=lambda name, done, total: seen.append((name, done, total)))
    assert (folder / "weights.gguf").read_bytes() == payload
    assert (folder / "tokenizer.json").read_bytes() == b'{"fake": true}'
    assert not partial.exists()
    assert _Files.ranges == [f"bytes={1024 * 1024}-"]
    assert seen[-1][0] == "tokenizer.json" and any(done == len(payload) == total for _, done, total in seen)
    # Already there and verified: nothing is fetched again.
    download_model(model, folder=tmp_path)
    assert _Files.ranges == [f"bytes={1024 * 1024}-"]


def test_download_with_a_wrong_checksum_keeps_nothing(file_server, tmp_path):
    url, payload = file_server
    with pytest.raises(ModelError, match="does not match the catalogue's checksum"):
        download_model(_model(url, payload, sha="0" * 64), folder=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_download_can_be_cancelled_and_reports_a_missing_file(file_server, tmp_path):
    url, payload = file_server
    cancel = CancelToken()
    cancel.cancel()
    with pytest.raises(InterruptedError):
        download_model(_model(url, payload), folder=tmp_path, cancel=cancel)
    missing = CatalogueModel(id="m", name="M", role="generator", license="MIT",
                             files=(ModelFile("x.gguf", 10, None, f"{url}/nowhere.gguf"),))
    with pytest.raises(ModelError, match="404"):
        download_model(missing, folder=tmp_path)


# ------------------------------------------------------------ command line


@pytest.fixture
def cli(chapterhouse_home):
    def run(*args: str, check: bool = True):
        result = subprocess.run([sys.executable, "-m", "engine", "models", *args], capture_output=True, text=True,
                                cwd=ROOT, env={**os.environ, "CHAPTERHOUSE_HOME": str(chapterhouse_home)})
        if check:
            assert result.returncode == 0, result.stderr
        return result

    return run


def test_models_command_lists_uses_configures_and_resets(cli, tmp_path):
    listing = json.loads(cli("--json").stdout)
    active = {m["id"] for m in listing["models"] if m["active"]}
    assert active == {"smollm2-135m-instruct-q4_1", "all-minilm-l6-v2-int8"}
    assert all(m["installed"] for m in listing["models"] if m["default"])
    assert listing["gpu_offload_available"] in (True, False)
    assert "Choose with: chapterhouse models use" in cli().stdout

    gguf = generator_spec(ModelSettings())["path"]
    used = cli("use", str(gguf))
    assert used.stdout.startswith(f"generator: {gguf}") and "llama, 30 layers" in used.stdout
    assert "redo their summaries, situating sentences and cards" in used.stdout  # what will be re-indexed
    folder = tmp_path / "my-embedder"
    folder.mkdir()
    spec = embedder_spec(ModelSettings())
    shutil.copy(spec["model_path"], folder / "model.onnx")
    shutil.copy(spec["tokenizer_path"], folder / "tokenizer.json")
    assert cli("use", str(folder)).stdout.startswith(f"embedder: {folder}")
    listing = json.loads(cli("--json").stdout)
    assert listing["active"]["generator"]["source"] == "file" and listing["active"]["generator"]["path"] == str(gguf)
    assert listing["active"]["embedder"]["source"] == "folder"
    assert not any(m["active"] for m in listing["models"])

    cli("configure", "--gpu-layers", "0", "--threads", "2", "--context", "4096")
    settings = ModelSettings.load()
    assert (settings.gpu_layers, settings.threads, settings.context_size) == (0, 2, 4096)
    check = json.loads(cli("check", "--json").stdout)
    assert check["generator"]["context_size"] == 4096
    assert check["generator"]["device"]["device"] == "CPU"
    assert check["embedder"]["dimension"] == 384

    cli("reset")
    assert {m["id"] for m in json.loads(cli("--json").stdout)["models"] if m["active"]} == active


def test_models_command_errors_are_one_line(cli, tmp_path):
    not_model = tmp_path / "novel.gguf"
    not_model.write_text("It was a dark and stormy night. " * 100)
    for args, expected in (
        (["use", str(not_model)], "not a GGUF model file"),
        (["use", "no-such-model"], "no such file, folder or catalogue model"),
        (["use", "qwen3-4b-instruct-2507-q4_k_m"], "models download qwen3-4b-instruct-2507-q4_k_m"),
        (["configure", "--gpu-layers", "many"], "give auto, 0"),
        (["configure", "--threads", "-3"], "--threads -3: give a number of threads"),
        (["configure", "--context", "10"], "--context 10: give at least 1024 tokens"),
    ):
        result = cli(*args, check=False)
        assert result.returncode == 2
        assert len(result.stderr.strip().splitlines()) == 1 and expected in result.stderr


def test_a_model_being_loaded_holds_up_no_one_who_wants_another(chapterhouse_home, monkeypatch):
    """Loading a model held one lock over every model: a 3-4B generator,
    loaded for seconds as the reader types, held up the question's retrieval
    waiting for the embedder it had loaded long before. Two callers wanting
    the same model still load it once, and one whose settings changed while
    it loaded is not kept."""
    from engine.llm import loading

    settings = ModelSettings()
    loading.release_all()
    embedder = loading.open_embedder(settings)
    may_load, builds, generators = threading.Event(), [], []
    real_build = loading._build_generator

    def slow_build(spec):
        builds.append(spec)
        may_load.wait(60)
        return real_build(spec)

    monkeypatch.setattr(loading, "_build_generator", slow_build)
    loaders = [threading.Thread(target=lambda: generators.append(loading.open_generator(settings, lane="answer")))
               for _ in range(2)]
    try:
        for loader in loaders:
            loader.start()
        while not builds:
            threading.Event().wait(0.01)
        retrieval = threading.Thread(target=lambda: generators.append(loading.open_embedder(settings)))
        retrieval.start()
        retrieval.join(20)
        assert not retrieval.is_alive() and generators == [embedder]
        may_load.set()
        for loader in loaders:
            loader.join(60)
        assert len(builds) == 1 and generators[1] is generators[2]
        loading.release_all()
        may_load.clear()
        late = threading.Thread(target=lambda: generators.append(loading.open_generator(settings, lane="answer")))
        late.start()
        while len(builds) < 2:
            threading.Event().wait(0.01)
        loading.release_all()  # the reader chose another model meanwhile
        may_load.set()
        late.join(60)
        assert loading.open_generator(settings, lane="answer") is not generators[3] and len(builds) == 3
    finally:
        may_load.set()
        for loader in loaders:
            loader.join(60)
        loading.release_all()


def test_a_small_generator_gets_one_instance_per_lane_a_big_one_is_shared(chapterhouse_home, monkeypatch):
    from engine.llm import loading
    from engine.llm.settings import ModelSettings

    settings = ModelSettings()
    try:
        indexing = loading.open_generator(settings, lane="index")
        answering = loading.open_generator(settings, lane="answer")
        assert indexing is not answering
        assert loading.open_generator(settings, lane="answer") is answering
        loading.release_all()
        monkeypatch.setattr(loading, "SEPARATE_LANES_MAX_BYTES", 1000)  # as if the model were big
        assert loading.open_generator(settings, lane="index") is loading.open_generator(settings, lane="answer")
    finally:
        loading.release_all()
