"""`recall panel`: the memory panel, a read-only web page of the evidence behind each recommendation.

It reads Incidents, Runbooks, Contradictions, ArchitectureMigrations,
Approvals and Jobs through the Kubernetes API with the identity it runs as
(the kubeconfig's user, or the pod's ServiceAccount) and never writes. Also
served by `recall run --panel-port N`, beside the operator.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from typing import Any

from recall_operator.ports import port_number

DEFAULT_PORT = 8090


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("panel", help="the read-only memory panel: the evidence behind each recommendation")
    p.add_argument("--port", type=port_number, default=DEFAULT_PORT, help=f"listen on this port (default {DEFAULT_PORT})")
    p.add_argument("--host", default="127.0.0.1",
                   help="the loopback address to bind (default 127.0.0.1; the panel has no login)")
    p.add_argument("--namespace", "-n", action="append", default=[],
                   help="show this namespace (repeatable; default: every namespace the identity may list)")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from recall_operator.panel.server import PANEL_HOST_PROBLEM, serve
    from recall_operator.ports import loopback_only

    if not loopback_only(args.host):
        print(f"recall panel: --host {args.host or '(every address)'} {PANEL_HOST_PROBLEM}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    print(f"recall panel: http://{args.host}:{args.port}/incidents (read-only)", file=sys.stderr, flush=True)
    try:
        asyncio.run(serve(args.port, args.namespace, args.host))
    except KeyboardInterrupt:
        pass
    return 0

