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
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any

import kopf

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
            bridge_ns = args.namespace[0] if args.namespace else "default"
            tasks.append(asyncio.create_task(serve(args.bridge_port, bridge_ns)))
    liveness = f"http://0.0.0.0:{args.metrics_port}/healthz" if args.metrics_port is not None else None
    operator = kopf.operator(
        standalone=args.peering is None,
        peering_name=args.peering,
        clusterwide=args.all_namespaces,
        namespaces=args.namespace or [],
        liveness_endpoint=liveness,
        memo=kopf.Memo(memory_settings=memory),
    )
    try:
        await asyncio.gather(operator, *tasks)
    finally:
        for t in tasks:
            t.cancel()


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("run", help="run the operator against the current kubeconfig")
    p.add_argument("--namespace", "-n", action="append", default=[], help="watch this namespace (repeatable)")
    p.add_argument("--all-namespaces", "-A", action="store_true", help="watch every namespace")
    p.add_argument("--memory", choices=["embedded", "hindsight"], default=os.environ.get(ENV_BACKEND, "embedded"))
    p.add_argument("--memory-path", default=os.environ.get(ENV_PATH, "recall-memory.sqlite3"),
                   help="the embedded store's SQLite file")
    p.add_argument("--hindsight-url", default=os.environ.get(ENV_HINDSIGHT_URL))
    p.add_argument("--bridge-port", type=int, default=None, help="serve the Alertmanager webhook on this port")
    p.add_argument("--metrics-port", type=int, default=None, help="serve the liveness probe (/healthz) on this port")
    p.add_argument("--peering", default=None,
                   help="a KopfPeering name: run as one of several replicas (default: standalone)")
    p.add_argument("--verbose", "-v", action="store_true")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    if not args.namespace and not args.all_namespaces:
        print("recall run: name at least one --namespace, or --all-namespaces", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        asyncio.run(run_operator(args))
    except KeyboardInterrupt:
        pass
    return 0
