"""What a confirmed outcome becomes: a memory for a cold reader and runbook counts.

A memory is read months later by someone who was not there, so every field is
spelled out, "not yet resolved" included, and failed actions are kept: a fix
that did not work is as much memory as one that did.

A person's word and the operator's record are kept apart (`as_remembered`): a
success claimed for a runbook that this operator did not run for that
incident, or a failure claimed where it ran none, is remembered as a
reported action. It is shown as such and
moves no win rate (`record_outcome`: a Runbook's record is what the operator
saw); a reported success backs no runbook as a precedent, and a reported
failure still holds the runbook back from acting under the same conditions
(believing it there is the safe side). Counted, a claimed failure let anyone
who may record outcomes push any runbook's win rate down on incidents where
nothing ran. A success
confirmed only by the person who opened the incident and approved the run
is one voice, not two: it too is remembered as reported. A run of the
operator's own that failed is not a person's to overturn: a success claimed
for it is reported, and when the outcome does not mention the failure,
memory keeps it as an action the operator observed. An outcome recorded by
the person who opened the incident, where the operator ran nothing, is that
one person's word (`one_voice`): it never outweighs what the operator saw.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from recall_operator.domain.approval_rules import BRIDGE_OPENER
from recall_operator.domain.models import Action, ActionResult, EpisodicMemory, Resolution, RunbookRecord

NOT_RECORDED = "not recorded"
NOT_YET_RESOLVED = "not yet resolved"
# Either the operator never ran it for this incident, or its run failed (an observed action says so).
REPORTED_NOTE = " (reported by a person; not what the operator saw of this incident)"
# Execution states in which the operator's own Jobs ran at least part of a plan.
RAN_STATES = frozenset({"Succeeded", "Failed", "RolledBack"})

# How long an outcome recorded during the operator's own run waits for that run to end
# (`run_in_progress`). Each step's Job has a deadline the operator enforces, so a run
# ends well before this; the bound is there should it not, and then memory takes the
# outcome as it stands.
RUN_WAIT = timedelta(hours=2)

# How long the deletion of an Incident whose outcome is not yet in memory waits for
# memory to take it. The outcome is held nowhere else, so deleting the Incident would
# lose it; the wait is bounded so that a long outage never keeps a namespace from going.
DELETION_WAIT = timedelta(minutes=15)

# A runbook's win rate is smoothed with a prior of this many pseudo-runs at
# this rate, so that one success in one run reads as promising, not as 100%.
WIN_RATE_PRIOR_RUNS = 2
WIN_RATE_PRIOR = 0.5


def memory_text(memory: EpisodicMemory) -> str:
    """The memory as a cold reader needs it: fixed fields, in a fixed order."""
    spec, res = memory.spec, memory.resolution
    deployment = spec.deployment
    lines = [
        f"Incident: {memory.incident}",
        f"Service: {spec.service}",
        f"Severity: {spec.severity}",
        f"Title: {spec.title}",
        f"Started: {spec.started_at.isoformat() if spec.started_at else NOT_RECORDED}",
        f"What was seen: {spec.description or NOT_RECORDED}",
        f"Symptoms: {', '.join(spec.symptoms) or NOT_RECORDED}",
        f"Error signatures: {' | '.join(spec.error_signatures) or NOT_RECORDED}",
        "Recent change: "
        + (
            f"{deployment.id or 'unnamed deploy'} ({deployment.revision or 'revision not recorded'}), "
            f"{_minutes(deployment.minutes_since_deploy)} before the page"
            if deployment
            else "none recorded"
        ),
        f"Root cause: {res.root_cause or NOT_YET_RESOLVED}",
        f"What happened and what fixed it: {res.summary or NOT_YET_RESOLVED}",
        f"Runbook that resolved it: {res.runbook or 'none (resolved by hand or not at all)'}",
        *([f"Runbook reported, not seen to succeed by the operator: {res.reported_runbook}"] if res.reported_runbook else []),
        "Actions, in order, with their results:",
        *([f"- {a.action}: {a.result}{REPORTED_NOTE if a.reported else ''}" for a in res.actions]
          or ["- none recorded"]),
        f"Confirmed by: {res.confirmed_by or NOT_RECORDED}",
        *([f"Not in the record, the writer's word alone: {'; '.join(memory.unsupported)}"] if memory.unsupported else []),
    ]
    related = related_incident(res)
    if related:
        lines.append(f"Related incident: {related}")
    return "\n".join(lines)


def _minutes(value: float | None) -> str:
    return NOT_RECORDED if value is None else f"{value:g} minutes"


def related_incident(resolution: Resolution) -> str | None:
    """The incident this outcome says it repeats ("re-page of inc-0008"), if any."""
    from recall_operator.domain.text import incident_names

    names = incident_names(f"{resolution.summary} {resolution.root_cause}")
    return names[0] if names else None


def final_outcome(resolution: Resolution) -> ActionResult:
    """How the incident ended: the last action's result; a confirmed resolution with no action succeeded.

    The operator's own failed run (an observed action) comes before what people
    did, and does not say how the incident ended.
    """
    said = [a for a in resolution.actions if not a.observed]
    return said[-1].result if said else "succeeded"


def names_runbook(text: str, runbook: str) -> bool:
    """Whether `text` (an action) names `runbook` as a whole name, not as part of a longer one.

    A catalog holds `restart-pods` beside `restart-pods-graceful`: "run
    restart-pods-graceful: failed" says nothing of `restart-pods`. A name ends
    where a character that cannot continue it follows (a dot only ends it when
    no name character comes after: "ran restart-pods." names it).
    """
    if runbook not in text:  # most actions name no runbook: the cheap test first
        return False
    return _whole_name(runbook).search(text) is not None


@functools.lru_cache(maxsize=1024)
def _whole_name(runbook: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.-]){re.escape(runbook)}(?![\w-]|\.\w)")


def runbook_outcome(resolution: Resolution, runbook: str) -> str | None:
    """How `runbook` fared in this outcome: succeeded, failed, partial, or None if not run.

    An action counts for a runbook when it names it (`names_runbook`); the
    resolution's runbook field counts as a success when no action says otherwise.
    """
    # A reported success is a claim, not a record; a reported failure still counts. A run the operator saw
    # succeed that the outcome leaves out (`as_remembered`) is kept for people to read, and counts for
    # nothing: its steps worked, and whoever confirmed the outcome says something else fixed the incident.
    named = [a for a in resolution.actions if names_runbook(a.action, runbook)]
    # A failure the operator saw stays a failure, whatever a person writes of that runbook after it
    # ("partial", a claimed re-run): only a later run of its own could say otherwise, and it keeps none.
    if any(a.observed and a.result == "failed" for a in named):
        return "failed"
    results = [a.result for a in named if not ((a.reported or a.observed) and a.result == "succeeded")]
    if results:
        # The last attempt decides: a partial run followed by a full one succeeded.
        return results[-1]
    if resolution.runbook == runbook:
        return "succeeded"
    return None


class Outcomes:
    """How each runbook fared in each outcome, worked out once for one answer.

    The gate asks the same outcome about the same runbook again and again
    (the runbooks seen to work, each `failed_before` pass, the votes): 179
    calls an answer for 102 questions on the benchmark's probes at 1k
    memories. Keep one for one answer only: it holds each resolution it was
    asked about, so no id it keys on is reused while it lives.
    """

    def __init__(self) -> None:
        self._fared: dict[tuple[int, str, bool], tuple[Resolution, str | None]] = {}

    def of(self, resolution: Resolution, runbook: str, *, recorded: bool = False) -> str | None:
        """`runbook_outcome`, or `record_outcome` when `recorded`."""
        key = (id(resolution), runbook, recorded)
        kept = self._fared.get(key)
        if kept is None:
            kept = (resolution, (record_outcome if recorded else runbook_outcome)(resolution, runbook))
            self._fared[key] = kept
        return kept[1]


def runbook_run_here(status: Mapping[str, Any]) -> str | None:
    """The runbook whose plan this operator ran for the incident, as its status.execution records it."""
    execution = status.get("execution") or {}
    if execution.get("state") not in RAN_STATES:
        return None
    if not any(s.get("result") in ("succeeded", "failed") for s in execution.get("steps") or []):
        return None
    runbook = execution.get("runbook")
    if runbook is None:  # an execution recorded before the runbook was: its plan is the recommendation's
        rec = status.get("recommendation") or {}
        runbook = rec.get("runbook") if rec.get("planHash") == execution.get("planHash") else None
    return str(runbook) if runbook else None


def run_in_progress(status: Mapping[str, Any]) -> str | None:
    """What the operator's own run of the incident's plan is doing while it goes on; None: no run, or it ended.

    An outcome recorded meanwhile waits for the run to end (RUN_WAIT at most):
    only then does the operator know whether the runbook worked, and
    `remembered_outcome` can vouch for its success or keep its failure.
    """
    execution = status.get("execution") or {}
    if execution.get("state") not in ("Pending", "Running"):
        return None
    runbook = execution.get("runbook") or (status.get("recommendation") or {}).get("runbook") or "of the plan"
    return f"the operator's run of runbook {runbook} is going on ({execution.get('reason') or 'running'})"


def failed_run_here(status: Mapping[str, Any]) -> str | None:
    """How the operator's own run of the incident's plan failed (`runbook_run_here`); None: it did not fail."""
    execution = status.get("execution") or {}
    state = execution.get("state")
    if state not in ("Failed", "RolledBack") or runbook_run_here(status) is None:
        return None
    # A run cut short with no step failed (the plan changed under it) says nothing of the runbook.
    failed = next((s.get("name") for s in execution.get("steps") or [] if s.get("result") == "failed"), None)
    if failed is None:
        return None
    return f"step {failed} failed" + (", completed steps rolled back" if state == "RolledBack" else "")


def _approvers(status: Mapping[str, Any]) -> set[str]:
    return {a for a in str((status.get("execution") or {}).get("approvedBy") or "").split(",") if a}


def as_remembered(resolution: Resolution, runbooks: Iterable[str], ran: str | None,
                  opener: str | None = None, approvers: Iterable[str] = (), failed: str | None = None) -> Resolution:
    """The outcome as memory keeps it: what nobody but the claimant can vouch for becomes reported.

    `runbooks` are the runbooks an action may name, `ran` the one this
    operator ran here (None: none), `opener` and `approvers` who opened the
    incident and approved that run, `failed` how that run failed (None: it
    did not). The operator saw a failed run fail: a success claimed for it is
    reported, and an outcome that does not record the failure gets it as an
    observed action, first, as the run came before the outcome. A run it saw
    succeed, which the outcome does not mention, is kept the same way. A
    failure or partial run claimed for a runbook on an incident where the
    operator ran no runbook at all is reported too: nothing it saw backs it.
    """
    one_voice = bool(opener) and resolution.confirmed_by == opener and opener in set(approvers)
    vouched = None if one_voice or failed else ran
    names = {*runbooks, *([resolution.runbook] if resolution.runbook else [])}
    actions = tuple(
        a.model_copy(update={"reported": True})
        # A success is the operator's to vouch for only when the action names no other runbook:
        # "ran rb-a, then rb-b" would otherwise credit rb-b, which it never ran.
        if (a.result == "succeeded" and any(rb != vouched and names_runbook(a.action, rb) for rb in names))
        # A failure of a runbook where the operator ran none: nothing here backs the claim. Where it ran one, a
        # failure of another is believed (status keeps only the last run; the one before it may have failed).
        or (a.result != "succeeded" and ran is None and any(names_runbook(a.action, rb) for rb in names))
        else a
        for a in resolution.actions
    )
    # Only an action that says the run failed records it; "partial" would soften what the operator saw.
    if ran and failed and not any(names_runbook(a.action, ran) and a.result == "failed" for a in actions):
        actions = (Action(action=f"run runbook {ran} (the operator's run: {failed})", result="failed", observed=True),
                   *actions)
    elif ran and not failed and resolution.runbook != ran and not any(names_runbook(a.action, ran) for a in actions):
        # A correction (or an outcome) that leaves the run out does not unmake it: the operator saw its steps
        # succeed. Kept as what the operator saw, counted for nothing (`runbook_outcome`): which fix resolved
        # the incident stays the person's word.
        actions = (Action(action=f"run runbook {ran} (the operator's run: every step succeeded)", result="succeeded",
                          observed=True), *actions)
    update: dict[str, Any] = {"actions": actions}
    if resolution.runbook and resolution.runbook != vouched:
        update.update(runbook=None, reported_runbook=resolution.runbook)
    return resolution.model_copy(update=update)


def one_voice(memory: EpisodicMemory) -> str | None:
    """The one person an outcome rests on, or None when someone or something else witnessed it.

    A person who opened an incident and recorded its outcome herself, where the
    operator ran nothing (no runbook it saw work, no run it saw fail), is the
    only source of both the failure and the fix: an incident made up to carry
    a claim looks just like it. Such an outcome is remembered and shown, and
    still counts where nothing better is known, but it never outweighs what
    the operator saw: it does not out-vote a runbook the operator saw work,
    its claimed failure does not block that runbook, it moves no win rate and
    proposes no Contradiction. An alert the bridge opened, a second person
    confirming, or the operator's own run is a witness.
    """
    who = memory.opened_by
    res = memory.resolution
    if not who or who == BRIDGE_OPENER or res.confirmed_by != who:
        return None
    if res.runbook is not None or any(a.observed for a in res.actions):
        return None
    return who


def unvouched(resolution: Resolution) -> Resolution:
    """An outcome read from a memory no operator of this bank signed (memory.hindsight): whatever it says
    is only reported, so it backs no runbook and moves no win rate; what it says failed still holds a fix
    back from acting (the gate reads it), which can only make a fix less trusted. That the operator
    observed an action is its claim too."""
    actions = tuple(a.model_copy(update={"reported": True, "observed": False}) for a in resolution.actions)
    update: dict[str, Any] = {"actions": actions}
    if resolution.runbook:
        update.update(runbook=None, reported_runbook=resolution.runbook)
    return resolution.model_copy(update=update)


UNSIGNED_WRITER = "whoever wrote an unsigned memory"


def unvouched_memory(memory: EpisodicMemory) -> EpisodicMemory:
    """A memory nobody this bank trusts signed: its outcome `unvouched`, and its writer its one voice.

    Its JSON may say anything of who opened the incident (the alert bridge,
    a second person): nothing vouches for that either, so it is one voice
    (`one_voice`), and its failures never block a runbook the operator saw work.
    """
    resolution = unvouched(memory.resolution)
    writer = resolution.confirmed_by or UNSIGNED_WRITER
    return memory.model_copy(update={"resolution": resolution.model_copy(update={"confirmed_by": writer}),
                                     "opened_by": writer})


def remembered_outcome(resolution: Resolution, runbooks: Iterable[str], status: Mapping[str, Any],
                       opener: str | None) -> Resolution:
    """`as_remembered` for an incident on the cluster, from what its status records of the run."""
    return as_remembered(resolution, runbooks, runbook_run_here(status), opener, _approvers(status),
                         failed_run_here(status))


def current_outcome(spec: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The outcome memory should hold: the newest correction (spec.corrections), else spec.resolution.

    A recorded outcome is never rewritten; a correction is a new record, signed by
    whoever adds it, that restates the whole outcome. None while the incident is open.

    A correction that repeats an earlier one word for word (its reason and
    signature too) is a replay, not a record: appended after a later
    correction, it would bring back what that one corrected in the name of
    whoever first wrote it. Admission refuses one signed by someone else; where
    it is not installed, memory ignores it here.
    """
    corrections = spec.get("corrections")
    if spec.get("resolution") is not None and isinstance(corrections, list) and corrections:
        records: list[Mapping[str, Any]] = []
        for c in corrections:
            if isinstance(c, Mapping) and c not in records:
                records.append(c)
        if records:
            return records[-1]
    resolution = spec.get("resolution")
    return resolution if resolution is None or isinstance(resolution, Mapping) else dict(resolution)


def withdrawal(outcome: Mapping[str, Any]) -> str | None:
    """Who withdrew the incident from recall and why, when the outcome memory holds (`current_outcome`) says so.

    A report can mislead whatever its outcome: one written with the words of
    many failures is the nearest look-alike of incidents it has nothing to do
    with, and a recorded report never changes. A correction that withdraws it
    keeps the outcome on record and signed, and memory offers the incident as
    nobody's precedent or witness; a newer correction that does not withdraw
    it brings it back.
    """
    if outcome.get("withdrawn") is not True:
        return None
    who = str(outcome.get("confirmedBy") or "").strip() or "somebody unnamed"
    why = str(outcome.get("reason") or "").strip() or "no reason given"
    return f"withdrawn by {who}: {why}"


def empty_outcome(resolution: Resolution) -> bool:
    """An outcome that says nothing: no summary and no action (memory would hold an empty record)."""
    return not resolution.summary.strip() and not resolution.actions


def from_another_object(held: EpisodicMemory, uid: str | None, created_at: datetime | None) -> bool:
    """Whether `held` is the memory of another Incident object than the one with `uid`, created at `created_at`.

    Two uids tell. A memory written before memories kept a uid tells by time:
    resolved before this object was created, it is an earlier object's. Neither
    known: it cannot tell, and the memory is taken for this incident's own.
    """
    if held.uid and uid:
        return held.uid != uid
    return not held.uid and created_at is not None and held.resolved_at < created_at


def name_taken(held: EpisodicMemory | None, new: EpisodicMemory, created_at: datetime | None = None) -> str | None:
    """Why `new` must not be written over `held`, the memory of its name; None when it may.

    Memory holds one incident per name. An Incident deleted and created again
    under the same name is another object (`from_another_object`; `created_at`
    is when the new one was created): writing its outcome would replace the
    first one's, and that outcome would be lost. The same incident applied
    again (a sync that re-creates it, its report and outcome unchanged) takes
    its own place.
    """
    if held is None or not from_another_object(held, new.uid, created_at):
        return None
    if (held.spec, held.resolution) == (new.spec, new.resolution):
        return None
    return (f"memory already holds another incident named {held.incident}, resolved "
            f"{held.resolved_at:%Y-%m-%d %H:%M} UTC, from an Incident since deleted; this outcome would replace "
            f"it: record it on an Incident of another name")


def as_first_resolved(held: EpisodicMemory | None, new: EpisodicMemory) -> EpisodicMemory:
    """`new`, resolved when memory's outcome of this same incident (`held`) was: a correction restates an outcome.

    Dated by the correction, a fix from before a migration read as one from
    after it (`guards.memory_staleness`), and one person's restatement made a
    stale fix actionable again; it also moved a failure before a success it
    followed (`guards.failed_before`: the last attempt decides). The root
    cause as first confirmed is kept too (`first_cause`): a contradiction's
    sides are read from it, and a correction that wrote another condition's
    words into a root cause took that condition's incidents for its own side.
    `held` of another object of the name is never passed here (`name_taken`).
    """
    if held is None:
        return new
    update: dict[str, Any] = {}
    if held.resolved_at < new.resolved_at:
        update["resolved_at"] = held.resolved_at
    first = confirmed_cause(held)
    if first != new.resolution.root_cause:
        update["first_cause"] = first
    return new.model_copy(update=update) if update else new


def confirmed_cause(memory: EpisodicMemory) -> str:
    """The root cause as it was first confirmed: what later corrections do not rewrite."""
    return memory.first_cause if memory.first_cause is not None else memory.resolution.root_cause


def count_runbook_outcomes(resolutions: Iterable[Resolution], runbook: str) -> RunbookRecord:
    executed = succeeded = 0
    for res in resolutions:
        result = record_outcome(res, runbook)
        if result is None:
            continue
        executed += 1
        succeeded += result == "succeeded"
    return RunbookRecord(times_executed=executed, times_succeeded=succeeded)


def _ran_other_steps(memory: EpisodicMemory, runbook: str, digest: str | None) -> bool:
    """Whether the operator ran `runbook` in this memory with other steps than `digest` says it has now."""
    return digest is not None and memory.ran_steps is not None and memory.ran_steps[0] == runbook \
        and memory.ran_steps[1] != digest


def record_outcome(resolution: Resolution, runbook: str) -> str | None:
    """How this outcome counts on `runbook`'s record (its win rate): `runbook_outcome` of what is not only reported.

    A reported action, success or failure, is a person's claim about a runbook
    the operator did not run there: remembered and shown, held against the
    runbook by the gate when it failed, never counted.
    """
    if not any(a.reported for a in resolution.actions):
        return runbook_outcome(resolution, runbook)
    seen = resolution.model_copy(update={"actions": tuple(a for a in resolution.actions if not a.reported)})
    return runbook_outcome(seen, runbook)


def counts_on_runbooks(episode: EpisodicMemory, counted_before: bool) -> bool:
    """Whether this outcome, as memory now holds it, is counted on the Runbooks it names.

    One person's word alone (`one_voice`) is remembered but counts on no
    Runbook's record. A correction counts on none again: the incident was
    counted when its first outcome was. An outcome withdrawn from recall
    before memory first took it (it waited in the outbox) counts on none, as
    memory's own recount (`runbook_history`) leaves it out.
    """
    return one_voice(episode) is None and not counted_before and episode.withdrawn is None


def runbook_history(memories: Iterable[EpisodicMemory], runbook: str,
                    digest: str | None = None) -> list[tuple[EpisodicMemory, str]]:
    """Each remembered outcome that `runbook` took part in, with how it fared, oldest first.

    Read for a Runbook object that is new here, so the runbook may not have
    existed when an outcome was remembered, and an action that only shares its
    name ("restart" done by hand) was never checked against what the operator
    ran. A success counts only where the memory records the runbook as the one
    that resolved it, which `as_remembered` keeps only for a runbook the
    operator ran there; a failure or a partial run counts as the action says
    unless it is only reported (`record_outcome`) or one person alone says so (`one_voice`). A run of
    other steps than `digest` (plan.steps_digest of the Runbook now) is not this runbook's record, nor is
    an outcome withdrawn from recall (`withdrawal`).
    """
    fared = [(m, record_outcome(m.resolution, runbook)) for m in memories
             if one_voice(m) is None and not _ran_other_steps(m, runbook, digest) and m.withdrawn is None]
    kept = [(m, r) for m, r in fared if r is not None and (r != "succeeded" or m.resolution.runbook == runbook)]
    return sorted(kept, key=lambda p: (p[0].resolved_at, p[0].incident))


def win_rate(record: RunbookRecord) -> float:
    """Smoothed success share in 0..1 (a Beta prior): evidence moves it, one run does not decide it."""
    return (record.times_succeeded + WIN_RATE_PRIOR * WIN_RATE_PRIOR_RUNS) / (
        record.times_executed + WIN_RATE_PRIOR_RUNS
    )
