"""The on-disk search indexes of a book: Tantivy (stemmed English BM25) and
hnswlib (cosine), both derived from the index tables in SQLite.

Each level of the ladder (passages, summaries, cards) has a Tantivy index of
its own, so BM25's word statistics for passages are the book's alone: with
one index, the summaries' and cards' words made a passage's rank depend on
what the LLM stages wrote (The Call of the Wild lost a required chapter).

Each build writes a complete new generation into a folder of its own and then
switches the `CURRENT` pointer with one atomic rename, so readers see either
the old indexes or the new ones, never a half-built one, and a kill during a
build leaves only a stray folder that the next build sweeps away. Files found
missing or unreadable when opened (a disk error, a sync tool) raise
SearchFilesDamaged; the search rebuilds them from the store (search.py).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import uuid
import weakref
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import ChapterhouseError
from ..processes import process_alive
from .store import IndexStore

_POINTER = "CURRENT"
_TANTIVY = "tantivy"
NO_SECTION = -1


class SearchFilesDamaged(ChapterhouseError):
    """A search file of the current generation is missing or unreadable (a
    disk error, a sync tool, a hand in the folder). The files are derived
    from the book's records, which are untouched: they can be rebuilt."""


@dataclass
class Generation:
    number: int
    folder: Path
    nodes: int
    vectors: int
    levels: list[int] | None = None  # the levels with a text index (None: written before this was noted)


def current_generation(folder: Path) -> Generation | None:
    pointer = folder / _POINTER
    try:
        data = json.loads(pointer.read_text())
    except (OSError, ValueError):
        return None
    target = folder / data["folder"]
    if not target.is_dir():
        return None
    return Generation(data["generation"], target, data.get("nodes", 0), data.get("vectors", 0), data.get("levels"))


def build_generation(folder: Path, store: IndexStore) -> Generation:
    """Build Tantivy and HNSW from the store into a new generation and switch to it."""
    folder.mkdir(parents=True, exist_ok=True)
    previous = current_generation(folder)
    number = (previous.number + 1) if previous else 1
    staging = folder / f"building-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    staging.mkdir()
    try:
        nodes, vectors, levels = _write_files(staging, store)
        target = folder / f"gen-{number}"
        if target.exists():
            shutil.rmtree(target)
        os.rename(staging, target)
        pointer = folder / (_POINTER + ".tmp")
        pointer.write_text(json.dumps({"generation": number, "folder": target.name, "nodes": nodes,
                                       "vectors": vectors, "levels": levels}))
        os.replace(pointer, folder / _POINTER)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    _sweep(folder, keep=target.name)
    return Generation(number, target, nodes, vectors, levels)


def build_private(store: IndexStore, number: int) -> Generation:
    """The search files built from the store into a temporary folder of this
    process's own, published nowhere (the caller removes it): searching goes
    on while the book's published files cannot be replaced (its indexing
    runs elsewhere, or its disk takes no writes)."""
    folder = Path(tempfile.mkdtemp(prefix="chapterhouse-search-"))
    try:
        nodes, vectors, levels = _write_files(folder, store)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return Generation(number, folder, nodes, vectors, levels)


def _write_files(folder: Path, store: IndexStore) -> tuple[int, int, list[int]]:
    """Tantivy per level, HNSW and its id map, written into `folder`:
    (nodes, vectors, levels)."""
    import hnswlib
    import tantivy

    nodes = store.nodes()
    schema = _schema()
    levels = sorted({node.level for node in nodes})
    for level in levels:
        path = folder / f"{_TANTIVY}-{level}"
        path.mkdir()
        index = tantivy.Index(schema, path=str(path))
        writer = index.writer(heap_size=64_000_000, num_threads=1)
        for node in nodes:
            if node.level == level:
                writer.add_document(tantivy.Document(
                    node_id=node.id, level=node.level,
                    section=node.section if node.section is not None else NO_SECTION,
                    text=node.text, context=" ".join(filter(None, [node.title, node.context])),
                ))
        writer.commit()
        writer.wait_merging_threads()

    ids, matrix = store.vectors()
    if ids:
        space = hnswlib.Index(space="cosine", dim=matrix.shape[1])
        space.init_index(max_elements=len(ids), ef_construction=200, M=16, random_seed=7)
        space.add_items(matrix, np.arange(len(ids)), num_threads=1)
        space.save_index(str(folder / "vectors.hnsw"))
    meta = {node.id: (node.level, node.section if node.section is not None else NO_SECTION) for node in nodes}
    (folder / "vectors.json").write_text(json.dumps({"ids": ids, "dimension": int(matrix.shape[1]) if ids else 0,
                                                     "levels": [meta[i][0] for i in ids],
                                                     "sections": [meta[i][1] for i in ids]}))
    return len(nodes), len(ids), levels


def _sweep(folder: Path, keep: str) -> None:
    for entry in folder.iterdir():
        if entry.is_dir() and entry.name != keep and (entry.name.startswith("gen-") or entry.name.startswith("building-")):
            pid = entry.name.split("-")[1] if entry.name.startswith("building-") else None
            if pid and pid.isdigit() and int(pid) != os.getpid() and process_alive(int(pid)):
                continue
            shutil.rmtree(entry, ignore_errors=True)


def _schema():
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("node_id", stored=True, tokenizer_name="raw")
    builder.add_integer_field("level", stored=True, indexed=True, fast=True)
    builder.add_integer_field("section", stored=True, indexed=True, fast=True)
    builder.add_text_field("text", stored=False, tokenizer_name="en_stem")
    builder.add_text_field("context", stored=False, tokenizer_name="en_stem")
    return builder.build()


_QUERY_NOISE = re.compile(r"[^\w\s'\"-]")
_OPERATORS = re.compile(r"\b(AND|OR|NOT|IN)\b")


def _opened(path: Path, open_file):
    """What `open_file` returns; its failure, as SearchFilesDamaged naming the file."""
    try:
        return open_file()
    except FileNotFoundError:
        raise SearchFilesDamaged(f"{path}: missing") from None
    except (OSError, ValueError, RuntimeError) as error:
        # Tantivy and hnswlib report a damaged file as a plain error.
        raise SearchFilesDamaged(f"{path}: unreadable ({' '.join(str(error).split())})") from None


class OpenGeneration:
    """One generation's indexes, opened for searching."""

    def __init__(self, generation: Generation):
        """Raises SearchFilesDamaged, naming the file, if one is missing or unreadable."""
        self.generation = generation
        folder = generation.folder
        # level -> (index, searcher); None stands for every level, in a
        # generation written before levels had an index each.
        self.indexes: dict[int | None, tuple] = {}
        for path in folder.glob(f"{_TANTIVY}*"):
            level = int(path.name.rsplit("-", 1)[1]) if "-" in path.name else None
            index = _opened(path, lambda: self._open_text_index(path))
            self.indexes[level] = (index, index.searcher())
        expected = generation.levels if generation.levels is not None else ([1] if generation.nodes else [])
        for level in expected:
            if level not in self.indexes and None not in self.indexes:
                raise SearchFilesDamaged(f"{folder / f'{_TANTIVY}-{level}'}: missing")
        meta = _opened(folder / "vectors.json", lambda: json.loads((folder / "vectors.json").read_text()))
        try:
            self.ids: list[str] = meta["ids"]
            self.levels = np.array(meta["levels"], dtype=np.int64)
            self.sections = np.array(meta["sections"], dtype=np.int64)
            dimension = meta["dimension"]
        except (KeyError, TypeError, ValueError) as error:
            raise SearchFilesDamaged(f"{folder / 'vectors.json'}: unreadable ({error!r})") from None
        self.space = None
        if self.ids:
            import hnswlib

            space = hnswlib.Index(space="cosine", dim=dimension)
            path = folder / "vectors.hnsw"
            _opened(path, lambda: space.load_index(str(path), max_elements=len(self.ids)))
            if space.get_current_count() != len(self.ids):
                raise SearchFilesDamaged(f"{path}: holds {space.get_current_count()} vectors, not {len(self.ids)}")
            self.space = space

    def embedded(self, level: int) -> int:
        """How many nodes of a level have vectors in this generation (fewer
        than there are while stage 1 is still embedding a new book)."""
        return len({node_id for node_id, node_level in zip(self.ids, self.levels) if node_level == level})

    def _open_text_index(self, path: Path):
        import tantivy

        try:
            return tantivy.Index.open(str(path))
        except ValueError as error:
            if "lockfile" not in str(error).lower():
                raise
        # Tantivy takes a lock file even to read, which a read-only disk
        # refuses: read a private copy (a few MB), removed with this object.
        copies = Path(tempfile.mkdtemp(prefix="chapterhouse-index-"))
        weakref.finalize(self, shutil.rmtree, copies, True)
        return tantivy.Index.open(str(shutil.copytree(path, copies / path.name)))

    def bm25(self, query: str, levels: set[int], sections: set[int] | None, k: int,
             fields: tuple[str, ...] = ("text", "context")) -> list[tuple[str, float]]:
        cleaned = _OPERATORS.sub(lambda m: m.group(0).lower(), _QUERY_NOISE.sub(" ", query))
        if cleaned.count('"') % 2:
            cleaned = cleaned.replace('"', " ")
        if not cleaned.strip():
            return []
        return self._run(cleaned, list(fields), levels, sections, k)

    def phrase(self, words: str, levels: set[int], sections: set[int] | None, k: int) -> list[tuple[str, float]]:
        """Passages holding these words in this order (stemmed): an exact anchor."""
        cleaned = " ".join(_QUERY_NOISE.sub(" ", words).replace('"', " ").split())
        if not cleaned:
            return []
        return self._run(f'"{cleaned}"', ["text"], levels, sections, k)

    def _run(self, query: str, fields: list[str], levels: set[int], sections: set[int] | None,
             k: int) -> list[tuple[str, float]]:
        import tantivy

        ranked: list[tuple[int, float, str]] = []
        for level, (index, searcher) in self.indexes.items():
            if level is not None and level not in levels:
                continue
            parsed, _errors = index.parse_query_lenient(query, fields)
            clauses = [(tantivy.Occur.Must, parsed),
                       (tantivy.Occur.Must, tantivy.Query.term_set_query(index.schema, "level", sorted(levels)))]
            if sections is not None:
                clauses.append((tantivy.Occur.Must,
                                tantivy.Query.term_set_query(index.schema, "section", sorted(sections))))
            found = searcher.search(tantivy.Query.boolean_query(clauses), limit=k, count=False)
            ranked.extend((rank, -float(score), searcher.doc(address)["node_id"][0])
                          for rank, (score, address) in enumerate(found.hits))
        # Each level has its own index and so its own BM25 statistics: scores
        # from two levels do not compare, their ranks do. Levels searched
        # together take turns, best first.
        return [(node_id, -negated) for _, negated, node_id in sorted(ranked)[:k]]

    def dense(self, vector: np.ndarray, levels: set[int], sections: set[int] | None, k: int) -> list[tuple[str, float]]:
        if self.space is None:
            return []
        allowed = np.isin(self.levels, sorted(levels))
        if sections is not None:
            allowed &= np.isin(self.sections, sorted(sections))
        available = int(allowed.sum())
        if not available:
            return []
        # A node has a vector per window: fetch enough rows for k nodes, keep each node's best.
        limit = min(k * 3, available)
        self.space.set_ef(max(64, limit * 2))
        labels, distances = self.space.knn_query(vector.reshape(1, -1), k=limit, filter=lambda label: bool(allowed[label]))
        best: dict[str, float] = {}
        for label, distance in zip(labels[0], distances[0]):
            node_id = self.ids[label]
            if node_id not in best:
                best[node_id] = 1.0 - float(distance)
        return list(best.items())[:k]
