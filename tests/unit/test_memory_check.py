"""`recall_memory_up` between incidents: the periodic health check, and what it may not clear.

The backends are real: an embedded store on disk, and the Hindsight client
pointed at a port nobody serves or at a server that accepts and never answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
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


async def checks_read_down(n: int) -> None:
    """Wait until `n` more checks have each read memory as down."""
    for i in range(n):
        metrics.MEMORY_UP.set(0.5)
        await until(f"check {i + 1} of {n} read as down", lambda: up() == 0)


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
                await until("the silent server asked", lambda: len(accepted) == 1)
                await checks_read_down(3)
                # Its check still waits (the client's own timeout is longer than the interval):
                # one connection, not one more at every interval.
                assert len(accepted) == 1
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


def test_a_store_whose_lock_is_held_is_down_with_one_check_waiting_and_up_when_it_is_let_go(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The embedded check waits on a thread for the store's lock. A lock held for good must not take
    one more thread at every interval: those are the threads the operator writes statuses on."""
    async def run() -> tuple[int, int]:
        store = EmbeddedMemory(str(tmp_path / "memory.sqlite3"))
        asked: list[str] = []
        query = store._query

        def counted(sql: str, args: list[object]) -> list[tuple[object, ...]]:
            asked.append(sql)
            return query(sql, args)

        store._query = counted  # type: ignore[method-assign]
        held = threading.Event()
        release = threading.Event()

        def hold() -> None:
            with store._lock:
                held.set()
                release.wait()

        holder = threading.Thread(target=hold)
        holder.start()
        held.wait()
        try:
            async with checking(kopf.Memo(memory=store)):
                await checks_read_down(4)
                waiting = len(asked)
                release.set()
                await until("the store read as up once its lock is let go", lambda: up() == 1)
                return waiting, len(asked)
        finally:
            release.set()
            holder.join()
            await store.close()

    with caplog.at_level(logging.INFO, logger="test.memory"):
        waiting, after = asyncio.run(run())
    assert waiting == 1 and after >= 1
    assert messages(caplog) == [
        "memory backend does not answer its health check", "memory backend answers its health check again"]
    assert "no other starts until it ends" in caplog.records[0].getMessage()
