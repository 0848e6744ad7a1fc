"""The attack round of issue 12, replayed against the operator on the real API server.

Attackers act as users holding the chart's roles (manifests/rbac.yaml, bound
in the test's namespace; kubectl --as), or as the cluster admin where the
attack needs one (forged status). The admission policies are not installed
here (tests/integration/test_admission.py refuses the same attacks at the API
server); these tests show what the operator itself refuses when a request
gets through: the same user signs with their own name, which admission lets by.

- fake outcomes on someone else's incidents move neither a runbook's win rate
  nor the mode of a new incident that resembles them (item 1);
- an Approval of a resolved incident is Refused and runs nothing (item 2);
- a forged status.execution, or a forged actionable recommendation, runs no
  Job (item 3);
- an incident the alert bridge opened needs two approvers (item 5);
- a success claimed for a runbook whose run the operator saw fail is
  remembered as reported, after the failure the operator observed: it
  counts as a failure and the runbook is not actionable for a look-alike;
- incidents one person opened and resolved herself, where the operator ran
  nothing, neither out-vote nor block a runbook the operator saw work, move
  no win rate and propose no Contradiction (consolidation.one_voice);
- a runbook that really ran on one service is never actionable against a
  neighbouring service it does not list (gate policy fix_for_other_services).
- a responder's pointer from an alert's first Incident to an unrelated open
  one does not take the alert's next firing (the bridge follows only an
  Incident it opened for that alert).

Every wait ends (support.wait_for names what it waited for); "nothing ran" is
asserted only after something observable shows the operator has passed by.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from kopf.testing import KopfRunner

from kit import KubeEnv, cart_runbook, kept_default_registry
from kit import execution_operator as run_execution
from recall_operator.domain.approval_rules import BRIDGE_OPENER
from recall_operator.handlers import ENV_BACKEND, ENV_PATH
from recall_operator.kube import jobs as jobkit
from recall_operator.runner import operator_args
from support import wait_for

pytestmark = pytest.mark.integration

MANIFESTS = Path(__file__).resolve().parents[2] / "manifests"
RUNBOOK_NAME = "cart-recycle"
RUNBOOK = cart_runbook("snapshot, flush and recycle cart", symptoms=["latency-spike"])
SPEC = {"service": "cart", "title": "cart p99 latency over 2s", "severity": "high", "symptoms": ["latency-spike"]}
MALLORY = "mallory"  # recall-responder: may open incidents and record outcomes
ATTACKS: list[str] = []  # refused attacks, for the report


class Env(KubeEnv):
    def as_user(self, user: str, *args: str, input: str | None = None) -> Any:
        return self.kubectl(*args, "-n", self.ns, as_user=user, input=input)

    def jobs(self, incident: str, phase: str | None = None) -> list[dict[str, Any]]:
        selector = f"{jobkit.LABEL_INCIDENT}={incident}" + (f",{jobkit.LABEL_PHASE}={phase}" if phase else "")
        return self.list_jobs(selector)

    def approve_as(self, user: str, incident: str, name: str, plan_hash: str) -> None:
        body = {"apiVersion": "recall.dev/v1alpha1", "kind": "Approval", "metadata": {"name": name},
                "spec": {"incident": incident, "planHash": plan_hash, "decision": "approve", "approver": user}}
        proc = self.as_user(user, "create", "-f", "-", input=json.dumps(body))
        assert proc.returncode == 0, proc.stderr

    def judged(self, name: str) -> dict[str, Any]:
        return wait_for(f"approval {name} judged",
                        lambda: (self.get("approvals.recall.dev", name).get("status") or {}).get("state")
                        and self.get("approvals.recall.dev", name)["status"])

    def resolve_as(self, user: str, incident: str, resolution: dict[str, Any]) -> None:
        proc = self.as_user(user, "patch", "incidents.recall.dev", incident, "--type=merge",
                            "-p", json.dumps({"spec": {"resolution": resolution}}))
        assert proc.returncode == 0, proc.stderr

    def forge_status(self, incident: str, status: dict[str, Any]) -> None:
        self.kubectl("patch", "incidents.recall.dev", incident, "-n", self.ns, "--subresource=status",
                     "--type=merge", "-p", json.dumps({"status": status}), check=True)


@pytest.fixture
def env(kubectl: Callable[..., Any], namespace: str) -> Iterator[Env]:
    proc = kubectl("apply", "--server-side", "--force-conflicts", "--field-manager=recall-test",
                   "-f", str(MANIFESTS / "namespace-restricted.yaml"), "-f", str(MANIFESTS / "rbac.yaml"))
    assert proc.returncode == 0, proc.stderr
    for user, role in ((MALLORY, "recall-responder"), ("bob", "recall-approver"), ("carol", "recall-approver"),
                       (MALLORY, "recall-approver")):
        kubectl("create", "rolebinding", f"{role}-{user}", f"--clusterrole={role}", f"--user={user}", "-n", namespace,
                check=True)
    with kept_default_registry():
        yield Env(kubectl, namespace)


# -- item 1: memory poisoning --------------------------------------------------


def test_outcomes_as_large_as_a_responder_may_write_them_leave_later_look_alikes_answered(
    operator: Any, env: Env, tmp_path: Path
) -> None:
    # A responder may list 64 actions of 4,096 characters in an outcome. Each answer used to copy every
    # action of every match into its status, about 770 KB a match here: a look-alike recalling two of them
    # could become too large to take its own outcome (etcd's limit), and more leave later incidents without
    # an answer that fits. An answer repeats the last eight actions of a match, each cut to a line.
    wording = {**SPEC, "description": "cart answers slowly after the release, checkout times out"}
    actions = [{"action": f"{i:02d} " + "\u65e5" * 4000, "result": "failed"} for i in range(63)]
    actions.append({"action": "rolled the release back by hand", "result": "succeeded"})
    loud = [f"inc-loud-{i}" for i in range(3)]
    for name in loud:
        made = env.as_user(MALLORY, "create", "-f", "-", input=json.dumps({
            "apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "metadata": {"name": name}, "spec": wording}))
        assert made.returncode == 0, made.stderr
        _triaged(env, name)
        patch = tmp_path / f"{name}.json"  # too long for an argument (128 KiB at most)
        patch.write_text(json.dumps({"spec": {"resolution": {
            "rootCause": "a bad release", "summary": "rolled back by hand", "actions": actions,
            "confirmedBy": MALLORY}}}), encoding="utf-8")
        proc = env.as_user(MALLORY, "patch", "incidents.recall.dev", name, "--type=merge", f"--patch-file={patch}")
        assert proc.returncode == 0, proc.stderr
        wait_for(f"{name}'s outcome in memory", lambda n=name: env.status_field(n, "memory").get("consolidated"))
    env.create_incident("inc-quiet", wording, {"recall.dev/opened-by": "olga"})
    _triaged(env, "inc-quiet")
    status = env.get("incidents.recall.dev", "inc-quiet")["status"]
    matched = [m for m in status["matches"] if m["incident"] in loud]
    assert len(matched) == 3, status["matches"]
    for match in matched:
        assert match["actionsLeftOut"] == 56 and len(match["actions"]) == 8
        assert match["actions"][-1] == {"action": "rolled the release back by hand", "result": "succeeded"}
    assert len(json.dumps(status).encode()) < 100_000


def _triaged(env: Env, name: str) -> dict[str, Any]:
    return wait_for(f"{name} triaged", lambda: (r := env.status_field(name, "recommendation")).get("mode") and r)


def test_fake_outcomes_move_neither_the_win_rate_nor_the_mode(operator: Any, env: Env) -> None:
    env.create_runbook(RUNBOOK_NAME, RUNBOOK)
    wording = {**SPEC, "description": "checkout stalls while cart answers slowly, redis hot keys on shard 3"}
    # Someone else's incidents, open; and a look-alike triaged before any outcome exists.
    for i in (1, 2, 3):
        env.create_incident(f"inc-victim-{i}", wording, {"recall.dev/opened-by": "olga"})
        _triaged(env, f"inc-victim-{i}")
    env.create_incident("inc-before", wording, {"recall.dev/opened-by": "olga"})
    before = _triaged(env, "inc-before")

    # The attack: three "succeeded" outcomes for a runbook that never ran on those incidents,
    # signed by mallory herself (admission lets that through: the signature is true).
    fake = {"summary": "recycled cart, latency back to normal", "runbook": RUNBOOK_NAME, "confirmedBy": MALLORY,
            "rootCause": "redis hot keys on shard 3",
            "actions": [{"action": f"run runbook {RUNBOOK_NAME}", "result": "succeeded"}]}
    for i in (1, 2, 3):
        env.resolve_as(MALLORY, f"inc-victim-{i}", fake)
    for i in (1, 2, 3):
        wait_for(f"inc-victim-{i}'s outcome in memory",
                 lambda i=i: env.status_field(f"inc-victim-{i}", "memory").get("consolidated"))

    env.create_incident("inc-after", wording, {"recall.dev/opened-by": "olga"})
    after = _triaged(env, "inc-after")
    # Remembered as reported fixes, the look-alikes make the new incident familiar (novel
    # -> advisory), but they lend the runbook no authority: nothing becomes actionable.
    assert before["mode"] != "actionable" and after["mode"] != "actionable", (before, after)
    runbook_status = env.get("runbooks.recall.dev", RUNBOOK_NAME).get("status") or {}
    assert int(runbook_status.get("timesExecuted") or 0) == 0, runbook_status
    assert int(runbook_status.get("timesSucceeded") or 0) == 0, runbook_status
    # The precedents are there, shown for what they are: reported, not run.
    victims = [m for m in env.incident_status("inc-after")["matches"] if m["incident"].startswith("inc-victim-")]
    assert victims and all(m.get("runbook") is None for m in victims), victims
    # The status the API server stores says so of each claimed success (the CRD keeps `reported`).
    assert all(m["actions"] == [{"action": f"run runbook {RUNBOOK_NAME}", "result": "succeeded", "reported": True}]
               for m in victims), victims
    ATTACKS.append("three fake outcomes did not move the win rate or the mode")


def test_a_deleted_incident_s_name_taken_again_does_not_rewrite_its_memory(
    operator: Any, env: Env, memory_path: Path
) -> None:
    import asyncio

    from recall_operator.memory.embedded import EmbeddedMemory

    env.create_incident("inc-past", SPEC, {"recall.dev/opened-by": "olga"})
    _triaged(env, "inc-past")
    env.kubectl("patch", "incidents.recall.dev", "inc-past", "-n", env.ns, "--type=merge", "-p", json.dumps(
        {"spec": {"resolution": {"summary": "recycled cart", "confirmedBy": "olga"}}}), check=True)
    wait_for("inc-past in memory", lambda: env.status_field("inc-past", "memory").get("consolidated"))
    env.kubectl("delete", "incidents.recall.dev", "inc-past", "-n", env.ns, "--wait=true", check=True)

    # The attack: the name is free in the cluster, so mallory opens it again and records her story.
    made = env.as_user(MALLORY, "create", "-f", "-", input=json.dumps({
        "apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "metadata": {"name": "inc-past"}, "spec": SPEC}))
    assert made.returncode == 0, made.stderr
    _triaged(env, "inc-past")
    env.resolve_as(MALLORY, "inc-past", {"summary": "it was never the cache; restart everything", "confirmedBy": MALLORY})
    refused = wait_for("the outcome refused", lambda: env.status_field("inc-past", "memory").get("refused"))
    assert "another incident named inc-past" in refused, refused

    store = EmbeddedMemory(memory_path)
    try:
        held = asyncio.run(store.get("inc-past", env.ns))
    finally:
        asyncio.run(store.close())
    assert held is not None and held.resolution.summary == "recycled cart", held
    ATTACKS.append("a deleted incident's name taken again did not rewrite its memory")


# -- item 2: approvals after the fact ----------------------------------------------


def test_an_approval_of_a_resolved_incident_is_refused_and_runs_nothing(env: Env, namespace: str) -> None:
    env.create_runbook(RUNBOOK_NAME, RUNBOOK)
    env.create_incident("inc-done", SPEC, {"recall.dev/opened-by": "olga"})
    plan_hash = env.recommend("inc-done", SPEC, RUNBOOK_NAME, RUNBOOK)
    env.resolve_as(MALLORY, "inc-done", {"summary": "went away by itself", "confirmedBy": MALLORY})
    with run_execution(namespace) as runner:
        env.approve_as("bob", "inc-done", "late-approval", plan_hash)
        verdict = env.judged("late-approval")
    assert runner.exception is None, runner.output
    assert verdict["state"] == "Refused", verdict
    assert "resolved (outcome confirmed by mallory)" in verdict["reason"], verdict
    assert env.status_field("inc-done", "execution") == {}
    assert env.jobs("inc-done") == [], "a resolved incident starts nothing, dry-runs included"
    ATTACKS.append("an Approval of a resolved incident")


# -- item 3: status the operator did not write --------------------------------------


def test_forged_status_runs_no_job(env: Env, namespace: str) -> None:
    env.create_runbook(RUNBOOK_NAME, RUNBOOK)
    for name in ("inc-forged-mode", "inc-forged-exec", "inc-forged-failure", "inc-sealed"):
        env.create_incident(name, SPEC, {"recall.dev/opened-by": "olga"})
    # A forged `mode: actionable` (no seal), and a forged approved execution on a sealed plan.
    forged_hash = env.recommend("inc-forged-mode", SPEC, RUNBOOK_NAME, RUNBOOK, sealed=False)
    env.forge_status("inc-forged-mode", {"execution": {
        "planHash": forged_hash, "approval": "ghost", "approvals": ["ghost"], "approvedBy": "bob", "attempt": 1,
        "state": "Running", "steps": [], "rollbacks": []}})
    exec_hash = env.recommend("inc-forged-exec", SPEC, RUNBOOK_NAME, RUNBOOK)
    # An Approval that exists, but for another incident: it proves nothing about this one.
    env.approve_as("bob", "inc-other", "bob-elsewhere", exec_hash)
    env.forge_status("inc-forged-exec", {"execution": {
        "planHash": exec_hash, "approval": "bob-elsewhere", "approvals": ["bob-elsewhere"], "approvedBy": "bob",
        "attempt": 1, "state": "Running", "steps": [], "rollbacks": []}})
    # A forged run that claims its first step succeeded and its second failed: the claims alone
    # ask for a rollback of the first, a command that runs with the executor's rights.
    failure_hash = env.recommend("inc-forged-failure", SPEC, RUNBOOK_NAME, RUNBOOK)
    first, second = (s["name"] for s in RUNBOOK["steps"][:2])
    env.forge_status("inc-forged-failure", {"execution": {
        "planHash": failure_hash, "approval": "ghost", "approvals": ["ghost"], "approvedBy": "bob", "attempt": 7,
        "state": "Running", "steps": [{"name": first, "result": "succeeded"}, {"name": second, "result": "failed"}],
        "rollbacks": []}})
    sealed_hash = env.recommend("inc-sealed", SPEC, RUNBOOK_NAME, RUNBOOK)
    with run_execution(namespace) as runner:
        # The sealed incident is the control: its dry-run runs, so the operator has passed by the others.
        wait_for("the sealed plan's dry-run", lambda: env.dry_run_of("inc-sealed", sealed_hash))
        stopped = wait_for("the forged execution stopped",
                           lambda: (e := env.status_field("inc-forged-exec", "execution")).get("state") == "Stopped" and e)
        claimed = wait_for("the forged failure stopped",
                           lambda: (e := env.status_field("inc-forged-failure", "execution")).get("state") == "Stopped"
                           and e)
        waiting = wait_for("the unsealed execution explained",
                           lambda: "seal" in (e := env.status_field("inc-forged-mode", "execution")).get("reason", "")
                           and e)
    assert runner.exception is None, runner.output
    assert "nothing runs: no Approval bob-elsewhere approves incident inc-forged-exec" in stopped["reason"], stopped
    assert waiting["state"] == "Running" and "does not carry this operator's seal" in waiting["reason"], waiting
    assert env.jobs("inc-forged-mode") == [], "a forged actionable mode ran Jobs"
    assert env.jobs("inc-forged-exec", "run") == [], "a forged execution ran steps"
    assert "nothing runs: no Approval ghost" in claimed["reason"], claimed
    assert [j["metadata"]["name"] for j in env.jobs("inc-forged-failure") if j["metadata"]["labels"].get(
        jobkit.LABEL_PHASE) != "dryrun"] == [], "a forged failure rolled back a step nobody approved"
    assert env.jobs("inc-sealed", "run") == []  # never approved: dry-run only
    ATTACKS.extend(["an admin-forged status.execution", "an admin-forged actionable mode",
                    "an admin-forged step failure asking for a rollback"])


# -- item 5: the alert bridge's incidents ------------------------------------------


def test_a_bridge_incident_needs_two_approvers(env: Env, namespace: str) -> None:
    env.create_runbook(RUNBOOK_NAME, RUNBOOK)
    env.create_incident("alert-f00d", SPEC, {"recall.dev/opened-by": BRIDGE_OPENER,
                                             "recall.dev/alert-fingerprint": "f00d"})
    plan_hash = env.recommend("alert-f00d", SPEC, RUNBOOK_NAME, RUNBOOK)
    with run_execution(namespace) as runner:
        wait_for("dry-run results", lambda: env.dry_run_of("alert-f00d", plan_hash))
        env.approve_as(MALLORY, "alert-f00d", "mallory-alone", plan_hash)
        alone = env.judged("mallory-alone")
        assert env.jobs("alert-f00d", "run") == []
        env.approve_as("bob", "alert-f00d", "bob-too", plan_hash)
        ex = wait_for("the run to finish", lambda: (e := env.status_field("alert-f00d", "execution")).get("state")
                      in ("Succeeded", "Failed", "Stopped", "RolledBack") and e, deadline=90)
    assert runner.exception is None, runner.output
    assert alone["state"] == "Pending" and "alert bridge opened the incident" in alone["reason"], alone
    assert ex["state"] == "Succeeded" and ex["approvedBy"] == "bob,mallory" and ex["runbook"] == RUNBOOK_NAME, ex
    runs = env.jobs("alert-f00d", "run")
    assert runs and all(sorted(jobkit.approvals_of(j)) == ["bob-too", "mallory-alone"] for j in runs)
    assert all(j["metadata"]["annotations"][jobkit.ANN_RUNBOOK] == RUNBOOK_NAME for j in runs)
    ATTACKS.append("one person approving a bridge-opened incident alone")


# -- a runbook's age (gate policy newer_runbook_written) ---------------------------


def test_nobody_dates_a_runbook_to_outrank_memory(env: Env) -> None:
    """A runbook created after memory's fix worked is shown instead of it: its age must be the API server's word."""
    body = {"apiVersion": "recall.dev/v1alpha1", "kind": "Runbook",
            "metadata": {"name": "cart-newer", "creationTimestamp": "2031-01-01T00:00:00Z"}, "spec": RUNBOOK}
    # The chart's roles write no Runbook at all: the catalog is the GitOps repository's.
    for user in (MALLORY, "bob"):
        proc = env.as_user(user, "create", "-f", "-", input=json.dumps(body))
        assert proc.returncode != 0 and "forbidden" in proc.stderr.lower(), proc.stderr
    # Whoever may write one (here the admin) cannot choose its creation time either.
    proc = env.kubectl("create", "-n", env.ns, "-f", "-", input=json.dumps(body))
    assert proc.returncode == 0, proc.stderr
    created = env.get("runbooks.recall.dev", "cart-newer")["metadata"]["creationTimestamp"]
    assert not created.startswith("2031"), created
    ATTACKS.append("a runbook dated by its author")


# -- a neighbour's runbook (gate policy fix_for_other_services) -------------------


def _full_operator(namespace: str, memory_path: Path, monkeypatch: pytest.MonkeyPatch) -> KopfRunner:
    """The whole operator on an embedded memory file, started after the execution-only one."""
    monkeypatch.setenv(ENV_BACKEND, "embedded")
    monkeypatch.setenv(ENV_PATH, str(memory_path))
    return KopfRunner(operator_args([namespace]), timeout=60)


def _run_approved_by_bob(env: Env, namespace: str, incident: str, spec: dict[str, Any],
                         annotations: dict[str, str] | None = None) -> dict[str, Any]:
    """The runbook really run for an incident olga opened: recommended, dry-run, approved by bob, its Jobs run."""
    env.create_incident(incident, spec, {"recall.dev/opened-by": "olga", **(annotations or {})})
    plan_hash = env.recommend(incident, spec, RUNBOOK_NAME, RUNBOOK)  # standing in for the first triage
    with kept_default_registry(), run_execution(namespace) as runner:  # the full operator after it needs it back
        wait_for("dry-run results", lambda: env.dry_run_of(incident, plan_hash))
        env.approve_as("bob", incident, f"bob-{incident}", plan_hash)
        ran = wait_for("the run to finish", lambda: (e := env.status_field(incident, "execution")).get("state")
                       in ("Succeeded", "Failed", "Stopped", "RolledBack") and e, deadline=90)
    assert runner.exception is None, runner.output
    return ran  # type: ignore[no-any-return]


def test_a_run_the_operator_saw_fail_is_remembered_as_failed_whatever_the_outcome_claims(
        env: Env, namespace: str, memory_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Mallory records that the runbook fixed it after the operator's own run of it failed and rolled back."""
    from recall_operator.memory.embedded import EmbeddedMemory

    monkeypatch.setenv("RECALL_ALLOW_SIMULATED_FAILURE", "1")
    words = {**SPEC, "description": "cart answers slowly; redis hot keys on shard 3 since 09:10"}
    env.create_runbook(RUNBOOK_NAME, RUNBOOK)
    ran = _run_approved_by_bob(env, namespace, "inc-cart", words, {"recall.dev/simulate-fail-step": "restart-cart"})
    assert ran["state"] == "RolledBack", ran

    with _full_operator(namespace, memory_path, monkeypatch) as full:
        env.resolve_as(MALLORY, "inc-cart", {
            "summary": "the runbook fixed it", "runbook": RUNBOOK_NAME, "confirmedBy": MALLORY,
            "actions": [{"action": f"run runbook {RUNBOOK_NAME}", "result": "succeeded"}]})
        wait_for("inc-cart's outcome in memory", lambda: env.status_field("inc-cart", "memory").get("consolidated"))
        env.create_incident("inc-again", words, {"recall.dev/opened-by": "olga"})
        again = _triaged(env, "inc-again")
    assert full.exception is None, full.output

    runbook_status = env.get("runbooks.recall.dev", RUNBOOK_NAME).get("status") or {}
    assert (runbook_status.get("timesExecuted"), runbook_status.get("timesSucceeded")) == (1, 0), runbook_status
    store = EmbeddedMemory(memory_path)
    try:
        held = asyncio.run(store.get("inc-cart", namespace))
    finally:
        asyncio.run(store.close())
    assert held is not None and held.resolution.runbook is None, held
    assert [(a.observed, a.reported, a.result) for a in held.resolution.actions] == [
        (True, False, "failed"), (False, True, "succeeded")], held.resolution.actions
    assert "restart-cart failed" in held.resolution.actions[0].action
    # The look-alike is told the runbook failed here, and is not offered it to run.
    assert not (again["mode"] == "actionable" and again["runbook"] == RUNBOOK_NAME), again
    assert any("failed" in w and "inc-cart" in w for w in again["warnings"] or []), again
    ATTACKS.append("a failed run claimed as a success")


WORDS = {**SPEC, "description": "cart answers slowly; redis hot keys on shard 3 since 09:10"}


def _seen_work_and_a_claimed_failure(env: Env, namespace: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """inc-seen, where the operator ran the runbook and saw it work; and mallory's claim that it failed."""
    env.create_runbook(RUNBOOK_NAME, RUNBOOK)
    ran = _run_approved_by_bob(env, namespace, "inc-seen", WORDS)
    assert ran["state"] == "Succeeded", ran
    claim = {"summary": "the runbook did nothing; restarted the redis primary by hand", "confirmedBy": MALLORY,
             "rootCause": "redis hot keys on shard 3",
             "actions": [{"action": f"run runbook {RUNBOOK_NAME}", "result": "failed"},
                         {"action": "restarted the redis primary by hand", "result": "succeeded"}]}
    return WORDS, claim


def _resolved_seen(env: Env) -> None:
    env.resolve_as(MALLORY, "inc-seen", {"summary": "the runbook fixed it", "runbook": RUNBOOK_NAME,
                                         "confirmedBy": MALLORY})
    wait_for("inc-seen's outcome in memory", lambda: env.status_field("inc-seen", "memory").get("consolidated"))


def _in_memory(env: Env, name: str) -> None:
    wait_for(f"{name}'s outcome in memory", lambda: env.status_field(name, "memory").get("consolidated"))


def _record_kept_and_nothing_proposed(env: Env, namespace: str) -> None:
    """The run the operator saw is the runbook's whole record, and no Contradiction was proposed in its name."""
    runbook_status = env.get("runbooks.recall.dev", RUNBOOK_NAME).get("status") or {}
    assert (runbook_status.get("timesExecuted"), runbook_status.get("timesSucceeded")) == (1, 1), runbook_status
    proposed = json.loads(env.kubectl("get", "contradictions.recall.dev", "-n", namespace, "-o", "json",
                                      check=True).stdout)["items"]
    assert proposed == [], [c["metadata"]["name"] for c in proposed]


def test_incidents_one_person_made_up_and_resolved_do_not_outweigh_a_run_the_operator_saw_work(
        env: Env, namespace: str, memory_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Mallory opens copies of a recurrence's report, each resolved by her at once: "the runbook failed,
    fixed by hand". Nobody else saw those incidents, and the operator ran nothing there."""
    words, claim = _seen_work_and_a_claimed_failure(env, namespace)
    with _full_operator(namespace, memory_path, monkeypatch) as full:
        _resolved_seen(env)
        for i in (1, 2):
            body = {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident",
                    "metadata": {"name": f"inc-copy-{i}", "annotations": {"recall.dev/opened-by": MALLORY}},
                    "spec": {**words, "resolution": claim}}
            proc = env.as_user(MALLORY, "create", "-f", "-", input=json.dumps(body))
            assert proc.returncode == 0, proc.stderr
            _in_memory(env, f"inc-copy-{i}")
        env.create_incident("inc-next", words, {"recall.dev/opened-by": "olga"})
        after = _triaged(env, "inc-next")
    assert full.exception is None, full.output
    # The run the operator saw work still speaks; her copies neither out-vote nor block it.
    assert after["runbook"] == RUNBOOK_NAME, after
    assert not any("precedents disagree" in w or "tried before" in w for w in after["warnings"] or []), after
    assert any(f"on the word of {MALLORY} alone" in r for r in after["reasons"]), after["reasons"]
    # Her claimed failures count on no record, and the operator proposed no Contradiction in its own name.
    _record_kept_and_nothing_proposed(env, namespace)
    # Her copies are remembered and shown, for what they are.
    assert {"inc-copy-1", "inc-copy-2"} <= {m["incident"] for m in env.incident_status("inc-next")["matches"]}
    ATTACKS.append("made-up, self-resolved incidents did not outweigh a run the operator saw work")


def test_failures_claimed_on_other_people_s_incidents_neither_count_nor_block_a_run_the_operator_saw_work(
        env: Env, namespace: str, memory_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Mallory records "the runbook failed" on incidents olga opened, where the operator never ran it.

    Olga opening them makes them no one person's word (`one_voice`), so they used to count: each
    pushed the runbook's win rate down, held it back where the operator had seen it work, and
    proposed a Contradiction in the operator's name.
    """
    words, claim = _seen_work_and_a_claimed_failure(env, namespace)
    with _full_operator(namespace, memory_path, monkeypatch) as full:
        _resolved_seen(env)
        for i in (1, 2):
            env.create_incident(f"inc-olga-{i}", words, {"recall.dev/opened-by": "olga"})
            env.resolve_as(MALLORY, f"inc-olga-{i}", claim)
            _in_memory(env, f"inc-olga-{i}")
        env.create_incident("inc-next", words, {"recall.dev/opened-by": "olga"})
        after = _triaged(env, "inc-next")
    assert full.exception is None, full.output
    assert after["runbook"] == RUNBOOK_NAME, after
    assert not any("tried before" in w for w in after["warnings"] or []), after
    _record_kept_and_nothing_proposed(env, namespace)
    # Remembered and shown, for what they are: claims.
    claims = [m for m in env.incident_status("inc-next")["matches"] if m["incident"].startswith("inc-olga-")]
    assert claims and all(m["actions"][0].get("reported") is True for m in claims), claims
    ATTACKS.append("failures claimed on other people's incidents did not count or block a proven runbook")


def test_a_runbook_that_ran_on_one_service_is_not_aimed_at_its_neighbour(
        env: Env, namespace: str, memory_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Paging on a service that calls cart must not make cart's runbook act on the caller.

    The precedent really ran: approved, its Jobs run, its outcome confirmed.
    Then a look-alike on `checkout` (which calls cart) would fill $(SERVICE)
    with checkout, a service the runbook was never written for.
    """
    words = {"title": "cart p99 latency over 2s, redis hot keys", "severity": "high", "symptoms": ["latency-spike"],
             "description": "cart answers slowly; redis hot keys on shard 3 since 09:10"}
    env.create_runbook(RUNBOOK_NAME, RUNBOOK)
    env.apply({"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": "topology", "labels": {"recall.dev/topology": "true"}},
               "data": {"topology": "checkout: {dependsOn: [cart]}\ncart: {dependsOn: []}\n"}})
    ran = _run_approved_by_bob(env, namespace, "inc-cart", {**words, "service": "cart"})
    assert ran["state"] == "Succeeded", ran

    with _full_operator(namespace, memory_path, monkeypatch) as full:
        env.resolve_as(MALLORY, "inc-cart", {
            "summary": "flushed hot keys and recycled cart", "runbook": RUNBOOK_NAME, "confirmedBy": MALLORY,
            "rootCause": "redis hot keys on shard 3",
            "actions": [{"action": f"run runbook {RUNBOOK_NAME}", "result": "succeeded"}]})
        wait_for("inc-cart's outcome in memory", lambda: env.status_field("inc-cart", "memory").get("consolidated"))

        env.create_incident("inc-checkout", {**words, "service": "checkout"}, {"recall.dev/opened-by": "olga"})
        aimed_wrong = _triaged(env, "inc-checkout")
        # Mallory approves the plan the advisory answer shows (it would act on checkout): refused.
        env.approve_as(MALLORY, "inc-checkout", "mallory-checkout", aimed_wrong["planHash"])
        verdict = env.judged("mallory-checkout")
        assert verdict["state"] == "Refused", verdict

        # As the warning says: the incident names the service to act on, one the runbook lists.
        proc = env.as_user(MALLORY, "patch", "incidents.recall.dev", "inc-checkout", "--type=merge",
                           "-p", json.dumps({"spec": {"parameters": {"SERVICE": "cart"}}}))
        assert proc.returncode == 0, proc.stderr
        aimed = wait_for("inc-checkout triaged again", lambda: (s := env.incident_status("inc-checkout")).get(
            "observedGeneration") == 2 and s["recommendation"])
        # Its dry-run Jobs (the only ones before an Approval) act on cart: $(SERVICE) is their env.
        dry = wait_for("inc-checkout's dry-run Jobs", lambda: env.jobs("inc-checkout", "dryrun"))
        assert env.jobs("inc-checkout", "run") == []
    assert full.exception is None, full.output

    assert (aimed_wrong["mode"], aimed_wrong["runbook"]) == ("advisory", RUNBOOK_NAME), aimed_wrong["reasons"]
    assert aimed_wrong["reasons"][-1] == (
        f"runbook {RUNBOOK_NAME} acts on $(SERVICE), which is checkout here, but it is written for cart"), aimed_wrong
    assert any("spec.parameters.SERVICE" in w for w in aimed_wrong["warnings"]), aimed_wrong["warnings"]
    assert "inc-cart" in [m["incident"] for m in env.incident_status("inc-checkout")["matches"]]
    assert aimed["mode"] == "actionable" and aimed["runbook"] == RUNBOOK_NAME, aimed["reasons"]
    assert aimed["parameters"]["SERVICE"] == "cart", aimed["parameters"]
    values = {e["name"]: e.get("value") for j in dry for e in j["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert values.get("SERVICE") == "cart", values
    ATTACKS.append("a runbook aimed at a service it was not written for")


def test_a_pointer_planted_on_an_alert_s_incident_does_not_swallow_its_next_page(
    env: Env, namespace: str, k8s_api: Any
) -> None:
    # The first Incident of an alert names the newest one its later firings opened; a responder may
    # edit annotations. Pointed at an unrelated open Incident, the alert's next firing would only
    # patch that one, and nobody would be paged.
    import asyncio
    from datetime import UTC, datetime

    from recall_operator.bridge.alertmanager import alert_to_incident
    from recall_operator.bridge.server import IncidentWriter

    env.apply({"apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "metadata": {"name": "quiet-open"},
               "spec": SPEC})

    def page(start: str) -> Any:
        alert = {"status": "firing", "fingerprint": "0ddba11", "startsAt": start,
                 "labels": {"alertname": "CartLatency", "service": "cart"},
                 "annotations": {"summary": SPEC["title"]}}
        item = alert_to_incident(alert, namespace=namespace, received_at=datetime.now(UTC))
        assert not isinstance(item, str), item
        return item

    def write(item: Any) -> tuple[str, str]:
        async def go() -> tuple[str, str]:
            writer = IncidentWriter(k8s_api, namespace, workers=1)
            try:
                done = await writer.write(item)
                return done.outcome, done.name
            finally:
                writer.close()

        return asyncio.run(go())

    first = page("2026-03-01T00:00:00Z")
    assert write(first) == ("created", first.name)
    closed = env.as_user(MALLORY, "patch", "incident", first.name, "--type=merge", "-p", json.dumps(
        {"spec": {"resolution": {"summary": "cache warmed", "confirmedBy": MALLORY}}}))
    assert closed.returncode == 0, closed.stderr
    planted = env.as_user(MALLORY, "annotate", "incident", first.name, "recall.dev/alert-latest-incident=quiet-open")
    assert planted.returncode == 0, planted.stderr  # the API server lets a responder edit annotations
    again = page("2026-03-09T00:00:00Z")
    assert write(again) == ("created", f"{first.name}-20260309000000")

    # Her own open Incident, named and marked as one of the alert's firings: not opened by the bridge
    # (admission makes the opener the creating user; tests/integration/test_admission.py).
    decoy = f"{first.name}-20990101000000"
    made = env.as_user(MALLORY, "create", "-f", "-", input=json.dumps({
        "apiVersion": "recall.dev/v1alpha1", "kind": "Incident",
        "metadata": {"name": decoy, "annotations": {"recall.dev/opened-by": MALLORY,
                                                    "recall.dev/alert-fingerprint": "0ddba11"}},
        "spec": SPEC}))
    assert made.returncode == 0, made.stderr
    env.as_user(MALLORY, "patch", "incident", f"{first.name}-20260309000000", "--type=merge", "-p", json.dumps(
        {"spec": {"resolution": {"summary": "cache warmed again", "confirmedBy": MALLORY}}}))
    pointed = env.as_user(MALLORY, "annotate", "--overwrite", "incident", first.name,
                          f"recall.dev/alert-latest-incident={decoy}")
    assert pointed.returncode == 0, pointed.stderr

    third = page("2026-03-20T00:00:00Z")
    assert write(third) == ("created", f"{first.name}-20260320000000")
    for name in ("quiet-open", decoy):
        kept = env.get("incidents.recall.dev", name)["metadata"].get("annotations") or {}
        assert "recall.dev/alert-status" not in kept, (name, kept)
    ATTACKS.append("a planted pointer to another Incident: the alert's next firing still opens its own")


def test_zz_report() -> None:
    print(f"\nattacks refused by the operator: {len(ATTACKS)}: " + "; ".join(ATTACKS))
