"""Which Approvals count: four-eyes, approvers per risk, expiry, rejection.

Identity is settled at admission: a ValidatingAdmissionPolicy makes
``spec.approver`` equal the authenticated user who created the Approval, and
``metadata.annotations['recall.dev/opened-by']`` on an Incident equal the
user who opened it (manifests/admission.yaml). An admission policy cannot
read the Incident an Approval names, so the rules that relate several
objects live here, as a pure function the operator calls when it evaluates
an Approval:

- four-eyes: the approver may not be the incident's opener (when on);
- a plan whose riskiest step is ``critical`` needs two distinct approvers,
  anything else one; approvals are counted per planHash, so an Approval of
  an older plan never counts towards a new one;
- an Approval expires ``approval_ttl`` after it was created;
- a rejection of the plan stops it, whoever approved it;
- an incident the alert bridge opened (its opener is ``BRIDGE_OPENER``) has no
  person behind it: its plan needs ``bridge_approvers`` distinct people
  whatever its risk, so nobody who reaches the bridge approves it alone;
- a resolved incident (``spec.resolution`` recorded) accepts no approvals.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, NamedTuple

from recall_operator.domain.times import parse_time

OPENED_BY_ANNOTATION = "recall.dev/opened-by"
# Who last changed spec.parameters: admission (recall-incident-opener) lets only that user write it.
PARAMETERS_BY_ANNOTATION = "recall.dev/parameters-by"
# The opener the alert bridge records: admission lets only the operator's
# ServiceAccount write it, and no person can be it (usernames are not "system:recall:" ones).
BRIDGE_OPENER = "system:recall:alertmanager-bridge"


@dataclass(frozen=True)
class ApprovalSettings:
    # The approver may not be the person who opened the incident.
    four_eyes: bool = True
    # An Approval older than this no longer counts (None: never expires).
    # An hour: long enough to read a dry-run, short enough that nobody runs a
    # plan approved for yesterday's state of the system.
    approval_ttl: timedelta | None = timedelta(hours=1)
    # Distinct approvers a plan needs, by its riskiest step's risk.
    approvers_required: Mapping[str, int] = field(
        default_factory=lambda: {"low": 1, "medium": 1, "high": 1, "critical": 2}
    )
    # Distinct approvers an incident opened by the alert bridge needs at least:
    # nobody vouched for the alert, so one person alone never runs its plan.
    bridge_approvers: int = 2

    def required(self, risk: str | None, bridge_opened: bool = False) -> int:
        needed = max(1, int(self.approvers_required.get(str(risk or "").lower(), 1)))
        return max(needed, self.bridge_approvers) if bridge_opened else needed


class ApprovalCheck(NamedTuple):
    accepted: bool
    reason: str


def opened_by(incident: Mapping[str, Any]) -> str | None:
    """The admission-checked opener of an Incident, or None when automation opened it."""
    annotations = (incident.get("metadata") or {}).get("annotations") or {}
    value = annotations.get(OPENED_BY_ANNOTATION)
    return str(value) if value else None


def parameters_chosen_by(incident: Mapping[str, Any]) -> str | None:
    """Who last changed the Incident's spec.parameters, admission-checked; None when nobody but its opener did.

    The parameters are values the plan runs with (which deployment, how many
    replicas): whoever chose them chose part of the plan, and four-eyes keeps
    them from approving it alone, as it keeps the opener.
    """
    annotations = (incident.get("metadata") or {}).get("annotations") or {}
    value = annotations.get(PARAMETERS_BY_ANNOTATION)
    return str(value) if value else None


def resolved_by(incident: Mapping[str, Any]) -> str | None:
    """Who confirmed the incident's outcome ("someone" when unnamed), or None while it is open."""
    resolution = (incident.get("spec") or {}).get("resolution")
    if not resolution:
        return None
    return str((resolution if isinstance(resolution, Mapping) else {}).get("confirmedBy") or "someone")


def _spec(approval: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = approval.get("spec")
    return spec if isinstance(spec, Mapping) else approval


def _name(approval: Mapping[str, Any]) -> str:
    return str((approval.get("metadata") or {}).get("name") or "")


def _created(approval: Mapping[str, Any]) -> datetime | None:
    return parse_time((approval.get("metadata") or {}).get("creationTimestamp"))


def expires_at(approval: Mapping[str, Any], settings: ApprovalSettings) -> datetime | None:
    """When an Approval stops counting; None when approvals never expire or its age is unknown."""
    created = _created(approval)
    if settings.approval_ttl is None or created is None:
        return None
    return created + settings.approval_ttl


def _expired(approval: Mapping[str, Any], now: datetime, settings: ApprovalSettings) -> bool:
    if settings.approval_ttl is None:
        return False
    deadline = expires_at(approval, settings)
    if deadline is None:
        return True  # an Approval without a creation time cannot prove it is fresh
    now = now if now.tzinfo else now.replace(tzinfo=timezone.utc)
    return now > deadline


def lapsed_pending(approvals: Iterable[Mapping[str, Any]], now: datetime, settings: ApprovalSettings) -> list[str]:
    """Pending Approvals (valid, waiting for more approvers) that expired before the others came."""
    return [
        _name(a) for a in approvals
        if str((a.get("status") or {}).get("state") or "") == "Pending" and _expired(a, now, settings)
    ]


def check_approval(
    approval: Mapping[str, Any],
    incident_opened_by: str | None,
    plan_risk: str | None,
    other_approvers: Iterable[Mapping[str, Any]],
    now: datetime,
    settings: ApprovalSettings | None = None,
    parameters_by: str | None = None,
) -> ApprovalCheck:
    """Whether `approval` lets its plan run now, and why (not).

    Four-eyes counts neither the opener nor who last set the incident's
    parameters (`parameters_by`) as an approver of its plan.

    `approval` is an Approval object (or its spec); `other_approvers` are the
    other Approvals of the same Incident (any plan; only those of this
    approval's planHash count). `accepted` is True only when this Approval is
    valid and, with the valid approvals of the same plan, reaches the number of
    distinct approvers the plan's risk needs and nobody rejected the plan.
    """
    settings = settings or ApprovalSettings()
    spec = _spec(approval)
    approver = str(spec.get("approver") or "")
    plan = str(spec.get("planHash") or "")
    if not approver:
        return ApprovalCheck(False, "the Approval names no approver")
    if not plan:
        return ApprovalCheck(False, "the Approval names no plan")

    # A rejection of this plan, by anyone at any time, stops it.
    if spec.get("decision") == "reject":
        return ApprovalCheck(False, f"plan {plan} rejected by {approver}: {spec.get('reason') or 'no reason given'}")
    own = _name(approval)
    others = [
        o
        for o in other_approvers
        if o is not approval and not (own and _name(o) == own) and str(_spec(o).get("planHash") or "") == plan
    ]
    for other in others:
        ospec = _spec(other)
        if ospec.get("decision") == "reject":
            return ApprovalCheck(
                False, f"plan {plan} was rejected by {ospec.get('approver')}: {ospec.get('reason') or 'no reason given'}"
            )
    if spec.get("decision") != "approve":
        return ApprovalCheck(False, f"unknown decision {spec.get('decision')!r}")

    if settings.four_eyes and incident_opened_by is not None and approver == incident_opened_by:
        return ApprovalCheck(
            False, f"four-eyes: {approver} opened the incident and cannot approve its plan; another person must"
        )
    if settings.four_eyes and parameters_by is not None and approver == parameters_by:
        return ApprovalCheck(
            False, f"four-eyes: {approver} set the incident's parameters (values its plan runs with) and cannot "
            "approve that plan; another person must"
        )
    if _expired(approval, now, settings):
        return ApprovalCheck(False, f"the Approval by {approver} expired (older than {settings.approval_ttl}); approve again")

    approvers = {approver}
    for other in others:
        ospec = _spec(other)
        who = str(ospec.get("approver") or "")
        if ospec.get("decision") != "approve" or not who:
            continue
        if settings.four_eyes and who in {incident_opened_by, parameters_by} - {None}:
            continue
        if _expired(other, now, settings):
            continue
        approvers.add(who)
    bridge = incident_opened_by == BRIDGE_OPENER
    needed = settings.required(plan_risk, bridge)
    names = ", ".join(sorted(approvers))
    if len(approvers) < needed:
        why = (f"the alert bridge opened the incident, so plan {plan}" if needed > settings.required(plan_risk)
               else f"plan {plan} is {plan_risk or 'unrated'} risk and")
        return ApprovalCheck(False, f"{why} needs {needed} distinct approvers; has {len(approvers)} ({names})")
    return ApprovalCheck(True, f"plan {plan} approved by {names}")
