"""The rendered chart through the validators a platform team runs: kubeconform and kube-score.

Both are built from the Go module proxy by scripts/testbin.sh (testbin/kubeconform,
testbin/kube-score). Nothing is fetched from the network while testing:
kubeconform checks against JSON schemas written here from the test API
server's own OpenAPI v3 (built-in kinds) and from the CRDs the chart carries
(recall.dev, kopf.dev), strict (unknown fields are errors). kube-score runs
offline. Every finding either is fixed in the chart or is listed below with
the reason it stays; an unlisted finding fails the test.

Profiles: the default values, and what a platform team installs for
production (two replicas on Hindsight, NetworkPolicy and monitoring on).
"""

from __future__ import annotations

import copy
import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from support import renderer

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


render = renderer()

PRODUCTION = ("--set", "replicas=2", "--set", "memory.backend=hindsight",
              "--set", "memory.hindsight.url=http://hindsight.recall-system.svc:8888",
              "--set", "networkPolicy.enabled=true", "--set", "monitoring.serviceMonitor.enabled=true",
              "--set", "monitoring.prometheusRule.enabled=true", "--set", "monitoring.dashboard.enabled=true",
              "--set", "image.digest=sha256:" + "0" * 64)
PROFILES = {"default": (), "production": PRODUCTION}

# The Prometheus Operator's kinds: their schemas are not in this repository nor on
# the test API server, and the test fetches nothing. tests/integration/test_helm.py
# checks their content, and test_install_docs.py has the API server store them.
KUBECONFORM_SKIP = ("ServiceMonitor", "PrometheusRule")

# kube-score findings that stay, by check and profile, each with its reason.
KUBE_SCORE_ACCEPTED: dict[str, tuple[set[str], str]] = {
    "container-resources": ({"default", "production"},
                            "no CPU limit on purpose: throttling a bursty reconcile loop only adds latency "
                            "(memory and ephemeral storage are limited)"),
    "container-image-pull-policy": ({"default", "production"},
                                    "IfNotPresent: pin image.digest (the production profile does) rather than "
                                    "pulling on every start"),
    "pod-networkpolicy": ({"default", "production"},
                          "off by default (no CNI is assumed); when on, it limits ingress only: egress goes to "
                          "the API server and Hindsight, whose addresses differ per cluster"),
    "deployment-strategy": ({"default"}, "Recreate on embedded memory: the SQLite store has one writer, "
                                         "two pods must never overlap"),
    "deployment-replicas": ({"default"}, "one replica on embedded memory (one writer); HA needs Hindsight, "
                                         "as in the production profile"),
}


def tool(name: str) -> str:
    path = Path(render.helm_binary()).parent / name  # scripts/testbin.sh builds it beside helm
    assert path.exists(), f"scripts/testbin.sh did not build {name}"
    return str(path)


def rendered(helm: str, profile: str, tmp_path: Path) -> Path:
    text = render.render_chart(helm, "--include-crds", *PROFILES[profile])
    out = tmp_path / f"{profile}.yaml"
    out.write_text(text)
    return out


@pytest.fixture(scope="module")
def helm() -> str:
    return render.helm_binary()


# -- kubeconform's schemas, written from OpenAPI -------------------------------------------


def to_json_schema(node: Any, schemas: dict[str, Any], seen: tuple[str, ...] = ()) -> Any:
    """An OpenAPI (v3) schema as a standalone, strict JSON schema: refs inlined, Kubernetes extensions mapped."""
    if isinstance(node, list):
        return [to_json_schema(n, schemas, seen) for n in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        if name in seen:  # a recursive type (JSONSchemaProps): anything below the cut
            return {}
        return to_json_schema(schemas[name], schemas, (*seen, name))
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("properties", "patternProperties"):
            out[key] = {k: to_json_schema(v, schemas, seen) for k, v in value.items()}
        elif key in ("items", "additionalProperties", "not") or key in ("allOf", "anyOf", "oneOf"):
            out[key] = to_json_schema(value, schemas, seen)
        elif key in ("description", "example", "x-kubernetes-validations", "x-kubernetes-list-map-keys"):
            continue
        else:
            out[key] = value
    if out.pop("x-kubernetes-int-or-string", False):
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if out.pop("nullable", False) and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    if out.pop("x-kubernetes-preserve-unknown-fields", False):
        out.setdefault("additionalProperties", True)
    elif "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False  # strict: a misspelt field is an error
    out.pop("format", None)  # int32, int64, byte...: the types say enough
    return out


def schema_file(directory: Path, kind: str, group: str, version: str) -> Path:
    # kubeconform's template fields: .Group is the apiVersion before its "/" (the version itself for core).
    return directory / f"{kind.lower()}-{group or version}-{version}.json"


def write_builtin_schemas(kubectl: Callable[..., Any], directory: Path, kinds: set[tuple[str, str, str]]) -> None:
    index = json.loads(kubectl("get", "--raw", "/openapi/v3", check=True).stdout)["paths"]
    wanted = {(g, v) for _, g, v in kinds}
    for path, ref in index.items():
        parts = path.split("/")
        gv = ("", parts[-1]) if path.startswith("api/") else (parts[1], parts[2]) if len(parts) == 3 else None
        if gv not in wanted:
            continue
        doc = json.loads(kubectl("get", "--raw", ref["serverRelativeURL"], check=True).stdout)
        schemas = doc["components"]["schemas"]
        for name, schema in schemas.items():
            for gvk in schema.get("x-kubernetes-group-version-kind") or []:
                key = (gvk["kind"], gvk["group"], gvk["version"])
                if key in kinds:
                    schema_file(directory, *key).write_text(json.dumps(to_json_schema(schema, schemas, (name,))))


def write_crd_schemas(crds: list[dict[str, Any]], directory: Path) -> None:
    meta = {"type": "object", "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                                            "metadata": {"type": "object"}}}
    for crd in crds:
        for version in crd["spec"]["versions"]:
            schema = copy.deepcopy(version["schema"]["openAPIV3Schema"])
            schema.setdefault("properties", {}).update(
                {k: v for k, v in meta["properties"].items() if k not in schema["properties"]})
            path = schema_file(directory, crd["spec"]["names"]["kind"], crd["spec"]["group"], version["name"])
            path.write_text(json.dumps(to_json_schema(schema, {})))


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_kubeconform_finds_nothing(helm: str, kubectl: Callable[..., Any], tmp_path: Path, profile: str) -> None:
    manifests = rendered(helm, profile, tmp_path)
    items = [d for d in yaml.safe_load_all(manifests.read_text()) if d]
    crds = [d for d in items if d["kind"] == "CustomResourceDefinition"]
    crds += [yaml.safe_load(p.read_text()) for p in sorted((ROOT / "crds").glob("*.yaml"))]
    schemas = tmp_path / "schemas"
    schemas.mkdir()
    write_crd_schemas(crds, schemas)
    builtin = {(d["kind"], *(d["apiVersion"].split("/") if "/" in d["apiVersion"] else ("", d["apiVersion"])))
               for d in items} - {(c["spec"]["names"]["kind"], c["spec"]["group"], v["name"])
                                 for c in crds for v in c["spec"]["versions"]}
    builtin = {k for k in builtin if k[0] not in KUBECONFORM_SKIP}
    write_builtin_schemas(kubectl, schemas, builtin)
    missing = [k for k in builtin if not schema_file(schemas, *k).exists()]
    assert missing == [], f"the API server has no schema for {missing}"
    location = str(schemas) + "/{{ .ResourceKind }}-{{ .Group }}-{{ .ResourceAPIVersion }}.json"
    proc = subprocess.run([tool("kubeconform"), "-strict", "-summary", "-output", "json",
                           "-skip", ",".join(KUBECONFORM_SKIP), "-schema-location", location, str(manifests)],
                          capture_output=True, text=True, timeout=300, check=False)
    report = json.loads(proc.stdout)
    problems = [r for r in report["resources"] if r["status"] not in ("statusValid", "statusSkipped")]
    assert proc.returncode == 0 and problems == [], json.dumps(problems, indent=1) + proc.stderr
    assert report["summary"]["valid"] >= len(items) - sum(d["kind"] in KUBECONFORM_SKIP for d in items)


def test_kubeconform_catches_a_misspelt_field(helm: str, kubectl: Callable[..., Any], tmp_path: Path) -> None:
    # The strict schemas can fail: a field Kubernetes does not know is reported.
    deployment = next(d for d in yaml.safe_load_all(render.render_chart(helm)) if d and d["kind"] == "Deployment")
    deployment["spec"]["template"]["spec"]["containers"][0]["readinesProbe"] = {"tcpSocket": {"port": 1}}
    manifest = tmp_path / "typo.yaml"
    manifest.write_text(yaml.safe_dump(deployment))
    schemas = tmp_path / "schemas"
    schemas.mkdir()
    write_builtin_schemas(kubectl, schemas, {("Deployment", "apps", "v1")})
    location = str(schemas) + "/{{ .ResourceKind }}-{{ .Group }}-{{ .ResourceAPIVersion }}.json"
    proc = subprocess.run([tool("kubeconform"), "-strict", "-schema-location", location, str(manifest)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode != 0 and "readinesProbe" in proc.stdout + proc.stderr, proc.stdout + proc.stderr


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_kube_score_findings_are_fixed_or_explained(helm: str, tmp_path: Path, profile: str) -> None:
    manifests = rendered(helm, profile, tmp_path)
    proc = subprocess.run([tool("kube-score"), "score", "--output-format", "json", str(manifests)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.stdout.strip(), proc.stderr
    findings = set()
    for obj in json.loads(proc.stdout):
        for check in obj.get("checks") or []:
            if check.get("skipped") or check.get("grade", 10) >= 10:
                continue
            findings.add((check["check"]["id"], f"{obj['object_name']}: {check['check']['name']}"))
    unexplained = sorted(f for f in findings
                         if profile not in KUBE_SCORE_ACCEPTED.get(f[0], (set(), ""))[0])
    assert unexplained == [], unexplained
    # A reason that no longer applies is removed, so the list stays the truth.
    stale = {check for check, (profiles, _) in KUBE_SCORE_ACCEPTED.items() if profile in profiles} - {
        f[0] for f in findings}
    assert stale == set(), f"accepted findings kube-score no longer reports for {profile}: {stale}"


def test_the_production_profile_is_accepted_by_the_api_server(
    helm: str, kubectl: Callable[..., Any], make_namespace: Callable[[], str]
) -> None:
    """Server-side dry run of the HA objects (PDB, spread, anti-affinity, rolling update, NetworkPolicy)."""
    ns = make_namespace()
    items = [d for d in yaml.safe_load_all(render.render_chart(helm, *PRODUCTION, namespace=ns)) if d]
    # The CRD-backed kinds need their CRDs served first; kubeconform checked them above.
    sent = [d for d in items if d["apiVersion"].split("/")[0] not in ("monitoring.coreos.com", "kopf.dev")
            and d["kind"] != "CustomResourceDefinition"]
    assert {"PodDisruptionBudget", "NetworkPolicy", "Deployment"} <= {d["kind"] for d in sent}
    proc = kubectl("apply", "--server-side", "--dry-run=server", "--field-manager=recall-validators-test",
                   "-f", "-", input=yaml.safe_dump_all(sent))
    assert proc.returncode == 0, proc.stderr
    assert "poddisruptionbudget.policy/recall-operator serverside-applied (server dry run)" in proc.stdout, proc.stdout
