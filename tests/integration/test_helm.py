"""The Helm chart on the real kube-apiserver.

- `helm lint` passes and `helm template` renders with no values at all;
- values.schema.json refuses wrong values, in words;
- the default render (plus the chart's CRDs) is accepted by server-side
  apply into a fresh namespace labelled with the restricted Pod Security
  profile, and the Deployment's Pod passes that profile (the ReplicaSet
  controller creates it; the fake kubelet never runs the image, which does
  not matter here);
- the sample resources in manifests/samples/ are accepted (with the chart's
  admission policies in force: the Incident by its opener, the Approval by
  its approver);
- `recall` started locally with the exact arguments and environment of the
  rendered Deployment's container (memory path moved to a temporary
  directory) answers its probe path and reconciles the sample Incident.

The chart's cluster-scoped objects carry the namespace in their names and are
deleted afterwards: its admission policies bind in every namespace.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from support import free_port, post_json, renderer, until_bindings_released, wait_for

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "helm" / "recall-operator"
SAMPLES = ROOT / "manifests" / "samples"
CLUSTER_KINDS = {"ClusterRole", "ClusterRoleBinding", "ValidatingAdmissionPolicy",
                 "ValidatingAdmissionPolicyBinding", "CustomResourceDefinition"}


render = renderer()


def docs(text: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(text) if d]


def only(items: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    found = [d for d in items if d["kind"] == kind]
    assert len(found) == 1, f"{len(found)} {kind}s rendered"
    return found[0]


@pytest.fixture(scope="module")
def helm() -> str:
    return render.helm_binary()


def run_helm(helm: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([helm, *args], capture_output=True, text=True, check=False, env=render.helm_env(),
                          timeout=120)


def test_helm_lint_passes(helm: str) -> None:
    proc = run_helm(helm, "lint", "--strict", str(CHART), "--kube-version", render.KUBE_VERSION)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 chart(s) failed" in proc.stdout


def test_chart_refuses_kubernetes_before_1_30(helm: str) -> None:
    # ValidatingAdmissionPolicy v1 is served from 1.30.
    proc = run_helm(helm, "template", "recall-operator", str(CHART), "--kube-version", "v1.29.9")
    assert proc.returncode != 0 and "chart requires kubeVersion: >=1.30.0-0" in proc.stderr, proc.stderr


def test_template_renders_without_values(helm: str) -> None:
    items = docs(render.render_chart(helm))
    deployment = only(items, "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    assert deployment["spec"]["replicas"] == 1
    assert container["args"] == ["run", "--all-namespaces", "--memory", "embedded", "--memory-path",
                                 "/var/lib/recall/memory.sqlite3", "--bridge-port", "9094", "--bridge-namespace",
                                 "recall-system", "--bridge-host", "0.0.0.0", "--bridge-token-file",
                                 "/etc/recall/bridge/token", "--metrics-port", "8080"]
    # Liveness: the loop answers; readiness: start-up ran, memory is open, each watched kind was listed.
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "metrics"}
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "metrics"}
    # The bridge's token is a Secret mounted as a file: no Secret RBAC for the operator.
    token = next(v for v in pod["volumes"] if v["name"] == "bridge-token")
    assert token["secret"]["secretName"] == "recall-operator-bridge-token"
    assert token["secret"]["items"] == [{"key": "token", "path": "token"}]
    assert {"name": "bridge-token", "mountPath": "/etc/recall/bridge", "readOnly": True} in container["volumeMounts"]
    assert deployment["spec"]["strategy"] == {"type": "Recreate"}  # one writer on the embedded store
    assert container["image"] == "recall-operator:0.1.0"
    assert not [d for d in items if d["kind"] in ("PodDisruptionBudget", "NetworkPolicy", "ServiceMonitor",
                                                  "PrometheusRule", "ConfigMap")]
    sc = container["securityContext"]
    assert sc["runAsNonRoot"] and sc["runAsUser"] == 65532 and sc["readOnlyRootFilesystem"]
    assert sc["capabilities"]["drop"] == ["ALL"] and sc["allowPrivilegeEscalation"] is False
    assert sc["seccompProfile"]["type"] == "RuntimeDefault"
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert {k: env[k] for k in ("RECALL_NOVEL_BAR", "RECALL_ACTIONABLE_BAR", "RECALL_AUTO_DRY_RUN",
                                "RECALL_FOUR_EYES", "RECALL_APPROVAL_EXPIRY_MINUTES", "RECALL_APPROVERS_LOW",
                                "RECALL_APPROVERS_MEDIUM", "RECALL_APPROVERS_HIGH", "RECALL_APPROVERS_CRITICAL",
                                "RECALL_APPROVERS_BRIDGE")} == {
        "RECALL_NOVEL_BAR": "55", "RECALL_ACTIONABLE_BAR": "60", "RECALL_AUTO_DRY_RUN": "true",
        "RECALL_FOUR_EYES": "true", "RECALL_APPROVAL_EXPIRY_MINUTES": "60", "RECALL_APPROVERS_LOW": "1",
        "RECALL_APPROVERS_MEDIUM": "1", "RECALL_APPROVERS_HIGH": "1", "RECALL_APPROVERS_CRITICAL": "2",
        "RECALL_APPROVERS_BRIDGE": "2"}
    claim = only(items, "PersistentVolumeClaim")
    volume = next(v for v in pod["volumes"] if v["name"] == "memory")
    assert volume["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"]
    mount = next(m for m in container["volumeMounts"] if m["name"] == "memory")
    assert mount["mountPath"] == "/var/lib/recall"
    service = only(items, "Service")
    assert {p["name"]: p["port"] for p in service["spec"]["ports"]} == {"metrics": 8080, "bridge": 9094}
    accounts = {d["metadata"]["name"] for d in items if d["kind"] == "ServiceAccount"}
    assert accounts == {"recall-operator", "recall-runbook-executor"}


def test_values_change_the_rendered_operator(helm: str) -> None:
    items = docs(render.render_chart(
        helm, "--set", "watch.allNamespaces=false", "--set", "watch.namespaces={shop,payments}",
        "--set", "persistence.enabled=false", "--set", "policy.novelBar=40", "--set", "bridge.enabled=false",
        "--set", "policy.approvers.high=2", "--set", "policy.approvers.critical=3",
        "--set", "policy.approvers.bridge=3"))
    deployment = only(items, "Deployment")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    args = container["args"]
    assert args[:5] == ["run", "--namespace", "shop", "--namespace", "payments"]
    assert "--all-namespaces" not in args and "--bridge-port" not in args and "--bridge-namespace" not in args
    bridged = only(docs(render.render_chart(
        helm, "--set", "watch.allNamespaces=false", "--set", "watch.namespaces={shop,payments}")), "Deployment")
    bridged_args = bridged["spec"]["template"]["spec"]["containers"][0]["args"]
    assert bridged_args[bridged_args.index("--bridge-namespace") + 1] == "shop"  # the first watched one
    assert not [d for d in items if d["kind"] == "PersistentVolumeClaim"]
    volume = next(v for v in deployment["spec"]["template"]["spec"]["volumes"] if v["name"] == "memory")
    assert volume == {"name": "memory", "emptyDir": {}}
    assert {"name": "RECALL_NOVEL_BAR", "value": "40"} in container["env"]
    assert {"name": "RECALL_APPROVERS_HIGH", "value": "2"} in container["env"]
    assert {"name": "RECALL_APPROVERS_CRITICAL", "value": "3"} in container["env"]
    assert {"name": "RECALL_APPROVERS_BRIDGE", "value": "3"} in container["env"]
    # The seal key from a Secret, optional: without it the operator starts on a key of its own.
    assert {"name": "RECALL_STATUS_KEY", "valueFrom": {"secretKeyRef": {
        "name": "recall-operator-status-key", "key": "key", "optional": True}}} in container["env"]
    named = only(docs(render.render_chart(helm, "--set", "statusKey.secretName=seal", "--set", "statusKey.secretKey=k")),
                 "Deployment")["spec"]["template"]["spec"]["containers"][0]["env"]
    # A Secret named in the values is required: misspelt, replicas would seal with keys of their own, silently.
    assert {"name": "RECALL_STATUS_KEY", "valueFrom": {"secretKeyRef": {
        "name": "seal", "key": "k", "optional": False}}} in named
    executors = sorted(d["metadata"]["namespace"] for d in items
                       if d["kind"] == "ServiceAccount" and d["metadata"]["name"] == "recall-runbook-executor")
    assert executors == ["payments", "recall-system", "shop"]
    # Each shard's admission policies judge its own namespaces only: one release's incident-opener policy
    # refused every alert another release's bridge wrote, and its Job policy left the other's Jobs unjudged.
    sharded = docs(render.render_chart(
        helm, "--kube-version", "v1.36.0", "--set", "watch.allNamespaces=false", "--set", "watch.namespaces={shop,payments}"))
    bindings = [d for d in sharded if d["kind"].endswith("AdmissionPolicyBinding")]
    assert len(bindings) >= 6
    for binding in bindings:
        assert binding["spec"]["matchResources"]["namespaceSelector"] == {"matchExpressions": [{
            "key": "kubernetes.io/metadata.name", "operator": "In", "values": ["shop", "payments"]}]}, binding
    assert all(b["spec"]["matchResources"]["namespaceSelector"] == {}
               for b in docs(render.render_chart(helm, "--kube-version", "v1.36.0"))
               if b["kind"].endswith("AdmissionPolicyBinding"))
    # executor.namespaces adds to the watched namespaces: a step runs in its incident's namespace, any watched one.
    more = docs(render.render_chart(
        helm, "--set", "watch.allNamespaces=false", "--set", "watch.namespaces={shop,payments}",
        "--set", "executor.namespaces={batch}"))
    assert sorted(d["metadata"]["namespace"] for d in more if d["kind"] == "ServiceAccount"
                  and d["metadata"]["name"] == "recall-runbook-executor") == ["batch", "payments", "recall-system", "shop"]

    peered = docs(render.render_chart(
        helm, "--set", "replicas=2", "--set", "memory.backend=hindsight",
        "--set", "memory.hindsight.url=http://hindsight.recall-system.svc:8888"))
    args = only(peered, "Deployment")["spec"]["template"]["spec"]["containers"][0]["args"]
    assert args[args.index("--peering") + 1] == "recall-operator"
    # The bank's signing key from a Secret, optional (without it the start-up log warns), only for Hindsight.
    peered_env = only(peered, "Deployment")["spec"]["template"]["spec"]["containers"][0]["env"]
    for name, key in (("RECALL_HINDSIGHT_KEY", "signing-key"), ("RECALL_HINDSIGHT_API_KEY", "api-key")):
        assert {"name": name, "valueFrom": {"secretKeyRef": {
            "name": "recall-operator-hindsight", "key": key, "optional": True}}} in peered_env
        assert not any(e["name"] == name for e in container["env"])
    # Named in the values, the signing key's Secret is required; the API key stays the server's to ask for.
    signed = only(docs(render.render_chart(
        helm, "--set", "replicas=2", "--set", "memory.backend=hindsight", "--set", "memory.hindsight.url=http://h:8888",
        "--set", "memory.hindsight.credentials.secretName=bank-keys")), "Deployment")
    signed_env = {e["name"]: e for e in signed["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert signed_env["RECALL_HINDSIGHT_KEY"]["valueFrom"]["secretKeyRef"] == {
        "name": "bank-keys", "key": "signing-key", "optional": False}
    assert signed_env["RECALL_HINDSIGHT_API_KEY"]["valueFrom"]["secretKeyRef"]["optional"] is True
    assert args[args.index("--hindsight-url") + 1] == "http://hindsight.recall-system.svc:8888"
    assert "--memory-path" not in args
    assert {d["metadata"]["name"] for d in peered if d["kind"] == "CustomResourceDefinition"} == {
        "clusterkopfpeerings.kopf.dev", "kopfpeerings.kopf.dev"}
    assert only(peered, "ClusterKopfPeering")["metadata"]["name"] == "recall-operator"
    # HA: a drain leaves one peer, the pods spread over nodes, a rollout keeps one up.
    deployment = only(peered, "Deployment")
    assert deployment["spec"]["strategy"] == {"type": "RollingUpdate",
                                              "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}}
    pdb = only(peered, "PodDisruptionBudget")
    assert pdb["spec"] == {"minAvailable": 1, "selector": deployment["spec"]["selector"]}
    spread = deployment["spec"]["template"]["spec"]["topologySpreadConstraints"]
    assert [c["topologyKey"] for c in spread] == ["kubernetes.io/hostname", "topology.kubernetes.io/zone"]
    assert all(c["labelSelector"] == deployment["spec"]["selector"] for c in spread)


def test_optional_objects_render(helm: str) -> None:
    items = docs(render.render_chart(
        helm, "--set", "networkPolicy.enabled=true", "--set", "networkPolicy.bridgeFrom={monitoring,alerting}",
        "--set", "monitoring.serviceMonitor.enabled=true", "--set", "monitoring.serviceMonitor.labels.release=kps",
        "--set", "monitoring.prometheusRule.enabled=true", "--set", "monitoring.dashboard.enabled=true",
        "--set", "image.digest=sha256:" + "ab" * 32, "--set", "bridge.auth.secretName=am-token",
        "--set", "bridge.auth.secretKey=bearer"))
    policy = only(items, "NetworkPolicy")["spec"]
    assert policy["policyTypes"] == ["Ingress"]
    bridge_rule, metrics_rule = policy["ingress"]
    assert bridge_rule["ports"] == [{"port": "bridge", "protocol": "TCP"}]
    assert [f["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"] for f in bridge_rule["from"]] == [
        "monitoring", "alerting"]
    assert metrics_rule["ports"] == [{"port": "metrics", "protocol": "TCP"}]
    monitor = only(items, "ServiceMonitor")
    assert monitor["metadata"]["labels"]["release"] == "kps"
    assert monitor["spec"]["endpoints"] == [{"port": "metrics", "path": "/metrics", "interval": "30s"}]
    assert monitor["spec"]["selector"] == {"matchLabels": only(items, "Service")["spec"]["selector"]}
    rule_file = yaml.safe_load((CHART / "files" / "prometheus-rules.yaml").read_text())
    assert only(items, "PrometheusRule")["spec"] == {"groups": rule_file["groups"]}
    dashboard = only(items, "ConfigMap")
    assert dashboard["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert json.loads(dashboard["data"]["recall-operator.json"]) == json.loads(
        (CHART / "files" / "dashboard.json").read_text())
    pod = only(items, "Deployment")["spec"]["template"]["spec"]
    assert pod["containers"][0]["image"] == "recall-operator@sha256:" + "ab" * 32
    token = next(v for v in pod["volumes"] if v["name"] == "bridge-token")["secret"]
    assert (token["secretName"], token["items"]) == ("am-token", [{"key": "bearer", "path": "token"}])


def test_weights_given_with_set_are_accepted(helm: str) -> None:
    # --set passes 0.3 as the string "0.3"; the schema takes a numeric string in 0..1 as well.
    items = docs(render.render_chart(helm, "--set", "scoring.weights.lexical=0.3",
                                     "--set", "scoring.weights.service=0.3"))
    env = only(items, "Deployment")["spec"]["template"]["spec"]["containers"][0]["env"]
    assert {"name": "RECALL_WEIGHT_LEXICAL", "value": "0.3"} in env
    assert {"name": "RECALL_WEIGHT_SERVICE", "value": "0.3"} in env


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--set", "memory.backend=redis"], "/memory/backend"),
        (["--set", "metrics.port=70000"], "/metrics/port"),
        (["--set", "bridge.port=0"], "/bridge/port"),
        (["--set", "policy.novelBar=101"], "/policy/novelBar"),
        (["--set", "policy.actionableBar=-1"], "/policy/actionableBar"),
        (["--set-json", "scoring.weights.lexical=1.5"], "/scoring/weights/lexical"),
        (["--set", "policy.fourEyes=maybe"], "/policy/fourEyes"),
        (["--set", "replicas=two"], "/replicas"),
        (["--set", "policy.approvers.critical=9"], "/policy/approvers/critical"),
        (["--set", "memroy.backend=embedded"], "memroy"),
        (["--set", "statusKey.secretName=Not_A_Name"], "/statusKey/secretName"),
        (["--set", "scoring.weights.lexical=1.5"], "/scoring/weights/lexical"),
        (["--set", "scoring.weights.lexical=lots"], "/scoring/weights/lexical"),
        (["--set", "image.digest=latest"], "/image/digest"),
        (["--set", "networkPolicy.bridgeFrom={Bad_NS}"], "/networkPolicy/bridgeFrom/0"),
        (["--set", "memory.hindsight.cluster=EU_West"], "/memory/hindsight/cluster"),
    ],
)
def test_schema_refuses_wrong_values(helm: str, args: list[str], message: str) -> None:
    proc = run_helm(helm, "template", "recall-operator", str(CHART), "--kube-version", render.KUBE_VERSION, *args)
    assert proc.returncode != 0, f"{args} was accepted"
    assert "don't meet the specifications of the schema" in proc.stderr, proc.stderr
    assert message in proc.stderr, proc.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--set", "memory.backend=hindsight"], "memory.hindsight.url is required"),
        (["--set", "replicas=2"], "replicas > 1 needs memory.backend=hindsight"),
        (["--set", "watch.allNamespaces=false"], "watch.namespaces must name at least one namespace"),
        (["--set-json", "scoring.weights.lexical=0.9"], "scoring.weights must add up to 1"),
        # Alerts opened where the operator does not watch would never be triaged.
        (["--set", "watch.allNamespaces=false", "--set", "watch.namespaces={shop}", "--set", "bridge.namespace=payments"],
         "bridge.namespace payments is not watched"),
        # Impossible approval orders would crash-loop the operator: refused here instead.
        (["--set", "policy.approvers.low=3"], "policy.approvers.medium=1 is fewer than policy.approvers.low=3"),
        (["--set", "policy.approvers.high=3"], "policy.approvers.critical=2 is fewer than policy.approvers.high=3"),
        (["--set", "scoring.weights.lexical=0.9"], "scoring.weights must add up to 1"),
        # Namespaces named while every namespace is watched were silently ignored: the operator ran cluster-wide.
        (["--set", "watch.namespaces={team-a}"], "watch.namespaces is set but watch.allNamespaces is true"),
        # Two servers of the pod on one port: the second stops the container, after a clean install.
        (["--set", "panel.enabled=true", "--set", "panel.port=8080"], "panel.port=8080 is the port of metrics.port too"),
        (["--set", "bridge.port=8080"], "bridge.port=8080 is the port of metrics.port too"),
        # The store's folder is where the volume mounts: never the root, nor over the chart's own mounts.
        (["--set", "memory.path=/memory.sqlite3"], "memory.path /memory.sqlite3: its folder is mounted"),
        (["--set", "memory.path=/tmp/memory.sqlite3"], "must be an absolute path in a folder of its own"),
        # Steps as the operator's own account would run with the operator's rights (and half-install the release).
        (["--set", "executor.serviceAccountName=recall-operator"], "is the operator's own account"),
        # An actionable bar at or under the novel bar would act on a precedent recognised under it.
        (["--set", "policy.actionableBar=30"], "policy.actionableBar=30 is under policy.novelBar=55"),
        # extraEnv would win over what the chart sets (the later entry does), and around its checks.
        (["--set-json", 'extraEnv=[{"name":"RECALL_FOUR_EYES","value":"false"}]'], "extraEnv sets RECALL_FOUR_EYES"),
        (["--set-json", 'extraEnv=[{"name":"RECALL_EXECUTOR_SERVICE_ACCOUNT","value":"recall-operator"}]'],
         "extraEnv sets RECALL_EXECUTOR_SERVICE_ACCOUNT"),
        (["--set-json", 'extraEnv=[{"name":"RECALL_MEMORY_PATH","value":"/x"}]'], "extraEnv sets RECALL_MEMORY_PATH"),
    ],
)
def test_template_refuses_inconsistent_values(helm: str, args: list[str], message: str) -> None:
    proc = run_helm(helm, "template", "recall-operator", str(CHART), "--kube-version", render.KUBE_VERSION, *args)
    assert proc.returncode != 0, f"{args} was accepted"
    assert message in proc.stderr, proc.stderr


@pytest.fixture(scope="module")
def installed(helm: str, kubectl: Callable[..., Any]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """The default render applied server-side into a fresh restricted namespace (as its release namespace)."""
    import uuid

    ns = f"t-helm-{uuid.uuid4().hex[:8]}"
    kubectl("create", "namespace", ns, check=True)
    kubectl("label", "namespace", ns, "pod-security.kubernetes.io/enforce=restricted",
            "pod-security.kubernetes.io/enforce-version=latest", check=True)
    text = render.render_chart(helm, "--include-crds", namespace=ns)
    items = docs(text)
    try:
        proc = kubectl("apply", "--server-side", "--field-manager=recall-helm-test", "-f", "-", input=text)
        assert proc.returncode == 0, proc.stderr
        yield ns, items
    finally:
        for d in items:
            if d["kind"] in CLUSTER_KINDS - {"CustomResourceDefinition"}:
                kubectl("delete", f"{d['kind'].lower()}.{d['apiVersion'].split('/')[0]}"
                        if "/" in d["apiVersion"] and "." in d["apiVersion"].split("/")[0] else d["kind"].lower(),
                        d["metadata"]["name"], "--ignore-not-found", "--wait=false")
        kubectl("delete", "namespace", ns, "--wait=false", "--ignore-not-found")
        until_bindings_released(kubectl, [d["metadata"]["name"] for d in items
                                          if d["kind"] == "ValidatingAdmissionPolicyBinding"])


def test_rendered_chart_is_accepted_by_server_side_apply(
    installed: tuple[str, list[dict[str, Any]]], kubectl: Callable[..., Any]
) -> None:
    ns, items = installed
    for d in items:
        kind = d["kind"]
        args = ["get", kind.lower() + ("." + d["apiVersion"].split("/")[0] if "." in d["apiVersion"].split("/")[0] else ""),
                d["metadata"]["name"], "-o", "name"]
        if d["metadata"].get("namespace"):
            args += ["-n", d["metadata"]["namespace"]]
        proc = kubectl(*args)
        assert proc.returncode == 0, f"{kind} {d['metadata']['name']}: {proc.stderr}"
    # Server-side apply manages the fields: a second apply is a no-op, not a conflict.
    proc = kubectl("apply", "--server-side", "--field-manager=recall-helm-test", "-f", "-",
                   input=yaml.safe_dump_all(items))
    assert proc.returncode == 0, proc.stderr
    binding = json.loads(kubectl("get", "clusterrolebinding", f"recall-operator-{ns}", "-o", "json",
                                 check=True).stdout)
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "recall-operator", "namespace": ns}]


def test_operator_pod_passes_the_restricted_profile(
    installed: tuple[str, list[dict[str, Any]]], kubectl: Callable[..., Any]
) -> None:
    ns, _ = installed

    def pods() -> list[dict[str, Any]]:
        out = kubectl("get", "pods", "-n", ns, "-l", "app.kubernetes.io/name=recall-operator", "-o", "json")
        return json.loads(out.stdout)["items"] if out.returncode == 0 else []

    def refused() -> str:
        out = kubectl("get", "events", "-n", ns, "--field-selector", "reason=FailedCreate", "-o", "json")
        events = json.loads(out.stdout)["items"] if out.returncode == 0 else []
        return "; ".join(e.get("message", "") for e in events)

    found = wait_for("the operator's Pod (or a FailedCreate event)", lambda: pods() or refused(), deadline=60)
    assert isinstance(found, list), f"the restricted profile refused the operator's Pod: {found}"
    pod = found[0]
    assert pod["spec"]["serviceAccountName"] == "recall-operator"
    assert pod["spec"]["securityContext"]["runAsUser"] == 65532
    # The same pod template, checked directly by the API server in dry-run.
    deployment = json.loads(kubectl("get", "deployment", "recall-operator", "-n", ns, "-o", "json", check=True).stdout)
    probe = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "psa-probe", "namespace": ns},
             "spec": deployment["spec"]["template"]["spec"]}
    proc = kubectl("create", "--dry-run=server", "-f", "-", "-o", "name", input=json.dumps(probe))
    assert proc.returncode == 0, proc.stderr
    assert "would violate" not in proc.stderr, proc.stderr
    # ...and a looser one is refused there, so the check above means something.
    loose = json.loads(json.dumps(probe))
    loose["spec"]["containers"][0]["securityContext"].pop("capabilities")
    proc = kubectl("create", "--dry-run=server", "-f", "-", "-o", "name", input=json.dumps(loose))
    assert proc.returncode != 0 and "restricted" in proc.stderr, proc.stderr


def samples_in(ns: str) -> dict[str, dict[str, Any]]:
    out = {}
    for path in sorted(SAMPLES.glob("*.yaml")):
        obj = yaml.safe_load(path.read_text())
        obj["metadata"]["namespace"] = ns
        out[obj["kind"]] = obj
    return out


@pytest.fixture(scope="module")
def samples(installed: tuple[str, list[dict[str, Any]]], kubectl: Callable[..., Any]) -> dict[str, dict[str, Any]]:
    ns, _ = installed
    objs = samples_in(ns)
    assert set(objs) == {"Incident", "Runbook", "ArchitectureMigration", "Contradiction", "Approval"}
    for kind in ("Runbook", "ArchitectureMigration", "Contradiction"):
        proc = kubectl("create", "-f", "-", input=json.dumps(objs[kind]))
        assert proc.returncode == 0, f"{kind}: {proc.stderr}"
    incident = objs["Incident"]
    opener = incident["metadata"]["annotations"]["recall.dev/opened-by"]
    # The chart's admission policy is in force: the opener must be the creator.
    # The API server loads a new ValidatingAdmissionPolicy a moment after it is applied.
    def refused() -> bool:
        proc = kubectl("create", "-f", "-", "--dry-run=server", input=json.dumps(incident),
                       as_user="mallory", as_groups=("system:masters",))
        return proc.returncode != 0 and "recall.dev/opened-by" in proc.stderr

    wait_for("the chart's admission policy to refuse a forged opener", refused, deadline=30)
    proc = kubectl("create", "-f", "-", input=json.dumps(incident), as_user=opener, as_groups=("system:masters",))
    assert proc.returncode == 0, f"Incident: {proc.stderr}"
    approval = objs["Approval"]
    proc = kubectl("create", "-f", "-", "--dry-run=server", input=json.dumps(approval),
                   as_user=approval["spec"]["approver"], as_groups=("system:masters",))
    assert proc.returncode == 0, f"Approval: {proc.stderr}"
    return objs


def test_samples_are_accepted(samples: dict[str, dict[str, Any]], kubectl: Callable[..., Any]) -> None:
    for kind, obj in samples.items():
        if kind == "Approval":
            continue  # created in server dry-run above: a real one would approve nothing yet
        proc = kubectl("get", kind.lower() + ".recall.dev", obj["metadata"]["name"], "-n",
                       obj["metadata"]["namespace"], "-o", "name")
        assert proc.returncode == 0, f"{kind}: {proc.stderr}"


def recall_executable() -> str:
    beside = Path(sys.executable).parent / "recall"
    found = str(beside) if beside.exists() else shutil.which("recall")
    assert found, "the `recall` console script is not installed (pip install -e .)"
    return found


def test_operator_runs_with_the_rendered_container_args(
    helm: str, installed: tuple[str, list[dict[str, Any]]], samples: dict[str, dict[str, Any]],
    kubectl: Callable[..., Any], cluster: Any, tmp_path: Path,
) -> None:
    ns, _ = installed
    metrics, bridge = free_port(), free_port()
    # The chart as a team that runs one operator per namespace set would install it.
    items = docs(render.render_chart(
        helm, "--set", "watch.allNamespaces=false", "--set", f"watch.namespaces={{{ns}}}",
        "--set", f"metrics.port={metrics}", "--set", f"bridge.port={bridge}", namespace=ns))
    container = only(items, "Deployment")["spec"]["template"]["spec"]["containers"][0]
    args = list(container["args"])
    memory = tmp_path / "memory.sqlite3"
    args[args.index("--memory-path") + 1] = str(memory)
    # The Secret the chart mounts, as the file it becomes in the pod.
    token = tmp_path / "bridge-token"
    token.write_text("helm-test-token-0123456789\n")
    args[args.index("--bridge-token-file") + 1] = str(token)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RECALL_")}
    env.update({e["name"]: e["value"] for e in container["env"] if "value" in e})
    # The operator runs as the chart's ServiceAccount, with the chart's RBAC and admission rules.
    sa_token = kubectl("create", "token", "recall-operator", "-n", ns, check=True).stdout.strip()
    kubeconfig = yaml.safe_load(Path(cluster.kubeconfig).read_text())
    for user in kubeconfig["users"]:
        user["user"] = {"token": sa_token}
    as_operator = tmp_path / "kubeconfig"
    as_operator.write_text(yaml.safe_dump(kubeconfig))
    env.update({"RECALL_MEMORY_PATH": str(memory), "KUBECONFIG": str(as_operator), "POD_ID": "helm-test"})
    log = (tmp_path / "operator.log").open("w")
    proc = subprocess.Popen([recall_executable(), *args], env=env, stdout=log, stderr=subprocess.STDOUT,
                            cwd=tmp_path, start_new_session=True)
    name = samples["Incident"]["metadata"]["name"]

    def healthz() -> bool:
        assert proc.poll() is None, "the operator exited:\n" + (tmp_path / "operator.log").read_text()[-4000:]
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{metrics}/healthz", timeout=2) as rsp:
                return bool(rsp.status == 200)
        except OSError:
            return False

    def readyz() -> int:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{metrics}/readyz", timeout=2) as rsp:
                return int(rsp.status)
        except urllib.error.HTTPError as exc:
            return int(exc.code)
        except OSError:
            return 0

    def recommendation() -> Any:
        assert proc.poll() is None, "the operator exited:\n" + (tmp_path / "operator.log").read_text()[-4000:]
        out = kubectl("get", "incident.recall.dev", name, "-n", ns, "-o", "json")
        status = json.loads(out.stdout).get("status") or {} if out.returncode == 0 else {}
        return status.get("recommendation")

    try:
        wait_for("the liveness probe path on the metrics port", healthz, deadline=60)
        with urllib.request.urlopen(f"http://127.0.0.1:{bridge}/healthz", timeout=5) as rsp:
            assert rsp.status == 200
        # An alert becomes an Incident in the release's watched namespace, not in `default`.
        alert = {"status": "firing", "labels": {"alertname": "HelmBridge", "service": "checkout-api"},
                 "annotations": {"summary": "checkout errors"}, "startsAt": "2026-01-01T00:00:00Z",
                 "fingerprint": "helmbridge01"}
        payload = json.dumps({"version": "4", "status": "firing", "alerts": [alert]}).encode()
        code, answer = post_json(f"http://127.0.0.1:{bridge}/alerts", payload)
        assert code == 401, answer  # the rendered container demands the token
        request = urllib.request.Request(f"http://127.0.0.1:{bridge}/alerts", data=payload, method="POST", headers={
            "Content-Type": "application/json", "Authorization": "Bearer helm-test-token-0123456789"})
        with urllib.request.urlopen(request, timeout=60) as rsp:
            assert rsp.status == 200
        opened = kubectl("get", "incident.recall.dev", "alert-helmbridge01", "-n", ns, "-o", "name")
        assert opened.returncode == 0, opened.stderr
        found = wait_for(f"status.recommendation on {name}", recommendation, deadline=90)
        assert found.get("mode") in {"novel", "advisory", "actionable"}, found
        # The readiness probe path: ready once each kind was listed with the chart's RBAC.
        wait_for("the readiness probe path", lambda: readyz() == 200, deadline=60)
        assert memory.exists(), "the embedded store was not opened at the redirected --memory-path"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
