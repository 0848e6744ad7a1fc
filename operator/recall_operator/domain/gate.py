"""The gate: an ordered chain of small policies that turns evidence into a mode.

Each policy looks at the gathered evidence (see recommend.py) and either
decides, with the mode, the runbook to show and a reason, or passes to the
next. The chain is read top to bottom here and nowhere else: the first
policy that decides wins, and the last one always does.

    catalog_fixed_nearest    -> advisory    under the novel bar, but the catalog's offer fixed the nearest past incident
    nothing_similar          -> novel       no precedent is close enough, and none is recognised
    remembered_fix_stale     -> advisory    memory's fix was made stale by a migration
    no_runbook_remembered    -> advisory    every precedent was fixed by hand, or every fix is blocked
    newer_runbook_written    -> advisory    the catalog got a better-fitting runbook after memory's fix last worked
    symptoms_left_out        -> advisory    a symptom seen is neither declared by memory's fix nor seen fixed by it; another runbook covers all
    fix_failed_here          -> advisory    the chosen fix failed before under these conditions
    fix_for_other_services   -> advisory    the chosen runbook would act on a service it does not list
    contradiction_open       -> advisory    confirmed outcomes disagree and nobody reconciled them
    precedents_disagree      -> advisory    another fix has nearly as much support
    fix_from_catalog_only    -> advisory    the runbook describes a manual fix but never ran for it
    below_actionable_bar     -> advisory    too many doubts
    neighbour_guessed        -> advisory    the fix ran only next door, and the topology does not say it is next door
    values_missing           -> advisory    the runbook needs a value nothing gives
    act                      -> actionable
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from recall_operator.domain.catalog import CatalogFit, FixMatch
from recall_operator.domain.models import Contradiction, Mode


@dataclass(frozen=True)
class Fix:
    """One way the precedents were fixed, with everything that speaks for and against it."""

    runbook: str | None  # None: by hand, and no runbook describes it
    support: float  # similarity-weighted votes of the precedents behind it
    ran_in: tuple[str, ...] = ()  # precedents in which this runbook itself ran
    described: tuple[str, ...] = ()  # precedents fixed by hand in a way this runbook describes
    blocked: str | None = None  # why it may not be chosen (stale, failed before)


@dataclass(frozen=True)
class Side:
    """One side of a contradiction: the memories that were fixed one way."""

    contradiction: str
    runbook: str | None
    memories: tuple[str, ...]
    similarity: int  # of its memory closest to this incident
    condition: float = 0.0  # how much of this incident's words its claims and root causes say
    denied: tuple[str, ...] = ()  # words of its claims and root causes that this incident says are not happening
    # This incident's values read against the thresholds its reconciled note gives this side
    # (recommend.note_readings): the ones that meet them, and the ones that miss them.
    met: tuple[str, ...] = ()
    missed: tuple[str, ...] = ()
    # The reconciled note gives this side a condition, and this incident shows none of it:
    # no word of it that the other sides' conditions and the topic lack, no value read against
    # any side's threshold.
    unshown: bool = False

    @property
    def thresholds_held(self) -> int:
        return len(self.met) - len(self.missed)


@dataclass(frozen=True)
class Evidence:
    """What the policies decide on; gathered once by recommend.gather()."""

    best: int  # the best similarity of any precedent
    novel_bar: int
    actionable_bar: int
    fixes: tuple[Fix, ...] = ()  # best supported first
    chosen: Fix | None = None  # the best supported fix that is not blocked
    actionability: int = 0
    leader_stale: str | None = None  # the stale leading fix's migration, when it leads
    failed: Mapping[str, str] = field(default_factory=dict)  # runbook -> the precedent it failed in
    contradictions: Sequence[Contradiction] = ()  # open ones among the evidence
    sides: Sequence[Side] = ()  # the sides of every contradiction among the evidence
    disagreement_share: float = 0.8
    exploration: CatalogFit | None = None  # what the catalog offers a novel incident
    replacement: CatalogFit | None = None  # a catalog runbook in place of a stale or blocked fix
    replacement_ceiling: int = 0
    manual_match: FixMatch | None = None  # the runbook that describes the manual fixes
    recognised: tuple[str, ...] = ()  # below the novel bar, but their confirmed outcomes say what this one says
    fixed_nearest: tuple[str, ...] = ()  # below the novel bar: the nearest past incidents, which `exploration` fixed
    newer: CatalogFit | None = None  # the catalog's best fit, written after the chosen fix last worked
    last_worked: str = ""  # when and where the chosen fix last worked, for the reason
    # The chosen runbook's $(SERVICE) here, and the services it lists, when those do not include it.
    undeclared: tuple[str, tuple[str, ...]] | None = None
    # What this incident shows that the chosen runbook is not declared for and no precedent
    # it fixed showed, and the catalog's best fit among the runbooks declared for all of it.
    left_out: tuple[str, ...] = ()
    covering: CatalogFit | None = None
    # The $(NAME)s the chosen runbook's commands use that neither it (a default) nor the incident gives.
    unset: tuple[str, ...] = ()
    # The services the chosen runbook ran on, when each is a neighbour only by a guess (Context.guessed).
    guessed_only: tuple[str, ...] = ()
    # The paging service, when the catalog has runbooks and none lists it or a neighbour (catalog.unlisted).
    unlisted: str | None = None

    def unlisted_note(self) -> str:
        """Why no catalog runbook could be offered, when the catalog's names are the likely reason; else ""."""
        if self.unlisted is None:
            return ""
        return (f": none lists {self.unlisted} or a neighbour of it (a runbook is matched to spec.service by name,"
                " so one meant for it under another name is never offered)")


@dataclass(frozen=True)
class Decision:
    mode: Mode
    runbook: str | None
    source: str | None  # "memory", "catalog", or None
    policy: str
    reason: str
    actionability: int = 0
    warnings: tuple[str, ...] = ()


Policy = Callable[[Evidence], Decision | None]


def catalog_fixed_nearest(e: Evidence) -> Decision | None:
    """Under the novel bar, but the catalog's runbook for this incident is what fixed its nearest past incident."""
    offer = e.exploration
    if e.best >= e.novel_bar or e.recognised or not e.fixed_nearest or offer is None:
        return None
    return Decision(
        "advisory", offer.runbook, "catalog", "catalog_fixed_nearest",
        f"best similarity {e.best} is below the novel bar {e.novel_bar}, but catalog runbook {offer.runbook} fits "
        f"this incident ({offer.why}) and is what fixed its nearest past incident ({', '.join(e.fixed_nearest)}): "
        "taken for a recurrence the words do not show, and shown as advice",
        warnings=("no precedent reaches the novel bar; the runbook is the catalog's, seen to fix the nearest "
                  "incident: a person decides",),
    )


def nothing_similar(e: Evidence) -> Decision | None:
    if e.best >= e.novel_bar or e.recognised:
        return None
    offer = e.exploration
    reason = f"best similarity {e.best} is below the novel bar {e.novel_bar}: no precedent is authoritative"
    if offer is not None:
        reason += f"; catalog runbook {offer.runbook} fits ({offer.why}), its dry-run steps are offered to explore"
    elif e.unlisted is not None:
        reason += f"; no catalog runbook fits{e.unlisted_note()}"
    return Decision(
        "novel", offer.runbook if offer else None, "catalog" if offer else None, "nothing_similar", reason,
        warnings=("novel incident: only read-only exploratory steps are offered",),
    )


def _catalog_instead(e: Evidence, policy: str, why: str, warning: str) -> Decision:
    fit = e.replacement
    reason = why + (f"; catalog runbook {fit.runbook} fits instead ({fit.why})" if fit
                    else f"; no catalog runbook fits instead{e.unlisted_note()}")
    return Decision(
        "advisory", fit.runbook if fit else None, "catalog" if fit else None, policy, reason,
        actionability=min(e.replacement_ceiling, round(fit.fit * 100)) if fit else 0, warnings=(warning,),
    )


def remembered_fix_stale(e: Evidence) -> Decision | None:
    if e.leader_stale is None:
        return None
    leader = e.fixes[0].runbook
    return _catalog_instead(
        e, "remembered_fix_stale", f"the best supported fix, runbook {leader}, is stale after migration {e.leader_stale}",
        "the fix that memory knows no longer applies; a person must decide",
    )


def no_runbook_remembered(e: Evidence) -> Decision | None:
    if e.chosen is not None and e.chosen.runbook is not None:
        return None
    if e.chosen is None:
        return _catalog_instead(
            e, "no_runbook_remembered", "every fix the precedents used is blocked here",
            "the fixes that memory knows are blocked here; a person must decide",
        )
    # Fixed by hand, and no catalog runbook describes what was done.
    return Decision(
        "advisory", None, None, "no_runbook_remembered",
        f"the closest precedents were fixed by hand ({', '.join(e.chosen.described) or 'no runbook'}) "
        f"and no catalog runbook for what this incident shows describes that fix{e.unlisted_note()}",
        warnings=("memory knows this failure, but only manual fixes; a person must decide",),
    )


def _catalog_over_memory(e: Evidence, fit: CatalogFit, policy: str, reason: str, warning: str) -> Decision:
    """Another runbook than memory's fix, shown advisory and never trusted above memory's own score."""
    return Decision(
        "advisory", fit.runbook, "catalog", policy, reason,
        actionability=min(e.actionability, round(fit.fit * 100)), warnings=(warning,),
    )


def newer_runbook_written(e: Evidence) -> Decision | None:
    if e.newer is None or e.chosen is None or e.chosen.runbook is None:
        return None
    fit, remembered = e.newer, e.chosen.runbook
    return _catalog_over_memory(
        e, fit, "newer_runbook_written",
        f"runbook {fit.runbook} was written after memory's fix, runbook {remembered}, last worked ({e.last_worked}), "
        f"and the catalog fits it best to this incident ({fit.why})",
        f"runbook {fit.runbook} is newer than what memory knows, and never ran for this failure; "
        f"memory's fix was runbook {remembered}: a person decides",
    )


def symptoms_left_out(e: Evidence) -> Decision | None:
    if e.covering is None or not e.left_out or e.chosen is None or e.chosen.runbook is None:
        return None
    fit, remembered = e.covering, e.chosen.runbook
    return _catalog_over_memory(
        e, fit, "symptoms_left_out",
        f"memory's fix, runbook {remembered}, is not declared for {', '.join(e.left_out)}, which this incident shows; "
        f"runbook {fit.runbook} is declared for every symptom seen ({fit.why})",
        f"runbook {fit.runbook} covers what this incident shows, but memory never saw it fix this failure; "
        f"memory's fix was runbook {remembered}: a person decides",
    )


def _advisory(e: Evidence, policy: str, reason: str, warning: str | None = None) -> Decision:
    assert e.chosen is not None
    return Decision(
        "advisory", e.chosen.runbook, "memory", policy, reason, e.actionability, (warning,) if warning else ()
    )


def fix_failed_here(e: Evidence) -> Decision | None:
    rb = e.chosen.runbook if e.chosen else None
    if rb is None or rb not in e.failed:
        return None
    return _advisory(
        e, "fix_failed_here", f"runbook {rb} failed before under these conditions ({e.failed[rb]})",
        f"runbook {rb} is shown because closer precedents back it, but it failed before here: not actionable",
    )


def fix_for_other_services(e: Evidence) -> Decision | None:
    if e.undeclared is None or e.chosen is None:
        return None
    target, services = e.undeclared
    rb = e.chosen.runbook
    return _advisory(
        e, "fix_for_other_services",
        f"runbook {rb} acts on $(SERVICE), which is {target} here, but it is written for {', '.join(services)}",
        f"runbook {rb} would act on {target}, a service it does not list: to run it against one it lists, "
        "a person sets that service as spec.parameters.SERVICE of the incident",
    )


def neighbour_guessed(e: Evidence) -> Decision | None:
    if not e.guessed_only or e.chosen is None:
        return None
    where = ", ".join(e.guessed_only)
    return _advisory(
        e, "neighbour_guessed",
        f"runbook {e.chosen.runbook} ran only on {where}, a neighbour by what runbooks and reports say, "
        "not by the topology",
        f"the topology does not say this service calls or is called by {where}: add it to a topology ConfigMap, "
        "and a fix seen there can be acted on here",
    )


def values_missing(e: Evidence) -> Decision | None:
    if not e.unset or e.chosen is None:
        return None
    rb, names = e.chosen.runbook, ", ".join(e.unset)
    return _advisory(
        e, "values_missing", f"runbook {rb} needs {names}, which nothing gives: its commands would run with it empty",
        f"runbook {rb} needs {names}, which neither the Incident (spec.parameters) nor the Runbook (a default) "
        "gives: set it on the Incident and the plan can be approved",
    )


def contradiction_open(e: Evidence) -> Decision | None:
    if not e.contradictions:
        return None
    names = ", ".join(c.name for c in e.contradictions)
    return _advisory(e, "contradiction_open", f"open contradiction {names}: confirmed outcomes disagree")


def precedents_disagree(e: Evidence) -> Decision | None:
    usable = [f for f in e.fixes if f.blocked is None]
    if e.chosen is None or len(usable) < 2:
        return None
    runner_up = next(f for f in usable if f is not e.chosen)
    if runner_up.support < e.disagreement_share * max(e.chosen.support, usable[0].support):
        return None
    warning = (
        f"precedents disagree: {runner_up.runbook or 'a manual fix'} has almost as much support as "
        f"{e.chosen.runbook or 'a manual fix'}"
    )
    return _advisory(e, "precedents_disagree", warning, warning)


def fix_from_catalog_only(e: Evidence) -> Decision | None:
    if e.chosen is None or e.chosen.ran_in:
        return None
    return Decision(
        "advisory", e.chosen.runbook, "catalog", "fix_from_catalog_only",
        e.manual_match.why() if e.manual_match else f"runbook {e.chosen.runbook} describes the manual fixes",
        e.actionability,
        (f"runbook {e.chosen.runbook} never ran for this failure: it is chosen from the catalog, on memory's word",),
    )


def below_actionable_bar(e: Evidence) -> Decision | None:
    if e.actionability >= e.actionable_bar:
        return None
    return _advisory(e, "below_actionable_bar", f"actionability {e.actionability} is below the bar {e.actionable_bar}")


def act(e: Evidence) -> Decision:
    assert e.chosen is not None
    return Decision(
        "actionable", e.chosen.runbook, "memory", "act",
        f"actionability {e.actionability} reaches the bar {e.actionable_bar}", e.actionability,
    )


CHAIN: tuple[Policy, ...] = (
    catalog_fixed_nearest,
    nothing_similar,
    remembered_fix_stale,
    no_runbook_remembered,
    newer_runbook_written,
    symptoms_left_out,
    fix_failed_here,
    fix_for_other_services,
    contradiction_open,
    precedents_disagree,
    fix_from_catalog_only,
    below_actionable_bar,
    # Last before acting: they speak only of an answer that would otherwise be actionable.
    neighbour_guessed,
    values_missing,
    act,
)


def decide(e: Evidence, chain: Sequence[Policy] = CHAIN) -> Decision:
    """The first policy that decides; a chain without `act` still ends in advisory."""
    for policy in chain:
        decision = policy(e)
        if decision is not None:
            return decision
    if e.chosen is None:
        return Decision("advisory", None, None, "end", "no policy decided")
    return _advisory(e, "end", "no policy decided")
