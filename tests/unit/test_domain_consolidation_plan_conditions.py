"""Consolidation (memory text, runbook counts, win rate), the plan and its hash, conditions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from recall_operator.domain.conditions import condition, set_condition
from recall_operator.domain.consolidation import (
    NOT_YET_RESOLVED,
    Outcomes,
    as_remembered,
    count_runbook_outcomes,
    from_another_object,
    memory_text,
    name_taken,
    names_runbook,
    record_outcome,
    related_incident,
    runbook_outcome,
    win_rate,
)
from recall_operator.domain.models import Action, RunbookRecord
from recall_operator.domain.plan import PlanError, build_plan, parameters_for
from domain_builders import REDIS_TEXT, T0, memory, resolution, runbook, spec

FIELDS = (
    "Incident:", "Service:", "Severity:", "Title:", "Started:", "What was seen:", "Symptoms:",
    "Error signatures:", "Recent change:", "Root cause:", "What happened and what fixed it:",
    "Runbook that resolved it:", "Actions, in order, with their results:", "Confirmed by:",
)


@pytest.mark.parametrize(
    "mem",
    [
        memory("inc-1", res=resolution(confirmed_by="")),
        memory("inc-2", runbook="rb", deployment={"id": "d1", "minutesSinceDeploy": 7}, **REDIS_TEXT),
    ],
)
def test_memory_text_has_every_fixed_field_in_order(mem) -> None:
    text = memory_text(mem)
    positions = [text.index(f) for f in FIELDS]
    assert positions == sorted(positions)


def test_memory_text_says_not_yet_resolved_and_keeps_failed_actions() -> None:
    empty = memory_text(memory("inc-1", res=resolution(confirmed_by="")))
    assert f"Root cause: {NOT_YET_RESOLVED}" in empty
    assert f"What happened and what fixed it: {NOT_YET_RESOLVED}" in empty
    failed = memory_text(memory("inc-2", actions=[("restart pods", "failed"), ("flush keys", "succeeded")]))
    assert "- restart pods: failed\n- flush keys: succeeded" in failed


def test_related_incident() -> None:
    assert related_incident(resolution(summary="re-page of inc-0008")) == "inc-0008"
    assert related_incident(resolution(summary="new")) is None
    assert "Related incident: inc-0008" in memory_text(memory("inc-9", res=resolution(summary="re-page of inc-0008")))


@pytest.mark.parametrize(
    ("res", "expected"),
    [
        (resolution("rb"), "succeeded"),  # the runbook field alone counts as a success
        (resolution("rb", [("run rb", "partial"), ("run rb again", "succeeded")]), "succeeded"),
        (resolution("rb", [("run rb", "failed")]), "failed"),
        (resolution(None, [("run rb", "succeeded"), ("run rb", "failed")]), "failed"),
        (resolution("other"), None),
        (resolution(None, [("restart pods", "failed")]), None),
    ],
)
def test_runbook_outcome(res, expected) -> None:
    assert runbook_outcome(res, "rb") == expected


@pytest.mark.parametrize(
    ("action", "named"),
    [
        ("run runbook restart-pods", True),
        ("ran restart-pods.", True),  # the end of a sentence
        ("(restart-pods), then waited", True),
        ("runbook:restart-pods", True),
        ("run restart-pods-graceful", False),  # another runbook whose name starts the same
        ("run pre-restart-pods", False),
        ("restart-pods.v2", False),
        ("restart-pods_old", False),
    ],
)
def test_an_action_names_a_runbook_only_by_its_whole_name(action: str, named: bool) -> None:
    assert names_runbook(action, "restart-pods") is named


def test_a_longer_runbook_s_failure_is_not_counted_against_a_shorter_one() -> None:
    # A catalog with both: the graceful one failed, then the plain one fixed it.
    res = resolution("restart-pods", [("run runbook restart-pods-graceful", "failed"),
                                      ("run runbook restart-pods", "succeeded")])
    assert runbook_outcome(res, "restart-pods") == "succeeded"
    assert runbook_outcome(res, "restart-pods-graceful") == "failed"
    only_graceful = resolution(None, [("run runbook restart-pods-graceful", "failed")])
    assert runbook_outcome(only_graceful, "restart-pods") is None
    assert count_runbook_outcomes([only_graceful] * 2, "restart-pods").times_executed == 0
    # A success claimed for the longer one is not the shorter one's either, nor its doubt.
    claimed = as_remembered(resolution(None, [("run runbook restart-pods-graceful", "succeeded")]),
                            ["restart-pods", "restart-pods-graceful"], ran="restart-pods")
    assert claimed.actions[-1].reported and claimed.actions[0].observed  # the run it saw, first


def test_an_answer_s_outcomes_say_what_each_outcome_says_however_often_asked() -> None:
    # A failure only a person reports counts against the runbook, not on its record: the two questions
    # differ for one outcome, and the ledger must keep them apart.
    claimed = resolution("rb").model_copy(update={"actions": (Action(action="run rb", result="failed", reported=True),)})
    plain = resolution("rb")
    fared = Outcomes()
    for _ in range(2):  # the second round is answered from what the first kept
        assert fared.of(claimed, "rb") == runbook_outcome(claimed, "rb") == "failed"
        assert fared.of(claimed, "rb", recorded=True) == record_outcome(claimed, "rb") == "succeeded"
        assert fared.of(plain, "rb") == "succeeded"
        assert fared.of(plain, "other") is None


def test_count_runbook_outcomes() -> None:
    outcomes = [resolution("rb"), resolution("rb", [("run rb", "failed")]), resolution("other"), resolution("rb")]
    assert count_runbook_outcomes(outcomes, "rb") == RunbookRecord(times_executed=3, times_succeeded=2)


@pytest.mark.parametrize(
    ("executed", "succeeded", "low", "high"),
    [(0, 0, 0.5, 0.5), (1, 1, 0.6, 0.7), (1, 0, 0.3, 0.4), (100, 100, 0.98, 0.995), (10, 5, 0.5, 0.5)],
)
def test_win_rate_is_smoothed(executed: int, succeeded: int, low: float, high: float) -> None:
    rate = win_rate(RunbookRecord(times_executed=executed, times_succeeded=succeeded))
    assert low <= rate <= high
    assert rate < 1.0


RB = runbook("rb", ["cart-service"], title="restart")


def test_build_plan_and_read_only_plan() -> None:
    full = build_plan(spec(), RB)
    assert full.steps[0].command == ["sh", "-c", "echo $(SERVICE)"]
    assert full.parameters == {"SERVICE": "cart-service"}
    ro = build_plan(spec(), RB, read_only=True)
    assert ro.read_only and ro.steps[0].command == ["echo", "dry", "$(SERVICE)"]
    assert all(s.command == s.dry_run_command and s.rollback_command == [] for s in ro.steps)
    assert ro.plan_hash != full.plan_hash
    assert len(full.plan_hash) == 16


def test_read_only_plan_leaves_out_steps_without_a_dry_run() -> None:
    body = RB.model_dump(by_alias=True)
    body["spec"]["steps"] = [*body["spec"]["steps"], {"name": "wipe", "image": "busybox", "command": ["rm", "-rf", "/data"]}]
    rb = type(RB).model_validate(body)
    assert [s.name for s in build_plan(spec(), rb, read_only=True).steps] == ["act"]
    assert [s.name for s in build_plan(spec(), rb).steps] == ["act", "wipe"]


def test_plan_hash_is_stable_and_changes_with_what_would_run() -> None:
    base = build_plan(spec(), RB).plan_hash
    assert build_plan(spec(), RB).plan_hash == base
    assert build_plan(spec("checkout-api"), RB).plan_hash != base  # a parameter value changed
    body = RB.model_dump(by_alias=True)
    body["spec"]["steps"][0]["command"] = ["sh", "-c", "echo other $(SERVICE)"]
    assert build_plan(spec(), type(RB).model_validate(body)).plan_hash != base  # a command changed


@pytest.mark.parametrize("value", ["a;rm -rf /", "$(whoami)", "a b", "`id`", "x|y", "a&&b", "x>y", "a\nb"])
def test_a_parameter_with_shell_metacharacters_is_refused(value: str) -> None:
    body = RB.model_dump(by_alias=True)
    body["spec"]["steps"][0]["command"] = ["echo", "$(TARGET)"]
    rb = type(RB).model_validate(body)
    with pytest.raises(PlanError, match="TARGET"):
        build_plan(spec(parameters={"TARGET": value}), rb)
    assert parameters_for(spec(parameters={"TARGET": "pod-1"}), rb) == {"SERVICE": "cart-service", "TARGET": "pod-1"}


def test_conditions_keep_the_transition_time_until_status_changes() -> None:
    t1, t2, t3 = T0, T0 + timedelta(minutes=1), T0 + timedelta(minutes=2)
    conds, changed = set_condition([], "Ready", True, "Assessed", "ok", 1, t1)
    assert changed and condition(conds, "Ready")["lastTransitionTime"] == t1.isoformat()
    conds, changed = set_condition(conds, "Ready", True, "Assessed", "still ok", 2, t2)
    ready = condition(conds, "Ready")
    assert not changed and ready["lastTransitionTime"] == t1.isoformat()
    assert ready["observedGeneration"] == 2 and ready["message"] == "still ok"
    conds, changed = set_condition(conds, "Ready", False, "Failed", "no", 3, t3)
    assert changed and condition(conds, "Ready")["lastTransitionTime"] == t3.isoformat()
    conds, _ = set_condition(conds, "Stale", False, "Fresh", "", 3, t3)
    assert [c["type"] for c in conds] == ["Ready", "Stale"]
    assert condition(conds, "Missing") is None


def test_a_name_used_again_by_another_incident_does_not_replace_its_memory() -> None:
    held = memory("inc-1", runbook="rb").model_copy(update={"uid": "uid-1"})
    other = memory("inc-1", res=resolution(None, [("failed over by hand", "succeeded")]),
                   description="a different failure").model_copy(update={"uid": "uid-2"})
    why = name_taken(held, other)
    assert why is not None and "another incident named inc-1" in why and "another name" in why
    # The same object (a correction), the same incident applied again, or no uid to tell by: written.
    assert name_taken(held, held.model_copy(update={"resolved_at": T0 + timedelta(days=1)})) is None
    assert name_taken(held, held.model_copy(update={"uid": "uid-3", "resolved_at": T0 + timedelta(days=1)})) is None
    assert name_taken(held.model_copy(update={"uid": None}), other) is None
    assert name_taken(None, other) is None


def test_a_memory_from_before_uids_is_told_from_a_new_object_by_when_that_was_created() -> None:
    """Memories written before they kept a uid: resolved before the Incident existed, they are another's."""
    old = memory("inc-1", runbook="rb")  # resolved at T0, no uid
    assert old.uid is None
    other = memory("inc-1", res=resolution(None, [("failed over by hand", "succeeded")]),
                   description="a different failure").model_copy(update={"uid": "uid-2"})
    created_after, created_before = T0 + timedelta(hours=2), T0 - timedelta(hours=2)
    assert from_another_object(old, "uid-2", created_after)
    assert not from_another_object(old, "uid-2", created_before)  # the same object, corrected
    assert not from_another_object(old, "uid-2", None) and not from_another_object(old, None, None)
    # Two uids tell, whatever the times say.
    assert from_another_object(old.model_copy(update={"uid": "uid-1"}), "uid-2", created_before)
    assert not from_another_object(old.model_copy(update={"uid": "uid-2"}), "uid-2", created_after)
    why = name_taken(old, other, created_after)
    assert why is not None and "another incident named inc-1" in why
    assert name_taken(old, other, created_before) is None  # a correction of the incident it is
    assert name_taken(old, other) is None  # no time to tell by: written, as before


@pytest.mark.parametrize(
    ("opened_by", "confirmed_by", "runbook", "observed", "alone"),
    [
        ("mallory", "mallory", None, False, "mallory"),  # she reported it and she confirmed it, nothing ran
        ("olga", "mallory", None, False, None),  # a second person opened it
        ("system:recall:alertmanager-bridge", "mallory", None, False, None),  # an alert saw it happen
        ("mallory", "mallory", "cart-restart", False, None),  # the operator saw its run work
        ("mallory", "mallory", None, True, None),  # the operator saw its run fail
        (None, "mallory", None, False, None),  # opener not known (a replay, an old memory)
    ],
)
def test_one_voice_is_an_outcome_its_opener_alone_vouches_for(opened_by, confirmed_by, runbook, observed,
                                                              alone) -> None:
    from recall_operator.domain.consolidation import one_voice
    from recall_operator.domain.models import Action, EpisodicMemory, IncidentSpec, Resolution

    actions = (Action(action="run runbook cart-restart", result="failed", observed=observed),) if observed else ()
    memory = EpisodicMemory(
        incident="inc-1", spec=IncidentSpec(service="cart", title="cart slow"), resolved_at=datetime(2025, 1, 1, tzinfo=UTC),
        resolution=Resolution(summary="restarted", runbook=runbook, actions=actions, confirmed_by=confirmed_by),
        opened_by=opened_by)
    assert one_voice(memory) == alone


def test_a_runbook_s_history_leaves_out_failures_one_person_alone_claims() -> None:
    from recall_operator.domain.consolidation import runbook_history
    from recall_operator.domain.models import Action, EpisodicMemory, IncidentSpec, Resolution

    def claimed(opener: str) -> EpisodicMemory:
        return EpisodicMemory(
            incident=f"inc-{opener}", spec=IncidentSpec(service="cart", title="cart slow"),
            resolved_at=datetime(2025, 1, 1, tzinfo=UTC), opened_by=opener,
            resolution=Resolution(actions=(Action(action="run runbook cart-restart", result="failed"),),
                                  confirmed_by="mallory"))

    assert [m.incident for m, _ in runbook_history([claimed("mallory"), claimed("olga")], "cart-restart")] == [
        "inc-olga"]
