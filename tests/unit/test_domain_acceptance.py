"""The Accepted condition of Runbooks, migrations and contradictions: what is refused, and the status written."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import ValidationError

from recall_operator.domain import acceptance as acc
from recall_operator.domain.models import RunbookSpec

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
STEP = {"name": "restart", "image": "kubectl:1.36", "command": ["kubectl", "rollout", "restart", "deployment/$(SERVICE)"]}
RUNBOOK = {"title": "Restart the deployment", "services": ["checkout-api", "cart"], "steps": [STEP]}
MIGRATION = {"targetService": "redis-cluster", "migrationDate": "2025-01-15",
             "impactedRunbooks": ["redis-restart-vm"], "impactedFixKeywords": ["restart redis-server"]}
CONTRADICTION = {"topic": "what stops the rebalance loop", "memories": ["inc-a", "inc-b"]}


def _with(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in changes.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


@pytest.mark.parametrize(
    ("spec", "accepted", "reason", "in_message"),
    [
        (RUNBOOK, True, acc.VALID, "1 step(s), for checkout-api, cart; it declares no symptoms, so the catalog"),
        (_with(RUNBOOK, symptoms=["5xx"]), True, acc.VALID, "1 step(s), for checkout-api, cart"),
        (_with(RUNBOOK, services=None), True, acc.VALID, "for no service: it may be offered for an incident on any"),
        (_with(RUNBOOK, parameters={"TARGET": "pod-1"}), True, acc.VALID, "1 step(s)"),
        (_with(RUNBOOK, parameters=["TARGET", {"name": "REPLICAS", "default": 3}]), True, acc.VALID, "1 step(s)"),
        # A value its commands use with no default: accepted, saying every Incident must give it.
        (_with(RUNBOOK, steps=[dict(STEP, rollbackCommand=["kubectl", "rollout", "undo", "--to-revision=$(REV)"])]),
         True, acc.VALID, "each Incident must set REV in spec.parameters (no default), or its plan is never actionable"),
        # What the API server lets through and the model refuses.
        (_with(RUNBOOK, steps=[]), False, acc.INVALID_SPEC, "spec.steps"),
        (_with(RUNBOOK, steps=[{"name": "x", "image": "busybox"}]), False, acc.INVALID_SPEC,
         "spec.steps[0].command: Field required"),
        (_with(RUNBOOK, steps=[dict(STEP, estimatedSeconds=0)]), False, acc.INVALID_SPEC,
         "spec.steps[0].estimatedSeconds"),
        (_with(RUNBOOK, parameters="SERVICE"), False, acc.INVALID_SPEC, "spec.parameters"),
        (_with(RUNBOOK, parameters=[{"default": "x"}]), False, acc.INVALID_SPEC, "spec.parameters[0].name"),
        # What the plan refuses: parameters no step could ever be given.
        (_with(RUNBOOK, parameters={"target": "pod-1"}), False, acc.INVALID_PARAMETERS, "'target'"),
        (_with(RUNBOOK, parameters={"TARGET": "pod-1; rm -rf /"}), False, acc.INVALID_PARAMETERS,
         "characters a plan does not accept"),
    ],
)
def test_runbook_acceptance(spec: dict[str, Any], accepted: bool, reason: str, in_message: str) -> None:
    got = acc.runbook_acceptance(spec)
    assert (got.accepted, got.reason) == (accepted, reason), got.message
    assert in_message in got.message


@pytest.mark.parametrize(
    ("services", "text"),
    [(["checkout-api", "cart"], "checkout-api, cart"), (["cart"], "cart"), ([], "<none>"), (None, "<none>")],
)
def test_services_print_as_a_list(services: list[str] | None, text: str) -> None:
    assert acc.services_text(_with(RUNBOOK, services=services)) == text


@pytest.mark.parametrize(
    ("spec", "accepted", "reason", "in_message"),
    [
        (MIGRATION, True, acc.VALID, "runbook redis-restart-vm or a fix mentioning 'restart redis-server'"),
        (_with(MIGRATION, impactedFixKeywords=None), True, acc.VALID, "runbook redis-restart-vm are stale"),
        (_with(MIGRATION, migrationDate="2025-01-15T04:00:00Z"), True, acc.VALID, "stale"),
        # The CRD's pattern lets a day through that no calendar has.
        (_with(MIGRATION, migrationDate="2025-02-30"), False, acc.INVALID_SPEC, "spec.migrationDate: Input should"),
        (_with(MIGRATION, targetService=""), False, acc.INVALID_SPEC, "spec.targetService"),
        (_with(MIGRATION, confidenceDeduction=101), False, acc.INVALID_SPEC, "spec.confidenceDeduction"),
        (_with(MIGRATION, impactedRunbooks=None, impactedFixKeywords=None), False, acc.NO_SCOPE,
         "would make nothing stale"),
        (_with(MIGRATION, impactedFixKeywords=["ok", "  "]), False, acc.NO_SCOPE,
         "impactedFixKeywords[1] is blank"),
    ],
)
def test_migration_acceptance(spec: dict[str, Any], accepted: bool, reason: str, in_message: str) -> None:
    got = acc.migration_acceptance(spec)
    assert (got.accepted, got.reason) == (accepted, reason), got.message
    assert in_message in got.message


def test_a_migration_naming_a_runbook_the_namespace_has_not_says_so() -> None:
    # Misspelt, it would leave the memories of the runbook meant in force; retired, it is fair. Said either way.
    named = _with(MIGRATION, impactedRunbooks=["redis-restart-vm", "redis-restart-vmm"])
    got = acc.migration_acceptance(named, ["redis-restart-vm", "k8s-rollback"])
    assert got.accepted and got.reason == acc.VALID
    assert "no Runbook here is named redis-restart-vmm now" in got.message
    assert "named redis-restart-vm now" not in got.message and "named redis-restart-vm," not in got.message
    assert "no Runbook" not in acc.migration_acceptance(MIGRATION, ["redis-restart-vm"]).message
    assert "no Runbook" not in acc.migration_acceptance(named).message  # the catalog not known: nothing said


@pytest.mark.parametrize(
    ("spec", "remembered", "accepted", "reason", "in_message"),
    [
        (CONTRADICTION, {"inc-a": True, "inc-b": True}, True, acc.VALID, "inc-a, inc-b"),
        (CONTRADICTION, {"inc-a": True, "inc-b": False}, False, acc.MEMORY_NOT_FOUND, "not in memory: inc-b ("),
        (CONTRADICTION, {}, False, acc.MEMORY_NOT_FOUND, "not in memory: inc-a, inc-b"),
        (CONTRADICTION, None, False, acc.MEMORY_UNAVAILABLE, "memory cannot be asked"),
        (_with(CONTRADICTION, memories=["inc-a"]), {"inc-a": True}, False, acc.INVALID_SPEC, "spec.memories"),
        (_with(CONTRADICTION, resolution={"state": "settled"}), {"inc-a": True, "inc-b": True}, False,
         acc.INVALID_SPEC, "spec.resolution.state"),
    ],
)
def test_contradiction_acceptance(
    spec: dict[str, Any], remembered: dict[str, bool] | None, accepted: bool, reason: str, in_message: str
) -> None:
    got = acc.contradiction_acceptance(spec, remembered)
    assert (got.accepted, got.reason) == (accepted, reason), got.message
    assert in_message in got.message


@pytest.mark.parametrize(
    ("acceptance", "waits"),
    [
        (acc.Acceptance(True, acc.VALID, ""), False),
        (acc.Acceptance(False, acc.INVALID_SPEC, ""), False),
        (acc.Acceptance(False, acc.MEMORY_NOT_FOUND, ""), True),
        (acc.Acceptance(False, acc.MEMORY_UNAVAILABLE, ""), True),
    ],
)
def test_only_an_answer_that_depends_on_memory_is_asked_again(acceptance: acc.Acceptance, waits: bool) -> None:
    assert acc.waits_for_memory(acceptance) is waits


def test_a_field_refused_by_each_member_of_a_union_is_one_error() -> None:
    got = acc.migration_acceptance(_with(MIGRATION, migrationDate="2025-02-30"))
    assert got.message.count("spec.migrationDate") == 1, got.message


def test_many_validation_errors_are_named_up_to_a_few_and_counted() -> None:
    bad = {"title": "t", "steps": [{"name": f"s{i}"} for i in range(3)]}  # image and command missing in each
    with pytest.raises(ValidationError) as refused:
        RunbookSpec.model_validate(bad)
    total = len({tuple(e["loc"]) for e in refused.value.errors()})
    assert total > acc.MAX_ERRORS
    got = acc.runbook_acceptance(bad)
    assert got.message.count("Field required") == acc.MAX_ERRORS
    assert got.message.endswith(f"; and {total - acc.MAX_ERRORS} more")


OK = acc.Acceptance(True, acc.VALID, "1 step(s), for cart")
BAD = acc.Acceptance(False, acc.INVALID_SPEC, "spec.steps: too short")


def test_first_status_has_the_condition_the_generation_and_the_extra_fields_only() -> None:
    # Win-rate counts belong to another writer: an apply never sends them, so it never touches them.
    current = {"timesExecuted": 3, "timesSucceeded": 2, "winRate": 0.6}
    got = acc.accepted_status(current, OK, 4, NOW, {"servicesText": "cart"})
    assert got == {
        "observedGeneration": 4,
        "servicesText": "cart",
        "conditions": [{"type": "Accepted", "status": "True", "reason": "Valid", "message": "1 step(s), for cart",
                        "observedGeneration": 4, "lastTransitionTime": NOW.isoformat()}],
    }


def test_the_status_it_wrote_comes_back_unchanged_so_nothing_is_written_again() -> None:
    written = acc.accepted_status({}, OK, 4, NOW, {"servicesText": "cart"})
    assert written is not None
    # The server holds our fields beside others' (another condition, the counts).
    held = {**written, "timesExecuted": 1,
            "conditions": [{"type": "Other", "status": "True"}, *written["conditions"]]}
    assert acc.accepted_status(held, OK, 4, NOW + timedelta(minutes=5), {"servicesText": "cart"}) is None


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (dict(acceptance=BAD), "the answer changed"),
        (dict(generation=5), "a new spec was checked"),
        (dict(extra={"servicesText": "cart, checkout-api"}), "the services changed"),
        (dict(acceptance=acc.Acceptance(True, acc.VALID, "2 step(s), for cart")), "the message changed"),
    ],
)
def test_a_changed_answer_is_written(change: dict[str, Any], why: str) -> None:
    args: dict[str, Any] = {"acceptance": OK, "generation": 4, "extra": {"servicesText": "cart"}}
    held = acc.accepted_status({}, OK, 4, NOW, {"servicesText": "cart"})
    assert held is not None
    args.update(change)
    assert acc.accepted_status(held, args["acceptance"], args["generation"], NOW, args["extra"]) is not None, why


def test_last_transition_time_moves_only_when_the_answer_flips() -> None:
    later = NOW + timedelta(minutes=5)
    first = acc.accepted_status({}, OK, 1, NOW)
    assert first is not None
    same_status = acc.accepted_status(first, acc.Acceptance(True, acc.VALID, "reworded"), 2, later)
    assert same_status is not None
    assert same_status["conditions"][0]["lastTransitionTime"] == NOW.isoformat()
    flipped = acc.accepted_status(first, BAD, 2, later)
    assert flipped is not None
    assert flipped["conditions"][0]["lastTransitionTime"] == later.isoformat()
    assert flipped["conditions"][0]["status"] == "False"


UNAVAILABLE = acc.Acceptance(False, acc.MEMORY_UNAVAILABLE, "memory cannot be asked")


@pytest.mark.parametrize(
    ("held", "generation", "keeps"),
    [
        (OK, 4, True),  # an answer for this spec stands through a memory outage
        (acc.Acceptance(False, acc.MEMORY_NOT_FOUND, "not in memory: inc-b"), 4, True),
        (OK, 5, False),  # a new spec: say that memory could not be asked
        (UNAVAILABLE, 4, False),  # nothing better to keep (and the apply finds nothing changed)
        (None, 4, False),  # never answered
    ],
)
def test_a_memory_outage_keeps_the_answer_given_for_the_same_spec(
    held: acc.Acceptance | None, generation: int, keeps: bool
) -> None:
    current = acc.accepted_status({}, held, 4, NOW) if held else {}
    assert current is not None
    assert acc.keeps_previous(current, UNAVAILABLE, generation) is keeps
    assert acc.keeps_previous(current, OK, generation) is False


def test_a_runbook_that_declares_symptoms_is_not_told_it_is_read_by_its_words() -> None:
    assert "declares no symptoms" not in acc.runbook_acceptance(_with(RUNBOOK, symptoms=["5xx"])).message
