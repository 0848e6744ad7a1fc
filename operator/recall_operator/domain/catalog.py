"""Choosing a runbook from the catalog when memory has nothing to say.

A Runbook declares where it applies (`services`) and what it addresses
(`symptoms`); that declaration is weaker evidence than a confirmed outcome,
so a catalog choice is never more than advisory on its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from recall_operator.domain.models import EpisodicMemory, IncidentSpec, Runbook
from recall_operator.domain.similarity import LEXICAL_SATURATION, LexicalScorer, incident_words, overlap
from recall_operator.domain.text import mentions, tokens
from recall_operator.domain.topology import Topology

# Below this fit a runbook is not offered at all: service or symptoms alone do not make a fix.
CATALOG_FIT_BAR = 0.45
# A remembered manual fix "is" a catalog runbook when the runbook's own words
# (title, symptoms, step names and commands) carry at least this share of what
# the fix and the incident say, as the lexical term measures it. On the three
# development histories the runbook written after a manual fix scores 0.22 to
# 0.6, and the nearest runbook of a failure that never got one 0.15 to 0.28;
# the bar was chosen leave-one-history-out (see the README).
FIX_MATCH_BAR = 0.25
# A Runbook need not declare symptoms, and a GitOps repository may hold
# runbooks written without them; the catalog then reads what such a runbook is
# for from its words, as it reads a manual fix: the lexical term's measure of
# this incident's words in the runbook's, against the whole catalog, counting
# as declared symptoms shared in full from LEXICAL_SATURATION up, and not at
# all under this bar. On the three histories with every runbook's symptoms
# taken away (and with every other one's), each leave-one-history-out rotation
# chose a bar from 0.05 to 0.15 and lifted the left-out history's runbook@1,
# memory on and off (docs/scoring.md); the higher end leaves memory at or above
# what it chose before on each.
DESCRIBED_BAR = 0.15


@dataclass(frozen=True)
class CatalogFit:
    runbook: str
    fit: float  # 0..1
    why: str
    shared_symptoms: tuple[str, ...] = ()
    # For a runbook that declares no symptoms: how much of this incident its words say.
    described: float = 0.0

    @property
    def for_what_is_seen(self) -> bool:
        """The runbook is for what this incident shows: a declared symptom it shows, or words that say it."""
        return bool(self.shared_symptoms) or self.described >= DESCRIBED_BAR


def catalog_fit(spec: IncidentSpec, runbook: Runbook, topology: Topology, described: float = 0.0) -> CatalogFit:
    """How well a runbook fits this incident; `described` is `described_by_words`' value for one declaring no symptoms."""
    services = set(runbook.spec.services)
    if spec.service in services:
        service, where = 1.0, f"applies to {spec.service}"
    elif services & topology.neighbours(spec.service):
        service, where = 0.5, f"applies to a neighbour of {spec.service}"
    elif not services:
        # A runbook that lists no service acts on whichever one paged ($(SERVICE)) or on its own
        # targets (plan.undeclared_target): it applies anywhere, so it is for no service in particular.
        service, where = 0.5, "lists no service, so it may apply anywhere"
    else:
        service, where = 0.0, f"does not list {spec.service} or its neighbours"
    shared = sorted(set(spec.symptoms) & set(runbook.spec.symptoms))
    if runbook.spec.symptoms:
        symptoms, described = overlap(spec.symptoms, runbook.spec.symptoms), 0.0
        what = f"symptoms shared: {', '.join(shared) or 'none'}"
    else:
        symptoms = min(1.0, described / LEXICAL_SATURATION) if described >= DESCRIBED_BAR else 0.0
        what = f"declares no symptoms, and its own words match this incident's (word match {described:.2f})"
    # What the runbook says it does (its title, steps and commands, where and on
    # what it applies) against what the incident says, as the similarity's
    # lexical term counts a share: incident text rarely names a fix, so this
    # counts least. It used to be the share of the title's words the incident
    # said: at the same weight this lifts the catalog alone on dev2 and dev3
    # (0.739 -> 0.754, 0.685 -> 0.707), leaves dev and every score with memory
    # as they were, and moves none down on the histories with their tags or
    # their topology taken away.
    said = set(incident_words(spec))
    words = said.intersection(runbook_words(runbook))
    lexical = min(1.0, len(words) / len(said) / LEXICAL_SATURATION) if said else 0.0
    fit = 0.45 * service + 0.45 * symptoms + 0.10 * lexical
    why = f"{where}; {what}"
    return CatalogFit(runbook.name, round(fit, 3), why, tuple(shared), round(described, 3))


def described_by_words(spec: IncidentSpec, catalog: Mapping[str, Runbook]) -> dict[str, float]:
    """For each runbook that declares no symptoms, how much of this incident's words its own words say.

    Measured against the whole catalog, so that a word every runbook says
    (a tool, a verb of every step) counts little.
    """
    names = sorted(catalog)
    if all(catalog[n].spec.symptoms for n in names):
        return {}
    scorer = LexicalScorer([runbook_words(catalog[n]) for n in names])
    return {n: r for n, r in zip(names, scorer.relevances(incident_words(spec))) if not catalog[n].spec.symptoms}


def covers(spec: IncidentSpec, runbook: Runbook, topology: Topology) -> bool:
    """The runbook's declaration names every symptom the incident shows, on its service or a neighbour.

    A neighbour counts as the incident's own place for the same reason it
    earns nearly full service credit in similarity: the service that pages
    is often the caller of the one that broke (a mobile API returning 5xx
    because the ingress in front of it is out of memory). Leave-one-history-out
    this moves no answer on dev or dev2, and on dev3 three recurrences
    judged novel now get their runbook (runbook@1 .793 -> .826). A runbook
    that lists no service is in place anywhere (see `catalog_fit`).
    """
    here = in_place(spec.service, runbook, topology)
    return here and bool(spec.symptoms) and set(spec.symptoms) <= set(runbook.spec.symptoms)


def in_place(service: str, runbook: Runbook, topology: Topology) -> bool:
    """The runbook lists the service or a neighbour of it, or lists none (it applies anywhere)."""
    services = set(runbook.spec.services)
    return not services or service in services or bool(services & topology.neighbours(service))


def unlisted(service: str, catalog: Mapping[str, Runbook], topology: Topology) -> bool:
    """A catalog with runbooks, none of which is in place for this service.

    Runbooks are matched to an Incident's spec.service by name, so a catalog
    that names its services otherwise (a Deployment's name, a team's) is never
    offered, silently: the answer says so.
    """
    return bool(catalog) and not any(in_place(service, rb, topology) for rb in catalog.values())


def addresses(spec: IncidentSpec, runbook: Runbook) -> bool:
    """The runbook is declared for something the incident shows, or one of them declares nothing to compare."""
    seen, declared = set(spec.symptoms), set(runbook.spec.symptoms)
    return not seen or not declared or bool(seen & declared)


def best_catalog_fit(
    spec: IncidentSpec,
    catalog: Mapping[str, Runbook],
    topology: Topology,
    excluded: Iterable[str] = (),
    proven: Iterable[str] = (),
) -> CatalogFit | None:
    """The best-fitting runbook above the bar, skipping the excluded ones (stale, failed here).

    A proven runbook (one memory has seen run) is offered only when its
    declaration covers the incident whole: memory already knows where it
    applies, so a partial declaration is weaker evidence for it than for a
    runbook the catalog alone speaks for.
    """
    skip, whole_only = set(excluded), set(proven)
    described = described_by_words(spec, catalog)
    fits = [
        catalog_fit(spec, rb, topology, described.get(name, 0.0))
        for name, rb in sorted(catalog.items())
        if name not in skip and (name not in whole_only or covers(spec, rb, topology))
    ]
    # Where a runbook applies is not what it fixes: unless it is for what is seen it is not offered.
    fits = [f for f in fits if f.fit >= CATALOG_FIT_BAR and f.for_what_is_seen]
    return max(fits, key=lambda f: f.fit, default=None)


# A runbook is a stale one's successor when they share at least this much of what they are
# declared for (their services and symptoms, as one set): written for the new architecture to do
# the old one's job. Every value from 0.3 to 0.7 gives the same answers on the thirteen histories.
SUCCESSOR_SHARE = 0.5


def successor(spec: IncidentSpec, stale: str, catalog: Mapping[str, Runbook], topology: Topology,
              excluded: Iterable[str] = ()) -> CatalogFit | None:
    """The catalog runbook that took over from a stale one, when it fits this incident.

    A migration makes a runbook stale, and the team writes its successor for the new
    architecture: the same services, the same symptoms, other steps. The best fit for the
    paging service alone can be another failure's runbook that shares the page's one symptom
    (observability: after the Kafka move, a 5xx page at the gateway was offered the ingester
    ring's runbook, not the new broker-volume one declared for all the old one was).
    The two must share a declared symptom, and the successor be for what this incident shows.
    Chosen on the observability history (session 52): observability and learning gain an
    answer each; nothing else moves on the thirteen histories, the dev variants or travel.
    Without the shared symptom, dev's variant whose runbooks declare none lost an answer to
    a runbook that only listed the same services.
    """
    old = catalog[stale].spec
    declared = set(old.services) | {f"symptom {t}" for t in old.symptoms}
    best: tuple[float, str] | None = None
    skip = set(excluded) | {stale}
    for name, rb in sorted(catalog.items()):
        if name in skip or not set(old.symptoms) & set(rb.spec.symptoms) or not addresses(spec, rb):
            continue
        own = set(rb.spec.services) | {f"symptom {t}" for t in rb.spec.symptoms}
        share = len(declared & own) / len(declared | own)
        if share >= SUCCESSOR_SHARE and (best is None or share > best[0]):
            best = (share, name)
    if best is None:
        return None
    fit = catalog_fit(spec, catalog[best[1]], topology)
    if fit.fit < CATALOG_FIT_BAR:
        return None
    return replace(fit, why=f"{fit.why}; declared for what {stale} was ({best[0]:.0%} of it): its successor")


def written_since(
    spec: IncidentSpec,
    catalog: Mapping[str, Runbook],
    topology: Topology,
    remembered: str,
    last_worked: datetime,
    excluded: Iterable[str] = (),
) -> CatalogFit | None:
    """The catalog's best fit for this incident, when it is not `remembered` and was written after `last_worked`.

    Teams write a runbook after an incident taught them something: a
    runbook that came after memory's fix last worked, and that the catalog
    itself fits best to this incident, may be the team's newer answer to the
    same failure. Only when the remembered runbook was already there when it
    worked: a catalog whose runbooks were all created since (a new cluster, a
    GitOps repository applied afresh) says nothing about which came first. A
    runbook of unknown age is never taken for a newer one.
    """
    fit = best_catalog_fit(spec, catalog, topology, excluded=excluded)
    if fit is None or fit.runbook == remembered or remembered not in catalog:
        return None
    then, created = catalog[remembered].created_at, catalog[fit.runbook].created_at
    if then is None or created is None:
        return None
    return fit if then <= last_worked < created else None


# How much of each step's command the catalog reads: a command names its tool and
# what it acts on first. A Runbook may hold about a megabyte of commands (an
# inline script); read whole, one took 0.76 s of the first answer after it was
# applied and 28 ms of each answer after that, against under 1 ms for the
# development histories' runbooks, whose longest command is 326 characters.
# A description (up to 64 KB) is read to the same length: it says first what
# the runbook is for.
READ_COMMAND = 1_024


def runbook_words(runbook: Runbook) -> list[str]:
    """What a runbook says it does: its title and description, where and on what it applies, its steps' names and commands."""
    spec = runbook.spec
    parts = [spec.title, spec.description[:READ_COMMAND], *spec.services, *spec.symptoms]
    for step in spec.steps:
        parts += [step.name, " ".join(step.command)[:READ_COMMAND]]
    return tokens(" ".join(parts))


class CatalogWords:
    """Each runbook's `runbook_words`, counted once per decision: every manual fix asks for them again."""

    def __init__(self, catalog: Mapping[str, Runbook]) -> None:
        self.catalog = catalog
        self._counted: dict[str, Mapping[str, int]] = {}

    def __call__(self, name: str) -> Mapping[str, int]:
        if name not in self._counted:
            self._counted[name] = Counter(runbook_words(self.catalog[name]))
        return self._counted[name]


def fix_words(memory: EpisodicMemory) -> list[str]:
    """What a past incident's confirmed outcome says was wrong and what was done about it."""
    res = memory.resolution
    return tokens(" ".join([res.root_cause, res.summary, *(a.action for a in res.actions)]))


@dataclass(frozen=True)
class FixMatch:
    """The catalog runbook that describes remembered manual fixes."""

    runbook: str
    relevance: float  # 0..1, the lexical term's measure
    precedents: tuple[str, ...]  # whose fixes it describes
    cited: bool = False  # a precedent's confirmed outcome names the runbook

    def why(self) -> str:
        how = "a confirmed outcome names it" if self.cited else f"word match {self.relevance:.2f}"
        return f"runbook {self.runbook} describes the manual fix of {', '.join(self.precedents)} ({how})"


def cites(memory: EpisodicMemory, runbook: str) -> bool:
    """Whether a past incident's confirmed root cause or summary names the runbook ("written up as ...")."""
    res = memory.resolution
    return mentions(res.root_cause, runbook) or mentions(res.summary, runbook)


def runbook_for_fix(
    spec: IncidentSpec,
    precedents: Sequence[EpisodicMemory],
    catalog: Mapping[str, Runbook],
    topology: Topology,
    excluded: Iterable[str] = (),
    words: CatalogWords | None = None,
) -> FixMatch | None:
    """The catalog runbook whose words best match these precedents' manual fixes and this incident.

    Teams fix the first occurrences of a failure by hand and write the runbook
    afterwards, so the runbook repeats the fix's words: its step names and
    commands, the component it acts on. Only runbooks that act on the
    incident's service, a precedent's, or a neighbour of either, or that list
    no service, are candidates.
    The runbook must also be for what this incident shows: when both declare
    symptoms and share none, the precedent's fix is not this incident's, the
    rule the catalog's own choice follows (`best_catalog_fit`).
    Leave-one-history-out this moves no answer on dev or dev2; on dev3 a truly
    novel incident is no longer offered another failure's runbook, and two
    wrong runbooks become none (runbook@1 +0.011).

    A runbook that a precedent's confirmed outcome names ("written up as
    compactor-mark-block-no-compact") is the one, whatever the word match:
    the person who confirmed the fix said so. A runbook tried and failed there
    is among `excluded` (recommend._describing_manual_fix), so "X did not
    help" does not count. (Session 52, on the observability history: a
    match of 0.23 under the bar lost the runbook its outcome named; no answer
    moved on the twelve other histories.)
    """
    if not precedents:
        return None
    services = {spec.service, *(p.spec.service for p in precedents)}
    near = services.union(*(topology.neighbours(s) for s in services))
    skip = set(excluded)
    candidates = [n for n, rb in sorted(catalog.items())
                  if n not in skip and (near.intersection(rb.spec.services) or not rb.spec.services)]
    if not candidates:
        return None
    query = [w for p in precedents for w in fix_words(p)] + incident_words(spec)
    counted = words or CatalogWords(catalog)
    scored = list(zip(LexicalScorer.of_counts([counted(n) for n in candidates]).relevances(query), candidates))
    whose = tuple(p.incident for p in precedents)
    cited = [(r, n) for r, n in scored if any(cites(p, n) for p in precedents) and addresses(spec, catalog[n])]
    if cited:
        relevance, best = max(cited)
        return FixMatch(best, round(relevance, 3), whose, cited=True)
    relevance, best = max(scored)
    if relevance < FIX_MATCH_BAR or not addresses(spec, catalog[best]):
        return None
    return FixMatch(best, round(relevance, 3), whose)
