"""The CRDs on a real kube-apiserver.

The session's control plane installs every crds/*.yaml at start (see
tests/conftest.py). These tests check that the API server takes them, that
it accepts every object of the dev replay histories (strict field validation:
an undeclared field fails instead of being pruned), that it refuses bad input
with a message a person can act on, and that the status subresource and the
Approval's immutability hold.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from support import HISTORIES, wait_for
from support import history as history_file

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
GROUP = "recall.dev"
VERSION = "v1alpha1"
API_VERSION = f"{GROUP}/{VERSION}"

PLURALS = {
    "Incident": "incidents",
    "Runbook": "runbooks",
    "ArchitectureMigration": "architecturemigrations",
    "Contradiction": "contradictions",
    "Approval": "approvals",
}
SHORT_NAMES = {
    "incidents": ["inc"],
    "runbooks": ["rb"],
    "architecturemigrations": ["am", "migration"],
    "contradictions": ["contra"],
    "approvals": ["appr"],
}


# --------------------------------------------------------------------------- helpers


def manifest(kind: str, name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": API_VERSION, "kind": kind, "metadata": {"name": name}, "spec": spec}


def kubectl_ok(kubectl: Callable[..., Any], *args: str, input: str | None = None) -> str:
    result = kubectl(*args, input=input)
    assert result.returncode == 0, f"kubectl {' '.join(args)} failed:\n{result.stderr}"
    return result.stdout


def create(kubectl: Callable[..., Any], namespace: str, obj: dict[str, Any]) -> None:
    kubectl_ok(kubectl, "create", "-n", namespace, "-f", "-", input=json.dumps(obj))


def get(kubectl: Callable[..., Any], namespace: str, plural: str, name: str) -> dict[str, Any]:
    return json.loads(kubectl_ok(kubectl, "get", plural, name, "-n", namespace, "-o", "json"))


def table(output: str) -> tuple[list[str], list[list[str]]]:
    """Split `kubectl get` output into its header and rows (columns are 2+ spaces apart)."""
    lines = [line for line in output.splitlines() if line.strip()]
    header = re.split(r"\s{2,}", lines[0].strip())
    return header, [re.split(r"\s{2,}", line.strip()) for line in lines[1:]]


def dataset_objects(name: str) -> list[tuple[str, dict[str, Any]]]:
    """Every object of our kinds in a history, plus each Incident again with its
    outcome recorded as spec.resolution (as a person does on the cluster)."""
    path = history_file(name)
    objects: list[tuple[str, dict[str, Any]]] = []
    incidents: dict[str, dict[str, Any]] = {}
    for i, line in enumerate(path.read_text().splitlines()):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        event = json.loads(line)
        obj = event.get("object")
        if obj is not None and obj["apiVersion"] == API_VERSION:
            objects.append((f"{name}:{i + 1} {obj['kind']}/{obj['metadata']['name']}", obj))
            if obj["kind"] == "Incident":
                incidents[obj["metadata"]["name"]] = obj
        if event["type"] == "outcome":
            resolved = copy.deepcopy(incidents[event["incident"]])
            resolved["spec"]["resolution"] = event["resolution"]
            objects.append((f"{name}:{i + 1} Incident/{event['incident']} with its outcome", resolved))
    return objects


# --------------------------------------------------------------------------- good objects


def good_incident() -> dict[str, Any]:
    return {
        "service": "cart-service",
        "severity": "high",
        "title": "cart-service p99 above 2s after release 5.4.0",
        "description": "Latency climbed within minutes of the rollout.",
        "symptoms": ["latency-spike", "5xx"],
        "errorSignatures": ["redis: command timeout after 500ms"],
        "deployment": {
            "id": "deploy-cart-0233",
            "revision": "cart 5.4.0 (77aa0b2)",
            "environment": "production",
            "minutesSinceDeploy": 19,
        },
        "startedAt": "2025-03-04T02:11:00Z",
        "labels": {"team": "cart", "region": "eu-west-1"},
    }


def good_runbook() -> dict[str, Any]:
    return {
        "title": "Flush hot keys on the cart cache",
        "services": ["cart-service", "redis-cluster"],
        "symptoms": ["cache-eviction", "latency-spike"],
        "parameters": {"REDIS_HOST": "cart-cache"},
        "steps": [
            {
                "name": "inspect-memory",
                "image": "redis:7.2",
                "command": ["redis-cli", "-h", "$(REDIS_HOST)", "info", "memory"],
                "dryRunCommand": ["redis-cli", "-h", "$(REDIS_HOST)", "info", "memory"],
                "rollbackCommand": [],
                "risk": "low",
                "blastRadius": "none (read-only)",
                "estimatedSeconds": 5,
            },
            {
                "name": "flush-hot-keys",
                "image": "redis:7.2",
                "command": ["redis-cli", "-h", "$(REDIS_HOST)", "--scan", "--pattern", "hot:*"],
                "dryRunCommand": ["redis-cli", "-h", "$(REDIS_HOST)", "dbsize"],
                "rollbackCommand": [],
                "risk": "medium",
                "blastRadius": "one cache shard",
                "estimatedSeconds": 30,
                "timeoutSeconds": 120,
                "backoffLimit": 1,
            },
        ],
    }


def good_migration() -> dict[str, Any]:
    return {
        "targetService": "redis-cluster",
        "migrationDate": "2025-01-15",
        "oldArch": "Self-hosted Redis 6.2 on VMs",
        "newArch": "Managed Redis, active-active",
        "impactedRunbooks": ["redis-restart-vm"],
        "impactedFixKeywords": ["restart redis-server"],
        "confidenceDeduction": 29,
    }


def good_contradiction() -> dict[str, Any]:
    return {
        "topic": "kafka consumer lag",
        "memories": ["inc-0007", "inc-0023"],
        "claims": [
            {"memory": "inc-0007", "claim": "raise max.poll.interval.ms"},
            {"memory": "inc-0023", "claim": "lower max.poll.records"},
        ],
        "resolution": {"state": "open"},
    }


def good_approval() -> dict[str, Any]:
    return {
        "incident": "inc-0042",
        "planHash": "9f2c4e1ab07d",
        "decision": "approve",
        "approver": "alice",
        "reason": "matches the dry-run; low blast radius",
    }


GOOD: dict[str, Callable[[], dict[str, Any]]] = {
    "Incident": good_incident,
    "Runbook": good_runbook,
    "ArchitectureMigration": good_migration,
    "Contradiction": good_contradiction,
    "Approval": good_approval,
}


# --------------------------------------------------------------------------- bad input


def _drop(key: str) -> Callable[[dict[str, Any]], None]:
    return lambda spec: spec.pop(key)


def _set(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda spec: spec.__setitem__(key, value)


def _step(index: int, key: str, value: Any = ...) -> Callable[[dict[str, Any]], None]:
    def change(spec: dict[str, Any]) -> None:
        if value is ...:
            spec["steps"][index].pop(key)
        else:
            spec["steps"][index][key] = value

    return change


def _both(*changes: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def change(spec: dict[str, Any]) -> None:
        for one in changes:
            one(spec)

    return change


# (id, kind, change to a good spec, text the API server's refusal must contain)
BAD_INPUT: list[tuple[str, str, Callable[[dict[str, Any]], None], str]] = [
    # Incident
    ("incident-without-service", "Incident", _drop("service"), "spec.service: Required value"),
    ("incident-blank-service", "Incident", _set("service", "   "), "service cannot be blank"),
    ("incident-empty-title", "Incident", _set("title", ""), "title cannot be blank"),
    ("incident-without-title", "Incident", _drop("title"), "spec.title: Required value"),
    ("incident-unknown-severity", "Incident", _set("severity", "sev1"), 'Unsupported value: "sev1"'),
    (
        "incident-symptom-not-a-tag",
        "Incident",
        _set("symptoms", ["Latency Spike"]),
        "symptoms are short lowercase tags",
    ),
    (
        "incident-negative-minutes-since-deploy",
        "Incident",
        lambda spec: spec["deployment"].__setitem__("minutesSinceDeploy", -5),
        "should be greater than or equal to 0",
    ),
    ("incident-startedat-not-a-time", "Incident", _set("startedAt", "yesterday"), "must be of type date-time"),
    # A name no $(NAME) can be, or a value no plan takes, did nothing (the plan dropped it, or went advisory).
    ("incident-parameter-lowercase", "Incident", _set("parameters", {"replicas": "10"}),
     "a parameter name is A-Z, 0-9 and _, starting with a letter"),
    ("incident-parameter-value-with-a-space", "Incident", _set("parameters", {"TARGET": "cart api"}),
     "a parameter value is one plain word"),
    ("incident-parameter-value-an-option", "Incident", _set("parameters", {"TARGET": "--all"}),
     "a parameter value cannot start with '-'"),
    ("incident-parameter-value-too-long", "Incident", _set("parameters", {"TARGET": "a" * 254}),
     "may not be more than 253 bytes"),
    ("incident-startedat-year-zero", "Incident", _set("startedAt", "0000-01-01T00:00:00Z"), "1970 or later"),
    (
        "incident-action-result-unknown",
        "Incident",
        _set("resolution", {"rootCause": "x", "actions": [{"action": "restart cart pods", "result": "worked"}]}),
        'Unsupported value: "worked"',
    ),
    (
        "incident-action-without-result",
        "Incident",
        _set("resolution", {"actions": [{"action": "restart cart pods"}]}),
        "spec.resolution.actions[0].result: Required value",
    ),
    ("incident-unknown-field", "Incident", _set("priority", "P1"), 'unknown field "spec.priority"'),
    ("incident-parameter-not-a-string", "Incident", _set("parameters", {"REPLICAS": 3}), "spec.parameters.REPLICAS"),
    # Runbook
    ("runbook-without-steps", "Runbook", _set("steps", []), "a Runbook needs at least one step"),
    (
        "runbook-duplicate-step-names",
        "Runbook",
        _step(1, "name", "inspect-memory"),
        "step names must be unique within a Runbook",
    ),
    ("runbook-step-without-image", "Runbook", _step(0, "image"), "spec.steps[0].image: Required value"),
    ("runbook-step-blank-image", "Runbook", _step(0, "image", " "), "every step needs an image"),
    ("runbook-step-empty-command", "Runbook", _step(0, "command", []), "every step needs a command"),
    ("runbook-step-blank-program", "Runbook", _step(0, "command", ["", "info"]), "every step needs a command"),
    ("runbook-step-without-command", "Runbook", _step(0, "command"), "spec.steps[0].command: Required value"),
    (
        "runbook-estimated-seconds-zero",
        "Runbook",
        _step(0, "estimatedSeconds", 0),
        "should be greater than or equal to 1",
    ),
    ("runbook-unknown-risk", "Runbook", _step(0, "risk", "yolo"), 'Unsupported value: "yolo"'),
    (
        "runbook-step-name-not-a-label",
        "Runbook",
        _step(0, "name", "Flush Keys"),
        "a step name must be a lowercase DNS label",
    ),
    (
        "runbook-estimate-beyond-timeout",
        "Runbook",
        _step(1, "estimatedSeconds", 600),
        "estimatedSeconds cannot be longer than timeoutSeconds",
    ),
    ("runbook-symptom-not-a-tag", "Runbook", _set("symptoms", ["OOM_kill"]), "symptoms are short lowercase tags"),
    # ArchitectureMigration
    ("migration-blank-keyword", "ArchitectureMigration", _set("impactedFixKeywords", [" "]),
     "a keyword cannot be blank: it would match every remembered fix"),
    (
        "migration-deduction-above-100",
        "ArchitectureMigration",
        _set("confidenceDeduction", 150),
        "should be less than or equal to 100",
    ),
    (
        "migration-deduction-negative",
        "ArchitectureMigration",
        _set("confidenceDeduction", -1),
        "should be greater than or equal to 0",
    ),
    (
        "migration-date-not-a-date",
        "ArchitectureMigration",
        _set("migrationDate", "15/01/2025"),
        "migrationDate must be a date such as 2025-01-15",
    ),
    (
        "migration-without-target",
        "ArchitectureMigration",
        _drop("targetService"),
        "spec.targetService: Required value",
    ),
    # Contradiction
    (
        "contradiction-one-memory",
        "Contradiction",
        _both(_set("memories", ["inc-0007"]), _set("claims", [{"memory": "inc-0007", "claim": "raise it"}])),
        "a Contradiction needs at least two memories",
    ),
    (
        "contradiction-claim-of-unknown-memory",
        "Contradiction",
        lambda spec: spec["claims"][1].__setitem__("memory", "inc-0099"),
        "every claim must name a memory listed in spec.memories",
    ),
    (
        "contradiction-reconciled-without-note",
        "Contradiction",
        _set("resolution", {"state": "reconciled"}),
        "a reconciled Contradiction needs a note",
    ),
    (
        "contradiction-unknown-state",
        "Contradiction",
        _set("resolution", {"state": "closed", "note": "x"}),
        'Unsupported value: "closed"',
    ),
    # Approval
    ("approval-without-incident", "Approval", _drop("incident"), "spec.incident: Required value"),
    ("approval-without-plan-hash", "Approval", _drop("planHash"), "spec.planHash: Required value"),
    ("approval-plan-hash-not-hex", "Approval", _set("planHash", "not-a-hash!"), "planHash must be the hex digest"),
    ("approval-plan-hash-too-short", "Approval", _set("planHash", "9f2c"), "planHash must be the hex digest"),
    ("approval-unknown-decision", "Approval", _set("decision", "maybe"), 'Unsupported value: "maybe"'),
    (
        "approval-reject-without-reason",
        "Approval",
        _both(_set("decision", "reject"), _drop("reason")),
        "a rejection needs a reason",
    ),
    (
        "approval-reject-blank-reason",
        "Approval",
        _both(_set("decision", "reject"), _set("reason", "  ")),
        "a rejection needs a reason",
    ),
    ("approval-without-approver", "Approval", _drop("approver"), "spec.approver: Required value"),
]


# --------------------------------------------------------------------------- tests


def test_crds_are_established(cluster: Any, kubectl: Callable[..., Any]) -> None:
    for plural in PLURALS.values():
        crd = json.loads(kubectl_ok(kubectl, "get", "crd", f"{plural}.{GROUP}", "-o", "json"))
        conditions = {c["type"]: c["status"] for c in crd["status"]["conditions"]}
        assert conditions.get("Established") == "True", conditions
        assert conditions.get("NamesAccepted") == "True", conditions
        assert crd["status"]["acceptedNames"]["categories"] == ["recall"]
        assert crd["status"]["storedVersions"] == [VERSION]

    resources = kubectl_ok(kubectl, "api-resources", f"--api-group={GROUP}", "-o", "wide")
    header, rows = table(resources)
    by_name = {row[0]: dict(zip(header, row, strict=False)) for row in rows}
    for plural, short in SHORT_NAMES.items():
        row = by_name[plural]
        assert sorted(row["SHORTNAMES"].split(",")) == sorted(short)
        assert row["NAMESPACED"] == "true"
        assert row["CATEGORIES"] == "recall"


def test_crd_files_apply_without_warnings(kubectl: Callable[..., Any]) -> None:
    """The API server has nothing to say about the files (no unknown formats,
    no deprecated fields), and they match what the cluster runs."""
    result = kubectl(
        "apply", "--server-side", "--force-conflicts", "--field-manager=recall-cluster",
        "--dry-run=server", "-f", str(ROOT / "crds"),
    )
    assert result.returncode == 0, result.stderr
    assert "Warning" not in result.stderr, result.stderr
    for plural in PLURALS.values():
        assert f"customresourcedefinition.apiextensions.k8s.io/{plural}.{GROUP} serverside-applied" in result.stdout


def test_explain_shows_the_documented_fields(kubectl: Callable[..., Any]) -> None:
    # A new CRD's schema reaches the OpenAPI document kubectl reads a few seconds after it is Established.
    def explained() -> str:
        result = kubectl("explain", "incidents.spec.resolution", f"--api-version={API_VERSION}")
        return str(result.stdout) if result.returncode == 0 else ""

    out = wait_for("kubectl explain to know incidents.spec.resolution", explained, 30)
    for field in ("rootCause", "summary", "runbook", "actions", "confirmedBy"):
        assert field in out


@pytest.mark.parametrize(
    ("case_id", "kind", "change", "message"),
    BAD_INPUT,
    ids=[case[0] for case in BAD_INPUT],
)
def test_bad_input_is_refused_with_a_clear_message(
    kubectl: Callable[..., Any],
    namespace: str,
    case_id: str,
    kind: str,
    change: Callable[[dict[str, Any]], None],
    message: str,
) -> None:
    # The good object is accepted as it is ...
    good = manifest(kind, case_id, GOOD[kind]())
    accepted = kubectl("create", "--dry-run=server", "-n", namespace, "-f", "-", input=json.dumps(good))
    assert accepted.returncode == 0, accepted.stderr
    # ... and refused, with the expected words, after one change.
    spec = GOOD[kind]()
    change(spec)
    result = kubectl("create", "-n", namespace, "-f", "-", input=json.dumps(manifest(kind, case_id, spec)))
    print(result.stderr)  # shown with -rP: what a person sees
    assert result.returncode != 0, f"{case_id}: the API server accepted {spec}"
    assert message in result.stderr, f"{case_id}: expected {message!r} in:\n{result.stderr}"


@pytest.mark.parametrize("history", HISTORIES)
def test_every_dataset_object_is_accepted(k8s_api: Any, namespace: str, history: str) -> None:
    api = k8s.CustomObjectsApi(k8s_api)
    refused = []
    count = 0
    for label, obj in dataset_objects(history):
        count += 1
        try:
            api.create_namespaced_custom_object(
                GROUP,
                VERSION,
                namespace,
                PLURALS[obj["kind"]],
                obj,
                dry_run="All",
                field_validation="Strict",
            )
        except ApiException as exc:
            refused.append(f"{label}: {exc.status} {exc.body}")
    assert count > 100
    assert not refused, "\n".join(refused)


def test_dataset_catalog_applies_in_order(kubectl: Callable[..., Any], k8s_api: Any, namespace: str) -> None:
    """The `apply` events of a history, really created (and replaced when a
    name comes again, as Contradictions do when they are reconciled)."""
    api = k8s.CustomObjectsApi(k8s_api)
    seen: set[tuple[str, str]] = set()
    for _, obj in dataset_objects("dev"):
        kind, name = obj["kind"], obj["metadata"]["name"]
        if kind == "Incident":
            continue
        plural = PLURALS[kind]
        if (kind, name) in seen:
            current = api.get_namespaced_custom_object(GROUP, VERSION, namespace, plural, name)
            body = copy.deepcopy(obj)
            body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
            api.replace_namespaced_custom_object(
                GROUP, VERSION, namespace, plural, name, body, field_validation="Strict"
            )
        else:
            api.create_namespaced_custom_object(GROUP, VERSION, namespace, plural, obj, field_validation="Strict")
            seen.add((kind, name))

    header, rows = table(kubectl_ok(kubectl, "get", "contradictions", "-n", namespace))
    assert header == ["NAME", "TOPIC", "STATE", "RECONCILED BY", "ACCEPTED", "AGE"]
    assert {row[header.index("STATE")] for row in rows} == {"reconciled"}

    header, rows = table(kubectl_ok(kubectl, "get", "architecturemigrations", "-n", namespace))
    assert header == ["NAME", "TARGET", "DATE", "DEDUCTION", "ACCEPTED", "AGE"]
    by_name = {row[0]: row for row in rows}
    assert by_name["redis-cluster-to-elasticache"][1:3] == ["redis-cluster", "2024-09-21"]
    assert by_name["redis-cluster-to-elasticache"][3].isdigit()

    header, rows = table(kubectl_ok(kubectl, "get", "runbooks", "-n", namespace))
    assert header == ["NAME", "SERVICES", "WIN RATE", "EXECUTED", "ACCEPTED", "AGE"]
    assert len(rows) == 16

    # The category lists every kind at once.
    everything = kubectl_ok(kubectl, "get", "recall", "-n", namespace, "-o", "name")
    kinds = {line.split("/")[0] for line in everything.split()}
    assert kinds == {
        "runbook.recall.dev",
        "architecturemigration.recall.dev",
        "contradiction.recall.dev",
    }


def test_incident_printer_columns(kubectl: Callable[..., Any], namespace: str) -> None:
    create(kubectl, namespace, manifest("Incident", "inc-0042", good_incident()))
    status = {
        "status": {
            "recommendation": {
                "mode": "actionable",
                "similarity": 81,
                "actionability": 64.5,
                "runbook": "redis-flush-hot-keys",
                "source": "inc-0031",
                "planHash": "9f2c4e1ab07d",
                "steps": [{"name": "flush-hot-keys", "readOnly": False}],
                "warnings": [],
                "evidence": ["inc-0031: same deploy, same error signature"],
            }
        }
    }
    kubectl_ok(
        kubectl,
        "patch",
        "incident",
        "inc-0042",
        "-n",
        namespace,
        "--subresource=status",
        "--type=merge",
        "-p",
        json.dumps(status),
    )
    header, rows = table(kubectl_ok(kubectl, "get", "incidents", "-n", namespace))
    assert header == ["NAME", "PHASE", "SERVICE", "SEVERITY", "MODE", "SIMILARITY", "ACTIONABILITY", "RUNBOOK", "AGE"]
    (row,) = rows  # PHASE is blank here (no operator), and a blank cell takes no place in the split
    assert row[:7] == ["inc-0042", "cart-service", "high", "actionable", "81", "64.5", "redis-flush-hot-keys"]

    header, _ = table(kubectl_ok(kubectl, "get", "inc", "-n", namespace, "-o", "wide"))
    assert "TITLE" in header and "READY" in header


def test_approval_printer_columns(kubectl: Callable[..., Any], namespace: str) -> None:
    create(kubectl, namespace, manifest("Approval", "approve-inc-0042", good_approval()))
    kubectl_ok(
        kubectl,
        "patch",
        "approval",
        "approve-inc-0042",
        "-n",
        namespace,
        "--subresource=status",
        "--type=merge",
        "-p",
        json.dumps({"status": {"state": "accepted", "reason": "plan hash matches"}}),
    )
    header, rows = table(kubectl_ok(kubectl, "get", "appr", "-n", namespace))
    assert header == ["NAME", "INCIDENT", "DECISION", "APPROVER", "STATE", "AGE"]
    assert rows[0][:5] == ["approve-inc-0042", "inc-0042", "approve", "alice", "accepted"]


@pytest.mark.parametrize(
    "patch",
    [
        {"spec": {"reason": "changed my mind"}},
        {"spec": {"decision": "reject", "reason": "too risky"}},
        {"spec": {"planHash": "0123456789abcdef"}},
        {"spec": {"incident": "inc-0043"}},
    ],
    ids=["reason", "decision", "planHash", "incident"],
)
def test_approval_spec_is_immutable(kubectl: Callable[..., Any], namespace: str, patch: dict[str, Any]) -> None:
    create(kubectl, namespace, manifest("Approval", "approve-inc-0042", good_approval()))
    result = kubectl(
        "patch", "approval", "approve-inc-0042", "-n", namespace, "--type=merge", "-p", json.dumps(patch)
    )
    assert result.returncode != 0
    assert "an Approval cannot be changed after creation; create a new one" in result.stderr
    assert get(kubectl, namespace, "approvals", "approve-inc-0042")["spec"] == good_approval()

    # A full replace is refused the same way.
    changed = manifest("Approval", "approve-inc-0042", {**good_approval(), **patch["spec"]})
    result = kubectl("replace", "-n", namespace, "-f", "-", input=json.dumps(changed))
    assert result.returncode != 0
    assert "an Approval cannot be changed after creation; create a new one" in result.stderr


def test_approval_metadata_and_status_stay_writable(kubectl: Callable[..., Any], namespace: str) -> None:
    create(kubectl, namespace, manifest("Approval", "approve-inc-0042", good_approval()))
    kubectl_ok(kubectl, "label", "approval", "approve-inc-0042", "-n", namespace, "recall.dev/incident=inc-0042")
    kubectl_ok(
        kubectl,
        "patch",
        "approval",
        "approve-inc-0042",
        "-n",
        namespace,
        "--subresource=status",
        "--type=merge",
        "-p",
        json.dumps({"status": {"state": "refused", "reason": "plan changed since"}}),
    )
    approval = get(kubectl, namespace, "approvals", "approve-inc-0042")
    assert approval["metadata"]["labels"] == {"recall.dev/incident": "inc-0042"}
    assert approval["status"]["state"] == "refused"
    assert approval["metadata"]["generation"] == 1
    kubectl_ok(kubectl, "delete", "approval", "approve-inc-0042", "-n", namespace)


def test_incident_spec_stays_mutable(kubectl: Callable[..., Any], namespace: str) -> None:
    create(kubectl, namespace, manifest("Incident", "inc-typo", {**good_incident(), "service": "cart-servcie"}))
    kubectl_ok(
        kubectl,
        "patch",
        "incident",
        "inc-typo",
        "-n",
        namespace,
        "--type=merge",
        "-p",
        json.dumps({"spec": {"service": "cart-service", "parameters": {"REDIS_HOST": "cart-cache-2"}}}),
    )
    incident = get(kubectl, namespace, "incidents", "inc-typo")
    assert incident["spec"]["service"] == "cart-service"
    assert incident["metadata"]["generation"] == 2


def test_status_subresource(kubectl: Callable[..., Any], k8s_api: Any, namespace: str) -> None:
    api = k8s.CustomObjectsApi(k8s_api)
    create(kubectl, namespace, manifest("Incident", "inc-0001", good_incident()))
    assert get(kubectl, namespace, "incidents", "inc-0001")["metadata"]["generation"] == 1

    status = {
        "observedGeneration": 1,
        "conditions": [
            {
                "type": "Recommended",
                "status": "True",
                "reason": "PrecedentFound",
                "message": "inc-0031 matches",
                "observedGeneration": 1,
                "lastTransitionTime": "2025-03-04T02:12:00Z",
            }
        ],
        "dna": {"fingerprint": "cart-service|latency-spike", "tokens": ["redis", "timeout"], "whatever": {"x": 1}},
        "matches": [
            {
                "incident": "inc-0031",
                "similarity": 81.2,
                "breakdown": {"bm25": 0.31, "service": 0.25, "ruledOut": -35},
                "outcome": "succeeded",
                "ruledOut": ["this report denies 'saml', which inc-0031 had"],
                "sharedChange": ["firmware", "campaign"],
            },
        ],
        "recommendation": {"mode": "advisory", "similarity": 81.2, "actionability": 40, "futureField": "kept"},
        "dryRun": {"jobs": [{"step": "inspect-memory", "exitCode": 0, "output": "used_memory:1G"}]},
        "execution": {"phase": "Pending"},
        "memory": {"written": False},
    }
    kubectl_ok(
        kubectl,
        "patch",
        "incident",
        "inc-0001",
        "-n",
        namespace,
        "--subresource=status",
        "--type=merge",
        "-p",
        json.dumps({"status": status}),
    )
    incident = get(kubectl, namespace, "incidents", "inc-0001")
    assert incident["metadata"]["generation"] == 1, "a status write must not bump the generation"
    assert incident["status"] == status, "status must keep every field the operator writes"
    # The status root is a real schema (kubectl explain lists it): a key it does not declare is pruned.
    kubectl_ok(kubectl, "patch", "incident", "inc-0001", "-n", namespace, "--subresource=status", "--type=merge",
               "-p", json.dumps({"status": {"somethingNew": {"a": [1, 2, 3]}}}))
    incident = get(kubectl, namespace, "incidents", "inc-0001")
    assert "somethingNew" not in incident["status"] and incident["status"] == status

    # Status written through the main resource is ignored; spec changes bump the generation.
    body = copy.deepcopy(incident)
    body["spec"]["severity"] = "critical"
    body["status"] = {"recommendation": {"mode": "novel"}}
    api.replace_namespaced_custom_object(GROUP, VERSION, namespace, "incidents", "inc-0001", body)
    incident = get(kubectl, namespace, "incidents", "inc-0001")
    assert incident["metadata"]["generation"] == 2
    assert incident["spec"]["severity"] == "critical"
    assert incident["status"]["recommendation"]["mode"] == "advisory"

    # Spec written through the status subresource is ignored too.
    kubectl_ok(
        kubectl,
        "patch",
        "incident",
        "inc-0001",
        "-n",
        namespace,
        "--subresource=status",
        "--type=merge",
        "-p",
        json.dumps({"spec": {"severity": "low"}, "status": {"observedGeneration": 2}}),
    )
    incident = get(kubectl, namespace, "incidents", "inc-0001")
    assert incident["spec"]["severity"] == "critical"
    assert incident["status"]["observedGeneration"] == 2
    assert incident["metadata"]["generation"] == 2


@pytest.mark.parametrize(
    ("status", "message"),
    [
        ({"recommendation": {"mode": "yolo"}}, 'Unsupported value: "yolo"'),
        ({"recommendation": {"similarity": 140}}, "should be less than or equal to 100"),
        ({"conditions": [{"type": "Ready", "status": "Maybe"}]}, 'Unsupported value: "Maybe"'),
        ({"conditions": [{"status": "True"}]}, "Required value"),
        ({"matches": [{"incident": "inc-1", "ruledOut": [{"word": "saml"}]}]}, "ruledOut[0]: Invalid value"),
        ({"matches": [{"incident": "inc-1", "sharedChange": "firmware"}]}, "sharedChange: Invalid value"),
    ],
    ids=["mode", "similarity", "condition-status", "condition-without-type", "ruled-out-not-text",
         "shared-change-not-a-list"],
)
def test_status_is_validated(kubectl: Callable[..., Any], namespace: str, status: dict[str, Any], message: str) -> None:
    create(kubectl, namespace, manifest("Incident", "inc-0002", good_incident()))
    result = kubectl(
        "patch",
        "incident",
        "inc-0002",
        "-n",
        namespace,
        "--subresource=status",
        "--type=merge",
        "-p",
        json.dumps({"status": status}),
    )
    assert result.returncode != 0
    assert message in result.stderr, result.stderr


def test_runbook_status_columns(kubectl: Callable[..., Any], namespace: str) -> None:
    create(kubectl, namespace, manifest("Runbook", "redis-flush-hot-keys", good_runbook()))
    kubectl_ok(
        kubectl,
        "patch",
        "runbook",
        "redis-flush-hot-keys",
        "-n",
        namespace,
        "--subresource=status",
        "--type=merge",
        "-p",
        json.dumps(
            {
                "status": {
                    "timesExecuted": 3,
                    "timesSucceeded": 2,
                    "winRate": 0.6,
                    "lastOutcome": {"incident": "inc-0042", "result": "succeeded"},
                    # What the operator writes from spec.services (no operator runs here).
                    "servicesText": "cart-service, redis-cluster",
                }
            }
        ),
    )
    header, rows = table(kubectl_ok(kubectl, "get", "rb", "-n", namespace))
    assert header == ["NAME", "SERVICES", "WIN RATE", "EXECUTED", "ACCEPTED", "AGE"]
    row = dict(zip(header, rows[0], strict=False))
    assert row["WIN RATE"] == "0.6"
    assert row["EXECUTED"] == "3"
    assert row["SERVICES"] == "cart-service, redis-cluster"


def test_an_incident_without_a_severity_is_stored_as_medium_as_the_operator_reads_it(
    kubectl: Callable[..., Any], namespace: str
) -> None:
    # An alert bridge or a person may leave severity out; the SEVERITY column must not be blank.
    spec = good_incident()
    del spec["severity"]
    create(kubectl, namespace, manifest("Incident", "no-severity", spec))
    assert get(kubectl, namespace, "incidents", "no-severity")["spec"]["severity"] == "medium"
    # Blank columns collapse in a plain split, so read the SEVERITY column by its position in the header.
    out = kubectl_ok(kubectl, "get", "incidents", "no-severity", "-n", namespace)
    header, row = out.splitlines()[:2]
    start = header.index("SEVERITY")
    assert row[start:].split()[0] == "medium", out


def test_a_null_in_an_optional_field_is_stored_as_absent(kubectl: Callable[..., Any], namespace: str) -> None:
    # A bridge or a script may write null for what it does not know; the API server drops it
    # (and applies the default), and `recall replay` reads a history's nulls the same way.
    nulls = ("severity", "description", "symptoms", "errorSignatures", "deployment", "startedAt", "labels")
    spec = {**good_incident(), **dict.fromkeys(nulls)}
    create(kubectl, namespace, manifest("Incident", "nulls", spec))
    stored = get(kubectl, namespace, "incidents", "nulls")["spec"]
    assert stored == {"service": spec["service"], "title": spec["title"], "severity": "medium"}, stored
