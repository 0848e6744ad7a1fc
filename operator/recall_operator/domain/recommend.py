"""From scored precedents to a gated recommendation: the decision chain.

Two confidences are kept apart on purpose. Similarity asks "does this look
like that?"; actionability asks "is it safe to act on that, here, now?". Each
step below is a small pure function; the chain is read top to bottom.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from recall_operator.domain.candidates import clean_candidates, merge_repages
from recall_operator.domain.catalog import CatalogFit, best_catalog_fit
from recall_operator.domain.consolidation import runbook_outcome, win_rate
from recall_operator.domain.guards import (
    STALE_FLOOR,
    Staleness,
    failed_before,
    memory_staleness,
    open_contradictions,
    stale_runbooks,
)
from recall_operator.domain.models import (
    ArchitectureMigration,
    Contradiction,
    EpisodicMemory,
    Incident,
    Mode,
    Runbook,
    RunbookRecord,
)
from recall_operator.domain.similarity import ScoredMemory, Weights, score_candidates
from recall_operator.domain.topology import Topology


@dataclass(frozen=True)
class Settings:
    """The bars of the gate. Defaults are argued for next to each one."""

    # Below this best similarity nothing is a real precedent: Novel Incident Mode.
    novel_bar: int = 55
    # Below this actionability the recommendation is advisory: a person decides.
    actionable_bar: int = 60
    # Precedents within this many points of the best one count as evidence too.
    evidence_window: int = 15
    # When the runner-up fix has this share of the leader's support, the
    # precedents disagree and nobody should act on the leader alone.
    disagreement_share: float = 0.8
    max_matches: int = 5
    weights: Weights = field(default_factory=Weights)


# Points off actionability for the riskiest step of the plan.
RISK_DEDUCTION = {"low": 0, "medium": 5, "high": 15, "critical": 30}
# A runbook whose smoothed win rate is 0.5 loses half of this; one at 1.0 loses nothing.
WIN_RATE_WEIGHT = 30
# Points off actionability for each fix that already failed under these conditions.
FAILED_FIX_POINTS = 10
# Points a fix gains for each further precedent it resolved (beyond its best one).
FURTHER_WITNESS = 2.0
# A catalog choice with no confirmed outcome behind it is capped here (always advisory by default).
CATALOG_CAP = 50


@dataclass(frozen=True)
class Context:
    """Everything known at the moment of the decision, and nothing later."""

    now: datetime
    topology: Topology
    catalog: Mapping[str, Runbook]
    records: Mapping[str, RunbookRecord]
    migrations: Sequence[ArchitectureMigration] = ()
    contradictions: Sequence[Contradiction] = ()


@dataclass(frozen=True)
class Match:
    incident: str
    similarity: int
    breakdown: dict[str, float]
    outcome: str  # succeeded, failed, partial: how the incident ended
    runbook: str | None
    actions: list[dict[str, str]]
    stale: Staleness | None = None
    contradiction: str | None = None
    repage_of: str | None = None
    ruled_out: list[str] = field(default_factory=list)  # why the breakdown's ruledOut deduction applies


@dataclass(frozen=True)
class Recommendation:
    mode: Mode
    similarity: int
    actionability: int
    runbook: str | None
    source: str | None  # "memory", "catalog", or None when nothing fits
    warnings: list[str]
    evidence: list[str]
    reasons: list[str]


@dataclass(frozen=True)
class Assessment:
    matches: list[Match]
    recommendation: Recommendation


def outcome_of(memory: EpisodicMemory) -> str:
    """How an incident ended: the result of its last action, or succeeded when a runbook resolved it."""
    if memory.resolution.actions:
        return memory.resolution.actions[-1].result
    return "succeeded"


def assess(
    incident: Incident,
    candidates: Sequence[EpisodicMemory],
    ctx: Context,
    settings: Settings = Settings(),
) -> Assessment:
    cleaned = clean_candidates(incident.name, candidates)
    scored = score_candidates(incident.spec, cleaned, ctx.topology, dict(ctx.records), settings.weights)
    groups = merge_repages(scored)
    matches = _matches(scored, groups, ctx, settings)
    best = scored[0].similarity if scored else 0

    if best < settings.novel_bar:
        return Assessment(matches, _novel(incident, best, ctx, scored))

    floor = max(settings.novel_bar, best - settings.evidence_window)
    evidence = [g for g in groups if g[0].similarity >= floor]
    return Assessment(matches, _from_memory(incident, evidence, scored, ctx, settings))


def _matches(
    scored: Sequence[ScoredMemory], groups: Sequence[Sequence[ScoredMemory]], ctx: Context, settings: Settings
) -> list[Match]:
    repage_of = {m.memory.incident: g[0].memory.incident for g in groups for m in g[1:]}
    top = scored[: settings.max_matches]
    open_c = {
        m: c.name for c in open_contradictions(ctx.contradictions, [s.memory.incident for s in top]) for m in c.spec.memories
    }
    return [
        Match(
            incident=s.memory.incident,
            similarity=s.similarity,
            breakdown=s.breakdown.as_status(settings.weights),
            outcome=outcome_of(s.memory),
            runbook=s.memory.resolution.runbook,
            actions=[{"action": a.action, "result": a.result} for a in s.memory.resolution.actions],
            stale=memory_staleness(s.memory, ctx.migrations, ctx.topology, ctx.now),
            contradiction=open_c.get(s.memory.incident),
            repage_of=repage_of.get(s.memory.incident),
            ruled_out=[d.explain(s.memory.incident) for d in s.breakdown.ruled_out],
        )
        for s in top
    ]


def _novel(incident: Incident, best: int, ctx: Context, scored: Sequence[ScoredMemory]) -> Recommendation:
    """No real precedent: explore, read-only, and say what the catalog offers if anything fits."""
    stale = stale_runbooks(ctx.migrations, ctx.now)
    # A runbook with a track record has a known territory: the incidents it
    # resolved, and none of them resembles this one (that is what novel means).
    # Its catalog entry still speaks for it when it names this service and
    # every symptom seen: generic fixes (a rollback, a rolling restart) meet
    # new causes. A runbook never run yet has only the catalog's word, and a
    # partial fit is worth offering for exploration.
    explored = {name for name, rec in ctx.records.items() if rec.times_executed > 0}
    fit = best_catalog_fit(incident.spec, ctx.catalog, ctx.topology, excluded=stale, proven=explored)
    reasons = [f"best similarity {best} is below the novel bar: no precedent is authoritative"]
    warnings = ["novel incident: only read-only exploratory steps are offered"]
    if fit is not None:
        reasons.append(f"catalog runbook {fit.runbook} fits ({fit.why}); its dry-run steps are offered to explore")
    return Recommendation(
        mode="novel",
        similarity=best,
        actionability=0,
        runbook=fit.runbook if fit else None,
        source="catalog" if fit else None,
        warnings=warnings,
        evidence=[],
        reasons=reasons,
    )


def superseded_by_contradictions(
    evidence: Sequence[ScoredMemory], pool: Sequence[ScoredMemory], contradictions: Sequence[Contradiction]
) -> tuple[list[ScoredMemory], dict[str, str]]:
    """Bring in the memories a contradiction links to the evidence, and say which are superseded.

    When confirmed outcomes disagree, the newest was written knowing the older
    ones: it carries the correction, and the older fixes lose their vote (they
    stay visible). Returns the linked memories and superseded -> superseding.
    """
    by_name = {s.memory.incident: s for s in pool}
    names = {s.memory.incident for s in evidence}
    linked: list[ScoredMemory] = []
    superseded: dict[str, str] = {}
    for c in contradictions:
        if not names.intersection(c.spec.memories):
            continue
        members = sorted((by_name[m] for m in c.spec.memories if m in by_name), key=lambda s: s.memory.resolved_at)
        if not members:
            continue
        newest = members[-1].memory.incident
        for s in members:
            if s.memory.incident not in names and s not in linked:
                linked.append(s)
            if s.memory.incident != newest:
                superseded[s.memory.incident] = newest
    return linked, superseded


def _from_memory(
    incident: Incident,
    evidence: Sequence[Sequence[ScoredMemory]],
    pool: Sequence[ScoredMemory],
    ctx: Context,
    settings: Settings,
) -> Recommendation:
    best = evidence[0][0].similarity
    reps = [g[0] for g in evidence]
    linked, superseded = superseded_by_contradictions(
        [s for g in evidence for s in g], pool, ctx.contradictions
    )
    members = [s.memory for g in evidence for s in g] + [s.memory for s in linked]
    warnings: list[str] = []
    reasons: list[str] = []
    for old_inc, new_inc in sorted(superseded.items()):
        reasons.append(f"{old_inc} is contradicted by the newer outcome of {new_inc}: its fix does not vote")

    # "The same conditions" are any real precedent, not only the closest ones:
    # a failure must not drop out of sight because a closer look-alike arrived.
    precedents = [s.memory for s in pool if s.similarity >= settings.novel_bar]
    failed = failed_before([*precedents, *(s.memory for s in linked)], ctx.catalog.keys())
    stale = stale_runbooks(ctx.migrations, ctx.now)
    for rb, inc in sorted(failed.items()):
        warnings.append(f"runbook {rb} was tried before under the same conditions and failed ({inc})")

    # Each independent precedent votes for the fix that resolved it, weighted by similarity.
    support: dict[str | None, float] = {}
    backers: dict[str | None, list[ScoredMemory]] = defaultdict(list)
    authority = max(s.similarity for s in reps)
    for rep in [*reps, *linked]:
        if rep.memory.incident in superseded:
            continue
        rb = rep.memory.resolution.runbook
        if rb is not None and runbook_outcome(rep.memory.resolution, rb) == "failed":
            continue
        # A correction carries the authority of the evidence it corrects.
        weight = authority if rep.memory.incident in superseded.values() else rep.similarity
        # Look-alikes of one family are not independent witnesses: a fix is as
        # strong as its best precedent, and each further one adds a little.
        support[rb] = max(support[rb], weight) + FURTHER_WITNESS if rb in support else weight
        backers[rb].append(rep)

    blocked = {rb: f"stale after migration {stale[rb]}" for rb in support if rb in stale}
    # A fix loses its vote when it failed in a precedent about as close as the
    # ones that back it; a failure in a remoter look-alike (another root cause,
    # perhaps) still keeps it from being actionable, but does not erase it.
    for rb in support:
        if rb is None or rb in blocked:
            continue
        near = max(settings.novel_bar, max(s.similarity for s in backers[rb]) - settings.evidence_window)
        close = [s.memory for s in pool if s.similarity >= near]
        if rb in failed_before([*close, *(s.memory for s in linked)], [rb]):
            blocked[rb] = f"failed before in {failed[rb]}"
    for rb, why in blocked.items():
        if rb is not None:
            reasons.append(f"precedents used runbook {rb}, but it is {why}")
    usable = {rb: w for rb, w in support.items() if rb not in blocked}
    leader = max(support.items(), key=lambda kv: kv[1])[0] if support else None

    evidence_names = [s.memory.incident for g in evidence for s in g] + [s.memory.incident for s in linked]
    # When the best-supported fix is stale, memory still says what kind of fix
    # this failure needs: look for its replacement rather than settle for the runner-up.
    if not usable or leader in stale:
        # Memory knows this failure, but its fix no longer holds: look for another in the catalog.
        fit = _replacement(incident, [rb for rb in blocked if rb in stale], ctx, excluded={*stale, *failed})
        # A replacement has no outcome behind it for this failure: it is never
        # trusted more than the stale fix it replaces is trusted now, and not
        # at all when what memory knows is that the fixes tried here failed.
        ceiling = 0
        if leader is not None and leader in stale:
            # The stale memory still says how much its fix would have been
            # trusted, and by how much the migration cut that: a person
            # weighing the replacement needs both numbers, as with any stale memory.
            adjusted: list[str] = []
            ceiling = min(CATALOG_CAP, _actionability(leader, backers[leader], support[leader] / sum(support.values()), ctx, adjusted, []))
            warnings.extend(f"remembered fix {leader}: {w}" for w in adjusted)
        reasons.append(
            f"catalog runbook {fit.runbook} fits instead ({fit.why})" if fit else "no runbook in the catalog fits instead"
        )
        return Recommendation(
            mode="advisory",
            similarity=best,
            actionability=_after_failures(min(ceiling, round(fit.fit * 100)), failed, reasons) if fit else 0,
            runbook=fit.runbook if fit else None,
            source="catalog" if fit else None,
            warnings=warnings + ["the fix that memory knows no longer applies; a person must decide"],
            evidence=evidence_names,
            reasons=reasons,
        )

    ranked = sorted(usable.items(), key=lambda kv: -kv[1])
    chosen, weight = ranked[0]
    # Blocked fixes still count as disagreement: their precedents saw this failure too.
    share = weight / sum(support.values())
    supporting = backers[chosen]
    reasons.append(
        f"{len(supporting)} of {len(reps)} independent precedents were resolved by "
        + (f"runbook {chosen}" if chosen else "hand, without a runbook")
    )
    if len(ranked) > 1 and ranked[1][1] >= settings.disagreement_share * weight:
        warnings.append(
            f"precedents disagree: {ranked[1][0] or 'a manual fix'} has almost as much support as "
            f"{chosen or 'a manual fix'}"
        )

    actionability = _after_failures(_actionability(chosen, supporting, share, ctx, warnings, reasons), failed, reasons)
    contradicted = open_contradictions(ctx.contradictions, evidence_names)
    for c in contradicted:
        claims = "; ".join(f"{cl.memory}: {cl.claim}" for cl in c.spec.claims)
        warnings.append(f"open contradiction {c.name} ({c.spec.topic}): {claims}")

    if chosen in failed:
        warnings.append(f"runbook {chosen} is shown because closer precedents back it, but it failed before here: not actionable")
    mode: Mode = "actionable"
    if chosen is None or chosen in failed or actionability < settings.actionable_bar or contradicted or any(
        w.startswith("precedents disagree") for w in warnings
    ):
        mode = "advisory"
    return Recommendation(
        mode=mode,
        similarity=best,
        actionability=actionability,
        runbook=chosen,
        source="memory",
        warnings=warnings,
        evidence=evidence_names,
        reasons=reasons,
    )


def _replacement(
    incident: Incident, stale_fixes: Sequence[str | None], ctx: Context, excluded: set[str]
) -> CatalogFit | None:
    """A catalog runbook to try where memory's fix is blocked.

    When a migration made the fix stale, the replacement is a runbook for the
    migrated service (the precedent's fix acted there, whichever service paged);
    otherwise, the best fit for the paging service.
    """
    stale = stale_runbooks(ctx.migrations, ctx.now)
    targets = {m.spec.target_service for m in ctx.migrations if m.name in {stale.get(rb or "") for rb in stale_fixes}}
    fits = [
        best_catalog_fit(incident.spec.model_copy(update={"service": t}), ctx.catalog, ctx.topology, excluded)
        for t in sorted(targets)
    ]
    fits.append(best_catalog_fit(incident.spec, ctx.catalog, ctx.topology, excluded))
    return max((f for f in fits if f), key=lambda f: f.fit, default=None)


def _after_failures(actionability: int, failed: Mapping[str, str], reasons: list[str]) -> int:
    """Fixes already failed under these conditions: whatever is chosen now is
    chosen on a failure mode that has fooled people before."""
    if not failed:
        return actionability
    after = max(0, actionability - FAILED_FIX_POINTS * len(failed))
    reasons.append(f"actionability {actionability} -> {after}: {len(failed)} fix(es) already failed under these conditions")
    return after


def _actionability(
    runbook: str | None,
    supporting: Sequence[ScoredMemory],
    share: float,
    ctx: Context,
    warnings: list[str],
    reasons: list[str],
) -> int:
    """Start from the best supporting precedent's similarity, then take off for each doubt."""
    if runbook is None:
        return 0
    score = float(max(s.similarity for s in supporting))
    score -= (1 - share) * 30  # the other precedents point elsewhere
    rate = win_rate(ctx.records.get(runbook, RunbookRecord()))
    score -= (1 - rate) * WIN_RATE_WEIGHT
    rb = ctx.catalog.get(runbook)
    if rb is not None:
        risk = max((s.risk for s in rb.spec.steps), key=lambda r: RISK_DEDUCTION[r])
        score -= RISK_DEDUCTION[risk]
    stale = [st for s in supporting if (st := memory_staleness(s.memory, ctx.migrations, ctx.topology, ctx.now))]
    if stale:
        before = round(score)
        # The floor keeps a stale memory's word worth something; it never lifts one that was lower.
        score = max(min(STALE_FLOOR, score), score - stale[0].deduction)
        warnings.append(
            f"actionability adjusted from {before} to {round(score)} because {stale[0].why} "
            f"({stale[0].old_arch} -> {stale[0].new_arch})"
        )
    reasons.append(f"win rate of {runbook} is {rate:.2f} (smoothed)")
    return max(0, min(100, round(score)))
