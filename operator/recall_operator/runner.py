"""`recall run`: the operator process.

Kopf runs in this process's event loop against the current kubeconfig (or the
in-cluster service account). The operator's settings (config.OperatorSettings)
are built here once, from the flags and the environment, and put in Kopf's
memo, where every handler takes them from; the tests start the very same
handlers with `kopf.testing.KopfRunner` and give the settings through the
environment instead (see `operator_args`).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import random
import re
import sys
import time
from collections.abc import Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, get_args, get_origin
from urllib.parse import urlsplit

import kopf

from recall_operator import logs, metrics
from recall_operator.bridge.server import serve as bridge_serve
from recall_operator.config import ConfigError, OperatorSettings, env_name, flag_name
from recall_operator.handlers import load_all
from recall_operator.kube.client import load_api_models
from recall_operator.panel.server import PANEL_HOST_PROBLEM
from recall_operator.panel.server import serve as panel_serve
from recall_operator.ports import loopback_only, port_number

# The incident module imports the catalog's handlers; execution registers its own.
HANDLER_MODULES = ("recall_operator.handlers.incident", "recall_operator.handlers.execution")


def operator_args(namespaces: Sequence[str] = (), *, all_namespaces: bool = False, peering: str | None = None) -> list[str]:
    """The `kopf run` arguments that start this operator: for KopfRunner in tests, or by hand."""
    args = ["run", "--standalone"] if peering is None else ["run", "--peering", peering]
    if all_namespaces:
        args.append("--all-namespaces")
    for ns in namespaces:
        args += ["--namespace", ns]
    for module in HANDLER_MODULES:
        args += ["-m", module]
    return args


def bridge_namespace(args: argparse.Namespace) -> str:
    """Where alerts become Incidents: the one named, else the first watched namespace."""
    if args.bridge_namespace:
        return str(args.bridge_namespace)
    return str(args.namespace[0]) if args.namespace else "default"


def standby_priority(started: float, tiebreak: int) -> int:
    """A replica's Kopf peering priority: the one started first is the highest, the others stand by.

    Kopf pauses every operator of a peering when two share the highest
    priority, and replicas of one Deployment are started alike: with one
    priority for all, none worked while each said it was ready. The older
    replica stays active (no hand-over when a new one starts); `tiebreak`
    (0..999) parts two started in the same millisecond.
    """
    return -(int(started * 1000) * 1000 + tiebreak)


# A full collection after this many collections of the middle generation (Python's default: 10).
FULL_COLLECTION_EVERY = 100


def settle_collector() -> None:
    """Freeze what is loaded, and make full collections rarer.

    What is loaded by start-up (Kopf, the API client and the models of the APIs
    the operator calls, every handler module: about 216k objects) lives as long
    as the process. Python's full collections walked it all, holding the event
    loop 150-270 ms; frozen, it is skipped. What full collections still walk is
    what came later, most of it the parsed-memory cache (about 18 objects a kept
    memory): 7-35 ms each, and an answer that waits behind one is the tail. Ten
    times rarer, with 10,000 memories in the store the answers' p99 was lower in
    8 of 11 alternating bench runs (median 29 against 32 ms, worst 38 against 54;
    docs/performance.md), for 7-9 MB more at the peak of a storm: the cycles Kopf's
    per-event views leave wait longer to be freed.
    """
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)


async def run_operator(args: argparse.Namespace, settings: OperatorSettings) -> None:
    load_all()
    load_api_models()
    # Loaded before freezing: frozen before the API models were, 80k objects were still
    # walked, and full collections in `recall bench` took 46-118 ms (22-32 ms after).
    settle_collector()
    tasks = []
    memo = kopf.Memo(settings=settings)
    if args.bridge_port is not None:
        bridge_ns = bridge_namespace(args)
        logging.info(f"the alert bridge opens Incidents in namespace {bridge_ns}")

        async def remembered(name: str) -> bool:
            memory = memo.get("memory")  # opened by the start-up handler; None before it ran
            return memory is not None and await memory.get(name, bridge_ns) is not None

        tasks.append(asyncio.create_task(_serving(f"--bridge-port {args.bridge_port}", bridge_serve(
            args.bridge_port, bridge_ns, args.bridge_host, token_file=args.bridge_token_file,
            panel_url=args.panel_url, remembered=remembered))))
    # metrics: /metrics, /healthz and /readyz on --metrics-port (see recall_operator.metrics).
    ready = asyncio.Event()
    # Kopf's own record of the kinds and namespaces it watches; /readyz lists each once.
    # Kopf does not export the class, so it is taken from where Kopf keeps it.
    from kopf._cogs.structs.references import Insights

    insights = Insights()
    if args.metrics_port is not None:
        metrics.count_handler_errors()
        tasks.append(asyncio.create_task(_serving(f"--metrics-port {args.metrics_port}", metrics.serve(
            args.metrics_port, ready, memo, insights=insights))))
    if args.panel_port is not None:
        # panel: the read-only memory panel, reading with the operator's own identity.
        shown = [] if args.all_namespaces else list(args.namespace)
        public = urlsplit(args.panel_url).hostname if args.panel_url else None
        tasks.append(asyncio.create_task(_serving(f"--panel-port {args.panel_port}", panel_serve(
            args.panel_port, shown, args.panel_host, public))))
    operator = kopf.operator(
        standalone=args.peering is None,
        peering_name=args.peering,
        priority=standby_priority(time.time(), random.randrange(1000)) if args.peering else None,
        clusterwide=args.all_namespaces,
        namespaces=args.namespace or [],
        ready_flag=ready,
        memo=memo,
        insights=insights,
    )
    # metrics: the servers beside Kopf end with it (a SIGINT/SIGTERM stops Kopf, not them),
    # and a server that fails (port taken) stops the process instead of running on without it.
    main_task = asyncio.ensure_future(operator)
    try:
        done, _ = await asyncio.wait([main_task, *tasks], return_when=asyncio.FIRST_COMPLETED)
        for t in done:
            t.result()
        if main_task not in done:
            main_task.cancel()
            await asyncio.gather(main_task, return_exceptions=True)
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


class CannotServe(Exception):
    """A server beside Kopf could not listen: which flag's port, and the system's reason."""


async def _serving(flag: str, server: Coroutine[Any, Any, None]) -> None:
    # Only a server's own OSError (a port taken, an address not here) is said in one line:
    # any other, from Kopf or the API client, keeps its traceback.
    try:
        await server
    except OSError as exc:
        raise CannotServe(f"on {flag}: {exc.strerror or exc}") from exc


def bridge_exposure_problem(args: argparse.Namespace) -> str | None:
    """Why the bridge's flags are refused, or None: anyone who reaches it opens Incidents as the operator."""
    if args.bridge_port is None:
        return None
    path = args.bridge_token_file
    if path is None:
        if loopback_only(args.bridge_host):
            return None
        return f"--bridge-host {args.bridge_host or '(every address)'} is reachable from other hosts: " \
               "give --bridge-token-file"
    try:
        with open(path, "rb") as fh:
            if not fh.read().strip():
                return f"--bridge-token-file {path} is empty"
    except OSError as exc:
        return f"--bridge-token-file {path} cannot be read: {exc.strerror}"
    return None


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("run", help="run the operator against the current kubeconfig")
    p.add_argument("--namespace", "-n", action="append", default=[], help="watch this namespace (repeatable)")
    p.add_argument("--all-namespaces", "-A", action="store_true", help="watch every namespace")
    p.add_argument("--bridge-port", type=port_number, default=None, help="serve the Alertmanager webhook on this port")
    p.add_argument("--bridge-host", default="127.0.0.1",
                   help="the address the bridge binds (default 127.0.0.1; 0.0.0.0 in a pod, so that a Service "
                        "reaches it); any address but loopback needs --bridge-token-file")
    p.add_argument("--bridge-token-file", default=None,
                   help="a file holding the bearer token POST /alerts must carry (a mounted Secret); "
                        "re-read when it changes")
    p.add_argument("--bridge-namespace", default=None,
                   help="where the bridge opens Incidents (default: the first --namespace; with -A, 'default')")
    p.add_argument("--metrics-port", type=port_number, default=None,
                   help="serve /metrics (Prometheus), /healthz (liveness) and /readyz (readiness) on this port")
    p.add_argument("--panel-port", type=port_number, default=None,
                   help="serve the read-only memory panel on this port (off by default)")
    p.add_argument("--panel-url", default=None,
                   help="the memory panel's address as people reach it (http or https); the bridge writes each "
                        "new Incident's page, BASE/ns/NAMESPACE/incidents/NAME, into recall.dev/panel-url")
    p.add_argument("--panel-host", default="127.0.0.1",
                   help="the loopback address the panel binds (default 127.0.0.1: reach it with kubectl "
                        "port-forward); it answers requests addressed to loopback names and to --panel-url's host")
    p.add_argument("--log-format", choices=logs.FORMATS, default="text",
                   help="text, or json: one object per line with time, level, logger, message, incident")
    p.add_argument("--peering", default=None,
                   help="a KopfPeering name: run as one of several replicas (default: standalone)")
    p.add_argument("--verbose", "-v", action="store_true")
    add_setting_flags(p)
    p.set_defaults(func=main)


# A secret stays off the command line, where any process listing shows it: RECALL_STATUS_KEY,
# RECALL_HINDSIGHT_KEY and RECALL_HINDSIGHT_API_KEY only.
ENV_ONLY = frozenset({"status_key", "hindsight_key", "hindsight_api_key"})
# An older spelling the chart and scripts still pass.
_ALIASES = {"memory_backend": ["--memory"]}


def add_setting_flags(parser: argparse.ArgumentParser) -> None:
    """One flag per OperatorSettings field, named after it; unset flags fall back to RECALL_<NAME>, then the default.

    The flags take text, parsed by OperatorSettings.from_env like the variable's,
    so `--novel-bar 50` and RECALL_NOVEL_BAR=50 mean the same thing.
    """
    group = parser.add_argument_group("settings", "each also read from its RECALL_<NAME> variable; the flag wins")
    for name, info in OperatorSettings.model_fields.items():
        if name in ENV_ONLY:
            continue
        group.add_argument(flag_name(name), *_ALIASES.get(name, []), dest=f"setting_{name}", default=None,
                           metavar=_metavar(info.annotation),
                           help=f"{info.description} ({env_name(name)}; default {info.default})")


def _metavar(kind: Any) -> str:
    if kind is bool:
        return "true|false"
    if get_origin(kind) is Literal:
        return "|".join(get_args(kind))
    return "N" if kind in (int, float) else "TEXT"


def settings_from_args(args: argparse.Namespace, env: Mapping[str, str]) -> OperatorSettings:
    """The settings `recall run` was given: its flags over the environment (raises ConfigError)."""
    flags = {name: getattr(args, f"setting_{name}", None) for name in OperatorSettings.model_fields}
    return OperatorSettings.from_env(env, flags)


def main(args: argparse.Namespace) -> int:
    if not args.namespace and not args.all_namespaces:
        print("recall run: name at least one --namespace, or --all-namespaces", file=sys.stderr)
        return 2
    ns = args.bridge_namespace
    if ns is not None and not re.fullmatch(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?", ns):
        print(f"recall run: --bridge-namespace {ns!r} is not a namespace name (lowercase DNS label)", file=sys.stderr)
        return 2
    if ns is not None and not args.all_namespaces and ns not in args.namespace:
        # Incidents opened where no one watches would never be triaged.
        print(f"recall run: --bridge-namespace {ns} is not watched; add --namespace {ns} or use -A", file=sys.stderr)
        return 2
    if args.panel_url is not None and not re.fullmatch(r"https?://[^\s/]+(/\S*)?", args.panel_url):
        print(f"recall run: --panel-url {args.panel_url!r} is not an http(s) URL", file=sys.stderr)
        return 2
    if args.panel_port is not None and not loopback_only(args.panel_host):
        print(f"recall run: --panel-host {args.panel_host or '(every address)'} {PANEL_HOST_PROBLEM}", file=sys.stderr)
        return 2
    problem = bridge_exposure_problem(args)
    if problem:
        print(f"recall run: {problem}", file=sys.stderr)
        return 2
    try:
        settings = settings_from_args(args, os.environ)
    except ConfigError as exc:
        print(f"recall run: {exc}", file=sys.stderr)
        return 2
    store = Path(settings.memory_path).resolve().parent
    if settings.memory_backend == "embedded" and not store.is_dir():
        # Opened lazily, it would leave a ready operator triaging every Incident without memory.
        print(f"recall run: {settings_source(args, 'memory_path')} {settings.memory_path}: "
              f"directory {store} does not exist", file=sys.stderr)
        return 2
    logs.configure(args.log_format, logging.DEBUG if args.verbose else logging.INFO)
    try:
        asyncio.run(run_operator(args, settings))
    except KeyboardInterrupt:
        pass
    except CannotServe as exc:
        # A port already taken: say which, without a traceback.
        print(f"recall run: cannot serve {exc}", file=sys.stderr)
        return 1
    return 0


def settings_source(args: argparse.Namespace, name: str) -> str:
    """Where a setting came from, to name it in a message: its flag when given, else its variable."""
    return flag_name(name) if getattr(args, f"setting_{name}", None) is not None else env_name(name)
