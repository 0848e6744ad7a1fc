"""Kopf handlers for dry-runs, Approvals and step execution. Thin: decisions live in domain.execution.

Level-based: every Incident event, Job event and Approval leads to one
`advance()` of the Incident, which reads what exists (status, Jobs with
deterministic names), asks the pure state machine what to do next, does it,
and records the result in status. Nothing is kept in memory between calls,
so a restarted operator resumes where the Jobs say it was.

Policy, read from the environment once per operator start (`execution_startup`;
a wrong value stops start-up with the variable named):

- Approvals are judged with the approval rules (domain.approval_rules):
  RECALL_FOUR_EYES, RECALL_APPROVAL_EXPIRY_MINUTES, and two distinct approvers
  for a plan whose riskiest step is critical. A valid Approval that is not yet
  enough is Pending; the one that completes the count starts the run, and the
  Pending Approvals it counted are marked Accepted too.
- RECALL_AUTO_DRY_RUN=false: nothing is dry-run when a plan is recommended;
  the dry-run starts when an Approval is accepted (the execution exists), and
  the run follows only after every dry-run succeeded, as it always does.
- RECALL_EXECUTOR_SERVICE_ACCOUNT: the ServiceAccount of every step Job.

Status is read, never trusted alone: a recommendation runs nothing (not even a
dry-run) unless it carries this operator's seal, and before every step Job the
execution is re-derived from the Approval objects it names (domain.execution).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime, timezone
from typing import Any

import kopf
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from recall_operator import metrics
from recall_operator.config import ExecutionSettings, approval_settings_from_env, execution_settings_from_env
from recall_operator.domain.approval_rules import ApprovalSettings, expires_at, lapsed_pending, resolved_by
from recall_operator.domain import execution as machine
from recall_operator.domain.conditions import set_condition
from recall_operator.domain.models import IncidentSpec, Runbook, RunbookSpec
from recall_operator.domain.plan import PlanError, build_plan
from recall_operator.handlers import status_key
from recall_operator.kube import jobs as jobkit
from recall_operator.kube.client import api_client

GROUP, VERSION = "recall.dev", "v1alpha1"
SIMULATE_FAIL_ANNOTATION = "recall.dev/simulate-fail-step"
NO_LOG = "no log available"
UNSEALED = ("waiting: status.recommendation does not carry this operator's seal (written by someone else, "
            "or before the operator restarted); nothing runs until the operator has triaged the incident itself")

_api_lock = threading.Lock()
_api: k8s.ApiClient | None = None
_incident_locks: dict[tuple[str, str], threading.Lock] = {}
_policy: tuple[ApprovalSettings, ExecutionSettings] | None = None


def load_policy(env: Mapping[str, str] | None = None) -> tuple[ApprovalSettings, ExecutionSettings]:
    """Read the approval and execution policy (raises ConfigError naming a wrong variable) and keep it."""
    global _policy
    env = os.environ if env is None else env
    policy = (approval_settings_from_env(env), execution_settings_from_env(env))
    with _api_lock:
        _policy = policy
    return policy


def _settings() -> tuple[ApprovalSettings, ExecutionSettings]:
    # Set at start-up; read here only if a handler runs without the start-up handler.
    return _policy if _policy is not None else load_policy()


def _client() -> k8s.ApiClient:
    global _api
    with _api_lock:
        if _api is None:
            _api = api_client()
        return _api


def _lock(namespace: str, name: str) -> threading.Lock:
    # Job and Incident events for one incident arrive on different Kopf workers;
    # one advance at a time per incident keeps status patches from interleaving.
    with _api_lock:
        return _incident_locks.setdefault((namespace, name), threading.Lock())


def _simulated_failure_allowed() -> bool:
    # A test hook only: off unless the operator is started with it on purpose.
    return os.environ.get("RECALL_ALLOW_SIMULATED_FAILURE") == "1"


def _now() -> datetime:
    return datetime.now(timezone.utc)


# -- reading the cluster ------------------------------------------------------


def _get_incident(namespace: str, name: str) -> dict[str, Any] | None:
    try:
        return k8s.CustomObjectsApi(_client()).get_namespaced_custom_object(GROUP, VERSION, namespace, "incidents", name)
    except ApiException as exc:
        if exc.status == 404:
            return None
        raise


def _plan_steps(incident: Mapping[str, Any]) -> tuple[list[dict[str, Any]], dict[str, str], str | None, str]:
    """The steps and parameters rebuilt from the Runbook, their hash, and why not when that fails.

    Jobs are built from the Runbook itself, never from status: status says which
    plan was approved, the Runbook (GitOps) says what that plan runs, and the
    hashes must agree.
    """
    rec = (incident.get("status") or {}).get("recommendation") or {}
    namespace = incident["metadata"]["namespace"]
    runbook_name = rec.get("runbook")
    if not runbook_name:
        return [], {}, None, "the recommendation names no runbook"
    try:
        rb = k8s.CustomObjectsApi(_client()).get_namespaced_custom_object(
            GROUP, VERSION, namespace, "runbooks", runbook_name
        )
    except ApiException as exc:
        if exc.status == 404:
            return [], {}, None, f"runbook {runbook_name} not found"
        raise
    try:
        plan = build_plan(
            IncidentSpec.model_validate(incident.get("spec") or {}),
            Runbook(name=runbook_name, spec=RunbookSpec.model_validate(rb.get("spec") or {})),
        )
    except (PlanError, ValueError) as exc:
        return [], {}, None, f"the plan cannot be built: {exc}"
    steps = [s.as_status() for s in plan.steps]
    # timeoutSeconds is not part of the plan hash but bounds the Job's deadline.
    timeouts = {s.get("name"): s.get("timeoutSeconds") for s in (rb.get("spec") or {}).get("steps") or []}
    for s in steps:
        if timeouts.get(s["name"]):
            s["timeoutSeconds"] = timeouts[s["name"]]
    return steps, plan.parameters, plan.plan_hash, ""


def _list_jobs(namespace: str, incident: str) -> dict[str, dict[str, Any]]:
    items = k8s.BatchV1Api(_client()).list_namespaced_job(
        namespace, label_selector=jobkit.incident_selector(incident)
    ).items
    return {j.metadata.name: _client().sanitize_for_serialization(j) for j in items}


def _observed(jobs: Mapping[str, Mapping[str, Any]], incident: str, steps: list[dict[str, Any]], attempt: int,
              phases: tuple[str, ...]) -> dict[tuple[str, str], str]:
    """(phase, step) -> state, found by the deterministic Job name: this is the restart-safety record."""
    out: dict[tuple[str, str], str] = {}
    for phase in phases:
        for step in steps:
            job = jobs.get(jobkit.job_name(incident, phase, step["name"], attempt))
            if job is not None:
                out[(phase, step["name"])] = jobkit.job_state(job)
    return out


def _job_times(job: Mapping[str, Any] | None) -> tuple[str | None, str | None]:
    if not job:
        return None, None
    status = job.get("status") or {}
    finished = status.get("completionTime")
    if not finished:
        finished = next(
            (c.get("lastTransitionTime") for c in status.get("conditions") or []
             if c.get("type") == "Failed" and c.get("status") == "True"),
            None,
        )
    return status.get("startTime"), finished


def _log_tail(namespace: str, job_name: str) -> str:
    """The last lines of the Job's pod, or an honest 'no log available' (fake kubelets keep none)."""
    core = k8s.CoreV1Api(_client())
    try:
        pods = core.list_namespaced_pod(namespace, label_selector=f"job-name={job_name}").items
        if not pods:
            return NO_LOG
        text = core.read_namespaced_pod_log(pods[-1].metadata.name, namespace, tail_lines=20, _request_timeout=3)
        return text[-4000:] if text else NO_LOG
    except Exception:  # any failure to read a log is reported as no log, never invented
        return NO_LOG


def _create_job(manifest: dict[str, Any]) -> bool:
    """Create the Job; False when it already exists (a restart or a concurrent advance made it)."""
    try:
        k8s.BatchV1Api(_client()).create_namespaced_job(manifest["metadata"]["namespace"], manifest)
        return True
    except ApiException as exc:
        if exc.status == 409:
            return False
        raise


def _patch_status(namespace: str, name: str, status: dict[str, Any], resource_version: str) -> bool:
    """Merge-patch status, guarded by resourceVersion so a concurrent writer's change is never overwritten."""
    body = {"metadata": {"resourceVersion": resource_version}, "status": status}
    try:
        k8s.CustomObjectsApi(_client()).patch_namespaced_custom_object_status(
            GROUP, VERSION, namespace, "incidents", name, body
        )
        return True
    except ApiException as exc:
        if exc.status in (404, 409):
            return False
        raise


def _event(incident: Mapping[str, Any], reason: str, message: str, warning: bool = False) -> None:
    try:
        kopf.event(incident, type="Warning" if warning else "Normal", reason=reason, message=message)
    except Exception:  # an Event is best effort; status is the record
        pass


# -- the level-based advance --------------------------------------------------


def advance(namespace: str, name: str, attempts: int = 5) -> None:
    with _lock(namespace, name):
        for _ in range(attempts):
            if _advance_once(namespace, name):
                return


def _advance_once(namespace: str, name: str) -> bool:
    """One pass; False when the status patch lost a race and the pass must be redone."""
    incident = _get_incident(namespace, name)
    if incident is None:
        return True
    status = incident.get("status") or {}
    rec = status.get("recommendation") or {}
    plan_hash = rec.get("planHash")
    execution = status.get("execution") or {}
    if not machine.has_work(status):
        return True  # novel/advisory, or no plan yet: nothing ever runs, not even dry-runs

    steps, params, built_hash, why = _plan_steps(incident)
    jobs = _list_jobs(namespace, name)
    uid = incident["metadata"]["uid"]
    new_status: dict[str, Any] = {}
    events: list[tuple[str, str, bool]] = []

    # (a) dry-run of an actionable plan whose Runbook still gives that plan: at
    # once with auto dry-run, else once an Approval of this plan was accepted
    approval_settings, exec_settings = _settings()
    account = exec_settings.executor_service_account
    runbook = rec.get("runbook")
    dry = dict(status.get("dryRun") or {})
    dry_decision = None
    plan_ok = built_hash is not None and built_hash == plan_hash
    # Only a recommendation this operator wrote for this incident leads to a Job.
    verified = machine.sealed(status_key(), uid, rec)
    # A resolved incident starts nothing new, dry-runs included.
    resolved = resolved_by(incident) is not None
    if (verified and not resolved and rec.get("mode") == "actionable" and plan_ok
            and _dry_run_wanted(exec_settings, dry, execution, plan_hash)):
        if dry.get("planHash") != plan_hash:
            # Record the intent (plan, attempt) before creating Jobs, so a restart
            # in between looks for these exact Job names instead of new ones.
            fresh = {"planHash": plan_hash, "attempt": int(dry.get("attempt", 0)) + 1, "steps": []}
            _patch_status(namespace, name, {"dryRun": _replacing(dry, fresh)}, incident["metadata"]["resourceVersion"])
            return False  # read again, with the intent recorded (or the race lost)
        attempt = int(dry["attempt"])
        observed = _observed(jobs, name, steps, attempt, ("dryrun",))
        dry_decision = machine.dry_run(steps, observed)
        for c in dry_decision.create:
            step = next(s for s in steps if s["name"] == c.step)
            if _create_job(jobkit.job_manifest(name, namespace, uid, step, "dryrun", attempt, params,
                                               service_account=account, plan_hash=plan_hash, runbook=runbook)):
                events.append(("DryRunStarted", f"dry-run of step {c.step} started", False))
        old = {s.get("name"): s for s in dry.get("steps") or []}
        view = []
        for r in dry_decision.results:
            jname = jobkit.job_name(name, "dryrun", r["name"], attempt) if r["result"] != "skipped" else None
            entry = {"name": r["name"], "job": jname, "result": r["result"] if r["result"] != "pending" else "running"}
            if r["result"] in ("succeeded", "failed"):
                entry["logTail"] = old.get(r["name"], {}).get("logTail") or _log_tail(namespace, jname)
                if old.get(r["name"], {}).get("result") != r["result"]:
                    events.append(("DryRun" + r["result"].capitalize(), f"dry-run of step {r['name']} {r['result']}",
                                   r["result"] == "failed"))
            elif r["result"] == "skipped":
                entry["logTail"] = "no dry-run command"
            view.append(entry)
        if view != dry.get("steps"):
            new_status["dryRun"] = {**dry, "steps": view, "done": dry_decision.done, "ok": dry_decision.ok}

    # (c) execution of the approved plan
    if execution and execution.get("state") not in machine.TERMINAL and not verified:
        if execution.get("reason") != UNSEALED:
            new_status["execution"] = {"reason": UNSEALED}
    elif execution and execution.get("state") not in machine.TERMINAL:
        ex = dict(execution)
        attempt = int(ex.get("attempt", 1))
        if ex.get("planHash") != built_hash or ex.get("planHash") != plan_hash:
            # The approved plan is no longer what the Runbook/recommendation gives: stop, run nothing new.
            decision = machine.RunDecision(
                machine.STOPPED if not _any_run_job(jobs, name, attempt) else machine.FAILED,
                None,
                f"the approved plan {ex.get('planHash')} changed ({why or 'now ' + str(built_hash)}); nothing more runs",
            )
        else:
            observed = _observed(jobs, name, steps, attempt, ("run", "rollback"))
            dry_done = bool(dry_decision and dry.get("planHash") == plan_hash and dry_decision.done)
            # The approval is re-derived from the Approval objects, never taken from status.
            unverified = machine.verify_approvals(
                ex, _evidence(incident, jobs, attempt, built_hash, steps), _now(), approval_settings)
            decision = machine.run(
                rec.get("mode", ""), steps, approved=unverified is None,
                stopped=bool(ex.get("stopped")) or unverified is not None,
                dry_run_done=dry_done, dry_run_ok=bool(dry_decision and dry_decision.ok), observed=observed,
            )
            if unverified is not None and not ex.get("stopped") and decision.create is None:
                decision = replace(decision, reason=f"nothing runs: {unverified}")
        if decision.create is not None:
            step = next(s for s in steps if s["name"] == decision.create.step)
            fail = None
            if (_simulated_failure_allowed() and decision.create.phase == "run"
                    and (incident["metadata"].get("annotations") or {}).get(SIMULATE_FAIL_ANNOTATION) == step["name"]):
                fail = "fail"
            manifest = jobkit.job_manifest(name, namespace, uid, step, decision.create.phase, attempt, params,
                                           service_account=account, fail_label=fail, plan_hash=plan_hash,
                                           runbook=runbook, approvals=ex.get("approvals") or [ex.get("approval")])
            if _create_job(manifest):
                verb = "rollback of step" if decision.create.phase == "rollback" else "step"
                events.append(("StepStarted", f"{verb} {step['name']} started as Job {manifest['metadata']['name']}", False))
        ex["steps"] = _view(jobs, name, attempt, "run", decision.steps)
        ex["rollbacks"] = _view(jobs, name, attempt, "rollback", decision.rollbacks)
        for kind, old_list, new_list in (("Step", execution.get("steps") or [], ex["steps"]),
                                         ("Rollback", execution.get("rollbacks") or [], ex["rollbacks"])):
            before = {s.get("name"): s.get("result") for s in old_list}
            for s in new_list:
                if s["result"] in ("succeeded", "failed") and before.get(s["name"]) != s["result"]:
                    events.append((f"{kind}{s['result'].capitalize()}", f"{kind.lower()} {s['name']} {s['result']}",
                                   s["result"] == "failed"))
        # Approved but waiting (for dry-runs) is still a run in progress.
        state = {"Pending": machine.RUNNING, "Refused": machine.FAILED}.get(decision.state, decision.state)
        ex["state"] = state
        ex["reason"] = decision.reason
        if ex != execution:
            new_status["execution"] = ex
        conds, _ = set_condition(
            status.get("conditions") or [], "Executing", state == machine.RUNNING, state, decision.reason,
            int(incident["metadata"].get("generation", 0)), _now(),
        )
        # Compared without timestamps, so an unchanged condition is not rewritten; a
        # condition another writer dropped is put back on the next pass.
        if _strip(conds) != _strip(status.get("conditions") or []):
            new_status["conditions"] = conds
        if ex != execution:
            if state in machine.TERMINAL and execution.get("state") != state:
                events.append((f"Execution{state}", decision.reason, state != machine.SUCCEEDED))

    if new_status and not _patch_status(namespace, name, new_status, incident["metadata"]["resourceVersion"]):
        return False
    for reason, message, warning in events:
        _event(incident, reason, message, warning)
    return True


def _evidence(incident: Mapping[str, Any], jobs: Mapping[str, Mapping[str, Any]], attempt: int,
              built_hash: str | None, steps: list[dict[str, Any]]) -> machine.RunEvidence:
    """What the cluster itself shows about this run: Approvals, the recomputed plan, the Jobs made so far."""
    meta = incident["metadata"]
    started: list[datetime] = []
    used: set[str] = set()
    for job in jobs.values():
        jmeta = job.get("metadata") or {}
        labels = jmeta.get("labels") or {}
        if labels.get(jobkit.LABEL_PHASE) not in ("run", "rollback"):
            continue
        if labels.get(jobkit.LABEL_ATTEMPT) == str(attempt):
            if jmeta.get("creationTimestamp"):
                started.append(datetime.fromisoformat(str(jmeta["creationTimestamp"]).replace("Z", "+00:00")))
        else:
            used.update(jobkit.approvals_of(job))
    return machine.RunEvidence(
        incident=incident, approvals=_list_approvals(meta["namespace"], meta["name"]), plan_hash=built_hash,
        plan_risk=machine.plan_risk(steps), started_at=min(started) if started else None, used_before=frozenset(used),
    )


def _dry_run_wanted(exec_settings: ExecutionSettings, dry: Mapping[str, Any], execution: Mapping[str, Any],
                    plan_hash: str | None) -> bool:
    if exec_settings.auto_dry_run or dry.get("planHash") == plan_hash:
        return True  # automatic, or already started for this plan: follow it to the end
    return bool(execution.get("planHash") == plan_hash and execution.get("approval") and not execution.get("stopped"))


def _strip(conditions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in c.items() if k != "lastTransitionTime"} for c in conditions]


def _replacing(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """A merge patch that replaces `old` by `new`: keys only the old run had are deleted (null)."""
    return {**{k: None for k in old if k not in new}, **new}


def _any_run_job(jobs: Mapping[str, Any], incident: str, attempt: int) -> bool:
    return any(
        (j.get("metadata") or {}).get("labels", {}).get(jobkit.LABEL_PHASE) in ("run", "rollback")
        and (j.get("metadata") or {}).get("labels", {}).get(jobkit.LABEL_ATTEMPT) == str(attempt)
        for j in jobs.values()
    )


def _view(jobs: Mapping[str, Any], incident: str, attempt: int, phase: str, results: list[dict[str, str]]) -> list[dict[str, Any]]:
    out = []
    for r in results:
        jname = jobkit.job_name(incident, phase, r["name"], attempt)
        job = jobs.get(jname)
        started, finished = _job_times(job)
        out.append({
            "name": r["name"], "phase": phase, "job": jname if job else None, "result": r["result"],
            "startedAt": started, "finishedAt": finished if r["result"] in ("succeeded", "failed") else None,
        })
    return out


# -- Kopf wiring --------------------------------------------------------------


def incident_event(type: str | None, name: str, namespace: str, status: Mapping[str, Any], **_: Any) -> None:
    if type == "DELETED":
        return
    # Most events (a new Incident, a novel or advisory one) have nothing to run:
    # the event's own copy says so without another GET, which on a new
    # Incident's path is a third of the time to its first answer.
    if not machine.has_work(status):
        return
    advance(namespace, name)


def job_event(type: str | None, meta: Mapping[str, Any], namespace: str, **_: Any) -> None:
    if type == "DELETED":
        return
    metrics.job_seen(_.get("body") or {})  # metrics: counts a finished Job once
    incident = (meta.get("annotations") or {}).get("recall.dev/incident-name") or meta["labels"][jobkit.LABEL_INCIDENT]
    advance(namespace, incident)


def _list_approvals(namespace: str, incident: str) -> list[dict[str, Any]]:
    items = k8s.CustomObjectsApi(_client()).list_namespaced_custom_object(GROUP, VERSION, namespace, "approvals")
    return [a for a in items.get("items") or [] if (a.get("spec") or {}).get("incident") == incident]


def _mark_counted(namespace: str, names: list[str], own: str, approvals: list[dict[str, Any]], reason: str) -> None:
    """The Pending Approvals this run counted are Accepted now (best effort: the execution records them all)."""
    by_name = {(a.get("metadata") or {}).get("name"): a for a in approvals}
    for other in names:
        if other == own or ((by_name.get(other) or {}).get("status") or {}).get("state") != "Pending":
            continue
        try:
            k8s.CustomObjectsApi(_client()).patch_namespaced_custom_object_status(
                GROUP, VERSION, namespace, "approvals", other,
                {"status": {"state": "Accepted", "reason": f"{reason} (counted when {own} arrived)"}},
            )
            metrics.approval("Accepted")  # metrics
        except ApiException as exc:
            if exc.status != 404:
                raise


def _mark_lapsed(namespace: str, approvals: list[dict[str, Any]], settings: ApprovalSettings) -> None:
    """Pending Approvals whose time ran out before enough approvers came say so (best effort).

    They stopped counting when they expired whatever their status says; this
    only keeps `kubectl get approvals` from showing them Pending for ever.
    """
    for name in lapsed_pending(approvals, _now(), settings):
        try:
            k8s.CustomObjectsApi(_client()).patch_namespaced_custom_object_status(
                GROUP, VERSION, namespace, "approvals", name,
                {"status": {"state": "Expired", "reason": (
                    f"no further approver came within {settings.approval_ttl}; it no longer counts, approve again")}},
            )
            metrics.approval("Expired")  # metrics
        except ApiException as exc:
            if exc.status != 404:
                raise


def approval_created(name: str, namespace: str, spec: Mapping[str, Any], status: Mapping[str, Any],
                     patch: kopf.Patch, body: Mapping[str, Any], **_: Any) -> None:
    if status.get("state"):
        return  # judged already; an Approval is immutable, so the verdict is too
    incident_name = spec["incident"]
    approval_settings, _exec = _settings()
    approval = {"metadata": dict(body.get("metadata") or {}), "spec": dict(spec)}
    with _lock(namespace, incident_name):
        for _try in range(5):
            incident = _get_incident(namespace, incident_name)
            if incident is None:
                patch.status["state"] = "Refused"
                patch.status["reason"] = f"no Incident {incident_name} in namespace {namespace}"
                metrics.approval("Refused")  # metrics
                return
            st = incident.get("status") or {}
            others = _list_approvals(namespace, incident_name)
            policy = machine.Policy(approval, incident, others, _now(), approval_settings)
            verdict = machine.judge_approval(name, spec, st.get("recommendation"), st.get("execution"), policy)
            if verdict.execution is None or _patch_status(
                namespace, incident_name, {"execution": _replacing(st.get("execution") or {}, verdict.execution)},
                incident["metadata"]["resourceVersion"],
            ):
                break
        else:
            raise kopf.TemporaryError("the incident kept changing; judging the approval again", delay=2)
        if verdict.execution is not None:
            _mark_counted(namespace, verdict.execution.get("approvals") or [], name, others, verdict.reason)
        _mark_lapsed(namespace, [o for o in others if (o.get("metadata") or {}).get("name") != name], approval_settings)
    patch.status["state"] = verdict.state
    patch.status["reason"] = verdict.reason
    deadline = expires_at(approval, approval_settings)
    if verdict.state == "Pending" and deadline is not None:
        # A reader sees when this one stops counting unless enough others come first.
        patch.status["expiresAt"] = deadline.strftime("%Y-%m-%dT%H:%M:%SZ")
    metrics.approval(verdict.state)  # metrics
    _event(incident, f"Approval{verdict.state}", f"approval {name}: {verdict.reason}",
           verdict.state not in ("Accepted", "Pending"))
    if verdict.execution is not None:
        advance(namespace, incident_name)


def execution_startup(logger: Any, **_: Any) -> None:
    # A wrong policy value stops start-up here, with the variable named.
    approval_settings, exec_settings = load_policy()
    logger.info(
        f"approval policy: four-eyes {'on' if approval_settings.four_eyes else 'off'}, "
        f"approvals expire after {approval_settings.approval_ttl or 'never'}; "
        f"approvers by risk {dict(approval_settings.approvers_required)}; "
        f"auto dry-run {'on' if exec_settings.auto_dry_run else 'off'}; "
        f"step Jobs run as {exec_settings.executor_service_account}"
    )


RESYNC_SECONDS = 5.0


def in_progress(status: Mapping[str, Any], **_: Any) -> bool:
    """Whether an Incident has a dry-run or an execution that is not finished."""
    rec = status.get("recommendation") or {}
    dry = status.get("dryRun") or {}
    ex = status.get("execution") or {}
    dry_pending = rec.get("mode") == "actionable" and (dry.get("planHash") != rec.get("planHash") or not dry.get("done"))
    if dry_pending and not _settings()[1].auto_dry_run:
        dry_pending = dry.get("planHash") == rec.get("planHash") or (
            ex.get("planHash") == rec.get("planHash") and bool(ex.get("approval")) and not ex.get("stopped"))
    return dry_pending or bool(ex and ex.get("state") not in machine.TERMINAL)


def incident_resync(name: str, namespace: str, **_: Any) -> None:
    # Event handlers are not retried when they fail (an API timeout, a lost
    # race), so a periodic pass keeps an unfinished run from stalling.
    advance(namespace, name)


def register(registry: kopf.OperatorRegistry) -> kopf.OperatorRegistry:
    """Attach this module's handlers to `registry`.

    A function rather than bare decorators so a test can run these handlers
    alone in a registry of their own, whatever else the test process imported.
    """
    kopf.on.startup(registry=registry, errors=kopf.ErrorsMode.PERMANENT)(execution_startup)
    kopf.on.event(GROUP, VERSION, "incidents", registry=registry)(incident_event)
    kopf.on.event("batch", "v1", "jobs", labels={jobkit.LABEL_INCIDENT: kopf.PRESENT}, registry=registry)(job_event)
    kopf.timer(GROUP, VERSION, "incidents", interval=RESYNC_SECONDS, when=in_progress, registry=registry)(incident_resync)
    kopf.on.create(GROUP, VERSION, "approvals", registry=registry)(approval_created)
    kopf.on.resume(GROUP, VERSION, "approvals", registry=registry)(approval_created)
    return registry


register(kopf.get_default_registry())
