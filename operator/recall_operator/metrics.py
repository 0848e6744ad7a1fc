"""Prometheus metrics and the operator's probes: ``/metrics``, ``/healthz``, ``/readyz`` on one port.

The metrics live in a registry of this module's own, so a process that starts
the operator more than once (tests, the demo) never registers a name twice.
Handlers record with one-line calls (``INCIDENTS_TRIAGED.labels(mode).inc()``,
``with timed(RECALL_SECONDS):``); `serve` exposes them, with the probes,
from `recall run --metrics-port N`.

- ``/healthz`` (liveness): 200 while the operator's event loop answers; the
  server runs in that very loop, so a wedged loop fails the probe.
- ``/readyz`` (readiness): 200 once Kopf's start-up handlers ran (Kopf's
  ready flag) and the memory backend was opened (``memo.memory``); 503 with
  the reason until then.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Iterator, Mapping
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest

log = logging.getLogger(__name__)

REGISTRY = CollectorRegistry(auto_describe=True)

MODES = ("novel", "advisory", "actionable")
APPROVAL_DECISIONS = ("accepted", "superseded", "rejected", "refused")

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
    "recall_memory_up", "1 when the last use of the memory backend succeeded, 0 when it failed", registry=REGISTRY,
)
RECONCILE_ERRORS = Counter(
    "recall_reconcile_errors", "Reconciles that failed (the re-evaluation loop retries them)", registry=REGISTRY,
)

for _mode in MODES:
    INCIDENTS_TRIAGED.labels(_mode)
for _decision in APPROVAL_DECISIONS:
    APPROVALS.labels(_decision)

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


def memory_up(up: bool) -> None:
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
    """Count a Job once, when it is first seen finished (its events repeat; the count must not)."""
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
    phase = (meta.get("labels") or {}).get("recall.dev/phase", "unknown")
    JOBS.labels(phase, result).inc()


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


def readiness(ready: asyncio.Event | None, memo: Mapping[str, Any] | None) -> tuple[bool, str]:
    """Whether the operator is ready, and why not."""
    if ready is None or not ready.is_set():
        return False, "the operator's start-up handlers have not finished"
    if memo is None or memo.get("memory") is None:
        return False, "the memory backend is not open"
    return True, "ready"


def create_app(ready: asyncio.Event | None = None, memo: Mapping[str, Any] | None = None) -> Any:
    from aiohttp import web

    async def metrics(_: web.Request) -> web.Response:
        return web.Response(body=render(), headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def healthz(_: web.Request) -> web.Response:
        return web.json_response({"ok": True})

    async def readyz(_: web.Request) -> web.Response:
        ok, why = readiness(ready, memo)
        return web.json_response({"ready": ok, "reason": why}, status=200 if ok else 503)

    app = web.Application()
    app.router.add_get("/metrics", metrics)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    return app


async def mark_memory_when_ready(ready: asyncio.Event, memo: Mapping[str, Any]) -> None:
    """Once start-up ran, memory_up says whether a backend was opened (later uses keep it current)."""
    await ready.wait()
    memory_up(memo.get("memory") is not None)


async def serve(port: int, ready: asyncio.Event | None = None, memo: Mapping[str, Any] | None = None,
                host: str = "0.0.0.0") -> None:
    """Serve /metrics, /healthz and /readyz on host:port until cancelled."""
    from aiohttp import web

    runner = web.AppRunner(create_app(ready, memo), access_log=None)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
        log.info("metrics and probes on %s:%d (/metrics, /healthz, /readyz)", host, port)
        if ready is not None and memo is not None:
            await mark_memory_when_ready(ready, memo)
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()
