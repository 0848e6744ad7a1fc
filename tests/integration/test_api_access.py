"""Item 1 of issue 13: API access is a declared, per-step part of a Runbook, asked of the real kube-apiserver.

- the Runbook CRD accepts `apiAccess` on a step and refuses a field it does
  not know (the API server refused `apiAccess` itself before);
- the two Jobs the operator makes for one plan, one for a step with
  apiAccess and one for a step without, are created through the API server
  as the operator's own ServiceAccount (kubectl --as, with manifests/rbac.yaml
  and manifests/admission.yaml applied): the first keeps its projected token,
  the second has no credential at all, and neither mounts the automatic token;
- the admission policy recall-operator-jobs refuses a token for a step that
  did not declare it, and any credential shaped otherwise;
- what the token may do is the executor's Role, in its namespace only.

The admission policies bind in every namespace, so this module applies them
for itself and deletes them afterwards, as tests/integration/test_admission.py does.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from recall_operator.domain.models import IncidentSpec, Runbook, RunbookSpec
from recall_operator.domain.plan import build_plan
from recall_operator.kube import jobs as jobkit
from support import remove_admission, wait_for

pytestmark = pytest.mark.integration

MANIFESTS = Path(__file__).resolve().parents[2] / "manifests"
OPERATOR = "system:serviceaccount:recall-system:recall-operator"
RUNBOOK = "rollback-with-api"
STEPS = [
    {"name": "undo-rollout", "image": "bitnami/kubectl:1.29.4",
     "command": ["kubectl", "rollout", "undo", "deployment/$(SERVICE)"],
     "dryRunCommand": ["kubectl", "rollout", "undo", "deployment/$(SERVICE)", "--dry-run=server"],
     "risk": "medium", "estimatedSeconds": 60, "timeoutSeconds": 300, "apiAccess": True},
    {"name": "announce", "image": "busybox:1.36", "command": ["echo", "rolled back $(SERVICE)"], "risk": "low"},
]
REFUSED: list[str] = []


def runbook(ns: str, name: str = RUNBOOK, steps: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"apiVersion": "recall.dev/v1alpha1", "kind": "Runbook", "metadata": {"name": name, "namespace": ns},
            "spec": {"title": "roll back, then say so", "services": ["cart"], "steps": steps or STEPS}}


def create(kubectl: Callable[..., Any], obj: dict[str, Any], as_user: str | None = None,
           dry_run: bool = False) -> Any:
    args = ["create", "-f", "-", "-o", "name"] + (["--dry-run=server"] if dry_run else [])
    return kubectl(*args, input=json.dumps(obj), as_user=as_user)


def refused(proc: Any, *words: str, what: str) -> None:
    assert proc.returncode != 0, f"{what}: was allowed:\n{proc.stdout}"
    for w in words:
        assert w in proc.stderr, f"{what}: {w!r} not in:\n{proc.stderr}"
    REFUSED.append(what)


def planned_jobs(ns: str) -> dict[str, dict[str, Any]]:
    """The run Jobs of both steps, built as the operator builds them: from the plan of this Runbook."""
    rb = Runbook(name=RUNBOOK, spec=RunbookSpec.model_validate(runbook(ns)["spec"]))
    plan = build_plan(IncidentSpec(service="cart", title="5xx after deploy"), rb)
    out = {}
    for step in plan.steps:
        manifest = jobkit.job_manifest("inc-7", ns, "00000000-0000-0000-0000-000000000007", step.as_status(), "run",
                                       1, plan.parameters, plan_hash=plan.plan_hash, runbook=RUNBOOK,
                                       approvals=["by-bob"])
        manifest["metadata"].pop("ownerReferences")  # no Incident object behind them here
        out[step.name] = manifest
    return out


def pod(manifest: dict[str, Any]) -> dict[str, Any]:
    return manifest["spec"]["template"]["spec"]


@pytest.fixture(scope="module")
def policies(kubectl: Callable[..., Any]) -> Iterator[None]:
    args = ["apply", "--server-side", "--force-conflicts", "--field-manager=recall-test"]
    for name in ("namespace-restricted.yaml", "rbac.yaml", "admission.yaml"):
        args += ["-f", str(MANIFESTS / name)]
    proc = kubectl(*args)
    assert proc.returncode == 0, proc.stderr
    try:
        yield
    finally:
        remove_admission(kubectl, list(yaml.safe_load_all((MANIFESTS / "admission.yaml").read_text())))


@pytest.fixture
def served(kubectl: Callable[..., Any], namespace: str, policies: None) -> str:
    """A namespace with the Runbook in it, once both Jobs policies have loaded (each loads asynchronously).

    The Runbook policy reads the namespace's Runbooks as parameters, so it can
    start refusing later than the first one: waiting on the first alone let a
    token for an undeclared step through once (CI).
    """
    proc = create(kubectl, runbook(namespace))
    assert proc.returncode == 0, proc.stderr
    host = copy.deepcopy(planned_jobs(namespace)["announce"])
    pod(host)["hostPID"] = True
    wait_for("the Jobs admission policy to refuse a hostPID Job from the operator",
             lambda: create(kubectl, host, as_user=OPERATOR, dry_run=True).returncode != 0, deadline=90)
    token = copy.deepcopy(planned_jobs(namespace)["announce"])
    pod(token)["volumes"] = [jobkit.api_token_volume()]
    pod(token)["containers"][0]["volumeMounts"] = [jobkit.api_token_mount()]
    wait_for("the Runbook admission policy to refuse a token for a step without apiAccess",
             lambda: create(kubectl, token, as_user=OPERATOR, dry_run=True).returncode != 0, deadline=90)
    return namespace


def test_the_runbook_crd_takes_api_access_and_refuses_an_unknown_field(
    kubectl: Callable[..., Any], namespace: str
) -> None:
    ok = create(kubectl, runbook(namespace))
    assert ok.returncode == 0, ok.stderr
    stored = json.loads(kubectl("get", "runbook", RUNBOOK, "-n", namespace, "-o", "json", check=True).stdout)
    assert [s.get("apiAccess") for s in stored["spec"]["steps"]] == [True, None]
    assert stored["spec"]["steps"][0]["timeoutSeconds"] == 300

    typo = runbook(namespace, "typo", [{**STEPS[1], "apiAcess": True}])
    refused(create(kubectl, typo), 'unknown field "spec.steps[0].apiAcess"', what="a Runbook step with an unknown field")
    wrong_type = runbook(namespace, "wrong-type", [{**STEPS[1], "apiAccess": "yes"}])
    refused(create(kubectl, wrong_type), "spec.steps[0].apiAccess", what="apiAccess that is not a boolean")


def test_the_operator_creates_a_token_only_for_the_step_that_declares_it(
    kubectl: Callable[..., Any], served: str
) -> None:
    ns = served
    built = planned_jobs(ns)
    for manifest in built.values():
        proc = create(kubectl, manifest, as_user=OPERATOR)
        assert proc.returncode == 0, f"the operator's own Job {manifest['metadata']['name']} is refused: {proc.stderr}"

    def stored(step: str) -> dict[str, Any]:
        name = built[step]["metadata"]["name"]
        return json.loads(kubectl("get", "job", name, "-n", ns, "-o", "json", check=True).stdout)

    api, plain = stored("undo-rollout"), stored("announce")
    for job in (api, plain):
        assert pod(job)["automountServiceAccountToken"] is False
        assert pod(job)["serviceAccountName"] == "recall-runbook-executor"

    (volume,) = pod(api)["volumes"]
    assert volume["name"] == "kube-api-access"
    sources = volume["projected"]["sources"]
    (token,) = [s["serviceAccountToken"] for s in sources if "serviceAccountToken" in s]
    assert token == {"path": "token", "expirationSeconds": 600}, token  # no audience: the API server's own
    assert {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]} in [
        s.get("configMap") for s in sources]
    assert [s["downwardAPI"]["items"][0]["fieldRef"]["fieldPath"] for s in sources if "downwardAPI" in s] == [
        "metadata.namespace"]
    (mount,) = pod(api)["containers"][0]["volumeMounts"]
    assert mount == {"name": "kube-api-access", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                     "readOnly": True}
    assert api["spec"]["activeDeadlineSeconds"] == 300  # the step's timeoutSeconds

    assert "volumes" not in pod(plain)
    assert "volumeMounts" not in pod(plain)["containers"][0]


def test_the_policy_refuses_a_token_the_runbook_did_not_declare(kubectl: Callable[..., Any], served: str) -> None:
    ns = served
    built = planned_jobs(ns)

    def as_operator(obj: dict[str, Any]) -> Any:
        return create(kubectl, obj, as_user=OPERATOR, dry_run=True)

    def variant(step: str, name: str, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        manifest = copy.deepcopy(built[step])
        manifest["metadata"]["name"] = name
        change(manifest)
        return manifest

    def give_token(m: dict[str, Any]) -> None:
        pod(m)["volumes"] = [jobkit.api_token_volume()]
        pod(m)["containers"][0]["volumeMounts"] = [jobkit.api_token_mount()]

    def token_source(m: dict[str, Any]) -> dict[str, Any]:
        return next(s["serviceAccountToken"] for s in pod(m)["volumes"][0]["projected"]["sources"]
                    if "serviceAccountToken" in s)

    declared = "mounts an API token only for a Runbook step that declares apiAccess: true"
    credential = "carries no credential but the projected API token"
    profile = "no volume but the projected API token"
    attacks: list[tuple[dict[str, Any], str, str]] = [
        (variant("announce", "undeclared", give_token), declared + ", running the image and a command of that "
         "step as written: step announce of runbook " + RUNBOOK + " does not", "a token for a step without apiAccess"),
        (variant("undo-rollout", "other-command",
                 lambda m: pod(m)["containers"][0].update(command=["sh", "-c", "kubectl get secrets -A"])),
         declared, "the token with a command the step does not have"),
        (variant("undo-rollout", "extra-args", lambda m: pod(m)["containers"][0].update(args=["--all"])),
         declared, "the token with arguments added to the step's command"),
        (variant("undo-rollout", "other-step-name",
                 lambda m: m["metadata"]["annotations"].update({"recall.dev/step-name": "announce"})),
         declared, "the token under the name of a step without apiAccess"),
        (variant("announce", "automount", lambda m: pod(m).update(automountServiceAccountToken=True)),
         credential, "the automatic ServiceAccount token"),
        (variant("announce", "no-automount-field", lambda m: pod(m).pop("automountServiceAccountToken")),
         credential, "automountServiceAccountToken left to the ServiceAccount"),
        (variant("undo-rollout", "writable-token",
                 lambda m: pod(m)["containers"][0]["volumeMounts"][0].update(readOnly=False)),
         credential, "the token mounted writable"),
        (variant("undo-rollout", "elsewhere",
                 lambda m: pod(m)["containers"][0]["volumeMounts"][0].update(mountPath="/tmp/creds")),
         credential, "the token mounted somewhere else"),
        (variant("announce", "env-from-secret", lambda m: pod(m)["containers"][0].update(
            envFrom=[{"secretRef": {"name": "db-password"}}])), credential, "environment from a Secret"),
        (variant("announce", "env-value-from", lambda m: pod(m)["containers"][0]["env"].append(
            {"name": "X", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}})),
         credential, "a variable from a Secret"),
        (variant("undo-rollout", "audience", lambda m: token_source(m).update(audience="vault")),
         profile, "a token for another audience"),
        (variant("undo-rollout", "long-lived", lambda m: token_source(m).update(expirationSeconds=86400)),
         profile, "a token that lives a day"),
        (variant("undo-rollout", "secret-volume", lambda m: pod(m)["volumes"].append(
            {"name": "creds", "secret": {"secretName": "db"}})), profile, "a Secret volume beside the token"),
        (variant("undo-rollout", "host-path", lambda m: pod(m)["volumes"].append(
            {"name": "root", "hostPath": {"path": "/"}})), profile, "a hostPath volume beside the token"),
    ]
    for manifest, words, what in attacks:
        refused(as_operator(manifest), words, what=f"the operator's account: {what}")

    # The read-only dry run of the same step keeps its token: it is one of the step's own commands.
    dry = jobkit.job_manifest("inc-7", ns, "u", {**STEPS[0], "apiAccess": True}, "dryrun", 1, {"SERVICE": "cart"},
                              runbook=RUNBOOK)
    dry["metadata"].pop("ownerReferences")
    ok = as_operator(dry)
    assert ok.returncode == 0, ok.stderr
    # The admin's own Jobs are RBAC's business, not this policy's.
    ok = create(kubectl, variant("announce", "admins-own", give_token), dry_run=True)
    assert ok.returncode == 0, ok.stderr


def test_the_token_pod_passes_the_restricted_profile_where_incidents_run(
    kubectl: Callable[..., Any], policies: None
) -> None:
    manifest = planned_jobs("recall-incidents")["undo-rollout"]
    as_pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "api-step", "namespace": "recall-incidents"},
              "spec": pod(manifest)}
    proc = kubectl("create", "--dry-run=server", "-f", "-", input=json.dumps(as_pod))
    assert proc.returncode == 0, proc.stderr


def test_what_the_token_may_do_is_the_executors_role_in_its_own_namespace(
    kubectl: Callable[..., Any], namespace: str, policies: None
) -> None:
    executor = "system:serviceaccount:recall-incidents:recall-runbook-executor"

    def can(verb: str, resource: str, ns: str) -> bool:
        answer = kubectl("auth", "can-i", verb, resource, "-n", ns, as_user=executor).stdout.strip()
        assert answer in ("yes", "no"), answer
        return answer == "yes"

    for verb, resource in (("get", "deployments.apps"), ("patch", "deployments.apps"), ("list", "replicasets.apps")):
        assert can(verb, resource, "recall-incidents"), f"{verb} {resource}"
    for verb, resource, ns in (("patch", "deployments.apps", namespace), ("get", "secrets", "recall-incidents"),
                               ("delete", "deployments.apps", "recall-incidents"),
                               ("create", "pods", "recall-incidents"), ("patch", "deployments.apps", "recall-system"),
                               ("create", "jobs.batch", "recall-incidents")):
        assert not can(verb, resource, ns), f"{verb} {resource} in {ns}"


def test_zz_report(policies: None) -> None:
    print(f"\napi access: {len(REFUSED)} bad inputs refused: " + "; ".join(REFUSED))
    assert len(REFUSED) >= 16
