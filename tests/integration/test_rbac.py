"""Least privilege, asked of the real API server's RBAC authorizer (manifests/rbac.yaml).

Each row is `kubectl auth can-i` as someone; the denials are the point.
Also: the example namespace enforces the restricted pod security profile,
and a runbook Job's pod passes it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from recall_operator.kube import jobs as jobkit

pytestmark = pytest.mark.integration

MANIFESTS = Path(__file__).resolve().parents[2] / "manifests"
OPERATOR = "system:serviceaccount:recall-system:recall-operator"
EXECUTOR = "system:serviceaccount:recall-incidents:recall-runbook-executor"
R = "{}.recall.dev"

# (who, verb, resource, allowed); `ns` is the test namespace unless the resource says otherwise.
CASES: list[tuple[str, str, str, bool]] = [
    # the operator
    (OPERATOR, "get", "secrets", False),
    (OPERATOR, "list", "secrets", False),
    (OPERATOR, "watch", "secrets", False),
    (OPERATOR, "patch", "incidents.recall.dev/status", True),
    (OPERATOR, "patch", "incidents.recall.dev", True),
    (OPERATOR, "watch", "runbooks.recall.dev", True),
    (OPERATOR, "patch", "approvals.recall.dev/status", True),
    (OPERATOR, "create", "incidents.recall.dev", True),  # the alert bridge
    (OPERATOR, "create", "contradictions.recall.dev", True),  # a proposal (handlers.incident)
    (OPERATOR, "delete", "contradictions.recall.dev", False),
    (OPERATOR, "create", "jobs.batch", True),
    (OPERATOR, "get", "pods/log", True),
    (OPERATOR, "list", "configmaps", True),
    (OPERATOR, "create", "events", True),
    (OPERATOR, "create", "approvals.recall.dev", False),
    (OPERATOR, "delete", "incidents.recall.dev", False),
    (OPERATOR, "update", "runbooks.recall.dev", False),
    (OPERATOR, "create", "runbooks.recall.dev", False),
    (OPERATOR, "create", "pods", False),
    (OPERATOR, "create", "pods/exec", False),
    (OPERATOR, "update", "configmaps", False),
    (OPERATOR, "create", "rolebindings.rbac.authorization.k8s.io", False),
    (OPERATOR, "patch", "deployments.apps", False),
    (OPERATOR, "impersonate", "users", False),
    # the identity runbook Jobs run as
    (EXECUTOR, "create", "approvals.recall.dev", False),
    (EXECUTOR, "get", "incidents.recall.dev", False),
    (EXECUTOR, "list", "incidents.recall.dev", False),
    (EXECUTOR, "get", "secrets", False),
    (EXECUTOR, "create", "jobs.batch", False),
    # alice: recall-approver in the test namespace
    ("alice", "create", "approvals.recall.dev", True),
    ("alice", "get", "incidents.recall.dev", True),
    ("alice", "list", "incidents.recall.dev", True),
    ("alice", "create", "incidents.recall.dev", False),
    ("alice", "create", "jobs.batch", False),
    ("alice", "create", "runbooks.recall.dev", False),
    ("alice", "patch", "incidents.recall.dev/status", False),
    ("alice", "patch", "incidents.recall.dev", False),
    ("alice", "update", "approvals.recall.dev", False),
    ("alice", "delete", "approvals.recall.dev", False),
    ("alice", "get", "secrets", False),
    # carol: recall-viewer in the test namespace
    ("carol", "list", "incidents.recall.dev", True),
    ("carol", "watch", "runbooks.recall.dev", True),
    ("carol", "get", "approvals.recall.dev", True),
    ("carol", "create", "approvals.recall.dev", False),
    ("carol", "patch", "incidents.recall.dev", False),
    ("carol", "get", "secrets", False),
    # bob: recall-responder, erin: recall-reconciler. What a Runbook claims is taken as written
    # (README, "Not enforced"), so no role of the chart may write one: Runbooks come from GitOps.
    ("bob", "create", "incidents.recall.dev", True),
    ("bob", "list", "runbooks.recall.dev", True),
    ("bob", "create", "runbooks.recall.dev", False),
    ("bob", "patch", "runbooks.recall.dev", False),
    ("bob", "update", "runbooks.recall.dev", False),
    ("bob", "patch", "runbooks.recall.dev/status", False),
    ("erin", "patch", "contradictions.recall.dev", True),
    ("erin", "create", "runbooks.recall.dev", False),
    ("erin", "patch", "runbooks.recall.dev", False),
    ("erin", "delete", "runbooks.recall.dev", False),
    # dave: nobody, to show the roles are what grants
    ("dave", "create", "approvals.recall.dev", False),
    ("dave", "list", "incidents.recall.dev", False),
]


@pytest.fixture(scope="module")
def installed(kubectl: Callable[..., Any]) -> None:
    proc = kubectl("apply", "--server-side", "--force-conflicts", "--field-manager=recall-test",
                   "-f", str(MANIFESTS / "namespace-restricted.yaml"), "-f", str(MANIFESTS / "rbac.yaml"))
    assert proc.returncode == 0, proc.stderr


@pytest.fixture
def bound(kubectl: Callable[..., Any], namespace: str, installed: None) -> str:
    for user, role in (("alice", "recall-approver"), ("carol", "recall-viewer"), ("bob", "recall-responder"),
                       ("erin", "recall-reconciler")):
        proc = kubectl("create", "rolebinding", f"{role}-{user}", f"--clusterrole={role}", f"--user={user}",
                       "-n", namespace)
        assert proc.returncode == 0, proc.stderr
    return namespace


def can_i(kubectl: Callable[..., Any], who: str, verb: str, resource: str, ns: str) -> bool:
    proc = kubectl("auth", "can-i", verb, resource, "-n", ns, as_user=who)
    answer = proc.stdout.strip()
    assert answer in ("yes", "no"), f"can-i {verb} {resource} as {who}: {proc.stdout}{proc.stderr}"
    return answer == "yes"


def test_least_privilege(kubectl: Callable[..., Any], bound: str) -> None:
    wrong = []
    denials = 0
    for who, verb, resource, allowed in CASES:
        got = can_i(kubectl, who, verb, resource, bound)
        if got != allowed:
            wrong.append(f"{who} {verb} {resource}: {'allowed' if got else 'denied'}, expected the opposite")
        denials += not got and not allowed
    # Cluster-wide for the operator: it watches every namespace, not just one.
    assert can_i(kubectl, OPERATOR, "watch", "incidents.recall.dev", "kube-system")
    assert not can_i(kubectl, OPERATOR, "get", "secrets", "recall-system")
    assert not can_i(kubectl, "alice", "create", "approvals.recall.dev", "default"), "alice is an approver only here"
    denials += 2
    assert not wrong, "\n".join(wrong)
    print(f"\nrbac: {denials} denials proven, {sum(c[3] for c in CASES) + 1} grants checked")
    assert denials >= 30


def test_the_approver_really_is_refused(kubectl: Callable[..., Any], bound: str) -> None:
    """can-i is a question; ask the API server for real once."""
    inc = {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "metadata": {"name": "x", "namespace": bound},
           "spec": {"service": "checkout", "title": "down"}}
    proc = kubectl("create", "-f", "-", input=json.dumps(inc), as_user="alice")
    assert proc.returncode != 0 and "forbidden" in proc.stderr, proc.stderr
    proc = kubectl("get", "secrets", "-n", bound, as_user=OPERATOR)
    assert proc.returncode != 0 and "forbidden" in proc.stderr, proc.stderr


def test_no_role_of_the_chart_may_write_a_runbook(kubectl: Callable[..., Any], bound: str) -> None:
    """A Runbook's services, tags and words are taken as written (README, "Not enforced"): a responder
    or reconciler who could write one that claims everything would have it offered everywhere."""
    rb = {"apiVersion": "recall.dev/v1alpha1", "kind": "Runbook", "metadata": {"name": "fix-all", "namespace": bound},
          "spec": {"title": "fix whatever is wrong", "steps": [{"name": "look", "image": "busybox:1.36",
                                                                "command": ["true"]}]}}
    for who in ("bob", "erin", "alice", "carol"):
        proc = kubectl("create", "-f", "-", input=json.dumps(rb), as_user=who)
        assert proc.returncode != 0 and "forbidden" in proc.stderr, (who, proc.stderr)
    made = kubectl("create", "-f", "-", input=json.dumps(rb))  # an administrator (GitOps) may
    assert made.returncode == 0, made.stderr
    patch = json.dumps({"spec": {"services": []}})
    for who in ("bob", "erin"):
        proc = kubectl("patch", "runbook", "fix-all", "-n", bound, "--type=merge", "-p", patch, as_user=who)
        assert proc.returncode != 0 and "forbidden" in proc.stderr, (who, proc.stderr)


def test_the_operator_reads_kube_system_for_its_cluster_identity_and_no_other_namespace_by_name(
    kubectl: Callable[..., Any], bound: str
) -> None:
    """The one namespace `get` the chart grants (the UID a shared Hindsight bank keys its memories by)."""
    assert can_i(kubectl, OPERATOR, "get", "namespaces/kube-system", bound)
    assert not can_i(kubectl, OPERATOR, "get", "namespaces/default", bound)
    assert not can_i(kubectl, OPERATOR, "update", "namespaces/kube-system", bound)
    read = kubectl("get", "namespace", "kube-system", "-o", "jsonpath={.metadata.uid}", as_user=OPERATOR)
    assert read.returncode == 0 and read.stdout.strip(), read.stderr
    refused = kubectl("get", "namespace", bound, as_user=OPERATOR)
    assert refused.returncode != 0 and "forbidden" in refused.stderr, refused.stderr


def pod_of(manifest: dict[str, Any], name: str) -> dict[str, Any]:
    template = manifest["spec"]["template"]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "recall-incidents"},
            "spec": template["spec"]}


def test_runbook_pods_pass_the_restricted_profile(kubectl: Callable[..., Any], installed: None) -> None:
    step = {"name": "restart", "image": "busybox:1.36", "command": ["true"], "risk": "low"}
    manifest = jobkit.job_manifest("inc-1", "recall-incidents", "uid-1", step, "run", 1, {})
    ok = kubectl("create", "--dry-run=server", "-f", "-", input=json.dumps(pod_of(manifest, "step-ok")))
    assert ok.returncode == 0, ok.stderr

    bad = pod_of(manifest, "step-root")
    bad["spec"]["securityContext"] = {"runAsUser": 0}
    bad["spec"]["containers"][0]["securityContext"] = {"privileged": True}
    proc = kubectl("create", "--dry-run=server", "-f", "-", input=json.dumps(bad))
    assert proc.returncode != 0 and 'violates PodSecurity "restricted' in proc.stderr, proc.stderr


def test_watching_named_namespaces_the_operator_may_create_jobs_only_there(
    kubectl: Callable[..., Any], namespace: str, installed: None
) -> None:
    """Item 4 of issue 12: the chart's RBAC for named namespaces, asked of the API server's authorizer.

    Rendered for a release in a namespace of its own, so its cluster-scoped names and
    its ServiceAccount differ from the default install the other rows check.
    """
    from support import renderer

    render = renderer()
    release_ns = "recall-confined"
    rendered = [d for d in yaml.safe_load_all(render.render_chart(
        render.helm_binary(), "--set", "watch.allNamespaces=false", "--set", f"watch.namespaces={{{namespace}}}",
        "--show-only", "templates/rbac.yaml", namespace=release_ns)) if d]
    kinds = {"ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"}
    objects = [d for d in rendered if d["kind"] in kinds]
    assert {d["kind"] for d in objects} == kinds
    proc = kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    assert proc.returncode == 0, proc.stderr
    operator = f"system:serviceaccount:{release_ns}:recall-operator"
    try:
        assert can_i(kubectl, operator, "create", "jobs.batch", namespace)
        assert can_i(kubectl, operator, "watch", "incidents.recall.dev", namespace)
        assert can_i(kubectl, operator, "get", "pods/log", namespace)
        assert can_i(kubectl, operator, "patch", "incidents.recall.dev/status", namespace)
        assert can_i(kubectl, operator, "list", "customresourcedefinitions.apiextensions.k8s.io", namespace)
        for elsewhere in ("kube-system", "default"):
            assert not can_i(kubectl, operator, "create", "jobs.batch", elsewhere), elsewhere
            # A shard reads nothing of another's namespaces, nor kube-system's ConfigMaps and pod logs.
            for verb, resource in (("watch", "incidents.recall.dev"), ("get", "configmaps"), ("get", "pods/log"),
                                   ("patch", "incidents.recall.dev/status")):
                assert not can_i(kubectl, operator, verb, resource, elsewhere), (verb, resource, elsewhere)
        job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "own-the-node", "namespace": "kube-system"},
               "spec": {"template": {"spec": {"restartPolicy": "Never", "hostPID": True, "containers": [
                   {"name": "x", "image": "busybox:1.36", "securityContext": {"privileged": True}}]}}}}
        proc = kubectl("create", "--dry-run=server", "-f", "-", input=json.dumps(job), as_user=operator)
        assert proc.returncode != 0 and "forbidden" in proc.stderr, proc.stderr
    finally:
        for d in objects:
            if d["kind"].startswith("Cluster"):
                kubectl("delete", d["kind"].lower(), d["metadata"]["name"], "--ignore-not-found")
