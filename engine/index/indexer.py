"""Building a book's ladder, progressively, resumably and cancellably.

    stage 1  passages, BM25 and embeddings (no LLM): the book is searchable
    stage 2  section summaries and, with generators able to write them,
             situating sentences (read in the same pass over each section),
             then passages re-indexed with them
    stage 3  summary tiers: groups of three sections, up to the book
    stage 4  book cards

Every unit of work (a section of a stage, a tier level, a card) is computed
first and then committed with its checkpoint in one SQLite transaction; the
search files are rebuilt from SQLite at the end of each stage. A kill at any
moment therefore loses at most the unit in progress, and a restart picks up
after the last committed unit. The manifest records what built each stage;
a new generator redoes stages 2-4, a new embedder only the vectors, new
chunking parameters everything.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from filelock import FileLock, Timeout

from ..book import Book
from ..errors import ChapterhouseError, storage_problem
from ..llm.errors import ContextLimitError, ModelError
from ..llm.generator import SMALL_MODEL_PARAMETERS
from ..llm.types import CancelToken
from ..store.bookdb import damage_reported, open_read_only
from .builders import checksum, embedder_identity, generator_identity, writer_parameters
from .cards import CARD_NAMES, write_cards
from .chunking import SENTENCE_SPLITTER, ChunkingParameters, fixed_passages, sentence_spans
from .search import BookSearch
from .searchfiles import build_generation, current_generation
from .segmenter import SegmentationStats, llm_passages
from .store import BOOK_SUMMARY, CARD, PART_SUMMARY, PASSAGE, SECTION_SUMMARY, TIER_SUMMARY, IndexStore, Node, \
    stored_json
from .vectors import embed_windows, embed_windows_and_sentences
from .writing import Cancelled, WritingStats, combine, situate_and_summarize, writes_situating

STAGES = {1: "passages", 2: "section summaries", 3: "summary tiers", 4: "cards"}
# Checkpoint steps, and the stage each belongs to. A section's passages are
# "cut" (stored, searchable by their words) before they are "passages"
# (embedded too): stage 1 is done when every section is embedded.
_CUT, _PASSAGES, _CONTEXT, _SUMMARY, _TIERS, _CARDS = "cut", "passages", "context", "summary", "tiers", "cards"
_LLM_STEPS = (_CONTEXT, _SUMMARY, _TIERS, _CARDS)
_TIER_GROUP = 3
# Cutting a book into passages is a few per cent of stage 1 (Little Women
# here: 3.2 s of 80 s); embedding them is the rest. The progress bar says so.
_CUT_SHARE = 0.05
# While stage 1 embeds, the indexes are rebuilt this often (0.24 s for Little
# Women), so questions asked meanwhile find more and more by meaning.
_PUBLISH_EVERY_SECONDS = 15.0


_builders_guard = threading.Lock()
_builders: dict[str, threading.Lock] = {}


def builder_lock(folder) -> threading.Lock:
    """One builder per book in this process: the app's background indexing and
    a question asked before the book was searchable must not both write it."""
    with _builders_guard:
        return _builders.setdefault(str(folder), threading.Lock())


@contextmanager
def building(folder: Path, title: str, wait: bool = True):
    """Hold a book's builder locks (`folder`: its index folder), or raise
    IndexingBusy. The thread lock orders this process's builders; the file
    lock keeps other processes out. The OS drops it when its holder dies, so
    a killed run leaves nothing stale behind. OSError: the lock file cannot
    be made (a full or read-only disk)."""
    lock = builder_lock(folder)
    if not lock.acquire(blocking=wait):
        raise IndexingBusy(f"{title}: this book is being indexed here already")
    try:
        others = FileLock(Path(folder).parent / "indexing.lock")
        try:
            others.acquire(timeout=0)
        except Timeout:
            raise IndexingBusy(f"{title}: another Chapterhouse process is indexing this book; "
                               "it can go on here once that one stops") from None
        try:
            yield
        finally:
            others.release()
    finally:
        lock.release()


class IndexingError(ChapterhouseError):
    """Indexing stopped; the index stays at its last checkpoint."""


class IndexingBusy(IndexingError):
    """Another process is indexing the book (two app windows on one library,
    or the app and the command line)."""


@dataclass
class Progress:
    stage: int
    stage_name: str
    done: int
    total: int
    eta_seconds: float | None
    detail: str = ""
    searchable: bool = True  # False while a new book has no index yet: questions wait


@dataclass
class RunResult:
    completed_stage: int
    cancelled: bool
    stats: dict = field(default_factory=dict)


class BookIndexer:
    def __init__(self, library, book_id: str, *, settings=None, generator=None, embedder=None,
                 segmenter: str = "fixed", situating: str | None = None):
        from ..llm.settings import SITUATING_SETTINGS, ModelSettings

        if segmenter not in ("fixed", "llm"):
            raise IndexingError(f"unknown segmenter {segmenter!r}: use fixed or llm")
        if situating not in (None, *SITUATING_SETTINGS):
            raise IndexingError(f"unknown situating choice {situating!r}: use {', '.join(SITUATING_SETTINGS)}")
        self.library = library
        self.book_id = book_id
        folder = library.folder(book_id)
        self.folder = folder / "index"
        self.book: Book = library.load(book_id)
        self.settings = settings or ModelSettings.load()
        self._generator = generator
        self._embedder = embedder
        self.parameters = ChunkingParameters(segmenter=segmenter)
        self.situating_setting = situating or self.settings.situating_sentences
        self.store = self._open_store()

    def _open_store(self) -> IndexStore:
        """The book's index records; read-only when the disk takes no writes
        (full, or not writable): the book can still be searched and asked
        about, and a run says why it cannot go on."""
        try:
            return self._writable_store()
        except IndexingError as refused:
            try:
                return IndexStore(self.folder.parent / "book.sqlite", readonly=True)
            except sqlite3.Error:
                raise refused from None

    def _writable_store(self) -> IndexStore:
        return _guarded(lambda: IndexStore(self.folder.parent / "book.sqlite"), self.book, self.folder)

    # ------------------------------------------------------------ models

    @property
    def generator(self):
        if self._generator is None:
            from ..llm.loading import open_generator

            self._generator = open_generator(self.settings, lane="index")
        return self._generator

    @property
    def embedder(self):
        if self._embedder is None:
            from ..llm.loading import open_embedder

            self._embedder = open_embedder(self.settings)
        return self._embedder

    def search(self) -> BookSearch:
        return BookSearch(self.folder, self.store, self.embedder, repair=self.republish)

    def republish(self) -> bool:
        """Rebuild the published search files from the records (they were
        found damaged), unless the book is being indexed, here or in another
        process (its run replaces them), or its disk takes no writes.
        Returns whether it did."""
        if not self.store.writable:
            return False
        try:
            with self._building(wait=False):
                self._publish(force=True)
            return True
        except (IndexingError, OSError, sqlite3.Error, ValueError, RuntimeError):
            return False  # busy, or a full disk: the caller searches a private rebuild

    def close(self) -> None:
        self.store.close()

    # ------------------------------------------------------------ status

    def status(self) -> dict:
        sections = [s.ordinal for s in self.book.sections]
        done = {step: self.store.done_units(step) for step in (_PASSAGES, _CONTEXT, _SUMMARY, _TIERS, _CARDS)}
        generation = current_generation(self.folder)
        manifest = self.store.manifest()
        stages = {
            1: (len(done[_PASSAGES] & set(map(str, sections))), len(sections)),
            2: (len(done[_CONTEXT] & set(map(str, sections))), len(sections)),
            3: (len(done[_SUMMARY] & set(map(str, sections))) + (1 if "all" in done[_TIERS] else 0), len(sections) + 1),
            4: (len(done[_CARDS] & set(CARD_NAMES)), len(CARD_NAMES)),
        }
        complete = 0
        for stage in (1, 2, 3, 4):
            if stages[stage][0] == stages[stage][1] and complete == stage - 1:
                complete = stage
        return {
            "book_id": self.book_id,
            "title": self.book.title,
            "stage_reached": complete,
            "searchable": generation is not None,
            "stages": {str(stage): {"name": STAGES[stage], "done": d, "total": t,
                                    "built_by": manifest.get(f"stage{stage}"), "stats": manifest.get(f"stats{stage}")}
                       for stage, (d, t) in stages.items()},
            "counts": {kind: self.store.count(kind) for kind in
                       (PASSAGE, PART_SUMMARY, SECTION_SUMMARY, TIER_SUMMARY, BOOK_SUMMARY, CARD)},
            "chunking": manifest.get("chunking"),
            "embedder": manifest.get("embedder"),
            "generator": manifest.get("generator"),
            "format_version": manifest.get("format_version"),
            "generation": generation.number if generation else None,
        }

    # ------------------------------------------------------------ running

    def run(self, up_to: int = 4, progress: Callable[[Progress], None] | None = None,
            cancel: CancelToken | None = None, words_only: bool = False, wait: bool = True) -> RunResult:
        """Build the stages up to `up_to`. With `words_only`, stop once the
        book can be searched by its words (stage 1 cut and published, its
        vectors not made yet): what a question on a new book waits for.
        Without `wait`, a build already running in this process raises
        IndexingBusy at once instead of being waited for to its end."""
        if not self.store.writable:
            # Opened on a disk that took no writes: it may have been freed since.
            # The read-only store is left open for whoever still reads from it.
            self.store = self._writable_store()
        with self._building(wait):
            return self._run(up_to, progress, cancel or CancelToken(), words_only)

    @contextmanager
    def _building(self, wait: bool):
        try:
            with building(self.folder, self.book.title, wait):
                yield
        except OSError as error:  # the lock file cannot be made: a full or read-only disk
            raise _storage_error(error, self.book, self.folder) from None

    @property
    def lock(self) -> threading.Lock:
        return builder_lock(self.folder)

    def _run(self, up_to: int, progress, cancel: CancelToken, words_only: bool = False) -> RunResult:
        report = progress or (lambda _event: None)
        result = RunResult(completed_stage=0, cancelled=False)
        try:
            self._reconcile(up_to)
            if self._dirty():
                self._publish()
            if words_only:
                self._stage1(report, cancel, words_only=True)
                return result
            for stage in range(1, up_to + 1):
                started = time.perf_counter()
                stats = getattr(self, f"_stage{stage}")(report, cancel)
                stats["seconds"] = round(time.perf_counter() - started, 2)
                result.stats[stage] = stats
                self._record_stage(stage, stats)
                self._publish()
                result.completed_stage = stage
        except (Cancelled, InterruptedError):
            result.cancelled = True
        except ContextLimitError as error:
            raise IndexingError(f"{self.book.title}: a section is too long for the model's context ({error})") from None
        except ModelError:
            raise
        except (sqlite3.OperationalError, OSError) as error:
            raise _storage_error(error, self.book, self.folder) from None
        except (ValueError, RuntimeError) as error:
            # Tantivy and hnswlib report failed writes as plain errors.
            if storage_problem(error) is None:
                raise
            raise _storage_error(error, self.book, self.folder) from None
        return result

    # ------------------------------------------------------------ manifest

    def _reconcile(self, up_to: int) -> None:
        """Compare what built the index with what would build it now, and
        forget the work that a change makes stale."""
        chunking = self.parameters.as_dict()
        with self.store.transaction():
            built = self.store.manifest_value("chunking")
            if built is not None and built != chunking:
                self.store.delete_nodes()
                self.store.forget_steps((_CUT, _PASSAGES) + _LLM_STEPS)
            self.store.set_manifest_value("chunking", chunking)
            embedder = embedder_identity(self.embedder)
            built = self.store.manifest_value("embedder")
            if built is not None and built.get("key") != embedder["key"]:
                self.store.clear_vectors()
            self.store.set_manifest_value("embedder", embedder)
        if (up_to >= 2 or self.parameters.segmenter == "llm") and not self._generator_settled(up_to):
            generator = generator_identity(self.generator, self.situate)
            with self.store.transaction():
                built = self.store.manifest_value("generator")
                if built is not None and built.get("key") != generator["key"]:
                    # Keep the old text until each unit is redone: the book stays searchable.
                    self.store.forget_steps(_LLM_STEPS)
                self.store.set_manifest_value("generator", generator)

    def _generator_settled(self, up_to: int) -> bool:
        """Whether every stage up to `up_to` is done, and by the generator the
        settings name now: reconciling then needs no model loaded (a run that
        only refreshes vectors or sentences, queued at start)."""
        if self._generator is not None or self.situating_setting != self.settings.situating_sentences:
            return False
        return (stage_reached(self.library, self.book_id) >= up_to
                and not _built_by_another_generator(self.library, self.book_id, self.settings, {}))

    @property
    def situate(self) -> bool:
        """Whether stage 2 writes situating sentences with this generator."""
        return writes_situating(self.generator, self.situating_setting)

    def _record_stage(self, stage: int, stats: dict) -> None:
        builder = {"chunking": self.store.manifest_value("chunking"), "embedder": self.store.manifest_value("embedder")}
        if stage >= 2:
            builder["generator"] = self.store.manifest_value("generator")
        with self.store.transaction():
            self.store.set_manifest_value(f"stage{stage}", builder)
            self.store.set_manifest_value(f"stats{stage}", stats)

    def _dirty(self) -> bool:
        generation = current_generation(self.folder)
        revision = self.store.manifest_value("revision") or 0
        return revision > 0 and (generation is None or self.store.manifest_value("published") != revision)

    def _bump(self) -> None:
        self.store.set_manifest_value("revision", (self.store.manifest_value("revision") or 0) + 1)

    def _publish(self, force: bool = False) -> None:
        """Build the search files anew if the records changed since they were
        (or, forced, in any case: they were found damaged)."""
        if not force and not self._dirty():
            return
        revision = self.store.manifest_value("revision")
        build_generation(self.folder, self.store)
        with self.store.transaction():
            self.store.set_manifest_value("published", revision)

    # ------------------------------------------------------------ stage 1

    def _stage1(self, report, cancel: CancelToken, words_only: bool = False) -> dict | None:
        """Every section cut into passages and published first, so a new book
        can be searched by its words within seconds; then each section
        embedded, the indexes rebuilt every little while as vectors land."""
        embedded = self.store.done_units(_PASSAGES)
        cut = self.store.done_units(_CUT) | embedded
        lengths = {s.ordinal: s.end - s.start for s in self.book.sections}
        cut_weight = {ordinal: int(length * _CUT_SHARE) for ordinal, length in lengths.items()}
        clock = _Clock(1, STAGES[1], list(lengths.values()),
                       done_weight=sum(cut_weight[o] for o in lengths if str(o) in cut)
                       + sum(length - cut_weight[o] for o, length in lengths.items() if str(o) in embedded))
        clock.searchable = current_generation(self.folder) is not None
        writing, segmentation = WritingStats(), SegmentationStats()
        passages_made = 0
        for section in [s for s in self.book.sections if str(s.ordinal) not in cut]:
            cancel.wait_while_paused()
            if cancel.cancelled:
                raise Cancelled()
            report(clock.event(section.label))
            if self.parameters.segmenter == "llm":
                spans = llm_passages(self.generator, self.book, section, cancel, writing, segmentation, self.parameters)
            else:
                spans = fixed_passages(self.book, section, self.parameters)
            nodes = [Node(id=f"p{section.ordinal}.{n}", level=1, kind=PASSAGE, section=section.ordinal, seq=n,
                          text=self.book.text[span.start:span.end], start=span.start, end=span.end,
                          paragraph_first=span.paragraph_first, paragraph_last=span.paragraph_last,
                          tokens=span.tokens, title=span.title)
                     for n, span in enumerate(spans, start=1)]
            with self.store.transaction():
                self.store.delete_nodes(kind=PASSAGE, section=section.ordinal)
                self.store.put_nodes(nodes)
                self.store.mark_done(_CUT, str(section.ordinal), {"passages": len(nodes)})
                self._bump()
            passages_made += len(nodes)
            clock.advance(cut_weight[section.ordinal])
        self._publish()
        clock.searchable = True
        report(clock.event("searchable by words"))
        if words_only:
            return None
        published = time.monotonic()
        for section in [s for s in self.book.sections if str(s.ordinal) not in embedded]:
            cancel.wait_while_paused()
            if cancel.cancelled:
                raise Cancelled()
            report(clock.event(section.label))
            nodes = self.store.nodes(kind=PASSAGE, section=section.ordinal)
            vectors, sentences = self._embedded(nodes, cancel)
            with self.store.transaction():
                self.store.put_vectors(vectors)
                self.store.put_sentences(sentences)
                self.store.mark_done(_PASSAGES, str(section.ordinal), {"passages": len(nodes)})
                self._bump()
            clock.advance(lengths[section.ordinal] - cut_weight[section.ordinal])
            if time.monotonic() - published >= _PUBLISH_EVERY_SECONDS:
                self._publish()
                published = time.monotonic()
        report(clock.event("vectors"))
        refreshed = self._refresh_vectors(report, cancel)
        report(clock.finished())
        return {"passages": self.store.count(PASSAGE), "passages_made": passages_made, "vectors_refreshed": refreshed,
                "book_tokens": sum(n.tokens or 0 for n in self.store.nodes(kind=PASSAGE)),
                "segmentation": segmentation.__dict__ if self.parameters.segmenter == "llm" else None,
                "llm": writing.as_dict() if self.parameters.segmenter == "llm" else None}

    def _refresh_vectors(self, report, cancel: CancelToken) -> int:
        """Embed every node whose vector is missing or stale (a new embedder,
        a new situating sentence), and every passage without its sentence
        vectors (an index made before they were kept), a few at a time, each
        batch committed. A whole book's refresh takes minutes: it reports its
        own progress and pauses for answers like the stage's first pass."""
        nodes = self.store.nodes()
        stale = self.store.stale_vectors(nodes)
        if getattr(self.embedder, "reads_tokens", False):
            known = {node.id for node in stale}
            stale += [node for node in self.store.stale_sentences(nodes) if node.id not in known]
        clock = _Clock(1, "vectors", [len(node.text) for node in stale])
        for start in range(0, len(stale), 32):
            cancel.wait_while_paused()
            batch = stale[start:start + 32]
            report(clock.event(""))
            vectors, sentences = self._embedded(batch, cancel)
            with self.store.transaction():
                self.store.put_vectors(vectors)
                self.store.put_sentences(sentences)
                self._bump()
            clock.advance(sum(len(node.text) for node in batch))
        return len(stale)

    def _embedded(self, nodes: list[Node], cancel: CancelToken) -> tuple[list, list]:
        """Rows for `put_vectors`, and for `put_sentences` the sentence spans
        and vectors of each passage, read in the same pass where the embedder
        gives word-piece vectors (for the evidence digest: no embedding at
        question time)."""
        texts = [node.embedded_text() for node in nodes]
        if not getattr(self.embedder, "reads_tokens", False) or not any(node.kind == PASSAGE for node in nodes):
            vectors = embed_windows(self.embedder, texts, cancel)
            return [(n.id, n.text_hash(), v) for n, v in zip(nodes, vectors)], []
        spans = [sentence_spans(self.book.text, node.start, node.end) if node.kind == PASSAGE else [] for node in nodes]
        # Offsets within the embedded text, which opens with any situating sentence.
        shifts = [len(text) - len(node.text) - (node.start or 0) for text, node in zip(texts, nodes)]
        relative = [[(a + shift, b + shift) for a, b in mine] for mine, shift in zip(spans, shifts)]
        vectors, sentence_vectors = embed_windows_and_sentences(self.embedder, texts, relative, cancel)
        return ([(n.id, n.text_hash(), v) for n, v in zip(nodes, vectors)],
                [(n.id, n.sentence_key(), mine, found) for n, mine, found in zip(nodes, spans, sentence_vectors)
                 if n.kind == PASSAGE])

    # ------------------------------------------------------------ stage 2

    def _stage2(self, report, cancel: CancelToken) -> dict:
        done = self.store.done_units(_CONTEXT) & self.store.done_units(_SUMMARY)
        sections = self.book.sections
        clock = _Clock(2, STAGES[2], [s.end - s.start for s in sections],
                       done_weight=sum(s.end - s.start for s in sections if str(s.ordinal) in done))
        stats = WritingStats()
        identity = self.store.manifest_value("generator")["key"]
        for section in sections:
            if str(section.ordinal) in done:
                continue
            if cancel.cancelled:
                raise Cancelled()
            report(clock.event(section.label))
            passages = self.store.nodes(kind=PASSAGE, section=section.ordinal)
            if passages:
                contexts, summaries = situate_and_summarize(self.generator, self.book, section, passages, cancel,
                                                            stats, identity, situate=self.situate)
            else:
                contexts, summaries = {}, []
            # Only passages whose situating sentence changed are embedded again.
            restated = [passage for passage in passages if passage.context != contexts.get(passage.id)]
            for passage in restated:
                passage.context = contexts.get(passage.id)
            changed = restated + summaries
            vectors, sentences = self._embedded(changed, cancel)
            with self.store.transaction():
                self.store.set_contexts({passage.id: passage.context for passage in passages}, identity)
                self.store.delete_nodes(section=section.ordinal, kinds=(PART_SUMMARY, SECTION_SUMMARY))
                self.store.put_nodes(summaries)
                self.store.put_vectors(vectors)
                self.store.put_sentences(sentences)
                self.store.mark_done(_CONTEXT, str(section.ordinal))
                self.store.mark_done(_SUMMARY, str(section.ordinal))
                self._bump()
            clock.advance(section.end - section.start)
        report(clock.finished())
        return stats.as_dict()

    # ------------------------------------------------------------ stage 3

    def _stage3(self, report, cancel: CancelToken) -> dict:
        stats = WritingStats()
        if "all" in self.store.done_units(_TIERS):
            return stats.as_dict()
        summaries = [self.store.node(f"s{s.ordinal}") for s in self.book.sections]
        level_nodes = [node for node in summaries if node is not None]
        total_calls = _tier_calls(len(level_nodes))
        clock = _Clock(3, STAGES[3], [1] * max(1, total_calls))
        identity = self.store.manifest_value("generator")["key"]
        tiers: list[Node] = []
        depth = 1
        while len(level_nodes) > 1:
            next_level = []
            for index in range(0, len(level_nodes), _TIER_GROUP):
                group = level_nodes[index:index + _TIER_GROUP]
                report(clock.event(f"tier {depth}"))
                covered = sorted({s for node in group for s in node.sections})
                if len(group) == 1:
                    text = group[0].text
                else:
                    names = [node.title or node.id for node in group]
                    joined = "\n".join(f"{node.title or node.id}: {node.text}" for node in group)
                    text = combine(self.generator, self.book, names, joined, cancel, stats, identity)
                    clock.advance(1)
                first, last = self.book.sections[covered[0] - 1], self.book.sections[covered[-1] - 1]
                node = Node(id=f"t{depth}.{len(next_level) + 1}", level=2, kind=TIER_SUMMARY, section=None,
                            seq=len(next_level) + 1, text=text, start=first.start, end=last.end,
                            title=f"{first.label} to {last.label}" if first is not last else first.label,
                            sections=covered, built_by=identity)
                next_level.append(node)
            tiers.extend(next_level)
            level_nodes = next_level
            depth += 1
        if level_nodes:
            root = level_nodes[0]
            book_node = Node(id="book", level=2, kind=BOOK_SUMMARY, section=None, seq=0, text=root.text,
                             start=self.book.sections[0].start if self.book.sections else 0,
                             end=len(self.book.text), title=f"{self.book.title}: the whole book",
                             sections=[s.ordinal for s in self.book.sections], built_by=identity)
            tiers = [t for t in tiers if t.id != root.id] + [book_node]
        vectors = embed_windows(self.embedder, [node.embedded_text() for node in tiers], cancel)
        with self.store.transaction():
            self.store.delete_nodes(kinds=(TIER_SUMMARY, BOOK_SUMMARY))
            self.store.put_nodes(tiers)
            self.store.put_vectors([(n.id, n.text_hash(), v) for n, v in zip(tiers, vectors)])
            self.store.mark_done(_TIERS, "all")
            self._bump()
        report(clock.finished())
        return stats.as_dict()

    # ------------------------------------------------------------ stage 4

    def _stage4(self, report, cancel: CancelToken) -> dict:
        stats = WritingStats()
        done = self.store.done_units(_CARDS)
        if set(CARD_NAMES) <= done:
            return stats.as_dict()
        clock = _Clock(4, STAGES[4], [1] * len(CARD_NAMES), done_weight=len(done & set(CARD_NAMES)))
        report(clock.event("cards"))
        section_summaries = {node.section: node.text for node in self.store.nodes(kind=SECTION_SUMMARY)}
        book_node = self.store.node("book")
        book_summary = book_node.text if book_node else " ".join(section_summaries.values())[:2000]
        identity = self.store.manifest_value("generator")["key"]
        cards = write_cards(self.generator, self.book, section_summaries, book_summary, cancel, stats, identity,
                            skip=done)
        for card in cards:
            vectors = embed_windows(self.embedder, [card.embedded_text()], cancel)
            with self.store.transaction():
                self.store.put_nodes([card])
                self.store.put_vectors([(card.id, card.text_hash(), vectors[0])])
                self.store.mark_done(_CARDS, card.id.split(":", 1)[1])
                self._bump()
            clock.advance(1)
        report(clock.finished())
        return stats.as_dict()


def stage_reached(library, book_id: str) -> int:
    """How far a book's index has got, read from its checkpoints alone (no
    book text loaded): cheap enough for listing a whole library."""
    sections = library.summary(book_id).sections
    rows = _read_only(library, book_id, "SELECT step, COUNT(*) FROM index_progress GROUP BY step")
    if rows is None:
        return 0  # never indexed: the tables do not exist yet
    done = dict(rows)
    stage = 0
    for number, complete in enumerate((done.get(_PASSAGES, 0) >= sections, done.get(_CONTEXT, 0) >= sections,
                                       done.get(_SUMMARY, 0) >= sections and done.get(_TIERS, 0) >= 1,
                                       done.get(_CARDS, 0) >= len(CARD_NAMES)), start=1):
        if not complete:
            break
        stage = number
    return stage


def is_searchable(library, book_id: str) -> bool:
    """Whether a book's index has been published (its words at least), read
    from the pointer file alone: cheap enough for listing a whole library."""
    return current_generation(library.folder(book_id) / "index") is not None


def stage_in_use(library, book_id: str, settings, specs: dict | None = None) -> int:
    """stage_reached, but lower where the settings now name other models than
    those that built the index, so the book is queued again: 0 when another
    embedder made its vectors (stage 1 re-embeds every node; the text search
    keeps working meanwhile), 1 when another generator (or situating choice)
    wrote stages 2-4. Reads, loads no model. `specs` keeps what the settings
    name, worked out once, for a caller that lists every book."""
    stage = stage_reached(library, book_id)
    specs = {} if specs is None else specs
    if stage >= 1 and settings is not None and _built_by_another_embedder(library, book_id, settings, specs):
        return 0
    if stage >= 2 and settings is not None and _built_by_another_generator(library, book_id, settings, specs):
        return 1
    return stage


def lacks_sentence_vectors(library, book_id: str) -> bool:
    """Whether a searchable book's passages lack the sentence vectors stage 1
    keeps for the evidence digest, or have them cut by another splitter (an
    index made before it kept them, or before syntok): a run of the indexer
    makes them. Reads, loads no model. An embedder known to give none (a
    remote one, or one pooled by its CLS token) needs no run."""
    embedder = _manifest_entry(library, book_id, "embedder")
    if embedder is None or embedder.get("backend") == "remote" or embedder.get("sentence_vectors") is False:
        return False
    rows = _read_only(library, book_id, "SELECT COUNT(*) FROM index_nodes n WHERE n.kind = ? AND NOT EXISTS "
                      "(SELECT 1 FROM index_sentences s WHERE s.node_id = n.id AND s.text_hash LIKE ?)",
                      (PASSAGE, f"% {SENTENCE_SPLITTER}"))
    # No such table: the database predates sentence vectors.
    return rows is None or rows[0][0] > 0


def _read_only(library, book_id: str, query: str, parameters: tuple = ()) -> list | None:
    """A query's rows from a book's database, opened read-only; None before
    indexing has made its tables."""
    database = library.folder(book_id) / "book.sqlite"
    try:
        connection = open_read_only(database)
        try:
            with damage_reported(database):
                return connection.execute(query, parameters).fetchall()
        finally:
            connection.close()
    except sqlite3.OperationalError:
        return None


def _manifest_entry(library, book_id: str, key: str) -> dict | None:
    rows = _read_only(library, book_id, "SELECT value FROM index_manifest WHERE key = ?", (key,))
    if not rows:
        return None
    return stored_json(rows[0][0], library.folder(book_id) / "book.sqlite", f"index manifest entry {key}")


def _built_and_chosen(library, book_id: str, key: str, spec_of, settings, specs: dict) -> tuple[dict, dict] | None:
    """What the manifest says built this part of the index, and what the
    settings would use now (without loading it); None if either is unknown."""
    built = _manifest_entry(library, book_id, key)
    if built is None:
        return None
    if key not in specs:
        try:
            specs[key] = spec_of(settings)
        except ModelError:
            specs[key] = None  # a model that is missing is reported when indexing runs
    return (built, specs[key]) if specs[key] is not None else None


def _built_by_another_embedder(library, book_id: str, settings, specs: dict) -> bool:
    from ..llm.loading import embedder_spec

    known = _built_and_chosen(library, book_id, "embedder", embedder_spec, settings, specs)
    if known is None:
        return False
    built, spec = known
    if spec["backend"] == "remote":
        return built.get("backend") != "remote" or bool(spec["endpoint"].model
                                                        and built.get("model") != spec["endpoint"].model)
    path = Path(spec["model_path"])
    if built.get("backend") == "remote" or (built.get("model"), built.get("file")) != (spec["model_id"], path.name):
        return True
    # Other weights under the same name (a model package upgraded): the
    # stored vectors would not compare with the new model's queries. (A run
    # compares the same fingerprint, and redoes them.)
    try:
        return bool(built.get("checksum")) and checksum(path) != built["checksum"]
    except OSError:
        return False


def _built_by_another_generator(library, book_id: str, settings, specs: dict) -> bool:
    from ..llm.loading import generator_spec

    known = _built_and_chosen(library, book_id, "generator", generator_spec, settings, specs)
    if known is None:
        return False
    built, spec = known
    if spec["backend"] != built.get("backend"):
        return True
    if spec["backend"] == "llama.cpp" and (built.get("file"), built.get("model")) != (spec["path"].name,
                                                                                    spec["model_id"]):
        return True
    if spec["backend"] == "remote" and spec["endpoint"].model and built.get("model") != spec["endpoint"].model:
        return True
    # The same model: "auto" asks it for situating sentences by its size. An
    # endpoint's is unknown and counts as capable, as in `writes_situating`; a
    # local file's, when neither the manifest nor the catalogue knows it, is
    # only known once loaded, so "auto" is taken to follow the model.
    choice = settings.situating_sentences
    if choice == "auto":
        parameters = writer_parameters(built)
        if parameters is None and spec["backend"] == "llama.cpp":
            return False
        wanted = parameters is None or parameters >= SMALL_MODEL_PARAMETERS
    else:
        wanted = choice == "on"
    return built.get("situating", True) != wanted


def _tier_calls(count: int) -> int:
    calls = 0
    while count > 1:
        groups = -(-count // _TIER_GROUP)
        calls += sum(1 for g in range(groups) if min(_TIER_GROUP, count - g * _TIER_GROUP) > 1)
        count = groups
    return calls


class _Clock:
    """Progress and time left within a stage, from the work done so far
    (weighted: a long chapter counts for more than a short one)."""

    def __init__(self, stage: int, name: str, weights: list[int], done_weight: int = 0):
        self.stage, self.name = stage, name
        self.total = max(1, sum(weights))
        self.count = len(weights)
        self.done = done_weight
        self.done_at_start = done_weight
        self.started = time.monotonic()
        self.units = 0
        self.searchable = True

    def advance(self, weight: int) -> None:
        self.done += weight
        self.units += 1

    def event(self, detail: str) -> Progress:
        elapsed = time.monotonic() - self.started
        fresh = self.done - self.done_at_start
        eta = elapsed / fresh * (self.total - self.done) if fresh > 0 else None
        return Progress(self.stage, self.name, min(self.done, self.total), self.total, eta, detail, self.searchable)

    def finished(self) -> Progress:
        return Progress(self.stage, self.name, self.total, self.total, 0.0, "done", self.searchable)


def _guarded(function, book: Book, folder: Path):
    try:
        return function()
    except (sqlite3.OperationalError, OSError) as error:
        raise _storage_error(error, book, folder) from None


def _storage_error(error: Exception, book: Book, folder: Path) -> IndexingError:
    problem = storage_problem(error, folder)
    if problem == "full":
        reason = "the disk is full; free some space and index again: it resumes where it stopped"
    elif problem == "read-only":
        reason = "the data folder is not writable; check its permissions (or CHAPTERHOUSE_HOME)"
    else:
        reason = f"storage failed ({error}); the index stays at its last checkpoint"
    return IndexingError(f"{book.title}: {reason}")
