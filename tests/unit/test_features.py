"""A memory's features computed ahead give the scores the query-time derivation gives, to the bit.

The reference below is the scoring as it was before features were kept with
memories: every term derived from both specs on every query. It is kept here
as the oracle, and every incident of the three development histories is scored
against every memory of its history both ways.
"""

from __future__ import annotations

import pytest

from recall_operator_dev.bench import load_base
from recall_operator.domain.consolidation import win_rate
from recall_operator.domain.dna import dna_similarity, incident_dna
from recall_operator.domain.models import EpisodicMemory, IncidentSpec, RunbookRecord
from recall_operator.domain.similarity import (
    Breakdown,
    LexicalScorer,
    MemoryFeatures,
    Recalled,
    both_ways,
    denied_symptoms,
    memory_features,
    overlap,
    score_candidates,
    scoring_words,
    service_match,
    signal_alignment,
)
from recall_operator.domain.topology import Topology
from recall_operator.replay import read_events
from support import HISTORIES, history


def reference(spec: IncidentSpec, candidates: list[EpisodicMemory], topology: Topology,
              records: dict[str, RunbookRecord]) -> list[Breakdown]:
    query = scoring_words(spec)
    lexical = LexicalScorer([scoring_words(c.spec) for c in candidates])
    dna = incident_dna(spec, topology)
    denied = denied_symptoms(spec)
    out = []
    for i, c in enumerate(candidates):
        runbook = c.resolution.runbook
        words = lexical.relevance(query, i)
        out.append(Breakdown(
            lexical=words,
            service=service_match(topology, spec.service, c.spec.service, words),
            symptoms=overlap(spec.symptoms, c.spec.symptoms),
            signals=signal_alignment(spec, c.spec),
            runbook=win_rate(records.get(runbook, RunbookRecord())) if runbook else 0.0,
            dna=max(0.0, 2 * dna_similarity(dna, incident_dna(c.spec, topology)) - 1),
            ruled_out=both_ways(spec, denied, c),
        ))
    return out


def _specs(name: str) -> list[IncidentSpec]:
    return [IncidentSpec.model_validate(e.raw["object"]["spec"]) for e in read_events(history(name)) if e.type == "incident"]


@pytest.mark.parametrize("name", HISTORIES)
def test_features_kept_ahead_score_every_pair_of_a_history_as_the_query_time_derivation(name: str) -> None:
    base = load_base(history(name))
    memories = base.resolved
    topology = base.world.topology
    records = {"k8s-rollback-deploy": RunbookRecord(times_executed=3, times_succeeded=2)}
    kept = [MemoryFeatures.from_json(memory_features(m).to_json()) for m in memories]
    assert kept == [memory_features(m) for m in memories]
    for spec in _specs(name):
        expected = reference(spec, memories, topology, records)
        for features in (None, kept, [None, *kept[1:]]):
            scored = score_candidates(spec, memories, topology, records, features=features)
            got = {id(s.memory): s.breakdown for s in scored}
            assert [got[id(m)] for m in memories] == expected


def test_recalled_hands_over_the_features_of_the_memories_left_after_filtering() -> None:
    base = load_base(history("dev"))
    a, b, c = base.resolved[:3]
    recalled = Recalled([a, b, c], [memory_features(a), None, memory_features(c)])
    assert recalled == [a, b, c]
    assert recalled.features_of([c, b]) == [memory_features(c), None]
