"""Everything that thinks: the generator (llama.cpp, or an OpenAI-compatible
server) and the embedder (ONNX Runtime, or a server), the model catalogue, the
user's choice of models, and downloads on request."""

from .catalogue import EMBEDDER, GENERATOR, Catalogue, CatalogueModel
from .embedder import Embedder, OnnxEmbedder
from .errors import ContextLimitError, ModelError, RemoteError
from .generator import Generator
from .loading import embedder_spec, generator_spec, open_embedder, open_generator, release_all
from .settings import ModelChoice, ModelSettings
from .types import (
    TRUNCATE_ERROR,
    TRUNCATE_LONGEST_END,
    TRUNCATE_LONGEST_START,
    CancelToken,
    ChatMessage,
    Completion,
    DeviceInfo,
    GenerationOptions,
    GenerationStream,
    Usage,
)

__all__ = [
    "EMBEDDER", "GENERATOR", "Catalogue", "CatalogueModel", "Embedder", "OnnxEmbedder", "ContextLimitError",
    "ModelError", "RemoteError", "Generator", "embedder_spec", "generator_spec", "open_embedder", "open_generator",
    "release_all", "ModelChoice", "ModelSettings", "TRUNCATE_ERROR", "TRUNCATE_LONGEST_END", "TRUNCATE_LONGEST_START",
    "CancelToken", "ChatMessage", "Completion", "DeviceInfo", "GenerationOptions", "GenerationStream", "Usage",
]
