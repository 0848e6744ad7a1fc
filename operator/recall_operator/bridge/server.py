"""The Alertmanager webhook receiver: ``POST /alerts`` → Incidents, ``GET /healthz``.

Whoever can post here opens Incidents as the operator (and, with automatic
dry runs, starts Jobs), so ``POST /alerts`` takes a bearer token when one is
configured: Alertmanager's ``http_config.authorization`` sends it, from a
``credentials_file`` too. The token is read from a file (a mounted Secret,
so the operator needs no Secret RBAC) and read again when the file changes,
which lets a rotated Secret take effect without a restart. ``/healthz`` stays
open for probes; it only carries counters.

Thin I/O around :mod:`recall_operator.bridge.alertmanager`. The Kubernetes
calls use the synchronous client in the bridge's own worker threads (there is
no asyncio client in the image); a write is a create, and AlreadyExists (409)
means the alert fired before, so only the alert-tracking annotations are
patched. An alert the bridge wrote before is patched first (NotFound: created),
and its re-fire with no news within a minute is only read (IncidentWriter).
A firing the bridge cannot place (another start than its last write, or an
Incident it did not write) is placed by reading: an Incident whose firing
has ended takes no later firing of its alert, which opens a new Incident.
That makes duplicate deliveries, Alertmanager's repeats and concurrent
requests for one alert converge on exactly one Incident without any lock.
A patch is written at the version just read, and not at all over a later
request's time, so a request that waited on its way cannot undo a later one.

Status codes follow what Alertmanager does with them: it retries a 5xx and
drops a 4xx, so a request that can never succeed (bad body, wrong shape) gets
a 4xx, and a Kubernetes outage gets a 503 so the alert is delivered later.
An alert whose Incident the API server refuses for good (invalid, too large)
is skipped and said, like an alert without a service: a 5xx would make
Alertmanager re-send its whole group until it gave up on all of it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import hmac
import json
import logging
import os
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, cast

from aiohttp import web

from recall_operator import metrics
from recall_operator.api import GROUP, VERSION
from recall_operator.domain.times import parse_time
from recall_operator.kube.client import api_client

from .alertmanager import (
    ANN_LAST_SEEN,
    ANN_LATEST,
    ANN_RECURRENCE_OF,
    ANN_STARTS_AT,
    MAX_BODY_BYTES,
    AlertIncident,
    BridgeError,
    Mapped,
    Skipped,
    alert_incident_of,
    check_request,
    ended_firing,
    map_payload,
    names_a_recurrence,
    parse_body,
    recurrence_name,
    renamed,
)

log = logging.getLogger(__name__)

PLURAL = "incidents"
MERGE_PATCH = "application/merge-patch+json"
# The writer's threads: each holds one API request at a time (the client's pool has 32 connections).
WRITER_THREADS = 16
# How many alert names the writer remembers having written (a re-fire of one is patched first).
REMEMBERED_NAMES = 4096
# No request to the API server waits longer than this (seconds): Alertmanager then gets a 503 and re-sends.
REQUEST_TIMEOUT = 30
# How often an alert's patch is tried at a fresh version while the Incident keeps changing under it.
PATCH_ATTEMPTS = 3
# What the API server answers for an Incident it will never take (invalid, too large); an RBAC or
# admission refusal (403) can be fixed by an operator, so it is still a 502 and the alert is re-sent.
REFUSED_FOR_GOOD = (400, 413, 422)
# A request's body must arrive within this (seconds), or it is answered 408: a sender that stops
# mid-body held a handler for ever.
BODY_READ_SECONDS = 30
# A re-fire with no news this soon after the bridge's last write of that alert is read, not written (IncidentWriter).
REFIRE_WRITE_SECONDS = 60.0


# Asks memory whether it holds an incident of this name (in the bridge's namespace).
Remembered = Callable[[str], Awaitable[bool]]


class WriteFailure(Exception):
    def __init__(self, status_code: int, reason: str, refused: bool = False) -> None:
        super().__init__(status_code, reason)
        self.status_code = status_code
        self.reason = reason
        # The API server refused the Incident itself (invalid, too large): no re-send can succeed.
        self.refused = refused


class IncidentWriter:
    """Create-or-refire against the API server, one blocking call per thread.

    The threads are the writer's own: on the loop's shared executor a storm's
    writes queued ahead of the operator's status writes (and the operator's
    ahead of them), so a new incident's answer waited for alerts still being
    recorded. An alert this bridge has already written is patched first and
    created only if it is gone: in a storm most alerts are re-fires, and each
    re-fire's create, refused as AlreadyExists, cost the API server about half
    of what the patch after it did.

    A re-fire that brings no news (the same status, start, resolution and
    link as the bridge's last write of that alert, only a later time seen)
    within REFIRE_WRITE_SECONDS of that write is not written again: the
    Incident is only read, so one deleted since is still created again. Each
    patch was an update of the Incident, the costliest request the API server
    serves here, and an event every watcher of Incidents (the operator first)
    had to process: in a storm of 1,000 alerts, 200 of them distinct, the 800
    re-fires were two thirds of the API server's writes. The time last seen
    is so kept to the minute (Alertmanager re-notifies an unchanged group
    every group_interval, five minutes by default; what comes sooner is a
    retry, a peer's copy or a storm).
    """

    def __init__(self, api_client: Any, namespace: str, workers: int = WRITER_THREADS,
                 clock: Any = time.monotonic, remembered: Remembered | None = None) -> None:
        from kubernetes import client

        self._api = client.CustomObjectsApi(api_client)
        self._namespace = namespace
        # Whether memory holds an incident of this name in the namespace (None: no memory to ask).
        self._remembered = remembered
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="recall-bridge")
        self._clock = clock
        # Names this bridge created or patched, newest last, with the news written and when
        # (the clock's seconds); only ever a hint: a miss costs one request.
        self._written: OrderedDict[str, tuple[str, float]] = OrderedDict()
        # For each alert (its first Incident's name), the Incident its last firing went to.
        self._current: OrderedDict[str, str] = OrderedDict()

    def _exists(self, item: AlertIncident) -> bool:
        """Whether the Incident is still there (a read: no write, no event for any watcher)."""
        from kubernetes.client.exceptions import ApiException

        try:
            self._api.get_namespaced_custom_object(GROUP, VERSION, self._namespace, PLURAL, item.name,
                                                   _request_timeout=REQUEST_TIMEOUT)
            return True
        except ApiException as exc:
            if exc.status != 404:
                raise _failure(exc, item.name) from exc
            return False

    def _create(self, item: AlertIncident) -> bool:
        """True: created; False: it exists already."""
        from kubernetes.client.exceptions import ApiException

        try:
            self._api.create_namespaced_custom_object(
                GROUP, VERSION, self._namespace, PLURAL, item.manifest, _request_timeout=REQUEST_TIMEOUT
            )
            return True
        except ApiException as exc:
            if exc.status != 409:
                raise _failure(exc, item.name) from exc
            return False

    def _patch(self, item: AlertIncident) -> bool:
        """True: the alert-tracking annotations hold this alert or a later request's; False: the incident is gone.

        Read first, and written only at the version read: a request that waited
        on its way (a slow network, a client that gave up and re-sent) must not
        land after a later one and turn a resolved alert back into a firing one.
        An Incident already holding a later request's time takes nothing from
        this one; one that changed between the read and the write is read again.
        """
        from kubernetes.client.exceptions import ApiException

        for _ in range(PATCH_ATTEMPTS):
            current = self._read(item.name)
            if current is None:
                return False
            if seen_later(current, item):
                return True
            version = (current.get("metadata") or {}).get("resourceVersion")
            body = {**item.patch, "metadata": {**item.patch["metadata"], "resourceVersion": version}}
            try:
                self._api.patch_namespaced_custom_object(
                    GROUP, VERSION, self._namespace, PLURAL, item.name, body,
                    _content_type=MERGE_PATCH, _request_timeout=REQUEST_TIMEOUT,
                )
                return True
            except ApiException as exc:
                if exc.status == 404:
                    return False
                if exc.status != 409:
                    raise _failure(exc, item.name) from exc
        raise WriteFailure(503, f"incident {item.name} kept changing while its alert was written; retry")

    def _read(self, name: str) -> dict[str, Any] | None:
        """The Incident as it is now; None when there is none of that name."""
        from kubernetes.client.exceptions import ApiException

        try:
            return cast(dict[str, Any], self._api.get_namespaced_custom_object(
                GROUP, VERSION, self._namespace, PLURAL, name, _request_timeout=REQUEST_TIMEOUT))
        except ApiException as exc:
            if exc.status != 404:
                raise _failure(exc, name) from exc
            return None

    def _belongs_to(self, item: AlertIncident, used: bool = False) -> tuple[AlertIncident, bool | None]:
        """The Incident this firing belongs to, and whether it exists (None: not known).

        The alert's first Incident (`item.name`) takes it unless that one's
        firing has ended (alertmanager.ended_firing); then the newest one the
        alert opened since (the first one names it), and failing that a new
        Incident for this firing. A first Incident that is gone while memory
        holds its name (`used`) was closed and deleted: its name is not used
        again, or the new outcome would replace the old one in memory.
        """
        first = self._read(item.name)
        if first is not None and not alert_incident_of(first, item):
            return self._own_name(item)
        if item.starts_at is None:  # firings cannot be told apart: the first Incident takes them all
            return item, first is not None
        if first is None and used:
            # Deleted after its outcome was remembered: the name is memory's, and this is a later firing.
            return renamed(item, recurrence_name(item.name, item.starts_at), recurrence_of=item.name), None
        if first is None or not ended_firing(first, item):
            return item, first is not None
        previous = item.name
        latest = ((first.get("metadata") or {}).get("annotations") or {}).get(ANN_LATEST)
        found = self._read(str(latest)) if names_a_recurrence(latest, item.name) else None
        if found is not None and alert_incident_of(found, item):
            if not ended_firing(found, item):
                return renamed(item, str(latest)), True
            previous = str(latest)
        return renamed(item, recurrence_name(item.name, item.starts_at), recurrence_of=previous), None

    def _own_name(self, item: AlertIncident) -> tuple[AlertIncident, bool]:
        """Where the alert goes when an Incident the bridge did not open holds its first name.

        Fingerprints can be computed, so anyone who may create Incidents could
        open `alert-<fingerprint>` first (admission reserves the prefix, but a
        cluster without the policy, or an Incident older than it, has none):
        the alert's pages then went onto that Incident, and its report. The
        squatter's Incident takes nothing; the firing opens one named by its
        start, which is not pointed to from the squatter's either.
        """
        target = renamed(item, recurrence_name(item.name, item.starts_at or "0"))
        found = self._read(target.name)
        if found is not None and not alert_incident_of(found, item):
            raise WriteFailure(503, f"incidents {item.name} and {target.name} exist and were not opened by the"
                                    " alert bridge; delete them, or the alert cannot be written")
        return target, found is not None

    def _point(self, first: str, latest: str) -> None:
        """Name on the alert's first Incident the newest one its firings opened (gone: nothing to name it on)."""
        from kubernetes.client.exceptions import ApiException

        try:
            self._api.patch_namespaced_custom_object(
                GROUP, VERSION, self._namespace, PLURAL, first, {"metadata": {"annotations": {ANN_LATEST: latest}}},
                _content_type=MERGE_PATCH, _request_timeout=REQUEST_TIMEOUT,
            )
        except ApiException as exc:
            if exc.status != 404:
                raise _failure(exc, first) from exc

    def _write(self, item: AlertIncident, current: str, written: tuple[str, float] | None = None,
               used: bool = False) -> Written:
        """Write `item`, the alert whose last write went to Incident `current` as `written` (None: not known).

        `used`: memory holds an incident of the first Incident's name.
        """
        last = dataclasses.replace(item, name=current)
        if written is not None and _same_firing(written[0], item):
            if written[0] == news(item) and self._clock() - written[1] < REFIRE_WRITE_SECONDS:
                if self._exists(last):
                    return Written("unchanged", current)
            elif self._patch(last):
                return Written("updated", current)
        elif written is None and not used and self._create(item):
            return Written("created", item.name)
        # Another firing, or an Incident gone or made by someone else: read where it belongs.
        # Two rounds: an Incident deleted or created between our read and our write.
        refused = written is None and not used  # the create above was refused: the first Incident exists
        for _ in range(2):
            target, exists = self._belongs_to(item, used)
            if exists is None and refused and target.name == item.name:
                exists = True
            if not exists and self._create(target):
                if ANN_RECURRENCE_OF in target.manifest["metadata"]["annotations"]:
                    self._point(item.name, target.name)
                return Written("created", target.name)
            if self._patch(target):
                return Written("updated", target.name)
            refused = False
        raise WriteFailure(503, f"incident {item.name} kept disappearing while being written; retry")

    async def write(self, item: AlertIncident) -> Written:
        """What was written ("created", "updated", or "unchanged": a re-fire with no news, read) and where."""
        current = self._current.get(item.name, item.name)
        written = self._written.get(current)
        used = written is None and item.starts_at is not None and await self._used(item.name)
        try:
            done = await asyncio.get_running_loop().run_in_executor(
                self._pool, self._write, item, current, written, used)
        except WriteFailure:
            raise
        except Exception as exc:  # connection refused, TLS, timeouts: the API server is unreachable
            raise WriteFailure(503, f"kubernetes API unreachable writing {item.name}: {type(exc).__name__}") from exc
        if done.outcome != "unchanged" or done.name not in self._written:
            self._written[done.name] = (news(item), self._clock())  # the time of the last write, not of the last read
        self._written.move_to_end(done.name)
        self._current[item.name] = done.name
        self._current.move_to_end(item.name)
        for names in (self._written, self._current):
            while len(names) > REMEMBERED_NAMES:
                names.popitem(last=False)
        return done

    async def _used(self, name: str) -> bool:
        """Whether memory holds an incident of this name; an alert still pages when memory cannot say."""
        if self._remembered is None:
            return False
        try:
            return await self._remembered(name)
        except Exception as exc:
            log.warning("memory could not say whether it holds %s; writing the alert as if not: %s", name, exc)
            return False

    def close(self) -> None:
        """Stop the writer's threads; a write still running ends with its request timeout."""
        self._pool.shutdown(wait=False, cancel_futures=True)


@dataclass(frozen=True)
class Written:
    outcome: str  # "created", "updated" or "unchanged"
    name: str  # the Incident written: the alert's first, or the one a later firing opened


def seen_later(incident: dict[str, Any], item: AlertIncident) -> bool:
    """Whether `incident` already records its alert as seen after this request was received."""
    annotations = (incident.get("metadata") or {}).get("annotations") or {}
    stored = parse_time(annotations.get(ANN_LAST_SEEN))
    this = parse_time(item.patch["metadata"]["annotations"].get(ANN_LAST_SEEN))
    return stored is not None and this is not None and stored > this


def _same_firing(written_news: str, item: AlertIncident) -> bool:
    """Whether the bridge's last write (its `news`) recorded the same firing (start) as `item`."""
    return bool(json.loads(written_news).get(ANN_STARTS_AT) == item.starts_at)


def news(item: AlertIncident) -> str:
    """What writing this alert records besides the time it was seen: equal means a re-fire says nothing new."""
    annotations = {k: v for k, v in item.patch["metadata"]["annotations"].items() if k != ANN_LAST_SEEN}
    return json.dumps(annotations, sort_keys=True)


def _failure(exc: Any, name: str) -> WriteFailure:
    message = ""
    try:
        message = json.loads(exc.body or "{}").get("message", "")
    except (ValueError, AttributeError):
        message = str(exc.reason or "")
    # 5xx and throttling are worth a retry by Alertmanager; other refusals are
    # reported as a bad gateway so they are visible, never as the sender's fault.
    status = 503 if exc.status in (429,) or exc.status >= 500 else 502
    return WriteFailure(status, f"kubernetes refused incident {name} ({exc.status}): {message}"[:2048],
                        refused=exc.status in REFUSED_FOR_GOOD)


def _error(err: BridgeError | WriteFailure) -> web.Response:
    return web.json_response({"error": err.reason}, status=err.status_code)


async def _read_limited(request: web.Request) -> bytes | BridgeError:
    # Read the stream ourselves: a chunked body has no Content-Length to check,
    # and aiohttp's own limit would answer with a reason-less 413.
    chunks: list[bytes] = []
    size = 0
    deadline = asyncio.get_running_loop().time() + BODY_READ_SECONDS
    while True:
        try:
            async with asyncio.timeout_at(deadline):
                chunk = await request.content.readany()
        except TimeoutError:
            return BridgeError(408, f"the body did not arrive within {BODY_READ_SECONDS} s")
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return BridgeError(413, f"body exceeds the limit of {MAX_BODY_BYTES} bytes")
        chunks.append(chunk)


# An alert storm opens hundreds of connections at once. With aiohttp's default
# accept queue (128) the kernel overflows it and some senders see their
# connection reset instead of an answer; 500 concurrent posts reproduced it.
ACCEPT_BACKLOG = 1024

class BridgeToken:
    """The bearer token in a file, re-read whenever the file's identity or mtime changes."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._seen: tuple[int, int, int, int] | None = None
        self._token = b""
        self.load()

    def load(self) -> bytes:
        # A Secret volume swaps a symlink on rotation, so stat the target: inode and mtime both move.
        st = os.stat(self.path)
        seen = (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)
        if seen != self._seen:
            with open(self.path, "rb") as fh:
                token = fh.read().strip()
            if not token:
                raise ValueError(f"the bridge token file {self.path} is empty")
            self._token, self._seen = token, seen
        return self._token

    def accepts(self, authorization: str | None) -> bool:
        """Whether an Authorization header carries the token; compared in constant time."""
        try:
            token = self.load()
        except (OSError, ValueError) as exc:
            # The last good token stays in force while the file is being replaced.
            log.warning("cannot re-read the bridge token file: %s", exc)
            token = self._token
        scheme, _, credentials = (authorization or "").strip().partition(" ")
        # surrogatepass: bytes that are no UTF-8 come through as lone surrogates; they are a wrong token, not a 500.
        offered = credentials.strip().encode("utf-8", "surrogatepass") if scheme.lower() == "bearer" else b""
        # Digests first, so both sides have one length and compare_digest's time
        # depends on neither where they differ nor how long the token is; a
        # missing header is compared too, so it costs what a wrong one does.
        return hmac.compare_digest(hashlib.sha256(offered).digest(), hashlib.sha256(token).digest())


STATS_KEY = web.AppKey("stats", dict[str, int])
TOKEN_KEY = web.AppKey("token", BridgeToken)
WRITER_KEY = web.AppKey("writer", IncidentWriter)
NAMESPACE_KEY = web.AppKey("namespace", str)
PANEL_URL_KEY = web.AppKey("panel_url", str)


async def handle_alerts(request: web.Request) -> web.Response:
    stats = request.app[STATS_KEY]
    stats["requests"] += 1
    token = request.app.get(TOKEN_KEY)
    if token is not None and not token.accepts(request.headers.get("Authorization")):
        stats["unauthorized"] += 1
        return web.json_response(
            {"error": "a bearer token is required (Authorization: Bearer <token>); missing or wrong"},
            status=401, headers={"WWW-Authenticate": 'Bearer realm="recall-bridge"'},
        )
    err = check_request(request.headers.get("Content-Type"), request.content_length)
    body: bytes | BridgeError = err if err is not None else await _read_limited(request)
    if isinstance(body, BridgeError):
        stats["refused"] += 1
        return _error(body)
    payload = parse_body(body)
    if isinstance(payload, BridgeError):
        stats["refused"] += 1
        return _error(payload)
    mapped = map_payload(
        payload, namespace=request.app[NAMESPACE_KEY], received_at=datetime.now(timezone.utc),
        panel_url=request.app.get(PANEL_URL_KEY),
    )
    if isinstance(mapped, BridgeError):
        stats["refused"] += 1
        return _error(mapped)
    return await _write_all(request.app, mapped)


async def _write_all(app: web.Application, mapped: Mapped) -> web.Response:
    writer = app[WRITER_KEY]
    stats = app[STATS_KEY]
    outcomes = await asyncio.gather(*(writer.write(i) for i in mapped.incidents), return_exceptions=True)
    created: list[str] = []
    updated: list[str] = []
    failures: list[WriteFailure] = []
    skipped = list(mapped.skipped)
    for item, outcome in zip(mapped.incidents, outcomes):
        if isinstance(outcome, WriteFailure) and outcome.refused:
            # Re-sent, it would be refused again, and the group with it until Alertmanager gives up; the
            # rest of the group is written and this one counted and said as skipped (RecallBridgeAlertSkipped).
            skipped.append(Skipped(item.index, f"alerts[{item.index}]: {outcome.reason}"))
        elif isinstance(outcome, WriteFailure):
            failures.append(outcome)
        elif isinstance(outcome, BaseException):
            raise outcome
        else:
            # An unchanged re-fire is an update the Incident already holds.
            (created if outcome.outcome == "created" else updated).append(outcome.name)
            stats["unchanged"] += outcome.outcome == "unchanged"
    stats["created"] += len(created)
    stats["updated"] += len(updated)
    stats["skipped"] += len(skipped) + mapped.truncated
    unchanged = sum(1 for o in outcomes if isinstance(o, Written) and o.outcome == "unchanged")
    for what, count in (("created", len(created)), ("updated", len(updated) - unchanged), ("unchanged", unchanged),
                        ("skipped", len(skipped) + mapped.truncated), ("failed", len(failures))):
        if count:
            metrics.BRIDGE_ALERTS.labels(outcome=what).inc(count)  # metrics
    body = {
        "created": created,
        "updated": updated,
        "skipped": [{"alert": s.index, "reason": s.reason} for s in skipped],
    }
    for skip in skipped:
        log.warning("alert not recorded: %s", skip.reason)
    if mapped.truncated:
        body["truncated"] = mapped.truncated
        log.warning("Alertmanager left %d alerts out of this group (its max_alerts): they never reached the bridge",
                    mapped.truncated)
    if failures:
        # Some writes failed: answer with the worst failure so Alertmanager
        # re-sends the group; the ones that succeeded converge on re-send.
        worst = max(failures, key=lambda f: f.status_code)
        stats["failed"] += 1
        return web.json_response({**body, "error": worst.reason}, status=worst.status_code)
    return web.json_response(body, status=200)


async def handle_healthz(request: web.Request) -> web.Response:
    stats = request.app[STATS_KEY]  # read apart: inside ** mypy resolves the key against the wrong type
    return web.json_response({"ok": True, **stats})


def create_app(
    namespace: str, api_client: Any, token: BridgeToken | None = None, panel_url: str | None = None,
    remembered: Remembered | None = None,
) -> web.Application:
    # aiohttp's own body limit stays above ours so that ours, with its reason, answers first.
    app = web.Application(client_max_size=MAX_BODY_BYTES * 2)
    app[NAMESPACE_KEY] = namespace
    app[WRITER_KEY] = IncidentWriter(api_client, namespace, remembered=remembered)
    if token is not None:
        app[TOKEN_KEY] = token
    if panel_url:
        app[PANEL_URL_KEY] = panel_url
    app[STATS_KEY] = {"requests": 0, "created": 0, "updated": 0, "unchanged": 0, "refused": 0, "skipped": 0,
                      "failed": 0, "unauthorized": 0}
    app.router.add_post("/alerts", handle_alerts)
    app.router.add_get("/healthz", handle_healthz)
    return app


def load_api_client() -> Any:
    # One connection per worker thread, so a burst of alerts does not queue on the pool. No retries of
    # urllib3's own: a read it re-sent three times waited 4 x REQUEST_TIMEOUT, and Alertmanager re-sends anyway.
    return api_client(pool_size=32, retries=False)


async def serve(port: int, namespace: str, host: str = "127.0.0.1", *, api_client: Any = None,
                token_file: str | None = None, panel_url: str | None = None,
                remembered: Remembered | None = None) -> None:
    """Run the bridge on host:port, writing Incidents into namespace, until cancelled.

    With `token_file`, ``POST /alerts`` needs ``Authorization: Bearer <the file's content>``.
    An empty `host` binds every address. With `panel_url`, each new Incident
    carries the memory panel's link to its page. With `remembered` (inside
    `recall run`: the operator's memory), an alert's first Incident name that
    memory holds is not used again (IncidentWriter._belongs_to).
    """
    token = BridgeToken(token_file) if token_file else None  # a missing or empty file fails here, at start
    owned = api_client is None
    api = load_api_client() if owned else api_client
    app = create_app(namespace, api, token, panel_url, remembered)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    try:
        # aiohttp reads host=None as every address; "" and "0.0.0.0" are spelled out by the caller.
        site = web.TCPSite(runner, host or None, port, backlog=ACCEPT_BACKLOG)
        await site.start()
        log.info("alert bridge listening on %s:%d (%s), writing Incidents to namespace %s", host or "*", port,
                 "bearer token required" if token else "no token: loopback only", namespace)
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()
        app[WRITER_KEY].close()
        if owned:
            api.close()
