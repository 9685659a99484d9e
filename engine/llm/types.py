"""What the generator and embedder interfaces speak: messages, options, results,
cancellation. Shared by the local (llama.cpp, ONNX Runtime) and remote
(OpenAI-compatible HTTP) backends."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

SYSTEM, USER, ASSISTANT = "system", "user", "assistant"

# What to do when a prompt does not fit the context window.
TRUNCATE_ERROR = "error"  # refuse, saying by how much it is over
TRUNCATE_LONGEST_END = "truncate-longest-end"  # cut the end of the longest message
TRUNCATE_LONGEST_START = "truncate-longest-start"  # cut the start of the longest message
TRUNCATION_POLICIES = (TRUNCATE_ERROR, TRUNCATE_LONGEST_END, TRUNCATE_LONGEST_START)


@dataclass(frozen=True)
class ChatMessage:
    role: str
    content: str

    def as_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass
class GenerationOptions:
    max_tokens: int = 256
    temperature: float = 0.0  # 0 is greedy: with a fixed seed, the same output every time
    seed: int = 0
    top_p: float = 0.95
    top_k: int = 40
    repeat_penalty: float = 1.0
    json_schema: dict[str, Any] | None = None  # constrain the output to JSON of this schema
    stop: tuple[str, ...] = ()
    truncation: str = TRUNCATE_ERROR

    def __post_init__(self) -> None:
        if self.truncation not in TRUNCATION_POLICIES:
            raise ValueError(f"unknown truncation policy {self.truncation!r}; use one of {TRUNCATION_POLICIES}")


@dataclass
class Usage:
    prompt_tokens: int = 0
    # Of the prompt, tokens whose state was kept from the previous call (a shared
    # prefix), and tokens actually processed this time.
    reused_prompt_tokens: int = 0
    processed_prompt_tokens: int = 0
    completion_tokens: int = 0
    truncated_tokens: int = 0  # cut from the prompt by the truncation policy


@dataclass
class Timings:
    prompt_seconds: float = 0.0
    first_token_seconds: float | None = None  # from the call to the first generated text
    generation_seconds: float = 0.0
    total_seconds: float = 0.0


@dataclass
class Completion:
    text: str
    finish_reason: str  # stop | length | cancelled
    usage: Usage = field(default_factory=Usage)
    timings: Timings = field(default_factory=Timings)
    data: Any = None  # the parsed JSON when a schema was given and the output is complete
    model: str = ""


class CancelToken:
    """Set from any thread; generation stops at the next prompt batch or token.
    A background job can also be paused (it waits at its next safe point)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._running = threading.Event()
        self._running.set()

    def cancel(self) -> None:
        self._event.set()
        self._running.set()  # a paused job must wake up to stop

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def pause(self) -> None:
        self._running.clear()

    def resume(self) -> None:
        self._running.set()

    @property
    def paused(self) -> bool:
        return not self._running.is_set()

    def wait_while_paused(self) -> None:
        while not self._running.wait(0.1):
            pass


class GenerationStream:
    """Iterate for text as it is generated; afterwards `result` is the Completion."""

    def __init__(self, pieces: Callable[["GenerationStream"], Iterator[str]],
                 on_reading: Callable[[int, int, float | None], None] | None = None):
        self.result: Completion | None = None
        self._on_reading = on_reading
        self._reading_since = 0.0
        self._pieces = pieces(self)

    def reading(self, done: int, total: int) -> None:
        """Called by a backend as it reads the prompt: tokens read of those it
        has to read. This is the wait before the first token, on a CPU the
        longest part of an answer, so the listener also gets the seconds left
        at the rate so far (None until there is a rate)."""
        if self._on_reading is None or total <= 0:
            return
        now = time.monotonic()
        if done == 0:
            self._reading_since = now
        elapsed = now - self._reading_since
        left = elapsed * (total - done) / done if 0 < done and elapsed > 0 else None
        self._on_reading(done, total, left)

    def __iter__(self) -> Iterator[str]:
        return self._pieces

    def finish(self) -> Completion:
        for _ in self._pieces:
            pass
        assert self.result is not None
        return self.result

    def close(self) -> None:
        """Stop early without reading the rest: releases the model at once (a
        stream left half-read holds it until it is garbage-collected)."""
        self._pieces.close()

    def __enter__(self) -> "GenerationStream":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@dataclass
class DeviceInfo:
    """Where a model runs, as llama.cpp (or the server) reports it."""

    backend: str  # llama.cpp | onnxruntime | remote
    device: str  # "CPU", "CUDA0 (NVIDIA H200)", "Metal", "http://127.0.0.1:8080"
    gpu_layers: int = 0
    total_layers: int | None = None
    gpu_available: bool = False
    notice: str | None = None  # e.g. the GPU failed and the model fell back to the CPU

    def describe(self) -> str:
        if self.backend == "remote":
            return f"remote endpoint {self.device}"
        text = self.device
        if self.backend == "llama.cpp" and not self.gpu_available:
            text += " (this llama.cpp build has no GPU support)"
        elif self.total_layers:
            text += f", {self.gpu_layers}/{self.total_layers} layers on the GPU"
        if self.notice:
            text += f" ({self.notice})"
        return text


@dataclass
class EndpointSettings:
    """An OpenAI-compatible server, as the user configured it."""

    url: str  # "http://127.0.0.1:8080" or "http://host:8000/v1"
    model: str | None = None  # the server's model name; None: the first it lists
    api_key: str | None = None
    timeout: float = 120.0  # seconds without any answer before giving up
    connect_timeout: float = 5.0
    retries: int = 2
    context_size: int | None = None  # when the server does not say
