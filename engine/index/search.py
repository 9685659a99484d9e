"""One search call over a book's ladder: BM25 and dense vectors, fused by
reciprocal rank fusion, over the levels asked for (1 passages, 2 summaries,
3 cards), optionally within some sections."""

from __future__ import annotations

import shutil
import threading
import weakref
from dataclasses import dataclass
from pathlib import Path

from .searchfiles import NO_SECTION, OpenGeneration, SearchFilesDamaged, build_private, current_generation
from .store import IndexStore, Node

RRF_K = 60
ALL_LEVELS = (1, 2, 3)


@dataclass
class Hit:
    node: Node
    score: float  # fused: the sum of 1 / (60 + rank) over the lists that found it
    bm25_rank: int | None = None
    dense_rank: int | None = None
    bm25_score: float | None = None
    dense_score: float | None = None


class BookSearch:
    """Searches one book; reopens the indexes when a newer generation lands.
    Search files found damaged are rebuilt from the book's records: published
    by `repair` (callable() -> whether it could) where the book's indexing
    lets it, else for this search alone until a newer generation lands."""

    def __init__(self, index_folder: Path, store: IndexStore, embedder=None, repair=None):
        self.folder = index_folder
        self.store = store
        self.embedder = embedder
        self.repair = repair
        self._open: OpenGeneration | None = None
        self._stands_in_for: Path | None = None  # the damaged generation a private rebuild replaces
        self._opening = threading.Lock()  # one rebuild, not one per thread asking
        self._query_vectors: dict[str, object] = {}

    def _generation(self) -> OpenGeneration | None:
        generation = current_generation(self.folder)
        if generation is None and not self.store.manifest_value("published"):
            return None  # a new book, not searchable yet
        key = generation.folder if generation is not None else self.folder  # the folder: files all gone
        with self._opening:
            if self._open is None or key not in (self._open.generation.folder, self._stands_in_for):
                try:
                    if generation is None:
                        raise SearchFilesDamaged(f"{self.folder}: the book's search files are missing")
                    self._open, self._stands_in_for = OpenGeneration(generation), None
                except SearchFilesDamaged as damaged:
                    self._open = self._rebuilt(key, generation.number if generation is not None else 0, damaged)
            return self._open

    def _rebuilt(self, damaged_folder: Path, number: int, damaged: SearchFilesDamaged) -> OpenGeneration:
        if self.repair is not None and self.repair():
            republished = current_generation(self.folder)
            if republished is not None:
                self._stands_in_for = None
                return OpenGeneration(republished)
        try:
            private = build_private(self.store, number)
        except (OSError, ValueError, RuntimeError) as error:
            reason = " ".join(str(error).split())
            raise SearchFilesDamaged(f"{damaged}; rebuilding the book's search files failed ({reason})") from None
        opened = OpenGeneration(private)
        weakref.finalize(opened, shutil.rmtree, private.folder, True)
        self._stands_in_for = damaged_folder
        return opened

    def open(self) -> bool:
        """Open the published search files now (as a book opens, in a worker)
        rather than in its first question's retrieval; whether there are any."""
        return self._generation() is not None

    @property
    def is_open(self) -> bool:
        return self._open is not None

    @property
    def dense_available(self) -> bool:
        built = self.store.manifest_value("embedder")
        return self.embedder is not None and built is not None and built.get("key") == embedder_key(self.embedder)

    # ---------------------------------------------------- ranked lists (node id, score)

    def bm25(self, query: str, levels=ALL_LEVELS, k: int = 50, sections=None) -> list[tuple[str, float]]:
        opened = self._generation()
        return opened.bm25(query, set(levels), _set(sections), k) if opened and query.strip() else []

    def phrase(self, words: str, levels=ALL_LEVELS, k: int = 50, sections=None) -> list[tuple[str, float]]:
        opened = self._generation()
        return opened.phrase(words, set(levels), _set(sections), k) if opened and words.strip() else []

    def dense(self, query: str, levels=ALL_LEVELS, k: int = 50, sections=None) -> list[tuple[str, float]]:
        opened = self._generation()
        if opened is None or not query.strip() or not self.dense_available:
            return []
        return opened.dense(self.query_vector(query), set(levels), _set(sections), k)

    def embedded_passages(self) -> int:
        opened = self._generation()
        return opened.embedded(1) if opened is not None and self.dense_available else 0

    def query_vector(self, query: str):
        vector = self._query_vectors.get(query)
        if vector is None:
            vector = self._query_vectors[query] = self.embedder.embed_query(query)
        return vector

    def nodes(self, ids: list[str]) -> list[Node]:
        return [node for node in (self.store.node(node_id) for node_id in ids) if node is not None]

    # ---------------------------------------------------- the fused search

    def search(self, query: str, levels: tuple[int, ...] | list[int] = ALL_LEVELS, k: int = 10,
               sections: list[int] | set[int] | None = None) -> list[Hit]:
        opened = self._generation()
        if opened is None or not query.strip():
            return []
        depth = max(k * 4, 50)
        lexical = self.bm25(query, levels, depth, sections)
        dense = self.dense(query, levels, depth, sections)
        fused: dict[str, Hit] = {}
        for rank, (node_id, score) in enumerate(lexical, start=1):
            hit = fused.setdefault(node_id, Hit(node=None, score=0.0))  # type: ignore[arg-type]
            hit.score += 1.0 / (RRF_K + rank)
            hit.bm25_rank, hit.bm25_score = rank, score
        for rank, (node_id, score) in enumerate(dense, start=1):
            hit = fused.setdefault(node_id, Hit(node=None, score=0.0))  # type: ignore[arg-type]
            hit.score += 1.0 / (RRF_K + rank)
            hit.dense_rank, hit.dense_score = rank, score
        ranked = sorted(fused.items(), key=lambda item: -item[1].score)[:k]
        hits = []
        for node_id, hit in ranked:
            node = self.store.node(node_id)
            if node is not None:  # a node replaced since the last build
                hit.node = node
                hits.append(hit)
        return hits


def embedder_key(embedder) -> str:
    from .builders import embedder_identity

    return embedder_identity(embedder)["key"]


def _set(values) -> set[int] | None:
    """Sections to search in; None among them stands for text outside any
    section (front matter)."""
    return {NO_SECTION if value is None else value for value in values} if values is not None else None
