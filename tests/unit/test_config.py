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


def test_weights_written_as_thirds_are_read_as_meant() -> None:
    # The chart passes sums within 0.001 of 1: the operator starts on what the chart let through.
    thirds = {f"RECALL_WEIGHT_{t}": "0.3333" for t in ("LEXICAL", "SERVICE", "SYMPTOMS")}
    thirds |= {f"RECALL_WEIGHT_{t}": "0" for t in ("SIGNALS", "RUNBOOK", "DNA")}
    assert settings_from_env(thirds).weights.lexical == 0.3333
    with pytest.raises(ConfigError, match=r"add up to 0\.9899; they must add up to 1 \(within 0\.001\)"):
        settings_from_env({**thirds, "RECALL_WEIGHT_LEXICAL": "0.3233"})


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
        ({"RECALL_APPROVAL_EXPIRY_MINUTES": "inf"}, "RECALL_APPROVAL_EXPIRY_MINUTES='inf' is not a number"),
        ({"RECALL_APPROVAL_EXPIRY_MINUTES": "0.0001"}, "is under a second"),
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


# -- one OperatorSettings: every setting by one name, from the variable or the flag ----------

import re  # noqa: E402
from pathlib import Path  # noqa: E402

from recall_operator.config import OperatorSettings, env_name, flag_name  # noqa: E402


def test_every_setting_has_a_variable_and_a_flag_named_after_it() -> None:
    for name in OperatorSettings.model_fields:
        assert env_name(name) == "RECALL_" + name.upper()
        assert flag_name(name) == "--" + name.replace("_", "-")
    assert env_name("novel_bar") == "RECALL_NOVEL_BAR" and flag_name("novel_bar") == "--novel-bar"


def test_the_chart_sets_only_variables_the_settings_know() -> None:
    # The chart's env names are the contract: each must be a setting's variable.
    chart = Path(__file__).resolve().parents[2] / "helm/recall-operator/templates/_helpers.tpl"  # recall.env
    named = set(re.findall(r"name: (RECALL_[A-Z_]+)", chart.read_text()))
    known = {env_name(n) for n in OperatorSettings.model_fields}
    # RECALL_APPROVERS_{{ upper $risk }} and RECALL_WEIGHT_{{ upper $term }} are rendered per risk and term.
    assert {"RECALL_APPROVERS_", "RECALL_WEIGHT_"} <= named
    assert named - {"RECALL_APPROVERS_", "RECALL_WEIGHT_"} <= known, named - known


def test_every_part_of_the_operator_takes_its_settings_from_the_one_object() -> None:
    s = OperatorSettings.from_env({
        "RECALL_MEMORY_BACKEND": "hindsight", "RECALL_HINDSIGHT_URL": "http://memory:8888",
        "RECALL_HINDSIGHT_INDEX": "off", "RECALL_HINDSIGHT_POLL_S": "0.5", "RECALL_NOVEL_BAR": "40",
        "RECALL_FOUR_EYES": "false", "RECALL_AUTO_DRY_RUN": "no", "RECALL_ALLOW_SIMULATED_FAILURE": "1",
        "RECALL_STATUS_KEY": "status-key-of-24-characters", "RECALL_HINDSIGHT_KEY": "bank-key-of-32-characters-long!", "RECALL_HINDSIGHT_API_KEY": "api-secret",
    })
    m = s.memory()
    assert (m.backend, m.hindsight_url, m.hindsight_index, m.hindsight_poll_s) == ("hindsight", "http://memory:8888",
                                                                                False, 0.5)
    assert s.gate().novel_bar == 40 and s.approval().four_eyes is False
    e = s.execution()
    assert (e.auto_dry_run, e.allow_simulated_failure) == (False, True)
    assert s.seal_key() == b"status-key-of-24-characters"
    assert "status_key" not in repr(s)  # a secret stays out of logs
    assert m.hindsight_keys() == (b"bank-key-of-32-characters-long!",) and "bank-key" not in repr(s) + repr(m)
    assert m.hindsight_api_key == "api-secret" and "api-secret" not in repr(s) + repr(m)
    rotated = OperatorSettings.from_env({"RECALL_HINDSIGHT_KEY": "the-new-bank-key-0001, the-old-bank-key-0002,"})
    assert rotated.memory().hindsight_keys() == (b"the-new-bank-key-0001", b"the-old-bank-key-0002")  # first signs


def test_an_unset_status_key_is_one_random_key_per_process() -> None:
    a, b = OperatorSettings.from_env({}), OperatorSettings.from_env({"RECALL_STATUS_KEY": ""})
    assert a.seal_key() == b.seal_key() and len(a.seal_key()) == 32


@pytest.mark.parametrize(("name", "raw"), [("novel_bar", "40"), ("four_eyes", "off"), ("approvers_high", "2"),
                                           ("memory_backend", "hindsight"), ("hindsight_poll_s", "0.25"),
                                           ("executor_service_account", "payments-runner")])
def test_a_flag_and_its_variable_resolve_the_same(name: str, raw: str) -> None:
    by_env = OperatorSettings.from_env({env_name(name): raw})
    by_flag = OperatorSettings.from_env({}, {name: raw})
    assert by_env == by_flag
    assert by_env != OperatorSettings.from_env({})


def test_a_flag_wins_over_its_variable() -> None:
    s = OperatorSettings.from_env({"RECALL_NOVEL_BAR": "40", "RECALL_ACTIONABLE_BAR": "70"}, {"novel_bar": "45"})
    assert (s.novel_bar, s.actionable_bar) == (45, 70)


@pytest.mark.parametrize(
    ("env", "flags", "message"),
    [
        ({"RECALL_MEMORY_BACKEND": "postgres"}, {}, "RECALL_MEMORY_BACKEND='postgres' is not one of embedded, hindsight"),
        ({}, {"memory_backend": "postgres"}, "--memory-backend 'postgres' is not one of embedded, hindsight"),
        ({"RECALL_HINDSIGHT_INDEX": "sometimes"}, {}, "RECALL_HINDSIGHT_INDEX='sometimes' is not true or false"),
        ({"RECALL_HINDSIGHT_POLL_S": "0"}, {}, "RECALL_HINDSIGHT_POLL_S=0 is outside 0.1..3600"),
        ({"RECALL_HINDSIGHT_POLL_S": "0.000001"}, {}, "RECALL_HINDSIGHT_POLL_S=0.000001 is outside 0.1..3600"),
        # A check a millisecond apart would ask a shared server hundreds of times a second.
        ({"RECALL_MEMORY_PROBE_S": "0.001"}, {}, "RECALL_MEMORY_PROBE_S=0.001 is outside 1..3600"),
        ({}, {"memory_probe_s": "nan"}, "--memory-probe-s"),
        ({}, {"novel_bar": "high"}, "--novel-bar 'high' is not a number"),
        ({}, {"approvers_bridge": "1.5"}, "--approvers-bridge 1.5 is not a whole number of approvers"),
        # The wrong value is named where it came from, whichever side of the pair it is.
        ({"RECALL_APPROVERS_CRITICAL": "2"}, {"approvers_high": "3"},
         "RECALL_APPROVERS_CRITICAL=2 is fewer than --approvers-high 3"),
        ({}, {"executor_service_account": "Runner_X"}, "--executor-service-account 'Runner_X' is not a"),
        ({}, {"novel_bars": "40"}, "no such setting: novel_bars"),
        # A bank key that is no key, or one anyone could guess; the message never shows it.
        ({"RECALL_HINDSIGHT_KEY": " , "}, {}, "RECALL_HINDSIGHT_KEY holds no key, only commas and spaces"),
        ({"RECALL_HINDSIGHT_KEY": "a-long-enough-new-key, hunter2"}, {},
         "RECALL_HINDSIGHT_KEY: key 2 of 2 is shorter than 16 characters"),
    ],
)
def test_a_wrong_value_is_refused_naming_its_variable_or_flag(
    env: dict[str, str], flags: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(".", r"\.")):
        OperatorSettings.from_env(env, flags)


def test_the_readme_lists_every_setting_with_its_variable_and_flag() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    table = readme[readme.index("### Settings"):]
    for name in OperatorSettings.model_fields:
        row = next((line for line in table.splitlines() if line.startswith(f"| `{env_name(name)}` |")), None)
        assert row is not None, f"README's settings table has no row for {env_name(name)}"
        assert name in ("status_key", "hindsight_key", "hindsight_api_key") or f"`{flag_name(name)}`" in row, row


def test_a_refused_bank_key_is_not_shown() -> None:
    with pytest.raises(ConfigError) as refused:
        OperatorSettings.from_env({"RECALL_HINDSIGHT_KEY": "hunter2"})
    assert "hunter2" not in str(refused.value) and "RECALL_HINDSIGHT_KEY" in str(refused.value)


@pytest.mark.parametrize(("env", "flags", "message"), [
    ({"RECALL_NOVEL_BAR": "55", "RECALL_ACTIONABLE_BAR": "30"}, {}, "is under RECALL_NOVEL_BAR=55"),
    ({"RECALL_APPROVERS_CRITICAL": "4", "RECALL_APPROVERS_HIGH": "3"}, {"approvers_critical": ""}, "is given empty"),
    ({"RECALL_NOVEL_BAR": "５５"}, {}, "is not a number"),
    ({"RECALL_NOVEL_BAR": "5_5"}, {}, "is not a number"),
    ({"RECALL_HINDSIGHT_URL": "http://u:secretpw@hindsight:8888"}, {}, "holds credentials"),
    ({"RECALL_HINDSIGHT_URL": "http://127.0.0.1:99999"}, {}, "has no valid port"),
    ({"RECALL_STATUS_KEY": "a"}, {}, "RECALL_STATUS_KEY is shorter than 16"),
    ({"RECALL_HINDSIGHT_KEY": "   "}, {}, "holds only spaces"),
], ids=["actionable-under-novel", "empty-flag", "fullwidth-digits", "underscore", "url-credentials", "url-port",
        "short-status-key", "blank-hindsight-key"])
def test_a_setting_that_would_quietly_weaken_the_operator_is_refused_at_start(
    env: dict[str, str], flags: dict[str, str], message: str
) -> None:
    # Each was taken: a recognised precedent under the novel bar became actionable; an empty flag replaced its
    # variable with the default (two approvers where four were set); a password went into every memory error.
    with pytest.raises(ConfigError, match=re.escape(message)) as refused:
        OperatorSettings.from_env(env, flags)
    assert "secretpw" not in str(refused.value)
