"""States that used to hang without a word (issue 13, part 2), each made on the real API server.

Only the execution handlers run (they register the lifecycle writer too), as
in test_execution.py: the recommendation is written into status by the test.
Every wait is a bounded poll for a reason in status; nothing asserts how fast
it came.

- the executor ServiceAccount is missing: the dry-run says so, naming the
  account (from the Job's FailedCreate Events), and gives up with the step's
  timeoutSeconds, still naming it;
- pods never start (every node cordoned): the step's Job fails with
  DeadlineExceeded and the step is Failed with that reason, not "running";
- an Incident with a dotted name and one with the longest name the API
  server accepts: their Jobs are found and their completion seen;
- a name no Job could be made from: refused up front by the API server, with
  its message; nothing half-works.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kit import KubeEnv, kept_default_registry
from kit import execution_operator as run_operator
from recall_operator.kube import jobs as jobkit
from support import wait_for

pytestmark = pytest.mark.integration

SPEC = {"service": "cart", "title": "cart p99 latency over 2s", "severity": "high", "symptoms": ["latency-spike"]}
RUNBOOK = "cart-check"


def one_step(timeout: int | None = None, dry_run: bool = True) -> dict[str, Any]:
    step: dict[str, Any] = {"name": "inspect", "image": "redis-tools:7", "command": ["redis-cli", "bgsave"],
                            "estimatedSeconds": 1}
    if dry_run:
        step["dryRunCommand"] = ["redis-cli", "info"]
    if timeout is not None:
        step["timeoutSeconds"] = timeout
    return {"title": "inspect cart", "services": ["cart"], "steps": [step]}


def conditions(status: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["type"]: c for c in status.get("conditions") or []}


class Env(KubeEnv):
    def setup(self, incident: str, runbook: dict[str, Any], service_account: str | None = jobkit.DEFAULT_SERVICE_ACCOUNT
              ) -> str:
        if service_account is not None:
            self.create_runbook(RUNBOOK, runbook, service_account)
        else:  # no ServiceAccount made
            self.apply({"apiVersion": "recall.dev/v1alpha1", "kind": "Runbook", "metadata": {"name": RUNBOOK},
                        "spec": runbook})
        self.create_incident(incident, SPEC)
        return self.recommend(incident, SPEC, RUNBOOK, runbook)

    def step(self, incident: str, key: str, name: str = "inspect") -> dict[str, Any]:
        entries = self.status_field(incident, key).get("steps") or []
        return next((s for s in entries if s.get("name") == name), {})

    def nodes(self) -> list[str]:
        out = self.kubectl("get", "nodes", "-o", "json", check=True).stdout
        return [n["metadata"]["name"] for n in json.loads(out)["items"]]


@pytest.fixture
def env(kubectl: Callable[..., Any], namespace: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    for var in ("RECALL_AUTO_DRY_RUN", "RECALL_EXECUTOR_SERVICE_ACCOUNT", "RECALL_APPROVAL_EXPIRY_MINUTES"):
        monkeypatch.delenv(var, raising=False)
    with kept_default_registry():
        yield Env(kubectl, namespace)


def test_a_missing_executor_account_is_named_while_waiting_and_when_the_step_gives_up(
        env: Env, namespace: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RECALL_EXECUTOR_SERVICE_ACCOUNT", "missing-executor")
    plan_hash = env.setup("inc-no-account", one_step(timeout=20), service_account=None)
    with run_operator(namespace) as runner:
        waiting = wait_for("the dry-run's reason naming the account", lambda: (
            "missing-executor" in (s := env.step("inc-no-account", "dryRun")).get("reason", "") and s))
        status = wait_for("the phase and Ready saying why", lambda: (
            (st := env.incident_status("inc-no-account")).get("phase") == "DryRun"
            and "missing-executor" in conditions(st).get("Ready", {}).get("message", "") and st))
        failed = wait_for("the dry-run to give up", lambda: (
            (s := env.step("inc-no-account", "dryRun")).get("result") == "failed" and s))
        done = wait_for("the dry-run done", lambda: env.dry_run_of("inc-no-account", plan_hash))
        final = wait_for("phase Failed", lambda: (st := env.incident_status("inc-no-account")).get("phase") == "Failed"
                         and st)
    assert runner.exception is None, runner.output
    assert waiting["result"] == "running" and "not found" in waiting["reason"], waiting
    assert "missing-executor" in status["dryRun"]["reason"], status["dryRun"]
    ready = conditions(status)["Ready"]
    assert ready["status"] == "False" and ready["reason"] == "DryRunRunning", ready
    # It gave up at the step's deadline, saying so, and still names the cause.
    assert failed["reason"].startswith("DeadlineExceeded"), failed
    assert "missing-executor" in failed["reason"], failed
    assert done["ok"] is False and "DeadlineExceeded" in done["reason"], done
    assert conditions(final)["Ready"]["reason"] == "DryRunFailed", final


def test_pods_that_never_start_fail_the_step_with_deadline_exceeded(env: Env, namespace: str) -> None:
    # No dry-run command: the run step is the one that meets the unschedulable cluster.
    plan_hash = env.setup("inc-no-node", one_step(timeout=10, dry_run=False))
    nodes = env.nodes()
    assert nodes, "the test cluster has nodes to cordon"
    try:
        with run_operator(namespace) as runner:
            wait_for("the (empty) dry-run done", lambda: env.dry_run_of("inc-no-node", plan_hash))
            for node in nodes:
                env.kubectl("cordon", node, check=True)
            env.approve_plan("inc-no-node", "approve-1", plan_hash)
            waiting = wait_for("the step's reason while its pod waits", lambda: (
                "not scheduled" in (s := env.step("inc-no-node", "execution")).get("reason", "") and s))
            ex = wait_for("the execution to end", lambda: (
                (e := env.status_field("inc-no-node", "execution")).get("state") in ("Failed", "RolledBack",
                                                                                     "Succeeded") and e))
            phase = wait_for("phase Failed", lambda: (st := env.incident_status("inc-no-node")).get("phase")
                             == "Failed" and st)
    finally:
        for node in nodes:
            env.kubectl("uncordon", node)
    assert runner.exception is None, runner.output
    assert waiting["result"] == "running", waiting
    assert ex["state"] == "Failed", ex
    step = ex["steps"][0]
    assert step["result"] == "failed" and step["reason"].startswith("DeadlineExceeded"), step
    assert "DeadlineExceeded" in ex["reason"], ex
    ready = conditions(phase)["Ready"]
    assert ready["status"] == "False" and "DeadlineExceeded" in ready["message"], ready


@pytest.mark.parametrize("incident", ["dot.inc-0069", "inc-" + "long-name." * 24 + "end"],
                         ids=["dotted", "253-characters"])
def test_dotted_and_long_names_find_their_jobs_and_see_them_finish(env: Env, namespace: str, incident: str) -> None:
    assert len(incident) <= 253
    plan_hash = env.setup(incident, one_step())
    with run_operator(namespace) as runner:
        dry = wait_for("the dry-run done", lambda: env.dry_run_of(incident, plan_hash))
        env.approve_plan(incident, "approve-1", plan_hash)
        ex = wait_for("the execution to end", lambda: (
            (e := env.status_field(incident, "execution")).get("state") in ("Succeeded", "Failed", "RolledBack") and e))
        final = wait_for("phase Succeeded", lambda: (st := env.incident_status(incident)).get("phase") == "Succeeded"
                         and st)
    assert runner.exception is None, runner.output
    assert dry["ok"] is True and dry["steps"][0]["result"] == "succeeded", dry
    assert ex["state"] == "Succeeded" and ex["steps"][0]["job"] == jobkit.job_name(incident, "run", "inspect", 1), ex
    assert conditions(final)["Ready"]["reason"] == "OutcomeUnconfirmed"
    jobs = env.list_jobs(jobkit.incident_selector(incident).replace(" ", ""))
    assert sorted(j["metadata"]["annotations"]["recall.dev/incident-name"] for j in jobs) == [incident, incident]
    assert all(len(j["metadata"]["name"]) <= 63 for j in jobs)


@pytest.mark.parametrize("name", ["inc_0070", "Inc-0070", "inc-" + "x" * 250],
                         ids=["underscore", "capital", "254-characters"])
def test_a_name_no_job_could_carry_is_refused_up_front_with_a_message(env: Env, name: str) -> None:
    body = {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "metadata": {"name": name, "namespace": env.ns},
            "spec": SPEC}
    proc = env.kubectl("create", "-f", "-", input=json.dumps(body))
    assert proc.returncode != 0, f"the API server accepted {name!r}"
    assert "metadata.name" in proc.stderr and ("RFC 1123" in proc.stderr or "must be no more than" in proc.stderr), \
        proc.stderr
    assert env.get("incidents.recall.dev", name) == {}
