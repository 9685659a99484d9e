"""The generator interface: chat completion, streaming, JSON-schema output,
token counting and an explicit policy for prompts longer than the context.

Backends (llama.cpp in-process, an OpenAI-compatible server) implement
`_stream` and the token counting; fitting the prompt to the context, parsing
JSON and collecting the result are shared here.
"""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod
from typing import Iterator, Sequence

from .errors import ContextLimitError
from .types import (
    TRUNCATE_ERROR,
    TRUNCATE_LONGEST_END,
    CancelToken,
    ChatMessage,
    Completion,
    DeviceInfo,
    GenerationOptions,
    GenerationStream,
)

# Below this many tokens of room to generate, a prompt is "too long" rather than
# quietly allowed to answer in a handful of tokens.
MIN_GENERATION_TOKENS = 16
# Below this size a generator is a toy for what Chapterhouse asks of it:
# its plans and answers are drafts, its situating sentences hurt retrieval.
SMALL_MODEL_PARAMETERS = 1_000_000_000
_ELLIPSIS = " [\u2026]"


def is_small(generator) -> bool:
    """True for a generator known to have under SMALL_MODEL_PARAMETERS; an
    endpoint, whose size is unknown, is taken to be capable."""
    parameters = getattr(generator, "parameters", None)
    return parameters is not None and parameters < SMALL_MODEL_PARAMETERS


class Generator(ABC):
    model_id: str
    context_size: int
    device: DeviceInfo
    parameters: int | None = None  # the model's size, where the backend can tell

    # ------------------------------------------------------------ backend hooks

    @abstractmethod
    def count_tokens(self, text: str) -> int:
        """Tokens of plain text (no chat template, no special tokens)."""

    @abstractmethod
    def count_prompt_tokens(self, messages: Sequence[ChatMessage]) -> int:
        """Tokens of the messages once formatted with the model's chat template."""

    @abstractmethod
    def _stream(self, messages: list[ChatMessage], options: GenerationOptions, cancel: CancelToken,
                stream: GenerationStream, truncated: int) -> Iterator[str]:
        """Yield text pieces; set stream.result to the Completion before returning."""

    def _shorten(self, text: str, tokens: int, from_end: bool) -> str:
        """`text` less about `tokens` tokens; backends with a tokenizer cut exactly."""
        total = max(1, self.count_tokens(text))
        keep_chars = max(0, int(len(text) * (total - tokens) / total))
        return text[:keep_chars] + _ELLIPSIS if from_end else _ELLIPSIS + text[len(text) - keep_chars:]

    def close(self) -> None:
        """Release the model."""

    def prefill(self, messages: Sequence[ChatMessage], cancel: CancelToken | None = None) -> int:
        """Read the start of a coming prompt ahead of the call (the rules and
        book card every answer on a book begins with), so that call reads only
        the rest. Returns how many of its tokens the model now holds read; 0
        where the backend keeps no prompt state (a server), or is busy."""
        return 0

    # ------------------------------------------------------------ the interface

    def stream(self, messages: Sequence[ChatMessage], options: GenerationOptions | None = None,
               cancel: CancelToken | None = None, on_reading=None) -> GenerationStream:
        """Generate, yielding text as it comes. Iterate the stream; then
        `stream.result` holds the Completion (also after a cancel).
        `on_reading(done, total, seconds_left)` follows the prompt pass where
        the backend can tell (llama.cpp in-process; a server does not say)."""
        options = options or GenerationOptions()
        cancel = cancel or CancelToken()
        fitted, max_tokens, truncated = self.fit_to_context(list(messages), options)
        if max_tokens != options.max_tokens:
            options = _replace(options, max_tokens=max_tokens)

        def pieces(stream: GenerationStream) -> Iterator[str]:
            started = time.perf_counter()
            yield from self._stream(fitted, options, cancel, stream, truncated)
            result = stream.result
            assert result is not None, "backend did not set the result"
            result.timings.total_seconds = time.perf_counter() - started
            if options.json_schema is not None and result.finish_reason == "stop":
                result.data = _parse_json(result.text)

        return GenerationStream(pieces, on_reading)

    def complete(self, messages: Sequence[ChatMessage], options: GenerationOptions | None = None,
                 cancel: CancelToken | None = None) -> Completion:
        return self.stream(messages, options, cancel).finish()

    def fit_to_context(self, messages: list[ChatMessage], options: GenerationOptions
                       ) -> tuple[list[ChatMessage], int, int]:
        """Apply the truncation policy: returns the messages to send, the tokens
        that may be generated, and how many prompt tokens were cut."""
        prompt = self.count_prompt_tokens(messages)
        room = self.context_size - prompt
        if room >= options.max_tokens:
            return messages, options.max_tokens, 0
        if room >= MIN_GENERATION_TOKENS:
            # The prompt fits: generation is capped by the room that is left.
            return messages, room, 0
        if options.truncation == TRUNCATE_ERROR or options.max_tokens >= self.context_size:
            raise ContextLimitError(prompt, options.max_tokens, self.context_size)
        budget = min(options.max_tokens, max(MIN_GENERATION_TOKENS, self.context_size // 4))
        cut_total = 0
        for _ in range(4):
            excess = prompt + budget - self.context_size
            if excess <= 0:
                return messages, budget, cut_total
            longest = max(range(len(messages)), key=lambda i: len(messages[i].content))
            message = messages[longest]
            available = self.count_tokens(message.content)
            cut = min(available, excess + 8)
            shortened = self._shorten(message.content, cut, from_end=options.truncation == TRUNCATE_LONGEST_END)
            messages = messages[:longest] + [ChatMessage(message.role, shortened)] + messages[longest + 1:]
            cut_total += cut
            prompt = self.count_prompt_tokens(messages)
        raise ContextLimitError(prompt, budget, self.context_size)


def _parse_json(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


def _replace(options: GenerationOptions, **changes) -> GenerationOptions:
    from dataclasses import replace

    return replace(options, **changes)
