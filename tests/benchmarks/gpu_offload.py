#!/usr/bin/env python3
"""Where the generator runs, and how much the GPU buys an answer.

    python tests/benchmarks/gpu_offload.py [--prompt-tokens N] [--tokens N]

Loads the active GGUF generator twice through the engine: with every layer
on the CPU (GPU layers 0), then with the setting "auto" (every layer on the
GPU when llama.cpp was built for one). For each it prints the device
llama.cpp reports, the load time, the time to the first token and prompt
tokens/s on a prompt of about N tokens of the sample book (2,900 by default:
the size of an answer's prompt with 12 passages), and generated tokens/s;
then the GPU/CPU ratios. On a build without GPU support the second load says
so and stays on the CPU.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def answer_sized_prompt(generator, tokens: int) -> list:
    """Book text of about `tokens` tokens and a question, as an answer's prompt."""
    from engine.llm import ChatMessage
    from engine.paths import sample_book_path

    words = sample_book_path().read_text(encoding="utf-8").split()
    start, take = 2000, tokens * 3 // 4
    while generator.count_tokens(" ".join(words[start:start + take])) < tokens and start + take < len(words):
        take += 50
    return [ChatMessage("system", "You are a careful reader. Answer from the passages, citing them."),
            ChatMessage("user", " ".join(words[start:start + take])
                        + "\n\nWhat does Scrooge learn in this part of the book? Answer in about 120 words.")]


def measure(path: Path, layers, prompt_tokens: int, tokens: int) -> dict:
    from engine.llm import ChatMessage, GenerationOptions
    from engine.llm.llama import LlamaGenerator

    started = time.perf_counter()
    model = LlamaGenerator(path, context_size=8192, gpu_layers=layers)
    loaded = time.perf_counter() - started
    try:
        messages = answer_sized_prompt(model, prompt_tokens)
        # A first call pays one-off costs (GPU kernels loaded, buffers made); then start clean.
        model.complete([ChatMessage("user", "Say hello.")], GenerationOptions(max_tokens=4))
        model._llm.reset()
        result = model.complete(messages, GenerationOptions(max_tokens=tokens))
        usage, timings = result.usage, result.timings
        return {"device": model.device.describe(), "load": loaded, "prompt": usage.processed_prompt_tokens,
                "first_token": timings.first_token_seconds,
                "prompt_rate": usage.processed_prompt_tokens / timings.prompt_seconds,
                "generated": usage.completion_tokens,
                "generation_rate": usage.completion_tokens / max(timings.generation_seconds, 1e-9)}
    finally:
        model.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--prompt-tokens", type=int, default=2900)
    parser.add_argument("--tokens", type=int, default=128)
    args = parser.parse_args()

    from engine.llm import ModelSettings
    from engine.llm.llama import gpu_offload_supported
    from engine.llm.loading import generator_spec

    spec = generator_spec(ModelSettings.load())
    if spec["backend"] != "llama.cpp":
        print("the active generator is remote; this benchmark measures a local GGUF model")
        return 2
    print(f"generator: {spec['path'].name}; llama.cpp GPU offload in this build: {gpu_offload_supported()}")
    runs = {}
    for name, layers in (("cpu", 0), ("auto", "auto")):
        run = runs[name] = measure(spec["path"], layers, args.prompt_tokens, args.tokens)
        print(f"  gpu layers {str(layers):4s}  {run['device']}: loaded in {run['load']:.2f} s; "
              f"{run['prompt']} prompt tokens, first token after {run['first_token']:.2f} s "
              f"({run['prompt_rate']:.0f} tok/s); {run['generated']} generated at {run['generation_rate']:.0f} tok/s")
    cpu, auto = runs["cpu"], runs["auto"]
    print(f"speed-up of auto over the CPU: time to first token x{cpu['first_token'] / auto['first_token']:.1f}, "
          f"generation x{auto['generation_rate'] / cpu['generation_rate']:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
