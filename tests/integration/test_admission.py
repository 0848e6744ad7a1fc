"""Identity at admission, on the real kube-apiserver (manifests/admission.yaml).

The policies are applied as shipped, for this module only, and deleted
afterwards: they bind in every namespace and would refuse other tests'
Incidents and Approvals that do not carry the creator's identity.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

pytestmark = pytest.mark.integration

MANIFESTS = Path(__file__).resolve().parents[2] / "manifests"
ADMIN = "admin"  # the test cluster's admin certificate (group system:masters)
BRIDGE = "system:serviceaccount:recall-system:recall-operator"
OPENED_BY = "recall.dev/opened-by"
PLAN = "9f2c0a1b9f2c0a1b"
REFUSED: list[str] = []  # bad inputs the API server refused, for the report


def apply_files(kubectl: Callable[..., Any], *names: str) -> None:
    args = ["apply", "--server-side", "--force-conflicts", "--field-manager=recall-test"]
    for n in names:
        args += ["-f", str(MANIFESTS / n)]
    proc = kubectl(*args)
    assert proc.returncode == 0, proc.stderr


def approval(ns: str, name: str, approver: str) -> dict[str, Any]:
    return {
        "apiVersion": "recall.dev/v1alpha1",
        "kind": "Approval",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"incident": "inc-0042", "planHash": PLAN, "decision": "approve", "approver": approver,
                 "reason": "matches the dry-run"},
    }


def incident(ns: str, name: str, opened_by: str | None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": ns}
    if opened_by is not None:
        meta["annotations"] = {OPENED_BY: opened_by}
    return {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "metadata": meta,
            "spec": {"service": "checkout", "title": "p99 latency above 2s", "severity": "high"}}


def create(kubectl: Callable[..., Any], obj: dict[str, Any], as_user: str | None = None,
           as_groups: tuple[str, ...] = (), dry_run: bool = False) -> Any:
    args = ["create", "-f", "-", "-o", "name"] + (["--dry-run=server"] if dry_run else [])
    return kubectl(*args, input=json.dumps(obj), as_user=as_user, as_groups=as_groups)


def refused(proc: Any, *words: str, what: str) -> None:
    assert proc.returncode != 0, f"{what}: was allowed:\n{proc.stdout}"
    text = proc.stderr
    for w in words:
        assert w in text, f"{what}: {w!r} not in:\n{text}"
    REFUSED.append(what)


@pytest.fixture(scope="module")
def policies(kubectl: Callable[..., Any]) -> Iterator[None]:
    apply_files(kubectl, "namespace-restricted.yaml", "rbac.yaml", "admission.yaml")
    try:
        # Policies load asynchronously: retry a known-bad create until it is refused.
        deadline = time.monotonic() + 90
        while True:
            bad_a = create(kubectl, approval("default", "policy-probe", "nobody-else"), dry_run=True)
            bad_i = create(kubectl, incident("default", "policy-probe", None), dry_run=True)
            if bad_a.returncode != 0 and bad_i.returncode != 0:
                assert "must be you" in bad_a.stderr + bad_i.stderr, bad_a.stderr + bad_i.stderr
                break
            assert time.monotonic() < deadline, "the admission policies never became active"
            time.sleep(0.5)
        yield
    finally:
        docs = yaml.safe_load_all((MANIFESTS / "admission.yaml").read_text())
        for d in docs:
            if d:
                kubectl("delete", d["kind"].lower() + ".admissionregistration.k8s.io", d["metadata"]["name"],
                        "--ignore-not-found")


@pytest.fixture
def approvers(kubectl: Callable[..., Any], namespace: str, policies: None) -> str:
    for user in ("alice", "bob"):
        proc = kubectl("create", "rolebinding", f"approver-{user}", "--clusterrole=recall-approver",
                       f"--user={user}", "-n", namespace)
        assert proc.returncode == 0, proc.stderr
    return namespace


def test_policies_type_check_cleanly(kubectl: Callable[..., Any], policies: None) -> None:
    for name in ("recall-approval-identity", "recall-incident-opener"):
        out = kubectl("get", "validatingadmissionpolicy", name, "-o", "json", check=True).stdout
        status = json.loads(out).get("status") or {}
        warnings = (status.get("typeChecking") or {}).get("expressionWarnings") or []
        assert not warnings, warnings


def test_an_approval_is_signed_by_its_creator(kubectl: Callable[..., Any], approvers: str) -> None:
    ns = approvers
    ok = create(kubectl, approval(ns, "by-alice", "alice"), as_user="alice")
    assert ok.returncode == 0, ok.stderr
    ok = create(kubectl, approval(ns, "by-bob", "bob"), as_user="bob")
    assert ok.returncode == 0, ok.stderr

    refused(create(kubectl, approval(ns, "alice-for-bob", "bob"), as_user="alice"),
            "spec.approver must be you (alice): an Approval is signed by the person who creates it",
            what="alice signs an Approval as bob")
    refused(create(kubectl, approval(ns, "bob-for-alice", "alice"), as_user="bob"),
            "spec.approver must be you (bob)", what="bob signs an Approval as alice")
    # system:masters bypasses RBAC, not identity.
    refused(create(kubectl, approval(ns, "admin-for-alice", "alice")),
            f"spec.approver must be you ({ADMIN})", what="the admin signs an Approval as alice")
    refused(create(kubectl, approval(ns, "group-trick", "alice"), as_user="mallory", as_groups=("system:masters",)),
            "spec.approver must be you (mallory)", what="a system:masters member signs as alice")
    refused(create(kubectl, approval(ns, "bridge-for-alice", "alice"), as_user=BRIDGE),
            what="the operator's ServiceAccount signs an Approval")
    names = kubectl("get", "approvals", "-n", ns, "-o", "name", check=True).stdout.split()
    assert sorted(names) == ["approval.recall.dev/by-alice", "approval.recall.dev/by-bob"]


def test_an_approval_cannot_be_changed(kubectl: Callable[..., Any], approvers: str) -> None:
    ns = approvers
    assert create(kubectl, approval(ns, "signed", "alice"), as_user="alice").returncode == 0
    patch = json.dumps({"spec": {"approver": "bob"}})
    # alice may create but not change (RBAC); the admin may not change it either (immutable spec).
    refused(kubectl("patch", "approval", "signed", "-n", ns, "--type=merge", "-p", patch, as_user="alice"),
            "forbidden", what="alice re-signs her Approval")
    refused(kubectl("patch", "approval", "signed", "-n", ns, "--type=merge", "-p", patch),
            "cannot be changed", what="the admin re-signs alice's Approval")
    out = kubectl("get", "approval", "signed", "-n", ns, "-o", "jsonpath={.spec.approver}", check=True).stdout
    assert out == "alice"


def test_an_incident_records_who_opened_it(kubectl: Callable[..., Any], approvers: str) -> None:
    ns = approvers
    ok = create(kubectl, incident(ns, "opened-by-admin", ADMIN))
    assert ok.returncode == 0, ok.stderr
    refused(create(kubectl, incident(ns, "anonymous", None)),
            f"recall.dev/opened-by must be you ({ADMIN})", "it is missing", what="an Incident without its opener")
    refused(create(kubectl, incident(ns, "framed", "alice")),
            f"must be you ({ADMIN})", "not alice", what="an Incident opened in alice's name")
    # Another namespace's account named recall-operator is not the bridge.
    impostor = f"system:serviceaccount:{ns}:recall-operator"
    refused(create(kubectl, incident(ns, "impostor", None), as_user=impostor, as_groups=("system:masters",)),
            f"must be you ({impostor})", what="a look-alike bridge account opens an anonymous Incident")


def test_the_bridge_opens_incidents_for_anyone(kubectl: Callable[..., Any], approvers: str) -> None:
    ns = approvers
    for name, who in (("from-alert", None), ("for-alice", "alice")):
        ok = create(kubectl, incident(ns, name, who), as_user=BRIDGE)
        assert ok.returncode == 0, f"{name}: {ok.stderr}"


def test_the_opener_cannot_be_rewritten(kubectl: Callable[..., Any], approvers: str) -> None:
    ns = approvers
    assert create(kubectl, incident(ns, "mine", ADMIN)).returncode == 0
    assert create(kubectl, incident(ns, "from-alert", None), as_user=BRIDGE).returncode == 0

    def annotate(name: str, value: str | None, as_user: str | None = None) -> Any:
        arg = f"{OPENED_BY}-" if value is None else f"{OPENED_BY}={value}"
        return kubectl("annotate", "incident", name, "-n", ns, "--overwrite", arg, as_user=as_user)

    refused(annotate("mine", "alice"), "cannot be added, changed or removed", f"was {ADMIN}",
            what="the opener rewritten")
    refused(annotate("mine", None), "cannot be added, changed or removed", what="the opener removed")
    refused(annotate("from-alert", ADMIN), "was absent", what="an opener added to a bridge incident")
    refused(annotate("from-alert", "alice", as_user=BRIDGE), "cannot be added",
            what="the bridge adds an opener afterwards")
    # Other metadata and the spec stay editable, and the status is not the policy's business.
    ok = kubectl("annotate", "incident", "mine", "-n", ns, "note=checked")
    assert ok.returncode == 0, ok.stderr
    ok = kubectl("patch", "incident", "mine", "-n", ns, "--type=merge", "-p", '{"spec":{"severity":"critical"}}')
    assert ok.returncode == 0, ok.stderr


def test_zz_report(policies: None) -> None:
    print(f"\nadmission: {len(REFUSED)} bad inputs refused: " + "; ".join(REFUSED))
    assert len(REFUSED) >= 12
