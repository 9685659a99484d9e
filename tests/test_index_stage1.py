"""The ladder index without the LLM: passages, windows, stage 1 (BM25 and
vectors on disk, reopened), one fused search call, and what a new embedder
or new chunking redoes."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from engine.importer import parse_book
from engine.index.chunking import count_tokens, fixed_passages, sentence_spans
from engine.index.indexer import BookIndexer
from engine.index.search import BookSearch
from engine.index.store import IndexStore
from engine.index.vectors import embed_passages, windows_of
from engine.llm import ModelSettings, open_embedder
from engine.llm.embedder import OnnxEmbedder
from engine.llm.loading import embedder_spec


@pytest.fixture(scope="module")
def embedder():
    return open_embedder(ModelSettings())


def test_passages_are_about_400_tokens_with_overlap_inside_sections(sample_book):
    book = parse_book(sample_book)
    everything = []
    for section in book.sections:
        passages = fixed_passages(book, section)
        assert passages, section.label
        for passage in passages:
            assert section.body_start <= passage.start < passage.end <= section.end
            assert 150 <= passage.tokens <= 520
            inside = [p.id for p in book.paragraphs if p.end > passage.start and p.start < passage.end]
            assert (passage.paragraph_first, passage.paragraph_last) == (inside[0], inside[-1])
            text = book.text[passage.start:passage.end]
            assert text[0].isalnum() or text[0] in "\"\u201c'\u2018(_"  # starts at a sentence or paragraph
            assert text.rstrip()[-1] in ".!?\"\u201d'\u2019)_-:;*" or text.endswith("\n")
        overlaps = [count_tokens([book.text[b.start:a.end]])[0]
                    for a, b in zip(passages, passages[1:]) if b.start < a.end]
        assert len(overlaps) >= (len(passages) - 1) * 0.7
        assert all(5 <= o <= 80 for o in overlaps)  # whole sentences, about 50 tokens
        everything.extend(passages)
    tokens = [p.tokens for p in everything]
    assert 330 <= sum(tokens) / len(tokens) <= 420


def test_sentences_split_the_same_when_threads_split_at_once(sample_book):
    # Indexing and answering split sentences in different threads at the same
    # time; a shared splitter mixed their texts up and returned whole paragraphs.
    import threading

    book = parse_book(sample_book)
    blocks = [(p.start, p.end) for p in book.paragraphs if p.end - p.start > 400][:60]
    expected = [sentence_spans(book.text, start, end) for start, end in blocks]
    results: dict[int, list] = {}

    def split(worker: int) -> None:
        results[worker] = [sentence_spans(book.text, start, end) for start, end in blocks]

    threads = [threading.Thread(target=split, args=(worker,)) for worker in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(len(spans) for spans in expected) > 2 * len(expected)  # real splitting, not whole paragraphs
    assert all(results[worker] == expected for worker in range(4))


# Holmes in The Sign of the Four: one speech, one paragraph, twelve sentences.
# pysbd returned it as a single "sentence", which the digest then quoted whole.
_SPEECH = ('"Pshaw, my dear boy! it was simplicity itself. I don\'t wish to be theatrical. It is all patent and '
           'above-board. Two officers who are in command of a convict-guard learn an important secret as to buried '
           'treasure. A map is drawn for them by an Englishman named Jonathan Small. You remember that we saw the '
           'name upon the chart in Captain Morstan\'s possession. He had signed it in behalf of himself and his '
           'associates,--the sign of the four, as he somewhat dramatically called it. Aided by this chart, the '
           'officers--or one of them--gets the treasure and brings it to England, leaving, we will suppose, some '
           'condition under which he received it unfulfilled. Now, then, why did not Jonathan Small get the treasure '
           'himself? The answer is obvious. The chart is dated at a time when Morstan was brought into close '
           'association with convicts. Jonathan Small did not get the treasure because he and his associates were '
           'themselves convicts and could not get away."')


def test_a_long_speech_in_quotation_marks_is_split_into_its_sentences():
    text = "Chapter text before. " + _SPEECH + " \"Mr. Sholto was here,\" said Dr. Watson."
    start = len("Chapter text before. ")
    spans = sentence_spans(text, start, len(text))
    sentences = [text[a:b] for a, b in spans]
    assert sentences[0] == '"Pshaw, my dear boy! it was simplicity itself.'
    assert "The answer is obvious." in sentences
    assert sentences[-1] == '"Mr. Sholto was here," said Dr. Watson.'  # no split at "Mr." or "Dr."
    assert len(sentences) == 13 and max(len(s.split()) for s in sentences) <= 40
    # Exact offsets, in order, and nothing but spaces left between them.
    assert all(start <= a < b <= len(text) and text[a:b] == text[a:b].strip() for a, b in spans)
    assert "".join(sentences).replace(" ", "") == text[start:].replace(" ", "")
    # A semicolon ends no sentence, where syntok ends one before a capital, nor a title after a dash; a paragraph's
    # end still does.
    flame = ('Upon its coming in, the dying flame leaped up, as though it cried, "I know him; Marley\'s Ghost!" and '
             'fell again. He was tired; Marley came in.\n\n"Come here;\n\nI see it!"\n\n"...who arrives at Waterloo '
             'Station"--Dr. Mortimer looked at his watch--"in one hour." Mr. Holmes left.')
    assert [flame[a:b] for a, b in sentence_spans(flame, 0, len(flame))] == [
        'Upon its coming in, the dying flame leaped up, as though it cried, "I know him; Marley\'s Ghost!" and fell '
        'again.', "He was tired; Marley came in.", '"Come here;', 'I see it!"',
        '"...who arrives at Waterloo Station"--Dr. Mortimer looked at his watch--"in one hour."', "Mr. Holmes left."]
    # Passages are still cut where pysbd ends sentences, which keeps the speech
    # whole: cutting at syntok's lowered location recall (see chunking._cut_points).
    from engine.index.chunking import _cut_points

    assert _cut_points(text, start, len(text)) == [(start, len(text))]


def test_long_passages_are_read_in_overlapping_windows(embedder):
    text = " ".join(f"word{i} alpha beta gamma" for i in range(120))  # ~ 720 word pieces
    tokens = embedder.count_tokens(text)
    windows = windows_of(text, tokens, embedder.max_tokens, embedder.count_tokens)
    assert len(windows) >= 3
    assert all(embedder.count_tokens(w) <= embedder.max_tokens - 2 for w in windows)
    assert windows[0].startswith("word0 ") and windows[-1].endswith("word119 alpha beta gamma")
    joined = " ".join(windows)
    assert all(f"word{i} " in joined for i in range(120))  # nothing is skipped
    short = "A short passage."
    assert windows_of(short, embedder.count_tokens(short), embedder.max_tokens) == [short]
    vectors = embed_passages(embedder, [short, text])
    assert np.allclose(vectors[0], embedder.embed([short])[0], atol=1e-5)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


@pytest.fixture
def stage1(library, fixtures, embedder):
    book_id = library.import_book(fixtures / "black-beauty-excerpt.txt").book_id
    indexer = BookIndexer(library, book_id, embedder=embedder)
    result = indexer.run(up_to=1)
    assert result.completed_stage == 1 and not result.cancelled
    return library, book_id, indexer


def test_stage_one_makes_the_book_searchable_on_disk(stage1, embedder):
    library, book_id, indexer = stage1
    status = indexer.status()
    assert status["stage_reached"] == 1 and status["searchable"]
    assert status["stages"]["1"]["done"] == status["stages"]["1"]["total"] == 3
    assert status["counts"]["passage"] >= 9
    folder = library.folder(book_id) / "index"
    assert (folder / "CURRENT").is_file()
    generation = folder / f"gen-{status['generation']}"
    assert (generation / "tantivy-1" / "meta.json").is_file() and (generation / "vectors.hnsw").is_file()

    # A new process would open the files afresh: so does a new store and search.
    store = IndexStore(library.folder(book_id) / "book.sqlite")
    search = BookSearch(folder, store, embedder)
    hits = search.search("the hare the dogs tore", k=3)
    assert hits and hits[0].node.section == 2
    assert hits[0].bm25_rank is not None and hits[0].dense_rank is not None
    assert hits[0].score == pytest.approx(1 / (60 + hits[0].bm25_rank) + 1 / (60 + hits[0].dense_rank))
    passage = hits[0].node
    book = library.load(book_id)
    assert passage.text == book.text[passage.start:passage.end]
    # Filters: only chapter 3; only summaries (there are none yet).
    assert {h.node.section for h in search.search("the hare the dogs tore", k=5, sections=[3])} == {3}
    assert search.search("the hare the dogs tore", levels=[2, 3]) == []
    # Meaning without the words: dense search alone finds the breaking-in chapter.
    found = search.search("training a young horse to carry a rider", k=3)
    assert 3 in {h.node.section for h in found}
    # The query language's special characters are just text.
    assert search.search('what:does "the (hare) mean? AND OR') is not None
    store.close()


def test_stage_one_keeps_each_sentences_vector_read_in_its_passage(stage1, embedder):
    """One reading gives the passage's window vectors and, pooled over its
    word pieces, a vector per sentence: the digest needs no embedding later."""
    from engine.index.vectors import embed_windows

    library, book_id, indexer = stage1
    book = library.load(book_id)
    passages = indexer.store.nodes(kind="passage")
    stored = indexer.store.sentences(passages)
    assert set(stored) == {passage.id for passage in passages}
    texts, vectors = [], []
    for passage in passages:
        spans, found = stored[passage.id]
        assert spans == sentence_spans(book.text, passage.start, passage.end)
        assert np.allclose(np.linalg.norm(found, axis=1), 1.0, atol=1e-2)
        texts += [book.text[start:end] for start, end in spans]
        vectors += list(found)
    # Read in context, each sentence still means what it says alone: its own
    # vector is among the three nearest to it embedded by itself (measured:
    # 91% of 128 sentences; the nearest for 69%).
    alone = embedder.embed(texts)
    similarity = np.array(vectors) @ alone.T
    near = [(similarity[row] > similarity[row, row]).sum() < 3 for row in range(len(texts))]
    assert np.mean(near) >= 0.8 and np.diag(similarity).mean() > 0.5
    # The passages' own vectors are those of a plain reading.
    windows = embed_windows(embedder, [passage.embedded_text() for passage in passages])
    ids, kept = indexer.store.vectors()
    for passage, ours in zip(passages, windows):
        assert np.allclose(kept[[n for n, node_id in enumerate(ids) if node_id == passage.id]], ours, atol=1e-4)


def test_the_digest_reads_stored_sentence_vectors_and_an_older_index_gets_them(stage1, embedder, monkeypatch):
    from engine.answer.digest import evidence_digest
    from engine.answer.retrieval import retrieve
    from engine.answer.session import AnswerSession
    from engine.index.indexer import lacks_sentence_vectors

    library, book_id, indexer = stage1
    assert not lacks_sentence_vectors(library, book_id)
    embedded: list[int] = []
    real_embed = embedder.embed
    monkeypatch.setattr(embedder, "embed", lambda texts, cancel=None: embedded.append(len(texts)) or
                        real_embed(texts, cancel))

    def digest() -> list:
        session = AnswerSession(library, book_id, embedder=embedder)
        found = retrieve(session.plan("Why did the dogs chase the hare across the field?"), session.context)
        return evidence_digest(found, session.context)

    lines = digest()
    assert lines and embedded == []
    # An index made before sentence vectors were kept: the digest embeds the
    # sentences it weighs, and the next run of stage 1 adds the vectors.
    passages = indexer.store.count("passage")
    with indexer.store.transaction() as connection:
        connection.execute("DELETE FROM index_sentences")
    assert [line.text for line in digest()] and sum(embedded) > 0
    assert lacks_sentence_vectors(library, book_id)  # the app queues such a book for one more run
    result = indexer.run(up_to=1)
    assert result.stats[1]["passages_made"] == 0 and result.stats[1]["vectors_refreshed"] == passages
    assert len(indexer.store.sentences(indexer.store.nodes(kind="passage"))) == passages
    assert not lacks_sentence_vectors(library, book_id)
    embedded.clear()
    assert [line.text for line in digest()] == [line.text for line in lines] and embedded == []
    # Rows cut by another sentence splitter (an index made before syntok) are
    # not read, and the next run makes them again.
    with indexer.store.transaction() as connection:
        connection.execute("UPDATE index_sentences SET text_hash = substr(text_hash, 1, 20) || ' pysbd'")
    assert lacks_sentence_vectors(library, book_id)
    assert indexer.store.sentences(indexer.store.nodes(kind="passage")) == {}
    events = []
    assert indexer.run(up_to=1, progress=events.append).stats[1]["vectors_refreshed"] == passages
    # A refresh takes minutes on a whole book: it says how far it has got.
    refreshing = [event for event in events if event.stage_name == "vectors"]
    assert refreshing and refreshing[0].done == 0 and len({event.total for event in refreshing}) == 1
    assert [event.done for event in refreshing] == sorted({event.done for event in refreshing})
    assert not lacks_sentence_vectors(library, book_id)
    embedded.clear()
    assert [line.text for line in digest()] == [line.text for line in lines] and embedded == []
    # An embedder that gives no word-piece vectors (a remote one) keeps none,
    # and is not asked again on every run.
    monkeypatch.setattr(embedder, "reads_tokens", False)
    with indexer.store.transaction() as connection:
        connection.execute("DELETE FROM index_sentences")
    assert indexer.run(up_to=1).stats[1]["vectors_refreshed"] == 0
    assert not lacks_sentence_vectors(library, book_id)


def test_summaries_and_cards_do_not_change_how_passages_rank(stage1):
    from engine.index.searchfiles import build_generation
    from engine.index.store import CARD, SECTION_SUMMARY, Node

    library, book_id, indexer = stage1
    search = indexer.search()
    query = "the hare and the dogs in the field"
    before = search.bm25(query, levels=[1], k=8)
    # Upper tiers full of the query's words, as an LLM stage would write them.
    with indexer.store.transaction():
        indexer.store.put_nodes([
            Node(id="s1", level=2, kind=SECTION_SUMMARY, section=1, seq=0, text="The hare and the dogs. " * 20,
                 sections=[1]),
            Node(id="card:themes", level=3, kind=CARD, section=None, seq=0, text="hare dogs field " * 30),
        ])
    build_generation(library.folder(book_id) / "index", indexer.store)
    search = indexer.search()
    assert search.bm25(query, levels=[1], k=8) == before  # the same passages, the same scores
    assert [node_id for node_id, _ in search.bm25(query, levels=[2], k=3)] == ["s1"]
    assert {"card:themes", "s1"} <= {node_id for node_id, _ in search.bm25(query, levels=[1, 2, 3], k=20)}


def test_a_new_book_is_searchable_by_its_words_before_its_vectors_are_made(library, fixtures, embedder):
    """Stage 1 cuts and publishes the whole book first (seconds), then embeds
    it: a question need not wait for the vectors, and a stop there resumes
    without cutting anything again."""
    from engine.answer.planning import code_plan
    from engine.answer.retrieval import retrieve
    from engine.answer.session import AnswerSession
    from engine.llm.types import CancelToken

    book_id = library.import_book(fixtures / "black-beauty-excerpt.txt").book_id
    indexer = BookIndexer(library, book_id, embedder=embedder)
    cancel = CancelToken()
    seen = []

    def stop_once_searchable(progress):
        if progress.searchable and not seen:
            status = indexer.status()
            session = AnswerSession(library, book_id, embedder=embedder)
            found = retrieve(code_plan("What happened when the hare ran from the dogs?"), session.context)
            seen.append((progress.detail, status, found, session.digest(found),
                         session.context.search.dense("a hare chased by dogs", levels=[1])))
            cancel.cancel()
        elif not progress.searchable:
            assert not indexer.status()["searchable"]

    result = indexer.run(up_to=1, progress=stop_once_searchable, cancel=cancel)
    assert result.cancelled and seen
    detail, status, found, digest, dense = seen[0]
    assert detail == "searchable by words"
    assert status["searchable"] and status["stage_reached"] == 0 and status["stages"]["1"]["done"] == 0
    assert status["counts"]["passage"] >= 9
    assert 2 in found.sections and found.meaning_share == 0.0  # the hunt is in chapter 2, found by its words
    assert dense == [] and digest and all(line.passage_id for line in digest)
    assert indexer.store.stale_vectors(indexer.store.nodes(kind="passage"))  # no vector made yet

    resumed = BookIndexer(library, book_id, embedder=embedder).run(up_to=1)
    assert resumed.completed_stage == 1 and resumed.stats[1]["passages_made"] == 0  # nothing cut again
    session = AnswerSession(library, book_id, embedder=embedder)
    found = retrieve(code_plan("What happened when the hare ran from the dogs?"), session.context)
    assert found.meaning_share == 1.0 and session.context.search.dense("a hare chased by dogs", levels=[1])

    # What a question on a new book waits for: the words alone.
    other = library.import_book(fixtures / "three-chapters.txt").book_id
    words = BookIndexer(library, other, embedder=embedder)
    assert words.run(up_to=1, words_only=True).completed_stage == 0
    assert words.status()["searchable"] and words.status()["stage_reached"] == 0
    assert len(words.store.stale_vectors(words.store.nodes())) == words.status()["counts"]["passage"]


def test_a_second_run_redoes_nothing(stage1):
    _, _, indexer = stage1
    generation = indexer.status()["generation"]
    result = indexer.run(up_to=1)
    assert result.stats[1]["passages_made"] == 0 and result.stats[1]["vectors_refreshed"] == 0
    assert indexer.status()["generation"] == generation


def test_a_new_embedder_redoes_the_vectors_only(stage1, tmp_path):
    library, book_id, indexer = stage1
    before = {node.id: node.text for node in indexer.store.nodes()}
    spec = embedder_spec(ModelSettings())
    folder = tmp_path / "another-embedder"
    folder.mkdir()
    shutil.copy(spec["model_path"], folder / "model.onnx")
    other = OnnxEmbedder(folder / "model.onnx", spec["tokenizer_path"], model_id="another-embedder")
    rerun = BookIndexer(library, book_id, embedder=other)
    result = rerun.run(up_to=1)
    assert result.stats[1]["passages_made"] == 0
    assert result.stats[1]["vectors_refreshed"] == len(before)
    assert {node.id: node.text for node in rerun.store.nodes()} == before
    assert rerun.status()["embedder"]["model"] == "another-embedder"
    assert rerun.search().search("the hare", k=1)[0].dense_rank is not None


def test_new_chunking_redoes_everything(stage1):
    library, book_id, indexer = stage1
    count = indexer.status()["counts"]["passage"]
    smaller = BookIndexer(library, book_id, embedder=indexer.embedder)
    smaller.parameters = type(smaller.parameters)(passage_tokens=200, overlap_tokens=30)
    result = smaller.run(up_to=1)
    assert result.stats[1]["passages_made"] > count
    assert smaller.status()["chunking"]["passage_tokens"] == 200


def test_index_and_status_commands(chapterhouse_home, fixtures):
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "CHAPTERHOUSE_HOME": str(chapterhouse_home)}
    run = subprocess.run([sys.executable, "-m", "engine", "index", str(fixtures / "black-beauty-excerpt.txt"),
                          "--stage", "1"], capture_output=True, text=True, cwd=root, env=env)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("indexed: Black Beauty to stage 1")
    bar = run.stderr.strip().splitlines()
    assert bar[0].startswith("stage 1/4 passages") and "%" in bar[0]
    assert "100.0%" in bar[-1]
    status = subprocess.run([sys.executable, "-m", "engine", "status", "Black Beauty", "--json"],
                            capture_output=True, text=True, cwd=root, env=env)
    document = json.loads(status.stdout)
    assert document["stage_reached"] == 1 and document["searchable"]
    assert document["stages"]["2"] == {"name": "section summaries", "done": 0, "total": 3, "built_by": None,
                                       "stats": None}
    human = subprocess.run([sys.executable, "-m", "engine", "status", "Black Beauty"], capture_output=True,
                           text=True, cwd=root, env=env).stdout
    assert "stage 1 of 4, searchable" in human and "section summaries      0/3" in human


_HOLDER = """
import sys, time
from engine.index.indexer import BookIndexer
from engine.store import Library

def stall(progress):
    print("indexing", flush=True)
    time.sleep(600)

BookIndexer(Library(), sys.argv[1]).run(up_to=1, progress=stall)
"""


def test_another_process_indexing_the_book_is_waited_for_not_raced(chapterhouse_home, library, fixtures, embedder):
    """Two processes on one library (two app windows, or the app and the
    command line) must not both write a book's index."""
    import os
    import subprocess
    import sys
    import threading
    from pathlib import Path

    from engine.answer.session import AnswerSession
    from engine.index.indexer import IndexingBusy, stage_reached
    from engine.llm.types import CancelToken

    root = Path(__file__).resolve().parent.parent
    book_id = library.import_book(fixtures / "black-beauty-excerpt.txt").book_id
    env = {**os.environ, "CHAPTERHOUSE_HOME": str(chapterhouse_home)}
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, book_id], cwd=root, env=env, text=True,
                              stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == "indexing"
        with pytest.raises(IndexingBusy, match=r"^Black Beauty: another Chapterhouse process is indexing"):
            BookIndexer(library, book_id, embedder=embedder).run(up_to=1)
        cli = subprocess.run([sys.executable, "-m", "engine", "index", book_id, "--stage", "1"],
                             capture_output=True, text=True, cwd=root, env=env)
        assert cli.returncode != 0
        assert cli.stderr.strip().splitlines()[-1].startswith(
            "chapterhouse: error: Black Beauty: another Chapterhouse process is indexing this book")
        # A question on the book waits for the other process's stage 1 (here: until cancelled).
        session = AnswerSession(library, book_id, embedder=embedder)
        cancel = CancelToken()
        threading.Timer(1.0, cancel.cancel).start()
        assert session.ensure_indexed(cancel=cancel) == 0
    finally:
        holder.kill()  # SIGKILL: the OS drops its lock, nothing stale is left
        holder.wait()
    assert session.ensure_indexed() == 1
    assert stage_reached(library, book_id) == 1
    assert session.context.search.bm25("bit and bridle", levels=[1], k=1)


def test_a_question_does_not_wait_on_a_build_running_in_this_process(library, fixtures, embedder):
    """The app's background job may hold the book's builder lock through all
    four stages; a question must get IndexingBusy at once (and then wait only
    for what it needs), never queue behind that whole run."""
    import threading
    import time

    from engine.answer.session import AnswerSession
    from engine.index.indexer import IndexingBusy

    book_id = library.import_book(fixtures / "black-beauty-excerpt.txt").book_id
    words_published, finish = threading.Event(), threading.Event()

    def background_progress(event):
        if event.searchable:
            words_published.set()
            finish.wait(60)  # the rest of the background run, held open

    background = threading.Thread(target=lambda: BookIndexer(library, book_id, embedder=embedder).run(
        up_to=1, progress=background_progress))
    background.start()
    try:
        assert words_published.wait(60)
        started = time.perf_counter()
        with pytest.raises(IndexingBusy, match=r"^Black Beauty: this book is being indexed here already$"):
            BookIndexer(library, book_id, embedder=embedder).run(up_to=1, wait=False)
        session = AnswerSession(library, book_id, embedder=embedder)
        assert session.ensure_searchable() is True
        assert time.perf_counter() - started < 5
        assert session.context.search.bm25("bit and bridle", levels=[1], k=1)
        assert background.is_alive()  # still holding the lock: nobody waited for it
    finally:
        finish.set()
        background.join(60)
    assert BookIndexer(library, book_id, embedder=embedder).status()["stage_reached"] == 1
