"""Policy settings from the environment: defaults, overrides, and refusals that name the variable."""

import pytest

from recall_operator.config import ConfigError, settings_from_env
from recall_operator.domain.recommend import Settings


def test_defaults_when_nothing_is_set() -> None:
    assert settings_from_env({}) == Settings()


def test_bars_and_weights_are_read() -> None:
    s = settings_from_env(
        {"RECALL_NOVEL_BAR": "50", "RECALL_ACTIONABLE_BAR": "70", "RECALL_WEIGHT_LEXICAL": "0.30", "RECALL_WEIGHT_DNA": "0.10"}
    )
    assert (s.novel_bar, s.actionable_bar) == (50, 70)
    assert (s.weights.lexical, s.weights.dna) == (0.30, 0.10)


def test_the_recognition_bars_are_read() -> None:
    s = settings_from_env({"RECALL_RECOGNITION_BAR": "120", "RECALL_RECOGNITION_FLOOR": "45"})
    assert (s.recognition_bar, s.recognition_floor) == (120, 45)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"RECALL_NOVEL_BAR": "high"}, "RECALL_NOVEL_BAR='high' is not a number"),
        ({"RECALL_ACTIONABLE_BAR": "101"}, "RECALL_ACTIONABLE_BAR=101 is outside 0..100"),
        ({"RECALL_RECOGNITION_FLOOR": "101"}, "RECALL_RECOGNITION_FLOOR=101 is outside 0..100"),
        ({"RECALL_WEIGHT_SERVICE": "-0.1"}, "RECALL_WEIGHT_SERVICE=-0.1 is outside 0..1"),
        ({"RECALL_WEIGHT_LEXICAL": "0.5"}, "add up to 1.15; they must add up to 1"),
    ],
)
def test_wrong_values_are_refused_with_the_variable_named(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(".", r"\.")):
        settings_from_env(env)


# -- approval and execution policy ---------------------------------------------

from datetime import timedelta  # noqa: E402

from recall_operator.config import (  # noqa: E402
    ExecutionSettings,
    approval_settings_from_env,
    execution_settings_from_env,
)
from recall_operator.domain.approval_rules import ApprovalSettings  # noqa: E402


def test_approval_defaults_when_nothing_is_set() -> None:
    assert approval_settings_from_env({}) == ApprovalSettings()
    assert execution_settings_from_env({}) == ExecutionSettings()


def test_the_values_the_chart_renders_are_read() -> None:
    # The chart quotes booleans and numbers: "true", "false", "60".
    a = approval_settings_from_env({"RECALL_FOUR_EYES": "false", "RECALL_APPROVAL_EXPIRY_MINUTES": "60"})
    assert (a.four_eyes, a.approval_ttl) == (False, timedelta(minutes=60))
    assert approval_settings_from_env({"RECALL_FOUR_EYES": "true"}).four_eyes is True
    assert approval_settings_from_env({"RECALL_APPROVAL_EXPIRY_MINUTES": "0.05"}).approval_ttl == timedelta(seconds=3)
    assert approval_settings_from_env({"RECALL_APPROVAL_EXPIRY_MINUTES": "0"}).approval_ttl is None  # never expires
    approvers = approval_settings_from_env({"RECALL_APPROVERS_HIGH": "2", "RECALL_APPROVERS_CRITICAL": "3"})
    assert approvers.approvers_required == {"low": 1, "medium": 1, "high": 2, "critical": 3}
    assert (approvers.required("high"), approvers.required("critical"), approvers.required("low")) == (2, 3, 1)
    e = execution_settings_from_env({"RECALL_AUTO_DRY_RUN": "false", "RECALL_EXECUTOR_SERVICE_ACCOUNT": "runner-x"})
    assert (e.auto_dry_run, e.executor_service_account) == (False, "runner-x")
    assert execution_settings_from_env({"RECALL_AUTO_DRY_RUN": "true"}).auto_dry_run is True


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"RECALL_FOUR_EYES": "maybe"}, "RECALL_FOUR_EYES='maybe' is not true or false"),
        ({"RECALL_APPROVAL_EXPIRY_MINUTES": "an hour"}, "RECALL_APPROVAL_EXPIRY_MINUTES='an hour' is not a number"),
        ({"RECALL_APPROVAL_EXPIRY_MINUTES": "-5"}, "RECALL_APPROVAL_EXPIRY_MINUTES=-5 is outside"),
        ({"RECALL_APPROVAL_EXPIRY_MINUTES": "inf"}, "RECALL_APPROVAL_EXPIRY_MINUTES=inf is outside"),
        ({"RECALL_APPROVERS_CRITICAL": "0"}, "RECALL_APPROVERS_CRITICAL=0 is outside 1..5"),
        ({"RECALL_APPROVERS_HIGH": "1.5"}, "RECALL_APPROVERS_HIGH=1.5 is not a whole number"),
        ({"RECALL_APPROVERS_HIGH": "two"}, "RECALL_APPROVERS_HIGH='two' is not a number"),
        # A critical plan may never be easier to run than a high-risk one.
        ({"RECALL_APPROVERS_HIGH": "3"}, "RECALL_APPROVERS_CRITICAL=2 is fewer than RECALL_APPROVERS_HIGH=3"),
    ],
)
def test_wrong_approval_values_are_refused_with_the_variable_named(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(".", r"\.")):
        approval_settings_from_env(env)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"RECALL_AUTO_DRY_RUN": "sometimes"}, "RECALL_AUTO_DRY_RUN='sometimes' is not true or false"),
        ({"RECALL_EXECUTOR_SERVICE_ACCOUNT": "Runner_X"}, "RECALL_EXECUTOR_SERVICE_ACCOUNT='Runner_X' is not a"),
    ],
)
def test_wrong_execution_values_are_refused_with_the_variable_named(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(".", r"\.")):
        execution_settings_from_env(env)
