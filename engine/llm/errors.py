"""Model errors: one line naming the file or URL and what to do about it."""

from __future__ import annotations

from ..errors import ChapterhouseError


class ModelError(ChapterhouseError):
    """A model could not be found, loaded or run."""

    def __init__(self, where: str, reason: str):
        self.where = str(where)
        self.reason = reason
        super().__init__(f"{self.where}: {reason}")


class ContextLimitError(ChapterhouseError):
    """A prompt does not fit the model's context window and the policy is to refuse."""

    def __init__(self, prompt_tokens: int, max_tokens: int, context_size: int):
        self.prompt_tokens = prompt_tokens
        self.max_tokens = max_tokens
        self.context_size = context_size
        super().__init__(
            f"prompt of {prompt_tokens} tokens plus {max_tokens} to generate does not fit the "
            f"{context_size}-token context; shorten it, allow truncation, or raise the context size"
        )


class RemoteError(ModelError):
    """An OpenAI-compatible endpoint failed."""
