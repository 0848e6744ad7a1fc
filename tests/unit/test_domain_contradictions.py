"""Proposing a Contradiction from two disagreeing outcomes, as a pure function."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from recall_operator.domain.contradictions import SAME_PATTERN_SIMILARITY, propose
from recall_operator.domain.models import (
    Action, Contradiction, ContradictionSpec, EpisodicMemory, IncidentSpec, Resolution,
)
from recall_operator.domain.similarity import Breakdown, ScoredMemory

T0 = datetime(2025, 1, 1, tzinfo=UTC)
SPEC = IncidentSpec(service="orders-consumer", title="rebalance loop", symptoms=("rebalance-loop",))
RUNBOOKS = ["raise-interval", "reduce-records"]


def _memory(name: str, runbook: str | None, actions: list[tuple[str, str]], day: int) -> EpisodicMemory:
    return EpisodicMemory(
        incident=name, spec=SPEC, resolved_at=T0 + timedelta(days=day),
        resolution=Resolution(runbook=runbook, actions=tuple(Action(action=a, result=r) for a, r in actions),
                              confirmed_by="oncall"),
    )


def _scored(memory: EpisodicMemory, similarity: int) -> ScoredMemory:
    return ScoredMemory(memory, similarity, Breakdown(1, 1, 1, 1, 1, 1))


OLD = _memory("inc-1", "raise-interval", [("run runbook raise-interval", "succeeded")], 0)


@pytest.mark.parametrize(
    ("new", "similarity", "expected_why"),
    [
        (_memory("inc-2", "reduce-records", [("run runbook raise-interval", "failed"), ("run reduce-records", "succeeded")], 9),
         90, "runbook raise-interval succeeded in inc-1 but failed in inc-2"),
        # Fixed differently is not enough: it is as often another failure.
        (_memory("inc-2", "reduce-records", [("run reduce-records", "succeeded")], 9), 90, None),
        (_memory("inc-2", None, [("grew the volume by hand", "succeeded")], 9), 90, None),
        (_memory("inc-2", "raise-interval", [("run runbook raise-interval", "succeeded")], 9), 90, None),
        (_memory("inc-2", "reduce-records", [("run runbook raise-interval", "failed")], 9), SAME_PATTERN_SIMILARITY - 1, None),
    ],
)
def test_a_proposal_only_when_the_same_pattern_was_fixed_differently(new, similarity, expected_why) -> None:
    proposal = propose(new, [_scored(OLD, similarity)], RUNBOOKS)
    if expected_why is None:
        assert proposal is None
        return
    assert proposal is not None and proposal.why.startswith(expected_why)
    assert proposal.memories == ("inc-1", "inc-2")
    spec = proposal.spec()
    assert spec["resolution"] == {"state": "open"}
    assert [c["memory"] for c in spec["claims"]] == ["inc-1", "inc-2"]
    assert "raise-interval" in spec["claims"][0]["claim"]


def test_a_pair_already_in_a_contradiction_is_not_proposed_again() -> None:
    new = _memory("inc-2", "reduce-records", [("run runbook raise-interval", "failed")], 9)
    existing = Contradiction(name="known", spec=ContradictionSpec(topic="t", memories=("inc-1", "inc-2", "inc-9")))
    assert propose(new, [_scored(OLD, 95)], RUNBOOKS, [existing]) is None


def test_the_closest_disagreeing_look_alike_is_named() -> None:
    agreeing = _memory("inc-0", "reduce-records", [("run reduce-records", "succeeded")], -5)
    new = _memory("inc-2", "reduce-records", [("run runbook raise-interval", "failed"), ("run reduce-records", "succeeded")], 9)
    proposal = propose(new, [_scored(agreeing, 97), _scored(OLD, 88)], RUNBOOKS)
    assert proposal is not None and proposal.memories == ("inc-1", "inc-2")


def test_an_outcome_one_person_alone_vouches_for_proposes_no_contradiction() -> None:
    """A responder opens a copy of inc-1's report and records at once that its runbook failed: the operator
    would put its own name on her claim, and the Contradiction would hold inc-1's fix advisory."""
    claim = _memory("inc-2", None, [("run runbook raise-interval", "failed"), ("restarted it by hand", "succeeded")], 9)
    claim = claim.model_copy(update={"resolution": claim.resolution.model_copy(update={"confirmed_by": "mallory"})})
    assert propose(claim.model_copy(update={"opened_by": "mallory"}), [_scored(OLD, 90)], RUNBOOKS) is None
    # The older side alone-vouched: no proposal either.
    assert propose(OLD, [_scored(claim.model_copy(update={"opened_by": "mallory"}), 90)], RUNBOOKS) is None
    # Opened by the alert bridge (the alert saw it happen), the same claim is proposed, and says who made it.
    bridged = propose(claim.model_copy(update={"opened_by": "system:recall:alertmanager-bridge"}),
                      [_scored(OLD, 90)], RUNBOOKS)
    assert bridged is not None
    assert [c["claim"] for c in bridged.spec()["claims"]] == [
        "runbook raise-interval resolved it (confirmed by oncall)",
        "it was resolved by hand; tried and failed: run runbook raise-interval (confirmed by mallory)"]


def test_a_proposal_for_long_incident_names_is_still_an_object_name() -> None:
    # Cut at 253, `recall-<old>-vs-<name of 240>` ended in "-", which the API server refuses: nothing proposed.
    import re

    from recall_operator.domain.contradictions import proposal_name

    long = "a" * 234 + "-bbbbb"
    name = proposal_name("inc-old", long)
    assert len(name) <= 253 and re.fullmatch(r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?", name), name
    assert name != proposal_name("inc-old", "a" * 234 + "-ccccc")
    assert proposal_name("inc-a", "inc-b") == "recall-inc-a-vs-inc-b"
