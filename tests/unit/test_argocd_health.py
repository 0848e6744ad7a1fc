"""The Argo CD health checks (argocd/*.lua) run by a real Lua 5.1 interpreter on objects in each state.

Argo CD runs health scripts with gopher-lua, a Lua 5.1: the tests use Debian's
lua5.1 (installed by scripts/system-deps.sh; a missing interpreter fails, it
never skips). Each object is handed to the script as the global `obj`, as
Argo CD does, converted from JSON to a Lua table literal; the script's
returned table is printed and compared. The states come from the operator's
own status vocabulary (conditions Triaged, AwaitingApproval, MemoryAvailable,
Resolved; execution states Running, Succeeded, Failed, RolledBack, Stopped).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ARGOCD = ROOT / "argocd"


def lua_binary() -> str:
    found = shutil.which("lua5.1")
    assert found, "lua5.1 is not installed: run scripts/system-deps.sh (Debian package lua5.1)"
    return found


def to_lua(value: Any) -> str:
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # JSON's escapes for these strings are Lua's too
    if isinstance(value, list):
        return "{" + ", ".join(to_lua(v) for v in value) + "}"
    return "{" + ", ".join(f"[{json.dumps(k)}] = {to_lua(v)}" for k, v in value.items() if v is not None) + "}"


def health(script: str, obj: dict[str, Any]) -> tuple[str, str]:
    program = (f"obj = {to_lua(obj)}\n"
               f"local hs = (function()\n{(ARGOCD / script).read_text()}\nend)()\n"
               "io.write(hs.status, '\\n', hs.message or '')\n")
    proc = subprocess.run([lua_binary(), "-"], input=program, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    status, _, message = proc.stdout.partition("\n")
    return status, message


def cond(type_: str, status: bool, reason: str, message: str) -> dict[str, Any]:
    return {"type": type_, "status": "True" if status else "False", "reason": reason, "message": message,
            "lastTransitionTime": "2026-01-01T00:00:00Z"}


def incident(status: dict[str, Any] | None, resolution: dict[str, Any] | None = None, generation: int = 1
             ) -> dict[str, Any]:
    spec: dict[str, Any] = {"service": "checkout-api", "title": "checkout 5xx"}
    if resolution:
        spec["resolution"] = resolution
    return {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident",
            "metadata": {"name": "inc-1", "namespace": "shop", "generation": generation},
            "spec": spec, "status": status}


TRIAGED = cond("Triaged", True, "Advisory", "advisory: similarity 71, actionability 40")
ACTIONABLE = cond("Triaged", True, "Actionable", "actionable: similarity 88")
PLAN_READY = cond("AwaitingApproval", True, "PlanReady", "an Approval naming planHash abc123 may run runbook r")
NOT_ACTIONABLE = cond("AwaitingApproval", False, "NotActionable", "mode advisory: nothing to approve")
RECALLED = cond("MemoryAvailable", True, "Recalled", "recalled 3 precedents from memory")
NO_MEMORY = cond("MemoryAvailable", False, "MemoryUnavailable", "memory could not be reached: timeout")
RESOLUTION = {"summary": "rolled back", "runbook": "k8s-rollback-deploy", "confirmedBy": "ana"}


def triaged(*conds: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"observedGeneration": 1, "conditions": list(conds), **extra}


INCIDENT_CASES = [
    ("new", incident(None), "Progressing", "waiting for the operator to triage"),
    ("spec changed", incident(triaged(TRIAGED, NOT_ACTIONABLE, RECALLED), generation=2), "Progressing",
     "the spec changed"),
    ("advisory", incident(triaged(TRIAGED, NOT_ACTIONABLE, RECALLED)), "Healthy", "advisory: similarity 71"),
    ("invalid spec", incident(triaged(cond("Triaged", False, "InvalidSpec", "spec.severity is not a severity"))),
     "Degraded", "spec.severity is not a severity"),
    ("triaged without memory", incident(triaged(TRIAGED, NOT_ACTIONABLE, NO_MEMORY)), "Degraded",
     "memory could not be reached"),
    ("plan ready", incident(triaged(ACTIONABLE, PLAN_READY, RECALLED)), "Suspended", "planHash abc123"),
    ("waiting for an approval", incident(triaged(ACTIONABLE, PLAN_READY, RECALLED, execution={
        "state": "Running", "reason": "waiting for an Approval of this planHash"})), "Suspended",
     "waiting for an Approval"),
    ("step running", incident(triaged(ACTIONABLE, PLAN_READY, RECALLED, execution={
        "state": "Running", "reason": "step 1/2 restart running"})), "Progressing", "step 1/2 restart running"),
    ("plan failed", incident(triaged(ACTIONABLE, PLAN_READY, RECALLED, execution={
        "state": "Failed", "reason": "step restart failed; no rollback"})), "Degraded", "execution Failed"),
    ("rolled back", incident(triaged(ACTIONABLE, PLAN_READY, RECALLED, execution={
        "state": "RolledBack", "reason": "step 2 failed; rolled back"})), "Degraded", "execution RolledBack"),
    ("stopped", incident(triaged(ACTIONABLE, PLAN_READY, RECALLED, execution={
        "state": "Stopped", "reason": "rejected by bob"})), "Suspended", "rejected by bob"),
    ("plan ran", incident(triaged(ACTIONABLE, PLAN_READY, RECALLED, execution={
        "state": "Succeeded", "reason": "2 steps succeeded"})), "Healthy", "2 steps succeeded"),
    ("resolution on its way", incident(triaged(TRIAGED, RECALLED), resolution=RESOLUTION), "Progressing",
     "being written into memory"),
    ("outcome in the outbox", incident(triaged(TRIAGED, cond("MemoryAvailable", False, "MemoryUnavailable",
                                                             "outcome waits in the outbox: 503"),
                                               cond("Resolved", False, "OutboxPending", "retried")),
                                       resolution=RESOLUTION), "Degraded", "outcome waits in the outbox"),
    ("name taken in memory", incident(triaged(TRIAGED, RECALLED, cond(
        "Resolved", False, "NameTaken", "memory already holds another incident named inc-1")),
        resolution=RESOLUTION), "Degraded", "another incident named inc-1"),
    ("memory refused the outcome", incident(triaged(TRIAGED, RECALLED, cond(
        "Resolved", False, "MemoryRefused", "memory refused it: hindsight at h: HTTP 422")),
        resolution=RESOLUTION), "Degraded", "HTTP 422"),
    ("resolved while the operator's run goes on", incident(triaged(TRIAGED, RECALLED, cond(
        "Resolved", False, "RunInProgress", "outcome recorded; written into memory when the operator's run ends")),
        resolution=RESOLUTION), "Progressing", "when the operator's run ends"),
    ("resolved", incident(triaged(TRIAGED, RECALLED, cond("Resolved", True, "Consolidated",
                                                          "outcome written into memory")),
                          resolution=RESOLUTION), "Healthy", "outcome written into memory"),
]


@pytest.mark.parametrize(("case", "obj", "status", "message"), INCIDENT_CASES, ids=[c[0] for c in INCIDENT_CASES])
def test_incident_health(case: str, obj: dict[str, Any], status: str, message: str) -> None:
    got_status, got_message = health("health-incident.lua", obj)
    assert (got_status, message in got_message) == (status, True), (case, got_status, got_message)


def runbook(status: dict[str, Any] | None, generation: int = 1) -> dict[str, Any]:
    return {"apiVersion": "recall.dev/v1alpha1", "kind": "Runbook",
            "metadata": {"name": "k8s-rollback-deploy", "generation": generation},
            "spec": {"title": "roll back", "steps": [{"name": "undo", "image": "kubectl", "command": ["true"]}]},
            "status": status}


RUNBOOK_CASES = [
    ("never run", runbook(None), "Healthy", "no confirmed outcome yet"),
    ("last run succeeded", runbook({"timesExecuted": 3, "timesSucceeded": 2, "winRate": 0.6,
                                    "lastOutcome": {"result": "succeeded", "incident": "shop/inc-9"}}),
     "Healthy", "3 run(s), 2 succeeded"),
    ("last run failed", runbook({"timesExecuted": 3, "timesSucceeded": 2, "timesFailed": 1,
                                 "lastOutcome": {"result": "failed", "incident": "shop/inc-10"}}),
     "Degraded", "the last confirmed run failed (incident shop/inc-10)"),
    ("spec changed", runbook({"observedGeneration": 1}, generation=2), "Progressing", "the spec changed"),
    ("not usable", runbook({"observedGeneration": 1, "conditions": [cond("Ready", False, "Invalid",
                                                                         "step undo has no image")]}),
     "Degraded", "step undo has no image"),
    # The operator's own verdict on the spec (handlers/catalog.py).
    ("not accepted", runbook({"observedGeneration": 1, "conditions": [cond(
        "Accepted", False, "InvalidParameters", "parameter 'replicas' is not a name a command can use")]}),
     "Degraded", "parameter 'replicas'"),
    ("accepted", runbook({"observedGeneration": 1, "conditions": [cond("Accepted", True, "Valid", "1 step(s)")]}),
     "Healthy", "no confirmed outcome yet"),
]


@pytest.mark.parametrize(("case", "obj", "status", "message"), RUNBOOK_CASES, ids=[c[0] for c in RUNBOOK_CASES])
def test_runbook_health(case: str, obj: dict[str, Any], status: str, message: str) -> None:
    got_status, got_message = health("health-runbook.lua", obj)
    assert (got_status, message in got_message) == (status, True), (case, got_status, got_message)


def test_every_argo_health_status_is_reached() -> None:
    reached = {health("health-incident.lua", c[1])[0] for c in INCIDENT_CASES}
    assert reached == {"Healthy", "Progressing", "Degraded", "Suspended"}


def test_the_argocd_cm_patch_carries_the_scripts_verbatim() -> None:
    data = yaml.safe_load((ARGOCD / "argocd-cm-patch.yaml").read_text())["data"]
    assert data == {
        "resource.customizations.health.recall.dev_Incident": (ARGOCD / "health-incident.lua").read_text(),
        "resource.customizations.health.recall.dev_Runbook": (ARGOCD / "health-runbook.lua").read_text(),
    }


def test_a_broken_script_fails_the_harness(tmp_path: Path) -> None:
    # The harness reports a Lua error rather than reading it as a status.
    proc = subprocess.run([lua_binary(), "-"], input="obj = {}\nlocal x = obj.status.conditions\n",
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode != 0 and "attempt to index" in proc.stderr
