"""The embedded store hands out memories it parsed before, and never one that has changed since.

Every way a stored memory can change is covered: this store's own write, its
own delete (a row id SQLite may give again), a write through another
connection to the same file (another process), and a statement on its own
connection that bypassed `remember`. And the query leaves out a word too
common to be worth ranking its matches.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path
from typing import Any

from recall_operator.domain.models import EpisodicMemory
from recall_operator.domain.similarity import memory_features
from recall_operator.memory.base import RecallQuery, recall_query
from recall_operator.memory.embedded import EmbeddedMemory

STORED = 30


def _query(history: Any, incident: str = "inc-0008", limit: int = 50) -> RecallQuery:
    return dataclasses.replace(recall_query(history.incidents[incident], history.topology), limit=limit)


def _retitled(memory: EpisodicMemory, title: str) -> EpisodicMemory:
    return memory.model_copy(update={"spec": memory.spec.model_copy(update={"title": title})})


async def _by_name(memory: EmbeddedMemory, query: RecallQuery) -> dict[str, EpisodicMemory]:
    got = await memory.recall(query)
    assert got.features == [memory_features(m) for m in got]  # type: ignore[attr-defined]
    return {m.incident: m for m in got}


async def test_a_memory_recalled_again_is_the_one_parsed_before(tmp_path: Path, history: Any) -> None:
    memory = EmbeddedMemory(tmp_path / "memory.sqlite3")
    try:
        await memory.remember_many(history.memories[:STORED])
        first = await _by_name(memory, _query(history))
        again = await _by_name(memory, _query(history))
        assert first == again and all(first[k] is again[k] for k in first)
    finally:
        await memory.close()


async def test_a_memory_rewritten_by_this_store_is_parsed_again(tmp_path: Path, history: Any) -> None:
    memory = EmbeddedMemory(tmp_path / "memory.sqlite3")
    try:
        await memory.remember_many(history.memories[:STORED])
        before = await _by_name(memory, _query(history))
        name = next(iter(before))
        changed = _retitled(before[name], "a title written later")
        await memory.remember(changed)
        after = await _by_name(memory, _query(history))
        assert after[name] == changed
        # What did not change is still the object parsed before.
        assert all(after[k] is before[k] for k in after if k != name and k in before)
    finally:
        await memory.close()


async def test_a_forgotten_memory_and_its_reused_row_id_are_not_served_stale(tmp_path: Path, history: Any) -> None:
    memory = EmbeddedMemory(tmp_path / "memory.sqlite3")
    try:
        await memory.remember_many(history.memories[:STORED])
        last = history.memories[STORED - 1]
        assert last.incident in await _by_name(memory, _query(history))
        memory.forget_many([(last.namespace, last.incident)])
        assert last.incident not in await _by_name(memory, _query(history))
        # SQLite gives the highest row id again once it is free.
        newcomer = _retitled(last, "another failure entirely").model_copy(update={"incident": "inc-9999"})
        await memory.remember(newcomer)
        after = await _by_name(memory, _query(history))
        assert after["inc-9999"] == newcomer and last.incident not in after
    finally:
        await memory.close()


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
    memory = EmbeddedMemory(path)
    try:
        await memory.remember_many(history.memories[:STORED])
        before = await _by_name(memory, _query(history))
        name = next(iter(before))
        changed = _retitled(before[name], "rewritten in place")
        # As an older operator would: the body alone (its trigger drops the features).
        memory._query("UPDATE memories SET body = ? WHERE incident = ?",
                      [changed.model_dump_json(by_alias=True), name])
        got = await memory.recall(_query(history))
        assert {m.incident: m for m in got}[name] == changed
    finally:
        await memory.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT features FROM memories WHERE incident = ?", (name,)).fetchone() == (None,)
    conn.close()


async def test_a_word_on_more_memories_than_the_cap_is_left_out_of_the_query(
    tmp_path: Path, history: Any, monkeypatch: Any
) -> None:
    memory = EmbeddedMemory(tmp_path / "memory.sqlite3")
    try:
        await memory.remember_many(history.memories[:STORED])
        docs = dict(memory._query("SELECT term, docs FROM term_docs WHERE docs > 0", []))
        common = max(docs, key=docs.__getitem__)
        rare = min(docs, key=docs.__getitem__)
        assert docs[common] > 2 and docs[rare] == 1
        assert set(memory._telling_terms([common, rare])) == {common, rare}
        monkeypatch.setattr("recall_operator.memory.embedded.MAX_TERM_MATCHES", docs[common] - 1)
        assert memory._telling_terms([common, rare]) == [rare]
    finally:
        await memory.close()


async def test_a_query_keeps_its_rarest_words_while_their_matches_fit_the_budget(
    tmp_path: Path, history: Any, monkeypatch: Any
) -> None:
    memory = EmbeddedMemory(tmp_path / "memory.sqlite3")
    try:
        await memory.remember_many(history.memories[:STORED])
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
    finally:
        await memory.close()
