"""The incident loop: Incident -> gated recommendation in status; confirmed outcome -> memory.

Level-based and idempotent: every run recomputes what status should be from
the spec, the indexes and memory, and writes only the keys that differ. The
same function serves create, update, resume and a timer; the timer is what
re-evaluates open incidents after the catalog, win rates or memory changed,
and what retries an outcome waiting in the outbox while memory was down.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import kopf
from kubernetes import client as k8s_client
from pydantic import ValidationError

from recall_operator.domain.candidates import clean_candidates
from recall_operator.domain.consolidation import runbook_outcome
from recall_operator.domain.contradictions import propose
from recall_operator.domain.guards import memory_staleness
from recall_operator.domain.similarity import score_candidates
from recall_operator.domain.dna import incident_dna
from recall_operator.domain.models import EpisodicMemory, Incident, IncidentSpec, Resolution
from recall_operator.domain.plan import PlanError, build_plan
from recall_operator.domain.recommend import Context, Settings, assess
from recall_operator import metrics
from recall_operator.handlers import catalog
from recall_operator.kube import status as st
from recall_operator.memory.base import MemoryBackend, MemoryUnavailable
from recall_operator.replay import recall_query

GROUP, VERSION, PLURAL = catalog.GROUP, catalog.VERSION, "incidents"
kopf_logger = logging.getLogger("recall_operator.handlers.incident")
# How often open incidents are re-evaluated and the outbox retried.
REEVALUATE_SECONDS = 10.0
# Optimistic-concurrency retries when two outcomes update one Runbook at once.
RUNBOOK_CONFLICT_RETRIES = 8


def _now() -> datetime:
    return datetime.now(UTC)


def _post(body: Any, change: st.StatusChange) -> None:
    for c in change.transitions:
        bad = (c["type"] in (st.MEMORY_AVAILABLE, st.TRIAGED) and c["status"] == "False")
        kopf.event(
            body,
            type="Warning" if bad else "Normal",
            reason=c["reason"],
            message=f"{c['type']}={c['status']}: {c['message']}",
        )


def _apply(patch: kopf.Patch, change: st.StatusChange) -> None:
    for key, value in change.patch.items():
        # A null inside a list element is dropped by the API server (merge
        # patches replace lists whole); dropping it here keeps Kopf's
        # after-patch check quiet. Nulls in maps stay: they delete old keys.
        patch.status[key] = st.prune_none(value) if isinstance(value, list) else value


async def triage(
    incident: Incident, ctx: Context, memory: MemoryBackend | None, settings: Settings = Settings()
) -> tuple[Any, Any, str | None]:
    """Recall, assess, plan. Memory being down degrades the answer; it never stops it."""
    error: str | None = None
    candidates: list[EpisodicMemory] = []
    if memory is None:
        error = "no memory backend was opened"
    else:
        try:
            with metrics.timed(metrics.RECALL_SECONDS):  # metrics
                candidates = await memory.recall(recall_query(incident, ctx.topology))
        except MemoryUnavailable as exc:
            error = str(exc) or type(exc).__name__
    metrics.memory_up(error is None)  # metrics
    with metrics.timed(metrics.SCORING_SECONDS):  # metrics
        assessment = assess(incident, candidates, ctx, settings)
    rec = assessment.recommendation
    plan = None
    runbook = ctx.catalog.get(rec.runbook) if rec.runbook else None
    if runbook is not None:
        try:
            # Only an actionable recommendation offers steps that change anything.
            plan = build_plan(incident.spec, runbook, read_only=rec.mode == "novel")
        except PlanError as exc:
            rec = dataclasses.replace(rec, mode="advisory", warnings=[*rec.warnings, f"no plan: {exc}"])
            assessment = dataclasses.replace(assessment, recommendation=rec)
    return assessment, plan, error


async def _update_runbook(api: Any, namespace: str, name: str, incident: str, outcome: str) -> bool:
    """Count one outcome in Runbook.status; a conflicting writer makes us re-read and retry."""
    from kubernetes.client import CustomObjectsApi
    from kubernetes.client.exceptions import ApiException

    objects = CustomObjectsApi(api)
    for _ in range(RUNBOOK_CONFLICT_RETRIES):
        try:
            current = await asyncio.to_thread(
                objects.get_namespaced_custom_object, GROUP, VERSION, namespace, "runbooks", name
            )
        except ApiException as exc:
            if exc.status == 404:
                return False
            raise
        new = st.runbook_counts_status(current.get("status") or {}, incident, outcome, _now())
        if new is None:
            return True
        body = {"metadata": {"resourceVersion": current["metadata"]["resourceVersion"]}, "status": new}
        try:
            await asyncio.to_thread(
                objects.patch_namespaced_custom_object_status, GROUP, VERSION, namespace, "runbooks", name, body
            )
            return True
        except ApiException as exc:
            if exc.status != 409:
                raise
    raise kopf.TemporaryError(f"runbook {name} kept changing under us; will retry", delay=5)


async def _propose_contradiction(episode: EpisodicMemory, ctx: Context, memory: MemoryBackend, memo: kopf.Memo) -> None:
    """Propose an open Contradiction when this outcome's closest look-alike disagrees.

    A proposal is advice to people: failing to make one never fails the
    consolidation, and a migration that explains the difference is no contradiction.
    """
    incident = Incident(name=episode.incident, namespace=episode.namespace, spec=episode.spec)
    try:
        candidates = clean_candidates(episode.incident, await memory.recall(recall_query(incident, ctx.topology)))
    except MemoryUnavailable:
        return
    scored = [
        s for s in score_candidates(episode.spec, candidates, ctx.topology, dict(ctx.records))
        if memory_staleness(s.memory, ctx.migrations, ctx.topology, ctx.now) is None
    ]
    proposal = propose(episode, scored, ctx.catalog.keys(), ctx.contradictions)
    if proposal is None:
        return
    body = {
        "apiVersion": f"{GROUP}/{VERSION}", "kind": "Contradiction",
        "metadata": {"name": proposal.name, "labels": {"recall.dev/proposed-by": "recall-operator"},
                     "annotations": {"recall.dev/why": proposal.why}},
        "spec": proposal.spec(),
    }
    objects = k8s_client.CustomObjectsApi(memo.api)
    try:
        await asyncio.to_thread(objects.create_namespaced_custom_object, GROUP, VERSION, episode.namespace, "contradictions", body)
    except k8s_client.ApiException as exc:
        if exc.status != 409:  # 409: proposed already (a retried consolidation)
            kopf_logger.warning(f"could not propose contradiction {proposal.name}: {exc.status} {exc.reason}")


async def consolidate(
    name: str,
    namespace: str,
    spec: IncidentSpec,
    resolution: Mapping[str, Any],
    status: Mapping[str, Any],
    generation: int,
    memo: kopf.Memo,
    ctx: Context,
) -> st.StatusChange:
    key = st.resolution_key(resolution)
    now = _now()
    res = Resolution.model_validate(dict(resolution))
    memory: MemoryBackend | None = memo.get("memory")
    episode = EpisodicMemory(
        incident=name, namespace=namespace, spec=spec.model_copy(update={"resolution": None}),
        resolution=res, resolved_at=now,
    )
    try:
        if memory is None:
            raise MemoryUnavailable("no memory backend was opened")
        await memory.remember(episode)
    except MemoryUnavailable as exc:
        metrics.memory_up(False)  # metrics
        metrics.outbox(f"{namespace}/{name}", True)  # metrics
        return st.outbox_status(status, key, generation, now, str(exc) or type(exc).__name__)
    metrics.outbox(f"{namespace}/{name}", False)  # metrics
    metrics.memory_up(True)  # metrics
    await _propose_contradiction(episode, ctx, memory, memo)
    counted = []
    runbooks = list(ctx.catalog)
    for rb in sorted({*runbooks, *([res.runbook] if res.runbook else [])}):
        outcome = runbook_outcome(res, rb)
        if outcome is not None and await _update_runbook(memo.api, namespace, rb, f"{namespace}/{name}", outcome):
            counted.append(rb)
    return st.consolidated_status(status, key, memory.name, counted, generation, now)


async def reconcile(
    body: Any,
    name: str,
    namespace: str,
    spec: Mapping[str, Any],
    status: Mapping[str, Any],
    meta: Mapping[str, Any],
    patch: kopf.Patch,
    memo: kopf.Memo,
    indexes: Mapping[str, Any],
) -> None:
    lock = memo.locks.setdefault(meta.get("uid"), asyncio.Lock())
    async with lock:
        generation = int(meta.get("generation") or 0)
        status = dict(status)
        now = _now()
        raw_spec = dict(spec)
        resolution = raw_spec.get("resolution")
        try:
            incident = Incident(
                name=name, namespace=namespace,
                spec=IncidentSpec.model_validate({k: v for k, v in raw_spec.items() if k != "resolution"}),
            )
            if resolution is not None:
                Resolution.model_validate(dict(resolution))
        except ValidationError as exc:
            err = exc.errors()[0]
            change = st.invalid_status(status, generation, now, f"{'.'.join(map(str, err['loc']))}: {err['msg']}")
            _apply(patch, change)
            _post(body, change)
            return
        ctx = catalog.context_for(namespace, now, **indexes)
        if resolution is not None:
            if st.is_consolidated(status, st.resolution_key(resolution)):
                return
            change = await consolidate(
                name, namespace, incident.spec, resolution, status, generation, memo, ctx
            )
        else:
            assessment, plan, error = await triage(incident, ctx, memo.get("memory"), memo.get("policy") or Settings())
            dna = incident_dna(incident.spec, ctx.topology)
            change = st.triage_status(status, assessment, plan, dna, generation, now, error)
            if "recommendation" in change.patch:  # metrics: a new or changed recommendation
                metrics.INCIDENTS_TRIAGED.labels(assessment.recommendation.mode).inc()
        if not change.empty:
            _apply(patch, change)
            _post(body, change)


def _indexes(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    return {k: kwargs[k] for k in ("runbook_index", "migration_index", "contradiction_index", "topology_index")}


@kopf.on.resume(GROUP, VERSION, PLURAL)
@kopf.on.create(GROUP, VERSION, PLURAL)
@kopf.on.update(GROUP, VERSION, PLURAL)
async def incident_reconcile(
    body: Any, name: str, namespace: str, spec: Any, status: Any, meta: Any, patch: kopf.Patch,
    memo: kopf.Memo, **kwargs: Any,
) -> None:
    await reconcile(body, name, namespace, spec, status, meta, patch, memo, _indexes(kwargs))


def needs_attention(spec: Mapping[str, Any], status: Mapping[str, Any], **_: Any) -> bool:
    """Open incidents (re-evaluated) and outcomes not yet in memory (retried); closed ones rest."""
    resolution = spec.get("resolution")
    return resolution is None or not st.is_consolidated(status, st.resolution_key(resolution))


@kopf.timer(GROUP, VERSION, PLURAL, interval=REEVALUATE_SECONDS, initial_delay=REEVALUATE_SECONDS,
            when=needs_attention)
async def incident_reevaluate(
    body: Any, name: str, namespace: str, spec: Any, status: Any, meta: Any, patch: kopf.Patch,
    memo: kopf.Memo, **kwargs: Any,
) -> None:
    await reconcile(body, name, namespace, spec, status, meta, patch, memo, _indexes(kwargs))
