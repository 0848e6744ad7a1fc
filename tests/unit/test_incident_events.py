"""The one Event an answer gets: every condition that changed, named in one message, and its log line."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import kopf

from recall_operator import logs
from recall_operator.handlers import incident
from recall_operator.kube import status as st


def _transition(type_: str, status: str, reason: str, message: str) -> dict[str, Any]:
    return {"type": type_, "status": status, "reason": reason, "message": message}


def test_an_answer_is_one_event_naming_each_transition() -> None:
    change = st.StatusChange({}, [_transition("Triaged", "True", "Novel", "novel: similarity 0.1"),
                                  _transition("AwaitingApproval", "False", "NotActionable", "nothing to approve"),
                                  _transition("MemoryAvailable", "True", "Recalled", "recalled 3 precedents")])
    ((type_, reason, message),) = incident._events(change)
    assert (type_, reason) == ("Normal", "Novel")
    assert message == ("Triaged=True (Novel): novel: similarity 0.1; AwaitingApproval=False (NotActionable): "
                       "nothing to approve; MemoryAvailable=True (Recalled): recalled 3 precedents")


def test_an_answer_without_memory_is_a_warning_named_for_it() -> None:
    change = st.StatusChange({}, [_transition("Triaged", "True", "Novel", "novel"),
                                  _transition("MemoryAvailable", "False", "MemoryUnavailable", "down")])
    ((type_, reason, message),) = incident._events(change)
    assert (type_, reason) == ("Warning", "MemoryUnavailable")
    assert "Triaged=True (Novel)" in message and "MemoryAvailable=False (MemoryUnavailable): down" in message


def test_a_write_without_transitions_posts_nothing() -> None:
    assert incident._events(st.StatusChange({"dna": {}}, [])) == []


def test_an_answer_is_logged_once_naming_the_incident_in_json(caplog: Any) -> None:
    """The log line of an answer carries the incident as Kopf's own lines do, and says what its Event says."""
    body = {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident",
            "metadata": {"name": "inc-7", "namespace": "payments", "uid": "u-7"}}
    change = st.StatusChange({}, [_transition("Triaged", "True", "Novel", "novel: similarity 12")])
    posted: list[dict[str, Any]] = []

    class Outbox:
        def answered(self) -> None:
            pass

        def add(self, api: Any, body: Any, change: Any, at: Any) -> None:
            posted.append(body)

    memo = kopf.Memo(events=Outbox(), api=None)
    with caplog.at_level("INFO", logger="kopf.objects"):
        asyncio.run(incident._announce(memo, body, change))
    records = [r for r in caplog.records if r.name == "kopf.objects"]
    assert len(records) == 1 and posted == [body]
    line = json.loads(logs.JsonFormatter().format(records[0]))
    assert line["incident"] == "payments/inc-7" and line["kind"] == "Incident"
    assert line["message"] == "Novel: Triaged=True (Novel): novel: similarity 12"
