"""The embedded store hands out memories it parsed before, and never one that has changed since.

Every way a stored memory can change is covered: this store's own write, its
own delete (a row id SQLite may give again), a write through another
connection to the same file (another process), and a statement on its own
connection that bypassed `remember`. And the query leaves out a word too
common to be worth ranking its matches. A row that does not read back (its
features or its body) never stops a recall.
"""

from __future__ import annotations

import dataclasses
import logging
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from recall_operator.domain.models import EpisodicMemory
from recall_operator.domain.similarity import FEATURES_VERSION, memory_features
from recall_operator.memory.base import MemoryUnavailable, RecallQuery, recall_query
from recall_operator.memory.embedded import EmbeddedMemory

STORED = 30


def _query(history: Any, incident: str = "inc-0008", limit: int = 50) -> RecallQuery:
    return dataclasses.replace(recall_query(history.incidents[incident], history.topology), limit=limit)


def _retitled(memory: EpisodicMemory, title: str) -> EpisodicMemory:
    return memory.model_copy(update={"spec": memory.spec.model_copy(update={"title": title})})


@asynccontextmanager
async def _store(path: Path, history: Any) -> AsyncIterator[EmbeddedMemory]:
    """An embedded store at `path` holding the history's first STORED memories, closed afterwards."""
    memory = EmbeddedMemory(path)
    try:
        await memory.remember_many(history.memories[:STORED])
        yield memory
    finally:
        await memory.close()


async def _by_name(memory: EmbeddedMemory, query: RecallQuery) -> dict[str, EpisodicMemory]:
    got = await memory.recall(query)
    assert got.features == [memory_features(m) for m in got]  # type: ignore[attr-defined]
    return {m.incident: m for m in got}


async def test_a_memory_recalled_again_is_the_one_parsed_before(tmp_path: Path, history: Any) -> None:
    async with _store(tmp_path / "memory.sqlite3", history) as memory:
        first = await _by_name(memory, _query(history))
        again = await _by_name(memory, _query(history))
        assert first == again and all(first[k] is again[k] for k in first)


async def test_a_memory_rewritten_by_this_store_is_parsed_again(tmp_path: Path, history: Any) -> None:
    async with _store(tmp_path / "memory.sqlite3", history) as memory:
        before = await _by_name(memory, _query(history))
        name = next(iter(before))
        changed = _retitled(before[name], "a title written later")
        await memory.remember(changed)
        after = await _by_name(memory, _query(history))
        assert after[name] == changed
        # What did not change is still the object parsed before.
        assert all(after[k] is before[k] for k in after if k != name and k in before)


async def test_a_forgotten_memory_and_its_reused_row_id_are_not_served_stale(tmp_path: Path, history: Any) -> None:
    async with _store(tmp_path / "memory.sqlite3", history) as memory:
        last = history.memories[STORED - 1]
        assert last.incident in await _by_name(memory, _query(history))
        memory.forget_many([(last.namespace, last.incident)])
        assert last.incident not in await _by_name(memory, _query(history))
        # SQLite gives the highest row id again once it is free.
        newcomer = _retitled(last, "another failure entirely").model_copy(update={"incident": "inc-9999"})
        await memory.remember(newcomer)
        after = await _by_name(memory, _query(history))
        assert after["inc-9999"] == newcomer and last.incident not in after


async def test_a_write_through_another_connection_is_seen(tmp_path: Path, history: Any) -> None:
    path = tmp_path / "memory.sqlite3"
    memory, other = EmbeddedMemory(path), EmbeddedMemory(path)
    try:
        await memory.remember_many(history.memories[:STORED])
        before = await _by_name(memory, _query(history))
        name = next(iter(before))
        changed = _retitled(before[name], "rewritten by another operator")
        await other.remember(changed)
        assert (await _by_name(memory, _query(history)))[name] == changed
    finally:
        await memory.close()
        await other.close()


async def test_a_statement_that_bypassed_remember_is_seen(tmp_path: Path, history: Any) -> None:
    path = tmp_path / "memory.sqlite3"
    async with _store(path, history) as memory:
        before = await _by_name(memory, _query(history))
        name = next(iter(before))
        changed = _retitled(before[name], "rewritten in place")
        # As an older operator would: the body alone (its trigger drops the features).
        memory._query("UPDATE memories SET body = ? WHERE incident = ?",
                      [changed.model_dump_json(by_alias=True), name])
        got = await memory.recall(_query(history))
        assert {m.incident: m for m in got}[name] == changed
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT features FROM memories WHERE incident = ?", (name,)).fetchone() == (None,)
    conn.close()


async def test_a_word_on_more_memories_than_the_cap_is_left_out_of_the_query(
    tmp_path: Path, history: Any, monkeypatch: Any
) -> None:
    async with _store(tmp_path / "memory.sqlite3", history) as memory:
        docs = dict(memory._query("SELECT term, docs FROM term_docs WHERE docs > 0", []))
        common = max(docs, key=docs.__getitem__)
        rare = min(docs, key=docs.__getitem__)
        assert docs[common] > 2 and docs[rare] == 1
        assert set(memory._telling_terms([common, rare])) == {common, rare}
        monkeypatch.setattr("recall_operator.memory.embedded.MAX_TERM_MATCHES", docs[common] - 1)
        assert memory._telling_terms([common, rare]) == [rare]


async def test_a_query_keeps_its_rarest_words_while_their_matches_fit_the_budget(
    tmp_path: Path, history: Any, monkeypatch: Any
) -> None:
    async with _store(tmp_path / "memory.sqlite3", history) as memory:
        docs = dict(memory._query("SELECT term, docs FROM term_docs WHERE docs > 1", []))
        # One word per count, so that "rarest first" has a single answer.
        one_each = sorted({n: term for term, n in docs.items()}.items())
        assert len(one_each) >= 3
        words = [one_each[0][1], one_each[len(one_each) // 2][1], one_each[-1][1]]
        # Room for the two rarer words' matches times their number, not for the third word's.
        two = (docs[words[0]] + docs[words[1]]) * 2
        three = (docs[words[0]] + docs[words[1]] + docs[words[2]]) * 3
        assert two < three
        monkeypatch.setattr("recall_operator.memory.embedded.MATCH_BUDGET", two)
        assert memory._telling_terms(list(reversed(words))) == words[:2]
        monkeypatch.setattr("recall_operator.memory.embedded.MATCH_BUDGET", three)
        assert memory._telling_terms(list(reversed(words))) == words


@pytest.mark.parametrize(
    "features",
    [
        "{cut short",  # not JSON
        "[1, 2]",  # JSON of another shape
        # The right length, the wrong kinds: words counted as text, and four DNA values.
        '[{"redis": "many"}, {}, [], [], [], [], null, [0.1, 0.2, 0.3, 0.4]]',
    ],
)
async def test_kept_features_that_do_not_read_back_are_derived_from_the_body(
    tmp_path: Path, history: Any, features: str
) -> None:
    async with _store(tmp_path / "memory.sqlite3", history) as memory:
        name = next(iter(await _by_name(memory, _query(history))))
        memory._query("UPDATE memories SET features = ? WHERE incident = ?", [features, name])
        got = await memory.recall(_query(history))
        kept = dict(zip([m.incident for m in got], got.features))  # type: ignore[attr-defined]
        # The memory is still recalled, whole; scoring derives its features (None: "derive them").
        assert kept[name] is None and {m.incident: m for m in got}[name] == history.memory(name)
        assert all(f == memory_features(m) for m, f in zip(got, got.features) if m.incident != name)  # type: ignore[attr-defined]


async def test_a_body_that_does_not_read_back_is_left_out_of_recall_and_named_once(
    tmp_path: Path, history: Any, caplog: Any
) -> None:
    path = tmp_path / "memory.sqlite3"
    async with _store(path, history) as memory:
        before = await _by_name(memory, _query(history))
        name = next(iter(before))
        # As a rolled-back operator might leave it: a body of another shape.
        memory._query("UPDATE memories SET body = ? WHERE incident = ?", ['{"incident": 42}', name])
        with caplog.at_level(logging.WARNING, logger="recall_operator.memory.embedded"):
            first = await _by_name(memory, _query(history))
            again = await _by_name(memory, _query(history))
        assert set(first) == set(again) == set(before) - {name}
        named = [r.getMessage() for r in caplog.records if name in r.getMessage()]
        assert len(named) == 1 and "left out of recall" in named[0]
        assert "incident: Input should be a valid string (and 3 more)" in named[0]
        with pytest.raises(MemoryUnavailable, match=f"the stored memory of {name} cannot be read"):
            await memory.get(name)
    # The trigger dropped its features: the next opening derives them again for every
    # row, cannot for this one, says so, and opens all the same.
    caplog.clear()
    reopened = EmbeddedMemory(path)
    try:
        with caplog.at_level(logging.WARNING, logger="recall_operator.memory.embedded"):
            assert set(await _by_name(reopened, _query(history))) == set(before) - {name}
        assert any("1 of the stored memories cannot be read" in r.getMessage() for r in caplog.records)
        assert reopened._query("SELECT count(*) FROM memories WHERE features_version != ?", [FEATURES_VERSION]) == [(0,)]
    finally:
        await reopened.close()
