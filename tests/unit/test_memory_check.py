"""`recall_memory_up` between incidents: the periodic health check, and what it may not clear.

The backends are real: an embedded store on disk, and the Hindsight client
pointed at a port nobody serves or at a server that accepts and never answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
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
    metrics.MEMORY_UP.set(0.5)  # neither: a check that ran has set 0 or 1


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


async def until(what: str, condition: Callable[[], bool], deadline: float = 10.0) -> None:
    """Poll until `condition` holds; the deadline only bounds a test that would otherwise hang."""
    loop = asyncio.get_running_loop()
    end = loop.time() + deadline
    while not condition():
        if loop.time() > end:
            raise AssertionError(f"not within {deadline} s: {what}")
        await asyncio.sleep(0.02)


@contextlib.asynccontextmanager
async def checking(memo: kopf.Memo) -> AsyncIterator[asyncio.Task[None]]:
    task = asyncio.create_task(check_memory_forever(memo, EVERY, logging.getLogger("test.memory")))
    try:
        yield task
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


def messages(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage().split(" (")[0] for r in caplog.records]


def test_the_check_reads_an_open_store_as_up_and_nothing_opened_as_down(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def run() -> None:
        store = EmbeddedMemory(str(tmp_path / "memory.sqlite3"))
        memo = kopf.Memo(memory=store)
        try:
            async with checking(memo):
                await until("the open store read as up", lambda: up() == 1)
                memo.memory = None
                await until("no store read as down", lambda: up() == 0)
        finally:
            await store.close()

    with caplog.at_level(logging.INFO, logger="test.memory"):
        asyncio.run(run())
    assert messages(caplog) == ["memory backend does not answer its health check"]
    assert "no memory backend is open" in caplog.records[0].getMessage()


def test_a_server_gone_or_silent_is_down_once_in_the_log_and_back_when_it_answers(
    caplog: pytest.LogCaptureFixture
) -> None:
    """Nobody on the port: refused at once. A server that accepts and never answers: the check
    gives up at its interval. Each outage is logged once, its end once."""
    async def run() -> None:
        accepted: list[object] = []
        silent = await asyncio.start_server(lambda r, w: accepted.append(w), "127.0.0.1", 0)
        port = silent.sockets[0].getsockname()[1]
        gone = HindsightMemory(f"http://127.0.0.1:{free_port()}", index=False)
        hung = HindsightMemory(f"http://127.0.0.1:{port}", index=False)
        store = EmbeddedMemory(":memory:")
        memo = kopf.Memo(memory=gone)
        try:
            async with checking(memo):
                await until("nobody on the port read as down", lambda: up() == 0)
                memo.memory = hung
                # Two checks reached the silent server, and neither was taken for an answer.
                await until("two checks of the silent server", lambda: len(accepted) >= 2)
                assert up() == 0
                memo.memory = store
                await until("the store read as up again", lambda: up() == 1)
        finally:
            for backend in (gone, hung, store):
                await backend.close()
            silent.close()

    with caplog.at_level(logging.INFO, logger="test.memory"):
        asyncio.run(run())
    assert messages(caplog) == [
        "memory backend does not answer its health check", "memory backend answers its health check again"]
    assert "hindsight at http://127.0.0.1:" in caplog.records[0].getMessage()  # why: the backend's own reason


def test_a_check_that_raises_counts_as_down_and_the_loop_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    """`health()` promises never to raise; a backend that breaks the promise must not end the checks."""
    calls: list[int] = []

    class Broken:
        async def health(self) -> str | None:
            calls.append(1)
            raise RuntimeError("socket closed under it")

    async def run() -> bool:
        async with checking(kopf.Memo(memory=Broken())) as task:
            await until("three checks", lambda: len(calls) >= 3)
            return not task.done()

    with caplog.at_level(logging.INFO, logger="test.memory"):
        alive = asyncio.run(run())
    assert up() == 0 and alive
    assert len(caplog.records) == 1 and "raised RuntimeError: socket closed under it" in caplog.records[0].getMessage()
