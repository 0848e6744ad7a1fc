"""The local index in front of Hindsight, against a real server: shared banks, disagreements, restarts.

Hindsight is the system of record. Each test opens two or more backends on one
bank, as several operators (other clusters, other replicas) would: what one
writes the other recalls within its poll interval; what the server says wins
over what an index holds; an index lost with its operator is listed again.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest
from hindsight_client import Hindsight

from recall_operator.memory.base import RecallQuery, recall_query
from recall_operator.memory.hindsight import HindsightMemory, document_id

pytestmark = pytest.mark.hindsight

T = TypeVar("T")
POLL = 0.5  # seconds: short, so that a test waits little; the operator's default is longer
FIRST = 12  # the history's first outcomes


def bank() -> str:
    return f"index-{uuid.uuid4().hex[:12]}"


async def eventually(what: str, probe: Callable[[], Awaitable[T]], deadline: float) -> tuple[T, float]:
    """probe()'s first truthy value and the seconds it took; fails naming `what` after `deadline` seconds."""
    began = time.monotonic()
    last: Any = None
    while time.monotonic() - began < deadline:
        last = await probe()
        if last:
            return last, time.monotonic() - began
        await asyncio.sleep(POLL / 5)
    raise AssertionError(f"{what}: not within {deadline:.0f} s (last seen: {last!r})")


def query(history: Any, incident: str, limit: int = 10) -> Any:
    return dataclasses.replace(recall_query(history.incidents[incident], history.topology), limit=limit)


async def test_an_outcome_confirmed_through_one_operator_is_recalled_by_another_within_its_poll_interval(
    hindsight_server: Any, history: Any
) -> None:
    shared = bank()
    one = HindsightMemory(hindsight_server.url, bank=shared, poll_interval=POLL)
    other = HindsightMemory(hindsight_server.url, bank=shared, poll_interval=POLL)
    try:
        await one.remember_many(history.memories[:FIRST])
        asking = query(history, "inc-0008")  # inc-0001 is its precedent: the same connection leak

        async def precedent_seen() -> bool:
            return "inc-0001" in {m.incident for m in await other.recall(asking)}

        # The other operator was up before those writes: its poll brings them, not its start-up listing
        # (asking at once raced that poll when the machine was busy).
        await eventually("the other operator recalls the first outcomes", precedent_seen, deadline=POLL + 10)
        assert other.indexed

        # An outcome the other operator has not seen, asked for by its own words.
        new = history.memories[FIRST]
        spec = new.spec
        asking = RecallQuery(incident="inc-probe", service=spec.service, text=f"{spec.title} {spec.description}", limit=3)
        assert new.incident not in {m.incident for m in await other.recall(asking)}
        await one.remember(new)

        async def recalled() -> bool:
            return new.incident in {m.incident for m in await other.recall(asking)}

        # One poll interval, plus the poll itself on a busy machine.
        _, took = await eventually(f"the other operator recalls {new.incident}", recalled, deadline=POLL + 10)
        sys.__stderr__.write(f"\nshared bank: recalled by the other operator {took * 1000:.0f} ms after it was confirmed\n")
        assert await other.get(new.incident, "default") == new

        # And back: a correction through the other operator reaches the first.
        corrected = new.model_copy(
            update={"resolution": new.resolution.model_copy(update={"summary": "Corrected by the other team."})}
        )
        await other.remember(corrected)

        async def seen() -> bool:
            return await one.get(new.incident, "default") == corrected

        await eventually("the first operator reads the correction", seen, deadline=POLL + 10)
        assert await one.count() == await other.count() == FIRST + 1
    finally:
        await one.close()
        await other.close()


async def test_the_server_wins_when_it_and_the_index_disagree(hindsight_server: Any, history: Any) -> None:
    """A memory changed or deleted on the server behind the index's back is changed or dropped at the next poll."""
    shared = bank()
    indexed = HindsightMemory(hindsight_server.url, bank=shared, poll_interval=3600)  # polled by hand here
    elsewhere = HindsightMemory(hindsight_server.url, bank=shared, index=False)
    raw = Hindsight(hindsight_server.url)
    try:
        await indexed.remember_many(history.memories[:FIRST])
        assert indexed.indexed
        gone = history.memory("inc-0001")
        changed = history.memory("inc-0004")
        corrected = changed.model_copy(
            update={"resolution": changed.resolution.model_copy(update={"summary": "Rewritten on the server."})}
        )
        await elsewhere.remember(corrected)
        await raw.documents.delete_document(shared, document_id(gone.namespace, gone.incident))
        # Until it polls, the index still answers with what it had.
        assert await indexed.get("inc-0001", "default") == gone
        assert await indexed.get("inc-0004", "default") == changed

        await indexed.refresh()
        assert await indexed.get("inc-0004", "default") == corrected
        assert await indexed.get("inc-0001", "default") is None
        assert "inc-0001" not in {m.incident for m in await indexed.recall(query(history, "inc-0008"))}
        assert await indexed.count() == FIRST - 1
        # The index and a backend that asks the server agree again, memory by memory.
        for m in history.memories[:FIRST]:
            assert await indexed.get(m.incident, m.namespace) == await elsewhere.get(m.incident, m.namespace)
    finally:
        await raw.aclose()
        await indexed.close()
        await elsewhere.close()


async def test_after_a_restart_the_index_is_listed_again_from_the_bank(hindsight_server: Any, history: Any) -> None:
    shared = bank()
    asking = [query(history, name) for name in ("inc-0008", "inc-0032", history.memories[FIRST].incident)]
    first = HindsightMemory(hindsight_server.url, bank=shared)
    try:
        await first.remember_many(history.memories[:FIRST])
        await first.remember(history.memories[FIRST])
        answers = [await first.recall(q) for q in asking]
    finally:
        await first.close()  # the operator stops: its index goes with it

    restarted = HindsightMemory(hindsight_server.url, bank=shared)
    try:
        assert not restarted.indexed
        # The first recall waits for the listing, then answers from the index as before the restart.
        assert [await restarted.recall(q) for q in asking] == answers
        assert restarted.indexed
        assert await restarted.count() == FIRST + 1
        for m in history.memories[: FIRST + 1]:
            assert await restarted.get(m.incident, m.namespace) == m
    finally:
        await restarted.close()


async def test_without_the_index_recall_asks_the_server_and_finds_the_same_precedents(
    hindsight_server: Any, history: Any
) -> None:
    """The two-round-trip path (before the index is loaded, or with it off) finds what the index finds."""
    shared = bank()
    indexed = HindsightMemory(hindsight_server.url, bank=shared)
    direct = HindsightMemory(hindsight_server.url, bank=shared, index=False)
    try:
        await indexed.remember_many(history.memories[:30])
        names = {m.incident for m in history.memories[:30]}
        for incident, truth in sorted(history.truth.items()):
            precedents = set(truth.get("precedents") or ()) & names
            if incident in names or not precedents:
                continue
            q = query(history, incident)
            from_index = {m.incident for m in await indexed.recall(q)}
            from_server = {m.incident for m in await direct.recall(q)}
            assert precedents & from_index and precedents & from_server, (incident, precedents)
    finally:
        await indexed.close()
        await direct.close()


async def test_an_operator_started_while_hindsight_is_down_says_memory_is_unavailable(history: Any) -> None:
    """No index to list and no server to ask: recall, get and count raise, health() says why not; none hangs."""
    from support import free_port

    from recall_operator.memory.base import MemoryUnavailable

    nowhere = HindsightMemory(f"http://127.0.0.1:{free_port()}", bank=bank(), poll_interval=POLL)
    try:
        assert await nowhere.health()
        with pytest.raises(MemoryUnavailable):
            await nowhere.recall(query(history, "inc-0008"))
        with pytest.raises(MemoryUnavailable):
            await nowhere.get("inc-0001", "default")
        with pytest.raises(MemoryUnavailable):
            await nowhere.count()
        with pytest.raises(MemoryUnavailable):
            await nowhere.remember(history.memory("inc-0001"))
        assert not nowhere.indexed
    finally:
        await nowhere.close()


@pytest.mark.parametrize("index", [True, False], ids=["index", "direct"])
async def test_one_client_serves_every_call_in_a_loop_and_closes_with_the_backend(
    hindsight_server: Any, history: Any, index: bool
) -> None:
    """Each call used to open a client (and build an SSL context on the event loop); now a loop keeps one."""
    memory = HindsightMemory(hindsight_server.url, bank=bank(), index=index, poll_interval=POLL)
    client = memory._held().client
    await memory.remember(history.memory("inc-0001"))
    await memory.remember_many(history.memories[1:4])
    await memory.recall(query(history, "inc-0008"))
    await memory.get("inc-0001")
    await memory.count()
    assert await memory.health() is None
    assert memory._held().client is client and len(memory._loops) == 1
    session = client._api_client.rest_client.pool_manager  # the one HTTP session and its connection pool
    assert not session.closed
    await memory.close()
    assert session.closed


async def test_a_poll_reads_again_only_what_changed_since_the_last(hindsight_server: Any, history: Any) -> None:
    """Each poll lists the last POLL_OVERLAP of writes again; those unchanged are not parsed and indexed again."""
    shared = bank()
    indexed = HindsightMemory(hindsight_server.url, bank=shared, poll_interval=3600)  # polled by hand here
    elsewhere = HindsightMemory(hindsight_server.url, bank=shared, index=False)
    try:
        await elsewhere.remember_many(history.memories[:FIRST])
        await indexed.refresh()
        await indexed.refresh()  # a poll after the first listing: the same documents, all within the overlap
        assert indexed._index is not None
        written: list[list[str]] = []
        into_index = indexed._index.remember_many

        async def noted(memories: Any) -> None:
            written.append([m.incident for m in memories])
            await into_index(memories)

        indexed._index.remember_many = noted  # type: ignore[method-assign]
        await indexed.refresh()
        assert written == []
        new = history.memories[FIRST]
        await elsewhere.remember(new)
        await indexed.refresh()
        assert written == [[new.incident]]
        assert await indexed.get(new.incident, new.namespace) == new
        assert await indexed.count() == FIRST + 1
    finally:
        await indexed.close()
        await elsewhere.close()


async def test_a_document_kept_back_for_a_write_made_here_is_read_again_at_the_next_poll(
    hindsight_server: Any, history: Any
) -> None:
    """A poll that listed a document while this operator wrote it keeps its own write; the next poll reads it again.

    If the other write landed on the server after ours, the server's version is
    the other one, and the index must come to hold it at the next poll, not at
    the next whole listing.
    """
    shared = bank()
    indexed = HindsightMemory(hindsight_server.url, bank=shared, poll_interval=3600)  # polled by hand here
    elsewhere = HindsightMemory(hindsight_server.url, bank=shared, index=False)
    try:
        await elsewhere.remember_many(history.memories[:FIRST])
        await indexed.refresh()
        mine = history.memory("inc-0004")
        theirs = mine.model_copy(
            update={"resolution": mine.resolution.model_copy(update={"summary": "Written last, by another cluster."})}
        )
        await elsewhere.remember(theirs)
        # As if this operator wrote inc-0004 while that poll was listing: its own write is kept back.
        assert indexed._index is not None
        since = indexed._generation
        indexed._generation += 1
        indexed._written[(mine.namespace, mine.incident)] = indexed._generation
        await indexed._list_changes(indexed._index, since)
        assert await indexed._index.get(mine.incident, mine.namespace) == mine

        await indexed.refresh()
        assert await indexed.get(mine.incident, mine.namespace) == theirs
    finally:
        await indexed.close()
        await elsewhere.close()
