"""Whether the operator can use a catalog object: the `Accepted` condition of Runbooks, migrations, contradictions.

The API server's schema refuses what it can see on one object alone; what the
operator refuses beyond that (a date that is no date, a parameter the plan
would never fill, a memory that is not remembered) used to show only as a
warning in the operator's log, and the object silently did nothing. Each
check here returns one Acceptance: accepted, or not with a sentence that
says what to change. The status written from it is built here too, so that
the handler only decides when to write. Nothing here reads the clock, the
API or memory: `now` and what memory knows come in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ValidationError

from recall_operator.domain.conditions import condition, set_condition
from recall_operator.domain.models import ContradictionSpec, IncidentSpec, MigrationSpec, Runbook, RunbookSpec
from recall_operator.domain.plan import PlanError, build_plan, unset_parameters

ACCEPTED = "Accepted"
VALID = "Valid"
INVALID_SPEC = "InvalidSpec"
INVALID_PARAMETERS = "InvalidParameters"
NO_SCOPE = "NoScope"
MEMORY_NOT_FOUND = "MemoryNotFound"
MEMORY_UNAVAILABLE = "MemoryUnavailable"

# An incident that names a plain service and sets no parameter.
PROBE_INCIDENT = IncidentSpec(service="service", title="acceptance probe")
# How many validation errors one message names; the rest are counted.
MAX_ERRORS = 3


@dataclass(frozen=True)
class Acceptance:
    accepted: bool
    reason: str
    message: str


def _valid(message: str) -> Acceptance:
    return Acceptance(True, VALID, message)


def _where(loc: Sequence[Any]) -> str:
    path = "spec"
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


# pydantic names each member of a union it tried (`migrationDate.date`,
# `migrationDate.datetime`): one field refused twice reads as one error.
_UNION_MEMBERS = frozenset({"date", "datetime", "str", "int", "float", "bool", "list", "dict", "tuple", "none"})


def _field(loc: Sequence[Any]) -> tuple[Any, ...]:
    loc = tuple(loc)
    while len(loc) > 1 and loc[-1] in _UNION_MEMBERS:
        loc = loc[:-1]
    return loc


def validation_message(exc: ValidationError) -> str:
    """The model's refusal as one line: where, and what is wrong, for the first few fields."""
    first: dict[tuple[Any, ...], str] = {}
    for e in exc.errors():
        first.setdefault(_field(e["loc"]), e["msg"])
    parts = [f"{_where(loc)}: {msg}" for loc, msg in list(first.items())[:MAX_ERRORS]]
    more = len(first) - MAX_ERRORS
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


def _model_refusal(model: type[BaseModel], spec: Mapping[str, Any]) -> str | None:
    try:
        model.model_validate(dict(spec))
    except ValidationError as exc:
        return validation_message(exc)
    return None


# -- Runbook ---------------------------------------------------------------------


def runbook_acceptance(spec: Mapping[str, Any]) -> Acceptance:
    refusal = _model_refusal(RunbookSpec, spec)
    if refusal:
        return Acceptance(False, INVALID_SPEC, f"the operator cannot use this Runbook: {refusal}")
    runbook = Runbook(name="probe", spec=RunbookSpec.model_validate(dict(spec)))
    try:
        # The plan is where parameters are refused (a name no $(NAME) can use, a
        # default that is not a plain word): ask it, with an incident that sets
        # nothing, so every declared default is used.
        build_plan(PROBE_INCIDENT, runbook)
    except PlanError as exc:
        return Acceptance(False, INVALID_PARAMETERS, f"no plan can be made from this Runbook: {exc}")
    steps = len(spec.get("steps") or ())
    # Values its commands use that it gives no default: each Incident must set them, or its plan stays advisory.
    needs = unset_parameters(PROBE_INCIDENT, runbook)
    wanted = (f"; each Incident must set {', '.join(needs)} in spec.parameters (no default), or its plan is never"
              " actionable") if needs else ""
    where = f"for {services_text(spec)}" if spec.get("services") else (
        "for no service: it may be offered for an incident on any service, with the credit of a runbook for a neighbour")
    # Without tags the catalog reads its words instead (catalog.described_by_words): say so to its author.
    unlabelled = "" if spec.get("symptoms") else (
        "; it declares no symptoms, so the catalog offers it where its title, description and steps say what an"
        " incident says")
    return _valid(f"{steps} step(s), {where}{unlabelled}{wanted}")


def services_text(spec: Mapping[str, Any]) -> str:
    """spec.services as kubectl should print it: a comma-separated list (a JSONPath column prints a JSON array)."""
    services = [str(s) for s in spec.get("services") or ()]
    return ", ".join(services) if services else "<none>"


# -- ArchitectureMigration --------------------------------------------------------


def migration_acceptance(spec: Mapping[str, Any], catalog: Iterable[str] | None = None) -> Acceptance:
    """`catalog`: the Runbooks of the namespace now (None: not known), to say which named runbook is none of them."""
    refusal = _model_refusal(MigrationSpec, spec)
    if refusal:
        return Acceptance(False, INVALID_SPEC, f"the operator cannot use this migration: {refusal}")
    runbooks = list(spec.get("impactedRunbooks") or ())
    keywords = list(spec.get("impactedFixKeywords") or ())
    # A blank phrase is found in every fix: it would make every older memory stale.
    blank = [i for i, k in enumerate(keywords) if not str(k).strip()]
    if blank:
        return Acceptance(
            False, NO_SCOPE, f"impactedFixKeywords[{blank[0]}] is blank: it would match every remembered fix"
        )
    if not runbooks and not keywords:
        return Acceptance(
            False,
            NO_SCOPE,
            "names neither impactedRunbooks nor impactedFixKeywords: it would make nothing stale",
        )
    scope = ([f"runbook {', '.join(runbooks)}"] if runbooks else []) + (
        [f"a fix mentioning {' or '.join(repr(str(k)) for k in keywords)}"] if keywords else []
    )
    message = f"older memories that used {' or '.join(scope)} are stale from now on"
    # A runbook retired since is a fair name (its memories are what goes stale); a misspelt one
    # leaves the memories of the runbook meant in force, and nothing else would say so.
    held = None if catalog is None else set(catalog)
    absent = [str(r) for r in runbooks if held is not None and str(r) not in held]
    if absent:
        message += (f"; no Runbook here is named {', '.join(absent)} now: if that is a misspelling, memories of the"
                    " runbook meant are not stale")
    return _valid(message)


# -- Contradiction ----------------------------------------------------------------


def contradiction_acceptance(spec: Mapping[str, Any], remembered: Mapping[str, bool] | None) -> Acceptance:
    """`remembered`: for each of spec.memories, whether memory holds it; None when memory cannot be asked."""
    refusal = _model_refusal(ContradictionSpec, spec)
    if refusal:
        return Acceptance(False, INVALID_SPEC, f"the operator cannot use this Contradiction: {refusal}")
    memories = [str(m) for m in spec.get("memories") or ()]
    if remembered is None:
        return Acceptance(
            False, MEMORY_UNAVAILABLE, "memory cannot be asked whether it holds these incidents; checked again soon"
        )
    missing = [m for m in memories if not remembered.get(m)]
    if missing:
        return Acceptance(
            False,
            MEMORY_NOT_FOUND,
            f"not in memory: {', '.join(missing)} (an Incident is remembered once its outcome is confirmed); "
            "it cannot match any incident until then, and is checked again",
        )
    return _valid(f"every memory it names is remembered: {', '.join(memories)}")


def keeps_previous(current: Mapping[str, Any], acceptance: Acceptance, generation: int) -> bool:
    """Whether to leave the written answer as it is: memory could not be asked about this same spec.

    A memory outage says nothing about the Contradiction: an answer already
    given for this generation stands until memory answers again.
    """
    old = condition(current.get("conditions") or (), ACCEPTED)
    return (
        acceptance.reason == MEMORY_UNAVAILABLE
        and old is not None
        and old.get("observedGeneration") == generation
        and old.get("reason") != MEMORY_UNAVAILABLE
    )


def waits_for_memory(acceptance: Acceptance) -> bool:
    """Whether the answer may change without the object changing (memory grows, or comes back)."""
    return acceptance.reason in (MEMORY_NOT_FOUND, MEMORY_UNAVAILABLE)


# -- status ------------------------------------------------------------------------


def _same(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> bool:
    keys = ("status", "reason", "message", "observedGeneration")
    return old is not None and all(old.get(k) == new.get(k) for k in keys)


def accepted_status(
    current: Mapping[str, Any],
    acceptance: Acceptance,
    generation: int,
    now: datetime,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any] | None:
    """The status fields this writer owns (the Accepted condition, observedGeneration, `extra`); None when unchanged.

    Only these go into the apply: the Runbook's win-rate counts belong to
    another writer and are never sent, so they are never touched.
    """
    conditions: Iterable[dict[str, Any]] = [dict(c) for c in current.get("conditions") or () if isinstance(c, Mapping)]
    updated, _ = set_condition(
        list(conditions), ACCEPTED, acceptance.accepted, acceptance.reason, acceptance.message, generation, now
    )
    mine = condition(updated, ACCEPTED)
    assert mine is not None
    extra = dict(extra or {})
    unchanged = (
        _same(condition(current.get("conditions") or (), ACCEPTED), mine)
        and current.get("observedGeneration") == generation
        and all(current.get(k) == v for k, v in extra.items())
    )
    if unchanged:
        return None
    return {"observedGeneration": generation, "conditions": [mine], **extra}
