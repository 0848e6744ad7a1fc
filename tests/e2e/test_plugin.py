"""`kubectl recall` end to end: the installed console script against the real API server, the operator running.

A small history (one Runbook, past incidents it fixed) is loaded through the
API as GitOps and people would; a recurrence is then triaged by the operator,
and the plugin reads it, approves its plan and records its outcome.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from kit import recall

from recall_operator import metrics
from recall_operator_dev.demo import Step, apply, incident_status, load_history, wait_for
from recall_operator.kube import jobs as jobkit
from recall_operator.plugin import approval_name

pytestmark = pytest.mark.integration

DEADLINE_S = 120.0
SERVICE = "cart-service"
RUNBOOK = {
    "apiVersion": "recall.dev/v1alpha1", "kind": "Runbook", "metadata": {"name": "cart-flush-hot-keys"},
    "spec": {
        "title": "Flush hot keys on the cart cache",
        "services": [SERVICE], "symptoms": ["latency-spike", "cache-eviction"],
        "steps": [{
            "name": "flush-hot-keys", "image": "redis:7.2", "risk": "low", "blastRadius": "the cart cache",
            "command": ["redis-cli", "-h", "cart-cache", "--scan", "--pattern", "hot:*"],
            "dryRunCommand": ["redis-cli", "-h", "cart-cache", "info", "keyspace"],
            "rollbackCommand": ["redis-cli", "-h", "cart-cache", "ping"],
        }],
    },
}
SPEC = {
    "service": SERVICE, "severity": "high",
    "title": "cart-service p99 latency spike, redis cache evictions on hot keys",
    "description": "checkout slow; redis evicting hot keys under memory pressure",
    "symptoms": ["latency-spike", "cache-eviction"],
    "errorSignatures": ["OOM command not allowed when used memory > 'maxmemory'"],
}


def _past(i: int) -> Step:
    return Step("incident", {
        "apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "metadata": {"name": f"inc-past-{i}"},
        "spec": {**SPEC, "resolution": {
            "rootCause": "hot keys filled the cart cache and evictions slowed checkout",
            "summary": "flushing the hot keys on the cart cache brought p99 back under 200 ms",
            "runbook": "cart-flush-hot-keys",
            "actions": [{"action": "run runbook cart-flush-hot-keys", "result": "succeeded"}],
            "confirmedBy": "oncall-a",
        }},
    })


def until(what: str, check: Any) -> Any:
    return wait_for(what, check, timeout=DEADLINE_S)


def _recurrence(kubectl: Any, namespace: str, name: str) -> dict[str, Any]:
    """The runbook, four past incidents it fixed, and a new one like them: its status once answered."""
    kubectl("create", "serviceaccount", jobkit.DEFAULT_SERVICE_ACCOUNT, "-n", namespace, check=True)
    load_history(kubectl, namespace, [Step("apply", RUNBOOK), *(_past(i) for i in range(1, 5))])
    apply(kubectl, namespace, {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident",
                               "metadata": {"name": name}, "spec": SPEC})
    status: dict[str, Any] = until(
        f"a recommendation on {name}",
        lambda: (s := incident_status(kubectl, namespace, name)).get("recommendation", {}).get("mode") and s)
    assert status["recommendation"]["mode"] == "actionable", status["recommendation"]
    return status


def test_why_approve_and_resolve_with_the_real_plugin(operator: Any, kubectl: Any, namespace: str,
                                                      k8s_api: Any) -> None:
    status = _recurrence(kubectl, namespace, "inc-now")
    rec = status["recommendation"]
    assert rec["planHash"]

    # why: mode, scores, the matches with their breakdowns, the plan and its hash.
    why = recall("why", "inc-now", "-n", namespace)
    assert why.returncode == 0, why.stderr
    out = why.stdout
    assert "MODE ACTIONABLE" in out
    assert f"similarity {rec['similarity']}/100" in out and f"actionability {rec['actionability']}/100" in out
    for m in status["matches"]:
        assert f"{m['incident']}  similarity {m['similarity']}" in out
    assert {m["incident"] for m in status["matches"]} & {f"inc-past-{i}" for i in range(1, 5)}
    assert "breakdown: lexical +" in out
    assert f"planHash {rec['planHash']}" in out
    assert "dry-run:  redis-cli -h cart-cache info keyspace" in out

    # A name that does not exist: the ones that do are listed.
    missing = recall("why", "inc-nope", "-n", namespace)
    assert missing.returncode == 1
    assert "no Incident 'inc-nope'" in missing.stderr and "inc-now" in missing.stderr

    # approve: an Approval for exactly the recommended hash, signed by the current user.
    def accepted() -> float:  # the operator runs in this process (KopfRunner): its metrics are these
        return metrics.REGISTRY.get_sample_value("recall_approvals_total", {"decision": "accepted"}) or 0.0

    accepted_before = accepted()
    approve = recall("approve", "inc-now", "-n", namespace, "--reason", "dry-run is clean", "--wait", "60")
    assert approve.returncode == 0, approve.stdout + approve.stderr
    assert rec["planHash"] in approve.stdout
    from kubernetes import client

    user = client.AuthenticationV1Api(k8s_api).create_self_subject_review(
        {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}).status.user_info.username
    name = approval_name("inc-now", rec["planHash"], user)
    body = json.loads(kubectl("get", "approvals.recall.dev", name, "-n", namespace, "-o", "json", check=True).stdout)
    current = incident_status(kubectl, namespace, "inc-now")["recommendation"]["planHash"]
    assert body["spec"]["planHash"] == current == rec["planHash"]
    assert body["spec"]["approver"] == user and body["spec"]["decision"] == "approve"
    assert body["spec"]["incident"] == "inc-now" and body["spec"]["reason"] == "dry-run is clean"
    assert "operator: Accepted" in approve.stdout
    assert accepted() == accepted_before + 1
    # why now shows the Approval of this plan and the operator's verdict on it.
    shown = recall("why", "inc-now", "-n", namespace)
    assert f"APPROVALS of plan {rec['planHash']}" in shown.stdout, shown.stdout
    assert f"{user} approves  Accepted" in shown.stdout, shown.stdout

    # A misspelt runbook would credit none, for good: refused before anything is written.
    typo = recall("resolve", "inc-now", "-n", namespace, "--root-cause", "hot keys again", "--summary", "flushed",
                  "--runbook", "cart-flush-hot-key", "--action", "run the runbook=succeeded", "--confirmed-by", "oncall-b")
    assert typo.returncode == 1 and "no Runbook named 'cart-flush-hot-key'" in typo.stderr, typo.stderr
    assert "cart-flush-hot-keys" in typo.stderr  # the names there are
    assert "resolution" not in json.loads(kubectl("get", "incident", "inc-now", "-n", namespace, "-o", "json",
                                                  check=True).stdout)["spec"]

    # resolve: spec.resolution, exactly as given.
    resolve = recall("resolve", "inc-now", "-n", namespace, "--root-cause", "hot keys again",
                     "--summary", "flushed the hot keys; p99 back to normal", "--runbook", "cart-flush-hot-keys",
                     "--action", "restart cart pods=failed", "--action", "run runbook cart-flush-hot-keys=succeeded",
                     "--confirmed-by", "oncall-b")
    assert resolve.returncode == 0, resolve.stderr
    spec = json.loads(kubectl("get", "incident", "inc-now", "-n", namespace, "-o", "json", check=True).stdout)["spec"]
    res = spec["resolution"]
    assert res["rootCause"] == "hot keys again" and res["runbook"] == "cart-flush-hot-keys"
    assert res["actions"] == [{"action": "restart cart pods", "result": "failed"},
                              {"action": "run runbook cart-flush-hot-keys", "result": "succeeded"}]
    assert res["confirmedBy"] == "oncall-b" and res["confirmedAt"]
    until("the outcome to be consolidated",
          lambda: (incident_status(kubectl, namespace, "inc-now").get("memory") or {}).get("consolidated"))
    first_key = incident_status(kubectl, namespace, "inc-now")["memory"]["consolidated"]
    # A second resolve does not silently overwrite the first: it says how to correct it.
    again = recall("resolve", "inc-now", "-n", namespace, "--root-cause", "x", "--summary", "y", "--action", "z=failed")
    assert again.returncode == 1 and "--correction" in again.stderr and "never changes" in again.stderr
    # The correction it points to is appended, signed, with its reason; the API server takes it.
    fixed = recall("resolve", "inc-now", "-n", namespace, "--correction", "it was the cache, not the hot keys",
                   "--root-cause", "cache eviction storm", "--summary", "flushed the cache by hand",
                   "--action", "flush the cache by hand=succeeded", "--confirmed-by", "oncall-c")
    assert fixed.returncode == 0, fixed.stderr
    assert "a correction of the outcome of inc-now" in fixed.stdout
    spec = json.loads(kubectl("get", "incident", "inc-now", "-n", namespace, "-o", "json", check=True).stdout)["spec"]
    assert spec["resolution"] == res, "the recorded outcome is never rewritten"
    [correction] = spec["corrections"]
    assert correction["reason"] == "it was the cache, not the hot keys" and correction["confirmedBy"] == "oncall-c"
    assert correction["rootCause"] == "cache eviction storm" and correction.get("runbook") is None
    assert correction["actions"] == [{"action": "flush the cache by hand", "result": "succeeded"}]
    until("the correction to be consolidated", lambda: (m := incident_status(kubectl, namespace, "inc-now").get(
        "memory") or {}).get("consolidated") and m["consolidated"] != first_key)


def test_approve_refuses_what_is_not_actionable_and_creates_nothing(operator: Any, kubectl: Any,
                                                                    namespace: str) -> None:
    apply(kubectl, namespace, {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident",
                               "metadata": {"name": "inc-odd"},
                               "spec": {"service": "nowhere", "title": "something odd nobody has seen"}})
    until("a recommendation on inc-odd",
          lambda: incident_status(kubectl, namespace, "inc-odd").get("recommendation", {}).get("mode"))
    proc = recall("approve", "inc-odd", "-n", namespace)
    assert proc.returncode == 1
    assert "refusing: incident inc-odd is novel" in proc.stderr
    assert f"kubectl recall resolve inc-odd -n {namespace}" in proc.stderr
    listed = json.loads(kubectl("get", "approvals.recall.dev", "-n", namespace, "-o", "json", check=True).stdout)
    assert listed["items"] == []
    # resolve without flags and without a terminal says what is missing instead of prompting.
    proc = recall("resolve", "inc-odd", "-n", namespace)
    assert proc.returncode == 1 and "missing --root-cause, --summary, --action" in proc.stderr
    # Nothing recorded yet: there is nothing to correct.
    proc = recall("resolve", "inc-odd", "-n", namespace, "--correction", "wrong", "--root-cause", "x",
                  "--summary", "y", "--action", "z=failed")
    assert proc.returncode == 1 and "no outcome to correct yet" in proc.stderr


def test_reject_records_the_decision_and_nothing_runs(operator: Any, kubectl: Any, namespace: str,
                                                      k8s_api: Any) -> None:
    rec = _recurrence(kubectl, namespace, "inc-no")["recommendation"]

    # A rejection without a reason is refused before anything is created.
    bare = recall("reject", "inc-no", "-n", namespace)
    assert bare.returncode == 1 and "a rejection needs --reason" in bare.stderr
    assert json.loads(kubectl("get", "approvals.recall.dev", "-n", namespace, "-o", "json", check=True).stdout)[
        "items"] == []

    proc = recall("reject", "inc-no", "-n", namespace, "--reason", "blast radius too wide during peak", "--wait", "60")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "operator: Rejected" in proc.stdout
    from kubernetes import client

    user = client.AuthenticationV1Api(k8s_api).create_self_subject_review(
        {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}).status.user_info.username
    name = approval_name("inc-no", rec["planHash"], user, "reject")
    body = json.loads(kubectl("get", "approvals.recall.dev", name, "-n", namespace, "-o", "json", check=True).stdout)
    assert body["spec"]["decision"] == "reject" and body["spec"]["planHash"] == rec["planHash"]
    assert body["spec"]["reason"] == "blast radius too wide during peak"
    execution = until("the rejection recorded on inc-no",
                      lambda: (e := incident_status(kubectl, namespace, "inc-no").get("execution") or {}).get(
                          "rejectedBy") and e)
    assert execution["rejectedBy"] == user and execution["stopped"] is True
    # An approval of the rejected plan is refused: the plan needs to change first.
    approve = recall("approve", "inc-no", "-n", namespace, "--wait", "60")
    assert approve.returncode == 1 and "operator: Refused" in approve.stdout, approve.stdout + approve.stderr
    assert "was rejected by" in approve.stdout
    runs = json.loads(kubectl("get", "jobs", "-n", namespace, "-l", f"{jobkit.LABEL_INCIDENT}=inc-no,"
                              f"{jobkit.LABEL_PHASE}=run", "-o", "json", check=True).stdout)["items"]
    assert runs == []


def test_an_approval_name_taken_by_someone_else_is_never_reported_as_yours(
        operator: Any, kubectl: Any, namespace: str) -> None:
    # Approval names are predictable. Mallory, an approver too, creates one under bob's name first,
    # for another plan. Bob holds nothing but the chart's recall-approver role.
    rec = _recurrence(kubectl, namespace, "inc-squat")["recommendation"]
    manifests = Path(__file__).resolve().parents[2] / "manifests"
    proc = kubectl("apply", "--server-side", "--force-conflicts", "--field-manager=recall-test",
                   "-f", str(manifests / "namespace-restricted.yaml"), "-f", str(manifests / "rbac.yaml"))
    assert proc.returncode == 0, proc.stderr
    for user in ("bob", "mallory"):
        kubectl("create", "rolebinding", f"approver-{user}", "--clusterrole=recall-approver", f"--user={user}",
                "-n", namespace, check=True)
    taken = approval_name("inc-squat", rec["planHash"], "bob")
    squat = {"apiVersion": "recall.dev/v1alpha1", "kind": "Approval", "metadata": {"name": taken},
             "spec": {"incident": "inc-squat", "planHash": "0123456789abcdef", "decision": "approve",
                      "approver": "mallory"}}
    kubectl("create", "-n", namespace, "-f", "-", input=json.dumps(squat), as_user="mallory", check=True)

    proc = recall("approve", "inc-squat", "-n", namespace, "--as", "bob", "--yes", "--wait", "60")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "already there" not in proc.stdout
    assert "operator: Accepted" in proc.stdout, proc.stdout
    items = json.loads(kubectl("get", "approvals.recall.dev", "-n", namespace, "-o", "json", check=True).stdout)["items"]
    mine = [a for a in items if a["spec"]["approver"] == "bob"]
    assert len(mine) == 1 and mine[0]["metadata"]["name"].startswith(f"{taken}-"), items
    assert mine[0]["spec"]["planHash"] == rec["planHash"] and mine[0]["spec"]["decision"] == "approve"
    assert f"created Approval {mine[0]['metadata']['name']}" in proc.stdout
    # Her object is still hers, untouched.
    theirs = json.loads(kubectl("get", "approvals.recall.dev", taken, "-n", namespace, "-o", "json",
                                check=True).stdout)
    assert theirs["spec"]["approver"] == "mallory" and theirs["spec"]["planHash"] == "0123456789abcdef"


def test_set_signs_the_parameters_and_their_setter_cannot_approve_the_plan(
        operator: Any, kubectl: Any, namespace: str) -> None:
    # bob, a responder and an approver, points the plan at other values and then approves it himself:
    # four-eyes would have seen two people (whoever opened it, and bob) where bob alone chose what runs.
    _recurrence(kubectl, namespace, "inc-set")
    manifests = Path(__file__).resolve().parents[2] / "manifests"
    proc = kubectl("apply", "--server-side", "--force-conflicts", "--field-manager=recall-test",
                   "-f", str(manifests / "namespace-restricted.yaml"), "-f", str(manifests / "rbac.yaml"))
    assert proc.returncode == 0, proc.stderr
    for user, role in (("bob", "recall-responder"), ("bob", "recall-approver"), ("carol", "recall-approver")):
        kubectl("create", "rolebinding", f"{role}-{user}", f"--clusterrole={role}", f"--user={user}",
                "-n", namespace, check=True)

    bad = recall("set", "inc-set", "CACHE", "-n", namespace, "--as", "bob")
    assert bad.returncode == 1 and "'CACHE' is not NAME=VALUE" in bad.stderr, bad.stderr
    # As a responder, whose role reads Runbooks, a misspelt runbook is refused too (it passed unchecked when
    # the role could not list them, and credited no runbook, for good).
    typo = recall("resolve", "inc-set", "-n", namespace, "--as", "bob", "--root-cause", "hot keys",
                  "--summary", "flushed", "--runbook", "cart-flush-hot-key", "--action", "flushed by hand=succeeded")
    assert typo.returncode == 1 and "no Runbook named 'cart-flush-hot-key'" in typo.stderr, typo.stderr
    done = recall("set", "inc-set", "CACHE=cart-cache-2", "-n", namespace, "--as", "bob")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "parameters of inc-set now: CACHE=cart-cache-2; set by bob" in done.stdout
    body = json.loads(kubectl("get", "incidents.recall.dev", "inc-set", "-n", namespace, "-o", "json",
                              check=True).stdout)
    assert body["metadata"]["annotations"]["recall.dev/parameters-by"] == "bob"
    assert body["spec"]["parameters"] == {"CACHE": "cart-cache-2"}

    why = recall("why", "inc-set", "-n", namespace, "--as", "carol")
    assert "the incident's parameters were set by bob, who cannot approve this plan" in why.stdout, why.stdout
    by_bob = recall("approve", "inc-set", "-n", namespace, "--as", "bob", "--yes", "--wait", "60")
    assert by_bob.returncode == 1 and "operator: Refused" in by_bob.stdout, by_bob.stdout + by_bob.stderr
    assert "bob set the incident's parameters" in by_bob.stdout
    by_carol = recall("approve", "inc-set", "-n", namespace, "--as", "carol", "--yes", "--wait", "60")
    assert by_carol.returncode == 0 and "operator: Accepted" in by_carol.stdout, by_carol.stdout + by_carol.stderr


def _resolved_reason(kubectl: Any, namespace: str, name: str) -> str | None:
    conditions = incident_status(kubectl, namespace, name).get("conditions") or []
    return next((c.get("reason") for c in conditions if c.get("type") == "Resolved" and c.get("status") == "True"),
                None)


def _matched(kubectl: Any, namespace: str, name: str) -> set[str]:
    apply(kubectl, namespace, {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident",
                               "metadata": {"name": name}, "spec": SPEC})
    status = until(f"a recommendation on {name}",
                   lambda: (s := incident_status(kubectl, namespace, name)).get("recommendation", {}).get("mode") and s)
    return {m["incident"] for m in status["matches"]}


def test_withdraw_takes_a_resolved_incident_out_of_recall_and_undo_brings_it_back(
        operator: Any, kubectl: Any, namespace: str) -> None:
    # olga holds only the chart's recall-responder role: the one that records outcomes, and so corrections.
    status = _recurrence(kubectl, namespace, "inc-now")
    assert "inc-past-1" in {m["incident"] for m in status["matches"]}
    manifests = Path(__file__).resolve().parents[2] / "manifests"
    proc = kubectl("apply", "--server-side", "--force-conflicts", "--field-manager=recall-test",
                   "-f", str(manifests / "namespace-restricted.yaml"), "-f", str(manifests / "rbac.yaml"))
    assert proc.returncode == 0, proc.stderr
    kubectl("create", "rolebinding", "responder-olga", "--clusterrole=recall-responder", "--user=olga",
            "-n", namespace, check=True)

    # Refused before anything is written: an open incident, and no reason.
    open_one = recall("withdraw", "inc-now", "-n", namespace, "--reason", "noise", "--as", "olga")
    assert open_one.returncode == 1 and "has no outcome yet" in open_one.stderr, open_one.stderr
    bare = recall("withdraw", "inc-past-1", "-n", namespace, "--as", "olga")
    assert bare.returncode == 1 and "--reason is required" in bare.stderr, bare.stderr
    early = recall("withdraw", "inc-past-1", "-n", namespace, "--undo", "--reason", "back", "--as", "olga")
    assert early.returncode == 1 and "is not withdrawn" in early.stderr, early.stderr
    assert "corrections" not in json.loads(kubectl("get", "incident", "inc-past-1", "-n", namespace, "-o", "json",
                                                   check=True).stdout)["spec"]

    gone = recall("withdraw", "inc-past-1", "-n", namespace, "--reason", "a load test, not an outage", "--as", "olga")
    assert gone.returncode == 0, gone.stdout + gone.stderr
    spec = json.loads(kubectl("get", "incident", "inc-past-1", "-n", namespace, "-o", "json", check=True).stdout)["spec"]
    [correction] = spec["corrections"]
    assert correction["withdrawn"] is True and correction["confirmedBy"] == "olga"
    assert correction["reason"] == "a load test, not an outage"
    assert {k: correction[k] for k in ("rootCause", "summary", "runbook", "actions")} == \
        {k: spec["resolution"][k] for k in ("rootCause", "summary", "runbook", "actions")}
    until("inc-past-1 withdrawn in memory", lambda: _resolved_reason(kubectl, namespace, "inc-past-1") == "Withdrawn")
    said = [c["message"] for c in incident_status(kubectl, namespace, "inc-past-1")["conditions"]
            if c["type"] == "Resolved"]
    assert "withdrawn by olga: a load test, not an outage" in said[0], said
    twice = recall("withdraw", "inc-past-1", "-n", namespace, "--reason", "again", "--as", "olga")
    assert twice.returncode == 1 and "already withdrawn by olga: a load test" in twice.stderr, twice.stderr

    # The same page again: the other three are its precedents, the withdrawn one is nobody's.
    after = _matched(kubectl, namespace, "inc-next")
    assert "inc-past-1" not in after and {"inc-past-2", "inc-past-3", "inc-past-4"} <= after, after

    back = recall("withdraw", "inc-past-1", "-n", namespace, "--undo", "--reason", "it was a real outage after all",
                  "--as", "olga")
    assert back.returncode == 0, back.stdout + back.stderr
    until("inc-past-1 back in memory", lambda: _resolved_reason(kubectl, namespace, "inc-past-1") == "Consolidated")
    assert "inc-past-1" in _matched(kubectl, namespace, "inc-later")

    # Any later correction is what memory holds: one that restates a withdrawn outcome brings it back, and says so.
    again = recall("withdraw", "inc-past-1", "-n", namespace, "--reason", "noise after all", "--as", "olga")
    assert again.returncode == 0, again.stdout + again.stderr
    until("inc-past-1 withdrawn again", lambda: _resolved_reason(kubectl, namespace, "inc-past-1") == "Withdrawn")
    fixed = recall("resolve", "inc-past-1", "-n", namespace, "--correction", "the summary named the wrong pool",
                   "--root-cause", "hot keys", "--summary", "flushed the hot keys of the right pool",
                   "--action", "run runbook cart-flush-hot-keys=succeeded", "--as", "olga")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "was withdrawn by olga: noise after all; this correction brings it back" in fixed.stderr
    until("inc-past-1 back after the correction",
          lambda: _resolved_reason(kubectl, namespace, "inc-past-1") == "Consolidated")
