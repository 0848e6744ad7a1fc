"""The shapes of the resources the domain reasons about.

These mirror the spec schemas of the CRDs in `crds/`: tests/unit/test_schema_drift.py
fails on any field one has and the other has not. A field the operator derives
and the resource never carries says so with `derived()`. They are pydantic
models so that a malformed dataset line or resource is refused with the field
that is wrong, and they ignore fields they do not know.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from recall_operator.domain.times import parse_time

Severity = Literal["critical", "high", "medium", "low"]
ActionResult = Literal["succeeded", "failed", "partial"]
Risk = Literal["low", "medium", "high", "critical"]
Mode = Literal["novel", "advisory", "actionable"]
RISK_ORDER: tuple[Risk, ...] = ("low", "medium", "high", "critical")


def riskiest(risks: Iterable[str | None]) -> Risk | None:
    """The highest of these steps' risks; None when there is no step.

    A step that names no risk is medium, as a RunbookStep defaults; a word that
    is no risk counts as critical: a plan nobody can rate gets the most care
    (approvers, points off), never the least.
    """
    worst: Risk | None = None
    for raw in risks:
        word = str(raw or "medium").lower()
        risk: Risk = next((r for r in RISK_ORDER if r == word), "critical")
        if worst is None or RISK_ORDER.index(risk) > RISK_ORDER.index(worst):
            worst = risk
    return worst


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)


DERIVED = "derived"


def derived(**kwargs: Any) -> Any:
    """A field the operator works out (memory keeps it), never part of the resource's spec.

    The CRD does not declare it, so nobody can write it; the schema drift test
    knows it by this mark.
    """
    return Field(json_schema_extra={DERIVED: True}, **kwargs)


def _scalar_as_written(value: Any) -> Any:
    """A number or a boolean where text is meant (a label, a deploy's id), read as written: `42`, `true`.

    The CRD refuses them on the cluster; a replay history (whose format types
    neither) loses no incident over `"revision": 42`.
    """
    return _default(value) if isinstance(value, bool | int | float) else value


def _labels_as_written(value: Any) -> Any:
    return {k: _scalar_as_written(v) for k, v in value.items()} if isinstance(value, dict) else value


class Deployment(_Model):
    id: str | None = None
    revision: str | None = None
    environment: str | None = None
    minutes_since_deploy: float | None = Field(default=None, alias="minutesSinceDeploy", ge=0)

    _as_written = field_validator("id", "revision", "environment", mode="before")(_scalar_as_written)


class Action(_Model):
    action: str
    result: ActionResult
    # Said by a person, not seen by the operator: a success claimed for a runbook
    # the operator did not run for that incident (domain.consolidation).
    reported: bool = derived(default=False)
    # Seen by the operator, not said by a person: its own run of the incident's
    # plan that failed, kept when the outcome does not say so (domain.consolidation).
    observed: bool = derived(default=False)


class Resolution(_Model):
    """A human-confirmed outcome: the only thing that writes memory."""

    root_cause: str = Field(default="", alias="rootCause")
    summary: str = ""
    runbook: str | None = None
    actions: tuple[Action, ...] = ()
    confirmed_by: str = Field(default="", alias="confirmedBy")
    confirmed_at: datetime | None = Field(default=None, alias="confirmedAt")
    # The runbook a person said fixed it when the operator never ran it there:
    # remembered, shown, but no runbook's precedent or track record.
    reported_runbook: str | None = derived(default=None, alias="reportedRunbook")

    @field_validator("runbook", mode="before")
    @classmethod
    def _no_runbook_is_none(cls, value: Any) -> Any:
        # `runbook: ""` says no runbook; read as anything else it passed for a named one where
        # one person's word is weighed (consolidation.one_voice).
        return None if isinstance(value, str) and not value.strip() else value


class Correction(Resolution):
    """A later, signed restatement of a recorded outcome (spec.corrections); the newest one counts."""

    reason: str = ""
    # The outcome stays on record, but memory offers the incident as nobody's precedent
    # (consolidation.withdrawal): a report that misleads, whatever it says, can be taken out.
    withdrawn: bool = False


class IncidentSpec(_Model):
    service: str = Field(min_length=1)
    title: str = Field(min_length=1)
    severity: Severity = "medium"
    description: str = ""
    symptoms: tuple[str, ...] = ()
    error_signatures: tuple[str, ...] = Field(default=(), alias="errorSignatures")
    deployment: Deployment | None = None
    started_at: datetime | None = Field(default=None, alias="startedAt")
    labels: dict[str, str] = Field(default_factory=dict)
    parameters: dict[str, str] = Field(default_factory=dict)
    resolution: Resolution | None = None
    corrections: tuple[Correction, ...] = ()

    _labels_as_written = field_validator("labels", mode="before")(_labels_as_written)

    @field_validator("started_at", mode="before")
    @classmethod
    def _leap_second(cls, value: Any) -> Any:
        # RFC 3339 allows second 60, which datetime cannot hold: read as parse_time reads every time.
        return parse_time(value) or value if isinstance(value, str) else value


# What recall and scoring read of an incident's own text. The CRD lets a spec
# hold 64 KB of description and 128 log lines of 8 KB each; read whole, one
# such Incident (anyone who may open one, or an alert, can write it) held the
# event loop for about 3 s of scoring on each answer and each re-evaluation,
# and its memory for as long when written. A report says what it is about in
# its first lines, as a log says in its first ones; the development
# histories' longest description is under 1,000 characters and their log
# lines are three at most, under 300 characters each, so none is cut.
READ_DESCRIPTION = 4_096
READ_SIGNATURES = 16
READ_SIGNATURE = 512


def as_read(spec: IncidentSpec) -> IncidentSpec:
    """The spec with its description and log lines cut to what recall and scoring read (the object keeps them whole)."""
    signatures = spec.error_signatures
    if (len(spec.description) <= READ_DESCRIPTION and len(signatures) <= READ_SIGNATURES
            and all(len(line) <= READ_SIGNATURE for line in signatures)):
        return spec
    return spec.model_copy(update={
        "description": spec.description[:READ_DESCRIPTION],
        "error_signatures": tuple(line[:READ_SIGNATURE] for line in signatures[:READ_SIGNATURES]),
    })


class Incident(_Model):
    name: str
    spec: IncidentSpec
    namespace: str = "default"
    # The object's uid (None: not known, as in a replay): tells the memory of an
    # earlier incident that had this name from this incident's own.
    uid: str | None = None
    # When the object was created (None: not known): tells it too, where the
    # memory carries no uid (written before memories kept one).
    created_at: datetime | None = None


class RunbookStep(_Model):
    name: str
    image: str
    command: tuple[str, ...]
    dry_run_command: tuple[str, ...] = Field(default=(), alias="dryRunCommand")
    rollback_command: tuple[str, ...] = Field(default=(), alias="rollbackCommand")
    risk: Risk = "medium"
    blast_radius: str = Field(default="", alias="blastRadius")
    estimated_seconds: int = Field(default=60, alias="estimatedSeconds", gt=0)
    backoff_limit: int = Field(default=0, alias="backoffLimit", ge=0)
    # The Job's deadline; None: the estimate times a margin (kube.jobs).
    timeout_seconds: int | None = Field(default=None, alias="timeoutSeconds", gt=0)
    # The step calls the Kubernetes API as the executor account: its pod gets a
    # short-lived projected token. Every other step's pod has no credentials.
    api_access: bool = Field(default=False, alias="apiAccess")


class RunbookParameter(_Model):
    name: str
    default: str | None = None
    description: str = ""


def _default(value: Any) -> str:
    """A parameter's default as the Runbook's author wrote it in YAML: `false`, not Python's `False`;
    `1000` for a number YAML or JSON read as 1000.0."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _parameters(raw: Any) -> Any:
    """The CRD's two spellings of parameters, a map name -> default or a list, as one list."""
    if raw is None:
        return ()
    if isinstance(raw, dict):
        return tuple({"name": k, "default": None if v is None else _default(v)} for k, v in raw.items())
    if isinstance(raw, (list, tuple)):
        out = []
        for item in raw:
            if isinstance(item, str):
                out.append({"name": item})
            elif isinstance(item, dict) and item.get("default") is not None:
                out.append({**item, "default": _default(item["default"])})
            else:
                out.append(item)
        names = [i.get("name") if isinstance(i, dict) else None for i in out]
        twice = sorted({n for n in names if n is not None and names.count(n) > 1})
        if twice:
            raise ValueError(f"parameter {', '.join(map(str, twice))} is declared more than once")
        return tuple(out)
    raise ValueError("parameters must map each NAME to its default, or list the names (with defaults)")


class RunbookSpec(_Model):
    title: str
    description: str = ""
    services: tuple[str, ...] = ()
    symptoms: tuple[str, ...] = ()
    parameters: tuple[RunbookParameter, ...] = ()
    steps: tuple[RunbookStep, ...] = Field(min_length=1)

    _normalise_parameters = field_validator("parameters", mode="before")(_parameters)

    def defaults(self) -> dict[str, str]:
        """The declared parameters' default values (a parameter without one is not here)."""
        return {p.name: p.default for p in self.parameters if p.default is not None}


class Runbook(_Model):
    name: str
    spec: RunbookSpec
    # When the catalog got it (the object's creationTimestamp): a runbook
    # written after memory's fix last worked may be the team's newer fix.
    created_at: datetime | None = None


class RunbookRecord(_Model):
    """A runbook's track record, counted from confirmed outcomes."""

    times_executed: int = 0
    times_succeeded: int = 0


class MigrationSpec(_Model):
    target_service: str = Field(alias="targetService", min_length=1)
    migration_date: date | datetime = Field(alias="migrationDate")
    old_arch: str = Field(default="", alias="oldArch")
    new_arch: str = Field(default="", alias="newArch")
    impacted_runbooks: tuple[str, ...] = Field(default=(), alias="impactedRunbooks")
    impacted_fix_keywords: tuple[str, ...] = Field(default=(), alias="impactedFixKeywords")
    confidence_deduction: int = Field(default=25, alias="confidenceDeduction", ge=0, le=100)

    @field_validator("migration_date", mode="before")
    @classmethod
    def _a_time_is_a_moment(cls, value: Any) -> Any:
        # Read by the union alone, a time at midnight with an offset
        # ("2025-01-15T00:00:00-08:00") became the day 2025-01-15, in UTC: eight
        # hours early. Anything with a time of day is a moment, offset and all.
        if isinstance(value, str) and len(value.strip()) > len("2025-01-15"):
            moment = parse_time(value)
            if moment is None:
                raise ValueError(f"{value!r} is neither a day (2025-01-15) nor an RFC 3339 time")
            return moment
        return value


class ArchitectureMigration(_Model):
    name: str
    spec: MigrationSpec
    # When the operator learned of it; a migration applies from here on even
    # when its migrationDate is only a day.
    applied_at: datetime | None = None


class Claim(_Model):
    memory: str
    claim: str


class ContradictionResolution(_Model):
    state: Literal["open", "reconciled"] = "open"
    note: str = ""
    reconciled_by: str = Field(default="", alias="reconciledBy")
    reconciled_at: datetime | None = Field(default=None, alias="reconciledAt")


class ContradictionSpec(_Model):
    topic: str
    memories: tuple[str, ...] = Field(min_length=2)
    claims: tuple[Claim, ...] = ()
    resolution: ContradictionResolution = ContradictionResolution()


class Contradiction(_Model):
    name: str
    spec: ContradictionSpec


class EpisodicMemory(_Model):
    """One past incident with its confirmed outcome, as memory holds it."""

    incident: str
    spec: IncidentSpec
    resolution: Resolution
    resolved_at: datetime
    namespace: str = "default"
    # What the summary and root cause state that nothing recorded about the
    # incident says (grounding.unsupported_claims), worked out when it is consolidated.
    unsupported: tuple[str, ...] = derived(default=())
    # The uid of the Incident object it came from (None: written before it was kept, or replayed):
    # a name deleted and used again is another incident (consolidation.name_taken).
    uid: str | None = derived(default=None)
    # Who opened the Incident (its admission-checked recall.dev/opened-by; None: not known, as in a
    # replay or a memory written before it was kept): tells an outcome one person both reported
    # and confirmed from one someone or something else witnessed (consolidation.one_voice).
    opened_by: str | None = derived(default=None, alias="openedBy")
    # The runbook the operator ran here and what its steps were then (plan.steps_digest; None: it ran
    # none, or the memory is older than this): a Runbook made anew with other steps takes no record of it.
    ran_steps: tuple[str, str] | None = derived(default=None, alias="ranSteps")
    # The root cause as first confirmed, when a correction since restated it (None: never restated);
    # consolidation.as_first_resolved keeps it. What a contradiction's sides stand for is read from it.
    first_cause: str | None = derived(default=None, alias="firstCause")
    # Who took it out of recall and why, when the newest correction withdrew it (None: it is recalled).
    withdrawn: str | None = derived(default=None)
