"""The llama.cpp generator on the embedded default model (SmolLM2-135M), for real.
Prompts stay short: this CPU processes about 170 prompt tokens a second."""

from __future__ import annotations

import threading
import time

import pytest

from engine.llm import (
    TRUNCATE_LONGEST_END,
    TRUNCATE_LONGEST_START,
    CancelToken,
    ChatMessage,
    ContextLimitError,
    GenerationOptions,
    ModelSettings,
)
from engine.llm.loading import generator_spec
from engine.llm.llama import LlamaGenerator

QUESTION = [ChatMessage("system", "You are a helpful assistant."),
            ChatMessage("user", "What is the capital of France? Answer in one short sentence.")]
PASSAGE = (
    "Marley was dead: to begin with. There is no doubt whatever about that. The register of his burial was "
    "signed by the clergyman, the clerk, the undertaker, and the chief mourner. Scrooge signed it: and "
    "Scrooge's name was good upon 'Change, for anything he chose to put his hand to. Old Marley was as dead "
    "as a door-nail. Mind! I don't mean to say that I know, of my own knowledge, what there is particularly "
    "dead about a door-nail. "
)


@pytest.fixture(scope="module")
def default_model_path():
    return generator_spec(ModelSettings())["path"]


@pytest.fixture(scope="module")
def generator(default_model_path):
    model = LlamaGenerator(default_model_path, model_id="smollm2", threads=2)
    yield model
    model.close()


@pytest.fixture(scope="module")
def small_context(default_model_path):
    model = LlamaGenerator(default_model_path, model_id="smollm2-small", context_size=256, threads=2)
    yield model
    model.close()


def test_loads_the_embedded_default_and_says_where_it_runs(generator):
    assert generator.context_size == 8192  # the model's own context, capped at 8k
    assert generator.device.backend == "llama.cpp"
    assert generator.device.device == "CPU"
    assert generator.device.total_layers == 31  # 30 blocks and the output layer, all assigned
    assert "CPU" in generator.device.describe()
    assert generator.facts["architecture"] == "llama"


def test_chat_uses_the_models_template_and_is_deterministic(generator):
    prompt = generator.prompt_tokens(QUESTION)
    text = generator._llm.detokenize(prompt, special=True).decode()
    assert text.startswith("<|im_start|>system\nYou are a helpful assistant.<|im_end|>")
    assert text.endswith("<|im_start|>assistant\n")
    first = generator.complete(QUESTION, GenerationOptions(max_tokens=24, temperature=0, seed=7))
    second = generator.complete(QUESTION, GenerationOptions(max_tokens=24, temperature=0, seed=7))
    assert first.text == second.text
    assert "Paris" in first.text
    assert first.finish_reason == "stop"
    assert first.usage.prompt_tokens == len(prompt)
    assert 0 < first.usage.completion_tokens <= 24


def test_streaming_yields_the_text_piece_by_piece(generator):
    stream = generator.stream(QUESTION, GenerationOptions(max_tokens=24))
    pieces = list(stream)
    assert len(pieces) > 3
    assert "".join(pieces) == stream.result.text
    timings = stream.result.timings
    assert 0 < timings.first_token_seconds <= timings.total_seconds


def test_json_output_follows_the_schema(generator):
    schema = {
        "type": "object",
        "properties": {
            "scope": {"type": "string", "enum": ["LOCAL", "MID", "GLOBAL"]},
            "parts": {"type": "array", "items": {"type": "string", "maxLength": 40}, "minItems": 1, "maxItems": 2},
        },
        "required": ["scope", "parts"],
    }
    messages = [ChatMessage("user", "Plan a search for: where does Scrooge see Marley's face? Answer in JSON.")]
    result = generator.complete(messages, GenerationOptions(max_tokens=120, json_schema=schema))
    assert result.finish_reason == "stop"
    assert isinstance(result.data, dict)
    assert result.data["scope"] in ("LOCAL", "MID", "GLOBAL")
    assert 1 <= len(result.data["parts"]) <= 2 and all(len(p) <= 40 for p in result.data["parts"])


def test_max_tokens_stops_generation(generator):
    result = generator.complete([ChatMessage("user", "Write a long story about a ship.")], GenerationOptions(max_tokens=5))
    assert result.finish_reason == "length"
    assert result.usage.completion_tokens == 5


def test_counts_tokens(generator):
    assert generator.count_tokens("") == 0
    assert generator.count_tokens("Hello") == 1
    assert generator.count_tokens(PASSAGE) > generator.count_tokens(PASSAGE[:100])
    assert generator.count_prompt_tokens(QUESTION) == len(generator.prompt_tokens(QUESTION))


def test_a_shared_prefix_is_not_processed_again(generator):
    prefix = ChatMessage("system", "Answer from this passage only.\n\n" + PASSAGE * 2)
    one = [prefix, ChatMessage("user", "Who signed the register?")]
    two = [prefix, ChatMessage("user", "What was Marley as dead as?")]
    first_reading, second_reading = [], []
    first = generator.stream(one, GenerationOptions(max_tokens=8),
                             on_reading=lambda *report: first_reading.append(report)).finish()
    second = generator.stream(two, GenerationOptions(max_tokens=8),
                              on_reading=lambda *report: second_reading.append(report)).finish()
    shared = 0
    for a, b in zip(generator.prompt_tokens(one), generator.prompt_tokens(two)):
        if a != b:
            break
        shared += 1
    assert first.usage.prompt_tokens > 200 and shared > 200
    assert second.usage.reused_prompt_tokens == shared
    assert second.usage.processed_prompt_tokens == second.usage.prompt_tokens - shared < 20
    # The prompt pass is reported as it goes, over the tokens actually read
    # (the last one is read with the first generated token), with the time left.
    for reading, completion in ((first_reading, first), (second_reading, second)):
        total = completion.usage.processed_prompt_tokens - 1
        assert reading[0] == (0, total, None)
        assert reading[-1][:2] == (total, total) and reading[-1][2] == 0
        done = [report[0] for report in reading]
        assert done == sorted(set(done))
        assert all(left is not None and left >= 0 for _, _, left in reading[1:])
    assert len(first_reading) >= 3


def test_a_prefilled_start_is_not_read_again_and_a_waiting_call_takes_over(generator):
    rules = ChatMessage("system", "Answer from this ledger only.\n\n" + PASSAGE * 3)
    question = [rules, ChatMessage("user", "Who signed the register?")]
    held = generator.prefill([rules])
    assert held > 250 and generator.cached_prefix([rules]) == held
    shared = generator.cached_prefix(question)
    assert shared >= held - 5  # all but the reply's opening tokens of the rules-only prompt
    answer = generator.stream(question, GenerationOptions(max_tokens=4)).finish()
    assert answer.usage.reused_prompt_tokens == shared
    assert answer.usage.processed_prompt_tokens == answer.usage.prompt_tokens - shared < 20
    # A question asked while the start is still being read does not wait for
    # all of it: the reading stops, and the answer reads on from there.
    longer = ChatMessage("system", "Answer from these pages only.\n\n" + PASSAGE * 12)
    reached: list[int] = []
    reading = threading.Thread(target=lambda: reached.append(generator.prefill([longer])))
    reading.start()
    time.sleep(0.3)
    asked = generator.stream([longer, ChatMessage("user", "Who signed it?")], GenerationOptions(max_tokens=2)).finish()
    reading.join()
    assert 0 < reached[0] < generator.count_prompt_tokens([longer]) - 100
    assert asked.usage.reused_prompt_tokens == reached[0]
    # A model busy with an answer is not waited for.
    busy = generator.stream([rules, ChatMessage("user", "Tell me about Marley.")], GenerationOptions(max_tokens=32))
    next(iter(busy))  # mid-answer: the model is taken
    attempt: list[int] = []
    trying = threading.Thread(target=lambda: attempt.append(
        generator.prefill([ChatMessage("system", "Another book. " + PASSAGE)])))
    try:
        trying.start()
        trying.join(1.0)
        assert attempt == [0]  # back at once, nothing read
    finally:
        busy.finish()
        trying.join()
    # A cancelled prefill reads nothing, and keeps what the model held read.
    held = generator.cached_prefix([rules])
    cancelled = CancelToken()
    cancelled.cancel()
    assert generator.prefill([ChatMessage("system", "Another book. " + PASSAGE)], cancelled) < 10
    assert generator.cached_prefix([rules]) == held > 250


def test_a_start_too_long_for_the_context_is_not_read_ahead(small_context):
    # 256 tokens of context: the prompt this starts would be cut to fit, and share nothing.
    rules = [ChatMessage("system", "Answer from this ledger only.\n\n" + PASSAGE * 2)]
    assert small_context.count_prompt_tokens(rules) > small_context.context_size // 2
    assert small_context.prefill(rules) < 10


def test_cancel_between_tokens(generator):
    cancel = CancelToken()
    stream = generator.stream([ChatMessage("user", "Write a long story about a ship and its crew.")],
                              GenerationOptions(max_tokens=400), cancel)
    pieces = []
    for piece in stream:
        pieces.append(piece)
        if len(pieces) == 3:
            cancel.cancel()
    assert stream.result.finish_reason == "cancelled"
    assert stream.result.usage.completion_tokens <= 4
    # The model is still usable afterwards.
    assert "Paris" in generator.complete(QUESTION, GenerationOptions(max_tokens=16)).text


def test_cancel_during_a_long_prompt_returns_within_a_second(generator):
    long_prompt = [ChatMessage("user", PASSAGE * 14 + "\nSummarize.")]  # about 1,500 tokens, ~9 s to process here
    cancel = CancelToken()
    timer = threading.Timer(0.5, cancel.cancel)
    started = time.perf_counter()
    timer.start()
    result = generator.complete(long_prompt, GenerationOptions(max_tokens=50), cancel)
    elapsed = time.perf_counter() - started
    assert result.finish_reason == "cancelled"
    assert result.text == ""
    assert elapsed < 0.5 + 1.0
    assert result.usage.prompt_tokens > 1200
    assert 0 < result.usage.processed_prompt_tokens < result.usage.prompt_tokens


def test_a_stream_closed_early_frees_the_model(generator):
    with generator.stream(QUESTION, GenerationOptions(max_tokens=40)) as stream:
        next(iter(stream))
    # The next call does not wait for the abandoned one.
    assert "Paris" in generator.complete(QUESTION, GenerationOptions(max_tokens=16)).text


def test_prompt_too_long_is_refused_by_default(small_context):
    with pytest.raises(ContextLimitError, match=r"does not fit the 256-token context"):
        small_context.complete([ChatMessage("user", PASSAGE * 4)], GenerationOptions(max_tokens=32))


@pytest.mark.parametrize("policy", [TRUNCATE_LONGEST_END, TRUNCATE_LONGEST_START])
def test_truncation_policy_cuts_the_longest_message(small_context, policy):
    messages = [ChatMessage("system", "Be brief."), ChatMessage("user", PASSAGE * 4)]
    stream = small_context.stream(messages, GenerationOptions(max_tokens=32, truncation=policy))
    list(stream)
    result = stream.result
    assert result.usage.truncated_tokens > 0
    assert result.usage.prompt_tokens + 32 <= 256
    assert result.finish_reason in ("stop", "length")


def test_generation_is_capped_by_the_room_left(small_context):
    messages = [ChatMessage("user", PASSAGE + "Now write a long story about Marley.")]
    prompt = small_context.count_prompt_tokens(messages)
    assert 100 < prompt < 240
    result = small_context.complete(messages, GenerationOptions(max_tokens=500, temperature=0.8, seed=3))
    assert result.usage.prompt_tokens + result.usage.completion_tokens <= 256
