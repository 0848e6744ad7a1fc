"""The README's install section, run command by command against the real API server.

Each shell command in "Install on a cluster" runs as written, with two
substitutions: the namespaces (recall-system, argocd) become fresh ones of
this test, so nothing it installs meets another test's objects. helm and
kubectl are the ones scripts/testbin.sh builds. The Prometheus Operator's
kinds the chart's monitoring objects need are stood in by minimal CRDs of the
same group and names (the API server then stores the objects as sent). The
Alertmanager snippet is checked by the real `amtool check-config`, and is the
shape tests/integration/test_bridge_auth.py gives a real Alertmanager.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from support import held_on_resolving, renderer, wait_for

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
SECTION = README[README.index("## Install on a cluster\n"):README.index("## At 3 a.m.")]


def blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", SECTION, flags=re.S)


def commands() -> list[str]:
    out = []
    for block in blocks("sh"):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                out.append(re.sub(r"\s+", " ", line))
    return out


def stand_in_crd(kind: str, plural: str) -> dict[str, Any]:
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.monitoring.coreos.com"},
            "spec": {"group": "monitoring.coreos.com", "scope": "Namespaced",
                     "names": {"kind": kind, "plural": plural, "singular": kind.lower(), "listKind": f"{kind}List"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                         "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}


def test_the_section_has_the_commands_the_tests_expect() -> None:
    found = commands()
    assert any(c.startswith("helm install recall-operator helm/recall-operator") for c in found), found
    assert any("create secret generic recall-operator-bridge-token" in c for c in found), found
    assert any("create secret generic recall-operator-status-key" in c for c in found), found
    assert any(c.startswith("kubectl -n argocd patch configmap argocd-cm") for c in found), found


@pytest.fixture
def namespaces(kubectl: Callable[..., Any], cluster: Any) -> Iterator[dict[str, str]]:
    tag = uuid.uuid4().hex[:8]
    names = {"recall-system": f"t-install-{tag}", "argocd": f"t-argocd-{tag}"}
    created = []
    for kind, plural in (("ServiceMonitor", "servicemonitors"), ("PrometheusRule", "prometheusrules")):
        crd = stand_in_crd(kind, plural)
        if kubectl("get", "crd", crd["metadata"]["name"]).returncode != 0:
            kubectl("apply", "-f", "-", input=json.dumps(crd), check=True)
            created.append(crd["metadata"]["name"])
    for name in created:
        kubectl("wait", "--for=condition=Established", f"crd/{name}", "--timeout=60s", check=True)
    try:
        yield names
    finally:
        env = shell_env(cluster)
        subprocess.run(["helm", "uninstall", "recall-operator", "--namespace", names["recall-system"], "--wait=false"],
                       capture_output=True, text=True, env=env, timeout=120, check=False)
        # Its outcome hold, bound to every namespace, would pin the resolved Incidents of later tests.
        wait_for("the API server to stop holding resolved Incidents", lambda: not held_on_resolving(kubectl),
                 deadline=60)
        for ns in names.values():
            kubectl("delete", "namespace", ns, "--wait=false", "--ignore-not-found")
        for name in created:
            kubectl("delete", "crd", name, "--wait=false", "--ignore-not-found")


def shell_env(cluster: Any) -> dict[str, str]:
    render = renderer()
    tools = str(Path(render.helm_binary()).parent)  # helm and kubectl from scripts/testbin.sh
    return {**render.helm_env(), "PATH": tools + os.pathsep + os.environ["PATH"], "KUBECONFIG": str(cluster.kubeconfig)}


def test_every_install_command_runs(
    namespaces: dict[str, str], kubectl: Callable[..., Any], cluster: Any, tmp_path: Path
) -> None:
    env = shell_env(cluster)
    argocd = namespaces["argocd"]
    kubectl("create", "namespace", argocd, check=True)
    kubectl("create", "configmap", "argocd-cm", "-n", argocd, "--from-literal=url=https://argocd.example", check=True)
    ran, notes = [], ""
    for command in commands():
        line = command
        for old, new in namespaces.items():
            line = re.sub(rf"(?<![\w./-]){re.escape(old)}(?![\w/-])", new, line)  # not the argocd/ folder
        proc = subprocess.run(["bash", "-euo", "pipefail", "-c", line], capture_output=True, text=True, env=env,
                              cwd=ROOT, timeout=300, check=False)
        assert proc.returncode == 0, f"{line}\n{proc.stdout}\n{proc.stderr}"
        ran.append(line)
        if line.startswith("helm install"):
            notes = proc.stdout
    assert len(ran) == len(commands()) >= 5
    # The chart's notes say how to make the two Secrets it reads.
    assert "create secret generic recall-operator-bridge-token" in notes, notes
    assert "create secret generic recall-operator-status-key" in notes, notes

    ns = namespaces["recall-system"]
    secret = json.loads(kubectl("get", "secret", "recall-operator-bridge-token", "-n", ns, "-o", "json",
                                check=True).stdout)
    assert set(secret["data"]) == {"token"}
    deployment = json.loads(kubectl("get", "deployment", "recall-operator", "-n", ns, "-o", "json", check=True).stdout)
    pod = deployment["spec"]["template"]["spec"]
    assert pod["containers"][0]["image"].startswith("registry.example/recall-operator:")
    volume = next(v for v in pod["volumes"] if v["name"] == "bridge-token")
    assert volume["secret"]["secretName"] == "recall-operator-bridge-token"
    key = json.loads(kubectl("get", "secret", "recall-operator-status-key", "-n", ns, "-o", "json", check=True).stdout)
    env = {e["name"]: e for e in pod["containers"][0]["env"]}
    assert env["RECALL_STATUS_KEY"]["valueFrom"]["secretKeyRef"] == {
        "name": "recall-operator-status-key", "key": "key", "optional": True}
    assert set(key["data"]) == {"key"}
    for kind in ("networkpolicy.networking.k8s.io", "servicemonitor.monitoring.coreos.com",
                 "prometheusrule.monitoring.coreos.com"):
        assert kubectl("get", kind, "recall-operator", "-n", ns, "-o", "name").returncode == 0, kind
    assert kubectl("get", "configmap", "recall-operator-dashboard", "-n", ns, "-o", "name").returncode == 0
    # This API server serves MutatingAdmissionPolicy (1.36): the install holds outcomes, in every namespace.
    hold = json.loads(kubectl("get", "mutatingadmissionpolicybinding", f"recall-outcome-hold-{ns}", "-o", "json",
                              check=True).stdout)
    assert hold["spec"]["policyName"] == f"recall-outcome-hold-{ns}" and hold["spec"]["matchResources"][
        "namespaceSelector"] == {}, hold["spec"]
    # And it signs the parameters (with the validating policies, cluster-wide).
    signature = json.loads(kubectl("get", "mutatingadmissionpolicybinding", f"recall-parameters-signature-{ns}",
                                   "-o", "json", check=True).stdout)
    assert signature["spec"]["policyName"] == f"recall-parameters-signature-{ns}", signature["spec"]
    cm = json.loads(kubectl("get", "configmap", "argocd-cm", "-n", argocd, "-o", "json", check=True).stdout)
    assert cm["data"]["url"] == "https://argocd.example"  # a merge: what was there stays
    assert cm["data"]["resource.customizations.health.recall.dev_Incident"] == (
        ROOT / "argocd" / "health-incident.lua").read_text()
    assert cm["data"]["resource.customizations.health.recall.dev_Runbook"] == (
        ROOT / "argocd" / "health-runbook.lua").read_text()


def test_the_topology_snippet_is_one_the_operator_reads() -> None:
    from recall_operator.domain.topology import Topology

    [snippet] = [b for b in blocks("yaml") if "recall.dev/topology" in b]
    configmap = yaml.safe_load(snippet)
    assert configmap["metadata"]["labels"] == {"recall.dev/topology": "true"}
    graph = Topology.parse(configmap["data"]["topology"])
    assert graph.relation("checkout-api", "cart-service") == "adjacent" and graph.depth("checkout-api") == 2


def test_the_alertmanager_snippet_is_a_valid_config(tmp_path: Path) -> None:
    [snippet] = [b for b in blocks("yaml") if "receivers:" in b]
    config = yaml.safe_load(snippet)
    [receiver] = config["receivers"]
    [hook] = receiver["webhook_configs"]
    assert hook["http_config"] == {"authorization": {
        "type": "Bearer", "credentials_file": "/etc/alertmanager/secrets/recall-operator-bridge-token/token"}}
    assert hook["url"] == "http://recall-operator.recall-system.svc:9094/alerts"
    token = tmp_path / "token"
    token.write_text("x\n")
    hook["http_config"]["authorization"]["credentials_file"] = str(token)
    path = tmp_path / "alertmanager.yml"
    path.write_text(yaml.safe_dump({"route": {"receiver": receiver["name"]}, **config}))
    amtool = shutil.which("amtool")
    assert amtool, "amtool is not installed (Debian package prometheus-alertmanager)"
    proc = subprocess.run([amtool, "check-config", str(path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "SUCCESS" in proc.stdout, proc.stdout + proc.stderr
