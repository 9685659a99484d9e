#!/usr/bin/env python3
"""Building the whole ladder for one book, stage by stage, with the active
(default: embedded) models.

    python tests/benchmarks/ladder_speed.py [BOOK] [--stages 4] [--threads 2]

Prints per stage: wall time, prompt tokens (sent and actually processed) and
generated tokens; the book's tokens; the ratio of each LLM stage's time to
the time raw llama.cpp takes for the same token counts at the throughput
measured in this run; stage 1 against raw ONNX Runtime embedding the same
passage windows; how soon the book could be searched by its words (the
share of stage 1 a question waits); and the peak memory of the process. Goals: processed prompt
tokens for the whole ladder at most 1.5x the book's tokens, the LLM ratio at
most 1.2, stage 1 within 1.3x of raw ONNX Runtime, peak memory under 1.5 GB.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


_RAW_PROBE = r"""
import json, sys, time
import llama_cpp
from engine.importer import parse_book
from engine.paths import sample_book_path
path, threads, prompt_tokens, generate = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
llm = llama_cpp.Llama(path, n_ctx=prompt_tokens + generate + 64, n_threads=threads, n_threads_batch=threads,
                      n_gpu_layers=0, verbose=False)
text = parse_book(sample_book_path()).text
tokens = llm.tokenize(text[5000:].encode(), add_bos=True)[:prompt_tokens]
started = time.perf_counter()
llm.eval(tokens)
prompt_rate = len(tokens) / (time.perf_counter() - started)
produced = 0
started = time.perf_counter()
for token in llm.generate(tokens, temp=0.0):
    produced += 1
    if produced >= generate:
        break
print(json.dumps([prompt_rate, produced / (time.perf_counter() - started)]))
"""


def raw_llama_rates(path: Path, threads: int, prompt_tokens: int, generate: int = 64) -> tuple[float, float]:
    """Prompt and generation tokens/s of plain llama_cpp.Llama at a context as
    deep as the ladder's prompts, in a process of its own (so its memory is
    not counted against the indexer's)."""
    import json
    import subprocess

    output = subprocess.run([sys.executable, "-c", _RAW_PROBE, str(path), str(threads), str(prompt_tokens),
                             str(generate)], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    prompt_rate, generation_rate = json.loads(output.strip().splitlines()[-1])
    return prompt_rate, generation_rate


def raw_onnx_seconds(embedder, texts: list[str]) -> float:
    """Time plain ONNX Runtime takes to embed the same windows, in the same batches."""
    import numpy as np

    from engine.index.vectors import windows_of

    pieces = [piece for text in texts
              for piece in windows_of(text, embedder.count_tokens(text), embedder.max_tokens, embedder.count_tokens)]
    tokenizer, session = embedder._tokenizer, embedder._session
    inputs = {node.name for node in session.get_inputs()}
    started = time.perf_counter()
    for start in range(0, len(pieces), embedder.batch_size):
        encodings = tokenizer.encode_batch(pieces[start:start + embedder.batch_size])
        feed = {"input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64)}
        if "token_type_ids" in inputs:
            feed["token_type_ids"] = np.array([e.type_ids for e in encodings], dtype=np.int64)
        session.run(None, feed)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("book", nargs="?", help="a book file (default: the bundled A Christmas Carol)")
    parser.add_argument("--stages", type=int, default=4, choices=[1, 2, 3, 4])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--situating", choices=["auto", "on", "off"], default="auto",
                        help="situating sentences in stage 2 (auto: only with generators of 1B parameters or more)")
    args = parser.parse_args()

    from engine.index.indexer import BookIndexer
    from engine.llm import ModelSettings, open_embedder, open_generator
    from engine.llm.loading import generator_spec
    from engine.paths import sample_book_path
    from engine.store import Library

    book_path = Path(args.book) if args.book else sample_book_path()
    settings = ModelSettings.load()
    settings.threads = args.threads
    with tempfile.TemporaryDirectory() as home:
        library = Library(Path(home))
        book_id = library.import_book(book_path).book_id
        embedder = open_embedder(settings)
        generator = open_generator(settings) if args.stages >= 2 else None
        indexer = BookIndexer(library, book_id, settings=settings, generator=generator, embedder=embedder,
                              situating=args.situating)
        book = indexer.book
        print(f"book: {book.title} ({len(book.text):,} characters, {len(book.sections)} sections)")
        started = time.perf_counter()
        searchable_after = []

        def note_searchable(progress):
            if progress.searchable and not searchable_after:
                searchable_after.append(time.perf_counter() - started)

        result = indexer.run(up_to=args.stages, progress=note_searchable)
        total = time.perf_counter() - started
        stats = result.stats

        passages = [node.text for node in indexer.store.nodes(kind="passage")]
        onnx = raw_onnx_seconds(embedder, passages)
        stage1 = stats[1]["seconds"]
        print(f"stage 1  passages, BM25, vectors   {stage1:8.1f} s   {len(passages)} passages; "
              f"raw ONNX Runtime on the same windows {onnx:.1f} s: ratio {stage1 / onnx:.2f} (goal <= 1.3)")
        print(f"searchable by its words after {searchable_after[0]:.1f} s: {searchable_after[0] / stage1:.0%} of "
              f"stage 1 (a question need not wait for the vectors)")
        if args.stages >= 2:
            book_tokens = sum(generator.count_tokens(book.text[s.body_start:s.end]) for s in book.sections)
            spec = generator_spec(settings)
            # The ladder's prompts are section parts: measure raw llama.cpp at that depth.
            passage_tokens = [generator.count_tokens(text) for text in passages]
            depth = min(generator.context_size - 600, sum(passage_tokens) // max(1, stats[2].get("parts", 1))
                        if isinstance(stats[2].get("parts"), int) else 12 * (sum(passage_tokens) // len(passage_tokens)))
            prompt_rate, generation_rate = raw_llama_rates(spec["path"], args.threads, depth)
            print(f"book tokens (generator's tokenizer): {book_tokens:,}; raw llama.cpp here at a {depth}-token "
                  f"context: {prompt_rate:.0f} prompt tok/s, {generation_rate:.0f} generated tok/s")
            processed_total = 0
            llm_seconds = raw_seconds = 0.0
            names = {2: "section summaries (+ situating)", 3: "summary tiers", 4: "cards"}
            for stage in range(2, args.stages + 1):
                s = stats[stage]
                processed_total += s["processed_prompt_tokens"]
                raw = s["processed_prompt_tokens"] / prompt_rate + s["generated_tokens"] / generation_rate
                llm_seconds += s["seconds"]
                raw_seconds += raw
                print(f"stage {stage}  {names[stage]:26s} {s['seconds']:8.1f} s   prompt {s['prompt_tokens']:7,} sent, "
                      f"{s['processed_prompt_tokens']:7,} processed; {s['generated_tokens']:6,} generated; "
                      f"raw llama.cpp {raw:6.1f} s: ratio {s['seconds'] / raw if raw else 0:.2f}")
                if stage == 2:
                    print(f"         situating sentences written {s['situating_written']}, rejected "
                          f"{s['situating_rejected']} {s['reasons']}; summaries {s['summaries_written']}, "
                          f"fallbacks {s['summary_fallbacks']}")
            print(f"whole ladder: processed prompt tokens {processed_total:,} = "
                  f"{processed_total / book_tokens:.2f} x the book (goal <= 1.5); LLM stages {llm_seconds:.1f} s vs raw "
                  f"{raw_seconds:.1f} s: ratio {llm_seconds / raw_seconds:.2f} (goal <= 1.2)")
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        peak_bytes = peak if sys.platform == "darwin" else peak * 1024
        print(f"total {total:.1f} s; peak memory {peak_bytes / 2**30:.2f} GB (goal < 1.5 GB)")
        indexer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
