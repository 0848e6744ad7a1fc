"""The embedded memory backend: one SQLite file, no server.

Each memory is a row keyed by (namespace, incident) holding the structured
fields the recall arms filter on, the whole memory as JSON and its scoring
features (`domain.similarity.memory_features`, with the version that derived
them), plus a row in an FTS5 index over its searchable words. Recall returns
the features with the candidates, so a query derives only its own side. Recall has three arms: the best
BM25 matches for the incident's words, the most recent memories on the paging
service, and the most recent on its neighbours. A precedent worded differently
is still found on its service; one on another service is found by its words.

The file is opened in WAL mode and every write is one transaction (a
`remember_many` call is one transaction for all its memories), so a crash
loses nothing that `remember` returned for. Every statement is an index
lookup or a bounded FTS query (`recall bench` measures them at 100k memories);
writes run in the calling thread, recall on a worker thread (see `recall`).
Recall keeps the memories it parsed, by row id, until a write changes them
(see PARSED_CACHE).
"""

from __future__ import annotations

import asyncio
import heapq
import logging
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from recall_operator.domain.consolidation import final_outcome
from recall_operator.domain.models import EpisodicMemory, as_read
from recall_operator.domain.similarity import FEATURES_VERSION, MemoryFeatures, Recalled, memory_features
from recall_operator.domain.text import tokens
from recall_operator.memory.base import (
    MemoryUnavailable,
    RecallQuery,
    interleave,
    search_terms,
)

SCHEMA_VERSION = 1

log = logging.getLogger(__name__)

# The FTS tokenizer keeps the characters that `tokens` keeps inside a word, so
# that `max.poll.interval.ms` or `hikaripool-1` stays one term in the index, as
# it is one term in every query.
_SCHEMA = """
CREATE TABLE IF NOT EXISTS memories (
    id          INTEGER PRIMARY KEY,
    namespace   TEXT NOT NULL,
    incident    TEXT NOT NULL,
    service     TEXT NOT NULL,
    runbook     TEXT,
    outcome     TEXT NOT NULL,
    resolved_at TEXT NOT NULL,
    body        TEXT NOT NULL,
    features    TEXT,
    features_version INTEGER NOT NULL DEFAULT 0,
    UNIQUE (namespace, incident)
);
CREATE INDEX IF NOT EXISTS memories_by_service ON memories (service, resolved_at);
CREATE INDEX IF NOT EXISTS memories_by_incident ON memories (incident);
CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(
    words, tokenize = "unicode61 tokenchars '._:/-'"
);
CREATE TABLE IF NOT EXISTS term_docs (
    term TEXT PRIMARY KEY,
    docs INTEGER NOT NULL
) WITHOUT ROWID;
"""

# The features columns came after schema 1 without a new schema number, so an
# older operator can still open the file (on a rollback). It writes bodies and
# no features; this trigger marks what it rewrote as without features, and the
# next start-up derives them again. This operator writes a body, then its features.
_FEATURES_COLUMNS = (("features", "TEXT"), ("features_version", "INTEGER NOT NULL DEFAULT 0"))
_FEATURES_TRIGGER = """
CREATE TRIGGER IF NOT EXISTS memories_body_changed AFTER UPDATE OF body ON memories
BEGIN
    UPDATE memories SET features = NULL, features_version = 0 WHERE id = NEW.id;
END;
"""
# SQLite's page cache per connection (KiB). The default 2 MB cannot hold the
# FTS doclists of one query's terms at 10k memories, so each query read them
# again through the OS: measured at 10k, recall p50 8-9 ms with the default
# against 5-6 ms with 64 MB, which at 100k still leaves RSS far under its 400 MB.
PAGE_CACHE_KIB = 65_536
# Stale features are derived again this many memories to a transaction.
REBUILD_BATCH = 1_000

# BM25 is computed for every memory a query matches, at a cost that grows with
# the number of terms too, so a query is made of the incident's rarest words
# only, while (their matches) x (their number) stays within MATCH_BUDGET: a
# word on half the memories ranks nothing (its IDF is near zero) and would cost
# a score for each of them. Measured: about 0.2 us per unit on one core. On
# 300 synthetic probes, 5,000 against 20,000 took recall p50 at 10k memories
# from 4.4-5.1 to 2.6 ms (1k: 2.2-2.6 -> 1.8) and the top match came from the
# probe's own root cause as often (10k: .883 -> .913, 1k: .977 -> .970, top 3
# equal or better; 100k unchanged: MAX_TERM_MATCHES already bounds it there).
# Smaller budgets cost the top match: at 10k, 3,000 gave 1.5 ms and .877,
# 2,000 gave 1.3 ms and .850.
# Replay scores on the three dev histories are the same with either; 10 of
# 452 rows moved (a history's later incidents recall from more than 50
# memories, so some candidates differ and with them the pool's IDFs): a
# similarity by one point, two matches trading places, or another fifth match;
# no mode and no runbook.
MAX_TERMS = 64
MATCH_BUDGET = 5_000
# A word on more than this many memories is left out of the query whatever the
# budget: ranking its matches costs about 1 us each, and what it finds is close
# to a draw among them. At 100k memories a probe's one common word (`2xx`, on
# 3,500) took FTS from 0.4 to 11 ms at p99; without such words recall + scoring
# fell from p50 11-12 / p99 26-33 ms to 7-9 / 16-19 ms (CPU time), and the top
# match of 300 synthetic probes came from their own root cause as often (top 3:
# 0.947 -> 0.957; at 10k unchanged). A replay history's store never holds this
# many memories, so replay is unchanged by construction.
MAX_TERM_MATCHES = 2_000
# Recall keeps this many memories parsed, with their kept features, by row id:
# a memory is parsed once and then handed out again while it stays among the
# recently recalled. Parsing a candidate's body and features was 40% of a
# recall's own time (0.07 ms a candidate, 50 candidates a query), and the
# recency arms return the same memories query after query. The benchmark's
# queries found 60% (100k) to 90% (10k) of their candidates here; when full it
# holds 40-50 MB (RSS at 100k: 179 -> 228 MB).
PARSED_CACHE = 4_096


def searchable_words(memory: EpisodicMemory) -> str:
    """What the FTS index holds for a memory: the words of what was seen (as far as a query reads its own) and
    what was found."""
    spec, res = as_read(memory.spec), memory.resolution
    parts = [
        spec.service,
        spec.title,
        spec.description,
        *spec.symptoms,
        *spec.error_signatures,
        res.root_cause,
        res.summary,
    ]
    return " ".join(tokens(" ".join(parts)))


def fts_query(terms: list[str]) -> str:
    """An FTS5 OR over the terms, each quoted, so that nothing in incident text is read as FTS syntax."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


def _count_terms(conn: sqlite3.Connection, now: set[str], before: set[str]) -> None:
    """Keep term_docs (how many memories hold each term) in step with the FTS index."""
    conn.executemany(
        "INSERT INTO term_docs (term, docs) VALUES (?, 1) ON CONFLICT (term) DO UPDATE SET docs = docs + 1",
        [(t,) for t in now - before],
    )
    conn.executemany("UPDATE term_docs SET docs = docs - 1 WHERE term = ?", [(t,) for t in before - now])


def _sort_key(moment: datetime) -> str:
    """resolved_at as a fixed-width UTC string: ordering as text is ordering in time."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _write(conn: sqlite3.Connection, memory: EpisodicMemory) -> int | None:
    """Insert or replace one memory, inside the caller's transaction; an unchanged memory is left alone.

    The row id it inserted or changed (None: unchanged).
    """
    body = memory.model_dump_json(by_alias=True)
    row = (
        memory.spec.service,
        memory.resolution.runbook,
        final_outcome(memory.resolution),
        _sort_key(memory.resolved_at),
        body,
    )
    words = searchable_words(memory)
    terms = set(words.split())
    features = (memory_features(memory).to_json(), FEATURES_VERSION)
    found = conn.execute(
        "SELECT id, body FROM memories WHERE namespace = ? AND incident = ?",
        (memory.namespace, memory.incident),
    ).fetchone()
    if found is None:
        cur = conn.execute(
            "INSERT INTO memories (namespace, incident, service, runbook, outcome, resolved_at, body,"
            " features, features_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (memory.namespace, memory.incident, *row, *features),
        )
        conn.execute("INSERT INTO memories_fts (rowid, words) VALUES (?, ?)", (cur.lastrowid, words))
        _count_terms(conn, terms, set())
        return cur.lastrowid
    if found[1] != body:
        conn.execute(
            "UPDATE memories SET service = ?, runbook = ?, outcome = ?, resolved_at = ?, body = ? WHERE id = ?",
            (*row, found[0]),
        )
        conn.execute("UPDATE memories SET features = ?, features_version = ? WHERE id = ?", (*features, found[0]))
        (old_words,) = conn.execute("SELECT words FROM memories_fts WHERE rowid = ?", (found[0],)).fetchone()
        conn.execute("DELETE FROM memories_fts WHERE rowid = ?", (found[0],))
        conn.execute("INSERT INTO memories_fts (rowid, words) VALUES (?, ?)", (found[0], words))
        _count_terms(conn, terms, set(old_words.split()))
        return int(found[0])
    return None


def _parsed(body: str, features: str | None, version: int) -> tuple[EpisodicMemory, MemoryFeatures | None]:
    """A memory from its stored body, with its kept features (ValueError: the body cannot be read)."""
    return EpisodicMemory.model_validate_json(body), _features(features, version)


def _why_unreadable(exc: ValueError) -> str:
    """Why a stored text did not read back, in one line: pydantic's own message runs to several per field."""
    if isinstance(exc, ValidationError):
        errors = exc.errors(include_url=False)
        where = ".".join(str(part) for part in errors[0]["loc"]) or "the text"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        return f"{where}: {errors[0]['msg']}{more}"
    return str(exc)


def _forget(conn: sqlite3.Connection, namespace: str, incident: str) -> int | None:
    """Delete one memory and its words, inside the caller's transaction; its row id (None: it was absent)."""
    found = conn.execute(
        "SELECT id FROM memories WHERE namespace = ? AND incident = ?", (namespace, incident)
    ).fetchone()
    if found is None:
        return None
    (old_words,) = conn.execute("SELECT words FROM memories_fts WHERE rowid = ?", (found[0],)).fetchone()
    conn.execute("DELETE FROM memories_fts WHERE rowid = ?", (found[0],))
    conn.execute("DELETE FROM memories WHERE id = ?", (found[0],))
    _count_terms(conn, set(), set(old_words.split()))
    return int(found[0])


def _rebuild_features(conn: sqlite3.Connection) -> int:
    """Derive again every memory's features that an older version (or an older operator) left; how many."""
    done = 0
    while True:
        rows = conn.execute(
            "SELECT id, body FROM memories WHERE features_version != ? LIMIT ?", (FEATURES_VERSION, REBUILD_BATCH)
        ).fetchall()
        if not rows:
            return done
        updates: list[tuple[str | None, int, int]] = []
        for i, body in rows:
            try:
                updates.append((memory_features(EpisodicMemory.model_validate_json(body)).to_json(), FEATURES_VERSION, i))
            except ValueError:
                # Marked as done without features, so the next batch moves on;
                # recall leaves the memory out and names it (`_load`).
                updates.append((None, FEATURES_VERSION, i))
        if unreadable := sum(1 for f, _, _ in updates if f is None):
            log.warning(f"{unreadable} of the stored memories cannot be read; recall leaves each out and names it")
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany("UPDATE memories SET features = ?, features_version = ? WHERE id = ?", updates)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        done += len(rows)


def _features(text: str | None, version: int) -> MemoryFeatures | None:
    """Kept features, when the current version derived them and they read back (else scoring derives them)."""
    if text is None or version != FEATURES_VERSION:
        return None
    try:
        return MemoryFeatures.from_json(text)
    except ValueError:
        # Edited by hand or cut short: the body still holds the memory, and
        # features derived from it are the same floats.
        return None


class EmbeddedMemory:
    """Memory in a local SQLite file; reopening the same file finds every memory again.

    `durable=False` is for a copy that is rebuilt from elsewhere when lost (the
    Hindsight backend's local index): writes are not flushed to disk one by one.
    """

    name = "embedded"

    def __init__(self, path: str | Path, durable: bool = True) -> None:
        self.path = str(path)
        self.durable = durable
        self._conn: sqlite3.Connection | None = None
        # One connection shared by whoever calls; the lock keeps a thread that
        # calls through asyncio.to_thread from interleaving with the loop's calls.
        self._lock = threading.RLock()
        # Parsed memories by row id (see PARSED_CACHE), good while the file is
        # as this object last saw it: `_seen` is (data_version, total_changes)
        # then, so a write by another connection, or one on this connection
        # that did not come through `_remember` or `forget_many`, empties it.
        # `_writes` counts the writes this object made, so a recall that read
        # rows before one of them keeps what it parsed out of the cache.
        self._parsed: OrderedDict[int, tuple[EpisodicMemory, MemoryFeatures | None]] = OrderedDict()
        # Rows whose body did not read back, each named in the log once.
        self._unreadable: set[int] = set()
        self._seen: tuple[int, int] | None = None
        self._writes = 0
        # The connection `revision` reads on, its own lock, and how often it was opened.
        self._watch: sqlite3.Connection | None = None
        self._watch_lock = threading.Lock()
        self._watched = 0

    # -- the interface -------------------------------------------------------

    async def remember(self, memory: EpisodicMemory) -> None:
        self._remember([memory])

    async def remember_many(self, memories: Sequence[EpisodicMemory]) -> None:
        self._remember(memories)

    async def recall(self, query: RecallQuery) -> list[EpisodicMemory]:
        # On a worker thread: SQLite releases the interpreter while it ranks
        # (the larger part of a recall), so the loop serves watches and the
        # bridge meanwhile. The hop costs 0.6 ms of a recall at p50 at 10k
        # memories and 1 ms at 100k (on the loop and on the thread in turn, 300
        # probes each); on the loop a recall at 100k would hold every other
        # handler for 2.5 ms at p50 and 9-13 ms at p99. Writes stay on the
        # loop: they are short, and a thread once doubled their time.
        return await asyncio.to_thread(self._recall, query)

    async def get(self, incident: str, namespace: str | None = None) -> EpisodicMemory | None:
        sql = "SELECT body FROM memories WHERE incident = ?"
        params: list[object] = [incident]
        if namespace is not None:
            sql += " AND namespace = ?"
            params.append(namespace)
        rows = self._query(sql + " ORDER BY resolved_at DESC, namespace ASC LIMIT 1", params)
        if not rows:
            return None
        try:
            return EpisodicMemory.model_validate_json(rows[0][0])
        except ValueError as exc:
            raise MemoryUnavailable(
                f"memory file {self.path}: the stored memory of {incident} cannot be read: {_why_unreadable(exc)}"
            ) from exc

    async def outcomes_naming(self, namespace: str, runbook: str) -> list[EpisodicMemory]:
        # The body is the memory as JSON: a runbook named by an action is in it, word for word.
        def read() -> list[EpisodicMemory]:
            rows = self._query(
                "SELECT id FROM memories WHERE namespace = ? AND (runbook = ? OR instr(body, ?) > 0)",
                [namespace, runbook, runbook],
            )
            return list(self._load([row[0] for row in rows]))

        return await asyncio.to_thread(read)

    async def count(self) -> int:
        return int(self._query("SELECT count(*) FROM memories", [])[0][0])

    def revision(self) -> object:
        """What the file holds, as a value that changes with every write to it (MemoryBackend.revision).

        SQLite's data_version, the test the parsed-memory cache makes (see
        `_load`), read on a connection of its own that never writes: it moves
        whenever any other connection commits, this object's included, and
        another process's. Its own connection and lock keep the caller (the
        event loop) from waiting behind a recall that holds this object's
        lock. The count starts at the connection's opening, so the opening is
        part of the value. A file that cannot be read has no revision (None: unknown).
        """
        with self._watch_lock:
            try:
                if self._watch is None:
                    self._connection()  # the file made and its schema in place, as any use would
                    self._watch = sqlite3.connect(Path(self.path).resolve().as_uri() + "?mode=rw", uri=True,
                                                  isolation_level=None, check_same_thread=False)
                    self._watched += 1
                return (self._watched, self._watch.execute("PRAGMA data_version").fetchone()[0])
            except (sqlite3.Error, MemoryUnavailable):
                return None

    async def health(self) -> str | None:
        try:
            # On a thread: the store's lock may be held by a recall or a write, and the loop must not wait for it.
            await asyncio.to_thread(self._query, "SELECT 1", [])
        except MemoryUnavailable as exc:
            return str(exc)
        return None

    async def close(self) -> None:
        with self._lock:
            self._forget_parsed(None)
            if self._conn is not None:
                self._conn.close()
                self._conn = None
        with self._watch_lock:
            if self._watch is not None:
                self._watch.close()
                self._watch = None

    # -- beyond the interface: for a local index kept in step with another store --

    def keys(self) -> set[tuple[str, str]]:
        """Every (namespace, incident) held."""
        return {(ns, inc) for ns, inc in self._query("SELECT namespace, incident FROM memories", [])}

    def forget_many(self, keys: Iterable[tuple[str, str]]) -> None:
        """Delete these memories in one transaction; absent ones are skipped."""
        self._in_one_transaction(lambda conn: [_forget(conn, namespace, incident) for namespace, incident in keys])

    # -- storage ---------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            try:
                conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
                conn.execute("PRAGMA journal_mode = WAL")
                # FULL: a memory that remember() returned for survives a power cut;
                # the outbox drops its copy on that promise.
                conn.execute(f"PRAGMA synchronous = {'FULL' if self.durable else 'OFF'}")
                conn.execute("PRAGMA busy_timeout = 5000")
                conn.execute(f"PRAGMA cache_size = -{PAGE_CACHE_KIB}")
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                if version > SCHEMA_VERSION:
                    conn.close()
                    raise MemoryUnavailable(
                        f"memory file {self.path} has schema {version}, newer than this operator's {SCHEMA_VERSION}"
                    )
                conn.executescript(_SCHEMA)
                have = {row[1] for row in conn.execute("PRAGMA table_info(memories)")}
                for column, kind in _FEATURES_COLUMNS:
                    if column not in have:  # a file written before features were kept
                        conn.execute(f"ALTER TABLE memories ADD COLUMN {column} {kind}")
                conn.executescript(_FEATURES_TRIGGER)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                _rebuild_features(conn)
            except sqlite3.Error as exc:
                raise MemoryUnavailable(f"cannot open memory file {self.path}: {exc}") from exc
            self._conn = conn
        return self._conn

    def _query(self, sql: str, params: list[object]) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return self._connection().execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise MemoryUnavailable(f"memory file {self.path}: {exc}") from exc

    def _remember(self, memories: Iterable[EpisodicMemory]) -> None:
        """Write the memories in one transaction: all of them are stored, or none."""
        self._in_one_transaction(lambda conn: [_write(conn, memory) for memory in memories])

    def _in_one_transaction(self, change: Callable[[sqlite3.Connection], list[int | None]]) -> None:
        """Run `change` (it returns the row ids it touched) as one transaction, and drop those rows' parsed copies.

        A failure rolls back and drops every parsed copy: what the rows hold is then not known here.
        """
        with self._lock:
            conn = self._connection()
            try:
                conn.execute("BEGIN IMMEDIATE")
                changed = change(conn)
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                self._forget_parsed(None)
                raise MemoryUnavailable(f"memory file {self.path}: {exc}") from exc
            self._forget_parsed(changed)

    # -- parsed memories ---------------------------------------------------------

    def _forget_parsed(self, rows: Iterable[int | None] | None) -> None:
        """After this object's own write: drop the rows it changed (None: every row)."""
        with self._lock:
            self._writes += 1
            if rows is None or self._seen is None:
                self._parsed.clear()
                self._seen = None
                return
            for row in rows:
                if row is not None:
                    self._parsed.pop(row, None)
            if self._conn is not None:
                self._seen = (self._seen[0], self._conn.total_changes)

    def _load(self, ids: Sequence[int]) -> Recalled:
        """These memories, in this order, with their kept features: parsed ones from memory, the rest read."""
        with self._lock:
            conn = self._connection()
            try:
                now = (conn.execute("PRAGMA data_version").fetchone()[0], conn.total_changes)
            except sqlite3.Error as exc:
                raise MemoryUnavailable(f"memory file {self.path}: {exc}") from exc
            if now != self._seen:
                self._parsed.clear()
                self._seen = now
            found = {i: self._parsed[i] for i in ids if i in self._parsed}
            for i in found:
                self._parsed.move_to_end(i)
            writes = self._writes
        missing = [i for i in ids if i not in found]
        if missing:
            rows = self._query(
                "SELECT id, namespace, incident, body, features, features_version FROM memories"
                f" WHERE id IN ({','.join('?' * len(missing))})",
                list(missing),
            )
            read = {}
            for i, namespace, incident, *stored in rows:
                try:
                    read[i] = _parsed(*stored)
                except ValueError as exc:
                    # One row that does not read back (edited by hand, written by a
                    # version that stored another shape) must not stop every recall
                    # that reaches it: it is left out, and named once.
                    if i not in self._unreadable:
                        self._unreadable.add(i)
                        log.warning(f"memory {namespace}/{incident} in {self.path} cannot be read and is left out of"
                                    f" recall: {_why_unreadable(exc)}")
            found.update(read)
            with self._lock:
                if writes == self._writes:  # else a write came in since the rows were read
                    self._parsed.update(read)
                    while len(self._parsed) > PARSED_CACHE:
                        self._parsed.popitem(last=False)
        pairs = [found[i] for i in ids if i in found]
        return Recalled([m for m, _ in pairs], [f for _, f in pairs])

    # -- recall ----------------------------------------------------------------

    def _recall(self, query: RecallQuery) -> list[EpisodicMemory]:
        if query.limit <= 0:
            return []
        scope = " AND m.incident != ?"
        scope_params: list[object] = [query.incident]
        if query.namespace is not None:
            scope += " AND m.namespace = ?"
            scope_params.append(query.namespace)

        in_scope = self._query(
            f"SELECT count(*) FROM (SELECT 1 FROM memories m WHERE 1{scope} LIMIT ?)",
            [*scope_params, query.limit + 1],
        )[0][0]
        if in_scope <= query.limit:
            rows = self._query(f"SELECT m.id FROM memories m WHERE 1{scope} ORDER BY m.resolved_at DESC", scope_params)
            return self._load([row[0] for row in rows])

        # The arms name rows by id; only the chosen few are read whole and parsed.
        terms = self._telling_terms(search_terms(query))
        by_words: list[int] = []
        if terms:
            by_words = [
                row[0]
                for row in self._query(
                    "SELECT m.id FROM memories_fts f JOIN memories m ON m.id = f.rowid"
                    f" WHERE memories_fts MATCH ?{scope} ORDER BY f.rank LIMIT ?",
                    [fts_query(terms), *scope_params, query.limit],
                )
            ]
        on_service = self._recent([query.service], scope, scope_params, query.limit)
        neighbours = [s for s in dict.fromkeys(query.neighbours) if s != query.service]
        on_neighbours = self._recent(neighbours, scope, scope_params, query.limit)

        # The words arm gets every other place: text is the stronger evidence,
        # the structural arms catch precedents that were worded differently.
        words = iter(by_words)
        chosen = interleave([words, on_service, words, on_neighbours], key=lambda i: i, limit=query.limit)
        return self._load(chosen)

    def _telling_terms(self, terms: list[str]) -> list[str]:
        """The query's terms that occur in memory (on at most MAX_TERM_MATCHES), rarest first, within MAX_TERMS
        and MATCH_BUDGET."""
        if not terms:
            return []
        marks = ",".join("?" * len(terms))
        docs = dict(
            self._query(
                f"SELECT term, docs FROM term_docs WHERE docs BETWEEN 1 AND ? AND term IN ({marks})",
                [MAX_TERM_MATCHES, *terms],
            )
        )
        chosen: list[str] = []
        spent = 0
        for term in sorted(docs, key=docs.__getitem__):
            if len(chosen) == MAX_TERMS or (chosen and (spent + docs[term]) * (len(chosen) + 1) > MATCH_BUDGET):
                break
            chosen.append(term)
            spent += docs[term]
        return chosen

    def _recent(self, services: list[str], scope: str, scope_params: list[object], limit: int) -> list[int]:
        """The most recent memories across `services`, newest first: one index walk per service."""
        per_service = [
            self._query(
                "SELECT m.resolved_at, m.id FROM memories m"
                f" WHERE m.service = ?{scope} ORDER BY m.resolved_at DESC LIMIT ?",
                [service, *scope_params, limit],
            )
            for service in services
        ]
        merged: Iterator[tuple[Any, ...]] = heapq.merge(*per_service, reverse=True)
        return [row[1] for _, row in zip(range(limit), merged)]
