"""Where an Incident is, at a glance: status.phase and the summary Ready condition.

One pure function of the spec and the status the other writers keep (the
recommendation, the dry-run, the execution, the memory record), so the phase
never disagrees with the fields it sums up and a restarted operator computes
the same one. `Ready` is True only when the incident needs nothing from anyone;
otherwise its reason and message say what it waits for, or who must act.

| phase            | when                                                              |
|------------------|-------------------------------------------------------------------|
| (none)           | not triaged yet, or the spec cannot be read                       |
| Triaged          | novel or advisory: a person decides; or the plan was rejected     |
| DryRun           | the plan's read-only dry-run Jobs are running                     |
| AwaitingApproval | an actionable plan waits for its Approvals                        |
| Running          | an approved plan's steps (or rollbacks) are running               |
| Succeeded        | every step succeeded; the outcome is not confirmed yet            |
| RolledBack       | a step failed and the completed steps were undone                 |
| Failed           | a step, a rollback or a dry-run failed: a person takes over       |
| Resolved         | an outcome is recorded in spec.resolution (history included)      |
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from recall_operator.domain.consolidation import current_outcome

TRIAGED = "Triaged"
AWAITING_APPROVAL = "AwaitingApproval"
DRY_RUN = "DryRun"
RUNNING = "Running"
ROLLED_BACK = "RolledBack"
SUCCEEDED = "Succeeded"
FAILED = "Failed"
RESOLVED = "Resolved"
PHASES = (TRIAGED, AWAITING_APPROVAL, DRY_RUN, RUNNING, ROLLED_BACK, SUCCEEDED, FAILED, RESOLVED)
# Why memory did not take an outcome: another incident holds its name, or memory refused what it says.
REFUSALS = ("NameTaken", "MemoryRefused")


@dataclass(frozen=True)
class Lifecycle:
    phase: str | None  # None: nothing to say yet (not triaged)
    ready: bool
    reason: str  # CamelCase, for the Ready condition
    message: str


def _condition(status: Mapping[str, Any], type_: str) -> Mapping[str, Any]:
    return next((c for c in status.get("conditions") or [] if c.get("type") == type_), {})


def _resolved(spec: Mapping[str, Any], status: Mapping[str, Any]) -> Lifecycle:
    memory = status.get("memory") or {}
    who = (current_outcome(spec) or {}).get("confirmedBy")
    by = f" (confirmed by {who})" if who else ""
    triaged = _condition(status, "Triaged")
    if triaged.get("status") == "False":
        return Lifecycle(RESOLVED, False, str(triaged.get("reason") or "InvalidSpec"), str(triaged.get("message") or ""))
    said = _condition(status, "Resolved")
    if memory.get("outbox") == "pending" and said.get("reason") == "DeletionWaitsForMemory":
        return Lifecycle(RESOLVED, False, "DeletionWaitsForMemory", str(said.get("message") or ""))
    if memory.get("outbox") == "pending":
        return Lifecycle(RESOLVED, False, "OutboxPending",
                         f"outcome recorded{by}; writing it into memory is retried: {memory.get('lastError') or 'memory unavailable'}")
    if memory.get("waiting"):
        return Lifecycle(RESOLVED, False, "RunInProgress",
                         f"outcome recorded{by}; written into memory when the operator's run ends: {memory['waiting']}")
    if memory.get("refused") is not None:
        # Why memory did not take it is in the Resolved condition's reason (kube.status.refused_status).
        reason = said.get("reason") if said.get("reason") in REFUSALS else "NameTaken"
        return Lifecycle(RESOLVED, False, str(reason), f"outcome recorded{by}; not written into memory: {memory['refused']}")
    if memory.get("consolidated") and memory.get("consolidated") == memory.get("key"):
        return Lifecycle(RESOLVED, True, "Resolved", f"outcome recorded{by} and written into memory")
    return Lifecycle(RESOLVED, False, "Consolidating", f"outcome recorded{by}; the operator is writing it into memory")


def _steps_started(execution: Mapping[str, Any]) -> bool:
    return any(s.get("job") for s in [*(execution.get("steps") or []), *(execution.get("rollbacks") or [])])


def _dry_run_why(dry: Mapping[str, Any]) -> str:
    if dry.get("reason"):
        return str(dry["reason"])
    waiting: Sequence[Mapping[str, Any]] = [s for s in dry.get("steps") or [] if s.get("result") == "running"]
    if waiting:
        return "; ".join(f"dry-run of {s.get('name')}: {s.get('reason') or 'running'}" for s in waiting)
    return "the dry-run Jobs are starting"


def lifecycle(spec: Mapping[str, Any], status: Mapping[str, Any]) -> Lifecycle:
    """The phase and the Ready condition an Incident with this spec and status has."""
    if current_outcome(spec) is not None:
        return _resolved(spec, status)
    rec = status.get("recommendation") or {}
    triaged = _condition(status, "Triaged")
    if triaged.get("status") == "False":
        return Lifecycle(None, False, str(triaged.get("reason") or "NotTriaged"), str(triaged.get("message") or ""))
    if not rec.get("mode"):
        return Lifecycle(None, False, "Triaging", "waiting for the operator's first recommendation")
    plan = rec.get("planHash")
    execution = status.get("execution") or {}
    dry = status.get("dryRun") or {}
    state = execution.get("state")
    reason = str(execution.get("reason") or "")
    current_run = bool(execution) and (execution.get("planHash") == plan or state in (None, "Running"))
    if current_run:
        if state in (None, "Running"):
            if not _steps_started(execution) and dry.get("planHash") == plan and not dry.get("done"):
                return Lifecycle(DRY_RUN, False, "DryRunRunning", reason or _dry_run_why(dry))
            return Lifecycle(RUNNING, False, "StepsRunning", reason or "the approved plan is running")
        if state == "Succeeded":
            return Lifecycle(SUCCEEDED, False, "OutcomeUnconfirmed",
                             f"{reason or 'every step succeeded'}; confirm the outcome (spec.resolution) so memory learns it")
        if state == "RolledBack":
            return Lifecycle(ROLLED_BACK, False, "NeedsPerson", reason or "a step failed; completed steps rolled back")
        if state == "Failed":
            return Lifecycle(FAILED, False, "NeedsPerson", reason or "the run failed")
        if state == "Stopped":
            return Lifecycle(TRIAGED, False, "PlanRejected", reason or "the plan was rejected; a person decides")
    if rec.get("mode") == "actionable" and plan:
        if dry.get("planHash") == plan and not dry.get("done"):
            return Lifecycle(DRY_RUN, False, "DryRunRunning", _dry_run_why(dry))
        if dry.get("planHash") == plan and dry.get("done") and not dry.get("ok"):
            failed = [s.get("name") for s in dry.get("steps") or [] if s.get("result") == "failed"]
            return Lifecycle(FAILED, False, "DryRunFailed", str(dry.get("reason") or (
                f"the dry-run of {', '.join(map(str, failed)) or 'a step'} failed; the plan is not run")))
        runbook = f" may run runbook {rec.get('runbook')}" if rec.get("runbook") else " may run it"
        return Lifecycle(AWAITING_APPROVAL, False, "AwaitingApproval", f"an Approval naming planHash {plan}{runbook}")
    return Lifecycle(TRIAGED, False, "NeedsDecision",
                     f"mode {rec.get('mode')}: nothing runs by itself; a person decides what to do")
