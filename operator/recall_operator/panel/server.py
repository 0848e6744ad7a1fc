"""The memory panel's web server: aiohttp, server-rendered Jinja2 pages, nothing but GET.

Pages (links are stable, so a paging tool can carry them):

    /incidents?namespace=&service=&mode=&execution=   the table
    /ns/NAMESPACE/incidents/NAME                       one incident's evidence
    /ns/NAMESPACE/runbooks/NAME                        a runbook, its record over time
    /memory                                            memory health

Every value is escaped by the templates (autoescape is on for every file):
incident text comes from alerts and people. No script is served, and the
Content-Security-Policy says so to the browser too.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from importlib import resources
from typing import Any

import urllib3
from aiohttp import web
from jinja2 import Environment, PackageLoader

from recall_operator.panel import views
from recall_operator.panel.source import NotAllowed, Source

log = logging.getLogger(__name__)

SOURCE: web.AppKey[Source] = web.AppKey("source", Source)
CLOCK: web.AppKey[Callable[[], datetime]] = web.AppKey("clock")
HOSTS: web.AppKey[frozenset[str]] = web.AppKey("hosts")
# The panel has no login: it is reached through kubectl port-forward, on loopback.
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
PANEL_HOST_PROBLEM = ("is reachable from other hosts, and the panel has no login: it reads every Incident with "
                      "the identity it runs as. Bind it on loopback and reach it with kubectl port-forward, or "
                      "through an authenticating proxy beside it")

SECURITY_HEADERS = {
    # Nothing runs: no script at all, styles only from the panel's own stylesheet.
    "Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; "
                               "form-action 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
    # Another site's page may not embed or fetch what the panel serves.
    "Cross-Origin-Resource-Policy": "same-origin",
}
# The most incidents one list page shows, newest first.
MAX_ROWS = 500
# What a browser says of where a request comes from (Sec-Fetch-Site) that the panel answers:
# its own pages, and an address typed, bookmarked or opened from outside a page ("none").
OWN_SITES = frozenset({"same-origin", "none"})


def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("recall_operator.panel", "templates"),
        autoescape=True,  # every template, whatever its name
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["mode_words"] = views.MODE_WORDS
    return env


ENV = environment()


def now_utc() -> datetime:
    return datetime.now(UTC)


def render(template: str, **context: Any) -> str:
    return ENV.get_template(template).render(**context)


def page(body: str, status: int = 200) -> web.Response:
    return web.Response(text=body, status=status, content_type="text/html", charset="utf-8",
                        headers=SECURITY_HEADERS)


def problem(status: int, title: str, detail: str) -> web.Response:
    return page(render("problem.html", title=title, detail=detail, page_title=title), status)


# -- pages as functions of a source: the server's handlers and the benchmark call these --


async def incidents_page(source: Source, query: Mapping[str, str], now: datetime) -> str:
    filters = views.Filters.of(query)
    if filters.namespace and not source.allowed(filters.namespace):
        raise NotAllowed(filters.namespace)
    objs = await source.list("incidents", filters.namespace or None)
    rows, choices = views.incident_rows(objs, filters, now)
    # The newest that fit a page: the panel renders on the operator's event loop, and 3,000 rows were
    # 0.36 s of it and 5 MB of HTML. The filters reach the others.
    return render("incidents.html", rows=rows[:MAX_ROWS], matching=len(rows), choices=choices, filters=filters,
                  total=len(objs), page_title="Incidents")


async def incident_page(source: Source, namespace: str, name: str, now: datetime) -> str | None:
    obj = await source.get("incidents", namespace, name)
    if obj is None:
        return None
    status = obj.get("status") or {}
    wanted = [str(m.get("incident")) for m in status.get("matches") or [] if m.get("incident")]
    rec = status.get("recommendation") or {}
    contradiction_names = {str(m.get("contradiction")) for m in status.get("matches") or [] if m.get("contradiction")}
    contradiction_names |= set(views.contradiction_reasons(rec.get("reasons") or []))
    past, approvals, jobs, contradictions = await asyncio.gather(
        asyncio.gather(*(source.get("incidents", namespace, n) for n in wanted)),
        source.list("approvals", namespace),
        source.jobs(namespace, name),
        asyncio.gather(*(source.get("contradictions", namespace, n) for n in sorted(contradiction_names))),
    )
    found_past = {n: o for n, o in zip(wanted, past, strict=True) if o}
    found_contradictions = {n: o for n, o in zip(sorted(contradiction_names), contradictions, strict=True) if o}
    return render(
        "incident.html",
        page_title=f"{name} ({namespace})",
        row=views.incident_row(obj, now),
        spec=obj.get("spec") or {},
        outcome=views.outcome_line(obj.get("spec") or {}),
        rec=rec,
        reasons=[str(r) for r in rec.get("reasons") or []],
        warnings=[str(w) for w in rec.get("warnings") or []],
        evidence=[str(e) for e in rec.get("evidence") or []],
        stale_lines=views.stale_lines(rec),
        matches=views.match_views(status, found_past),
        contradictions=views.contradiction_views(status, found_contradictions),
        steps=views.step_views(status, jobs, (obj.get("metadata") or {}).get("uid") or None),
        approvals=views.approval_views(name, approvals, str(rec.get("planHash") or "")),
        approve_command=views.approve_command(obj),
        execution=status.get("execution") or {},
        execution_state=views.execution_state(obj),
        conditions=list(views.conditions(obj).values()),
        memory_error=_memory_error(obj),
        number=views.number,
        bar_width=views.BAR_WIDTH,
    )


def _memory_error(obj: Mapping[str, Any]) -> str:
    cond = views.conditions(obj).get("MemoryAvailable")
    return str(cond.get("message") or "") if cond and cond.get("status") == "False" else ""


async def runbook_page(source: Source, namespace: str, name: str, now: datetime) -> str | None:
    obj = await source.get("runbooks", namespace, name)
    if obj is None:
        return None
    incidents = await source.list("incidents", namespace)
    points = views.runbook_outcomes(name, incidents)
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    return render(
        "runbook.html",
        page_title=f"runbook {name} ({namespace})",
        name=name, namespace=namespace, spec=spec, status=status, number=views.number,
        steps=[{**s, "command": views._cmd(s.get("command")), "dryRunCommand": views._cmd(s.get("dryRunCommand")),
                "rollbackCommand": views._cmd(s.get("rollbackCommand"))} for s in spec.get("steps") or []],
        points=points, path=views.chart_path(points),
        chart={"w": views.CHART_W, "h": views.CHART_H, "pad": views.CHART_PAD},
        recommended=views.recommended_for(name, incidents, now),
        last=status.get("lastOutcome") or {},
    )


async def memory_page(source: Source, now: datetime) -> str:
    incidents, runbooks, contradictions, migrations = await asyncio.gather(
        source.list("incidents"), source.list("runbooks"), source.list("contradictions"),
        source.list("architecturemigrations"),
    )
    health = views.memory_health(incidents, runbooks, contradictions, migrations, now)
    return render("memory.html", page_title="Memory health", health=health,
                  namespaces=source.namespaces, runbooks=sorted(
                      ((r.get("metadata") or {}).get("namespace", ""), (r.get("metadata") or {}).get("name", ""),
                       r.get("status") or {}) for r in runbooks), number=views.number)


# -- aiohttp -------------------------------------------------------------------------


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def request_host(host_header: str | None) -> str:
    """The name a request is addressed to, without its port: `[::1]:8090` -> `::1`."""
    host = (host_header or "").strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if host.count(":") == 1 else host


@web.middleware
async def addressed(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Answer only requests addressed to a name the panel is served under.

    A web page in the browser of someone port-forwarding the panel could point
    its own DNS name at 127.0.0.1 and read every page with the operator's
    identity (DNS rebinding); the browser still sends that page's name as Host.
    """
    hosts: frozenset[str] = request.app[HOSTS]
    if request_host(request.headers.get("Host")) not in hosts:
        return problem(421, "Misdirected request", "this panel answers only requests addressed to "
                       + ", ".join(sorted(hosts)))
    # A page of another site, opened by someone port-forwarding the panel, could ask for
    # incident names one by one (a prefetch loads or fails) and make the panel read the API
    # with its identity for each: refused before anything is read. A client that is not a
    # browser sends no such header.
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None and site.lower() not in OWN_SITES:
        return problem(403, "Another site's request", "the panel answers its own pages and addresses opened "
                       "directly, not a request another site's page makes")
    return await handler(request)


@web.middleware
async def errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """A namespace the panel does not serve, or an API error, is a page that says so; never a traceback."""
    from kubernetes.client.exceptions import ApiException

    try:
        return await handler(request)
    except NotAllowed as exc:
        # Only a namespace's name is repeated: a crafted link's words never read as the panel's own.
        shown = str(exc) if re.fullmatch(_NAMESPACE, str(exc)) else "asked for"
        return problem(404, "Not here", f"this panel does not show the namespace {shown}")
    except web.HTTPNotFound:
        return problem(404, "No such page", "the panel has no such page; its pages start at /incidents")
    except ApiException as exc:
        log.warning("panel: the API server answered %s to %s", exc.status, request.path)
        what = "not allowed to read it" if exc.status == 403 else f"error {exc.status} {exc.reason}"
        return problem(502, "The Kubernetes API refused", f"the panel's identity is {what}")
    except (OSError, urllib3.exceptions.HTTPError) as exc:  # the client's retries end in urllib3's own errors
        log.warning("panel: the API server cannot be reached: %s", exc)
        return problem(502, "The Kubernetes API cannot be reached", str(exc))


async def _incidents(request: web.Request) -> web.StreamResponse:
    return page(await incidents_page(request.app[SOURCE], request.query, request.app[CLOCK]()))


async def _incident(request: web.Request) -> web.StreamResponse:
    ns, name = request.match_info["namespace"], request.match_info["name"]
    started = time.perf_counter()
    body = await incident_page(request.app[SOURCE], ns, name, request.app[CLOCK]())
    if body is None:
        return problem(404, "No such incident", f"no Incident {name} in namespace {ns}")
    response = page(body)
    response.headers["Server-Timing"] = f"render;dur={(time.perf_counter() - started) * 1000:.1f}"
    return response


async def _runbook(request: web.Request) -> web.StreamResponse:
    ns, name = request.match_info["namespace"], request.match_info["name"]
    body = await runbook_page(request.app[SOURCE], ns, name, request.app[CLOCK]())
    if body is None:
        return problem(404, "No such runbook", f"no Runbook {name} in namespace {ns}")
    return page(body)


async def _memory(request: web.Request) -> web.StreamResponse:
    return page(await memory_page(request.app[SOURCE], request.app[CLOCK]()))


async def _root(request: web.Request) -> web.StreamResponse:
    raise web.HTTPFound("/incidents")


async def _healthz(request: web.Request) -> web.StreamResponse:
    return web.Response(text="ok\n")


STYLESHEET = resources.files("recall_operator.panel").joinpath("static", "panel.css")


async def _css(request: web.Request) -> web.StreamResponse:
    return web.Response(body=STYLESHEET.read_bytes(), content_type="text/css", charset="utf-8",
                        headers={"X-Content-Type-Options": "nosniff", "Cache-Control": "max-age=300"})


_NAMESPACE = r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?"
_OBJECT_NAME = r"[a-z0-9](?:[-.a-z0-9]{0,251}[a-z0-9])?"


async def _secured(request: web.Request, response: web.StreamResponse) -> None:
    """Every answer carries the security headers, those aiohttp makes itself (405, 500) too."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)


def create_app(source: Source, clock: Callable[[], datetime] = now_utc,
               hosts: frozenset[str] = LOOPBACK_NAMES) -> web.Application:
    app = web.Application(middlewares=[addressed, errors])
    app.on_response_prepare.append(_secured)
    app[SOURCE] = source
    app[CLOCK] = clock
    app[HOSTS] = hosts
    app.router.add_get("/", _root)
    app.router.add_get("/incidents", _incidents)
    # Only object names reach the API client: `..` or another path never becomes part of a request.
    app.router.add_get(f"/ns/{{namespace:{_NAMESPACE}}}/incidents/{{name:{_OBJECT_NAME}}}", _incident)
    app.router.add_get(f"/ns/{{namespace:{_NAMESPACE}}}/runbooks/{{name:{_OBJECT_NAME}}}", _runbook)
    app.router.add_get("/memory", _memory)
    app.router.add_get("/static/panel.css", _css)
    app.router.add_get("/healthz", _healthz)
    return app


async def serve(port: int, namespaces: list[str] | tuple[str, ...] = (), host: str = "127.0.0.1",
                public_host: str | None = None) -> None:
    """Serve the panel on host:port until cancelled; `public_host`, the name a proxy in front gives it, is
    answered besides the loopback names."""
    source = Source(namespaces)
    hosts = LOOPBACK_NAMES | ({public_host.lower()} if public_host else set())
    runner = web.AppRunner(create_app(source, hosts=hosts), access_log=None)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
        log.info("memory panel on http://%s:%d/ (read-only; namespaces: %s)", host, port,
                 ", ".join(namespaces) or "all")
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()
        source.close()
