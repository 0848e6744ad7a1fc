"""Why a step's Job waits or failed (domain.execution.job_progress), and what each status writer applies."""

from __future__ import annotations

from typing import Any

from recall_operator.domain import execution as machine
from recall_operator.kube import status as st

SA_MISSING = ('Error creating: pods "inc-dryrun-snapshot-1-" is forbidden: error looking up service account '
              'ns/recall-runbook-executor: serviceaccount "recall-runbook-executor" not found')


def job(*conditions: tuple[str, str, str], active: int = 0) -> dict[str, Any]:
    return {"status": {"active": active, "conditions": [
        {"type": t, "status": "True", "reason": r, "message": m} for t, r, m in conditions]}}


def warning(reason: str, message: str, at: str = "2026-01-01T00:00:00Z") -> dict[str, Any]:
    return {"type": "Warning", "reason": reason, "message": message, "lastTimestamp": at}


def pod(phase: str = "Pending", scheduled: dict[str, Any] | None = None, waiting: dict[str, Any] | None = None
        ) -> dict[str, Any]:
    status: dict[str, Any] = {"phase": phase, "conditions": [], "containerStatuses": []}
    if scheduled is not None:
        status["conditions"].append({"type": "PodScheduled", **scheduled})
    if waiting is not None:
        status["containerStatuses"].append({"state": {"waiting": waiting}})
    return {"metadata": {"name": "p-1", "creationTimestamp": "2026-01-01T00:00:00Z"}, "status": status}


def test_a_job_that_cannot_create_its_pod_says_why_from_its_events() -> None:
    got = machine.job_progress(job(), [], [warning("FailedCreate", SA_MISSING)])
    assert got.state == "running"
    assert 'serviceaccount "recall-runbook-executor" not found' in got.why and got.why.startswith("waiting")


def test_the_newest_warning_is_the_reason() -> None:
    got = machine.job_progress(job(), [], [warning("FailedCreate", "new", "2026-01-01T00:00:09Z"),
                                           warning("FailedCreate", "old", "2026-01-01T00:00:01Z")])
    assert got.why.endswith("FailedCreate: new")


def test_deadline_exceeded_fails_at_once_with_the_cause_before_it() -> None:
    # FailureTarget comes first; Failed only once the pods are gone, which never happens on a dead node.
    got = machine.job_progress(job(("FailureTarget", "DeadlineExceeded", "Job was active longer than specified deadline")),
                               [], [warning("FailedCreate", SA_MISSING),
                                    warning("DeadlineExceeded", "Job was active longer than specified deadline",
                                            "2026-01-01T00:01:00Z")])
    assert got.state == "failed"
    assert got.why.startswith("DeadlineExceeded: Job was active longer") and "not found" in got.why


def test_complete_and_success_criteria_met_both_succeed() -> None:
    assert machine.job_progress(job(("Complete", "", ""))).state == "succeeded"
    assert machine.job_progress(job(("SuccessCriteriaMet", "", ""))).state == "succeeded"


def test_a_step_that_ended_has_an_end_time_before_the_job_has_a_completion_time() -> None:
    # The controller sets SuccessCriteriaMet (or FailureTarget) first and completionTime only with Complete.
    def at(status: dict[str, Any]) -> dict[str, Any]:
        return {"status": {"startTime": "2026-01-01T00:00:00Z", **status}}

    met = {"type": "SuccessCriteriaMet", "status": "True", "lastTransitionTime": "2026-01-01T00:00:05Z"}
    target = {"type": "FailureTarget", "status": "True", "lastTransitionTime": "2026-01-01T00:00:07Z"}
    complete = {"type": "Complete", "status": "True", "lastTransitionTime": "2026-01-01T00:00:06Z"}
    assert machine.job_times(at({"conditions": [met]})) == ("2026-01-01T00:00:00Z", "2026-01-01T00:00:05Z")
    assert machine.job_times(at({"conditions": [target]}))[1] == "2026-01-01T00:00:07Z"
    # The step ended when the first terminal condition came, whatever came after it.
    assert machine.job_times(at({"conditions": [met, complete], "completionTime": "2026-01-01T00:00:06Z"}))[1] \
        == "2026-01-01T00:00:05Z"
    assert machine.job_times(at({"completionTime": "2026-01-01T00:00:06Z"}))[1] == "2026-01-01T00:00:06Z"
    assert machine.job_times(at({"conditions": [{**met, "status": "False"}]}))[1] is None  # not ended yet
    assert machine.job_times(None) == (None, None)
    for ended in (at({"conditions": [met]}), at({"conditions": [target]})):
        assert machine.job_progress(ended).state in ("succeeded", "failed") and machine.job_times(ended)[1]


def test_a_pod_that_is_not_scheduled_or_cannot_pull_says_so() -> None:
    unscheduled = pod(scheduled={"status": "False", "reason": "Unschedulable", "message": "0/3 nodes are available"})
    got = machine.job_progress(job(active=1), [unscheduled])
    assert got.state == "running" and "not scheduled: Unschedulable: 0/3 nodes are available" in got.why
    pulling = pod(waiting={"reason": "ImagePullBackOff", "message": "back-off pulling image tools:1"})
    assert "ImagePullBackOff: back-off pulling image tools:1" in machine.job_progress(job(active=1), [pulling]).why


def test_a_job_with_no_pod_yet_and_one_that_runs() -> None:
    assert "Job controller" in machine.job_progress(job()).why
    assert machine.job_progress(job(active=1), [pod("Running")]) == machine.JobProgress("running", "running")


def test_run_reasons_name_what_the_step_waits_for() -> None:
    steps = [{"name": "snapshot"}, {"name": "flush"}]
    waiting = machine.run("actionable", steps, True, False, True, True, {("run", "snapshot"): "running"},
                          why={("run", "snapshot"): "waiting: pod p-1 is not scheduled"})
    assert waiting.reason == "step snapshot is waiting: pod p-1 is not scheduled"
    failed = machine.run("actionable", steps, True, False, True, True,
                         {("run", "snapshot"): "succeeded", ("run", "flush"): "failed"},
                         why={("run", "flush"): "DeadlineExceeded: too long"})
    assert "step flush failed (DeadlineExceeded: too long)" in failed.reason
    assert failed.steps[1] == {"name": "flush", "result": "failed", "reason": "DeadlineExceeded: too long"}
    dry = machine.run("actionable", steps, True, False, False, False, {}, dry_run_why="dry-run of snapshot: waiting")
    assert dry.reason == "waiting for the dry-run Jobs to finish: dry-run of snapshot: waiting"


def test_each_writer_applies_all_it_owns_and_nothing_else() -> None:
    current = {
        "recommendation": {"mode": "actionable", "planHash": "p"}, "dryRun": {"planHash": "p", "done": True},
        "phase": "AwaitingApproval",
        "conditions": [{"type": "Triaged", "status": "True"}, {"type": "Executing", "status": "False"},
                       {"type": "Ready", "status": "False"}],
    }
    execution = st.owned_status(current, {"execution": {"state": "Running", "approval": None}},
                                st.EXECUTION_KEYS, st.EXECUTION_CONDITIONS)
    assert execution == {"dryRun": {"planHash": "p", "done": True}, "execution": {"state": "Running"},
                         "conditions": [{"type": "Executing", "status": "False"}]}
    triage = st.owned_status(current, {}, st.TRIAGE_KEYS, st.TRIAGE_CONDITIONS)
    assert triage == {"recommendation": {"mode": "actionable", "planHash": "p"},
                      "conditions": [{"type": "Triaged", "status": "True"}]}
    assert st.owned_status(current, {}, st.LIFECYCLE_KEYS, st.LIFECYCLE_CONDITIONS) == {
        "phase": "AwaitingApproval", "conditions": [{"type": "Ready", "status": "False"}]}
    # No two writers own the same field.
    keys = [*st.TRIAGE_KEYS, *st.EXECUTION_KEYS, *st.LIFECYCLE_KEYS]
    types = [*st.TRIAGE_CONDITIONS, *st.EXECUTION_CONDITIONS, *st.LIFECYCLE_CONDITIONS]
    assert len(keys) == len(set(keys)) and len(types) == len(set(types))


def test_a_job_left_unfinished_well_past_its_deadline_fails_the_step() -> None:
    from datetime import UTC, datetime, timedelta

    started = datetime(2026, 1, 1, tzinfo=UTC)
    stuck = {"spec": {"activeDeadlineSeconds": 60}, "status": {"active": 0, "startTime": "2026-01-01T00:00:00Z"}}
    events = [warning("FailedCreate", SA_MISSING)]
    within = started + timedelta(seconds=60 + machine.DEADLINE_GRACE_SECONDS)
    assert machine.job_progress(stuck, [], events, within).state == "running"
    late = machine.job_progress(stuck, [], events, within + timedelta(seconds=1))
    assert late.state == "failed" and "deadline of 60s" in late.why and "not found" in late.why
    assert machine.job_progress(stuck, [], events).state == "running"  # no clock given: the Job alone decides


def test_leftovers_are_what_status_holds_under_a_writers_keys_that_it_did_not_send() -> None:
    sent = {"execution": {"planHash": "p2", "state": "Running", "steps": []}}
    held = {"execution": {"planHash": "p2", "state": "Running", "steps": [], "stopped": True, "rejectedBy": "bob"},
            "dryRun": {"planHash": "p1"}, "recommendation": {"mode": "novel"}}
    assert st.leftovers(sent, held, st.EXECUTION_KEYS) == {"execution": {"stopped": None, "rejectedBy": None},
                                                           "dryRun": None}
    rec_sent = {"recommendation": {"mode": "advisory", "parameters": {"SERVICE": "cart"}}}
    rec_held = {"recommendation": {"mode": "advisory", "runbook": "old", "parameters": {"SERVICE": "cart", "NS": "x"}}}
    assert st.leftovers(rec_sent, rec_held, st.TRIAGE_KEYS) == {"recommendation": {"runbook": None,
                                                                                   "parameters": {"NS": None}}}
    assert st.leftovers(held, held, st.EXECUTION_KEYS) == {}
