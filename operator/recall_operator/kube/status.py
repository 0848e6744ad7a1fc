"""Pure builders of the status the operator writes: from an Assessment, a Plan and DNA to dicts.

The handlers only decide *when* to write; what is written is decided here, so
that it can be checked without a cluster. Nothing in this module reads the
clock, the environment or the API: `now` and the current status come in.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from recall_operator.domain.conditions import set_condition
from recall_operator.domain.consolidation import DELETION_WAIT, RUN_WAIT, current_outcome, run_in_progress, win_rate
from recall_operator.domain.dna import Dimension
from recall_operator.domain.lifecycle import lifecycle
from recall_operator.domain.models import EpisodicMemory, RunbookRecord
from recall_operator.domain.plan import Plan
from recall_operator.domain.recommend import Assessment, Match, Recommendation

# Condition types, as `kubectl describe` shows them.
TRIAGED = "Triaged"
AWAITING_APPROVAL = "AwaitingApproval"
MEMORY_AVAILABLE = "MemoryAvailable"
RESOLVED = "Resolved"
EXECUTING = "Executing"
READY = "Ready"

# One field manager per writer of Incident status (server-side apply). Each
# sends, on every write, all the fields it owns and only those: what it leaves
# out is removed, what the others own is never touched.
TRIAGE_MANAGER = "recall-triage"
TRIAGE_KEYS = ("observedGeneration", "dna", "matches", "recommendation", "memory")
TRIAGE_CONDITIONS = (TRIAGED, AWAITING_APPROVAL, MEMORY_AVAILABLE, RESOLVED)
EXECUTION_MANAGER = "recall-execution"
EXECUTION_KEYS = ("dryRun", "execution")
EXECUTION_CONDITIONS = (EXECUTING,)
LIFECYCLE_MANAGER = "recall-lifecycle"
LIFECYCLE_KEYS = ("phase",)
LIFECYCLE_CONDITIONS = (READY,)
# Phase and Ready have two writers and one decider. domain.lifecycle decides
# them from the spec and the rest of status. Triage sends its answer for the
# status it is writing with every write of its own (lifecycle_fields), so a new
# Incident's first answer and its phase are one write, not two; the lifecycle
# writer (handlers.lifecycle) sends them when anything else moved them (the
# execution, a spec edit, a person). Every write of either is guarded by the
# resourceVersion it computed from, so neither can put a phase that disagrees
# with the status it lands on. How the API server shares the fields: a writer
# that sends the value another already holds becomes a co-owner; a different
# value, forced, moves the field to the writer that sent it. A field is removed
# only when every owner stops sending it, and triage never stops while the
# lifecycle gives a phase, so neither writer can remove the other's phase.

# How many incidents a Runbook remembers having counted: a consolidation that
# is retried after a crash finds itself here and is not counted twice. A retry
# comes within minutes, so a short window is enough and status stays small.
COUNTED_WINDOW = 200


def prune_none(value: Any) -> Any:
    """The value as the API server keeps it: a null is no value (an applied field left out is removed)."""
    if isinstance(value, Mapping):
        return {k: prune_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [prune_none(v) for v in value]
    return value


def owned_status(current: Mapping[str, Any], changes: Mapping[str, Any], keys: Sequence[str],
                 condition_types: Sequence[str]) -> dict[str, Any]:
    """Everything one writer owns in status: its keys and its conditions, `changes` over `current`.

    What a server-side apply of this writer must send so that the unchanged
    fields it owns stay: a key of `keys` missing here would be removed.
    Conditions of other types are left out (their writers own them); null
    values are left out too (a field this writer no longer sends is removed).
    """
    out: dict[str, Any] = {}
    for key in keys:
        value = changes[key] if key in changes else current.get(key)
        if value is not None:
            out[key] = prune_none(value)
    conditions = changes["conditions"] if "conditions" in changes else current.get("conditions") or []
    own = [prune_none(c) for c in conditions if c.get("type") in condition_types]
    if own:
        out["conditions"] = own
    return out


def lifecycle_fields(spec: Mapping[str, Any], status: Mapping[str, Any], generation: int,
                     now: datetime) -> dict[str, Any]:
    """phase and the Ready condition as domain.lifecycle gives them for `status`, in an apply's shape.

    A phase of None (not triaged, an unreadable spec) is left out, which removes
    one this writer sent before; Ready keeps its transition time while its
    status stays the same.
    """
    want = lifecycle(spec, status)
    conditions, _changed = set_condition(status.get("conditions") or [], READY, want.ready, want.reason,
                                         want.message, generation, now)
    return owned_status({}, {"phase": want.phase, "conditions": conditions}, LIFECYCLE_KEYS, LIFECYCLE_CONDITIONS)


def with_lifecycle(body: Mapping[str, Any], spec: Mapping[str, Any], status: Mapping[str, Any], generation: int,
                   now: datetime) -> dict[str, Any]:
    """A writer's apply `body` plus phase and Ready as they follow from `status`, the status that apply leaves."""
    fields = lifecycle_fields(spec, status, generation, now)
    out = {**body, **{k: v for k, v in fields.items() if k != "conditions"}}
    out["conditions"] = [*(body.get("conditions") or []), *fields["conditions"]]
    return out


def leftovers(sent: Mapping[str, Any], held: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """A merge patch removing what status still holds under `keys` that the writer did not send.

    After an apply, the API server keeps a field the writer left out when some
    other manager owns it too: an older operator's merge patches, or a person's.
    Under keys a writer alone answers for (an old run's `stopped`, a plan's
    former parameter) that would be stale data shown as current; this says
    which to delete. Maps are compared key by key; lists and values are the
    writer's whole. Empty when nothing is left over.
    """
    return _unsent({k: sent[k] for k in keys if k in sent}, {k: held[k] for k in keys if k in held})


def _unsent(sent: Mapping[str, Any], held: Mapping[str, Any]) -> dict[str, Any]:
    # Not a closure inside leftovers: one that calls itself is a reference
    # cycle, left for the garbage collector after every status write.
    out: dict[str, Any] = {}
    for k, v in held.items():
        if k not in sent:
            out[k] = None
        elif isinstance(v, Mapping) and isinstance(sent[k], Mapping):
            inner = _unsent(sent[k], v)
            if inner:
                out[k] = inner
    return out


def dna_status(dimensions: Sequence[Dimension]) -> dict[str, dict[str, Any]]:
    return {d.name: {"value": round(d.value, 3), "reason": d.reason} for d in dimensions}


def match_status(match: Match) -> dict[str, Any]:
    stale = match.stale
    return {
        "incident": match.incident,
        "similarity": match.similarity,
        "recognition": match.recognition,
        "breakdown": dict(match.breakdown),
        "outcome": match.outcome,
        "actions": [dict(a) for a in match.actions],
        "runbook": match.runbook,
        "stale": None
        if stale is None
        else {
            "migration": stale.migration,
            "oldArch": stale.old_arch,
            "newArch": stale.new_arch,
            "deduction": stale.deduction,
            "why": stale.why,
        },
        "contradiction": match.contradiction,
        "repageOf": match.repage_of,
        "ruledOut": list(match.ruled_out) or None,
        "sharedChange": list(match.shared_change) or None,
        "actionsLeftOut": match.actions_left_out or None,
    }


def recommendation_status(rec: Recommendation, plan: Plan | None) -> dict[str, Any]:
    # Every key is always given (null when empty, left out when applied), so that a
    # new recommendation removes what the old one had and nothing lingers.
    return {
        "mode": rec.mode,
        "similarity": rec.similarity,
        "actionability": rec.actionability,
        "runbook": rec.runbook,
        "source": rec.source,
        "steps": [s.as_status() for s in plan.steps] if plan else [],
        "readOnly": plan.read_only if plan else None,
        "parameters": dict(plan.parameters) if plan else None,
        "planHash": plan.plan_hash if plan else None,
        "warnings": list(rec.warnings),
        "evidence": list(rec.evidence),
        "reasons": list(rec.reasons),
    }


@dataclass
class StatusChange:
    """The status keys that change (applied with the rest of what their writer owns), and the
    condition transitions worth an Event."""

    patch: dict[str, Any] = field(default_factory=dict)
    transitions: list[dict[str, Any]] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.patch


def _conditions(
    current: Sequence[dict[str, Any]],
    wanted: Iterable[tuple[str, bool, str, str]],
    generation: int,
    now: datetime,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    conditions = [dict(c) for c in current]
    transitions: list[dict[str, Any]] = []
    for type_, status, reason, message in wanted:
        conditions, changed = set_condition(conditions, type_, status, reason, message, generation, now)
        if changed:
            transitions.append(next(c for c in conditions if c["type"] == type_))
    return conditions, transitions


def only_changes(current: Mapping[str, Any], desired: Mapping[str, Any]) -> dict[str, Any]:
    """The top-level status keys whose desired value differs from what the server holds."""
    return {k: v for k, v in desired.items() if prune_none(v) != prune_none(current.get(k))}


def triage_status(
    current: Mapping[str, Any],
    assessment: Assessment,
    plan: Plan | None,
    dna: Sequence[Dimension],
    generation: int,
    now: datetime,
    memory_error: str | None = None,
) -> StatusChange:
    """The status of an open incident after triage; empty when the server already holds it."""
    rec = assessment.recommendation
    actionable = rec.mode == "actionable" and plan is not None
    wanted = [
        (TRIAGED, True, rec.mode.capitalize(), _triage_message(rec)),
        (
            AWAITING_APPROVAL,
            actionable,
            "PlanReady" if actionable else "NotActionable",
            f"an Approval naming planHash {plan.plan_hash} may run runbook {rec.runbook}"
            if actionable and plan
            else f"mode {rec.mode}: nothing to approve; a person decides",
        ),
        (
            MEMORY_AVAILABLE,
            memory_error is None,
            "Recalled" if memory_error is None else "MemoryUnavailable",
            f"recalled {len(assessment.matches)} precedents from memory"
            if memory_error is None
            else f"memory could not be reached, recommended without it: {memory_error}",
        ),
    ]
    conditions, transitions = _conditions(current.get("conditions") or [], wanted, generation, now)
    desired = {
        "dna": dna_status(dna),
        "matches": [match_status(m) for m in assessment.matches],
        "recommendation": recommendation_status(rec, plan),
        "observedGeneration": generation,
        "conditions": conditions,
    }
    return StatusChange(only_changes(current, desired), transitions)


def invalid_status(current: Mapping[str, Any], generation: int, now: datetime, why: str) -> StatusChange:
    """An incident the operator cannot read: say so in a condition instead of retrying forever."""
    conditions, transitions = _conditions(
        current.get("conditions") or [], [(TRIAGED, False, "InvalidSpec", why)], generation, now
    )
    desired = {"observedGeneration": generation, "conditions": conditions}
    return StatusChange(only_changes(current, desired), transitions)


def _triage_message(rec: Recommendation) -> str:
    what = f"runbook {rec.runbook}" if rec.runbook else "no runbook"
    return f"{rec.mode}: similarity {rec.similarity}, actionability {rec.actionability}, {what}"


def resolution_key(resolution: Mapping[str, Any]) -> str:
    """A digest of a recorded outcome: consolidation happens once per distinct outcome."""
    canonical = json.dumps(prune_none(resolution), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def outbox_status(current: Mapping[str, Any], key: str, generation: int, now: datetime, error: str,
                  deletion_waits_until: datetime | None = None) -> StatusChange:
    """The outcome is confirmed but memory is down: keep it pending, durably, in status.

    With `deletion_waits_until`, the Incident is being deleted and OUTCOME_FINALIZER holds it until then.
    """
    reason, pending = "OutboxPending", "outcome recorded; writing it into memory is retried until it lands"
    if deletion_waits_until is not None:  # a reason of its own, so that the change is an Event
        reason = "DeletionWaitsForMemory"
        pending += (f"; the Incident's deletion waits for it until {deletion_waits_until:%Y-%m-%d %H:%M} UTC, "
                    "and the outcome is lost if memory is still unreachable then")
    conditions, transitions = _conditions(
        current.get("conditions") or [],
        [
            (MEMORY_AVAILABLE, False, "MemoryUnavailable", f"outcome waits in the outbox: {error}"),
            (RESOLVED, False, reason, pending),
        ],
        generation,
        now,
    )
    said: Mapping[str, Any] = next((c for c in current.get("conditions") or [] if c.get("type") == RESOLVED), {})
    if deletion_waits_until is not None and said.get("reason") != reason and not transitions:
        # Not a change of status, yet worth an Event: whoever deleted it learns why it stays.
        transitions = [c for c in conditions if c["type"] == RESOLVED]
    desired = {
        "memory": {"outbox": "pending", "key": key, "lastError": error, "consolidated": None, "waiting": None,
                   "waitingSince": None, "counted": _counted(current)},
        "conditions": conditions,
    }
    return StatusChange(only_changes(current, desired), transitions)


def consolidated_status(
    current: Mapping[str, Any], key: str, backend: str, runbooks: Sequence[str], generation: int, now: datetime,
    unsupported: Sequence[str] = (), withdrawn: str | None = None,
) -> StatusChange:
    """`withdrawn`: who took the incident out of recall and why (consolidation.withdrawal)."""
    kept = f"; {withdrawn}: memory offers it as nobody's precedent" if withdrawn else ""
    conditions, transitions = _conditions(
        current.get("conditions") or [],
        [
            (MEMORY_AVAILABLE, True, "Remembered", f"outcome written into {backend} memory{kept}"),
            (
                RESOLVED,
                True,
                "Withdrawn" if withdrawn else "Consolidated",
                "outcome written into memory"
                + (f"; counted for runbook {', '.join(runbooks)}" if runbooks else "; no runbook to count") + kept,
            ),
            (AWAITING_APPROVAL, False, "Resolved", "the incident is resolved"),
        ],
        generation,
        now,
    )
    desired = {
        "memory": {
            "outbox": None,
            "refused": None,
            "key": key,
            "consolidated": key,
            # Its runbooks are counted now, or were by an earlier outcome: kept by every later write
            # of `memory` (a correction that waits for memory must not be counted again).
            "counted": True,
            "backend": backend,
            "writtenAt": now.isoformat(),
            "lastError": None,
            "waiting": None,
            "waitingSince": None,
            "runbooks": list(runbooks),
            # What the outcome's words claim that nothing recorded says (domain.grounding), for whoever reads it
            "unsupported": list(unsupported) or None,
        },
        "conditions": conditions,
    }
    return StatusChange(only_changes(current, desired), transitions)


def run_wait_status(current: Mapping[str, Any], key: str, generation: int, now: datetime, since: datetime,
                    waiting: str) -> StatusChange:
    """The outcome was recorded during the operator's own run: written into memory once the run ends.

    `since` is when it began to wait (`waiting_since`, else now); it waits RUN_WAIT at most.
    """
    conditions, transitions = _conditions(
        current.get("conditions") or [],
        [(RESOLVED, False, "RunInProgress", f"outcome recorded; written into memory when the operator's run ends, "
                                            f"{since + RUN_WAIT:%Y-%m-%d %H:%M} UTC at the latest: {waiting}")],
        generation, now,
    )
    desired = {
        "memory": {"outbox": None, "key": key, "lastError": None, "consolidated": None, "refused": None,
                   "waiting": waiting, "waitingSince": since.isoformat(), "counted": _counted(current)},
        "conditions": conditions,
    }
    return StatusChange(only_changes(current, desired), transitions)


def waits_for_run(status: Mapping[str, Any], key: str, now: datetime) -> tuple[str, datetime] | None:
    """What the outcome under `key` waits for, and since when; None: write it into memory now.

    It waits while the operator's own run goes on (consolidation.run_in_progress),
    RUN_WAIT at most from when it began to wait.
    """
    running = run_in_progress(status)
    if running is None:
        return None
    since = waiting_since(status, key) or now
    return (running, since) if now - since < RUN_WAIT else None


def waiting_since(status: Mapping[str, Any], key: str) -> datetime | None:
    """Since when the outcome under `key` has waited for the operator's run (`run_wait_status`); None: it has not."""
    memory = status.get("memory") or {}
    if memory.get("key") != key or not memory.get("waiting") or not memory.get("waitingSince"):
        return None
    try:
        return datetime.fromisoformat(str(memory["waitingSince"]))
    except ValueError:
        return None


# The finalizer an Incident carries while its recorded outcome is not yet in memory
# (waiting in the outbox, or for the operator's run): the outcome is held nowhere
# else, and deleting the Incident then would lose it. The operator adds it when it
# sees an outcome wait; where the recall-outcome-hold admission policy is installed,
# the API server adds it to the request that records the outcome (so a deletion while
# the operator is down waits too), and the operator takes it off once memory has it.
OUTCOME_FINALIZER = "recall.dev/outcome"


def deletion_wait_began(requested: datetime | None, operator_started: datetime | None) -> datetime | None:
    """When the operator began to wait for memory on behalf of a deletion: its request, or the
    operator's start when that came later. A deletion requested while the operator was down (held by
    the recall-outcome-hold admission policy) waits its whole DELETION_WAIT once the operator is back,
    instead of being given up at the first failed write."""
    if requested is None or operator_started is None:
        return requested
    return max(requested, operator_started)


def holds_deletion(spec: Mapping[str, Any], status: Mapping[str, Any], deletion_requested: datetime | None,
                   now: datetime) -> bool:
    """Whether the Incident keeps OUTCOME_FINALIZER: its outcome waits (`outcome_waits`), and its
    deletion, if one was requested, has waited less than DELETION_WAIT."""
    if not outcome_waits(spec, status):
        return False
    return deletion_requested is None or now - deletion_requested < DELETION_WAIT


def outcome_after_deletion(spec: Mapping[str, Any], status: Mapping[str, Any]) -> tuple[str, bool]:
    """What became of a deleted Incident's outcome, by the status its last evaluation left: what to
    say of it, and whether it is lost (it waited for memory, which never took it)."""
    outcome = current_outcome(spec)
    if outcome is None:
        return "it had no outcome", False
    memory = status.get("memory") or {}
    key = resolution_key(outcome)
    if memory.get("consolidated") == key:
        return "its outcome was written into memory", False
    if memory.get("key") == key and memory.get("refused") is not None:
        return f"its outcome was not written into memory: {memory['refused']}", False
    if outcome_waits(spec, status):
        return (f"deleted before its outcome could be written into memory; the outcome is lost "
                f"({memory.get('lastError') or memory.get('waiting') or 'no error recorded'})"), True
    unread = next((c for c in status.get("conditions") or [] if c.get("type") == TRIAGED and c.get("status") == "False"),
                  None)
    why = (unread or {}).get("message") or "the operator had not taken it"
    return f"its outcome was never one memory could take: {why}", False


def outcome_waits(spec: Mapping[str, Any], status: Mapping[str, Any]) -> bool:
    """The Incident's current outcome was taken by the operator and waits to be written into memory:
    in the outbox (`outbox_status`) or for the operator's run (`run_wait_status`)."""
    outcome = current_outcome(spec)
    memory = status.get("memory") or {}
    if outcome is None or memory.get("key") != resolution_key(outcome):
        return False
    return memory.get("outbox") == "pending" or bool(memory.get("waiting"))


def is_settled(status: Mapping[str, Any], key: str) -> bool:
    """The outcome under `key` needs nothing more: written into memory, or refused for good (`refused_status`)."""
    memory = status.get("memory") or {}
    return memory.get("consolidated") == key or (memory.get("refused") is not None and memory.get("key") == key)


def refused_status(current: Mapping[str, Any], key: str, generation: int, now: datetime, why: str,
                   reason: str = "NameTaken") -> StatusChange:
    """The outcome is recorded, and memory must not take it: said, not retried.

    `reason`: NameTaken (consolidation.name_taken: memory holds another
    incident under the name) or MemoryRefused (memory answered that it will not
    keep this outcome as written; a correction is a new outcome and is tried).
    """
    conditions, transitions = _conditions(
        current.get("conditions") or [], [(RESOLVED, False, reason, why)], generation, now
    )
    desired = {
        "memory": {"outbox": None, "key": key, "lastError": None, "consolidated": None, "refused": why,
                   "counted": _counted(current),
                   "waiting": None, "waitingSince": None},
        "conditions": conditions,
    }
    return StatusChange(only_changes(current, desired), transitions)


def counted_before(status: Mapping[str, Any]) -> bool:
    """Whether an earlier outcome of this incident was consolidated: its runbooks were counted then.

    A correction is written into memory again, but counted on no Runbook:
    `runbook_counts_status` remembers the incidents it counted only in a window
    (COUNTED_WINDOW), so a correction of an incident older than the window
    would have counted it a second time.
    """
    return bool(_counted(status) or (status.get("memory") or {}).get("consolidated"))


def _counted(status: Mapping[str, Any]) -> bool | None:
    """Whether an outcome of this incident was ever counted on its Runbooks (None: never, so not sent)."""
    return True if (status.get("memory") or {}).get("counted") else None


def runbook_counts_status(
    current: Mapping[str, Any], incident: str, outcome: str, now: datetime, digest: str | None = None
) -> dict[str, Any] | None:
    """Runbook.status after counting one more outcome; None when this incident was counted already.

    `digest` is what the runbook's steps are now (plan.steps_digest). A record
    counted for other steps restarts from this outcome; the old one is kept
    beside it (`earlierRecord`) for people, and counts for nothing.
    """
    counted = list(current.get("countedIncidents") or [])
    if incident in counted:
        return None
    restart = not record_holds(current, digest)
    base: Mapping[str, Any] = {} if restart else current
    record = RunbookRecord(
        times_executed=int(base.get("timesExecuted") or 0) + 1,
        times_succeeded=int(base.get("timesSucceeded") or 0) + (outcome == "succeeded"),
    )
    new = {
        "timesExecuted": record.times_executed,
        "timesSucceeded": record.times_succeeded,
        "timesFailed": int(base.get("timesFailed") or 0) + (outcome == "failed"),
        "winRate": round(win_rate(record), 3),
        "lastOutcome": {"result": outcome, "incident": incident, "at": now.isoformat()},
        "countedIncidents": ([] if restart else counted)[-COUNTED_WINDOW + 1:] + [incident],
    }
    if digest is not None:
        new["stepsDigest"] = digest
    if restart:
        new["earlierRecord"] = {k: current.get(k) for k in ("timesExecuted", "timesSucceeded", "timesFailed",
                                                              "stepsDigest")} | {"until": now.isoformat()}
    return new


def record_holds(status: Mapping[str, Any], digest: str | None) -> bool:
    """Whether Runbook.status's record was counted for the steps the runbook has now (`digest`).

    A record from before digests were kept, or a digest not known, is taken as it is.
    """
    held = status.get("stepsDigest")
    return held is None or digest is None or held == digest


def runbook_status_from_memory(
    current: Mapping[str, Any], history: Sequence[tuple[EpisodicMemory, str]], now: datetime,
    digest: str | None = None,
) -> dict[str, Any] | None:
    """Runbook.status once memory was asked for its record (`consolidation.runbook_history`); None: asked before.

    A Runbook object made afresh (pruned and re-created by GitOps, renamed
    back, applied to a new cluster that shares the memory) starts with no
    record while memory still holds every outcome it took part in. Memory's
    count replaces the status only when it takes nothing away: the status has
    counted no incident memory lacks (and no more than it can name), and
    memory knows more. Either way `countedFromMemory` records that memory was
    asked, so it is asked once per object, not on every start.
    """
    if current.get("countedFromMemory"):
        return None
    asked = {"outcomes": len(history), "at": now.isoformat()}
    counted = [str(i) for i in current.get("countedIncidents") or []]
    executed = int(current.get("timesExecuted") or 0)
    # Named as the outcome's own count names them (`runbook_counts_status`): namespace/incident.
    incidents = [f"{m.namespace}/{m.incident}" for m, _ in history]
    if executed > len(counted) or not set(counted) <= set(incidents) or executed >= len(incidents):
        return {"countedFromMemory": {**asked, "counted": False}}
    results = [result for _, result in history]
    record = RunbookRecord(times_executed=len(results), times_succeeded=results.count("succeeded"))
    last, last_result = history[-1]
    return {
        "timesExecuted": record.times_executed,
        "timesSucceeded": record.times_succeeded,
        "timesFailed": results.count("failed"),
        "winRate": round(win_rate(record), 3),
        "lastOutcome": {"result": last_result, "incident": incidents[-1], "at": last.resolved_at.isoformat()},
        "countedIncidents": incidents[-COUNTED_WINDOW:],
        "countedFromMemory": {**asked, "counted": True},
        **({"stepsDigest": digest} if digest is not None else {}),
    }


def record_from_status(status: Mapping[str, Any] | None, digest: str | None = None) -> RunbookRecord:
    """The track record Runbook.status holds; none when it was counted for other steps than `digest`."""
    status = status or {}
    if not record_holds(status, digest):
        return RunbookRecord()
    return RunbookRecord(
        times_executed=int(status.get("timesExecuted") or 0),
        times_succeeded=int(status.get("timesSucceeded") or 0),
    )
