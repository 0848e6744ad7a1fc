"""`remember_many` (bulk loads, the bench's history) stores exactly what `remember` stores.

Each backend in turn: the same memories written one by one into one store and
in bulk into another are read back, recalled and counted identically; a bulk
write and a single write of the same incident replace each other. On
Hindsight the stored documents and units are compared field by field.
"""

from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path
from typing import Any

import pytest
from hindsight_client import Hindsight

from recall_operator.domain.consolidation import memory_text
from recall_operator.domain.models import EpisodicMemory
from recall_operator.memory.base import MemoryBackend, RecallQuery, recall_query
from recall_operator.memory.embedded import EmbeddedMemory
from recall_operator.memory.hindsight import HindsightMemory, document_id

WRITTEN = 12  # the history's first outcomes: enough that a recall of 5 has to choose


def sibling(backend: MemoryBackend, folder: Path) -> MemoryBackend:
    """Another empty store of the same kind as `backend`."""
    if isinstance(backend, HindsightMemory):
        return HindsightMemory(backend.base_url, bank=f"contract-{uuid.uuid4().hex[:12]}", index=backend.with_index)
    assert isinstance(backend, EmbeddedMemory)
    return EmbeddedMemory(folder / "one-by-one.sqlite3")


def corrected(memory: EpisodicMemory, summary: str) -> EpisodicMemory:
    return memory.model_copy(update={"resolution": memory.resolution.model_copy(update={"summary": summary})})


def written(history: Any, failed_memory: EpisodicMemory) -> list[EpisodicMemory]:
    first = history.memories[:WRITTEN]
    # a failed fix, and the same incident in a second namespace
    return [*first, failed_memory, first[0].model_copy(update={"namespace": "team-b"})]


async def test_a_bulk_written_memory_is_read_and_recalled_as_one_written_alone(
    backend: MemoryBackend, history: Any, failed_memory: EpisodicMemory, tmp_path: Path
) -> None:
    memories = written(history, failed_memory)
    originals = {(m.namespace, m.incident): m for m in memories}
    alone = sibling(backend, tmp_path)
    try:
        for m in memories:
            await alone.remember(m)
        await backend.remember_many(memories)

        assert await backend.count() == await alone.count() == len(memories)
        for m in memories:
            assert await backend.get(m.incident, m.namespace) == m
            assert await backend.get(m.incident) == await alone.get(m.incident)

        queries = [
            dataclasses.replace(recall_query(history.incidents[name], history.topology), limit=5)
            for name in ("inc-0008", "inc-0032", history.memories[WRITTEN].incident)
        ]
        queries.append(RecallQuery(incident="inc-new", service="orders-db", text="audit export slower than usual", limit=5))
        for query in queries:
            # Hindsight breaks exact BM25 ties by storage order, and it stores a bulk
            # request's documents concurrently: among ties the order may differ, so
            # each store is asked for every candidate and the answers compared whole.
            everything = dataclasses.replace(query, limit=len(memories))
            found = await backend.recall(everything)
            assert found, query
            assert {(m.namespace, m.incident): m for m in found} == {
                (m.namespace, m.incident): m for m in await alone.recall(everything)
            }, query.incident
            assert all(m == originals[(m.namespace, m.incident)] for m in found)
            if isinstance(backend, EmbeddedMemory):  # no ties left to chance: the same order too
                assert await backend.recall(query) == await alone.recall(query), query.incident
    finally:
        await alone.close()


async def test_bulk_and_single_writes_of_one_incident_replace_each_other(backend: MemoryBackend, history: Any) -> None:
    memory = history.memory("inc-0004")
    review = corrected(memory, "Corrected after the review.")
    later = corrected(memory, "Corrected again.")

    await backend.remember_many([memory])
    await backend.remember(review)
    assert await backend.count() == 1
    assert await backend.get("inc-0004", "default") == review

    await backend.remember_many([memory, later])  # the later of two in one call wins
    assert await backend.count() == 1
    assert await backend.get("inc-0004", "default") == later
    assert await backend.get("inc-0004") == later
    if isinstance(backend, HindsightMemory):  # replaced, not folded into one document with the first
        stored = await _stored(backend, later)
        assert stored["document"]["original_text"] == stored["units"][0]["text"] == memory_text(later)

    await backend.remember_many([])
    assert await backend.count() == 1


@pytest.mark.hindsight
async def test_hindsight_stores_a_bulk_item_exactly_as_a_single_retain(
    hindsight_server: Any, history: Any, failed_memory: EpisodicMemory
) -> None:
    """Document text, tags, metadata and retain parameters; unit text, dates, tags and metadata."""
    memories = written(history, failed_memory)
    alone = HindsightMemory(hindsight_server.url, bank=f"contract-{uuid.uuid4().hex[:12]}")
    bulk = HindsightMemory(hindsight_server.url, bank=f"contract-{uuid.uuid4().hex[:12]}")
    for m in memories:
        await alone.remember(m)
    await bulk.remember_many(memories)

    for m in memories:
        assert await _stored(bulk, m) == await _stored(alone, m), m.incident


# Fields of a document and of a unit that belong to the write, not to the moment or the bank.
DOCUMENT_FIELDS = ("id", "original_text", "content_hash", "document_metadata", "retain_params", "memory_unit_count")
UNIT_FIELDS = ("text", "context", "date", "mentioned_at", "occurred_start", "occurred_end", "fact_type", "metadata", "document_id")


async def _units(memory: HindsightMemory, incident: str) -> list[dict[str, Any]]:
    client = Hindsight(memory.base_url)
    try:
        page = await client.alist_memories(memory.bank, tags=[f"incident:{incident}"], tags_match="any_strict")
    finally:
        await client.aclose()
    return [item if isinstance(item, dict) else item.to_dict() for item in page.items]


async def _stored(memory: HindsightMemory, m: EpisodicMemory) -> dict[str, Any]:
    """What the server holds for one memory, as far as the writer decided it."""
    client = Hindsight(memory.base_url)
    try:
        doc = (await client.documents.get_document(memory.bank, document_id(m.namespace, m.incident))).to_dict()
    finally:
        await client.aclose()
    units = [u for u in await _units(memory, m.incident) if u["document_id"] == doc["id"]]
    assert len(units) == 1, units  # one memory, one chunk, one unit
    return {
        "document": {k: doc[k] for k in DOCUMENT_FIELDS} | {"tags": sorted(doc["tags"])},
        "units": [{k: u[k] for k in UNIT_FIELDS} | {"tags": sorted(u["tags"])} for u in units],
    }


def test_the_bench_says_why_a_larger_hindsight_bank_was_not_written_in_the_rate_it_measured() -> None:
    from recall_operator_dev.bench import not_measured

    why = not_measured([100_000], 10_000, {"10000": 800.0})
    assert list(why) == ["100000"]
    # 80 ms a memory, as measured up to 10k: the 90k more take 120 minutes.
    assert "80 ms each" in why["100000"] and "about 120 min" in why["100000"]
