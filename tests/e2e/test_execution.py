"""Execution end to end: the operator's handlers (Kopf) against a real API server,
Jobs really run by the controller manager, the scheduler and kwok.

The recommendation is written into the Incident's status directly (through the
status subresource), built with the same `build_plan` the reconcile uses from a
Runbook created here, so these tests pin the execution behaviour without
depending on what recall would recommend; only the execution handlers run.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import kopf
import pytest
from kopf.testing import KopfRunner

from recall_operator.domain.models import IncidentSpec, Runbook, RunbookSpec
from recall_operator.domain.plan import build_plan
from recall_operator.handlers import configure_settings
from recall_operator.handlers import execution as execution_handlers
from recall_operator.kube import jobs as jobkit

pytestmark = pytest.mark.integration

DEADLINE = 180.0
INCIDENT = "inc-cart-latency"
INCIDENT_SPEC = {"service": "cart", "title": "cart p99 latency over 2s", "severity": "high", "symptoms": ["latency-spike"]}
RUNBOOK = {
    "title": "flush hot keys and recycle cart",
    "services": ["cart"],
    "steps": [
        {"name": "snapshot", "image": "redis-tools:7", "command": ["redis-cli", "-h", "$(SERVICE)", "bgsave"],
         "dryRunCommand": ["redis-cli", "-h", "$(SERVICE)", "info", "persistence"],
         "rollbackCommand": ["redis-cli", "-h", "$(SERVICE)", "del", "snapshot-marker"], "estimatedSeconds": 10},
        {"name": "announce", "image": "notify:1", "command": ["notify", "--service", "$(SERVICE)"],
         "estimatedSeconds": 5},
        {"name": "flush-hot-keys", "image": "redis-tools:7",
         "command": ["redis-cli", "-h", "$(SERVICE)", "flushhot"],
         "dryRunCommand": ["redis-cli", "-h", "$(SERVICE)", "--hotkeys"],
         "rollbackCommand": ["redis-cli", "-h", "$(SERVICE)", "restore"], "estimatedSeconds": 10},
        {"name": "restart-cart", "image": "kubectl:1.36",
         "command": ["kubectl", "rollout", "restart", "deployment/$(SERVICE)"],
         "dryRunCommand": ["kubectl", "rollout", "status", "deployment/$(SERVICE)"],
         "rollbackCommand": ["kubectl", "rollout", "undo", "deployment/$(SERVICE)"], "estimatedSeconds": 10},
    ],
}
STEP_NAMES = [s["name"] for s in RUNBOOK["steps"]]


def wait_for(what: str, probe: Callable[[], Any], deadline: float = DEADLINE) -> Any:
    end = time.monotonic() + deadline
    last: Any = None
    while time.monotonic() < end:
        last = probe()
        if last:
            return last
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}; last seen: {last!r}")


class Env:
    def __init__(self, kubectl: Callable[..., Any], namespace: str) -> None:
        self.kubectl, self.ns = kubectl, namespace

    def apply(self, obj: dict[str, Any]) -> None:
        obj.setdefault("metadata", {})["namespace"] = self.ns
        self.kubectl("apply", "-f", "-", input=json.dumps(obj), check=True)

    def get(self, kind: str, name: str) -> dict[str, Any]:
        proc = self.kubectl("get", kind, name, "-n", self.ns, "-o", "json")
        return json.loads(proc.stdout) if proc.returncode == 0 else {}

    def jobs(self, *selectors: str) -> list[dict[str, Any]]:
        sel = ",".join((f"{jobkit.LABEL_INCIDENT}={INCIDENT}", *selectors))
        out = self.kubectl("get", "jobs", "-n", self.ns, "-l", sel, "-o", "json", check=True).stdout
        return json.loads(out)["items"]

    def status(self, key: str) -> dict[str, Any]:
        return (self.get("incidents.recall.dev", INCIDENT).get("status") or {}).get(key) or {}

    def setup(self, mode: str = "actionable", annotations: dict[str, str] | None = None) -> str:
        """Runbook, Incident, the runner's ServiceAccount, and a recommendation with a real plan; returns its planHash."""
        self.kubectl("create", "serviceaccount", jobkit.DEFAULT_SERVICE_ACCOUNT, "-n", self.ns, check=True)
        self.apply({"apiVersion": "recall.dev/v1alpha1", "kind": "Runbook",
                    "metadata": {"name": "cart-hot-keys"}, "spec": RUNBOOK})
        meta: dict[str, Any] = {"name": INCIDENT}
        if annotations:
            meta["annotations"] = annotations
        self.apply({"apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "metadata": meta, "spec": INCIDENT_SPEC})
        plan = build_plan(IncidentSpec.model_validate(INCIDENT_SPEC),
                          Runbook(name="cart-hot-keys", spec=RunbookSpec.model_validate(RUNBOOK)))
        rec = {"mode": mode, "runbook": "cart-hot-keys", "planHash": plan.plan_hash, "similarity": 80,
               "actionability": 75, "steps": [s.as_status() for s in plan.steps]}
        self.kubectl("patch", "incidents.recall.dev", INCIDENT, "-n", self.ns, "--subresource=status",
                     "--type=merge", "-p", json.dumps({"status": {"recommendation": rec}}), check=True)
        return plan.plan_hash

    def event_reasons(self) -> set[str]:
        out = self.kubectl("get", "events", "-n", self.ns, "--field-selector", f"involvedObject.name={INCIDENT}",
                           "-o", "json", check=True).stdout
        return {e.get("reason") for e in json.loads(out)["items"]}

    def approve(self, name: str, plan_hash: str, decision: str = "approve", reason: str = "") -> None:
        spec = {"incident": INCIDENT, "planHash": plan_hash, "decision": decision, "approver": "alice"}
        if reason:
            spec["reason"] = reason
        self.apply({"apiVersion": "recall.dev/v1alpha1", "kind": "Approval", "metadata": {"name": name}, "spec": spec})

    def approval_state(self, name: str) -> dict[str, Any]:
        return self.get("approvals.recall.dev", name).get("status") or {}

    def dry_run_done(self, plan_hash: str) -> dict[str, Any] | None:
        dry = self.status("dryRun")
        if dry.get("planHash") == plan_hash and dry.get("done"):
            return dry
        return None


def operator(namespace: str) -> KopfRunner:
    # A registry of its own: only the execution handlers run, whatever other
    # handler modules this test process has imported. A fresh registry has no
    # login handler, so it gets the kubeconfig one (KUBECONFIG is the test cluster's).
    registry = execution_handlers.register(kopf.OperatorRegistry())
    kopf.on.login(registry=registry)(kopf.login_with_kubeconfig)
    # The operator's own Kopf settings (progress kept in recall.dev annotations).
    kopf.on.startup(registry=registry)(lambda settings, **_: configure_settings(settings))
    return KopfRunner(["run", "--standalone", f"--namespace={namespace}"], registry=registry, timeout=60)


@pytest.fixture
def env(kubectl: Callable[..., Any], namespace: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    monkeypatch.setenv("RECALL_ALLOW_SIMULATED_FAILURE", "1")
    default = kopf.get_default_registry()
    try:
        yield Env(kubectl, namespace)
    finally:
        kopf.set_default_registry(default)  # `kopf run` makes the runner's registry the default


def by_step(jobs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {j["metadata"]["labels"][jobkit.LABEL_STEP]: j for j in jobs}


def finished_at(job: dict[str, Any]) -> str:
    st = job["status"]
    return st.get("completionTime") or next(c["lastTransitionTime"] for c in st["conditions"] if c["type"] == "Failed")


def test_dry_run_then_approved_run_succeeds_one_step_at_a_time(env: Env, namespace: str) -> None:
    plan_hash = env.setup()
    with operator(namespace) as runner:
        dry = wait_for("dry-run results", lambda: env.dry_run_done(plan_hash))
        results = {s["name"]: s for s in dry["steps"]}
        assert set(results) == set(STEP_NAMES)
        assert results["announce"]["result"] == "skipped"  # it has no dry-run command
        for name in ("snapshot", "flush-hot-keys", "restart-cart"):
            assert results[name]["result"] == "succeeded", results[name]
            assert results[name]["job"] == jobkit.job_name(INCIDENT, "dryrun", name, 1)
            assert results[name]["logTail"] == "no log available"  # the fake kubelet keeps no logs
        dry_jobs = by_step(env.jobs(f"{jobkit.LABEL_PHASE}=dryrun"))
        assert dry_jobs["snapshot"]["spec"]["template"]["spec"]["containers"][0]["command"] == RUNBOOK["steps"][0]["dryRunCommand"]
        assert env.jobs(f"{jobkit.LABEL_PHASE}=run") == []  # nothing runs before an Approval

        env.approve("approve-1", plan_hash)
        wait_for("the approval accepted", lambda: env.approval_state("approve-1").get("state") == "Accepted")
        ex = wait_for("execution Succeeded", lambda: (e := env.status("execution")).get("state") == "Succeeded" and e)
    assert runner.exception is None, runner.output
    assert ex["approvedBy"] == "alice" and ex["planHash"] == plan_hash
    assert [s["name"] for s in ex["steps"]] == STEP_NAMES
    assert all(s["result"] == "succeeded" and s["startedAt"] and s["finishedAt"] for s in ex["steps"])
    assert ex["rollbacks"] == []
    run_jobs = by_step(env.jobs(f"{jobkit.LABEL_PHASE}=run"))
    assert sorted(run_jobs) == sorted(STEP_NAMES)
    # One at a time: each step's Job was created only after the one before it finished.
    for before, after in zip(STEP_NAMES, STEP_NAMES[1:]):
        assert run_jobs[after]["metadata"]["creationTimestamp"] >= finished_at(run_jobs[before])
    assert run_jobs["snapshot"]["spec"]["template"]["spec"]["containers"][0]["command"] == RUNBOOK["steps"][0]["command"]
    cond = next(c for c in env.get("incidents.recall.dev", INCIDENT)["status"]["conditions"] if c["type"] == "Executing")
    assert (cond["status"], cond["reason"]) == ("False", "Succeeded")
    reasons = wait_for("the step Events", lambda: (r := env.event_reasons()) >= {"StepStarted", "StepSucceeded",
                                                                                  "ExecutionSucceeded"} and r)
    assert "DryRunSucceeded" in reasons


def test_approval_for_an_old_plan_is_superseded_and_runs_nothing(env: Env, namespace: str) -> None:
    plan_hash = env.setup()
    old_hash = "0" * 16
    assert old_hash != plan_hash
    with operator(namespace) as runner:
        env.approve("approve-old", old_hash)
        st = wait_for("the old approval judged", lambda: env.approval_state("approve-old").get("state") and env.approval_state("approve-old"))
        wait_for("dry-runs finished", lambda: env.dry_run_done(plan_hash))
        env.approve("reject-current", plan_hash, decision="reject", reason="not during peak")
        rj = wait_for("the rejection judged", lambda: env.approval_state("reject-current").get("state") and env.approval_state("reject-current"))
        env.approve("approve-after-reject", plan_hash)
        late = wait_for("the late approval judged", lambda: env.approval_state("approve-after-reject").get("state") and env.approval_state("approve-after-reject"))
    assert runner.exception is None, runner.output
    assert st["state"] == "Superseded" and plan_hash in st["reason"]
    assert rj["state"] == "Rejected"
    assert late["state"] == "Refused" and "rejected" in late["reason"]
    assert env.status("execution")["state"] == "Stopped"
    assert env.jobs(f"{jobkit.LABEL_PHASE} in (run,rollback)") == []


@pytest.mark.parametrize("mode", ["advisory", "novel"])
def test_advisory_or_novel_recommendation_is_refused_and_never_runs(env: Env, namespace: str, mode: str) -> None:
    plan_hash = env.setup(mode=mode)
    with operator(namespace) as runner:
        env.approve("approve-it", plan_hash)
        st = wait_for("the approval judged", lambda: env.approval_state("approve-it").get("state") and env.approval_state("approve-it"))
    assert runner.exception is None, runner.output
    assert st["state"] == "Refused" and mode in st["reason"]
    assert env.jobs() == []  # not even a dry-run for a plan that may not run
    assert env.status("execution") == {}


def test_failing_step_rolls_back_completed_steps_in_reverse(env: Env, namespace: str) -> None:
    plan_hash = env.setup(annotations={"recall.dev/simulate-fail-step": "restart-cart"})
    with operator(namespace) as runner:
        wait_for("dry-runs finished", lambda: env.dry_run_done(plan_hash))
        env.approve("approve-1", plan_hash)
        ex = wait_for("execution finished", lambda: (e := env.status("execution")).get("state") in ("RolledBack", "Failed", "Succeeded") and e)
    assert runner.exception is None, runner.output
    assert ex["state"] == "RolledBack", ex
    assert [(s["name"], s["result"]) for s in ex["steps"]] == [
        ("snapshot", "succeeded"), ("announce", "succeeded"), ("flush-hot-keys", "succeeded"), ("restart-cart", "failed")]
    # Reverse order; "announce" has no rollback command; the failed step itself is not undone.
    assert [(r["name"], r["result"]) for r in ex["rollbacks"]] == [("flush-hot-keys", "succeeded"), ("snapshot", "succeeded")]
    rb = by_step(env.jobs(f"{jobkit.LABEL_PHASE}=rollback"))
    assert sorted(rb) == ["flush-hot-keys", "snapshot"]
    assert rb["snapshot"]["metadata"]["creationTimestamp"] >= finished_at(rb["flush-hot-keys"])
    assert rb["snapshot"]["spec"]["template"]["spec"]["containers"][0]["command"] == RUNBOOK["steps"][0]["rollbackCommand"]
    failed = by_step(env.jobs(f"{jobkit.LABEL_PHASE}=run"))["restart-cart"]
    assert failed["spec"]["template"]["metadata"]["labels"].get(jobkit.LABEL_SIMULATE) == "fail"


def test_operator_restart_mid_run_never_runs_a_step_twice(env: Env, namespace: str) -> None:
    plan_hash = env.setup()
    with operator(namespace) as runner:
        wait_for("dry-runs finished", lambda: env.dry_run_done(plan_hash))
        env.approve("approve-1", plan_hash)
        wait_for("the first step started", lambda: env.jobs(f"{jobkit.LABEL_PHASE}=run"))
    assert runner.exception is None, runner.output
    # The operator is gone; the step it started finishes without it.
    before = env.status("execution")
    assert before.get("state") == "Running", before
    wait_for("the started step to finish", lambda: all(
        jobkit.job_state(j) != "running" for j in env.jobs(f"{jobkit.LABEL_PHASE}=run")))
    with operator(namespace) as runner2:
        ex = wait_for("execution Succeeded after a restart",
                      lambda: (e := env.status("execution")).get("state") == "Succeeded" and e)
    assert runner2.exception is None, runner2.output
    run_jobs = env.jobs(f"{jobkit.LABEL_PHASE}=run")
    names = sorted(j["metadata"]["name"] for j in run_jobs)
    assert names == sorted(jobkit.job_name(INCIDENT, "run", s, 1) for s in STEP_NAMES)
    assert len(env.jobs(f"{jobkit.LABEL_PHASE}=dryrun")) == 3  # dry-runs not repeated either
    assert [s["result"] for s in ex["steps"]] == ["succeeded"] * len(STEP_NAMES)
