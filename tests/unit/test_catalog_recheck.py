"""The re-check of Contradictions that wait for memory: asked again until memory holds every side."""

from __future__ import annotations

import asyncio
from typing import Any

import kopf
import pytest

from recall_operator.handlers import catalog
from recall_operator.memory.base import MemoryUnavailable

SPEC = {"topic": "what stops the rebalance loop", "memories": ["inc-a", "inc-b"]}


class Memory:
    def __init__(self, held: set[str], down: bool = False) -> None:
        self.held, self.down = held, down

    async def get(self, incident: str, namespace: str | None = None) -> object | None:
        if self.down:
            raise MemoryUnavailable("down")
        return object() if incident in self.held and namespace == "shop" else None


@pytest.fixture
def applied(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, dict[str, Any]]]:
    writes: list[tuple[str, str, dict[str, Any]]] = []

    async def apply(api: Any, plural: str, kind: str, namespace: str, name: str, status: dict[str, Any]) -> None:
        if api == "broken":
            raise RuntimeError("connection refused")
        writes.append((plural, name, status))

    monkeypatch.setattr(catalog, "_apply_status", apply)
    return writes


def _memo(memory: Memory, api: str = "api") -> kopf.Memo:
    memo = kopf.Memo()
    memo.memory, memo.api = memory, api
    memo.contradictions_waiting = {("shop", "poll-interval"): {"spec": SPEC, "meta": {"generation": 3}}}
    return memo


def test_one_still_missing_keeps_waiting_without_a_write(applied: list[Any]) -> None:
    memo = _memo(Memory({"inc-a"}))
    assert asyncio.run(catalog.recheck_waiting(memo)) == 0
    assert applied == []
    assert ("shop", "poll-interval") in memo.contradictions_waiting


def test_once_memory_holds_every_side_it_is_accepted_and_leaves_the_set(applied: list[Any]) -> None:
    memo = _memo(Memory({"inc-a", "inc-b"}))
    assert asyncio.run(catalog.recheck_waiting(memo)) == 1
    ((plural, name, status),) = applied
    assert (plural, name) == ("contradictions", "poll-interval")
    (cond,) = status["conditions"]
    assert (cond["type"], cond["status"], cond["reason"], cond["observedGeneration"]) == ("Accepted", "True", "Valid", 3)
    assert memo.contradictions_waiting == {}


@pytest.mark.parametrize(("memory", "api"), [(Memory(set(), down=True), "api"), (Memory({"inc-a", "inc-b"}), "broken")])
def test_memory_or_the_api_away_leaves_it_for_the_next_pass(applied: list[Any], memory: Memory, api: str) -> None:
    memo = _memo(memory, api)
    assert asyncio.run(catalog.recheck_waiting(memo)) == 0
    assert applied == []
    assert ("shop", "poll-interval") in memo.contradictions_waiting
