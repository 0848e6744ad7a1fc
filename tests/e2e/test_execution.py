"""Execution end to end: the operator's handlers (Kopf) against a real API server,
Jobs really run by the controller manager, the scheduler and kwok.

The recommendation is written into the Incident's status directly (through the
status subresource), built with the same `build_plan` the reconcile uses from a
Runbook created here, so these tests pin the execution behaviour without
depending on what recall would recommend; only the execution handlers run.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from kopf.testing import KopfRunner

from kit import KubeEnv, cart_runbook, kept_default_registry
from kit import execution_operator as operator
from recall_operator.api import API_VERSION
from recall_operator.domain import execution as machine
from recall_operator.domain.models import IncidentSpec, Runbook, RunbookSpec
from recall_operator.domain.plan import build_plan
from recall_operator.handlers import ENV_BACKEND, ENV_PATH
from recall_operator.kube import jobs as jobkit
from recall_operator.runner import operator_args
from support import wait_for

pytestmark = pytest.mark.integration

INCIDENT = "inc-cart-latency"
INCIDENT_SPEC = {"service": "cart", "title": "cart p99 latency over 2s", "severity": "high", "symptoms": ["latency-spike"]}
RUNBOOK = cart_runbook()
STEP_NAMES = [s["name"] for s in RUNBOOK["steps"]]


class Env(KubeEnv):
    def jobs(self, *selectors: str) -> list[dict[str, Any]]:
        return self.list_jobs(",".join((f"{jobkit.LABEL_INCIDENT}={INCIDENT}", *selectors)))

    def status(self, key: str) -> dict[str, Any]:
        return self.status_field(INCIDENT, key)

    def setup(self, mode: str = "actionable", annotations: dict[str, str] | None = None) -> str:
        """Runbook, Incident, the runner's ServiceAccount, and a recommendation with a real plan; returns its planHash."""
        self.create_runbook("cart-hot-keys", RUNBOOK)
        self.create_incident(INCIDENT, INCIDENT_SPEC, annotations)
        return self.recommend(INCIDENT, INCIDENT_SPEC, "cart-hot-keys", RUNBOOK, mode=mode)

    def event_reasons(self) -> set[str]:
        out = self.kubectl("get", "events", "-n", self.ns, "--field-selector", f"involvedObject.name={INCIDENT}",
                           "-o", "json", check=True).stdout
        return {e.get("reason") for e in json.loads(out)["items"]}

    def event_messages(self) -> list[tuple[str, str]]:
        out = self.kubectl("get", "events", "-n", self.ns, "--field-selector", f"involvedObject.name={INCIDENT}",
                           "-o", "json", check=True).stdout
        return [(e.get("reason"), e.get("message")) for e in json.loads(out)["items"]]

    def approve(self, name: str, plan_hash: str, decision: str = "approve", reason: str = "") -> None:
        self.approve_plan(INCIDENT, name, plan_hash, decision=decision, reason=reason)

    def approval_state(self, name: str) -> dict[str, Any]:
        return self.get("approvals.recall.dev", name).get("status") or {}

    def dry_run_done(self, plan_hash: str) -> dict[str, Any] | None:
        return self.dry_run_of(INCIDENT, plan_hash)

    def start_run(self, plan_hash: str) -> None:
        """Approve the plan once its dry-runs finished, and return when the first step's Job exists."""
        wait_for("dry-runs finished", lambda: self.dry_run_done(plan_hash))
        self.approve("approve-1", plan_hash)
        wait_for("the first step started", lambda: self.jobs(f"{jobkit.LABEL_PHASE}=run"))


@pytest.fixture
def env(kubectl: Callable[..., Any], namespace: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    monkeypatch.setenv("RECALL_ALLOW_SIMULATED_FAILURE", "1")
    with kept_default_registry():
        yield Env(kubectl, namespace)


def by_step(jobs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {j["metadata"]["labels"][jobkit.LABEL_STEP]: j for j in jobs}


def kwok_ran(step: dict[str, Any]) -> str:
    """The image a step's run takes on the test cluster: pinned to the digest kwok reports for its dry-run
    (the SHA-256 of the image's name), or as written for a step with no dry-run."""
    if not step.get("dryRunCommand"):
        return str(step["image"])
    return f"{step['image']}@sha256:{hashlib.sha256(step['image'].encode()).hexdigest()}"


def finished_at(job: dict[str, Any]) -> str:
    """When the operator saw the step end: its first terminal condition (domain.execution.job_times)."""
    finished = machine.job_times(job)[1]
    assert finished, job["status"]
    return finished


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
        # Kopf posts Events from a queue: asked after the operator stopped, the last ones may never come.
        reasons = wait_for("the step Events", lambda: (r := env.event_reasons()) >= {
            "StepStarted", "StepSucceeded", "ExecutionSucceeded"} and r)
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
    # Each step with a dry-run runs the digest its dry-run's pod reported (kwok's: the SHA-256 of the image's name).
    for step in RUNBOOK["steps"]:
        assert run_jobs[step["name"]]["spec"]["template"]["spec"]["containers"][0]["image"] == kwok_ran(step)
    cond = next(c for c in env.get("incidents.recall.dev", INCIDENT)["status"]["conditions"] if c["type"] == "Executing")
    assert (cond["status"], cond["reason"]) == ("False", "Succeeded")
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
    # A rollback runs the image its step's dry-run ran, as the step did.
    assert rb["snapshot"]["spec"]["template"]["spec"]["containers"][0]["image"] == kwok_ran(RUNBOOK["steps"][0])
    assert [r["image"] for r in ex["rollbacks"]] == [kwok_ran(RUNBOOK["steps"][2]), kwok_ran(RUNBOOK["steps"][0])]
    failed = by_step(env.jobs(f"{jobkit.LABEL_PHASE}=run"))["restart-cart"]
    assert failed["spec"]["template"]["metadata"]["labels"].get(jobkit.LABEL_SIMULATE) == "fail"


def test_operator_restart_mid_run_never_runs_a_step_twice(env: Env, namespace: str) -> None:
    plan_hash = env.setup()
    with operator(namespace) as runner:
        env.start_run(plan_hash)
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


def test_a_run_whose_recommendation_turns_advisory_ends_its_step_and_stops(env: Env, namespace: str) -> None:
    plan_hash = env.setup()
    with operator(namespace) as runner:
        env.start_run(plan_hash)
        # Re-triage during the run (an outcome elsewhere, a spec edit) says advisory now, same plan.
        assert env.recommend(INCIDENT, INCIDENT_SPEC, "cart-hot-keys", RUNBOOK, mode="advisory") == plan_hash
        ex = wait_for("the run to end", lambda: (e := env.status("execution")).get("state") in machine.TERMINAL and e)
    assert runner.exception is None, runner.output
    assert ex["state"] == "Stopped", ex
    assert ex["reason"].startswith("the recommendation became advisory during the run; stopped before step"), ex
    ran = [s["name"] for s in ex["steps"] if s["result"] == "succeeded"]
    assert ran and len(ran) < len(STEP_NAMES) and not any(s["result"] == "failed" for s in ex["steps"]), ex
    assert len(env.jobs(f"{jobkit.LABEL_PHASE}=run")) == len(ran)


def _resolve_mid_run(env: Env, namespace: str, plan_hash: str) -> dict[str, Any]:
    """Approve, stop the operator once the first step started, and record the outcome while the run is unfinished."""
    with kept_default_registry(), operator(namespace) as runner:  # a full operator after it needs the default back
        env.start_run(plan_hash)
    assert runner.exception is None, runner.output
    env.kubectl("patch", "incidents.recall.dev", INCIDENT, "-n", namespace, "--type=merge", "-p", json.dumps(
        {"spec": {"resolution": {"summary": "the runbook fixed it", "runbook": "cart-hot-keys",
                                 "confirmedBy": "carol"}}}), check=True)
    before = env.status("execution")
    assert before.get("state") == "Running", before
    return before


def test_a_resolved_incident_s_run_the_restarted_operator_cannot_verify_stops_and_says_so(
        env: Env, namespace: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # A restart without RECALL_STATUS_KEY: the new process has a key of its own. An open
    # incident is triaged again and runs on; a resolved one never is, and waited for ever.
    _resolve_mid_run(env, namespace, env.setup())
    monkeypatch.setenv("RECALL_STATUS_KEY", "another-process-key")
    with operator(namespace) as runner:
        ex = wait_for("the run to end", lambda: (e := env.status("execution")).get("state") in machine.TERMINAL and e)
        reasons = wait_for("the stop's Event", lambda: (r := dict(env.event_messages())).get("ExecutionStopped")
                           and r)
    assert runner.exception is None, runner.output
    assert ex["state"] == "Stopped", ex
    assert "resolved" in ex["reason"] and "nothing more runs" in ex["reason"], ex["reason"]
    unfinished = [s["name"] for s in ex["steps"] if s["result"] not in ("succeeded", "failed")]
    assert unfinished and f"steps not seen to finish: {', '.join(unfinished)}" in ex["reason"], ex
    assert reasons["ExecutionStopped"] == ex["reason"]
    cond = next(c for c in env.get("incidents.recall.dev", INCIDENT)["status"]["conditions"] if c["type"] == "Executing")
    assert (cond["status"], cond["reason"]) == ("False", "Stopped")
    # Nothing more was started after the restart.
    assert len(env.jobs(f"{jobkit.LABEL_PHASE}=run")) == len(STEP_NAMES) - len(unfinished) + sum(
        1 for s in ex["steps"] if s.get("job") and s["result"] not in ("succeeded", "failed"))


def test_an_outcome_recorded_during_the_run_waits_for_it_and_counts_the_run_s_success(
        env: Env, namespace: str, memory_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from recall_operator.memory.embedded import EmbeddedMemory

    _resolve_mid_run(env, namespace, env.setup())
    monkeypatch.setenv(ENV_BACKEND, "embedded")
    monkeypatch.setenv(ENV_PATH, str(memory_path))
    with KopfRunner(operator_args([namespace]), timeout=60) as full:
        waiting = wait_for("the outcome waiting for the run", lambda: (s := env.get(
            "incidents.recall.dev", INCIDENT)["status"]).get("memory", {}).get("waiting") and s)
        settled = wait_for("the outcome in memory", lambda: (s := env.get(
            "incidents.recall.dev", INCIDENT)["status"]).get("memory", {}).get("consolidated") and s, deadline=120,
            detail=lambda: json.dumps({k: v for k, v in env.get("incidents.recall.dev", INCIDENT)["status"].items() if k in ("execution", "memory", "conditions")}))
    assert full.exception is None, full.output
    resolved = next(c for c in waiting["conditions"] if c["type"] == "Resolved")
    assert (resolved["status"], resolved["reason"]) == ("False", "RunInProgress"), resolved
    assert settled["execution"]["state"] == "Succeeded", settled["execution"]
    # The run succeeded: the outcome's claim is the operator's record, and the runbook counts it.
    runbook = env.get("runbooks.recall.dev", "cart-hot-keys").get("status") or {}
    assert (runbook.get("timesExecuted"), runbook.get("timesSucceeded")) == (1, 1), runbook
    store = EmbeddedMemory(memory_path)
    try:
        held = asyncio.run(store.get(INCIDENT, namespace))
    finally:
        asyncio.run(store.close())
    assert held is not None and held.resolution.runbook == "cart-hot-keys", held


def test_a_new_run_keeps_nothing_of_an_old_run_another_writer_left(env: Env, namespace: str) -> None:
    plan_hash = env.setup()
    # An earlier run, rejected, as an older operator wrote it (a merge patch, not this operator's apply):
    # its keys are co-owned by that writer, and an apply alone would leave them in place.
    old_run = {"planHash": "0" * 16, "attempt": 1, "state": "Stopped", "stopped": True, "rejectedBy": "bob",
               "rejection": "reject-old", "reason": "rejected before any step ran", "steps": [], "rollbacks": []}
    env.kubectl("patch", "incidents.recall.dev", INCIDENT, "-n", namespace, "--subresource=status", "--type=merge",
                "-p", json.dumps({"status": {"execution": old_run}}), check=True)
    with operator(namespace) as runner:
        wait_for("dry-runs finished", lambda: env.dry_run_done(plan_hash))
        env.approve("approve-new", plan_hash)
        ex = wait_for("the new run to end", lambda: (e := env.status("execution")).get("planHash") == plan_hash
                      and e.get("state") in ("Succeeded", "Failed", "Stopped", "RolledBack") and e)
    assert runner.exception is None, runner.output
    assert ex["state"] == "Succeeded" and ex["attempt"] == 2, ex
    assert not {"stopped", "rejectedBy", "rejection"} & set(ex), ex


def test_a_started_step_is_announced_even_when_its_pass_loses_the_status_race(
    env: Env, namespace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pass that created a Job and then lost its status write once announced nothing: the redo finds
    the Job already there. Here every status write that follows a Job creation loses once."""
    from recall_operator.handlers import execution

    real_create, real_apply = execution._create_job, execution._apply
    just_created = []

    async def create(api: Any, manifest: dict[str, Any]) -> Any:
        created, refusal = await real_create(api, manifest)
        if created:
            just_created.append(manifest["metadata"]["name"])
        return created, refusal

    async def apply(api: Any, incident: Any, changes: dict[str, Any]) -> bool:
        if just_created:
            just_created.clear()
            return False  # as if another writer got there first
        return await real_apply(api, incident, changes)

    monkeypatch.setattr(execution, "_create_job", create)
    monkeypatch.setattr(execution, "_apply", apply)
    plan_hash = env.setup()
    with operator(namespace) as runner:
        wait_for("dry-run results", lambda: env.dry_run_done(plan_hash))
        env.approve("approve-1", plan_hash)
        wait_for("execution Succeeded", lambda: env.status("execution").get("state") == "Succeeded")
        messages = wait_for("a Started Event for every dry-run and step Job", lambda: (
            m := env.event_messages()) and sum(r == "DryRunStarted" for r, _ in m) >= 3
            and sum(r == "StepStarted" for r, _ in m) >= len(STEP_NAMES) and m)
    assert runner.exception is None, runner.output
    started = sorted(text for reason, text in messages if reason == "StepStarted")
    assert started == sorted(f"step {s['name']} started as Job {jobkit.job_name(INCIDENT, 'run', s['name'], 1)}"
                             + (f", image {kwok_ran(s)} as its dry-run ran it" if s.get("dryRunCommand") else "")
                             for s in RUNBOOK["steps"])


def test_a_finished_step_whose_job_was_deleted_is_not_run_again(env: Env, namespace: str) -> None:
    """The Jobs are the record a restart reads: a step whose Job someone deleted ran once, and stays run."""
    plan_hash = env.setup()
    first = STEP_NAMES[0]
    with kept_default_registry(), operator(namespace) as runner:
        env.start_run(plan_hash)
        wait_for("the first step recorded as succeeded", lambda: any(
            s["name"] == first and s["result"] == "succeeded" for s in env.status("execution").get("steps") or []))
    assert runner.exception is None, runner.output
    env.kubectl("delete", "job", jobkit.job_name(INCIDENT, "run", first, 1), "-n", namespace, "--wait=true",
                check=True)
    with operator(namespace) as again:
        ex = wait_for("the run to end", lambda: (e := env.status("execution")).get("state") in machine.TERMINAL and e)
    assert again.exception is None, again.output
    assert ex["state"] == "Succeeded", ex
    steps = {s["name"]: s for s in ex["steps"]}
    assert steps[first]["result"] == "succeeded", steps[first]
    run_jobs = by_step(env.jobs(f"{jobkit.LABEL_PHASE}=run"))
    assert first not in run_jobs, "the deleted step's Job was created again"
    assert set(run_jobs) == set(STEP_NAMES) - {first}


def test_a_dry_run_job_deleted_mid_run_is_not_made_again_and_the_run_goes_on(env: Env, namespace: str) -> None:
    """The dry-run gated the run's start; deleting its Job later neither holds nor repeats anything."""
    plan_hash = env.setup()
    first, last = STEP_NAMES[0], STEP_NAMES[-1]
    with kept_default_registry(), operator(namespace) as runner:
        env.start_run(plan_hash)
        wait_for("the first step recorded as succeeded", lambda: any(
            s["name"] == first and s["result"] == "succeeded" for s in env.status("execution").get("steps") or []))
    assert runner.exception is None, runner.output
    gone = jobkit.job_name(INCIDENT, "dryrun", last, 1)
    env.kubectl("delete", "job", gone, "-n", namespace, "--wait=true", check=True)
    with operator(namespace) as again:
        ex = wait_for("the run to end", lambda: (e := env.status("execution")).get("state") in machine.TERMINAL and e)
        messages = wait_for("the unpinned step's warning", lambda: (m := env.event_messages()) and any(
            r == "StepImageNotPinned" for r, _ in m) and m)
    assert again.exception is None, again.output
    assert ex["state"] == "Succeeded", ex
    assert gone not in {j["metadata"]["name"] for j in env.jobs(f"{jobkit.LABEL_PHASE}=dryrun")}, "made again"
    dry = env.status("dryRun")
    assert {s["name"]: s["result"] for s in dry["steps"]}[last] == "succeeded", dry  # what it found stands
    unpinned = [m for r, m in messages if r == "StepImageNotPinned"]
    assert len(unpinned) == 1 and unpinned[0].startswith(f"step {last} runs image"), unpinned
    assert "the dry-run's Job is gone" in unpinned[0]


def test_a_job_an_admission_policy_forbids_ends_its_step_with_the_policy_s_reason(
        env: Env, namespace: str, kubectl: Callable[..., Any]) -> None:
    # A policy engine or a quota answers 403, not 422: the dry-run waited forever with no Job whose
    # deadline could end it, and the operator's log filled with the same failure every pass.
    name = f"no-jobs-{namespace}"
    policy = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
              "metadata": {"name": name},
              "spec": {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": [
                  {"apiGroups": ["batch"], "apiVersions": ["*"], "operations": ["CREATE"], "resources": ["jobs"]}]},
                  "validations": [{"expression": "false", "message": "Jobs need resource limits here",
                                   "reason": "Forbidden"}]}}
    binding = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
               "metadata": {"name": name},
               "spec": {"policyName": name, "validationActions": ["Deny"], "matchResources": {
                   "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}}}}}
    probe = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "probe", "namespace": namespace},
             "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "x"}]}}}}
    for obj in (policy, binding):
        kubectl("apply", "-f", "-", input=json.dumps(obj), check=True)
    try:
        wait_for("the policy in force", lambda: "Jobs need resource limits here" in kubectl(
            "create", "--dry-run=server", "-f", "-", input=json.dumps(probe)).stderr)
        plan_hash = env.setup()
        with operator(namespace) as runner:
            dry = wait_for("the dry-run ended by the refusal", lambda: env.dry_run_done(plan_hash))
        assert runner.exception is None, runner.output
        failed = [s for s in dry["steps"] if s["result"] == "failed"]
        assert failed, dry
        assert "Jobs need resource limits here" in json.dumps(dry), dry
        assert env.jobs() == []
    finally:
        for obj in (binding, policy):
            kubectl("delete", obj["kind"], obj["metadata"]["name"])


def test_a_plan_changed_mid_run_lets_its_step_end_keeps_its_record_and_names_what_ran(
        env: Env, namespace: str) -> None:
    # A GitOps sync edits the Runbook while its plan runs. The run used to end at once, Failed with no
    # steps recorded, its running Job abandoned, and the next Approval started step 1 beside it.
    plan_hash = env.setup()
    with operator(namespace) as runner:
        env.start_run(plan_hash)
        edited = cart_runbook()
        edited["steps"][-1]["command"] = ["kubectl", "rollout", "restart", "deployment/$(SERVICE)", "--now"]
        env.apply({"apiVersion": API_VERSION, "kind": "Runbook", "metadata": {"name": "cart-hot-keys"},
                   "spec": edited})
        ex = wait_for("the run to end", lambda: (e := env.status("execution")).get("state") in machine.TERMINAL and e)
    assert runner.exception is None, runner.output
    assert ex["reason"].startswith(f"the approved plan {plan_hash} changed"), ex
    results = {s["name"]: s["result"] for s in ex["steps"]}
    assert list(results) == STEP_NAMES, ex  # the run's own steps, not the new plan's, nor none
    ran = [n for n, r in results.items() if r in ("succeeded", "failed")]
    assert ran and "running" not in results.values(), ex  # the step that ran was let finish
    assert ex["state"] == "Failed" and f"not rolled back: {', '.join(ran)}" in ex["reason"], ex
    run_jobs = env.jobs(f"{jobkit.LABEL_PHASE}=run")
    assert sorted(by_step(run_jobs)) == sorted(ran)
    assert all(machine.job_times(j)[1] for j in run_jobs), "a step Job was left running"
    assert env.jobs(f"{jobkit.LABEL_PHASE}=rollback") == []


def test_a_job_someone_else_made_under_a_step_s_name_is_not_taken_for_the_step(env: Env, namespace: str) -> None:
    # Anyone who may create Jobs can make one with a step's name and labels. It was adopted as the step:
    # suspended, it held the dry-run for ever; finished, it stood for a step that never ran.
    squatter = jobkit.job_name(INCIDENT, "dryrun", "snapshot", 1)
    env.apply({"apiVersion": "batch/v1", "kind": "Job",
               "metadata": {"name": squatter, "labels": {jobkit.LABEL_INCIDENT: INCIDENT, jobkit.LABEL_PHASE: "dryrun",
                                                         jobkit.LABEL_STEP: "snapshot", jobkit.LABEL_ATTEMPT: "1"},
                            "annotations": {jobkit.ANN_INCIDENT_NAME: INCIDENT, jobkit.ANN_STEP_NAME: "snapshot"}},
               "spec": {"suspend": True, "template": {"spec": {"restartPolicy": "Never",
                                                                "containers": [{"name": "c", "image": "x"}]}}}})
    plan_hash = env.setup()
    with operator(namespace) as runner:
        dry = wait_for("the dry-run to end", lambda: env.dry_run_done(plan_hash))
    assert runner.exception is None, runner.output
    steps = {s["name"]: s for s in dry["steps"]}
    assert steps["snapshot"]["result"] == "failed", steps
    assert f"Job {squatter} exists and was not made by the operator for this Incident" in steps["snapshot"]["reason"]
    assert steps["flush-hot-keys"]["result"] == "succeeded" and not dry["ok"], dry


def test_an_approval_made_before_its_incident_approves_nothing_of_it(env: Env, namespace: str) -> None:
    # The planHash is a function of the Runbook and the report, so it can be worked out before the Incident
    # exists, or was approved for an earlier Incident of the same name: neither is a decision about this one.
    env.create_runbook("cart-hot-keys", RUNBOOK)
    early = build_plan(IncidentSpec.model_validate(INCIDENT_SPEC),
                       Runbook(name="cart-hot-keys", spec=RunbookSpec.model_validate(RUNBOOK))).plan_hash
    env.approve("approve-early", early)
    time.sleep(1.1)  # creation times are whole seconds
    env.create_incident(INCIDENT, INCIDENT_SPEC)
    assert env.recommend(INCIDENT, INCIDENT_SPEC, "cart-hot-keys", RUNBOOK) == early
    with operator(namespace) as runner:
        verdict = wait_for("the early approval judged", lambda: env.approval_state("approve-early").get("state")
                           and env.approval_state("approve-early"))
        wait_for("dry-runs finished", lambda: env.dry_run_done(early))
    assert runner.exception is None, runner.output
    assert verdict["state"] == "Refused" and verdict["reason"] == machine.EARLIER_INCIDENT.format(incident=INCIDENT)
    assert not env.status("execution") and env.jobs(f"{jobkit.LABEL_PHASE}=run") == []


def test_each_step_runs_the_image_its_dry_run_ran_not_what_its_tag_names_later(env: Env, namespace: str) -> None:
    # An image named by tag can change between the dry-run and the approval: whoever can push that tag
    # would run code nobody saw run. The run is pinned to the digest the kubelet reported for the dry-run.
    plan_hash = env.setup()
    local = "sha256:" + "3c" * 32  # an image loaded onto the node, not pulled: the runtime knows no registry digest
    image_ids = {"snapshot": "registry.example/library/redis-tools@sha256:" + "1a" * 32,
                 "restart-cart": "registry.example/library/kubectl@sha256:" + "2b" * 32, "flush-hot-keys": local}
    with operator(namespace) as runner:
        wait_for("dry-runs finished", lambda: env.dry_run_done(plan_hash))
        for step, image_id in image_ids.items():
            # What the kubelet wrote after its pull, as a real one would for these images.
            job = jobkit.job_name(INCIDENT, "dryrun", step, 1)
            pods = json.loads(env.kubectl("get", "pods", "-n", namespace, "-l", f"job-name={job}", "-o", "json",
                                          check=True).stdout)["items"]
            assert len(pods) == 1 and pods[0]["status"]["phase"] == "Succeeded", pods
            statuses = [{**c, "imageID": image_id} for c in pods[0]["status"]["containerStatuses"]]
            env.kubectl("patch", "pod", pods[0]["metadata"]["name"], "-n", namespace, "--subresource=status",
                        "--type=merge", "-p", json.dumps({"status": {"containerStatuses": statuses}}), check=True)
        env.approve("approve-1", plan_hash)
        ex = wait_for("execution Succeeded", lambda: (e := env.status("execution")).get("state") == "Succeeded" and e)
        messages = wait_for("the unpinned step's warning", lambda: (m := env.event_messages()) and any(
            r == "StepImageNotPinned" for r, _ in m) and m)
    assert runner.exception is None, runner.output
    images = {s: j["spec"]["template"]["spec"]["containers"][0]["image"]
              for s, j in by_step(env.jobs(f"{jobkit.LABEL_PHASE}=run")).items()}
    assert images == {"snapshot": "redis-tools:7@sha256:" + "1a" * 32, "announce": "notify:1",
                      "flush-hot-keys": "redis-tools:7", "restart-cart": "kubectl:1.36@sha256:" + "2b" * 32}
    assert {s["name"]: s["image"] for s in ex["steps"]} == images  # status says what each step ran
    # Only the step that had a dry-run and whose digest is unknown is warned about, with why; announce had none.
    unpinned = [m for r, m in messages if r == "StepImageNotPinned"]
    assert len(unpinned) == 1 and unpinned[0].startswith("step flush-hot-keys runs image redis-tools:7 as its tag"), unpinned
    assert f"the dry-run's pod reported no registry digest (imageID {local})" in unpinned[0]
    started = [m for r, m in messages if r == "StepStarted"]
    assert any("image redis-tools:7@sha256:" + "1a" * 32 + " as its dry-run ran it" in m for m in started), started
