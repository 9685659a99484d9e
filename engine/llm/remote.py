"""The generator and embedder interfaces over an OpenAI-compatible HTTP endpoint
(llama.cpp's llama-server, llama-cpp-python's server, Ollama, vLLM, LM Studio).

Requests run on a helper thread that the caller waits on in short steps, so a
cancel returns at once (the connection is closed under the request), however
long the server takes. Connection failures and overloaded-server answers are
retried with backoff; other HTTP errors are reported as they are.
"""

from __future__ import annotations

import http.client
import json
import logging
import math
import queue
import socket
import threading
import time
from typing import Any, Iterator, Sequence
from urllib.parse import urlsplit

import numpy as np

from .embedder import Embedder, normalize
from .errors import RemoteError
from .generator import Generator
from .types import (
    CancelToken,
    ChatMessage,
    Completion,
    DeviceInfo,
    EndpointSettings,
    GenerationOptions,
    GenerationStream,
    Timings,
    Usage,
)

log = logging.getLogger(__name__)

_RETRY_STATUSES = {429, 502, 503, 504}
_POLL_SECONDS = 0.05
# Chat templates add a few tokens per message around its content.
_TEMPLATE_TOKENS_PER_MESSAGE = 6


class _Cancelled(Exception):
    pass


class Endpoint:
    """JSON and server-sent-event requests to one server."""

    def __init__(self, settings: EndpointSettings):
        self.settings = settings
        parts = urlsplit(settings.url.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise RemoteError(settings.url, "not an http(s) URL; give the server's address, e.g. http://127.0.0.1:8080")
        self.scheme, self.host, self.port = parts.scheme, parts.hostname, parts.port
        path = parts.path.rstrip("/")
        self.root = path[:-3] if path.endswith("/v1") else path
        self.api = f"{self.root}/v1"

    def url(self, path: str) -> str:
        port = f":{self.port}" if self.port else ""
        return f"{self.scheme}://{self.host}{port}{path}"

    def _connection(self) -> http.client.HTTPConnection:
        kind = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
        return kind(self.host, self.port, timeout=self.settings.connect_timeout)

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.settings.api_key:
            headers["Authorization"] = f"Bearer {self.settings.api_key}"
        return headers

    def request(self, method: str, path: str, payload: dict | None = None, cancel: CancelToken | None = None,
                retries: int | None = None) -> Any:
        """A JSON request; returns the decoded answer."""
        events = self._events(method, path, payload, cancel, stream=False, retries=retries)
        return next(events)

    def stream(self, path: str, payload: dict, cancel: CancelToken | None = None) -> Iterator[dict]:
        """Server-sent events of a streaming request, each decoded from JSON."""
        return self._events("POST", path, payload, cancel, stream=True, retries=None)

    def _events(self, method, path, payload, cancel, stream: bool, retries: int | None) -> Iterator[Any]:
        cancel = cancel or CancelToken()
        attempts = (self.settings.retries if retries is None else retries) + 1
        for attempt in range(attempts):
            inbox: queue.Queue = queue.Queue()
            holder: dict[str, http.client.HTTPConnection] = {}
            worker = threading.Thread(
                target=self._run, args=(method, path, payload, stream, inbox, holder), daemon=True,
                name="chapterhouse-http",
            )
            worker.start()
            delivered = False
            last_activity = time.monotonic()
            try:
                while True:
                    if cancel.cancelled:
                        raise _Cancelled()
                    try:
                        kind, value = inbox.get(timeout=_POLL_SECONDS)
                    except queue.Empty:
                        if time.monotonic() - last_activity > self.settings.timeout:
                            raise RemoteError(self.url(path), f"no answer within {self.settings.timeout:.0f} s; "
                                                              "the server may be overloaded (raise the timeout in Settings)")
                        continue
                    last_activity = time.monotonic()
                    if kind == "event":
                        delivered = True
                        yield value
                    elif kind == "done":
                        return
                    elif kind == "retry" and not delivered and attempt + 1 < attempts:
                        log.info("retrying %s after: %s", self.url(path), value)
                        break
                    else:
                        raise RemoteError(self.url(path), value)
            except _Cancelled:
                return
            finally:
                holder["aborted"] = True
                connection = holder.get("connection")
                if connection is not None:
                    _abort(connection)
            # Back off before the next attempt, still honouring a cancel.
            deadline = time.monotonic() + 0.5 * 2 ** attempt
            while time.monotonic() < deadline:
                if cancel.cancelled:
                    return
                time.sleep(_POLL_SECONDS)

    def _run(self, method, path, payload, stream, inbox: queue.Queue, holder: dict) -> None:
        try:
            connection = self._connection()
            holder["connection"] = connection
            body = json.dumps(payload).encode("utf-8") if payload is not None else None
            connection.request(method, path, body=body, headers=self._headers())
            if connection.sock is not None:
                connection.sock.settimeout(self.settings.timeout)
            response = connection.getresponse()
            if response.status >= 400:
                detail = _error_detail(response.read(4096))
                reason = f"server answered {response.status} {response.reason}{': ' + detail if detail else ''}"
                inbox.put(("retry" if response.status in _RETRY_STATUSES else "http-error", reason))
                return
            if not stream:
                inbox.put(("event", json.loads(response.read().decode("utf-8"))))
                inbox.put(("done", None))
                return
            for raw in response:
                line = raw.decode("utf-8", "replace").strip()
                if not line.startswith("data:"):
                    continue
                data = line[5:].strip()
                if data == "[DONE]":
                    break
                inbox.put(("event", json.loads(data)))
            inbox.put(("done", None))
        except ConnectionRefusedError:
            inbox.put(("retry", "cannot connect (connection refused): is the server running? Check the endpoint in Settings"))
        except socket.gaierror:
            inbox.put(("retry", "cannot find this host; check the endpoint address in Settings"))
        except (socket.timeout, TimeoutError):
            inbox.put(("retry", f"no answer within {self.settings.timeout:.0f} s"))
        except json.JSONDecodeError:
            inbox.put(("http-error", "the server's answer is not JSON: is this an OpenAI-compatible endpoint?"))
        except (OSError, http.client.HTTPException, AttributeError, ValueError) as error:
            # Closing the connection under a read (a cancel) lands here too; say nothing then.
            if not holder.get("aborted"):
                inbox.put(("retry", f"connection failed ({error})"))


def _abort(connection: http.client.HTTPConnection) -> None:
    sock = connection.sock
    try:
        if sock is not None:
            sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    connection.close()


def _error_detail(body: bytes) -> str:
    text = body.decode("utf-8", "replace").strip()
    try:
        data = json.loads(text)
        error = data.get("error", data) if isinstance(data, dict) else data
        if isinstance(error, dict):
            text = str(error.get("message") or error.get("detail") or error)
        else:
            text = str(error)
    except (json.JSONDecodeError, AttributeError):
        pass
    return " ".join(text.split())[:200]


class _RemoteTokens:
    """Token counts from the server's tokenize endpoint where it has one
    (llama-cpp-python: /extras/tokenize, llama-server: /tokenize), else an estimate."""

    def __init__(self, endpoint: Endpoint, model: str | None):
        self.endpoint = endpoint
        self.model = model
        self.route: str | None = None
        self.exact = True

    def count(self, text: str) -> int:
        routes = [self.route] if self.route else ["extras", "llama-server"]
        for route in routes:
            try:
                if route == "extras":
                    answer = self.endpoint.request("POST", f"{self.endpoint.root}/extras/tokenize",
                                                   {"input": text, "model": self.model}, retries=0)
                else:
                    answer = self.endpoint.request("POST", f"{self.endpoint.root}/tokenize", {"content": text}, retries=0)
                tokens = answer.get("tokens")
                if isinstance(tokens, list):
                    self.route = route
                    return len(tokens)  # may include a BOS token: one over at most
            except RemoteError:
                continue
        self.route, self.exact = "estimate", False
        return math.ceil(len(text) / 4)


class RemoteGenerator(Generator):
    def __init__(self, settings: EndpointSettings):
        self.settings = settings
        self.endpoint = Endpoint(settings)
        models = self.endpoint.request("GET", f"{self.endpoint.api}/models")
        names = [item.get("id") for item in models.get("data", []) if isinstance(item, dict)]
        if settings.model and names and settings.model not in names:
            raise RemoteError(settings.url, f"the server has no model {settings.model!r} (it offers: {', '.join(names)})")
        self.model_id = settings.model or (names[0] if names else "default")
        self.context_size = settings.context_size or self._server_context() or 4096
        self.device = DeviceInfo(backend="remote", device=self.endpoint.url(self.endpoint.api))
        self._tokens = _RemoteTokens(self.endpoint, self.model_id)
        self._schema_format = "json_schema"

    def _server_context(self) -> int | None:
        try:
            props = self.endpoint.request("GET", f"{self.endpoint.root}/props", retries=0)
            return int(props["default_generation_settings"]["n_ctx"])
        except (RemoteError, KeyError, TypeError, ValueError):
            return None

    def count_tokens(self, text: str) -> int:
        return self._tokens.count(text)

    def count_prompt_tokens(self, messages: Sequence[ChatMessage]) -> int:
        return sum(self.count_tokens(m.content) + _TEMPLATE_TOKENS_PER_MESSAGE for m in messages)

    def _payload(self, messages, options: GenerationOptions) -> dict:
        payload: dict[str, Any] = {
            "model": self.model_id,
            "messages": [m.as_dict() for m in messages],
            "max_tokens": options.max_tokens,
            "temperature": options.temperature,
            "top_p": options.top_p,
            "seed": options.seed,
            "stream": True,
        }
        if options.stop:
            payload["stop"] = list(options.stop)
        if options.json_schema is not None:
            if self._schema_format == "json_schema":
                payload["response_format"] = {"type": "json_schema",
                                              "json_schema": {"name": "answer", "schema": options.json_schema, "strict": True}}
            else:
                payload["response_format"] = {"type": "json_object", "schema": options.json_schema}
        return payload

    def _stream(self, messages, options, cancel, stream: GenerationStream, truncated: int) -> Iterator[str]:
        started = time.perf_counter()
        usage = Usage(truncated_tokens=truncated)
        timings = Timings()
        text: list[str] = []
        finish = "cancelled"
        stream.result = Completion(text="", finish_reason=finish, usage=usage, timings=timings, model=self.model_id)
        try:
            events = self.endpoint.stream(f"{self.endpoint.api}/chat/completions", self._payload(messages, options), cancel)
            first_event = next(events, None)
        except RemoteError as error:
            refused = "server answered 4" in str(error) or "response_format" in str(error)
            if options.json_schema is None or self._schema_format != "json_schema" or not refused:
                raise
            # Servers of the llama-cpp-python kind take the schema inside "json_object".
            self._schema_format = "json_object"
            events = self.endpoint.stream(f"{self.endpoint.api}/chat/completions", self._payload(messages, options), cancel)
            first_event = next(events, None)
        chain = [first_event] if first_event is not None else []
        for event in _chain(chain, events):
            choice = (event.get("choices") or [{}])[0]
            piece = (choice.get("delta") or {}).get("content") or ""
            if piece:
                if timings.first_token_seconds is None:
                    timings.first_token_seconds = time.perf_counter() - started
                    timings.prompt_seconds = timings.first_token_seconds
                text.append(piece)
                usage.completion_tokens += 1
                yield piece
            if choice.get("finish_reason"):
                finish = "length" if choice["finish_reason"] == "length" else "stop"
            if event.get("usage"):
                usage.prompt_tokens = event["usage"].get("prompt_tokens", usage.prompt_tokens)
                usage.completion_tokens = event["usage"].get("completion_tokens", usage.completion_tokens)
        if cancel.cancelled:
            finish = "cancelled"
        elif finish == "cancelled":
            finish = "stop"
        if not usage.prompt_tokens:
            usage.prompt_tokens = self.count_prompt_tokens(messages)
        usage.processed_prompt_tokens = usage.prompt_tokens
        if timings.first_token_seconds is not None:
            timings.generation_seconds = time.perf_counter() - started - timings.first_token_seconds
        stream.result = Completion(text="".join(text), finish_reason=finish, usage=usage, timings=timings,
                                   model=self.model_id)


def _chain(first: list, rest: Iterator) -> Iterator:
    yield from first
    yield from rest


class RemoteEmbedder(Embedder):
    def __init__(self, settings: EndpointSettings, max_tokens: int = 512, batch_size: int = 32):
        self.settings = settings
        self.endpoint = Endpoint(settings)
        self.model_id = settings.model or "default"
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        self.device = DeviceInfo(backend="remote", device=self.endpoint.url(self.endpoint.api))
        self._tokens = _RemoteTokens(self.endpoint, settings.model)
        self.dimension = int(self._request(["dimension probe"]).shape[1])

    def _request(self, texts: list[str]) -> np.ndarray:
        answer = self.endpoint.request("POST", f"{self.endpoint.api}/embeddings",
                                       {"model": self.model_id, "input": texts})
        rows = sorted(answer.get("data", []), key=lambda item: item.get("index", 0))
        if len(rows) != len(texts):
            raise RemoteError(self.endpoint.url(self.endpoint.api), "the embeddings answer does not match the request; "
                                                                    "is this model an embedding model?")
        vectors = []
        for row in rows:
            vector = np.asarray(row["embedding"], dtype=np.float32)
            # A model without a pooling layer answers one vector per token: average them.
            vectors.append(vector.mean(axis=0) if vector.ndim == 2 else vector)
        return normalize(np.stack(vectors))

    def embed(self, texts: Sequence[str], cancel: CancelToken | None = None) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        parts = []
        for start in range(0, len(texts), self.batch_size):
            if cancel is not None and cancel.cancelled:
                raise InterruptedError("embedding cancelled")
            parts.append(self._request(list(texts[start:start + self.batch_size])))
        return np.concatenate(parts)

    def count_tokens(self, text: str) -> int:
        return self._tokens.count(text)
