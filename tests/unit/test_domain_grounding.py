"""Grounding: every number, duration and incident name in a recommendation must be in its evidence."""

from __future__ import annotations

import pytest

from recall_operator.domain.grounding import check_grounding

# The batch-of-500 migration: the memory said 500; "within 30 s" was invented.
BATCH_EVIDENCE = [
    "Incident: inc-1017\nWhat happened and what fixed it: the payment-service schema migration "
    "ran into the statement limit; it succeeded after being split into batches of 500 records.",
]


def test_batch_of_500_keeps_the_remembered_number_and_flags_the_invented_timing() -> None:
    text = "Process the rows in batches of 500 (as in inc-1017), proven to stay within 30 s."
    report = check_grounding(text, BATCH_EVIDENCE)
    assert [(i.text, i.kind) for i in report.grounded] == [("500", "number"), ("inc-1017", "incident")]
    assert [(i.text, i.kind, i.value) for i in report.ungrounded] == [("30 s", "duration", "30 s")]
    assert "30 s" in report.ungrounded[0].reason
    assert not report.ok


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("wait 30 s", "waited 30s"),
        ("wait 30s", "waited 30 seconds"),
        ("a 30-second limit", "limit of 30 sec"),
        ("wait 30 seconds", "wait 0.5 min"),
        ("within 15 minutes", "within 15m"),
        ("within 15 min", "took 900 s"),
        ("for 1h30m", "for 90 minutes"),
        ("300 ms", "0.3 s"),
        ("2.1 TB", "2.1TB"),
        ("2.1 TB", "2100 GB"),
        ("99%", "99 percent"),
        ("99 per cent", "99%"),
        ("1,000 rows", "1000 rows"),
        ("10k rows", "10000 rows"),
        ("500 rps", "500 req/s"),
        ("3x the traffic", "3 x the usual traffic"),
        ("image 1.29.4", "bitnami/kubectl:1.29.4"),
        ("on 2025-01-15", "migrationDate: 2025-01-15T00:00:00Z"),
        ("at 02:11", "paged at 2025-03-04T02:11:00Z"),
        ("see INC-0042", "inc-0042 was the last one"),
        # A bare number claims no unit, so the same number with a unit grounds it.
        ("batches of 500", "500-record batches"),
    ],
)
def test_units_and_spacing_are_normalised(claim: str, evidence: str) -> None:
    report = check_grounding(claim, [evidence])
    assert report.ungrounded == [], report.ungrounded
    assert len(report.grounded) == 1


@pytest.mark.parametrize(
    ("claim", "evidence", "reason_has"),
    [
        ("wait 30 s", "30 records at a time", "mentions '30'"),
        ("wait 30 s", "wait 40 s", "no duration of 30 s"),
        ("15 minutes", "15 hours", "mentions '15 hours'"),
        ("99%", "95%", "no percent of 99 %"),
        ("2.1 TB", "2.1 GB", "mentions '2.1 GB'"),
        ("like inc-0099", "like inc-0098", "inc-0099 is not among"),
        ("on 2025-01-16", "on 2025-01-15", "no date"),
        ("500", "", "no number of 500"),
    ],
)
def test_ungrounded_claims_say_why(claim: str, evidence: str, reason_has: str) -> None:
    report = check_grounding(claim, [evidence])
    assert report.grounded == []
    assert len(report.ungrounded) == 1
    assert reason_has in report.ungrounded[0].reason


def test_nothing_cited_means_nothing_is_grounded() -> None:
    report = check_grounding("restart 3 pods within 5 minutes", [])
    assert [i.text for i in report.ungrounded] == ["3", "5 minutes"]
    assert all("nothing cited" in i.reason for i in report.ungrounded)


@pytest.mark.parametrize(
    "text",
    ["p99 latency on k8s", "utf-8 decode errors", "image redis:7.2", "max.poll.records", "5xx from s3", "v1.29.4"],
)
def test_digits_inside_names_are_not_claims(text: str) -> None:
    report = check_grounding(text, ["unrelated"])
    assert report.grounded == [] and report.ungrounded == []


def test_every_claim_lands_in_exactly_one_list_in_order() -> None:
    text = "Page inc-0007 at 02:11 on 2025-01-15: 500 rows, 30 s, 2.1 TB, 99%, 3x, 10k, inc-0008."
    evidence = ["inc-0007 at 02:11: 500 rows, 2.1 TB"]
    report = check_grounding(text, evidence)
    everything = [i.text for i in report.grounded] + [i.text for i in report.ungrounded]
    assert sorted(everything) == sorted(
        ["inc-0007", "02:11", "2025-01-15", "500", "30 s", "2.1 TB", "99%", "3x", "10k", "inc-0008"]
    )
    assert [i.text for i in report.grounded] == ["inc-0007", "02:11", "500", "2.1 TB"]
    assert all(i.reason for i in report.grounded + report.ungrounded)


def test_grounded_reason_names_the_evidence_it_came_from() -> None:
    report = check_grounding("batches of 500", ["nothing here", "batches of 500"])
    assert report.grounded[0].reason == "found in evidence 2 as '500'"


# -- a confirmed outcome, checked against what was recorded about its incident ----------------

def _outcome(summary: str, root_cause: str = "", actions: tuple[tuple[str, str], ...] = (), runbook: str | None = None):
    from recall_operator.domain.models import Resolution

    return Resolution.model_validate({
        "summary": summary, "rootCause": root_cause, "runbook": runbook, "confirmedBy": "oncall-a",
        "actions": [{"action": a, "result": r} for a, r in actions],
    })


def _paged(**fields):
    from recall_operator.domain.models import IncidentSpec

    return IncidentSpec.model_validate({"service": "payment-service", "title": "migration holds a lock", **fields})


def test_an_outcome_number_nothing_recorded_says_is_kept_as_the_writers_word() -> None:
    from recall_operator.domain.grounding import unsupported_claims

    spec = _paged(description="statement_timeout hit after 15 minutes")
    res = _outcome("Split into batches of 500, each stays within 30 s; the first try held the lock 15 minutes.",
                   root_cause="the table has 2.1 TB", actions=(("split the migration into batches of 500", "succeeded"),))
    assert unsupported_claims(spec, res) == (
        "the summary says '30 s', which nothing recorded says",
        "the root cause says '2.1 TB', which nothing recorded says",
    )


def test_an_outcome_grounded_by_its_incident_actions_and_runbook_has_no_unsupported_claim() -> None:
    from recall_operator.domain.grounding import unsupported_claims
    from recall_operator.domain.models import Runbook

    rb = Runbook.model_validate({"name": "pg-batch", "spec": {
        "title": "batched migration", "parameters": {"batch": "500"},
        "steps": [{"name": "run", "image": "psql", "command": ["migrate", "--batch", "500"]}],
    }})
    spec = _paged(errorSignatures=["canceling statement due to statement timeout"],
                  deployment={"id": "deploy-7", "minutesSinceDeploy": 12})
    res = _outcome("pg-batch ran in batches of 500, 12 minutes after deploy-7; a re-page of inc-0042.",
                   runbook="pg-batch", actions=(("restart payment-service (2 pods)", "failed"),),
                   root_cause="2 pods held the lock")
    assert unsupported_claims(spec, res, [rb]) == ()
    assert unsupported_claims(spec, res) == ("the summary says '500', which nothing recorded says",)


def test_the_memory_carries_its_unsupported_claims_to_a_later_reader() -> None:
    from datetime import UTC, datetime

    from recall_operator.domain.consolidation import memory_text
    from recall_operator.domain.models import EpisodicMemory
    from recall_operator.kube.status import consolidated_status

    claims = ("the summary says '30 s', which nothing recorded says",)
    mem = EpisodicMemory(incident="inc-1", spec=_paged(), resolution=_outcome("it stays within 30 s"),
                         resolved_at=datetime(2026, 1, 1, tzinfo=UTC), unsupported=claims)
    assert memory_text(mem).endswith(f"Not in the record, the writer's word alone: {claims[0]}")
    # stored as JSON by every backend: kept, and a memory stored before the field reads as none
    assert EpisodicMemory.model_validate_json(mem.model_dump_json(by_alias=True)).unsupported == claims
    older = mem.model_dump(by_alias=True, mode="json")
    del older["unsupported"]
    assert EpisodicMemory.model_validate(older).unsupported == ()
    assert "Not in the record" not in memory_text(EpisodicMemory.model_validate(older))
    # and on the Incident, beside where the outcome was written
    now = datetime(2026, 1, 1, tzinfo=UTC)
    status = consolidated_status({}, "k", "embedded", [], 1, now, claims).patch["memory"]
    assert status["unsupported"] == list(claims)
    assert consolidated_status({}, "k", "embedded", [], 1, now).patch["memory"]["unsupported"] is None
