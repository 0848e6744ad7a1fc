"""One open incident, one pass at a time: what makes the loop work its answer out again, on the real API server.

The incident handlers run in this process, as the operator runs them, with a
real API client, a real embedded memory and the operator's own reconcile; the
indexes are handed in as Kopf would hand them (the values its index handlers
return, per namespace), and the clock is the test's (memo.clock), so a
migration's moment can be reached without waiting for it. Each call is one
incident's turn in one pass of the loop, and says what it did: skipped,
worked out again to the same answer (unchanged), or written.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path
from typing import Any

import kopf
import pytest

from kit import Clock
from recall_operator.api import API_VERSION, GROUP, VERSION
from recall_operator.domain.models import ArchitectureMigration, EpisodicMemory, IncidentSpec, MigrationSpec, Resolution
from recall_operator.handlers import incident
from recall_operator.memory.embedded import EmbeddedMemory

pytestmark = pytest.mark.integration

NAME = "inc-clock"
SPEC = {"service": "checkout-api", "title": "checkout-api 5xx after a deploy", "symptoms": ["5xx"]}


def _memo(k8s_api: Any, memory: EmbeddedMemory, clock: Clock) -> kopf.Memo:
    memo = kopf.Memo()
    memo.api, memo.memory, memo.clock = k8s_api, memory, clock
    memo.locks, memo.retries, memo.written, memo.evaluations = {}, set(), {}, {}
    return memo


def _precedent(namespace: str, clock: Clock) -> EpisodicMemory:
    return EpisodicMemory(
        incident="checkout-before", namespace=namespace, spec=IncidentSpec.model_validate(SPEC),
        resolution=Resolution.model_validate({
            "runbook": "k8s-rollback-deploy", "rootCause": "a bad deploy", "summary": "rolled checkout-api back",
            "confirmedBy": "oncall-a", "actions": [{"action": "run runbook k8s-rollback-deploy", "result": "succeeded"}]}),
        resolved_at=clock() - timedelta(days=1),
    )


def _migration(applied: Any) -> ArchitectureMigration:
    """As migration_index makes it: in effect from `applied` (the object's creationTimestamp)."""
    return ArchitectureMigration(
        name="checkout-to-mesh", applied_at=applied,
        spec=MigrationSpec.model_validate({
            "targetService": "checkout-api", "migrationDate": applied.date().isoformat(),
            "oldArch": "plain Deployments", "newArch": "a service mesh",
            "impactedRunbooks": ["k8s-rollback-deploy"], "confidenceDeduction": 30}),
    )


def test_a_migration_s_moment_brings_an_unchanged_incident_back(
    k8s_api: Any, namespace: str, tmp_path: Path
) -> None:
    from kubernetes import client

    objects = client.CustomObjectsApi(k8s_api)
    clock = Clock()
    clock.freeze(clock())

    def get() -> dict[str, Any]:
        found: dict[str, Any] = objects.get_namespaced_custom_object(GROUP, VERSION, namespace, "incidents", NAME)
        return found

    async def go() -> None:
        memory = EmbeddedMemory(tmp_path / "memory.sqlite3")
        memo = _memo(k8s_api, memory, clock)
        await memory.remember(_precedent(namespace, clock))
        indexes: dict[str, Any] = {"runbook_index": {}, "migration_index": {}, "contradiction_index": {},
                                   "topology_index": {}}
        body = {"apiVersion": API_VERSION, "kind": "Incident", "metadata": {"name": NAME}, "spec": SPEC}
        created = await asyncio.to_thread(objects.create_namespaced_custom_object, GROUP, VERSION, namespace,
                                          "incidents", body)
        # The watch handler answers the new incident, and keeps the evaluation on record.
        await incident.incident_reconcile(event={"type": "ADDED"}, body=created, name=NAME, namespace=namespace,
                                          spec=created["spec"], status={}, meta=created["metadata"], memo=memo,
                                          **indexes)
        seen = await asyncio.to_thread(get)
        assert seen["status"]["matches"][0]["incident"] == "checkout-before"
        assert seen["status"]["matches"][0].get("stale") is None
        assert await incident._reevaluate(seen, memo, indexes) == "skipped"
        clock.freeze(clock() + timedelta(minutes=1))
        assert await incident._reevaluate(seen, memo, indexes) == "skipped"

        # A retry is never skipped; and working the handler's answer out again gives what it
        # wrote (so keeping its evaluation on record at the version its write made was right).
        memo.retries.add((namespace, NAME))
        assert await incident._reevaluate(seen, memo, indexes) == "unchanged"
        assert not memo.retries

        # A migration that takes effect in four minutes (within REEVALUATE_AT_LEAST): the
        # catalog changed, the answer not yet.
        soon = clock() + timedelta(minutes=4)
        indexes["migration_index"] = {namespace: [_migration(soon)]}
        assert await incident._reevaluate(seen, memo, indexes) == "unchanged"
        assert await incident._reevaluate(seen, memo, indexes) == "skipped"
        clock.freeze(soon - timedelta(seconds=1))
        assert await incident._reevaluate(seen, memo, indexes) == "skipped"

        # Its moment: nothing but the clock moved, and the precedent's fix is stale now.
        clock.freeze(soon)
        assert await incident._reevaluate(seen, memo, indexes) == "written"
        after = await asyncio.to_thread(get)
        assert after["status"]["matches"][0]["stale"]["migration"] == "checkout-to-mesh"
        # Written, and kept on record at the version the write made: the next pass skips it,
        # rightly so, as working it out again gives what the write left.
        assert await incident._reevaluate(after, memo, indexes) == "skipped"
        memo.retries.add((namespace, NAME))
        assert await incident._reevaluate(after, memo, indexes) == "unchanged"

        # The clock set back before the migration: worked out again, the fix fresh again.
        clock.freeze(soon - timedelta(minutes=5))
        assert await incident._reevaluate(after, memo, indexes) == "written"
        back = await asyncio.to_thread(get)
        assert back["status"]["matches"][0].get("stale") is None

        # Memory: a memory written by another connection brings it back too.
        other = EmbeddedMemory(tmp_path / "memory.sqlite3")
        await other.remember(_precedent(namespace, clock).model_copy(update={"incident": "checkout-again"}))
        await other.close()
        assert await incident._reevaluate(back, memo, indexes) == "written"
        final = await asyncio.to_thread(get)
        assert {m["incident"] for m in final["status"]["matches"]} == {"checkout-before", "checkout-again"}
        assert await incident._reevaluate(final, memo, indexes) == "skipped"

        # An outcome: never skipped from now on, so its record goes (closed incidents keep none).
        uid = final["metadata"]["uid"]
        assert uid in memo.evaluations
        outcome = {"runbook": "k8s-rollback-deploy", "rootCause": "a bad deploy", "summary": "rolled back again",
                   "confirmedBy": "oncall-a",
                   "actions": [{"action": "run runbook k8s-rollback-deploy", "result": "succeeded"}]}
        resolved = await asyncio.to_thread(objects.patch_namespaced_custom_object, GROUP, VERSION, namespace,
                                           "incidents", NAME, {"spec": {"resolution": outcome}})
        await incident.incident_reconcile(event={"type": "MODIFIED"}, body=resolved, name=NAME, namespace=namespace,
                                          spec=resolved["spec"], status=resolved.get("status") or {},
                                          meta=resolved["metadata"], memo=memo, **indexes)
        assert uid not in memo.evaluations
        await memory.close()

    asyncio.run(go())
