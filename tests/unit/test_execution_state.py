"""The execution state machine, table-driven: observed Jobs in, next action out."""

from __future__ import annotations

import pytest

from recall_operator.domain import execution as m
from recall_operator.domain.execution import Create


def step(name, rollback=True, dry=True):
    return {"name": name, "command": ["do", name], "dryRunCommand": ["show", name] if dry else [],
            "rollbackCommand": ["undo", name] if rollback else []}


STEPS = [step("a"), step("b", rollback=False), step("c"), step("d")]
S, F, R = "succeeded", "failed", "running"


def run(observed, mode="actionable", approved=True, stopped=False, dry_done=True, dry_ok=True, steps=STEPS):
    return m.run(mode, steps, approved, stopped, dry_done, dry_ok, observed)


@pytest.mark.parametrize(
    "observed,state,create",
    [
        ({}, "Running", Create("run", "a")),
        ({("run", "a"): R}, "Running", None),
        ({("run", "a"): S}, "Running", Create("run", "b")),
        ({("run", "a"): S, ("run", "b"): S}, "Running", Create("run", "c")),
        ({("run", "a"): S, ("run", "b"): S, ("run", "c"): S, ("run", "d"): S}, "Succeeded", None),
        # d fails: roll back c, then (b has no rollback) a; never d itself, never b
        ({("run", "a"): S, ("run", "b"): S, ("run", "c"): S, ("run", "d"): F}, "Running", Create("rollback", "c")),
        ({("run", "a"): S, ("run", "b"): S, ("run", "c"): S, ("run", "d"): F, ("rollback", "c"): R}, "Running", None),
        ({("run", "a"): S, ("run", "b"): S, ("run", "c"): S, ("run", "d"): F, ("rollback", "c"): S}, "Running",
         Create("rollback", "a")),
        ({("run", "a"): S, ("run", "b"): S, ("run", "c"): S, ("run", "d"): F, ("rollback", "c"): S, ("rollback", "a"): S},
         "RolledBack", None),
        # a rollback that fails stops the rollback: a person takes over
        ({("run", "a"): S, ("run", "b"): S, ("run", "c"): S, ("run", "d"): F, ("rollback", "c"): F}, "Failed", None),
        # the first step fails: nothing completed, nothing to undo
        ({("run", "a"): F}, "Failed", None),
        # b fails: only a (completed, has a rollback) is undone
        ({("run", "a"): S, ("run", "b"): F}, "Running", Create("rollback", "a")),
    ],
)
def test_run_table(observed, state, create):
    d = run(observed)
    assert (d.state, d.create) == (state, create), d.reason


def test_rollbacks_listed_in_reverse_and_skip_steps_without_one():
    d = run({("run", "a"): S, ("run", "b"): S, ("run", "c"): S, ("run", "d"): F})
    assert [r["name"] for r in d.rollbacks] == ["c", "a"]
    assert [s["result"] for s in d.steps] == [S, S, S, F]


@pytest.mark.parametrize("mode", ["novel", "advisory", None])
def test_novel_or_advisory_never_executes_even_when_approved(mode):
    d = run({}, mode=mode)
    assert d.state == "Refused" and d.create is None


@pytest.mark.parametrize(
    "kw,state",
    [
        ({"approved": False}, "Pending"),
        ({"dry_done": False}, "Pending"),
        ({"dry_ok": False}, "Failed"),
        ({"stopped": True}, "Stopped"),
    ],
)
def test_nothing_starts_without_approval_finished_dry_run_or_after_rejection(kw, state):
    d = run({}, **kw)
    assert (d.state, d.create) == (state, None)


@pytest.mark.parametrize("mode", ["novel", "advisory"])
def test_a_run_whose_recommendation_is_no_longer_actionable_ends_its_step_then_stops(mode):
    # Re-triage during the run (memory or the spec changed): not cut off as Failed mid-step.
    assert run({("run", "a"): R}, mode=mode).state == "Running"
    d = run({("run", "a"): S}, mode=mode)
    assert (d.state, d.create) == ("Stopped", None)
    assert d.reason == f"the recommendation became {mode} during the run; stopped before step b"
    # A step that failed is still rolled back.
    assert run({("run", "a"): S, ("run", "b"): S, ("run", "c"): F}, mode=mode).create == Create("rollback", "a")


def test_rejection_mid_run_lets_the_running_step_end_then_stops():
    assert run({("run", "a"): R}, stopped=True).state == "Running"
    d = run({("run", "a"): S}, stopped=True)
    assert (d.state, d.create) == ("Stopped", None)


def test_restart_never_creates_an_observed_step_again():
    # For every prefix of progress, the action is never to create a Job that is observed.
    history = {}
    for _ in range(20):
        d = run(history)
        if d.create is None:
            break
        key = (d.create.phase, d.create.step)
        assert key not in history
        assert run(history).create == d.create  # same observation, same answer (a restart)
        history[key] = F if key == ("run", "c") else S
    assert run(history).state == "RolledBack"
    assert list(history) == [("run", "a"), ("run", "b"), ("run", "c"), ("rollback", "a")]


@pytest.mark.parametrize(
    "steps,observed,create,results,done,ok",
    [
        ([step("a"), step("b", dry=False)], {}, [Create("dryrun", "a")], ["pending", "skipped"], False, False),
        ([step("a"), step("b")], {("dryrun", "a"): R}, [Create("dryrun", "b")], ["running", "pending"], False, False),
        ([step("a"), step("b")], {("dryrun", "a"): S, ("dryrun", "b"): S}, [], [S, S], True, True),
        ([step("a"), step("b")], {("dryrun", "a"): S, ("dryrun", "b"): F}, [], [S, F], True, False),
        ([step("a", dry=False)], {}, [], ["skipped"], True, True),
    ],
)
def test_dry_run_table(steps, observed, create, results, done, ok):
    d = m.dry_run(steps, observed)
    assert d.create == create
    assert [r["result"] for r in d.results] == results
    assert (d.done, d.ok) == (done, ok)


REC = {"mode": "actionable", "planHash": "aaaa1111bbbb2222", "steps": STEPS}


def approval(decision="approve", plan="aaaa1111bbbb2222", approver="alice", reason=""):
    return {"incident": "inc", "planHash": plan, "decision": decision, "approver": approver, "reason": reason}


@pytest.mark.parametrize(
    "spec,rec,execution,state,starts",
    [
        (approval(), REC, None, "Accepted", True),
        (approval(plan="cccc3333dddd4444"), REC, None, "Superseded", False),
        # the first 8 digits, as an Approval's name shows them: this plan, named in part, decides nothing
        (approval(plan="aaaa1111"), REC, None, "Refused", False),
        (approval(decision="reject", reason="no", plan="aaaa1111"), REC, None, "Refused", False),
        (approval(), {**REC, "planHash": None}, None, "Superseded", False),
        (approval(), {**REC, "mode": "advisory"}, None, "Refused", False),
        (approval(), {**REC, "mode": "novel"}, None, "Refused", False),
        (approval(decision="reject", reason="no"), REC, None, "Rejected", False),
        # already running under another approval: no second run
        (approval(), REC, {"planHash": REC["planHash"], "approval": "other", "state": "Running", "attempt": 1},
         "Refused", False),
        # rejected plan stays rejected
        (approval(), REC, {"planHash": REC["planHash"], "stopped": True, "rejectedBy": "bob", "state": "Stopped"},
         "Refused", False),
        # a finished run of the same plan may be run again, as a new attempt
        (approval(), REC, {"planHash": REC["planHash"], "approval": "old", "state": "RolledBack", "attempt": 1},
         "Accepted", True),
        # a plan that succeeded is not run again by a late Approval (its steps already changed the system)
        (approval(), REC, {"planHash": REC["planHash"], "approval": "old", "state": "Succeeded", "attempt": 1},
         "Refused", False),
        # another plan still running
        (approval(), REC, {"planHash": "9999", "approval": "old", "state": "Running", "attempt": 1}, "Refused", False),
    ],
)
def test_judge_approval(spec, rec, execution, state, starts):
    v = m.judge_approval("ap-1", spec, rec, execution)
    assert v.state == state, v.reason
    assert v.reason
    assert (v.execution is not None and v.execution.get("approval") == "ap-1") == starts


def test_a_plan_hash_named_in_part_says_so() -> None:
    v = m.judge_approval("ap-1", approval(decision="reject", reason="no", plan="aaaa1111"), REC, None)
    assert "only the start of the plan's aaaa1111bbbb2222" in v.reason and v.execution is None


def test_accepted_execution_gets_a_fresh_attempt():
    v = m.judge_approval("ap-2", approval(), REC, {"planHash": REC["planHash"], "approval": "old", "state": "Failed", "attempt": 2})
    assert v.execution["attempt"] == 3 and v.execution["state"] == "Running" and v.execution["approvedBy"] == "alice"


def test_judging_the_same_approval_again_is_idempotent():
    v = m.judge_approval("ap-1", approval(), REC, None)
    again = m.judge_approval("ap-1", approval(), REC, v.execution)
    assert again.state == "Accepted" and again.execution is None


def test_rejection_mid_run_marks_it_stopped():
    running = {"planHash": REC["planHash"], "approval": "ap-1", "state": "Running", "attempt": 1}
    v = m.judge_approval("rj-1", approval(decision="reject", reason="too risky", approver="bob"), REC, running)
    assert v.state == "Rejected" and v.execution["stopped"] is True and v.execution["state"] == "Running"
    assert "too risky" in v.reason


# -- the approval rules applied by judge_approval ----------------------------

from datetime import datetime, timedelta, timezone  # noqa: E402

from recall_operator.domain.approval_rules import ApprovalSettings  # noqa: E402

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
CRITICAL_REC = {**REC, "steps": [{**STEPS[0], "risk": "low"}, {**STEPS[1], "risk": "critical"}]}


def incident(opener="alice"):
    return {"metadata": {"name": "inc", "annotations": {"recall.dev/opened-by": opener} if opener else {}}}


def approval_obj(name, approver="bob", decision="approve", plan=REC["planHash"], age_minutes=1.0, state=None):
    obj = {"metadata": {"name": name, "creationTimestamp": (NOW - timedelta(minutes=age_minutes)).isoformat()},
           "spec": approval(decision=decision, plan=plan, approver=approver)}
    if state is not None:
        obj["status"] = {"state": state}
    return obj


def judge(obj, rec=REC, execution=None, others=(), opener="alice", settings=None):
    policy = m.Policy(obj, incident(opener), list(others), NOW, settings or ApprovalSettings())
    return m.judge_approval(obj["metadata"]["name"], obj["spec"], rec, execution, policy)


def with_uid(obj, uid):
    return {**obj, "metadata": {**obj["metadata"], "uid": uid}}


def test_an_approval_made_again_under_a_counted_name_is_refused_and_the_same_object_is_accepted_again():
    first = with_uid(approval_obj("ap-1"), "uid-1")
    started = judge(first)
    assert started.state == "Accepted" and started.execution["approvalUids"] == {"ap-1": "uid-1"}
    failed = {**started.execution, "state": "Failed"}
    # Judged again (a restart before the Approval's own status was written): the same verdict, no new run.
    again = judge(first, execution=failed)
    assert (again.state, again.execution) == ("Accepted", None)
    # Deleted and created again under its name to retry: another object, refused with what to do instead.
    remade = judge(with_uid(approval_obj("ap-1", age_minutes=0), "uid-2"), execution=failed)
    assert (remade.state, remade.execution) == ("Refused", None)
    assert "earlier Approval named ap-1 was counted by run 1" in remade.reason and "new name" in remade.reason
    # Under a new name it starts run 2.
    retry = judge(with_uid(approval_obj("ap-2", age_minutes=0), "uid-3"), execution=failed)
    assert retry.state == "Accepted" and retry.execution["attempt"] == 2
    # An execution recorded before uids were kept goes by the name, as it did.
    legacy = {k: v for k, v in failed.items() if k != "approvalUids"}
    assert judge(with_uid(approval_obj("ap-1"), "uid-2"), execution=legacy).state == "Accepted"


def test_four_eyes_refuses_the_opener_and_starts_nothing():
    v = judge(approval_obj("ap-1", approver="alice"))
    assert (v.state, v.execution) == ("Refused", None) and "four-eyes" in v.reason
    # the same Approval with four-eyes off, or by another person, starts the run
    assert judge(approval_obj("ap-1", approver="alice"), settings=ApprovalSettings(four_eyes=False)).state == "Accepted"
    assert judge(approval_obj("ap-1", approver="bob")).state == "Accepted"


def test_four_eyes_refuses_who_set_the_parameters_as_it_refuses_the_opener():
    # bob sets the values the plan runs with, then approves it: one person chose and approved it.
    chosen = {"metadata": {"name": "inc", "annotations": {"recall.dev/opened-by": "alice",
                                                          "recall.dev/parameters-by": "bob"}}}
    v = m.judge_approval("ap-1", approval_obj("ap-1")["spec"], REC, None,
                         m.Policy(approval_obj("ap-1"), chosen, [], NOW, ApprovalSettings()))
    assert (v.state, v.execution) == ("Refused", None) and "bob set the incident's parameters" in v.reason
    carol = approval_obj("ap-2", approver="carol")
    assert m.judge_approval("ap-2", carol["spec"], REC, None,
                            m.Policy(carol, chosen, [], NOW, ApprovalSettings())).state == "Accepted"


def test_an_incident_opened_by_automation_has_no_opener_to_refuse():
    assert judge(approval_obj("ap-1", approver="alice"), opener=None).state == "Accepted"


def test_expired_approval_is_expired_and_starts_nothing():
    v = judge(approval_obj("ap-1", age_minutes=61))
    assert (v.state, v.execution) == ("Expired", None), v.reason
    assert judge(approval_obj("ap-1", age_minutes=61), settings=ApprovalSettings(approval_ttl=None)).state == "Accepted"


def test_critical_plan_waits_for_a_second_distinct_approver_then_records_both():
    first = approval_obj("ap-1", approver="bob")
    v1 = judge(first, rec=CRITICAL_REC, others=[first])  # the list from the API includes the Approval itself
    assert (v1.state, v1.execution) == ("Pending", None) and "needs 2 distinct approvers" in v1.reason
    pending = approval_obj("ap-1", approver="bob", state="Pending")
    again = approval_obj("ap-2", approver="bob")
    assert judge(again, rec=CRITICAL_REC, others=[pending, again]).state == "Pending"  # same person twice is one
    opener = approval_obj("ap-3", approver="alice")
    assert judge(opener, rec=CRITICAL_REC, others=[pending, opener]).state == "Refused"  # the opener never counts
    second = approval_obj("ap-4", approver="carol")
    v2 = judge(second, rec=CRITICAL_REC, others=[pending, second])
    assert v2.state == "Accepted", v2.reason
    assert v2.execution["approvedBy"] == "bob,carol" and sorted(v2.execution["approvals"]) == ["ap-1", "ap-4"]
    # the counted Pending Approval, judged again (a restart), is Accepted and starts nothing new
    again = judge(pending, rec=CRITICAL_REC, execution=v2.execution, others=[pending, second])
    assert (again.state, again.execution) == ("Accepted", None)


def test_expired_or_consumed_approvals_do_not_count_towards_a_second_approver():
    second = approval_obj("ap-2", approver="carol")
    stale = approval_obj("ap-1", approver="bob", age_minutes=90, state="Pending")
    assert judge(second, rec=CRITICAL_REC, others=[stale, second]).state == "Pending"
    used = approval_obj("ap-1", approver="bob", state="Accepted")  # consumed by an earlier run of this plan
    finished = {"planHash": REC["planHash"], "approval": "ap-0", "approvals": ["ap-0", "ap-1"], "state": "RolledBack",
                "attempt": 1}
    assert judge(second, rec=CRITICAL_REC, execution=finished, others=[used, second]).state == "Pending"


def test_a_rejection_of_the_plan_stops_a_later_approval():
    rejection = approval_obj("rj-1", approver="dave", decision="reject", state="Rejected")
    v = judge(approval_obj("ap-1"), others=[rejection])
    assert (v.state, v.execution) == ("Refused", None) and "rejected" in v.reason


def test_the_rules_do_not_change_superseded_or_non_actionable_verdicts():
    old = approval_obj("ap-1", plan="cccc3333dddd4444")
    assert judge(old).state == "Superseded"
    assert judge(approval_obj("ap-1", approver="alice"), rec={**REC, "mode": "advisory"}).state == "Refused"
    running = {"planHash": REC["planHash"], "approval": "other", "state": "Running", "attempt": 1}
    v = judge(approval_obj("ap-1"), execution=running)
    assert v.state == "Refused" and "already executing" in v.reason


@pytest.mark.parametrize(
    "risks,worst",
    [([], None), (["low"], "low"), (["low", "high", "medium"], "high"), (["critical", "low"], "critical"),
     ([None], "medium"), (["apocalyptic"], "critical")],
)
def test_plan_risk_is_the_riskiest_step(risks, worst):
    assert m.plan_risk([{"name": str(i), "risk": r} for i, r in enumerate(risks)]) == worst


@pytest.mark.parametrize(
    ("status", "work"),
    [
        ({}, False),
        ({"recommendation": {"mode": "novel"}}, False),
        ({"recommendation": {"mode": "advisory", "planHash": "abc"}}, False),
        ({"recommendation": {"mode": "actionable", "planHash": "abc"}}, True),
        ({"recommendation": {"mode": "advisory"}, "execution": {"state": "Running"}}, True),
    ],
)
def test_has_work(status: dict, work: bool) -> None:
    from recall_operator.domain.execution import has_work

    assert has_work(status) is work


@pytest.mark.parametrize(
    ("execution", "words", "absent"),
    [
        ({"steps": [{"name": "a", "result": "succeeded"}, {"name": "b", "result": "running"},
                    {"name": "c", "result": "pending"}], "rollbacks": []},
         ("nothing more runs", "steps not seen to finish: b, c"), ("rollbacks not run",)),
        ({"steps": [{"name": "a", "result": "succeeded"}, {"name": "b", "result": "failed"}],
          "rollbacks": [{"name": "a", "result": "pending"}]},
         ("rollbacks not run: a",), ("steps not seen to finish",)),
        ({}, ("resolved", "restarted"), ("steps not seen", "rollbacks not run")),
    ],
)
def test_a_resolved_incident_s_unverifiable_run_says_what_was_left(execution, words, absent):
    why = m.stopped_unverified(execution)
    assert all(w in why for w in words), why
    assert not any(w in why for w in absent), why


def test_a_step_whose_job_is_gone_keeps_what_status_saw_and_a_running_one_fails() -> None:
    names = [s["name"] for s in STEPS]
    execution = {"steps": [{"name": names[0], "result": "succeeded"}, {"name": names[1], "result": "running"}]}
    gone, why = m.recorded_when_gone(execution, {})
    assert gone == {("run", names[0]): "succeeded", ("run", names[1]): "failed"}
    assert why == {("run", names[1]): m.JOB_GONE}
    d = m.run("actionable", STEPS, approved=True, stopped=False, dry_run_done=True, dry_run_ok=True,
              observed=gone, why=why)
    assert d.create is None or d.create.phase == "rollback", d  # neither step is created again
    assert names[1] + " failed" in d.reason and "deleted" in d.reason
    # A Job that is still there is what counts, whatever status said.
    assert m.recorded_when_gone(execution, {("run", names[1]): "succeeded"})[0] == {("run", names[0]): "succeeded"}


NO_APPROVAL = "status.execution names no Approval"


@pytest.mark.parametrize(
    "unverified,started,creates",
    [
        (None, False, True),  # verified, first Job: as decided
        (None, True, True),
        (NO_APPROVAL, True, True),  # a run that started verified and lost its Approvals still rolls back
        (NO_APPROVAL, False, False),  # nothing shows it was ever approved: status alone runs no Job
    ],
)
def test_a_run_nothing_shows_was_approved_creates_no_job_not_even_a_rollback(unverified, started, creates) -> None:
    """Forged status.execution: step a succeeded and b failed, and no Job of the attempt exists."""
    forged = {"steps": [{"name": "a", "result": "succeeded"}, {"name": "b", "result": "failed"}]}
    gone, why = m.recorded_when_gone(forged, {})
    d = m.run("actionable", STEPS, approved=unverified is None, stopped=unverified is not None, dry_run_done=True,
              dry_run_ok=True, observed=gone, why=why)
    assert d.create == Create("rollback", "a")  # what the claims alone ask for
    after = m.unproven(d, unverified, started)
    if creates:
        assert after == d
    else:
        assert after.create is None and after.state == "Stopped" and after.rollbacks == []
        assert after.reason == f"nothing runs: {NO_APPROVAL}"


def test_a_decision_without_a_job_is_left_as_it_is() -> None:
    d = run({("run", "a"): R})
    assert m.unproven(d, NO_APPROVAL, started=False) == d


@pytest.mark.parametrize("dry_done,dry_ok", [(False, False), (True, False)])
def test_the_dry_run_gates_the_first_step_only(dry_done, dry_ok) -> None:
    """A dry-run Job deleted mid-run (made again, or failing) neither holds the next step nor unsays the first."""
    before = run({}, dry_done=dry_done, dry_ok=dry_ok)
    assert before.create is None and before.state in ("Pending", "Failed")
    mid = run({("run", "a"): S}, dry_done=dry_done, dry_ok=dry_ok)
    assert mid.create == Create("run", "b") and "not run" not in mid.reason


def test_a_finished_dry_run_keeps_its_result_when_its_job_is_gone_and_a_resolved_incident_starts_none() -> None:
    dry = {"steps": [{"name": "a", "result": "succeeded"}, {"name": "b", "result": "succeeded"},
                     {"name": "c", "result": "failed", "reason": "exit 2"}, {"name": "d", "result": "running"}]}
    kept, why = m.dry_run_recorded(dry, {("dryrun", "a"): "failed"})
    # The Job that is there counts; a finished one whose Job is gone keeps its result; a running one is made again.
    assert kept == {("dryrun", "b"): "succeeded", ("dryrun", "c"): "failed"} and why == {("dryrun", "c"): "exit 2"}
    decision = m.dry_run(STEPS, {("dryrun", "a"): S, **kept}, why)
    assert decision.create == [Create("dryrun", "d")] and not decision.done
    assert m.not_started(decision, resolved=False) == ({}, {})
    ended, ended_why = m.not_started(decision, resolved=True)
    after = m.dry_run(STEPS, {("dryrun", "a"): S, **kept, **ended}, {**why, **ended_why})
    assert after.create == [] and after.done and not after.ok
    assert {"name": "d", "result": "failed", "reason": m.NOT_STARTED_RESOLVED} in after.results


CHANGED = "the approved plan p1 changed (now p2)"


@pytest.mark.parametrize(
    "observed,state,reason_has",
    [
        # Changed before any step's Job: nothing ran, nothing to check.
        ({}, "Stopped", "no step had run"),
        # A step is running: it is left to finish and the run stays Running, so no new run starts beside it.
        ({("run", "a"): S, ("run", "b"): R}, "Running", "waiting for step b to end"),
        # A rollback is running: the same.
        ({("run", "a"): S, ("run", "b"): F, ("rollback", "a"): R}, "Running", "waiting for the rollback of a to end"),
        # Steps ran and nothing undid them: named, for a person to check (the rollbacks were in the old plan).
        ({("run", "a"): S, ("run", "b"): S}, "Failed", "not rolled back: a, b (their rollbacks"),
        ({("run", "a"): S, ("run", "b"): F}, "Failed", "not rolled back: a, b (their rollbacks"),
        ({("run", "a"): S, ("run", "b"): F, ("rollback", "a"): S}, "Failed", "not rolled back: b (their"),
        ({("run", "a"): F, ("rollback", "a"): S}, "Failed", "every step that ran was rolled back"),
    ],
)
def test_a_plan_that_changed_mid_run_ends_over_its_own_steps(observed, state, reason_has):
    d = m.plan_changed(["a", "b", "c"], ["a"], observed, {}, CHANGED)
    assert d.state == state and d.create is None, d
    assert d.reason.startswith(CHANGED) and reason_has in d.reason, d.reason
    # The run's record is kept, not replaced by the new plan's (or by nothing).
    assert [(s["name"], s["result"]) for s in d.steps] == [
        (n, observed.get(("run", n), "pending")) for n in ("a", "b", "c")]
    assert [(r["name"], r["result"]) for r in d.rollbacks] == [("a", observed.get(("rollback", "a"), "pending"))]


def _made(name, at, incident="inc"):
    return {"metadata": {"name": name, "creationTimestamp": at}, "spec": {"incident": incident}}


@pytest.mark.parametrize(
    "approval,counts",
    [
        (_made("later", "2026-12-05T10:00:05Z"), True),
        (_made("same-second", "2026-12-05T10:00:00Z"), True),
        # Made for an earlier Incident of the same name, deleted and opened again since.
        (_made("earlier", "2026-12-05T09:59:59Z"), False),
        (_made("other", "2026-12-05T10:00:05Z", incident="other-inc"), False),
    ],
)
def test_an_approval_is_of_an_incident_it_names_and_does_not_predate(approval, counts):
    incident = {"metadata": {"name": "inc", "creationTimestamp": "2026-12-05T10:00:00Z"}}
    assert m.for_this_incident(approval, incident) is counts


def test_a_resolved_incident_whose_dry_run_never_began_is_not_waited_for() -> None:
    import kopf

    from recall_operator.handlers.execution import in_progress

    status = {"recommendation": {"mode": "actionable", "planHash": "p1"}, "dryRun": {"planHash": "p0", "done": True}}
    resolved = {"resolution": {"confirmedBy": "bob"}}
    assert in_progress(status, kopf.Memo(), {}) is True  # open: its dry-run is still to start
    assert in_progress(status, kopf.Memo(), resolved) is False  # resolved: nothing will start it
    running = {**status, "execution": {"planHash": "p0", "state": "Running"}}
    assert in_progress(running, kopf.Memo(), resolved) is True  # a run going on is still followed
