#!/usr/bin/env python3
"""Speed of the model interfaces on the active (default: embedded) models.

    python tests/benchmarks/model_speed.py [--threads N] [--tokens N] [--repeat N]

Prints, on one prompt: prompt-processing and generation tokens/s through the
engine's generator and through raw llama_cpp.Llama (the interface's overhead
should stay under 5%); the prompt tokens processed by two calls sharing a
2,000-token prefix (the second should process only its new tokens); and the
embedder's throughput in passages/s for 400-token passages.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def book_text() -> str:
    from engine.importer import parse_book
    from engine.paths import sample_book_path

    return parse_book(sample_book_path()).text


def bench_generation(path: Path, threads: int, tokens: int, repeat: int) -> None:
    import llama_cpp

    from engine.llm import ChatMessage, GenerationOptions
    from engine.llm.llama import LlamaGenerator

    text = book_text()
    messages = [ChatMessage("system", "You are a careful reader."),
                ChatMessage("user", text[40000:41500] + "\n\nRetell this passage at length.")]
    engine = LlamaGenerator(path, context_size=4096, threads=threads, gpu_layers=0)
    prompt = engine.prompt_tokens(messages)
    raw = llama_cpp.Llama(str(path), n_ctx=4096, n_threads=threads, n_threads_batch=threads, n_gpu_layers=0,
                          verbose=False)

    def raw_run() -> tuple[float, float, int]:
        raw.reset()
        started = time.perf_counter()
        raw.eval(prompt[:-1])
        produced = 0
        generation_started = None
        for token in raw.generate(prompt, temp=0.0, top_k=40, top_p=0.95, min_p=0.0, repeat_penalty=1.0):
            if generation_started is None:
                prompt_seconds = time.perf_counter() - started
                generation_started = time.perf_counter()
            if llama_cpp.llama_vocab_is_eog(raw._model.vocab, token):
                break
            produced += 1
            raw.detokenize([token])
            if produced >= tokens:
                break
        return len(prompt) / prompt_seconds, produced / (time.perf_counter() - generation_started), produced

    def engine_run() -> tuple[float, float, int]:
        engine._llm.reset()  # no cached prefix: process the whole prompt, like the raw run
        result = engine.complete(messages, GenerationOptions(max_tokens=tokens))
        usage, timings = result.usage, result.timings
        return (usage.processed_prompt_tokens / timings.prompt_seconds,
                usage.completion_tokens / timings.generation_seconds, usage.completion_tokens)

    raw_runs = [raw_run() for _ in range(repeat)]
    engine_runs = [engine_run() for _ in range(repeat)]
    raw_pp, raw_tg = max(r[0] for r in raw_runs), max(r[1] for r in raw_runs)
    eng_pp, eng_tg = max(r[0] for r in engine_runs), max(r[1] for r in engine_runs)
    print(f"prompt: {len(prompt)} tokens; generated {engine_runs[0][2]} (engine) and {raw_runs[0][2]} (raw) tokens; "
          f"best of {repeat}")
    print(f"  raw llama_cpp.Llama   prompt {raw_pp:7.1f} tok/s   generation {raw_tg:6.1f} tok/s")
    print(f"  engine generator      prompt {eng_pp:7.1f} tok/s   generation {eng_tg:6.1f} tok/s")
    print(f"  interface overhead    prompt {100 * (1 - eng_pp / raw_pp):+6.1f} %      "
          f"generation {100 * (1 - eng_tg / raw_tg):+6.1f} %   (goal: under 5 %)")

    # Prefix reuse: two questions on one 2,000-token passage.
    words = text[2000:].split()
    passage = " ".join(words[:1500])
    while engine.count_tokens(passage) < 2000:
        words = words[1500:] + words[:1500]
        passage += " " + " ".join(words[:200])
    shared = ChatMessage("system", "Answer from this passage.\n\n" + passage)
    engine._llm.reset()
    first = engine.complete([shared, ChatMessage("user", "Who is Marley?")], GenerationOptions(max_tokens=8))
    second = engine.complete([shared, ChatMessage("user", "What does Scrooge sign?")], GenerationOptions(max_tokens=8))
    print(f"prefix reuse on a {engine.count_tokens(shared.content)}-token shared passage:")
    print(f"  first call:  {first.usage.prompt_tokens} prompt tokens, processed {first.usage.processed_prompt_tokens} "
          f"in {first.timings.prompt_seconds:.2f} s")
    print(f"  second call: {second.usage.prompt_tokens} prompt tokens, reused {second.usage.reused_prompt_tokens}, "
          f"processed {second.usage.processed_prompt_tokens} in {second.timings.prompt_seconds:.2f} s")
    engine.close()
    raw.close()


def bench_embedding(threads: int) -> None:
    from engine.llm import ModelSettings, open_embedder

    settings = ModelSettings(threads=threads)
    embedder = open_embedder(settings)
    words = book_text().split()
    passages, position = [], 0
    while len(passages) < 64:
        chunk = " ".join(words[position:position + 300])
        while embedder.count_tokens(chunk) < 400:
            chunk += " " + " ".join(words[position + 300:position + 340])
            position += 40
        passages.append(chunk)
        position += 300
    embedder.embed(passages[:4])  # warm the session
    started = time.perf_counter()
    embedder.embed(passages)
    seconds = time.perf_counter() - started
    print(f"embedder {embedder.model_id}: {len(passages)} passages of ~400 tokens (cut at {embedder.max_tokens}) "
          f"in {seconds:.2f} s = {len(passages) / seconds:.1f} passages/s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from engine.llm import ModelSettings
    from engine.llm.loading import generator_spec

    spec = generator_spec(ModelSettings.load())
    if spec["backend"] != "llama.cpp":
        print("the active generator is remote; this benchmark measures a local GGUF model")
        return 2
    print(f"generator: {spec['path'].name}, {args.threads} threads")
    bench_generation(spec["path"], args.threads, args.tokens, args.repeat)
    bench_embedding(args.threads)
    return 0


if __name__ == "__main__":
    sys.exit(main())
