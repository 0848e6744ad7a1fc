"""The operator's policy settings from the environment (the Helm chart sets them).

Read once at start-up; a wrong value stops the operator with a message that
names the variable, rather than running with a silently different policy.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields

from recall_operator.domain.recommend import Settings
from recall_operator.domain.similarity import Weights


class ConfigError(ValueError):
    """An environment variable holds a value the operator cannot use."""


def _number(env: Mapping[str, str], name: str, default: float, low: float, high: float) -> float:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a number") from None
    if not low <= value <= high:
        raise ConfigError(f"{name}={raw} is outside {low:g}..{high:g}")
    return value


def settings_from_env(env: Mapping[str, str]) -> Settings:
    """The gate's bars and the similarity weights: RECALL_NOVEL_BAR, RECALL_ACTIONABLE_BAR, RECALL_WEIGHT_<TERM>."""
    defaults = Settings()
    weights = Weights(
        **{
            f.name: _number(env, f"RECALL_WEIGHT_{f.name.upper()}", getattr(defaults.weights, f.name), 0.0, 1.0)
            for f in fields(Weights)
        }
    )
    total = sum(getattr(weights, f.name) for f in fields(Weights))
    if abs(total - 1.0) > 1e-6:
        raise ConfigError(f"the RECALL_WEIGHT_* values add up to {total:g}; they must add up to 1")
    return Settings(
        novel_bar=round(_number(env, "RECALL_NOVEL_BAR", defaults.novel_bar, 0, 100)),
        actionable_bar=round(_number(env, "RECALL_ACTIONABLE_BAR", defaults.actionable_bar, 0, 100)),
        weights=weights,
    )
