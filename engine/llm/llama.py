"""The in-process generator: llama.cpp through llama-cpp-python.

Our own loop around llama.cpp's evaluation gives what the high-level
create_chat_completion does not: cancellation between prompt batches (sized
so one batch takes a fraction of a second on a slow CPU), exact counts of the
prompt tokens reused from the previous call versus processed anew, and the
device the model actually runs on, read from llama.cpp's own load log.

Prompt-prefix reuse: llama.cpp keeps the key/value state of the last prompt.
A new prompt that starts with the same tokens (a section's text, the book's
structural card) only evaluates what follows the shared prefix.
"""

from __future__ import annotations

import ctypes
import json
import logging
import re
import threading
import time
from pathlib import Path
from typing import Iterator, Sequence

from .errors import ModelError
from .generator import _ELLIPSIS, Generator
from .gguf import check_gguf, model_facts
from .memory import available_memory_bytes, format_bytes
from .types import CancelToken, ChatMessage, Completion, DeviceInfo, GenerationOptions, GenerationStream, Timings, Usage

log = logging.getLogger(__name__)
llama_log = logging.getLogger("llama.cpp")

GPU_AUTO = "auto"
DEFAULT_CONTEXT = 8192
# Evaluate prompts in chunks that take about this long, so a cancel is honoured quickly.
_TARGET_CHUNK_SECONDS = 0.25
_MIN_CHUNK = 16
# A ChatML template for models whose GGUF carries none.
_CHATML = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


class _LoadLog:
    """llama.cpp's log, kept per model load so we can tell where layers went."""

    _lock = threading.Lock()
    _lines: list[str] | None = None
    _callback = None

    @classmethod
    def install(cls) -> None:
        if cls._callback is not None:
            return
        import llama_cpp

        # ggml levels: 1 debug, 2 info, 3 warning, 4 error, 5 continues the previous line.
        levels = {1: logging.DEBUG, 2: logging.DEBUG, 3: logging.WARNING, 4: logging.ERROR}

        @llama_cpp.llama_log_callback
        def callback(level, text, user_data):  # noqa: ARG001 (ctypes signature)
            message = text.decode("utf-8", "replace")
            if cls._lines is not None:
                cls._lines.append(message)
            if level in levels and message.strip():
                llama_log.log(levels[level], message.rstrip())

        cls._callback = callback  # ctypes needs the object kept alive
        llama_cpp.llama_log_set(callback, ctypes.c_void_p(0))

    @classmethod
    def capture(cls):
        cls.install()
        return _Capture(cls)


class _Capture:
    def __init__(self, owner):
        self.owner = owner
        self.lines: list[str] = []

    def __enter__(self):
        self.owner._lock.acquire()
        self.owner._lines = self.lines
        return self

    def __exit__(self, *exc):
        self.owner._lines = None
        self.owner._lock.release()


def gpu_offload_supported() -> bool:
    import llama_cpp

    return bool(llama_cpp.llama_supports_gpu_offload())


def resolve_gpu_layers(setting: str | int | None) -> tuple[int, str | None]:
    """Layers to offload for a setting ("auto", -1 for all, or a count), and a
    notice when the request cannot be met by this build."""
    supported = gpu_offload_supported()
    if setting in (None, GPU_AUTO):
        return (-1 if supported else 0), None
    layers = int(setting)
    if layers != 0 and not supported:
        return 0, "this llama.cpp build has no GPU support; rebuild it for your GPU (see README)"
    return layers, None


def device_from_log(lines: Sequence[str], gpu_available: bool) -> DeviceInfo:
    """Where the layers went, from llama.cpp's load log ("layer 3 assigned to
    device CUDA0", "using device CUDA0 (NVIDIA H200)", "offloaded 31/31 layers")."""
    text = "".join(lines)
    names = dict(re.findall(r"using device (\S+) \(([^)]*)\)", text))
    assigned = re.findall(r"layer\s+\d+ assigned to device (\S+?),", text)
    offloaded = re.search(r"offloaded (\d+)/(\d+) layers to GPU", text)
    gpu_layers = sum(1 for device in assigned if device not in ("CPU",))
    total = len(assigned) or None
    if offloaded:
        gpu_layers, total = int(offloaded.group(1)), int(offloaded.group(2))
    gpu_devices = sorted({device for device in assigned if device != "CPU"})
    if gpu_layers and gpu_devices:
        device = ", ".join(f"{d} ({names[d]})" if d in names else d for d in gpu_devices)
    elif gpu_layers and names:
        device = ", ".join(f"{d} ({n})" for d, n in names.items())
    else:
        device = "CPU"
    return DeviceInfo(backend="llama.cpp", device=device, gpu_layers=gpu_layers, total_layers=total,
                      gpu_available=gpu_available)


class LlamaGenerator(Generator):
    def __init__(
        self,
        model_path: str | Path,
        *,
        model_id: str | None = None,
        context_size: int | None = None,
        gpu_layers: str | int | None = GPU_AUTO,
        threads: int | None = None,
        batch_size: int = 512,
        seed: int = 0,
    ):
        import llama_cpp

        path = Path(model_path).expanduser()
        size = check_gguf(path)
        layers, notice = resolve_gpu_layers(gpu_layers)
        if layers == 0:
            _check_memory(path, size)
        self.model_id = model_id or path.stem
        self.path = path
        self.facts = model_facts(path)
        self.train_context = int(self.facts.get("context_length") or DEFAULT_CONTEXT)
        # A model's own maximum can be 128k tokens, whose cache would not fit a
        # laptop; default to 8k unless asked.
        context = context_size or min(DEFAULT_CONTEXT, self.train_context)
        arguments = dict(
            model_path=str(path), n_ctx=context, n_batch=batch_size, n_threads=threads,
            n_threads_batch=threads, seed=seed, verbose=False, logits_all=False,
        )
        self._llm, lines, fallback = _load(llama_cpp, arguments, layers)
        if fallback:
            notice = fallback
            log.warning("%s: %s", path.name, fallback)
        self.device = device_from_log(lines, gpu_offload_supported())
        self.device.notice = notice
        self.context_size = self._llm.n_ctx()
        self.parameters = int(self._llm._model.n_params())
        log.info("loaded %s on %s, context %d tokens", path.name, self.device.describe(), self.context_size)

        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        model = self._llm._model
        eos = self._llm.token_eos()
        bos = self._llm.token_bos()
        template = self._llm.metadata.get("tokenizer.chat_template") or _CHATML
        self._formatter = Jinja2ChatFormatter(
            template=template,
            eos_token=model.token_get_text(eos) if eos != -1 else "",
            bos_token=model.token_get_text(bos) if bos != -1 else "",
        )
        self._vocab = model.vocab
        self._lock = threading.Lock()
        # Calls waiting for the lock: a prefill gives way to them at once.
        self._waiting = 0
        self._waiting_lock = threading.Lock()
        self._grammars: dict[str, object] = {}
        self._chunk = _MIN_CHUNK * 4
        self._batch_size = batch_size

    # ------------------------------------------------------------ tokens

    def count_tokens(self, text: str) -> int:
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def prompt_tokens(self, messages: Sequence[ChatMessage]) -> list[int]:
        prompt = self._formatter(messages=[m.as_dict() for m in messages]).prompt
        # The template writes the special tokens (BOS, <|im_start|>) itself.
        return self._llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)

    def count_prompt_tokens(self, messages: Sequence[ChatMessage]) -> int:
        return len(self.prompt_tokens(messages))

    def _shorten(self, text: str, tokens: int, from_end: bool) -> str:
        ids = self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        keep = ids[: max(0, len(ids) - tokens)] if from_end else ids[min(len(ids), tokens):]
        kept = self._llm.detokenize(keep).decode("utf-8", "ignore")
        return kept + _ELLIPSIS if from_end else _ELLIPSIS + kept

    # ------------------------------------------------------------ generation

    def _stream(self, messages: list[ChatMessage], options: GenerationOptions, cancel: CancelToken,
                stream: GenerationStream, truncated: int) -> Iterator[str]:
        with self._waiting_lock:
            self._waiting += 1
        try:
            self._lock.acquire()
        finally:
            with self._waiting_lock:
                self._waiting -= 1
        try:
            yield from self._generate(messages, options, cancel, stream, truncated)
        finally:
            self._lock.release()

    def prefill(self, messages: Sequence[ChatMessage], cancel: CancelToken | None = None) -> int:
        # Never waits: a model busy with an answer is left to it (a worker
        # waiting here would be one fewer for the window's other jobs).
        if not self._lock.acquire(blocking=False):
            return 0
        try:
            prompt = self.prompt_tokens(messages)
            # Cancelled, or a start too long to leave room for the rest of a
            # prompt (it would be cut to fit, and share nothing): kept as it is.
            if (cancel is not None and cancel.cancelled) or len(prompt) > self.context_size // 2:
                return self._shared_prefix(prompt, len(prompt))
            common = self._keep_shared_prefix(prompt, len(prompt))
            # A call waiting meanwhile takes over: it reads on from where this stopped.
            return self._read(prompt, common, len(prompt),
                              lambda: (cancel is not None and cancel.cancelled) or self._waiting > 0)
        finally:
            self._lock.release()

    def cached_prefix(self, messages: Sequence[ChatMessage]) -> int:
        """How many tokens of these messages' prompt the model holds read."""
        with self._lock:
            prompt = self.prompt_tokens(messages)
            return self._shared_prefix(prompt, len(prompt))

    def _shared_prefix(self, prompt: list[int], limit: int) -> int:
        cached = self._llm.input_ids[: self._llm.n_tokens]
        common = 0
        limit = min(len(cached), limit)
        while common < limit and cached[common] == prompt[common]:
            common += 1
        return common

    def _keep_shared_prefix(self, prompt: list[int], limit: int) -> int:
        """Keep the state of the longest prefix shared with the previous prompt
        (up to `limit` tokens); the rest of that state is dropped."""
        common = self._shared_prefix(prompt, limit)
        self._llm.n_tokens = common
        return common

    def _read(self, prompt: list[int], position: int, end: int, stop, on_read=None) -> int:
        """Evaluate prompt[position:end] in chunks, checking `stop()` between
        them; returns the position reached."""
        while position < end:
            if stop():
                break
            chunk = prompt[position: min(end, position + self._chunk)]
            chunk_started = time.perf_counter()
            self._llm.eval(chunk)
            self._tune_chunk(len(chunk), time.perf_counter() - chunk_started)
            position += len(chunk)
            if on_read is not None:
                on_read(position)
        return position

    def _generate(self, messages, options, cancel, stream, truncated) -> Iterator[str]:
        llm = self._llm
        started = time.perf_counter()
        prompt = self.prompt_tokens(messages)
        usage = Usage(prompt_tokens=len(prompt), truncated_tokens=truncated)
        timings = Timings()
        stream.result = Completion(text="", finish_reason="cancelled", usage=usage, timings=timings, model=self.model_id)

        common = self._keep_shared_prefix(prompt, len(prompt) - 1)
        usage.reused_prompt_tokens = common
        usage.processed_prompt_tokens = len(prompt) - common

        to_read = len(prompt) - 1 - common  # the last token is read by generate()
        stream.reading(0, to_read)
        position = self._read(prompt, common, len(prompt) - 1, lambda: cancel.cancelled,
                              lambda at: stream.reading(at - common, to_read))
        if position < len(prompt) - 1:  # cancelled
            timings.prompt_seconds = time.perf_counter() - started
            usage.processed_prompt_tokens = position - common
            return

        grammar = self._grammar(options.json_schema)
        llm.set_seed(options.seed)
        produced: list[int] = []
        text = ""
        finish = "length"
        first = True
        generation_started = None
        stops = list(options.stop)
        for token in llm.generate(
            prompt, temp=options.temperature, top_k=options.top_k, top_p=options.top_p, min_p=0.0,
            repeat_penalty=options.repeat_penalty, grammar=grammar,
        ):
            if first:
                timings.prompt_seconds = time.perf_counter() - started
                generation_started = time.perf_counter()
                first = False
            if cancel.cancelled:
                finish = "cancelled"
                break
            if _is_end_of_generation(self._vocab, token):
                finish = "stop"
                break
            produced.append(token)
            decoded = llm.detokenize(produced).decode("utf-8", "ignore")
            cut = _stop_at(decoded, stops)
            if cut is not None:
                decoded, finish = decoded[:cut], "stop"
            # Hold back a tail that may be the start of a stop string.
            safe = len(decoded) if finish == "stop" else len(decoded) - _partial_stop(decoded, stops)
            if safe > len(text):
                if timings.first_token_seconds is None:
                    timings.first_token_seconds = time.perf_counter() - started
                piece, text = decoded[len(text):safe], decoded[:safe]
                yield piece
            if finish == "stop" or len(produced) >= options.max_tokens:
                break
        else:
            finish = "stop"
        final = llm.detokenize(produced).decode("utf-8", "ignore")
        cut = _stop_at(final, stops)
        final = final[:cut] if cut is not None else final
        if final != text and finish != "cancelled" and final.startswith(text):
            yield final[len(text):]
            text = final
        if generation_started is not None:
            timings.generation_seconds = time.perf_counter() - generation_started
        usage.completion_tokens = len(produced)
        stream.result = Completion(text=text, finish_reason=finish, usage=usage, timings=timings, model=self.model_id)

    def _tune_chunk(self, tokens: int, seconds: float) -> None:
        if seconds <= 0:
            return
        rate = tokens / seconds
        self._chunk = int(min(self._batch_size, max(_MIN_CHUNK, rate * _TARGET_CHUNK_SECONDS)))

    def _grammar(self, schema: dict | None):
        if schema is None:
            return None
        from llama_cpp.llama_grammar import LlamaGrammar

        key = json.dumps(schema, sort_keys=True)
        if key not in self._grammars:
            try:
                self._grammars[key] = LlamaGrammar.from_json_schema(key, verbose=False)
            except Exception as error:  # the converter raises plain exceptions
                raise ModelError("json_schema", f"cannot turn this JSON schema into a grammar ({error})") from None
        return self._grammars[key]

    def close(self) -> None:
        llm, self._llm = getattr(self, "_llm", None), None
        if llm is not None:
            llm.close()


def _load(llama_cpp, arguments: dict, layers: int):
    """Load the model, capturing the log; if a GPU load fails, load on the CPU."""
    with _LoadLog.capture() as capture:
        try:
            return llama_cpp.Llama(n_gpu_layers=layers, **arguments), capture.lines, None
        except (ValueError, RuntimeError, OSError) as error:
            if layers == 0:
                raise ModelError(arguments["model_path"], _load_failure(capture.lines, error)) from None
            first_failure = _load_failure(capture.lines, error)
            capture.lines.clear()
            try:
                model = llama_cpp.Llama(n_gpu_layers=0, **arguments)
            except (ValueError, RuntimeError, OSError) as cpu_error:
                raise ModelError(arguments["model_path"], _load_failure(capture.lines, cpu_error)) from None
            return model, capture.lines, f"GPU load failed ({first_failure}); running on the CPU"


def _load_failure(lines: list[str], error: Exception) -> str:
    text = "".join(lines)
    for pattern, reason in (
        (r"data is not within the file bounds|file is truncated|unexpectedly reached end of file",
         "GGUF file is truncated (download it again)"),
        (r"unknown model architecture: '([^']+)'", "model architecture {0} is not supported by this llama.cpp; update llama-cpp-python"),
        (r"failed to allocate|out of memory|cudaMalloc failed", "not enough memory to load it; choose a smaller model or fewer GPU layers"),
        (r"invalid magic|not a gguf", "not a GGUF model file"),
    ):
        found = re.search(pattern, text, re.I)
        if found:
            return reason.format(*found.groups())
    detail = next((line.strip() for line in reversed(lines) if "error" in line.lower() or "failed" in line.lower()), "")
    return f"llama.cpp could not load it ({detail or error}); the file may be corrupt"


def _check_memory(path: Path, size: int) -> None:
    available = available_memory_bytes()
    # Weights plus the key/value cache and compute buffers of a modest context.
    needed = int(size * 1.1) + 256 * 1024 * 1024
    if available is not None and needed > available:
        raise ModelError(path, f"needs about {format_bytes(needed)} of memory but only {format_bytes(available)} "
                               "is free; choose a smaller model or close other programs")


def _is_end_of_generation(vocab, token: int) -> bool:
    import llama_cpp

    return bool(llama_cpp.llama_vocab_is_eog(vocab, token))


def _stop_at(text: str, stops: list[str]) -> int | None:
    positions = [text.find(stop) for stop in stops if stop and stop in text]
    return min(positions) if positions else None


def _partial_stop(text: str, stops: list[str]) -> int:
    """Length of the longest tail of `text` that begins some stop string."""
    longest = 0
    for stop in stops:
        for size in range(min(len(stop) - 1, len(text)), 0, -1):
            if stop.startswith(text[-size:]):
                longest = max(longest, size)
                break
    return longest
