"""What the incident reconcile needs to know about the cluster, kept in Kopf indexes.

Runbooks (with their track record from status), ArchitectureMigrations,
Contradictions and topology ConfigMaps are indexed per namespace, so that a
reconcile builds its Context from memory of the watch streams instead of
listing the API on every incident. An object that does not parse is left out
of the index (with a warning) rather than failing every incident next to it;
a topology that does not parse is kept as ignored, so that every answer of
its namespace says so (a ConfigMap has no schema to refuse it).

Re-evaluation after a catalog change is done by the incident re-evaluation
loop (see handlers/incident.py): it re-reads these indexes and memory on an
interval and writes only when the outcome differs, so a new migration,
contradiction, win rate or memory reaches every open incident without
cross-object patches.

Each Runbook, ArchitectureMigration and Contradiction also gets an `Accepted`
condition (domain/acceptance.py says what is accepted), so that the author
sees in `kubectl get` what the log used to say. It is written by server-side
apply as its own field manager: the Runbook's win-rate counts, which the
incident handler writes, are other fields and stay untouched. The handlers
watch events, not Kopf's create/update causes, so Kopf writes no bookkeeping
annotations on GitOps-managed objects; a write that fails is tried again on
the object's next event, and what waits for memory (a Contradiction's
memories, a new Runbook's record) is asked again by a loop every
RECHECK_SECONDS: an unchanged object may see no event for days.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import kopf
from pydantic import ValidationError

from recall_operator.domain import acceptance as acc

from recall_operator.domain.models import (
    ArchitectureMigration,
    Contradiction,
    ContradictionSpec,
    MigrationSpec,
    Runbook,
    RunbookRecord,
    RunbookSpec,
)
from recall_operator.api import GROUP, VERSION, namespaced
from recall_operator.domain.recommend import Context
from recall_operator.domain.plan import steps_digest
from recall_operator.domain.times import parse_time
from recall_operator.domain.topology import IgnoredTopology, Topology, TopologyError, merge_topologies
from recall_operator.kube.client import Conflict, apply_status
from recall_operator.kube.events import event_body, post_or_log
from recall_operator.domain.consolidation import runbook_history
from recall_operator.kube.status import record_from_status, runbook_status_from_memory
from recall_operator.memory.base import MemoryUnavailable

TOPOLOGY_LABEL = "recall.dev/topology"
# The field manager of the Accepted condition (and Runbook.status.servicesText).
FIELD_MANAGER = "recall-operator-catalog"
# How often a Contradiction waiting for its memories, or a Runbook for its record, is asked about again.
RECHECK_SECONDS = 10.0
# How long a new Runbook's record is asked of memory that cannot answer.
RECORD_WAIT = timedelta(hours=1)
# Optimistic-concurrency retries when two writers update one Runbook's record at once.
RUNBOOK_CONFLICT_RETRIES = 8
kopf_logger = logging.getLogger("recall_operator.handlers.catalog")


def _plain(view: Mapping[str, Any]) -> dict[str, Any]:
    # Kopf hands out views over the raw body; the index keeps a copy of its own
    # so that a later event cannot change what an earlier reconcile saw.
    return copy.deepcopy(dict(view))


@kopf.index(GROUP, VERSION, "runbooks")
def runbook_index(
    name: str, namespace: str | None, spec: Mapping[str, Any], status: Mapping[str, Any], meta: Mapping[str, Any],
    logger: Any, **_: Any,
) -> dict[str, tuple[Runbook, RunbookRecord]] | None:
    namespace = namespaced(namespace)
    try:
        runbook = Runbook(name=name, spec=RunbookSpec.model_validate(_plain(spec)),
                          created_at=parse_time(meta.get("creationTimestamp")))
    except ValidationError as exc:
        logger.warning(f"runbook {name} is left out of the catalog: {exc.errors()[0]['msg']}")
        return None
    # A record counted for other steps than these speaks for nothing (kube.status.record_holds).
    return {namespace: (runbook, record_from_status(_plain(status), steps_digest(runbook)))}


@kopf.index(GROUP, VERSION, "architecturemigrations")
def migration_index(
    name: str, namespace: str | None, spec: Mapping[str, Any], meta: Mapping[str, Any], logger: Any, **_: Any
) -> dict[str, ArchitectureMigration] | None:
    namespace = namespaced(namespace)
    try:
        migration = ArchitectureMigration(
            name=name,
            spec=MigrationSpec.model_validate(_plain(spec)),
            # When the cluster learned of it, never before its migrationDate (guards.migration_time).
            applied_at=parse_time(meta.get("creationTimestamp")),
        )
    except ValidationError as exc:
        logger.warning(f"migration {name} is ignored: {exc.errors()[0]['msg']}")
        return None
    return {namespace: migration}


@kopf.index(GROUP, VERSION, "contradictions")
def contradiction_index(
    name: str, namespace: str | None, spec: Mapping[str, Any], logger: Any, **_: Any
) -> dict[str, Contradiction] | None:
    namespace = namespaced(namespace)
    try:
        contradiction = Contradiction(name=name, spec=ContradictionSpec.model_validate(_plain(spec)))
    except ValidationError as exc:
        logger.warning(f"contradiction {name} is ignored: {exc.errors()[0]['msg']}")
        return None
    return {namespace: contradiction}


def read_topology(name: str, body: Mapping[str, Any]) -> Topology | IgnoredTopology:
    text = (body.get("data") or {}).get("topology")
    try:
        if not isinstance(text, str):
            raise TopologyError("it has no data.topology")
        return Topology.parse(text)
    except TopologyError as exc:
        return IgnoredTopology(name, str(exc))


@kopf.index("configmaps", labels={TOPOLOGY_LABEL: "true"})
def topology_index(
    name: str, namespace: str | None, body: Mapping[str, Any], **_: Any
) -> dict[str, Topology | IgnoredTopology]:
    # One that does not parse is kept too, so that every answer of its namespace says so.
    return {namespaced(namespace): read_topology(name, body)}


@kopf.on.event("configmaps", labels={TOPOLOGY_LABEL: "true"})
async def topology_ignored(
    event: Mapping[str, Any], name: str, namespace: str | None, body: Mapping[str, Any], meta: Mapping[str, Any],
    memo: kopf.Memo, **_: Any,
) -> None:
    """A topology that does not parse gets a Warning Event on its ConfigMap, once per version.

    A ConfigMap has no schema to refuse a typo, and no status to say it in:
    the Event is where its author looks (`kubectl describe configmap`).
    """
    read = read_topology(name, body)
    # The version said, by ConfigMap uid: one entry per broken ConfigMap, dropped once fixed or gone.
    said: dict[str, str] = memo.setdefault("topologies_ignored", {})
    uid, version = str(meta.get("uid")), str(meta.get("resourceVersion"))
    if _gone(event, meta) or not isinstance(read, IgnoredTopology):
        said.pop(uid, None)
        return
    if said.get(uid) == version:
        return
    said[uid] = version
    kopf_logger.warning(f"ConfigMap {namespaced(namespace)}/{name}: {read.warning}")
    await asyncio.to_thread(post_or_log, memo.api, event_body(
        {**body, "metadata": {**meta, "namespace": namespaced(namespace)}}, "Warning", "TopologyIgnored",
        read.warning, _now(), "Read"))


# Each namespace's merged topology, kept while its ConfigMaps' topologies are the same objects: a
# topology works out its depths and neighbours once (30 ms at 2,000 services), and a decision asks them.
_MERGED: dict[str, tuple[tuple[Any, ...], Topology]] = {}


def merged_topology(namespace: str, topologies: Any) -> Topology:
    """`merge_topologies` of the namespace's topologies, the same object while they are the same."""
    parts = tuple(topologies)
    held = _MERGED.get(namespace)
    if held is not None and len(held[0]) == len(parts) and all(a is b for a, b in zip(held[0], parts)):
        return held[1]
    merged = merge_topologies(parts)
    _MERGED[namespace] = (parts, merged)
    return merged


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
    topologies = list(topology_index.get(namespace, []))
    return Context(
        now=now,
        topology=merged_topology(namespace, topologies),
        catalog={rb.name: rb for rb, _ in runbooks},
        records={rb.name: record for rb, record in runbooks},
        migrations=sorted(migration_index.get(namespace, []), key=lambda m: m.name),
        contradictions=sorted(contradiction_index.get(namespace, []), key=lambda c: c.name),
        ignored_topologies=sorted((t for t in topologies if isinstance(t, IgnoredTopology)),
                                  key=lambda t: t.configmap),
    )


# -- the Accepted condition ----------------------------------------------------


def _now() -> datetime:
    return datetime.now(UTC)


async def _apply_status(api: Any, plural: str, kind: str, namespace: str, name: str, status: dict[str, Any]) -> None:
    """Server-side apply of the fields this writer owns; an object deleted meanwhile is no error."""
    try:
        await asyncio.to_thread(apply_status, api, GROUP, VERSION, plural, kind, namespace, name, status, FIELD_MANAGER)
    except Conflict:
        pass  # gone: its DELETED event follows


async def _accept(
    memo: kopf.Memo, plural: str, kind: str, namespace: str, name: str, meta: Mapping[str, Any],
    status: Mapping[str, Any], acceptance: acc.Acceptance, extra: Mapping[str, Any] | None = None,
) -> None:
    new = acc.accepted_status(status, acceptance, int(meta.get("generation") or 0), _now(), extra)
    if new is None:  # our own write coming back as an event, or nothing changed
        return
    await _apply_status(memo.api, plural, kind, namespace, name, new)
    if not acceptance.accepted:
        kopf_logger.warning(f"{kind} {namespace}/{name} is not accepted: {acceptance.message}")


def _gone(event: Mapping[str, Any], meta: Mapping[str, Any]) -> bool:
    return event.get("type") == "DELETED" or bool(meta.get("deletionTimestamp"))


@kopf.on.event(GROUP, VERSION, "runbooks")
async def runbook_accepted(
    event: Mapping[str, Any], name: str, namespace: str | None, spec: Mapping[str, Any], status: Mapping[str, Any],
    meta: Mapping[str, Any], memo: kopf.Memo, **_: Any,
) -> None:
    namespace = namespaced(namespace)
    if _gone(event, meta):
        _unread(memo).pop((namespace, name), None)
        return
    plain = _plain(spec)
    await _accept(memo, "runbooks", "Runbook", namespace, name, meta, status, acc.runbook_acceptance(plain),
                  {"servicesText": acc.services_text(plain)})
    await _record_from_memory(memo, namespace, name, meta, status, _digest(name, plain))


# -- the track record ----------------------------------------------------------


async def change_runbook_status(
    api: Any, namespace: str, name: str, change: Callable[[Mapping[str, Any]], dict[str, Any] | None]
) -> bool:
    """Merge `change(status)` into Runbook.status, guarded by the version it was computed from.

    Outcomes and the count from memory both write the record: a writer that
    lost the race reads again and computes again. False: the Runbook is gone.
    """
    from kubernetes.client import CustomObjectsApi
    from kubernetes.client.exceptions import ApiException

    objects = CustomObjectsApi(api)
    for _ in range(RUNBOOK_CONFLICT_RETRIES):
        try:
            current = cast(dict[str, Any], await asyncio.to_thread(
                objects.get_namespaced_custom_object, GROUP, VERSION, namespace, "runbooks", name
            ))
        except ApiException as exc:
            if exc.status == 404:
                return False
            raise
        new = change(current.get("status") or {})
        if new is None:
            return True
        body = {"metadata": {"resourceVersion": current["metadata"]["resourceVersion"]}, "status": new}
        try:
            await asyncio.to_thread(
                objects.patch_namespaced_custom_object_status, GROUP, VERSION, namespace, "runbooks", name, body
            )
            return True
        except ApiException as exc:
            if exc.status == 404:
                return False
            if exc.status != 409:
                raise
    raise kopf.TemporaryError(f"runbook {name} kept changing under us; will retry", delay=5)


def _digest(name: str, spec: Mapping[str, Any]) -> str | None:
    """plan.steps_digest of a Runbook's spec; None for one the catalog leaves out (its acceptance says why)."""
    try:
        return steps_digest(Runbook(name=name, spec=RunbookSpec.model_validate(dict(spec))))
    except ValidationError:
        return None


async def _record_from_memory(
    memo: kopf.Memo, namespace: str, name: str, meta: Mapping[str, Any], status: Mapping[str, Any],
    digest: str | None = None,
) -> None:
    """Give a Runbook object that is new here the track record memory holds for its name.

    Asked once per object: `status.countedFromMemory` says it was, and
    `status.runbook_status_from_memory` never counts an outcome twice or takes
    one away. Memory that cannot answer is asked again by the re-check loop
    (`reread_records`) for up to RECORD_WAIT, and on the Runbook's next event;
    an Event on the Runbook says it waits, and another when it stops waiting.
    """
    memory = memo.get("memory")
    uid = str(meta.get("uid") or "")
    asked: set[str] = memo.setdefault("runbooks_asked", set())
    if memory is None or not uid or uid in asked or status.get("countedFromMemory"):
        return
    body = _runbook_ref(namespace, name, uid)
    unread = _unread(memo)
    try:
        history = runbook_history(await memory.outcomes_naming(namespace, name), name, digest)
    except MemoryUnavailable as exc:
        kopf_logger.warning(f"Runbook {namespace}/{name}: its record in memory cannot be read now ({exc})")
        held = unread.get((namespace, name))
        if held is None or held["meta"].get("uid") != uid:  # this object's wait begins now
            held = {"since": _now()}
            await asyncio.to_thread(post_or_log, memo.api, event_body(
                body, "Warning", "RecordWaitsForMemory",
                f"its track record in memory cannot be read now ({exc}); asked again every {RECHECK_SECONDS:.0f} s "
                f"for up to {RECORD_WAIT}", _now(), "Count"))
        unread[(namespace, name)] = {"meta": _plain(meta), "digest": digest, "since": held["since"], "error": str(exc)}
        return
    unread.pop((namespace, name), None)
    now = _now()
    written: list[dict[str, Any]] = []

    def from_memory(current: Mapping[str, Any]) -> dict[str, Any] | None:
        new = runbook_status_from_memory(current, history, now, digest)
        written[:] = [new] if new and new["countedFromMemory"]["counted"] else []
        return new

    changed = await change_runbook_status(memo.api, namespace, name, from_memory)
    asked.add(uid)  # only once answered: a write that failed is tried again on the next event
    if not (changed and written):
        return
    record = written[0]
    message = (f"track record counted from memory: {record['timesExecuted']} outcomes ({record['timesSucceeded']}"
               f" succeeded, {record['timesFailed']} failed), win rate {record['winRate']}")
    kopf_logger.info(f"Runbook {namespace}/{name}: {message}")
    await asyncio.to_thread(post_or_log, memo.api, event_body(body, "Normal", "CountedFromMemory", message, now, "Count"))


def _runbook_ref(namespace: str, name: str, uid: str) -> dict[str, Any]:
    """What an Event about a Runbook names."""
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Runbook",
            "metadata": {"name": name, "namespace": namespace, "uid": uid}}


def _unread(memo: kopf.Memo) -> dict[tuple[str, str], dict[str, Any]]:
    """Runbooks whose record memory could not give yet: (namespace, name) -> meta, digest, since, error."""
    return cast(dict[tuple[str, str], dict[str, Any]], memo.setdefault("runbooks_unread", {}))


async def reread_records(memo: kopf.Memo) -> int:
    """Ask memory again for the records it could not give; the number still waiting.

    A Runbook that waited RECORD_WAIT stops waiting, with an Event that says
    so and what reads it again (an edit of the Runbook, or the operator's next
    start): its win rate then counts only the outcomes this operator confirms.
    """
    for key, held in list(_unread(memo).items()):
        namespace, name = key
        if _now() - held["since"] >= RECORD_WAIT:
            del _unread(memo)[key]
            why = (f"its track record in memory could not be read for {RECORD_WAIT} (last: {held.get('error')}); "
                   "it counts only outcomes confirmed from now on, until memory is asked again (the Runbook's next event, "
                   "or the operator's next start)")
            kopf_logger.warning(f"Runbook {namespace}/{name}: {why}")
            body = _runbook_ref(namespace, name, str(held["meta"].get("uid") or ""))
            await asyncio.to_thread(post_or_log, memo.api, event_body(body, "Warning", "RecordNotRead", why, _now(),
                                                                      "Count"))
            continue
        try:
            await _record_from_memory(memo, namespace, name, held["meta"], {}, held["digest"])
        except Exception as exc:  # the API away for a moment: it stays for the next pass
            kopf_logger.warning(f"could not read the record of runbook {namespace}/{name} again: {exc}")
    return len(_unread(memo))


@kopf.on.event(GROUP, VERSION, "architecturemigrations")
async def migration_accepted(
    event: Mapping[str, Any], name: str, namespace: str | None, spec: Mapping[str, Any], status: Mapping[str, Any],
    meta: Mapping[str, Any], memo: kopf.Memo, **kwargs: Any,
) -> None:
    namespace = namespaced(namespace)
    if _gone(event, meta):
        return
    # Kopf passes each index as a keyword argument named after it: the catalog as the operator holds it now.
    catalog = [rb.name for rb, _record in (kwargs.get("runbook_index") or {}).get(namespace, [])]
    await _accept(memo, "architecturemigrations", "ArchitectureMigration", namespace, name, meta, status,
                  acc.migration_acceptance(_plain(spec), catalog))


async def remembered(memory: Any, namespace: str, incidents: Any) -> dict[str, bool] | None:
    """Whether memory holds each incident of `namespace`; None when there is no memory to ask."""
    if memory is None or not isinstance(incidents, list | tuple):
        return None
    try:
        return {str(i): await memory.get(str(i), namespace) is not None for i in incidents}
    except MemoryUnavailable:
        return None


async def contradiction_acceptance(memo: kopf.Memo, namespace: str, spec: Mapping[str, Any]) -> acc.Acceptance:
    plain = _plain(spec)
    return acc.contradiction_acceptance(plain, await remembered(memo.get("memory"), namespace, plain.get("memories")))


def _waiting(memo: kopf.Memo) -> dict[tuple[str, str], dict[str, Any]]:
    """Contradictions whose answer waits on memory, as last seen; made at start-up so every handler shares it."""
    waiting: dict[tuple[str, str], dict[str, Any]] = memo.contradictions_waiting
    return waiting


@kopf.on.event(GROUP, VERSION, "contradictions")
async def contradiction_accepted(
    event: Mapping[str, Any], name: str, namespace: str | None, spec: Mapping[str, Any], status: Mapping[str, Any],
    meta: Mapping[str, Any], memo: kopf.Memo, **_: Any,
) -> None:
    namespace = namespaced(namespace)
    key = (namespace, name)
    if _gone(event, meta):
        _waiting(memo).pop(key, None)
        return
    acceptance = await contradiction_acceptance(memo, namespace, spec)
    # Memory grows without the Contradiction changing: one that waits for its
    # memories is asked about again by the loop below, not only on its next event.
    if acc.waits_for_memory(acceptance):
        _waiting(memo)[key] = {"spec": _plain(spec), "meta": _plain(meta)}
    else:
        _waiting(memo).pop(key, None)
    if acc.keeps_previous(status, acceptance, int(meta.get("generation") or 0)):
        return
    await _accept(memo, "contradictions", "Contradiction", namespace, name, meta, status, acceptance)


async def recheck_waiting(memo: kopf.Memo) -> int:
    """One pass over the Contradictions waiting for memory; the number now accepted."""
    accepted = 0
    for key, seen in list(_waiting(memo).items()):
        namespace, name = key
        try:
            acceptance = await contradiction_acceptance(memo, namespace, seen["spec"])
            if acc.waits_for_memory(acceptance):
                continue
            # The status as last seen said "waiting"; the apply says what holds now.
            await _accept(memo, "contradictions", "Contradiction", namespace, name, seen["meta"], {}, acceptance)
        except Exception as exc:  # the API or memory away for a moment: it stays in the set for the next pass
            kopf_logger.warning(f"could not re-check contradiction {namespace}/{name}: {exc}")
            continue
        if _waiting(memo).get(key) is seen:
            del _waiting(memo)[key]
        accepted += acceptance.accepted
    return accepted


async def recheck_forever(memo: kopf.Memo) -> None:
    while True:
        await asyncio.sleep(RECHECK_SECONDS)
        try:
            await recheck_waiting(memo)
        except Exception:
            kopf_logger.exception("re-checking waiting contradictions failed; the next pass tries again")
        try:
            await reread_records(memo)
        except Exception:
            kopf_logger.exception("reading runbook records again failed; the next pass tries again")


@kopf.on.startup()
async def start_recheck(memo: kopf.Memo, **_: Any) -> None:
    memo.contradictions_waiting = {}
    # recall_cleanup cancels it (memo.background) before memory is closed.
    memo.setdefault("background", []).append(asyncio.create_task(recheck_forever(memo), name="recall catalog re-check"))
