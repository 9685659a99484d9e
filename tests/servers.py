"""Starting real servers for tests: llama-cpp-python's OpenAI-compatible server
on 127.0.0.1, serving the embedded default model."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_llama_server(folder: Path, port: int | None = None, timeout: float = 90) -> tuple[subprocess.Popen, str]:
    from engine.llm import ModelSettings
    from engine.llm.loading import generator_spec

    model = str(generator_spec(ModelSettings())["path"])
    port = port or free_port()
    config = folder / f"server-{port}.json"
    config.write_text(json.dumps({"host": "127.0.0.1", "port": port, "models": [
        {"model": model, "model_alias": "smollm2", "n_ctx": 4096, "n_threads": 2, "verbose": False},
        {"model": model, "model_alias": "smollm2-embed", "n_ctx": 512, "n_threads": 2, "embedding": True,
         "verbose": False},
    ]}))
    process = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--config_file", str(config)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + timeout
    while time.time() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"llama_cpp.server exited: {process.stderr.read().decode()[-2000:]}")
        try:
            urllib.request.urlopen(f"{url}/v1/models", timeout=1).read()
            return process, url
        except OSError:
            time.sleep(0.3)
    process.kill()
    raise RuntimeError(f"llama_cpp.server did not start within {timeout:.0f} s")


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
