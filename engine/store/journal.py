"""What a reader leaves in a book: questions and answers (history), and where
they stopped reading. Kept in the book's own SQLite database, so they go
with the book and survive restarts; history exports as Markdown with its
citations."""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import StorageError, storage_problem
from .bookdb import damage_reported, is_damage, open_read_only

_SCHEMA = """
CREATE TABLE IF NOT EXISTS history (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    asked_at REAL NOT NULL,
    question TEXT NOT NULL,
    answer TEXT NOT NULL,
    result TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS reader_state (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


@dataclass
class HistoryEntry:
    id: int
    asked_at: float
    question: str
    answer: str
    result: dict


class BookJournal:
    def __init__(self, database: Path):
        self.database = database
        self._refused: sqlite3.Error | None = None
        self._connection = sqlite3.connect(database, timeout=30, check_same_thread=False, isolation_level=None)
        try:
            with damage_reported(database, self._connection):
                self._connection.execute("PRAGMA journal_mode=WAL")
                self._connection.executescript(_SCHEMA)
        except sqlite3.OperationalError as error:
            # A full or read-only disk: the history and the reading position
            # can still be read; a write says why it cannot be kept.
            self._connection.close()
            self._refused = error
            self._connection = open_read_only(database, _SCHEMA, timeout=30, isolation_level=None)

    def _write(self, statement: str, parameters: tuple):
        try:
            if self._refused is not None:
                raise self._refused
            with damage_reported(self.database):  # a spoilt page the write reaches: the book can be repaired
                return self._connection.execute(statement, parameters)
        except sqlite3.OperationalError as error:
            problem = storage_problem(error, self.database.parent)
            if problem is None:
                raise
            reason = "the disk is full" if problem == "full" else "the data folder is not writable"
            raise StorageError(self.database, reason) from None

    def close(self) -> None:
        self._connection.close()

    # ------------------------------------------------------------ history

    def add(self, result: dict) -> int:
        cursor = self._write(
            "INSERT INTO history (asked_at, question, answer, result) VALUES (?, ?, ?, ?)",
            (time.time(), result["question"], result.get("answer", ""), json.dumps(result)))
        return cursor.lastrowid

    def entries(self) -> list[HistoryEntry]:
        """The history, less the rows a damaged page of the database holds
        (one such row must not hide the others, nor the book)."""
        rows, _lost = _readable_history(self._connection)
        return [HistoryEntry(row[0], row[1], row[2], row[3], _record(row[2], row[3], row[4])) for row in rows]

    def remove(self, entry_id: int) -> None:
        self._write("DELETE FROM history WHERE id = ?", (entry_id,))

    def markdown(self, title: str, author: str | None = None) -> str:
        """The book's questions and answers, each with its evidence and citations."""
        lines = [f"# Questions about {title}" + (f" by {author}" if author else ""), ""]
        for entry in self.entries():
            lines.append(entry_markdown(entry))
        return "\n".join(lines).rstrip() + "\n"

    # ------------------------------------------------------------ reading position and progress

    def get(self, key: str, default=None):
        try:
            row = self._connection.execute("SELECT value FROM reader_state WHERE key = ?", (key,)).fetchone()
            return json.loads(row[0]) if row else default
        except (TypeError, ValueError):
            return default  # a damaged value counts as never set; the next save writes it afresh
        except sqlite3.Error as error:
            if not is_damage(error):
                raise
            return default

    def set(self, key: str, value) -> None:
        self._write("INSERT OR REPLACE INTO reader_state (key, value) VALUES (?, ?)", (key, json.dumps(value)))

    # ------------------------------------------------------------ repair

    def restore(self, salvaged: "SalvagedJournal") -> None:
        """Take in what was saved of a damaged database's journal, as it was
        stored (ids and times kept, so the history reads as before)."""
        with self._connection:
            self._connection.execute("BEGIN")
            self._connection.executemany(
                "INSERT INTO history (id, asked_at, question, answer, result) VALUES (?, ?, ?, ?, ?)",
                salvaged.history)
            self._connection.executemany("INSERT OR REPLACE INTO reader_state (key, value) VALUES (?, ?)",
                                         sorted(salvaged.reader_state.items()))


# The reader_state keys the app writes (where the reader is, how far they have
# read): looked up one by one when the table as a whole cannot be read.
READER_KEYS = ("position", "read_to")
# Row ids probed one by one when the history cannot be read in one go; a
# reader asks hundreds of questions of a book, not a million.
_MOST_ROWS_PROBED = 100_000


@dataclass
class SalvagedJournal:
    """What could be read of a journal: history rows (id, asked_at, question,
    answer, result) and reader-state values, as stored; and how many history
    rows were lost, where that can be told."""

    history: list[tuple] = field(default_factory=list)
    reader_state: dict[str, str] = field(default_factory=dict)
    history_lost: int | None = 0  # None: not even the number of rows could be read


def salvage_journal(database: Path) -> SalvagedJournal:
    """Read what can still be read of a (possibly damaged) database's history
    and reading position. Never raises for a damaged or missing file: what
    cannot be read is left out (a whole table, or the rows on a spoilt page)."""
    salvaged = SalvagedJournal()
    try:
        connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    except sqlite3.Error:
        salvaged.history_lost = None
        return salvaged
    try:
        try:
            salvaged.history, salvaged.history_lost = _readable_history(connection)
        except sqlite3.Error:
            salvaged.history_lost = None
        salvaged.reader_state = _salvage_reader_state(connection)
    finally:
        connection.close()
    return salvaged


def _readable_history(connection: sqlite3.Connection) -> tuple[list[tuple], int | None]:
    """The history rows that can be read, and how many could not (None: not
    even how many there were)."""
    select = "SELECT id, asked_at, question, answer, result FROM history"
    try:
        return connection.execute(select + " ORDER BY id").fetchall(), 0
    except sqlite3.Error as error:
        if "no such table" in str(error):
            return [], 0  # a journal never made: the book was never opened in the app
        if not is_damage(error):
            raise
    # A spoilt page: row by row through the table's b-tree, up to the last id
    # AUTOINCREMENT handed out, so the rows on other pages are kept.
    try:
        last = connection.execute("SELECT seq FROM sqlite_sequence WHERE name = 'history'").fetchone()
    except sqlite3.Error:
        last = None
    if not last:
        return [], None
    rows, lost = [], 0
    for row_id in range(1, min(int(last[0]), _MOST_ROWS_PROBED) + 1):
        try:
            row = connection.execute(select + " WHERE id = ?", (row_id,)).fetchone()
        except sqlite3.Error as error:
            if not is_damage(error):
                raise
            lost += 1
            continue
        if row is not None:
            rows.append(row)
    return rows, lost


def _salvage_reader_state(connection: sqlite3.Connection) -> dict[str, str]:
    try:
        return dict(connection.execute("SELECT key, value FROM reader_state").fetchall())
    except sqlite3.Error:
        pass
    state = {}
    for key in READER_KEYS:
        try:
            row = connection.execute("SELECT value FROM reader_state WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error:
            continue
        if row is not None:
            state[key] = row[0]
    return state


def _record(question: str, answer: str, stored) -> dict:
    """An answer's stored record. One that cannot be read (a damaged row)
    keeps its question and answer text: one bad row must not hide the rest of
    the history, nor the book."""
    try:
        record = json.loads(stored)
    except (TypeError, ValueError):
        record = None
    return record if isinstance(record, dict) else {"question": question, "answer": answer, "damaged": True}


def entry_tags(result: dict | None) -> str:
    """What a question of the history was asked of, as tags before it in a
    list: "[up to Chapter 4]" for an answer limited to what had been read (asked
    again now, it may say more), "[about “Her name was…”]" for a
    selected passage, "[in Chapter 2]" for a chapter, "[naming Stave 3]" for a
    question that names one beside a subject of its own, "[whole book]",
    "[after “Who is Duchess?”]" for a follow-up."""
    from ..answer.selection import opening

    result = result or {}
    limit, focus, within, named, follows = (result.get(key) for key in
                                            ("reading_limit", "focus", "within", "named", "follows"))
    tags = [f"up to {_short(limit)}" if limit else "",
            f"about \u201c{opening(focus['text'])}\u201d" if focus else "",
            f"in {_short(within)}" if within else "",
            f"naming {_short(named)}" if named else "",
            "whole book" if result.get("overview") and not within else "",
            f"after \u201c{opening(follows['question'])}\u201d" if follows else ""]
    return "".join(f"[{tag}] " for tag in tags if tag)


def _short(sections: dict) -> str:
    """A record's short name for its sections; an older record has only
    the label, whose title follows a colon."""
    return sections.get("short") or sections["label"].split(":")[0]


def entry_markdown(entry: HistoryEntry) -> str:
    """One question of the history as Markdown: when it was asked, its
    evidence, the answer (or draft) and the passages it cites."""
    from ..answer.digest import adjacent_runs, quoted, run_text  # quoted as the app shows it
    from ..answer.overview import overview_evidence
    from ..answer.selection import shown_text

    result = entry.result
    asked = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.asked_at))
    limit = result.get("reading_limit")
    where = "was" if limit and limit.get("at_the_reader") else "had read"
    scope = f"; from the book up to where the reader {where}, in {limit['label']}" if limit else ""
    focus, within = result.get("focus"), result.get("within")
    about = f"; about the passage in {focus['label']}: {quoted(focus['text'])}" if focus else ""
    overview, named = result.get("overview"), result.get("named")
    if within:
        about += f"; about {within['label']} only" + (
            f", as a whole, from {overview_evidence(overview, within['sections'])}" if overview else "")
    elif overview:
        about += f"; about the whole book, from {overview_evidence(overview)}"
    about += (f"; naming {named['label']}, half the evidence from {'it' if len(named['sections']) == 1 else 'them'}"
              if named else "")
    follows = result.get("follows")
    about += (f"; following on from \u201c{follows['question']}\u201d{' and its answer' if follows.get('answer') else ''}"
              f", taken as \u201c{follows['taken_as']}\u201d"
              if follows else "")
    lines = [f"## {entry.question}", "", f"*Asked {asked}{scope}{about}*", ""]
    digest = result.get("digest", [])
    if digest:
        lines.append("**Evidence**")
        lines.append("")
        for run in adjacent_runs(digest):
            line = digest[run[0]]
            passage = f" [{line['passage_id']}]" if line["passage_id"] else ""  # the title page is in none
            lines.append(f"- {quoted(run_text(digest, run))} \u2014 {line['label']}{passage}")
        lines.append("")
    if entry.answer:
        heading = "**Draft answer**" if result.get("lead") == "digest" else "**Answer**"
        lines += [heading, "", entry.answer, ""]
    if result.get("model_error"):
        lines += [f"*The model could not answer ({result['model_error']}): the evidence is what the book holds.*", ""]
    if result.get("damaged"):
        lines += ["*The stored record of this answer is damaged: its evidence and citations are lost.*", ""]
    citations = result.get("citations", [])
    if citations:
        lines.append("**Cited passages**")
        lines.append("")
        for citation in citations:
            # The sentence backing the claim, where it was found; else the passage's opening.
            quote = shown_text((citation.get("support") or {}).get("text") or citation["quote"], 300)
            lines.append(f"- [{citation['passage_id']}] {citation['label']}: {quoted(quote)}")
        lines.append("")
    return "\n".join(lines)
