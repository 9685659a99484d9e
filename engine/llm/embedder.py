"""The embedder interface, and sentence embeddings with ONNX Runtime.

One inference session per model, reused for every call; texts are tokenized
by the model's own `tokenizer.json` (Hugging Face tokenizers), truncated at
the model's maximum length, batched by length so padding stays small, pooled
(mean over real tokens, or the CLS token for models trained that way) and
L2-normalized, so a dot product is the cosine similarity.
"""

from __future__ import annotations

import json
import logging
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from .errors import ModelError
from .types import CancelToken, DeviceInfo

log = logging.getLogger(__name__)

POOL_MEAN, POOL_CLS = "mean", "cls"


@dataclass
class TokenVectors:
    """One text read by the embedder: its unit vector, as `embed` gives it, and
    the contextual vector of each of its word pieces with the piece's
    character span in the text. Mean-pooling the pieces of one sentence gives
    that sentence a vector read in its context, for free ("late chunking")."""

    pooled: np.ndarray  # (dimension,)
    tokens: np.ndarray  # (pieces, dimension), special tokens left out
    offsets: list[tuple[int, int]]  # each piece's (start, end) in the text


class Embedder(ABC):
    model_id: str
    dimension: int
    max_tokens: int
    device: DeviceInfo
    # Whether embed_with_tokens works: only a local model pooled by mean.
    reads_tokens: bool = False

    @abstractmethod
    def embed(self, texts: Sequence[str], cancel: CancelToken | None = None) -> np.ndarray:
        """Passages to unit vectors, shape (len(texts), dimension), float32."""

    def embed_query(self, text: str) -> np.ndarray:
        """A search query to a unit vector (some models phrase queries differently)."""
        return self.embed([text])[0]

    @abstractmethod
    def count_tokens(self, text: str) -> int:
        """Word pieces of `text`, without the special tokens."""

    def embed_with_tokens(self, texts: Sequence[str], cancel: CancelToken | None = None) -> list[TokenVectors]:
        """Like `embed`, with each text's word-piece vectors (see TokenVectors);
        only where `reads_tokens`."""
        raise NotImplementedError(f"{self.model_id} gives no word-piece vectors")

    def close(self) -> None:
        """Release the model."""


def normalize(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32)


class OnnxEmbedder(Embedder):
    def __init__(
        self,
        model_path: str | Path,
        tokenizer_path: str | Path,
        *,
        model_id: str | None = None,
        max_tokens: int = 256,
        pooling: str = POOL_MEAN,
        threads: int | None = None,
        batch_size: int = 16,
        query_prefix: str = "",
        passage_prefix: str = "",
    ):
        import onnxruntime
        from tokenizers import Tokenizer

        model_path, tokenizer_path = Path(model_path).expanduser(), Path(tokenizer_path).expanduser()
        for path, what in ((model_path, "ONNX model"), (tokenizer_path, "tokenizer.json")):
            if not path.is_file():
                raise ModelError(path, f"{what} not found; choose an ONNX sentence-embedding folder with "
                                       "model.onnx and tokenizer.json (`chapterhouse models use FOLDER`)")
        try:
            self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
            # A second copy counts whole texts: the first one truncates and pads.
            self._counter = Tokenizer.from_file(str(tokenizer_path))
        except Exception as error:  # tokenizers raises a bare Exception
            raise ModelError(tokenizer_path, f"not a Hugging Face tokenizer.json ({error})") from None
        options = onnxruntime.SessionOptions()
        # Idle pool threads sleep rather than spin: spinning took the cores the
        # window and llama.cpp need, for no speed (14.3 vs 14.4 passages/s here).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        if threads:
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
        try:
            self._session = onnxruntime.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
        except Exception as error:  # onnxruntime raises its own exception types
            reason = str(error).splitlines()[0][:200]
            raise ModelError(model_path, f"not a valid ONNX model ({reason}); the file may be corrupt") from None
        self._inputs = {node.name for node in self._session.get_inputs()}
        if "input_ids" not in self._inputs:
            raise ModelError(model_path, "this ONNX model takes no input_ids: it is not a text-embedding model")
        output = self._session.get_outputs()[0]
        self.dimension = int(output.shape[-1]) if isinstance(output.shape[-1], int) else self._probe_dimension()
        # A model that pools by itself, or by its CLS token, has no sentence
        # inside a text to pool for.
        self.reads_tokens = len(output.shape) == 3 and pooling == POOL_MEAN
        self.model_id = model_id or model_path.parent.name
        self.model_path = model_path
        self.max_tokens = max_tokens
        self.pooling = pooling
        self.batch_size = batch_size
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix
        self._counter.no_padding()
        self._counter.no_truncation()
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=max_tokens)
        pad_id = self._tokenizer.token_to_id("[PAD]")
        self._tokenizer.enable_padding(pad_id=pad_id if pad_id is not None else 0, pad_token="[PAD]")
        self.device = DeviceInfo(backend="onnxruntime", device="CPU")
        log.info("loaded embedder %s (%d dimensions, %d-token limit)", self.model_id, self.dimension, max_tokens)

    def _probe_dimension(self) -> int:
        return int(self._run(["probe"]).shape[-1])

    def count_tokens(self, text: str) -> int:
        return len(self._counter.encode(text, add_special_tokens=False).ids)

    def embed(self, texts: Sequence[str], cancel: CancelToken | None = None) -> np.ndarray:
        return self._embed([self.passage_prefix + text for text in texts], cancel)

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed([self.query_prefix + text], None)[0]

    def _embed(self, texts: list[str], cancel: CancelToken | None) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for batch in self._batches(texts, cancel):
            vectors[batch] = self._run([texts[i] for i in batch])
        return vectors

    def _batches(self, texts: list[str], cancel: CancelToken | None):
        """Indexes of texts in batches, similar lengths side by side: little
        padding, fewer wasted operations."""
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), self.batch_size):
            if cancel is not None and cancel.cancelled:
                raise InterruptedError("embedding cancelled")
            yield order[start:start + self.batch_size]

    def embed_with_tokens(self, texts: Sequence[str], cancel: CancelToken | None = None) -> list[TokenVectors]:
        if not self.reads_tokens:
            return super().embed_with_tokens(texts, cancel)
        prefix = len(self.passage_prefix)
        texts = [self.passage_prefix + text for text in texts]
        results: list[TokenVectors | None] = [None] * len(texts)
        for batch in self._batches(texts, cancel):
            encodings, output, mask = self._forward([texts[i] for i in batch])
            pooled = self._pool(output, mask)
            for row, index in enumerate(batch):
                encoding = encodings[row]
                # Each of these properties builds a new list: read them once.
                offsets = encoding.offsets
                keep = [t for t, (special, real) in enumerate(zip(encoding.special_tokens_mask, encoding.attention_mask))
                        if real and not special and offsets[t][0] >= prefix]
                results[index] = TokenVectors(
                    pooled=pooled[row], tokens=output[row, keep, :].astype(np.float32),
                    offsets=[(offsets[t][0] - prefix, offsets[t][1] - prefix) for t in keep])
        return results

    def _forward(self, texts: list[str]):
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.array([e.type_ids for e in encodings], dtype=np.int64)
        feed = {name: value for name, value in feed.items() if name in self._inputs}
        return encodings, self._session.run(None, feed)[0], mask

    def _run(self, texts: list[str]) -> np.ndarray:
        _, output, mask = self._forward(texts)
        return self._pool(output, mask)

    def _pool(self, output: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if output.ndim == 2:  # the model pools by itself
            return normalize(output)
        if self.pooling == POOL_CLS:
            return normalize(output[:, 0, :])
        weights = mask[:, :, None].astype(np.float32)
        summed = (output * weights).sum(axis=1)
        return normalize(summed / np.maximum(weights.sum(axis=1), 1e-9))


def read_folder(folder: Path) -> dict:
    """Model file, tokenizer and settings of a sentence-transformers style ONNX folder."""
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise ModelError(folder, "not a folder; an embedder is a folder with model.onnx and tokenizer.json")
    candidates = [folder / "model.onnx", folder / "onnx" / "model.onnx", folder / "model_quantized.onnx",
                  folder / "onnx" / "model_quantized.onnx"] + sorted(folder.glob("*.onnx"))
    model = next((path for path in candidates if path.is_file()), None)
    if model is None:
        raise ModelError(folder, "no .onnx model in this folder")
    settings: dict = {"model_path": model, "tokenizer_path": folder / "tokenizer.json"}
    pooling_file = folder / "1_Pooling" / "config.json"
    if pooling_file.is_file():
        pooling = json.loads(pooling_file.read_text())
        settings["pooling"] = POOL_CLS if pooling.get("pooling_mode_cls_token") else POOL_MEAN
    config_file = folder / "sentence_bert_config.json"
    if config_file.is_file():
        settings["max_tokens"] = int(json.loads(config_file.read_text()).get("max_seq_length", 256))
    return settings

