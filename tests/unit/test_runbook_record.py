"""A Runbook object that is new here gets the track record memory holds for its name, and nothing else.

GitOps prunes and re-creates Runbooks, a rename is undone, a new cluster
shares the old one's memory: the object starts with an empty status while
memory still holds every outcome it took part in (kube.status.runbook_status_from_memory).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from recall_operator.domain.consolidation import count_runbook_outcomes, runbook_history, win_rate
from recall_operator.domain.models import Action
from recall_operator.kube.status import COUNTED_WINDOW, runbook_counts_status, runbook_status_from_memory
from domain_builders import T0, memory, resolution

NOW = T0 + timedelta(days=30)
RB = "rb-restart"


def _history() -> list[Any]:
    """Four outcomes out of order in time: a success, a failure then a manual fix, a partial run, another runbook."""
    memories = [
        memory("inc-3", res=resolution(None, [(f"run {RB}", "partial")]), resolved_at=T0 + timedelta(days=3)),
        memory("inc-1", runbook=RB, resolved_at=T0 + timedelta(days=1)),
        memory("inc-2", res=resolution(None, [(f"run {RB}", "failed"), ("restart by hand", "succeeded")]),
               resolved_at=T0 + timedelta(days=2)),
        memory("inc-4", runbook="rb-other", resolved_at=T0 + timedelta(days=4)),
    ]
    return runbook_history(memories, RB)


def test_the_history_is_every_outcome_the_runbook_took_part_in_oldest_first() -> None:
    history = _history()
    assert [(m.incident, result) for m, result in history] == [
        ("inc-1", "succeeded"), ("inc-2", "failed"), ("inc-3", "partial"),
    ]


def test_neither_a_reported_success_nor_a_reported_failure_is_part_of_the_history() -> None:
    # The record is what the operator saw; a failure only claimed still holds the runbook back (the gate).
    from recall_operator.domain.guards import failed_before

    claimed = resolution(None).model_copy(update={"actions": (
        Action(action=f"run {RB}", result="succeeded", reported=True),)})
    admitted = resolution(None).model_copy(update={"actions": (
        Action(action=f"run {RB}", result="failed", reported=True),)})
    seen = resolution(None).model_copy(update={"actions": (
        Action(action=f"run runbook {RB} (the operator's run: step 1 failed)", result="failed", observed=True),)})
    history = runbook_history([memory("inc-1", res=claimed), memory("inc-2", res=admitted),
                               memory("inc-3", res=seen)], RB)
    assert [(m.incident, result) for m, result in history] == [("inc-3", "failed")]
    assert RB in failed_before([memory("inc-2", res=admitted)], [RB])


def test_a_success_counts_only_where_memory_records_the_runbook_as_the_fix() -> None:
    # A runbook named like something done by hand, created after the fact, gets no success from its words;
    # the same words in a failure still count against it.
    by_hand = memory("inc-1", res=resolution(None, [("restart by hand", "succeeded")]))
    failed_by_hand = memory("inc-2", res=resolution(None, [("restart by hand", "failed")]))
    ran = memory("inc-3", runbook="restart")
    history = runbook_history([by_hand, failed_by_hand, ran], "restart")
    assert [(m.incident, result) for m, result in history] == [("inc-2", "failed"), ("inc-3", "succeeded")]


def test_a_new_object_gets_the_record_memory_holds() -> None:
    history = _history()
    status = runbook_status_from_memory({}, history, NOW)
    assert status is not None
    assert (status["timesExecuted"], status["timesSucceeded"], status["timesFailed"]) == (3, 1, 1)
    # The same count as the consolidations that wrote these memories made, one outcome at a time.
    record = count_runbook_outcomes([m.resolution for m, _ in history], RB)
    assert status["winRate"] == round(win_rate(record), 3)
    assert status["countedIncidents"] == ["default/inc-1", "default/inc-2", "default/inc-3"]
    assert status["lastOutcome"] == {"result": "partial", "incident": "default/inc-3",
                                     "at": (T0 + timedelta(days=3)).isoformat()}
    assert status["countedFromMemory"] == {"outcomes": 3, "counted": True, "at": NOW.isoformat()}
    # Asked once per object: the status it wrote is not counted again, on this start or the next.
    assert runbook_status_from_memory(status, history, NOW) is None


def test_counted_from_memory_then_counted_again_by_an_outcome_is_counted_once() -> None:
    history = _history()
    status = runbook_status_from_memory({}, history, NOW)
    assert status is not None
    # The outcome of inc-3 being consolidated as the object was made: memory had it already.
    assert runbook_counts_status(status, "default/inc-3", "partial", NOW) is None
    # A new outcome counts on top.
    after = runbook_counts_status(status, "default/inc-5", "succeeded", NOW)
    assert after is not None and (after["timesExecuted"], after["timesSucceeded"]) == (4, 2)


@pytest.mark.parametrize(
    ("current", "why"),
    [
        # An outcome counted here that memory does not hold (memory wiped, another store): keep the status.
        ({"timesExecuted": 1, "timesSucceeded": 1, "countedIncidents": ["default/inc-9"]}, "counted something else"),
        # Counted more than it can name (its window overflowed, or an older writer): cannot tell what memory adds.
        ({"timesExecuted": 5, "timesSucceeded": 5, "countedIncidents": ["default/inc-1"]}, "window overflowed"),
        ({"timesExecuted": 2, "timesSucceeded": 2}, "written without names"),
        # Memory knows nothing more.
        ({"timesExecuted": 3, "timesSucceeded": 1,
          "countedIncidents": ["default/inc-1", "default/inc-2", "default/inc-3"]}, "already whole"),
    ],
)
def test_memory_never_takes_a_counted_outcome_away_nor_counts_one_twice(current: dict[str, Any], why: str) -> None:
    # Only that memory was asked is written: the record stays as it is.
    assert runbook_status_from_memory(current, _history(), NOW) == {
        "countedFromMemory": {"outcomes": 3, "counted": False, "at": NOW.isoformat()}
    }, why


def test_a_record_that_raced_an_outcome_is_completed_from_memory() -> None:
    # The object was made, an outcome counted on it before memory was read: memory holds that one and more.
    current = {"timesExecuted": 1, "timesSucceeded": 0, "countedIncidents": ["default/inc-3"]}
    status = runbook_status_from_memory(current, _history(), NOW)
    assert status is not None and status["timesExecuted"] == 3


def test_nothing_in_memory_only_says_memory_was_asked() -> None:
    asked = runbook_status_from_memory({}, [], NOW)
    assert asked == {"countedFromMemory": {"outcomes": 0, "counted": False, "at": NOW.isoformat()}}
    assert runbook_status_from_memory(asked, _history(), NOW) is None


def test_the_names_kept_stay_within_the_window() -> None:
    many = runbook_history(
        [memory(f"inc-{i}", runbook=RB, resolved_at=T0 + timedelta(minutes=i)) for i in range(COUNTED_WINDOW + 5)], RB
    )
    status = runbook_status_from_memory({}, many, NOW)
    assert status is not None
    assert status["timesExecuted"] == COUNTED_WINDOW + 5
    assert len(status["countedIncidents"]) == COUNTED_WINDOW
    assert status["countedIncidents"][-1] == f"default/inc-{COUNTED_WINDOW + 4}"


def test_a_record_counted_for_other_steps_speaks_for_nothing_and_restarts_with_the_next_outcome() -> None:
    from recall_operator.domain.models import Runbook
    from recall_operator.domain.plan import steps_digest
    from recall_operator.kube.status import record_from_status

    def runbook(command: list[str], image: str = "bitnami/kubectl:1.30") -> Runbook:
        return Runbook.model_validate({"name": RB, "spec": {"title": "restart", "steps": [
            {"name": "restart", "image": image, "command": command, "rollbackCommand": ["kubectl", "rollout", "undo"]}]}})

    old = steps_digest(runbook(["kubectl", "rollout", "restart", "deploy/cart"]))
    assert steps_digest(runbook(["kubectl", "rollout", "restart", "deploy/cart"], image="bitnami/kubectl:1.31")) == old
    new = steps_digest(runbook(["kubectl", "delete", "pods", "-l", "app=cart"]))
    assert new != old
    status: dict[str, Any] = {}
    for i in range(3):
        status = {**status, **runbook_counts_status(status, f"ns/inc-{i}", "succeeded", NOW, old)}
    assert record_from_status(status, old).times_succeeded == 3 and status["stepsDigest"] == old
    # The steps changed: the record earned by the old ones does not vouch for the new ones.
    assert record_from_status(status, new).times_executed == 0
    # A record from before digests were kept is taken as it is.
    assert record_from_status({k: v for k, v in status.items() if k != "stepsDigest"}, new).times_executed == 3
    # The next outcome, under the new steps, starts a new record; the old one is kept beside it for people.
    after = runbook_counts_status(status, "ns/inc-9", "failed", NOW, new)
    assert after is not None
    assert (after["timesExecuted"], after["timesSucceeded"], after["timesFailed"]) == (1, 0, 1)
    assert after["stepsDigest"] == new and after["countedIncidents"] == ["ns/inc-9"]
    assert after["earlierRecord"]["timesSucceeded"] == 3 and after["earlierRecord"]["stepsDigest"] == old


def test_a_runbook_made_anew_with_other_steps_takes_no_record_of_runs_of_the_old_ones() -> None:
    # inc-1 and inc-2 were fixed by runs of the old steps, inc-3 by a run of the new ones; inc-4's
    # memory is older than digests and says nothing either way; inc-5's run of the old steps failed.
    old_run, new_run = "a" * 16, "b" * 16
    ran_old = [memory(f"inc-{i}", runbook=RB, resolved_at=T0 + timedelta(days=i)).model_copy(
        update={"ran_steps": (RB, old_run)}) for i in (1, 2)]
    ran_new = memory("inc-3", runbook=RB, resolved_at=T0 + timedelta(days=3)).model_copy(
        update={"ran_steps": (RB, new_run)})
    legacy = memory("inc-4", runbook=RB, resolved_at=T0 + timedelta(days=4))
    failed_old = memory("inc-5", res=resolution(None), resolved_at=T0 + timedelta(days=5)).model_copy(update={
        "ran_steps": (RB, old_run), "resolution": resolution(None).model_copy(update={"actions": (
            Action(action=f"run runbook {RB} (the operator's run: step x failed)", result="failed", observed=True),)})})
    everything = [*ran_old, ran_new, legacy, failed_old]
    assert [m.incident for m, _ in runbook_history(everything, RB)] == ["inc-1", "inc-2", "inc-3", "inc-4", "inc-5"]
    kept = runbook_history(everything, RB, digest=new_run)
    assert [(m.incident, r) for m, r in kept] == [("inc-3", "succeeded"), ("inc-4", "succeeded")]
    # A run of another runbook there says nothing of this one's steps: a failure claimed for this one counts.
    other = failed_old.model_copy(update={"ran_steps": ("rb-other", old_run)})
    assert [m.incident for m, _ in runbook_history([other], RB, digest=new_run)] == ["inc-5"]
    status = runbook_status_from_memory({}, kept, NOW, new_run)
    assert status is not None and status["timesExecuted"] == 2 and status["stepsDigest"] == new_run


def test_a_failure_claimed_for_a_runbook_the_operator_never_ran_there_is_remembered_as_a_claim() -> None:
    # Any responder may record any incident's outcome: counted, "ran rb-restart: failed" on incidents where
    # nothing ran pushed its win rate down without end. About the operator's own run, they are its record.
    from recall_operator.domain.consolidation import as_remembered, record_outcome

    said = resolution(None, [(f"run {RB}", "failed"), ("restart by hand", "succeeded")])
    claimed = as_remembered(said, [RB], ran=None)
    assert [a.reported for a in claimed.actions] == [True, False]
    assert record_outcome(claimed, RB) is None
    ran_here = as_remembered(said, [RB], ran=RB, failed="step 1 failed")
    assert [a.reported for a in ran_here.actions] == [False, False]
    assert record_outcome(ran_here, RB) == "failed"
    # Where it ran another runbook, a failure of this one is believed: status keeps only the last run,
    # and the one before it (this runbook's) may have failed.
    other = as_remembered(said, [RB, "rb-other"], ran="rb-other")  # its own observed success comes first
    assert [a.reported for a in other.actions if a.action.startswith(f"run {RB}")] == [False]


def test_a_claimed_failure_neither_outweighs_a_run_the_operator_saw_work_nor_proposes_a_contradiction() -> None:
    from recall_operator.domain.contradictions import disagreement
    from recall_operator.domain.guards import failed_before

    seen = memory("inc-1", runbook=RB, resolved_at=T0)
    claim = memory("inc-2", res=resolution(None, [(f"run {RB}", "failed")]).model_copy(update={"actions": (
        Action(action=f"run {RB}", result="failed", reported=True),)}), resolved_at=T0 + timedelta(days=1))
    assert failed_before([seen, claim], [RB], proven={RB}) == {}
    assert failed_before([seen, claim], [RB]) == {RB: "inc-2"}  # unproven here: the safe side
    assert disagreement(claim, seen, [RB]) is None
    observed = claim.model_copy(update={"resolution": claim.resolution.model_copy(update={"actions": (
        Action(action=f"run runbook {RB} (the operator's run: step 1 failed)", result="failed", observed=True),)})})
    assert disagreement(observed, seen, [RB]) is not None


def test_a_correction_keeps_when_the_incident_was_resolved() -> None:
    from recall_operator.domain.consolidation import as_first_resolved

    first = memory("inc-1", runbook=RB, resolved_at=T0)
    correction = memory("inc-1", runbook=RB, resolved_at=T0 + timedelta(days=40))
    assert as_first_resolved(first, correction).resolved_at == T0
    assert as_first_resolved(None, correction).resolved_at == T0 + timedelta(days=40)


def test_a_correction_keeps_the_root_cause_as_first_confirmed() -> None:
    from recall_operator.domain.consolidation import as_first_resolved, confirmed_cause

    def said(cause: str, day: int) -> Any:
        return memory("inc-1", runbook=RB, resolved_at=T0 + timedelta(days=day),
                      res=resolution(RB, root_cause=cause))

    first = said("a backfill filled two data nodes", 0)
    assert confirmed_cause(first) == "a backfill filled two data nodes"
    second = as_first_resolved(first, said("snapshots filled the disks", 3))
    assert second.resolution.root_cause == "snapshots filled the disks"  # the newest word is what memory shows
    assert confirmed_cause(second) == "a backfill filled two data nodes"
    third = as_first_resolved(second, said("a reindex filled the disks", 5))
    assert confirmed_cause(third) == "a backfill filled two data nodes"  # the first, not the one before
    # a restatement that keeps the cause marks nothing
    assert as_first_resolved(first, said("a backfill filled two data nodes", 3)).first_cause is None
