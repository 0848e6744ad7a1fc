"""What an outcome may make memory believe: only what the operator saw counts as done by a runbook."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from domain_builders import resolution, spec
from recall_operator.domain.consolidation import (
    as_remembered,
    count_runbook_outcomes,
    one_voice,
    remembered_outcome,
    runbook_outcome,
)
from recall_operator.domain.contradictions import disagreement
from recall_operator.domain.grounding import unsupported_claims
from recall_operator.domain.guards import failed_before
from recall_operator.domain.models import EpisodicMemory, Resolution
from recall_operator.domain.text import incident_names

NOW = datetime(2025, 3, 1, tzinfo=UTC)
CATALOG = ["rb-a", "rb-b", "rb-c"]


def remembered(name: str, res: Resolution, opened_by: str | None = "alice", at: datetime = NOW) -> EpisodicMemory:
    return EpisodicMemory(incident=name, spec=spec(), resolution=res, resolved_at=at, opened_by=opened_by)


def operator_ran(runbook: str, state: str, result: str) -> dict:
    return {"execution": {"state": state, "runbook": runbook, "approvedBy": "carol",
                          "steps": [{"name": "act", "phase": "run", "result": result}]}}


def test_an_action_naming_the_run_runbook_and_another_credits_only_the_one_that_ran() -> None:
    said = resolution(runbook="rb-a", actions=[("ran runbook rb-a, then runbook rb-b", "succeeded")],
                      confirmed_by="bob", summary="fixed")
    kept = remembered_outcome(said, CATALOG, operator_ran("rb-a", "Succeeded", "succeeded"), opener="alice")
    assert runbook_outcome(kept, "rb-a") == "succeeded"  # the operator saw it work
    assert runbook_outcome(kept, "rb-b") is None  # only said: no win for it
    assert count_runbook_outcomes([kept], "rb-b").times_succeeded == 0
    # Nor does that sentence undo the failure the operator saw rb-b have before, or contradict it.
    failed = remembered("inc-1", remembered_outcome(
        resolution(summary="by hand", actions=[("restarted by hand", "succeeded")], confirmed_by="bob"),
        CATALOG, operator_ran("rb-b", "Failed", "failed"), opener="alice"))
    later = remembered("inc-2", kept, at=NOW + timedelta(hours=1))
    assert failed_before([failed, later], CATALOG).get("rb-b") == "inc-1"
    assert disagreement(later, failed, ["rb-b"]) is None


def test_an_empty_runbook_is_no_runbook_and_one_persons_word_stays_one_voice() -> None:
    assert Resolution.model_validate({"runbook": "  "}).runbook is None
    said = resolution(runbook="", summary="by hand", confirmed_by="alice",
                      actions=[("run runbook rb-c", "failed"), ("restarted by hand", "succeeded")])
    mine = remembered("inc-9", as_remembered(said, CATALOG, ran=None, opener="alice"))
    assert one_voice(mine) == "alice"
    assert failed_before([mine], CATALOG, proven={"rb-c"}) == {}  # her word blocks no runbook seen to work


def test_a_failure_the_operator_saw_stays_a_failure_whatever_the_outcome_calls_it() -> None:
    for result in ("partial", "succeeded"):
        said = resolution(summary="by hand in the end", confirmed_by="bob",
                          actions=[("run runbook rb-a", result), ("restarted by hand", "succeeded")])
        kept = remembered_outcome(said, CATALOG, operator_ran("rb-a", "RolledBack", "failed"), opener="alice")
        assert runbook_outcome(kept, "rb-a") == "failed", result
        assert failed_before([remembered("inc-9", kept)], CATALOG) == {"rb-a": "inc-9"}, result
        record = count_runbook_outcomes([kept], "rb-a")
        assert (record.times_executed, record.times_succeeded) == (1, 0), result


def test_long_dashed_text_is_read_and_cited_names_still_found() -> None:
    """A 16 KiB root cause of dashed words took seconds of the event loop: two patterns backtracked over
    every start of the run. What it costs now is a benchmark's to say; here, that such text is read
    and that names are still found, in a long word too (around each `inc-<digit>` in it)."""
    for text in ("a-" * 8192, "a-inc-" * 2730, "a-inc-1-" * 2048):
        unsupported_claims(spec(), resolution(summary="fixed", root_cause=text, confirmed_by="bob"))
    cited = "x-" * 50 + "ab-inc-9"
    assert incident_names(f"see tw-inc-013, and inc-7 (inc-0042); {'y' * 400},{cited}.") == [
        "tw-inc-013", "inc-7", "inc-0042", cited]
    assert incident_names("a-inc-x " + "a-" * 8192) == []


def test_a_correction_waiting_for_memory_is_not_counted_on_runbooks_again() -> None:
    """The first outcome was counted; a correction recorded while memory is down (or during a run, or
    refused) rewrites status.memory, and once memory takes it, it must still read as counted before."""
    from recall_operator.kube import status as st

    first = st.prune_none(st.consolidated_status({}, "k1", "embedded", ["rb-a"], 1, NOW).patch)
    assert st.counted_before(first)
    for later in (st.outbox_status(first, "k2", 2, NOW, "memory down"),
                  st.run_wait_status(first, "k2", 2, NOW, NOW, "step act is running"),
                  st.refused_status(first, "k2", 2, NOW, "name taken")):
        after = st.prune_none({**first, **later.patch})
        assert st.counted_before(after), after["memory"]
        again = st.prune_none({**after, **st.consolidated_status(after, "k2", "embedded", [], 2, NOW).patch})
        assert st.counted_before(again)
    # An incident never counted is not taken for one.
    assert not st.counted_before(st.prune_none(st.outbox_status({}, "k1", 1, NOW, "memory down").patch))
