"""Which memories may count as evidence at all, and which are the same event twice."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from recall_operator.domain.consolidation import from_another_object
from recall_operator.domain.models import EpisodicMemory, Incident
from recall_operator.domain.similarity import ScoredMemory

# Alertmanager re-sends a still-firing alert; a page with the same fingerprint
# this close to an earlier one is the same event, not independent evidence.
REPAGE_WINDOW = timedelta(minutes=15)


def is_confirmed(memory: EpisodicMemory) -> bool:
    """An outcome counts once a person confirmed it or recorded what was done."""
    res = memory.resolution
    return bool(res.confirmed_by or res.actions or res.runbook)


def is_namesake(memory: EpisodicMemory, incident: Incident) -> bool:
    """The memory of an earlier incident that had this incident's name, from an object since deleted.

    A name deleted and used again is another incident (consolidation.name_taken),
    and its memory a precedent like any other. The same report applied again
    (a sync re-creating the object) is the incident itself; without a uid or a
    creation time to tell by (consolidation.from_another_object), it is taken
    for the incident itself.
    """
    return (memory.incident == incident.name and from_another_object(memory, incident.uid, incident.created_at)
            and memory.spec != incident.spec)


def clean_candidates(incident: Incident, candidates: Sequence[EpisodicMemory]) -> list[EpisodicMemory]:
    """Drop the asking incident itself, anything without a confirmed outcome, and what was withdrawn."""
    return [c for c in candidates
            if (c.incident != incident.name or is_namesake(c, incident)) and is_confirmed(c) and c.withdrawn is None]


def fingerprint(memory: EpisodicMemory) -> str | None:
    return memory.spec.labels.get("fingerprint")


def is_repage(a: EpisodicMemory, b: EpisodicMemory, window: timedelta = REPAGE_WINDOW) -> bool:
    fa, fb = fingerprint(a), fingerprint(b)
    if not fa or fa != fb or a.spec.started_at is None or b.spec.started_at is None:
        return False
    return abs(a.spec.started_at - b.spec.started_at) <= window


def merge_repages(scored: Sequence[ScoredMemory], window: timedelta = REPAGE_WINDOW) -> list[list[ScoredMemory]]:
    """Group re-pages together, best first; each group is one piece of evidence."""
    groups: list[list[ScoredMemory]] = []
    # Only memories with the same fingerprint can be re-pages of each other.
    by_fingerprint: dict[str, list[list[ScoredMemory]]] = {}
    for s in scored:
        fp = fingerprint(s.memory)
        same = by_fingerprint.setdefault(fp, []) if fp else []
        for group in same:
            if any(is_repage(s.memory, g.memory, window) for g in group):
                group.append(s)
                break
        else:
            groups.append([s])
            same.append(groups[-1])
    return groups
