"""What each panel page shows, computed from the objects the API server returned: pure, no I/O.

Every number a page shows comes from an object's status as it was read; these
functions only select, order and lay it out (bar widths, chart points), so
that a page can be checked against the Incident it was made from.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from jinja2 import Undefined

from recall_operator.domain.approval_rules import opened_by
from recall_operator.domain.contradictions import reconciled_by
from recall_operator.domain.consolidation import (
    current_outcome, one_voice, record_outcome, remembered_outcome, win_rate, withdrawal,
)
from recall_operator.domain.models import EpisodicMemory, IncidentSpec, Resolution, RunbookRecord
from recall_operator.domain.times import parse_time

RESULTS = ("succeeded", "failed", "partial")
MODES = ("novel", "advisory", "actionable")
# What `mode` means, in words: a colour alone says nothing to a screen reader or a printout.
MODE_WORDS = {
    "novel": "NOVEL: nothing in memory is close enough; investigate, only read-only steps are offered",
    "advisory": "ADVISORY: precedents exist, but acting on them blindly is not safe; a person decides",
    "actionable": "ACTIONABLE: a close precedent with a good record; the plan can be approved",
}
NOT_RUN = "not run"
BAR_WIDTH = 240  # pixels of the widest similarity term's bar


def age(value: Any, now: datetime) -> str:
    """kubectl's way of saying how old something is: 40s, 5m, 3h, 12d."""
    then = parse_time(value)
    if then is None:
        return "-"
    seconds = max(0, int((now - then).total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def day(value: Any) -> str:
    then = parse_time(value)
    return then.strftime("%Y-%m-%d %H:%M UTC") if then else "-"


def number(value: Any) -> str:
    """A status number as kubectl prints it: 81, 0.667; '-' when absent."""
    if value is None or value == "" or isinstance(value, Undefined):  # Undefined: a key the status lacks
        return "-"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def _status(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("status") or {}


def conditions(obj: Mapping[str, Any]) -> dict[str | None, Mapping[str, Any]]:
    return {c.get("type"): c for c in _status(obj).get("conditions") or [] if isinstance(c, Mapping)}


def execution_state(obj: Mapping[str, Any]) -> str:
    """What happens to the plan now: the execution's state, or 'not run'.

    The lifecycle `status.phase` does not exist yet; until it does, the
    execution state is the closest thing the status holds.
    """
    state = (_status(obj).get("execution") or {}).get("state")
    return str(state) if state else NOT_RUN


# -- the incidents table ---------------------------------------------------------


@dataclass(frozen=True)
class IncidentRow:
    namespace: str
    name: str
    title: str
    service: str
    severity: str
    mode: str
    similarity: str
    actionability: str
    runbook: str
    execution: str
    resolved: bool
    age: str
    created: str

    @property
    def novel(self) -> bool:
        return self.mode == "novel"


def incident_row(obj: Mapping[str, Any], now: datetime) -> IncidentRow:
    meta, spec = _meta(obj), obj.get("spec") or {}
    rec = _status(obj).get("recommendation") or {}
    return IncidentRow(
        namespace=str(meta.get("namespace") or ""),
        name=str(meta.get("name") or ""),
        title=str(spec.get("title") or ""),
        service=str(spec.get("service") or ""),
        severity=str(spec.get("severity") or "-"),
        # An incident recorded with its outcome already known is never triaged: it is memory, not a page.
        mode=str(rec.get("mode") or ("resolved" if spec.get("resolution") else "not triaged")),
        similarity=number(rec.get("similarity")),
        actionability=number(rec.get("actionability")),
        runbook=str(rec.get("runbook") or ""),
        execution=execution_state(obj),
        resolved=bool(spec.get("resolution")),
        age=age(meta.get("creationTimestamp"), now),
        created=str(meta.get("creationTimestamp") or ""),
    )


@dataclass(frozen=True)
class Filters:
    namespace: str = ""
    service: str = ""
    mode: str = ""
    execution: str = ""

    @classmethod
    def of(cls, query: Mapping[str, str]) -> Filters:
        return cls(**{k: str(query.get(k) or "").strip() for k in ("namespace", "service", "mode", "execution")})

    def keep(self, row: IncidentRow) -> bool:
        return all(not want or have == want for want, have in (
            (self.namespace, row.namespace), (self.service, row.service),
            (self.mode, row.mode), (self.execution, row.execution),
        ))


def incident_rows(objs: Iterable[Mapping[str, Any]], filters: Filters, now: datetime) -> tuple[list[IncidentRow], dict[str, list[str]]]:
    """The rows that pass the filters, newest first, and each filter's choices (from every row)."""
    rows = [incident_row(o, now) for o in objs]
    choices = {
        "namespace": sorted({r.namespace for r in rows}),
        "service": sorted({r.service for r in rows if r.service}),
        "mode": sorted({r.mode for r in rows}, key=lambda m: (MODES + (m,)).index(m)),
        "execution": sorted({r.execution for r in rows}),
    }
    kept = sorted((r for r in rows if filters.keep(r)), key=lambda r: (r.created, r.name), reverse=True)
    return kept, choices


# -- one incident ----------------------------------------------------------------


@dataclass(frozen=True)
class Bar:
    term: str
    points: float
    width: int  # pixels, of the term's absolute points
    negative: bool

    @property
    def label(self) -> str:
        return f"{self.points:+g}"


def breakdown_bars(breakdown: Mapping[str, Any], scale: float = 100.0) -> list[Bar]:
    """One bar per similarity term, largest first; a deduction is a bar of its own, marked negative."""
    bars = []
    for term, raw in breakdown.items():
        try:
            points = round(float(raw or 0), 1)
        except (TypeError, ValueError):
            continue
        width = max(1, round(abs(points) / scale * BAR_WIDTH)) if points else 0
        bars.append(Bar(str(term), points, min(width, BAR_WIDTH), points < 0))
    return sorted(bars, key=lambda b: -abs(b.points))


@dataclass
class MatchView:
    index: int
    incident: str
    similarity: str
    outcome: str
    runbook: str
    bars: list[Bar]
    recognition: str  # "" when it added nothing to this match's place in the list
    actions: list[dict[str, str]]
    ruled_out: list[str]
    shared_change: str  # "" when no rollout came shortly before both
    stale: Mapping[str, Any] | None
    contradiction: str
    repage_of: str
    service: str = "-"
    date: str = "-"
    title: str = ""
    found: bool = False
    actions_left_out: int = 0  # earlier actions of that outcome the answer does not repeat (memory holds them)


def match_views(status: Mapping[str, Any], past: Mapping[str, Mapping[str, Any]]) -> list[MatchView]:
    """Each match as status holds it, with the service and date of the past Incident it names (when it is here)."""
    views = []
    for i, m in enumerate(status.get("matches") or [], 1):
        name = str(m.get("incident") or "")
        view = MatchView(
            index=i, incident=name, similarity=number(m.get("similarity")),
            recognition=number(m.get("recognition")) if m.get("recognition") else "",
            outcome=str(m.get("outcome") or "unknown"), runbook=str(m.get("runbook") or ""),
            bars=breakdown_bars(m.get("breakdown") or {}),
            actions=[{"action": str(a.get("action") or "?"), "result": str(a.get("result") or "?"),
                      "claim": "a claim: not what the operator saw here" if a.get("reported") is True else ""}
                     for a in m.get("actions") or [] if isinstance(a, Mapping)],
            ruled_out=[str(r) for r in m.get("ruledOut") or []],
            shared_change=", ".join(map(str, m["sharedChange"])) if isinstance(m.get("sharedChange"), list) else "",
            stale=m.get("stale") or None, contradiction=str(m.get("contradiction") or ""),
            repage_of=str(m.get("repageOf") or ""),
            actions_left_out=m["actionsLeftOut"] if isinstance(m.get("actionsLeftOut"), int) else 0,
        )
        obj = past.get(name)
        if obj:
            spec = obj.get("spec") or {}
            view.found = True
            view.service = str(spec.get("service") or "-")
            view.title = str(spec.get("title") or "")
            view.date = day(spec.get("startedAt") or _meta(obj).get("creationTimestamp"))
        views.append(view)
    return views


_SIDE = re.compile(r"^contradiction (?P<name>\S+): this incident resembles the side of (?P<side>[^()]+?) \(")


def contradiction_reasons(reasons: Iterable[str]) -> dict[str, tuple[str, list[str]]]:
    """name -> (the decision chain's line, the memories of the side it says this incident resembles)."""
    out: dict[str, tuple[str, list[str]]] = {}
    for line in reasons:
        found = _SIDE.match(str(line))
        if found:
            side = [s.strip() for s in found.group("side").split(",") if s.strip()]
            out[found.group("name")] = (str(line), side)
    return out


@dataclass
class ContradictionView:
    name: str
    topic: str
    state: str
    claims: list[dict[str, Any]]
    resembles: str  # the decision chain's line, or ""
    found: bool
    reconciled: str = ""  # who reconciled it and when, "" while it is open
    note: str = ""  # how its people said the claims fit together


def contradiction_views(status: Mapping[str, Any], objs: Mapping[str, Mapping[str, Any]]) -> list[ContradictionView]:
    """The contradictions this incident's evidence touches: both claims side by side, and the side it resembles."""
    rec = status.get("recommendation") or {}
    sides = contradiction_reasons(rec.get("reasons") or [])
    names = list(dict.fromkeys(
        [str(m.get("contradiction")) for m in status.get("matches") or [] if m.get("contradiction")] + list(sides)
    ))
    views = []
    for name in names:
        obj = objs.get(name) or {}
        spec = obj.get("spec") or {}
        line, side = sides.get(name, ("", []))
        claims = [{"memory": str(c.get("memory") or ""), "claim": str(c.get("claim") or ""),
                   "resembled": str(c.get("memory") or "") in side}
                  for c in spec.get("claims") or [] if isinstance(c, Mapping)]
        res = spec.get("resolution") or {}
        state = str(_status(obj).get("state") or res.get("state") or "open")
        view = ContradictionView(name, str(spec.get("topic") or ""), state, claims, line, bool(obj))
        if res.get("state") == "reconciled":
            who = reconciled_by(str(res.get("reconciledBy") or ""))
            when = f" on {day(res['reconciledAt'])}" if res.get("reconciledAt") else ""
            view.reconciled, view.note = f"Reconciled {who}{when}", str(res.get("note") or "")
        views.append(view)
    return views


@dataclass
class StepView:
    index: int
    name: str
    title: str
    risk: str
    blast_radius: str
    command: str
    dry_run_command: str
    rollback_command: str
    dry_run: str
    run: str
    jobs: list[dict[str, str]] = field(default_factory=list)
    image: str = ""  # in the plan hash, with the deadline: an approver signs for both
    deadline: str = ""
    ran_image: str = ""  # what the run's Job ran, when not the image as written (pinned to its dry-run's digest)


def _cmd(value: Any) -> str:
    if not value:
        return ""
    if isinstance(value, str):
        return value
    import shlex

    return shlex.join(str(v) for v in value)


def step_views(status: Mapping[str, Any], jobs: Sequence[Mapping[str, Any]], incident_uid: str | None = None,
               ) -> list[StepView]:
    """The plan's steps with what the dry-run and the run recorded, and the Jobs each made.

    A Job is listed only when this Incident controls it: its labels alone anyone creating Jobs may copy.
    """
    from recall_operator.kube.jobs import LABEL_PHASE, LABEL_STEP, job_state, made_for_an_incident

    rec = status.get("recommendation") or {}
    dry = {s.get("name"): s for s in (status.get("dryRun") or {}).get("steps") or []
           if (status.get("dryRun") or {}).get("planHash") == rec.get("planHash")}
    ex = status.get("execution") or {}
    ran = {s.get("name"): s for s in ex.get("steps") or []} if ex.get("planHash") == rec.get("planHash") else {}
    by_step: dict[str, list[dict[str, str]]] = {}
    for job in jobs:
        if not made_for_an_incident(job, incident_uid):
            continue
        labels = _meta(job).get("labels") or {}
        by_step.setdefault(str(labels.get(LABEL_STEP) or ""), []).append({
            "name": str(_meta(job).get("name") or ""), "phase": str(labels.get(LABEL_PHASE) or ""),
            "state": job_state(job), "started": day((job.get("status") or {}).get("startTime")),
        })
    views = []
    for i, s in enumerate(rec.get("steps") or [], 1):
        name = str(s.get("name") or "")
        views.append(StepView(
            index=i, name=name, title=str(s.get("title") or ""), risk=str(s.get("risk") or "unknown"),
            blast_radius=str(s.get("blastRadius") or "not stated"),
            command=_cmd(s.get("command")), dry_run_command=_cmd(s.get("dryRunCommand")),
            rollback_command=_cmd(s.get("rollbackCommand")),
            dry_run=str((dry.get(name) or {}).get("result") or NOT_RUN),
            run=str((ran.get(name) or {}).get("result") or NOT_RUN),
            jobs=sorted(by_step.get(name, []), key=lambda j: j["name"]),
            image=str(s.get("image") or "?"),
            deadline=f"{s['timeoutSeconds']} s" if s.get("timeoutSeconds") is not None else "",
            ran_image=ran_image if (ran_image := str((ran.get(name) or {}).get("image") or "")) != s.get("image") else "",
        ))
    return views


@dataclass
class ApprovalView:
    name: str
    approver: str
    decision: str
    plan_hash: str
    reason: str
    at: str
    state: str
    verdict: str
    expires: str
    current: bool


def approval_views(name: str, approvals: Iterable[Mapping[str, Any]], plan_hash: str) -> list[ApprovalView]:
    out = []
    for a in approvals:
        spec = a.get("spec") or {}
        if spec.get("incident") != name:
            continue
        st = _status(a)
        out.append(ApprovalView(
            name=str(_meta(a).get("name") or ""), approver=str(spec.get("approver") or "?"),
            decision=str(spec.get("decision") or "?"), plan_hash=str(spec.get("planHash") or ""),
            reason=str(spec.get("reason") or ""), at=day(_meta(a).get("creationTimestamp")),
            state=str(st.get("state") or "pending"), verdict=str(st.get("reason") or ""),
            expires=day(st.get("expiresAt")) if st.get("expiresAt") else "",
            current=bool(plan_hash) and spec.get("planHash") == plan_hash,
        ))
    return sorted(out, key=lambda v: (v.at, v.name))


def stale_lines(rec: Mapping[str, Any]) -> list[str]:
    return [str(w) for w in rec.get("warnings") or [] if "adjusted from" in str(w)]


def approve_command(obj: Mapping[str, Any]) -> str:
    """The command a person runs to approve with their own identity; '' when there is nothing to approve."""
    rec = _status(obj).get("recommendation") or {}
    if rec.get("mode") != "actionable" or not rec.get("planHash") or (obj.get("spec") or {}).get("resolution"):
        return ""
    execution = _status(obj).get("execution") or {}
    if execution.get("planHash") == rec.get("planHash") and execution.get("state"):
        return ""  # this plan is approved already, running or run
    meta = _meta(obj)
    return f"kubectl recall approve {meta.get('name')} -n {meta.get('namespace')}"


def _may_name(resolution: Mapping[str, Any], status: Mapping[str, Any], runbook: str) -> bool:
    """Whether an outcome can count for `runbook` at all: it names it, or the operator ran it there.

    Most outcomes of a namespace are about other runbooks; reading each whole
    was most of a runbook page (3,000 incidents: 65 ms on the operator's loop).
    """
    ran = (status.get("execution") or {}).get("runbook") or (status.get("recommendation") or {}).get("runbook")
    return (resolution.get("runbook") == runbook or ran == runbook
            or any(runbook in str(a.get("action") or "") for a in resolution.get("actions") or ()
                   if isinstance(a, Mapping)))


def outcome_line(spec: Mapping[str, Any]) -> str:
    """The outcome as memory holds it: the newest correction, saying who corrected it and why, else the first."""
    current = current_outcome(spec)
    if not current:
        return ""
    line = f"resolved: {current.get('summary') or current.get('rootCause') or 'no summary'}"
    if gone := withdrawal(current):
        line += f" ({gone}; memory offers it as nobody's precedent)"
    elif current is not spec.get("resolution") and current.get("reason"):
        line += f" (corrected by {current.get('confirmedBy') or 'someone'}: {current.get('reason')})"
    return line


# -- a runbook ---------------------------------------------------------------------


@dataclass
class OutcomePoint:
    incident: str
    namespace: str
    at: str
    result: str
    rate: float  # the win rate after this outcome
    x: float = 0.0
    y: float = 0.0


CHART_W, CHART_H, CHART_PAD = 560, 180, 28


def runbook_outcomes(name: str, incidents: Iterable[Mapping[str, Any]]) -> list[OutcomePoint]:
    """The confirmed outcomes in which this runbook ran, oldest first, with the win rate after each.

    Counted as the operator counts them on the Runbook: each incident's first
    outcome (a correction moves no win rate), read as memory keeps it (a
    success only where the operator ran the runbook, `remembered_outcome`),
    and none resting on one person's word alone (`one_voice`). Drawn from what
    a person typed, five made-up incidents drew a record the Runbook's own
    status contradicts. The rate is the operator's own (a Beta prior), over
    the outcomes the panel can see; Runbook.status holds the count the operator kept.
    """
    found = []
    for obj in incidents:
        spec, meta = obj.get("spec") or {}, _meta(obj)
        raw = spec.get("resolution")
        if not raw or not _may_name(raw, _status(obj), name):
            continue
        try:
            said = Resolution.model_validate(raw)
            report = IncidentSpec.model_validate({k: v for k, v in spec.items() if k not in ("resolution", "corrections")})
        except ValueError:
            continue
        opener = opened_by(obj)
        resolution = remembered_outcome(said, [name], _status(obj), opener)
        held = EpisodicMemory(incident=str(meta.get("name") or ""), spec=report, resolution=resolution,
                              resolved_at=parse_time(raw.get("confirmedAt")) or datetime.min.replace(tzinfo=UTC),
                              opened_by=opener)
        result = record_outcome(resolution, name) if one_voice(held) is None else None
        if result is None:
            continue
        at = str(raw.get("confirmedAt") or meta.get("creationTimestamp") or "")
        found.append((at, str(meta.get("name") or ""), str(meta.get("namespace") or ""), result))
    found.sort()
    points, executed, succeeded = [], 0, 0
    for at, incident, ns, result in found:
        executed += 1
        succeeded += result == "succeeded"
        rate = win_rate(RunbookRecord(times_executed=executed, times_succeeded=succeeded))
        points.append(OutcomePoint(incident, ns, at, result, round(rate, 3)))
    inner_w, inner_h = CHART_W - 2 * CHART_PAD, CHART_H - 2 * CHART_PAD
    for i, p in enumerate(points):
        p.x = round(CHART_PAD + (inner_w * i / (len(points) - 1) if len(points) > 1 else inner_w / 2), 1)
        p.y = round(CHART_PAD + inner_h * (1 - p.rate), 1)
    return points


def chart_path(points: Sequence[OutcomePoint]) -> str:
    return " ".join(f"{'M' if i == 0 else 'L'}{p.x},{p.y}" for i, p in enumerate(points))


def recommended_for(name: str, incidents: Iterable[Mapping[str, Any]], now: datetime) -> list[IncidentRow]:
    rows = [incident_row(o, now) for o in incidents
            if ((_status(o).get("recommendation") or {}).get("runbook") == name)]
    return sorted(rows, key=lambda r: (r.created, r.name), reverse=True)


# -- memory health -----------------------------------------------------------------


@dataclass
class Lead:
    """A precedent and how many answers list it first, on how many services."""

    namespace: str
    incident: str
    first: int
    services: int


@dataclass
class Health:
    backend: str
    outbox: list[str]
    last_write: str
    last_write_age: str
    unavailable: list[str]
    counts: dict[str, int]
    leads: list[Lead] = field(default_factory=list)


# How many of the precedents listed first most often the memory page shows, and from how many answers on.
LEADS_SHOWN = 5
LEADS_FROM = 2


def leads(incidents: Iterable[Mapping[str, Any]]) -> list[Lead]:
    """The precedents most answers list first, with the services those answers paged on.

    A report that says the words of many failures is the nearest look-alike of
    incidents it has nothing to do with (docs/scoring.md): listed first for
    pages on many services, it is worth reading, and withdrawing if it misleads.
    """
    paged: dict[tuple[str, str], list[str]] = {}
    for o in incidents:
        matches = _status(o).get("matches")
        first = matches[0].get("incident") if isinstance(matches, list) and matches and isinstance(
            matches[0], Mapping) else None
        if isinstance(first, str) and first:
            service = str((o.get("spec") or {}).get("service") or "")
            paged.setdefault((str(_meta(o).get("namespace") or ""), first), []).append(service)
    ranked = sorted(paged.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return [Lead(ns, name, len(services), len(set(services))) for (ns, name), services in ranked
            if len(services) >= LEADS_FROM][:LEADS_SHOWN]


def memory_health(incidents: Sequence[Mapping[str, Any]], runbooks: Sequence[Mapping[str, Any]],
                  contradictions: Sequence[Mapping[str, Any]], migrations: Sequence[Mapping[str, Any]],
                  now: datetime) -> Health:
    """What the Incidents' status says of memory: which backend, what waits in the outbox, the last write."""
    writes = []
    outbox = []
    unavailable = []
    for o in incidents:
        mem = _status(o).get("memory") or {}
        ref = f"{_meta(o).get('namespace')}/{_meta(o).get('name')}"
        if mem.get("outbox") == "pending":
            outbox.append(ref)
        if mem.get("writtenAt"):
            writes.append((str(mem["writtenAt"]), str(mem.get("backend") or "?")))
        cond = conditions(o).get("MemoryAvailable")
        if cond and cond.get("status") == "False":
            unavailable.append(ref)
    writes.sort()
    last = writes[-1] if writes else ("", "unknown (nothing written yet)")
    by_mode: dict[str, int] = {m: 0 for m in MODES}
    for o in incidents:
        mode = (_status(o).get("recommendation") or {}).get("mode")
        if mode in by_mode:
            by_mode[mode] += 1
    counts = {
        "incidents": len(incidents),
        **{f"{m} incidents": n for m, n in by_mode.items()},
        "resolved incidents": sum(1 for o in incidents if (o.get("spec") or {}).get("resolution")),
        "withdrawn from recall": sum(1 for o in incidents
                                     if (current := current_outcome(o.get("spec") or {})) and withdrawal(current)),
        "outcomes in memory": len(writes),
        "runbooks": len(runbooks),
        "open contradictions": sum(1 for c in contradictions
                                   if (_status(c).get("state") or ((c.get("spec") or {}).get("resolution") or {})
                                       .get("state") or "open") == "open"),
        "architecture migrations": len(migrations),
    }
    return Health(backend=last[1], outbox=sorted(outbox), last_write=day(last[0]) if last[0] else "never",
                  last_write_age=age(last[0], now) if last[0] else "-", unavailable=sorted(unavailable),
                  counts=counts, leads=leads(incidents))
