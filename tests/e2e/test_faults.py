"""Faults under the running operator: SIGKILL at a boundary, a restarted API server and etcd, an alert storm.

The operator runs as a real subprocess here, so it can be killed the way a
node kills it (SIGKILL: no cleanup, no finalizers, nothing flushed):

- the execution handlers alone (``kopf run -m recall_operator.handlers.execution``,
  the module `recall run` loads) when a test writes the recommendation into
  status itself, as tests/e2e/test_execution.py does; the triage handlers would
  otherwise replace that recommendation with their own;
- the whole operator (``recall run``) when triage or the alert bridge is under test.

What must hold: a step Job that was created just before the kill is found
again by its deterministic name, never made twice; an API server or etcd
restart under the operator is survived (watches reconnect, work finishes);
a storm of concurrent, malformed, oversized and duplicated alerts gives one
Incident per distinct alert, a 4xx for each bad request, and a live operator.
Waits are polls with generous deadlines; nothing is timed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import pytest

import support
from alertmanager import free_port
from kit import STATUS_KEY, KubeEnv, cart_runbook
from recall_operator.bridge.alertmanager import MAX_BODY_BYTES, incident_name
from recall_operator_dev.cluster import LocalCluster
from recall_operator.kube import jobs as jobkit
from support import post_json, stop_process

pytestmark = pytest.mark.integration

DEADLINE = 240.0
INCIDENT = "inc-fault"
INCIDENT_SPEC = {"service": "cart", "title": "cart p99 latency over 2s", "severity": "high",
                 "symptoms": ["latency-spike"]}
RUNBOOK_NAME = "cart-recycle"
RUNBOOK: dict[str, Any] = cart_runbook("snapshot, flush and recycle cart", symptoms=["latency-spike"])
# A control plane that stalls (a fresh etcd's storage initialising on a loaded machine took 78 s once)
# must not fail a step by its deadline here: these tests are about kills and restarts, and
# tests/e2e/test_hangs.py is about deadlines.
for _step in RUNBOOK["steps"]:
    _step["timeoutSeconds"] = 900
STEP_NAMES = [s["name"] for s in RUNBOOK["steps"]]
DRY_RUN_STEPS = [s["name"] for s in RUNBOOK["steps"] if s.get("dryRunCommand")]
ONE_MIB = 1024 * 1024  # padding for a body whose alerts are too many (the bridge refuses by count too)
TERMINAL = ("Succeeded", "Failed", "RolledBack", "Stopped")

# What the faults did, summed over the module and printed at its end (for the report).
TALLY: Counter[str] = Counter()


wait_for = partial(support.wait_for, deadline=DEADLINE)


@pytest.fixture(scope="module", autouse=True)
def tally() -> Iterator[Counter[str]]:
    yield TALLY
    sys.__stderr__.write(f"\nfault tally: {dict(sorted(TALLY.items()))}\n")


class Operator:
    """One operator process; `kill()` is SIGKILL, `start()` a fresh process on the same log."""

    def __init__(self, argv: list[str], env: dict[str, str], log: Path) -> None:
        self.argv, self.env, self.log = argv, env, log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Operator:
        assert self.proc is None or self.proc.poll() is not None
        with open(self.log, "ab") as fh:
            fh.write(b"\n==== start\n")
            self.proc = subprocess.Popen(self.argv, env=self.env, stdout=fh, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, start_new_session=True)
        return self

    def kill(self) -> None:
        assert self.proc is not None and self.proc.poll() is None, self.output()
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)
        TALLY["operator SIGKILLs"] += 1

    def stop(self) -> None:
        if self.proc is not None:
            stop_process(self.proc)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def _env(kubeconfig: Path, tmp: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RECALL_")}
    # The key kit.recommend seals with, kept across a SIGKILL and restart as a Secret would keep it.
    env.update({"KUBECONFIG": str(kubeconfig), "RECALL_MEMORY_BACKEND": "embedded", "RECALL_STATUS_KEY": STATUS_KEY,
                "RECALL_MEMORY_PATH": str(tmp / "memory.sqlite3"), "PYTHONUNBUFFERED": "1", **extra})
    return env


def execution_operator(namespace: str, kubeconfig: Path, tmp: Path, name: str = "exec") -> Operator:
    argv = [sys.executable, "-m", "kopf", "run", "--standalone", "--namespace", namespace,
            "-m", "recall_operator.handlers.execution"]
    return Operator(argv, _env(kubeconfig, tmp, RECALL_ALLOW_SIMULATED_FAILURE="1"), tmp / f"{name}.log")


def recall_operator(namespace: str, kubeconfig: Path, tmp: Path, *extra: str, name: str = "recall") -> Operator:
    argv = [sys.executable, "-m", "recall_operator.cli", "run", "--namespace", namespace,
            "--memory", "embedded", "--memory-path", str(tmp / f"{name}.sqlite3"), *extra]
    return Operator(argv, _env(kubeconfig, tmp), tmp / f"{name}.log")


class Env(KubeEnv):
    def status(self, key: str, incident: str = INCIDENT) -> dict[str, Any]:
        return self.status_field(incident, key)

    def jobs(self, incident: str = INCIDENT) -> list[dict[str, Any]]:
        return self.list_jobs(f"{jobkit.LABEL_INCIDENT}={incident}", check=False)

    def pods(self) -> list[dict[str, Any]]:
        proc = self.kubectl("get", "pods", "-n", self.ns, "-o", "json", check=True)
        return json.loads(proc.stdout)["items"]

    def setup(self, annotations: dict[str, str] | None = None) -> str:
        self.create_runbook(RUNBOOK_NAME, RUNBOOK)
        self.create_incident(INCIDENT, INCIDENT_SPEC, annotations)
        return self.recommend(INCIDENT, INCIDENT_SPEC, RUNBOOK_NAME, RUNBOOK)

    def approve(self, plan_hash: str) -> None:
        self.approve_plan(INCIDENT, "approve-1", plan_hash)

    def dry_run_done(self, plan_hash: str) -> bool:
        dry = self.dry_run_of(INCIDENT, plan_hash)
        # A failed dry-run means the plan never runs: say so now, not after the next wait's deadline.
        assert dry is None or dry.get("ok"), f"the dry-run failed: {dry.get('reason') if dry else ''}"
        return dry is not None

    def finished(self) -> dict[str, Any] | None:
        ex = self.status("execution")
        return ex if ex.get("state") in TERMINAL else None


def assert_each_job_once(env: Env, expected: dict[str, list[str]]) -> None:
    """Exactly the expected (phase, step) Jobs, one each, attempt 1, and each ran exactly one pod."""
    jobs = env.jobs()
    seen = Counter((j["metadata"]["labels"][jobkit.LABEL_PHASE], j["metadata"]["annotations"]["recall.dev/step-name"])
                   for j in jobs)
    want = Counter((phase, step) for phase, steps in expected.items() for step in steps)
    twice = {k: v for k, v in seen.items() if v > 1}
    TALLY["steps run twice"] += sum(v - 1 for v in twice.values())
    assert not twice, f"steps with more than one Job: {twice}"
    assert seen == want, (sorted(seen), sorted(want))
    assert {j["metadata"]["labels"][jobkit.LABEL_ATTEMPT] for j in jobs} == {"1"}
    assert sorted(j["metadata"]["name"] for j in jobs) == sorted(
        jobkit.job_name(INCIDENT, phase, step, 1) for phase, step in want)
    # Each Job ran one pod: the step itself did not run twice either.
    names = {j["metadata"]["name"] for j in jobs}
    pods = Counter(p["metadata"]["labels"].get("job-name") for p in env.pods())
    assert {n: pods[n] for n in names} == dict.fromkeys(names, 1), pods


def _await_job(api: Any, namespace: str, selector: str, deadline: float = DEADLINE) -> str:
    """The name of the first Job matching `selector`, returned the moment it exists.

    A watch from the API server, not a poll, so the kill lands early; by labels, not by the
    name the test would compute, so a Job under an unexpected name is caught too.
    """
    from kubernetes import client, watch

    batch = client.BatchV1Api(api)
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        listing = batch.list_namespaced_job(namespace, label_selector=selector)
        if listing.items:
            return str(listing.items[0].metadata.name)
        w = watch.Watch()
        try:
            for event in w.stream(batch.list_namespaced_job, namespace, label_selector=selector,
                                  resource_version=listing.metadata.resource_version, timeout_seconds=10):
                if event["type"] in ("ADDED", "MODIFIED"):
                    return str(event["object"].metadata.name)
        finally:
            w.stop()
    raise AssertionError(f"timed out waiting for a Job with {selector}")


def kill_when_jobs_appear(env: Env, op: Operator, phase: str, steps: list[str], api: Any) -> int:
    """For each step in turn: watch for its Job, SIGKILL the operator the moment it exists, restart it.

    Returns how many kills landed before the operator had recorded the Job in status.
    """
    before_recorded = 0
    key = "dryRun" if phase == "dryrun" else "execution"
    field = {"dryrun": "steps", "run": "steps", "rollback": "rollbacks"}[phase]
    for step in steps:
        selector = f"{jobkit.LABEL_INCIDENT}={INCIDENT},{jobkit.LABEL_PHASE}={phase},{jobkit.LABEL_STEP}={step}"
        name = _await_job(api, env.ns, selector)
        op.kill()
        assert any(j["metadata"]["name"] == name for j in env.jobs())
        recorded = next((s for s in env.status(key).get(field) or [] if s.get("name") == step), {})
        if not recorded.get("job"):
            before_recorded += 1
            TALLY["kills between Job create and status record"] += 1
        op.start()
    return before_recorded


@pytest.fixture
def env(kubectl: Callable[..., Any], namespace: str) -> Env:
    return Env(kubectl, namespace)


def test_sigkill_right_after_each_step_job_is_created_never_runs_a_step_twice(
    env: Env, namespace: str, cluster: LocalCluster, tmp_path: Path, k8s_api: Any
) -> None:
    plan_hash = env.setup()
    op = execution_operator(namespace, cluster.kubeconfig, tmp_path).start()
    try:
        kill_when_jobs_appear(env, op, "dryrun", DRY_RUN_STEPS[:1], k8s_api)
        wait_for("dry-runs finished", lambda: env.dry_run_done(plan_hash))
        env.approve(plan_hash)
        early = kill_when_jobs_appear(env, op, "run", STEP_NAMES, k8s_api)
        ex = wait_for("the run to finish after the kills", env.finished)
        assert op.alive(), op.output()
    finally:
        op.stop()
    assert ex["state"] == "Succeeded", (ex, op.output()[-3000:])
    assert [(s["name"], s["result"]) for s in ex["steps"]] == [(s, "succeeded") for s in STEP_NAMES]
    assert_each_job_once(env, {"dryrun": DRY_RUN_STEPS, "run": STEP_NAMES})
    sys.__stderr__.write(f"\nrun kills before the status recorded the Job: {early} of {len(STEP_NAMES)}\n")


def test_sigkill_during_rollback_runs_each_rollback_once(
    env: Env, namespace: str, cluster: LocalCluster, tmp_path: Path, k8s_api: Any
) -> None:
    plan_hash = env.setup(annotations={"recall.dev/simulate-fail-step": "restart-cart"})
    op = execution_operator(namespace, cluster.kubeconfig, tmp_path).start()
    try:
        wait_for("dry-runs finished", lambda: env.dry_run_done(plan_hash))
        env.approve(plan_hash)
        # Kill when the failing step starts too, then at each rollback.
        kill_when_jobs_appear(env, op, "run", ["restart-cart"], k8s_api)
        kill_when_jobs_appear(env, op, "rollback", ["flush-hot-keys", "snapshot"], k8s_api)
        ex = wait_for("the rollback to finish after the kills", env.finished)
        assert op.alive(), op.output()
    finally:
        op.stop()
    assert ex["state"] == "RolledBack", (ex, op.output()[-3000:])
    assert [(r["name"], r["result"]) for r in ex["rollbacks"]] == [("flush-hot-keys", "succeeded"),
                                                                  ("snapshot", "succeeded")]
    assert_each_job_once(env, {"dryrun": DRY_RUN_STEPS, "run": STEP_NAMES,
                               "rollback": ["flush-hot-keys", "snapshot"]})


# -- the control plane restarted under the operator -----------------------------------------------


@pytest.fixture
def own_cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    """A control plane of this test's own: restarting the session's would disturb every other test."""
    local = LocalCluster(tmp_path / "c")
    local.up(timeout=300)
    try:
        yield local
    finally:
        local.down()


def _triaged(kubectl: Callable[..., Any], namespace: str, name: str) -> dict[str, Any] | None:
    proc = kubectl("get", "incidents.recall.dev", name, "-n", namespace, "-o", "json")
    if proc.returncode != 0:
        return None
    status = json.loads(proc.stdout).get("status") or {}
    cond = next((c for c in status.get("conditions") or [] if c["type"] == "Triaged"), None)
    return cond if cond and status.get("recommendation") else None


def test_api_server_and_etcd_restarts_under_the_running_operator(own_cluster: LocalCluster, tmp_path: Path) -> None:
    kubectl = own_cluster.kubectl
    triage_ns, exec_ns = "faults-triage", "faults-exec"
    for ns in (triage_ns, exec_ns):
        kubectl("create", "namespace", ns, check=True)
    env = Env(kubectl, exec_ns)
    plan_hash = env.setup()
    ex_op = execution_operator(exec_ns, own_cluster.kubeconfig, tmp_path).start()
    full_op = recall_operator(triage_ns, own_cluster.kubeconfig, tmp_path).start()

    def new_incident(name: str) -> dict[str, Any]:
        Env(kubectl, triage_ns).apply({"apiVersion": "recall.dev/v1alpha1", "kind": "Incident",
                                       "metadata": {"name": name}, "spec": {**INCIDENT_SPEC, "title": name}})
        return wait_for(f"{name} triaged", lambda: _triaged(kubectl, triage_ns, name))

    try:
        assert new_incident("before-restarts")["status"] == "True"
        wait_for("dry-runs finished", lambda: env.dry_run_done(plan_hash))
        # No scheduler: the first step's pod stays Pending, so the run is surely in progress across the restarts.
        own_cluster.stop("kube-scheduler")
        env.approve(plan_hash)
        wait_for("the first step's Job", lambda: any(j["metadata"]["labels"][jobkit.LABEL_PHASE] == "run"
                                                      for j in env.jobs()),
                 detail=lambda: f"execution: {env.status('execution')}\n{ex_op.output()[-3000:]}")
        own_cluster.restart_apiserver(downtime=2.0)
        TALLY["control-plane restarts survived"] += 1
        assert new_incident("after-apiserver")["status"] == "True"
        own_cluster.restart_etcd(downtime=2.0, graceful=False)  # etcd crashes
        TALLY["control-plane restarts survived"] += 1
        assert new_incident("after-etcd")["status"] == "True"
        assert env.status("execution").get("state") == "Running"
        # The run is resynced by one loop over an index, not a timer per Incident: no finalizer
        # holds a running Incident (a deletion would otherwise wait for the operator).
        assert not env.get("incidents.recall.dev", INCIDENT)["metadata"].get("finalizers")
        own_cluster.start("kube-scheduler")
        ex = wait_for("the run in progress to finish", env.finished)
        assert ex_op.alive(), ex_op.output()[-3000:]
        assert full_op.alive(), full_op.output()[-3000:]
    finally:
        ex_op.stop()
        full_op.stop()
    assert ex["state"] == "Succeeded", ex
    assert_each_job_once(env, {"dryrun": DRY_RUN_STEPS, "run": STEP_NAMES})


# -- an alert storm at the bridge inside `recall run` ---------------------------------------------


def _webhook(*alerts: dict[str, Any]) -> dict[str, Any]:
    return {"version": "4", "status": "firing", "receiver": "storm", "groupKey": "{}", "alerts": list(alerts)}


def _alert(fingerprint: str, **labels: str) -> dict[str, Any]:
    return {"status": "firing", "labels": {"alertname": "Storm", "service": "checkout", **labels},
            "annotations": {"summary": f"storm {fingerprint}"}, "startsAt": "2026-01-01T00:00:00Z",
            "endsAt": "0001-01-01T00:00:00Z", "fingerprint": fingerprint}


def _post(url: str, body: bytes, content_type: str) -> tuple[int, dict[str, Any]]:
    return post_json(url, body, content_type, timeout=180)


def _health(url: str) -> dict[str, Any] | None:
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=5) as resp:
            return dict(json.loads(resp.read()))
    except (urllib.error.URLError, OSError):
        return None


def test_alert_storm_at_the_bridge_inside_recall_run(
    kubectl: Callable[..., Any], namespace: str, cluster: LocalCluster, tmp_path: Path, k8s_api: Any
) -> None:
    from kubernetes import client

    port = free_port()
    op = recall_operator(namespace, cluster.kubeconfig, tmp_path, "--bridge-port", str(port)).start()
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for("the bridge inside recall run", lambda: _health(url) or (not op.alive() and
                                                                            pytest.fail(op.output())))
        good = [f"storm{i:011x}" for i in range(200)]
        requests: list[tuple[bytes, str, set[int]]] = [
            (json.dumps(_webhook(_alert(fp))).encode(), "application/json", {200}) for fp in good]
        # Duplicates racing their originals, and whole groups re-sent with several alerts at once.
        requests += [(json.dumps(_webhook(_alert(good[i % 60]))).encode(), "application/json", {200})
                     for i in range(80)]
        requests += [(json.dumps(_webhook(*(_alert(good[(i * 7 + k) % 200]) for k in range(5)))).encode(),
                      "application/json", {200}) for i in range(20)]
        bad: list[tuple[bytes, str, set[int]]] = [
            (b"{nope", "application/json", {400}),
            (b"\xff\xfe\x00garbage", "application/json", {400}),
            (b"[]", "application/json", {422}),
            (json.dumps(_webhook({**_alert("bad1"), "labels": {"alertname": "NoSvc"}})).encode(),
             "application/json", {422}),
            (json.dumps(_webhook({**_alert("bad2"), "labels": "service=x"})).encode(), "application/json", {422}),
            (json.dumps({**_webhook(_alert("bad3")), "version": "2"}).encode(), "application/json", {422}),
            (json.dumps({"version": "4", "status": "firing", "alerts": "x"}).encode(), "application/json", {422}),
            (json.dumps(_webhook(_alert("bad4"))).encode(), "text/plain", {415}),
            (b'{"x": "' + b"y" * (MAX_BODY_BYTES + 1) + b'"}', "application/json", {413}),
            (json.dumps(_webhook(*[_alert(f"big{i}") for i in range(5000)])).encode()
             + b" " * ONE_MIB, "application/json", {413}),
        ]
        requests += [bad[i % len(bad)] for i in range(200)]
        assert len(requests) == 500
        barrier = threading.Barrier(len(requests))

        def send(req: tuple[bytes, str, set[int]]) -> tuple[int, dict[str, Any]]:
            barrier.wait(timeout=120)
            return _post(f"{url}/alerts", req[0], req[1])

        with ThreadPoolExecutor(max_workers=len(requests)) as pool:
            results = list(pool.map(send, requests))

        created: Counter[str] = Counter()
        refused = 0
        for (body, _ctype, expected), (code, answer) in zip(requests, results):
            assert code in expected, (code, answer, body[:200])
            if code == 200:
                created.update(answer["created"])
            else:
                assert 400 <= code < 500 and answer.get("error"), (code, answer)
                refused += 1
        TALLY["bad alert requests refused with a 4xx"] += refused
        expected_names = {incident_name(fp) for fp in good}
        assert created == Counter(dict.fromkeys(expected_names, 1)), created.most_common(3)
        objects = client.CustomObjectsApi(k8s_api)
        names = [i["metadata"]["name"] for i in
                 objects.list_namespaced_custom_object("recall.dev", "v1alpha1", namespace, "incidents")["items"]]
        assert sorted(names) == sorted(expected_names)

        # The operator lives on: it triages the storm's incidents and the next one.
        def untriaged() -> list[str]:
            items = objects.list_namespaced_custom_object("recall.dev", "v1alpha1", namespace, "incidents")["items"]
            return [i["metadata"]["name"] for i in items
                    if not any(c["type"] == "Triaged" for c in (i.get("status") or {}).get("conditions") or [])]

        wait_for("every storm incident triaged", lambda: not untriaged() or (not op.alive() and
                                                                              pytest.fail(op.output()[-3000:])),
                 deadline=600)
        code, answer = _post(f"{url}/alerts", json.dumps(_webhook(_alert("after-storm"))).encode(), "application/json")
        assert code == 200 and answer["created"] == [incident_name("after-storm")], answer
        assert wait_for("the post-storm incident triaged",
                        lambda: _triaged(kubectl, namespace, incident_name("after-storm")))
        assert op.alive(), op.output()[-3000:]
        assert "Traceback" not in op.output(), op.output()[-5000:]
    finally:
        op.stop()
