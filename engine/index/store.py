"""The index's records in the book's SQLite database: nodes (passages,
summaries, cards), their vectors, per-section checkpoints and the manifest.

SQLite is the source of truth. Every unit of work (a section's passages, a
section's situating sentences...) lands in one transaction together with its
checkpoint, so a kill at any moment leaves either the whole unit or none of
it. The Tantivy and HNSW files are derived from these tables and rebuilt from
them (see `searchindex`).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np

from ..errors import BookDamagedError
from ..store.bookdb import damage_reported, open_read_only, reports_damage
from .chunking import SENTENCE_SPLITTER

INDEX_FORMAT = 1
PASSAGE, PART_SUMMARY, SECTION_SUMMARY, TIER_SUMMARY, BOOK_SUMMARY, CARD = (
    "passage", "part-summary", "section-summary", "tier-summary", "book-summary", "card")
LEVEL_OF = {PASSAGE: 1, PART_SUMMARY: 2, SECTION_SUMMARY: 2, TIER_SUMMARY: 2, BOOK_SUMMARY: 2, CARD: 3}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS index_nodes (
    id TEXT PRIMARY KEY,
    level INTEGER NOT NULL,
    kind TEXT NOT NULL,
    section INTEGER,
    seq INTEGER NOT NULL,
    start INTEGER,
    end INTEGER,
    paragraph_first INTEGER,
    paragraph_last INTEGER,
    tokens INTEGER,
    text TEXT NOT NULL,
    context TEXT,
    title TEXT,
    data TEXT,
    sections TEXT,
    built_by TEXT
);
CREATE INDEX IF NOT EXISTS index_nodes_by_section ON index_nodes(section, kind, seq);
CREATE TABLE IF NOT EXISTS index_vectors (
    node_id TEXT NOT NULL REFERENCES index_nodes(id) ON DELETE CASCADE,
    window INTEGER NOT NULL,
    text_hash TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (node_id, window)
);
CREATE TABLE IF NOT EXISTS index_sentences (
    node_id TEXT PRIMARY KEY REFERENCES index_nodes(id) ON DELETE CASCADE,
    text_hash TEXT NOT NULL,
    spans BLOB NOT NULL,
    vectors BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS index_progress (
    step TEXT NOT NULL,
    unit TEXT NOT NULL,
    done_at REAL NOT NULL,
    stats TEXT,
    PRIMARY KEY (step, unit)
);
CREATE TABLE IF NOT EXISTS index_manifest (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


@dataclass
class Node:
    id: str
    level: int
    kind: str
    section: int | None
    seq: int
    text: str
    start: int | None = None
    end: int | None = None
    paragraph_first: int | None = None
    paragraph_last: int | None = None
    tokens: int | None = None
    context: str | None = None
    title: str | None = None
    data: dict | None = None
    sections: list[int] = field(default_factory=list)  # sections a summary or card covers
    built_by: str | None = None

    def embedded_text(self) -> str:
        """What the BM25 and vector indexes read: the situating sentence, then the text."""
        return f"{self.context}\n{self.text}" if self.context else self.text

    def text_hash(self) -> str:
        return hashlib.sha256(self.embedded_text().encode("utf-8")).hexdigest()[:20]

    def sentence_key(self) -> str:
        """What the passage's stored sentences were made from: its embedded
        text and the splitter that cut them."""
        return f"{self.text_hash()} {SENTENCE_SPLITTER}"


_COLUMNS = ("id", "level", "kind", "section", "seq", "start", "end", "paragraph_first", "paragraph_last", "tokens",
            "text", "context", "title", "data", "sections", "built_by")


def _row(node: Node) -> tuple:
    return (node.id, node.level, node.kind, node.section, node.seq, node.start, node.end, node.paragraph_first,
            node.paragraph_last, node.tokens, node.text, node.context, node.title,
            json.dumps(node.data) if node.data is not None else None, json.dumps(node.sections), node.built_by)


def _node(row: sqlite3.Row | tuple) -> Node:
    values = dict(zip(_COLUMNS, row))
    values["data"] = json.loads(values["data"]) if values["data"] else None
    values["sections"] = json.loads(values["sections"]) if values["sections"] else []
    return Node(**values)


@reports_damage
class IndexStore:
    def __init__(self, database: Path, readonly: bool = False):
        """readonly: for a disk that takes no writes (full, or not writable):
        what is stored can still be searched and answered from."""
        self.path = database
        self.writable = not readonly
        if readonly:
            self._connection = open_read_only(database, _SCHEMA, timeout=30, isolation_level=None)
            return
        self._connection = sqlite3.connect(database, timeout=30, check_same_thread=False, isolation_level=None)
        with damage_reported(database, self._connection):
            self._connection.execute("PRAGMA journal_mode=WAL")
            self._connection.execute("PRAGMA synchronous=NORMAL")
            self._connection.execute("PRAGMA foreign_keys=ON")
            self._connection.executescript(_SCHEMA)
        if self.manifest_value("format_version") is None:
            with self.transaction():
                self.set_manifest_value("format_version", INDEX_FORMAT)

    def close(self) -> None:
        self._connection.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self._connection.execute("BEGIN IMMEDIATE")
        try:
            yield self._connection
        except BaseException:
            self._connection.execute("ROLLBACK")
            raise
        self._connection.execute("COMMIT")

    # ------------------------------------------------------------ nodes

    def put_nodes(self, nodes: Iterable[Node]) -> None:
        """Insert or replace nodes (call inside a transaction)."""
        placeholders = ", ".join("?" for _ in _COLUMNS)
        self._connection.executemany(
            f"INSERT OR REPLACE INTO index_nodes ({', '.join(_COLUMNS)}) VALUES ({placeholders})",
            [_row(node) for node in nodes],
        )

    def delete_nodes(self, kind: str | None = None, section: int | None = None, kinds: tuple[str, ...] = ()) -> None:
        clauses, values = [], []
        wanted = tuple(kinds) + ((kind,) if kind else ())
        if wanted:
            clauses.append(f"kind IN ({', '.join('?' for _ in wanted)})")
            values += list(wanted)
        if section is not None:
            clauses.append("section = ?")
            values.append(section)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        self._connection.execute(f"DELETE FROM index_nodes{where}", values)

    def nodes(self, kind: str | None = None, section: int | None = None, level: int | None = None) -> list[Node]:
        clauses, values = [], []
        for column, value in (("kind", kind), ("section", section), ("level", level)):
            if value is not None:
                clauses.append(f"{column} = ?")
                values.append(value)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self._connection.execute(
            f"SELECT {', '.join(_COLUMNS)} FROM index_nodes{where} ORDER BY level, section, seq", values)
        return [self._node(row) for row in rows]

    def node(self, node_id: str) -> Node | None:
        row = self._connection.execute(f"SELECT {', '.join(_COLUMNS)} FROM index_nodes WHERE id = ?", (node_id,)).fetchone()
        return self._node(row) if row else None

    def _node(self, row) -> Node:
        try:
            return _node(row)
        except (TypeError, ValueError):
            # A record SQLite reads but whose JSON is spoilt (a flipped byte):
            # one line naming the file, not a JSONDecodeError.
            raise BookDamagedError(self.path, f"index record {row[0]} cannot be read") from None

    def set_contexts(self, contexts: dict[str, str], built_by: str) -> None:
        self._connection.executemany("UPDATE index_nodes SET context = ?, built_by = ? WHERE id = ?",
                                     [(text, built_by, node_id) for node_id, text in contexts.items()])

    def count(self, kind: str | None = None) -> int:
        if kind:
            return self._connection.execute("SELECT COUNT(*) FROM index_nodes WHERE kind = ?", (kind,)).fetchone()[0]
        return self._connection.execute("SELECT COUNT(*) FROM index_nodes").fetchone()[0]

    # ------------------------------------------------------------ vectors

    def put_vectors(self, items: list[tuple[str, str, np.ndarray]]) -> None:
        """(node id, hash of the embedded text, window vectors) for each node,
        replacing what the node had (inside a transaction)."""
        self._connection.executemany("DELETE FROM index_vectors WHERE node_id = ?", [(item[0],) for item in items])
        rows = []
        for node_id, text_hash, vectors in items:
            for window, vector in enumerate(np.atleast_2d(np.asarray(vectors, dtype=np.float32))):
                rows.append((node_id, window, text_hash, vector.tobytes()))
        self._connection.executemany(
            "INSERT INTO index_vectors (node_id, window, text_hash, vector) VALUES (?, ?, ?, ?)", rows)

    def stale_vectors(self, nodes: list[Node]) -> list[Node]:
        """Nodes whose vectors are missing or were made from other text."""
        have = dict(self._connection.execute("SELECT node_id, text_hash FROM index_vectors WHERE window = 0"))
        return [node for node in nodes if have.get(node.id) != node.text_hash()]

    def vectors(self) -> tuple[list[str], np.ndarray]:
        """Every window vector, with the node it belongs to (a node id repeats
        once per window)."""
        rows = self._connection.execute(
            "SELECT v.node_id, v.vector FROM index_vectors v JOIN index_nodes n ON n.id = v.node_id "
            "ORDER BY n.rowid, v.window")
        ids, blobs = [], []
        for node_id, blob in rows:
            vector = np.frombuffer(blob, dtype=np.float32) if len(blob) % 4 == 0 else None
            if vector is None or (blobs and vector.shape != blobs[0].shape):
                # Bytes spoilt inside a record SQLite still reads: one line, not a numpy error.
                raise BookDamagedError(self.path, f"the vector of index record {node_id} cannot be read")
            ids.append(node_id)
            blobs.append(vector)
        return ids, (np.stack(blobs) if blobs else np.zeros((0, 0), dtype=np.float32))

    def clear_vectors(self) -> None:
        self._connection.execute("DELETE FROM index_vectors")
        self._connection.execute("DELETE FROM index_sentences")

    # ------------------------------------------------------------ sentences

    def put_sentences(self, items: list[tuple[str, str, list[tuple[int, int]], np.ndarray]]) -> None:
        """(passage id, its `sentence_key`, sentence spans in the book,
        one vector per sentence), inside a transaction. Half precision: the
        digest only ranks a few dozen sentences by them."""
        self._connection.executemany(
            "INSERT OR REPLACE INTO index_sentences (node_id, text_hash, spans, vectors) VALUES (?, ?, ?, ?)",
            [(node_id, text_hash, np.asarray(spans, dtype=np.int64).reshape(-1, 2).tobytes(),
              np.asarray(vectors, dtype=np.float16).tobytes()) for node_id, text_hash, spans, vectors in items])

    def sentences(self, nodes: list[Node]) -> dict[str, tuple[list[tuple[int, int]], np.ndarray]]:
        """Stored sentence spans and vectors of these passages, where they
        were made from the passage's present text by the present splitter."""
        wanted = {node.id: node.sentence_key() for node in nodes}
        every = list(wanted)
        found = {}
        for start in range(0, len(every), 500):
            ids = every[start:start + 500]
            rows = self._connection.execute(
                f"SELECT node_id, text_hash, spans, vectors FROM index_sentences WHERE node_id IN "
                f"({', '.join('?' for _ in ids)})", ids)
            for node_id, text_hash, spans, vectors in rows:
                if text_hash != wanted[node_id]:
                    continue
                try:
                    pairs = np.frombuffer(spans, dtype=np.int64).reshape(-1, 2)
                    found[node_id] = ([(int(a), int(b)) for a, b in pairs], np.frombuffer(
                        vectors, dtype=np.float16).reshape(len(pairs), -1).astype(np.float32))
                except ValueError:
                    raise BookDamagedError(self.path, f"the sentences of index record {node_id} cannot be "
                                                      "read") from None
        return found

    def stale_sentences(self, nodes: list[Node]) -> list[Node]:
        """Passages whose sentence vectors are missing, or were made from other
        text or by another splitter."""
        have = dict(self._connection.execute("SELECT node_id, text_hash FROM index_sentences"))
        return [node for node in nodes if node.kind == PASSAGE and have.get(node.id) != node.sentence_key()]

    # ------------------------------------------------------------ checkpoints

    def mark_done(self, step: str, unit: str, stats: dict | None = None) -> None:
        self._connection.execute(
            "INSERT OR REPLACE INTO index_progress (step, unit, done_at, stats) VALUES (?, ?, ?, ?)",
            (step, unit, time.time(), json.dumps(stats) if stats else None))

    def done_units(self, step: str) -> set[str]:
        return {row[0] for row in self._connection.execute("SELECT unit FROM index_progress WHERE step = ?", (step,))}

    def forget_steps(self, steps: Iterable[str]) -> None:
        steps = list(steps)
        if steps:
            self._connection.execute(f"DELETE FROM index_progress WHERE step IN ({', '.join('?' for _ in steps)})", steps)

    # ------------------------------------------------------------ manifest

    def manifest_value(self, key: str):
        row = self._connection.execute("SELECT value FROM index_manifest WHERE key = ?", (key,)).fetchone()
        return stored_json(row[0], self.path, f"index manifest entry {key}") if row else None

    def set_manifest_value(self, key: str, value) -> None:
        self._connection.execute("INSERT OR REPLACE INTO index_manifest (key, value) VALUES (?, ?)",
                                 (key, json.dumps(value)))

    def manifest(self) -> dict:
        return {key: stored_json(value, self.path, f"index manifest entry {key}")
                for key, value in self._connection.execute("SELECT key, value FROM index_manifest")}


def stored_json(stored: str, database: Path, what: str):
    """A JSON value read from a book's database; a spoilt one (a flipped
    byte SQLite cannot see) is BookDamagedError naming the file."""
    try:
        return json.loads(stored)
    except (TypeError, ValueError):
        raise BookDamagedError(database, f"{what} cannot be read") from None
