"""The whole ladder with the embedded default models, for real, on a short
book (three chapters, about 1,650 words): situating sentences (asked for:
"auto" skips them with the 135M default), summaries, tiers and cards;
resuming after SIGKILL; cancelling; model and setting changes."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from engine.index.indexer import BookIndexer, IndexingError
from engine.llm import CancelToken, ModelSettings, open_embedder, open_generator
from engine.llm.llama import LlamaGenerator
from engine.llm.loading import generator_spec
from engine.store import Library

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def models():
    return open_generator(ModelSettings()), open_embedder(ModelSettings())


@pytest.fixture(scope="module")
def full(tmp_path_factory, models):
    """One complete run, shared by the tests that only read its result."""
    home = tmp_path_factory.mktemp("ladder-home")
    library = Library(home)
    book_id = library.import_book(ROOT / "tests" / "fixtures" / "three-chapters.txt").book_id
    generator, embedder = models
    indexer = BookIndexer(library, book_id, generator=generator, embedder=embedder, situating="on")
    events = []
    result = indexer.run(up_to=4, progress=events.append)
    return indexer, result, events


def test_every_rung_is_built(full):
    indexer, result, _ = full
    assert result.completed_stage == 4 and not result.cancelled
    status = indexer.status()
    assert status["stage_reached"] == 4
    counts = status["counts"]
    assert counts["passage"] == 6 and counts["section-summary"] == 3 and counts["book-summary"] == 1
    assert counts["card"] == 5
    passages = indexer.store.nodes(kind="passage")
    situated = [passage for passage in passages if passage.context]
    for passage in situated:
        assert len(passage.context.split()) <= 40
        assert not re.search(r"\b(chapter|stave)\s+([2-9]|[IVX]{2,})\b", passage.context, re.I) or \
            str(passage.section) in passage.context
    # Sentence vectors are read again with the situating sentence before the
    # passage, and their spans stay the book's own.
    stored = indexer.store.sentences(situated)
    assert set(stored) == {passage.id for passage in situated}
    for passage in situated:
        spans, _ = stored[passage.id]
        assert spans[0][0] >= passage.start and spans[-1][1] <= passage.end
        assert indexer.book.text[spans[0][0]:spans[0][1]] in passage.text
    stage2 = result.stats[2]
    assert stage2["situating_written"] + stage2["situating_rejected"] == 6
    # A rejected sentence leaves its passage as it was: nothing made up is indexed.
    assert len(situated) == stage2["situating_written"] >= 1
    for summary in indexer.store.nodes(kind="section-summary"):
        assert 8 <= len(summary.text.split()) <= 90
    cards = {node.id: node for node in indexer.store.nodes(kind="card")}
    assert set(cards) == {"card:structure", "card:characters", "card:terms", "card:chronology", "card:themes"}
    structure = cards["card:structure"].data
    assert [line["label"] for line in structure["sections"]] == ["Chapter 1", "Chapter 2", "Chapter 3"]
    assert all(card.text for card in cards.values())
    for entry in cards["card:characters"].data["characters"]:
        assert entry["name"] in indexer.book.text
        assert all(alias in indexer.book.text for alias in entry["also_called"])


def test_the_manifest_records_what_built_each_stage(full):
    indexer, _, _ = full
    manifest = indexer.store.manifest()
    assert manifest["format_version"] == 1
    assert manifest["chunking"]["passage_tokens"] == 400 and manifest["chunking"]["segmenter"] == "fixed"
    assert manifest["stage1"]["embedder"]["checksum"].startswith("sha256:8199be6f")
    assert manifest["stage4"]["generator"]["model"] == "smollm2-135m-instruct-q4_1"
    assert manifest["stage4"]["generator"]["checksum"].startswith("sha256:b179c952")


def test_each_section_is_read_about_once(full, models):
    indexer, result, _ = full
    generator = models[0]
    book_tokens = sum(generator.count_tokens(indexer.book.text[s.body_start:s.end]) for s in indexer.book.sections)
    # The fixed cost of tiers and cards is large beside a 2,000-token book; the
    # whole-ladder figure on a real book is in tests/benchmarks/ladder_speed.py.
    processed = result.stats[2]["processed_prompt_tokens"]
    assert processed <= 1.5 * book_tokens, (processed, book_tokens)
    # Without the shared prefix every question would re-read its section.
    assert result.stats[2]["prompt_tokens"] > 2 * result.stats[2]["processed_prompt_tokens"]


def test_progress_reports_stage_counts_and_time_left(full):
    _, _, events = full
    assert {event.stage for event in events} == {1, 2, 3, 4}
    stage2 = [event for event in events if event.stage == 2]
    assert [event.detail for event in stage2[:3]] == ["Chapter 1", "Chapter 2", "Chapter 3"]
    assert stage2[0].eta_seconds is None and stage2[1].eta_seconds > 0
    assert stage2[-1].done == stage2[-1].total


def test_search_reaches_every_level(full):
    indexer, _, _ = full
    search = indexer.search()
    summaries = search.search("the hunt and the hare", levels=[2], k=3)
    assert summaries and all(hit.node.level == 2 for hit in summaries)
    cards = search.search("characters", levels=[3], k=2)
    assert cards and cards[0].node.kind == "card"
    passages = search.search("a bit and bridle", levels=[1], k=2)
    assert passages[0].node.section == 3
    # The situating sentence is searchable with its passage.
    situated = next(node for node in indexer.store.nodes(kind="passage") if node.context)
    words = " ".join(situated.context.split()[:6])
    assert situated.id in [hit.node.id for hit in search.search(words, levels=[1], k=6)]
    # Levels searched together take turns by rank: each level has its own
    # BM25 statistics, so their raw scores do not compare.
    each = {level: [node_id for node_id, _ in search.bm25("horse", levels=[level], k=2)] for level in (1, 2, 3)}
    assert all(each.values())
    together = [node_id for node_id, _ in search.bm25("horse", levels=(1, 2, 3), k=3)]
    assert set(together) == {ids[0] for ids in each.values()}


def test_the_answer_prompt_adds_the_ladder_by_scope(full, models):
    """LOCAL: passages only; MID: the summaries of the sections the passages
    come from; GLOBAL: those, the upper tiers and the characters card. The
    structural card always leads, in the system prompt (a reused prefix)."""
    from engine.answer.answering import answer_messages
    from engine.answer.planning import GLOBAL, LOCAL, MID
    from engine.answer.retrieval import retrieve
    from engine.answer.session import AnswerSession

    indexer, _, _ = full
    session = AnswerSession(indexer.library, indexer.book_id, generator=models[0], embedder=models[1])
    context = session.context
    store = indexer.store
    structure = context.cards["structure"].text
    book_summary = store.nodes(kind="book-summary")[0].text
    characters = context.cards["characters"].text
    prompts = {}
    for scope in (LOCAL, MID, GLOBAL):
        plan = session.plan("How does the narrator learn to wear a bit and bridle?")
        plan.scope = scope
        retrieval = retrieve(plan, context, budget=2)
        system, user = answer_messages(context, retrieval)
        assert structure in system.content
        prompts[scope] = (retrieval, user.content)
    section_summaries = {node.section: node.text for node in store.nodes(kind="section-summary")}
    retrieved = prompts[MID][0].sections
    assert retrieved and len(retrieved) < len(section_summaries)
    assert "Summaries:" not in prompts[LOCAL][1]
    labels = {section.ordinal: section.label for section in context.book.sections}
    for scope in (MID, GLOBAL):
        text = prompts[scope][1]
        for section, summary in section_summaries.items():
            # By its label: the 135M's book summary may copy a section's word for word.
            assert (f"{labels[section]}: {summary}" in text) == (section in retrieved), (scope, section)
    assert book_summary not in prompts[MID][1] and characters[:200] not in prompts[MID][1]
    assert book_summary in prompts[GLOBAL][1] and characters[:200] in prompts[GLOBAL][1]
    # A question about a chapter gets its summary whatever its scope ("Summarize the last chapter").
    last = len(context.book.sections)
    plan = session.plan("Summarize the last chapter", within=[last])
    plan.scope = LOCAL
    _, user = answer_messages(context, retrieve(plan, context, budget=2, within=[last]))
    assert f"{labels[last]}: {section_summaries[last]}" in user.content


def test_summaries_route_retrieval_only_when_a_capable_generator_wrote_them(full, models, tmp_path):
    """The 135M default's summaries are mostly invented: retrieval routed
    through them lost recall at 6 passages. The writer's size decides, taken
    from the manifest, or for an index from before sizes were recorded, from
    the catalogue; a writer of unknown size (an endpoint) counts as capable."""
    from engine.answer.retrieval import retrieve
    from engine.answer.session import AnswerSession

    indexer, _, _ = full
    home = tmp_path / "home"
    shutil.copytree(indexer.library.root, home)
    library = Library(home)
    store = BookIndexer(library, indexer.book_id).store
    stage2 = store.manifest_value("stage2")
    assert stage2["generator"]["parameters"] == models[0].parameters < 1_000_000_000

    def routed_by(writer: dict) -> tuple[bool, set[str]]:
        store.set_manifest_value("stage2", {**stage2, "generator": writer})
        session = AnswerSession(library, indexer.book_id, embedder=models[1])
        assert session.context.has_summaries
        plan = session.plan("What does the narrator feel about the bit and bridle?")
        found = retrieve(plan, session.context, budget=4)
        lists = {name for part in found.parts for names in part.sources.values() for name in names}
        return session.context.routes_by_summaries, lists

    small = stage2["generator"]
    routes, lists = routed_by(small)
    assert not routes and "summary" not in lists
    capable, lists = routed_by({**small, "parameters": 4_000_000_000})
    assert capable and "summary" in lists
    sizeless = {key: value for key, value in small.items() if key != "parameters"}
    assert not routed_by(sizeless)[0]  # the catalogue knows the 135M
    assert routed_by({**sizeless, "model": "qwen3-4b-instruct-2507-q4_k_m"})[0]
    assert routed_by({"backend": "remote", "model": "served", "url": "http://127.0.0.1:1/v1"})[0]


def test_a_book_built_by_another_generator_is_indexed_again_by_the_app(full, tmp_path):
    from engine.index.indexer import stage_in_use, stage_reached
    from engine.llm.settings import FILE, ModelChoice

    indexer, _, _ = full
    library, book_id = indexer.library, indexer.book_id
    assert stage_reached(library, book_id) == 4
    # The default generator wrote it, with situating sentences asked for.
    assert stage_in_use(library, book_id, ModelSettings(situating_sentences="on")) == 4
    # "auto" asks the 135M for none: a run would redo stages 2-4 without them.
    assert stage_in_use(library, book_id, ModelSettings()) == 1
    assert stage_in_use(library, book_id, ModelSettings(situating_sentences="off")) == 1
    other = tmp_path / "a-bigger-model.gguf"
    other.write_bytes(b"GGUF")  # only its name and place are read here
    chosen = ModelSettings(generator=ModelChoice(source=FILE, path=str(other)), situating_sentences="on")
    assert stage_in_use(library, book_id, chosen) == 1
    assert stage_in_use(library, book_id, None) == 4


def test_a_book_embedded_by_another_embedder_is_indexed_again_by_the_app(full, tmp_path):
    from engine.index.indexer import stage_in_use
    from engine.llm.settings import FOLDER, ModelChoice

    indexer, _, _ = full
    library, book_id = indexer.library, indexer.book_id
    folder = tmp_path / "my-embedder"
    folder.mkdir()
    (folder / "model.onnx").write_bytes(b"onnx")  # only its name and place are read here
    other = ModelSettings(embedder=ModelChoice(source=FOLDER, path=str(folder)))
    # Its vectors are stale: stage 1 runs again (it redoes only the vectors: test_index_stage1).
    assert stage_in_use(library, book_id, other) == 0
    same = ModelSettings(embedder=ModelChoice(id="all-minilm-l6-v2-int8"), situating_sentences="on")
    assert stage_in_use(library, book_id, same) == 4

    # The same model id and file name with other weights (an earlier release
    # of the model package made these vectors): queued again as well.
    from engine.index.builders import _key

    built = indexer.store.manifest_value("embedder")
    earlier = dict(built, checksum="sha256:" + "0" * 64)
    earlier["key"] = _key(earlier)
    try:
        with indexer.store.transaction():
            indexer.store.set_manifest_value("embedder", earlier)
        assert stage_in_use(library, book_id, same) == 0
    finally:
        with indexer.store.transaction():
            indexer.store.set_manifest_value("embedder", built)
    assert stage_in_use(library, book_id, same) == 4


def test_a_run_with_nothing_for_the_generator_to_write_loads_none(full, models, tmp_path):
    """A finished book queued only for its sentence vectors (at start) gets
    them without the generator loaded; a book that another generator would
    rewrite still loads it."""
    from engine.llm.errors import ModelError
    from engine.llm.settings import FILE, ModelChoice

    indexer, _, _ = full
    passages = indexer.store.count("passage")
    with indexer.store.transaction() as connection:
        connection.execute("DELETE FROM index_sentences")
    refresh = BookIndexer(indexer.library, indexer.book_id, settings=ModelSettings(situating_sentences="on"),
                          embedder=models[1])
    result = refresh.run(up_to=4)
    assert result.completed_stage == 4 and result.stats[1]["vectors_refreshed"] == passages
    assert refresh._generator is None
    assert refresh.status()["stage_reached"] == 4 and refresh.status()["generator"] == indexer.status()["generator"]
    refresh.close()
    other = tmp_path / "a-bigger-model.gguf"
    other.write_bytes(b"GGUF")  # not a model: loading it fails
    chosen = ModelSettings(generator=ModelChoice(source=FILE, path=str(other)), situating_sentences="on")
    with pytest.raises(ModelError):
        BookIndexer(indexer.library, indexer.book_id, settings=chosen, embedder=models[1]).run(up_to=4)
    assert indexer.status()["stage_reached"] == 4


def test_a_new_generator_redoes_stages_two_to_four_only(full, models, tmp_path):
    indexer, _, _ = full
    copy = tmp_path / "renamed-model.gguf"
    shutil.copy(generator_spec(ModelSettings())["path"], copy)
    other = LlamaGenerator(copy, model_id="another-generator", context_size=2048)
    before = {p.id: p.context for p in indexer.store.nodes(kind="passage")}
    rerun = BookIndexer(indexer.library, indexer.book_id, generator=other, embedder=models[1], situating="on")
    stopped = CancelToken()
    stopped.cancel()
    result = rerun.run(up_to=4, cancel=stopped)  # reconcile, then stop at once
    assert result.cancelled
    status = rerun.status()
    assert status["stages"]["1"]["done"] == 3
    assert [status["stages"][s]["done"] for s in ("2", "3", "4")] == [0, 0, 0]
    assert status["generator"]["model"] == "another-generator"
    # The old situating sentences stay searchable until each section is redone.
    assert {p.id: p.context for p in rerun.store.nodes(kind="passage")} == before
    other.close()


def test_auto_skips_situating_sentences_with_a_small_generator(tmp_path, fixtures, models):
    generator, embedder = models
    assert generator.parameters < 200_000_000  # the 135M default
    library = Library(tmp_path / "home")
    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    indexer = BookIndexer(library, book_id, generator=generator, embedder=embedder)
    assert indexer.situating_setting == "auto" and not indexer.situate
    result = indexer.run(up_to=2)
    stats = result.stats[2]
    assert stats["situating_written"] == stats["situating_rejected"] == 0
    assert all(p.context is None for p in indexer.store.nodes(kind="passage"))
    assert indexer.status()["counts"]["section-summary"] == 3
    # Section by section, stage 2 only read each section for its summary.
    book_tokens = sum(generator.count_tokens(indexer.book.text[s.body_start:s.end]) for s in indexer.book.sections)
    assert stats["prompt_tokens"] < 1.5 * book_tokens
    assert indexer.store.manifest()["stage2"]["generator"]["situating"] is False

    # Asking for them afterwards redoes stages 2-4 (the passages and vectors stay).
    asked = BookIndexer(library, book_id, generator=generator, embedder=embedder, situating="on")
    stopped = CancelToken()
    stopped.cancel()
    assert asked.run(up_to=2, cancel=stopped).cancelled
    status = asked.status()
    assert status["stages"]["1"]["done"] == 3 and status["stages"]["2"]["done"] == 0
    assert status["counts"]["section-summary"] == 3  # kept, searchable, until each section is redone


def _index_process(home: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "engine", "index", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "CHAPTERHOUSE_HOME": str(home)})


def _kill_when(process: subprocess.Popen, *patterns: str, timeout: float = 180) -> None:
    """Kill the process once its progress has shown each pattern, in order."""
    deadline = time.time() + timeout
    waiting = list(patterns)
    for line in process.stderr:
        if re.search(waiting[0], line):
            waiting.pop(0)
            if not waiting:
                process.send_signal(signal.SIGKILL)
                process.wait(10)
                return
        if time.time() > deadline:
            break
    process.kill()
    pytest.fail(f"never saw {waiting[0]!r} in the indexer's progress")


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")
def test_killed_mid_stage_resumes_without_redoing_or_duplicating(tmp_path, fixtures):
    home = tmp_path / "home"
    library = Library(home)
    book_id = library.import_book(fixtures / "three-chapters.txt").book_id

    # Killed in stage 1, after chapter 1 was cut.
    _kill_when(_index_process(home, book_id, "--stage", "1"), r"stage 1/4 .*Chapter 2")
    # Killed again once the whole book was cut and published, after chapter 1's vectors were committed.
    _kill_when(_index_process(home, book_id, "--stage", "1"), r"searchable by words", r"stage 1/4 .*Chapter 2")
    status = BookIndexer(Library(home), book_id).status()
    assert status["searchable"] and status["stage_reached"] == 0 and status["stages"]["1"]["done"] == 1
    # Killed at a few moments of a second attempt, wherever it has got to.
    for delay in (0.4, 1.2):
        process = _index_process(home, book_id, "--stage", "1")
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    resumed = subprocess.run([sys.executable, "-m", "engine", "index", book_id, "--stage", "1", "--json"], cwd=ROOT,
                             capture_output=True, text=True, env={**os.environ, "CHAPTERHOUSE_HOME": str(home)})
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads(resumed.stdout)
    assert report["status"]["stage_reached"] == 1
    assert report["result"]["stats"]["1"]["passages_made"] < 6  # chapter 1 was not cut again
    assert report["status"]["counts"]["passage"] == 6

    # Killed in stage 2 after chapter 1's situating sentences and summary were committed.
    _kill_when(_index_process(home, book_id, "--stage", "2", "--situating", "on"), r"stage 2/4 .*Chapter 2")
    indexer = BookIndexer(Library(home), book_id, situating="on")
    assert indexer.status()["stages"]["2"]["done"] == 1
    assert indexer.status()["searchable"]
    result = indexer.run(up_to=2)
    written = result.stats[2]["situating_written"] + result.stats[2]["situating_rejected"]
    chapter_one = len(indexer.store.nodes(kind="passage", section=1))
    assert written == 6 - chapter_one  # only chapters 2 and 3 were read again
    assert indexer.status()["stages"]["2"]["done"] == 3
    assert indexer.status()["counts"] | {} == {**indexer.status()["counts"], "passage": 6, "section-summary": 3}
    folder = Library(home).folder(book_id) / "index"
    assert [entry.name for entry in folder.iterdir() if entry.is_dir()] == [f"gen-{indexer.status()['generation']}"]


def test_cancel_stops_within_a_second_and_keeps_the_checkpoint(tmp_path, fixtures, models):
    library = Library(tmp_path / "home")
    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    indexer = BookIndexer(library, book_id, generator=models[0], embedder=models[1])
    indexer.run(up_to=1)
    cancel = CancelToken()
    started_stage2 = threading.Event()
    outcome = {}

    def progress(event):
        if event.stage == 2:
            started_stage2.set()

    def work():
        outcome["result"] = indexer.run(up_to=4, progress=progress, cancel=cancel)
        outcome["returned"] = time.perf_counter()

    thread = threading.Thread(target=work)
    thread.start()
    assert started_stage2.wait(30)
    time.sleep(1.5)  # well inside the first section's LLM calls
    cancelled_at = time.perf_counter()
    cancel.cancel()
    thread.join(20)
    assert outcome["result"].cancelled
    assert outcome["returned"] - cancelled_at < 1.0
    status = indexer.status()
    assert status["stage_reached"] == 1 and status["searchable"]
    assert indexer.search().search("the hare", k=1)


def test_a_section_longer_than_the_context_is_a_clear_error(tmp_path, fixtures, models):
    library = Library(tmp_path / "home")
    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    small = LlamaGenerator(generator_spec(ModelSettings())["path"], context_size=512)
    indexer = BookIndexer(library, book_id, generator=small, embedder=models[1])
    with pytest.raises(IndexingError, match="too long for the model's context"):
        indexer.run(up_to=2)
    status = indexer.status()
    assert status["stage_reached"] == 1 and status["stages"]["2"]["done"] == 0 and status["searchable"]
    small.close()
