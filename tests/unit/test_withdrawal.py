"""A resolved incident withdrawn from recall: its outcome stays on record, and memory offers it to nobody.

Why it exists: a report written with the words of many failures is the
nearest look-alike of incidents it has nothing to do with (docs/scoring.md
measures one on dev), and a recorded report never changes.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from recall_operator.domain.candidates import clean_candidates
from recall_operator.domain.consolidation import counts_on_runbooks, current_outcome, runbook_history, withdrawal
from recall_operator.plugin import withdrawing
from domain_builders import incident, memory

OUTCOME = {"rootCause": "hot keys", "summary": "flushed the hot keys", "runbook": "cart-flush",
           "actions": [{"action": "run runbook cart-flush", "result": "succeeded"}],
           "confirmedBy": "oncall-a", "confirmedAt": "2026-12-01T03:00:00Z"}


def withdrawn_by(who: str, why: str, **more: Any) -> dict[str, Any]:
    return {**OUTCOME, "reason": why, "confirmedBy": who, "withdrawn": True, **more}


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ({"resolution": OUTCOME}, None),
        ({"resolution": OUTCOME, "corrections": [withdrawn_by("olga", "a test page, not an outage")]},
         "withdrawn by olga: a test page, not an outage"),
        # The newest correction is what memory holds: one that does not withdraw brings it back.
        ({"resolution": OUTCOME, "corrections": [withdrawn_by("olga", "junk"), {**OUTCOME, "reason": "it was real"}]},
         None),
        ({"resolution": OUTCOME, "corrections": [{**OUTCOME, "reason": "typo"}, withdrawn_by("ivan", "pasted logs")]},
         "withdrawn by ivan: pasted logs"),
        # Only the boolean the CRD allows withdraws: a string that says so is not it.
        ({"resolution": OUTCOME, "corrections": [{**withdrawn_by("olga", "x"), "withdrawn": "true"}]}, None),
        ({"resolution": OUTCOME, "corrections": [withdrawn_by("", "")]}, "withdrawn by somebody unnamed: no reason given"),
    ],
    ids=["recorded", "withdrawn", "brought-back", "withdrawn-last", "not-a-boolean", "unsigned"],
)
def test_the_newest_outcome_says_whether_and_by_whom_the_incident_is_withdrawn(spec: dict[str, Any],
                                                                                said: str | None) -> None:
    outcome = current_outcome(spec)
    assert outcome is not None
    assert withdrawal(outcome) == said


def test_a_withdrawn_memory_is_nobody_s_precedent_and_nobody_s_witness() -> None:
    kept = memory("inc-1", runbook="cart-flush")
    gone = memory("inc-2", runbook="cart-flush").model_copy(update={"withdrawn": "withdrawn by olga: junk"})
    assert clean_candidates(incident("inc-new"), [kept, gone]) == [kept]
    assert [m.incident for m, _ in runbook_history([kept, gone], "cart-flush")] == ["inc-1"]


def test_the_plugin_restates_the_outcome_as_it_was_signed_by_whoever_withdraws_it() -> None:
    now = datetime(2026, 12, 7, 11, 0, tzinfo=UTC)
    earlier = {**OUTCOME, "reason": "typo in the summary", "confirmedBy": "ivan"}
    correction = withdrawing(earlier, True, "a test page, not an outage", "olga", now)
    assert correction == {**OUTCOME, "reason": "a test page, not an outage", "confirmedBy": "olga",
                          "confirmedAt": "2026-12-07T11:00:00Z", "withdrawn": True}
    back = withdrawing(correction, False, "it was a real outage after all", "ivan", now)
    assert "withdrawn" not in back and back["reason"] == "it was a real outage after all"
    assert {k: back[k] for k in ("rootCause", "summary", "runbook", "actions")} == \
        {k: OUTCOME[k] for k in ("rootCause", "summary", "runbook", "actions")}
    assert withdrawal(back) is None and withdrawal(correction) == "withdrawn by olga: a test page, not an outage"


@pytest.mark.parametrize(
    ("opened_by", "withdrawn", "counted_before", "counts"),
    [
        ("bob", None, False, True),  # opened by one person, confirmed by another: a witness
        ("oncall-a", None, False, False),  # opened and confirmed by one person, nothing run: one voice
        ("bob", None, True, False),  # a correction: the incident was counted with its first outcome
        # Withdrawn before memory first took it (the outcome waited in the outbox): memory's own recount
        # (runbook_history) leaves it out, and so does the Runbook's.
        ("bob", "withdrawn by olga: a load test", False, False),
    ],
    ids=["witnessed", "one-voice", "correction", "withdrawn-first"],
)
def test_what_an_outcome_counts_on_its_runbooks(opened_by: str, withdrawn: str | None, counted_before: bool,
                                                counts: bool) -> None:
    episode = memory("inc-1", actions=[("flushed the hot keys by hand", "succeeded")]).model_copy(
        update={"opened_by": opened_by, "withdrawn": withdrawn})
    assert counts_on_runbooks(episode, counted_before) is counts
