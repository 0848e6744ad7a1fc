"""What the e2e tests share: the cart Runbook, a kubectl wrapper for one namespace, the execution-only operator,
the installed `kubectl recall`.

tests/e2e is on sys.path (pytest's rootdir-relative import of this folder), so ``from kit import ...``.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import kopf
import pytest
from kopf.testing import KopfRunner

from recall_operator.domain.execution import seal
from recall_operator.domain.models import IncidentSpec, Runbook, RunbookSpec
from recall_operator.domain.plan import build_plan
from recall_operator.handlers import configure_settings
from recall_operator.handlers import execution as execution_handlers
from recall_operator.kube import jobs as jobkit

GROUP_VERSION = "recall.dev/v1alpha1"
# The operators these tests start seal recommendations with this key (RECALL_STATUS_KEY,
# set by conftest), so a recommendation the test writes counts as the operator's own:
# the test stands in for triage. An unsealed one runs nothing.
STATUS_KEY = "recall-e2e-trusted-writer"

CART_STEPS: list[dict[str, Any]] = [
    {"name": "snapshot", "image": "redis-tools:7", "command": ["redis-cli", "-h", "$(SERVICE)", "bgsave"],
     "dryRunCommand": ["redis-cli", "-h", "$(SERVICE)", "info", "persistence"],
     "rollbackCommand": ["redis-cli", "-h", "$(SERVICE)", "del", "snapshot-marker"], "estimatedSeconds": 10},
    {"name": "announce", "image": "notify:1", "command": ["notify", "--service", "$(SERVICE)"],
     "estimatedSeconds": 5},
    {"name": "flush-hot-keys", "image": "redis-tools:7",
     "command": ["redis-cli", "-h", "$(SERVICE)", "flushhot"],
     "dryRunCommand": ["redis-cli", "-h", "$(SERVICE)", "--hotkeys"],
     "rollbackCommand": ["redis-cli", "-h", "$(SERVICE)", "restore"], "estimatedSeconds": 10},
    {"name": "restart-cart", "image": "kubectl:1.36",
     "command": ["kubectl", "rollout", "restart", "deployment/$(SERVICE)"],
     "dryRunCommand": ["kubectl", "rollout", "status", "deployment/$(SERVICE)"],
     "rollbackCommand": ["kubectl", "rollout", "undo", "deployment/$(SERVICE)"], "estimatedSeconds": 10},
]


def cart_runbook(title: str = "flush hot keys and recycle cart", symptoms: list[str] | None = None) -> dict[str, Any]:
    """A fresh Runbook spec with the four cart steps; `symptoms` only when given (key order: title, services, symptoms, steps)."""
    spec: dict[str, Any] = {"title": title, "services": ["cart"]}
    if symptoms is not None:
        spec["symptoms"] = list(symptoms)
    spec["steps"] = copy.deepcopy(CART_STEPS)
    return spec


class KubeEnv:
    """kubectl for one namespace: apply/get, Jobs and Incident status, and the execution set-up steps."""

    def __init__(self, kubectl: Callable[..., Any], namespace: str) -> None:
        self.kubectl, self.ns = kubectl, namespace

    def apply(self, obj: dict[str, Any]) -> None:
        obj.setdefault("metadata", {})["namespace"] = self.ns
        self.kubectl("apply", "-f", "-", input=json.dumps(obj), check=True)

    def get(self, kind: str, name: str) -> dict[str, Any]:
        proc = self.kubectl("get", kind, name, "-n", self.ns, "-o", "json")
        return json.loads(proc.stdout) if proc.returncode == 0 else {}

    def list_jobs(self, selector: str, check: bool = True) -> list[dict[str, Any]]:
        """The Jobs matching a label selector; with check=False, [] when kubectl fails."""
        proc = self.kubectl("get", "jobs", "-n", self.ns, "-l", selector, "-o", "json", check=check)
        return json.loads(proc.stdout)["items"] if proc.returncode == 0 else []

    def incident_status(self, incident: str) -> dict[str, Any]:
        return self.get("incidents.recall.dev", incident).get("status") or {}

    def status_field(self, incident: str, key: str) -> dict[str, Any]:
        return self.incident_status(incident).get(key) or {}

    def create_runbook(self, name: str, spec: dict[str, Any],
                       service_account: str = jobkit.DEFAULT_SERVICE_ACCOUNT) -> None:
        """The runner's ServiceAccount and the Runbook."""
        self.kubectl("create", "serviceaccount", service_account, "-n", self.ns, check=True)
        self.apply({"apiVersion": GROUP_VERSION, "kind": "Runbook", "metadata": {"name": name}, "spec": spec})

    def create_incident(self, name: str, spec: dict[str, Any], annotations: dict[str, str] | None = None) -> None:
        meta: dict[str, Any] = {"name": name, **({"annotations": annotations} if annotations else {})}
        self.apply({"apiVersion": GROUP_VERSION, "kind": "Incident", "metadata": meta, "spec": spec})

    def recommend(self, incident: str, incident_spec: dict[str, Any], runbook_name: str,
                  runbook_spec: dict[str, Any], mode: str = "actionable", similarity: int = 80,
                  actionability: int = 75, sealed: bool = True) -> str:
        """Write a recommendation with the plan `build_plan` makes into the Incident's status; returns its planHash.

        Sealed with the test operators' key, as triage would write it; `sealed=False` is a forgery.
        """
        plan = build_plan(IncidentSpec.model_validate(incident_spec),
                          Runbook(name=runbook_name, spec=RunbookSpec.model_validate(runbook_spec)))
        rec = {"mode": mode, "runbook": runbook_name, "planHash": plan.plan_hash, "similarity": similarity,
               "actionability": actionability, "steps": [s.as_status() for s in plan.steps]}
        if sealed:
            uid = self.get("incidents.recall.dev", incident)["metadata"]["uid"]
            rec["seal"] = seal(STATUS_KEY.encode(), uid, rec)
        self.kubectl("patch", "incidents.recall.dev", incident, "-n", self.ns, "--subresource=status",
                     "--type=merge", "-p", json.dumps({"status": {"recommendation": rec}}), check=True)
        return plan.plan_hash

    def approve_plan(self, incident: str, name: str, plan_hash: str, approver: str = "alice",
                     decision: str = "approve", reason: str = "") -> None:
        spec = {"incident": incident, "planHash": plan_hash, "decision": decision, "approver": approver}
        if reason:
            spec["reason"] = reason
        self.apply({"apiVersion": GROUP_VERSION, "kind": "Approval", "metadata": {"name": name}, "spec": spec})

    def dry_run_of(self, incident: str, plan_hash: str) -> dict[str, Any] | None:
        """The Incident's dry-run status once it is done for `plan_hash`, else None."""
        dry = self.status_field(incident, "dryRun")
        return dry if dry.get("planHash") == plan_hash and dry.get("done") else None


class Clock:
    """The operator's clock for a test (memo.clock): the real time, moved by `advance` or stopped by
    `freeze` instead of sleeping."""

    def __init__(self) -> None:
        self.offset = timedelta(0)
        self.frozen: datetime | None = None

    def __call__(self) -> datetime:
        return self.frozen if self.frozen is not None else datetime.now(UTC) + self.offset

    def advance(self, by: timedelta) -> None:
        self.offset += by

    def freeze(self, at: datetime) -> None:
        self.frozen = at


def execution_operator(namespace: str, reraise: bool = True, clock: Clock | None = None) -> KopfRunner:
    """Only the execution handlers, in a registry of their own, whatever other handler modules are imported.

    A fresh registry has no login handler, so it gets the kubeconfig one
    (KUBECONFIG is the test cluster's), and the operator's own Kopf settings
    (progress kept in recall.dev annotations). With `clock`, the operator reads
    the time from it (every handler asks the memo's clock).
    """
    registry = execution_handlers.register(kopf.OperatorRegistry())
    kopf.on.login(registry=registry)(kopf.login_with_kubeconfig)
    kopf.on.startup(registry=registry)(lambda settings, **_: configure_settings(settings))
    if clock is not None:
        kopf.on.startup(registry=registry)(lambda memo, **_: setattr(memo, "clock", clock))
    return KopfRunner(["run", "--standalone", f"--namespace={namespace}"], registry=registry, timeout=60,
                      reraise=reraise)


@contextmanager
def kept_default_registry() -> Iterator[None]:
    """Restore Kopf's default registry afterwards (`kopf run` makes the runner's registry the default)."""
    default = kopf.get_default_registry()
    try:
        yield
    finally:
        kopf.set_default_registry(default)


def console_script(name: str) -> list[str]:
    """The command this package installed as `name` (`recall`, `kubectl-recall`), beside this Python first."""
    script = Path(sys.executable).with_name(name)
    found = str(script) if script.exists() else shutil.which(name)
    if not found:
        pytest.fail(f"the {name} console script is not installed (pip install -e .)", pytrace=False)
    return [found]


def recall(*args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run `kubectl recall` as a person would; stdin is not a terminal here, so it never prompts."""
    return subprocess.run([*console_script("kubectl-recall"), *args], capture_output=True, text=True, timeout=120,
                          input=input if input is not None else "", env=dict(os.environ))
