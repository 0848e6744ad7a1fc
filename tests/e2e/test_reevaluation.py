"""Re-evaluation without finalizers: one loop in the operator, nothing on the Incidents.

Open incidents are re-evaluated by one operator-wide loop (see
handlers/incident.py), not by a Kopf timer per incident: a timer made Kopf put
its finalizer on every Incident before the first answer. These tests hold what
that change brought: no finalizer on a new Incident, the loop still
re-evaluates an open incident when the catalog changes, an Incident still
carrying the finalizer of an older version can be deleted, and an answer the
watch handler failed to write (Kopf retries no watching handler) is given by
the loop's next pass.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from kopf.testing import KopfRunner

from recall_operator import metrics
from recall_operator_dev.demo import apply, history_steps, load_history, read_history
from recall_operator.handlers import ENV_BACKEND, ENV_PATH, incident
from recall_operator.runner import operator_args
from support import history, wait_for

pytestmark = pytest.mark.integration

OLD_FINALIZER = "recall.dev/finalizer"


def _body(kubectl: Any, namespace: str, name: str) -> dict[str, Any]:
    proc = kubectl("get", "incident", name, "-n", namespace, "-o", "json")
    return json.loads(proc.stdout) if proc.returncode == 0 else {}


def _incident(name: str, finalizers: list[str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if finalizers is not None:
        meta["finalizers"] = finalizers
    return {
        "apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "metadata": meta,
        "spec": {"service": "checkout-api", "title": "checkout-api 5xx after a deploy", "symptoms": ["5xx"]},
    }


def _deleted(kubectl: Any, namespace: str, name: str) -> None:
    proc = kubectl("delete", "incident", name, "-n", namespace, "--timeout=60s")
    assert proc.returncode == 0, proc.stderr
    gone = kubectl("get", "incident", name, "-n", namespace)
    assert gone.returncode != 0 and "NotFound" in gone.stderr, gone.stdout


def test_a_new_incident_gets_its_answer_and_no_finalizer(operator: Any, kubectl: Any, namespace: str) -> None:
    apply(kubectl, namespace, _incident("plain"))
    body = wait_for("a recommendation on plain",
                    lambda: (b := _body(kubectl, namespace, "plain")).get("status", {}).get("recommendation") and b)
    # Nothing the operator runs for a new Incident needs a finalizer: no timer,
    # no daemon, no deletion handler. One would cost a write and a watch round
    # trip before the first answer, and block deletion while the operator is down.
    assert not body["metadata"].get("finalizers"), body["metadata"]
    _deleted(kubectl, namespace, "plain")


def test_an_open_incident_is_re_evaluated_when_the_catalog_changes(
    operator: Any, kubectl: Any, namespace: str, make_namespace: Any, get_status: Any
) -> None:
    other_namespace = make_namespace()  # one the operator does not serve
    catalog, first = history_steps(read_history(history("dev")), stop_before="inc-0001")
    assert first is not None and all(s.kind == "apply" for s in catalog)
    apply(kubectl, other_namespace, _incident("not-ours"))
    apply(kubectl, namespace, first)
    before = wait_for("a recommendation on inc-0001",
                      lambda: (s := get_status("inc-0001")).get("recommendation", {}).get("mode") and s)
    assert not before["recommendation"].get("runbook"), "no catalog yet: no runbook to offer"

    # The runbooks arrive; the incident's spec does not change, so no watch
    # event brings it back: only the re-evaluation loop can offer them.
    load_history(kubectl, namespace, catalog)
    after = wait_for(f"inc-0001 re-evaluated (every {incident.REEVALUATE_SECONDS:.0f} s) with the catalog",
                     lambda: (s := get_status("inc-0001")).get("recommendation", {}).get("runbook") and s)
    assert after["recommendation"]["steps"] and after["recommendation"]["readOnly"] is True
    assert after["observedGeneration"] == 1
    assert not _body(kubectl, namespace, "inc-0001")["metadata"].get("finalizers")
    # The loop goes over the namespaces the operator serves, and no others.
    assert "status" not in _body(kubectl, other_namespace, "not-ours")


def test_an_incident_with_the_old_finalizer_can_be_deleted(operator: Any, kubectl: Any, namespace: str) -> None:
    # As an Incident made by an older version (whose timer needed the finalizer) looks.
    apply(kubectl, namespace, _incident("legacy", [OLD_FINALIZER]))
    wait_for("a recommendation on legacy",
             lambda: _body(kubectl, namespace, "legacy").get("status", {}).get("recommendation"))
    _deleted(kubectl, namespace, "legacy")


def test_the_old_finalizer_is_released_when_the_operator_starts(
    cluster: Any, kubectl: Any, namespace: str, memory_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Left by the older version, before this one starts: an upgrade.
    apply(kubectl, namespace, _incident("left-behind", [OLD_FINALIZER]))
    monkeypatch.setenv(ENV_BACKEND, "embedded")
    monkeypatch.setenv(ENV_PATH, str(memory_path))
    with KopfRunner(operator_args([namespace]), timeout=60) as runner:
        wait_for("the old finalizer released on resume",
                 lambda: (b := _body(kubectl, namespace, "left-behind")) and not b["metadata"].get("finalizers"))
        wait_for("a recommendation on left-behind",
                 lambda: _body(kubectl, namespace, "left-behind").get("status", {}).get("recommendation"))
        _deleted(kubectl, namespace, "left-behind")
    assert runner.exception is None, runner.output
    assert runner.exit_code == 0, runner.output
    assert "Traceback" not in runner.output, runner.output


def _refuse_status_writes(kubectl: Any, namespace: str, name: str) -> str:
    """An admission policy that refuses every status write to one Incident: the operator's answer fails."""
    policy = f"refuse-status-{namespace}"
    manifests = [
        {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
         "metadata": {"name": policy},
         "spec": {"failurePolicy": "Fail",
                  "matchConstraints": {"resourceRules": [{"apiGroups": ["recall.dev"], "apiVersions": ["*"],
                                                          "operations": ["UPDATE"], "resources": ["incidents/status"]}]},
                  "validations": [{"expression": f"object.metadata.name != '{name}'",
                                   "message": "status writes refused by the test"}]}},
        {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
         "metadata": {"name": policy},
         "spec": {"policyName": policy, "validationActions": ["Deny"],
                  "matchResources": {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}}}}},
    ]
    for m in manifests:
        kubectl("apply", "-f", "-", input=json.dumps(m), check=True)

    def refused() -> bool:
        probe = kubectl("patch", "incident", name, "-n", namespace, "--subresource=status", "--type=merge",
                        "-p", json.dumps({"status": {"observedGeneration": 0}}))
        return probe.returncode != 0 and "status writes refused by the test" in probe.stderr

    wait_for("the test's admission policy in force", refused)
    return policy


def test_an_answer_that_failed_is_given_by_the_next_pass(
    cluster: Any, kubectl: Any, namespace: str, memory_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    apply(kubectl, namespace, _incident("refused-once"))
    policy = _refuse_status_writes(kubectl, namespace, "refused-once")
    monkeypatch.setenv(ENV_BACKEND, "embedded")
    monkeypatch.setenv(ENV_PATH, str(memory_path))
    errors_before = _reconcile_errors()
    try:
        with KopfRunner(operator_args([namespace]), timeout=60) as runner:
            # The operator runs in this process: its failure counter is readable here.
            wait_for("the handler's answer refused", lambda: _reconcile_errors() > errors_before)
            assert "recommendation" not in _body(kubectl, namespace, "refused-once").get("status", {})
            # Lifting the refusal brings no event for the Incident: only the loop can answer it now.
            kubectl("delete", "validatingadmissionpolicybinding", policy, check=True)
            status = wait_for(f"refused-once answered by the loop (every {incident.REEVALUATE_SECONDS:.0f} s)",
                              lambda: (s := _body(kubectl, namespace, "refused-once").get("status", {}))
                              .get("recommendation") and s)
            assert status["observedGeneration"] == 1
    finally:
        kubectl("delete", "validatingadmissionpolicybinding", policy, "--ignore-not-found")
        kubectl("delete", "validatingadmissionpolicy", policy, "--ignore-not-found")
    assert runner.exception is None, runner.output
    assert runner.exit_code == 0, runner.output
    assert f"answering incident {namespace}/refused-once failed" in runner.output


def _reconcile_errors() -> float:
    return metrics.REGISTRY.get_sample_value("recall_reconcile_errors_total") or 0.0


# -- a pass works an answer out again only when something it comes from changed ----------


def _reevaluations(result: str) -> float:
    return metrics.REGISTRY.get_sample_value("recall_reevaluations_total", {"result": result}) or 0.0


ROLLBACK = {
    "title": "Roll a deployment back to its previous revision", "services": ["checkout-api"], "symptoms": ["5xx"],
    "steps": [{"name": "undo-rollout", "image": "bitnami/kubectl:1.29.4",
               "command": ["kubectl", "rollout", "undo", "deployment/$(SERVICE)"],
               "dryRunCommand": ["kubectl", "rollout", "undo", "deployment/$(SERVICE)", "--dry-run=server"],
               "risk": "medium", "estimatedSeconds": 180}],
}


def _precedent(namespace: str) -> Any:
    """A confirmed outcome of the same page, a day ago, fixed by rolling back: as another operator would write it."""
    from datetime import UTC, datetime, timedelta

    from recall_operator.domain.models import EpisodicMemory, IncidentSpec, Resolution

    return EpisodicMemory(
        incident="checkout-before", namespace=namespace,
        spec=IncidentSpec.model_validate(_incident("checkout-before")["spec"]),
        resolution=Resolution.model_validate({
            "runbook": "k8s-rollback-deploy", "rootCause": "a bad deploy of checkout-api",
            "summary": "rolled checkout-api back", "confirmedBy": "oncall-a",
            "actions": [{"action": "run runbook k8s-rollback-deploy", "result": "succeeded"}]}),
        resolved_at=datetime.now(UTC) - timedelta(days=1),
    )


def test_an_unchanged_open_incident_is_skipped_and_each_input_brings_it_back(
    operator: Any, kubectl: Any, namespace: str, memory_path: Path, get_status: Any
) -> None:
    import asyncio

    from recall_operator.memory.embedded import EmbeddedMemory

    apply(kubectl, namespace, _incident("quiet"))
    first = wait_for("a recommendation on quiet",
                     lambda: (b := _body(kubectl, namespace, "quiet")).get("status", {}).get("recommendation") and b)
    assert first["status"]["recommendation"]["mode"] == "novel" and not first["status"].get("matches")
    evaluated, skipped = _reevaluations("evaluated"), _reevaluations("skipped")
    # (a) Two passes come to it (the only open incident the operator serves) and leave it be:
    # nothing it is worked out from changed since the watch handler answered it.
    wait_for(f"two passes (every {incident.REEVALUATE_SECONDS:.0f} s) that skip quiet",
             lambda: _reevaluations("skipped") >= skipped + 2)
    assert _reevaluations("evaluated") == evaluated
    assert _body(kubectl, namespace, "quiet")["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]

    # (b) Memory: a confirmed outcome written by another connection to the store (another
    # process or operator); no event of any kind tells the operator.
    async def remember() -> None:
        other = EmbeddedMemory(memory_path)
        try:
            await other.remember(_precedent(namespace))
        finally:
            await other.close()

    asyncio.run(remember())
    recalled = wait_for("quiet worked out again with the new memory",
                        lambda: (s := get_status("quiet")).get("matches") and s)
    assert recalled["matches"][0]["incident"] == "checkout-before"
    assert recalled["matches"][0].get("stale") is None
    # Not in the catalog yet: memory's fix is named in the reasons, never offered as the runbook.
    assert "runbook" not in recalled["recommendation"] and not recalled["recommendation"].get("steps")
    assert recalled["recommendation"]["mode"] == "advisory"
    assert "precedents used runbook k8s-rollback-deploy, but it is not in the catalog" in (
        recalled["recommendation"]["reasons"])
    assert _reevaluations("evaluated") > evaluated

    # A Runbook: the remembered fix is now in the catalog, with its steps.
    apply(kubectl, namespace, {"apiVersion": "recall.dev/v1alpha1", "kind": "Runbook",
                               "metadata": {"name": "k8s-rollback-deploy"}, "spec": ROLLBACK})
    offered = wait_for("quiet worked out again with the runbook",
                       lambda: (s := get_status("quiet")).get("recommendation", {}).get("steps") and s)
    assert [s["name"] for s in offered["recommendation"]["steps"]] == ["undo-rollout"]

    # A migration today (after the precedent, resolved yesterday): its fix is stale on the new architecture.
    apply(kubectl, namespace, {"apiVersion": "recall.dev/v1alpha1", "kind": "ArchitectureMigration",
                               "metadata": {"name": "checkout-to-mesh"},
                               "spec": {"targetService": "checkout-api",
                                        "migrationDate": datetime.now(UTC).date().isoformat(),
                                        "oldArch": "plain Deployments", "newArch": "a service mesh",
                                        "impactedRunbooks": ["k8s-rollback-deploy"], "confidenceDeduction": 30}})
    stale = wait_for("quiet worked out again with the migration",
                     lambda: (s := get_status("quiet")).get("matches", [{}])[0].get("stale") and s)
    assert stale["matches"][0]["stale"]["migration"] == "checkout-to-mesh"
    assert stale["recommendation"]["mode"] != "actionable"


def test_a_topology_that_does_not_parse_is_said_on_every_answer_until_it_is_fixed(
    operator: Any, kubectl: Any, namespace: str, get_status: Any
) -> None:
    # A ConfigMap has no schema to refuse a typo: a broken graph would turn every caller into an
    # unrelated service and move every match without a word. Its author reads the Event on the
    # ConfigMap; on-call reads the warning on the answer.
    topology = {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "graph", "labels": {"recall.dev/topology": "true"}},
                "data": {"topology": "edge: {dependsOn: [checkout-api]}\ncheckout-api: {dependsOn: orders-db\n"}}
    apply(kubectl, namespace, topology)
    apply(kubectl, namespace, _incident("graphless"))
    warned = wait_for("graphless answered with the topology's warning", lambda: [
        w for w in get_status("graphless").get("recommendation", {}).get("warnings", [])
        if w.startswith("topology ConfigMap graph is ignored (topology is not valid YAML")])
    assert warned[0].endswith("its services' neighbours are unknown"), warned
    graphless = get_status("graphless")["dna"]["blastRadius"]["reason"]
    assert graphless.startswith("0 of "), graphless

    def event_on_configmap() -> list[dict[str, Any]]:
        proc = kubectl("get", "events", "-n", namespace, "-o", "json",
                       "--field-selector", "involvedObject.kind=ConfigMap,involvedObject.name=graph")
        return [e for e in json.loads(proc.stdout)["items"] if e.get("type") == "Warning"] if proc.returncode == 0 else []

    events = wait_for("a Warning Event on the ConfigMap", event_on_configmap)
    assert "is ignored (topology is not valid YAML" in events[0]["message"], events

    # Fixed: the next pass reads the graph (edge calls checkout-api), and the warning goes.
    topology["data"]["topology"] = "edge: {dependsOn: [checkout-api]}\ncheckout-api: {dependsOn: [orders-db]}\n"
    apply(kubectl, namespace, topology)
    fixed = wait_for(f"graphless worked out again (every {incident.REEVALUATE_SECONDS:.0f} s) with the graph",
                     lambda: (s := get_status("graphless"))["dna"]["blastRadius"]["reason"] != graphless and s)
    assert not [w for w in fixed["recommendation"].get("warnings", []) if w.startswith("topology ConfigMap")]
    assert fixed["dna"]["blastRadius"]["reason"] == "1 of 2 services depend on checkout-api", fixed["dna"]
