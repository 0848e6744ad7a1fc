"""The one Event an answer gets: every condition that changed, named in one message (pure)."""

from __future__ import annotations

from typing import Any

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
