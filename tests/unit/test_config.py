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


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"RECALL_NOVEL_BAR": "high"}, "RECALL_NOVEL_BAR='high' is not a number"),
        ({"RECALL_ACTIONABLE_BAR": "101"}, "RECALL_ACTIONABLE_BAR=101 is outside 0..100"),
        ({"RECALL_WEIGHT_SERVICE": "-0.1"}, "RECALL_WEIGHT_SERVICE=-0.1 is outside 0..1"),
        ({"RECALL_WEIGHT_LEXICAL": "0.5"}, "add up to 1.15; they must add up to 1"),
    ],
)
def test_wrong_values_are_refused_with_the_variable_named(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(".", r"\.")):
        settings_from_env(env)
