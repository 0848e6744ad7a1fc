"""The operator's settings: one `OperatorSettings`, built once at start-up and passed down.

Every setting has one name, and the other spellings follow from it:
`novel_bar` is the environment variable RECALL_NOVEL_BAR (what the Helm chart
sets from its values) and the flag `recall run --novel-bar`. A flag wins over
the variable, the variable over the default; both are read by the same code,
so a value means the same thing whichever way it came.

A wrong value stops the operator with a message that names the variable (or
the flag) it came from, rather than running with a silently different policy.

`recall run` builds the settings from its flags and the environment and puts
them in Kopf's memo; an operator started by `kopf run -m` (the tests) has its
first start-up handler build them from the environment (handlers.operator_settings).
"""

from __future__ import annotations

import math
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Annotated, Any, Literal, get_args, get_origin
from urllib.parse import urlsplit

import annotated_types
from pydantic import BaseModel, ConfigDict, Field
from pydantic.fields import FieldInfo

from recall_operator.domain.approval_rules import ApprovalSettings
from recall_operator.domain.recommend import Settings
from recall_operator.domain.similarity import Weights
from recall_operator.memory.base import MemorySettings

ENV_PREFIX = "RECALL_"


class ConfigError(ValueError):
    """A setting holds a value the operator cannot use; the message names the variable or flag."""


def env_name(field: str) -> str:
    return f"{ENV_PREFIX}{field.upper()}"


def flag_name(field: str) -> str:
    return "--" + field.replace("_", "-")


_GATE = Settings()
_WEIGHTS = Weights()
_APPROVAL = ApprovalSettings()
# A year: far beyond any sensible expiry, but finite (a timedelta must be).
_MAX_EXPIRY_MINUTES = 366 * 24 * 60
# More distinct approvers than an on-call rotation has at 3 a.m. makes a plan unrunnable.
MAX_APPROVERS = 5
DEFAULT_EXECUTOR_SERVICE_ACCOUNT = "recall-runbook-executor"
# A ServiceAccount name is a DNS-1123 subdomain.
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_TRUE = frozenset({"true", "1", "yes", "on"})
_FALSE = frozenset({"false", "0", "no", "off"})


class _Count:
    """Marks a count of people: "1.5" is refused, where a bar's "50.4" is rounded."""


Count = Annotated[int, _Count()]
# Unset RECALL_STATUS_KEY: a random key per process, so a restarted operator
# re-triages an incident (within one re-evaluation pass) before anything of it runs again.
_PROCESS_KEY = secrets.token_bytes(32)
# The shortest key the Hindsight bank's memories are signed with (RECALL_HINDSIGHT_KEY).
MIN_HINDSIGHT_KEY = 16
# The shortest approval expiry (a second): below it every Approval is expired by the time it is judged.
MIN_EXPIRY_MINUTES = 1 / 60
_SECRETS = ("hindsight_key", "status_key")


def _bar(default: int, high: int, why: str) -> Any:
    return Field(default, ge=0, le=high, description=why)


def _weight(default: float, term: str) -> Any:
    return Field(default, ge=0.0, le=1.0, description=f"weight of the {term} term; the six weights add up to 1")


def _approvers(risk: str) -> Any:
    return Field(_APPROVAL.approvers_required[risk], ge=1, le=MAX_APPROVERS,
                 description=f"distinct approvers a plan whose riskiest step is {risk} needs")


class OperatorSettings(BaseModel):
    """Everything the operator is configured with; see the module docstring for the names."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # memory
    memory_backend: Literal["embedded", "hindsight"] = Field("embedded", description="where memories are kept")
    memory_path: str = Field("recall-memory.sqlite3", description="the embedded store's SQLite file")
    hindsight_url: str = Field("http://127.0.0.1:8888", description="the Hindsight server")
    hindsight_bank: str = Field("recall-operator", description="the Hindsight memory bank")
    hindsight_index: bool = Field(True, description="recall from a local index of the bank, kept in step by polling")
    # At least a tenth of a second: 1e-6 made an operator poll the shared server hundreds of times a second.
    hindsight_poll_s: float = Field(2.0, ge=0.1, le=3600, description="seconds between polls of the Hindsight bank")
    memory_probe_s: float = Field(30.0, ge=1, le=3600, description="seconds between checks that the memory backend "
                                                                    "answers, between incidents too")
    hindsight_scope: Literal["namespace", "bank"] = Field(
        "namespace", description="what an incident recalls: memories of its namespace's name, or all on the bank")
    cluster: str = Field("", description="this cluster's name on a shared Hindsight bank, a DNS label "
                                          "(unset: the UID of the kube-system namespace)")
    hindsight_key: str = Field("", repr=False, description="the key memories on the Hindsight bank are signed with, "
                                                           "then the keys it used before, comma-separated; a memory "
                                                           "signed with none of them backs no runbook (unset: none "
                                                           "is signed nor checked)")
    hindsight_api_key: str = Field("", repr=False, description="the API key the Hindsight server asks for (its "
                                                               "ApiKeyTenantExtension); unset: none is sent")
    # the gate (domain.recommend.Settings argues for each default)
    novel_bar: int = _bar(_GATE.novel_bar, 100, "below this best similarity nothing is a precedent")
    actionable_bar: int = _bar(_GATE.actionable_bar, 100, "a precedent must reach this to be actionable")
    recognition_bar: int = _bar(_GATE.recognition_bar, 200, "similarity plus recognition points that recognise")
    recognition_floor: int = _bar(_GATE.recognition_floor, 100, "similarity a recognised precedent needs at least")
    weight_lexical: float = _weight(_WEIGHTS.lexical, "lexical")
    weight_service: float = _weight(_WEIGHTS.service, "service")
    weight_symptoms: float = _weight(_WEIGHTS.symptoms, "symptoms")
    weight_signals: float = _weight(_WEIGHTS.signals, "signals")
    weight_runbook: float = _weight(_WEIGHTS.runbook, "runbook")
    weight_dna: float = _weight(_WEIGHTS.dna, "dna")
    # approvals
    four_eyes: bool = Field(_APPROVAL.four_eyes, description="the approver may not be who opened the incident, nor who last set its parameters")
    approval_expiry_minutes: float = Field(
        _APPROVAL.approval_ttl.total_seconds() / 60 if _APPROVAL.approval_ttl else 0.0,
        ge=0, le=_MAX_EXPIRY_MINUTES, description="an Approval older than this no longer counts (0: never expires)")
    approvers_low: Count = _approvers("low")
    approvers_medium: Count = _approvers("medium")
    approvers_high: Count = _approvers("high")
    approvers_critical: Count = _approvers("critical")
    approvers_bridge: Count = Field(_APPROVAL.bridge_approvers, ge=1, le=MAX_APPROVERS,
                                  description="distinct approvers an incident the alert bridge opened needs at least")
    # execution
    auto_dry_run: bool = Field(True, description="dry-run an actionable plan as soon as it is recommended")
    executor_service_account: str = Field(DEFAULT_EXECUTOR_SERVICE_ACCOUNT,
                                          description="the ServiceAccount the step Jobs run as")
    status_key: str = Field("", repr=False, description="the key recommendations are sealed with (unset: per process)")
    # A test hook only: a step Job may be told to fail (an annotation); off unless asked for.
    allow_simulated_failure: bool = Field(False, description="honour recall.dev/simulate-fail-step (tests only)")

    @classmethod
    def from_env(cls, env: Mapping[str, str], flags: Mapping[str, Any] | None = None) -> OperatorSettings:
        """The settings from RECALL_* variables, each overridden by its flag when given (None: not given).

        Raises ConfigError naming the variable or flag of the first wrong value.
        """
        values: dict[str, Any] = {}
        source: dict[str, str] = {}
        for name, info in cls.model_fields.items():
            given = (flags or {}).get(name)
            where = flag_name(name) if given is not None else env_name(name)
            raw = given if given is not None else env.get(where)
            source[name] = where
            if given is not None and str(given).strip() == "":
                # `--approvers-critical "$X"` with X unset: a variable of the same setting lost to the default.
                raise ConfigError(f"{where} is given empty: give it a value, or leave the flag out")
            if raw is not None and raw != "" and not str(raw).strip() and name in _SECRETS:
                # Spaces where a key was meant (a Secret written with `echo " "`): nothing would be signed.
                raise ConfigError(f"{where} holds only spaces; give a key, or leave it unset")
            if raw is None or str(raw).strip() == "":
                continue
            values[name] = _parse(where, str(raw), info)
        unknown = set(flags or {}) - set(cls.model_fields)
        if unknown:
            raise ConfigError(f"no such setting: {', '.join(sorted(unknown))}")
        settings = cls(**values)
        settings._check(source)
        return settings

    def _check(self, source: Mapping[str, str]) -> None:
        """What no single value shows: the weights' sum, approvers by rising risk, the account's name."""
        total = sum(getattr(self, f"weight_{term}") for term in _WEIGHT_TERMS)
        if abs(total - 1.0) > WEIGHT_SUM_TOLERANCE:
            raise ConfigError(f"the RECALL_WEIGHT_* values add up to {total:g}; they must add up to 1 "
                              f"(within {WEIGHT_SUM_TOLERANCE:g})")
        levels = [(risk, getattr(self, f"approvers_{risk}"), source[f"approvers_{risk}"]) for risk in _RISKS]
        for (safer, fewer, safer_name), (riskier, more, riskier_name) in zip(levels, levels[1:]):
            if more < fewer:
                raise ConfigError(
                    f"{_show(riskier_name, more)} is fewer than {_show(safer_name, fewer)}: "
                    f"a {riskier} plan would be easier to run than a {safer} one"
                )
        if self.actionable_bar < self.novel_bar:
            # A precedent recognised under the novel bar is shown, never acted on, because it cannot reach
            # an actionable bar at or above the novel one (domain.recommend.Settings).
            raise ConfigError(f"{_show(source['actionable_bar'], self.actionable_bar)} is under "
                              f"{_show(source['novel_bar'], self.novel_bar)}: a precedent too weak to count "
                              "could run its fix")
        url = urlsplit(self.hindsight_url)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ConfigError(f"{_show(source['hindsight_url'], self.hindsight_url, quote=True)} is not an "
                              "http(s) URL with a host")
        if url.username is not None or url.password is not None:
            # It would be printed in the start-up log and in every memory error written to an Incident.
            raise ConfigError(f"{source['hindsight_url']} holds credentials; give the server's key in "
                              f"{env_name('hindsight_api_key')} instead")
        try:
            _ = url.port  # urlsplit only complains when it is read
        except ValueError:
            raise ConfigError(f"{_show(source['hindsight_url'], self.hindsight_url, quote=True)} has no valid "
                              "port (1 to 65535)") from None
        if 0 < self.approval_expiry_minutes < MIN_EXPIRY_MINUTES:
            raise ConfigError(f"{_show(source['approval_expiry_minutes'], self.approval_expiry_minutes)} "
                              f"is under a second: every Approval would be expired when "
                              "judged (0: never expires)")
        if self.status_key and len(self.status_key.strip()) < MIN_HINDSIGHT_KEY:
            raise ConfigError(f"{source['status_key']} is shorter than {MIN_HINDSIGHT_KEY} characters: a "
                              "seal anyone can guess seals nothing; make one with "
                              "`head -c 32 /dev/urandom | base64`")
        if self.cluster and not _DNS_LABEL.match(self.cluster):
            raise ConfigError(f"{_show(source['cluster'], self.cluster, quote=True)} is not a cluster name: "
                              "lowercase letters, digits and '-', at most 63")
        # A key anyone could guess signs nothing; the message never shows a key.
        keys = self.memory().hindsight_keys()
        if self.hindsight_key and not keys:
            raise ConfigError(f"{source['hindsight_key']} holds no key, only commas and spaces")
        short = [n for n, key in enumerate(keys, 1) if len(key) < MIN_HINDSIGHT_KEY]
        if short:
            raise ConfigError(f"{source['hindsight_key']}: key {short[0]} of {len(keys)} is shorter than "
                              f"{MIN_HINDSIGHT_KEY} characters; make one with `head -c 32 /dev/urandom | base64`")
        account = self.executor_service_account
        if len(account) > 253 or not _DNS_SUBDOMAIN.match(account):
            raise ConfigError(f"{_show(source['executor_service_account'], account, quote=True)} is not a "
                              "ServiceAccount name")

    # -- what each part of the operator takes from them --------------------------

    def gate(self) -> Settings:
        weights = Weights(**{term: getattr(self, f"weight_{term}") for term in _WEIGHT_TERMS})
        return Settings(novel_bar=self.novel_bar, actionable_bar=self.actionable_bar,
                        recognition_bar=self.recognition_bar, recognition_floor=self.recognition_floor,
                        weights=weights)

    def approval(self) -> ApprovalSettings:
        minutes = self.approval_expiry_minutes
        return ApprovalSettings(
            four_eyes=self.four_eyes,
            approval_ttl=timedelta(minutes=minutes) if minutes > 0 else None,
            approvers_required={risk: getattr(self, f"approvers_{risk}") for risk in _RISKS},
            bridge_approvers=self.approvers_bridge,
        )

    def execution(self) -> ExecutionSettings:
        return ExecutionSettings(auto_dry_run=self.auto_dry_run, executor_service_account=self.executor_service_account,
                                 allow_simulated_failure=self.allow_simulated_failure)

    def memory(self) -> MemorySettings:
        return MemorySettings(backend=self.memory_backend, path=self.memory_path, hindsight_url=self.hindsight_url,
                              hindsight_bank=self.hindsight_bank, hindsight_index=self.hindsight_index,
                              hindsight_poll_s=self.hindsight_poll_s, hindsight_scope=self.hindsight_scope,
                              cluster=self.cluster, hindsight_key=self.hindsight_key,
                              hindsight_api_key=self.hindsight_api_key)

    def seal_key(self) -> bytes:
        """The key this operator seals its recommendations with (domain.execution.seal)."""
        return self.status_key.encode() if self.status_key else _PROCESS_KEY


# How far the six weights may add up from 1: thirds written as 0.3333 are meant as thirds (the chart's
# check is the same). A similarity is rounded to whole points, which this moves by at most 0.1.
WEIGHT_SUM_TOLERANCE = 0.001
_WEIGHT_TERMS = ("lexical", "service", "symptoms", "signals", "runbook", "dna")
_RISKS = tuple(_APPROVAL.approvers_required)


def cluster_identity(api: Any) -> str:
    """The default cluster identity: the UID of the cluster's kube-system namespace.

    Every cluster has that namespace and its UID lives as long as the cluster,
    so every replica and every restart of the operator there reads the same
    value, and two clusters never do; no one has to name the cluster. A name
    given in RECALL_CLUSTER is shorter to read (a memory of another cluster is
    read as `<incident>.<cluster>`) and survives rebuilding the cluster.
    """
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    try:
        meta = client.CoreV1Api(api).read_namespace("kube-system", _request_timeout=30).metadata
    except ApiException as exc:
        raise ConfigError(f"cannot read the kube-system namespace for this cluster's identity ({exc.status} "
                          f"{exc.reason}): set RECALL_CLUSTER") from exc
    uid = meta.uid if meta is not None else None
    if not uid:
        raise ConfigError("the kube-system namespace has no UID to identify this cluster by: set RECALL_CLUSTER")
    return str(uid)


@dataclass(frozen=True)
class ExecutionSettings:
    # Dry-run an actionable plan's read-only steps as soon as it is recommended.
    # Off: the dry-run starts when an approval is accepted, and the run follows
    # only when every dry-run succeeded.
    auto_dry_run: bool = True
    # The ServiceAccount the step Jobs run as.
    executor_service_account: str = DEFAULT_EXECUTOR_SERVICE_ACCOUNT
    allow_simulated_failure: bool = False


def _show(where: str, raw: object, quote: bool = False) -> str:
    """`RECALL_X=value` for a variable, `--x value` for a flag: how the value was written."""
    text = repr(raw) if quote else str(raw)
    return f"{where} {text}" if where.startswith("--") else f"{where}={text}"


def _bounds(info: FieldInfo) -> tuple[float, float, bool]:
    low, high, open_low = -math.inf, math.inf, False
    for m in info.metadata:
        if isinstance(m, annotated_types.Ge):
            low = float(m.ge)  # type: ignore[arg-type]
        elif isinstance(m, annotated_types.Gt):
            low, open_low = float(m.gt), True  # type: ignore[arg-type]
        elif isinstance(m, annotated_types.Le):
            high = float(m.le)  # type: ignore[arg-type]
    return low, high, open_low


_PLAIN_NUMBER = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)", re.ASCII)


def _parse(where: str, raw: str, info: FieldInfo) -> Any:
    """One value, from the text a variable or flag holds, by the field's type and bounds."""
    kind = info.annotation
    text = raw.strip()
    if kind is bool:
        word = text.lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
        raise ConfigError(f"{_show(where, raw, quote=True)} is not true or false")
    if get_origin(kind) is Literal:
        choices = get_args(kind)
        if text not in choices:
            raise ConfigError(f"{_show(where, raw, quote=True)} is not one of {', '.join(choices)}")
        return text
    if kind in (int, float):
        if not _PLAIN_NUMBER.fullmatch(text):  # float() also reads "５５", "5_5" and "5e1"
            raise ConfigError(f"{_show(where, raw, quote=True)} is not a number (digits, a sign and a point)")
        try:
            value = float(text)
        except ValueError:
            raise ConfigError(f"{_show(where, raw, quote=True)} is not a number") from None
        low, high, open_low = _bounds(info)
        if open_low and value <= low:
            raise ConfigError(f"{_show(where, text)} is not more than {low:g}")
        if math.isnan(value) or not low <= value <= high:
            raise ConfigError(f"{_show(where, text)} is outside {low:g}..{high:g}")
        if kind is float:
            return value
        if any(isinstance(m, _Count) for m in info.metadata) and value != int(value):
            raise ConfigError(f"{_show(where, text)} is not a whole number of approvers")
        return round(value)
    return text


def settings_from_env(env: Mapping[str, str]) -> Settings:
    """The gate's bars and the similarity weights (`recall replay` tries them on history)."""
    return OperatorSettings.from_env(env).gate()


def approval_settings_from_env(env: Mapping[str, str]) -> ApprovalSettings:
    return OperatorSettings.from_env(env).approval()


def execution_settings_from_env(env: Mapping[str, str]) -> ExecutionSettings:
    return OperatorSettings.from_env(env).execution()
