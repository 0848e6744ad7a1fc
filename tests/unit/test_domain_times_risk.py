"""One reading of a time (domain.times) and one riskiest step (domain.models.riskiest) for every caller."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from types import SimpleNamespace

import pytest

from domain_builders import T0, TOPOLOGY, memory, runbook
from recall_operator.domain.execution import _past_deadline, plan_risk
from recall_operator.domain.models import riskiest
from recall_operator.domain.recommend import Context, actionability
from recall_operator.domain.times import parse_time


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-01-02T03:04:05Z", datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),
        ("2026-01-02t03:04:05z", datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),
        ("2026-01-02 03:04:05+00:00", datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),
        # Alertmanager's nanoseconds, cut to what a datetime holds
        ("2026-01-02T03:04:05.123456789Z", datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=UTC)),
        # another zone, read as the same instant in UTC
        ("2026-01-02T08:34:05+05:30", datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),
        # a leap second, as the second before it
        ("2016-12-31T23:59:60Z", datetime(2016, 12, 31, 23, 59, 59, tzinfo=UTC)),
        # Go's zero time: a time (the bridge leaves it out as "not set")
        ("0001-01-01T00:00:00Z", datetime(1, 1, 1, tzinfo=UTC)),
    ],
)
def test_an_rfc_3339_time_is_read_as_utc(text: str, expected: datetime) -> None:
    parsed = parse_time(text)
    assert parsed == expected and parsed.utcoffset() == timedelta(0)


@pytest.mark.parametrize(
    "odd",
    [
        "0000-01-01T00:00:00Z",  # year 0: the CRD's date-time format admits it, datetime does not
        "2026-02-30T10:00:00Z",
        "2026-01-01T24:00:00Z",
        "0001-01-01T00:00:00+01:00",  # before the first instant a datetime holds
        "2026-01-01",  # a date alone
        "2026-01-01T10:00:00",  # no zone: which instant is unknown
        "20260101T100000Z",  # ISO 8601's basic form, not RFC 3339
        "yesterday",
        "",
        None,
        1767225600,
        ["2026-01-01T10:00:00Z"],
    ],
)
def test_anything_else_is_no_time_and_never_an_exception(odd: object) -> None:
    assert parse_time(odd) is None


def test_a_datetime_passes_through_and_a_naive_one_is_utc() -> None:
    assert parse_time(datetime(2026, 1, 1, 12, tzinfo=timezone(timedelta(hours=2)))) == datetime(2026, 1, 1, 10, tzinfo=UTC)
    assert parse_time(datetime(2026, 1, 1, 12)) == datetime(2026, 1, 1, 12, tzinfo=UTC)


def test_a_job_with_an_odd_start_has_no_deadline_to_pass() -> None:
    job = {"spec": {"activeDeadlineSeconds": 60}, "status": {"startTime": "0000-01-01T00:00:00Z"}}
    assert _past_deadline(job, T0) is None
    job["status"]["startTime"] = "2025-01-01T00:00:00Z"
    assert _past_deadline(job, datetime(2025, 1, 1, 1, tzinfo=UTC)) == 60


@pytest.mark.parametrize(
    ("risks", "worst"),
    [
        ([], None),
        (["low"], "low"),
        (["low", "HIGH", "medium"], "high"),
        ([None], "medium"),  # a step that names no risk is medium, as a RunbookStep defaults
        (["low", "apocalyptic"], "critical"),  # a word that is no risk: the most care, never the least
    ],
)
def test_riskiest(risks: list[str | None], worst: str | None) -> None:
    assert riskiest(risks) == worst


def test_approvals_and_actionability_rate_an_unknown_risk_alike() -> None:
    """An unknown risk word needs critical's approvers and loses critical's points: one answer."""

    def scored(risk: str) -> int:
        rb = runbook("rb-odd", ["cart-service"])
        # model_copy does not validate: the way a word no schema checked would arrive
        steps = tuple(s.model_copy(update={"risk": risk}) for s in rb.spec.steps)
        rb = rb.model_copy(update={"spec": rb.spec.model_copy(update={"steps": steps})})
        ctx = Context(now=T0, topology=TOPOLOGY, catalog={"rb-odd": rb}, records={})
        supporting = [SimpleNamespace(similarity=90, memory=memory("inc-1", runbook="rb-odd"))]
        return actionability("rb-odd", supporting, 1.0, ctx)[0]

    assert plan_risk([{"name": "a", "risk": "apocalyptic"}]) == "critical"
    assert scored("apocalyptic") == scored("critical") < scored("high")
