"""A new Runbook's record, asked of memory that cannot answer, is asked again until it can, and not for ever.

Memory is often still coming up when the operator starts and lists every
Runbook: their one event came and went. The handler runs in this process
against the real API server, with a real embedded store behind a switch that
makes it answer as a backend that cannot be reached.
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import kopf
import pytest

from recall_operator.api import API_VERSION, GROUP, VERSION
from recall_operator.handlers import catalog
from recall_operator.domain.models import Action, EpisodicMemory, IncidentSpec, Resolution
from recall_operator.memory.base import MemoryUnavailable
from recall_operator.memory.embedded import EmbeddedMemory

pytestmark = pytest.mark.integration

RUNBOOK = {
    "apiVersion": API_VERSION, "kind": "Runbook", "metadata": {"name": "rb-restart"},
    "spec": {"title": "Restart the pods", "services": ["cart-service"],
             "steps": [{"name": "restart", "image": "kubectl:1", "command": ["kubectl", "rollout", "restart",
                                                                            "deployment/cart"]}]},
}


class Outage:
    """The embedded store, as a backend that cannot be reached while `down`."""

    def __init__(self, store: EmbeddedMemory) -> None:
        self.store, self.down = store, True

    async def outcomes_naming(self, namespace: str, runbook: str) -> Any:
        if self.down:
            raise MemoryUnavailable("memory at test: connection refused")
        return await self.store.outcomes_naming(namespace, runbook)


def _events(kubectl: Any, namespace: str, uid: str) -> dict[str, str]:
    proc = kubectl("get", "events", "-n", namespace, "--field-selector", f"involvedObject.uid={uid}", "-o", "json",
                   check=True)
    return {e["reason"]: e["message"] for e in json.loads(proc.stdout)["items"]}


def test_a_record_memory_could_not_give_is_asked_again_and_the_wait_ends(
    k8s_api: Any, kubectl: Any, namespace: str, tmp_path: Path
) -> None:
    from kubernetes import client

    objects = client.CustomObjectsApi(k8s_api)
    body = objects.create_namespaced_custom_object(GROUP, VERSION, namespace, "runbooks", RUNBOOK)
    meta = body["metadata"]

    async def run() -> None:
        store = EmbeddedMemory(tmp_path / "memory.sqlite3")
        await store.remember(EpisodicMemory(
            incident="inc-1", namespace=namespace, spec=IncidentSpec(service="cart-service", title="cart 5xx"),
            resolution=Resolution(runbook="rb-restart", actions=(Action(action="run runbook rb-restart",
                                                                        result="succeeded"),)),
            resolved_at=datetime(2026, 11, 1, tzinfo=UTC)))
        memo = kopf.Memo(api=k8s_api, memory=Outage(store))
        # The Runbook's one event, memory down: nothing counted, and it says it waits.
        await catalog.runbook_accepted(event={"type": None}, name="rb-restart", namespace=namespace,
                                       spec=body["spec"], status={}, meta=meta, memo=memo)
        assert ("countedFromMemory" not in (objects.get_namespaced_custom_object(
            GROUP, VERSION, namespace, "runbooks", "rb-restart").get("status") or {}))
        assert "asked again every 10 s" in _events(kubectl, namespace, meta["uid"])["RecordWaitsForMemory"]
        # Still down: the loop's pass keeps it waiting.
        assert await catalog.reread_records(memo) == 1
        # Memory is back: the next pass counts it, with no event of the Runbook's.
        memo.memory.down = False
        assert await catalog.reread_records(memo) == 0
        status = objects.get_namespaced_custom_object(GROUP, VERSION, namespace, "runbooks", "rb-restart")["status"]
        assert status["countedFromMemory"]["counted"] is True and status["timesSucceeded"] == 1
        await store.close()

        # Another object under the name, memory down for good: the wait ends, and says so.
        objects.delete_namespaced_custom_object(GROUP, VERSION, namespace, "runbooks", "rb-restart")
        again = objects.create_namespaced_custom_object(GROUP, VERSION, namespace, "runbooks", RUNBOOK)["metadata"]
        memo.memory.down = True
        await catalog.runbook_accepted(event={"type": None}, name="rb-restart", namespace=namespace,
                                       spec=body["spec"], status={}, meta=again, memo=memo)
        assert await catalog.reread_records(memo) == 1
        memo.runbooks_unread[(namespace, "rb-restart")]["since"] -= catalog.RECORD_WAIT + timedelta(seconds=1)
        assert await catalog.reread_records(memo) == 0
        said = _events(kubectl, namespace, again["uid"])
        assert "could not be read for 1:00:00 (last: memory at test: connection refused)" in said["RecordNotRead"]

    asyncio.run(run())
