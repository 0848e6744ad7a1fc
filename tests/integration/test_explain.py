"""`kubectl explain` on the real API server: the CRD descriptions reach the people who read them.

tests/unit/test_crd_descriptions.py walks the schemas; this shows the API
server publishes them, down to the fields that used to read `<empty>`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from support import wait_for

pytestmark = pytest.mark.integration


def explain(kubectl: Callable[..., Any], field: str) -> Any:
    """`kubectl explain`, once the API server publishes the CRDs' schemas (a few seconds after they are installed)."""
    def attempt() -> Any:
        proc = kubectl("explain", field, "--api-version=recall.dev/v1alpha1")
        return proc if proc.returncode == 0 else None

    return wait_for(f"kubectl explain {field}", attempt, deadline=60)


@pytest.mark.parametrize(("field", "words"), [
    ("incident.status.recommendation", "the gate's mode, the scores behind it"),
    ("incident.status.recommendation.mode", "novel (nothing really matches"),
    ("incident.status.conditions.lastTransitionTime", "When the condition last changed"),
    ("incident.spec.severity", "How bad it is"),
    ("runbook.spec.steps.risk", "the riskiest step sets how many approvers"),
    ("approval.spec.decision", "approve runs the plan's steps"),
    ("contradiction.spec.resolution.state", "open (claims still disagree)"),
    ("architecturemigration.spec.targetService", "The service whose architecture changed"),
])
def test_kubectl_explain_shows_the_description(kubectl: Callable[..., Any], field: str, words: str) -> None:
    proc = explain(kubectl, field)
    text = " ".join(proc.stdout.split())
    assert words in text, proc.stdout
    assert "<empty>" not in proc.stdout


def test_the_incident_status_lists_its_fields(kubectl: Callable[..., Any]) -> None:
    proc = explain(kubectl, "incident.status")
    listed = {line.split("\t")[0].strip() for line in proc.stdout.splitlines() if "\t<" in line}
    assert {"recommendation", "matches", "conditions", "execution", "dryRun", "memory", "dna"} <= listed, proc.stdout
    assert "<empty>" not in proc.stdout
