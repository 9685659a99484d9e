"""The ONNX embedder on the embedded default (all-MiniLM-L6-v2, int8), for real."""

from __future__ import annotations

import numpy as np
import pytest

from engine.llm import CancelToken, ModelSettings, open_embedder
from engine.llm.embedder import OnnxEmbedder
from engine.llm.loading import embedder_spec


@pytest.fixture(scope="module")
def embedder():
    return open_embedder(ModelSettings())


def test_default_embedder_vectors_are_unit_float32(embedder):
    vectors = embedder.embed(["The cat sat on the mat.", "A feline rested on a rug.", "Stocks fell sharply today."])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    similarity = vectors @ vectors.T
    assert similarity[0, 1] > 0.4 > similarity[0, 2]
    assert embedder.max_tokens == 256 and embedder.dimension == 384


def test_batching_does_not_change_a_vector(embedder):
    texts = [f"Chapter {i}: the horse ran to the {word} gate." for i, word in enumerate(["red", "old", "far", "new"] * 9)]
    together = embedder.embed(texts)
    alone = np.stack([embedder.embed([text])[0] for text in texts[:5]])
    assert np.allclose(together[:5], alone, atol=1e-4)


def test_text_beyond_the_maximum_length_is_cut(embedder):
    words = "the quiet river carried the small boat past the mill and the church " * 40
    assert embedder.count_tokens(words) > 400
    longer = words + " but then a great storm broke over the valley and everything changed forever"
    a, b = embedder.embed([words, longer])
    assert np.allclose(a, b, atol=1e-5)  # both cut at 256 word pieces


def test_queries_and_a_reused_session(embedder):
    query = embedder.embed_query("Who owned the horse?")
    assert query.shape == (384,)
    assert np.allclose(query, embedder.embed(["Who owned the horse?"])[0], atol=1e-6)  # MiniLM has no query prefix
    assert open_embedder(ModelSettings()) is embedder  # one loaded session, shared


def test_thread_count_is_configurable_and_cancel_stops_batches():
    spec = embedder_spec(ModelSettings())
    one_thread = OnnxEmbedder(spec["model_path"], spec["tokenizer_path"], threads=1, batch_size=2)
    options = one_thread._session.get_session_options()
    assert options.intra_op_num_threads == 1
    # Idle pool threads sleep: spinning ones took the cores the window needs.
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    cancel = CancelToken()
    cancel.cancel()
    with pytest.raises(InterruptedError):
        one_thread.embed(["one", "two", "three"], cancel)
