"""What a runbook step with apiAccess may touch, as the chart, the plain manifests and the sample say.

- the executor account's RBAC is one Role per served namespace, the same in
  the chart (executor.rules) as in manifests/rbac.yaml, never in the release
  namespace, never cluster-wide, never a wildcard;
- the admission policy accepts the projected token exactly as kube/jobs.py
  builds it (volume name, path, expiry), so the two cannot drift apart;
- the sample runbook's kubectl steps declare apiAccess, and nothing else does.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from support import renderer

from recall_operator.domain.models import RunbookSpec
from recall_operator.kube import jobs

ROOT = Path(__file__).resolve().parents[2]
EXECUTOR = "recall-runbook-executor"
ROLLOUT_RULES = [
    {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get", "list", "watch", "patch"]},
    {"apiGroups": ["apps"], "resources": ["replicasets"], "verbs": ["get", "list", "watch"]},
]


render = renderer()


def docs(text: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(text) if d]


def executor_rbac(items: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """(kind, namespace) -> object, for the executor's Roles and RoleBindings."""
    return {(d["kind"], d["metadata"]["namespace"]): d for d in items
            if d["kind"] in ("Role", "RoleBinding") and d["metadata"]["name"] == EXECUTOR}


def test_the_plain_manifests_grant_the_rollout_verbs_in_the_incident_namespace_only() -> None:
    items = docs((ROOT / "manifests" / "rbac.yaml").read_text())
    found = executor_rbac(items)
    assert set(found) == {("Role", "recall-incidents"), ("RoleBinding", "recall-incidents")}
    assert found[("Role", "recall-incidents")]["rules"] == ROLLOUT_RULES
    binding = found[("RoleBinding", "recall-incidents")]
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": EXECUTOR}
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": EXECUTOR, "namespace": "recall-incidents"}]
    assert not [d for d in items if d["kind"] in ("ClusterRoleBinding", "RoleBinding") and d is not binding
                and any(s["name"] == EXECUTOR for s in d["subjects"])]


def test_the_chart_grants_the_same_in_each_served_namespace(helm: str) -> None:
    plain = executor_rbac(docs((ROOT / "manifests" / "rbac.yaml").read_text()))
    chart = executor_rbac(docs(render.render_chart(helm, "--set", "executor.namespaces={recall-incidents,shop}")))
    assert set(chart) == {(k, ns) for k in ("Role", "RoleBinding") for ns in ("recall-incidents", "shop")}
    for key in ("rules", "roleRef", "subjects"):
        assert chart[("Role", "recall-incidents")].get(key) == plain[("Role", "recall-incidents")].get(key), key
        assert chart[("RoleBinding", "recall-incidents")].get(key) == \
            plain[("RoleBinding", "recall-incidents")].get(key), key
    assert chart[("RoleBinding", "shop")]["subjects"] == [
        {"kind": "ServiceAccount", "name": EXECUTOR, "namespace": "shop"}]


def test_the_chart_follows_the_watched_namespaces_and_never_the_release_namespace(helm: str) -> None:
    watched = executor_rbac(docs(render.render_chart(
        helm, "--set", "watch.allNamespaces=false", "--set", "watch.namespaces={shop,payments,recall-system}")))
    assert {ns for _, ns in watched} == {"shop", "payments"}
    # Watching everything with no executor.namespaces, the account lives only beside the operator: no Role.
    assert executor_rbac(docs(render.render_chart(helm))) == {}
    assert executor_rbac(docs(render.render_chart(
        helm, "--set", "executor.namespaces={shop}", "--set", "executor.rules=null"))) == {}


def test_the_chart_refuses_wildcards_and_escalation_in_the_executor_rules(helm: str) -> None:
    for bad in ("executor.rules[0].resources={*}", "executor.rules[0].verbs={escalate}",
                "executor.rules[0].apiGroups={*}"):
        args = ["--set", "executor.rules[0].apiGroups={apps}", "--set", "executor.rules[0].resources={deployments}",
                "--set", "executor.rules[0].verbs={get}", "--set", bad]
        with pytest.raises(RuntimeError, match="values don't meet the specifications|schema"):
            render.render_chart(helm, *args)


def test_the_job_policy_accepts_the_token_exactly_as_jobs_py_builds_it() -> None:
    for path in (ROOT / "manifests" / "admission.yaml", ROOT / "helm" / "recall-operator" / "templates" / "admission.yaml"):
        text = path.read_text()
        assert f"v.name == '{jobs.API_TOKEN_VOLUME}'" in text, path
        assert f"m.name == '{jobs.API_TOKEN_VOLUME}'" in text, path
        assert f"m.mountPath == '{jobs.API_TOKEN_PATH}'" in text, path
        assert f"expirationSeconds <= {jobs.API_TOKEN_EXPIRY_SECONDS}" in text, path
        assert "s.configMap.name == 'kube-root-ca.crt'" in text, path
        assert "!variables.pod.automountServiceAccountToken" in text, path
    volume = jobs.api_token_volume()
    (token,) = [s["serviceAccountToken"] for s in volume["projected"]["sources"] if "serviceAccountToken" in s]
    assert "audience" not in token and token["expirationSeconds"] == jobs.API_TOKEN_EXPIRY_SECONDS


def test_the_sample_runbooks_kubectl_steps_declare_api_access() -> None:
    (doc,) = docs((ROOT / "manifests" / "samples" / "runbook.yaml").read_text())
    spec = RunbookSpec.model_validate(doc["spec"])
    for step in spec.steps:
        calls_the_api = "kubectl" in (step.command[:1] + step.dry_run_command[:1])
        assert step.api_access == calls_the_api, step.name
    assert any(s.api_access for s in spec.steps)
    # No namespace is named: a step acts where its incident is, where the executor's Role is.
    assert not any("-n" in s.command or "--namespace" in s.command for s in spec.steps)


def test_helm_is_what_the_renderer_runs(helm: str) -> None:
    proc = subprocess.run([helm, "version", "--short"], capture_output=True, text=True, check=False,
                          env=render.helm_env())
    assert proc.returncode == 0 and proc.stdout.startswith("v"), proc.stderr
