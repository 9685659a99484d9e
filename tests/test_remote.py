"""The remote backend against a real OpenAI-compatible server on 127.0.0.1:
llama-cpp-python's own server, serving the embedded default model."""

from __future__ import annotations

import time

import numpy as np
import pytest

from engine.llm import CancelToken, ChatMessage, GenerationOptions, ModelChoice, ModelSettings
from engine.llm.loading import generator_spec, open_embedder, open_generator, release_all
from engine.llm.remote import EndpointSettings, RemoteEmbedder, RemoteGenerator

pytest.importorskip("llama_cpp.server.app", reason="llama-cpp-python[server] is not installed")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from servers import start_llama_server, stop

    process, url = start_llama_server(tmp_path_factory.mktemp("server"))
    yield url
    stop(process)


@pytest.fixture(scope="module")
def remote(server):
    return RemoteGenerator(EndpointSettings(server, model="smollm2", context_size=2048))


def test_chat_and_streaming_through_the_server(remote):
    assert remote.model_id == "smollm2"
    assert remote.device.backend == "remote" and remote.device.device.endswith("/v1")
    messages = [ChatMessage("user", "What is the capital of France? Answer in one sentence.")]
    stream = remote.stream(messages, GenerationOptions(max_tokens=30, temperature=0, seed=1))
    pieces = list(stream)
    assert len(pieces) > 2 and "".join(pieces) == stream.result.text
    assert stream.result.finish_reason in ("stop", "length")
    assert stream.result.usage.completion_tokens > 0
    again = remote.complete(messages, GenerationOptions(max_tokens=30, temperature=0, seed=1))
    assert again.text == stream.result.text


def test_json_schema_through_the_server(remote):
    schema = {"type": "object", "properties": {"city": {"type": "string", "maxLength": 24}}, "required": ["city"]}
    result = remote.complete([ChatMessage("user", "Name one city, as JSON.")], GenerationOptions(max_tokens=40, json_schema=schema))
    assert isinstance(result.data, dict) and isinstance(result.data["city"], str)


def test_token_counts_come_from_the_server(remote):
    from engine.llm.llama import LlamaGenerator

    local = LlamaGenerator(generator_spec(ModelSettings())["path"], context_size=256)
    text = "The register of his burial was signed by the clergyman, the clerk, the undertaker."
    assert abs(remote.count_tokens(text) - local.count_tokens(text)) <= 1
    assert remote._tokens.exact
    local.close()


def test_cancel_a_remote_stream_within_a_second(remote):
    cancel = CancelToken()
    stream = remote.stream([ChatMessage("user", "Write a very long story about the sea.")],
                           GenerationOptions(max_tokens=500, temperature=0.7), cancel)
    for _ in stream:
        cancelled_at = time.perf_counter()
        cancel.cancel()
    returned = time.perf_counter() - cancelled_at
    assert stream.result.finish_reason == "cancelled"
    assert returned < 1.0
    assert stream.result.usage.completion_tokens < 100


def test_embeddings_through_the_server(server):
    embedder = RemoteEmbedder(EndpointSettings(server, model="smollm2-embed"))
    vectors = embedder.embed(["The cat sat on the mat.", "Stocks fell today.", "A third text."])
    assert vectors.shape == (3, embedder.dimension) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert not np.allclose(vectors[0], vectors[1])


def test_remote_models_are_chosen_in_settings(server):
    settings = ModelSettings(
        generator=ModelChoice(source="remote", endpoint=EndpointSettings(server, model="smollm2")),
        embedder=ModelChoice(source="remote", endpoint=EndpointSettings(server, model="smollm2-embed")),
    )
    settings.save()
    loaded = ModelSettings.load()
    assert loaded.generator.endpoint.url == server
    generator = open_generator(loaded)
    embedder = open_embedder(loaded)
    assert isinstance(generator, RemoteGenerator) and isinstance(embedder, RemoteEmbedder)
    assert generator.complete([ChatMessage("user", "Say hello.")], GenerationOptions(max_tokens=8)).text
    release_all()
