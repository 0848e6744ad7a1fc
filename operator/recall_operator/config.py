"""The operator's policy settings from the environment (the Helm chart sets them).

Read once at start-up; a wrong value stops the operator with a message that
names the variable, rather than running with a silently different policy.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import timedelta

from recall_operator.domain.approval_rules import ApprovalSettings
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
    """The gate's bars and the similarity weights: RECALL_NOVEL_BAR, RECALL_ACTIONABLE_BAR,
    RECALL_RECOGNITION_BAR, RECALL_RECOGNITION_FLOOR, RECALL_WEIGHT_<TERM>."""
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
        recognition_bar=round(_number(env, "RECALL_RECOGNITION_BAR", defaults.recognition_bar, 0, 200)),
        recognition_floor=round(_number(env, "RECALL_RECOGNITION_FLOOR", defaults.recognition_floor, 0, 100)),
        weights=weights,
    )


_TRUE = frozenset({"true", "1", "yes", "on"})
_FALSE = frozenset({"false", "0", "no", "off"})
# A ServiceAccount name is a DNS-1123 subdomain.
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
# A year: far beyond any sensible expiry, but finite (a timedelta must be).
_MAX_EXPIRY_MINUTES = 366 * 24 * 60


def _flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    word = raw.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise ConfigError(f"{name}={raw!r} is not true or false")


# More distinct approvers than an on-call rotation has at 3 a.m. makes a plan unrunnable.
MAX_APPROVERS = 5


def approval_settings_from_env(env: Mapping[str, str]) -> ApprovalSettings:
    """Four-eyes, expiry and approvers per risk.

    RECALL_FOUR_EYES (true/false), RECALL_APPROVAL_EXPIRY_MINUTES (0: never
    expires), RECALL_APPROVERS_<RISK> (LOW, MEDIUM, HIGH, CRITICAL: distinct
    approvers a plan with that riskiest step needs, 1..5). A riskier level never
    needs fewer approvers than a safer one. RECALL_APPROVERS_BRIDGE (1..5, default
    2): distinct approvers an incident opened by the alert bridge needs at least.
    """
    defaults = ApprovalSettings()
    default_minutes = defaults.approval_ttl.total_seconds() / 60 if defaults.approval_ttl else 0.0
    minutes = _number(env, "RECALL_APPROVAL_EXPIRY_MINUTES", default_minutes, 0, _MAX_EXPIRY_MINUTES)
    required: dict[str, int] = {}
    for risk, default in defaults.approvers_required.items():
        name = f"RECALL_APPROVERS_{risk.upper()}"
        value = _number(env, name, default, 1, MAX_APPROVERS)
        if value != int(value):
            raise ConfigError(f"{name}={env[name]} is not a whole number of approvers")
        required[risk] = int(value)
    levels = list(required.items())
    for (safer, fewer), (riskier, more) in zip(levels, levels[1:]):
        if more < fewer:
            raise ConfigError(
                f"RECALL_APPROVERS_{riskier.upper()}={more} is fewer than RECALL_APPROVERS_{safer.upper()}={fewer}: "
                f"a {riskier} plan would be easier to run than a {safer} one"
            )
    bridge = _number(env, "RECALL_APPROVERS_BRIDGE", defaults.bridge_approvers, 1, MAX_APPROVERS)
    if bridge != int(bridge):
        raise ConfigError(f"RECALL_APPROVERS_BRIDGE={env['RECALL_APPROVERS_BRIDGE']} is not a whole number of approvers")
    return ApprovalSettings(
        four_eyes=_flag(env, "RECALL_FOUR_EYES", defaults.four_eyes),
        approval_ttl=timedelta(minutes=minutes) if minutes > 0 else None,
        approvers_required=required,
        bridge_approvers=int(bridge),
    )


DEFAULT_EXECUTOR_SERVICE_ACCOUNT = "recall-runbook-executor"


@dataclass(frozen=True)
class ExecutionSettings:
    # Dry-run an actionable plan's read-only steps as soon as it is recommended.
    # Off: the dry-run starts when an approval is accepted, and the run follows
    # only when every dry-run succeeded.
    auto_dry_run: bool = True
    # The ServiceAccount the step Jobs run as.
    executor_service_account: str = DEFAULT_EXECUTOR_SERVICE_ACCOUNT


def execution_settings_from_env(env: Mapping[str, str]) -> ExecutionSettings:
    """RECALL_AUTO_DRY_RUN (true/false) and RECALL_EXECUTOR_SERVICE_ACCOUNT (a ServiceAccount name)."""
    defaults = ExecutionSettings()
    account = (env.get("RECALL_EXECUTOR_SERVICE_ACCOUNT") or "").strip() or defaults.executor_service_account
    if len(account) > 253 or not _DNS_SUBDOMAIN.match(account):
        raise ConfigError(f"RECALL_EXECUTOR_SERVICE_ACCOUNT={account!r} is not a ServiceAccount name")
    return ExecutionSettings(
        auto_dry_run=_flag(env, "RECALL_AUTO_DRY_RUN", defaults.auto_dry_run),
        executor_service_account=account,
    )
