"""The deployment manifests: they parse, and the RBAC in them stays least-privilege."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

MANIFESTS = Path(__file__).resolve().parents[2] / "manifests"
FILES = ("admission.yaml", "rbac.yaml", "namespace-restricted.yaml")
KINDS = {"incidents", "runbooks", "approvals", "contradictions", "architecturemigrations"}


def docs(name: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((MANIFESTS / name).read_text()) if d is not None]


def by_kind(name: str, kind: str) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in docs(name) if d["kind"] == kind}


@pytest.mark.parametrize("name", FILES)
def test_every_manifest_parses_into_named_objects(name: str) -> None:
    found = docs(name)
    assert found
    for d in found:
        assert d.get("apiVersion") and d.get("kind") and d["metadata"].get("name"), d


def all_rules() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for kind in ("ClusterRole", "Role"):
        for name, role in by_kind("rbac.yaml", kind).items():
            out += [(name, r) for r in role.get("rules") or []]
    return out


def test_no_role_grants_secrets_or_wildcards() -> None:
    rules = all_rules()
    assert len(rules) >= 10
    for name, rule in rules:
        for key in ("apiGroups", "resources", "verbs"):
            assert "*" not in rule.get(key, []), f"{name} has a wildcard in {key}: {rule}"
        assert not any(r.split("/")[0] == "secrets" for r in rule.get("resources", [])), f"{name}: {rule}"
        assert "nonResourceURLs" not in rule, name
        for verb in ("escalate", "bind", "impersonate"):
            assert verb not in rule["verbs"], f"{name} may {verb}"


def grants(role: str) -> set[tuple[str, str, str]]:
    rules = by_kind("rbac.yaml", "ClusterRole")[role]["rules"]
    return {(g, r, v) for rule in rules for g in rule["apiGroups"] for r in rule["resources"] for v in rule["verbs"]}


def test_operator_role_is_what_the_operator_calls() -> None:
    g = grants("recall-operator")
    for kind in KINDS:
        for verb in ("get", "list", "watch", "patch"):
            assert ("recall.dev", kind, verb) in g
        assert ("recall.dev", f"{kind}/status", "patch") in g
        assert ("recall.dev", kind, "delete") not in g and ("recall.dev", kind, "update") not in g
    assert ("recall.dev", "approvals", "create") not in g, "the operator must never sign an Approval"
    assert {("batch", "jobs", v) for v in ("create", "get", "list", "watch", "delete")} <= g
    assert ("", "pods/log", "get") in g and ("", "pods", "create") not in g
    assert ("", "configmaps", "update") not in g


def test_people_s_roles_are_narrow() -> None:
    # Reading Approvals back is how an approver sees the verdict (kubectl recall approve --wait).
    assert grants("recall-approver") == {
        *(("recall.dev", "approvals", v) for v in ("create", "get", "list", "watch")),
        ("recall.dev", "incidents", "get"),
        ("recall.dev", "incidents", "list"),
    }
    # A responder opens incidents and records outcomes; approving and status are not theirs. Runbooks are
    # read only: `kubectl recall resolve --runbook` checks the name it credits against them.
    assert grants("recall-responder") == {
        *(("recall.dev", "incidents", v) for v in ("get", "list", "watch", "create", "patch", "update")),
        ("recall.dev", "runbooks", "get"),
        ("recall.dev", "runbooks", "list"),
    }
    # A reconciler writes Contradictions and reads the Incidents they name; deleting an open one would lift its
    # gate unsigned, so that stays an administrator's.
    assert grants("recall-reconciler") == {
        *(("recall.dev", "contradictions", v) for v in ("get", "list", "watch", "create", "patch", "update")),
        ("recall.dev", "incidents", "get"),
        ("recall.dev", "incidents", "list"),
    }
    viewer = grants("recall-viewer")
    assert viewer == {("recall.dev", k, v) for k in KINDS for v in ("get", "list", "watch")}


def test_executor_account_is_bound_only_in_its_own_namespace() -> None:
    """Its token (steps with apiAccess only) may do what one Role in the incident namespace says, no more."""
    accounts = {(d["metadata"]["namespace"], n) for n, d in by_kind("rbac.yaml", "ServiceAccount").items()}
    assert ("recall-incidents", "recall-runbook-executor") in accounts
    for name, b in by_kind("rbac.yaml", "ClusterRoleBinding").items():
        assert all(s["name"] != "recall-runbook-executor" for s in b["subjects"]), name
    bound = [b for b in by_kind("rbac.yaml", "RoleBinding").values()
             if any(s["name"] == "recall-runbook-executor" for s in b["subjects"])]
    assert [(b["metadata"]["namespace"], b["roleRef"]["kind"]) for b in bound] == [("recall-incidents", "Role")]


def test_every_policy_is_bound_to_deny_everywhere() -> None:
    policies = by_kind("admission.yaml", "ValidatingAdmissionPolicy")
    bindings = by_kind("admission.yaml", "ValidatingAdmissionPolicyBinding")
    assert set(policies) == {"recall-approval-identity", "recall-incident-opener", "recall-outcome-identity",
                             "recall-approval-open-incident", "recall-operator-jobs", "recall-operator-job-runbook",
                             "recall-contradiction-reconciler"}
    bound = {b["spec"]["policyName"]: b for b in bindings.values()}
    assert set(bound) == set(policies)
    for name, b in bound.items():
        assert b["spec"]["validationActions"] == ["Deny"], name
        assert b["spec"]["matchResources"]["namespaceSelector"] == {}, name
        assert policies[name]["spec"]["failurePolicy"] == "Fail"
        # A policy with parameters reads every object of its kind in the request's namespace.
        if "paramKind" in policies[name]["spec"]:
            assert b["spec"]["paramRef"]["selector"] == {} and "namespace" not in b["spec"]["paramRef"], name
        for v in policies[name]["spec"]["validations"]:
            assert v.get("message") and v.get("messageExpression"), v
    identity = [v["expression"] for n in ("recall-approval-identity", "recall-incident-opener", "recall-outcome-identity")
                for v in policies[n]["spec"]["validations"]]
    assert all("request.userInfo.username" in e or "UPDATE" in e or "variables.bridge" in e for e in identity)
    # The Jobs policies judge only what the operator's own account creates, and refuse where no Runbook is.
    for name in ("recall-operator-jobs", "recall-operator-job-runbook"):
        assert policies[name]["spec"]["matchConditions"][0]["expression"] == (
            "request.userInfo.username == 'system:serviceaccount:recall-system:recall-operator'")
    runbook_rules = bound["recall-operator-job-runbook"]["spec"]
    assert runbook_rules["paramRef"]["parameterNotFoundAction"] == "Deny"
    # Parameters are looked up before matchConditions: bound to every Job, the lookup refused
    # every user's Job in a namespace without Runbooks. Only the operator's labelled Jobs meet it.
    assert runbook_rules["matchResources"]["objectSelector"] == {
        "matchExpressions": [{"key": "recall.dev/incident", "operator": "Exists"}]}
    assert "paramKind" not in policies["recall-operator-jobs"]["spec"]
    assert any("recall.dev/incident" in v["expression"] for v in policies["recall-operator-jobs"]["spec"]["validations"])


def test_example_namespace_enforces_restricted() -> None:
    (ns,) = docs("namespace-restricted.yaml")
    assert ns["kind"] == "Namespace"
    assert ns["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"
