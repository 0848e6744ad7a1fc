"""Builders for hand-made histories, shared by the domain tests: a fixture module, no tests of its own.

``from domain_builders import ...``: pytest imports test modules in its default
"prepend" mode, which puts each test file's folder (tests/unit, no __init__.py)
on sys.path before importing it; the name matches no ``test_*`` pattern, so
pytest never collects it. Every value here is plain data a test can read at a glance.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from recall_operator.domain.models import (
    ArchitectureMigration,
    Contradiction,
    EpisodicMemory,
    Incident,
    IncidentSpec,
    MigrationSpec,
    ContradictionSpec,
    Resolution,
    Runbook,
    RunbookRecord,
)
from recall_operator.domain.recommend import Context
from recall_operator.domain.topology import Topology

T0 = datetime(2025, 1, 1, tzinfo=UTC)

TOPOLOGY = Topology.parse(
    """
ingress-gateway: {dependsOn: [checkout-api, cart-service]}
checkout-api: {dependsOn: [payment-service, cart-service, kafka-orders]}
payment-service: {dependsOn: [orders-db, redis-cluster]}
cart-service: {dependsOn: [redis-cluster]}
kafka-orders: {dependsOn: [orders-db]}
orders-db: {dependsOn: []}
redis-cluster: {dependsOn: []}
"""
)

REDIS_TEXT = {
    "title": "cart-service latency spike, redis timeouts",
    "description": "p99 latency on cart reads jumped; redis-cluster primary slow, connection timeouts",
    "symptoms": ["latency-spike", "timeout", "cache-eviction"],
    "errorSignatures": ["redis.exceptions.TimeoutError: Timeout reading from socket"],
}
KAFKA_TEXT = {
    "title": "kafka-orders consumer lag growing, rebalances",
    "description": "order consumers fall behind; group rebalances every few minutes",
    "symptoms": ["consumer-lag", "rebalance"],
    "errorSignatures": ["CommitFailedException: consumer poll timeout exceeded max.poll.interval.ms"],
}


def spec(service: str = "cart-service", **fields: Any) -> IncidentSpec:
    body = {"title": f"{service} is unhappy", **fields, "service": service}
    return IncidentSpec.model_validate(body)


def incident(name: str = "inc-new", service: str = "cart-service", **fields: Any) -> Incident:
    return Incident(name=name, spec=spec(service, **fields))


def resolution(
    runbook: str | None = None, actions: Iterable[tuple[str, str]] = (), confirmed_by: str = "oncall-a", **fields: Any
) -> Resolution:
    return Resolution.model_validate(
        {
            "runbook": runbook,
            "actions": [{"action": a, "result": r} for a, r in actions],
            "confirmedBy": confirmed_by,
            **fields,
        }
    )


def memory(
    name: str,
    service: str = "cart-service",
    runbook: str | None = None,
    actions: Iterable[tuple[str, str]] = (),
    resolved_at: datetime = T0,
    res: Resolution | None = None,
    **fields: Any,
) -> EpisodicMemory:
    if runbook is not None and not actions:
        actions = [(f"run runbook {runbook}", "succeeded")]
    return EpisodicMemory(
        incident=name,
        spec=spec(service, **fields),
        resolution=res or resolution(runbook, actions),
        resolved_at=resolved_at,
    )


def runbook(
    name: str, services: Iterable[str], symptoms: Iterable[str] = (), risk: str = "low", title: str | None = None
) -> Runbook:
    return Runbook.model_validate(
        {
            "name": name,
            "spec": {
                "title": title or name.replace("-", " "),
                "services": list(services),
                "symptoms": list(symptoms),
                "steps": [
                    {
                        "name": "act",
                        "image": "busybox:1.36",
                        "command": ["sh", "-c", "echo $(SERVICE)"],
                        "dryRunCommand": ["echo", "dry", "$(SERVICE)"],
                        "risk": risk,
                    }
                ],
            },
        }
    )


def migration(
    name: str,
    target: str,
    runbooks: Iterable[str] = (),
    when: datetime = T0 + timedelta(days=14),
    keywords: Iterable[str] = (),
    deduction: int = 29,
) -> ArchitectureMigration:
    return ArchitectureMigration(
        name=name,
        spec=MigrationSpec.model_validate(
            {
                "targetService": target,
                "migrationDate": when.date().isoformat(),
                "oldArch": "Self-hosted Redis 6.2 on VMs",
                "newArch": "Managed Redis Enterprise, active-active",
                "impactedRunbooks": list(runbooks),
                "impactedFixKeywords": list(keywords),
                "confidenceDeduction": deduction,
            }
        ),
        applied_at=when,
    )


def contradiction(
    name: str, claims: Mapping[str, str], state: str = "open", topic: str = "kafka consumer lag", note: str = ""
) -> Contradiction:
    return Contradiction(
        name=name,
        spec=ContradictionSpec.model_validate(
            {
                "topic": topic,
                "memories": list(claims),
                "claims": [{"memory": m, "claim": c} for m, c in claims.items()],
                "resolution": {"state": state, "note": note},
            }
        ),
    )


def context(
    now: datetime = T0 + timedelta(days=60),
    catalog: Iterable[Runbook] = (),
    records: Mapping[str, RunbookRecord] | None = None,
    migrations: Iterable[ArchitectureMigration] = (),
    contradictions: Iterable[Contradiction] = (),
    topology: Topology = TOPOLOGY,
) -> Context:
    return Context(
        now=now,
        topology=topology,
        catalog={rb.name: rb for rb in catalog},
        records=dict(records or {}),
        migrations=list(migrations),
        contradictions=list(contradictions),
    )


DATASETS = Path(__file__).parents[2] / "datasets"


def rewritten_history(name: str, out: Path, edit: Callable[[dict[str, Any]], dict[str, Any] | None]) -> Path:
    """A development history with `edit` applied to each event (None drops it), written to `out`."""
    events = []
    for line in (DATASETS / name / "history.jsonl").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            event = edit(json.loads(line))
            if event is not None:
                events.append(json.dumps(event))
    out.write_text("\n".join(events) + "\n")
    return out
