"""`recall demo` end to end: the command a new user runs, on the control plane it starts for itself.

The demo prints a walk through one page (why, dry-run, approve, Jobs,
resolve, the runbook's record, a recurrence). Its words are not the proof:
the demo is run with `--keep`, and the objects its cluster holds afterwards
are read back. The Approval is signed by the impersonated approver and was
accepted, every step ran as a dry-run Job and then as a run Job that
completed, the incident carries the on-call engineer's outcome and memory
took it, the Runbook's record moved by exactly that run, and the same page
sent again came back more actionable than the first time.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from recall_operator_dev.cluster import LocalCluster
from recall_operator_dev.demo import (
    APPROVER,
    DEMO_NAMESPACE,
    ON_CALL,
    OPENED_BY,
    DemoFailure,
    bounded_wait,
    history_steps,
    incident_reason,
    read_history,
    recurrence_name,
    runbook_record,
    sample_history,
)
from recall_operator.domain import execution as machine
from recall_operator.domain.consolidation import runbook_run_here
from recall_operator.kube import jobs as jobkit
from recall_operator.plugin import approval_name

pytestmark = pytest.mark.integration

# A bound on a hung demo, not a measure of its speed (it takes about a minute once the binaries are built).
DEMO_BOUND_S = 900


class Demo:
    def __init__(self, proc: subprocess.CompletedProcess[str], directory: Path) -> None:
        self.proc = proc
        self.output = proc.stdout + proc.stderr
        self.cluster = LocalCluster(directory / "cluster")
        events = read_history(sample_history())
        self.new = next(e["object"]["metadata"]["name"] for e in reversed(events) if e["type"] == "incident")
        steps, _ = history_steps(events, stop_before=self.new)
        self.past = [s.manifest for s in steps if s.kind == "incident"]
        self.again = recurrence_name(self.new, [m["metadata"]["name"] for m in self.past] + [self.new])

    def get(self, *args: str) -> dict[str, Any]:
        proc = self.cluster.kubectl("get", *args, "-n", DEMO_NAMESPACE, "-o", "json", check=True)
        return json.loads(proc.stdout)

    def incident(self, name: str) -> dict[str, Any]:
        return self.get("incident", name)


def _stop_operator(pid_file: Path) -> None:
    """The operator the demo left running (--keep), if it still runs; nothing else."""
    if not pid_file.is_file():
        return
    pid = int(pid_file.read_text().strip())
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return
    if b"recall_operator.cli" in cmdline:
        os.kill(pid, signal.SIGTERM)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Demo]:
    directory = tmp_path_factory.mktemp("demo")
    proc = subprocess.run(
        [sys.executable, "-m", "recall_operator.cli", "demo", "--dir", str(directory), "--keep"],
        capture_output=True, text=True, timeout=DEMO_BOUND_S, stdin=subprocess.DEVNULL,
    )
    try:
        yield Demo(proc, directory)
    finally:
        _stop_operator(directory / "operator.pid")
        LocalCluster(directory / "cluster").down()


def test_the_demo_walks_the_whole_loop_and_exits_zero(demo: Demo) -> None:
    assert demo.proc.returncode == 0, demo.output
    # Each step is shown with the command a person types.
    for command in (f"$ kubectl create -n {DEMO_NAMESPACE} --as {ON_CALL} -f {demo.new}.yaml",
                    f"$ kubectl recall why {demo.new} -n {DEMO_NAMESPACE}",
                    f"$ kubectl recall approve {demo.new} -n {DEMO_NAMESPACE} --as {APPROVER} --yes",
                    f"$ kubectl recall resolve {demo.new} -n {DEMO_NAMESPACE} --as {ON_CALL}",
                    f"$ kubectl get runbooks -n {DEMO_NAMESPACE}",
                    f"$ kubectl create -n {DEMO_NAMESPACE} --as {ON_CALL} -f {demo.again}.yaml",
                    f"$ kubectl get incidents -n {DEMO_NAMESPACE}"):
        assert command in demo.output, f"the demo did not show `{command}`:\n{demo.output}"


def test_the_incident_was_opened_by_the_on_call_engineer_and_approved_by_another_person(demo: Demo) -> None:
    incident = demo.incident(demo.new)
    assert incident["metadata"]["annotations"][OPENED_BY] == ON_CALL
    execution = incident["status"]["execution"]
    plan = execution["planHash"]
    approval = demo.get("approval", approval_name(demo.new, plan, APPROVER))
    # The API server's admission policy made the approver the impersonated user, not a field anyone could type.
    assert approval["spec"] == {**approval["spec"], "incident": demo.new, "planHash": plan,
                                "decision": "approve", "approver": APPROVER}
    assert approval["status"]["state"] == "Accepted", approval["status"]
    assert execution["approvedBy"] == APPROVER
    assert "operator: Accepted" in demo.output


def test_every_step_ran_as_a_dry_run_job_and_then_as_a_run_job_that_completed(demo: Demo) -> None:
    status = demo.incident(demo.new)["status"]
    steps = [s["name"] for s in status["recommendation"]["steps"]]
    assert steps, status["recommendation"]
    jobs = demo.get("jobs", "-l", jobkit.incident_selector(demo.new))["items"]
    by_phase: dict[str, dict[str, dict[str, Any]]] = {}
    for job in jobs:
        labels = job["metadata"]["labels"]
        by_phase.setdefault(labels[jobkit.LABEL_PHASE], {})[labels[jobkit.LABEL_STEP]] = job
    for phase in ("dryrun", "run"):
        assert sorted(by_phase.get(phase, {})) == sorted(steps), f"{phase} Jobs: {sorted(by_phase.get(phase, {}))}"
        for step, job in by_phase[phase].items():
            # Succeeded as the operator judges it: SuccessCriteriaMet comes first, Complete a moment later.
            assert job["status"].get("succeeded") == 1 and machine.job_progress(job).state == "succeeded", (
                f"{phase} Job of {step}: {job['status']}")
    assert "rollback" not in by_phase
    # The sample runbook's kubectl steps declare apiAccess: their pods get the
    # executor's projected token, and nothing else mounts one.
    api_steps = {s["name"] for s in status["recommendation"]["steps"] if s.get("apiAccess")}
    assert api_steps, "the demo's runbook calls kubectl, so its steps must declare API access"
    for phase in ("dryrun", "run"):
        for step, job in by_phase[phase].items():
            pod = job["spec"]["template"]["spec"]
            assert pod.get("automountServiceAccountToken") is False, (phase, step)
            projected = [v for v in pod.get("volumes") or [] if "projected" in v]
            assert bool(projected) == (step in api_steps), (phase, step, pod.get("volumes"))
    assert status["dryRun"]["ok"] is True and status["dryRun"]["planHash"] == status["execution"]["planHash"]
    assert status["execution"]["state"] == "Succeeded"
    assert [s["result"] for s in status["execution"]["steps"]] == ["succeeded"] * len(steps)


def test_the_outcome_was_recorded_by_the_on_call_engineer_and_memory_took_it(demo: Demo) -> None:
    incident = demo.incident(demo.new)
    resolution = incident["spec"]["resolution"]
    runbook = incident["status"]["recommendation"]["runbook"]
    assert resolution["confirmedBy"] == ON_CALL and resolution["runbook"] == runbook
    assert resolution["actions"] == [{"action": f"run runbook {runbook}", "result": "succeeded"}]
    assert incident["status"]["memory"]["consolidated"]  # the digest of what memory holds of it
    assert incident["status"]["phase"] == "Resolved"
    # The operator ran it here, so the success is the operator's record, not a person's report.
    assert runbook_run_here(incident["status"]) == runbook


def test_the_runbooks_record_moved_by_exactly_this_run(demo: Demo) -> None:
    runbook = demo.incident(demo.new)["status"]["recommendation"]["runbook"]
    # Before the walk the record held the history's runs of this runbook: every imported run named it.
    history_runs = [m for m in demo.past if (m["spec"]["resolution"].get("runbook") == runbook)]
    record = runbook_record(demo.cluster.kubectl, DEMO_NAMESPACE, runbook)
    assert record["timesExecuted"] == len(history_runs) + 1, record
    assert record["timesSucceeded"] == len(history_runs) + 1, record
    # The demo's own before/after line agrees with the object.
    line = re.search(rf"{re.escape(runbook)}: executed (\d+) -> (\d+), succeeded (\d+) -> (\d+)", demo.output)
    assert line, demo.output
    executed_before, executed_after, succeeded_before, succeeded_after = map(int, line.groups())
    assert (executed_before, succeeded_before) == (len(history_runs), len(history_runs))
    assert (executed_after, succeeded_after) == (record["timesExecuted"], record["timesSucceeded"])


def test_the_same_page_again_comes_back_with_more_confidence(demo: Demo) -> None:
    first = demo.incident(demo.new)
    second = demo.incident(demo.again)
    assert second["metadata"]["annotations"][OPENED_BY] == ON_CALL
    assert {k: v for k, v in second["spec"].items() if k != "startedAt"} == {
        k: v for k, v in first["spec"].items() if k not in ("startedAt", "resolution")}
    before, after = first["status"]["recommendation"], second["status"]["recommendation"]
    assert after["mode"] == "actionable" and after["runbook"] == before["runbook"]
    # Its plan was dry-run by the operator and waits for a person, as the demo's last table shows.
    assert second["status"]["dryRun"]["planHash"] == after["planHash"] and second["status"]["dryRun"]["ok"] is True
    assert second["status"]["phase"] == "AwaitingApproval"
    assert after["actionability"] > before["actionability"], (before, after)
    assert after["similarity"] >= before["similarity"], (before, after)
    # The first page is now among the precedents the recurrence stands on.
    assert demo.new in [m["incident"] for m in second["status"]["matches"]]


def test_a_wait_that_runs_out_says_what_it_waited_for_and_what_the_incident_says() -> None:
    status = {"phase": "DryRun", "conditions": [
        {"type": "Triaged", "status": "True", "reason": "Actionable", "message": "similarity 99"},
        {"type": "Ready", "status": "False", "reason": "DryRunWaiting",
         "message": "step show-history: FailedCreate: serviceaccount recall-runbook-executor not found"}]}

    def kubectl(*args: str, **_: Any) -> subprocess.CompletedProcess[str]:
        assert args[:2] == ("get", "incident")
        return subprocess.CompletedProcess(args, 0, json.dumps({"status": status}), "")

    with pytest.raises(DemoFailure) as failure:
        bounded_wait("the dry-run Jobs of plan abc to finish", lambda: None, 0,
                     lambda: incident_reason(kubectl, DEMO_NAMESPACE, "inc-1"))
    text = str(failure.value)
    assert "gave up waiting for the dry-run Jobs of plan abc to finish after 0 s" in text
    assert "phase: DryRun" in text
    assert ("condition Ready=False (DryRunWaiting): step show-history: FailedCreate: serviceaccount "
            "recall-runbook-executor not found") in text


def test_a_demo_whose_jobs_cannot_start_stops_before_approval_and_says_why(tmp_path: Path) -> None:
    # Step Jobs that name a ServiceAccount the namespace lacks never get a pod: the dry-run fails at its deadline.
    env = {**os.environ, "RECALL_EXECUTOR_SERVICE_ACCOUNT": "nobody-here"}
    proc = subprocess.run(
        [sys.executable, "-m", "recall_operator.cli", "demo", "--dir", str(tmp_path / "demo")],
        capture_output=True, text=True, timeout=DEMO_BOUND_S, stdin=subprocess.DEVNULL, env=env,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "recall demo: the dry-run of plan" in proc.stderr and "failed; nothing may run" in proc.stderr
    # The reason is the incident's own status, read from the API server, not a guess of the demo's.
    assert "incident inc-010's status:" in proc.stderr and "condition Ready=False" in proc.stderr
    assert "dry-run step show-history: failed" in proc.stderr and "nobody-here" in proc.stderr
    assert "$ kubectl recall approve" not in proc.stdout
