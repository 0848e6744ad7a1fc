"""Fuzzed custom resources against the real API server and the running operator.

Hypothesis mutates valid Incident, Runbook, Approval, ArchitectureMigration and
Contradiction bodies (wrong types, missing and unknown fields, huge strings,
deep nesting, unicode) and creates each on the real API server, with strict
field validation (kubectl's default: an unknown field is refused, not dropped).
Each body is either

- refused with HTTP 400 or 422 and a message naming the field at fault: the
  unknown field, or each field a CRD schema or CEL rule refused, lies on a
  path where the body differs from its valid base (or is an ancestor of one,
  where a rule over several fields sits); or
- stored as sent: read back, its spec equals the one sent as the CRD schema
  stores it (a null in a declared field dropped, defaults filled in).

The operator (`recall run`, a subprocess) watches the namespace throughout:
every accepted Incident gets a Triaged condition, and every accepted Runbook,
ArchitectureMigration and Contradiction an Accepted condition (True, or False
with a reason and a message); at the end the operator is alive and has logged
no Traceback.

About 100 examples in all.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from support import stop_process, wait_for

pytestmark = pytest.mark.integration

GROUP, VERSION = "recall.dev", "v1alpha1"
DEADLINE = 120.0
CRDS = Path(__file__).resolve().parents[2] / "crds"
FUZZ = settings(deadline=None, database=None, suppress_health_check=list(HealthCheck))
TALLY: Counter[str] = Counter()
_names = itertools.count()

BASES: dict[str, tuple[str, dict[str, Any]]] = {
    "Incident": ("incidents", {
        "service": "checkout-api", "title": "checkout 5xx after deploy", "severity": "high",
        "description": "errors since 10:02", "symptoms": ["5xx", "latency-spike"],
        "errorSignatures": ["upstream connect error"], "labels": {"team": "payments"},
        "deployment": {"id": "d-1", "revision": "42", "environment": "prod", "minutesSinceDeploy": 3},
        "startedAt": "2026-01-01T10:00:00Z", "parameters": {"REPLICAS": "3"},
    }),
    "Runbook": ("runbooks", {
        "title": "roll back the deployment", "services": ["checkout-api"], "symptoms": ["5xx"],
        "steps": [{"name": "undo", "image": "kubectl:1.36", "command": ["kubectl", "rollout", "undo", "deploy/$(SERVICE)"],
                   "dryRunCommand": ["kubectl", "rollout", "history", "deploy/$(SERVICE)"],
                   "estimatedSeconds": 30}],
    }),
    "Approval": ("approvals", {
        "incident": "fz-nothing", "planHash": "0123456789abcdef", "decision": "approve", "approver": "admin",
    }),
    "ArchitectureMigration": ("architecturemigrations", {
        "targetService": "checkout-api", "migrationDate": "2025-06-01", "oldArch": "vm", "newArch": "k8s",
        "impactedRunbooks": ["restart-vm"], "impactedFixKeywords": ["systemctl"], "confidenceDeduction": 30,
    }),
    "Contradiction": ("contradictions", {
        "topic": "does a restart fix the pool?", "memories": ["ns/inc-1", "ns/inc-2"],
        "claims": [{"memory": "ns/inc-1", "claim": "restart fixed it"}, {"memory": "ns/inc-2", "claim": "it did not"}],
        "resolution": {"state": "open"},
    }),
}

# Text that is hostile to parsers and people: control characters, bidi, zero-width, astral.
weird_text = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8", exclude_categories=["Cs"]),
        st.sampled_from(["\u202e", "\u200b", "\ufeff", "\U0001f525", "\n", "\x00", "$", "(", "`", ";", "-", "a"]),
    ),
    max_size=80,
)
# Huge strings stay below the API server's request limits (its 3 MiB body, etcd's 1.5 MiB value).
huge_text = st.builds(lambda c, n: c * n, st.sampled_from(["x", "é", "\U0001f525", "a-", "\u200b"]),
                      st.integers(1_000, 60_000))
# Timestamps at the edges, where the API server's date-time format and the operator's parser may disagree.
dates = st.sampled_from(["0000-01-01T00:00:00Z", "2026-02-30T10:00:00Z", "2026-01-01t10:00:00z",
                         "2026-01-01T10:00:00+23:59", "2026-01-01T10:00:00.1234567890123Z", "9999-12-31T23:59:59Z"])
scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1),
                    st.floats(allow_nan=False, allow_infinity=False), weird_text, dates)
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(weird_text, inner, max_size=4)), max_leaves=12)


def _nest(depth: int, as_list: bool) -> Any:
    value: Any = "deep"
    for _ in range(depth):
        value = [value] if as_list else {"n": value}
    return value


deep = st.builds(_nest, st.integers(10, 300), st.booleans())
any_value = st.one_of(json_values, huge_text, deep)


@st.composite
def mutated(draw: st.DrawFn, kind: str) -> dict[str, Any]:
    """A body of `kind`: its valid base with a few fields replaced, deleted, added or nested."""
    spec = json.loads(json.dumps(BASES[kind][1]))
    for _ in range(draw(st.integers(0, 3))):
        op = draw(st.sampled_from(["set", "delete", "add", "inner"]))
        keys = sorted(spec)
        if op == "set" and keys:
            spec[draw(st.sampled_from(keys))] = draw(any_value)
        elif op == "delete" and keys:
            spec.pop(draw(st.sampled_from(keys)))
        elif op == "add":
            spec[draw(weird_text)] = draw(any_value)
        elif op == "inner":
            # Inside a list or object field: the second level is where schemas are often loose.
            containers = [k for k in keys if isinstance(spec[k], (list, dict)) and spec[k]]
            if containers:
                k = draw(st.sampled_from(containers))
                if isinstance(spec[k], list):
                    spec[k][draw(st.integers(0, len(spec[k]) - 1))] = draw(any_value)
                else:
                    spec[k][draw(st.sampled_from(sorted(spec[k])))] = draw(any_value)
    body: dict[str, Any] = {"apiVersion": f"{GROUP}/{VERSION}", "kind": kind,
                            "metadata": {"name": f"fz-{next(_names)}-{uuid.uuid4().hex[:6]}"}}
    shape = draw(st.sampled_from(["spec", "spec", "spec", "spec", "no-spec", "spec-not-object", "extra-top"]))
    if shape == "spec":
        body["spec"] = spec
    elif shape == "spec-not-object":
        body["spec"] = draw(st.one_of(scalars, st.lists(scalars, max_size=3)))
    elif shape == "extra-top":
        body["spec"] = spec
        body[draw(st.sampled_from(["status", "data", "stringData", "x"]))] = draw(json_values)
    return body


def _join(path: str, key: Any) -> str:
    return f"{path}.{key}" if path else str(key)


def changed_paths(sent: Any, base: Any, path: str = "") -> list[str]:
    """The field paths where `sent` differs from `base`, spelled as the API server does: spec.steps[0].image."""
    if isinstance(sent, dict) and isinstance(base, dict):
        paths: list[str] = []
        for key in sorted(set(sent) | set(base), key=str):
            if (key in sent) != (key in base):
                paths.append(_join(path, key))
            else:
                paths += changed_paths(sent[key], base[key], _join(path, key))
        return paths
    if isinstance(sent, list) and isinstance(base, list) and len(sent) == len(base):
        return [p for i, (a, b) in enumerate(zip(sent, base)) for p in changed_paths(a, b, f"{path}[{i}]")]
    # bool is an int to Python, never to the schema
    same = sent == base and isinstance(sent, bool) == isinstance(base, bool)
    return [] if same else [path]


def _segments(path: str) -> str:
    # A refusal names a map key as spec.labels[key] or spec.labels.key, a list item as steps[0]: one spelling.
    return path.replace("[", ".").replace("]", "")


def _on_path(field: str, changed: str) -> bool:
    """`field` is `changed`, lies inside it, or holds it (a rule over several fields sits on their parent)."""
    f, c = _segments(field), _segments(changed)
    return f == c or f.startswith(c + ".") or c.startswith(f + ".")


def spec_schema(plural: str) -> dict[str, Any]:
    """The spec's openAPIV3Schema in the repository's CRD, the one the test cluster installs."""
    crd = yaml.safe_load((CRDS / f"{plural}.yaml").read_text())
    (version,) = [v for v in crd["spec"]["versions"] if v["name"] == VERSION]
    schema: dict[str, Any] = version["schema"]["openAPIV3Schema"]["properties"]["spec"]
    return schema


def as_stored(value: Any, schema: dict[str, Any] | None) -> Any:
    """`value` as the API server stores it under `schema`: a null in a field the schema declares
    (and does not make nullable) dropped, then each absent property with a `default` filled in.
    Where the schema declares nothing (x-kubernetes-preserve-unknown-fields), the value stays as sent."""
    if schema is None:
        return value
    if isinstance(value, dict):
        props: dict[str, Any] = schema.get("properties") or {}
        more = schema.get("additionalProperties")
        out: dict[str, Any] = {}
        for key, item in value.items():
            sub = props.get(key, more if isinstance(more, dict) else None)
            if item is None and sub is not None and not sub.get("nullable"):
                continue
            out[key] = as_stored(item, sub)
        for key, sub in props.items():
            if key not in out and "default" in sub:
                out[key] = sub["default"]
        return out
    if isinstance(value, list):
        return [as_stored(item, schema.get("items")) for item in value]
    return value


class Fuzz:
    def __init__(self, api: Any, namespace: str, op: subprocess.Popen[bytes], log: Path,
                 kubectl: Callable[..., Any]) -> None:
        from kubernetes import client

        self.objects = client.CustomObjectsApi(api)
        self.schemas = {kind: spec_schema(plural) for kind, (plural, _) in BASES.items()}
        self.ns, self.op, self.log, self.kubectl = namespace, op, log, kubectl

    def create(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """The object as read back when the API server took it, None when it refused it.

        A refusal must be a 400 or 422 naming a field where the body differs from
        its kind's valid base; an object taken must read back as sent, as the
        CRD schema stores it (`as_stored`).
        """
        from kubernetes.client.exceptions import ApiException

        kind, name = body["kind"], body["metadata"]["name"]
        plural, base_spec = BASES[kind]
        top = {k: v for k, v in body.items() if k not in ("apiVersion", "kind", "metadata")}
        changed = changed_paths(top, {"spec": base_spec})
        try:
            self.objects.create_namespaced_custom_object(GROUP, VERSION, self.ns, plural, body,
                                                         field_validation="Strict")
        except ApiException as exc:
            try:
                answer = json.loads(exc.body or "{}")
            except ValueError:
                answer = {}
            message = str(answer.get("message") or "")
            assert exc.status in (400, 422), (exc.status, exc.body and exc.body[:2000])
            assert message.strip(), exc.body
            assert changed, f"the unchanged base of {kind} was refused: {message[:2000]}"
            if exc.status == 400:
                # Strict decoding: the message lists each unknown field by its path.
                assert "unknown field" in message, message[:2000]
                assert any(f'unknown field "{p}' in message for p in changed), (changed, message[:2000])
            else:
                causes = (answer.get("details") or {}).get("causes") or []
                fields = [c.get("field") for c in causes if c.get("field") not in (None, "", "<nil>")]
                assert fields, message[:2000]
                wrong = [f for f in fields if not any(_on_path(f, p) for p in changed)]
                assert not wrong, f"refused for {wrong}, where the body is as valid as its base; changed: {changed}"
            TALLY[f"refused {kind}"] += 1
            return None
        stored: dict[str, Any] = self.objects.get_namespaced_custom_object(GROUP, VERSION, self.ns, plural, name)
        sent = body.get("spec")
        assert stored.get("spec") == as_stored(sent, self.schemas[kind]), (sent, stored.get("spec"))
        TALLY[f"accepted {kind}"] += 1
        return stored

    def _condition(self, plural: str, name: str, type_: str) -> dict[str, Any] | None:
        assert self.op.poll() is None, self.output()[-5000:]
        obj = self.objects.get_namespaced_custom_object(GROUP, VERSION, self.ns, plural, name)
        return next((c for c in (obj.get("status") or {}).get("conditions") or [] if c.get("type") == type_), None)

    def _answered(self, plural: str, name: str, type_: str) -> dict[str, Any]:
        """The operator's `type_` condition on the object, once there; the operator must stay up meanwhile."""
        cond: dict[str, Any] = wait_for(f"a {type_} condition on {plural}/{name}",
                                        lambda: self._condition(plural, name, type_), deadline=DEADLINE,
                                        every=0.25, detail=lambda: "operator log:\n" + self.output()[-5000:])
        assert cond["status"] in ("True", "False") and cond.get("reason"), cond
        if cond["status"] == "False":
            assert cond.get("message"), cond
        return cond

    def triaged(self, name: str) -> dict[str, Any]:
        return self._answered("incidents", name, "Triaged")

    def accepted(self, kind: str, name: str) -> dict[str, Any]:
        cond = self._answered(BASES[kind][0], name, "Accepted")
        TALLY[f"{kind} Accepted={cond['status']}"] += 1
        return cond

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture(scope="module")
def fuzz(cluster: Any, kubectl: Callable[..., Any], k8s_api: Any,
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzz]:
    namespace = f"fz-{uuid.uuid4().hex[:8]}"
    kubectl("create", "namespace", namespace, check=True)
    tmp = tmp_path_factory.mktemp("fuzz")
    log = tmp / "operator.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("RECALL_")}
    env.update({"KUBECONFIG": str(cluster.kubeconfig), "PYTHONUNBUFFERED": "1"})
    with open(log, "wb") as fh:
        op = subprocess.Popen([sys.executable, "-m", "recall_operator.cli", "run", "--namespace", namespace,
                               "--memory", "embedded", "--memory-path", str(tmp / "memory.sqlite3")],
                              env=env, stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                              start_new_session=True)
    f = Fuzz(k8s_api, namespace, op, log, kubectl)
    try:
        yield f
        # The operator outlived every body, and never crashed in a handler.
        assert op.poll() is None, f.output()[-5000:]
        assert "Traceback" not in f.output(), f.output()[-8000:]
        sys.__stderr__.write(f"\nfuzz tally: {dict(sorted(TALLY.items()))}\n")
    finally:
        stop_process(op)
        kubectl("delete", "namespace", namespace, "--wait=false", "--ignore-not-found")


def test_a_valid_base_of_each_kind_is_accepted(fuzz: Fuzz) -> None:
    # The mutations start from bodies the API server takes; otherwise every refusal would be trivial.
    for kind, (_plural, spec) in BASES.items():
        body = {"apiVersion": f"{GROUP}/{VERSION}", "kind": kind, "metadata": {"name": f"base-{kind.lower()}"},
                "spec": spec}
        assert fuzz.create(body), kind
    cond = fuzz.triaged("base-incident")
    assert cond["status"] == "True", cond
    # A sound Runbook and Migration are taken; the Contradiction names incidents memory does not hold.
    assert fuzz.accepted("Runbook", "base-runbook")["status"] == "True"
    assert fuzz.accepted("ArchitectureMigration", "base-architecturemigration")["status"] == "True"
    assert fuzz.accepted("Contradiction", "base-contradiction")["reason"] == "MemoryNotFound"


@settings(FUZZ, max_examples=45)
@given(body=mutated("Incident"))
# A valid RFC 3339 date-time, but year 0 is no datetime for the operator: the CRD's rule refuses it, naming spec.startedAt.
@example(body={"apiVersion": f"{GROUP}/{VERSION}", "kind": "Incident", "metadata": {"name": "fz-year-zero"},
               "spec": {**BASES["Incident"][1], "startedAt": "0000-01-01T00:00:00Z"}})
def test_fuzzed_incidents_are_refused_naming_a_field_or_stored_as_sent_and_triaged(
    fuzz: Fuzz, body: dict[str, Any]
) -> None:
    if fuzz.create(body):
        cond = fuzz.triaged(body["metadata"]["name"])
        TALLY[f"triaged {cond['status']}"] += 1


@settings(FUZZ, max_examples=15)
@given(body=mutated("Runbook"))
def test_fuzzed_runbooks_are_refused_naming_a_field_or_stored_as_sent_and_answered(
    fuzz: Fuzz, body: dict[str, Any]
) -> None:
    if fuzz.create(body):
        fuzz.accepted("Runbook", body["metadata"]["name"])


@settings(FUZZ, max_examples=12)
@given(body=mutated("Approval"))
def test_fuzzed_approvals_are_refused_naming_a_field_or_stored_as_sent(fuzz: Fuzz, body: dict[str, Any]) -> None:
    # The operator reads Approvals only when a plan of their incident runs (none here): no answer to wait for.
    fuzz.create(body)
    assert fuzz.op.poll() is None, fuzz.output()[-5000:]


@settings(FUZZ, max_examples=12)
@given(body=mutated("ArchitectureMigration"))
def test_fuzzed_migrations_are_refused_naming_a_field_or_stored_as_sent_and_answered(
    fuzz: Fuzz, body: dict[str, Any]
) -> None:
    if fuzz.create(body):
        fuzz.accepted("ArchitectureMigration", body["metadata"]["name"])


@settings(FUZZ, max_examples=12)
@given(body=mutated("Contradiction"))
def test_fuzzed_contradictions_are_refused_naming_a_field_or_stored_as_sent_and_answered(
    fuzz: Fuzz, body: dict[str, Any]
) -> None:
    if fuzz.create(body):
        fuzz.accepted("Contradiction", body["metadata"]["name"])


def test_after_the_fuzz_a_plain_incident_is_still_triaged(fuzz: Fuzz) -> None:
    # Whatever the fuzzed Runbooks, Migrations and Contradictions put in the indexes, triage goes on.
    body = {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Incident", "metadata": {"name": "after-fuzz"},
            "spec": BASES["Incident"][1]}
    assert fuzz.create(body)
    assert fuzz.triaged("after-fuzz")["status"] == "True"
