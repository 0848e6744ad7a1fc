"""Deleting an Incident whose outcome is not in memory yet, on the real API server.

The outcome is held nowhere but in the Incident, so while it waits (memory
unreachable, or the operator's run still going) the operator holds the
Incident back from deletion with a finalizer of its own
(kube.status.OUTCOME_FINALIZER), DELETION_WAIT at most; an Incident deleted
before the operator took its outcome gives it to memory from its last state.

The incident handlers run in this process, as in test_reevaluation_inputs:
a real API client, the operator's own reconcile, one call per watch event or
loop pass, and the test's clock. Memory is down the way it goes down in a
cluster: a Hindsight backend whose server does not answer (connection refused);
it comes back as an embedded store.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import kopf
import pytest

from alertmanager import free_port
from support import held_on_resolving, remove_admission, wait_for
from kit import Clock
from recall_operator import metrics
from recall_operator.api import API_VERSION, GROUP, VERSION
from recall_operator.domain.consolidation import DELETION_WAIT
from recall_operator.handlers import incident
from recall_operator.kube import status as st
from recall_operator.memory.embedded import EmbeddedMemory
from recall_operator.memory.hindsight import HindsightMemory

pytestmark = pytest.mark.integration

MANIFESTS = Path(__file__).resolve().parents[2] / "manifests"

NAME = "inc-gone"
SPEC = {"service": "cart", "title": "cart p99 over 2s", "severity": "high", "symptoms": ["latency-spike"]}
OUTCOME = {"rootCause": "hot keys after a cache flush", "summary": "recycled the cart pods",
           "confirmedBy": "alice", "actions": [{"action": "recycled the cart pods by hand", "result": "succeeded"}]}
INDEXES: dict[str, Any] = {"runbook_index": {}, "migration_index": {}, "contradiction_index": {},
                           "topology_index": {}}


class Cluster:
    """One namespace's Incidents through the API, and the handlers' turns on them."""

    def __init__(self, k8s_api: Any, namespace: str, memo: kopf.Memo) -> None:
        from kubernetes import client

        self.objects, self.ns, self.memo = client.CustomObjectsApi(k8s_api), namespace, memo

    async def get(self) -> dict[str, Any] | None:
        from kubernetes.client.rest import ApiException

        try:
            found: dict[str, Any] = await asyncio.to_thread(
                self.objects.get_namespaced_custom_object, GROUP, VERSION, self.ns, "incidents", NAME)
        except ApiException as exc:
            if exc.status == 404:
                return None
            raise
        return found

    async def event(self, type_: str, body: dict[str, Any]) -> None:
        """The watch handler's turn on one event of the Incident."""
        await incident.incident_reconcile(event={"type": type_}, body=body, name=NAME, namespace=self.ns,
                                          spec=body.get("spec") or {}, status=body.get("status") or {},
                                          meta=body["metadata"], memo=self.memo, **INDEXES)

    async def loop_pass(self) -> str:
        """The loop's turn, on the Incident as the attention index keeps it (None: not kept)."""
        body = await self.get()
        assert body is not None, "the Incident is gone"
        kept = await incident.incident_attention_index(body=body, name=NAME, namespace=self.ns,
                                                       spec=body.get("spec") or {}, status=body.get("status") or {},
                                                       meta=body["metadata"], logger=incident.kopf_logger)
        assert kept is not None, "the loop no longer looks at the Incident"
        return await incident._reevaluate(kept[(self.ns, NAME)], self.memo, INDEXES)

    async def create_resolved(self) -> dict[str, Any]:
        body = {"apiVersion": API_VERSION, "kind": "Incident", "metadata": {"name": NAME},
                "spec": {**SPEC, "resolution": OUTCOME}}
        created: dict[str, Any] = await asyncio.to_thread(
            self.objects.create_namespaced_custom_object, GROUP, VERSION, self.ns, "incidents", body)
        return created

    async def delete(self) -> None:
        await asyncio.to_thread(self.objects.delete_namespaced_custom_object, GROUP, VERSION, self.ns,
                                "incidents", NAME)


def _memo(k8s_api: Any, memory: Any, clock: Clock) -> kopf.Memo:
    memo = kopf.Memo()
    memo.api, memo.memory, memo.clock = k8s_api, memory, clock
    memo.locks, memo.retries, memo.written, memo.evaluations = {}, set(), {}, {}
    return memo


def _unreachable() -> HindsightMemory:
    return HindsightMemory(f"http://127.0.0.1:{free_port()}", cluster="test-cluster")


def _resolved(body: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in body["status"]["conditions"] if c["type"] == "Resolved")


def _events(kubectl: Callable[..., Any], namespace: str) -> list[tuple[str, str, str]]:
    out = kubectl("get", "events", "-n", namespace, "--field-selector", f"involvedObject.name={NAME}", "-o", "json",
                  check=True).stdout
    return [(e["type"], e["reason"], e["message"]) for e in json.loads(out)["items"]]


async def _held_in_the_outbox(cluster: Cluster) -> dict[str, Any]:
    """A resolved Incident answered while memory is down: its outcome waits, and the Incident is held."""
    created = await cluster.create_resolved()
    await cluster.event("ADDED", created)
    body = await cluster.get()
    assert body is not None and body["status"]["memory"]["outbox"] == "pending", body
    assert st.OUTCOME_FINALIZER in body["metadata"].get("finalizers", []), body["metadata"]
    await cluster.delete()
    deleting = await cluster.get()
    assert deleting is not None and deleting["metadata"].get("deletionTimestamp"), "deleted at once: not held"
    return deleting


async def _memory_comes_back(cluster: Cluster, clock: Clock, tmp_path: Path) -> None:
    """Memory is back within DELETION_WAIT: the loop writes the outcome, and the Incident goes."""
    memory = EmbeddedMemory(tmp_path / "memory.sqlite3")
    cluster.memo.memory = memory
    clock.advance(DELETION_WAIT / 2)
    await cluster.loop_pass()
    assert await cluster.get() is None, "still held after its outcome was written"
    held = await memory.get(NAME, cluster.ns)
    assert held is not None and held.resolution.summary == OUTCOME["summary"], held
    await memory.close()


def test_a_deleted_incident_is_held_until_memory_takes_its_outcome(
        k8s_api: Any, kubectl: Callable[..., Any], namespace: str, tmp_path: Path) -> None:
    clock = Clock()

    async def go() -> None:
        down = _unreachable()
        memo = _memo(k8s_api, down, clock)
        cluster = Cluster(k8s_api, namespace, memo)
        await _held_in_the_outbox(cluster)
        # Memory still down: the deletion waits, and says until when.
        assert await cluster.loop_pass() == "written"
        waiting = await cluster.get()
        assert waiting is not None
        assert _resolved(waiting)["reason"] == "DeletionWaitsForMemory", _resolved(waiting)
        assert f"until {clock() + DELETION_WAIT:%Y-%m-%d}" in _resolved(waiting)["message"]
        await _memory_comes_back(cluster, clock, tmp_path)
        await down.close()

    asyncio.run(go())
    reasons = {reason for _type, reason, _message in _events(kubectl, namespace)}
    assert "DeletionWaitsForMemory" in reasons and "OutcomeLost" not in reasons, reasons


def test_a_deleted_incident_s_outcome_is_lost_after_deletion_wait_and_said_so(
        k8s_api: Any, kubectl: Callable[..., Any], namespace: str) -> None:
    clock = Clock()
    lost_before = metrics.REGISTRY.get_sample_value("recall_outcomes_lost_total") or 0.0

    async def go() -> None:
        down = _unreachable()
        cluster = Cluster(k8s_api, namespace, _memo(k8s_api, down, clock))
        await _held_in_the_outbox(cluster)
        clock.advance(DELETION_WAIT - timedelta(minutes=1))
        await cluster.loop_pass()
        assert await cluster.get() is not None, "let go before DELETION_WAIT"
        clock.advance(timedelta(minutes=2))
        await cluster.loop_pass()
        assert await cluster.get() is None, "held past DELETION_WAIT"
        await down.close()

    asyncio.run(go())
    lost = [m for t, r, m in _events(kubectl, namespace) if (t, r) == ("Warning", "OutcomeLost")]
    assert len(lost) == 1 and "the outcome is lost" in lost[0] and "did not come back" in lost[0], lost
    assert "Cannot connect" in lost[0], lost  # memory's last error, as the outbox recorded it
    # Counted once, for the RecallOutcomeLost alert.
    assert metrics.REGISTRY.get_sample_value("recall_outcomes_lost_total") == lost_before + 1


def test_an_incident_deleted_before_its_outcome_was_taken_gives_it_to_memory(
        k8s_api: Any, namespace: str, tmp_path: Path) -> None:
    """Resolved and deleted at once: the watch brings the deletion first (Kopf keeps the latest event)."""
    clock = Clock()

    async def go() -> None:
        memory = EmbeddedMemory(tmp_path / "memory.sqlite3")
        cluster = Cluster(k8s_api, namespace, _memo(k8s_api, memory, clock))
        created = await cluster.create_resolved()
        await cluster.delete()
        assert await cluster.get() is None  # nothing held it: not taken, no finalizer
        await cluster.event("DELETED", created)
        held = await memory.get(NAME, namespace)
        assert held is not None and held.resolution.summary == OUTCOME["summary"], held
        assert held.uid == created["metadata"]["uid"]
        # An open Incident deleted gives memory nothing.
        other = {**created, "metadata": {**created["metadata"], "name": "inc-open", "uid": "u-open"}, "spec": SPEC}
        await incident.incident_reconcile(event={"type": "DELETED"}, body=other, name="inc-open", namespace=namespace,
                                          spec=SPEC, status={}, meta=other["metadata"], memo=cluster.memo, **INDEXES)
        assert await memory.get("inc-open", namespace) is None
        await memory.close()

    asyncio.run(go())


def test_a_deleted_incident_whose_run_goes_on_gives_memory_its_outcome_as_the_run_stands(
        k8s_api: Any, namespace: str, tmp_path: Path) -> None:
    """The execution stops advancing a deleting Incident: the outcome waits for no run then."""
    clock = Clock()

    async def go() -> None:
        memory = EmbeddedMemory(tmp_path / "memory.sqlite3")
        cluster = Cluster(k8s_api, namespace, _memo(k8s_api, memory, clock))
        body = {"apiVersion": API_VERSION, "kind": "Incident", "metadata": {"name": NAME}, "spec": SPEC}
        created = await asyncio.to_thread(cluster.objects.create_namespaced_custom_object, GROUP, VERSION,
                                          namespace, "incidents", body)
        running = {"execution": {"state": "Running", "runbook": "cart-recycle", "planHash": "p1",
                                 "reason": "step restart is running", "steps": [], "rollbacks": []}}
        await asyncio.to_thread(cluster.objects.patch_namespaced_custom_object_status, GROUP, VERSION, namespace,
                                "incidents", NAME, {"status": running})
        resolved = await asyncio.to_thread(cluster.objects.patch_namespaced_custom_object, GROUP, VERSION,
                                           namespace, "incidents", NAME, {"spec": {"resolution": OUTCOME}})
        await cluster.event("MODIFIED", resolved)
        waiting = await cluster.get()
        assert waiting is not None and waiting["status"]["memory"].get("waiting"), waiting["status"]
        assert st.OUTCOME_FINALIZER in waiting["metadata"].get("finalizers", [])
        assert await memory.get(NAME, namespace) is None
        await cluster.delete()
        await cluster.loop_pass()
        assert await cluster.get() is None, "held after its outcome was written"
        held = await memory.get(NAME, namespace)
        assert held is not None and held.uid == created["metadata"]["uid"], held
        await memory.close()

    asyncio.run(go())


def _hold_here(kubectl: Callable[..., Any], namespace: str) -> list[dict[str, Any]]:
    """manifests/outcome-hold.yaml's policy, bound to this namespace only: bound everywhere, it would hold
    other tests' resolved Incidents that no operator lets go. Returns what to remove."""
    import yaml

    docs = [d for d in yaml.safe_load_all((MANIFESTS / "outcome-hold.yaml").read_text()) if d]
    for d in docs:
        if d["kind"] == "MutatingAdmissionPolicyBinding":
            d["metadata"]["name"] = f"recall-outcome-hold-{namespace}"
            d["spec"]["matchResources"]["namespaceSelector"] = {"matchLabels": {"kubernetes.io/metadata.name": namespace}}
    proc = kubectl("apply", "--server-side", "--field-manager=recall-test", "-f", "-", input=json.dumps(
        {"apiVersion": "v1", "kind": "List", "items": docs}))
    assert proc.returncode == 0, proc.stderr
    wait_for("the outcome hold to be added to an Incident created resolved",
             lambda: held_on_resolving(kubectl, namespace), deadline=90)
    return docs


def test_an_incident_resolved_and_deleted_while_the_operator_is_down_waits_for_it(
        k8s_api: Any, kubectl: Callable[..., Any], namespace: str, tmp_path: Path) -> None:
    """The recall-outcome-hold policy holds the deletion from the moment the outcome is recorded, with no
    operator running; the operator, back an hour later with memory still down, gives it DELETION_WAIT from
    its own start, and lets it go once memory has the outcome."""
    docs = _hold_here(kubectl, namespace)
    clock = Clock()
    try:
        async def go() -> None:
            down = _unreachable()
            memo = _memo(k8s_api, down, clock)
            cluster = Cluster(k8s_api, namespace, memo)
            body = {"apiVersion": API_VERSION, "kind": "Incident", "metadata": {"name": NAME}, "spec": SPEC}
            await asyncio.to_thread(cluster.objects.create_namespaced_custom_object, GROUP, VERSION, namespace,
                                    "incidents", body)
            # No operator: a person records the outcome and a clean-up deletes the Incident.
            await asyncio.to_thread(cluster.objects.patch_namespaced_custom_object, GROUP, VERSION, namespace,
                                    "incidents", NAME, {"spec": {"resolution": OUTCOME}})
            await cluster.delete()
            held = await cluster.get()
            assert held is not None, "deleted at once: the policy did not hold it"
            assert held["metadata"]["finalizers"] == [st.OUTCOME_FINALIZER] and held["metadata"]["deletionTimestamp"]
            # The operator starts an hour later; memory is still down. The deletion waits from its start.
            clock.advance(4 * DELETION_WAIT)
            memo.started = clock()
            await cluster.event("MODIFIED", held)
            waiting = await cluster.get()
            assert waiting is not None, "let go at the operator's first try: the outcome is lost"
            assert waiting["status"]["memory"]["outbox"] == "pending", waiting["status"]
            assert _resolved(waiting)["reason"] == "DeletionWaitsForMemory", _resolved(waiting)
            assert f"until {memo.started + DELETION_WAIT:%Y-%m-%d %H:%M}" in _resolved(waiting)["message"]
            await _memory_comes_back(cluster, clock, tmp_path)
            await down.close()

        asyncio.run(go())
    finally:
        remove_admission(kubectl, docs)
    reasons = {reason for _type, reason, _message in _events(kubectl, namespace)}
    assert "OutcomeLost" not in reasons, reasons


def test_a_hold_a_responder_forges_does_not_pin_an_incident(
        k8s_api: Any, kubectl: Callable[..., Any], namespace: str, tmp_path: Path) -> None:
    """mallory (recall-responder) may patch Incidents, so without the admission policies (which refuse it:
    test_admission) she may add the operator's finalizer to any of them; whoever deletes one later must
    not find it stuck. The operator lets go of a hold nothing needs."""
    proc = kubectl("apply", "--server-side", "--force-conflicts", "--field-manager=recall-test",
                   "-f", str(MANIFESTS / "namespace-restricted.yaml"), "-f", str(MANIFESTS / "rbac.yaml"))
    assert proc.returncode == 0, proc.stderr
    kubectl("create", "rolebinding", "responder-mallory", "--clusterrole=recall-responder", "--user=mallory",
            "-n", namespace, check=True)
    clock = Clock()

    async def go() -> None:
        memory = EmbeddedMemory(tmp_path / "memory.sqlite3")
        cluster = Cluster(k8s_api, namespace, _memo(k8s_api, memory, clock))
        for name, spec in ((NAME, SPEC), ("inc-closed", {**SPEC, "resolution": OUTCOME})):
            body = {"apiVersion": API_VERSION, "kind": "Incident", "metadata": {"name": name}, "spec": spec}
            created = await asyncio.to_thread(cluster.objects.create_namespaced_custom_object, GROUP, VERSION,
                                              namespace, "incidents", body)
            await incident.incident_reconcile(event={"type": "ADDED"}, body=created, name=name, namespace=namespace,
                                              spec=spec, status={}, meta=created["metadata"], memo=cluster.memo,
                                              **INDEXES)
            forged = kubectl("patch", "incidents.recall.dev", name, "-n", namespace, "--type=merge", "-p",
                             json.dumps({"metadata": {"finalizers": [st.OUTCOME_FINALIZER]}}), as_user="mallory")
            assert forged.returncode == 0, forged.stderr  # RBAC lets a responder patch Incidents
        closed = await asyncio.to_thread(cluster.objects.get_namespaced_custom_object, GROUP, VERSION, namespace,
                                         "incidents", "inc-closed")
        assert closed["status"]["memory"]["consolidated"], closed["status"]  # settled: nothing waits
        from kubernetes.client.rest import ApiException

        async def turns(name: str) -> None:
            """What the operator does with the deletion: the watch's turn, then a pass of the loop."""
            def get() -> dict[str, Any]:
                found: dict[str, Any] = cluster.objects.get_namespaced_custom_object(GROUP, VERSION, namespace,
                                                                                   "incidents", name)
                return found
            body = await asyncio.to_thread(get)
            assert body["metadata"].get("deletionTimestamp"), body["metadata"]  # held for now
            await incident.incident_reconcile(event={"type": "MODIFIED"}, body=body, name=name, namespace=namespace,
                                              spec=body["spec"], status=body.get("status") or {},
                                              meta=body["metadata"], memo=cluster.memo, **INDEXES)
            try:
                body = await asyncio.to_thread(get)
            except ApiException as exc:
                assert exc.status == 404
                return
            kept = await incident.incident_attention_index(body=body, name=name, namespace=namespace,
                                                           spec=body["spec"], status=body.get("status") or {},
                                                           meta=body["metadata"], logger=incident.kopf_logger)
            assert kept is not None, f"{name}: deleting, held, and not looked at"
            await incident._reevaluate(kept[(namespace, name)], cluster.memo, INDEXES)
            with pytest.raises(ApiException) as gone:
                await asyncio.to_thread(get)
            assert gone.value.status == 404, f"{name} pinned by a forged hold"

        for name in (NAME, "inc-closed"):
            await asyncio.to_thread(cluster.objects.delete_namespaced_custom_object, GROUP, VERSION, namespace,
                                    "incidents", name)
            await turns(name)
        await memory.close()

    asyncio.run(go())


def test_a_name_used_again_after_a_memory_from_before_uids_is_told_apart_by_its_creation(
        k8s_api: Any, namespace: str, tmp_path: Path) -> None:
    """A memory an older operator wrote (no uid) for an Incident since deleted: the new Incident of that
    name, created after it was resolved, sees it as its precedent, and its own outcome does not replace it."""
    from recall_operator.domain.models import EpisodicMemory, IncidentSpec, Resolution

    clock = Clock()

    async def go() -> None:
        memory = EmbeddedMemory(tmp_path / "memory.sqlite3")
        await memory.remember(EpisodicMemory(
            incident=NAME, namespace=namespace, resolved_at=clock() - timedelta(days=30),
            spec=IncidentSpec.model_validate({**SPEC, "description": "hot keys on the cart cache after a flush"}),
            resolution=Resolution.model_validate(OUTCOME)))
        cluster = Cluster(k8s_api, namespace, _memo(k8s_api, memory, clock))
        spec = {**SPEC, "description": "cart pods OOM-killed after the 2.4 release"}
        body = {"apiVersion": API_VERSION, "kind": "Incident", "metadata": {"name": NAME}, "spec": spec}
        created = await asyncio.to_thread(cluster.objects.create_namespaced_custom_object, GROUP, VERSION,
                                          namespace, "incidents", body)
        await cluster.event("ADDED", created)
        triaged = await cluster.get()
        assert triaged is not None
        matches = triaged["status"].get("matches") or []
        assert [m["incident"] for m in matches][:1] == [NAME], matches
        assert any("earlier incident of this name" in w for w in triaged["status"]["recommendation"]["warnings"])
        resolved = await asyncio.to_thread(
            cluster.objects.patch_namespaced_custom_object, GROUP, VERSION, namespace, "incidents", NAME,
            {"spec": {"resolution": {"summary": "rolled the release back", "confirmedBy": "bob"}}})
        await cluster.event("MODIFIED", resolved)
        refused = await cluster.get()
        assert refused is not None and "another incident named" in (refused["status"]["memory"].get("refused") or "")
        held = await memory.get(NAME, namespace)
        assert held is not None and held.resolution.summary == OUTCOME["summary"], held  # not replaced
        await memory.close()

    asyncio.run(go())
