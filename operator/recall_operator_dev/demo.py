"""`recall demo`: the whole loop on a local control plane, in one command, as on-call lives it.

It builds (the first time) and starts the local cluster, runs the operator
(`recall run`, embedded memory in the demo folder), and replays a small
incident history as a team would have lived it (catalog first, then each past
incident with its confirmed outcome, which the operator consolidates into
memory). Then it walks one page to its end, printing each command a person
types and its real output: the on-call engineer opens an incident, reads
`kubectl recall why` and the dry-run the operator ran, a second person
approves the exact plan with `kubectl recall approve` (impersonated with
`--as`, so the API server signs the Approval with that name), the step Jobs
run (kwok plays the kubelet), `kubectl recall resolve` records the outcome,
the runbook's record moves in `kubectl get runbooks`, and the same page, sent
again, comes back with more confidence. Every wait is bounded and named; on a
timeout the incident's status conditions are printed and the exit code is 1.

The history shipped in `samples/` is used; any dataset in the replay format
can be given instead.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recall_operator_dev.processes import stop

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


def consolidated(kubectl: Kubectl, namespace: str, name: str) -> Any:
    """When the incident's outcome went into memory (falsy until then)."""
    return (incident_status(kubectl, namespace, name).get("memory") or {}).get("consolidated")


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
            try:
                wait_for(f"incident {name} to be consolidated into memory",
                         functools.partial(consolidated, kubectl, namespace, name), timeout)
            except TimeoutError as exc:
                raise TimeoutError(f"{exc}\n{incident_reason(kubectl, namespace, name)}") from None
        if progress:
            progress(f"{kind:<22} {name}")


# How a history's action names a runbook it ran: "run runbook NAME".
_RAN_RUNBOOK = re.compile(r"\brunbook ([a-z0-9](?:[-a-z0-9.]*[a-z0-9])?)")


def imported_execution(outcome: dict[str, Any]) -> dict[str, Any] | None:
    """The status.execution an imported outcome stands on: the history's confirmed record of the run.

    The operator counts a runbook's success only where status.execution says it
    ran that runbook for the incident (domain.consolidation); a history is
    that record for incidents from before the operator, so the importer (an
    administrator: nobody else may write status) writes it as such.
    """
    runbook = outcome.get("runbook")
    if not runbook:
        # No runbook resolved it: the run the history records is the last one that failed or ran in part
        # ("run runbook NAME": failed). Without it the operator takes that failure for a claim, counted nowhere.
        tried = [m.group(1) for a in outcome.get("actions") or [] if a.get("result") in ("failed", "partial")
                 and (m := _RAN_RUNBOOK.search(str(a.get("action") or "")))]
        runbook = tried[-1] if tried else None
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


def project_file(relative: str) -> Path:
    """A file the project ships beside the package (samples/, manifests/): the demo runs from a checkout."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent / relative
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"{relative} is not next to the installed package; run the demo from a checkout")


def sample_history() -> Path:
    """The history shipped with the project (samples/history.jsonl)."""
    try:
        return project_file("samples/history.jsonl")
    except FileNotFoundError:
        raise FileNotFoundError("samples/history.jsonl is not next to the installed package; pass --history") from None


# -- the walk --------------------------------------------------------------------

# The people of the walk. The on-call engineer opens the incident and records
# its outcome; another person approves, since the approval rules refuse an
# approval from whoever opened the incident (four-eyes). kubectl impersonates
# them (--as), so the API server signs their objects with these names.
ON_CALL = "bob"
APPROVER = "alice"
OPENED_BY = "recall.dev/opened-by"
# The chart's roles the two are bound to in the demo namespace (manifests/rbac.yaml).
ROLES = {ON_CALL: ("recall-responder", "recall-viewer"), APPROVER: ("recall-approver", "recall-viewer")}
# The admission policy that makes an Approval's approver the user who created it (manifests/admission.yaml).
APPROVAL_IDENTITY_POLICY = "recall-approval-identity"

# Every wait of the walk is bounded; these are generous for a 2-core machine
# (kwok finishes a step's pod in about a second).
RECOMMENDATION_S = 120.0
DRY_RUN_S = 180.0
RUN_S = 300.0
OUTCOME_S = 120.0
STEP_COMMAND_S = 150.0  # kubectl recall approve waits up to 60 s for the operator's verdict itself

class DemoFailure(RuntimeError):
    """A step of the walk did not happen; the message says which and why."""


def _say(text: str = "") -> None:
    print(text, flush=True)


def incident_reason(kubectl: Kubectl, namespace: str, name: str) -> str:
    """What the Incident's status says about where it stands: its phase, conditions, dry-run and execution."""
    proc = kubectl("get", "incident", name, "-n", namespace, "-o", "json")
    if proc.returncode != 0:
        return f"incident {name}: cannot be read ({proc.stderr.strip()})"
    status = json.loads(proc.stdout).get("status") or {}
    lines = [f"incident {name}'s status:"]
    if status.get("phase"):
        lines.append(f"  phase: {status['phase']}")
    for c in status.get("conditions") or []:
        lines.append(f"  condition {c.get('type')}={c.get('status')} ({c.get('reason') or '-'}): {c.get('message') or ''}")
    dry = status.get("dryRun") or {}
    for step in dry.get("steps") or []:
        lines.append(f"  dry-run step {step.get('name')}: {step.get('result')} {step.get('reason') or ''}".rstrip())
    ex = status.get("execution") or {}
    if ex:
        lines.append(f"  execution: {ex.get('state')}: {ex.get('reason') or ''}".rstrip(": "))
        for step in ex.get("steps") or []:
            lines.append(f"  run step {step.get('name')}: {step.get('result')} {step.get('reason') or ''}".rstrip())
    if len(lines) == 1:
        lines.append("  (empty: the operator has written nothing; is it running? see its log)")
    return "\n".join(lines)


def bounded_wait(what: str, check: Callable[[], Any], timeout: float, explain: Callable[[], str]) -> Any:
    """wait_for, saying what it waits for; on a timeout a DemoFailure carries `explain()` (the status)."""
    _say(f"   (waiting for {what}, at most {timeout:.0f} s)")
    try:
        return wait_for(what, check, timeout, interval=0.5)
    except TimeoutError as exc:
        raise DemoFailure(f"{exc}\n{explain()}") from None


def recurrence_name(name: str, taken: Iterable[str]) -> str:
    """The next incident number (inc-010 -> inc-011), or NAME-again when the name has none or it is taken."""
    taken = set(taken)
    head = name.rstrip("0123456789")
    digits = name[len(head):]
    if digits:
        candidate = f"{head}{int(digits) + 1:0{len(digits)}d}"
        if candidate not in taken:
            return candidate
    return f"{name}-again"


def recurrence_of(manifest: dict[str, Any], name: str) -> dict[str, Any]:
    """The same page again, later: the spec unchanged but its start time, so any change in score is memory's."""
    obj = json.loads(json.dumps(manifest))
    obj["metadata"] = {"name": name}
    obj["spec"]["startedAt"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return obj


def runbook_record(kubectl: Kubectl, namespace: str, name: str) -> dict[str, Any]:
    proc = kubectl("get", "runbook", name, "-n", namespace, "-o", "json")
    return (json.loads(proc.stdout).get("status") or {}) if proc.returncode == 0 else {}


def _manifests(relative: str, keep: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
    import yaml

    docs = yaml.safe_load_all(project_file(relative).read_text(encoding="utf-8"))
    return [d for d in docs if isinstance(d, dict) and keep(d)]


def grant_people(kubectl: Kubectl, namespace: str) -> None:
    """The chart's approver, responder and viewer roles, bound to the demo's two people in its namespace,
    and the policy that signs an Approval with its creator's name: the people act with the rights the
    chart gives them, not as the cluster's administrator."""
    wanted = {role for roles in ROLES.values() for role in roles}
    objects = _manifests("manifests/rbac.yaml",
                         lambda d: d.get("kind") == "ClusterRole" and d["metadata"]["name"] in wanted)
    objects += _manifests("manifests/admission.yaml",
                          lambda d: d["metadata"].get("name") == APPROVAL_IDENTITY_POLICY)
    for person, roles in ROLES.items():
        for role in roles:
            objects.append({
                "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                "metadata": {"name": f"{role}-{person}", "namespace": namespace},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
                "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": person}],
            })
    kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}), check=True)


class Terminal:
    """Runs what a person types (kubectl, and the kubectl recall plugin on PATH) and prints it with its output."""

    def __init__(self, kubectl_dir: Path, kubeconfig: Path, namespace: str, cwd: Path) -> None:
        # The plugin installed with this package, before any other kubectl-recall on PATH.
        beside = Path(sys.executable).with_name("kubectl-recall")
        plugin = str(beside) if beside.exists() else (shutil.which("kubectl-recall") or str(beside))
        path = os.pathsep.join([str(kubectl_dir), str(Path(plugin).parent), os.environ.get("PATH", "")])
        self.env = {**os.environ, "KUBECONFIG": str(kubeconfig), "PATH": path}
        self.kubectl = str(kubectl_dir / "kubectl")
        self.namespace = namespace
        self.cwd = cwd  # the demo folder: the incident files are named as a person there would name them

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        _say(f"\n$ kubectl {shlex.join(args)}")
        try:
            proc = subprocess.run([self.kubectl, *args], env=self.env, cwd=self.cwd, capture_output=True, text=True,
                                  stdin=subprocess.DEVNULL, timeout=STEP_COMMAND_S)
        except subprocess.TimeoutExpired:
            raise DemoFailure(f"`kubectl {shlex.join(args)}` did not finish in {STEP_COMMAND_S:.0f} s") from None
        for text in (proc.stdout, proc.stderr):
            if text.strip():
                _say(text.rstrip("\n"))
        if check and proc.returncode != 0:
            raise DemoFailure(f"`kubectl {shlex.join(args)}` failed (exit {proc.returncode})")
        return proc


def _yaml(obj: dict[str, Any]) -> str:
    import yaml

    return yaml.safe_dump(obj, sort_keys=False, width=100)


def open_incident(term: Terminal, directory: Path, manifest: dict[str, Any], person: str) -> str:
    """The person on call opens the incident from a file, as themselves (the opener the approval rules read)."""
    obj = json.loads(json.dumps(manifest))
    obj["metadata"].setdefault("annotations", {})[OPENED_BY] = person
    name = obj["metadata"]["name"]
    path = directory / f"{name}.yaml"
    path.write_text(_yaml(obj), encoding="utf-8")
    _say(f"   {path.name}: {obj['spec'].get('service')}: {obj['spec'].get('title')}")
    term.run("create", "-n", term.namespace, "--as", person, "-f", path.name)
    return name


def _failed_step(dry_run: dict[str, Any]) -> bool:
    """A dry-run step failed: nothing of the plan may run, so there is no point waiting for the others."""
    return any(step.get("result") == "failed" for step in dry_run.get("steps") or [])


def walk(kubectl: Kubectl, term: Terminal, directory: Path, new: dict[str, Any], taken: Iterable[str]) -> int:
    """Page, why, dry-run, approve, Jobs, resolve, win rate, recurrence: each as on-call would see it."""
    from recall_operator.domain.execution import TERMINAL
    from recall_operator.kube import jobs as jobkit

    ns = term.namespace
    name = new["metadata"]["name"]

    def explain(incident: str) -> Callable[[], str]:
        return lambda: incident_reason(kubectl, ns, incident)

    def recommendation(incident: str) -> dict[str, Any]:
        return bounded_wait(
            f"the operator's recommendation on {incident}",
            lambda: (r := incident_status(kubectl, ns, incident).get("recommendation") or {}).get("mode") and r,
            RECOMMENDATION_S, explain(incident))

    _say(f"\n== a page: {ON_CALL}, on call, opens {name}")
    open_incident(term, directory, new, ON_CALL)
    started = time.monotonic()
    first = recommendation(name)
    _say(f"   recommended in {time.monotonic() - started:.1f} s: {first['mode']}, similarity {first.get('similarity')},"
         f" actionability {first.get('actionability')}, runbook {first.get('runbook') or 'none'}")
    if first["mode"] != "actionable" or not first.get("planHash"):
        term.run("get", "incident", name, "-n", ns)
        term.run("recall", "why", name, "-n", ns)
        _say(f"\n== {name} is {first['mode']}: there is no plan to approve, so the walk ends here;"
             " on call acts by hand and records the outcome with kubectl recall resolve")
        return 0
    plan = first["planHash"]

    _say(f"\n== why: the operator dry-runs plan {plan} by itself; {ON_CALL} reads the evidence and the dry-run")
    dry = bounded_wait(
        f"the dry-run Jobs of plan {plan} to finish",
        lambda: (d := incident_status(kubectl, ns, name).get("dryRun") or {}).get("planHash") == plan
        and (d.get("done") or _failed_step(d)) and d,
        DRY_RUN_S, explain(name))
    term.run("get", "incident", name, "-n", ns)
    term.run("recall", "why", name, "-n", ns)
    term.run("get", "jobs", "-n", ns, "-l", f"{jobkit.incident_selector(name)},{jobkit.LABEL_PHASE}=dryrun")
    if not dry.get("ok") or _failed_step(dry):
        raise DemoFailure(f"the dry-run of plan {plan} failed; nothing may run\n{incident_reason(kubectl, ns, name)}")

    _say(f"\n== approve: {APPROVER} approves exactly plan {plan} ({ON_CALL} opened the incident,"
         " so four-eyes wants someone else)")
    term.run("recall", "approve", name, "-n", ns, "--as", APPROVER, "--yes",
             "--reason", "the dry-run is clean and the precedents were fixed the same way", "--wait", "60")
    term.run("get", "approvals", "-n", ns)
    execution = bounded_wait(
        f"the step Jobs of plan {plan} to finish",
        lambda: (e := incident_status(kubectl, ns, name).get("execution") or {}).get("state") in TERMINAL and e,
        RUN_S, explain(name))
    term.run("get", "jobs", "-n", ns, "-l", f"{jobkit.incident_selector(name)},{jobkit.LABEL_PHASE}=run")
    term.run("get", "incident", name, "-n", ns)
    if execution.get("state") != "Succeeded":
        raise DemoFailure(f"the run of plan {plan} ended {execution.get('state')}\n{incident_reason(kubectl, ns, name)}")

    runbook = first["runbook"]
    before = runbook_record(kubectl, ns, runbook)
    _say(f"\n== resolve: {ON_CALL} records what happened; memory and {runbook}'s record take it")
    term.run("get", "runbooks", "-n", ns)
    best = ((incident_status(kubectl, ns, name).get("matches") or [{}])[0]).get("incident") or "the precedents"
    term.run("recall", "resolve", name, "-n", ns, "--as", ON_CALL,
             "--root-cause", f"the same failure as {best}",
             "--summary", f"approved runbook {runbook} after a clean dry-run; its steps ran and"
                          f" {new['spec'].get('service')} recovered",
             "--runbook", runbook, "--action", f"run runbook {runbook}=succeeded")
    executed = int(before.get("timesExecuted") or 0)
    bounded_wait(
        f"{name}'s outcome in memory and in {runbook}'s record",
        lambda: (incident_status(kubectl, ns, name).get("memory") or {}).get("consolidated")
        and int(runbook_record(kubectl, ns, runbook).get("timesExecuted") or 0) > executed,
        OUTCOME_S, explain(name))
    after = runbook_record(kubectl, ns, runbook)
    term.run("get", "runbooks", "-n", ns)
    _say(f"   {runbook}: executed {executed} -> {after.get('timesExecuted')},"
         f" succeeded {before.get('timesSucceeded') or 0} -> {after.get('timesSucceeded')},"
         f" win rate {before.get('winRate')} -> {after.get('winRate')}")

    again = recurrence_name(name, taken)
    _say(f"\n== the same page again: {ON_CALL} opens {again}")
    open_incident(term, directory, recurrence_of(new, again), ON_CALL)
    second = recommendation(again)
    if second.get("planHash"):
        # The operator dry-runs the recurrence's plan by itself too: the table then shows it ready to approve.
        bounded_wait(
            f"the dry-run Jobs of {again}'s plan to finish",
            lambda: (d := incident_status(kubectl, ns, again).get("dryRun") or {}).get("planHash")
            == second["planHash"] and (d.get("done") or _failed_step(d)),
            DRY_RUN_S, explain(again))
    term.run("get", "incidents", "-n", ns)
    for label, who, rec in (("before the loop", name, first), ("after it", again, second)):
        _say(f"\n   {label + ',':<17}{who}: {rec['mode']}, similarity {rec.get('similarity')},"
             f" actionability {rec.get('actionability')}, runbook {rec.get('runbook') or 'none'}")
        _say("\n".join(f"   {'':<17}- {r}" for r in rec.get("reasons") or []))
    if second.get("runbook") != runbook or int(second.get("actionability") or 0) <= int(first.get("actionability") or 0):
        raise DemoFailure(f"{again} did not come back with more confidence in {runbook} than {name} had\n"
                          + incident_reason(kubectl, ns, again))
    _say(f"   memory took the outcome in: the same page is now more actionable"
         f" ({first.get('actionability')} -> {second.get('actionability')})")
    return 0


def control_plane_binaries() -> None:
    """Build, the first time, only what the demo runs (scripts/testbin.sh demo), and point the cluster at it.

    Without this the cluster would ask for the full build, chart validators included.
    """
    from recall_operator_dev.cluster import ClusterError, repo_root

    if os.environ.get("RECALL_TESTBIN"):
        return
    root = repo_root()
    if root is None:
        return  # not a checkout: LocalCluster says which binaries it lacks
    # stderr is the person's terminal: the build reports what it builds and how far along it is.
    proc = subprocess.run(["bash", str(root / "scripts" / "testbin.sh"), "demo"], cwd=root,
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True, check=False)
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    if proc.returncode != 0 or not lines:
        raise ClusterError(f"scripts/testbin.sh demo failed (exit {proc.returncode})")
    os.environ["RECALL_TESTBIN"] = lines[-1]


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


def main(args: argparse.Namespace) -> int:
    from recall_operator_dev.cluster import ClusterError, LocalCluster
    from recall_operator.kube.jobs import DEFAULT_SERVICE_ACCOUNT

    history = args.history or sample_history()
    events = read_history(history)
    new_name = args.new or next(
        e["object"]["metadata"]["name"] for e in reversed(events) if e["type"] == "incident"
    )
    steps, new = history_steps(events, stop_before=new_name)
    if new is None:
        print(f"recall demo: no incident {new_name} in {history}", file=sys.stderr)
        return 2

    directory = (args.dir or Path(tempfile.mkdtemp(prefix="recall-demo-"))).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    cluster = LocalCluster(directory / "cluster")
    _say(f"== starting the local control plane in {directory / 'cluster'}")
    try:
        control_plane_binaries()
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
        # The identity step Jobs run as; without it the Job controller cannot create their pods.
        kubectl("create", "serviceaccount", DEFAULT_SERVICE_ACCOUNT, "-n", DEMO_NAMESPACE)
        grant_people(kubectl, DEMO_NAMESPACE)
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
        (directory / "operator.pid").write_text(f"{operator.pid}\n", encoding="utf-8")
        _say(f"== loading the history from {history.name}: catalog, then past incidents with their outcomes")
        load_history(kubectl, DEMO_NAMESPACE, steps, progress=lambda s: _say(f"   {s}"))
        _say(f"== to type along: cd {directory}; export KUBECONFIG={cluster.kubeconfig}")
        term = Terminal(cluster.testbin, cluster.kubeconfig, DEMO_NAMESPACE, directory)
        taken = [s.manifest["metadata"]["name"] for s in steps if s.kind == "incident"] + [new_name]
        code = walk(kubectl, term, directory, new, taken)
        if args.keep:
            _say(f"\n== left running: export KUBECONFIG={cluster.kubeconfig}; the operator is pid {operator.pid}")
            _say(f"   stop with: kill $(cat {directory / 'operator.pid'}); recall cluster down --dir {directory / 'cluster'}")
            if hindsight is not None:
                _say(f"   and: recall hindsight down --dir {hindsight.workdir}")
            operator = None
            hindsight = None
        return code
    except DemoFailure as exc:
        print(f"\nrecall demo: {exc}\n(the operator's log: {directory / 'operator.log'})", file=sys.stderr)
        return 1
    except (TimeoutError, subprocess.CalledProcessError, FileNotFoundError) as exc:
        detail = getattr(exc, "stderr", None) or ""
        print(f"\nrecall demo: {exc} {detail}\n(the operator's log: {directory / 'operator.log'})", file=sys.stderr)
        return 1
    finally:
        if operator is not None:
            stop(operator)
        log.close()
        if hindsight is not None:
            hindsight.stop()
            hindsight.save_state()
        if not args.keep:
            cluster.down()
