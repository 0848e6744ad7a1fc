"""What a plan covers of a step (its deadline, its API access) and where its parameter values come from."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from typing import Any

import pytest

from recall_operator.domain.models import IncidentSpec, Runbook, RunbookSpec
from recall_operator.domain.plan import PlanError, build_plan, undeclared_target

UNDO = {"name": "undo", "image": "kubectl:1", "command": ["kubectl", "rollout", "undo", "deployment/$(SERVICE)"],
        "dryRunCommand": ["kubectl", "rollout", "history", "deployment/$(SERVICE)"], "estimatedSeconds": 30}


def runbook(*steps: dict[str, Any], **spec: Any) -> Runbook:
    return Runbook(name="rb", spec=RunbookSpec.model_validate({"title": "t", "steps": list(steps) or [UNDO], **spec}))


def incident(**spec: Any) -> IncidentSpec:
    return IncidentSpec.model_validate({"service": "cart", "title": "down", **spec})


def test_api_access_is_part_of_the_plan_hash() -> None:
    without = build_plan(incident(), runbook(UNDO))
    with_api = build_plan(incident(), runbook({**UNDO, "apiAccess": True}))
    assert with_api.plan_hash != without.plan_hash
    assert with_api.steps[0].as_status()["apiAccess"] is True
    assert without.steps[0].as_status()["apiAccess"] is False
    # Said false explicitly is the same plan as not said.
    assert build_plan(incident(), runbook({**UNDO, "apiAccess": False})).plan_hash == without.plan_hash


def test_timeout_is_part_of_the_plan_hash() -> None:
    base = build_plan(incident(), runbook(UNDO))
    timed = build_plan(incident(), runbook({**UNDO, "timeoutSeconds": 120}))
    longer = build_plan(incident(), runbook({**UNDO, "timeoutSeconds": 600}))
    assert len({base.plan_hash, timed.plan_hash, longer.plan_hash}) == 3
    assert timed.steps[0].as_status()["timeoutSeconds"] == 120
    assert "timeoutSeconds" not in base.steps[0].as_status()  # status holds no null


def test_a_read_only_plan_keeps_the_steps_api_access() -> None:
    plan = build_plan(incident(), runbook({**UNDO, "apiAccess": True}), read_only=True)
    assert plan.steps[0].api_access and plan.steps[0].command == UNDO["dryRunCommand"]


def test_a_plan_without_the_new_fields_keeps_its_old_hash() -> None:
    """An Approval made before timeoutSeconds and apiAccess were hashed still names the same plan."""
    plan = build_plan(incident(), runbook(UNDO))
    legacy_steps = []
    for s in plan.steps:
        fields = asdict(s)
        del fields["timeout_seconds"], fields["api_access"]
        legacy_steps.append(fields)
    canonical = json.dumps({"runbook": "rb", "steps": legacy_steps, "parameters": plan.parameters},
                           sort_keys=True, separators=(",", ":"))
    assert plan.plan_hash == hashlib.sha256(canonical.encode()).hexdigest()[:16]


NAMESPACED = {**UNDO, "command": ["kubectl", "-n", "$(TARGET_NAMESPACE)", "rollout", "undo", "deployment/$(SERVICE)"]}


@pytest.mark.parametrize("parameters", [
    {"TARGET_NAMESPACE": "shop"},
    [{"name": "TARGET_NAMESPACE", "default": "shop", "description": "where the deployment runs"}],
], ids=["map", "list-of-objects"])
def test_runbook_defaults_fill_parameters_the_incident_does_not_give(parameters: Any) -> None:
    plan = build_plan(incident(), runbook(NAMESPACED, parameters=parameters))
    assert plan.parameters == {"SERVICE": "cart", "TARGET_NAMESPACE": "shop"}


def test_the_incident_overrides_a_default_and_the_hash_follows() -> None:
    rb = runbook(NAMESPACED, parameters={"TARGET_NAMESPACE": "shop"})
    default = build_plan(incident(), rb)
    chosen = build_plan(incident(parameters={"TARGET_NAMESPACE": "payments"}), rb)
    assert chosen.parameters["TARGET_NAMESPACE"] == "payments"
    assert chosen.plan_hash != default.plan_hash
    # A changed default is a changed plan too.
    assert build_plan(incident(), runbook(NAMESPACED, parameters={"TARGET_NAMESPACE": "web"})).plan_hash \
        != default.plan_hash


def test_the_incidents_service_beats_a_runbook_default() -> None:
    plan = build_plan(incident(), runbook(UNDO, parameters={"SERVICE": "something-else"}))
    assert plan.parameters["SERVICE"] == "cart"


def test_a_declared_parameter_reaches_the_steps_even_unreferenced() -> None:
    plan = build_plan(incident(), runbook(UNDO, parameters=["REASON", {"name": "WINDOW", "default": 5}]))
    assert plan.parameters == {"REASON": "", "SERVICE": "cart", "WINDOW": "5"}


def test_a_parameter_without_a_default_or_a_value_is_empty() -> None:
    assert build_plan(incident(), runbook(NAMESPACED)).parameters["TARGET_NAMESPACE"] == ""


@pytest.mark.parametrize("parameters,needle", [
    ({"TARGET_NAMESPACE": "shop; rm -rf /"}, "characters a plan does not accept"),
    (["target-namespace"], "is not a name a command can use"),
])
def test_a_bad_default_or_name_is_refused(parameters: Any, needle: str) -> None:
    with pytest.raises(PlanError, match=needle):
        build_plan(incident(), runbook(NAMESPACED, parameters=parameters))


@pytest.mark.parametrize(("command", "refused"), [
    (["kubectl", "scale", "deployment/${DEPLOYMENT}"], "${DEPLOYMENT}"),  # no shell: the text as written
    (["kubectl", "scale", "deployment/$DEPLOYMENT"], "$DEPLOYMENT"),
    (["/bin/sh", "-c", "kubectl scale deployment/$DEPLOYMENT"], None),  # the shell reads it from the environment
    (["kubectl", "scale", "deployment/$(DEPLOYMENT)"], None),  # Kubernetes fills it
    (["kubectl", "get", "$HOME"], None),  # not a parameter: the author's business
])
def test_a_parameter_written_as_a_shell_reads_it_where_no_shell_runs_is_refused(command: list[str],
                                                                                refused: str | None) -> None:
    book = runbook({**UNDO, "command": command}, parameters={"DEPLOYMENT": "cart"})
    if refused is None:
        assert build_plan(incident(), book).parameters["DEPLOYMENT"] == "cart"
    else:
        with pytest.raises(PlanError, match=rf"writes \{refused}.*says \$\(DEPLOYMENT\)"):
            build_plan(incident(), book)


@pytest.mark.parametrize(("written", "read"), [(False, "false"), (True, "true"), (1e3, "1000"), (0.5, "0.5"), (3, "3")])
def test_a_default_reads_as_its_author_wrote_it(written: Any, read: str) -> None:
    # YAML `false` and `1e3` reach the operator as JSON false and 1000.0; a command gets what was meant.
    for parameters in ({"FLAG": written}, [{"name": "FLAG", "default": written}]):
        assert runbook(parameters=parameters).spec.defaults() == {"FLAG": read}


@pytest.mark.parametrize(("parameters", "needle"), [
    ([{"name": "A", "default": "1"}, {"name": "A", "default": "2"}], "A is declared more than once"),
    (42, "must map each NAME to its default, or list the names"),
])
def test_parameters_that_say_two_things_or_nothing_are_refused(parameters: Any, needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        runbook(parameters=parameters)


RESTART_POD = {"name": "restart", "image": "kubectl:1", "command": ["kubectl", "-n", "edge", "rollout", "restart",
                                                                   "deployment/edge-proxy"]}


@pytest.mark.parametrize(("services", "step", "parameters", "target"), [
    (["cart", "checkout"], UNDO, {}, None),  # written for the service that paged
    (["checkout"], UNDO, {}, "cart"),  # its $(SERVICE) would be a service it does not list
    (["checkout"], UNDO, {"SERVICE": "checkout"}, None),  # the incident names the target it is written for
    (["checkout"], UNDO, {"SERVICE": "payments"}, "payments"),
    ([], UNDO, {}, None),  # lists no service: written for any
    (["edge-proxy"], RESTART_POD, {}, None),  # acts on its own target whatever paged
], ids=["listed", "not-listed", "named-listed", "named-not-listed", "lists-none", "no-service-parameter"])
def test_undeclared_target(services: list[str], step: dict[str, Any], parameters: dict[str, str],
                           target: str | None) -> None:
    rb = runbook(step, services=services)
    assert undeclared_target(incident(parameters=parameters), rb) == target


@pytest.mark.parametrize("given", [{"service": "--all"}, {"parameters": {"TARGET_NAMESPACE": "--all-namespaces"}}])
def test_a_value_from_the_incident_that_a_command_would_read_as_an_option_is_refused(given: dict[str, Any]) -> None:
    # `kubectl rollout undo deployment/$(SERVICE)` is harmless; `kubectl -n $(TARGET_NAMESPACE) ...` with
    # `--all-namespaces`, or a restart of `$(SERVICE)` as `--all`, acts on everything.
    with pytest.raises(PlanError, match="read as an option"):
        build_plan(incident(**given), runbook(NAMESPACED, parameters={"TARGET_NAMESPACE": "shop"}))


def test_a_runbook_authors_own_default_may_be_an_option() -> None:
    plan = build_plan(incident(), runbook(NAMESPACED, parameters={"TARGET_NAMESPACE": "--all-namespaces"}))
    assert plan.parameters["TARGET_NAMESPACE"] == "--all-namespaces"


def test_the_plugin_refuses_an_option_as_a_parameter_value_before_the_api_server_does() -> None:
    from recall_operator.domain.plan import parameter_refusal

    assert "read it as an option" in (parameter_refusal("TARGET", "-x") or "")
    assert parameter_refusal("TARGET", "x-1") is None
