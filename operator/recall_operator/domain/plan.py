"""The plan: exactly what would run, and the hash an Approval binds to.

Commands come only from Runbook steps, never from incident text. Runbook
parameters reach containers as environment variables, and `$(NAME)` in a
command is expanded by Kubernetes itself, never by a shell; so the plan holds
the commands as written plus the values, and the hash covers both: a changed
value is a changed plan that needs a new Approval. So do a step's deadline and
whether it may call the Kubernetes API: approving a plan whose steps have no
credentials does not approve one whose step has them.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass

from recall_operator.domain.models import IncidentSpec, Runbook

# Parameter names as Kubernetes expands them in `$(NAME)`.
_PARAM = re.compile(r"\$\(([A-Z][A-Z0-9_]*)\)")
_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")
# Values may only be plain words: no shell can see them, but a person reads them in the plan.
_SAFE_VALUE = re.compile(r"^[A-Za-z0-9._:/@=+,-]{0,253}$")


def parameter_refusal(name: str, value: str | None) -> str | None:
    """Why an Incident's parameter can never reach a plan (the CRD refuses the same), or None when it can."""
    if not _NAME.match(name):
        return f"{name!r} is not a parameter name: A-Z, 0-9 and _, starting with a letter, as commands write $(NAME)"
    if value is not None and not _SAFE_VALUE.match(value):
        return (f"the value of {name} is not one plain word of at most 253 characters (letters, digits and"
                " . _ : / @ = + , -): a plan does not take it")
    if value is not None and value.startswith("-"):
        return f"the value of {name} starts with '-': a command would read it as an option, not a value"
    return None


class PlanError(ValueError):
    """The plan cannot be built as asked (a parameter value is not allowed)."""


@dataclass(frozen=True)
class PlannedStep:
    name: str
    title: str
    image: str
    command: list[str]
    dry_run_command: list[str]
    rollback_command: list[str]
    risk: str
    blast_radius: str
    estimated_seconds: int
    backoff_limit: int
    timeout_seconds: int | None = None
    api_access: bool = False

    def as_status(self) -> dict[str, object]:
        return {
            "name": self.name,
            "title": self.title,
            "image": self.image,
            "command": self.command,
            "dryRunCommand": self.dry_run_command,
            "rollbackCommand": self.rollback_command,
            "risk": self.risk,
            "blastRadius": self.blast_radius,
            "estimatedSeconds": self.estimated_seconds,
            "backoffLimit": self.backoff_limit,
            # No null in status: a step without its own deadline has no key.
            **({"timeoutSeconds": self.timeout_seconds} if self.timeout_seconds is not None else {}),
            "apiAccess": self.api_access,
        }

    def hashed(self) -> dict[str, object]:
        """What the plan hash covers of this step.

        A field at its default is left out, so a plan that never used it
        keeps the hash it had before the field existed (Approvals in flight
        stay valid), while setting it changes the hash.
        """
        out = asdict(self)
        if out["timeout_seconds"] is None:
            del out["timeout_seconds"]
        if not out["api_access"]:
            del out["api_access"]
        return out


@dataclass(frozen=True)
class Plan:
    runbook: str
    steps: list[PlannedStep]
    parameters: dict[str, str]  # env vars the steps' containers get
    read_only: bool  # novel mode: only dry-run commands are offered
    plan_hash: str


def parameters_for(spec: IncidentSpec, runbook: Runbook) -> dict[str, str]:
    """The values of the runbook's parameters: the ones its commands name as `$(NAME)` and the ones it declares.

    Lowest first: the Runbook's declared defaults, SERVICE and SEVERITY from the
    incident, then the incident's spec.parameters. A parameter nobody gives a
    value is empty, and a plan that uses one is never actionable (`unset_parameters`).
    """
    referenced = _referenced(runbook)
    declared = {p.name for p in runbook.spec.parameters}
    for name in sorted(declared):
        if not _NAME.match(name):
            raise PlanError(f"parameter {name!r} is not a name a command can use as $(NAME): A-Z, 0-9 and _")
    if unexpanded := _unexpanded(runbook, declared):
        step, written = unexpanded[0]
        raise PlanError(f"step {step} writes {written}, which no shell runs there to fill in: Kubernetes fills a "
                        f"parameter only where a command says $({written.strip('${}')})")
    wanted = sorted(referenced | declared)
    values, defaults = _values(spec, runbook), runbook.spec.defaults()
    out: dict[str, str] = {}
    for name in wanted:
        value = values.get(name, "")
        if not _SAFE_VALUE.match(value):
            raise PlanError(f"parameter {name} has a value with characters a plan does not accept: {value!r}")
        # From the incident (its service, its parameters), `--all` would be an option of the step's command:
        # `kubectl rollout restart deployment $(SERVICE)` restarts every deployment. A default is the
        # runbook author's own, and may be meant as one.
        if value.startswith("-") and value != defaults.get(name):
            raise PlanError(f"parameter {name} is {value!r}, which a command would read as an option, not a value")
        out[name] = value
    return out


def unset_parameters(spec: IncidentSpec, runbook: Runbook) -> list[str]:
    """The `$(NAME)`s the runbook's commands use that nobody gives a value: no default, nothing on the incident.

    They expand to nothing (`parameters_for`), so `kubectl rollout undo
    deployment/$(DEPLOYMENT)` would run as `deployment/`: a plan with one is
    shown, never run. A default of "" is a value (the author meant it empty).
    """
    values = _values(spec, runbook)
    return sorted(name for name in _referenced(runbook) if name not in values)


def _referenced(runbook: Runbook) -> set[str]:
    """The parameters the runbook's commands name as `$(NAME)`."""
    return {m for s in runbook.spec.steps for cmd in (s.command, s.dry_run_command, s.rollback_command)
            for arg in cmd for m in _PARAM.findall(arg)}


# A parameter written as a shell would read it. Inside `sh -c` the shell fills it from
# the container's environment, which holds every declared parameter; anywhere else it
# stays the text as written, as Kubernetes expands `$(NAME)` only.
_SHELL_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_SHELLS = frozenset({"sh", "bash", "ash", "dash", "zsh", "ksh"})


def _unexpanded(runbook: Runbook, declared: set[str]) -> list[tuple[str, str]]:
    """(step, `$NAME` or `${NAME}`) for each declared parameter a command names that way outside a shell."""
    found = []
    for s in runbook.spec.steps:
        for cmd in (s.command, s.dry_run_command, s.rollback_command):
            if cmd and cmd[0].rsplit("/", 1)[-1] in _SHELLS:
                continue
            for arg in cmd:
                for m in _SHELL_REFERENCE.finditer(arg):
                    if (m.group(1) or m.group(2)) in declared:
                        found.append((s.name, m.group(0)))
    return found


def _values(spec: IncidentSpec, runbook: Runbook) -> dict[str, str]:
    return {**runbook.spec.defaults(), "SERVICE": spec.service, "SEVERITY": spec.severity, **spec.parameters}


def undeclared_target(spec: IncidentSpec, runbook: Runbook) -> str | None:
    """The service the runbook's commands would act on, as $(SERVICE), when its declaration does not list it.

    A runbook that lists its services was written for those; run for an
    incident on another one (a neighbour's precedent, a shared dependency),
    its commands would roll back or restart a service nobody wrote them for.
    A runbook that lists none, or never names $(SERVICE), acts on its own
    targets whatever service paged.
    """
    if not runbook.spec.services or "SERVICE" not in _referenced(runbook):
        return None
    target = _values(spec, runbook).get("SERVICE", "")
    return None if target in runbook.spec.services else target


def build_plan(spec: IncidentSpec, runbook: Runbook, read_only: bool = False) -> Plan:
    params = parameters_for(spec, runbook)
    steps = [
        PlannedStep(
            name=s.name,
            title=s.name.replace("-", " "),
            image=s.image,
            # In a read-only plan the step's own command is its dry-run command.
            command=list(s.dry_run_command if read_only else s.command),
            dry_run_command=list(s.dry_run_command),
            rollback_command=[] if read_only else list(s.rollback_command),
            risk="low" if read_only else s.risk,
            blast_radius="none (read-only)" if read_only else s.blast_radius,
            estimated_seconds=s.estimated_seconds,
            backoff_limit=s.backoff_limit,
            timeout_seconds=s.timeout_seconds,
            # A read-only plan runs dry-run commands, which may read the API too
            # (kubectl rollout history): the declaration holds in either plan.
            api_access=s.api_access,
        )
        for s in runbook.spec.steps
        if not (read_only and not s.dry_run_command)
    ]
    return Plan(runbook.name, steps, params, read_only, plan_hash(runbook.name, steps, params))


def steps_digest(runbook: Runbook) -> str:
    """What a runbook does, as 16 hex digits: each step's name, commands and rollback, in order.

    A runbook's track record was earned by these steps (kube.status counts it
    under this digest): when they change, the record no longer speaks for it.
    The image, the risk and the estimates are left out: a new image tag of the
    same command is maintenance, not another fix.
    """
    canonical = json.dumps([[s.name, list(s.command), list(s.rollback_command)] for s in runbook.spec.steps],
                           separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def plan_hash(runbook: str, steps: list[PlannedStep], parameters: dict[str, str]) -> str:
    """sha256 over a canonical JSON of what would run; 16 hex digits are shown and approved."""
    canonical = json.dumps(
        {"runbook": runbook, "steps": [s.hashed() for s in steps], "parameters": parameters},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]
