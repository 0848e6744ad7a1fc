"""The watch-driven answer: worked out once per spec, written again (not redone) when only metadata moved.

An alert storm re-fires every alert while its first answer is being written:
each re-fire patches the Incident's annotations, so the answer's write,
guarded by the version it was worked out at, loses its race, and the events
of those re-fires queue up behind it still showing no answer.
"""

from __future__ import annotations

import asyncio
from typing import Any

import kopf
import pytest

from recall_operator.handlers import incident
from recall_operator.kube import status as st

SPEC = {"service": "checkout", "title": "checkout p99 over 2s", "severity": "high"}


def _meta(version: str, generation: int = 1, **annotations: str) -> dict[str, Any]:
    return {"name": "inc-a", "namespace": "shop", "uid": "u-1", "generation": generation,
            "resourceVersion": version, "annotations": annotations}


class Cluster:
    """What the handler reads and writes, and how often it worked an answer out."""

    def __init__(self) -> None:
        self.evaluated = 0
        self.writes: list[str] = []
        self.current: dict[str, Any] = {"spec": SPEC, "status": {}, "metadata": _meta("1")}
        self.refuse_writes = 0

    async def evaluate(self, name: str, namespace: str, spec: Any, status: Any, meta: Any, memo: Any,
                       indexes: Any) -> st.StatusChange:
        self.evaluated += 1
        return st.StatusChange({"observedGeneration": meta["generation"], "recommendation": {"mode": "novel"}})

    async def write(self, api: Any, namespace: str, name: str, current: Any, change: st.StatusChange,
                    version: str | None) -> bool:
        self.writes.append(str(version))
        if self.refuse_writes or version != self.current["metadata"]["resourceVersion"]:
            self.refuse_writes = max(0, self.refuse_writes - 1)
            return False
        self.current["status"] = {**self.current["status"], **change.patch}
        return True

    async def read(self, api: Any, namespace: str, name: str) -> dict[str, Any]:
        return self.current


@pytest.fixture
def cluster(monkeypatch: pytest.MonkeyPatch) -> Cluster:
    c = Cluster()
    monkeypatch.setattr(incident, "evaluate", c.evaluate)
    monkeypatch.setattr(incident, "_write_status", c.write)
    monkeypatch.setattr(incident, "_read", c.read)
    monkeypatch.setattr(incident, "_post", lambda body, change: None)
    return c


def _memo() -> kopf.Memo:
    memo = kopf.Memo()
    memo.api, memo.locks, memo.retries, memo.written = "api", {}, set(), {}
    return memo


def _event(memo: kopf.Memo, status: dict[str, Any], meta: dict[str, Any], type_: str = "MODIFIED") -> None:
    indexes = {k: {} for k in ("runbook_index", "migration_index", "contradiction_index", "topology_index")}
    asyncio.run(incident.incident_reconcile(
        event={"type": type_}, body={}, name="inc-a", namespace="shop", spec=SPEC, status=status, meta=meta,
        memo=memo, **indexes))


def test_a_write_lost_to_a_refire_is_sent_again_at_the_new_version_without_working_it_out_again(
    cluster: Cluster,
) -> None:
    memo = _memo()
    cluster.current["metadata"] = _meta("2", **{"recall.dev/alert-last-seen-at": "2026-01-01T00:00:01Z"})
    _event(memo, {}, _meta("1"), "ADDED")
    assert cluster.evaluated == 1
    assert cluster.writes == ["1", "2"]
    assert cluster.current["status"]["observedGeneration"] == 1
    assert ("shop", "inc-a") not in memo.retries


def test_a_spec_or_status_that_moved_meanwhile_is_worked_out_again(cluster: Cluster) -> None:
    memo = _memo()
    cluster.current = {"spec": SPEC, "status": {"execution": {"state": "Running"}}, "metadata": _meta("2")}
    _event(memo, {}, _meta("1"), "ADDED")
    assert cluster.evaluated == 2
    assert cluster.writes == ["1", "2"]


def test_a_changed_opener_is_worked_out_again(cluster: Cluster) -> None:
    memo = _memo()
    cluster.current["metadata"] = _meta("2", **{"recall.dev/opened-by": "alice"})
    _event(memo, {}, _meta("1"), "ADDED")
    assert cluster.evaluated == 2


def test_refire_events_from_before_the_answer_are_not_answered_again(cluster: Cluster) -> None:
    memo = _memo()
    _event(memo, {}, _meta("1"), "ADDED")
    assert (cluster.evaluated, cluster.writes) == (1, ["1"])
    # Re-fires patched the annotations before the answer landed: their events show no answer.
    _event(memo, {}, _meta("0-refire"))
    _event(memo, {}, _meta("0-refire-2"))
    assert (cluster.evaluated, cluster.writes) == (1, ["1"])
    assert ("shop", "inc-a") in memo.retries  # the loop looks again, should the answer really be gone
    # The answer's own event arrives: nothing more to do, and the loop need not look.
    _event(memo, cluster.current["status"], _meta("3"))
    assert (cluster.evaluated, cluster.writes) == (1, ["1"])
    assert ("shop", "inc-a") not in memo.retries


def test_a_new_spec_is_answered_whatever_was_written_before(cluster: Cluster) -> None:
    memo = _memo()
    _event(memo, {}, _meta("1"), "ADDED")
    cluster.current["metadata"] = _meta("5", generation=2)
    _event(memo, cluster.current["status"], _meta("5", generation=2))
    assert cluster.evaluated == 2
    assert cluster.current["status"]["observedGeneration"] == 2


def test_deleted_forgets_what_was_written(cluster: Cluster) -> None:
    memo = _memo()
    _event(memo, {}, _meta("1"), "ADDED")
    assert memo.written == {"u-1": 1}
    _event(memo, cluster.current["status"], _meta("4"), "DELETED")
    assert memo.written == {}


def _transition(type_: str, status: str, reason: str, message: str) -> dict[str, Any]:
    return {"type": type_, "status": status, "reason": reason, "message": message}


def test_an_answer_is_one_event_naming_each_transition() -> None:
    change = st.StatusChange({}, [_transition("Triaged", "True", "Novel", "novel: similarity 0.1"),
                                  _transition("AwaitingApproval", "False", "NotActionable", "nothing to approve"),
                                  _transition("MemoryAvailable", "True", "Recalled", "recalled 3 precedents")])
    ((type_, reason, message),) = incident._events(change)
    assert (type_, reason) == ("Normal", "Novel")
    assert message == ("Triaged=True (Novel): novel: similarity 0.1; AwaitingApproval=False (NotActionable): "
                       "nothing to approve; MemoryAvailable=True (Recalled): recalled 3 precedents")


def test_an_answer_without_memory_is_a_warning_named_for_it() -> None:
    change = st.StatusChange({}, [_transition("Triaged", "True", "Novel", "novel"),
                                  _transition("MemoryAvailable", "False", "MemoryUnavailable", "down")])
    ((type_, reason, message),) = incident._events(change)
    assert (type_, reason) == ("Warning", "MemoryUnavailable")
    assert "Triaged=True (Novel)" in message and "MemoryAvailable=False (MemoryUnavailable): down" in message


def test_a_write_without_transitions_posts_nothing() -> None:
    assert incident._events(st.StatusChange({"dna": {}}, [])) == []
