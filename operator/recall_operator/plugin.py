"""kubectl recall: read an Incident's recommendation, approve or reject its plan, record its outcome.

Installed as the ``kubectl-recall`` console script, so ``kubectl recall ...``
finds it on PATH. It talks to the cluster of the current kubeconfig (or
``--kubeconfig`` / ``--context``) through the ``kubernetes`` client.

    kubectl recall why INCIDENT [-n NS]
    kubectl recall approve INCIDENT [--reason TEXT] [--yes]
    kubectl recall reject INCIDENT --reason TEXT
    kubectl recall set INCIDENT NAME=VALUE ... (NAME= removes it)
    kubectl recall resolve INCIDENT --root-cause TEXT --summary TEXT [--runbook RB]
                                    --action "what was done=succeeded|failed|partial" ... [--confirmed-by USER]
    kubectl recall reconcile CONTRADICTION --note TEXT | --reopen

The rendering functions are pure (a status dict in, text out) so that what a
person reads at 3 a.m. is tested without a cluster.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shlex
import sys
import time
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from recall_operator.api import GROUP, VERSION
from recall_operator.domain.approval_rules import PARAMETERS_BY_ANNOTATION, parameters_chosen_by
from recall_operator.domain.consolidation import current_outcome, withdrawal
from recall_operator.domain.contradictions import reconciled_by
from recall_operator.domain.execution import TERMINAL
from recall_operator.domain.plan import parameter_refusal

RESULTS = ("succeeded", "failed", "partial")
MERGE_PATCH = "application/merge-patch+json"
NAME_MAX = 253
USER_LABEL_MAX = 63  # of a user in an Approval's name; a longer one is cut and keeps a digest


class PluginError(Exception):
    """A failure the person can act on: the message says what to do next."""


# -- pure rendering --------------------------------------------------------------


_SPACES = re.compile(r"[^\S\n\r\t]{2,}")
_OBJECT_NAME = re.compile(r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?")
# Bytes of an argument the terminal's encoding could not read: Python keeps each as a lone surrogate.
_UNDECODED = re.compile("[\udc80-\udcff]")


def shown(value: Any) -> Any:
    """`value`, read from the API, with every string safe to print on a terminal.

    An Incident's text is anyone's who may open one: a newline in a title could
    forge a line of this output (a fake MODE ACTIONABLE above the real one), and
    an escape sequence could hide the rest of it. Line breaks show as ⏎ and every
    other control or format character as its escape, so each field stays on its line.
    """
    if isinstance(value, str):
        # Runs of spaces too: a title padded to the terminal's width wrapped into a line of its own.
        text = _SPACES.sub(" ", value)
        return "".join(_escaped(c) if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") else c for c in text)
    if isinstance(value, Mapping):
        return {k: shown(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [shown(v) for v in value]
    return value


def _escaped(c: str) -> str:
    if c in "\r\n\u2028\u2029":
        return "⏎"
    return f"\\x{ord(c):02x}" if ord(c) <= 0xFF else f"\\u{ord(c):04x}"


def _cmd(command: Any) -> str:
    if not command:
        return "-"
    if isinstance(command, str):
        return command
    return shlex.join(str(c) for c in command)


def _conditions(status: Mapping[str, Any]) -> dict[str | None, Mapping[str, Any]]:
    return {c.get("type"): c for c in status.get("conditions") or [] if isinstance(c, Mapping)}


def _num(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return "-" if value is None else str(value)


def render_breakdown(breakdown: Mapping[str, Any]) -> str:
    """The points each term gave, largest first: ``lexical +30.1, service +25, ruledOut -10``."""
    if not breakdown:
        return "(no breakdown)"
    terms = sorted(breakdown.items(), key=lambda kv: -abs(float(kv[1] or 0)))
    return ", ".join(f"{k} {float(v or 0):+g}" for k, v in terms)


def render_actions(actions: Iterable[Mapping[str, Any]]) -> list[str]:
    lines = []
    for a in actions:
        result = a.get("result", "?")
        mark = {"succeeded": "ok     ", "failed": "FAILED ", "partial": "partial"}.get(result, f"{result:<7}")
        claim = " (a claim: not what the operator saw here)" if a.get("reported") is True else ""
        lines.append(f"[{mark}] {a.get('action', '?')}{claim}")
    return lines


def render_match(index: int, match: Mapping[str, Any]) -> list[str]:
    outcome = match.get("outcome") or "unknown"
    head = (f"{index}. {match.get('incident')}  similarity {_num(match.get('similarity'))}"
            f"  outcome {outcome.upper() if outcome == 'failed' else outcome}"
            f"  runbook {match.get('runbook') or '(none)'}")
    lines = [head, f"   breakdown: {render_breakdown(match.get('breakdown') or {})}"]
    if match.get("recognition"):
        # Why this match is listed above one with a higher similarity.
        lines.append(f"   recognition: +{_num(match.get('recognition'))} (its report and confirmed outcome say this incident's words)")
    lines += [f"   ruled out: {why}" for why in match.get("ruledOut") or []]
    shared = match.get("sharedChange")
    if isinstance(shared, list) and shared:  # the CRD refuses other shapes; an object from before it may hold one
        lines.append(f"   rolled out shortly before both: {', '.join(map(str, shared))}")
    actions = render_actions(match.get("actions") or [])
    if actions:
        left_out = match.get("actionsLeftOut")
        lines.append(f"   actions (the last {len(actions)}; {left_out} earlier ones are in memory):"
                     if isinstance(left_out, int) and left_out > 0 else "   actions:")
        lines += [f"     {a}" for a in actions]
    stale = match.get("stale")
    if stale:
        lines.append(
            f"   STALE: migration {stale.get('migration')} ({stale.get('oldArch')} -> {stale.get('newArch')}),"
            f" actionability -{_num(stale.get('deduction'))}: {stale.get('why') or ''}".rstrip(": ")
        )
    if match.get("contradiction"):
        lines.append(f"   CONTRADICTION: {match['contradiction']}")
    if match.get("repageOf"):
        lines.append(f"   re-page of {match['repageOf']}")
    return lines


def render_step(index: int, step: Mapping[str, Any], read_only: bool) -> list[str]:
    title = f" - {step['title']}" if step.get("title") else ""
    risk = step.get("risk") or "unknown"
    # The image and the deadline are in the plan hash: an approver signs for them too.
    deadline = f"; deadline {step['timeoutSeconds']} s" if step.get("timeoutSeconds") is not None else ""
    lines = [
        f"{index}. {step.get('name')}{title}",
        f"   risk {risk.upper() if risk == 'high' else risk}; blast radius: {step.get('blastRadius') or 'not stated'}",
        f"   image:    {step.get('image') or '?'}{deadline}{_pinned_note(step)}",
        f"   command:  {_cmd(step.get('command'))}" + ("   (read-only: this is the dry-run)" if read_only else ""),
        f"   dry-run:  {_cmd(step.get('dryRunCommand'))}",
        f"   rollback: {_cmd(step.get('rollbackCommand')) if step.get('rollbackCommand') else 'NONE (cannot be undone by the operator)'}",
    ]
    if step.get("apiAccess"):
        # What an approver signs for: this step's pod gets a token for the executor's account.
        lines.append("   API ACCESS: runs with a token of the runbook executor account (its Role in this namespace)")
    return lines


def _pinned_note(step: Mapping[str, Any]) -> str:
    """What runs for an image named by tag: the digest its dry-run ran (handlers.execution._dry_run_image)."""
    if "@" in str(step.get("image") or "@") or not step.get("dryRunCommand"):
        return ""
    return "  (by tag: the run takes the digest its dry-run ran)"


def render_plan(rec: Mapping[str, Any], parameters_by: str | None = None) -> str:
    """The plan as an approver reads it; `parameters_by`: who last set the incident's parameters."""
    rec, parameters_by = shown(rec), shown(parameters_by)
    steps = rec.get("steps") or []
    if not steps:
        return "PLAN\n  (no steps: nothing for the operator to run)"
    read_only = bool(rec.get("readOnly"))
    lines = [f"PLAN  runbook {rec.get('runbook')}  planHash {rec.get('planHash') or '(none)'}"
             + ("  READ-ONLY" if read_only else "")]
    if rec.get("parameters"):
        lines.append("  parameters: " + ", ".join(f"{k}={v}" for k, v in sorted(rec["parameters"].items())))
    if parameters_by:
        lines.append(f"  the incident's parameters were set by {parameters_by}, who cannot approve this plan")
    for i, step in enumerate(steps, 1):
        lines += [f"  {line}" for line in render_step(i, step, read_only)]
    return "\n".join(lines)


def _warning_text(w: Any) -> str:
    if isinstance(w, Mapping):
        return w.get("message") or json.dumps(w, sort_keys=True)
    return str(w)


def render_approvals(plan_hash: str | None, approvals: Sequence[Mapping[str, Any]] | None) -> list[str]:
    """The Approvals of the current plan and how the operator judged each: a plan half-approved says so here."""
    if approvals is None:
        return ["", "APPROVALS", "  (not shown: you may not list Approvals in this namespace)"]
    mine = [a for a in approvals if (a.get("spec") or {}).get("planHash") == plan_hash] if plan_hash else []
    if not mine:
        return []
    out = ["", f"APPROVALS of plan {plan_hash}"]
    for a in mine:
        spec, st_ = a.get("spec") or {}, a.get("status") or {}
        verdict = st_.get("state") or "not judged yet"
        reason = f": {st_['reason']}" if st_.get("reason") else ""
        until = f" (counts until {st_['expiresAt']})" if st_.get("state") == "Pending" and st_.get("expiresAt") else ""
        out.append(f"  {spec.get('approver', '?')} {spec.get('decision', '?')}s  {verdict}{reason}{until}")
    return out


def render_why(incident: Mapping[str, Any], approvals: Sequence[Mapping[str, Any]] | None = ()) -> str:
    """Everything the operator concluded about one Incident, warnings first, as text for a person."""
    incident, approvals = shown(incident), None if approvals is None else shown(approvals)
    meta = incident.get("metadata") or {}
    spec = incident.get("spec") or {}
    status = incident.get("status") or {}
    rec = status.get("recommendation") or {}
    name, ns = meta.get("name"), meta.get("namespace")
    out = [f"{name}  ({ns})  {spec.get('service', '?')}  severity {spec.get('severity') or '-'}",
           f"  {spec.get('title', '')}", ""]
    mode = rec.get("mode") or "?"
    out.append(f"MODE {mode.upper()}   similarity {_num(rec.get('similarity'))}/100"
               f"   actionability {_num(rec.get('actionability'))}/100")
    if rec.get("runbook"):
        out.append(f"RUNBOOK {rec['runbook']}  (source: {rec.get('source') or 'unknown'})")
    else:
        out.append("RUNBOOK none fits")
    out.append({
        "novel": "  novel: no past incident is close enough; only read-only steps are offered. Investigate.",
        "advisory": "  advisory: precedents exist but it is not safe to act on them blindly; a person decides.",
        "actionable": "  actionable: a close precedent with a good record; the plan below can be approved.",
    }.get(mode, ""))

    warnings = [_warning_text(w) for w in rec.get("warnings") or []]
    conds = _conditions(status)
    mem = conds.get("MemoryAvailable")
    if mem and mem.get("status") == "False":
        warnings.insert(0, f"memory unavailable: {mem.get('message')}")
    out += ["", "WARNINGS"]
    out += [f"  ! {w}" for w in warnings] if warnings else ["  (none)"]

    reasons = list(rec.get("reasons") or [])
    if reasons:
        out += ["", "WHY"] + [f"  - {r}" for r in reasons]

    matches = status.get("matches") or []
    out += ["", f"MATCHES ({len(matches)}, best first)"]
    if not matches:
        out.append("  (none: nothing in memory looks like this incident)")
    for i, m in enumerate(matches, 1):
        out += [f"  {line}" for line in render_match(i, m)]

    out += ["", render_plan(rec, parameters_chosen_by(incident))]

    dry = status.get("dryRun") or {}
    if dry.get("steps"):
        out += ["", f"DRY-RUN (plan {dry.get('planHash')})"]
        for s in dry["steps"]:
            out.append(f"  {s.get('name')}: {s.get('result')}")
    out += render_approvals(rec.get("planHash"), approvals)
    ex = status.get("execution") or {}
    if ex:
        out += ["", f"EXECUTION {ex.get('state')}: {ex.get('reason') or ''}".rstrip(": ")]
        for s in [*(ex.get("steps") or []), *(ex.get("rollbacks") or [])]:
            what = "rollback of " if s.get("phase") == "rollback" else ""
            out.append(f"  {what}{s.get('name')}: {s.get('result')}" + (f" (image {s['image']})" if s.get("image") else ""))
    out += ["", "NEXT", "  " + next_step(incident)]
    return "\n".join(out) + "\n"


def next_step(incident: Mapping[str, Any]) -> str:
    meta = incident.get("metadata") or {}
    status = incident.get("status") or {}
    rec = status.get("recommendation") or {}
    name, ns = meta.get("name"), meta.get("namespace")
    if (incident.get("spec") or {}).get("resolution"):
        return "the outcome is recorded; nothing to do."
    if rec.get("mode") == "actionable" and rec.get("planHash"):
        return (f"kubectl recall approve {name} -n {ns}   (or: kubectl recall reject {name} -n {ns} --reason ...);"
                f" when it is over: kubectl recall resolve {name} -n {ns} ...")
    # An open contradiction holds the answer back until someone says how its claims fit together.
    held = sorted({str(m["contradiction"]) for m in status.get("matches") or [] if m.get("contradiction")})
    reconcile = (f"; if you know which condition calls for which fix in {', '.join(held)}, say so (role"
                 f" recall-reconciler): kubectl recall reconcile {held[0]} -n {ns} --note ...") if held else ""
    return (f"act by hand, then record what happened: kubectl recall resolve {name} -n {ns}"
            f" --root-cause ... --summary ... --action 'what you did=succeeded'{reconcile}")


def not_found_message(name: str, namespace: str, existing: Sequence[str], kind: str = "Incident") -> str:
    if existing:
        shown = ", ".join(sorted(existing)[:20]) + (" ..." if len(existing) > 20 else "")
        return (f"no {kind} {name!r} in namespace {namespace}. {kind}s there: {shown}."
                " (Another namespace? add -n NAMESPACE)")
    return (f"no {kind} {name!r} in namespace {namespace}, and none at all there."
            f" Wrong namespace? add -n NAMESPACE, or list them: kubectl get {kind.lower()}s -A")


def not_triaged_message(incident: Mapping[str, Any]) -> str | None:
    """Why the incident has no recommendation yet, and what to do; None when it has one."""
    incident = shown(incident)
    status = incident.get("status") or {}
    if (status.get("recommendation") or {}).get("mode"):
        return None
    meta = incident.get("metadata") or {}
    triaged = _conditions(status).get("Triaged")
    if triaged and triaged.get("status") == "False":
        return (f"incident {meta.get('name')} could not be triaged: {triaged.get('reason')}: {triaged.get('message')}."
                " Fix the Incident's spec (kubectl edit incident ...) and the operator will try again.")
    return (f"incident {meta.get('name')} is not triaged yet: the operator has written no recommendation."
            " Wait a few seconds and try again; if it stays so, check that the operator runs and watches"
            f" namespace {meta.get('namespace')} (its logs, and `kubectl get events -n {meta.get('namespace')}`).")


def not_actionable_message(incident: Mapping[str, Any]) -> str | None:
    """Why there is nothing to approve, and what to do instead; None when there is a plan to approve."""
    incident = shown(incident)
    rec = (incident.get("status") or {}).get("recommendation") or {}
    name = (incident.get("metadata") or {}).get("name")
    ns = (incident.get("metadata") or {}).get("namespace")
    execution = (incident.get("status") or {}).get("execution") or {}
    if rec.get("planHash") and execution.get("planHash") == rec.get("planHash") and execution.get("state") == "Succeeded":
        return (f"refusing: plan {rec['planHash']} of incident {name} already ran and every step succeeded"
                f" (approved by {execution.get('approvedBy')}); the operator does not run it again."
                f" Record the outcome: kubectl recall resolve {name} -n {ns} ...; if the problem is back,"
                " open a new Incident")
    if rec.get("mode") == "actionable" and rec.get("planHash"):
        return None
    mode = rec.get("mode") or "not triaged"
    why = {"novel": "it looks like nothing in memory", "advisory": "the precedents are not safe enough to act on"}.get(
        mode, "there is no plan")
    return (f"refusing: incident {name} is {mode} ({why}), so there is no plan for the operator to run."
            f" Read `kubectl recall why {name} -n {ns}`, act by hand if you must, then record the outcome:"
            f" kubectl recall resolve {name} -n {ns} --root-cause ... --summary ... --action 'what=succeeded'")


def dns_label(text: str) -> str:
    """`text` made safe for a Kubernetes object name (lowercase alphanumerics and '-')."""
    return re.sub(r"-+", "-", re.sub(r"[^a-z0-9-]", "-", text.lower())).strip("-") or "user"


def approval_name(incident: str, plan_hash: str, user: str, decision: str = "approve") -> str:
    """`<incident>-<plan>-<user>[-reject]`: one name per person, plan and decision.

    What tells people and decisions apart (the user, its digest, `-reject`) is
    never cut: a long name gives up the end of the incident's name instead, so
    two people's decisions do not meet under one name and fall back to a
    generated one (`Cluster.create_approval`).
    """
    label = dns_label(user)
    if label != user or len(label) > USER_LABEL_MAX:
        # alice.b and alice-b would share one name: a digest of the user name keeps them apart.
        label = f"{label[:USER_LABEL_MAX].rstrip('-')}-{hashlib.sha256(user.encode()).hexdigest()[:6]}"
    tail = f"-{plan_hash[:8]}-{label}" + ("-reject" if decision == "reject" else "")
    head = incident[:NAME_MAX - len(tail)].rstrip("-.")
    return f"{head}{tail}"


def approval_manifest(incident: str, namespace: str, plan_hash: str, user: str, decision: str,
                      reason: str | None) -> dict[str, Any]:
    spec: dict[str, Any] = {"incident": incident, "planHash": plan_hash, "decision": decision, "approver": user}
    if reason:
        spec["reason"] = reason
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "Approval",
        "metadata": {"name": approval_name(incident, plan_hash, user, decision), "namespace": namespace},
        "spec": spec,
    }


def same_decision(existing: Mapping[str, Any], manifest: Mapping[str, Any]) -> bool:
    """Whether an Approval found under this person's name is their own decision on this plan."""
    mine, found = manifest["spec"], existing.get("spec") or {}
    return all(found.get(k) == mine[k] for k in ("incident", "planHash", "decision", "approver"))


def render_contradiction(contradiction: Mapping[str, Any]) -> str:
    """What a Contradiction's memories claim, and whether and by whom it was reconciled."""
    contradiction = shown(contradiction)
    spec = contradiction.get("spec") or {}
    res = spec.get("resolution") or {}
    lines = [f"contradiction {(contradiction.get('metadata') or {}).get('name')}: {spec.get('topic')}"]
    lines += [f"  {c.get('memory')}: {c.get('claim')}" for c in spec.get("claims") or []]
    if res.get("state") == "reconciled":
        lines.append(f"  reconciled {reconciled_by(str(res.get('reconciledBy') or ''))}: {res.get('note')}")
    else:
        lines.append("  open: answers that recall these memories stay advisory")
    return "\n".join(lines)


def reconciliation(note: str, user: str, now: datetime) -> dict[str, Any]:
    """A Contradiction's spec.resolution, reconciled and signed by `user` (admission checks the name)."""
    return {"state": "reconciled", "note": note, "reconciledBy": user,
            "reconciledAt": now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}


# Opened again: the signature and its time go (a merge patch removes a key set to null); the note stays.
REOPENED = {"state": "open", "reconciledBy": None, "reconciledAt": None}


def parse_action(text: str) -> dict[str, str]:
    """``"restart cart pods=failed"`` -> {"action": "restart cart pods", "result": "failed"}."""
    action, sep, result = text.rpartition("=")
    result = result.strip().lower()
    if not sep or not action.strip() or result not in RESULTS:
        raise PluginError(f"--action {text!r}: write it as \"what was done=RESULT\", RESULT one of {', '.join(RESULTS)}")
    return {"action": action.strip(), "result": result}


def resolution(root_cause: str, summary: str, actions: Sequence[str], runbook: str | None,
               confirmed_by: str, now: datetime) -> dict[str, Any]:
    if not root_cause.strip() or not summary.strip():
        raise PluginError("a resolution needs --root-cause and --summary (written for a cold reader)")
    return {
        "rootCause": root_cause.strip(),
        "summary": summary.strip(),
        "runbook": runbook or None,
        "actions": [parse_action(a) for a in actions],
        "confirmedBy": confirmed_by,
        "confirmedAt": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def unknown_runbook(name: str | None, incident: Mapping[str, Any], catalog: Sequence[str] | None) -> str | None:
    """Why `--runbook name` cannot be what fixed this incident, or None when it can.

    A misspelt name credits no runbook, not even the one the operator ran, and
    the incident counts as counted: a later correction cannot put it right. A
    name is known when the catalog or the incident's status (the
    recommendation, the run, a match) names it; when the catalog cannot be read
    (`catalog` None: the user may not list Runbooks), nothing is refused.
    """
    if not name:
        return None
    status = incident.get("status") or {}
    seen = {str(r) for r in (((status.get("recommendation") or {}).get("runbook")),
                             ((status.get("execution") or {}).get("runbook")),
                             *((m or {}).get("runbook") for m in status.get("matches") or ())) if r}
    if name in seen or (catalog is not None and name in catalog):
        return None
    if catalog is None:
        return None  # nothing to check it against: the operator says what it counted
    near = sorted(seen | set(catalog))
    return (f"no Runbook named {name!r} in this namespace (there are: {', '.join(near) or 'none'}); a name that is not"
            " one credits no runbook, and the outcome cannot be recounted later. Pass the Runbook's name, or none")


# -- the cluster -----------------------------------------------------------------


class Cluster:
    def __init__(self, kubeconfig: str | None, context: str | None, namespace: str | None,
                 as_user: str | None = None) -> None:
        from kubernetes import client, config

        from recall_operator.kube.client import bound_requests

        try:
            configuration = client.Configuration()
            config.load_kube_config(config_file=kubeconfig, context=context, client_configuration=configuration)
            # Asked once: urllib3 would send a request that timed out three more times, each with the whole
            # read timeout again, and a person at a terminal waited minutes on a server that never answers.
            configuration.retries = False
            self.api = client.ApiClient(configuration)
            if as_user:
                # As kubectl --as: the API server authenticates us, then acts as this user, so the
                # Approval or outcome is signed by that user (SelfSubjectReview answers with it too).
                self.api.set_default_header("Impersonate-User", as_user)
            _, active = config.list_kube_config_contexts(config_file=kubeconfig)
            if context:
                contexts, _ = config.list_kube_config_contexts(config_file=kubeconfig)
                active = next((c for c in contexts if c["name"] == context), active)
        except (config.ConfigException, OSError) as exc:
            raise PluginError(f"cannot read the kubeconfig ({exc}); set KUBECONFIG or pass --kubeconfig") from exc
        # A server that accepts and never answers ends the command with an error, not a hang.
        bound_requests(self.api)
        self.namespace = namespace or (active or {}).get("context", {}).get("namespace") or "default"
        self.objects = client.CustomObjectsApi(self.api)
        self.client = client

    def close(self) -> None:
        self.api.close()

    def _call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        import urllib3
        from kubernetes.client.exceptions import ApiException

        try:
            return fn(*args, **kwargs)
        except ApiException as exc:
            if exc.status == 403 and "AdmissionPolicy" in _api_message(exc):
                # Not a missing role: a policy read the request and refused what it says.
                raise PluginError(f"refused by an admission policy: {_api_message(exc)}") from exc
            if exc.status == 403:
                raise PluginError(f"not allowed to {what} in namespace {self.namespace}: {_api_message(exc)}."
                                  " Ask for the role, or check: kubectl auth can-i --list -n " + self.namespace) from exc
            raise
        except (OSError, urllib3.exceptions.HTTPError) as exc:  # refused, DNS, TLS, retries spent, timed out
            raise PluginError(f"cannot reach the Kubernetes API to {what}: {exc}. Is the cluster up,"
                              " and is this the right kubeconfig/context?") from exc

    def incident(self, name: str) -> dict[str, Any]:
        return self._named("Incident", name)

    def contradiction(self, name: str) -> dict[str, Any]:
        return self._named("Contradiction", name)

    def _named(self, kind: str, name: str) -> dict[str, Any]:
        from kubernetes.client.exceptions import ApiException

        plural = kind.lower() + "s"
        if len(name) > 253 or not _OBJECT_NAME.fullmatch(name):
            # `inc-e/status` addressed the status subresource: an outcome "recorded" there was dropped.
            raise PluginError(f"{name!r} is not a{'n' if kind[0] in 'AEIOU' else ''} {kind} name"
                              " (lowercase letters, digits, '-' and '.')")
        try:
            return self._call(f"read {plural}", self.objects.get_namespaced_custom_object,
                              GROUP, VERSION, self.namespace, plural, name)
        except ApiException as exc:
            if exc.status != 404:
                raise
        try:
            items = self._call(f"list {plural}", self.objects.list_namespaced_custom_object,
                               GROUP, VERSION, self.namespace, plural)["items"]
        except ApiException as exc:
            if exc.status == 404:
                raise PluginError(f"the recall.dev CRDs are not installed in this cluster (no {plural} resource);"
                                  " install them: kubectl apply -f crds/") from exc
            raise
        raise PluginError(not_found_message(name, self.namespace, [i["metadata"]["name"] for i in items], kind))

    def runbook_names(self) -> list[str] | None:
        """The Runbooks of the namespace; None when this user may not list them."""
        from kubernetes.client.exceptions import ApiException

        try:
            listed: Any = self._call("list runbooks", self.objects.list_namespaced_custom_object,
                                     GROUP, VERSION, self.namespace, "runbooks")
            items = listed["items"]
        except ApiException as exc:
            if exc.status in (401, 403):
                return None
            raise
        return [str(i["metadata"]["name"]) for i in items]

    def username(self) -> str:
        try:
            review = self._call("review your own identity", self.client.AuthenticationV1Api(self.api)
                                .create_self_subject_review,
                                {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})
        except Exception as exc:
            raise PluginError(f"cannot tell who you are (SelfSubjectReview failed: {exc});"
                              " what the plugin writes is signed with the authenticated user, so nothing was written") from exc
        user = review.status.user_info.username if review.status and review.status.user_info else None
        if not user:
            raise PluginError("the API server did not say who you are; nothing was written")
        return str(user)

    def create_approval(self, manifest: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        """Create it; (the existing one, False) when this person already decided the same on this plan.

        The name is predictable, so another person may have taken it first: then
        this person's Approval is created under a generated name, never taken
        for theirs.
        """
        from kubernetes.client.exceptions import ApiException

        try:
            return self._create(manifest), True
        except ApiException as exc:
            if exc.status != 409:
                raise
        existing = self._call("read approvals", self.objects.get_namespaced_custom_object,
                              GROUP, VERSION, self.namespace, "approvals", manifest["metadata"]["name"])
        if same_decision(existing, manifest):
            return existing, False
        meta = {k: v for k, v in manifest["metadata"].items() if k != "name"}
        return self._create({**manifest, "metadata": {**meta, "generateName": f"{manifest['metadata']['name']}-"}}), True

    def _create(self, manifest: dict[str, Any]) -> dict[str, Any]:
        from kubernetes.client.exceptions import ApiException

        try:
            return self._call("create approvals", self.objects.create_namespaced_custom_object,
                              GROUP, VERSION, self.namespace, "approvals", manifest)
        except ApiException as exc:
            if exc.status in (400, 422):
                raise PluginError(f"the API server refused the Approval: {_api_message(exc)}") from exc
            raise

    def approval(self, name: str) -> dict[str, Any]:
        return self._call("read approvals", self.objects.get_namespaced_custom_object,
                          GROUP, VERSION, self.namespace, "approvals", name)

    def approvals_of(self, incident: str) -> list[dict[str, Any]] | None:
        """The Approvals naming `incident`, oldest first; None when this user may not list them."""
        try:
            listing = self._call("list approvals", self.objects.list_namespaced_custom_object,
                                 GROUP, VERSION, self.namespace, "approvals")
        except PluginError:
            return None
        found = [a for a in listing.get("items") or [] if (a.get("spec") or {}).get("incident") == incident]
        return sorted(found, key=lambda a: str((a.get("metadata") or {}).get("creationTimestamp") or ""))

    def patch_resolution(self, name: str, value: dict[str, Any]) -> dict[str, Any]:
        return self._patch_spec(name, {"spec": {"resolution": value}}, "the resolution")

    def append_correction(self, incident: Mapping[str, Any], value: dict[str, Any]) -> dict[str, Any]:
        """Add `value` after the corrections `incident` holds, only if nobody added one since it was read."""
        meta = incident.get("metadata") or {}
        corrections = list((incident.get("spec") or {}).get("corrections") or [])
        # The resourceVersion makes the merge patch conditional: a correction someone added meanwhile
        # is never dropped by writing the whole list back (the API server answers 409 instead).
        body = {"metadata": {"resourceVersion": meta.get("resourceVersion")},
                "spec": {"corrections": [*corrections, value]}}
        return self._patch_spec(str(meta.get("name")), body, "the correction")

    def set_parameters(self, name: str, values: Mapping[str, str | None], user: str) -> dict[str, Any]:
        """Set (None: remove) spec.parameters, signed with who set them in the same request, as admission asks."""
        body = {"metadata": {"annotations": {PARAMETERS_BY_ANNOTATION: user}}, "spec": {"parameters": dict(values)}}
        return self._patch_spec(name, body, "the parameters")

    def resolve_contradiction(self, contradiction: Mapping[str, Any], value: dict[str, Any]) -> dict[str, Any]:
        """Write spec.resolution, only if nobody changed the Contradiction since it was read."""
        meta = contradiction.get("metadata") or {}
        body = {"metadata": {"resourceVersion": meta.get("resourceVersion")}, "spec": {"resolution": value}}
        return self._patch_spec(str(meta.get("name")), body, "the reconciliation", "contradictions")

    def _patch_spec(self, name: str, body: dict[str, Any], what: str, plural: str = "incidents") -> dict[str, Any]:
        from kubernetes.client.exceptions import ApiException

        try:
            return self._call(f"patch {plural}", self.objects.patch_namespaced_custom_object,
                              GROUP, VERSION, self.namespace, plural, name, body, _content_type=MERGE_PATCH)
        except ApiException as exc:
            if exc.status in (400, 422):
                raise PluginError(f"the API server refused {what}: {_api_message(exc)}") from exc
            if exc.status == 409:
                raise PluginError(f"{plural[:-1]} {name} changed while {what} was being written (someone else"
                                  " wrote it meanwhile): read it again and retry") from exc
            raise


def _api_message(exc: Any) -> str:
    try:
        return json.loads(exc.body or "{}").get("message") or str(exc.reason)
    except (ValueError, AttributeError):
        return str(getattr(exc, "reason", exc))


# -- commands --------------------------------------------------------------------


def _triaged(cluster: Cluster, name: str) -> dict[str, Any]:
    incident = cluster.incident(name)
    why = not_triaged_message(incident)
    if why:
        raise PluginError(why)
    return incident


def cmd_why(cluster: Cluster, args: argparse.Namespace) -> int:
    incident = _triaged(cluster, args.incident)
    sys.stdout.write(render_why(incident, cluster.approvals_of(args.incident)))
    return 0


def _wait_verdict(cluster: Cluster, name: str, seconds: float) -> Mapping[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        state = cluster.approval(name).get("status") or {}
        if state.get("state") or time.monotonic() >= deadline:
            return state
        time.sleep(0.5)


def _decide(cluster: Cluster, args: argparse.Namespace, decision: str) -> int:
    incident = _triaged(cluster, args.incident)
    refusal = not_actionable_message(incident)
    if refusal:
        raise PluginError(refusal)
    rec = incident["status"]["recommendation"]
    plan_hash = rec["planHash"]
    print(render_plan(rec, parameters_chosen_by(incident)))
    print()
    user = cluster.username()
    verb = "Approve" if decision == "approve" else "Reject"
    if not args.yes and sys.stdin.isatty():
        answer = input(f"{verb} plan {plan_hash} of {args.incident} as {user}? [y/N] ").strip().lower()
        if answer not in ("y", "yes"):
            print("nothing created")
            return 1
    manifest = approval_manifest(args.incident, cluster.namespace, plan_hash, user, decision, args.reason)
    created, new = cluster.create_approval(manifest)
    name = created["metadata"]["name"]
    print(f"{'created' if new else 'already there:'} Approval {name}: {decision} plan {plan_hash} as {user}")
    if args.wait > 0:
        verdict = _wait_verdict(cluster, name, args.wait)
        if verdict.get("state"):
            print(f"operator: {verdict['state']}: {verdict.get('reason', '')}")
            return 0 if verdict["state"] in ("Accepted", "Rejected") else 1
        print(f"the operator has not judged it yet; watch: kubectl get approval {name} -n {cluster.namespace} -w")
    return 0


def cmd_approve(cluster: Cluster, args: argparse.Namespace) -> int:
    return _decide(cluster, args, "approve")


def cmd_reject(cluster: Cluster, args: argparse.Namespace) -> int:
    if not (args.reason or "").strip():
        raise PluginError("a rejection needs --reason: say why, for whoever reads it next")
    return _decide(cluster, args, "reject")


def _ask(label: str) -> str:
    try:
        answer = input(f"{label}: ").strip()
    except UnicodeDecodeError as exc:  # a terminal in another encoding than stdin's
        raise PluginError(f"what was typed for {label!r} is not text in this terminal's encoding; nothing was sent"
                          ) from exc
    if _UNDECODED.search(answer):  # stdin read with surrogateescape (a C or POSIX locale)
        raise PluginError(f"what was typed for {label!r} holds bytes that are not text in this terminal's encoding;"
                          " nothing was sent")
    return answer


def parse_parameters(pairs: Sequence[str]) -> dict[str, str | None]:
    """NAME=VALUE pairs, in order (a later one wins); `NAME=` removes NAME."""
    values: dict[str, str | None] = {}
    for pair in pairs:
        name, eq, value = pair.partition("=")
        if not eq or not name.strip():
            raise PluginError(f"{pair!r} is not NAME=VALUE (NAME= removes a parameter)")
        values[name.strip()] = value if value else None
    for key, given in values.items():
        if why := parameter_refusal(key, given):
            raise PluginError(f"{why}; nothing was set")
    return values


def unused_parameters(values: Mapping[str, str | None], incident: Mapping[str, Any]) -> list[str]:
    """The names set that the recommended plan does not use (its `parameters` are every name it fills)."""
    rec = (incident.get("status") or {}).get("recommendation") or {}
    if not rec.get("runbook") or not isinstance(rec.get("parameters"), Mapping):
        return []
    return sorted(n for n, v in values.items() if v is not None and n not in rec["parameters"])


def run_going_on(incident: Mapping[str, Any]) -> str | None:
    """What changing the parameters does to a run still going on, or None when none is."""
    ex = (incident.get("status") or {}).get("execution") or {}
    if not ex or ex.get("state") in TERMINAL:
        return None
    return (f"note: plan {shown(ex.get('planHash'))} is running; if the new values change its plan, no further "
            "step starts, the step running ends, and the run stops naming the steps that ran")


def cmd_set(cluster: Cluster, args: argparse.Namespace) -> int:
    values = parse_parameters(args.values)
    incident = cluster.incident(args.incident)
    if (incident.get("spec") or {}).get("resolution"):
        raise PluginError(f"incident {args.incident} is resolved: its report, parameters included, is frozen")
    going_on = run_going_on(incident)
    if going_on:
        print(going_on, file=sys.stderr)
    if unused := unused_parameters(values, incident):
        runbook = ((incident.get("status") or {}).get("recommendation") or {}).get("runbook")
        print(f"note: runbook {runbook}'s commands use no {', '.join(unused)}: set, it changes nothing in its plan"
              " (another runbook's plan may use it)", file=sys.stderr)
    user = cluster.username()
    held = cluster.set_parameters(args.incident, values, user)
    now = (held.get("spec") or {}).get("parameters") or {}
    shown_values = ", ".join(f"{k}={shown(v)}" for k, v in sorted(now.items())) or "none"
    print(f"parameters of {args.incident} now: {shown_values}; set by {user}, who cannot approve a plan that runs "
          "with them (four-eyes). The operator triages it again; check: kubectl recall why " + args.incident)
    return 0


def cmd_resolve(cluster: Cluster, args: argparse.Namespace) -> int:
    incident = cluster.incident(args.incident)
    old = (incident.get("spec") or {}).get("resolution")
    correcting = (args.correction or "").strip()
    if old and not correcting:
        raise PluginError(f"incident {args.incident} already has an outcome (confirmed by {old.get('confirmedBy')}),"
                          " and a recorded outcome never changes. If it is wrong, add a correction that restates"
                          " the whole outcome: pass --correction 'why the recorded one is wrong' with --root-cause,"
                          " --summary and --action as they should now read; memory then holds the correction")
    if correcting and not old:
        raise PluginError(f"incident {args.incident} has no outcome to correct yet: record it without --correction")
    root_cause, summary, actions, runbook = args.root_cause, args.summary, list(args.action), args.runbook
    interactive = sys.stdin.isatty()
    missing = [f for f, v in (("--root-cause", root_cause), ("--summary", summary), ("--action", actions)) if not v]
    if missing and not interactive:
        raise PluginError(f"missing {', '.join(missing)}: pass them, or run in a terminal to be asked")
    if interactive:
        root_cause = root_cause or _ask("Root cause")
        summary = summary or _ask("Summary, for a cold reader (what happened, what fixed it)")
        while not actions:
            line = _ask("Action, as 'what was done=succeeded|failed|partial' (empty line to end)")
            if not line:
                break
            actions.append(line)
        if runbook is None:
            suggested = ((incident.get("status") or {}).get("recommendation") or {}).get("runbook")
            runbook = _ask(f"Runbook that fixed it (empty for none{', suggested: ' + suggested if suggested else ''})")
    if why := unknown_runbook(runbook, incident, cluster.runbook_names() if runbook else None):
        raise PluginError(f"incident {args.incident}: {why}; nothing was recorded")
    confirmed_by = args.confirmed_by or cluster.username()
    value = resolution(root_cause or "", summary or "", actions, runbook, confirmed_by, datetime.now(UTC))
    if correcting:
        cluster.append_correction(incident, {**value, "reason": correcting})
        if gone := withdrawal(current_outcome(incident.get("spec") or {}) or {}):
            print(f"note: {args.incident} was {gone}; this correction brings it back into recall. To keep it out: "
                  f"kubectl recall withdraw {args.incident} --reason ...", file=sys.stderr)
    else:
        cluster.patch_resolution(args.incident, value)
    print(f"recorded {'a correction of ' if correcting else ''}the outcome of {args.incident}"
          f" ({len(value['actions'])} action(s), runbook"
          f" {value['runbook'] or 'none'}, confirmed by {confirmed_by}); the operator writes it into memory."
          f" Check: kubectl get incident {args.incident} -n {cluster.namespace} -o jsonpath='{{.status.memory}}'")
    return 0


def withdrawing(outcome: Mapping[str, Any], withdraw: bool, reason: str, user: str, now: datetime) -> dict[str, Any]:
    """The correction that restates `outcome` (the one memory holds) as it is, withdrawn from recall or back in it."""
    kept = {k: v for k, v in outcome.items() if k not in ("reason", "withdrawn", "confirmedBy", "confirmedAt")}
    return {**kept, "reason": reason, "confirmedBy": user, "confirmedAt": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
            **({"withdrawn": True} if withdraw else {})}


def cmd_withdraw(cluster: Cluster, args: argparse.Namespace) -> int:
    incident = cluster.incident(args.incident)
    outcome = current_outcome(incident.get("spec") or {})
    if outcome is None:
        raise PluginError(f"incident {args.incident} has no outcome yet: memory holds nothing of it to withdraw")
    withdraw, gone = not args.undo, withdrawal(outcome)
    if withdraw and gone:
        raise PluginError(f"incident {args.incident} is already {gone}; nothing was recorded")
    if not withdraw and not gone:
        raise PluginError(f"incident {args.incident} is not withdrawn; nothing was recorded")
    reason = (args.reason or "").strip()
    if not reason:
        raise PluginError("--reason is required: say why memory should " +
                          ("stop offering this incident as a precedent" if withdraw else "offer it again"))
    user = cluster.username()
    cluster.append_correction(incident, withdrawing(outcome, withdraw, reason, user, datetime.now(UTC)))
    print(f"{'withdrew' if withdraw else 'brought back'} {args.incident} "
          f"{'from' if withdraw else 'into'} recall: a correction signed by {user} restates its outcome as it was"
          f"{', withdrawn' if withdraw else ''}. The operator writes it into memory; check: kubectl get incident "
          f"{args.incident} -n {cluster.namespace} -o jsonpath='{{.status.conditions}}'")
    return 0


def cmd_reconcile(cluster: Cluster, args: argparse.Namespace) -> int:
    contradiction = cluster.contradiction(args.contradiction)
    state = ((contradiction.get("spec") or {}).get("resolution") or {}).get("state") or "open"
    print(render_contradiction(contradiction))
    if args.reopen:
        if state == "open":
            raise PluginError(f"contradiction {args.contradiction} is open already; nothing was changed")
        cluster.resolve_contradiction(contradiction, dict(REOPENED))
        print(f"opened contradiction {args.contradiction} again: answers that recall its memories stay advisory"
              " until someone reconciles it")
        return 0
    note = (args.note or "").strip()
    if not note and sys.stdin.isatty():
        note = _ask("How do the claims fit together (which condition calls for which fix)?")
    if not note:
        raise PluginError("a reconciliation says how the claims fit together: pass --note TEXT; nothing was changed")
    user = cluster.username()
    cluster.resolve_contradiction(contradiction, reconciliation(note, user, datetime.now(UTC)))
    print(f"reconciled contradiction {args.contradiction}, signed by {user}: an answer that recalls its memories may"
          " be actionable again, and its reasons quote your note. Undo: kubectl recall reconcile"
          f" {args.contradiction} --reopen")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kubectl recall",
                                description="Incident memory: why, approve, reject, set, resolve, reconcile.")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-n", "--namespace", default=None, help="the namespace (default: the context's)")
    common.add_argument("--kubeconfig", default=None)
    common.add_argument("--context", default=None)
    common.add_argument("--as", dest="as_user", default=None, metavar="USER",
                        help="act as USER (impersonation, like kubectl --as; needs the impersonate permission)")
    sub = p.add_subparsers(dest="command", required=True)

    w = sub.add_parser("why", parents=[common], help="what the operator concluded, and why")
    w.add_argument("incident")
    w.set_defaults(func=cmd_why)

    for name, func, helptext in (("approve", cmd_approve, "approve the recommended plan (by its hash)"),
                                 ("reject", cmd_reject, "reject the recommended plan")):
        a = sub.add_parser(name, parents=[common], help=helptext)
        a.add_argument("incident")
        a.add_argument("--reason", default=None)
        a.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
        a.add_argument("--wait", type=float, default=10.0, help="seconds to wait for the operator's verdict (0: don't)")
        a.set_defaults(func=func)

    sp = sub.add_parser("set", parents=[common],
                        help="set the values the plan runs with (spec.parameters), signed as you")
    sp.add_argument("incident")
    sp.add_argument("values", nargs="+", metavar="NAME=VALUE", help="NAME= removes NAME")
    sp.set_defaults(func=cmd_set)

    r = sub.add_parser("resolve", parents=[common], help="record the human-confirmed outcome")
    r.add_argument("incident")
    r.add_argument("--root-cause", default=None)
    r.add_argument("--summary", default=None)
    r.add_argument("--runbook", default=None, help="the Runbook that fixed it (omit when none did)")
    r.add_argument("--action", action="append", default=[], metavar="TEXT=RESULT",
                   help=f"what was done and how it went ({'/'.join(RESULTS)}); repeat, in order")
    r.add_argument("--confirmed-by", default=None, help="default: you, as the API server knows you")
    r.add_argument("--correction", default=None, metavar="REASON",
                   help="the outcome is recorded already and wrong: add a signed correction that restates it"
                        " (the other options as it should now read), saying why; the newest correction is what"
                        " memory holds")
    r.set_defaults(func=cmd_resolve)

    w = sub.add_parser("withdraw", parents=[common],
                       help="take a resolved incident out of recall (a report that misleads), signed as you")
    w.add_argument("incident")
    w.add_argument("--reason", default=None, help="why memory should offer it as nobody's precedent")
    w.add_argument("--undo", action="store_true", help="bring a withdrawn incident back into recall")
    w.set_defaults(func=cmd_withdraw)

    c = sub.add_parser("reconcile", parents=[common],
                       help="say how a Contradiction's claims fit together, signed as you (or open it again)")
    c.add_argument("contradiction")
    how = c.add_mutually_exclusive_group()
    how.add_argument("--note", default=None, help="which condition calls for which fix")
    how.add_argument("--reopen", action="store_true", help="the claims disagree again: hold their answers advisory")
    c.set_defaults(func=cmd_reconcile)
    return p


def undecoded_argument(args: argparse.Namespace) -> str | None:
    """The first argument (as the command line names it) holding bytes the terminal's encoding could not read."""
    for name, value in vars(args).items():
        if any(isinstance(v, str) and _UNDECODED.search(v) for v in (value if isinstance(value, list) else [value])):
            return {"incident": "the incident's name", "contradiction": "the contradiction's name",
                    "as_user": "--as"}.get(name, "--" + name.replace("_", "-"))
    return None


def main(argv: Sequence[str] | None = None) -> int:
    from kubernetes.client.exceptions import ApiException

    args = build_parser().parse_args(argv)
    if (undecoded := undecoded_argument(args)) is not None:
        # The API server would keep U+FFFD in their place: an outcome recorded with other words than typed.
        print(f"error: {undecoded} holds bytes that are not text in this terminal's encoding (UTF-8 expected);"
              " nothing was sent", file=sys.stderr)
        return 2
    try:
        cluster = Cluster(args.kubeconfig, args.context, args.namespace, args.as_user)
    except PluginError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    try:
        return int(args.func(cluster, args))
    except PluginError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except ApiException as exc:  # anything else the API server answered: its words, not a traceback
        print(f"error: the Kubernetes API answered {exc.status} {exc.reason}: {_api_message(exc)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        cluster.close()


if __name__ == "__main__":
    sys.exit(main())
