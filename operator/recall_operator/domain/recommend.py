"""From scored precedents to a gated recommendation.

Two confidences are kept apart on purpose. Similarity asks "does this look
like that?"; actionability asks "is it safe to act on that, here, now?".
`gather` collects the evidence once (which fix each precedent stands for,
which side of a contradiction this incident resembles, what failed or went
stale); the gate's policy chain (gate.py) decides the mode from it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from recall_operator.domain.candidates import clean_candidates, merge_repages
from recall_operator.domain.catalog import (
    CatalogFit,
    CatalogWords,
    FixMatch,
    addresses,
    best_catalog_fit,
    runbook_for_fix,
    successor,
    unlisted,
    written_since,
)
from recall_operator.domain.contradictions import reconciled_by
from recall_operator.domain.consolidation import (
    Outcomes,
    confirmed_cause,
    final_outcome,
    one_voice,
    runbook_outcome,
    win_rate,
)
from recall_operator.domain.guards import (
    STALE_FLOOR,
    Staleness,
    failed_before,
    memory_staleness,
    open_contradictions,
    stale_runbooks,
)
from recall_operator.domain.gate import CHAIN, Evidence, Fix, Policy, Side, decide
from recall_operator.domain.models import (
    ArchitectureMigration,
    Contradiction,
    EpisodicMemory,
    Incident,
    IncidentSpec,
    Mode,
    Runbook,
    RunbookRecord,
    as_read,
    riskiest,
)
from recall_operator.domain.plan import undeclared_target, unset_parameters
from recall_operator.domain.similarity import (
    LexicalScorer,
    Recalled,
    ScoredMemory,
    Weights,
    denied_symptoms,
    incident_words,
    released_cause,
    ranked,
    score_candidates,
    shared_change,
    shortly_after_release,
)
from recall_operator.domain.symptoms import read_symptoms
from recall_operator.domain.text import mentions, stem, tokens
from recall_operator.domain.thresholds import READ_TEXT, Reading, Value, read_against, reported_values, stated_thresholds
from recall_operator.domain.topology import IgnoredTopology, Topology, filled_in


@dataclass(frozen=True)
class Settings:
    """The bars of the gate. Defaults are argued for next to each one."""

    # Below this best similarity nothing is a real precedent: Novel Incident Mode.
    novel_bar: int = 55
    # ... unless a precedent nearly reaches that bar on its report alone and
    # its confirmed outcome says what this incident says: it is recognised
    # when similarity >= recognition_floor and similarity plus recognition
    # points (similarity.RECOGNITION_POINTS) >= recognition_bar. Its fix is
    # then shown, never actionable: the actionable bar is above the novel bar.
    # Leave-one-history-out, every rotation chose a bar of 100 (floor 45 or
    # 50); novel precision rose on dev2 (.833 -> .909) and dev3 (.567 -> .680)
    # and nothing fell on dev. A floor at the novel bar turns it off.
    recognition_bar: int = 100
    recognition_floor: int = 50
    # Below this actionability the recommendation is advisory: a person decides.
    actionable_bar: int = 60
    # Precedents within this many points of the best one count as evidence too
    # (under the novel bar as well, once the incident is not novel).
    evidence_window: int = 15
    # Under the novel bar, an answer whose nearest past incident was fixed by
    # the catalog's offer is advice, not exploration (gate.catalog_fixed_nearest),
    # when that incident is within this many points of the bar. The evidence
    # window's width, not fitted apart: on dev3 a window of 20 takes a true
    # novel for a recurrence and one of 10 misses two recurrences.
    offer_window: int = 15
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
    ignored_topologies: Sequence[IgnoredTopology] = ()
    # Neighbours of the incident's service that the topology does not give, only
    # runbooks and reports (topology.filled_in): enough to compare, not to act on.
    guessed: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Match:
    incident: str
    similarity: int
    breakdown: dict[str, float]
    recognition: int  # points added to similarity to order the list (similarity.RECOGNITION_POINTS)
    outcome: str  # succeeded, failed, partial: how the incident ended
    runbook: str | None
    # Each {"action", "result"}, and "reported": true for a success nobody the operator trusts saw:
    # claimed by a person, or read from a memory nobody signed (consolidation.unvouched).
    actions: list[dict[str, Any]]
    stale: Staleness | None = None
    contradiction: str | None = None
    repage_of: str | None = None
    ruled_out: list[str] = field(default_factory=list)  # why the breakdown's ruledOut deduction applies
    # Words of a rollout made shortly before both incidents: part of the lexical term.
    shared_change: list[str] = field(default_factory=list)
    actions_left_out: int = 0  # earlier actions memory holds that `actions` does not repeat (ACTIONS_SHOWN)


# How many of a match's actions an answer repeats: the last ones, as the fix that
# held comes last. An outcome may list 64 actions of 4,096 characters each; on a
# real API server, two such outcomes recalled by a third look-alike made its
# status so large that its own outcome could no longer be stored, and a few more
# leave every incident that recalls them without an answer that fits. Each
# action is cut to a line as well (`shown`).
ACTIONS_SHOWN = 8


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


def assess(
    incident: Incident,
    candidates: Sequence[EpisodicMemory],
    ctx: Context,
    settings: Settings = Settings(),
    chain: Sequence[Policy] = CHAIN,
) -> Assessment:
    # Only so much of a long report and its log lines is read (models.as_read). An incident
    # that declares no symptoms (most alert-bridge pages) is compared by the known tags its
    # words say, and the reasons name them.
    spec = as_read(incident.spec)
    read = read_symptoms(spec, ctx.catalog, candidates)
    if read:
        spec = spec.model_copy(update={"symptoms": read})
    if spec is not incident.spec:
        incident = incident.model_copy(update={"spec": spec})
    cleaned = clean_candidates(incident, candidates)
    # A store that kept each memory's features hands them over with the candidates.
    features = candidates.features_of(cleaned) if isinstance(candidates, Recalled) else None
    filled = filled_in(ctx.topology, seen_together(incident.spec, cleaned, ctx))
    guessed = filled.neighbours(incident.spec.service) - ctx.topology.neighbours(incident.spec.service)
    ctx = replace(ctx, topology=filled, guessed=guessed)
    scored = score_candidates(incident.spec, cleaned, ctx.topology, dict(ctx.records), settings.weights, features)
    groups = merge_repages(scored)
    found = gather(incident, scored, groups, ctx, settings)
    decision = decide(found.evidence, chain)
    novel = decision.mode == "novel"
    closest = ranked(scored)[: settings.max_matches]
    shown = lead_with_where_it_worked(closest, decision.runbook)
    matches = _matches(incident.spec, shown, groups, ctx, settings)
    return Assessment(
        matches,
        Recommendation(
            mode=decision.mode,
            similarity=found.evidence.best,
            actionability=decision.actionability,
            runbook=decision.runbook,
            source=decision.source,
            # The deciding policy may repeat a line of the evidence (the manual
            # fix a catalog runbook describes): each is said once, and the
            # deciding reason stays last, where on-call reads why.
            warnings=list(dict.fromkeys([*decision.warnings, *([] if novel else found.warnings),
                                         *_namesake_warnings(incident, cleaned, matches),
                                         *(t.warning for t in ctx.ignored_topologies)])),
            evidence=[] if novel else found.names,
            reasons=[*([f"declares no symptoms; its words say {', '.join(read)}"] if read else []),
                     *([f"neighbours of {incident.spec.service} that the topology does not give, seen with it in "
                        f"runbooks or reports: {', '.join(sorted(guessed))}"] if guessed else []),
                     *(found.offered if found.evidence.exploration is not None
                       and decision.runbook == found.evidence.exploration.runbook else []),
                     *(r for r in ([] if novel else found.reasons) if r != decision.reason),
                     *_listed_first(shown, closest, decision.runbook), decision.reason],
        ),
    )


def seen_together(spec: IncidentSpec, memories: Sequence[EpisodicMemory], ctx: Context) -> list[set[str]]:
    """Services seen together, for the ones the topology does not name (topology.filled_in).

    Each Runbook's services, and each report (this incident's and every
    candidate's, with its confirmed outcome) with the services its words name.
    Nothing is read when the topology names every service in sight.
    """
    groups = [set(rb.spec.services) for rb in ctx.catalog.values() if len(rb.spec.services) > 1]
    in_sight = {spec.service, *(m.spec.service for m in memories)}.union(*groups)
    if in_sight <= ctx.topology.services:
        return []
    known = in_sight | ctx.topology.services
    reports = [(spec.service, f"{spec.title} {spec.description}")]
    reports += [(m.spec.service, f"{m.spec.title} {m.spec.description} {m.resolution.root_cause} {m.resolution.summary}")
                for m in memories]
    for service, text in reports:
        named = known.intersection(tokens(text)) - {service}
        if named:
            groups.append({service, *named})
    return groups


def _namesake_warnings(incident: Incident, cleaned: Sequence[EpisodicMemory], matches: Sequence[Match]) -> list[str]:
    """Say so when a match bears this incident's own name: an earlier Incident, since deleted."""
    shown = {m.incident for m in matches}
    return [f"match {c.incident} is an earlier incident of this name (resolved {c.resolved_at:%Y-%m-%d %H:%M} UTC),"
            " since deleted, not this one" for c in cleaned if c.incident == incident.name and c.incident in shown]


def lead_with_where_it_worked(top: Sequence[ScoredMemory], runbook: str | None) -> list[ScoredMemory]:
    """The matches shown, the nearest one in which the recommended runbook worked listed first.

    On-call's first question of a recommended runbook is where it worked
    before. The gate chose it on more than similarity (which fix recurs among
    the look-alikes, what each runbook is declared for, the sides of a
    contradiction), so the match it rests on is likelier this incident's
    precedent than a closer look-alike fixed another way. The five shown stay
    the same five; a run that failed is not where it worked.
    """
    worked = next((s for s in top if runbook is not None and s.memory.resolution.runbook == runbook
                   and runbook_outcome(s.memory.resolution, runbook) == "succeeded"), None)
    if worked is None:
        return list(top)
    return [worked, *(s for s in top if s is not worked)]


def _listed_first(shown: Sequence[ScoredMemory], closest: Sequence[ScoredMemory], runbook: str | None) -> list[str]:
    """Say why the first match is not the closest, when it is not."""
    if not shown or shown[0] is closest[0]:
        return []
    return [f"{shown[0].memory.incident} is listed first: runbook {runbook} worked in it "
            f"({closest[0].memory.incident} comes before it by similarity and recognition)"]


def _matches(
    spec: IncidentSpec, top: Sequence[ScoredMemory], groups: Sequence[Sequence[ScoredMemory]], ctx: Context,
    settings: Settings,
) -> list[Match]:
    """What on-call reads of each match shown (`top`, in the order shown)."""
    repage_of = {m.memory.incident: g[0].memory.incident for g in groups for m in g[1:]}
    open_c = {
        m: c.name for c in open_contradictions(ctx.contradictions, [s.memory.incident for s in top]) for m in c.spec.memories
    }
    return [
        Match(
            incident=s.memory.incident,
            similarity=s.similarity,
            recognition=s.recognition_points,
            breakdown=s.breakdown.as_status(settings.weights),
            outcome=final_outcome(s.memory.resolution),
            runbook=s.memory.resolution.runbook,
            actions=[{"action": shown(a.action), "result": a.result, **({"reported": True} if a.reported else {})}
                     for a in s.memory.resolution.actions[-ACTIONS_SHOWN:]],
            actions_left_out=max(0, len(s.memory.resolution.actions) - ACTIONS_SHOWN),
            stale=memory_staleness(s.memory, ctx.migrations, ctx.topology, ctx.now),
            contradiction=open_c.get(s.memory.incident),
            repage_of=repage_of.get(s.memory.incident),
            ruled_out=[d.explain(s.memory.incident) for d in s.breakdown.ruled_out],
            shared_change=shared_change(spec, s.memory.spec),
        )
        for s in top
    ]


@dataclass(frozen=True)
class Gathered:
    """The evidence for the gate, and what a person reads beside the decision."""

    evidence: Evidence
    warnings: list[str]
    reasons: list[str]
    names: list[str]  # the precedents the evidence rests on
    offered: list[str] = field(default_factory=list)  # why the catalog offers what it does (novel mode too)


def _describing_manual_fix(spec: IncidentSpec, memory: EpisodicMemory, ctx: Context, unusable: set[str],
                           words: CatalogWords | None = None) -> FixMatch | None:
    """The catalog runbook that describes how a past incident was fixed by hand, none of `unusable`."""
    # A runbook that failed (or ran in part) in this very incident is not what fixed it by hand: taken
    # for its fix, the incident where it failed would be counted as its witness.
    tried = {rb for rb in ctx.catalog if runbook_outcome(memory.resolution, rb) in ("failed", "partial")}
    return runbook_for_fix(spec, [memory], ctx.catalog, ctx.topology, excluded=unusable | tried, words=words)


def offer_fixed_nearest(spec: IncidentSpec, scored: Sequence[ScoredMemory], offer: CatalogFit | None, ctx: Context,
                        stale: Mapping[str, str], floor: int) -> tuple[str, ...]:
    """The nearest past incidents, when the catalog's offer for a novel-looking incident fixed each of them.

    Under the novel bar no precedent is authoritative. But two routes that
    share nothing can agree: the catalog picks a runbook from this incident's
    own words, and memory's nearest incident was fixed by that runbook (it ran
    and worked there, or it describes the manual fix). Then the words were too
    few to show a recurrence (an alert page against a person's report), and
    the answer is advice, not exploration. The nearest must reach `floor`
    (`Settings.offer_window` under the novel bar), and every incident tied for
    nearest must agree, or none counts: a tie between fixes says nothing.
    Leave-one-history-out the rotations split: dev3 and the four half-terse
    variants gain novel precision (dev3 .773 -> .895) and lose no recall;
    dev loses one true novel (recall 1.0 -> .958); dev2 does not move. No
    runbook changes anywhere (docs/scoring.md).
    """
    best = max((s.similarity for s in scored), default=0)
    if offer is None or best < floor:
        return ()
    nearest = [s for s in scored if s.similarity == best]
    for s in nearest:
        res = s.memory.resolution
        if res.runbook is not None:
            fixed = res.runbook if runbook_outcome(res, res.runbook) == "succeeded" else None
        else:
            match = _describing_manual_fix(spec, s.memory, ctx, set(stale))
            fixed = match.runbook if match else None
        if fixed != offer.runbook:
            return ()
    return tuple(s.memory.incident for s in nearest)


def contradiction_sides(
    incident: Incident,
    contradictions: Sequence[Contradiction],
    evidence: Sequence[ScoredMemory],
    pool: Sequence[ScoredMemory],
    fix_of: Callable[[EpisodicMemory], str | None],
) -> list[list[Side]]:
    """For each contradiction that touches the evidence, its sides, the one this incident resembles first.

    A contradiction records fixes that each worked under their own
    conditions. The condition is in what each side's people wrote about it:
    its claims and its root causes as first confirmed (a later correction
    does not move a side onto another condition's incidents). The side whose words this
    incident repeats most is the one that applies, whichever was confirmed
    last, unless no side's words clearly lead and one side holds a memory
    clearly nearer this incident (`nearest_side_speaks`): then that side
    applies. On a tie, the side confirmed last, which was written knowing the
    other.

    A reconciled note that gives a side's condition as a number ("top tenant
    under about 10% of in-memory series: add ingesters (ingester-scale-out)")
    is read against the value this incident reports for it (`note_readings`):
    the side whose thresholds it meets comes before one whose thresholds it
    misses, whatever the words and the memories say. Only a number can tell
    two pages of one alert apart when the alert's text is the same on both.

    A report that says the other condition is absent ("nothing idle in
    transaction", "no sandbox near the time limit") repeats that condition's
    words while ruling it out, so a side whose claims or causes name what this
    incident denies comes after every side they do not: the denial is read as
    the similarity reads it against a precedent (`denied_symptoms`).
    """
    by_name = {s.memory.incident: s for s in pool}
    names = {s.memory.incident for s in evidence}
    denied = denied_symptoms(incident.spec)
    values = reported_values(f"{incident.spec.title}; {incident.spec.description}")
    said = {stem(w) for w in incident_words(incident.spec)}
    out: list[list[Side]] = []
    for c in contradictions:
        if not names.intersection(c.spec.memories):
            continue
        members: dict[str | None, list[ScoredMemory]] = defaultdict(list)
        for m in c.spec.memories:
            if m in by_name:
                members[fix_of(by_name[m].memory)].append(by_name[m])
        if len(members) < 2:
            continue
        claims = {cl.memory: cl.claim for cl in c.spec.claims}
        groups = list(members.items())
        documents = [
            tokens(" ".join(
                f"{claims.get(s.memory.incident, '')} {confirmed_cause(s.memory)}" for s in ms
            ))
            for _, ms in groups
        ]
        conditions = LexicalScorer(documents).relevances(incident_words(incident.spec))
        readings = note_readings(c, [rb for rb, _ in groups], values)
        shown = condition_shown(c, [rb for rb, _ in groups], said)
        read_any = any(readings)  # a value read against any side's threshold tells the sides apart
        sides = [
            Side(c.name, rb, tuple(s.memory.incident for s in ms), max(s.similarity for s in ms), round(condition, 3),
                 tuple(sorted({denied[stem(w)] for w in document if stem(w) in denied})),
                 tuple(r.says() for r in read if r.met), tuple(r.says() for r in read if not r.met),
                 unshown=shows is False and not read_any)
            for (rb, ms), condition, document, read, shows in zip(groups, conditions, documents, readings, shown)
        ]
        newest = {side.runbook: max(by_name[m].memory.resolved_at for m in side.memories) for side in sides}
        close = {sd.runbook for sd in contenders(sides)} if nearest_side_speaks(sides) else set()
        out.append(sorted(sides, key=lambda sd: (bool(sd.denied), -sd.thresholds_held, sd.runbook not in close,
                                                  -sd.similarity if sd.runbook in close else 0, -sd.condition,
                                                  -newest[sd.runbook].timestamp())))
    return out


def note_readings(contradiction: Contradiction, runbooks: Sequence[str | None],
                  values: list[Value]) -> list[list[Reading]]:
    """For each side (by its runbook), this incident's values read against the thresholds its reconciled note
    gives that side (`note_side`: the side a sentence of the note speaks of).

    Chosen on the observability history (session 52), where two pages of one alert, on either side of a
    contradiction, differed only in their numbers: two answers gained, and none moved on the other histories.
    Sentences that name no runbook but say one side's fix in words ("add consumers") gained dev3 and clinics
    an answer each, and lost none on the thirteen histories or the dev variants.
    """
    out: list[list[Reading]] = [[] for _ in runbooks]
    if values:
        for side, sentences in note_sentences(contradiction, runbooks).items():
            out[side] = [r for sentence in sentences for r in read_against(stated_thresholds(sentence), values)]
    return out


def condition_shown(contradiction: Contradiction, runbooks: Sequence[str | None], said: set[str]) -> list[bool | None]:
    """For each side, whether this incident shows something of the condition the reconciled note gives it:
    a word (stem) of that side's sentences that no other side's sentence, the topic or the runbook's own
    name says. None for a side the note gives no sentence, or when nothing is reconciled."""
    per_side = {side: {stem(w) for w in tokens(" ".join(sentences))}
                for side, sentences in note_sentences(contradiction, runbooks).items()}
    topic = {stem(w) for w in tokens(contradiction.spec.topic)}
    out: list[bool | None] = []
    for i, rb in enumerate(runbooks):
        if i not in per_side:
            out.append(None)
            continue
        others = set().union(*(words for j, words in per_side.items() if j != i))
        own = per_side[i] - others - topic - {stem(w) for w in tokens((rb or "").replace("-", " "))}
        out.append(bool(own & said))
    return out


def note_sentences(contradiction: Contradiction, runbooks: Sequence[str | None]) -> dict[int, list[str]]:
    """The sentences of a reconciled note by the side (its index in `runbooks`) each speaks of (`note_side`);
    none while the contradiction is open."""
    res = contradiction.spec.resolution
    out: dict[int, list[str]] = defaultdict(list)
    if res.state == "reconciled":
        for sentence in _SENTENCE.split(res.note[:READ_TEXT]):
            side = note_side(sentence, runbooks)
            if side is not None:
                out[side].append(sentence)
    return out


def note_side(sentence: str, runbooks: Sequence[str | None]) -> int | None:
    """The side (its index in `runbooks`) a sentence of a reconciled note speaks of, if one.

    The sentence names that side's runbook and no other's; or, naming none, it says more
    of the words of that runbook's name that the other sides' names lack ("add consumers"
    for ingest-scale-consumers against ingest-enlarge-insert-batches) than of any other's.
    """
    named = [i for i, rb in enumerate(runbooks) if rb and mentions(sentence, rb)]
    if named:
        return named[0] if len(named) == 1 else None
    own = [{stem(w) for w in tokens(rb.replace("-", " "))} if rb else set() for rb in runbooks]
    shared = set.intersection(*(o for o in own if o)) if any(own) else set()
    said = {stem(w) for w in tokens(sentence)}
    hits = [len((o - shared) & said) for o in own]
    best = max(hits, default=0)
    return hits.index(best) if best and hits.count(best) == 1 else None


_SENTENCE = re.compile(r"(?<=[.;])\s+")


# A side's conditions speak for this incident when its claims and causes say
# clearly more of its words than the next side's: at least this many times as
# much. Short of that (some of its words, but no side clearly ahead), the side
# holding the memory nearest this incident speaks, when that memory is
# NEARER_SIDE points nearer than every other side's; else the words still
# decide, then the side confirmed last. Over the ten histories (dev, dev2, dev3
# and seven written blind), 20 answers read a contradiction whose sides the two
# readings order differently; the conditions alone are right on 9, the nearest
# memory alone on 11 (and makes a dev answer unsafe: a fix that failed under
# these conditions, on a side 3 points nearer), this on 13. Replayed whole,
# runbook@1 rises on four of the ten by one answer each and falls on none; on
# the 76 variants of dev, dev2 and dev3 one gains and three lose an answer
# (one dev3 page whose fix is neither side's, with its runbooks' data cut).
# Without the NEARER_SIDE margin a dev answer 2 points nearer goes wrong too.
# Only the sides about as much in the words (`contenders`) are weighed by their
# memories: on voip two sides tied on the words and a third, five times behind,
# spoke for a page because its memory was nearest (session 51; nothing else
# moved on the twelve histories).
CLEAR_CONDITIONS = 1.5
NEARER_SIDE = 3


def contenders(sides: Sequence[Side]) -> list[Side]:
    """The sides this incident does not deny whose conditions are not clearly behind the leader's
    (CLEAR_CONDITIONS): the ones its words cannot tell apart."""
    kept = [s for s in sides if not s.denied]
    top = max((s.condition for s in kept), default=0.0)
    return [s for s in kept if s.condition * CLEAR_CONDITIONS > top]


def nearest_side_speaks(sides: Sequence[Side]) -> bool:
    """Some words say a condition, but two or more sides' conditions are about as much in them
    (`contenders`), and one of those sides' memory is clearly nearest (NEARER_SIDE). A side whose
    conditions are clearly behind takes no part: its nearer memory does not lift it over them."""
    close = contenders(sides)  # empty when no word says any side's condition
    if len(close) < 2:
        return False
    near = sorted((s.similarity for s in close), reverse=True)
    return near[0] - near[1] >= NEARER_SIDE


def side_reason(near: Side, others: Sequence[Side]) -> str:
    """The line that says which side of a contradiction speaks for this incident, and why.

    When the sides' conditions are about as much in this incident's words and
    one side's memory is clearly nearer, that side speaks, and the line says so; when nothing
    tells them apart, the side confirmed last speaks (`contradiction_sides`),
    and the line says so instead of claiming a resemblance the words do not show.
    A side put last because this incident denies what it names is named with
    the words denied.
    """
    def listed(sides: Sequence[Side]) -> str:
        return "; ".join(f"{', '.join(o.memories)} ({o.condition:.2f}, fixed by {o.runbook or 'hand'})" for o in sides)

    rest = listed(others)
    head = (f"contradiction {near.contradiction}: this incident resembles the side of {', '.join(near.memories)} "
            f"(its conditions' words {near.condition:.2f}, fixed by {near.runbook or 'hand'})")
    ruled = [o for o in others if o.denied and not near.denied]
    if ruled:
        return head + "".join(f"; its report denies {', '.join(repr(w) for w in o.denied)}, which the side of "
                              f"{', '.join(o.memories)} (fixed by {o.runbook or 'hand'}) names" for o in ruled)
    if others and near.thresholds_held > max(o.thresholds_held for o in others):
        read = "; ".join(f"the side of {', '.join(o.memories)} (fixed by {o.runbook or 'hand'}): "
                         f"{'; '.join([*o.met, *o.missed])}" for o in [near, *others] if o.met or o.missed)
        return (f"contradiction {near.contradiction}: read against the thresholds its reconciled note gives "
                f"each side, this incident's values put it on the side of {', '.join(near.memories)} "
                f"(fixed by {near.runbook or 'hand'}): {read}")
    if nearest_side_speaks([near, *others]):
        close = contenders([near, *others])
        rivals, behind = [o for o in others if o in close], [o for o in others if o not in close]
        return (f"contradiction {near.contradiction}: this incident resembles the side of {', '.join(near.memories)} "
                f"(its nearest memory, similarity {near.similarity} against "
                f"{', '.join(str(o.similarity) for o in rivals)}, fixed by {near.runbook or 'hand'}): the sides' "
                f"conditions are about as much in its words ({near.condition:.2f}; {listed(rivals)})"
                + (f"; clearly behind in them: {listed(behind)}" if behind else ""))
    if all(near.condition > o.condition for o in others):
        return f"{head} more than {rest}"
    return f"{head} as much as {rest}; the side confirmed last speaks"


# How much of a reconciliation's note, or of one claim, an answer repeats; the Contradiction holds the rest.
NOTE_SHOWN = 240
# How many of an open contradiction's claims a warning repeats (a person may list up to 64, 8 KB each).
CLAIMS_SHOWN = 4


def shown(text: str) -> str:
    """`text` on one line, cut to NOTE_SHOWN characters."""
    line = " ".join(text.split())
    return line if len(line) <= NOTE_SHOWN else line[: NOTE_SHOWN - 3].rstrip() + "..."


def reconciled_reason(contradiction: Contradiction) -> str | None:
    """Who reconciled a contradiction and what they wrote: the note says which condition calls for which fix."""
    res = contradiction.spec.resolution
    if res.state != "reconciled":
        return None
    who = reconciled_by(res.reconciled_by)
    when = f" on {res.reconciled_at:%Y-%m-%d}" if res.reconciled_at else ""
    return f"contradiction {contradiction.name} was reconciled {who}{when}: {shown(res.note)}"


def gather(
    incident: Incident,
    scored: Sequence[ScoredMemory],
    groups: Sequence[Sequence[ScoredMemory]],
    ctx: Context,
    settings: Settings,
) -> Gathered:
    """Everything the gate decides on, computed once, with the reasons a person can check."""
    spec = incident.spec
    best = max((s.similarity for s in scored), default=0)
    stale = stale_runbooks(ctx.migrations, ctx.now)
    # A runbook with a track record has a known territory: the incidents it
    # resolved, and none of them resembles a novel one. Its catalog entry still
    # speaks for it when it names this service or a neighbour, and every symptom
    # seen: generic fixes (a rollback, a rolling restart) meet new causes. A runbook never
    # run yet has only the catalog's word, and a partial fit is worth offering.
    explored = {name for name, rec in ctx.records.items() if rec.times_executed > 0}
    exploration = offer = best_catalog_fit(spec, ctx.catalog, ctx.topology, excluded=stale, proven=explored)
    # A runbook memory saw undo releases (it fixed precedents whose confirmed
    # cause named the release they followed) has a territory of its own: the
    # failures right after a release. For an incident that follows one, its
    # catalog entry speaks for it as for a runbook never run. Whether the
    # incident is novel is still asked of the stricter offer (offer_fixed_nearest).
    # Chosen on clinics (a regression after a release on a service none had
    # regressed on: the catalog alone offered the rollback, memory nothing),
    # replayed on the ten: learning, media-parcels, games and clinics gain an
    # answer each, none loses, and none of the 76 variants moves.
    territory: list[str] = []
    undid = release_undoers(scored) if shortly_after_release(spec) else {}
    if explored & undid.keys():
        exploration = best_catalog_fit(spec, ctx.catalog, ctx.topology, excluded=stale, proven=explored - undid.keys())
        if exploration is not None and exploration != offer and exploration.runbook in undid:
            territory.append(
                f"runbook {exploration.runbook} undid the releases that caused {', '.join(undid[exploration.runbook])} "
                f"(their confirmed causes name them), and this incident follows a release: its catalog entry "
                f"speaks for it here")

    def recognised(s: ScoredMemory) -> bool:
        return (s.similarity >= settings.recognition_floor
                and s.similarity + s.recognition_points >= settings.recognition_bar)

    below_bar = tuple(s for s in scored if s.similarity < settings.novel_bar and recognised(s))
    # Evidence's fields shared by both returns below, each of its own type.
    bars: dict[str, Any] = dict(
        best=best, novel_bar=settings.novel_bar, actionable_bar=settings.actionable_bar,
        disagreement_share=settings.disagreement_share, exploration=exploration,
        recognised=tuple(s.memory.incident for s in below_bar),
        unlisted=spec.service if unlisted(spec.service, ctx.catalog, ctx.topology) else None,
    )
    if best < settings.novel_bar and not below_bar:
        # Novel, unless the catalog's offer is what fixed the nearest past incident.
        nearest = offer_fixed_nearest(spec, scored, offer, ctx, stale, settings.novel_bar - settings.offer_window)
        return Gathered(Evidence(**bars, fixed_nearest=nearest), [], [], list(nearest), territory)
    # Once something is a precedent, its look-alikes within the window vote too,
    # those under the novel bar included: the bar says whether this incident is
    # novel, not which of its precedents count. (dev3 right on two incidents whose
    # fix had three look-alikes in the 50s against one at 66; dev and dev2 no
    # score moved. Clamping the window at the novel bar was the rule before.)
    floor = best - settings.evidence_window
    evidence = [g for g in groups if g[0].similarity >= floor or any(recognised(s) for s in g)]
    if not evidence:
        return Gathered(Evidence(**bars), [], [], [], territory)

    warnings: list[str] = []
    reasons = [
        f"{s.memory.incident} is recognised: similarity {s.similarity} is below the novel bar {settings.novel_bar}, "
        f"but with {s.recognition_points} recognition points (its confirmed outcome says this incident's words) "
        f"it reaches {settings.recognition_bar}"
        for s in below_bar
    ]
    reps = [g[0] for g in evidence]
    members = [s for g in evidence for s in g]
    # "The same conditions" are any real precedent, not only the closest ones:
    # a failure must not drop out of sight because a closer look-alike arrived.
    precedents = [s for s in scored if s.similarity >= settings.novel_bar or recognised(s)]
    # Runbooks the operator saw work under these conditions (memory keeps a
    # runbook only for a run it saw succeed): one person's word alone does not
    # block or out-vote them (consolidation.one_voice).
    fared = Outcomes()  # the same outcomes are asked of the same runbooks below, again and again
    seen_work = {s.memory.resolution.runbook: s.memory.incident for s in sorted(precedents, key=lambda p: p.similarity)
                 if s.memory.resolution.runbook and fared.of(s.memory.resolution, s.memory.resolution.runbook)
                 == "succeeded"}
    proven = set(seen_work)
    reasons += _one_voice_failures(precedents, seen_work)

    # A failure its confirmed cause puts on the release it followed recurs
    # after a release: where none is recorded before this incident, its fix
    # (undoing that release) and the fixes that failed on it are another
    # failure's. Across the ten histories, of 236 matches shown where such a
    # precedent meets an incident with no recent release, 10 are its real
    # precedents; with a recent release, 77 of 120.
    release_failures = {} if shortly_after_release(spec) else {
        s.memory.incident: release for s in [*precedents, *members] if (release := released_cause(s.memory))}

    def another_failure(memory: EpisodicMemory) -> bool:
        """A release's failure where no release came, or one fixed by a runbook declared only for what this
        incident does not show: another failure, whose fix and failures are not this one's."""
        if memory.incident in release_failures:
            return True
        rb = memory.resolution.runbook
        return rb is not None and rb in ctx.catalog and not addresses(spec, ctx.catalog[rb])

    own_failures = [s.memory for s in precedents if not another_failure(s.memory)]
    unusable = set(stale) | set(failed_before(own_failures, ctx.catalog.keys(), proven, fared))
    described: dict[str, FixMatch] = {}
    looked_up: dict[str, FixMatch | None] = {}
    catalog_words = CatalogWords(ctx.catalog)

    def fix_of(memory: EpisodicMemory) -> str | None:
        """The runbook a precedent stands for: the one it ran, or the one that describes its manual fix."""
        if memory.resolution.runbook is not None:
            return memory.resolution.runbook
        if memory.incident not in looked_up:  # asked once per precedent, the misses too
            found = _describing_manual_fix(spec, memory, ctx, unusable, catalog_words)
            looked_up[memory.incident] = found
            if found is not None:
                described[memory.incident] = found
        match = looked_up[memory.incident]
        return match.runbook if match else None

    by_name = {s.memory.incident: s for s in scored}
    sides = contradiction_sides(incident, ctx.contradictions, members, scored, fix_of)
    overruled, linked, why = _near_sides(sides, ctx.contradictions, members, by_name, fix_of)
    # A runbook that failed under another side's condition may still be the one written for this
    # side's manual fix: once the sides are known, the fixes are read again without the failures of
    # the memories they overrule. (voip: moving a trunk to TCP failed in a NAT drop, then described
    # the manual fix of the other condition, and stayed barred from it. voip and travel gain an
    # answer each; nothing else moves on the fourteen histories or the dev variants.)
    if overruled:
        narrower = set(stale) | set(failed_before([m for m in own_failures if m.incident not in overruled],
                                                  ctx.catalog.keys(), proven, fared))
        if narrower != unusable:
            unusable = narrower
            looked_up.clear()
            described.clear()
            sides = contradiction_sides(incident, ctx.contradictions, members, scored, fix_of)
            overruled, linked, why = _near_sides(sides, ctx.contradictions, members, by_name, fix_of)
    reasons += why
    for name, release in sorted(release_failures.items()):
        overruled.add(name)
        reasons.append(f"{name} was a failure of the release it followed ({release}, its confirmed cause says), and "
                       f"no release is recorded shortly before this incident: its fix and its failures do not count here")

    considered = [s.memory for s in [*precedents, *linked] if s.memory.incident not in overruled]
    # How near the nearest precedent each runbook worked in is (the last of seen_work's similarity order).
    worked_at = {rb: by_name[inc].similarity for rb, inc in seen_work.items()}
    failed, why = _failed_alike(spec, considered, ctx.catalog.keys(), ctx.catalog, worked_at, by_name, proven, fared)
    reasons += why
    for failed_rb, inc in sorted(failed.items()):
        warnings.append(f"runbook {failed_rb} was tried before under the same conditions and failed ({inc})")

    # The witnesses: the closest member of each family, and the near side of
    # any contradiction, less the sides this incident does not resemble.
    voters, why = _witnesses([rep for rep in [*reps, *linked] if rep.memory.incident not in overruled], proven)
    reasons += why
    support, ran_in, described_by = _votes(voters, fix_of, fared)
    for name, match in sorted(described.items()):
        if name in {s.memory.incident for s in described_by.get(match.runbook, [])}:
            reasons.append(match.why())

    blocked = _blocked_here(spec, support, stale, ctx.catalog)
    acting_elsewhere = _acting_elsewhere(spec, support, blocked, ctx,
                                         {rb: [*ran_in[rb], *described_by[rb]] for rb in support if rb is not None})
    blocked.update(acting_elsewhere)
    # A fix loses its vote when it failed in a precedent about as close as the
    # ones that back it; a failure in a remoter look-alike (another root cause,
    # perhaps) still keeps it from being actionable, but does not erase it.
    for rb in support:
        if rb is None or rb in blocked:
            continue
        backers = [*ran_in[rb], *described_by[rb]]
        near_bar = max(settings.novel_bar, max(s.similarity for s in backers) - settings.evidence_window)
        near = [s.memory for s in scored if s.similarity >= near_bar and s.memory.incident not in overruled]
        failed_near, _ = _failed_alike(spec, [*(m for m in near if not another_failure(m)), *(s.memory for s in linked)],
                                       [rb], ctx.catalog, worked_at, by_name, proven, fared)
        if rb in failed_near:
            blocked[rb] = f"failed before in {failed_near[rb]}"
        elif rb in (elsewhere := failed_before([m for m in near if another_failure(m)], [rb], proven, fared)):
            other = next(m for m in near if m.incident == elsewhere[rb])
            reasons.append(f"runbook {rb} failed in {other.incident}, another failure: it was fixed by runbook "
                           f"{other.resolution.runbook}, declared only for what this incident does not show")
    for rb, cause in blocked.items():
        if rb is not None:
            reasons.append(f"precedents used runbook {rb}, but it {cause}")

    fixes = tuple(
        Fix(rb, w, tuple(s.memory.incident for s in ran_in[rb]), tuple(s.memory.incident for s in described_by[rb]),
            blocked.get(rb))
        for rb, w in sorted(support.items(), key=lambda kv: -kv[1])
    )
    chosen = chosen_fix(fixes, settings.disagreement_share)
    leader = fixes[0] if fixes else None
    names = [s.memory.incident for s in members] + [s.memory.incident for s in linked]

    leader_stale = stale.get(leader.runbook or "") if leader else None
    replacement, ceiling = None, 0
    if chosen is None or leader_stale:
        replacement = _replacement(incident, [rb for rb in blocked if rb in stale], ctx, excluded={*stale, *failed, *acting_elsewhere})
        if leader is not None and leader_stale:
            # A replacement has no outcome behind it for this failure: it is
            # never trusted more than the stale fix it replaces is trusted now.
            # The stale memory still says how much its fix would have been
            # trusted, and by how much the migration cut that.
            backers = [by_name[n] for n in (*leader.ran_in, *leader.described)]
            score, adjusted, _ = actionability(leader.runbook, backers, leader.support / sum(support.values()), ctx)
            ceiling = min(CATALOG_CAP, score)
            warnings.extend(f"remembered fix {leader.runbook}: {w}" for w in adjusted)
        if replacement is not None:
            ceiling, why = _after_failures(min(ceiling, round(replacement.fit * 100)), failed)
            reasons.extend(why)

    score = 0
    if chosen is not None and chosen.runbook is not None and not leader_stale:
        backers = [by_name[n] for n in (*chosen.ran_in, *chosen.described)]
        reasons.append(
            f"{len(chosen.ran_in) + len(chosen.described)} of {len(voters)} independent precedents were resolved by "
            f"runbook {chosen.runbook}" + (f" ({len(chosen.described)} by hand, as it describes)" if chosen.described else "")
        )
        score, adjusted, why = actionability(chosen.runbook, backers, chosen.support / sum(support.values()), ctx)
        warnings.extend(adjusted)
        reasons.extend(why)
        if not chosen.ran_in:
            score = min(score, CATALOG_CAP)  # a runbook that never ran for this failure has only the catalog's word
        score, why = _after_failures(score, failed)
        reasons.extend(why)
        for spoken in (ranked_sides[0] for ranked_sides in sides):
            if spoken.runbook == chosen.runbook and spoken.unshown and score >= settings.actionable_bar:
                score = settings.actionable_bar - 1
                reasons.append(
                    f"contradiction {spoken.contradiction} was reconciled, and its note gives the side of "
                    f"{', '.join(spoken.memories)} (fixed by {spoken.runbook}) a condition this incident shows nothing "
                    f"of: no word of it, no value read against a threshold. Which side applies is a guess from "
                    f"the look of the page, so a person decides (actionability {score})")
                warnings.append(f"the reconciled note of contradiction {spoken.contradiction} says when "
                                f"{spoken.runbook} applies, and this incident does not show it: check before acting")
    elif chosen is not None:
        reasons.append(f"{len(chosen.described) or len(voters)} of {len(voters)} independent precedents were resolved by hand")

    contradicted = open_contradictions(ctx.contradictions, names)
    for c in contradicted:
        claims = "; ".join(f"{cl.memory}: {shown(cl.claim)}" for cl in c.spec.claims[:CLAIMS_SHOWN])
        more = len(c.spec.claims) - CLAIMS_SHOWN
        warnings.append(f"open contradiction {c.name} ({shown(c.spec.topic)}): {claims}"
                        + (f"; {more} more claim(s) in the Contradiction" if more > 0 else ""))

    newer, last_worked = None, ""
    if chosen is not None and chosen.runbook is not None and not leader_stale:
        last = max((by_name[n] for n in (*chosen.ran_in, *chosen.described)), key=lambda s: s.memory.resolved_at)
        newer = written_since(spec, ctx.catalog, ctx.topology, chosen.runbook, last.memory.resolved_at,
                              excluded={*stale, *failed, *acting_elsewhere})
        last_worked = f"{last.memory.incident}, resolved {last.memory.resolved_at.date().isoformat()}"

    chosen_runbook = ctx.catalog.get(chosen.runbook) if chosen is not None and chosen.runbook is not None else None
    target = undeclared_target(spec, chosen_runbook) if chosen_runbook is not None else None
    undeclared = (target, tuple(chosen_runbook.spec.services)) if chosen_runbook and target is not None else None
    unset = tuple(unset_parameters(spec, chosen_runbook)) if chosen_runbook is not None else ()
    left_out: tuple[str, ...] = ()
    covering = None
    if chosen is not None and chosen_runbook is not None and newer is None:
        fixed = [by_name[n].memory for n in (*chosen.ran_in, *chosen.described)]
        left_out, covering = _symptoms_left_out(spec, chosen_runbook, fixed, ctx, excluded={*stale, *failed, *acting_elsewhere})

    # Where the chosen runbook ran only on services next door by a guess, it
    # never ran where the topology says this failure could be.
    ran_where = {by_name[n].memory.spec.service for n in chosen.ran_in} if chosen is not None else set()
    guessed_only = tuple(sorted(ran_where)) if ran_where and ran_where <= ctx.guessed else ()

    manual = None
    if chosen is not None and chosen.runbook is not None and chosen.described:
        manual = FixMatch(chosen.runbook, max(described[n].relevance for n in chosen.described), chosen.described,
                          cited=any(described[n].cited for n in chosen.described))
    return Gathered(
        Evidence(
            **bars, fixes=fixes, chosen=chosen, actionability=score, leader_stale=leader_stale, failed=failed,
            contradictions=contradicted, sides=[s for ranked in sides for s in ranked],
            replacement=replacement, replacement_ceiling=ceiling, manual_match=manual,
            newer=newer, last_worked=last_worked, undeclared=undeclared, left_out=left_out, covering=covering,
            unset=unset, guessed_only=guessed_only,
        ),
        warnings, reasons, names, territory,
    )


def release_undoers(scored: Sequence[ScoredMemory]) -> dict[str, list[str]]:
    """Runbooks that fixed a release's failure (`released_cause`): runbook -> those precedents, nearest first."""
    out: dict[str, list[str]] = {}
    for s in scored:
        rb = s.memory.resolution.runbook
        if rb is not None and released_cause(s.memory):
            out.setdefault(rb, []).append(s.memory.incident)
    return out


def chosen_fix(fixes: Sequence[Fix], disagreement_share: float) -> Fix | None:
    """The best supported fix that is not blocked (`fixes` is best supported first).

    A manual fix that no runbook describes is no advice to act on: when a
    runbook has nearly as much support (`disagreement_share` of it), that is
    what a person should see, and the disagreement keeps it advisory.
    """
    usable = [f for f in fixes if f.blocked is None]
    if not usable:
        return None
    runbooks = [f for f in usable if f.runbook is not None]
    if usable[0].runbook is None and runbooks and runbooks[0].support >= disagreement_share * usable[0].support:
        return runbooks[0]
    return usable[0]


def _near_sides(
    sides: Sequence[Sequence[Side]], contradictions: Sequence[Contradiction], members: Sequence[ScoredMemory],
    by_name: Mapping[str, ScoredMemory], fix_of: Callable[[EpisodicMemory], str | None],
) -> tuple[set[str], list[ScoredMemory], list[str]]:
    """Contradictions: the side nearest this incident speaks; the others' votes and failures
    belong to other conditions. The memories overruled, the near sides' memories that join
    the evidence, and the reasons (which side, and a reconciliation's note).

    When the reconciled note's thresholds chose the side (`note_readings`), every precedent
    fixed by another side's runbook is of that side's condition too, listed in the
    contradiction or not: the numbers say this incident is not. (On the observability
    history two later incidents of the other condition out-voted the side the numbers chose;
    counting every such precedent out whichever way the side was chosen gained three answers
    and lost three over the thirteen histories, so only the numbers do it.)
    """
    overruled: set[str] = set()
    linked: list[ScoredMemory] = []
    reasons: list[str] = []
    by_contradiction = {c.name: c for c in contradictions}
    for ranked_sides in sides:
        near, others = ranked_sides[0], ranked_sides[1:]
        for side in others:
            overruled.update(side.memories)
        if others and near.thresholds_held > max(o.thresholds_held for o in others):
            other_fixes = {o.runbook for o in others if o.runbook} - {near.runbook}
            overruled.update(m.memory.incident for m in members if fix_of(m.memory) in other_fixes)
        linked += [by_name[m] for m in near.memories if by_name[m] not in members and by_name[m] not in linked]
        reasons.append(side_reason(near, others))
        said = reconciled_reason(by_contradiction[near.contradiction])
        if said:
            reasons.append(said)
    return overruled, linked, reasons


def _symptoms_left_out(
    spec: IncidentSpec, chosen: Runbook, backers: Sequence[EpisodicMemory], ctx: Context, excluded: set[str]
) -> tuple[tuple[str, ...], CatalogFit | None]:
    """What this incident shows that the chosen runbook is not declared for and none of
    its precedents showed, and the catalog's best fit among runbooks declared for all of it.

    A runbook is written for the symptoms it declares, and memory knows it for
    the ones its precedents showed. When this incident shows a symptom
    neither covers, and another runbook is declared for all of them (every
    runbook held to a whole cover: `proven` is the catalog), that one may be
    the fix the team wrote for this variant. Leave-one-history-out every
    rotation takes it: dev and dev3 one answer each to the right runbook
    (dev's was its one wrong actionable answer), dev2 none.
    """
    seen_fixed = {t for m in backers for t in m.spec.symptoms}
    left_out = tuple(sorted(set(spec.symptoms) - set(chosen.spec.symptoms) - seen_fixed))
    if not left_out:
        return (), None
    return left_out, best_catalog_fit(spec, ctx.catalog, ctx.topology, excluded={chosen.name, *excluded},
                                      proven=ctx.catalog)


def _witnesses(voters: Sequence[ScoredMemory], proven: set[str]) -> tuple[list[ScoredMemory], list[str]]:
    """The precedents that vote, and why some do not: a precedent only one person vouched for
    (consolidation.one_voice) does not out-vote a runbook the operator saw work."""
    heard = [v for v in voters if one_voice(v.memory)]
    witness = next((v for v in voters if v.memory.resolution.runbook in proven), None)
    if not heard or witness is None:
        return list(voters), []
    return [v for v in voters if v not in heard], [
        f"{', '.join(v.memory.incident for v in heard)}: only the word of whoever opened and resolved "
        f"{'it' if len(heard) == 1 else 'each'} ({', '.join(sorted({str(one_voice(v.memory)) for v in heard}))}; "
        f"the operator ran nothing there), which does not out-vote runbook {witness.memory.resolution.runbook}, "
        f"seen to work in {witness.memory.incident}"
    ]


Votes = tuple[dict[str | None, float], dict[str | None, list[ScoredMemory]], dict[str | None, list[ScoredMemory]]]


def _votes(voters: Sequence[ScoredMemory], fix_of: Callable[[EpisodicMemory], str | None], fared: Outcomes) -> Votes:
    """Each independent precedent votes for the fix that resolved it, weighted by similarity.

    Returns each fix's support, the precedents it ran in, and those fixed by
    hand in a way it describes. A runbook that failed where it ran gets no vote there.
    """
    support: dict[str | None, float] = {}
    ran_in: dict[str | None, list[ScoredMemory]] = defaultdict(list)
    described_by: dict[str | None, list[ScoredMemory]] = defaultdict(list)
    for rep in voters:
        ran = rep.memory.resolution.runbook
        if ran is not None and fared.of(rep.memory.resolution, ran) == "failed":
            continue
        rb = fix_of(rep.memory)
        # Look-alikes of one family are not independent witnesses: a fix is as
        # strong as its best precedent, and each further one adds a little.
        support[rb] = max(support[rb], rep.similarity) + FURTHER_WITNESS if rb in support else rep.similarity
        (ran_in if ran is not None else described_by)[rb].append(rep)
    return support, ran_in, described_by


def _blocked_here(
    spec: IncidentSpec, remembered: Iterable[str | None], stale: Mapping[str, str], catalog: Mapping[str, Runbook]
) -> dict[str | None, str]:
    """Why a remembered runbook cannot be this incident's fix, whatever the precedents say: runbook -> the cause."""
    named = [rb for rb in remembered if rb is not None]
    blocked: dict[str | None, str] = {rb: f"is stale after migration {stale[rb]}" for rb in named if rb in stale}
    # Deleted, renamed, or written only where the memory came from: no steps to run here.
    blocked.update({rb: "is not in the catalog" for rb in named if rb not in catalog and rb not in blocked})
    # The catalog never offers a runbook that shares no symptom with the
    # incident (`addresses`): one declared only for what this incident does
    # not show was its precedent's failure's fix, not this one's.
    # Leave-one-history-out every rotation takes it: no answer of dev moves,
    # and on dev2 and dev3 one each, a lock-wait page and a DNS failure, to
    # the catalog's right runbook.
    for rb in named:
        if rb not in blocked and not addresses(spec, catalog[rb]):
            blocked[rb] = (f"is declared for {', '.join(catalog[rb].spec.symptoms)}, "
                           f"not for what this incident shows ({', '.join(spec.symptoms)})")
    return blocked


def _failed_alike(
    spec: IncidentSpec, precedents: Sequence[EpisodicMemory], runbooks: Iterable[str],
    catalog: Mapping[str, Runbook], worked_at: Mapping[str, int], by_name: Mapping[str, ScoredMemory],
    proven: Collection[str], fared: Outcomes,
) -> tuple[dict[str, str], list[str]]:
    """The runbooks that failed before under this incident's conditions (guards.failed_before), and why
    a failure was not held against its runbook.

    Two look-alikes, each fixed its own way, and one's fix failed in the other
    first: the failure counts here unless the runbook worked in a precedent at
    least as near as the one it failed in, and that one did not show a symptom
    the runbook is declared for, its own fix is not, and this incident shows
    (a detection pack reverted on a page of verifiers falling behind: nothing
    to revert). Tags are written unevenly, so a missing tag alone says little
    (a leak's first report tagged no timeout where scaling out failed): the
    nearer success is what makes it another condition. A precedent that
    declared no symptoms, or was fixed by hand, is not read as lacking any.
    Chosen on games (two pages two points apart whose fixes were each other's
    failures), replayed on twelve histories and the dev variants: games and a
    half-terse dev3 gain an answer each, nothing else moves.
    """
    failed = failed_before(precedents, runbooks, proven, fared)
    why: list[str] = []
    memories = {m.incident: m for m in precedents}
    for rb, where in sorted(failed.items()):
        failed_in = by_name.get(where)
        if rb not in catalog or failed_in is None or worked_at.get(rb, -1) < failed_in.similarity:
            continue
        if not (absent := _condition_absent(spec, memories[where], catalog[rb], catalog)):
            continue
        alike = [m for m in precedents if not _condition_absent(spec, m, catalog[rb], catalog)]
        failed.pop(rb)
        failed.update(failed_before(alike, [rb], proven, fared))
        why.append(f"runbook {rb} failed in {where}, which did not show {', '.join(absent)}: the runbook is "
                   f"declared for it and this incident shows it, and it worked in a precedent as near, so that "
                   f"failure was under other conditions")
    return failed, why


def _condition_absent(spec: IncidentSpec, memory: EpisodicMemory, runbook: Runbook,
                      catalog: Mapping[str, Runbook]) -> tuple[str, ...]:
    """The symptoms a runbook is declared for, and the runbook that fixed a precedent is not, that this
    incident shows and the precedent, which declared some, did not."""
    fix = catalog.get(memory.resolution.runbook or "")
    if not memory.spec.symptoms or fix is None:
        return ()
    return tuple(sorted((set(spec.symptoms) & set(runbook.spec.symptoms))
                        - set(memory.spec.symptoms) - set(fix.spec.symptoms)))


def _acting_elsewhere(
    spec: IncidentSpec, remembered: Iterable[str | None], blocked: Mapping[str | None, str], ctx: Context,
    backers: Mapping[str, Sequence[ScoredMemory]],
) -> dict[str, str]:
    """Remembered runbooks that act only where this failure cannot be: runbook -> the cause.

    A runbook declared only for services this one neither calls (however far
    down) nor is called by acts on another place: a page shaped like another
    service's (the same alert grammar, the same symptom) is not that
    service's failure, and its fix restarts or scales that service. Only a
    service the topology names is judged (one it does not name has guessed
    neighbours), and only a catalog that names incidents' services at all.
    A runbook that fixed a precedent this same service paged for is not
    judged either: the failure reached here by a path the graph does not
    draw (a loader feeding a store a console's figures come from), and
    memory saw it. Found on adtech, where pages of one audience failure lost
    their fix to the graph; a precedent paged from a neighbour does not
    count (so taken, it cost payments an answer the rule had gained).
    """
    if spec.service not in ctx.topology.services or ctx.guessed or unlisted(spec.service, ctx.catalog, ctx.topology):
        return {}
    reach = ctx.topology.within_reach(spec.service)
    out: dict[str, str] = {}
    for rb in remembered:
        if rb is None or rb in blocked:
            continue
        if any(s.memory.spec.service == spec.service for s in backers.get(rb, ())):
            continue
        services = ctx.catalog[rb].spec.services
        # A service the graph names without an edge (a NAT gateway, a shared
        # cache nobody drew) is used by whoever uses it: the graph cannot say.
        if services and reach.isdisjoint(services) and all(ctx.topology.neighbours(s) for s in services):
            out[rb] = (f"acts on {', '.join(services)}, which {spec.service} does not call, directly or further down, "
                       f"and which does not call {spec.service}")
    return out


def _one_voice_failures(precedents: Sequence[ScoredMemory], seen_work: Mapping[str, str]) -> list[str]:
    """The reasons a runbook the operator saw work stays usable although one person says it failed here."""
    out = []
    for s in precedents:
        who = one_voice(s.memory)
        if who is None:
            continue
        for rb, seen in sorted(seen_work.items()):
            if runbook_outcome(s.memory.resolution, rb) == "failed":
                out.append(f"runbook {rb} failed in {s.memory.incident} on the word of {who} alone (who opened and "
                           f"resolved it; the operator ran nothing there): not held against it, the operator saw it "
                           f"work in {seen}")
    return out


def _replacement(
    incident: Incident, stale_fixes: Sequence[str | None], ctx: Context, excluded: set[str]
) -> CatalogFit | None:
    """A catalog runbook to try where memory's fix is blocked.

    When a migration made the fix stale, the replacement is the stale
    runbook's successor, when the catalog has one (catalog.successor); else a
    runbook for the migrated service (the precedent's fix acted there,
    whichever service paged); otherwise, the best fit for the paging service.
    """
    stale = stale_runbooks(ctx.migrations, ctx.now)
    for rb in stale_fixes:
        after = successor(incident.spec, rb, ctx.catalog, ctx.topology, excluded) if rb and rb in ctx.catalog else None
        if after is not None:
            return after
    targets = {m.spec.target_service for m in ctx.migrations if m.name in {stale.get(rb or "") for rb in stale_fixes}}
    fits = [
        best_catalog_fit(incident.spec.model_copy(update={"service": t}), ctx.catalog, ctx.topology, excluded)
        for t in sorted(targets)
    ]
    fits.append(best_catalog_fit(incident.spec, ctx.catalog, ctx.topology, excluded))
    return max((f for f in fits if f), key=lambda f: f.fit, default=None)


def _after_failures(actionability: int, failed: Mapping[str, str]) -> tuple[int, list[str]]:
    """Fixes already failed under these conditions: whatever is chosen now is
    chosen on a failure mode that has fooled people before. The score, and the reason when it fell."""
    if not failed:
        return actionability, []
    after = max(0, actionability - FAILED_FIX_POINTS * len(failed))
    return after, [f"actionability {actionability} -> {after}: {len(failed)} fix(es) already failed under these conditions"]


def actionability(
    runbook: str | None, supporting: Sequence[ScoredMemory], share: float, ctx: Context
) -> tuple[int, list[str], list[str]]:
    """Start from the best supporting precedent's similarity, then take off for each doubt.

    Returns the score, the warnings a stale memory raises, and the reasons.
    """
    if runbook is None or not supporting:
        return 0, [], []
    warnings: list[str] = []
    score = float(max(s.similarity for s in supporting))
    score -= (1 - share) * 30  # the other precedents point elsewhere
    rate = win_rate(ctx.records.get(runbook, RunbookRecord()))
    score -= (1 - rate) * WIN_RATE_WEIGHT
    rb = ctx.catalog.get(runbook)
    if rb is not None:
        risk = riskiest(s.risk for s in rb.spec.steps)
        score -= RISK_DEDUCTION[risk] if risk is not None else 0
    # The first stale backer speaks for them all; the rest are not looked at.
    stale = next(
        (st for s in supporting if (st := memory_staleness(s.memory, ctx.migrations, ctx.topology, ctx.now))), None
    )
    if stale is not None:
        before = round(score)
        # The floor keeps a stale memory's word worth something; it never lifts one that was lower.
        score = max(min(STALE_FLOOR, score), score - stale.deduction)
        warnings.append(
            f"actionability adjusted from {before} to {round(score)} because {stale.why} "
            f"({stale.old_arch} -> {stale.new_arch})"
        )
    return max(0, min(100, round(score))), warnings, [f"win rate of {runbook} is {rate:.2f} (smoothed)"]
