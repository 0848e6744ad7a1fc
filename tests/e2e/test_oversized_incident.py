"""An Incident too large to hold the operator's answer: it says so on the Incident, and goes on with the others.

etcd keeps no object over 1.5 MiB. An Incident just under it is stored, but
no status fits beside it: every answer was refused, retried on every pass of
the re-evaluation loop, and nothing on the Incident said why it had none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from support import wait_for

pytestmark = pytest.mark.integration


def _sized(name: str, description: int) -> dict[str, Any]:
    """An Incident of about 1.5 MB (error signatures and labels at their schema's limits, and a description)."""
    return {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "metadata": {"name": name},
            "spec": {"service": "checkout-api", "title": "checkout-api 5xx", "symptoms": ["5xx"],
                     "description": "z" * description,
                     "errorSignatures": [f"{i:03d} " + "x" * 8000 for i in range(128)],
                     "labels": {f"k{i:03d}": "y" * 4000 for i in range(128)}}}


def _largest_stored(kubectl: Any, namespace: str) -> str:
    """Create the largest Incident the API server takes, in steps of 500 bytes: none of its answers fits."""
    low, high = 20_000, 45_000
    name = ""
    while high - low > 500:
        mid = (low + high) // 2
        candidate = f"huge-{mid}"
        proc = kubectl("create", "-n", namespace, "-f", "-", input=json.dumps(_sized(candidate, mid)))
        if proc.returncode == 0:
            if name:
                kubectl("delete", "incident", name, "-n", namespace, "--wait=false", check=True)
            low, name = mid, candidate
        else:
            assert "too large" in proc.stderr, proc.stderr
            high = mid
    assert name, "no Incident of that size was stored"
    return name


def test_an_incident_too_large_for_its_answer_says_so_and_the_operator_goes_on(
    operator: Any, kubectl: Any, namespace: str, get_status: Any
) -> None:
    huge = _largest_stored(kubectl, namespace)
    warned = wait_for("the AnswerTooLarge Event on the Incident", lambda: [
        e for e in json.loads(kubectl("get", "events", "-n", namespace, "--field-selector",
                                      f"involvedObject.name={huge}", "-o", "json", check=True).stdout)["items"]
        if e.get("reason") == "AnswerTooLarge"], deadline=60)
    assert warned[0]["type"] == "Warning" and "shorten its description" in warned[0]["message"], warned
    assert len(warned) == 1 and int(warned[0].get("count") or 1) == 1, "said once, not on every pass"
    # The operator goes on: the next incident is answered.
    kubectl("create", "-n", namespace, "-f", "-", input=json.dumps({
        "apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "metadata": {"name": "after-huge"},
        "spec": {"service": "checkout-api", "title": "checkout-api 5xx", "symptoms": ["5xx"]}}), check=True)
    wait_for("after-huge answered", lambda: get_status("after-huge").get("recommendation"), deadline=60)


def test_outcomes_written_as_large_as_they_may_be_leave_the_incidents_that_recall_them_answered(
    operator: Any, kubectl: Any, namespace: str, get_status: Any, tmp_path: Path
) -> None:
    # Anyone who may record an outcome can list 64 actions of 4,096 characters. Three such outcomes,
    # recalled as matches, made every later look-alike's answer larger than an Incident may hold: none
    # was triaged. An answer repeats the last eight actions of a match, each cut to a line.
    spec = {"service": "checkout-api", "title": "checkout-api 5xx after release", "symptoms": ["5xx"],
            "description": "checkout requests fail with 502 from the gateway after the release"}
    actions = [{"action": f"{i:02d} " + "\u65e5" * 4000, "result": "failed"} for i in range(63)]
    actions.append({"action": "rolled the release back by hand", "result": "succeeded"})
    past = [f"loud-{i}" for i in range(3)]
    for name in past:
        kubectl("create", "-n", namespace, "-f", "-", input=json.dumps({
            "apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "metadata": {"name": name}, "spec": spec}),
            check=True)
        wait_for(f"{name} answered", lambda n=name: get_status(n).get("recommendation"), deadline=60)
        patch = tmp_path / f"{name}.json"  # too long for an argument (128 KiB at most)
        patch.write_text(json.dumps({"spec": {"resolution": {
            "rootCause": "a bad release", "summary": "rolled back by hand", "actions": actions,
            "confirmedBy": "oncall-a"}}}), encoding="utf-8")
        kubectl("patch", "incident", name, "-n", namespace, "--type=merge", f"--patch-file={patch}", check=True)
        wait_for(f"{name} in memory", lambda n=name: (get_status(n).get("memory") or {}).get("consolidated"),
                 deadline=60)
    kubectl("create", "-n", namespace, "-f", "-", input=json.dumps({
        "apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "metadata": {"name": "quiet"}, "spec": spec}),
        check=True)
    status = wait_for("quiet answered with its look-alikes", lambda: (s := get_status("quiet")).get("matches") and s,
                      deadline=60)
    loud = [m for m in status["matches"] if m["incident"] in past]
    assert len(loud) == 3, status["matches"]
    for match in loud:
        assert match["actionsLeftOut"] == 56 and len(match["actions"]) == 8
        assert match["actions"][-1] == {"action": "rolled the release back by hand", "result": "succeeded"}
    assert len(json.dumps(status).encode()) < 100_000
