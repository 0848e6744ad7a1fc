"""The pure rules behind the attack round's fixes (issue 12), table-driven.

- who may start a run: the Approval objects, re-derived (`verify_approvals`), and
  the operator's seal on the recommendation (`seal`/`sealed`);
- what a confirmed outcome may do to memory (`as_remembered`, `runbook_outcome`);
- resolved incidents accept no approvals; bridge-opened ones need more people;
- alerts with nothing visible in their service or title are refused.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from recall_operator.bridge.alertmanager import map_payload
from recall_operator.config import ConfigError, approval_settings_from_env
from recall_operator.domain import execution as m
from recall_operator.domain.approval_rules import BRIDGE_OPENER, ApprovalSettings, check_approval
from recall_operator.domain.consolidation import (
    current_outcome,
    as_remembered,
    count_runbook_outcomes,
    empty_outcome,
    failed_run_here,
    final_outcome,
    memory_text,
    remembered_outcome,
    run_in_progress,
    runbook_outcome,
    runbook_run_here,
    unvouched,
)
from recall_operator.domain.guards import failed_before
from recall_operator.domain.models import EpisodicMemory, IncidentSpec, Resolution

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
PLAN = "9f2c0a1b9f2c0a1b"


def approval(name: str, approver: str, plan: str = PLAN, decision: str = "approve", incident: str = "inc-1",
             age_minutes: int = 5) -> dict[str, Any]:
    created = (NOW - timedelta(minutes=age_minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {"metadata": {"name": name, "creationTimestamp": created},
            "spec": {"incident": incident, "planHash": plan, "decision": decision, "approver": approver,
                     "reason": "r"}}


def incident(opener: str | None = "olga", resolution: dict[str, Any] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "inc-1", "annotations": {"recall.dev/opened-by": opener} if opener else {}}
    spec: dict[str, Any] = {"service": "cart", "title": "t", **({"resolution": resolution} if resolution else {})}
    return {"metadata": meta, "spec": spec}


def evidence(approvals: list[dict[str, Any]], inc: dict[str, Any] | None = None, plan: str | None = PLAN,
             risk: str = "medium", started: datetime | None = None, used: frozenset[str] = frozenset()
             ) -> m.RunEvidence:
    return m.RunEvidence(incident=inc or incident(), approvals=approvals, plan_hash=plan, plan_risk=risk,
                         started_at=started, used_before=used)


EXEC = {"planHash": PLAN, "approval": "a1", "approvals": ["a1"], "state": "Running"}


@pytest.mark.parametrize(
    ("execution", "ev", "needle"),
    [
        # an admin-forged execution: no Approval exists at all
        ({"planHash": PLAN, "state": "Running"}, evidence([]), "names no Approval"),
        (EXEC, evidence([]), "no Approval a1 approves incident inc-1"),
        # the Approval approves another plan, or another incident
        (EXEC, evidence([approval("a1", "bob", plan="0000000011111111")]), "does not approve plan"),
        (EXEC, evidence([approval("a1", "bob", incident="inc-2")]), "does not approve plan"),
        # the Runbook now gives another plan than the execution records
        (EXEC, evidence([approval("a1", "bob")], plan="ffffffffffffffff"), "the Runbook now gives"),
        (EXEC, evidence([approval("a1", "bob", decision="reject")]), "is not an approval"),
        # four-eyes, from the Approval's own spec: the opener approved
        (EXEC, evidence([approval("a1", "olga")]), "four-eyes"),
        # four-eyes: the approver set the values the plan runs with
        (EXEC, evidence([approval("a1", "bob")], inc={**incident(), "metadata": {
            "name": "inc-1", "annotations": {"recall.dev/opened-by": "olga", "recall.dev/parameters-by": "bob"}}}),
         "bob set the incident's parameters"),
        # a critical plan needs two people; the execution names one
        (EXEC, evidence([approval("a1", "bob")], risk="critical"), "needs 2 distinct approvers"),
        # a bridge-opened incident needs two people whatever the risk
        (EXEC, evidence([approval("a1", "bob")], inc=incident(opener=BRIDGE_OPENER)), "alert bridge opened"),
        # someone rejected the plan: no step starts
        (EXEC, evidence([approval("a1", "bob"), approval("r1", "carol", decision="reject")]), "rejected by carol"),
        # an Approval used by an earlier run does not start another one
        (EXEC, evidence([approval("a1", "bob")], used=frozenset({"a1"})), "used by an earlier run"),
        # expired before the run started
        (EXEC, evidence([approval("a1", "bob", age_minutes=120)]), "expired"),
        # approved before the outcome was recorded, but no step has run yet
        (EXEC, evidence([approval("a1", "bob")], inc=incident(resolution={"summary": "done", "confirmedBy": "x"})),
         "resolved"),
    ],
)
def test_an_execution_without_valid_approvals_behind_it_runs_nothing(
    execution: dict[str, Any], ev: m.RunEvidence, needle: str
) -> None:
    why = m.verify_approvals(execution, ev, NOW, ApprovalSettings())
    assert why is not None and needle in why, why


def test_an_execution_with_valid_approvals_is_verified() -> None:
    assert m.verify_approvals(EXEC, evidence([approval("a1", "bob")]), NOW, ApprovalSettings()) is None
    two = {**EXEC, "approvals": ["a1", "a2"]}
    assert m.verify_approvals(two, evidence([approval("a1", "bob"), approval("a2", "carol")], risk="critical"),
                              NOW, ApprovalSettings()) is None
    bridge = evidence([approval("a1", "bob"), approval("a2", "carol")], inc=incident(opener=BRIDGE_OPENER))
    assert m.verify_approvals(two, bridge, NOW, ApprovalSettings()) is None
    # Judged as of the run's first Job: an approval that lapsed mid-run does not stop the run.
    old = evidence([approval("a1", "bob", age_minutes=120)], started=NOW - timedelta(minutes=100))
    assert m.verify_approvals(EXEC, old, NOW, ApprovalSettings()) is None


def test_the_seal_binds_the_recommendation_to_the_incident_and_the_key() -> None:
    rec = {"mode": "actionable", "planHash": PLAN, "runbook": "cart-recycle"}
    sealed = {**rec, "seal": m.seal(b"k", "uid-1", rec)}
    assert m.sealed(b"k", "uid-1", sealed)
    assert not m.sealed(b"k", "uid-1", rec)  # no seal: written by someone else
    assert not m.sealed(b"other", "uid-1", sealed)  # another operator's (or a restarted one's) key
    assert not m.sealed(b"k", "uid-2", sealed)  # copied onto another incident
    for forged in ({"mode": "advisory"}, {"planHash": "0" * 16}, {"runbook": "wipe-cluster"}):
        assert not m.sealed(b"k", "uid-1", {**sealed, **forged}), forged


def test_a_resolved_incident_accepts_no_approvals() -> None:
    rec = {"mode": "actionable", "planHash": PLAN, "steps": [{"name": "a", "risk": "low"}]}
    resolved = incident(resolution={"summary": "fixed", "confirmedBy": "carol"})
    own = approval("a1", "bob")
    policy = m.Policy(own, resolved, [], NOW, ApprovalSettings())
    verdict = m.judge_approval("a1", own["spec"], rec, None, policy)
    assert (verdict.state, verdict.execution) == ("Refused", None)
    assert "resolved (outcome confirmed by carol)" in verdict.reason
    # The same Approval on the open incident starts a run that records its runbook.
    open_policy = m.Policy(own, incident(), [], NOW, ApprovalSettings())
    ok = m.judge_approval("a1", own["spec"], {**rec, "runbook": "cart-recycle"}, None, open_policy)
    assert ok.state == "Accepted" and ok.execution and ok.execution["runbook"] == "cart-recycle"


def test_a_bridge_opened_incident_needs_the_configured_number_of_approvers() -> None:
    one = approval("a1", "bob")
    lone = check_approval(one, BRIDGE_OPENER, "low", [], NOW)
    assert not lone.accepted and "alert bridge opened the incident" in lone.reason and "needs 2" in lone.reason
    assert check_approval(one, BRIDGE_OPENER, "low", [approval("a2", "carol")], NOW).accepted
    # A person's incident still needs one for a low-risk plan.
    assert check_approval(one, "olga", "low", [], NOW).accepted
    three = ApprovalSettings(bridge_approvers=3)
    assert not check_approval(one, BRIDGE_OPENER, "low", [approval("a2", "carol")], NOW, three).accepted
    assert approval_settings_from_env({"RECALL_APPROVERS_BRIDGE": "3"}).bridge_approvers == 3
    for bad in ("0", "6", "1.5", "two"):
        with pytest.raises(ConfigError, match="RECALL_APPROVERS_BRIDGE"):
            approval_settings_from_env({"RECALL_APPROVERS_BRIDGE": bad})


def test_judging_a_bridge_incident_one_approval_waits_and_the_second_starts_the_run() -> None:
    rec = {"mode": "actionable", "planHash": PLAN, "steps": [{"name": "a", "risk": "low"}]}
    bridge = incident(opener=BRIDGE_OPENER)
    first = approval("a1", "bob")
    v1 = m.judge_approval("a1", first["spec"], rec, None, m.Policy(first, bridge, [], NOW, ApprovalSettings()))
    assert (v1.state, v1.execution) == ("Pending", None) and "alert bridge opened" in v1.reason
    second = approval("a2", "carol")
    pending = {**first, "status": {"state": "Pending"}}
    v2 = m.judge_approval("a2", second["spec"], rec, None, m.Policy(second, bridge, [pending], NOW, ApprovalSettings()))
    assert v2.state == "Accepted" and v2.execution and sorted(v2.execution["approvals"]) == ["a1", "a2"]


CLAIM = Resolution.model_validate({
    "summary": "rolled back", "runbook": "k8s-rollback-deploy", "confirmedBy": "mallory",
    "actions": [{"action": "run runbook k8s-rollback-deploy", "result": "succeeded"},
                {"action": "restarted the pods by hand", "result": "succeeded"}],
})
CATALOG = ["k8s-rollback-deploy", "redis-flush"]


def test_a_success_claimed_for_a_runbook_the_operator_never_ran_here_is_only_reported() -> None:
    res = as_remembered(CLAIM, CATALOG, ran=None)
    assert res.runbook is None and res.reported_runbook == "k8s-rollback-deploy"
    assert [a.reported for a in res.actions] == [True, False]  # the manual action stays as it was
    assert runbook_outcome(res, "k8s-rollback-deploy") is None
    assert count_runbook_outcomes([res] * 3, "k8s-rollback-deploy").times_executed == 0
    text = memory_text(EpisodicMemory(incident="inc-9", spec=IncidentSpec(service="cart", title="t"),
                                      resolution=res, resolved_at=NOW))
    assert "Runbook reported, not seen to succeed by the operator: k8s-rollback-deploy" in text
    assert "run runbook k8s-rollback-deploy: succeeded (reported by a person;" in text
    # Another runbook ran here: this one's claimed success is still only reported.
    assert as_remembered(CLAIM, CATALOG, ran="redis-flush").reported_runbook == "k8s-rollback-deploy"


def test_a_success_the_operator_ran_counts() -> None:
    res = as_remembered(CLAIM, CATALOG, ran="k8s-rollback-deploy", opener="olga", approvers=["bob"])
    assert res == CLAIM.model_copy(update={"actions": res.actions}) and not any(a.reported for a in res.actions)
    assert runbook_outcome(res, "k8s-rollback-deploy") == "succeeded"


def test_a_memory_no_operator_of_the_bank_signed_backs_no_runbook_but_its_failures_count() -> None:
    """A memory on a Hindsight bank without a valid signature (memory.hindsight.vouched_for) may be a forgery:
    as recorded by the operator that ran the runbook, every success in it is only reported."""
    vouched = as_remembered(CLAIM, CATALOG, ran="k8s-rollback-deploy", opener="olga", approvers=["bob"])
    assert runbook_outcome(vouched, "k8s-rollback-deploy") == "succeeded"  # what the forger copies
    forged = unvouched(vouched)
    assert forged.runbook is None and forged.reported_runbook == "k8s-rollback-deploy"
    assert all(a.reported for a in forged.actions if a.result == "succeeded")  # manual fixes too: nobody vouched
    assert runbook_outcome(forged, "k8s-rollback-deploy") is None
    assert count_runbook_outcomes([forged] * 5, "k8s-rollback-deploy") == count_runbook_outcomes([], "x")
    failed = Resolution.model_validate({"summary": "made it worse", "confirmedBy": "mallory", "actions": [
        {"action": "run runbook redis-flush", "result": "failed"},
        {"action": "run runbook k8s-rollback-deploy", "result": "succeeded"}]})
    kept = unvouched(failed)
    assert runbook_outcome(kept, "redis-flush") == "failed"  # a failure only makes a fix less trusted
    assert runbook_outcome(kept, "k8s-rollback-deploy") is None
    assert unvouched(kept) == kept  # read twice, the same


def test_a_reported_failure_still_counts_against_the_runbook() -> None:
    failed = Resolution.model_validate({"summary": "did not help", "confirmedBy": "mallory", "actions": [
        {"action": "run runbook redis-flush", "result": "failed"}]})
    res = as_remembered(failed, CATALOG, ran=None)
    assert runbook_outcome(res, "redis-flush") == "failed"


def test_the_openers_own_confirmation_of_a_run_they_approved_is_one_voice() -> None:
    mine = CLAIM.model_copy(update={"confirmed_by": "olga"})
    alone = as_remembered(mine, CATALOG, ran="k8s-rollback-deploy", opener="olga", approvers=["olga"])
    assert runbook_outcome(alone, "k8s-rollback-deploy") is None and alone.reported_runbook == "k8s-rollback-deploy"
    # Someone else approved, or someone else confirms: two voices, it counts.
    for approvers, confirmer in ((["bob"], "olga"), (["olga"], "bob")):
        res = as_remembered(mine.model_copy(update={"confirmed_by": confirmer}), CATALOG, ran="k8s-rollback-deploy",
                            opener="olga", approvers=approvers)
        assert runbook_outcome(res, "k8s-rollback-deploy") == "succeeded", (approvers, confirmer)


def test_status_execution_says_which_runbook_ran_here() -> None:
    ran = {"execution": {"state": "Succeeded", "runbook": "k8s-rollback-deploy", "approvedBy": "bob",
                         "steps": [{"name": "undo", "result": "succeeded"}]}}
    assert runbook_run_here(ran) == "k8s-rollback-deploy"
    assert runbook_run_here({}) is None
    # Approved but stopped before any step, or still running: nothing ran to completion here.
    assert runbook_run_here({"execution": {**ran["execution"], "state": "Stopped", "steps": []}}) is None
    assert runbook_run_here({"execution": {**ran["execution"], "state": "Running"}}) is None
    # An execution recorded before it named its runbook: the recommendation of that plan did.
    older = {"recommendation": {"runbook": "k8s-rollback-deploy", "planHash": PLAN},
             "execution": {"state": "Succeeded", "planHash": PLAN, "steps": [{"name": "undo", "result": "succeeded"}]}}
    assert runbook_run_here(older) == "k8s-rollback-deploy"
    res = remembered_outcome(CLAIM, CATALOG, ran, opener="olga")
    assert runbook_outcome(res, "k8s-rollback-deploy") == "succeeded"


def _ran(state: str, *results: str) -> dict[str, Any]:
    return {"execution": {"state": state, "runbook": "k8s-rollback-deploy", "approvedBy": "bob",
                          "steps": [{"name": n, "phase": "run", "result": r}
                                    for n, r in zip(("show-history", "undo-rollout"), results)]}}


@pytest.mark.parametrize(
    ("status", "failed"),
    [
        (_ran("Failed", "succeeded", "failed"), "step undo-rollout failed"),
        (_ran("RolledBack", "succeeded", "failed"), "step undo-rollout failed, completed steps rolled back"),
        (_ran("Succeeded", "succeeded", "succeeded"), None),
        (_ran("Running", "succeeded", "running"), None),
        # Cut short with no step failed (the approved plan changed under it): no failure of the runbook.
        (_ran("Failed", "succeeded", "running"), None),
        # A dry-run failed: the plan never ran, so no fix failed here.
        (_ran("Failed", "pending", "pending"), None),
        ({}, None),
    ],
)
def test_how_the_operators_own_run_failed(status: dict[str, Any], failed: str | None) -> None:
    assert failed_run_here(status) == failed


@pytest.mark.parametrize(
    ("status", "going_on"),
    [
        (_ran("Running", "succeeded", "running"), True),
        # Approved, waiting for its dry-run: a resolved incident's Approval is refused, and it stops.
        ({"execution": {"state": "Pending", "runbook": "k8s-rollback-deploy"}}, True),
        *((_ran(ended, "succeeded", "succeeded"), False) for ended in ("Succeeded", "Failed", "RolledBack", "Stopped")),
        ({}, False),
    ],
)
def test_whether_the_operators_own_run_is_going_on(status: dict[str, Any], going_on: bool) -> None:
    said = run_in_progress(status)
    assert (said is not None) is going_on
    assert said is None or "k8s-rollback-deploy" in said


HAND_FIX = Resolution.model_validate({
    "summary": "scaled the pool by hand", "confirmedBy": "carol",
    "actions": [{"action": "scaled the connection pool to 200", "result": "succeeded"}],
})


def test_a_failed_run_the_outcome_leaves_out_is_remembered_as_observed() -> None:
    res = remembered_outcome(HAND_FIX, CATALOG, _ran("RolledBack", "succeeded", "failed"), opener="olga")
    first = res.actions[0]
    assert (first.result, first.observed, first.reported) == ("failed", True, False)
    assert "k8s-rollback-deploy" in first.action and "undo-rollout failed" in first.action
    assert res.actions[1:] == HAND_FIX.actions
    # It counts against the runbook and keeps it from being actionable under the same conditions.
    assert runbook_outcome(res, "k8s-rollback-deploy") == "failed"
    remembered = EpisodicMemory(incident="inc-9", spec=IncidentSpec(service="cart", title="t"), resolution=res,
                                resolved_at=NOW)
    assert failed_before([remembered], CATALOG) == {"k8s-rollback-deploy": "inc-9"}
    # How the incident ended is what people did, not the failed run before it.
    assert final_outcome(res) == "succeeded"
    assert final_outcome(res.model_copy(update={"actions": res.actions[:1]})) == "succeeded"
    # A run that succeeded is kept too, as what the operator saw: it counts for nothing (the person says
    # the pool fixed it), and a correction that leaves it out cannot erase it from memory.
    kept = remembered_outcome(HAND_FIX, CATALOG, _ran("Succeeded", "succeeded", "succeeded"), "olga")
    assert kept.actions[1:] == HAND_FIX.actions and kept.runbook is None
    assert (kept.actions[0].result, kept.actions[0].observed) == ("succeeded", True)
    assert "k8s-rollback-deploy" in kept.actions[0].action and "every step succeeded" in kept.actions[0].action
    assert runbook_outcome(kept, "k8s-rollback-deploy") is None
    assert final_outcome(kept) == "succeeded"


def test_a_success_claimed_for_a_run_the_operator_saw_fail_is_only_reported() -> None:
    res = remembered_outcome(CLAIM, CATALOG, _ran("Failed", "succeeded", "failed"), opener="olga")
    assert res.runbook is None and res.reported_runbook == "k8s-rollback-deploy"
    assert [(a.observed, a.reported, a.result) for a in res.actions] == [
        (True, False, "failed"), (False, True, "succeeded"), (False, False, "succeeded")]
    assert runbook_outcome(res, "k8s-rollback-deploy") == "failed"
    text = memory_text(EpisodicMemory(incident="inc-9", spec=IncidentSpec(service="cart", title="t"),
                                      resolution=res, resolved_at=NOW))
    assert "not what the operator saw of this incident" in text and "(the operator's run: step undo-rollout failed)" in text


def test_an_outcome_that_records_the_failed_run_itself_is_kept_as_written() -> None:
    told = HAND_FIX.model_copy(update={"actions": (
        *Resolution.model_validate({"actions": [{"action": "run runbook k8s-rollback-deploy", "result": "failed"}]}
                                   ).actions, *HAND_FIX.actions)})
    assert remembered_outcome(told, CATALOG, _ran("Failed", "succeeded", "failed"), opener="olga") == told


def test_an_empty_outcome_is_not_one() -> None:
    assert empty_outcome(Resolution())
    assert empty_outcome(Resolution.model_validate({"rootCause": "x", "summary": "  ", "confirmedBy": "a"}))
    assert not empty_outcome(Resolution.model_validate({"summary": "fixed"}))
    assert not empty_outcome(Resolution.model_validate({"actions": [{"action": "x", "result": "failed"}]}))


def _alert(service: str, title: str) -> dict[str, Any]:
    return {"version": "4", "status": "firing", "alerts": [{
        "status": "firing", "labels": {"service": service}, "annotations": {"summary": title},
        "startsAt": "2026-01-01T00:00:00Z", "fingerprint": "f00d"}]}


@pytest.mark.parametrize(
    ("service", "title", "needle"),
    [
        ("\u200b", "cart is down", "names no service: it has no letter or digit"),
        ("\u180e\u200b", "cart is down", "names no service: it has no letter or digit"),
        ("\x00", "cart is down", "names no service: it has no letter or digit"),
        # Visible, but the CRD asks a service for a letter or digit: the API server would refuse it.
        ("--", "cart is down", "the service label '--' names no service"),
        ("\U0001f525", "cart is down", "names no service: it has no letter or digit"),
        ("cart", "\u200b\u180e", "gives a title with a visible character"),
        ("cart", "\x00\x00", "gives a title with a visible character"),
        ("cart", " \u200b ", "gives a title with a visible character"),
    ],
)
def test_an_alert_with_nothing_visible_is_refused(service: str, title: str, needle: str) -> None:
    result = map_payload(_alert(service, title), namespace="ns", received_at=NOW)
    assert not hasattr(result, "incidents"), result
    assert result.status_code == 422 and needle in result.reason, result


def test_a_bridge_incident_records_the_bridge_as_opener_and_drops_invisible_characters() -> None:
    result = map_payload(_alert("\u200bcart\x00", "cart\u200b is down"), namespace="ns", received_at=NOW)
    (one,) = result.incidents  # type: ignore[union-attr]
    assert one.manifest["spec"]["service"] == "cart" and one.manifest["spec"]["title"] == "cart is down"
    # A tab or line break in a service is one space: the CRD takes no control character in it.
    (tabbed,) = map_payload(_alert("cart\t\napi", "cart is down"), namespace="ns",  # type: ignore[union-attr]
                            received_at=NOW).incidents
    assert tabbed.manifest["spec"]["service"] == "cart api"
    annotations = one.manifest["metadata"]["annotations"]
    assert annotations["recall.dev/opened-by"] == BRIDGE_OPENER
    assert annotations["recall.dev/alert-fingerprint"] == "f00d"
    # A re-fire never touches the opener (admission refuses any change to it).
    assert "recall.dev/opened-by" not in one.patch["metadata"]["annotations"]


def test_a_correction_is_a_new_record_and_the_newest_is_what_memory_holds() -> None:
    recorded = {"summary": "restarted cart", "confirmedBy": "olga"}
    assert current_outcome({"service": "cart"}) is None
    assert current_outcome({"resolution": recorded}) == recorded
    first = {"reason": "it was redis", "summary": "flushed redis", "confirmedBy": "bob"}
    second = {"reason": "and then the restart", "summary": "flushed redis, then restarted", "confirmedBy": "carol"}
    assert current_outcome({"resolution": recorded, "corrections": [first]}) == first
    assert current_outcome({"resolution": recorded, "corrections": [first, second]}) == second
    # Corrections without a recorded outcome correct nothing (the CRD refuses them too).
    assert current_outcome({"corrections": [first]}) is None
    # bob's correction appended again after carol's, word for word, is a replay: carol's still holds.
    assert current_outcome({"resolution": recorded, "corrections": [first, second, dict(first)]}) == second
    # Restated by bob anew (another reason), it is a record again.
    again = {**first, "reason": "carol's restart was not needed"}
    assert current_outcome({"resolution": recorded, "corrections": [first, second, again]}) == again
