"""Prometheus metrics and the operator's probes: ``/metrics``, ``/healthz``, ``/readyz`` on one port.

The metrics live in a registry of this module's own, so a process that starts
the operator more than once (tests, the demo) never registers a name twice.
Handlers record with one-line calls (``INCIDENTS_TRIAGED.labels(mode).inc()``,
``with timed(RECALL_SECONDS):``); `serve` exposes them, with the probes,
from `recall run --metrics-port N`.

- ``/healthz`` (liveness): 200 while the operator's event loop answers; the
  server runs in that very loop, so a wedged loop fails the probe.
- ``/readyz`` (readiness): 200 once Kopf's start-up handlers ran (Kopf's
  ready flag), the memory backend was opened (``memo.memory``) and one list
  of every kind Kopf watches, in every namespace it watches, succeeded with
  the operator's credentials; 503 with the reason until then. The kinds and
  namespaces are the ones Kopf resolved (its ``Insights``), so a missing CRD,
  a missing RBAC rule or an unreachable API server keeps the pod unready
  instead of taking traffic it cannot serve.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime, timezone
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from recall_operator.api import GROUP, VERSION
from recall_operator.domain.times import parse_time

log = logging.getLogger(__name__)

REGISTRY = CollectorRegistry(auto_describe=True)

MODES = ("novel", "advisory", "actionable")
APPROVAL_DECISIONS = ("accepted", "superseded", "rejected", "refused")
BRIDGE_OUTCOMES = ("created", "updated", "unchanged", "skipped", "failed")

INCIDENTS_TRIAGED = Counter(
    "recall_incidents_triaged", "Recommendations written into an Incident's status, by mode",
    ["mode"], registry=REGISTRY,
)
# Seconds, from a fast embedded recall (ms) to a slow remote one (s).
_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
RECALL_SECONDS = Histogram(
    "recall_recall_seconds", "Time to recall candidate precedents from memory", registry=REGISTRY, buckets=_BUCKETS,
)
SCORING_SECONDS = Histogram(
    "recall_scoring_seconds", "Time to score, guard and gate the recalled candidates", registry=REGISTRY,
    buckets=_BUCKETS,
)
APPROVALS = Counter(
    "recall_approvals", "Approvals judged by the operator, by verdict", ["decision"], registry=REGISTRY,
)
JOBS = Counter(
    "recall_jobs", "Dry-run, step and rollback Jobs that finished, by phase and result",
    ["phase", "result"], registry=REGISTRY,
)
OUTBOX_DEPTH = Gauge(
    "recall_outbox_depth", "Confirmed outcomes waiting in the outbox for memory to come back", registry=REGISTRY,
)
MEMORY_UP = Gauge(
    "recall_memory_up",
    "1 when the memory backend last answered (a use, or the health check between incidents), 0 when it did not",
    registry=REGISTRY,
)
RECONCILE_ERRORS = Counter(
    "recall_reconcile_errors", "Reconciles that failed (the re-evaluation loop retries them)", registry=REGISTRY,
)
OUTCOMES_LOST = Counter(
    "recall_outcomes_lost",
    "Confirmed outcomes lost: their Incident was deleted before memory could take them", registry=REGISTRY,
)
UNSIGNED_MEMORIES = Counter(
    "recall_unsigned_memories",
    "Memories read from the Hindsight bank without a valid signature under its key (RECALL_HINDSIGHT_KEY), each "
    "counted once by an operator process: forged, signed with another key, changed since, or older than the key",
    registry=REGISTRY,
)
BRIDGE_ALERTS = Counter(
    "recall_bridge_alerts",
    "Alerts the bridge was sent, by what became of them: created, updated or unchanged (an Incident holds it), "
    "skipped (it could not become an Incident: the answer and the log say why) or failed (Alertmanager re-sends it)",
    ["outcome"], registry=REGISTRY,
)
REEVALUATIONS = Counter(
    "recall_reevaluations",
    "Open incidents the re-evaluation loop came to, by result: evaluated (worked out again) or skipped (unchanged)",
    ["result"], registry=REGISTRY,
)

# Backlog figures, recomputed from the cluster every BACKLOG_INTERVAL_S (see `watch_backlog`):
# what the alert rules need that no single handler run sees.
EXECUTIONS = Gauge(
    "recall_executions", "Incidents whose approved plan is not finished, by execution state",
    ["state"], registry=REGISTRY,
)
EXECUTION_OLDEST_SECONDS = Gauge(
    "recall_execution_oldest_seconds",
    "Seconds the longest-waiting unfinished execution has been in its current state, by state",
    ["state"], registry=REGISTRY,
)
APPROVALS_EXPIRED_PENDING = Gauge(
    "recall_approvals_expired_pending",
    "Approvals still Pending after their status.expiresAt (not enough other approvers came)",
    registry=REGISTRY,
)
BACKLOG_INTERVAL_S = 30.0
EXECUTION_STATES = ("Running",)
FINISHED_EXECUTIONS = frozenset({"Succeeded", "Failed", "RolledBack", "Stopped"})

for _mode in MODES:
    INCIDENTS_TRIAGED.labels(_mode)
for _decision in APPROVAL_DECISIONS:
    APPROVALS.labels(_decision)
# Every phase and result from the start, so rules and dashboards see 0 rather than no series.
for _phase in ("dryrun", "run", "rollback"):
    for _result in ("succeeded", "failed"):
        JOBS.labels(_phase, _result)
for _outcome in BRIDGE_OUTCOMES:
    BRIDGE_ALERTS.labels(_outcome)
for _state in EXECUTION_STATES:
    EXECUTIONS.labels(_state)
    EXECUTION_OLDEST_SECONDS.labels(_state)

_lock = threading.Lock()
_outbox: set[str] = set()
_jobs_seen: dict[str, str] = {}
_JOBS_SEEN_MAX = 10_000


@contextlib.contextmanager
def timed(histogram: Histogram) -> Iterator[None]:
    """Observe the block's wall time in `histogram`, also when it raises."""
    started = time.perf_counter()
    try:
        yield
    finally:
        histogram.observe(time.perf_counter() - started)


class _MemoryHealth:
    # A use that failed (an outcome the store would not take) is cleared only by a use that
    # succeeds: a health check answering says the backend is there, not that a write would land.
    failed_use = False


def memory_up(up: bool, checked: bool = False) -> None:
    """Record whether memory answered a use, or (`checked`) the periodic health check."""
    if checked and up and _MemoryHealth.failed_use:
        return
    if not checked:
        _MemoryHealth.failed_use = not up
    MEMORY_UP.set(1 if up else 0)


def outbox(key: str, pending: bool) -> None:
    """Count `key` (namespace/name) as waiting in the outbox, or no longer."""
    with _lock:
        if pending:
            _outbox.add(key)
        else:
            _outbox.discard(key)
        OUTBOX_DEPTH.set(len(_outbox))


def approval(state: str) -> None:
    APPROVALS.labels(state.lower()).inc()


def job_seen(body: Mapping[str, Any]) -> None:
    """Count a Job once, when it is first seen finished (its events repeat; the count must not).

    Only a Job made for an Incident counts: another with a copied label would add series at will.
    """
    from recall_operator.kube.jobs import made_for_an_incident

    if not made_for_an_incident(body):
        return
    meta = body.get("metadata") or {}
    status = body.get("status") or {}
    result = None
    for cond in status.get("conditions") or []:
        if cond.get("status") == "True" and cond.get("type") in ("Complete", "Failed"):
            result = "succeeded" if cond["type"] == "Complete" else "failed"
            break
    if result is None:
        return
    key = meta.get("uid") or f"{meta.get('namespace')}/{meta.get('name')}"
    with _lock:
        if key in _jobs_seen:
            return
        if len(_jobs_seen) >= _JOBS_SEEN_MAX:
            _jobs_seen.pop(next(iter(_jobs_seen)))
        _jobs_seen[key] = result
    JOBS.labels(meta["labels"]["recall.dev/phase"], result).inc()


class _HandlerErrors(logging.Handler):
    """Counts Kopf's reports of a failed handler run (Kopf logs each one at ERROR on its object logger)."""

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR and "failed" in record.getMessage():
            RECONCILE_ERRORS.inc()


_error_handler = _HandlerErrors(level=logging.ERROR)


def count_handler_errors() -> None:
    """Install the counter of failed handler runs (idempotent)."""
    target = logging.getLogger("kopf.objects")
    if _error_handler not in target.handlers:
        target.addHandler(_error_handler)


def render() -> bytes:
    return generate_latest(REGISTRY)


# -- the HTTP endpoint ---------------------------------------------------------


class FirstLists:
    """Whether one list of each kind the operator watches has succeeded, and which is still missing."""

    def __init__(self) -> None:
        self.done = asyncio.Event()
        self.missing = "not started"


def readiness(ready: asyncio.Event | None, memo: Mapping[str, Any] | None,
              lists: FirstLists | None = None) -> tuple[bool, str]:
    """Whether the operator is ready, and why not."""
    if ready is None or not ready.is_set():
        return False, "the operator's start-up handlers have not finished"
    if memo is None or memo.get("memory") is None:
        return False, "the memory backend is not open"
    if lists is not None and not lists.done.is_set():
        return False, f"the first list of each watched kind has not finished: {lists.missing}"
    return True, "ready"


class ListFailed(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def _list_once(api: Any, resource: Any, namespace: str | None) -> None:
    # limit=1: the request (authentication, RBAC, the served CRD) is what matters, not the objects.
    path, query = resource.get_url(namespace=namespace), [("limit", "1")]
    if hasattr(api, "param_serialize"):  # the client generated since kubernetes 35
        request = api.param_serialize("GET", path, query_params=query, auth_settings=["BearerToken"])
        response = api.call_api(*request, _request_timeout=10)
        response.read()
        if not 200 <= response.status < 300:
            raise ListFailed(response.status)
    else:
        api.call_api(path, "GET", query_params=query, auth_settings=["BearerToken"], response_type="object",
                     _return_http_data_only=True, _request_timeout=10)


async def list_watched_kinds(ready: asyncio.Event, insights: Any, lists: FirstLists,
                             api_factory: Any = None, retry_s: float = 2.0) -> None:
    """List every kind in `insights` once per watched namespace, retrying until each answers."""
    await ready.wait()
    await insights.ready_resources.wait()
    await insights.ready_namespaces.wait()
    if api_factory is None:
        from recall_operator.kube.client import api_client as api_factory
    api = await asyncio.to_thread(api_factory)
    try:
        pending = {(r, ns if r.namespaced else None)
                   for r in insights.watched_resources | insights.indexed_resources
                   for ns in (insights.namespaces or {None})}
        while pending:
            for resource, ns in sorted(pending, key=lambda p: (str(p[0]), p[1] or "")):
                where = f"{resource.plural}.{resource.group or 'core'}" + (f" in {ns}" if ns else "")
                try:
                    await asyncio.to_thread(_list_once, api, resource, ns)
                except Exception as exc:  # 403, 404 (no CRD), connection errors: say which and retry
                    lists.missing = f"{where}: {getattr(exc, 'status', None) or type(exc).__name__}"
                    continue
                pending.discard((resource, ns))
            if pending:
                await asyncio.sleep(retry_s)
        lists.missing = ""
        lists.done.set()
        log.info("ready: listed every watched kind once")
    finally:
        api.close()


def backlog(incidents: Iterable[Mapping[str, Any]], approvals: Iterable[Mapping[str, Any]], now: datetime
            ) -> tuple[dict[str, int], dict[str, float], int]:
    """Unfinished executions by state, the oldest one's seconds in its state, and lapsed Pending approvals."""
    counts: dict[str, int] = {s: 0 for s in EXECUTION_STATES}
    oldest: dict[str, float] = {s: 0.0 for s in EXECUTION_STATES}
    for inc in incidents:
        status = inc.get("status") or {}
        state = str((status.get("execution") or {}).get("state") or "")
        if not state or state in FINISHED_EXECUTIONS:
            continue
        counts[state] = counts.get(state, 0) + 1
        # The Executing condition turned True when the execution entered its current state.
        since = next((parse_time(c.get("lastTransitionTime")) for c in status.get("conditions") or []
                      if c.get("type") == "Executing"), None)
        if since is not None:
            oldest[state] = max(oldest.get(state, 0.0), (now - since).total_seconds())
    lapsed = 0
    for approval in approvals:
        status = approval.get("status") or {}
        expires = parse_time(status.get("expiresAt")) if status.get("expiresAt") else None
        if status.get("state") == "Pending" and expires is not None and expires <= now:
            lapsed += 1
    return counts, oldest, lapsed


def _list_items(api: Any, plural: str, namespaces: Iterable[str | None]) -> list[dict[str, Any]]:
    from kubernetes import client

    custom = client.CustomObjectsApi(api)
    items: list[dict[str, Any]] = []
    for ns in namespaces:
        if ns is None:
            # The client declares object; the answer is the list as parsed JSON.
            got: Any = custom.list_cluster_custom_object(GROUP, VERSION, plural, _request_timeout=30)
        else:
            got = custom.list_namespaced_custom_object(GROUP, VERSION, ns, plural, _request_timeout=30)
        items.extend(got.get("items") or [])
    return items


async def watch_backlog(ready: asyncio.Event, insights: Any, interval_s: float = BACKLOG_INTERVAL_S,
                        api_factory: Any = None) -> None:
    """Every `interval_s`, recompute the backlog gauges from the Incidents and Approvals the operator serves."""
    await ready.wait()
    await insights.ready_namespaces.wait()
    if api_factory is None:
        from recall_operator.kube.client import api_client as api_factory
    api = await asyncio.to_thread(api_factory)
    try:
        while True:
            namespaces = sorted(insights.namespaces or {None}, key=lambda n: n or "")
            try:
                incidents = await asyncio.to_thread(_list_items, api, "incidents", namespaces)
                approvals = await asyncio.to_thread(_list_items, api, "approvals", namespaces)
            except Exception as exc:  # an API hiccup leaves the last figures; the next round retries
                log.warning("backlog figures not refreshed: %s", getattr(exc, "status", None) or type(exc).__name__)
            else:
                counts, oldest, lapsed = backlog(incidents, approvals, datetime.now(timezone.utc))
                for state, n in counts.items():
                    EXECUTIONS.labels(state).set(n)
                for state, age in oldest.items():
                    EXECUTION_OLDEST_SECONDS.labels(state).set(age)
                APPROVALS_EXPIRED_PENDING.set(lapsed)
            await asyncio.sleep(interval_s)
    finally:
        api.close()


def create_app(ready: asyncio.Event | None = None, memo: Mapping[str, Any] | None = None,
               lists: FirstLists | None = None) -> Any:
    from aiohttp import web

    async def metrics(_: web.Request) -> web.Response:
        return web.Response(body=render(), headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def healthz(_: web.Request) -> web.Response:
        return web.json_response({"ok": True})

    async def readyz(_: web.Request) -> web.Response:
        ok, why = readiness(ready, memo, lists)
        return web.json_response({"ready": ok, "reason": why}, status=200 if ok else 503)

    app = web.Application()
    app.router.add_get("/metrics", metrics)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    return app


async def serve(port: int, ready: asyncio.Event | None = None, memo: Mapping[str, Any] | None = None,
                host: str = "0.0.0.0", insights: Any = None) -> None:
    """Serve /metrics, /healthz and /readyz on host:port until cancelled.

    With Kopf's `insights`, /readyz also waits for one list of every watched kind.
    """
    from aiohttp import web

    lists = FirstLists() if insights is not None and ready is not None else None
    runner = web.AppRunner(create_app(ready, memo, lists), access_log=None)
    await runner.setup()
    lister = None
    try:
        await web.TCPSite(runner, host, port).start()
        log.info("metrics and probes on %s:%d (/metrics, /healthz, /readyz)", host, port)
        if lists is not None and ready is not None:
            lister = asyncio.gather(list_watched_kinds(ready, insights, lists), watch_backlog(ready, insights))
        await asyncio.Event().wait()
    finally:
        if lister is not None:
            lister.cancel()
            await asyncio.gather(lister, return_exceptions=True)
        await runner.cleanup()
