"""Job manifests for runbook steps: pure builders, no client, no clock.

A Job's name is a function of (incident, phase, step, attempt) only, so an
operator that restarts finds the Job it already made (a create answers 409)
instead of running the step twice. Commands go to the container exactly as
the Runbook wrote them: no shell wraps them, and `$(NAME)` references are
expanded by Kubernetes from the container's env, so a parameter value can
never become shell syntax.

No pod gets the ServiceAccount token Kubernetes would mount by itself. A step
whose Runbook declares `apiAccess: true` gets a projected token instead: short
lived, for the API server's own audience, read-only, where client tools look
for it; what it allows is the executor account's RBAC. The admission policy
recall-operator-jobs refuses any other volume, and this one for a step that
did not declare it.

What a step's dry-run ran is what its run and rollback run: a step image
named by tag is pinned to the digest the kubelet reported for the dry-run's
pod (`dry_run_digest`, `pinned_image`), so a tag moved between the dry-run and
the approval does not run code nobody has seen run. The admission policy
recall-operator-job-runbook accepts a Runbook's image with a digest appended.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from recall_operator.api import API_VERSION

PHASES = ("dryrun", "run", "rollback")

LABEL_INCIDENT = "recall.dev/incident"
LABEL_PHASE = "recall.dev/phase"
LABEL_STEP = "recall.dev/step"
LABEL_ATTEMPT = "recall.dev/attempt"
LABEL_PLAN_HASH = "recall.dev/plan-hash"
LABEL_SIMULATE = "recall.dev/simulate"
# The Runbook a step comes from, by its exact name (the admission policy checks the image against it).
ANN_RUNBOOK = "recall.dev/runbook"
# The Approvals a run's Jobs were made under: a later run may not use them again.
ANN_APPROVALS = "recall.dev/approvals"
# The incident's and the step's exact names (their labels are cut and folded to label values).
ANN_INCIDENT_NAME = "recall.dev/incident-name"
ANN_STEP_NAME = "recall.dev/step-name"

DEFAULT_SERVICE_ACCOUNT = "recall-runbook-executor"
# A step may overrun its estimate; the deadline is there to stop a hung step,
# not a slow one, so it is generous and never shorter than a minute.
DEADLINE_MARGIN = 3
MIN_DEADLINE_SECONDS = 60
RUNNER_UID = 65532  # the conventional "nonroot" user of distroless images

# The projected API credentials of a step with apiAccess. The path is where
# kubectl and the client libraries look in a pod; the name, path and expiry are
# what the admission policy recall-operator-jobs accepts, so change them there too.
API_TOKEN_VOLUME = "kube-api-access"
API_TOKEN_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
# The shortest expiry Kubernetes allows; the kubelet renews the file before it
# runs out, so a long step keeps working while a leaked token soon does not.
API_TOKEN_EXPIRY_SECONDS = 600

CONTAINER = "step"
# A content digest as the kubelet reports it after a repository (`...@sha256:<64 hex>`).
_DIGEST = re.compile(r"@(sha256:[0-9a-f]{64})$")

_NAME_MAX = 63  # Job names become the pods' `job-name` label value: a label is at most 63 characters
_HASH_LEN = 8
_LABEL_VALUE_MAX = 63
_NOT_DNS = re.compile(r"[^a-z0-9-]+")


def job_name(incident_name: str, phase: str, step_name: str, attempt: int) -> str:
    """`<incident>-<phase>-<step>-<attempt>`, or a shortened form with a hash suffix when longer than 63.

    The hash covers the full tuple, so two long names that share a prefix still differ.
    """
    if phase not in PHASES:
        raise ValueError(f"phase must be one of {PHASES}, not {phase!r}")
    full = f"{incident_name}-{phase}-{step_name}-{attempt}"
    if len(full) <= _NAME_MAX:
        return full
    digest = hashlib.sha256(f"{incident_name}\0{phase}\0{step_name}\0{attempt}".encode()).hexdigest()[:_HASH_LEN]
    # Keep the phase, attempt and hash whole; shorten the incident and step names.
    tail = f"-{phase}-{attempt}-{digest}"
    room = _NAME_MAX - len(tail)
    inc_room = max(1, room // 2)
    step_room = room - inc_room - 1
    head = f"{incident_name[:inc_room].rstrip('-.')}-{step_name[:step_room].rstrip('-.')}".strip("-")
    return f"{head}{tail}"[:_NAME_MAX]


def incident_selector(incident_name: str) -> str:
    """The label selector of an incident's Jobs: the label value exactly as job_manifest writes it.

    An Incident name may hold dots or run past 63 characters; the label cannot,
    so the selector must be built by the same sanitising, or it finds nothing
    (a dot) or is refused (too long).
    """
    return f"{LABEL_INCIDENT}={_label_value(incident_name)}"


def _label_value(value: str) -> str:
    """A label value (at most 63 characters, alphanumeric ends); long values keep a hash suffix."""
    value = _NOT_DNS.sub("-", value.lower()).strip("-")
    if len(value) <= _LABEL_VALUE_MAX:
        return value
    digest = hashlib.sha256(value.encode()).hexdigest()[:_HASH_LEN]
    return f"{value[: _LABEL_VALUE_MAX - _HASH_LEN - 1].rstrip('-')}-{digest}"


def active_deadline_seconds(estimated_seconds: int | None, timeout_seconds: int | None = None) -> int:
    """The Runbook's own timeout when it gives one, else the estimate times a margin (at least a minute)."""
    if timeout_seconds:
        return int(timeout_seconds)
    estimate = int(estimated_seconds or MIN_DEADLINE_SECONDS)
    return max(MIN_DEADLINE_SECONDS, int(math.ceil(estimate * DEADLINE_MARGIN)))


def api_token_volume() -> dict[str, Any]:
    """The projected volume of a step that calls the API: token, cluster CA and namespace, as a pod would get them.

    No audience: the token is for the API server's default audience and for
    nothing else. The namespace file makes kubectl act in the Job's own
    namespace unless a command names another (which the executor's RBAC then decides).
    """
    return {
        "name": API_TOKEN_VOLUME,
        "projected": {
            "sources": [
                {"serviceAccountToken": {"path": "token", "expirationSeconds": API_TOKEN_EXPIRY_SECONDS}},
                {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                {"downwardAPI": {"items": [
                    {"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}
                ]}},
            ],
        },
    }


def api_token_mount() -> dict[str, Any]:
    return {"name": API_TOKEN_VOLUME, "mountPath": API_TOKEN_PATH, "readOnly": True}


def command_for(step: Mapping[str, Any], phase: str) -> list[str]:
    key = {"dryrun": "dryRunCommand", "run": "command", "rollback": "rollbackCommand"}[phase]
    return [str(a) for a in (step.get(key) or [])]


def job_manifest(
    incident_name: str,
    namespace: str,
    uid: str,
    step: Mapping[str, Any],
    phase: str,
    attempt: int,
    parameters: Mapping[str, str],
    service_account: str = DEFAULT_SERVICE_ACCOUNT,
    fail_label: str | None = None,
    plan_hash: str | None = None,
    runbook: str | None = None,
    approvals: Sequence[str | None] = (),
    image: str | None = None,
) -> dict[str, Any]:
    """The Job that runs one phase of one step; `step` is a step as in status.recommendation.steps.

    `image`, when given, is the step's image pinned to what its dry-run ran (`pinned_image`).

    `runbook` names the Runbook the step comes from (the admission policy
    checks the image against it); `approvals` are the Approvals a run or
    rollback Job is made under.

    `fail_label` ("fail") marks the pod for the test cluster's simulated failure; the
    handler only passes it when simulated failures are explicitly allowed.
    """
    command = command_for(step, phase)
    if not command:
        raise ValueError(f"step {step.get('name')!r} has no {phase} command")
    name = job_name(incident_name, phase, str(step["name"]), attempt)
    labels = {
        LABEL_INCIDENT: _label_value(incident_name),
        LABEL_PHASE: phase,
        LABEL_STEP: _label_value(str(step["name"])),
        LABEL_ATTEMPT: str(attempt),
        LABEL_PLAN_HASH: _label_value(str(plan_hash or step.get("planHash") or "none")),
    }
    pod_labels = dict(labels)
    if fail_label:
        pod_labels[LABEL_SIMULATE] = fail_label
    # Only steps whose Runbook says they call the API get a token; a read-only
    # echo or a step that talks to its own service needs no cluster credentials.
    api_access = step.get("apiAccess") is True
    container: dict[str, Any] = {
        "name": CONTAINER,
        "image": image or str(step["image"]),
        "command": command,
        "env": [{"name": k, "value": str(v)} for k, v in sorted(parameters.items())],
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": RUNNER_UID,
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "capabilities": {"drop": ["ALL"]},
            "seccompProfile": {"type": "RuntimeDefault"},
        },
    }
    pod_spec: dict[str, Any] = {
        "restartPolicy": "Never",
        "serviceAccountName": service_account,
        # Never the automatic token (long-lived where legacy tokens remain, and
        # mounted whatever the step): a step with apiAccess gets the projected one.
        "automountServiceAccountToken": False,
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": RUNNER_UID,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "containers": [container],
    }
    if api_access:
        container["volumeMounts"] = [api_token_mount()]
        pod_spec["volumes"] = [api_token_volume()]
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": labels,
            "annotations": {
                ANN_INCIDENT_NAME: incident_name,
                ANN_STEP_NAME: str(step["name"]),
                **({ANN_RUNBOOK: runbook} if runbook else {}),
                **({ANN_APPROVALS: ",".join(a for a in approvals if a)} if any(approvals) else {}),
            },
            "ownerReferences": [
                {
                    "apiVersion": API_VERSION,
                    "kind": "Incident",
                    "name": incident_name,
                    "uid": uid,
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {
            "backoffLimit": int(step.get("backoffLimit") or 0),
            "activeDeadlineSeconds": active_deadline_seconds(step.get("estimatedSeconds"), step.get("timeoutSeconds")),
            # No ttlSecondsAfterFinished: finished Jobs are the audit trail and the
            # restart-safety record; they go when the Incident goes (ownerReference).
            "template": {"metadata": {"labels": pod_labels}, "spec": pod_spec},
        },
    }


def made_for_an_incident(job: Mapping[str, Any], incident_uid: str | None = None) -> bool:
    """Whether a Job is shaped like one the operator made: a phase of ours, controlled by an Incident
    (that one, when its uid is given).

    Anyone who may create Jobs may copy the labels; a label value then must not
    become a metric's label (unbounded series), nor a Job show under a plan's
    step. Whoever can create Jobs there can also copy an owner reference: this
    keeps counts bounded and the panel's steps to their Incident's own Jobs, and
    says nothing more.
    """
    meta = job.get("metadata") or {}
    if (meta.get("labels") or {}).get(LABEL_PHASE) not in PHASES:
        return False
    return any(o.get("controller") is True and o.get("kind") == "Incident" and o.get("apiVersion") == API_VERSION
               and (incident_uid is None or o.get("uid") == incident_uid)
               for o in meta.get("ownerReferences") or [] if isinstance(o, Mapping))


def steps_made(jobs: Iterable[Mapping[str, Any]], attempt: int) -> dict[str, list[str]]:
    """The exact step names this attempt made a Job for, by phase, in the order given."""
    made: dict[str, list[str]] = {phase: [] for phase in PHASES}
    for job in jobs:
        meta = job.get("metadata") or {}
        labels = meta.get("labels") or {}
        step = (meta.get("annotations") or {}).get(ANN_STEP_NAME)
        phase = labels.get(LABEL_PHASE)
        if labels.get(LABEL_ATTEMPT) == str(attempt) and phase in made and step and step not in made[phase]:
            made[phase].append(str(step))
    return made


def dry_run_digest(pods: Iterable[Mapping[str, Any]], job_uid: str) -> tuple[str | None, str]:
    """The digest of the image a dry-run Job's pod ran to success, or None and why it is not known.

    Only pods that Job controls count: anyone who may create pods can copy its `job-name` label.

    The kubelet writes `imageID` from what the runtime pulled: after a
    registry's repository comes the digest the tag pointed to then (for an
    image of several platforms, the index's, which every node resolves alike).
    An image the runtime did not get from a registry has no such digest.
    """
    ran = [p for p in pods if (p.get("status") or {}).get("phase") == "Succeeded" and any(
        o.get("controller") is True and o.get("kind") == "Job" and o.get("uid") == job_uid
        for o in (p.get("metadata") or {}).get("ownerReferences") or [] if isinstance(o, Mapping))]
    if not ran:
        return None, "the dry-run's pod is gone, so what image it ran is not known"
    image_ids = sorted({next((str(c.get("imageID") or "") for c in (p.get("status") or {}).get("containerStatuses") or []
                              if c.get("name") == CONTAINER), "") for p in ran})
    # A Job of one completion succeeds in one pod; a second one claiming it (its owner
    # reference copied) with another image makes what the dry-run ran unknown.
    if len(image_ids) > 1:
        return None, f"pods claiming the dry-run Job ran different images ({', '.join(i or 'empty' for i in image_ids)})"
    found = _DIGEST.search(image_ids[0])
    if found is None:
        return None, f"the dry-run's pod reported no registry digest (imageID {image_ids[0] or 'empty'})"
    return found.group(1), ""


def pinned_image(image: str, digest: str) -> str:
    """The step's image as its Runbook names it, pinned to `digest`; one already pinned stays as written."""
    return image if "@" in image else f"{image}@{digest}"


def job_state(job: Mapping[str, Any]) -> str:
    """running | succeeded | failed, from a Job's status conditions (Complete / Failed are terminal)."""
    status = job.get("status") or {}
    for cond in status.get("conditions") or []:
        if cond.get("status") != "True":
            continue
        if cond.get("type") == "Complete":
            return "succeeded"
        if cond.get("type") == "Failed":
            return "failed"
    return "running"


def approvals_of(job: Mapping[str, Any]) -> list[str]:
    """The Approvals a Job was made under (none for a dry-run)."""
    raw = ((job.get("metadata") or {}).get("annotations") or {}).get(ANN_APPROVALS) or ""
    return [a for a in str(raw).split(",") if a]
