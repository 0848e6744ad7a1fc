"""Small helpers shared by tests in more than one folder (tests/ is on sys.path, so ``import support``).

- ``wait_for``: poll a probe until it returns something truthy, or fail naming what was awaited
  (and, with ``detail``, what the reader needs to see why).
- ``free_port``: a free loopback port (recall_operator.ports: one a restart finds free again).
- ``wait_http_ok``: poll a URL until it answers 200, while a process is alive.
- ``post_json``: POST a body and read the JSON answer, HTTP errors included.
- ``stop_process``: SIGTERM a subprocess, then SIGKILL it when it will not stop.
- ``DATASETS``, ``history``: the development replay histories the repository carries.
- ``remove_admission``, ``until_bindings_released``: delete admission policies a test applied, and
  wait until the API server stops enforcing them (the next module's writes would meet them).
- ``renderer``: scripts/render-manifests.py as a module (the chart's render, and where helm,
  kubectl and the chart validators that scripts/testbin.sh builds live).
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from recall_operator.ports import free_port as free_port  # re-exported: the tests take ports from here

DATASETS = Path(__file__).resolve().parents[1] / "datasets"
SAMPLE_INCIDENT = Path(__file__).resolve().parents[1] / "manifests" / "samples" / "incident.yaml"
HISTORIES = ("dev", "dev2", "dev3")


def history(name: str) -> Path:
    """A bundled history's file; a missing one is a broken checkout, so it fails rather than skips."""
    path = DATASETS / name / "history.jsonl"
    if not path.is_file():
        raise AssertionError(f"the {name} history is missing from the repository: {path}")
    return path


def wait_for(
    what: str, probe: Callable[[], Any], deadline: float = 180.0, every: float = 0.5,
    detail: Callable[[], str] | None = None,
) -> Any:
    """Return probe()'s first truthy value; raise AssertionError naming `what` after `deadline` seconds.

    `detail`, when given, is asked only on giving up, and its text ends the message
    (a log's tail, the pods of a Job): what a reader needs to see why the wait failed.
    """
    end = time.monotonic() + deadline
    last: Any = None
    while time.monotonic() < end:
        last = probe()
        if last:
            return last
        time.sleep(every)
    message = f"timed out after {deadline:.0f} s waiting for {what}; last seen: {last!r}"
    raise AssertionError(f"{message}\n{detail()}" if detail is not None else message)


async def settled(what: str, probe: Callable[[], Awaitable[Any]], deadline: float = 180.0) -> Any:
    """`wait_for` for a coroutine probe (each call may itself do the work, e.g. a poll); the same deadline."""
    end = time.monotonic() + deadline
    last: Any = None
    while time.monotonic() < end:
        last = await probe()
        if last:
            return last
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out after {deadline:.0f} s waiting for {what}; last seen: {last!r}")


def wait_http_ok(url: str, proc: subprocess.Popen[Any], timeout: float, every: float = 0.2) -> bool:
    """True as soon as `url` answers 200; False when `proc` exits first or `timeout` passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return True
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(every)
    return False


def post_json(
    url: str, body: bytes, content_type: str | None = "application/json", timeout: float = 60
) -> tuple[int, dict[str, Any]]:
    """POST `body`; the status and the JSON answer (or ``{"raw": text}`` for a non-JSON error body).

    ``content_type=None`` sends an empty Content-Type header.
    """
    headers = {"Content-Type": content_type} if content_type else {}
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    if content_type is None:
        # urllib adds a form content type to any POST with a body unless told otherwise
        request.add_unredirected_header("Content-Type", "")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        try:
            return exc.code, json.loads(raw)
        except ValueError:
            return exc.code, {"raw": raw.decode(errors="replace")}


def stop_process(proc: subprocess.Popen[Any], timeout: float = 30) -> None:
    """SIGTERM `proc` if it still runs; SIGKILL it when it has not exited within `timeout`."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=timeout)


def renderer() -> ModuleType:
    """scripts/render-manifests.py, loaded as a module (its name has a dash, so it cannot be imported)."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "scripts" / "render-manifests.py"
    spec = importlib.util.spec_from_file_location("render_manifests", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def until_bindings_released(kubectl: Callable[..., Any], bindings: list[str]) -> None:
    """Wait until the API server no longer enforces these admission bindings (deleted by the caller).

    Its admission plugin reads policies from an informer, so a deleted binding
    still refuses writes for a moment: the next test module's first Incident
    was refused by an opener policy a module before had just deleted (CI,
    twice). A server-side dry run of an Incident with no opener goes through
    admission and stores nothing; only an Incident binding can name itself in
    its refusal, which is the one the next modules meet, and an unsigned
    reconciled Contradiction probes the reconciliation's binding.
    """
    import yaml

    incident = yaml.safe_load(SAMPLE_INCIDENT.read_text())
    incident["metadata"] = {"name": "policy-probe", "namespace": "default"}
    contradiction = {"apiVersion": "recall.dev/v1alpha1", "kind": "Contradiction",
                     "metadata": {"name": "policy-probe", "namespace": "default"},
                     "spec": {"topic": "probe", "memories": ["a", "b"],
                              "resolution": {"state": "reconciled", "note": "probe"}}}
    probes = [json.dumps(incident), json.dumps(contradiction)]

    def released() -> bool:
        return not any(b in kubectl("create", "--dry-run=server", "-f", "-", input=text).stderr
                       for text in probes for b in bindings)

    wait_for(f"the API server to stop enforcing {', '.join(bindings)}", released, deadline=60)


def held_on_resolving(kubectl: Callable[..., Any], namespace: str = "default") -> bool:
    """Whether the API server now adds the outcome hold (manifests/outcome-hold.yaml) to an Incident
    created with an outcome: a server-side dry run, which goes through admission and stores nothing."""
    import yaml

    incident = yaml.safe_load(SAMPLE_INCIDENT.read_text())
    incident["metadata"] = {"name": "hold-probe", "namespace": namespace,
                            "annotations": {"recall.dev/opened-by": "admin"}}
    incident["spec"]["resolution"] = {"summary": "probe", "confirmedBy": "admin"}
    proc = kubectl("create", "--dry-run=server", "-o", "json", "-f", "-", input=json.dumps(incident))
    return proc.returncode == 0 and "recall.dev/outcome" in (json.loads(proc.stdout)["metadata"].get("finalizers") or [])


def remove_admission(kubectl: Callable[..., Any], docs: list[dict[str, Any]]) -> None:
    """Delete the admission policies and bindings among these manifests, and wait until none is enforced."""
    kinds = ("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
             "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding")
    for d in docs:
        if d and d.get("kind") in kinds:
            kubectl("delete", d["kind"].lower() + ".admissionregistration.k8s.io", d["metadata"]["name"],
                    "--ignore-not-found")
    until_bindings_released(kubectl, [d["metadata"]["name"] for d in docs
                                      if d and d.get("kind") == "ValidatingAdmissionPolicyBinding"])
    if any(d and d.get("kind") == "MutatingAdmissionPolicyBinding" for d in docs):
        # A hold left behind would pin every later test's resolved Incident that no operator lets go.
        wait_for("the API server to stop holding resolved Incidents", lambda: not held_on_resolving(kubectl),
                 deadline=60)
