"""An Incident too large to hold the operator's answer: it says so on the Incident, and goes on with the others.

etcd keeps no object over 1.5 MiB. An Incident just under it is stored, but
no status fits beside it: every answer was refused, retried on every pass of
the re-evaluation loop, and nothing on the Incident said why it had none.
"""

from __future__ import annotations

import json
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

