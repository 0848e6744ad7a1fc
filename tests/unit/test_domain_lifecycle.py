"""domain.lifecycle: one row per situation an Incident can be in, with the phase and Ready it must show."""

from __future__ import annotations

from typing import Any

import pytest

from recall_operator.domain.lifecycle import PHASES, lifecycle

PLAN = "abc123"
ACTIONABLE = {"mode": "actionable", "planHash": PLAN, "runbook": "cart-recycle"}
TRIAGED_OK = {"type": "Triaged", "status": "True", "reason": "Actionable", "message": "actionable"}
RESOLUTION = {"summary": "recycled cart", "confirmedBy": "alice"}


def status(**fields: Any) -> dict[str, Any]:
    return {"conditions": [TRIAGED_OK], **fields}


def run(state: str, reason: str = "", started: bool = True, plan: str = PLAN) -> dict[str, Any]:
    steps = [{"name": "snapshot", "job": "inc-run-snapshot-1" if started else None, "result": "running"}]
    return {"planHash": plan, "state": state, "reason": reason, "steps": steps, "rollbacks": []}


# (id, spec, status, phase, ready, reason, words the message must hold)
ROWS: list[tuple[str, dict[str, Any], dict[str, Any], str | None, bool, str, tuple[str, ...]]] = [
    ("new", {}, {}, None, False, "Triaging", ("first recommendation",)),
    ("invalid spec", {}, {"conditions": [{"type": "Triaged", "status": "False", "reason": "InvalidSpec",
                                          "message": "spec.severity: bad"}]},
     None, False, "InvalidSpec", ("spec.severity",)),
    ("novel", {}, status(recommendation={"mode": "novel"}), "Triaged", False, "NeedsDecision", ("novel",)),
    ("advisory", {}, status(recommendation={"mode": "advisory", "planHash": PLAN}),
     "Triaged", False, "NeedsDecision", ("person decides",)),
    ("dry-run waits for its pod", {}, status(
        recommendation=ACTIONABLE,
        dryRun={"planHash": PLAN, "done": False, "reason": 'dry-run of snapshot: serviceaccount "x" not found'}),
     "DryRun", False, "DryRunRunning", ('serviceaccount "x" not found',)),
    ("dry-run done", {}, status(recommendation=ACTIONABLE, dryRun={"planHash": PLAN, "done": True, "ok": True}),
     "AwaitingApproval", False, "AwaitingApproval", (PLAN, "cart-recycle")),
    ("dry-run of an older plan", {}, status(recommendation=ACTIONABLE,
                                            dryRun={"planHash": "old", "done": False}),
     "AwaitingApproval", False, "AwaitingApproval", (PLAN,)),
    ("no auto dry-run", {}, status(recommendation=ACTIONABLE), "AwaitingApproval", False, "AwaitingApproval", ()),
    ("dry-run failed", {}, status(recommendation=ACTIONABLE, dryRun={
        "planHash": PLAN, "done": True, "ok": False, "reason": "the dry-run of snapshot failed: DeadlineExceeded"}),
     "Failed", False, "DryRunFailed", ("DeadlineExceeded",)),
    ("approved, dry-run still running", {}, status(
        recommendation=ACTIONABLE, dryRun={"planHash": PLAN, "done": False},
        execution=run("Running", "waiting for the dry-run Jobs to finish", started=False)),
     "DryRun", False, "DryRunRunning", ("dry-run Jobs",)),
    ("step waits", {}, status(recommendation=ACTIONABLE, dryRun={"planHash": PLAN, "done": True, "ok": True},
                              execution=run("Running", "step snapshot is waiting: pod p is not scheduled")),
     "Running", False, "StepsRunning", ("not scheduled",)),
    ("succeeded", {}, status(recommendation=ACTIONABLE, execution=run("Succeeded", "every step succeeded")),
     "Succeeded", False, "OutcomeUnconfirmed", ("confirm the outcome",)),
    ("rolled back", {}, status(recommendation=ACTIONABLE, execution=run("RolledBack", "step x failed (Boom)")),
     "RolledBack", False, "NeedsPerson", ("Boom",)),
    ("failed", {}, status(recommendation=ACTIONABLE, execution=run("Failed", "step x failed (DeadlineExceeded)")),
     "Failed", False, "NeedsPerson", ("DeadlineExceeded",)),
    ("rejected", {}, status(recommendation=ACTIONABLE, execution=run("Stopped", "rejected before any step ran")),
     "Triaged", False, "PlanRejected", ("rejected",)),
    ("an old plan's finished run", {}, status(recommendation=ACTIONABLE,
                                              dryRun={"planHash": PLAN, "done": True, "ok": True},
                                              execution=run("Succeeded", plan="old")),
     "AwaitingApproval", False, "AwaitingApproval", ()),
    ("resolved, in memory", {"resolution": RESOLUTION}, status(
        recommendation=ACTIONABLE, memory={"key": "k1", "consolidated": "k1"}),
     "Resolved", True, "Resolved", ("alice", "memory")),
    ("resolved history, never triaged", {"resolution": RESOLUTION}, {"memory": {"key": "k1", "consolidated": "k1"}},
     "Resolved", True, "Resolved", ()),
    ("resolved, memory down", {"resolution": RESOLUTION}, status(
        memory={"key": "k1", "outbox": "pending", "lastError": "connection refused"}),
     "Resolved", False, "OutboxPending", ("connection refused",)),
    ("resolved, memory down, deleted", {"resolution": RESOLUTION}, {
        "conditions": [TRIAGED_OK, {"type": "Resolved", "status": "False", "reason": "DeletionWaitsForMemory",
                                    "message": "outcome recorded; the Incident's deletion waits for it until 12:15"}],
        "memory": {"key": "k1", "outbox": "pending", "lastError": "connection refused"}},
     "Resolved", False, "DeletionWaitsForMemory", ("deletion waits for it until 12:15",)),
    ("resolved, being written", {"resolution": RESOLUTION}, {}, "Resolved", False, "Consolidating", ()),
    ("resolved, the name is another incident's in memory", {"resolution": RESOLUTION}, status(
        memory={"key": "k1", "refused": "memory already holds another incident named inc-1"}),
     "Resolved", False, "NameTaken", ("another incident named inc-1",)),
    ("resolved, memory refused what it says", {"resolution": RESOLUTION}, {
        "conditions": [TRIAGED_OK, {"type": "Resolved", "status": "False", "reason": "MemoryRefused",
                                    "message": "memory refused it: HTTP 422"}],
        "memory": {"key": "k1", "refused": "memory refused it: HTTP 422"}},
     "Resolved", False, "MemoryRefused", ("memory refused it: HTTP 422",)),
    ("resolved while a step runs", {"resolution": RESOLUTION}, status(
        recommendation=ACTIONABLE, execution=run("Running"), memory={"key": "k1", "consolidated": "k1"}),
     "Resolved", True, "Resolved", ()),
    ("resolved while the operator's run goes on", {"resolution": RESOLUTION}, status(
        recommendation=ACTIONABLE, execution=run("Running"),
        memory={"key": "k1", "waiting": "the operator's run of runbook cart-hot-keys is going on (step b)"}),
     "Resolved", False, "RunInProgress", ("when the operator's run ends", "step b")),
    ("corrected outcome", {"resolution": RESOLUTION, "corrections": [{"summary": "it was the cache",
                                                                      "confirmedBy": "bob"}]},
     status(memory={"key": "k2", "consolidated": "k2"}), "Resolved", True, "Resolved", ("bob",)),
]


@pytest.mark.parametrize("spec,st,phase,ready,reason,words", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_phase_and_ready(spec: dict[str, Any], st: dict[str, Any], phase: str | None, ready: bool, reason: str,
                         words: tuple[str, ...]) -> None:
    got = lifecycle(spec, st)
    assert (got.phase, got.ready, got.reason) == (phase, ready, reason), got
    for word in words:
        assert word in got.message, got
    assert got.message, "a Ready condition always says why"


def test_every_phase_is_reachable() -> None:
    assert {r[3] for r in ROWS} - {None} == set(PHASES)


def test_only_a_resolved_incident_in_memory_needs_nothing() -> None:
    assert all(r[3] == "Resolved" for r in ROWS if r[4])


def test_the_lifecycle_writer_applies_phase_and_ready_only_when_they_change() -> None:
    from datetime import UTC, datetime

    from recall_operator.handlers.lifecycle import lifecycle_status

    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert lifecycle_status({}, {}, 1, now) is None  # nothing to sum up before the first answer
    novel = status(recommendation={"mode": "novel"})
    body = lifecycle_status({}, novel, 3, now)
    assert body is not None and body["phase"] == "Triaged"
    assert [c["type"] for c in body["conditions"]] == ["Ready"]  # only what this writer owns
    ready = body["conditions"][0]
    assert (ready["status"], ready["reason"], ready["observedGeneration"]) == ("False", "NeedsDecision", 3)
    written = {**novel, "phase": "Triaged", "conditions": [*novel["conditions"], ready]}
    assert lifecycle_status({}, written, 3, now) is None
    assert lifecycle_status({"resolution": RESOLUTION}, written, 4, now)["phase"] == "Resolved"


def test_triage_sends_the_lifecycle_s_phase_and_ready_with_its_own_fields() -> None:
    from datetime import UTC, datetime

    from recall_operator.handlers.lifecycle import lifecycle_status
    from recall_operator.kube import status as st

    now = datetime(2026, 1, 1, tzinfo=UTC)
    triage_body = {"observedGeneration": 2, "recommendation": ACTIONABLE, "conditions": [TRIAGED_OK]}
    after = status(recommendation=ACTIONABLE, observedGeneration=2)
    body = st.with_lifecycle(triage_body, {}, after, 2, now)
    assert body["phase"] == "AwaitingApproval"
    assert [c["type"] for c in body["conditions"]] == ["Triaged", "Ready"]
    assert body["recommendation"] == ACTIONABLE and body["observedGeneration"] == 2
    # What the server holds after that write leaves the lifecycle writer nothing to write.
    held = {**after, "phase": body["phase"], "conditions": body["conditions"]}
    assert lifecycle_status({}, held, 2, now) is None
    # The decider is domain.lifecycle alone: both writers send its answer for the same status.
    assert st.lifecycle_fields({}, after, 2, now) == lifecycle_status({}, after, 2, now)


def test_no_phase_is_sent_when_the_lifecycle_gives_none_and_ready_keeps_its_transition_time() -> None:
    from datetime import UTC, datetime, timedelta

    from recall_operator.kube import status as st

    now = datetime(2026, 1, 1, tzinfo=UTC)
    invalid = {"conditions": [{"type": "Triaged", "status": "False", "reason": "InvalidSpec", "message": "bad"}]}
    fields = st.lifecycle_fields({}, invalid, 1, now)
    assert "phase" not in fields  # a phase sent before is removed by leaving it out
    assert fields["conditions"][0]["reason"] == "InvalidSpec"
    later = st.lifecycle_fields({}, {**invalid, "conditions": [*invalid["conditions"], *fields["conditions"]]}, 1,
                                now + timedelta(minutes=5))
    assert later["conditions"][0]["lastTransitionTime"] == now.isoformat()
