"""`recall_memory_up` between incidents: the periodic health check, and what it may not clear.

The backends are real: an embedded store on disk, and the Hindsight client
pointed at a port nobody serves or at a server that accepts and never answers.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import kopf
import pytest

from recall_operator import metrics
from recall_operator.handlers import check_memory_forever
from recall_operator.memory.embedded import EmbeddedMemory
from recall_operator.memory.hindsight import HindsightMemory
from prometheus import free_port


@pytest.fixture(autouse=True)
def fresh_gauge() -> None:
    metrics._MemoryHealth.failed_use = False
    metrics.MEMORY_UP.set(0)


def up() -> float:
    return metrics.MEMORY_UP._value.get()


def test_a_failed_use_is_cleared_by_a_use_and_not_by_a_health_check() -> None:
    metrics.memory_up(True, checked=True)
    assert up() == 1
    metrics.memory_up(False, checked=True)  # the check alone sees an outage
    assert up() == 0
    metrics.memory_up(True, checked=True)
    assert up() == 1
    metrics.memory_up(False)  # an outcome the store would not take
    metrics.memory_up(True, checked=True)  # the backend is there; a write would still fail
    assert up() == 0
    metrics.memory_up(True)  # the outbox's retry landed
    assert up() == 1


EVERY = 0.2  # seconds between checks here (the operator's setting starts at 1)


async def _checked(memo: kopf.Memo, rounds: int) -> list[float]:
    """The gauge in the middle of each of `rounds` checks."""
    seen: list[float] = []
    task = asyncio.create_task(check_memory_forever(memo, EVERY, logging.getLogger("test.memory")))
    try:
        for _ in range(rounds):
            await asyncio.sleep(EVERY * 0.75)
            seen.append(up())
            await asyncio.sleep(EVERY * 0.25)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    return seen


def test_the_check_reads_an_open_store_as_up_and_nothing_opened_as_down(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def run() -> tuple[list[float], list[float]]:
        store = EmbeddedMemory(str(tmp_path / "memory.sqlite3"))
        try:
            opened = await _checked(kopf.Memo(memory=store), 2)
        finally:
            await store.close()
        return opened, await _checked(kopf.Memo(), 1)

    with caplog.at_level(logging.INFO, logger="test.memory"):
        opened, none = asyncio.run(run())
    assert opened == [1, 1] and none == [0]
    assert [r.getMessage().split(" (")[0] for r in caplog.records] == [
        "memory backend does not answer its health check"]


def test_a_server_gone_or_silent_is_down_once_in_the_log_and_back_when_it_answers(
    caplog: pytest.LogCaptureFixture
) -> None:
    """Nobody on the port: refused at once. A server that accepts and never answers: the check
    gives up at its interval. Each outage is logged once, its end once."""
    async def run() -> list[float]:
        silent = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = silent.sockets[0].getsockname()[1]
        gone = HindsightMemory(f"http://127.0.0.1:{free_port()}", index=False)
        hung = HindsightMemory(f"http://127.0.0.1:{port}", index=False)
        store = EmbeddedMemory(":memory:")
        memo = kopf.Memo(memory=gone)
        seen: list[float] = []
        task = asyncio.create_task(check_memory_forever(memo, EVERY, logging.getLogger("test.memory")))
        try:
            for backend in (gone, hung, store):
                memo.memory = backend
                await asyncio.sleep(EVERY * 5)  # at least two whole checks on this backend
                seen.append(up())
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            for backend in (gone, hung, store):
                await backend.close()
            silent.close()
        return seen

    with caplog.at_level(logging.INFO, logger="test.memory"):
        seen = asyncio.run(run())
    assert seen == [0, 0, 1]
    assert [r.getMessage().split(" (")[0] for r in caplog.records] == [
        "memory backend does not answer its health check", "memory backend answers its health check again"]
    assert "hindsight at http://127.0.0.1:" in caplog.records[0].getMessage()  # why: the backend's own reason


def test_a_check_that_raises_counts_as_down_and_the_loop_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    """`health()` promises never to raise; a backend that breaks the promise must not end the checks."""
    class Broken:
        async def health(self) -> str | None:
            raise RuntimeError("socket closed under it")

    async def run() -> tuple[list[float], bool]:
        memo = kopf.Memo(memory=Broken())
        task = asyncio.create_task(check_memory_forever(memo, EVERY, logging.getLogger("test.memory")))
        seen = []
        for _ in range(3):
            await asyncio.sleep(EVERY)
            seen.append(up())
        alive = not task.done()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return seen, alive

    with caplog.at_level(logging.INFO, logger="test.memory"):
        seen, alive = asyncio.run(run())
    assert seen == [0, 0, 0] and alive
    assert len(caplog.records) == 1 and "raised RuntimeError: socket closed under it" in caplog.records[0].getMessage()
