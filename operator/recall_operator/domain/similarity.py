"""Similarity: does this incident look like that one? 0..100, with every term shown.

Each term is normalised to 0..1 on a scale that does not depend on the size
of the history, so that the novel-mode bar means the same on any platform:
the lexical term divides a candidate's BM25 score by the score the query would
get against itself, which turns it into "how much of what this incident says
does that one say too".
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain

from pydantic import TypeAdapter

from recall_operator.domain.consolidation import win_rate
from recall_operator.domain.dna import own_values, placement_values, values_similarity
from recall_operator.domain.models import EpisodicMemory, IncidentSpec, RunbookRecord, as_read
from recall_operator.domain.text import (
    cleared_words,
    negated_stems,
    negated_words,
    plain_stems,
    service_name_words,
    stem,
    tokens,
)
from recall_operator.domain.topology import Topology


@dataclass(frozen=True)
class Weights:
    """How much each term counts; they add up to 1. Defaults are the design's."""

    lexical: float = 0.35  # BM25 over the incident's words
    service: float = 0.25  # same service, or adjacent in the topology
    symptoms: float = 0.20  # shared symptom tags
    signals: float = 0.10  # error signatures and deploy timing line up
    runbook: float = 0.05  # the precedent's fix has a good track record
    dna: float = 0.05  # the same shape (see dna.py)


TERMS = ("lexical", "service", "symptoms", "signals", "runbook", "dna")
# BM25's usual constants; the normalisation makes the result insensitive to them.
BM25_K1 = 1.2
BM25_B = 0.75
# A deploy this recent is "deploy-related" for alignment purposes.
RECENT_DEPLOY_MINUTES = 240.0
# The lexical ratio is the share of this incident's BM25 mass that a memory
# also carries. Two reports of the same failure, written by different people,
# share well under half of it (on both dev histories same-failure pairs have a
# median near 0.25 and other pairs near 0.03), so sharing this much counts as
# a full match rather than leaving the term squeezed into its bottom third.
LEXICAL_SATURATION = 0.4
# Failures travel along call edges: the service that pages is often the caller
# of the one that broke, so a precedent next door is nearly as good as one on
# the same service (on both dev histories a sixth to a fifth of recurrences
# have precedents only on a neighbour).
ADJACENT_SERVICE_CREDIT = 0.8
# Shared infrastructure (DNS, certificates, the network) fails under many
# services at once, so the same failure can page from a service with no call
# edge to the precedent's. A precedent on an unrelated service earns service
# credit in proportion to how much of this report it also says, up to this
# much: always below a neighbour, and only on the strength of the words. On
# both dev histories any value from 0.2 to 1 gives the same ranking; half is
# the cautious middle.
UNRELATED_SERVICE_CREDIT = 0.5
# The order in which on-call reads the matches: similarity, plus this many
# points for recognition (how much of this incident's words a precedent's
# report and its confirmed outcome say, on the lexical term's scale). What a
# failure turned out to be names it better than how it was first reported,
# above all when one side is a terse alert. Recognition only orders the list;
# the gate decides on similarity alone, so the novel bar keeps its meaning.
# Leave-one-history-out, 80 to 160 points lift precedent@1 on each history
# left out (dev .911 -> .933, dev2 .927 -> .976, dev3 .819 -> .875 at 100)
# and change no other score; below 50 it mostly ties, and past 250 the
# similarity no longer breaks a tie between two equally worded reports.
RECOGNITION_POINTS = 100


# A report that says "no rebalances" or "not SAML" rules out a precedent whose
# symptoms, log lines or confirmed root cause were rebalances or SAML: it is
# the strongest word a report can give that this is not that failure. A
# look-alike that matches everything else scores 85 to 90, and one denial
# takes it under the novel bar (55); at most two denials count. On both dev
# histories any value from 35 to 60 ranks the same; at 30 such a one-off lands
# on the bar and passes as a recurrence.
RULED_OUT_POINTS = 35.0
RULED_OUT_MAX_TERMS = 2


def denied_symptoms(spec: IncidentSpec) -> dict[str, str]:
    """What this incident's report says is not happening: stem -> the word as written."""
    denied = negated_words(f"{spec.title}. {spec.description}")
    # What the incident itself tags as a symptom, or its own log lines show
    # ("no space left on device"), is happening, whatever a sentence says.
    shown = plain_stems(tokens(" ".join([*spec.symptoms, *spec.error_signatures])))
    return {s: w for s, w in denied.items() if s not in shown}


def cleared_parts(spec: IncidentSpec) -> dict[str, str]:
    """What this incident's report says works or has not changed ("the leader has not changed",
    "reads are fine"): stem -> the word as written, less what it shows itself.

    Such a part rules out a precedent whose confirmed root cause lay there: the
    reporter looked at the usual suspect and cleared it. Only the cause counts,
    not the precedent's report or log lines: "GETs are fine" in a report of a
    failed upload says nothing against an old incident whose reads also worked.
    (Read against every fact of the precedent, as "no X" is, it ruled out true
    precedents on dev and cost its runbook@1 0.884 -> 0.855: docs/scoring.md.)
    """
    cleared = cleared_words(f"{spec.title}. {spec.description}")
    shown = plain_stems(tokens(" ".join([*spec.symptoms, *spec.error_signatures])))
    return {s: w for s, w in cleared.items() if s not in shown}


def confirmed_cause(precedent: EpisodicMemory) -> set[str]:
    """Stems of a precedent's confirmed root cause, less what the cause itself denies ("not a failover")."""
    cause = precedent.resolution.root_cause
    return plain_stems(tokens(cause)) - negated_stems(cause)


def precedent_facts(precedent: EpisodicMemory) -> set[str]:
    """Stems of what was true of a past incident: its symptoms, its log lines, its confirmed cause.

    The free-text title and description are left out: they carry the words a
    reporter happened to use ("within four minutes"), not what the failure was.
    """
    spec = precedent.spec
    facts = plain_stems(tokens(" ".join([*spec.symptoms, *spec.error_signatures])))
    facts |= confirmed_cause(precedent)
    if _recent_deploy(spec):
        facts.add(stem("deploy"))  # "no deploy since Friday" rules out a precedent a deploy caused
    return facts


@dataclass(frozen=True)
class Denial:
    """A word one report denied that the other incident had: the reason for a ruled-out deduction."""

    stem: str
    word: str  # as the denying report wrote it
    by_precedent: bool  # the precedent's report denied it (else this incident's report did)
    cleared: bool = False  # this report said it works, and the precedent's confirmed cause lay there

    def explain(self, precedent: str) -> str:
        if self.cleared:
            return f"this report says {self.word!r} works or has not changed, and {precedent}'s confirmed cause named it"
        if self.by_precedent:
            return f"{precedent}'s report denied {self.word!r}, which this incident shows"
        return f"this report denies {self.word!r}, which {precedent} had"


def ruled_out(denied: Mapping[str, str], precedent: EpisodicMemory) -> tuple[Denial, ...]:
    """What the incident's report explicitly denies that was true of the precedent."""
    facts = precedent_facts(precedent)
    return tuple(Denial(s, w, False) for s, w in sorted(denied.items()) if s in facts)


def denied_by_precedent(spec: IncidentSpec, precedent: EpisodicMemory) -> tuple[Denial, ...]:
    """What the precedent's report denied that this incident tags as a symptom.

    A denial works both ways: "no lock waits" in an old report tells a new
    incident tagged lock-wait that the old one was another failure. Only the
    new incident's tags count here, not its log lines: it has no confirmed
    cause yet, and raw log lines carry incidental field names.
    """
    shown = plain_stems(tokens(" ".join(spec.symptoms)))
    return tuple(Denial(s, w, True) for s, w in sorted(denied_symptoms(precedent.spec).items()) if s in shown)


def cleared_cause(cleared: Mapping[str, str], precedent: EpisodicMemory) -> tuple[Denial, ...]:
    """What this incident's report cleared that the precedent's confirmed root cause named."""
    cause = confirmed_cause(precedent)
    return tuple(Denial(s, w, False, cleared=True) for s, w in sorted(cleared.items()) if s in cause)


def both_ways(spec: IncidentSpec, denied: Mapping[str, str], precedent: EpisodicMemory) -> tuple[Denial, ...]:
    """Every denial between the two reports, one per stem (this report's own first, what it cleared last)."""
    seen: dict[str, Denial] = {}
    for d in (*ruled_out(denied, precedent), *denied_by_precedent(spec, precedent),
              *cleared_cause(cleared_parts(spec), precedent)):
        seen.setdefault(d.stem, d)
    return tuple(seen.values())


@dataclass(frozen=True)
class Breakdown:
    """Each term's 0..1 value; `points` turns them into the 0..100 similarity."""

    lexical: float
    service: float
    symptoms: float
    signals: float
    runbook: float
    dna: float
    # What one report says is not happening, and the other incident had.
    ruled_out: tuple[Denial, ...] = ()

    def points(self, weights: Weights) -> int:
        # The terms in TERMS order, written out: the same float as summing over
        # TERMS, without a generator and two getattr calls a term on every candidate.
        total = (self.lexical * weights.lexical + self.service * weights.service + self.symptoms * weights.symptoms
                 + self.signals * weights.signals + self.runbook * weights.runbook + self.dna * weights.dna)
        return max(0, min(100, round(100 * total - self.deduction())))

    def deduction(self) -> float:
        return RULED_OUT_POINTS * min(len(self.ruled_out), RULED_OUT_MAX_TERMS)

    def as_status(self, weights: Weights) -> dict[str, float]:
        """Points each term contributed, as an engineer would check them."""
        terms = {k: round(100 * getattr(self, k) * getattr(weights, k), 1) for k in TERMS}
        if self.ruled_out:
            terms["ruledOut"] = -self.deduction()
        return terms


def incident_words(spec: IncidentSpec) -> list[str]:
    """What an incident says, before anyone knows why: the words that a query and a memory share.

    The paging service's own name is left out: it is the service term's
    evidence, and counted again as words (an alert title repeats it, and so
    does its alert name once split) it makes every incident of a busy service
    look alike. Leave-one-history-out, this lifted the alert-heavy history's
    runbook@1 by 0.07 and cost the other two at most 0.02.
    """
    names_service = service_name_words(spec.service)
    return [w for w in tokens(" ".join([spec.title, spec.description, *spec.error_signatures, *spec.symptoms]))
            if not names_service(w)]


def change_words(spec: IncidentSpec) -> list[str]:
    """What was changed shortly before the page: the recent deployment's id and revision words.

    A failure that recurs on a neighbour of where it paged last time often
    shares no symptom words with its precedent, yet the same component was
    rolled out shortly before both (an app release that loads a database, a
    firmware campaign that drops device connections). Only a deploy within
    RECENT_DEPLOY_MINUTES counts: an older one is not a likely cause. Words
    with a digit (versions, commits, builds) differ from one rollout to the
    next, and the paging service's own name is the service term's evidence,
    as in `incident_words`. Leave-one-history-out: the alert-heavy history's
    novel precision rose by one recurrence (a firmware campaign paged on the
    app's API), and no score of the other two moved.
    """
    deploy = spec.deployment
    if deploy is None or not shortly_after_release(spec):
        return []
    names_service = service_name_words(spec.service)
    return [w for w in tokens(f"{deploy.id or ''} {deploy.revision or ''}")
            if not names_service(w) and not any(c.isdigit() for c in w)]


def shared_change(spec: IncidentSpec, other: IncidentSpec) -> list[str]:
    """The words of what was rolled out shortly before both incidents (`change_words`), for a person to check."""
    return sorted(set(change_words(spec)).intersection(change_words(other)))


def scoring_words(spec: IncidentSpec) -> list[str]:
    """The words the lexical and recognition terms compare: what the incident says, and what changed before it."""
    return incident_words(spec) + change_words(spec)


class LexicalScorer:
    """BM25 over a pool of candidate documents, normalised by the query's score on itself."""

    def __init__(self, documents: Sequence[Sequence[str]], counted: Sequence[Mapping[str, int]] | None = None):
        self.documents: list[Mapping[str, int]] = (
            list(counted) if counted is not None else [Counter(d) for d in documents]
        )
        self.lengths = [len(d) for d in documents] if counted is None else [sum(d.values()) for d in counted]
        self.avg_length = (sum(self.lengths) / len(self.lengths)) if self.lengths else 1.0
        self.n = len(self.documents)
        self.unseen_idf = math.log(1 + (self.n + 0.5) / 0.5)
        self._idf: dict[str, float] = {}  # only the terms a query asks about are ever needed

    @classmethod
    def of_counts(cls, counted: Sequence[Mapping[str, int]]) -> LexicalScorer:
        """The same scorer over documents already counted (term -> occurrences)."""
        return cls((), counted)

    def _idfs(self, query: Mapping[str, int], shared: Sequence[Sequence[str]] | None = None) -> dict[str, float]:
        """The query's terms' IDF, looked up once for a pass over every document.

        The always-positive IDF variant: a term in every document still counts
        a little. Only the query's terms are counted (a query asks about a few
        dozen, the pool holds thousands), those not asked about before in one
        pass over the pool; `shared`, when given, is each document's terms of
        this query (so the pass only counts them).
        """
        new = set(query).difference(self._idf)
        if new:
            if shared is None:
                shared = [[t for t in new if t in d] for d in self.documents]
            df = Counter(chain.from_iterable(shared))
            for term in new:
                c = df[term]
                self._idf[term] = self.unseen_idf if c == 0 else math.log(1 + (self.n - c + 0.5) / (c + 0.5))
        return {term: self._idf[term] for term in query}

    def _score(self, idfs: Mapping[str, float], doc: Mapping[str, int], length: int,
               shared: Iterable[str] | None = None) -> float:
        """BM25 of one document; `shared` is its terms of the query in the query's order, when known."""
        norm = BM25_K1 * (1 - BM25_B + BM25_B * length / (self.avg_length or 1.0))
        saturation = BM25_K1 + 1
        score = 0.0
        # Only the terms the document has add anything; they are taken in the
        # query's order, so the sum is the same float as over every term.
        for term in filter(doc.__contains__, idfs) if shared is None else shared:
            tf = doc[term]
            if tf:
                score += idfs[term] * tf * saturation / (tf + norm)
        return score

    def bm25(self, query: Sequence[str]) -> list[float]:
        """Every document's plain BM25 score for `query`, unnormalised (a baseline to rank by)."""
        q = Counter(query)
        idfs = self._idfs(q)
        return [self._score(idfs, doc, length) for doc, length in zip(self.documents, self.lengths)]

    def relevance(self, query: Sequence[str], index: int) -> float:
        q = Counter(query)
        idfs = self._idfs(q)
        best = self._score(idfs, q, len(query))
        if best <= 0:
            return 0.0
        return min(1.0, self._score(idfs, self.documents[index], self.lengths[index]) / best / LEXICAL_SATURATION)

    def relevances(self, query: Sequence[str]) -> list[float]:
        """`relevance` of every document, the query's own score computed once.

        Each document's terms of the query are found once (in C, `filter`) and
        serve both the IDF count and the document's score.
        """
        q = Counter(query)
        shared = [list(filter(d.__contains__, q)) for d in self.documents]
        idfs = self._idfs(q, shared)
        best = self._score(idfs, q, len(query))
        if best <= 0:
            return [0.0] * len(self.documents)
        return [
            min(1.0, self._score(idfs, doc, length, terms) / best / LEXICAL_SATURATION)
            for doc, length, terms in zip(self.documents, self.lengths, shared)
        ]


def service_match(topology: Topology, incident_service: str, memory_service: str, lexical: float = 0.0) -> float:
    """1 on the same service, 0.8 next door; elsewhere, only what the words earn (see above)."""
    return _service_credit(topology.relation(incident_service, memory_service), lexical)


def _service_credit(relation: str, lexical: float) -> float:
    if relation == "exact":
        return 1.0
    if relation == "adjacent":
        return ADJACENT_SERVICE_CREDIT
    if relation == "unrelated":
        return UNRELATED_SERVICE_CREDIT * lexical
    raise ValueError(f"unknown service relation {relation!r}")


def overlap(a: Sequence[str], b: Sequence[str]) -> float:
    """Dice overlap of two tag sets: 1 when equal, 0 when disjoint or either is empty."""
    sa, sb = set(a), set(b)
    if not sa or not sb:
        return 0.0
    return 2 * len(sa & sb) / (len(sa) + len(sb))


def signal_alignment(spec: IncidentSpec, memory: IncidentSpec) -> float:
    """Error signatures share words, and both incidents are (or are not) close to a deploy."""
    signatures = overlap(tokens(" ".join(spec.error_signatures)), tokens(" ".join(memory.error_signatures)))
    a, b = _recent_deploy(spec), _recent_deploy(memory)
    deploy = 0.5 if a is None or b is None else float(a == b)
    return 0.7 * signatures + 0.3 * deploy


def shortly_after_release(spec: IncidentSpec) -> bool:
    """Something was rolled out within RECENT_DEPLOY_MINUTES before the page."""
    deploy = spec.deployment
    return (deploy is not None and deploy.minutes_since_deploy is not None
            and deploy.minutes_since_deploy <= RECENT_DEPLOY_MINUTES)


def _recent_deploy(spec: IncidentSpec) -> bool | None:
    """`shortly_after_release`, or None when no deploy's age is recorded (the signals term's deploy half is even)."""
    if spec.deployment is None or spec.deployment.minutes_since_deploy is None:
        return None
    return shortly_after_release(spec)


def released_cause(precedent: EpisodicMemory) -> str | None:
    """The release a precedent followed, when its confirmed root cause or summary names it (its revision or id).

    Such a failure was that release's: the outcome says so in the words of
    whoever confirmed it, not by the deploy's timing alone. Only a name with
    a digit (a version, a commit, a build) names one release: `main` or
    `latest` in a root cause says nothing of which.
    """
    deploy = precedent.spec.deployment
    if deploy is None or not shortly_after_release(precedent.spec):
        return None
    said = set(tokens(f"{precedent.resolution.root_cause} {precedent.resolution.summary}"))
    return next((name for name in (deploy.revision, deploy.id)
                 if name and any(c.isdigit() for c in name) and name.lower() in said), None)


# The record of a runbook that never ran here (one object, not one per candidate).
NO_RECORD = RunbookRecord()


# What a memory's features were derived by. Raise it whenever a change here or
# in text.py / dna.py changes what `memory_features` returns: a store that
# keeps features rebuilds the ones of an older version when it opens.
FEATURES_VERSION = 12


# What `MemoryFeatures.to_json` writes, as pydantic reads and checks it: a stored
# row that does not hold this shape (edited by hand, cut short) is refused with a
# ValueError here instead of failing in the middle of scoring.
_FeaturesJson = tuple[
    dict[str, int], dict[str, int], list[tuple[str, str]], list[str], list[str], list[str], list[str], bool | None,
    tuple[float, float, float, float, float],
]
_FEATURES_JSON = TypeAdapter(_FeaturesJson)


@dataclass(frozen=True)
class MemoryFeatures:
    """What scoring needs from one memory, derived from the memory alone.

    Nothing in it depends on the query, the topology or the runbook records, so
    it can be computed once when the memory is written and kept beside it;
    `score_candidates` gives the same floats with or without it.
    """

    words: Mapping[str, int]  # incident_words, counted: the lexical term's document
    known: Mapping[str, int]  # `words` plus its confirmed root cause and summary, counted: recognition's document
    denied: tuple[tuple[str, str], ...]  # denied_symptoms, sorted by stem: what its report denied
    facts: frozenset[str]  # precedent_facts: what was true of it
    cause: frozenset[str]  # confirmed_cause: what its confirmed root cause named
    symptoms: frozenset[str]  # its symptom tags
    signatures: frozenset[str]  # the words of its error signatures
    recent_deploy: bool | None  # deployed within RECENT_DEPLOY_MINUTES before the page (None: unknown)
    dna: tuple[float, ...]  # its own DNA values (dna.own_values); the topology's are looked up per query

    def to_json(self) -> str:
        return json.dumps(
            [self.words, self.known, [list(d) for d in self.denied], sorted(self.facts), sorted(self.cause),
             sorted(self.symptoms), sorted(self.signatures), self.recent_deploy, list(self.dna)],
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str) -> MemoryFeatures:
        """What `to_json` wrote (ValueError: the text is not that).

        Read by pydantic, not the standard library's reader: the same values
        in less time (recall reads a dozen of these per query at 10k
        memories), and one string for a word many memories repeat, so the
        parsed-memory cache's 4,096 features take 26 MB instead of 60.
        """
        words, known, denied, facts, cause, symptoms, signatures, recent, dna = _FEATURES_JSON.validate_json(text)
        return cls(words, known, tuple(denied), frozenset(facts), frozenset(cause), frozenset(symptoms),
                   frozenset(signatures), recent, dna)


def memory_features(memory: EpisodicMemory) -> MemoryFeatures:
    """The scoring features of one memory (what `score_candidates` would derive from it)."""
    spec = as_read(memory.spec)  # read as far as a query's own text is (models.as_read)
    if spec is not memory.spec:
        memory = memory.model_copy(update={"spec": spec})
    words = Counter(scoring_words(spec))
    return MemoryFeatures(
        words=dict(words),
        known=dict(words + Counter(tokens(f"{memory.resolution.root_cause} {memory.resolution.summary}"))),
        denied=tuple(sorted(denied_symptoms(spec).items())),
        facts=frozenset(precedent_facts(memory)),
        cause=frozenset(confirmed_cause(memory)),
        symptoms=frozenset(spec.symptoms),
        signatures=frozenset(tokens(" ".join(spec.error_signatures))),
        recent_deploy=_recent_deploy(spec),
        dna=own_values(spec),
    )


class Recalled(list[EpisodicMemory]):
    """Candidates as a store returns them, with the features it kept for each (None: derive them)."""

    def __init__(self, memories: Sequence[EpisodicMemory], features: Sequence[MemoryFeatures | None]):
        super().__init__(memories)
        self.features = list(features)

    def features_of(self, memories: Sequence[EpisodicMemory]) -> list[MemoryFeatures | None]:
        """The kept features of these memories (each one of this list's own objects, e.g. after filtering)."""
        by_id = {id(m): f for m, f in zip(self, self.features)}
        return [by_id.get(id(m)) for m in memories]


@dataclass(frozen=True)
class ScoredMemory:
    memory: EpisodicMemory
    similarity: int
    breakdown: Breakdown
    recognition: float = 0.0  # 0..1: this incident's words in its report and confirmed outcome

    @property
    def recognition_points(self) -> int:
        return round(RECOGNITION_POINTS * self.recognition)


def ranked(scored: Sequence[ScoredMemory]) -> list[ScoredMemory]:
    """The order on-call reads: similarity plus recognition points, then similarity, then the most recent."""
    return sorted(
        scored,
        key=lambda s: (-(s.similarity + s.recognition_points), -s.similarity, -s.memory.resolved_at.timestamp()),
    )


def _dice(sa: frozenset[str] | set[str], sb: frozenset[str] | set[str]) -> float:
    """`overlap` of two sets already made."""
    if not sa or not sb:
        return 0.0
    return 2 * len(sa & sb) / (len(sa) + len(sb))


def score_candidates(
    spec: IncidentSpec,
    candidates: Sequence[EpisodicMemory],
    topology: Topology,
    runbook_records: dict[str, RunbookRecord],
    weights: Weights = Weights(),
    features: Sequence[MemoryFeatures | None] | None = None,
) -> list[ScoredMemory]:
    """Every candidate with its similarity and breakdown, best first (ties: most recent first).

    `features`, when given, holds each candidate's `memory_features` (None for
    one to derive here); only the query's side is computed per call.
    """
    if not candidates:
        return []
    kept = list(features) if features is not None else [None] * len(candidates)
    feats = [f if f is not None else memory_features(c) for c, f in zip(candidates, kept)]
    query = scoring_words(spec)
    relevance = LexicalScorer.of_counts([f.words for f in feats]).relevances(query)
    recognition = LexicalScorer.of_counts([f.known for f in feats]).relevances(query)
    query_dna = own_values(spec)
    placements: dict[str, tuple[float, float]] = {}

    def placement(service: str) -> tuple[float, float]:
        if service not in placements:
            placements[service] = placement_values(service, topology)
        return placements[service]

    query_place = placement(spec.service)
    relations: dict[str, str] = {}

    def relation(service: str) -> str:
        if service not in relations:
            relations[service] = topology.relation(spec.service, service)
        return relations[service]

    denied = sorted(denied_symptoms(spec).items())
    cleared = sorted(cleared_parts(spec).items())
    shown = plain_stems(tokens(" ".join(spec.symptoms)))  # denied_by_precedent's side of this incident
    symptoms = set(spec.symptoms)
    signatures = set(tokens(" ".join(spec.error_signatures)))
    recent = _recent_deploy(spec)
    scored = []
    for c, f, words, known in zip(candidates, feats, relevance, recognition):
        runbook = c.resolution.runbook
        deploy = 0.5 if recent is None or f.recent_deploy is None else float(recent == f.recent_deploy)
        breakdown = Breakdown(
            lexical=words,
            service=_service_credit(relation(c.spec.service), words),
            symptoms=_dice(symptoms, f.symptoms),
            signals=0.7 * _dice(signatures, f.signatures) + 0.3 * deploy,
            # A manual fix has no track record to lend confidence.
            runbook=win_rate(runbook_records.get(runbook, NO_RECORD)) if runbook else 0.0,
            # DNA similarity of unrelated incidents is rarely below one half, so
            # the term counts only what lies above that.
            dna=max(0.0, 2 * values_similarity(query_dna, query_place, f.dna, placement(c.spec.service)) - 1),
            ruled_out=_denials(denied, shown, cleared, f),
        )
        scored.append(ScoredMemory(c, breakdown.points(weights), breakdown, known))
    scored.sort(key=lambda s: (-s.similarity, -s.memory.resolved_at.timestamp()))
    return scored


def _denials(denied: Sequence[tuple[str, str]], shown: set[str], cleared: Sequence[tuple[str, str]],
             f: MemoryFeatures) -> tuple[Denial, ...]:
    """`both_ways` from this incident's sorted denials, symptom stems and cleared parts and a memory's features."""
    seen: dict[str, Denial] = {}
    for s, w in denied:
        if s in f.facts:
            seen.setdefault(s, Denial(s, w, False))
    for s, w in f.denied:
        if s in shown:
            seen.setdefault(s, Denial(s, w, True))
    for s, w in cleared:
        if s in f.cause:
            seen.setdefault(s, Denial(s, w, False, cleared=True))
    return tuple(seen.values())
