"""The watch-driven answer against the real API server: worked out once per spec, written
again (not worked out again) when only metadata moved meanwhile.

An alert storm re-fires every alert while its first answer is being written:
each re-fire patches the Incident's annotations, so the answer's write,
guarded by the version it was worked out at, loses its race on the API
server, and the events of those re-fires queue up behind it still showing no
answer. Here the handler runs in this process with a real client; only the
working-out (`evaluate`, the recall and the gate, tested elsewhere) is
replaced by one that counts its calls and answers with the spec's generation.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import kopf
import pytest

from recall_operator.api import API_VERSION, GROUP, VERSION
from recall_operator.handlers import incident, lifecycle
from recall_operator.kube import events
from recall_operator.kube import status as st

pytestmark = pytest.mark.integration

NAME = "inc-a"
SPEC = {"service": "checkout", "title": "checkout p99 over 2s", "severity": "high"}
INDEXES = {k: {} for k in ("runbook_index", "migration_index", "contradiction_index", "topology_index")}


class Answers:
    """Counts how often an answer was worked out."""

    def __init__(self) -> None:
        self.evaluated = 0

    async def evaluate(self, name: str, namespace: str, spec: Any, status: Any, meta: Any, memo: Any,
                       indexes: Any) -> st.StatusChange:
        self.evaluated += 1
        return st.StatusChange({"observedGeneration": meta["generation"]})


@pytest.fixture
def answers(monkeypatch: pytest.MonkeyPatch) -> Answers:
    a = Answers()
    monkeypatch.setattr(incident, "evaluate", a.evaluate)
    return a


@pytest.fixture
def objects(k8s_api: Any) -> Any:
    from kubernetes import client

    return client.CustomObjectsApi(k8s_api)


@pytest.fixture
def created(objects: Any, namespace: str) -> dict[str, Any]:
    body = {"apiVersion": API_VERSION, "kind": "Incident", "metadata": {"name": NAME}, "spec": SPEC}
    made: dict[str, Any] = objects.create_namespaced_custom_object(GROUP, VERSION, namespace, "incidents", body)
    return made


def _memo(k8s_api: Any) -> kopf.Memo:
    memo = kopf.Memo()
    memo.api, memo.locks, memo.retries, memo.written = k8s_api, {}, set(), {}
    return memo


def _event(memo: kopf.Memo, namespace: str, seen: dict[str, Any], type_: str = "MODIFIED") -> None:
    """The handler given `seen` as a watch event would carry it (spec, status and metadata of that version)."""
    asyncio.run(incident.incident_reconcile(
        event={"type": type_}, body=seen, name=NAME, namespace=namespace, spec=seen.get("spec") or {},
        status=seen.get("status") or {}, meta=seen["metadata"], memo=memo, **INDEXES))


def _get(objects: Any, namespace: str) -> dict[str, Any]:
    found: dict[str, Any] = objects.get_namespaced_custom_object(GROUP, VERSION, namespace, "incidents", NAME)
    return found


def _annotate(objects: Any, namespace: str, **annotations: str) -> dict[str, Any]:
    patched: dict[str, Any] = objects.patch_namespaced_custom_object(
        GROUP, VERSION, namespace, "incidents", NAME, {"metadata": {"annotations": annotations}})
    return patched


def test_a_write_lost_to_a_refire_is_sent_again_at_the_new_version_without_working_it_out_again(
    answers: Answers, objects: Any, k8s_api: Any, namespace: str, created: dict[str, Any]
) -> None:
    memo = _memo(k8s_api)
    _annotate(objects, namespace, **{"recall.dev/alert-last-seen-at": "2026-01-01T00:00:01Z"})  # the re-fire
    _event(memo, namespace, created, "ADDED")  # the create's event: its version is stale now
    assert answers.evaluated == 1
    assert _get(objects, namespace)["status"]["observedGeneration"] == 1
    assert (namespace, NAME) not in memo.retries


def test_a_changed_opener_is_worked_out_again(
    answers: Answers, objects: Any, k8s_api: Any, namespace: str, created: dict[str, Any]
) -> None:
    memo = _memo(k8s_api)
    _annotate(objects, namespace, **{"recall.dev/opened-by": "alice"})
    _event(memo, namespace, created, "ADDED")
    assert answers.evaluated == 2
    assert _get(objects, namespace)["status"]["observedGeneration"] == 1


def test_refire_events_from_before_the_answer_are_not_answered_again(
    answers: Answers, objects: Any, k8s_api: Any, namespace: str, created: dict[str, Any]
) -> None:
    memo = _memo(k8s_api)
    _event(memo, namespace, created, "ADDED")
    assert answers.evaluated == 1
    # Re-fires patched the annotations before the answer landed: their events show no answer.
    refire = {**created, "metadata": {**created["metadata"], "resourceVersion": "1"}}
    _event(memo, namespace, refire)
    _event(memo, namespace, refire)
    assert answers.evaluated == 1
    assert (namespace, NAME) in memo.retries  # the loop looks again, should the answer really be gone
    # The answer's own event arrives: nothing more to do, and the loop need not look.
    _event(memo, namespace, _get(objects, namespace))
    assert answers.evaluated == 1
    assert (namespace, NAME) not in memo.retries


def test_a_new_spec_is_answered_whatever_was_written_before(
    answers: Answers, objects: Any, k8s_api: Any, namespace: str, created: dict[str, Any]
) -> None:
    memo = _memo(k8s_api)
    _event(memo, namespace, created, "ADDED")
    edited = objects.patch_namespaced_custom_object(GROUP, VERSION, namespace, "incidents", NAME,
                                                    {"spec": {"title": "checkout p99 over 3s"}})
    assert edited["metadata"]["generation"] == 2
    _event(memo, namespace, edited)
    assert answers.evaluated == 2
    assert _get(objects, namespace)["status"]["observedGeneration"] == 2


def test_deleted_forgets_what_was_written(
    answers: Answers, objects: Any, k8s_api: Any, namespace: str, created: dict[str, Any]
) -> None:
    memo = _memo(k8s_api)
    _event(memo, namespace, created, "ADDED")
    assert memo.written == {created["metadata"]["uid"]: 1}
    _event(memo, namespace, _get(objects, namespace), "DELETED")
    assert memo.written == {}


def test_only_spec_status_generation_uid_and_opener_are_an_answer_s_input() -> None:
    meta = {"generation": 1, "uid": "u", "annotations": {"recall.dev/alert-last-seen-at": "a"}}
    same = incident._same_input
    assert same(SPEC, {}, meta, SPEC, {}, {**meta, "annotations": {"recall.dev/alert-last-seen-at": "b"},
                                            "labels": {"team": "x"}, "resourceVersion": "9"})
    assert not same(SPEC, {}, meta, {**SPEC, "title": "other"}, {}, meta)
    assert not same(SPEC, {}, meta, SPEC, {"execution": {"state": "Running"}}, meta)
    assert not same(SPEC, {}, meta, SPEC, {}, {**meta, "generation": 2})
    assert not same(SPEC, {}, meta, SPEC, {}, {**meta, "uid": "v"})
    assert not same(SPEC, {}, meta, SPEC, {}, {**meta, "annotations": {"recall.dev/opened-by": "alice"}})


# -- phase and Ready with the first answer; Events behind the answers ---------------------------

TRIAGED = {"type": "Triaged", "status": "True", "reason": "Novel", "message": "novel: nothing similar"}


class NovelAnswers:
    """Answers every spec as `novel` (the recall and the gate are tested elsewhere)."""

    def __init__(self, warning: str = "") -> None:
        self.warning = warning

    async def evaluate(self, name: str, namespace: str, spec: Any, status: Any, meta: Any, memo: Any,
                       indexes: Any) -> st.StatusChange:
        rec = {"mode": "novel", "similarity": 0, "actionability": 0, "warnings": [self.warning] if self.warning else []}
        conditions = [c for c in status.get("conditions") or [] if c["type"] != "Triaged"] + [TRIAGED]
        wanted = {"observedGeneration": meta["generation"], "recommendation": rec, "conditions": conditions}
        return st.StatusChange(st.only_changes(status, wanted), [TRIAGED] if "conditions" not in status else [])


class Applies:
    """Notes the field manager of each status apply, then sends it to the API server."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from recall_operator.kube import client as kube_client

        self.managers: list[str] = []
        real = kube_client.apply_status

        def apply_status(*args: Any, **kwargs: Any) -> Any:
            self.managers.append(args[8])
            return real(*args, **kwargs)

        monkeypatch.setattr(incident, "apply_status", apply_status)
        monkeypatch.setattr(lifecycle, "apply_status", apply_status)


def _lifecycle_event(memo: kopf.Memo, namespace: str, seen: dict[str, Any]) -> None:
    asyncio.run(lifecycle.lifecycle_event(type="MODIFIED", name=NAME, namespace=namespace, spec=seen.get("spec") or {},
                                          status=seen.get("status") or {}, meta=seen["metadata"], memo=memo))


def _status_managers(seen: dict[str, Any]) -> set[str]:
    return {m["manager"] for m in seen["metadata"]["managedFields"] if m.get("subresource") == "status"}


def test_a_new_incident_s_answer_and_its_phase_are_one_status_write(
    monkeypatch: pytest.MonkeyPatch, objects: Any, k8s_api: Any, namespace: str, created: dict[str, Any]
) -> None:
    monkeypatch.setattr(incident, "evaluate", NovelAnswers().evaluate)
    applies = Applies(monkeypatch)
    memo = _memo(k8s_api)
    _lifecycle_event(memo, namespace, created)  # the create's event: nothing to sum up yet
    _event(memo, namespace, created, "ADDED")
    seen = _get(objects, namespace)
    assert applies.managers == [st.TRIAGE_MANAGER]
    assert seen["status"]["phase"] == "Triaged"
    ready = next(c for c in seen["status"]["conditions"] if c["type"] == "Ready")
    assert (ready["status"], ready["reason"], ready["observedGeneration"]) == ("False", "NeedsDecision", 1)
    # The answer's own event: the lifecycle writer finds its fields already right.
    _lifecycle_event(memo, namespace, seen)
    assert applies.managers == [st.TRIAGE_MANAGER]
    assert _status_managers(_get(objects, namespace)) == {st.TRIAGE_MANAGER}


def test_the_two_writers_of_phase_never_remove_each_other_s(
    monkeypatch: pytest.MonkeyPatch, objects: Any, k8s_api: Any, namespace: str, created: dict[str, Any]
) -> None:
    from recall_operator.kube.client import apply_status

    applies = Applies(monkeypatch)
    memo = _memo(k8s_api)
    monkeypatch.setattr(incident, "evaluate", NovelAnswers().evaluate)
    _event(memo, namespace, created, "ADDED")
    # A person rejects the plan (the execution's writer): the lifecycle writer moves the phase.
    seen = _get(objects, namespace)
    apply_status(k8s_api, GROUP, VERSION, "incidents", "Incident", namespace, NAME,
                 {"execution": {"state": "Stopped", "reason": "rejected by alice"}}, st.EXECUTION_MANAGER)
    _lifecycle_event(memo, namespace, _get(objects, namespace))
    seen = _get(objects, namespace)
    assert applies.managers == [st.TRIAGE_MANAGER, st.LIFECYCLE_MANAGER]
    assert seen["status"]["phase"] == "Triaged"
    assert next(c for c in seen["status"]["conditions"] if c["type"] == "Ready")["reason"] == "PlanRejected"
    # Triage answers again (the re-evaluation loop, a new warning): it sends the phase the
    # lifecycle gives for what it writes, so the phase stays, and Ready with it.
    monkeypatch.setattr(incident, "evaluate", NovelAnswers("memory is slow").evaluate)
    assert asyncio.run(incident.reevaluate({**seen, "metadata": seen["metadata"]}, memo, INDEXES))
    after = _get(objects, namespace)
    assert after["status"]["recommendation"]["warnings"] == ["memory is slow"]
    assert after["status"]["phase"] == "Triaged"
    assert next(c for c in after["status"]["conditions"] if c["type"] == "Ready")["reason"] == "PlanRejected"
    _lifecycle_event(memo, namespace, after)
    assert applies.managers == [st.TRIAGE_MANAGER, st.LIFECYCLE_MANAGER, st.TRIAGE_MANAGER]
    # The execution's record goes: the lifecycle writer, the only one to see it, sets the phase back.
    apply_status(k8s_api, GROUP, VERSION, "incidents", "Incident", namespace, NAME, {}, st.EXECUTION_MANAGER)
    _lifecycle_event(memo, namespace, _get(objects, namespace))
    final = _get(objects, namespace)
    assert "execution" not in final["status"] and final["status"]["phase"] == "Triaged"
    assert next(c for c in final["status"]["conditions"] if c["type"] == "Ready")["reason"] == "NeedsDecision"


def _events_about(k8s_api: Any, namespace: str) -> list[dict[str, Any]]:
    from kubernetes import client

    found = client.CoreV1Api(k8s_api).list_namespaced_event(
        namespace, field_selector=f"involvedObject.name={NAME}", _preload_content=False)
    import json

    items: list[dict[str, Any]] = json.loads(found.data)["items"]
    return items


def test_answer_events_wait_for_a_quiet_moment_and_a_stopping_operator_posts_them(
    monkeypatch: pytest.MonkeyPatch, objects: Any, k8s_api: Any, namespace: str, created: dict[str, Any]
) -> None:
    monkeypatch.setattr(incident, "evaluate", NovelAnswers().evaluate)
    memo = _memo(k8s_api)

    async def go() -> list[dict[str, Any]]:
        # Answers keep coming (never quiet, and no Event old enough): the Event waits.
        memo.events = incident.EventOutbox(quiet=3600, longest=3600)
        poster = asyncio.create_task(memo.events.run())
        await incident.incident_reconcile(event={"type": "ADDED"}, body=created, name=NAME, namespace=namespace,
                                          spec=created["spec"], status={}, meta=created["metadata"], memo=memo,
                                          **INDEXES)
        assert memo.events.waiting == 1
        await asyncio.sleep(0.2)
        waited = await asyncio.to_thread(_events_about, k8s_api, namespace)
        poster.cancel()  # the operator stops: what waits is posted first
        with pytest.raises(asyncio.CancelledError):
            await poster
        return waited

    assert asyncio.run(go()) == []
    [event] = _events_about(k8s_api, namespace)
    assert memo.events.waiting == 0
    assert event["reason"] == "Novel" and event["type"] == "Normal"
    assert event["message"].startswith("Triaged=True (Novel)")
    assert event["involvedObject"]["uid"] == created["metadata"]["uid"]


def test_a_waiting_event_is_due_after_a_quiet_moment_or_when_it_is_old() -> None:
    now = [100.0]
    outbox = incident.EventOutbox(quiet=1.0, longest=10.0, clock=lambda: now[0])
    assert outbox.wait_for() == float("inf")
    body = {"apiVersion": API_VERSION, "kind": "Incident", "metadata": {"name": NAME, "namespace": "ns", "uid": "u"}}
    change = st.StatusChange({"observedGeneration": 1}, [TRIAGED])
    outbox.answered()
    outbox.add(None, body, change, datetime(2026, 1, 1, tzinfo=UTC))
    assert outbox.wait_for() == 1.0
    for _ in range(12):  # an answer every 0.9 s: never quiet, so only the age sets it free
        now[0] += 0.9
        outbox.answered()
    assert now[0] - 100.0 > 10.0 and outbox.wait_for() == 0.0


def test_an_event_the_api_server_refuses_is_logged_and_the_answer_goes_on(
    k8s_api: Any, caplog: pytest.LogCaptureFixture
) -> None:
    body = {"apiVersion": API_VERSION, "kind": "Incident",
            "metadata": {"name": NAME, "namespace": "no-such-namespace", "uid": "u"}}
    event = events.event_body(body, "Normal", "Novel", "Triaged=True (Novel)", datetime(2026, 1, 1, tzinfo=UTC), "Answer")
    assert event["eventTime"] == "2026-01-01T00:00:00.000000+00:00"  # a whole second keeps its microseconds
    with caplog.at_level("WARNING"):
        events.post_or_log(k8s_api, event)  # refused (404): logged, never raised
    assert "could not post event Novel on no-such-namespace/" in caplog.text
    assert "(404)" in caplog.text and "BadRequest" not in caplog.text


def test_the_execution_posts_its_events_from_outside_any_kopf_handler(
    k8s_api: Any, objects: Any, namespace: str
) -> None:
    # The execution resync is a task of its own, where kopf.event raised and the Event was lost:
    # here the execution's poster runs in a plain event loop, as the resync does.
    from kubernetes import client

    from recall_operator.handlers import execution

    body = objects.create_namespaced_custom_object(GROUP, VERSION, namespace, "incidents", {
        "apiVersion": API_VERSION, "kind": "Incident", "metadata": {"name": NAME}, "spec": SPEC})
    said = [("StepStarted", "step restart started as Job inc-a-run-restart-1", False),
            ("StepFailed", "step restart failed: exit code 1", True)]
    asyncio.run(execution._post_events(k8s_api, body, said, datetime(2026, 1, 1, tzinfo=UTC)))
    posted = client.CoreV1Api(k8s_api).list_namespaced_event(
        namespace, field_selector=f"involvedObject.name={NAME}").items
    assert sorted((e.reason, e.message, e.type, e.action, e.involved_object.uid) for e in posted) == [
        ("StepFailed", "step restart failed: exit code 1", "Warning", "Execute", body["metadata"]["uid"]),
        ("StepStarted", "step restart started as Job inc-a-run-restart-1", "Normal", "Execute", body["metadata"]["uid"]),
    ]
