"""The Job manifests a step runs as: names, labels, ownership, security, no shell."""

from __future__ import annotations

import re

import pytest

from recall_operator.kube import jobs

STEP = {
    "name": "flush-hot-keys",
    "title": "flush hot keys",
    "image": "registry.example/redis-tools:7",
    "command": ["redis-cli", "-h", "$(SERVICE)", "--scan", "--pattern", "hot:*"],
    "dryRunCommand": ["redis-cli", "-h", "$(SERVICE)", "info"],
    "rollbackCommand": ["redis-cli", "-h", "$(SERVICE)", "config", "rewrite"],
    "risk": "medium",
    "blastRadius": "one redis shard",
    "estimatedSeconds": 30,
    "backoffLimit": 2,
}
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def manifest(**kw):
    args = dict(incident_name="inc-42", namespace="prod", uid="u-1", step=STEP, phase="run", attempt=1,
                parameters={"SERVICE": "cart", "SEVERITY": "high"}, plan_hash="0123456789abcdef")
    args.update(kw)
    return jobs.job_manifest(**args)


def pod(m):
    return m["spec"]["template"]["spec"]


def container(m):
    return pod(m)["containers"][0]


def test_name_is_deterministic_and_distinct_per_phase_step_attempt():
    assert manifest()["metadata"]["name"] == manifest()["metadata"]["name"] == "inc-42-run-flush-hot-keys-1"
    names = {jobs.job_name("inc-42", p, s, a) for p in jobs.PHASES for s in ("a", "b") for a in (1, 2)}
    assert len(names) == 12


@pytest.mark.parametrize("incident,step", [("i" * 63, "s" * 63), ("inc-" + "x" * 240, "step"), ("a", "b" * 63)])
def test_long_names_fit_63_chars_and_stay_distinct(incident, step):
    names = [jobs.job_name(incident, p, step, a) for p in jobs.PHASES for a in (1, 2, 10)]
    assert all(len(n) <= 63 and DNS_LABEL.match(n) for n in names), names
    assert len(set(names)) == len(names)
    assert jobs.job_name(incident, "run", step, 1) != jobs.job_name(incident, "run", step + "x", 1)


def test_unknown_phase_is_refused():
    with pytest.raises(ValueError):
        jobs.job_name("inc", "apply", "s", 1)


def test_labels_and_owner_reference():
    m = manifest(phase="rollback", attempt=3)
    labels = m["metadata"]["labels"]
    assert labels[jobs.LABEL_INCIDENT] == "inc-42"
    assert labels[jobs.LABEL_PHASE] == "rollback"
    assert labels[jobs.LABEL_STEP] == "flush-hot-keys"
    assert labels[jobs.LABEL_PLAN_HASH] == "0123456789abcdef"
    assert labels[jobs.LABEL_ATTEMPT] == "3"
    assert m["spec"]["template"]["metadata"]["labels"][jobs.LABEL_INCIDENT] == "inc-42"
    (owner,) = m["metadata"]["ownerReferences"]
    assert owner == {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "name": "inc-42", "uid": "u-1",
                     "controller": True, "blockOwnerDeletion": True}
    assert m["metadata"]["namespace"] == "prod"


@pytest.mark.parametrize("phase,key", [("run", "command"), ("dryrun", "dryRunCommand"), ("rollback", "rollbackCommand")])
def test_command_is_the_steps_own_list_without_a_shell(phase, key):
    c = container(manifest(phase=phase))
    assert c["command"] == STEP[key]
    assert c["command"][0] not in ("sh", "bash", "/bin/sh", "/bin/bash")
    assert "args" not in c


def test_a_phase_without_a_command_is_refused():
    with pytest.raises(ValueError):
        manifest(step={**STEP, "rollbackCommand": []}, phase="rollback")


def test_parameters_are_env_for_kubernetes_to_expand():
    assert container(manifest())["env"] == [{"name": "SERVICE", "value": "cart"}, {"name": "SEVERITY", "value": "high"}]


def test_restricted_pod_security():
    m = manifest()
    sc = container(m)["securityContext"]
    assert sc["runAsNonRoot"] is True and sc["runAsUser"] == 65532
    assert sc["allowPrivilegeEscalation"] is False
    assert sc["capabilities"] == {"drop": ["ALL"]}
    assert sc["seccompProfile"] == {"type": "RuntimeDefault"}
    assert sc["readOnlyRootFilesystem"] is True
    assert pod(m)["securityContext"]["runAsNonRoot"] is True


def test_no_retries_beyond_the_step_deadline_and_kept_for_audit():
    m = manifest()
    assert pod(m)["restartPolicy"] == "Never"
    assert m["spec"]["backoffLimit"] == 2
    assert manifest(step={**STEP, "backoffLimit": 0})["spec"]["backoffLimit"] == 0
    assert m["spec"]["activeDeadlineSeconds"] == 30 * jobs.DEADLINE_MARGIN
    assert "ttlSecondsAfterFinished" not in m["spec"]


def test_deadline_floor_and_explicit_timeout():
    assert jobs.active_deadline_seconds(5) == jobs.MIN_DEADLINE_SECONDS
    assert jobs.active_deadline_seconds(600) == 600 * jobs.DEADLINE_MARGIN
    assert jobs.active_deadline_seconds(30, timeout_seconds=45) == 45
    assert manifest(step={**STEP, "timeoutSeconds": 45})["spec"]["activeDeadlineSeconds"] == 45


def test_service_account_and_no_token_for_a_step_without_api_access():
    m = manifest()
    assert pod(m)["serviceAccountName"] == "recall-runbook-executor"
    assert pod(m)["automountServiceAccountToken"] is False
    assert "volumes" not in pod(m) and "volumeMounts" not in container(m)
    assert pod(manifest(service_account="other"))["serviceAccountName"] == "other"


@pytest.mark.parametrize("phase", jobs.PHASES)
def test_a_step_with_api_access_gets_a_projected_short_lived_token(phase):
    m = manifest(step={**STEP, "apiAccess": True}, phase=phase)
    # Still no automatic token: the projected one is the only credential.
    assert pod(m)["automountServiceAccountToken"] is False
    (volume,) = pod(m)["volumes"]
    assert volume["name"] == jobs.API_TOKEN_VOLUME
    sources = volume["projected"]["sources"]
    (token,) = [s["serviceAccountToken"] for s in sources if "serviceAccountToken" in s]
    assert token == {"path": "token", "expirationSeconds": 600}  # no audience: the API server's own
    (ca,) = [s["configMap"] for s in sources if "configMap" in s]
    assert ca == {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}
    (downward,) = [s["downwardAPI"] for s in sources if "downwardAPI" in s]
    assert downward["items"] == [{"path": "namespace",
                                  "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]
    assert len(sources) == 3
    assert container(m)["volumeMounts"] == [{"name": jobs.API_TOKEN_VOLUME, "readOnly": True,
                                             "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}]


@pytest.mark.parametrize("value", [False, None, "true", 1])
def test_only_a_literal_true_grants_api_access(value):
    m = manifest(step={**STEP, "apiAccess": value})
    assert "volumes" not in pod(m) and "volumeMounts" not in container(m)
    assert pod(m)["automountServiceAccountToken"] is False


def test_the_token_is_the_only_difference_api_access_makes():
    plain, api = manifest(), manifest(step={**STEP, "apiAccess": True})
    api_pod = dict(pod(api))
    api_pod.pop("volumes")
    api_container = dict(container(api))
    api_container.pop("volumeMounts")
    assert api_container == container(plain)
    assert {k: v for k, v in api_pod.items() if k != "containers"} == {
        k: v for k, v in pod(plain).items() if k != "containers"}
    assert api["metadata"] == plain["metadata"]


def test_a_planned_step_reaches_the_job_with_its_timeout_and_api_access():
    from recall_operator.domain.models import IncidentSpec, Runbook, RunbookSpec
    from recall_operator.domain.plan import build_plan

    runbook = Runbook(name="rb", spec=RunbookSpec.model_validate({"title": "t", "steps": [
        {"name": "undo", "image": "kubectl:1", "command": ["kubectl", "rollout", "undo", "deployment/$(SERVICE)"],
         "timeoutSeconds": 240, "estimatedSeconds": 30, "apiAccess": True},
        {"name": "echo", "image": "busybox:1", "command": ["echo", "done"]},
    ]}))
    plan = build_plan(IncidentSpec(service="cart", title="down"), runbook)
    undo, echo = (manifest(step=s.as_status(), parameters=plan.parameters) for s in plan.steps)
    assert undo["spec"]["activeDeadlineSeconds"] == 240
    assert pod(undo)["volumes"][0]["name"] == jobs.API_TOKEN_VOLUME
    assert echo["spec"]["activeDeadlineSeconds"] == 60 * jobs.DEADLINE_MARGIN  # the default estimate, times the margin
    assert "volumes" not in pod(echo)


def test_fail_label_only_when_asked():
    assert jobs.LABEL_SIMULATE not in manifest()["spec"]["template"]["metadata"]["labels"]
    assert manifest(fail_label="fail")["spec"]["template"]["metadata"]["labels"][jobs.LABEL_SIMULATE] == "fail"


@pytest.mark.parametrize(
    "status,state",
    [
        ({}, "running"),
        ({"active": 1}, "running"),
        ({"conditions": [{"type": "SuccessCriteriaMet", "status": "True"}, {"type": "Complete", "status": "True"}]}, "succeeded"),
        ({"conditions": [{"type": "FailureTarget", "status": "True"}]}, "running"),
        ({"conditions": [{"type": "Failed", "status": "True"}]}, "failed"),
        ({"conditions": [{"type": "Complete", "status": "False"}]}, "running"),
    ],
)
def test_job_state(status, state):
    assert jobs.job_state({"status": status}) == state


def test_the_steps_an_attempt_made_jobs_for_come_from_its_own_jobs_by_exact_name() -> None:
    def made(step: str, phase: str, attempt: int) -> dict:
        return jobs.job_manifest("inc.1", "ns", "uid-1", {"name": step, "image": "x:1", "command": ["a"],
                                                     "rollbackCommand": ["b"], "dryRunCommand": ["c"]},
                            phase, attempt, {})

    found = [made("Flush.Keys", "run", 2), made("restart", "run", 2), made("Flush.Keys", "rollback", 2),
            made("old-step", "run", 1), made("restart", "dryrun", 2),
            {"metadata": {"labels": {"recall.dev/attempt": "2", "recall.dev/phase": "run"}}}]  # no step named
    assert jobs.steps_made(found, 2) == {"dryrun": ["restart"], "run": ["Flush.Keys", "restart"], "rollback": ["Flush.Keys"]}
    assert jobs.steps_made(found, 3) == {"dryrun": [], "run": [], "rollback": []}


DIGEST = "sha256:" + "0123456789abcdef" * 4
JOB_UID = "job-uid-1"


def _pod(phase: str, image_id: str | None, created: str = "2026-12-05T10:00:00Z", owner: str | None = JOB_UID,
         controller: bool = True, container: str = jobs.CONTAINER) -> dict:
    status: dict = {"phase": phase}
    if image_id is not None:
        status["containerStatuses"] = [{"name": container, "image": "busybox:1.36", "imageID": image_id}]
    refs = [{"kind": "Job", "name": "j", "uid": owner, "controller": controller}] if owner else []
    return {"metadata": {"name": f"p-{created}", "creationTimestamp": created, "ownerReferences": refs},
            "status": status}


@pytest.mark.parametrize(
    ("pods", "digest", "why"),
    [
        # containerd names the repository, the docker runtime prefixes its scheme: the digest is after the @.
        ([_pod("Succeeded", f"registry.example/library/busybox@{DIGEST}")], DIGEST, ""),
        ([_pod("Succeeded", f"docker-pullable://busybox@{DIGEST}")], DIGEST, ""),
        # The pod that succeeded, not a retry that failed before it (or one still running).
        ([_pod("Failed", "registry.example/library/busybox@sha256:" + "f" * 64, "2026-12-05T09:00:00Z"),
          _pod("Succeeded", f"busybox@{DIGEST}", "2026-12-05T09:30:00Z")], DIGEST, ""),
        # Two succeeded pods claiming the Job (an owner reference can be copied): the same image is that image,
        # different ones leave what the dry-run ran unknown, whichever is newer.
        ([_pod("Succeeded", f"busybox@{DIGEST}", "2026-12-05T09:00:00Z"),
          _pod("Succeeded", f"busybox@{DIGEST}", "2026-12-05T09:30:00Z")], DIGEST, ""),
        ([_pod("Succeeded", f"busybox@{DIGEST}", "2026-12-05T09:00:00Z"),
          _pod("Succeeded", "evil@sha256:" + "e" * 64, "2026-12-05T09:30:00Z")], None,
         "pods claiming the dry-run Job ran different images"),
        ([], None, "the dry-run's pod is gone"),
        ([_pod("Failed", f"busybox@{DIGEST}")], None, "the dry-run's pod is gone"),
        # An image the runtime did not pull from a registry has only its local id.
        ([_pod("Succeeded", DIGEST)], None, f"reported no registry digest (imageID {DIGEST})"),
        ([_pod("Succeeded", "")], None, "reported no registry digest (imageID empty)"),
        ([_pod("Succeeded", None)], None, "reported no registry digest (imageID empty)"),
        ([_pod("Succeeded", f"busybox@{DIGEST}", container="sidecar")], None, "no registry digest"),
        ([_pod("Succeeded", "busybox@sha256:abcd")], None, "no registry digest"),
        # A pod someone else made with the Job's job-name label is not the Job's pod.
        ([_pod("Succeeded", f"evil@{DIGEST}", owner="someone-elses")], None, "the dry-run's pod is gone"),
        ([_pod("Succeeded", f"evil@{DIGEST}", controller=False)], None, "the dry-run's pod is gone"),
        ([_pod("Succeeded", f"evil@{DIGEST}", owner=None)], None, "the dry-run's pod is gone"),
    ],
)
def test_the_digest_a_dry_run_ran_is_read_from_its_own_succeeded_pod(pods, digest, why) -> None:
    found, reason = jobs.dry_run_digest(pods, JOB_UID)
    assert found == digest
    assert why in reason and (reason == "") == (digest is not None)


def test_an_image_is_pinned_once_and_the_job_runs_the_pinned_one() -> None:
    assert jobs.pinned_image("busybox:1.36", DIGEST) == f"busybox:1.36@{DIGEST}"
    assert jobs.pinned_image("registry.example:5000/tools/kubectl", DIGEST) == f"registry.example:5000/tools/kubectl@{DIGEST}"
    already = "busybox@sha256:" + "9" * 64
    assert jobs.pinned_image(already, DIGEST) == already
    step = {"name": "restart", "image": "busybox:1.36", "command": ["true"]}
    plain = jobs.job_manifest("inc", "ns", "uid", step, "run", 1, {})
    pinned = jobs.job_manifest("inc", "ns", "uid", step, "run", 1, {}, image=jobs.pinned_image("busybox:1.36", DIGEST))
    assert plain["spec"]["template"]["spec"]["containers"][0]["image"] == "busybox:1.36"
    assert pinned["spec"]["template"]["spec"]["containers"][0]["image"] == f"busybox:1.36@{DIGEST}"
    assert pinned["spec"]["template"]["spec"]["containers"][0]["name"] == jobs.CONTAINER
