"""The incident loop: Incident -> gated recommendation in status; confirmed outcome -> memory.

Level-based and idempotent: every run recomputes what status should be from
the spec, the indexes and memory, and writes only the keys that differ. The
same function serves two callers: the watch-driven handler gives each new spec
(or outcome) its answer, and one operator-wide loop re-evaluates
every REEVALUATE_SECONDS the incidents that need attention: open ones (the
catalog, win rates or memory may have changed) and outcomes waiting in the
outbox while memory was down (retried).

The loop is one task, not a Kopf timer per incident: Kopf guards every object
that has a timer with a finalizer, so each new Incident cost one more write and
watch round trip before its first answer. Kopf's finalizer is on no Incident
now; one left by an older version is removed by Kopf itself on the next event
of that Incident (it removes its finalizer when no handler needs it), delete
included. The operator's own finalizer (kube.status.OUTCOME_FINALIZER) is on
an Incident only while its outcome waits for memory, so that a deletion
cannot lose it (`_keep_outcome`); the recall-outcome-hold admission policy
adds it where the outcome is recorded, for the operator to take off once
memory has it.

The handler watches events (kopf.on.event) rather than Kopf's create and
update causes: those make Kopf write its bookkeeping annotations (a copy of
the whole spec) after every answer, a second write per Incident that loaded
the API server while the next Incident waited. What Kopf's diff told, whether
this spec has its answer yet, status.observedGeneration tells. What Kopf's
retry did, the loop does: an answer that failed is retried on its next pass.

A pass works an open incident's answer out again only when something it is
worked out from changed since the last time (`must_reevaluate`): the incident
itself (its resourceVersion), memory (`MemoryBackend.revision`), the catalog
entries of its namespace (the Kopf indexes the Context is made from), or the
clock past the next moment a migration takes effect. Working out every open
incident on every pass cost 5-10 ms of CPU each, while a new Incident created
meanwhile waited behind the pass.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections import deque
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, cast

import kopf
from kubernetes import client as k8s_client
from pydantic import ValidationError

from recall_operator.api import GROUP, VERSION, namespaced
from recall_operator.domain.candidates import clean_candidates
from recall_operator.domain.approval_rules import opened_by
from recall_operator.domain.consolidation import (
    DELETION_WAIT, RUN_WAIT, as_first_resolved, counts_on_runbooks, current_outcome, empty_outcome, name_taken,
    names_runbook, remembered_outcome,
    run_in_progress, record_outcome, runbook_run_here, withdrawal,
)
from recall_operator.domain.execution import seal
from recall_operator.domain.contradictions import propose
from recall_operator.domain.grounding import unsupported_claims
from recall_operator.domain.guards import memory_staleness
from recall_operator.domain.similarity import score_candidates
from recall_operator.domain.dna import incident_dna
from recall_operator.domain.models import EpisodicMemory, Incident, IncidentSpec, Resolution
from recall_operator.domain.plan import PlanError, build_plan, steps_digest
from recall_operator.domain.recommend import Context, Settings, assess
from recall_operator.domain.times import parse_time
from recall_operator.domain.reevaluation import Evaluated, Inputs, answer_expires, must_reevaluate
from recall_operator import metrics
from recall_operator.handlers import catalog, clock, operator_settings
from recall_operator.kube import status as st
from recall_operator.kube.client import Conflict, TooLarge, apply_status, remove_status_fields, set_finalizer
from recall_operator.kube.events import event_body, post_or_log
from recall_operator.memory.base import MemoryBackend, MemoryRefused, MemoryUnavailable, recall_precedents, recall_query

PLURAL = "incidents"
kopf_logger = logging.getLogger("recall_operator.handlers.incident")
# How often open incidents are re-evaluated and the outbox retried.
REEVALUATE_SECONDS = 10.0
# Answers redone when another writer changed the incident's status meanwhile.
CONFLICT_RETRIES = 4


def _now() -> datetime:
    return datetime.now(UTC)


def _events(change: st.StatusChange) -> list[tuple[str, str, str]]:
    """(type, reason, message) of the one Event a write with condition transitions gets.

    One Event per answer, not one per transition: a new incident's first
    answer moves three conditions at once, and three Events were three more
    writes to the API server (and as many posts by the operator) while the
    next incident waited. The message names every transition; the reason is
    the first Warning's (memory down, an unreadable spec), else the first
    transition's, so a Warning reads as what went wrong.
    """
    if not change.transitions:
        return []
    said = []
    worst: tuple[str, str] | None = None
    for c in change.transitions:
        bad = (c["type"] in (st.MEMORY_AVAILABLE, st.TRIAGED) and c["status"] == "False")
        if bad and worst is None:
            worst = ("Warning", c["reason"])
        said.append(f"{c['type']}={c['status']} ({c['reason']}): {c['message']}")
    type_, reason = worst or ("Normal", change.transitions[0]["reason"])
    return [(type_, reason, "; ".join(said))]


# The action an answer's Event names.
ANSWER = "Answer"
# Events wait behind answers (EventOutbox): until no answer was written for this long ...
EVENT_QUIET_SECONDS = 1.0
# ... and never longer than this.
EVENT_LONGEST_SECONDS = 10.0
# How long a stopping operator spends posting the Events still waiting.
EVENT_FLUSH_SECONDS = 5.0


class EventOutbox:
    """The Events of answers, posted behind the answers rather than beside them.

    An answer's Event repeats, for `kubectl describe`, what its status write
    already says. Posted at once, each was a write to the API server just when
    the next incident was being created and answered: with incidents coming one
    after another it made each answer wait about a third longer (`recall bench
    --cluster-only`, p50 26-31 ms without it against 39-44 ms with it, in the
    same hour). So an Event waits until no answer has been written for
    EVENT_QUIET_SECONDS, and never longer than EVENT_LONGEST_SECONDS; then the
    waiting ones are posted oldest first, one at a time, on a worker thread,
    each with the time of its answer. The API server does the same work, after
    the answers instead of between them. An operator that stops posts what is
    waiting first (at most EVENT_FLUSH_SECONDS). Best effort, as Events are: one
    the API server refuses is logged and dropped.
    """

    def __init__(self, quiet: float = EVENT_QUIET_SECONDS, longest: float = EVENT_LONGEST_SECONDS,
                 clock: Any = time.monotonic) -> None:
        self.quiet, self.longest, self._clock = quiet, longest, clock
        self._waiting: deque[tuple[float, Any, dict[str, Any]]] = deque()  # (queued at, api, event)
        self._last_answer = float("-inf")
        self._added = asyncio.Event()

    def answered(self) -> None:
        """An answer was written now: the Events wait for a quiet moment after it."""
        self._last_answer = self._clock()

    def add(self, api: Any, body: Mapping[str, Any], change: st.StatusChange, at: datetime) -> None:
        for type_, reason, message in _events(change):
            self._waiting.append((self._clock(), api, event_body(body, type_, reason, message, at, ANSWER)))
        if self._waiting:
            self._added.set()

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def wait_for(self) -> float:
        """Seconds until the oldest waiting Event is due; 0: post it now (nothing waiting: inf)."""
        if not self._waiting:
            return float("inf")
        now = self._clock()
        return max(0.0, min(self._last_answer + self.quiet - now, self._waiting[0][0] + self.longest - now))

    async def run(self) -> None:
        try:
            while True:
                delay = self.wait_for()
                if delay == float("inf"):
                    self._added.clear()
                    await self._added.wait()
                elif delay > 0:
                    await asyncio.sleep(delay)
                else:
                    _at, api, event = self._waiting.popleft()
                    await asyncio.to_thread(post_or_log, api, event)
        except asyncio.CancelledError:
            try:
                await asyncio.wait_for(asyncio.to_thread(self.flush), EVENT_FLUSH_SECONDS)
            except TimeoutError:
                kopf_logger.warning(f"{self.waiting} answer events were not posted before the operator stopped")
            raise

    def flush(self) -> None:
        """Post every waiting Event now (blocking)."""
        while self._waiting:
            _at, api, event = self._waiting.popleft()
            post_or_log(api, event)


def _object_log(body: Mapping[str, Any]) -> logging.LoggerAdapter[logging.Logger]:
    """A logger whose lines name the incident, as those Kopf gives a handler do (logs.py reads `k8s_ref`).

    The re-evaluation loop has no Kopf logger of its own; k8s_skip keeps Kopf
    from posting the line as an Event (the answer has its own).
    """
    meta = body.get("metadata") or {}
    ref = {"apiVersion": body.get("apiVersion"), "kind": "Incident", "name": meta.get("name"),
           "uid": meta.get("uid"), "namespace": meta.get("namespace")}
    return logging.LoggerAdapter(logging.getLogger("kopf.objects"), {"k8s_ref": ref, "k8s_skip": True})


async def _announce(memo: kopf.Memo, body: Mapping[str, Any], change: st.StatusChange) -> None:
    """The Event of an answer just written: into the operator's outbox, or posted now when there is none.

    The answer is logged at once as well: one line per answer saying what its
    Event will say, where Kopf's "succeeded" lines (logs.QuietSuccess) said
    only that a handler ran.
    """
    for _type, reason, message in _events(change):
        _object_log(body).info(f"{reason}: {message}")
    outbox: EventOutbox | None = memo.get("events")
    if outbox is None:  # the handlers called outside a running operator (tests)
        for type_, reason, message in _events(change):
            await asyncio.to_thread(post_or_log, memo.api, event_body(body, type_, reason, message, clock(memo)(), ANSWER))
        return
    outbox.answered()
    outbox.add(memo.api, body, change, clock(memo)())


async def _write_status(api: Any, namespace: str, name: str, spec: Mapping[str, Any], current: Mapping[str, Any],
                        change: st.StatusChange, meta: Mapping[str, Any], now: datetime) -> tuple[bool, str | None]:
    """Apply everything triage owns in status (server-side apply, its own field manager), with phase and Ready.

    `current` is the status the change was computed from: the fields triage
    owns and does not change now are sent again as they are, or the API server
    would remove them. Phase and Ready go with them, as domain.lifecycle sums up
    the status this write leaves (kube.status explains how the lifecycle writer
    shares them): a new Incident's answer is then one status write, where the
    lifecycle writer's own write after it was a second one, and a watcher sees
    the answer and its phase together. Guarded by the version `current` was
    read at (`meta`): False when the incident changed since, or is gone. With
    True, the incident's resourceVersion after the write, when this write was
    its only change (None: not known).
    """
    after = {**current, **change.patch}
    body = st.with_lifecycle(st.owned_status(current, change.patch, st.TRIAGE_KEYS, st.TRIAGE_CONDITIONS),
                             spec, after, int(meta.get("generation") or 0), now)
    resource_version = meta.get("resourceVersion")
    try:
        held = await asyncio.to_thread(apply_status, api, GROUP, VERSION, PLURAL, "Incident", namespace, name, body,
                                       st.TRIAGE_MANAGER, resource_version)
    except Conflict:
        return False, None
    stale = st.leftovers(body, held.get("status") or {}, st.TRIAGE_KEYS)
    if stale:  # kept by an older writer's ownership (a merge patch): a former recommendation's keys go
        await asyncio.to_thread(remove_status_fields, api, GROUP, VERSION, PLURAL, namespace, name, stale,
                                st.TRIAGE_MANAGER)
        return True, None
    return True, (held.get("metadata") or {}).get("resourceVersion")


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
                candidates = await recall_precedents(memory, incident, ctx.topology)
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


async def _update_runbook(api: Any, namespace: str, name: str, incident: str, outcome: str, now: datetime,
                          digest: str | None) -> bool:
    """Count one outcome in Runbook.status, for the steps of `digest` (False: the Runbook is gone)."""
    return await catalog.change_runbook_status(
        api, namespace, name, lambda current: st.runbook_counts_status(current, incident, outcome, now, digest)
    )


async def _propose_contradiction(episode: EpisodicMemory, ctx: Context, memory: MemoryBackend, memo: kopf.Memo) -> None:
    """Propose an open Contradiction when this outcome's closest look-alike disagrees.

    A proposal is advice to people: failing to make one never fails the
    consolidation, and a migration that explains the difference is no contradiction.
    """
    incident = Incident(name=episode.incident, namespace=episode.namespace, spec=episode.spec)
    try:
        candidates = clean_candidates(incident, await memory.recall(recall_query(incident, ctx.topology)))
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
    opener: str | None = None,
    uid: str | None = None,
    deleting: datetime | None = None,
    created_at: datetime | None = None,
) -> st.StatusChange:
    """Write the outcome into memory and count it on its Runbooks; the status that says how it went.

    `deleting`: when the Incident's deletion was requested. It waits for no
    run then (the execution stops advancing a deleting Incident), and the
    outbox says how long the deletion waits for memory.
    """
    key = st.resolution_key(resolution)
    now = clock(memo)()
    waits = None if deleting is not None else st.waits_for_run(status, key, now)
    if waits is not None:  # the operator's own run goes on: only its end says whether the runbook worked
        return st.run_wait_status(status, key, generation, now, waits[1], waits[0])
    if run_in_progress(status) is not None:
        why = "the Incident is being deleted" if deleting is not None else f"still so after {RUN_WAIT}"
        kopf_logger.warning(f"{namespace}/{name}: {run_in_progress(status)}, and {why}; its outcome is written"
                            " into memory as the run stands")
    # A runbook success counts only where this operator ran that runbook for this incident.
    res = remembered_outcome(Resolution.model_validate(dict(resolution)), ctx.catalog, status, opener)
    memory: MemoryBackend | None = memo.get("memory")
    # The runbooks the outcome names, as field or in an action: their words are part of the record.
    named = [rb for n, rb in ctx.catalog.items()
             if n in (res.runbook, res.reported_runbook) or any(names_runbook(a.action, n) for a in res.actions)]
    episode = EpisodicMemory(
        incident=name, namespace=namespace, spec=spec.model_copy(update={"resolution": None}),
        resolution=res, resolved_at=now, unsupported=unsupported_claims(spec, res, named), uid=uid, opened_by=opener,
        ran_steps=(ran.name, steps_digest(ran)) if (ran := ctx.catalog.get(runbook_run_here(status) or "")) else None,
        withdrawn=withdrawal(resolution),
    )
    try:
        if memory is None:
            raise MemoryUnavailable("no memory backend was opened")
        held = await memory.get(name, namespace)
        taken = name_taken(held, episode, created_at)
        if taken is not None:
            kopf_logger.warning(f"{namespace}/{name}: outcome not written into memory: {taken}")
            return st.refused_status(status, key, generation, now, taken)
        episode = as_first_resolved(held, episode)
        await memory.remember(episode)
    except MemoryRefused as exc:
        # Sent again it would be refused again: said on the Incident, and a correction is tried afresh.
        kopf_logger.warning(f"{namespace}/{name}: outcome not written into memory: {exc}")
        metrics.outbox(f"{namespace}/{name}", False)  # metrics
        return st.refused_status(status, key, generation, now, f"memory refused it: {exc}", reason="MemoryRefused")
    except MemoryUnavailable as exc:
        metrics.memory_up(False)  # metrics
        metrics.outbox(f"{namespace}/{name}", True)  # metrics
        return st.outbox_status(status, key, generation, now, str(exc) or type(exc).__name__,
                                deleting + DELETION_WAIT if deleting is not None else None)
    metrics.outbox(f"{namespace}/{name}", False)  # metrics
    metrics.memory_up(True)  # metrics
    if episode.withdrawn is None:  # a withdrawn report disagrees with nobody
        await _propose_contradiction(episode, ctx, memory, memo)
    counted = []
    counts = counts_on_runbooks(episode, st.counted_before(status))
    runbooks = {*ctx.catalog, *([res.runbook] if res.runbook else [])} if counts else set()
    for rb in sorted(runbooks):
        outcome = record_outcome(res, rb)
        digest = steps_digest(ctx.catalog[rb]) if rb in ctx.catalog else None
        if outcome is not None and await _update_runbook(memo.api, namespace, rb, f"{namespace}/{name}", outcome, now,
                                                         digest):
            counted.append(rb)
    return st.consolidated_status(status, key, memory.name, counted, generation, now, episode.unsupported,
                                  episode.withdrawn)


def _deletion_wait_began(memo: kopf.Memo, meta: Mapping[str, Any]) -> datetime | None:
    return st.deletion_wait_began(parse_time(meta.get("deletionTimestamp")), memo.get("started"))


def _held(meta: Mapping[str, Any]) -> bool:
    """The Incident carries the operator's hold on its deletion (kube.status.OUTCOME_FINALIZER)."""
    return st.OUTCOME_FINALIZER in (meta.get("finalizers") or ())


async def _keep_outcome(memo: kopf.Memo, body: Mapping[str, Any], spec: Mapping[str, Any],
                        status: Mapping[str, Any]) -> None:
    """Hold the Incident back from deletion while its outcome waits for memory; let it go when it
    no longer waits, or when its deletion has waited DELETION_WAIT (the outcome is then lost, and said so).

    `status` is the one just written (or found unchanged). No finalizer can be
    added once deletion began; a failure here is retried by the next pass.
    """
    meta = body["metadata"]
    deleting = _deletion_wait_began(memo, meta)
    hold = st.holds_deletion(spec, status, deleting, clock(memo)())
    if hold == _held(meta) or (hold and deleting is not None):
        return
    namespace, name = meta["namespace"], meta["name"]
    try:
        changed = await asyncio.to_thread(set_finalizer, memo.api, GROUP, VERSION, PLURAL, namespace, name,
                                          str(meta.get("uid") or ""), st.OUTCOME_FINALIZER, hold)
    except Exception as exc:  # the next pass asks again
        kopf_logger.warning(f"{namespace}/{name}: could not {'add' if hold else 'remove'} "
                            f"{st.OUTCOME_FINALIZER}: {exc}")
        return
    why, lost = st.outcome_after_deletion(spec, status)
    if changed and deleting is not None and lost:  # let go after DELETION_WAIT with the outcome still waiting
        why = f"held {DELETION_WAIT} for memory, which did not come back: {why}"
        kopf_logger.error(f"{namespace}/{name}: {why}")
        metrics.OUTCOMES_LOST.inc()  # metrics
        await asyncio.to_thread(post_or_log, memo.api, event_body(body, "Warning", "OutcomeLost", why,
                                                                  clock(memo)(), ANSWER))


async def _last_chance(name: str, namespace: str, spec: Mapping[str, Any], status: Mapping[str, Any],
                       meta: Mapping[str, Any], memo: kopf.Memo, indexes: Mapping[str, Any]) -> None:
    """An Incident deleted with an outcome the operator never took (resolved and deleted at once, or
    while the operator handled something else): the outcome is written into memory from the last state."""
    outcome = current_outcome(spec)
    if outcome is None or st.is_settled(status, st.resolution_key(outcome)) or st.outcome_waits(spec, status):
        return  # nothing recorded, in memory already, or its wait ended with the outcome said lost
    try:
        async with _lock(memo, meta):
            gone = {**meta, "deletionTimestamp": meta.get("deletionTimestamp") or clock(memo)().isoformat()}
            change = await evaluate(name, namespace, spec, status, gone, memo, indexes)
    except Exception:
        metrics.OUTCOMES_LOST.inc()  # metrics
        kopf_logger.exception(f"{namespace}/{name}: deleted; writing its outcome into memory failed, it is lost")
        return
    why, lost = st.outcome_after_deletion(spec, {**status, **(change.patch if change is not None else {})})
    if lost:
        metrics.OUTCOMES_LOST.inc()  # metrics
        kopf_logger.error(f"{namespace}/{name}: {why}")
    else:
        kopf_logger.info(f"{namespace}/{name}: deleted; {why}")


def _lock(memo: kopf.Memo, meta: Mapping[str, Any]) -> asyncio.Lock:
    # One reconcile at a time per incident: the watch-driven handler and the loop never interleave.
    lock: asyncio.Lock = memo.locks.setdefault(meta.get("uid"), asyncio.Lock())
    return lock


async def evaluate(
    name: str,
    namespace: str,
    spec: Mapping[str, Any],
    status: Mapping[str, Any],
    meta: Mapping[str, Any],
    memo: kopf.Memo,
    indexes: Mapping[str, Any],
) -> st.StatusChange | None:
    """What status should become (only the keys that differ), and the transitions; None: nothing to do.

    Consolidating an outcome writes memory and Runbook counts as it goes; the
    caller holds the incident's lock and writes the status this returns.
    """
    generation = int(meta.get("generation") or 0)
    status = dict(status)
    now = clock(memo)()
    raw_spec = dict(spec)
    resolution = current_outcome(raw_spec)  # the newest correction, else the recorded outcome
    try:
        incident = Incident(
            name=name, namespace=namespace, uid=str(meta.get("uid") or "") or None,
            created_at=parse_time(meta.get("creationTimestamp")),
            spec=IncidentSpec.model_validate({k: v for k, v in raw_spec.items()
                                              if k not in ("resolution", "corrections")}),
        )
        if resolution is not None and empty_outcome(Resolution.model_validate(dict(resolution))):
            return st.invalid_status(status, generation, now,
                                     "spec.resolution: an outcome needs at least a summary or an action")
    except ValidationError as exc:
        err = exc.errors()[0]
        return st.invalid_status(status, generation, now, f"{'.'.join(map(str, err['loc']))}: {err['msg']}")
    ctx = catalog.context_for(namespace, now, **indexes)
    if resolution is not None:
        if st.is_settled(status, st.resolution_key(resolution)):
            return None
        return await consolidate(name, namespace, incident.spec, resolution, status, generation, memo, ctx,
                                 opened_by({"metadata": meta}), incident.uid, _deletion_wait_began(memo, meta),
                                 incident.created_at)
    config = operator_settings(memo)
    assessment, plan, error = await triage(incident, ctx, memo.get("memory"), config.gate())
    dna = incident_dna(incident.spec, ctx.topology)
    change = _sealed(config.seal_key(), status, str(meta.get("uid") or ""),
                     lambda current: st.triage_status(current, assessment, plan, dna, generation, now, error))
    if "recommendation" in change.patch:  # metrics: a new or changed recommendation
        metrics.INCIDENTS_TRIAGED.labels(assessment.recommendation.mode).inc()
    return change


def _sealed(key: bytes, status: Mapping[str, Any], uid: str, build: Any) -> st.StatusChange:
    """The triage change with the operator's seal on its recommendation (domain.execution.seal).

    The change is built against status without the seal, so an unchanged
    recommendation stays unwritten; the seal is written whenever it is not the
    one this operator makes now (a new recommendation, a restart, a forgery).
    """
    current = dict(status)
    old = dict(current.get("recommendation") or {})
    had = old.pop("seal", None)
    if "recommendation" in current:
        current["recommendation"] = old
    change: st.StatusChange = build(current)
    rec = change.patch.get("recommendation")
    want = seal(key, uid, rec if rec is not None else old)
    if rec is not None:
        change.patch["recommendation"] = {**rec, "seal": want}
    elif had != want and old:
        change.patch["recommendation"] = {**old, "seal": want}
    return change


def _indexes(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    return {k: kwargs[k] for k in INDEX_NAMES}


@kopf.on.event(GROUP, VERSION, PLURAL)
async def incident_reconcile(
    event: Mapping[str, Any], body: Any, name: str, namespace: str | None, spec: Any, status: Any, meta: Any,
    memo: kopf.Memo, **kwargs: Any,
) -> None:
    namespace = namespaced(namespace)
    key, uid, generation = (namespace, name), meta.get("uid"), meta.get("generation")
    if event.get("type") == "DELETED" or (meta.get("deletionTimestamp") and not _held(meta)):
        _retries(memo).discard(key)  # nothing left to answer
        _written(memo).pop(uid, None)
        _evaluations(memo).pop(uid, None)
        if event.get("type") == "DELETED":
            await _last_chance(name, namespace, spec, status, meta, memo, _indexes(kwargs))
        return
    # Our own status write comes back as an event, as do label edits: a spec
    # that has its answer is the loop's to re-evaluate, not the watch's.
    written_here = _written(memo).get(uid) == generation
    if answered(spec, status, meta):
        if key not in _retries(memo):
            return
        if written_here:
            _retries(memo).discard(key)  # held back below: the answer written is here
            return
    elif written_here:
        # This spec was answered, yet the event shows no answer: the event is
        # older than the write (each incident's events come in order; an alert's
        # re-fires queue up behind its first answer). Working it out again would
        # give the same answer and lose the write's race. The loop's next pass
        # answers it should the answer really be gone.
        _retries(memo).add(key)
        return
    try:
        change: st.StatusChange | None = None
        inputs: Inputs | None = None
        for _attempt in range(CONFLICT_RETRIES):
            async with _lock(memo, meta):
                if change is None:
                    _evaluations(memo).pop(uid, None)
                    inputs = read_inputs(memo, namespace, _indexes(kwargs))  # before evaluate reads them
                    change = await evaluate(name, namespace, spec, status, meta, memo, _indexes(kwargs))
                if change is None or change.empty:
                    _note(memo, spec, status, meta, meta.get("resourceVersion"), change, inputs)
                    await _keep_outcome(memo, body, spec, status)
                    break
                # Guarded by this event's version: another writer's status (execution,
                # lifecycle) since then makes it read the incident again and redo.
                written, version = await _write_status(memo.api, namespace, name, spec, status, change, meta,
                                                       clock(memo)())
                if written:
                    if answered(spec, {**status, **change.patch}, meta):
                        _written(memo)[uid] = meta.get("generation")
                    _note(memo, spec, status, meta, version, change, inputs)
                    await _announce(memo, body, change)
                    await _keep_outcome(memo, body, spec, {**status, **change.patch})
                    break
            fresh = await _read(memo.api, namespace, name)
            if fresh is None or (fresh.get("metadata") or {}).get("uid") != meta.get("uid"):
                break
            old = (spec, status, meta)
            spec, status, meta = fresh.get("spec") or {}, fresh.get("status") or {}, fresh["metadata"]
            if answered(spec, status, meta):
                break
            if not _same_input(*old, spec, status, meta):
                change = None  # the spec or status moved: answer what is there now
            # Otherwise only metadata moved (an alert's re-fire annotations, a label): the
            # answer stands and is written again at the new version, not worked out again.
        else:
            # Still changing under every answer: the loop's next pass answers it.
            _retries(memo).add((namespace, name))
            return
    except TooLarge as exc:
        await _too_large(memo, body, spec, status, meta, inputs, exc)
        return
    except Exception:
        # Kopf retries no watching handler: the loop's next pass answers it instead.
        _retries(memo).add((namespace, name))
        metrics.RECONCILE_ERRORS.inc()  # metrics
        kopf_logger.exception(f"answering incident {namespace}/{name} failed; the next re-evaluation pass retries")
        return
    _retries(memo).discard((namespace, name))


def _same_input(old_spec: Mapping[str, Any], old_status: Mapping[str, Any], old_meta: Mapping[str, Any],
                spec: Mapping[str, Any], status: Mapping[str, Any], meta: Mapping[str, Any]) -> bool:
    """Whether an answer worked out from the old object is still the answer to the new one.

    evaluate() reads the spec, the status, the generation, the uid and the
    opener; nothing else of the object (other annotations, labels, managed
    fields) goes into the answer.
    """
    return (old_meta.get("generation") == meta.get("generation") and old_meta.get("uid") == meta.get("uid")
            and opened_by({"metadata": old_meta}) == opened_by({"metadata": meta})
            and dict(old_spec) == dict(spec) and dict(old_status) == dict(status))


async def _read(api: Any, namespace: str, name: str) -> dict[str, Any] | None:
    objects = k8s_client.CustomObjectsApi(api)
    try:
        found = cast(dict[str, Any], await asyncio.to_thread(
            objects.get_namespaced_custom_object, GROUP, VERSION, namespace, PLURAL, name))
    except k8s_client.ApiException as exc:
        if exc.status == 404:
            return None
        raise
    return found


def _written(memo: kopf.Memo) -> dict[str, Any]:
    """The generation of each incident (by uid) whose answer this operator's handler wrote last.

    Made at start-up, like the retries, so that every object's handlers share it.
    """
    written: dict[str, Any] = memo.written
    return written


def _retries(memo: kopf.Memo) -> set[tuple[str, str]]:
    """Incidents whose answer failed in the handler: the loop answers them on its next pass.

    Made at start-up: each object's handlers get a shallow copy of the
    operator's memo, so only a set made before the copies is shared with the loop.
    """
    retries: set[tuple[str, str]] = memo.retries
    return retries


# -- the re-evaluation loop ----------------------------------------------------


def needs_attention(spec: Mapping[str, Any], status: Mapping[str, Any], **_: Any) -> bool:
    """Open incidents (re-evaluated) and outcomes not yet in memory (retried); closed ones rest."""
    resolution = current_outcome(spec)
    return resolution is None or not st.is_settled(status, st.resolution_key(resolution))


def answered(spec: Mapping[str, Any], status: Mapping[str, Any], meta: Mapping[str, Any]) -> bool:
    """Whether the watch-driven handler has already handled this spec.

    The loop only re-evaluates answers: a new spec (or outcome) is the
    handler's to answer first, so that the two never both give a first answer
    (or write one outcome into memory twice). A correction is a new outcome.
    """
    resolution = current_outcome(spec)
    if resolution is None:
        return bool(status.get("observedGeneration") == meta.get("generation"))
    # An outcome the handler tried to write into memory: it waits in the outbox under its key.
    return bool((status.get("memory") or {}).get("key") == st.resolution_key(resolution))


@kopf.index(GROUP, VERSION, PLURAL)
async def incident_attention_index(
    body: Mapping[str, Any], name: str, namespace: str | None, spec: Mapping[str, Any], status: Mapping[str, Any],
    meta: Mapping[str, Any], logger: Any, **_: Any,
) -> dict[tuple[str, str], dict[str, Any]] | None:
    """The incidents the loop goes over, as last seen on the watch: an index needs no finalizer.

    Only those that need attention, so a long history of closed incidents
    costs the loop nothing. It runs on every Incident event, so it is cheap:
    async (no hop to a worker thread) and without deep copies (each event
    brings a body of its own, parsed from the API, which nothing changes later).
    """
    deleting = bool(meta.get("deletionTimestamp"))
    if deleting and not _held(meta):
        return None
    try:
        # A deleting Incident the operator holds stays until the loop lets it go, settled or not.
        if not deleting and not needs_attention(spec, status):
            return None
    except Exception as exc:  # an odd spec: the loop looks at it, and its reconcile says what is wrong
        logger.debug(f"cannot tell whether {namespace}/{name} needs attention: {exc}")
    return {(namespaced(namespace), name): {
        "apiVersion": body.get("apiVersion"), "kind": body.get("kind"),
        "metadata": {k: meta.get(k) for k in ("name", "namespace", "uid", "generation", "resourceVersion",
                                              "deletionTimestamp", "finalizers")},
        "spec": dict(spec),
        "status": dict(status),
    }}


# -- what an open incident's answer is worked out from ----------------------------
#
# evaluate() reads, for an open incident (no outcome yet):
# - the incident: spec, status, generation, uid (its resourceVersion moves with any of them);
# - memory: what recall returns (`MemoryBackend.revision`; memories another
#   process or operator wrote included, as each backend says how);
# - the Context of its namespace, made by catalog.context_for from the Kopf
#   indexes: runbooks with their win rates, migrations, contradictions,
#   topologies (INDEX_NAMES; Approvals are the execution's, not triage's);
# - the clock: ctx.now decides which migrations are in effect
#   (domain.guards.in_effect, for stale memories and stale runbooks). Nothing
#   else in the decision reads it; condition times take it only when a
#   condition moves for another reason;
# - the operator's settings and its seal key, fixed while it runs.
# A test (tests/unit/test_reevaluation_decision.py) lists the domain's readers
# of the clock, so that a new one cannot come in unnoticed here.

INDEX_NAMES = ("runbook_index", "migration_index", "contradiction_index", "topology_index")


def read_inputs(memo: kopf.Memo, namespace: str, indexes: Mapping[str, Any]) -> Inputs:
    """The inputs of an evaluation in `namespace`, as they are now.

    Read before evaluate() reads them, never after: a change in between then
    shows at the next pass as a change (worked out once more, at worst),
    where reading after could record a change the answer never saw.
    """
    memory: MemoryBackend | None = memo.get("memory")
    now = clock(memo)()
    cluster = tuple(tuple(indexes[name].get(namespace, ())) for name in INDEX_NAMES)
    return Inputs(memory=memory.revision() if memory is not None else None, cluster=cluster, now=now,
                  until=answer_expires(indexes["migration_index"].get(namespace, ()), now))


def _evaluations(memo: kopf.Memo) -> dict[str, Evaluated]:
    """The last evaluation of each open incident (by uid) whose answer the incident holds.

    Made at start-up, like the retries, so that every object's handlers share
    it; absent (handlers called outside a running operator), nothing is kept
    and nothing is skipped.
    """
    found: dict[str, Evaluated] | None = memo.get("evaluations")
    return found if found is not None else {}


def _note(memo: kopf.Memo, spec: Mapping[str, Any], status: Mapping[str, Any], meta: Mapping[str, Any],
          version: str | None, change: st.StatusChange | None, inputs: Inputs | None) -> None:
    """Keep this evaluation on record, if the incident now holds its answer at `version` and it may be trusted.

    Not kept: an incident with an outcome (its write into memory is retried
    every pass), a version not known (the write was two writes), and an
    answer that says memory was not available (worked out again until it is).
    """
    if version is None or inputs is None or current_outcome(spec) is not None:
        return
    after = {**status, **(change.patch if change is not None else {})}
    if any(c.get("type") == st.MEMORY_AVAILABLE and c.get("status") != "True" for c in after.get("conditions") or []):
        return
    _evaluations(memo)[str(meta.get("uid") or "")] = Evaluated(version, inputs)


async def _too_large(memo: kopf.Memo, body: Mapping[str, Any], spec: Mapping[str, Any], status: Mapping[str, Any],
                     meta: Mapping[str, Any], inputs: Inputs | None, exc: TooLarge) -> None:
    """The Incident cannot hold its answer: say so on it (an Event, which is its own object), once per generation.

    No status write fits, so the answer is not retried on every pass either:
    the evaluation is kept on record as if written, and the incident is worked
    out again when it or an input changes (a shorter description, say).
    """
    seen: set[tuple[str, Any]] = memo.setdefault("too_large", set())
    at = (str(meta.get("uid") or ""), meta.get("generation"))
    _note(memo, spec, status, meta, meta.get("resourceVersion"), None, inputs)
    if at in seen:
        return
    seen.add(at)
    why = (f"the Incident is too large to hold the operator's answer, so it is not triaged: {exc}. Objects are kept"
           " under 1.5 MiB; shorten its description, error signatures or labels and it is triaged again")
    _object_log(body).warning(why)
    await asyncio.to_thread(post_or_log, memo.api, event_body(body, "Warning", "AnswerTooLarge", why,
                                                              clock(memo)(), ANSWER))


async def reevaluate(snapshot: Mapping[str, Any], memo: kopf.Memo, indexes: Mapping[str, Any]) -> bool:
    """Re-run one incident's reconcile from its snapshot; True when status was written."""
    return await _reevaluate(snapshot, memo, indexes) == "written"


async def _reevaluate(snapshot: Mapping[str, Any], memo: kopf.Memo, indexes: Mapping[str, Any]) -> str:
    """Re-run one incident's reconcile from its snapshot, unless nothing it is worked out from changed.

    "written", "unchanged" (worked out again, the same answer), "skipped"
    (nothing changed: must_reevaluate), or "not answered" (the watch's to answer).
    The write names the snapshot's resourceVersion: if the incident changed
    since, nothing is written, and the watch or the next pass has it.
    """
    meta, spec, status = snapshot["metadata"], snapshot["spec"], snapshot["status"]
    key, uid = (meta["namespace"], meta["name"]), str(meta.get("uid") or "")
    if not answered(spec, status, meta) and key not in _retries(memo):
        return "not answered"
    async with _lock(memo, meta):
        inputs = read_inputs(memo, meta["namespace"], indexes)  # before evaluate reads them
        why = must_reevaluate(_evaluations(memo).get(uid), meta.get("resourceVersion"), inputs,
                              open_=current_outcome(spec) is None, retry=key in _retries(memo))
        if why is None:
            metrics.REEVALUATIONS.labels("skipped").inc()  # metrics
            if meta.get("deletionTimestamp"):  # held with nothing waiting (a finalizer someone else put): let go
                await _keep_outcome(memo, snapshot, spec, status)
            return "skipped"
        metrics.REEVALUATIONS.labels("evaluated").inc()  # metrics
        kopf_logger.debug(f"re-evaluating incident {key[0]}/{key[1]}: {why}")
        _evaluations(memo).pop(uid, None)
        change = await evaluate(meta["name"], meta["namespace"], spec, status, meta, memo, indexes)
        if change is None or change.empty:
            _retries(memo).discard(key)
            _note(memo, spec, status, meta, meta.get("resourceVersion"), change, inputs)
            await _keep_outcome(memo, snapshot, spec, status)
            return "unchanged"
        try:
            written, version = await _write_status(memo.api, meta["namespace"], meta["name"], spec, status, change,
                                                   meta, clock(memo)())
        except TooLarge as exc:
            _retries(memo).discard(key)
            await _too_large(memo, snapshot, spec, status, meta, inputs, exc)
            return "too large"
        if written:
            _retries(memo).discard(key)
            _note(memo, spec, status, meta, version, change, inputs)
    if written:
        await _announce(memo, snapshot, change)
        await _keep_outcome(memo, snapshot, spec, {**status, **change.patch})
        return "written"
    return "unchanged"


async def reevaluate_all(memo: kopf.Memo, attention: Mapping[Any, Any], indexes: Mapping[str, Any]) -> int:
    """One pass over the incidents that need attention; one that fails is logged and the pass goes on."""
    results: dict[str, int] = {}
    for key in list(attention):
        for snapshot in list(attention.get(key) or ()):
            try:
                result = await _reevaluate(snapshot, memo, indexes)
                results[result] = results.get(result, 0) + 1
            except Exception:
                metrics.RECONCILE_ERRORS.inc()  # metrics
                kopf_logger.exception(f"re-evaluating incident {key} failed; the next pass tries again")
            # A reconcile that changes nothing may never suspend (the embedded
            # store answers synchronously): let the watch-driven work in between
            # incidents, so a pass over many never holds a new incident up.
            await asyncio.sleep(0)
    # The records of incidents that no longer need attention (closed, deleted) go.
    present = {str(s["metadata"].get("uid") or "") for k in list(attention) for s in list(attention.get(k) or ())}
    records = _evaluations(memo)
    for uid in [u for u in records if u not in present]:
        del records[uid]
    if results:
        kopf_logger.debug("re-evaluation pass: " + ", ".join(f"{n} {r}" for r, n in sorted(results.items())))
    return results.get("written", 0)


async def reevaluate_forever(memo: kopf.Memo, attention: Mapping[Any, Any], indexes: Mapping[str, Any]) -> None:
    while True:
        await asyncio.sleep(REEVALUATE_SECONDS)
        try:
            await reevaluate_all(memo, attention, indexes)
        except Exception:
            kopf_logger.exception("a re-evaluation pass failed; the next one starts as usual")


@kopf.on.startup()
async def start_reevaluation(memo: kopf.Memo, **kwargs: Any) -> None:
    # Kopf passes each index as a keyword argument named after its handler.
    incident_attention_index = kwargs.pop("incident_attention_index")
    memo.retries = set()
    memo.written = {}
    memo.evaluations = {}
    memo.events = EventOutbox()
    memo.setdefault("background", []).append(asyncio.create_task(memo.events.run(), name="recall event outbox"))
    # The indexes are live views that Kopf keeps filling; the loop reads them on each pass.
    # recall_cleanup cancels it (memo.background) before memory is closed.
    task = asyncio.create_task(
        reevaluate_forever(memo, incident_attention_index, _indexes(kwargs)), name="recall re-evaluation"
    )
    memo.setdefault("background", []).append(task)
