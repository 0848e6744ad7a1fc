"""What the incident reconcile needs to know about the cluster, kept in Kopf indexes.

Runbooks (with their track record from status), ArchitectureMigrations,
Contradictions and topology ConfigMaps are indexed per namespace, so that a
reconcile builds its Context from memory of the watch streams instead of
listing the API on every incident. An object that does not parse is left out
of the index (with a warning) rather than failing every incident next to it.

Re-evaluation after a catalog change is done by the incident re-evaluation
loop (see handlers/incident.py): it re-reads these indexes and memory on an
interval and writes only when the outcome differs, so a new migration,
contradiction, win rate or memory reaches every open incident without
cross-object patches.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import kopf
from pydantic import ValidationError

from recall_operator.domain.models import (
    ArchitectureMigration,
    Contradiction,
    ContradictionSpec,
    MigrationSpec,
    Runbook,
    RunbookRecord,
    RunbookSpec,
)
from recall_operator.domain.recommend import Context
from recall_operator.domain.topology import Topology, TopologyError
from recall_operator.kube.status import record_from_status

GROUP, VERSION = "recall.dev", "v1alpha1"
TOPOLOGY_LABEL = "recall.dev/topology"


def _plain(view: Mapping[str, Any]) -> dict[str, Any]:
    # Kopf hands out views over the raw body; the index keeps a copy of its own
    # so that a later event cannot change what an earlier reconcile saw.
    return copy.deepcopy(dict(view))


def parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


@kopf.index(GROUP, VERSION, "runbooks")
def runbook_index(
    name: str, namespace: str, spec: Mapping[str, Any], status: Mapping[str, Any], logger: Any, **_: Any
) -> dict[str, tuple[Runbook, RunbookRecord]] | None:
    try:
        runbook = Runbook(name=name, spec=RunbookSpec.model_validate(_plain(spec)))
    except ValidationError as exc:
        logger.warning(f"runbook {name} is left out of the catalog: {exc.errors()[0]['msg']}")
        return None
    return {namespace: (runbook, record_from_status(_plain(status)))}


@kopf.index(GROUP, VERSION, "architecturemigrations")
def migration_index(
    name: str, namespace: str, spec: Mapping[str, Any], meta: Mapping[str, Any], logger: Any, **_: Any
) -> dict[str, ArchitectureMigration] | None:
    try:
        migration = ArchitectureMigration(
            name=name,
            spec=MigrationSpec.model_validate(_plain(spec)),
            # A migration counts from the moment the cluster learned of it.
            applied_at=parse_time(meta.get("creationTimestamp")),
        )
    except ValidationError as exc:
        logger.warning(f"migration {name} is ignored: {exc.errors()[0]['msg']}")
        return None
    return {namespace: migration}


@kopf.index(GROUP, VERSION, "contradictions")
def contradiction_index(
    name: str, namespace: str, spec: Mapping[str, Any], logger: Any, **_: Any
) -> dict[str, Contradiction] | None:
    try:
        contradiction = Contradiction(name=name, spec=ContradictionSpec.model_validate(_plain(spec)))
    except ValidationError as exc:
        logger.warning(f"contradiction {name} is ignored: {exc.errors()[0]['msg']}")
        return None
    return {namespace: contradiction}


@kopf.index("configmaps", labels={TOPOLOGY_LABEL: "true"})
def topology_index(
    name: str, namespace: str, body: Mapping[str, Any], logger: Any, **_: Any
) -> dict[str, Topology] | None:
    text = (body.get("data") or {}).get("topology")
    if text is None:
        logger.warning(f"topology ConfigMap {name} has no data.topology; ignored")
        return None
    try:
        return {namespace: Topology.parse(text)}
    except TopologyError as exc:
        logger.warning(f"topology ConfigMap {name} is ignored: {exc}")
        return None


def merge_topologies(topologies: Any) -> Topology:
    """Several topology ConfigMaps in one namespace add up (each team may own its part)."""
    graph: dict[str, frozenset[str]] = {}
    for t in topologies:
        for service, deps in t.depends_on.items():
            graph[service] = graph.get(service, frozenset()) | deps
    return Topology(graph)


def context_for(
    namespace: str,
    now: datetime,
    runbook_index: Mapping[str, Any],
    migration_index: Mapping[str, Any],
    contradiction_index: Mapping[str, Any],
    topology_index: Mapping[str, Any],
) -> Context:
    """The Context of a decision in `namespace`, from the indexes alone (no API call)."""
    runbooks = list(runbook_index.get(namespace, []))
    return Context(
        now=now,
        topology=merge_topologies(topology_index.get(namespace, [])),
        catalog={rb.name: rb for rb, _ in runbooks},
        records={rb.name: record for rb, record in runbooks},
        migrations=sorted(migration_index.get(namespace, []), key=lambda m: m.name),
        contradictions=sorted(contradiction_index.get(namespace, []), key=lambda c: c.name),
    )
