"""`recall run`: the operator process.

Kopf runs in this process's event loop against the current kubeconfig (or the
in-cluster service account). The memory backend is named here and opened once
at start-up by the handlers' startup hook, which reads it from Kopf's memo; the
tests start the very same handlers with `kopf.testing.KopfRunner` and name
the backend through environment variables instead (see `operator_args`).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import ipaddress
import logging
import os
import re
import sys
from collections.abc import Sequence
from typing import Any

import kopf

from recall_operator import logs, metrics
from recall_operator.handlers import (
    ENV_BACKEND,
    ENV_HINDSIGHT_URL,
    ENV_PATH,
    load_all,
)
from recall_operator.memory.base import MemorySettings

HANDLER_MODULE = "recall_operator.handlers.incident"


def operator_args(namespaces: Sequence[str] = (), *, all_namespaces: bool = False, peering: str | None = None) -> list[str]:
    """The `kopf run` arguments that start this operator: for KopfRunner in tests, or by hand."""
    args = ["run", "--standalone"] if peering is None else ["run", "--peering", peering]
    if all_namespaces:
        args.append("--all-namespaces")
    for ns in namespaces:
        args += ["--namespace", ns]
    args += ["-m", HANDLER_MODULE]
    try:
        importlib.import_module("recall_operator.handlers.execution")
        args += ["-m", "recall_operator.handlers.execution"]
    except ModuleNotFoundError as exc:
        if exc.name != "recall_operator.handlers.execution":
            raise
    return args


def operator_env(memory: MemorySettings) -> dict[str, str]:
    """The environment that names the memory backend for an operator started by `operator_args`."""
    return {ENV_BACKEND: memory.backend, ENV_PATH: memory.path, ENV_HINDSIGHT_URL: memory.hindsight_url}


def _bridge_serve() -> Any:
    """The alert bridge's `serve`, when that part is installed."""
    try:
        module = importlib.import_module("recall_operator.bridge.server")
    except ModuleNotFoundError:
        return None
    return getattr(module, "serve", None)


def bridge_namespace(args: argparse.Namespace) -> str:
    """Where alerts become Incidents: the one named, else the first watched namespace."""
    if args.bridge_namespace:
        return str(args.bridge_namespace)
    return str(args.namespace[0]) if args.namespace else "default"


async def run_operator(args: argparse.Namespace) -> None:
    load_all()
    memory = MemorySettings(backend=args.memory, path=args.memory_path)
    if args.hindsight_url:
        memory.hindsight_url = args.hindsight_url
    tasks = []
    if args.bridge_port is not None:
        serve = _bridge_serve()
        if serve is None:
            logging.warning("--bridge-port given, but the alert bridge is not installed; running without it")
        else:
            bridge_ns = bridge_namespace(args)
            logging.info(f"the alert bridge opens Incidents in namespace {bridge_ns}")
            tasks.append(asyncio.create_task(
                serve(args.bridge_port, bridge_ns, args.bridge_host, token_file=args.bridge_token_file,
                      panel_url=args.panel_url)))
    # metrics: /metrics, /healthz and /readyz on --metrics-port (see recall_operator.metrics).
    memo = kopf.Memo(memory_settings=memory)
    ready = asyncio.Event()
    # Kopf's own record of the kinds and namespaces it watches; /readyz lists each once.
    # Kopf does not export the class, so it is taken from where Kopf keeps it.
    from kopf._cogs.structs.references import Insights

    insights = Insights()
    if args.metrics_port is not None:
        metrics.count_handler_errors()
        tasks.append(asyncio.create_task(metrics.serve(args.metrics_port, ready, memo, insights=insights)))
    if args.panel_port is not None:
        # panel: the read-only memory panel, reading with the operator's own identity.
        from recall_operator.panel.server import serve as panel_serve

        shown = [] if args.all_namespaces else list(args.namespace)
        tasks.append(asyncio.create_task(panel_serve(args.panel_port, shown, args.panel_host)))
    operator = kopf.operator(
        standalone=args.peering is None,
        peering_name=args.peering,
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


def loopback_only(host: str) -> bool:
    """Whether binding `host` keeps the port on this machine (an empty host binds every address)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


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
    p.add_argument("--memory", choices=["embedded", "hindsight"], default=os.environ.get(ENV_BACKEND, "embedded"))
    p.add_argument("--memory-path", default=os.environ.get(ENV_PATH, "recall-memory.sqlite3"),
                   help="the embedded store's SQLite file")
    p.add_argument("--hindsight-url", default=os.environ.get(ENV_HINDSIGHT_URL))
    p.add_argument("--bridge-port", type=int, default=None, help="serve the Alertmanager webhook on this port")
    p.add_argument("--bridge-host", default="127.0.0.1",
                   help="the address the bridge binds (default 127.0.0.1; 0.0.0.0 in a pod, so that a Service "
                        "reaches it); any address but loopback needs --bridge-token-file")
    p.add_argument("--bridge-token-file", default=None,
                   help="a file holding the bearer token POST /alerts must carry (a mounted Secret); "
                        "re-read when it changes")
    p.add_argument("--bridge-namespace", default=None,
                   help="where the bridge opens Incidents (default: the first --namespace; with -A, 'default')")
    p.add_argument("--metrics-port", type=int, default=None,
                   help="serve /metrics (Prometheus), /healthz (liveness) and /readyz (readiness) on this port")
    p.add_argument("--panel-port", type=int, default=None,
                   help="serve the read-only memory panel on this port (off by default)")
    p.add_argument("--panel-url", default=None,
                   help="the memory panel's address as people reach it (http or https); the bridge writes each "
                        "new Incident's page, BASE/ns/NAMESPACE/incidents/NAME, into recall.dev/panel-url")
    p.add_argument("--panel-host", default="127.0.0.1",
                   help="the address the panel binds (default 127.0.0.1: reach it with kubectl port-forward)")
    p.add_argument("--log-format", choices=logs.FORMATS, default="text",
                   help="text, or json: one object per line with time, level, logger, message, incident")
    p.add_argument("--peering", default=None,
                   help="a KopfPeering name: run as one of several replicas (default: standalone)")
    p.add_argument("--verbose", "-v", action="store_true")
    p.set_defaults(func=main)


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
    problem = bridge_exposure_problem(args)
    if problem:
        print(f"recall run: {problem}", file=sys.stderr)
        return 2
    logs.configure(args.log_format, logging.DEBUG if args.verbose else logging.INFO)
    try:
        asyncio.run(run_operator(args))
    except KeyboardInterrupt:
        pass
    return 0
