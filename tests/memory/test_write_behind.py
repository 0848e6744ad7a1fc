"""Write-behind (what `recall replay` uses on Hindsight), against a real server.

`remember` puts an outcome into the local index and queues it for the server;
the server stays the system of record: what it holds after `flush()` is what
was remembered, and a write it refuses does not stay in the index as stored.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from support import settled

from recall_operator.domain.models import EpisodicMemory
from recall_operator.memory import hindsight
from recall_operator.memory.base import MemoryUnavailable, recall_query
from recall_operator.memory.hindsight import HindsightMemory

pytestmark = pytest.mark.hindsight

FIRST = 12


def bank() -> str:
    return f"behind-{uuid.uuid4().hex[:12]}"


def refuse(monkeypatch: pytest.MonkeyPatch, incidents: set[str]) -> None:
    """Make these incidents' retains ones the server refuses (it answers 422 to empty content)."""
    honest = hindsight.retain_item

    def item(memory: EpisodicMemory, cluster: str = "") -> dict[str, Any]:
        made = honest(memory, cluster)
        return {**made, "content": ""} if memory.incident in incidents else made

    monkeypatch.setattr(hindsight, "retain_item", item)


async def test_outcomes_written_behind_are_recalled_at_once_and_are_on_the_server_after_flush(
    hindsight_server: Any, history: Any
) -> None:
    shared = bank()
    behind = HindsightMemory(hindsight_server.url, bank=shared, write_behind=True)
    server = HindsightMemory(hindsight_server.url, bank=shared, index=False)
    try:
        for m in history.memories[:FIRST]:
            await behind.remember(m)
        # inc-0001 is inc-0008's precedent: recalled from the index, whatever the server has yet.
        asking = recall_query(history.incidents["inc-0008"], history.topology)
        assert "inc-0001" in {m.incident for m in await behind.recall(asking)}
        assert behind.indexed

        await behind.flush()
        assert await server.count() == FIRST
        for m in history.memories[:FIRST]:
            assert await server.get(m.incident, m.namespace) == m
        # The same incident twice before it was sent: the server keeps the later one.
        first = history.memory("inc-0004")
        corrected = first.model_copy(
            update={"resolution": first.resolution.model_copy(update={"summary": "Corrected before it was sent."})}
        )
        await behind.remember(first)
        await behind.remember(corrected)
        assert await behind.count() == FIRST  # a read of the server waits for what was queued
        assert await server.get("inc-0004", "default") == corrected
        assert await behind.get("inc-0004", "default") == corrected
    finally:
        await behind.close()
        await server.close()


async def test_a_write_the_server_refuses_does_not_stay_in_the_index_and_is_raised(
    hindsight_server: Any, history: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = bank()
    behind = HindsightMemory(hindsight_server.url, bank=shared, write_behind=True, poll_interval=3600)
    try:
        for m in history.memories[:FIRST]:
            await behind.remember(m)
        await behind.flush()

        stored = history.memory("inc-0004")
        changed = stored.model_copy(
            update={"resolution": stored.resolution.model_copy(update={"summary": "Never stored."})}
        )
        new = history.memories[FIRST]
        refuse(monkeypatch, {"inc-0004", new.incident})
        await behind.remember(changed)
        await behind.remember(new)
        with pytest.raises(MemoryUnavailable, match=rf"did not store 2 outcome\(s\).*{new.incident}"):
            await behind.flush()
        assert not behind.indexed  # until the bank is listed again

        # The server's version wins, and what it never stored is not recalled.
        assert await behind.get("inc-0004", "default") == stored
        assert await behind.get(new.incident, new.namespace) is None
        asking = recall_query(history.incidents[new.incident], history.topology)
        assert new.incident not in {m.incident for m in await behind.recall(asking)}
        assert behind.indexed and await behind.count() == FIRST

        # The failure was raised once; the next outcome is written as before.
        monkeypatch.undo()
        await behind.remember(new)
        await behind.flush()
        assert await behind.count() == FIRST + 1
    finally:
        await behind.close()


async def test_closing_with_an_outcome_the_server_refused_raises(
    hindsight_server: Any, history: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`recall replay` closes its memory before it reports: a lost write fails the replay."""
    behind = HindsightMemory(hindsight_server.url, bank=bank(), write_behind=True)
    refuse(monkeypatch, {"inc-0002"})
    await behind.remember(history.memory("inc-0001"))
    await behind.remember(history.memory("inc-0002"))
    with pytest.raises(MemoryUnavailable, match="inc-0002"):
        await behind.close()


async def test_replay_on_hindsight_scores_as_replay_on_the_embedded_store(hindsight_server: Any) -> None:
    """`recall replay --backend hindsight` writes behind and recalls from the index: the same answers, at most one apart."""
    from support import history as dataset_path

    from recall_operator.replay import run_replay

    path = dataset_path("dev")
    embedded = await run_replay(path, ["on"])
    on_hindsight = await run_replay(path, ["on"], "hindsight", hindsight_url=hindsight_server.url)

    def answers(result: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
        return {
            row.incident: (
                row.assessment.recommendation.mode,
                row.assessment.recommendation.runbook,
                [m.incident for m in row.assessment.matches[:3]],
            )
            for row in result["_rows"]
        }

    expected, got = answers(embedded), answers(on_hindsight)
    assert got.keys() == expected.keys()
    differing = [name for name in expected if got[name] != expected[name]]
    assert len(differing) <= 1, [(name, expected[name], got[name]) for name in differing]


async def test_queued_writes_stay_in_the_index_while_the_server_works_and_are_stored_after(
    hindsight_server: Any, history: Any
) -> None:
    """`queued`: flush() returns once the server has queued the outcomes; polls meanwhile do not undo them."""
    shared = bank()
    behind = HindsightMemory(hindsight_server.url, bank=shared, write_behind=True, queued=True, poll_interval=0.1)
    server = HindsightMemory(hindsight_server.url, bank=shared, index=False)
    asking = recall_query(history.incidents["inc-0008"], history.topology)
    try:
        for m in history.memories[:FIRST]:
            await behind.remember(m)
        await behind.flush()  # queued on the server, perhaps not yet stored
        for _ in range(3):
            await behind.refresh()  # a poll while the server's worker may still be at it
            assert "inc-0001" in {m.incident for m in await behind.recall(asking)}
            assert behind.indexed
        # The server's worker stores them all (the operations are asked each poll).
        async def all_stored() -> bool:
            await behind.refresh()
            return await server.count() >= FIRST and not behind._pending

        await settled("the server's worker to store every queued outcome", all_stored)
        for m in history.memories[:FIRST]:
            assert await server.get(m.incident, m.namespace) == m
        assert await behind.count() == FIRST and behind.indexed
        # An incident written again once its first version is stored: the later one is kept.
        first = history.memory("inc-0004")
        corrected = first.model_copy(
            update={"resolution": first.resolution.model_copy(update={"summary": "Corrected afterwards."})}
        )
        await behind.remember(corrected)
        await behind.flush()
        async def corrected_stored() -> bool:
            await behind.refresh()
            return await server.get("inc-0004", "default") == corrected

        await settled("the corrected outcome on the server", corrected_stored)
        assert await behind.get("inc-0004", "default") == corrected
    finally:
        await behind.close()
        await server.close()


async def test_a_queued_write_behind_an_earlier_operation_that_never_ends_gives_up_with_the_reason(
    hindsight_server: Any, history: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write of an outcome whose earlier version the server still holds queued waits for it, not forever."""
    monkeypatch.setattr(hindsight, "QUEUED_WAIT", 0.5)
    behind = HindsightMemory(hindsight_server.url, bank=bank(), write_behind=True, queued=True, poll_interval=3600)
    memory = history.memory("inc-0001")
    try:
        # The server never finishes (nor fails) the earlier version's operation.
        behind._pending[(memory.namespace, memory.incident)] = "an-operation-the-server-never-finishes"
        await behind.remember(memory)
        with pytest.raises(MemoryUnavailable, match=r"inc-0001.*still queued on the server after 0 s"):
            await behind.flush()
    finally:
        behind._pending.clear()
        await behind.close()


async def test_replay_with_queued_writes_scores_as_with_stored_ones(hindsight_server: Any) -> None:
    """`recall replay --hindsight-writes queued`: recall is the index's either way, so the answers are the same."""
    from support import history as dataset_path

    from recall_operator.replay import run_replay

    path = dataset_path("dev")
    stored = await run_replay(path, ["on"], "hindsight", hindsight_url=hindsight_server.url)
    queued = await run_replay(path, ["on"], "hindsight", hindsight_url=hindsight_server.url, hindsight_writes="queued")
    assert [r.as_json() for r in queued["_rows"]] == [r.as_json() for r in stored["_rows"]]
