"""The contract every memory backend keeps, run against each: embedded SQLite and a real Hindsight server.

Memories are the dev history's own incidents paired with their confirmed
outcomes, so recall is tested on the wording real recurrences use.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from recall_operator.domain.consolidation import as_first_resolved, runbook_history
from recall_operator.domain.models import Action, EpisodicMemory
from recall_operator.domain.similarity import FEATURES_VERSION, Recalled, memory_features
from recall_operator.memory.base import (
    MemoryBackend, MemoryUnavailable, RecallQuery, interleave, recall_precedents, recall_query,
)
from recall_operator.memory.embedded import EmbeddedMemory
from recall_operator.memory.hindsight import HindsightMemory, telling_words

STORED = 30  # as in conftest: the first 30 confirmed outcomes, January to August 2024


async def remember_all(memory: MemoryBackend, memories: list[EpisodicMemory]) -> None:
    for m in memories:
        await memory.remember(m)


def query_for(history: Any, incident: str, limit: int) -> RecallQuery:
    """What the operator asks for this incident of the history (the production query)."""
    return dataclasses.replace(recall_query(history.incidents[incident], history.topology), limit=limit)


async def recalled(memory: MemoryBackend, query: RecallQuery) -> list[str]:
    found = await memory.recall(query)
    assert len(found) <= query.limit
    names = [m.incident for m in found]
    assert len(names) == len(set(names)), f"an incident came back twice: {names}"
    return names


# --------------------------------------------------------------------------- storage


async def test_an_empty_memory_recalls_nothing(backend: MemoryBackend) -> None:
    assert await backend.count() == 0
    assert await backend.recall(RecallQuery(incident="inc-1", service="checkout-api", text="5xx after deploy")) == []
    assert await backend.get("inc-1") is None
    assert await backend.health() is None


async def test_remember_then_get_round_trips_exactly(backend: MemoryBackend, history: Any) -> None:
    memory = history.memory("inc-0001")  # deployment, labels, a failed then a successful action
    await backend.remember(memory)
    assert await backend.get("inc-0001", "default") == memory
    assert await backend.get("inc-0001") == memory
    assert await backend.get("inc-0001", "elsewhere") is None
    assert await backend.get("inc-0002") is None


async def test_a_memory_keeps_its_object_uid_and_which_actions_the_operator_observed(backend: MemoryBackend, history: Any) -> None:
    # What tells a name deleted and used again from the same incident (consolidation.name_taken).
    memory = history.memory("inc-0002").model_copy(update={"uid": "6f1c7e0a-0000-4000-8000-000000000002"})
    # And which action the operator observed (its own failed run) rather than a person said.
    observed = Action(action="run runbook redis-restart-vm (the operator's run: step restart failed)",
                      result="failed", observed=True)
    memory = memory.model_copy(update={"resolution": memory.resolution.model_copy(
        update={"actions": (observed, *memory.resolution.actions)})})
    await backend.remember(memory)
    back = await backend.get("inc-0002", "default")
    assert back is not None and back.uid == memory.uid
    assert back.resolution.actions[0].observed and not back.resolution.actions[1].observed


async def test_a_corrected_memory_keeps_its_first_confirmed_root_cause(backend: MemoryBackend, history: Any) -> None:
    # A contradiction's sides are read from it: a later restatement must not be all memory gives back.
    first = history.memory("inc-0003")
    restated = first.model_copy(update={"resolution": first.resolution.model_copy(
        update={"root_cause": "restated by one responder with another condition's words"})})
    corrected = as_first_resolved(first, restated)
    await backend.remember(corrected)
    back = await backend.get("inc-0003", "default")
    assert back is not None and back.resolution.root_cause == restated.resolution.root_cause
    assert back.first_cause == first.resolution.root_cause != back.resolution.root_cause


async def test_a_withdrawn_memory_comes_back_withdrawn_and_a_later_correction_brings_it_back(
    backend: MemoryBackend, history: Any
) -> None:
    # The operator leaves a withdrawn memory out of every answer (candidates.clean_candidates): it must
    # come back from recall as withdrawn, whichever backend holds it.
    memory = history.memory("inc-0004")
    gone = memory.model_copy(update={"withdrawn": "withdrawn by olga: a load test, not an outage"})
    await backend.remember(gone)
    back = await backend.get("inc-0004", "default")
    assert back is not None and back.withdrawn == gone.withdrawn
    query = RecallQuery(incident="inc-new", service="orders-db", text="quarterly audit export job slower than usual",
                        limit=8)
    found = {m.incident: m for m in await backend.recall(query)}
    assert found["inc-0004"].withdrawn == gone.withdrawn
    await backend.remember(memory)
    back = await backend.get("inc-0004", "default")
    assert back is not None and back.withdrawn is None


async def test_the_same_incident_in_two_namespaces_is_two_memories(backend: MemoryBackend, history: Any) -> None:
    memory = history.memory("inc-0001")
    other = memory.model_copy(update={"namespace": "team-b"})
    await backend.remember(memory)
    await backend.remember(other)
    assert await backend.count() == 2
    assert await backend.get("inc-0001", "default") == memory
    assert await backend.get("inc-0001", "team-b") == other


async def test_remember_is_idempotent_per_incident(backend: MemoryBackend, history: Any) -> None:
    memory = history.memory("inc-0004")
    await backend.remember(memory)
    await backend.remember(memory)
    assert await backend.count() == 1
    corrected = memory.model_copy(
        update={"resolution": memory.resolution.model_copy(update={"summary": "Corrected after the review."})}
    )
    await backend.remember(corrected)
    assert await backend.count() == 1
    assert await backend.get("inc-0004", "default") == corrected


# --------------------------------------------------------------------------- recall


async def test_recall_never_returns_the_asking_incident(stored: MemoryBackend, history: Any) -> None:
    # inc-0008 is in memory and asks again (a re-evaluation): its family, not itself.
    names = await recalled(stored, query_for(history, "inc-0008", limit=5))
    assert "inc-0008" not in names
    assert "inc-0001" in names  # the same connection leak, two months earlier


async def test_an_earlier_incident_of_the_same_name_is_recalled_as_a_precedent(
    stored: MemoryBackend, history: Any
) -> None:
    # inc-0008 (uid A) was remembered, deleted, and its name used again by another object (uid B).
    held = history.memory("inc-0008").model_copy(update={"uid": "00000000-0000-4000-8000-00000000000a"})
    await stored.remember(held)
    try:
        await _namesake_recalled(stored, history, held)
    finally:  # the stored history is shared by the module's tests: put inc-0008 back as it was
        await stored.remember(history.memory("inc-0008"))


async def _namesake_recalled(stored: MemoryBackend, history: Any, held: EpisodicMemory) -> None:
    asking = history.incidents["inc-0008"].model_copy(update={"uid": "00000000-0000-4000-8000-00000000000b"})
    asking = asking.model_copy(update={"spec": asking.spec.model_copy(update={"description": "the pool ran dry again"})})
    found = await recall_precedents(stored, asking, history.topology)
    assert [m.incident for m in found].count("inc-0008") == 1 and "inc-0001" in [m.incident for m in found]
    assert next(m for m in found if m.incident == "inc-0008").resolution == held.resolution
    # The object that wrote the memory, or the same report applied again, is not its own precedent.
    for itself in (asking.model_copy(update={"uid": held.uid}),
                   history.incidents["inc-0008"].model_copy(update={"uid": "00000000-0000-4000-8000-00000000000b"})):
        assert "inc-0008" not in [m.incident for m in await recall_precedents(stored, itself, history.topology)]


async def test_recall_finds_a_memory_by_its_error_signature_words(stored: MemoryBackend) -> None:
    # A service with no Redis history, asking only with a log line that inc-0002 saw.
    query = RecallQuery(
        incident="inc-new",
        service="ingress-gateway",
        text="WARNING you have Transparent Huge Pages (THP) support enabled in your kernel; fork took 3100 ms",
        limit=5,
    )
    assert "inc-0002" in await recalled(stored, query)


async def test_recall_finds_memories_on_the_paging_service(stored: MemoryBackend) -> None:
    # Words that match nothing in memory: only the service can find them. There
    # are two orders-db memories among the 31; a quarter of the places is room enough.
    query = RecallQuery(incident="inc-new", service="orders-db", text="quarterly audit export job slower than usual", limit=8)
    assert {"inc-0004", "inc-0010"} <= set(await recalled(stored, query))


async def test_recall_returns_candidates_from_a_neighbour_service(stored: MemoryBackend) -> None:
    query = RecallQuery(
        incident="inc-new",
        service="search-api",
        text="quarterly audit export job slower than usual",
        neighbours=("redis-cluster",),
        limit=6,
    )
    found = await stored.recall(query)
    assert any(m.spec.service == "redis-cluster" for m in found), [(m.incident, m.spec.service) for m in found]
    alone = await stored.recall(dataclasses.replace(query, neighbours=()))
    assert not any(m.spec.service == "redis-cluster" for m in alone), "the words alone should not find Redis"


async def test_a_failed_fix_is_recalled_with_its_actions_intact(
    stored: MemoryBackend, history: Any, failed_memory: EpisodicMemory
) -> None:
    found = await stored.recall(query_for(history, "inc-0032", limit=8))  # the next expired certificate
    back = next((m for m in found if m.incident == failed_memory.incident), None)
    assert back == failed_memory, [m.incident for m in found]
    assert [(a.action, a.result) for a in back.resolution.actions] == [("run runbook ingress-rolling-restart", "failed")]


async def test_every_outcome_a_runbook_took_part_in_is_found_by_its_name(
    stored: MemoryBackend, history: Any, failed_memory: EpisodicMemory
) -> None:
    # What a Runbook object made afresh is given as its record (handlers.catalog): every outcome
    # naming it, a failed run named only in an action included, and none of another namespace.
    held = [*history.memories[:STORED], failed_memory]
    runbooks = sorted({m.resolution.runbook for m in held if m.resolution.runbook})
    assert "ingress-rolling-restart" in runbooks and len(runbooks) >= 3
    for runbook in runbooks:
        found = runbook_history(await stored.outcomes_naming("default", runbook), runbook)
        expected = runbook_history(held, runbook)
        assert [(m.incident, r) for m, r in found] == [(m.incident, r) for m, r in expected], runbook
        assert [m for m, _ in found] == [m for m, _ in expected]
    failed = runbook_history(await stored.outcomes_naming("default", "ingress-rolling-restart"),
                             "ingress-rolling-restart")
    assert (failed_memory.incident, "failed") in [(m.incident, r) for m, r in failed]
    assert await stored.outcomes_naming("elsewhere", runbooks[0]) == []
    assert await stored.outcomes_naming("default", "no-such-runbook") == []


async def test_incident_words_are_never_read_as_query_syntax(stored: MemoryBackend) -> None:
    text = 'upstream "connect() failed (111: Connection refused) AND NEAR(x y) OR col:* -) ^ {a} \\ \' ;'
    names = await recalled(stored, RecallQuery(incident="inc-new", service="checkout-api", text=text, limit=5))
    assert names  # the service arm still answers; nothing raised


async def test_recurrences_find_their_earlier_family_members(stored: MemoryBackend, history: Any) -> None:
    """For every later incident whose precedents are among those stored, the precedents come back."""
    names = {m.incident for m in history.memories[:STORED]}
    cases = {
        incident: set(truth.get("precedents") or ()) & names
        for incident, truth in history.truth.items()
        if incident not in names and set(truth.get("precedents") or ()) & names
    }
    assert len(cases) >= 25
    some_found, all_found, missed = 0, 0, {}
    for incident, precedents in sorted(cases.items()):
        got = set(await recalled(stored, query_for(history, incident, limit=10)))
        some_found += bool(precedents & got)
        all_found += precedents <= got
        if not precedents <= got:
            missed[incident] = sorted(precedents - got)
    # Every recurrence has a precedent among its candidates; nearly all have every one.
    assert some_found == len(cases), missed
    assert all_found >= 0.8 * len(cases), missed


# --------------------------------------------------------------------------- embedded only


async def test_embedded_memory_survives_a_reopen(tmp_path: Path, history: Any) -> None:
    path = tmp_path / "memory.sqlite3"
    first = EmbeddedMemory(path)
    await remember_all(first, history.memories[:STORED])
    await first.close()

    reopened = EmbeddedMemory(path)
    try:
        assert await reopened.count() == STORED
        for memory in history.memories[:STORED]:
            assert await reopened.get(memory.incident, memory.namespace) == memory
        assert "inc-0001" in await recalled(reopened, query_for(history, "inc-0008", limit=5))
    finally:
        await reopened.close()


async def test_embedded_memory_that_cannot_open_is_unavailable(tmp_path: Path, history: Any) -> None:
    memory = EmbeddedMemory(tmp_path / "no-such-folder" / "memory.sqlite3")
    assert await memory.health()
    with pytest.raises(MemoryUnavailable):
        await memory.remember(history.memory("inc-0001"))
    with pytest.raises(MemoryUnavailable):
        await memory.recall(RecallQuery(incident="x", service="checkout-api", text="5xx"))


async def test_embedded_memory_refuses_a_newer_schema(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(MemoryUnavailable, match="newer"):
        await EmbeddedMemory(path).count()


async def test_embedded_recall_hands_over_each_memorys_features_as_written(tmp_path: Path, history: Any) -> None:
    memory = EmbeddedMemory(tmp_path / "memory.sqlite3")
    try:
        await remember_all(memory, history.memories[:STORED])
        got = await memory.recall(query_for(history, "inc-0008", limit=5))
        assert isinstance(got, Recalled) and len(got.features) == len(got) > 0
        assert got.features == [memory_features(m) for m in got]
    finally:
        await memory.close()


async def test_embedded_features_of_an_older_version_or_writer_are_derived_again(tmp_path: Path, history: Any) -> None:
    path = tmp_path / "memory.sqlite3"
    first = EmbeddedMemory(path)
    await remember_all(first, history.memories[:STORED])
    await first.close()
    with sqlite3.connect(path) as conn:
        # A file from before features were kept: no features columns, schema 1.
        conn.execute("DROP TRIGGER memories_body_changed")
        conn.execute("ALTER TABLE memories DROP COLUMN features")
        conn.execute("ALTER TABLE memories DROP COLUMN features_version")
    conn.close()

    reopened = EmbeddedMemory(path)
    try:
        assert await reopened.count() == STORED
        rows = reopened._query("SELECT features_version, count(*) FROM memories GROUP BY 1", [])
        assert rows == [(FEATURES_VERSION, STORED)]
        got = await reopened.recall(query_for(history, "inc-0008", limit=5))
        assert got.features == [memory_features(m) for m in got]
        # An older operator rewrites a body and leaves the features alone: they are
        # dropped (scoring derives them) until the next start-up derives them again.
        body = history.memory("inc-0001").model_copy(update={"namespace": "default"}).model_dump_json(by_alias=True)
        reopened._query("UPDATE memories SET body = ? WHERE incident = 'inc-0001'", [body])
        assert reopened._query("SELECT features, features_version FROM memories WHERE incident = 'inc-0001'", []) \
            == [(None, 0)]
    finally:
        await reopened.close()
    again = EmbeddedMemory(path)
    try:
        assert again._query("SELECT count(*) FROM memories WHERE features_version != ?", [FEATURES_VERSION]) == [(0,)]
    finally:
        await again.close()


# --------------------------------------------------------------------------- hindsight only


@pytest.mark.hindsight
async def test_hindsight_down_is_unavailable_and_back_after_a_restart(hindsight_server: Any, history: Any) -> None:
    memory = HindsightMemory(hindsight_server.url, bank="contract-restart")
    query = query_for(history, "inc-0008", limit=5)
    await remember_all(memory, history.memories[:5])

    hindsight_server.stop()
    try:
        assert await memory.health()
        with pytest.raises(MemoryUnavailable):
            await memory.remember(history.memory("inc-0006"))
        with pytest.raises(MemoryUnavailable):
            await memory.recall(query)
        with pytest.raises(MemoryUnavailable):
            await memory.get("inc-0001")
        with pytest.raises(MemoryUnavailable):
            await memory.count()
    finally:
        hindsight_server.start()

    assert await memory.health() is None
    assert await memory.count() == 5  # the database kept what was written before
    assert await memory.get("inc-0001", "default") == history.memory("inc-0001")
    assert memory.indexed  # the read above polled first: the local index is current again
    await memory.remember(history.memory("inc-0006"))
    assert await memory.count() == 6
    assert "inc-0001" in await recalled(memory, query)
    await memory.close()


# --------------------------------------------------------------------------- the shared pieces


def test_interleave_gives_every_arm_a_turn_and_never_repeats() -> None:
    words = iter(["a", "b", "c", "d"])
    merged = interleave([words, ["b", "x"], words, ["y"]], key=lambda s: s, limit=5)
    # The second arm gives "b" first; the words arm, at its next turn, skips it for "c".
    assert merged == ["a", "b", "c", "y", "d"]
    assert interleave([[], ["z"]], key=lambda s: s, limit=3) == ["z"]
    assert interleave([["a", "b"]], key=lambda s: s, limit=0) == []


def test_telling_words_prefer_identifiers_and_drop_ids() -> None:
    text = "checkout-api 5xx: HikariPool-1 - Connection is not available, timed out after 30000ms (ORD-88121840)"
    chosen = telling_words(text)
    assert chosen[:2] == ["hikaripool", "5xx"]  # identifiers first, the longer first
    assert {"connection", "available"} <= set(chosen)
    assert not {"30000ms", "88121840", "not", "is"} & set(chosen)  # ids, numbers and stopwords say nothing
    assert len(telling_words(" ".join(f"word{n}x" for n in range(40)))) == 16
