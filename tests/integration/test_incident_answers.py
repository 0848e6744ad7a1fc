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
from typing import Any

import kopf
import pytest

from recall_operator.api import API_VERSION, GROUP, VERSION
from recall_operator.handlers import incident
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
