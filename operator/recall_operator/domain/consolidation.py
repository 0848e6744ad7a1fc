"""What a confirmed outcome becomes: a memory for a cold reader, runbook counts, lessons.

A memory is read months later by someone who was not there, so every field is
spelled out, "not yet resolved" included, and failed actions are kept: a fix
that did not work is as much memory as one that did.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from recall_operator.domain.models import EpisodicMemory, Resolution, RunbookRecord

NOT_RECORDED = "not recorded"
NOT_YET_RESOLVED = "not yet resolved"

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
        "Actions, in order, with their results:",
        *([f"- {a.action}: {a.result}" for a in res.actions] or ["- none recorded"]),
        f"Confirmed by: {res.confirmed_by or NOT_RECORDED}",
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


def runbook_outcome(resolution: Resolution, runbook: str) -> str | None:
    """How `runbook` fared in this outcome: succeeded, failed, partial, or None if not run.

    An action counts for a runbook when it names it; the resolution's runbook
    field counts as a success when no action says otherwise.
    """
    results = [a.result for a in resolution.actions if runbook in a.action]
    if results:
        # The last attempt decides: a partial run followed by a full one succeeded.
        return results[-1]
    if resolution.runbook == runbook:
        return "succeeded"
    return None


def count_runbook_outcomes(resolutions: Iterable[Resolution], runbook: str) -> RunbookRecord:
    executed = succeeded = 0
    for res in resolutions:
        result = runbook_outcome(res, runbook)
        if result is None:
            continue
        executed += 1
        succeeded += result == "succeeded"
    return RunbookRecord(times_executed=executed, times_succeeded=succeeded)


def win_rate(record: RunbookRecord) -> float:
    """Smoothed success share in 0..1 (a Beta prior): evidence moves it, one run does not decide it."""
    return (record.times_succeeded + WIN_RATE_PRIOR * WIN_RATE_PRIOR_RUNS) / (
        record.times_executed + WIN_RATE_PRIOR_RUNS
    )


@dataclass(frozen=True)
class Lesson:
    runbook: str
    service: str
    outcomes: int
    text: str


def lessons(memories: Iterable[EpisodicMemory], min_agreeing: int = 3) -> list[Lesson]:
    """A lesson when several confirmed outcomes on one service agree on the runbook that fixed it."""
    agreeing: Counter[tuple[str, str]] = Counter()
    for m in memories:
        if m.resolution.runbook and runbook_outcome(m.resolution, m.resolution.runbook) == "succeeded":
            agreeing[(m.spec.service, m.resolution.runbook)] += 1
    return [
        Lesson(
            runbook=rb,
            service=svc,
            outcomes=n,
            text=f"{n} confirmed outcomes on {svc} were resolved by runbook {rb}",
        )
        for (svc, rb), n in sorted(agreeing.items())
        if n >= min_agreeing
    ]
