"""Fuzzed custom resources against the real API server and the running operator.

Hypothesis mutates valid Incident, Runbook, Approval, ArchitectureMigration and
Contradiction bodies (wrong types, missing and unknown fields, huge strings,
deep nesting, unicode) and creates each on the real API server. Each body is
either refused with a reason (HTTP 400 or 422 and a non-empty message: the
CRD schemas and their CEL rules at work) or accepted. The operator (`recall
run`, a subprocess) watches the namespace throughout; every accepted Incident
gets a Triaged condition (True, or False with a reason), and at the end the
operator is alive and has logged no Traceback.

About 100 examples in all, so the module runs in a couple of minutes.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from support import stop_process

pytestmark = pytest.mark.integration

GROUP, VERSION = "recall.dev", "v1alpha1"
DEADLINE = 120.0
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


class Fuzz:
    def __init__(self, api: Any, namespace: str, op: subprocess.Popen[bytes], log: Path,
                 kubectl: Callable[..., Any]) -> None:
        from kubernetes import client

        self.objects = client.CustomObjectsApi(api)
        self.ns, self.op, self.log, self.kubectl = namespace, op, log, kubectl

    def create(self, body: dict[str, Any]) -> bool:
        """True when accepted; a refusal must be a 400/422 that says why."""
        from kubernetes.client.exceptions import ApiException

        plural = BASES[body["kind"]][0]
        try:
            self.objects.create_namespaced_custom_object(GROUP, VERSION, self.ns, plural, body)
        except ApiException as exc:
            try:
                message = json.loads(exc.body or "{}").get("message", "")
            except ValueError:
                message = ""
            assert exc.status in (400, 422), (exc.status, exc.body and exc.body[:2000])
            assert message.strip(), exc.body
            TALLY[f"refused {body['kind']}"] += 1
            return False
        TALLY[f"accepted {body['kind']}"] += 1
        return True

    def triaged(self, name: str) -> dict[str, Any]:
        def probe() -> dict[str, Any] | None:
            assert self.op.poll() is None, self.output()[-5000:]
            inc = self.objects.get_namespaced_custom_object(GROUP, VERSION, self.ns, "incidents", name)
            return next((c for c in (inc.get("status") or {}).get("conditions") or [] if c["type"] == "Triaged"),
                        None)

        end = time.monotonic() + DEADLINE
        while time.monotonic() < end:
            cond = probe()
            if cond:
                return cond
            time.sleep(0.25)
        raise AssertionError(f"incident {name} never got a Triaged condition; operator log:\n{self.output()[-5000:]}")

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


@settings(FUZZ, max_examples=45)
@given(body=mutated("Incident"))
# Accepted by the CRD (a valid RFC 3339 date-time) but year 0 is no datetime for the operator: Triaged=False.
@example(body={"apiVersion": f"{GROUP}/{VERSION}", "kind": "Incident", "metadata": {"name": "fz-year-zero"},
               "spec": {**BASES["Incident"][1], "startedAt": "0000-01-01T00:00:00Z"}})
def test_fuzzed_incidents_are_refused_with_a_reason_or_triaged(fuzz: Fuzz, body: dict[str, Any]) -> None:
    if fuzz.create(body):
        cond = fuzz.triaged(body["metadata"]["name"])
        assert cond["status"] in ("True", "False") and cond.get("reason"), cond
        if cond["status"] == "False":
            assert cond.get("message"), cond
        TALLY[f"triaged {cond['status']}"] += 1


@settings(FUZZ, max_examples=15)
@given(body=mutated("Runbook"))
def test_fuzzed_runbooks_are_refused_with_a_reason_or_accepted(fuzz: Fuzz, body: dict[str, Any]) -> None:
    fuzz.create(body)


@settings(FUZZ, max_examples=12)
@given(body=mutated("Approval"))
def test_fuzzed_approvals_are_refused_with_a_reason_or_accepted(fuzz: Fuzz, body: dict[str, Any]) -> None:
    fuzz.create(body)


@settings(FUZZ, max_examples=12)
@given(body=mutated("ArchitectureMigration"))
def test_fuzzed_migrations_are_refused_with_a_reason_or_accepted(fuzz: Fuzz, body: dict[str, Any]) -> None:
    fuzz.create(body)


@settings(FUZZ, max_examples=12)
@given(body=mutated("Contradiction"))
def test_fuzzed_contradictions_are_refused_with_a_reason_or_accepted(fuzz: Fuzz, body: dict[str, Any]) -> None:
    fuzz.create(body)


def test_after_the_fuzz_a_plain_incident_is_still_triaged(fuzz: Fuzz) -> None:
    # Whatever the fuzzed Runbooks, Migrations and Contradictions put in the indexes, triage goes on.
    body = {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Incident", "metadata": {"name": "after-fuzz"},
            "spec": BASES["Incident"][1]}
    assert fuzz.create(body)
    assert fuzz.triaged("after-fuzz")["status"] == "True"
