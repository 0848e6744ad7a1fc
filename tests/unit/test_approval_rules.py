"""Four-eyes, approvers per risk, expiry and rejection, as a table."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from recall_operator.domain.approval_rules import (
    ApprovalSettings,
    check_approval,
    expires_at,
    lapsed_pending,
    opened_by,
)

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)
PLAN = "9f2c0a1b"
OLD_PLAN = "77aa0b0c"


def appr(name: str, approver: str, *, plan: str = PLAN, decision: str = "approve", age_min: float = 5,
         reason: str = "") -> dict[str, Any]:
    created = (NOW - timedelta(minutes=age_min)).isoformat().replace("+00:00", "Z")
    spec = {"incident": "inc-1", "planHash": plan, "decision": decision, "approver": approver}
    if reason:
        spec["reason"] = reason
    return {"metadata": {"name": name, "creationTimestamp": created}, "spec": spec}


ON = ApprovalSettings()
OFF = ApprovalSettings(four_eyes=False)
NO_TTL = ApprovalSettings(approval_ttl=None)

# (id, approval, opener, risk, others, settings, accepted, words in the reason)
CASES = [
    ("high-one-approver", appr("a", "bob"), "alice", "high", [], ON, True, "approved by bob"),
    ("low-one-approver", appr("a", "bob"), "alice", "low", [], ON, True, "approved by bob"),
    ("unrated-one-approver", appr("a", "bob"), "alice", None, [], ON, True, "approved by bob"),
    ("opener-cannot-approve", appr("a", "alice"), "alice", "high", [], ON, False, "four-eyes"),
    ("opener-may-when-off", appr("a", "alice"), "alice", "high", [], OFF, True, "approved by alice"),
    ("bridge-opened-no-opener", appr("a", "alice"), None, "high", [], ON, True, "approved by alice"),
    ("critical-needs-two", appr("a", "bob"), "alice", "critical", [], ON, False, "needs 2 distinct approvers; has 1"),
    ("critical-two-distinct", appr("b", "carol"), "alice", "critical", [appr("a", "bob")], ON, True,
     "approved by bob, carol"),
    ("critical-same-person-twice", appr("b", "bob"), "alice", "critical", [appr("a", "bob")], ON, False, "has 1"),
    ("critical-opener-does-not-count", appr("b", "bob"), "alice", "critical", [appr("a", "alice")], ON, False,
     "has 1"),
    ("critical-opener-counts-when-off", appr("b", "bob"), "alice", "critical", [appr("a", "alice")], OFF, True,
     "alice, bob"),
    ("critical-other-plan-does-not-count", appr("b", "bob"), "alice", "critical", [appr("a", "carol", plan=OLD_PLAN)],
     ON, False, "has 1"),
    ("critical-expired-other-does-not-count", appr("b", "bob"), "alice", "critical",
     [appr("a", "carol", age_min=61)], ON, False, "has 1"),
    ("critical-self-in-others-not-double", appr("b", "bob"), "alice", "critical", [appr("b", "bob")], ON, False,
     "has 1"),
    ("expired", appr("a", "bob", age_min=61), "alice", "high", [], ON, False, "expired"),
    ("fresh-at-59-min", appr("a", "bob", age_min=59), "alice", "high", [], ON, True, "approved"),
    ("no-ttl-never-expires", appr("a", "bob", age_min=60 * 24 * 30), "alice", "high", [], NO_TTL, True, "approved"),
    ("short-ttl", appr("a", "bob", age_min=6), "alice", "high", [], ApprovalSettings(approval_ttl=timedelta(minutes=5)),
     False, "expired"),
    ("rejection-itself", appr("a", "bob", decision="reject", reason="too risky"), "alice", "high", [], ON, False,
     "rejected by bob: too risky"),
    ("rejection-by-other-stops", appr("b", "bob"), "alice", "high",
     [appr("a", "carol", decision="reject", reason="wrong service")], ON, False, "rejected by carol: wrong service"),
    ("old-rejection-still-stops", appr("b", "bob"), "alice", "high",
     [appr("a", "carol", decision="reject", reason="no", age_min=600)], ON, False, "rejected by carol"),
    ("rejection-of-other-plan-does-not-stop", appr("b", "bob"), "alice", "high",
     [appr("a", "carol", plan=OLD_PLAN, decision="reject", reason="no")], ON, True, "approved by bob"),
    ("missing-approver", appr("a", ""), "alice", "high", [], ON, False, "no approver"),
    ("custom-high-needs-two", appr("a", "bob"), "alice", "high", [],
     ApprovalSettings(approvers_required={"high": 2, "critical": 3}), False, "needs 2"),
]


@pytest.mark.parametrize(
    "approval,opener,risk,others,settings,accepted,words", [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_check_approval(approval, opener, risk, others, settings, accepted, words):
    ok, reason = check_approval(approval, opener, risk, others, NOW, settings)
    assert ok is accepted, reason
    assert words in reason


def test_spec_alone_is_accepted_and_no_creation_time_is_not_fresh():
    spec = appr("a", "bob")["spec"]
    assert check_approval(spec, "alice", "high", [], NOW, NO_TTL).accepted
    assert not check_approval(spec, "alice", "high", [], NOW, ON).accepted


def test_opened_by_reads_the_admission_checked_annotation():
    assert opened_by({"metadata": {"annotations": {"recall.dev/opened-by": "alice"}}}) == "alice"
    assert opened_by({"metadata": {}}) is None
    assert opened_by({}) is None


def _pending(name: str, created: str, state: str = "Pending") -> dict:
    return {"metadata": {"name": name, "creationTimestamp": created}, "status": {"state": state}}


def test_expires_at_is_creation_plus_the_expiry() -> None:
    hour = ApprovalSettings(approval_ttl=timedelta(hours=1))
    assert expires_at(_pending("a", "2026-01-01T10:00:00Z"), hour) == datetime(2026, 1, 1, 11, tzinfo=timezone.utc)
    assert expires_at(_pending("a", "2026-01-01T10:00:00Z"), ApprovalSettings(approval_ttl=None)) is None
    assert expires_at({"metadata": {"name": "a"}}, hour) is None


def test_only_pending_approvals_past_their_expiry_have_lapsed() -> None:
    hour = ApprovalSettings(approval_ttl=timedelta(hours=1))
    now = datetime(2026, 1, 1, 12, tzinfo=timezone.utc)
    approvals = [
        _pending("old-pending", "2026-01-01T10:00:00Z"),
        _pending("fresh-pending", "2026-01-01T11:30:00Z"),
        _pending("old-accepted", "2026-01-01T10:00:00Z", state="Accepted"),  # it ran; nothing to expire
        _pending("old-refused", "2026-01-01T10:00:00Z", state="Refused"),
    ]
    assert lapsed_pending(approvals, now, hour) == ["old-pending"]
    assert lapsed_pending(approvals, now, ApprovalSettings(approval_ttl=None)) == []


# (id, approval, others, settings, accepted, words): alice opened the incident, dave set its parameters.
CHOSEN = [
    ("chooser-cannot-approve", appr("a", "dave"), [], ON, False, "dave set the incident's parameters"),
    ("chooser-may-when-off", appr("a", "dave"), [], OFF, True, "approved by dave"),
    ("another-person-approves", appr("a", "bob"), [], ON, True, "approved by bob"),
    ("critical-chooser-does-not-count", appr("b", "bob"), [appr("a", "dave")], ON, False, "has 1"),
    ("critical-two-others", appr("b", "bob"), [appr("a", "carol")], ON, True, "approved by bob, carol"),
]


@pytest.mark.parametrize("approval,others,settings,accepted,words", [c[1:] for c in CHOSEN],
                         ids=[c[0] for c in CHOSEN])
def test_who_chose_the_parameters_is_not_an_approver_of_the_plan_they_run_with(
        approval, others, settings, accepted, words):
    risk = "critical" if others else "high"
    check = check_approval(approval, "alice", risk, others, NOW, settings, parameters_by="dave")
    assert check.accepted is accepted and words in check.reason, check.reason
