"""The Helm chart, the plain manifests and crds/ say the same thing.

- helm/recall-operator/crds/ holds exact copies of crds/*.yaml;
- manifests/install.yaml is what scripts/render-manifests.py renders now;
- the chart's RBAC and admission policies are those of manifests/rbac.yaml and
  manifests/admission.yaml in substance (rules, CEL, bindings), templated
  only for names and namespace.

helm is built by scripts/testbin.sh when missing (never a reason to skip).
Fix a failure with `scripts/render-manifests.py`.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from support import renderer

ROOT = Path(__file__).resolve().parents[2]


render = renderer()


def docs(text: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(text) if d]


def by_kind_name(items: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(d["kind"], d["metadata"]["name"]): d for d in items}


def test_chart_crds_are_exact_copies_of_crds() -> None:
    assert sorted(p.name for p in (ROOT / "crds").glob("*.yaml")), "crds/ is empty"
    problems = render.crds_in_sync()
    assert problems == [], "run scripts/render-manifests.py: " + "; ".join(problems)


def test_a_changed_chart_crd_is_noticed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "crds"
    shutil.copytree(render.CHART_CRDS, copy)
    victim = sorted(copy.glob("*.yaml"))[0]
    victim.write_text(victim.read_text().replace("v1alpha1", "v1alpha2", 1))
    (copy / "extra.yaml").write_text("kind: Nothing\n")
    monkeypatch.setattr(render, "CHART_CRDS", copy)
    problems = render.crds_in_sync()
    assert f"differs from crds/: {victim.name}" in problems
    assert "not in crds/: extra.yaml" in problems


def test_install_yaml_is_a_fresh_render(helm: str) -> None:
    fresh = render.render_install(helm)
    current = (ROOT / "manifests" / "install.yaml").read_text()
    assert current == fresh, "manifests/install.yaml is stale: run scripts/render-manifests.py"
    kinds = [d["kind"] for d in docs(current)]
    assert kinds.count("CustomResourceDefinition") == len(list((ROOT / "crds").glob("*.yaml")))
    for kind in ("Namespace", "Deployment", "ServiceAccount", "ClusterRole", "ClusterRoleBinding",
                 "Service", "PersistentVolumeClaim", "ValidatingAdmissionPolicy"):
        assert kind in kinds, kind


def test_check_mode_fails_on_a_stale_install(helm: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = tmp_path / "install.yaml"
    stale.write_text((ROOT / "manifests" / "install.yaml").read_text().replace("replicas: 1", "replicas: 3"))
    monkeypatch.setattr(render, "INSTALL", stale)
    monkeypatch.setenv("RECALL_HELM", helm)
    assert render.main(["--check"]) == 1
    monkeypatch.setattr(render, "INSTALL", ROOT / "manifests" / "install.yaml")
    assert render.main(["--check"]) == 0


def test_chart_rbac_and_admission_match_the_plain_manifests(helm: str) -> None:
    chart = by_kind_name(docs(render.render_chart(helm)))
    plain = by_kind_name(docs((ROOT / "manifests" / "rbac.yaml").read_text())
                         + docs((ROOT / "manifests" / "admission.yaml").read_text()))
    compared = 0
    for (kind, name), want in plain.items():
        if kind == "Namespace":
            continue  # the chart installs into the release namespace; install.yaml adds it
        if kind == "ServiceAccount":
            # the executor's account lives in each incident namespace; the chart makes it in the
            # release namespace and the watched ones. Same name and token policy.
            have = [d for (k, n), d in chart.items() if k == kind and n == name]
            assert have, f"the chart has no ServiceAccount {name}"
            assert all(d.get("automountServiceAccountToken") == want.get("automountServiceAccountToken")
                       for d in have), name
            compared += 1
            continue
        if kind in ("Role", "RoleBinding") and name == "recall-runbook-executor":
            continue  # made only in served namespaces: tests/unit/test_executor_access.py compares them
        assert (kind, name) in chart, f"the chart has no {kind} {name}"
        have = chart[(kind, name)]
        for key in ("rules", "roleRef", "subjects", "spec"):
            assert have.get(key) == want.get(key), f"{kind} {name}: {key} differs from manifests/"
        assert (have["metadata"].get("labels", {}).get("rbac.authorization.k8s.io/aggregate-to-view")
                == want["metadata"].get("labels", {}).get("rbac.authorization.k8s.io/aggregate-to-view"))
        compared += 1
    assert compared >= 8, compared


MAP_API = "admissionregistration.k8s.io/v1/MutatingAdmissionPolicy"


@pytest.mark.parametrize(("manifest", "name", "switch"), [
    ("outcome-hold.yaml", "recall-outcome-hold", "admission.holdOutcomes=false"),
    # The parameters' signature goes with the validating policies that ask for it.
    ("parameters-signature.yaml", "recall-parameters-signature", "admission.enabled=false"),
])
def test_the_chart_s_mutating_policies_are_the_plain_manifests_where_the_api_server_serves_them(
        helm: str, manifest: str, name: str, switch: str) -> None:
    """MutatingAdmissionPolicy is served from Kubernetes 1.36: the chart renders each one only where the
    API server serves it and its switch is on, and then the same as its plain manifest."""
    plain = by_kind_name(docs((ROOT / "manifests" / manifest).read_text()))
    assert set(plain) == {("MutatingAdmissionPolicy", name), ("MutatingAdmissionPolicyBinding", name)}
    chart = by_kind_name(docs(render.render_chart(helm, "--api-versions", MAP_API)))
    for key, want in plain.items():
        assert key in chart, f"the chart has no {key}"
        assert chart[key]["spec"] == want["spec"], f"{key}: spec differs from manifests/{manifest}"
    older = [d["kind"] for d in docs(render.render_chart(helm))]
    assert not any(k.startswith("MutatingAdmissionPolicy") for k in older), older
    off = by_kind_name(docs(render.render_chart(helm, "--api-versions", MAP_API, "--set", switch)))
    assert not {key for key in off if key[1] == name}, off.keys()


def test_the_outcome_hold_is_bound_to_the_watched_namespaces(helm: str) -> None:
    # Watching named namespaces, only their Incidents are held: no operator would let another one go.
    named = docs(render.render_chart(helm, "--api-versions", MAP_API, "--set", "watch.allNamespaces=false",
                                     "--set", "watch.namespaces={shop,payments}", namespace="shop"))
    (binding,) = [d for d in named if d["kind"] == "MutatingAdmissionPolicyBinding"
                  and d["metadata"]["name"].startswith("recall-outcome-hold")]
    assert binding["metadata"]["name"] == "recall-outcome-hold-shop"
    assert binding["spec"]["policyName"] == "recall-outcome-hold-shop"
    assert binding["spec"]["matchResources"]["namespaceSelector"] == {"matchExpressions": [
        {"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["shop", "payments"]}]}


def test_named_namespaces_confine_the_operators_jobs(helm: str) -> None:
    """Watching named namespaces, the operator may create Jobs only there (a Role each), not cluster-wide."""
    rendered = docs(render.render_chart(helm, "--set", "watch.allNamespaces=false",
                                        "--set", "watch.namespaces={shop,payments}"))
    cluster_role = next(d for d in rendered if d["kind"] == "ClusterRole" and d["metadata"]["name"] == "recall-operator")
    assert not any("jobs" in r["resources"] for r in cluster_role["rules"]), cluster_role["rules"]
    roles = {d["metadata"]["namespace"]: d for d in rendered if d["kind"] == "Role"
             and d["metadata"]["name"] == "recall-operator-jobs"}  # not the executor's Role
    assert set(roles) == {"shop", "payments"}
    for role in roles.values():
        assert role["rules"] == [{"apiGroups": ["batch"], "resources": ["jobs"],
                                  "verbs": ["create", "get", "list", "watch", "delete"]}]
    bindings = {d["metadata"]["namespace"]: d for d in rendered if d["kind"] == "RoleBinding"
                and d["metadata"]["name"] == "recall-operator-jobs"}
    assert set(bindings) >= {"shop", "payments"}
    assert all(b["subjects"] == [{"kind": "ServiceAccount", "name": "recall-operator", "namespace": "recall-system"}]
               for ns, b in bindings.items() if ns in roles)
    # Watching every namespace, Jobs stay in the ClusterRole: the admission policy confines what they may be.
    default = next(d for d in docs(render.render_chart(helm)) if d["kind"] == "ClusterRole"
                   and d["metadata"]["name"] == "recall-operator")
    assert any("jobs" in r["resources"] for r in default["rules"])
