"""`recall hindsight up|down`: the offline server a new user, the demo and the bench start with one command.

Run as the user runs it (a subprocess of `recall`), in a folder of its own
(the database runs as another user, who cannot enter pytest's tmp_path).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support import free_port
from recall_operator.memory.base import MemoryUnavailable
from recall_operator.memory.hindsight import HindsightMemory

pytestmark = pytest.mark.hindsight


def recall(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "recall_operator.cli", "hindsight", *args],
        capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL, env=env,
    )


def answers(url: str) -> bool:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(f"{url}/health", timeout=3) as resp:
            return resp.status == 200
    except OSError:
        return False


@pytest.fixture
def folder() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="recall-hindsight-cli-"))
    try:
        yield path
    finally:
        recall("down", "--dir", str(path))  # whatever the test left running
        shutil.rmtree(path, ignore_errors=True)


def test_up_prints_a_url_that_answers_and_down_stops_it_keeping_the_data(folder: Path, history: Any) -> None:
    port = free_port()
    up = recall("up", "--dir", str(folder), "--port", str(port))
    assert up.returncode == 0, up.stderr
    url = up.stdout.strip()
    assert url == f"http://127.0.0.1:{port}" and answers(url), (up.stdout, up.stderr)
    again = recall("up", "--dir", str(folder))  # already up: the same URL, nothing started twice
    assert again.returncode == 0 and again.stdout.strip() == url, again.stderr
    assert recall("status", "--dir", str(folder)).returncode == 0

    memory = history.memory("inc-0001")

    async def write() -> None:
        backend = HindsightMemory(url, bank="cli")
        try:
            await backend.remember(memory)
        finally:
            await backend.close()

    asyncio.run(write())

    down = recall("down", "--dir", str(folder))
    assert down.returncode == 0, down.stderr
    assert not answers(url)
    assert recall("status", "--dir", str(folder)).returncode == 1

    up = recall("up", "--dir", str(folder))  # the last port, the same database
    assert up.returncode == 0 and up.stdout.strip() == url, up.stderr

    async def read() -> Any:
        backend = HindsightMemory(url, bank="cli")
        try:
            return await backend.get("inc-0001", "default")
        finally:
            await backend.close()

    assert asyncio.run(read()) == memory
    assert recall("down", "--dir", str(folder)).returncode == 0
    assert not answers(url)


def test_up_with_an_api_key_in_the_environment_serves_only_clients_that_send_it(folder: Path, history: Any) -> None:
    key = "a key for the local server"
    up = recall("up", "--dir", str(folder), "--port", str(free_port()),
                env={**os.environ, "RECALL_HINDSIGHT_API_KEY": key})
    assert up.returncode == 0, up.stderr
    assert "only requests with the API key of RECALL_HINDSIGHT_API_KEY" in up.stderr
    assert key not in up.stdout + up.stderr  # the key itself is never printed
    url = up.stdout.strip()

    async def remember(api_key: str | None) -> None:
        backend = HindsightMemory(url, bank="cli-locked", api_key=api_key)
        try:
            await backend.remember(history.memory("inc-0001"))
        finally:
            await backend.close()

    with pytest.raises(MemoryUnavailable, match="HTTP 401"):
        asyncio.run(remember(None))
    asyncio.run(remember(key))
