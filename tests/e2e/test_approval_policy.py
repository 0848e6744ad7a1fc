"""The approval rules end to end: four-eyes, two approvers for a critical plan,
expiry, and the execution policy (auto dry-run off, the executor ServiceAccount),
with the operator's execution handlers (Kopf) against the real API server and
Jobs run by the controller manager and kwok.

The admission policies are not installed in the test cluster, so the test (as
admin) sets the Incident's `recall.dev/opened-by` annotation and the
Approvals' approvers itself; the operator trusts them as admission would make
them. The recommendation is written into the Incident's status directly, built
with `build_plan` from a Runbook created here, as in test_execution.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kit import Clock, KubeEnv, kept_default_registry
# Only the execution handlers, in a registry of their own (as in test_execution.py);
# their start-up handler reads the policy from the environment the test set.
from kit import execution_operator as run_operator
from recall_operator.domain import execution as machine
from recall_operator.kube import jobs as jobkit
from support import wait_for

pytestmark = pytest.mark.integration

INCIDENT = "inc-payments-stuck"
OPENER = "alice"
INCIDENT_SPEC = {"service": "payments", "title": "payments queue stuck", "severity": "critical",
                 "symptoms": ["queue-backlog"]}


def runbook(risk: str) -> dict[str, Any]:
    return {
        "title": "drain and restart payments",
        "services": ["payments"],
        "steps": [
            {"name": "inspect", "image": "tools:1", "command": ["queue", "stats", "$(SERVICE)"],
             "dryRunCommand": ["queue", "stats", "$(SERVICE)"], "risk": "low", "estimatedSeconds": 5},
            {"name": "drain", "image": "tools:1", "command": ["queue", "drain", "$(SERVICE)"],
             "dryRunCommand": ["queue", "drain", "--dry-run", "$(SERVICE)"],
             "rollbackCommand": ["queue", "refill", "$(SERVICE)"], "risk": risk, "estimatedSeconds": 5},
        ],
    }


class Env(KubeEnv):
    def jobs(self, phase: str | None = None) -> list[dict[str, Any]]:
        return self.list_jobs(f"{jobkit.LABEL_INCIDENT}={INCIDENT}" + (f",{jobkit.LABEL_PHASE}={phase}" if phase else ""))

    def status(self, key: str) -> dict[str, Any]:
        return self.status_field(INCIDENT, key)

    def setup(self, risk: str = "medium", service_account: str = jobkit.DEFAULT_SERVICE_ACCOUNT) -> str:
        """Runbook, an Incident opened by OPENER, the runner's ServiceAccount and a recommendation; returns its planHash."""
        rb = runbook(risk)
        self.create_runbook("payments-drain", rb, service_account)
        self.create_incident(INCIDENT, INCIDENT_SPEC, {"recall.dev/opened-by": OPENER})
        return self.recommend(INCIDENT, INCIDENT_SPEC, "payments-drain", rb, similarity=85, actionability=80)

    def approve(self, name: str, plan_hash: str, approver: str) -> None:
        self.approve_plan(INCIDENT, name, plan_hash, approver=approver)

    def approval(self, name: str) -> dict[str, Any]:
        return self.get("approvals.recall.dev", name)

    def judged(self, name: str) -> dict[str, Any]:
        return wait_for(f"approval {name} judged", lambda: (self.approval(name).get("status") or {}).get("state")
                        and self.approval(name)["status"])

    def dry_run_done(self, plan_hash: str) -> dict[str, Any] | None:
        return self.dry_run_of(INCIDENT, plan_hash)


@pytest.fixture
def env(kubectl: Callable[..., Any], namespace: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    for var in ("RECALL_FOUR_EYES", "RECALL_APPROVAL_EXPIRY_MINUTES", "RECALL_AUTO_DRY_RUN",
                "RECALL_EXECUTOR_SERVICE_ACCOUNT"):
        monkeypatch.delenv(var, raising=False)
    # The policy lives in each operator's memo: nothing to reset between tests.
    with kept_default_registry():
        yield Env(kubectl, namespace)


def created(obj: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(obj["metadata"]["creationTimestamp"].replace("Z", "+00:00"))


def test_the_opener_cannot_approve_and_another_person_can(env: Env, namespace: str,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RECALL_FOUR_EYES", "true")
    monkeypatch.setenv("RECALL_EXECUTOR_SERVICE_ACCOUNT", "payments-runner")
    plan_hash = env.setup(service_account="payments-runner")
    with run_operator(namespace) as runner:
        wait_for("dry-run results", lambda: env.dry_run_done(plan_hash))
        env.approve("by-opener", plan_hash, OPENER)
        refused = env.judged("by-opener")
        assert env.status("execution") == {} and env.jobs("run") == []  # judged Refused: nothing started
        env.approve("by-bob", plan_hash, "bob")
        accepted = env.judged("by-bob")
        ex = wait_for("execution Succeeded", lambda: (e := env.status("execution")).get("state") == "Succeeded" and e)
        run_jobs = len(env.jobs("run"))
        env.approve("late-by-carol", plan_hash, "carol")  # a late Approval of the plan that already ran
        late = env.judged("late-by-carol")
        after = env.status("execution")
    assert runner.exception is None, runner.output
    assert refused["state"] == "Refused" and "four-eyes" in refused["reason"], refused
    assert accepted["state"] == "Accepted", accepted
    assert ex["approvedBy"] == "bob" and ex["approvals"] == ["by-bob"]
    assert late["state"] == "Refused" and "already ran" in late["reason"], late
    assert after["attempt"] == ex["attempt"] and after["state"] == "Succeeded", after
    assert len(env.jobs("run")) == run_jobs  # nothing ran a second time
    jobs = env.jobs()
    assert {j["metadata"]["labels"][jobkit.LABEL_PHASE] for j in jobs} == {"dryrun", "run"}
    assert {j["spec"]["template"]["spec"]["serviceAccountName"] for j in jobs} == {"payments-runner"}


def test_who_set_the_parameters_cannot_approve_the_plan_they_run_with(env: Env, namespace: str) -> None:
    # Admission signs the parameters with who set them (tests/integration/test_admission.py); here the
    # test signs them itself, as admission would have.
    plan_hash = env.setup()
    env.kubectl("annotate", "incidents.recall.dev", INCIDENT, "-n", namespace, "recall.dev/parameters-by=dave",
                check=True)
    with run_operator(namespace) as runner:
        wait_for("dry-run results", lambda: env.dry_run_done(plan_hash))
        env.approve("by-dave", plan_hash, "dave")
        refused = env.judged("by-dave")
        assert env.status("execution") == {} and env.jobs("run") == []
        env.approve("by-bob", plan_hash, "bob")
        accepted = env.judged("by-bob")
    assert runner.exception is None, runner.output
    assert refused["state"] == "Refused" and "dave set the incident's parameters" in refused["reason"], refused
    assert accepted["state"] == "Accepted", accepted


def test_critical_plan_needs_two_distinct_approvers(env: Env, namespace: str) -> None:
    plan_hash = env.setup(risk="critical")
    with run_operator(namespace) as runner:
        wait_for("dry-run results", lambda: env.dry_run_done(plan_hash))
        env.approve("by-bob", plan_hash, "bob")
        first = env.judged("by-bob")
        env.approve("by-bob-again", plan_hash, "bob")  # the same person twice is one approver
        again = env.judged("by-bob-again")
        env.approve("by-opener", plan_hash, OPENER)  # the opener never counts
        opener = env.judged("by-opener")
        assert env.status("execution") == {} and env.jobs("run") == []  # all judged: nothing started
        env.approve("by-carol", plan_hash, "carol")
        second = env.judged("by-carol")
        ex = wait_for("execution Succeeded", lambda: (e := env.status("execution")).get("state") == "Succeeded" and e)
        counted = wait_for("the first approval counted", lambda: (env.approval("by-bob").get("status") or {}).get(
            "state") == "Accepted" and env.approval("by-bob")["status"])
    assert runner.exception is None, runner.output
    assert first["state"] == "Pending" and "needs 2 distinct approvers; has 1 (bob)" in first["reason"], first
    assert again["state"] == "Pending", again
    assert opener["state"] == "Refused" and "four-eyes" in opener["reason"], opener
    assert second["state"] == "Accepted", second
    assert "by-carol" in counted["reason"]
    assert ex["approvedBy"] == "bob,carol"
    assert ex["approval"] == "by-carol" and set(ex["approvals"]) == {"by-carol", "by-bob", "by-bob-again"}
    assert sorted(j["metadata"]["labels"][jobkit.LABEL_STEP] for j in env.jobs("run")) == ["drain", "inspect"]
    # Neither run Job was made before the second approver's Approval existed.
    assert min(created(j) for j in env.jobs("run")) >= created(env.approval("by-carol"))


def test_an_expired_approval_is_expired_and_runs_nothing(env: Env, namespace: str,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RECALL_APPROVAL_EXPIRY_MINUTES", "1")
    plan_hash = env.setup()
    # Made while no operator runs, and judged by one whose clock says two minutes have passed.
    env.approve("by-bob", plan_hash, "bob")
    clock = Clock()
    clock.advance(timedelta(minutes=2))
    with run_operator(namespace, clock=clock) as runner:
        st = env.judged("by-bob")
        wait_for("dry-run results", lambda: env.dry_run_done(plan_hash))
        ex = env.status("execution")
        run_jobs = env.jobs("run")
    assert runner.exception is None, runner.output
    assert st["state"] == "Expired" and "expired" in st["reason"], st
    assert ex == {} and run_jobs == []


def test_without_auto_dry_run_the_accepted_approval_starts_the_dry_run_then_the_run(
        env: Env, namespace: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RECALL_AUTO_DRY_RUN", "false")
    plan_hash = env.setup()
    with run_operator(namespace) as runner:
        env.approve("by-opener", plan_hash, OPENER)
        assert env.judged("by-opener")["state"] == "Refused"
        env.approve("by-bob", plan_hash, "bob")
        assert env.judged("by-bob")["state"] == "Accepted"
        ex = wait_for("execution Succeeded", lambda: (e := env.status("execution")).get("state") == "Succeeded" and e)
    assert runner.exception is None, runner.output
    assert ex["approvedBy"] == "bob"
    dry_jobs, run_jobs = env.jobs("dryrun"), env.jobs("run")
    assert len(dry_jobs) == 2 and len(run_jobs) == 2
    # No dry-run before the Approval was accepted; no run before the dry-runs finished.
    assert min(created(j) for j in dry_jobs) >= created(env.approval("by-bob"))
    ends = [machine.job_times(j)[1] for j in dry_jobs]  # when the operator saw each one end
    assert all(ends), [j["status"] for j in dry_jobs]
    last_dry = max(e for e in ends if e)
    assert min(j["metadata"]["creationTimestamp"] for j in run_jobs) >= last_dry


def test_a_wrong_policy_value_stops_start_up_naming_the_variable(env: Env, namespace: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RECALL_APPROVAL_EXPIRY_MINUTES", "an hour")
    plan_hash = env.setup()
    env.approve("by-bob", plan_hash, "bob")
    with run_operator(namespace, reraise=False) as runner:
        # Start-up fails and the operator stops by itself (KopfRunner has no public "finished").
        wait_for("the operator to stop by itself", lambda: not runner._thread.is_alive())
    assert "RECALL_APPROVAL_EXPIRY_MINUTES='an hour' is not a number" in runner.output
    assert runner.exit_code != 0
    assert env.approval("by-bob").get("status") is None and env.jobs() == []  # nothing was judged or run


def test_a_pending_approval_that_lapses_says_so_and_does_not_count(env: Env, namespace: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RECALL_APPROVAL_EXPIRY_MINUTES", "1")
    plan_hash = env.setup(risk="critical")
    clock = Clock()
    with run_operator(namespace, clock=clock) as runner:
        wait_for("dry-run results", lambda: env.dry_run_done(plan_hash))
        env.approve("by-bob", plan_hash, "bob")
        first = env.judged("by-bob")
        made = created(env.approval("by-bob"))
        # Creation times have whole seconds: Carol's must fall in a later second than Bob's.
        wait_for("a second after Bob's approval", lambda: datetime.now(UTC) >= made + timedelta(seconds=1))
        # The operator's time is now just past Bob's expiry, and within Carol's.
        clock.freeze(made + timedelta(minutes=1, seconds=0.5))
        # Carol comes too late: Bob's approval no longer counts, so Carol's waits for another.
        env.approve("by-carol", plan_hash, "carol")
        second = env.judged("by-carol")
        lapsed = wait_for("the first approval marked Expired", lambda: (env.approval("by-bob").get("status") or {}).get(
            "state") == "Expired" and env.approval("by-bob")["status"])
        ex = env.status("execution")
        run_jobs = env.jobs("run")
    assert runner.exception is None, runner.output
    assert first["state"] == "Pending" and first["expiresAt"] == (made + timedelta(minutes=1)).strftime(
        "%Y-%m-%dT%H:%M:%SZ"), first
    assert second["state"] == "Pending" and "has 1 (carol)" in second["reason"], second
    assert "no further approver came within" in lapsed["reason"], lapsed
    assert ex == {} and run_jobs == []
