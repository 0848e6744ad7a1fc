"""The local control plane itself: API server, RBAC and impersonation, Jobs run
through scheduler + kwok + job controller, restarts, and a clean `down`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from recall_operator_dev.cluster import COMPONENTS, FAKE_NODE_NAME, LocalCluster
from support import wait_for

pytestmark = pytest.mark.integration

# Generous: these bound a hang, they do not measure speed.
DEADLINE = 180.0


def kubectl_ok(kubectl: Callable[..., Any], *args: str, input: str | None = None) -> str:
    result = kubectl(*args, input=input)
    assert result.returncode == 0, f"kubectl {' '.join(args)} failed:\n{result.stdout}{result.stderr}"
    return str(result.stdout)


def job(name: str, *, labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {
            "backoffLimit": 0,
            "template": {
                "metadata": {"labels": labels or {}},
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "main", "image": "busybox", "command": ["sh", "-c", "echo hello"]}],
                },
            },
        },
    }


def wait_for_job(kubectl: Callable[..., Any], namespace: str, name: str) -> dict[str, Any]:
    """Poll until the Job has a true Complete or Failed condition; return the Job."""

    def finished() -> dict[str, Any] | None:
        last = json.loads(kubectl_ok(kubectl, "get", "job", name, "-n", namespace, "-o", "json"))
        done = any(c["type"] in ("Complete", "Failed") and c["status"] == "True"
                   for c in last.get("status", {}).get("conditions") or [])
        return last if done else None

    def explain() -> str:
        status = kubectl("get", "job", name, "-n", namespace, "-o", "jsonpath={.status}").stdout
        pods = kubectl("get", "pods", "-n", namespace, "-o", "wide").stdout
        return f"job status: {status}\npods:\n{pods}"

    job: dict[str, Any] = wait_for(f"job {name} to finish (a true Complete or Failed condition)", finished,
                                   deadline=DEADLINE, detail=explain)
    return job


def conditions(obj: dict[str, Any]) -> dict[str, str]:
    return {c["type"]: c["status"] for c in obj.get("status", {}).get("conditions") or []}


def test_apiserver_is_ready(cluster: LocalCluster, kubectl: Callable[..., Any]) -> None:
    assert os.environ["KUBECONFIG"] == str(cluster.kubeconfig)
    assert kubectl_ok(kubectl, "get", "--raw", "/readyz").strip() == "ok"
    version = json.loads(kubectl_ok(kubectl, "version", "-o", "json"))
    assert version["serverVersion"]["major"] == "1"


def test_fake_node_is_ready(kubectl: Callable[..., Any]) -> None:
    node = json.loads(kubectl_ok(kubectl, "get", "node", FAKE_NODE_NAME, "-o", "json"))
    assert conditions(node).get("Ready") == "True"
    assert not node["spec"].get("taints")


def test_python_client_talks_to_the_cluster(k8s_api: Any) -> None:
    from kubernetes import client

    names = [ns.metadata.name for ns in client.CoreV1Api(k8s_api).list_namespace().items]
    assert {"default", "kube-system"} <= set(names)


def test_impersonation_and_rbac(kubectl: Callable[..., Any], namespace: str) -> None:
    assert kubectl_ok(kubectl, "auth", "can-i", "create", "pods", "-n", namespace).strip() == "yes"
    denied = kubectl("auth", "can-i", "create", "pods", "-n", namespace, as_user="alice")
    assert denied.returncode != 0
    assert denied.stdout.strip() == "no"
    as_master = kubectl("auth", "can-i", "create", "pods", as_user="alice", as_groups=["system:masters"])
    assert as_master.stdout.strip() == "yes"
    forbidden = kubectl("get", "pods", "-n", namespace, as_user="alice")
    assert forbidden.returncode != 0
    assert "forbidden" in forbidden.stderr.lower()

    # Granting alice the aggregated `edit` role works (the aggregation controller runs).
    kubectl_ok(kubectl, "create", "rolebinding", "alice-edit", "--clusterrole=edit", "--user=alice", "-n", namespace)
    wait_for("alice to get the edit role's rights",
             lambda: kubectl("auth", "can-i", "create", "jobs.batch", "-n", namespace,
                             as_user="alice").stdout.strip() == "yes",
             deadline=DEADLINE)


def test_namespace_gets_a_default_service_account(kubectl: Callable[..., Any], namespace: str) -> None:
    wait_for("the namespace's default ServiceAccount",
             lambda: kubectl("get", "serviceaccount", "default", "-n", namespace).returncode == 0,
             deadline=DEADLINE, every=0.2)


def test_job_runs_to_complete(kubectl: Callable[..., Any], namespace: str) -> None:
    kubectl_ok(kubectl, "create", "-n", namespace, "-f", "-", input=json.dumps(job("hello")))
    finished = wait_for_job(kubectl, namespace, "hello")
    assert conditions(finished).get("Complete") == "True"
    assert finished["status"].get("succeeded") == 1
    pods = json.loads(kubectl_ok(kubectl, "get", "pods", "-n", namespace, "-l", "job-name=hello", "-o", "json"))
    assert [p["spec"]["nodeName"] for p in pods["items"]] == [FAKE_NODE_NAME]
    assert [p["status"]["phase"] for p in pods["items"]] == ["Succeeded"]


def test_job_labelled_to_fail_ends_failed(kubectl: Callable[..., Any], namespace: str) -> None:
    body = job("doomed", labels={"recall.dev/simulate": "fail"})
    kubectl_ok(kubectl, "create", "-n", namespace, "-f", "-", input=json.dumps(body))
    finished = wait_for_job(kubectl, namespace, "doomed")
    assert conditions(finished).get("Failed") == "True"
    assert conditions(finished).get("Complete") != "True"
    pods = json.loads(kubectl_ok(kubectl, "get", "pods", "-n", namespace, "-l", "job-name=doomed", "-o", "json"))
    assert [p["status"]["phase"] for p in pods["items"]] == ["Failed"]
    terminated = pods["items"][0]["status"]["containerStatuses"][0]["state"]["terminated"]
    assert terminated["exitCode"] == 1


def test_validating_admission_policy_is_enforced(kubectl: Callable[..., Any], namespace: str) -> None:
    policy = f"{namespace}-no-secret-keys"
    objects = [
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": policy},
            "spec": {
                "failurePolicy": "Fail",
                "matchConstraints": {
                    "resourceRules": [
                        {
                            "apiGroups": [""],
                            "apiVersions": ["v1"],
                            "operations": ["CREATE", "UPDATE"],
                            "resources": ["configmaps"],
                        }
                    ]
                },
                "validations": [
                    {
                        "expression": "!has(object.data) || !('password' in object.data)",
                        "message": "configmaps may not hold a password",
                    }
                ],
            },
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": policy},
            "spec": {
                "policyName": policy,
                "validationActions": ["Deny"],
                "matchResources": {
                    "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}}
                },
            },
        },
    ]
    manifest = json.dumps({"apiVersion": "v1", "kind": "List", "items": objects})
    kubectl_ok(kubectl, "apply", "-f", "-", input=manifest)
    try:
        # The API server loads new policies asynchronously.
        denied = wait_for(
            "the ValidatingAdmissionPolicy to refuse a ConfigMap with a password",
            lambda: (p := kubectl("create", "configmap", "leak", "--from-literal=password=x", "-n", namespace,
                                  "--dry-run=server")).returncode != 0 and p,
            deadline=DEADLINE,
        )
        assert "configmaps may not hold a password" in denied.stderr
        kubectl_ok(kubectl, "create", "configmap", "fine", "--from-literal=user=x", "-n", namespace)
    finally:
        kubectl("delete", "-f", "-", "--ignore-not-found", input=manifest)


def test_pod_security_admission_is_enforced(kubectl: Callable[..., Any], namespace: str) -> None:
    kubectl_ok(kubectl, "label", "namespace", namespace, "pod-security.kubernetes.io/enforce=restricted")
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "root"},
        "spec": {"containers": [{"name": "main", "image": "busybox", "securityContext": {"privileged": True}}]},
    }
    rejected = kubectl("create", "-n", namespace, "-f", "-", input=json.dumps(pod))
    assert rejected.returncode != 0
    assert "violates PodSecurity" in rejected.stderr


def test_crds_in_the_repo_are_installed(cluster: LocalCluster, kubectl: Callable[..., Any]) -> None:
    assert cluster.crds_dir is not None
    files = sorted(cluster.crds_dir.glob("*.yaml"))
    if not files:
        return  # nothing to install yet; install_crds() copes with an empty folder
    installed = cluster.install_crds()
    assert installed, f"no CustomResourceDefinition found in {cluster.crds_dir}"
    for name in installed:
        crd = json.loads(kubectl_ok(kubectl, "get", "crd", name, "-o", "json"))
        assert conditions(crd).get("Established") == "True"


def _cluster_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("KUBECONFIG", None)
    return subprocess.run(
        [sys.executable, "-m", "recall_operator_dev.cluster", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=600,
        env=env,
    )


def _pid_running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat[stat.rindex(")") + 2] not in "ZX"  # a zombie has exited


def test_cli_up_restart_and_down(tmp_path: Path) -> None:
    """A second cluster, started and stopped through `recall cluster`, in its own directory."""
    directory = tmp_path / "second"
    up = _cluster_cli("up", "--dir", str(directory), cwd=tmp_path)
    assert up.returncode == 0, up.stderr
    assert up.stdout.strip().splitlines()[-1] == f"export KUBECONFIG={directory.resolve() / 'kubeconfig'}"

    second = LocalCluster(directory)
    try:
        # The processes outlive the command that started them.
        assert second.is_running(), (directory / "pids.json").read_text()
        pids = second.pids
        assert set(pids) == set(COMPONENTS)
        status = _cluster_cli("status", "--dir", str(directory), cwd=tmp_path)
        assert status.returncode == 0, status.stdout + status.stderr

        # Data written before a restart of the API server, then of etcd, is still there afterwards.
        assert second.kubectl("create", "configmap", "survivor", "--from-literal=k=v").returncode == 0
        old_apiserver = second.pids["kube-apiserver"]
        second.restart_apiserver()
        assert second.pids["kube-apiserver"] != old_apiserver
        assert not _pid_running(old_apiserver)
        assert second.kubectl("get", "--raw", "/readyz").stdout.strip() == "ok"
        second.restart_etcd(graceful=False)  # a crash: SIGKILL
        got = second.kubectl("get", "configmap", "survivor", "-o", "jsonpath={.data.k}")
        assert got.stdout == "v", got.stderr
        pids = second.pids
    finally:
        down = _cluster_cli("down", "--dir", str(directory), cwd=tmp_path)
    assert down.returncode == 0, down.stderr
    still = {name: pid for name, pid in pids.items() if _pid_running(pid)}
    second.down()  # reaps the API server and etcd this process restarted (already stopped)
    assert not still, f"left running after down: {still}"
    # `down` removes nothing: logs, data and kubeconfig stay for a post-mortem.
    assert (directory / "kubeconfig").exists()
    assert (directory / "logs" / "kube-apiserver.log").exists()
