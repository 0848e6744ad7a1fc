"""`recall demo`: the whole loop on a local control plane, in one command.

It starts the local cluster, runs the operator (`recall run`, embedded memory
in the demo folder), replays a small incident history as a team would have
lived it (catalog first, then each past incident with its confirmed outcome,
which the operator consolidates into memory), then opens a new incident and
shows what `kubectl` shows. The history shipped in `samples/` is used; any
dataset in the replay format can be given instead.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Kubectl = Callable[..., "subprocess.CompletedProcess[str]"]

DEMO_NAMESPACE = "recall-demo"
# creationTimestamp has a resolution of one second: a migration applied in the
# same second as the last consolidation would not count as later than it.
TIMESTAMP_RESOLUTION_S = 1.1


@dataclass(frozen=True)
class Step:
    kind: str  # "apply" or "incident"
    manifest: dict[str, Any]


def read_history(path: Path) -> list[dict[str, Any]]:
    events = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            events.append(json.loads(line))
    return events


def history_steps(events: Iterable[dict[str, Any]], stop_before: str | None = None) -> tuple[list[Step], dict[str, Any] | None]:
    """What to create, in order, to stand where the history stood just before `stop_before` paged.

    A past incident is created with its confirmed outcome in spec.resolution
    (the operator consolidates it); one whose outcome came only later, or
    never, is left out, as the team did not know its outcome then. Returns the
    steps and the manifest of `stop_before` (without its outcome), if named.
    """
    events = list(events)
    cut = len(events)
    if stop_before is not None:
        cut = next(
            (i for i, e in enumerate(events) if e["type"] == "incident" and e["object"]["metadata"]["name"] == stop_before),
            len(events),
        )
    outcomes = {e["incident"]: e["resolution"] for e in events[:cut] if e["type"] == "outcome"}
    steps: list[Step] = []
    for e in events[:cut]:
        if e["type"] == "apply":
            steps.append(Step("apply", e["object"]))
        elif e["type"] == "incident":
            name = e["object"]["metadata"]["name"]
            if name in outcomes:
                obj = json.loads(json.dumps(e["object"]))
                obj["spec"]["resolution"] = outcomes[name]
                steps.append(Step("incident", obj))
    new = None
    if cut < len(events):
        new = json.loads(json.dumps(events[cut]["object"]))
    return steps, new


def apply(kubectl: Kubectl, namespace: str, manifest: dict[str, Any]) -> None:
    obj = json.loads(json.dumps(manifest))
    obj.setdefault("metadata", {})["namespace"] = namespace
    kubectl("apply", "-f", "-", input=json.dumps(obj), check=True)


def incident_status(kubectl: Kubectl, namespace: str, name: str) -> dict[str, Any]:
    proc = kubectl("get", "incident", name, "-n", namespace, "-o", "json")
    if proc.returncode != 0:
        return {}
    return json.loads(proc.stdout).get("status") or {}


def wait_for(what: str, check: Callable[[], Any], timeout: float = 120.0, interval: float = 0.2) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"gave up waiting for {what} after {timeout:.0f} s")
        time.sleep(interval)


def load_history(kubectl: Kubectl, namespace: str, steps: Iterable[Step], timeout: float = 120.0,
                 progress: Callable[[str], None] | None = None) -> None:
    """Create the steps in order; each past incident is consolidated before the next thing happens.

    Waiting keeps the history's order in memory (a later outcome is newer
    there too) and puts a migration after the outcomes it makes stale.
    """
    for step in steps:
        kind, name = step.manifest["kind"], step.manifest["metadata"]["name"]
        if kind == "ArchitectureMigration":
            time.sleep(TIMESTAMP_RESOLUTION_S)
        outcome = step.manifest["spec"].get("resolution") if step.kind == "incident" else None
        if outcome is None:
            apply(kubectl, namespace, step.manifest)
        else:
            import_outcome(kubectl, namespace, step.manifest, outcome)
        if step.kind == "incident":
            wait_for(
                f"incident {name} to be consolidated into memory",
                lambda n=name: (incident_status(kubectl, namespace, n).get("memory") or {}).get("consolidated"),
                timeout,
            )
        if progress:
            progress(f"{kind:<22} {name}")


def imported_execution(outcome: dict[str, Any]) -> dict[str, Any] | None:
    """The status.execution an imported outcome stands on: the history's confirmed record of the run.

    The operator counts a runbook's success only where status.execution says it
    ran that runbook for the incident (domain.consolidation); a history is
    that record for incidents from before the operator, so the importer (an
    administrator: nobody else may write status) writes it as such.
    """
    runbook = outcome.get("runbook")
    if not runbook:
        return None
    results = [a.get("result") for a in outcome.get("actions") or [] if runbook in str(a.get("action") or "")]
    result = results[-1] if results else "succeeded"
    return {"runbook": runbook, "state": "Succeeded" if result == "succeeded" else "Failed",
            "imported": "the history's confirmed record", "steps": [{"name": "imported", "result": result}]}


def import_outcome(kubectl: Kubectl, namespace: str, manifest: dict[str, Any], outcome: dict[str, Any]) -> None:
    """A past incident: created open, its run recorded in status, then its outcome (memory takes it then)."""
    opened = json.loads(json.dumps(manifest))
    opened["spec"].pop("resolution", None)
    apply(kubectl, namespace, opened)
    execution = imported_execution(outcome)
    name = manifest["metadata"]["name"]
    if execution is not None:
        kubectl("patch", "incident", name, "-n", namespace, "--subresource=status", "--type=merge",
                "-p", json.dumps({"status": {"execution": execution}}), check=True)
    kubectl("patch", "incident", name, "-n", namespace, "--type=merge",
            "-p", json.dumps({"spec": {"resolution": outcome}}), check=True)


def sample_history() -> Path:
    """The history shipped with the project (samples/history.jsonl)."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent / "samples" / "history.jsonl"
        if candidate.is_file():
            return candidate
    raise FileNotFoundError("samples/history.jsonl is not next to the installed package; pass --history")


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("demo", help="the whole loop on a local control plane, with a sample history")
    p.add_argument("--dir", type=Path, default=None, help="cluster and memory folder (default: a temporary one)")
    p.add_argument("--keep", action="store_true", help="leave the cluster and the operator running")
    p.add_argument("--history", type=Path, default=None, help="a replay-format history (default: samples/history.jsonl)")
    p.add_argument("--new", default=None, help="the incident of the history to open as new (default: the last one)")
    p.add_argument("--memory", choices=["embedded", "hindsight"], default="embedded",
                   help="hindsight: the production memory; a local offline server is started in --dir "
                        "unless --hindsight-url names one")
    p.add_argument("--hindsight-url", default=None, help="a running Hindsight server (see `recall hindsight up`)")
    p.set_defaults(func=main)


def _say(text: str) -> None:
    print(text, flush=True)


def main(args: argparse.Namespace) -> int:
    from recall_operator.cluster import ClusterError, LocalCluster

    history = args.history or sample_history()
    events = read_history(history)
    new_name = args.new or next(
        e["object"]["metadata"]["name"] for e in reversed(events) if e["type"] == "incident"
    )
    steps, new = history_steps(events, stop_before=new_name)
    if new is None:
        print(f"recall demo: no incident {new_name} in {history}", file=sys.stderr)
        return 2

    directory = args.dir or Path(tempfile.mkdtemp(prefix="recall-demo-"))
    directory.mkdir(parents=True, exist_ok=True)
    cluster = LocalCluster(directory / "cluster")
    _say(f"== starting the local control plane in {directory / 'cluster'}")
    try:
        cluster.up(timeout=300)
        cluster.install_crds()
    except ClusterError as exc:
        print(f"recall demo: the local control plane did not start: {exc}", file=sys.stderr)
        return 1
    kubectl = cluster.kubectl
    operator = None
    hindsight = None
    log = (directory / "operator.log").open("w")
    try:
        kubectl("create", "namespace", DEMO_NAMESPACE)
        env = {**os.environ, "KUBECONFIG": str(cluster.kubeconfig)}
        memory_path = directory / "memory.sqlite3"
        memory_args = ["--memory", "embedded", "--memory-path", str(memory_path)]
        where = f"embedded memory in {memory_path}"
        if args.memory == "hindsight":
            url = args.hindsight_url
            if url is None:
                from recall_operator.memory.hindsight_server import HindsightServer, HindsightServerError

                # The database runs as an unprivileged user, who must reach its folder through this one.
                directory.chmod(directory.stat().st_mode | 0o011)
                hindsight = HindsightServer.in_folder(directory / "hindsight")
                if not hindsight.running:
                    _say(f"== starting a local Hindsight server in {hindsight.workdir} (about half a minute)")
                    try:
                        hindsight.start()
                    except HindsightServerError as exc:
                        print(f"recall demo: the Hindsight server did not start: {exc}", file=sys.stderr)
                        return 1
                    hindsight.save_state()
                url = hindsight.url
            memory_args = ["--memory", "hindsight", "--hindsight-url", url]
            where = f"Hindsight at {url}"
        _say(f"== starting the operator ({where}; log in {directory / 'operator.log'})")
        operator = subprocess.Popen(
            [sys.executable, "-m", "recall_operator.cli", "run", "--namespace", DEMO_NAMESPACE, *memory_args],
            env=env, stdout=log, stderr=subprocess.STDOUT,
        )
        _say(f"== loading the history from {history.name}: catalog, then past incidents with their outcomes")
        load_history(kubectl, DEMO_NAMESPACE, steps, progress=lambda s: _say(f"   {s}"))
        _say(f"== a new incident pages: {new_name}")
        started = time.monotonic()
        apply(kubectl, DEMO_NAMESPACE, new)
        wait_for(
            "the recommendation",
            lambda: (incident_status(kubectl, DEMO_NAMESPACE, new_name).get("recommendation") or {}).get("mode"),
        )
        _say(f"   recommendation in status after {time.monotonic() - started:.2f} s")
        _say("\n$ kubectl get incidents")
        _say(kubectl("get", "incidents", "-n", DEMO_NAMESPACE).stdout)
        _say("$ kubectl get runbooks")
        _say(kubectl("get", "runbooks", "-n", DEMO_NAMESPACE).stdout)
        _say(f"$ kubectl describe incident {new_name}")
        _say(kubectl("describe", "incident", new_name, "-n", DEMO_NAMESPACE).stdout)
        if args.keep:
            _say(f"== left running: export KUBECONFIG={cluster.kubeconfig}; the operator is pid {operator.pid}")
            _say(f"   stop with: kill {operator.pid}; recall cluster down --dir {directory / 'cluster'}")
            if hindsight is not None:
                _say(f"   and: recall hindsight down --dir {hindsight.workdir}")
            operator = None
            hindsight = None
        return 0
    except (TimeoutError, subprocess.CalledProcessError) as exc:
        print(f"recall demo: {exc}; see {directory / 'operator.log'}", file=sys.stderr)
        return 1
    finally:
        if operator is not None:
            operator.terminate()
            try:
                operator.wait(timeout=20)
            except subprocess.TimeoutExpired:
                operator.kill()
        log.close()
        if hindsight is not None:
            hindsight.stop()
            hindsight.save_state()
        if not args.keep:
            cluster.down()
