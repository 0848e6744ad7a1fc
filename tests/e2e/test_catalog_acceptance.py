"""The catalog says whether the operator can use it: Accepted conditions and the columns of `kubectl get`.

With the operator running against the real API server: a Runbook, an
ArchitectureMigration and a Contradiction that the schema lets through but the
operator cannot use get `Accepted=False` with the reason in its message; valid
ones get `Accepted=True`. A Contradiction naming incidents memory does not hold
yet is accepted once their outcomes are remembered. The Runbook's win-rate
counts, written by another writer, survive the Accepted writes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from recall_operator_dev.demo import apply, wait_for

pytestmark = pytest.mark.integration

DEADLINE_S = 60.0
GV = "recall.dev/v1alpha1"
MANIFESTS = Path(__file__).resolve().parents[2] / "manifests"
OPERATOR = "system:serviceaccount:recall-system:recall-operator"
STEP = {"name": "restart", "image": "kubectl:1.36", "command": ["kubectl", "rollout", "restart", "deployment/$(SERVICE)"]}


def _obj(kind: str, name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": GV, "kind": kind, "metadata": {"name": name}, "spec": spec}


def _accepted(kubectl: Any, namespace: str, plural: str, name: str, generation: int = 1) -> dict[str, Any] | None:
    """The Accepted condition once it was set for `generation`, else None."""
    proc = kubectl("get", plural, name, "-n", namespace, "-o", "json")
    if proc.returncode != 0:
        return None
    conditions = (json.loads(proc.stdout).get("status") or {}).get("conditions") or []
    found = next((c for c in conditions if c.get("type") == "Accepted"), None)
    return found if found and found.get("observedGeneration") == generation else None


def _wait_accepted(kubectl: Any, namespace: str, plural: str, name: str, generation: int = 1) -> dict[str, Any]:
    return wait_for(f"Accepted on {plural}/{name}", lambda: _accepted(kubectl, namespace, plural, name, generation),
                    timeout=DEADLINE_S)


def _table(output: str) -> list[dict[str, str]]:
    """`kubectl get` rows as header -> cell, cut at the header's column offsets (a blank cell stays blank)."""
    lines = [line for line in output.splitlines() if line.strip()]
    # Headers are words joined by single spaces ("WIN RATE"); columns are 3+ spaces apart.
    starts = [m.start() for m in re.finditer(r"\S+(?: \S+)*", lines[0])]
    bounds = list(zip(starts, [*starts[1:], None], strict=True))
    return [{lines[0][a:b].strip(): line[a:b].strip() for a, b in bounds} for line in lines[1:]]


def test_runbooks_are_accepted_or_refused_with_the_reason_and_their_services_print_as_a_list(
    operator: Any, kubectl: Any, namespace: str
) -> None:
    apply(kubectl, namespace, _obj("Runbook", "restart-checkout",
                                   {"title": "Restart checkout", "services": ["checkout-api", "cart"], "steps": [STEP]}))
    # The schema keeps parameters as written; no plan can use a lowercase name.
    apply(kubectl, namespace, _obj("Runbook", "lowercase-param",
                                   {"title": "Scale", "services": ["cart"], "parameters": {"replicas": "3"},
                                    "steps": [STEP]}))
    good = _wait_accepted(kubectl, namespace, "runbooks", "restart-checkout")
    bad = _wait_accepted(kubectl, namespace, "runbooks", "lowercase-param")
    assert (good["status"], good["reason"]) == ("True", "Valid"), good
    assert (bad["status"], bad["reason"]) == ("False", "InvalidParameters"), bad
    assert "'replicas'" in bad["message"], bad

    rows = {r["NAME"]: r for r in _table(kubectl("get", "runbooks", "-n", namespace, check=True).stdout)}
    assert rows["restart-checkout"]["SERVICES"] == "checkout-api, cart"
    assert rows["restart-checkout"]["ACCEPTED"] == "True"
    assert rows["lowercase-param"]["ACCEPTED"] == "False"
    assert "[" not in rows["restart-checkout"]["SERVICES"]

    # The win-rate counts are another writer's fields (a merge patch, as the incident handler writes them)...
    kubectl("patch", "runbook", "lowercase-param", "-n", namespace, "--subresource=status", "--type=merge",
            "-p", json.dumps({"status": {"timesExecuted": 2, "timesSucceeded": 1, "winRate": 0.5}}), check=True)
    # ... and fixing the spec gives a new answer and new services, without touching them.
    kubectl("patch", "runbook", "lowercase-param", "-n", namespace, "--type=merge",
            "-p", json.dumps({"spec": {"parameters": {"replicas": None, "REPLICAS": "3"},
                                       "services": ["cart", "search-api"]}}),
            check=True)
    fixed = _wait_accepted(kubectl, namespace, "runbooks", "lowercase-param", generation=2)
    assert fixed["status"] == "True", fixed
    status = json.loads(kubectl("get", "runbook", "lowercase-param", "-n", namespace, "-o", "json",
                                check=True).stdout)["status"]
    assert (status["timesExecuted"], status["timesSucceeded"], status["winRate"]) == (2, 1, 0.5)
    assert status["servicesText"] == "cart, search-api"


def test_migrations_are_accepted_or_refused_with_the_reason(operator: Any, kubectl: Any, namespace: str) -> None:
    base = {"targetService": "redis-cluster", "impactedRunbooks": ["redis-restart-vm"]}
    apply(kubectl, namespace, _obj("ArchitectureMigration", "to-elasticache", {**base, "migrationDate": "2025-01-15"}))
    # The schema's pattern lets through a day that no calendar has.
    apply(kubectl, namespace, _obj("ArchitectureMigration", "no-such-day", {**base, "migrationDate": "2025-02-30"}))
    apply(kubectl, namespace, _obj("ArchitectureMigration", "no-scope",
                                   {"targetService": "redis-cluster", "migrationDate": "2025-01-15"}))
    good = _wait_accepted(kubectl, namespace, "architecturemigrations", "to-elasticache")
    day = _wait_accepted(kubectl, namespace, "architecturemigrations", "no-such-day")
    scope = _wait_accepted(kubectl, namespace, "architecturemigrations", "no-scope")
    assert (good["status"], good["reason"]) == ("True", "Valid"), good
    # The namespace holds no such Runbook: a misspelling would leave the memories meant in force, so it is said.
    assert "no Runbook here is named redis-restart-vm now" in good["message"], good
    assert (day["status"], day["reason"]) == ("False", "InvalidSpec"), day
    assert "spec.migrationDate" in day["message"], day
    assert (scope["status"], scope["reason"]) == ("False", "NoScope"), scope

    rows = {r["NAME"]: r for r in _table(kubectl("get", "architecturemigrations", "-n", namespace, check=True).stdout)}
    assert {name: row["ACCEPTED"] for name, row in rows.items()} == {
        "to-elasticache": "True", "no-such-day": "False", "no-scope": "False",
    }


def _history_incident(name: str) -> dict[str, Any]:
    return _obj("Incident", name, {
        "service": "orders-consumer", "severity": "high", "title": "orders consumer group rebalancing in a loop",
        "resolution": {"rootCause": "slow batches overran the poll interval", "summary": "raised the interval",
                       "confirmedBy": "oncall-a"},
    })


def test_a_contradiction_is_accepted_once_memory_holds_both_sides(operator: Any, kubectl: Any, namespace: str) -> None:
    apply(kubectl, namespace, _obj("Contradiction", "poll-interval",
                                   {"topic": "what stops the rebalance loop", "memories": ["inc-a", "inc-b"]}))
    waiting = _wait_accepted(kubectl, namespace, "contradictions", "poll-interval")
    assert (waiting["status"], waiting["reason"]) == ("False", "MemoryNotFound"), waiting
    assert "inc-a, inc-b" in waiting["message"], waiting
    rows = _table(kubectl("get", "contradictions", "-n", namespace, check=True).stdout)
    assert [r["ACCEPTED"] for r in rows] == ["False"]

    for name in ("inc-a", "inc-b"):
        apply(kubectl, namespace, _history_incident(name))
    # The contradiction itself does not change: the operator asks memory again on its own.
    accepted = wait_for("the contradiction to be accepted", lambda: (
        c if (c := _accepted(kubectl, namespace, "contradictions", "poll-interval")) and c["status"] == "True" else None
    ), timeout=DEADLINE_S)
    assert accepted["reason"] == "Valid"
    assert "inc-a, inc-b" in accepted["message"]

    # A resolved history incident: where it is shows in the first column kubectl prints after its name.
    header = kubectl("get", "incidents", "-n", namespace, check=True).stdout.splitlines()[0].split()
    assert header[:3] == ["NAME", "PHASE", "SERVICE"]


@pytest.mark.parametrize("plural", ["runbooks", "contradictions", "architecturemigrations"])
def test_the_operator_account_may_write_the_status_it_keeps(kubectl: Any, namespace: str, plural: str) -> None:
    proc = kubectl("apply", "--server-side", "--force-conflicts", "--field-manager=recall-test",
                   "-f", str(MANIFESTS / "namespace-restricted.yaml"), "-f", str(MANIFESTS / "rbac.yaml"))
    assert proc.returncode == 0, proc.stderr
    can = kubectl("auth", "can-i", "patch", f"{plural}.recall.dev/status", "-n", namespace, as_user=OPERATOR)
    assert can.stdout.strip() == "yes", can.stdout + can.stderr
    # The helm chart grants the same (its template is YAML around a few Helm lines).
    template = (MANIFESTS.parent / "helm" / "recall-operator" / "templates" / "rbac.yaml").read_text()
    assert f"- {plural}/status" in template
