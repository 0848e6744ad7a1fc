"""Fixtures for the memory backends' contract: both backends, real history, a real Hindsight server.

- ``hindsight_server`` (session): a :class:`HindsightServer` (tests/hindsight_server.py),
  started once; a server that will not start fails the tests with its log
  tail, it never skips them.
- ``backend`` (function): each backend in turn, empty: an embedded file in
  tmp_path, or a fresh bank on the session's Hindsight server, recalled from
  the local index (``hindsight``) or from the server (``hindsight-direct``).
- ``stored`` (session): each backend in turn, holding the history's first
  ``STORED`` memories and one failed attempt (``inc-0911``); tests only read it.
- ``history`` (session): the dev history's memories (each incident with its
  outcome), incidents, topology and answer key.
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from recall_operator.domain.models import Action, EpisodicMemory, Incident, IncidentSpec, Resolution
from recall_operator.domain.topology import Topology
from recall_operator.memory.base import MemoryBackend
from recall_operator.memory.embedded import EmbeddedMemory
from recall_operator.memory.hindsight import HindsightMemory

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hindsight_server import HindsightServer, serving  # noqa: E402
from support import history as dataset_path  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
STORED = 30  # the first 30 confirmed outcomes: January to August 2024


@dataclass
class History:
    memories: list[EpisodicMemory]  # in the order their outcomes were confirmed
    incidents: dict[str, Incident]
    arrived: dict[str, datetime]
    truth: dict[str, dict[str, Any]]
    topology: Topology = field(default_factory=Topology)

    def memory(self, incident: str) -> EpisodicMemory:
        return next(m for m in self.memories if m.incident == incident)


def _history_path() -> Path:
    return dataset_path("dev")


def load_history(path: Path) -> History:
    history = History([], {}, {}, {})
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        event = json.loads(line)
        at = datetime.fromisoformat(event["at"].replace("Z", "+00:00"))
        obj = event.get("object") or {}
        if event["type"] == "apply" and obj.get("kind") == "ConfigMap":
            history.topology = Topology.parse(obj["data"]["topology"])
        elif event["type"] == "incident":
            name = obj["metadata"]["name"]
            history.incidents[name] = Incident(name=name, spec=IncidentSpec.model_validate(obj["spec"]))
            history.arrived[name] = at
            history.truth[name] = event.get("truth") or {}
        elif event["type"] == "outcome":
            name = event["incident"]
            history.memories.append(
                EpisodicMemory(
                    incident=name,
                    spec=history.incidents[name].spec,
                    resolution=Resolution.model_validate(event["resolution"]),
                    resolved_at=at,
                )
            )
    return history


@pytest.fixture(scope="session")
def history() -> History:
    return load_history(_history_path())


@pytest.fixture(scope="session")
def hindsight_server() -> Iterator[HindsightServer]:
    with serving(HindsightServer()) as server:
        yield server


BACKENDS = [
    "embedded",
    pytest.param("hindsight", marks=pytest.mark.hindsight),
    pytest.param("hindsight-direct", marks=pytest.mark.hindsight),
]


def _open(kind: str, request: pytest.FixtureRequest, folder: Path) -> MemoryBackend:
    if kind == "embedded":
        return EmbeddedMemory(folder / "memory.sqlite3")
    server: HindsightServer = request.getfixturevalue("hindsight_server")
    return HindsightMemory(server.url, bank=f"contract-{uuid.uuid4().hex[:12]}", index=kind == "hindsight")


@pytest.fixture(params=BACKENDS)
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[MemoryBackend]:
    """An empty memory of each kind, for tests that write."""
    memory = _open(request.param, request, tmp_path)
    try:
        yield memory
    finally:
        await memory.close()


def failed_attempt(history: History) -> EpisodicMemory:
    """A confirmed outcome in which nothing worked: inc-0011's certificate outage, had the restart been all."""
    original = history.memory("inc-0011")
    return original.model_copy(
        update={
            "incident": "inc-0911",
            "resolved_at": original.resolved_at - timedelta(minutes=20),
            "resolution": Resolution(
                root_cause="not yet known",
                summary="A rolling restart of the ingress controllers did not bring the certificate back.",
                actions=(Action(action="run runbook ingress-rolling-restart", result="failed"),),
                confirmed_by="oncall-a",
            ),
        }
    )


@pytest.fixture(scope="session")
def failed_memory(history: History) -> EpisodicMemory:
    return failed_attempt(history)


@pytest.fixture(scope="session", params=BACKENDS)
def stored(
    request: pytest.FixtureRequest, history: History, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[MemoryBackend]:
    """Each kind of memory holding the first STORED outcomes of the history plus a failed attempt; read only.

    Filled once per session (a retain embeds on the server's CPU), outside any
    test's event loop: the backends hold no loop-bound state between calls.
    """
    memory = _open(request.param, request, tmp_path_factory.mktemp("stored"))

    async def fill() -> None:
        for m in [*history.memories[:STORED], failed_attempt(history)]:
            await memory.remember(m)

    asyncio.run(fill())
    try:
        yield memory
    finally:
        asyncio.run(memory.close())
