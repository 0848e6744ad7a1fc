"""Events about the operator's objects go through its own client (kube.events), from wherever they are posted."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from recall_operator.kube.events import event_body

OPERATOR = Path(__file__).resolve().parents[2] / "operator" / "recall_operator"


def test_nothing_posts_an_event_through_kopf() -> None:
    # kopf.event queues an Event only inside a handler Kopf runs: from the
    # execution resync or the re-evaluation loop it raised, and a step Job
    # those passes started was never announced.
    calls = [f"{path.relative_to(OPERATOR)}:{number}: {line.strip()}"
             for path in sorted(OPERATOR.rglob("*.py"))
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if re.search(r"\bkopf\.(event|info|warn|exception)\(", line)]
    assert calls == []


def test_an_event_names_its_object_its_action_and_a_time_the_api_server_takes() -> None:
    body = {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident",
            "metadata": {"name": "inc-1", "namespace": "shop", "uid": "u-1", "resourceVersion": "7"}}
    event = event_body(body, "Warning", "StepFailed", "x" * 2000, datetime(2026, 1, 1, tzinfo=UTC), "Execute")
    assert event["involvedObject"] == {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "name": "inc-1",
                                       "namespace": "shop", "uid": "u-1", "resourceVersion": "7"}
    assert (event["type"], event["reason"], event["action"]) == ("Warning", "StepFailed", "Execute")
    assert len(event["message"]) == 1024  # the API server's limit for a message
    assert event["eventTime"] == "2026-01-01T00:00:00.000000+00:00"  # a MicroTime keeps its six digits
    assert event["metadata"] == {"namespace": "shop", "generateName": "recall-event-"}
