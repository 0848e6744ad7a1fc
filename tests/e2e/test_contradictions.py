"""Contradictions as first-class: the operator proposes one when two outcomes disagree, and it matters.

Two incidents of one failure pattern are resolved differently; the operator
must propose an open Contradiction naming both with their claims, a third
look-alike must then be advisory with both claims shown, and once a person
reconciles it (`kubectl recall reconcile`, signed) the third one is no longer
held back by it, and its reasons say who reconciled it and how.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kit import recall
from recall_operator_dev.demo import apply, import_outcome, wait_for

pytestmark = pytest.mark.integration

DEADLINE_S = 120.0
MANIFESTS = Path(__file__).resolve().parents[2] / "manifests"
SPEC = {
    "service": "orders-consumer",
    "severity": "high",
    "title": "orders consumer group rebalancing in a loop, lag growing on every partition",
    "description": "The consumer group rebalances every few minutes; polls overrun max.poll.interval.ms.",
    "symptoms": ["consumer-lag", "rebalance-loop"],
    "errorSignatures": ["consumer poll timeout has expired", "Member consumer-1 sending LeaveGroup request"],
}


def _runbook(name: str, title: str) -> dict[str, Any]:
    return {
        "apiVersion": "recall.dev/v1alpha1", "kind": "Runbook", "metadata": {"name": name},
        "spec": {"title": title, "services": ["orders-consumer"], "symptoms": ["consumer-lag", "rebalance-loop"],
                 "steps": [{"name": "apply", "image": "tools:1", "command": ["kafka-configs", "--alter", "$(SERVICE)"],
                            "dryRunCommand": ["kafka-configs", "--describe", "$(SERVICE)"], "risk": "low",
                            "estimatedSeconds": 30}]},
    }


def _incident(name: str, resolution: dict[str, Any] | None = None) -> dict[str, Any]:
    spec = dict(SPEC, **({"resolution": resolution} if resolution else {}))
    return {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "metadata": {"name": name}, "spec": spec}


# Two outcomes of look-alike incidents that disagree: raising the interval fixed the first, failed the second.
RAISED = {"rootCause": "slow batches overran the poll interval", "summary": "raising the interval stopped the loop",
          "runbook": "raise-poll-interval", "confirmedBy": "oncall-a",
          "actions": [{"action": "run runbook raise-poll-interval", "result": "succeeded"}]}
REDUCED = {"rootCause": "a hung consumer kept its partitions", "summary": "raising the interval made it worse",
           "runbook": "reduce-poll-records", "confirmedBy": "oncall-b",
           "actions": [{"action": "run runbook raise-poll-interval", "result": "failed"},
                       {"action": "run runbook reduce-poll-records", "result": "succeeded"}]}


def _poll_runbooks(kubectl: Any, namespace: str) -> None:
    for rb in (_runbook("raise-poll-interval", "Raise max.poll.interval.ms"),
               _runbook("reduce-poll-records", "Lower max.poll.records")):
        apply(kubectl, namespace, rb)


def _contradictions(kubectl: Any, namespace: str) -> list[dict[str, Any]]:
    proc = kubectl("get", "contradictions", "-n", namespace, "-o", "json")
    return json.loads(proc.stdout)["items"] if proc.returncode == 0 else []


def test_disagreeing_outcomes_are_proposed_as_a_contradiction_that_holds_back_the_next_look_alike(
    operator: Any, kubectl: Any, namespace: str, get_status: Any
) -> None:
    _poll_runbooks(kubectl, namespace)
    # Past incidents whose runs the history records (as an operator that ran them would).
    import_outcome(kubectl, namespace, _incident("inc-a"), RAISED)
    wait_for("inc-a in memory", lambda: get_status("inc-a").get("memory", {}).get("written") or
             any(c.get("type") == "Resolved" and c.get("status") == "True" for c in get_status("inc-a").get("conditions", [])),
             timeout=DEADLINE_S)
    assert _contradictions(kubectl, namespace) == []  # one outcome cannot disagree with itself

    import_outcome(kubectl, namespace, _incident("inc-b"), REDUCED)
    proposed = wait_for("a proposed contradiction", lambda: _contradictions(kubectl, namespace), timeout=DEADLINE_S)
    assert len(proposed) == 1
    spec = proposed[0]["spec"]
    assert spec["memories"] == ["inc-a", "inc-b"]
    assert spec["resolution"]["state"] == "open"
    assert [c["memory"] for c in spec["claims"]] == ["inc-a", "inc-b"]
    assert "raise-poll-interval" in spec["claims"][0]["claim"] and "failed" in spec["claims"][1]["claim"]

    apply(kubectl, namespace, _incident("inc-c"))
    rec = wait_for("a recommendation on inc-c",
                   lambda: get_status("inc-c").get("recommendation", {}).get("mode") and get_status("inc-c")["recommendation"],
                   timeout=DEADLINE_S)
    assert rec["mode"] != "actionable"
    warnings = " ".join(rec.get("warnings", []))
    assert "open contradiction" in warnings and "inc-a:" in warnings and "inc-b:" in warnings

    # A person holding the chart's recall-reconciler role reconciles it with `kubectl recall`, which signs it:
    # the contradiction no longer holds the recommendation back, and the reasons say who said what.
    name = proposed[0]["metadata"]["name"]
    kubectl("apply", "--server-side", "--force-conflicts", "-f", str(MANIFESTS / "namespace-restricted.yaml"),
            "-f", str(MANIFESTS / "rbac.yaml"), check=True)
    kubectl("create", "rolebinding", "reconciler-rita", "--clusterrole=recall-reconciler", "--user=rita",
            "-n", namespace, check=True)
    unsaid = recall("reconcile", name, "-n", namespace, "--as", "rita")
    assert unsaid.returncode == 1 and "pass --note TEXT; nothing was changed" in unsaid.stderr, unsaid.stderr
    already = recall("reconcile", name, "-n", namespace, "--as", "rita", "--reopen")
    assert already.returncode == 1 and "is open already" in already.stderr, already.stderr
    assert _contradictions(kubectl, namespace)[0]["spec"]["resolution"] == {"state": "open"}
    why = recall("why", "inc-c", "-n", namespace)
    assert why.returncode == 0 and f"kubectl recall reconcile {name} -n {namespace} --note" in why.stdout, why.stdout
    done = recall("reconcile", name, "-n", namespace, "--as", "rita", "--note", "small batches are the default")
    assert done.returncode == 0, done.stderr
    assert "inc-a: " in done.stdout and f"reconciled contradiction {name}, signed by rita" in done.stdout
    resolution = _contradictions(kubectl, namespace)[0]["spec"]["resolution"]
    assert (resolution["state"], resolution["reconciledBy"], resolution["note"]) == (
        "reconciled", "rita", "small batches are the default")
    assert resolution["reconciledAt"].endswith("Z")
    listed = kubectl("get", "contradiction", name, "-n", namespace, check=True).stdout.splitlines()
    assert "RECONCILED BY" in listed[0] and listed[1].split()[-4:-2] == ["reconciled", "rita"], listed
    rec = wait_for("inc-c re-evaluated without the open contradiction",
                   lambda: (r := get_status("inc-c").get("recommendation", {}))
                   and "open contradiction" not in " ".join(r.get("warnings", [])) and r, timeout=DEADLINE_S)
    assert any(line.startswith(f"contradiction {name} was reconciled by rita on ")
               and line.endswith(": small batches are the default") for line in rec["reasons"]), rec["reasons"]

    # Opened again, it holds the answer back again; the note stays, the signature goes.
    again = recall("reconcile", name, "-n", namespace, "--as", "rita", "--reopen")
    assert again.returncode == 0, again.stderr
    assert _contradictions(kubectl, namespace)[0]["spec"]["resolution"] == {
        "state": "open", "note": "small batches are the default"}
    wait_for("inc-c held back by the contradiction again",
             lambda: "open contradiction" in " ".join(get_status("inc-c").get("recommendation", {}).get("warnings", [])),
             timeout=DEADLINE_S)
    # A responder may not write Contradictions: the plugin says which role is missing.
    kubectl("create", "rolebinding", "responder-olga", "--clusterrole=recall-responder", "--user=olga",
            "-n", namespace, check=True)
    refused = recall("reconcile", name, "-n", namespace, "--as", "olga", "--note", "whatever")
    assert refused.returncode == 1 and "not allowed to read contradictions" in refused.stderr, refused.stderr
