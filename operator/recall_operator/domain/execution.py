"""Execution of an approved plan, as a pure state machine.

Everything the next action depends on is passed in: the recommendation (mode,
planHash, steps), what Approvals decided (as recorded in status.execution),
and the Jobs that exist, keyed by (phase, step). Because the operator's Jobs
have deterministic names, a restarted operator sees the Jobs it made before
and the machine answers "wait" or "next step", never "create that step again".

Rules:

- dry-run: for an actionable plan every step's dryRunCommand runs as a Job
  (read-only, no approval needed); steps without one are recorded as skipped.
- run: only an actionable plan, only with an Approval for its planHash, only
  after every dry-run succeeded; steps run one at a time, in order.
- rollback: when a step fails, the rollbacks of the steps that completed run
  one at a time in reverse order; steps without a rollbackCommand are skipped.
  A failed rollback stops the rollback (later ones undo earlier steps and may
  not be safe on top of a half-undone one): the state is Failed and a person
  takes over.
- a rejection stops the execution: no new step starts; a Job already running
  is left to finish (killing a step mid-change is worse than letting it end).

Approval policy (domain.approval_rules, applied by `judge_approval` when it is
given the policy inputs): four-eyes, the number of distinct approvers the
plan's riskiest step needs, and expiry. An Approval that fails four-eyes is
Refused, an expired one Expired, one that is valid but alone where the plan
needs more approvers Pending; none of them starts anything. The Approval that
completes the count starts the run and the execution records every approver
it counted. Approvals already consumed by an earlier run (state Accepted) or
judged invalid do not count again: a re-run of the same plan (after it failed
or rolled back) needs fresh ones. A plan that succeeded is never run again, and
a resolved incident accepts no approvals.

Status is not proof. Anyone who may write an Incident's status could claim an
actionable mode or an approved execution, so before any Job the operator
checks what it can verify itself:

- the recommendation carries the operator's seal (`seal`): an HMAC over the
  incident's uid, mode, planHash and runbook with a key only the running
  operator holds. A recommendation without a valid seal runs nothing, not
  even a dry-run, until the operator has triaged the incident itself;
- an execution is re-derived from the Approval objects it names
  (`verify_approvals`): they exist, approve this incident's recomputed
  planHash, pass the approval rules (four-eyes, distinct approvers, expiry,
  no rejection) and were not used by an earlier run;
- a step result that only status records (its Job is gone: `recorded_when_gone`)
  leads to a Job, a rollback included, only in a run the cluster shows: its
  Approvals verify, or a Job of its attempt exists (`unproven`).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal

from recall_operator.domain.approval_rules import (
    ApprovalSettings,
    check_approval,
    opened_by,
    parameters_chosen_by,
    resolved_by,
)
from recall_operator.domain.models import riskiest
from recall_operator.domain.times import parse_time

JobState = Literal["running", "succeeded", "failed"]
Phase = Literal["dryrun", "run", "rollback"]
Observed = Mapping[tuple[str, str], JobState]  # (phase, step name) -> state
Why = Mapping[tuple[str, str], str]  # (phase, step name) -> what its Job waits for, or why it failed

RUNNING = "Running"
SUCCEEDED = "Succeeded"
FAILED = "Failed"
ROLLED_BACK = "RolledBack"
STOPPED = "Stopped"
TERMINAL = frozenset({SUCCEEDED, FAILED, ROLLED_BACK, STOPPED})


@dataclass(frozen=True)
class Create:
    phase: Phase
    step: str


@dataclass(frozen=True)
class DryRunDecision:
    create: list[Create]
    results: list[dict[str, str]]  # [{name, result}] in step order
    done: bool
    ok: bool  # done and nothing failed


@dataclass(frozen=True)
class RunDecision:
    state: str  # Pending | Running | Succeeded | Failed | RolledBack | Stopped | Refused
    create: Create | None
    reason: str
    steps: list[dict[str, str]] = field(default_factory=list)  # [{name, result}] of run Jobs
    rollbacks: list[dict[str, str]] = field(default_factory=list)


def _name(step: Mapping[str, Any]) -> str:
    return str(step["name"])


def _with_why(entry: dict[str, str], why: str | None) -> dict[str, str]:
    return {**entry, "reason": why} if why else entry


def _because(why: str | None) -> str:
    return f" ({why})" if why else ""


def dry_run(steps: Sequence[Mapping[str, Any]], observed: Observed, why: Why | None = None) -> DryRunDecision:
    """Which dry-run Jobs to create, and the results so far (with why, where `why` says)."""
    why = why or {}
    create: list[Create] = []
    results: list[dict[str, str]] = []
    for step in steps:
        name = _name(step)
        if not step.get("dryRunCommand"):
            results.append({"name": name, "result": "skipped"})
            continue
        state = observed.get(("dryrun", name))
        if state is None:
            create.append(Create("dryrun", name))
            results.append({"name": name, "result": "pending"})
        else:
            results.append(_with_why({"name": name, "result": state}, why.get(("dryrun", name))))
    done = not create and all(r["result"] in ("succeeded", "failed", "skipped") for r in results)
    ok = done and not any(r["result"] == "failed" for r in results)
    return DryRunDecision(create, results, done, ok)


def run(
    mode: str,
    steps: Sequence[Mapping[str, Any]],
    approved: bool,
    stopped: bool,
    dry_run_done: bool,
    dry_run_ok: bool,
    observed: Observed,
    why: Why | None = None,
    dry_run_why: str = "",
) -> RunDecision:
    """The execution's state and the one Job to create next, if any.

    `why` says what each step's Job waits for or why it failed, `dry_run_why`
    what the dry-run waits for or which dry-run failed: the reason then says
    so, never just "running".
    """
    why = why or {}
    stop_word = "rejected"
    if mode != "actionable":
        if not any(observed.get(("run", _name(s))) for s in steps):
            return RunDecision("Refused", None, f"a {mode} recommendation is never executed")
        # Re-triage made it no longer actionable during the run (memory or the spec changed):
        # as a rejection does, the step that runs ends and nothing more starts; a failure still rolls back.
        stopped, stop_word = True, f"the recommendation became {mode} during the run"
    if not steps:
        return RunDecision("Refused", None, "the plan has no steps")

    run_view: list[dict[str, str]] = []
    failed_at: int | None = None
    for i, step in enumerate(steps):
        state = observed.get(("run", _name(step)))
        run_view.append(_with_why({"name": _name(step), "result": state or "pending"}, why.get(("run", _name(step)))))
        if state == "failed" and failed_at is None:
            failed_at = i

    if failed_at is not None:
        return _rollback(steps, failed_at, observed, run_view, why)

    for i, step in enumerate(steps):
        state = observed.get(("run", _name(step)))
        if state == "succeeded":
            continue
        if state == "running":
            waits = why.get(("run", _name(step)))
            if waits and waits != "running":
                return RunDecision(RUNNING, None, f"step {_name(step)} is {waits}", run_view)
            return RunDecision(RUNNING, None, f"step {_name(step)} is running", run_view)
        # No Job for this step yet: everything before it succeeded.
        if stopped:
            if i == 0:
                return RunDecision(STOPPED, None, f"{stop_word} before any step ran", run_view)
            return RunDecision(STOPPED, None, f"{stop_word}; stopped before step {_name(step)}", run_view)
        if not approved:
            return RunDecision("Pending", None, "waiting for an Approval of this planHash", run_view)
        # The dry-run gates the run's start. Once a step has run, what became of a dry-run
        # Job since (deleted, made again) neither holds the next step nor unsays the first.
        if i == 0 and not dry_run_done:
            return RunDecision("Pending", None, "waiting for the dry-run Jobs to finish" + (
                f": {dry_run_why}" if dry_run_why else ""), run_view)
        if i == 0 and not dry_run_ok:
            return RunDecision(FAILED, None, f"a dry-run failed{_because(dry_run_why)}; the plan is not run", run_view)
        return RunDecision(RUNNING, Create("run", _name(step)), f"starting step {_name(step)}", run_view)
    return RunDecision(SUCCEEDED, None, "every step succeeded", run_view)


def unproven(decision: RunDecision, unverified: str | None, started: bool) -> RunDecision:
    """`decision` with no Job when nothing the cluster holds shows this run was ever approved.

    `unverified` is why its Approvals do not verify now (`verify_approvals`), and
    `started` whether a run or rollback Job of this attempt exists. A run that
    started under verified Approvals and lost them later still rolls back a failure
    (the rollback is the safe way out). One with neither is only what someone wrote
    into status: the step results it claims (a failed step asking for a rollback of
    the one before) are claims, and a rollback command runs with the executor's
    rights as much as a step does. It stops, saying why, instead of waiting.
    """
    if decision.create is None or unverified is None or started:
        return decision
    return replace(decision, state=STOPPED, create=None, reason=f"nothing runs: {unverified}", rollbacks=[])


def _rollback(
    steps: Sequence[Mapping[str, Any]], failed_at: int, observed: Observed, run_view: list[dict[str, str]],
    why: Why,
) -> RunDecision:
    failed = _name(steps[failed_at]) + " failed" + _because(why.get(("run", _name(steps[failed_at]))))
    to_undo = [s for s in reversed(steps[:failed_at]) if s.get("rollbackCommand")]
    rollbacks = [_with_why({"name": _name(s), "result": observed.get(("rollback", _name(s))) or "pending"},
                           why.get(("rollback", _name(s)))) for s in to_undo]
    if not to_undo:
        return RunDecision(FAILED, None, f"step {failed}; no completed step has a rollback", run_view, rollbacks)
    for s in to_undo:
        state = observed.get(("rollback", _name(s)))
        if state == "succeeded":
            continue
        if state == "failed":
            return RunDecision(
                FAILED,
                None,
                f"step {failed} and the rollback of {_name(s)} failed{_because(why.get(('rollback', _name(s))))};"
                " later rollbacks not run, needs a person",
                run_view,
                rollbacks,
            )
        if state == "running":
            return RunDecision(RUNNING, None, f"step {failed}; rolling back {_name(s)}", run_view, rollbacks)
        return RunDecision(
            RUNNING, Create("rollback", _name(s)), f"step {failed}; rolling back {_name(s)}", run_view, rollbacks
        )
    return RunDecision(ROLLED_BACK, None, f"step {failed}; completed steps rolled back", run_view, rollbacks)


def plan_changed(steps: Sequence[str], rollbacks: Sequence[str], observed: Observed, why: Why,
                 change: str) -> RunDecision:
    """The run of a plan that changed under it (the Runbook edited, the recommendation re-triaged).

    `steps` and `rollbacks` are the names the run recorded or made Jobs for:
    the new plan says nothing about the old one. A Job already running is left
    to finish, as after a rejection, and the run stays Running until it has
    (so no new run starts beside it); nothing more starts. The rollbacks are
    in the plan that changed, which the operator no longer has from the
    Runbook, so the steps that ran are named for a person to check instead.
    """
    run_view = [_with_why({"name": n, "result": observed.get(("run", n)) or "pending"}, why.get(("run", n)))
                for n in steps]
    undo_view = [_with_why({"name": n, "result": observed.get(("rollback", n)) or "pending"},
                           why.get(("rollback", n))) for n in rollbacks]
    busy = [f"{phase} {e['name']}" for phase, view in (("step", run_view), ("the rollback of", undo_view))
            for e in view if e["result"] == "running"]
    if busy:
        return RunDecision(RUNNING, None, f"{change}; nothing more starts: waiting for {', '.join(busy)} to end",
                           run_view, undo_view)
    ran = [e["name"] for e in run_view if e["result"] in ("succeeded", "failed")]
    if not ran:
        return RunDecision(STOPPED, None, f"{change}; no step had run, and nothing runs", run_view, undo_view)
    undone = {e["name"] for e in undo_view if e["result"] == "succeeded"}
    left = [n for n in ran if n not in undone]
    return RunDecision(FAILED, None, f"{change}; nothing more runs" + (
        f"; steps that ran and are not rolled back: {', '.join(left)} (their rollbacks were in the plan that "
        "changed): check them by hand" if left else "; every step that ran was rolled back"), run_view, undo_view)


JOB_GONE = ("its Job was deleted before the operator saw it finish: what the step changed is unknown, so it is"
            " not run again")


def recorded_when_gone(execution: Mapping[str, Any], observed: Observed) -> tuple[dict[tuple[str, str], JobState],
                                                                                   dict[tuple[str, str], str]]:
    """What status recorded for the run and rollback steps whose Jobs no longer exist.

    The Jobs are the record a restart reads, and the operator sets no TTL on them, so
    a missing Job was deleted by someone. Without this, `run` saw a step with no Job
    as never started and created it again: a finished step ran twice, or next to the
    step after it. A step status saw finish keeps its result; one that was running
    failed (and what it undid is rolled back), since nobody can say what it did.
    """
    states: dict[tuple[str, str], JobState] = {}
    why: dict[tuple[str, str], str] = {}
    for phase, key in (("run", "steps"), ("rollback", "rollbacks")):
        for entry in execution.get(key) or []:
            at = (phase, str(entry.get("name")))
            result = entry.get("result")
            if at in observed or result not in ("running", "succeeded", "failed"):
                continue
            states[at] = "failed" if result == "running" else result
            reason = JOB_GONE if result == "running" else str(entry.get("reason") or "")
            if reason:
                why[at] = reason
    return states, why


NOT_STARTED_RESOLVED = "not run: the incident was resolved before this dry-run started"


def dry_run_recorded(dry: Mapping[str, Any], observed: Observed) -> tuple[
        dict[tuple[str, str], JobState], dict[tuple[str, str], str]]:
    """What status recorded for dry-runs of this attempt that have no Job, so that none is made again.

    A finished dry-run keeps its result when its Job is deleted: it is read-only
    and already judged, and making it again would change what the run's image
    is pinned to. One that had not finished is made again (on a resolved
    incident, which starts nothing, `not_started` ends it instead).
    """
    states: dict[tuple[str, str], JobState] = {}
    why: dict[tuple[str, str], str] = {}
    for entry in dry.get("steps") or []:
        at = ("dryrun", str(entry.get("name")))
        result = entry.get("result")
        if at in observed:
            continue
        if result in ("succeeded", "failed"):
            states[at] = result
            if entry.get("reason"):
                why[at] = str(entry["reason"])
    return states, why


def not_started(decision: DryRunDecision, resolved: bool) -> tuple[dict[tuple[str, str], JobState],
                                                                     dict[tuple[str, str], str]]:
    """The dry-runs `decision` would create, ended as not run when the incident is resolved (none is)."""
    if not resolved:
        return {}, {}
    return ({("dryrun", c.step): "failed" for c in decision.create},
            {("dryrun", c.step): NOT_STARTED_RESOLVED for c in decision.create})


def stopped_unverified(execution: Mapping[str, Any]) -> str:
    """Why a resolved incident's run stops when the operator can no longer verify its recommendation.

    After a restart (a new process key) a recommendation is verified again only
    once the operator has triaged the incident itself, and a resolved incident is
    never triaged again: its run would wait for ever. It ends here, saying what
    was left; a Job already running is not stopped, only no longer watched.
    """
    left = [str(s.get("name")) for s in execution.get("steps") or [] if s.get("result") not in ("succeeded", "failed")]
    undone = [str(r.get("name")) for r in execution.get("rollbacks") or []
              if r.get("result") not in ("succeeded", "failed")]
    return ("the incident was resolved and the operator restarted during its run: a resolved incident is not "
            "triaged again, so its recommendation cannot be verified and nothing more runs"
            + (f"; steps not seen to finish: {', '.join(left)}" if left else "")
            + (f"; rollbacks not run: {', '.join(undone)}" if undone else ""))


def has_work(status: Mapping[str, Any]) -> bool:
    """Whether an Incident's status could lead to a Job: an execution, or an actionable plan (its dry-run)."""
    rec = status.get("recommendation") or {}
    return bool(status.get("execution")) or (bool(rec.get("planHash")) and rec.get("mode") == "actionable")


# Approval states that may still count towards a plan: not yet judged (being
# judged now, or created while the operator was down) or waiting for more approvers.
COUNTABLE_STATES = frozenset({"", "Pending"})


def plan_risk(steps: Sequence[Mapping[str, Any]] | None) -> str | None:
    """The riskiest step's risk of a plan as status records it (`models.riskiest`)."""
    return riskiest(step.get("risk") for step in steps or [])


@dataclass(frozen=True)
class Policy:
    """What the approval rules need besides the Approval itself."""

    approval: Mapping[str, Any]  # the Approval object (metadata.creationTimestamp is its age)
    incident: Mapping[str, Any]  # for its admission-checked opener
    others: Sequence[Mapping[str, Any]]  # the incident's other Approval objects, any plan, with status
    now: datetime
    settings: ApprovalSettings


EARLIER_INCIDENT = ("made before Incident {incident} was: it was for an earlier Incident of that name, "
                    "and approves nothing of this one")


def for_this_incident(approval: Mapping[str, Any], incident: Mapping[str, Any]) -> bool:
    """Whether an Approval is of this Incident: it names it, and was made since the Incident was.

    An Incident deleted and opened again under the same name (a recurring
    alert's fingerprint, a GitOps re-apply) gets the same plan for the same
    report: a Pending Approval of the old one would otherwise count for the new
    one, a decision nobody made about it. Times are whole seconds, so one made
    in the Incident's own second still counts: nobody can approve a plan before
    the Incident is triaged.
    """
    meta = incident.get("metadata") or {}
    if (approval.get("spec") or {}).get("incident") != meta.get("name"):
        return False
    made, opened = (parse_time((o.get("metadata") or {}).get("creationTimestamp")) for o in (approval, incident))
    return made is None or opened is None or made >= opened


def _approval_name(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


def _uid(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("uid") or "")


def _recorded_object(name: str, policy: Policy | None, execution: Mapping[str, Any]) -> bool:
    """Whether the Approval judged is the object `execution` counted under `name`.

    An execution recorded without uids (before they were kept), or a judgement
    without the object (`policy` None), can only go by the name.
    """
    recorded = (execution.get("approvalUids") or {}).get(name)
    own = _uid(policy.approval) if policy is not None else ""
    return not recorded or not own or recorded == own


def _counting(policy: Policy, own: str) -> list[Mapping[str, Any]]:
    """Other Approvals that may count: rejections always, approvals only when not consumed or refused."""
    out = []
    for o in policy.others:
        if _approval_name(o) == own:
            continue
        if (o.get("spec") or {}).get("decision") == "reject":
            out.append(o)
        elif str((o.get("status") or {}).get("state") or "") in COUNTABLE_STATES:
            out.append(o)
    return out


def _policy_verdict(own: str, policy: Policy, risk: str | None) -> tuple[str, str, list[tuple[str, str]]]:
    """(state, reason, counted [(approval name, approver)]) under the approval rules.

    The state is told apart by asking the same rules narrower questions, never by
    reading the reason text: alone and without expiry (four-eyes), alone with
    expiry (expired), with the others but needing one approver (a rejection).
    """
    opener, chooser = opened_by(policy.incident), parameters_chosen_by(policy.incident)
    s = policy.settings
    # Whether one Approval is valid on its own: the count a bridge-opened incident needs is asked only in `full`.
    single = replace(s, bridge_approvers=1)
    others = _counting(policy, own)
    full = check_approval(policy.approval, opener, risk, others, policy.now, s, chooser)
    counted = [(own, str((policy.approval.get("spec") or {}).get("approver") or ""))]
    if full.accepted:
        plan = (policy.approval.get("spec") or {}).get("planHash")
        for o in others:
            ospec = o.get("spec") or {}
            if ospec.get("planHash") != plan or ospec.get("decision") != "approve":
                continue
            if check_approval(o, opener, None, [], policy.now, single, chooser).accepted:
                counted.append((_approval_name(o), str(ospec.get("approver"))))
        return "Accepted", full.reason, counted
    if not check_approval(policy.approval, opener, None, [], policy.now, replace(single, approval_ttl=None),
                          chooser).accepted:
        return "Refused", full.reason, []  # four-eyes, or a malformed Approval
    if not check_approval(policy.approval, None, None, [], policy.now, s).accepted:
        return "Expired", full.reason, []
    if check_approval(policy.approval, opener, None, others, policy.now, single, chooser).accepted:
        return "Pending", full.reason, []  # valid, but the plan's risk needs more distinct approvers
    return "Refused", full.reason, []  # someone rejected this plan


@dataclass(frozen=True)
class ApprovalVerdict:
    state: Literal["Accepted", "Rejected", "Refused", "Superseded", "Pending", "Expired"]
    reason: str
    execution: dict[str, Any] | None  # the new status.execution to record, or None to leave it as is


def judge_approval(
    approval_name: str,
    spec: Mapping[str, Any],
    recommendation: Mapping[str, Any] | None,
    execution: Mapping[str, Any] | None,
    policy: Policy | None = None,
) -> ApprovalVerdict:
    """What an Approval means for the Incident, given what its status holds now.

    With `policy`, an approval must also pass the approval rules (four-eyes,
    distinct approvers per risk, expiry) before it starts a run; without it
    (the rules not asked for) any approval of the current actionable plan does.

    Idempotent: judging the same Approval again (an operator restart) gives
    the same verdict and no new execution.
    """
    rec = recommendation or {}
    current = rec.get("planHash")
    wanted = spec.get("planHash")
    approver = str(spec.get("approver", ""))
    execution = execution or {}
    closed_by = resolved_by(policy.incident) if policy is not None else None
    if closed_by is not None:
        return ApprovalVerdict(
            "Refused", f"the incident is resolved (outcome confirmed by {closed_by}); it accepts no approvals", None
        )
    if not current:
        return ApprovalVerdict("Superseded", "the incident has no plan to approve", None)
    if wanted != current and isinstance(wanted, str) and str(current).startswith(wanted):
        # Approval names show the first 8 digits: a person who copied those meant this plan, and
        # "superseded" would tell them it changed. It did not; the Approval must name all of it.
        return ApprovalVerdict(
            "Refused", f"names planHash {wanted}, only the start of the plan's {current}: an Approval names the whole"
            " planHash (kubectl recall approve and reject write it); nothing was decided", None
        )
    if wanted != current:
        return ApprovalVerdict(
            "Superseded", f"approves plan {wanted}, but the incident's plan is now {current}; approve the new plan", None
        )
    same_plan = execution.get("planHash") == current
    if spec.get("decision") == "reject":
        if same_plan and execution.get("rejectedBy"):
            return ApprovalVerdict("Rejected", f"plan {current} rejected: {spec.get('reason', '')}".strip(), None)
        if not same_plan and execution and execution.get("state") not in TERMINAL:
            # Another plan is mid-run; this rejection is of a plan that never started.
            return ApprovalVerdict("Rejected", f"plan {current} rejected: {spec.get('reason', '')}".strip(), None)
        new = dict(execution) if same_plan else {"planHash": current, "attempt": int(execution.get("attempt", 0)) + 1}
        new.update({"rejectedBy": approver, "rejection": approval_name, "stopped": True})
        if new.get("state") not in TERMINAL and not same_plan:
            new["state"] = STOPPED
        return ApprovalVerdict("Rejected", f"plan {current} rejected: {spec.get('reason', '')}".strip(), new)
    mode = rec.get("mode")
    if mode != "actionable":
        return ApprovalVerdict("Refused", f"the recommendation is {mode}: only an actionable plan can be executed", None)
    if same_plan:
        if execution.get("approval") == approval_name or approval_name in (execution.get("approvals") or []):
            if _recorded_object(approval_name, policy, execution):
                return ApprovalVerdict("Accepted", f"plan {current} approved by {execution.get('approvedBy')}", None)
            # Deleted and made again under its name: not the Approval that run counted, and its name
            # is that run's (its Jobs carry it), so it could never start another.
            return ApprovalVerdict(
                "Refused", f"an earlier Approval named {approval_name} was counted by run {execution.get('attempt')} "
                f"of plan {current} ({execution.get('state')}); a new run needs an Approval under a new name", None
            )
        if execution.get("stopped"):
            return ApprovalVerdict(
                "Refused", f"plan {current} was rejected by {execution.get('rejectedBy')}; a new plan is needed", None
            )
        if execution.get("state") not in TERMINAL:
            return ApprovalVerdict(
                "Refused", f"plan {current} is already executing (approval {execution.get('approval')})", None
            )
        if execution.get("state") == SUCCEEDED:
            # Its steps changed the system already; running them again (a second `rollout undo`) is a new
            # change nobody triaged. A failed or rolled-back run may be tried again; a finished one may not.
            return ApprovalVerdict(
                "Refused", f"plan {current} already ran and every step succeeded (approved by "
                f"{execution.get('approvedBy')}); it is not run again: if the problem is back, record the "
                "outcome and open a new Incident", None
            )
    elif execution and execution.get("state") not in TERMINAL:
        return ApprovalVerdict(
            "Refused", f"plan {execution.get('planHash')} is still executing; wait for it to finish", None
        )
    approvals = [approval_name]
    approved_by = approver
    counted_uids: dict[str, str] = {}
    reason = f"plan {current} approved by {approver}"
    if policy is not None:
        state, reason, counted = _policy_verdict(approval_name, policy, plan_risk(rec.get("steps")))
        if state != "Accepted":
            return ApprovalVerdict(state, reason, None)  # type: ignore[arg-type]
        approvals = [name for name, _who in counted]
        approved_by = ",".join(sorted({who for _name, who in counted}))
        uids = {_approval_name(o): _uid(o) for o in [policy.approval, *policy.others]}
        counted_uids = {name: uids[name] for name in approvals if uids.get(name)}
    # A new run: a fresh attempt number gives fresh Job names, so a re-run after
    # a failure never collides with (or adopts) the Jobs of the earlier run.
    new_exec = {
        "planHash": current,
        # Which Runbook's plan this run executes: the proof a confirmed outcome needs to count for it.
        "runbook": rec.get("runbook"),
        "approval": approval_name,
        "approvals": approvals,
        # Which objects those names were: one deleted and made again under a name is another Approval.
        **({"approvalUids": counted_uids} if counted_uids else {}),
        "approvedBy": approved_by,
        "attempt": int(execution.get("attempt", 0)) + 1,
        "state": RUNNING,
        "steps": [],
        "rollbacks": [],
    }
    return ApprovalVerdict("Accepted", reason, new_exec)


# -- what the operator can verify ----------------------------------------------


def seal(key: bytes, uid: str, recommendation: Mapping[str, Any]) -> str:
    """The operator's seal on a recommendation: only a holder of `key` can make it."""
    message = "\0".join(
        [uid, str(recommendation.get("mode") or ""), str(recommendation.get("planHash") or ""),
         str(recommendation.get("runbook") or "")]
    )
    return hmac.new(key, message.encode(), hashlib.sha256).hexdigest()[:32]


def sealed(key: bytes, uid: str, recommendation: Mapping[str, Any]) -> bool:
    """Whether the recommendation is the one this operator wrote for this very incident."""
    return hmac.compare_digest(str(recommendation.get("seal") or ""), seal(key, uid, recommendation))


@dataclass(frozen=True)
class RunEvidence:
    """What the cluster shows about a run, besides status: the objects the operator can re-read."""

    incident: Mapping[str, Any]  # the Incident object (name, opener, resolution)
    approvals: Sequence[Mapping[str, Any]]  # every Approval that names this incident
    plan_hash: str | None  # the planHash recomputed from the Runbook and the incident's spec
    plan_risk: str | None  # the riskiest step of that plan
    started_at: datetime | None  # when this run's first Job was made (None: no Job yet)
    used_before: frozenset[str]  # Approvals that earlier runs' Jobs name


def verify_approvals(execution: Mapping[str, Any], evidence: RunEvidence, now: datetime,
                     settings: ApprovalSettings) -> str | None:
    """Why the execution cannot be traced to valid Approvals, or None when it can.

    Judged as of the run's first Job (or now, before it): the Approvals the
    execution names must exist, approve this incident's recomputed plan, not
    have been used by an earlier run, and together pass the approval rules.
    """
    incident_name = str((evidence.incident.get("metadata") or {}).get("name") or "")
    names = [str(n) for n in (execution.get("approvals") or [execution.get("approval")]) if n]
    if not names:
        return "status.execution names no Approval"
    if evidence.plan_hash is None or execution.get("planHash") != evidence.plan_hash:
        return f"status.execution approves plan {execution.get('planHash')}, the Runbook now gives {evidence.plan_hash}"
    by_name = {_approval_name(a): a for a in evidence.approvals}
    named = []
    for n in names:
        approval = by_name.get(n)
        spec = (approval or {}).get("spec") or {}
        if approval is None:
            return f"no Approval {n} approves incident {incident_name}"
        if spec.get("incident") != incident_name or spec.get("planHash") != evidence.plan_hash:
            return f"Approval {n} does not approve plan {evidence.plan_hash} of incident {incident_name}"
        if spec.get("decision") != "approve":
            return f"Approval {n} is not an approval"
        if n in evidence.used_before:
            return f"Approval {n} was used by an earlier run; a new run needs fresh approvals"
        named.append(approval)
    if evidence.started_at is None and resolved_by(evidence.incident) is not None:
        return "the incident is resolved; it accepts no approvals"
    at = evidence.started_at or now
    rejections = [a for a in evidence.approvals if (a.get("spec") or {}).get("decision") == "reject"]
    check = check_approval(named[0], opened_by(evidence.incident), evidence.plan_risk, [*named[1:], *rejections],
                           at, settings, parameters_chosen_by(evidence.incident))
    return None if check.accepted else check.reason


# -- what a step's Job is doing, and why ------------------------------------------

# Container waiting reasons that are a normal, short part of starting a pod.
_STARTING = frozenset({"ContainerCreating", "PodInitializing"})


@dataclass(frozen=True)
class JobProgress:
    state: JobState
    why: str  # a sentence for a person: what the Job waits for, or why it ended; "" when it succeeded


def _true(conditions: Sequence[Mapping[str, Any]], *types: str) -> Mapping[str, Any] | None:
    return next((c for c in conditions if c.get("type") in types and c.get("status") == "True"), None)


def _said(cond: Mapping[str, Any]) -> str:
    reason, message = str(cond.get("reason") or ""), str(cond.get("message") or "")
    return f"{reason}: {message}" if reason and message else reason or message


def _last_warning(events: Sequence[Mapping[str, Any]]) -> str:
    warnings = [e for e in events if e.get("type") == "Warning"]
    if not warnings:
        return ""
    last = max(warnings, key=lambda e: str(e.get("lastTimestamp") or e.get("eventTime") or ""))
    return f"{last.get('reason')}: {last.get('message')}"


def _pod_waits(pods: Sequence[Mapping[str, Any]]) -> str:
    """Why the Job's newest pod is not running yet, from its conditions and containers; "" when it runs."""
    if not pods:
        return ""
    pod = max(pods, key=lambda p: str((p.get("metadata") or {}).get("creationTimestamp") or ""))
    name = (pod.get("metadata") or {}).get("name")
    status = pod.get("status") or {}
    for cond in status.get("conditions") or []:
        if cond.get("type") == "PodScheduled" and cond.get("status") == "False":
            return f"pod {name} is not scheduled: {_said(cond)}"
    for cs in status.get("containerStatuses") or []:
        waiting = (cs.get("state") or {}).get("waiting") or {}
        if waiting.get("reason") and waiting["reason"] not in _STARTING:
            return f"pod {name} waits: {_said(waiting)}"
    if status.get("phase") == "Pending":
        return f"pod {name} is starting"
    return ""


# How long past its own deadline a Job may stay unfinished before the operator stops waiting for it:
# the Job controller enforces the deadline, and one that is down (or a Job it lost) would hold a run for ever.
DEADLINE_GRACE_SECONDS = 120


def _past_deadline(job: Mapping[str, Any], now: datetime | None) -> int | None:
    """The Job's deadline in seconds when `now` is past it by more than the grace, else None."""
    deadline = (job.get("spec") or {}).get("activeDeadlineSeconds")
    started = (job.get("status") or {}).get("startTime") or (job.get("metadata") or {}).get("creationTimestamp")
    begun = parse_time(started)
    if now is None or not deadline or begun is None:
        return None
    return int(deadline) if (now - begun).total_seconds() > int(deadline) + DEADLINE_GRACE_SECONDS else None


def job_times(job: Mapping[str, Any] | None) -> tuple[str | None, str | None]:
    """When a step's Job started and when it ended, as the Job's status says.

    A step ends when `job_progress` says so, which can be before the Job has a
    completionTime: the controller sets SuccessCriteriaMet or FailureTarget
    first and Complete or Failed only once the pods are gone (on a dead node,
    never). The time of that first condition is the step's end, so a step the
    Job controller ended always has one, and the next step's Job is never made
    before it. A step failed for overstaying its deadline has none: nothing
    ended its Job.
    """
    if not job:
        return None, None
    status = job.get("status") or {}
    ended = _true(status.get("conditions") or [], "SuccessCriteriaMet", "FailureTarget", "Complete", "Failed")
    finished = (ended or {}).get("lastTransitionTime") or status.get("completionTime")
    return status.get("startTime"), finished


def job_progress(job: Mapping[str, Any], pods: Sequence[Mapping[str, Any]] = (),
                 events: Sequence[Mapping[str, Any]] = (), now: datetime | None = None) -> JobProgress:
    """A step Job's state and why, from its conditions, its pods and the Events about it.

    A Job the controller has decided to fail (FailureTarget: its deadline or
    backoff limit) is failed at once, even while its pods are still being
    killed, which never ends when their node is gone. A Job that cannot make
    its pod (FailedCreate: a missing ServiceAccount, a quota) says so from its
    Events; the Job object itself shows nothing of it. With `now`, a Job still
    unfinished well past its own deadline is failed too: the controller that
    should have ended it is not doing so, and no wait is for ever.
    """
    status = job.get("status") or {}
    conditions = status.get("conditions") or []
    if _true(conditions, "Complete", "SuccessCriteriaMet"):
        return JobProgress("succeeded", "")
    ended = _true(conditions, "Failed", "FailureTarget")
    warning = _last_warning(events)
    if ended is not None:
        why = _said(ended) or "the Job failed"
        # The controller's own Warning about the failure (DeadlineExceeded) repeats `why`: the cause is before it.
        before = _last_warning([e for e in events if e.get("reason") != ended.get("reason")]) or _pod_waits(pods)
        return JobProgress("failed", f"{why}; before that: {before}" if before and before not in why else why)
    overdue = _past_deadline(job, now)
    if overdue is not None:
        last = warning or _pod_waits(pods)
        return JobProgress("failed", f"the Job did not end within its deadline of {overdue}s and "
                           f"{DEADLINE_GRACE_SECONDS}s more; the Job controller did not end it"
                           + (f"; before that: {last}" if last else ""))
    if _true(conditions, "Suspended"):
        return JobProgress("running", "waiting: the Job is suspended")
    if int(status.get("active") or 0) == 0 and warning:
        return JobProgress("running", f"waiting: the Job cannot start its pod: {warning}")
    waits = _pod_waits(pods)
    if waits:
        return JobProgress("running", f"waiting: {waits}")
    if int(status.get("active") or 0) == 0 and not pods:
        return JobProgress("running", "waiting for the Job controller to start its pod")
    return JobProgress("running", "running")
