"""Kopf handlers for dry-runs, Approvals and step execution. Thin: decisions live in domain.execution.

Level-based: every Incident event, Job event, Event about a step Job and
Approval leads to one `advance()` of the Incident, which reads what exists
(status, Jobs with deterministic names, their pods and Events), asks the pure
state machine what to do next, does it, and records the result in status.
Nothing is kept in memory between calls, so a restarted operator resumes
where the Jobs say it was.

Status is written by server-side apply with this module's own field manager
(kube.status.EXECUTION_MANAGER): status.dryRun, status.execution and the
Executing condition, all of them on every write, nothing else. Triage and the
lifecycle own the rest of status and write it with managers of their own, so
no writer removes what another wrote.

Why a step waits is always in status: its Job's conditions, the Events about
the Job (FailedCreate: no ServiceAccount, a quota) and its pod's state are read
on every pass and each step's `reason` says what it waits for; a Job that
cannot even be created says the API server's refusal. Every wait ends: a step
Job has a deadline (the step's timeoutSeconds), and a Job the controller gives
up on (DeadlineExceeded, even while its pods cannot be killed) fails the step
at once, with that reason.

Policy, from the operator's settings (config.OperatorSettings, in the Kopf memo
from start-up on; a wrong value stops start-up with the variable named):

- Approvals are judged with the approval rules (domain.approval_rules):
  RECALL_FOUR_EYES, RECALL_APPROVAL_EXPIRY_MINUTES, and two distinct approvers
  for a plan whose riskiest step is critical. A valid Approval that is not yet
  enough is Pending; the one that completes the count starts the run, and the
  Pending Approvals it counted are marked Accepted too.
- RECALL_AUTO_DRY_RUN=false: nothing is dry-run when a plan is recommended;
  the dry-run starts when an Approval is accepted (the execution exists), and
  the run follows only after every dry-run succeeded, as it always does.
- RECALL_EXECUTOR_SERVICE_ACCOUNT: the ServiceAccount of every step Job.

Time comes from the memo's clock (handlers.clock), so expiry is tested by
moving a clock, not by waiting.

Status is read, never trusted alone: a recommendation runs nothing (not even a
dry-run) unless it carries this operator's seal, and before every step Job the
execution is re-derived from the Approval objects it names (domain.execution).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, cast

import kopf
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from recall_operator import metrics
from recall_operator.config import ExecutionSettings
from recall_operator.api import GROUP, VERSION, namespaced
from recall_operator.domain import execution as machine
from recall_operator.domain.approval_rules import ApprovalSettings, expires_at, lapsed_pending, resolved_by
from recall_operator.domain.conditions import set_condition
from recall_operator.domain.models import IncidentSpec, Runbook, RunbookSpec
from recall_operator.domain.plan import PlanError, build_plan
from recall_operator.domain.times import parse_time
from recall_operator.handlers import clock, lifecycle, operator_settings
from recall_operator.kube import jobs as jobkit
from recall_operator.kube import status as st
from recall_operator.kube.client import Conflict, api_client, apply_status, remove_status_fields
from recall_operator.kube.events import event_body, post_or_log

SIMULATE_FAIL_ANNOTATION = "recall.dev/simulate-fail-step"
NO_LOG = "no log available"
UNSEALED = ("waiting: status.recommendation does not carry this operator's seal (written by someone else, "
            "or before the operator restarted); nothing runs until the operator has triaged the incident itself")
kopf_logger = logging.getLogger("recall_operator.handlers.execution")
EXECUTE = "Execute"  # the action the execution's Events name
ATTEMPTS = 5  # passes of one advance that may lose a race with another writer before it gives up until the next


@dataclass(frozen=True)
class Ctx:
    """What one advance needs from the operator: its API client, its policy, its seal's key and the time now."""

    api: Any
    approval: ApprovalSettings
    settings: ExecutionSettings
    now: datetime
    key: bytes


def _ctx(memo: kopf.Memo) -> Ctx:
    config = operator_settings(memo)
    return Ctx(memo.api, config.approval(), config.execution(), clock(memo)(), config.seal_key())


def _lock(memo: kopf.Memo, namespace: str, name: str) -> asyncio.Lock:
    # Job events, Incident events, the resync timer and Approvals for one incident
    # arrive on different Kopf workers: one advance at a time per incident.
    lock: asyncio.Lock = memo.execution_locks.setdefault((namespace, name), asyncio.Lock())
    return lock


# -- reading the cluster ------------------------------------------------------


async def _get(api: Any, plural: str, namespace: str, name: str) -> dict[str, Any] | None:
    """One of the operator's objects as the API server holds it now; None when it is gone."""
    try:
        found = await asyncio.to_thread(
            k8s.CustomObjectsApi(api).get_namespaced_custom_object, GROUP, VERSION, namespace, plural, name)
        return cast(dict[str, Any], found)
    except ApiException as exc:
        if exc.status == 404:
            return None
        raise


async def _get_incident(api: Any, namespace: str, name: str) -> dict[str, Any] | None:
    return await _get(api, "incidents", namespace, name)


async def _plan_steps(api: Any, incident: Mapping[str, Any]) -> tuple[list[dict[str, Any]], dict[str, str], str | None, str]:
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
        rb = cast(dict[str, Any], await asyncio.to_thread(
            k8s.CustomObjectsApi(api).get_namespaced_custom_object, GROUP, VERSION, namespace, "runbooks", runbook_name))
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
    return [s.as_status() for s in plan.steps], plan.parameters, plan.plan_hash, ""


async def _list_jobs(api: Any, namespace: str, incident: str, uid: str) -> dict[str, dict[str, Any]]:
    """This incident's Jobs. The label is the name made a label value (dots become dashes, a long
    name is cut and hashed), so `a.b` and `a-b` share it; the annotation holds the exact name.

    Only Jobs this Incident (this very object, by uid) controls: a Job anyone
    labelled alike, or one an earlier Incident of the same name left for the
    garbage collector, is not a step of this run and must not pass for one.
    """
    listing = await asyncio.to_thread(
        k8s.BatchV1Api(api).list_namespaced_job, namespace, label_selector=jobkit.incident_selector(incident))
    return {j["metadata"]["name"]: j for j in _items(api, listing)
            if (j["metadata"].get("annotations") or {}).get(jobkit.ANN_INCIDENT_NAME, incident) == incident
            and jobkit.made_for_an_incident(j, uid)}


def _items(api: Any, listing: object) -> list[dict[str, Any]]:
    """A list call's items as the API server sent them (JSON field names), not the client's models."""
    return list(api.sanitize_for_serialization(listing).get("items") or [])


async def _job_context(api: Any, namespace: str, incident: str, job_names: set[str]
                       ) -> tuple[dict[str, list[dict[str, Any]]], dict[str, list[dict[str, Any]]]]:
    """The pods and the Events of these Jobs, by Job name: what a Job that is not done waits for."""
    if not job_names:
        return {}, {}
    core = k8s.CoreV1Api(api)
    pod_items = _items(api, await asyncio.to_thread(
        core.list_namespaced_pod, namespace, label_selector=jobkit.incident_selector(incident)))
    event_items = _items(api, await asyncio.to_thread(
        core.list_namespaced_event, namespace, field_selector="involvedObject.kind=Job"))
    pods: dict[str, list[dict[str, Any]]] = {}
    for p in pod_items:
        labels = p["metadata"].get("labels") or {}
        owner = labels.get("job-name") or labels.get("batch.kubernetes.io/job-name")
        if owner in job_names:
            pods.setdefault(owner, []).append(p)
    events: dict[str, list[dict[str, Any]]] = {}
    for e in event_items:
        involved = (e.get("involvedObject") or {}).get("name")
        if involved in job_names:
            events.setdefault(involved, []).append(e)
    return pods, events


@dataclass(frozen=True)
class Seen:
    """What the Jobs of one incident show: each Job's state and why, by Job name."""

    progress: Mapping[str, machine.JobProgress]

    def observed(self, incident: str, steps: list[dict[str, Any]], attempt: int, phases: tuple[str, ...]
                 ) -> tuple[dict[tuple[str, str], machine.JobState], dict[tuple[str, str], str]]:
        """(phase, step) -> state, and -> why, found by the deterministic Job name (the restart-safety record)."""
        states: dict[tuple[str, str], machine.JobState] = {}
        why: dict[tuple[str, str], str] = {}
        for phase in phases:
            for step in steps:
                p = self.progress.get(jobkit.job_name(incident, phase, step["name"], attempt))
                if p is not None:
                    states[(phase, step["name"])] = p.state
                    if p.why:
                        why[(phase, step["name"])] = p.why
        return states, why


async def _seen(api: Any, namespace: str, incident: str, jobs: Mapping[str, Mapping[str, Any]],
                recorded: Mapping[str, tuple[str, str]], now: datetime) -> Seen:
    """Each Job's progress; pods and Events are read only for Jobs whose outcome status does not hold yet.

    An outcome status holds stays: a failure is not undone by a Job the operator
    stopped waiting for (past its deadline) finishing after all, and its reason
    is kept when the Events it came from have expired.
    """
    open_jobs = {n for n, j in jobs.items() if n not in recorded}
    pods, events = await _job_context(api, namespace, incident, open_jobs)
    progress = {}
    for n, j in jobs.items():
        if recorded.get(n, ("", ""))[0] == "failed":
            progress[n] = machine.JobProgress("failed", recorded[n][1])
        else:
            progress[n] = machine.job_progress(j, pods.get(n, []), events.get(n, []), now)
    return Seen(progress)


def _recorded_reasons(status: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    """Job name -> (result, reason) status already holds for a finished step."""
    out = {}
    entries = [*((status.get("dryRun") or {}).get("steps") or []),
               *((status.get("execution") or {}).get("steps") or []),
               *((status.get("execution") or {}).get("rollbacks") or [])]
    for s in entries:
        if s.get("job") and s.get("result") in ("succeeded", "failed"):
            out[s["job"]] = (str(s["result"]), str(s.get("reason") or ""))
    return out


async def _dry_run_image(api: Any, namespace: str, step: Mapping[str, Any], dry_job: Mapping[str, Any] | None
                         ) -> tuple[str | None, str]:
    """The step's image pinned to what its dry-run ran, or None and why it runs as its Runbook names it.

    Nothing to pin for an image the Runbook already pins or a step with no dry-run.
    """
    image = str(step["image"])
    if "@" in image or not step.get("dryRunCommand"):
        return None, ""
    if dry_job is None:
        return None, "the dry-run's Job is gone, so what image it ran is not known"
    pods = _items(api, await asyncio.to_thread(
        k8s.CoreV1Api(api).list_namespaced_pod, namespace, label_selector=f"job-name={dry_job['metadata']['name']}"))
    digest, why = jobkit.dry_run_digest(pods, str(dry_job["metadata"].get("uid") or ""))
    return (jobkit.pinned_image(image, digest), "") if digest else (None, why)


def _log_tail_sync(api: Any, namespace: str, job_name: str) -> str:
    core = k8s.CoreV1Api(api)
    try:
        pods = _items(api, core.list_namespaced_pod(namespace, label_selector=f"job-name={job_name}"))
        if not pods:
            return NO_LOG
        text = core.read_namespaced_pod_log(pods[-1]["metadata"]["name"], namespace, tail_lines=20, _request_timeout=3)
        return text[-4000:] if text else NO_LOG
    except ApiException as exc:
        if exc.status in (401, 403):
            # A refusal is the operator's own RBAC, not the step's: say so where the step's
            # result is read, and in the log where an administrator looks for it.
            kopf_logger.warning(f"cannot read the log of Job {namespace}/{job_name}'s pod: {exc.status} {exc.reason}")
            return f"{NO_LOG}: the operator may not read this pod's log ({exc.status} {exc.reason})"
        return NO_LOG
    except Exception:  # any other failure to read a log is reported as no log, never invented
        return NO_LOG


async def _log_tail(api: Any, namespace: str, job_name: str) -> str:
    """The last lines of the Job's pod, or an honest 'no log available' (fake kubelets keep none)."""
    return await asyncio.to_thread(_log_tail_sync, api, namespace, job_name)


async def _create_job(api: Any, manifest: dict[str, Any]) -> tuple[bool, str | None]:
    """Create the Job: (created, refusal). Not created when it exists already (a restart or a
    concurrent advance made it); a refusal is the API server's reason why it never can be."""
    try:
        # The client takes the manifest as it is, though typed for its own V1Job model.
        await asyncio.to_thread(k8s.BatchV1Api(api).create_namespaced_job, manifest["metadata"]["namespace"],
                                cast(Any, manifest))
        return True, None
    except ApiException as exc:
        if exc.status == 409:
            return False, await _taken_by(api, manifest)
        # 403 too: an admission policy (this chart's, a policy engine's) or a quota says no, and
        # retrying it would leave the step waiting with no Job whose deadline could end the wait.
        if exc.status in (400, 403, 422):
            return False, f"the API server refuses Job {manifest['metadata']['name']}: {_api_message(exc)}"
        raise


async def _taken_by(api: Any, manifest: Mapping[str, Any]) -> str | None:
    """Why the Job that holds this step's name is not the step's, or None when it is.

    The name is the restart-safety record: a 409 normally means an earlier pass
    made this Job. One the operator did not make for this Incident (another
    user's, or an earlier same-named Incident's the garbage collector has not
    removed yet) would otherwise be waited for as the step, and never be.
    """
    meta = manifest["metadata"]
    try:
        held = await asyncio.to_thread(k8s.BatchV1Api(api).read_namespaced_job, meta["name"], meta["namespace"])
    except ApiException as exc:
        if exc.status == 404:
            return None  # gone since: the next pass creates it
        raise
    owner = meta["ownerReferences"][0]["uid"]
    if jobkit.made_for_an_incident(api.sanitize_for_serialization(held), owner):
        return None
    return (f"Job {meta['name']} exists and was not made by the operator for this Incident: the step cannot "
            "run under its name (delete that Job; this attempt cannot use it)")


def _api_message(exc: ApiException) -> str:
    try:
        return str(json.loads(exc.body or "{}").get("message") or exc.reason)
    except ValueError:
        return str(exc.reason)


async def _apply(api: Any, incident: Mapping[str, Any], changes: Mapping[str, Any]) -> bool:
    """Apply everything this writer owns (dryRun, execution, Executing), `changes` over what status holds.

    Guarded by the resourceVersion the incident was read at: False when another
    writer changed it since, and the pass is redone on a fresh read.
    """
    meta = incident["metadata"]
    body = st.owned_status(incident.get("status") or {}, changes, st.EXECUTION_KEYS, st.EXECUTION_CONDITIONS)
    try:
        held = await asyncio.to_thread(apply_status, api, GROUP, VERSION, "incidents", "Incident", meta["namespace"],
                                       meta["name"], body, st.EXECUTION_MANAGER, meta["resourceVersion"])
    except Conflict:
        return False
    stale = st.leftovers(body, held.get("status") or {}, st.EXECUTION_KEYS)
    if stale:  # kept by an older writer's ownership: an earlier run's keys must not look current
        await asyncio.to_thread(remove_status_fields, api, GROUP, VERSION, "incidents", meta["namespace"],
                                meta["name"], stale, st.EXECUTION_MANAGER)
    return True


async def _post_events(api: Any, incident: Mapping[str, Any], events: list[tuple[str, str, bool]],
                       at: datetime) -> None:
    """Post (reason, message, warning) Events about `incident`, best effort: status is the record.

    Through the operator's own client, not `kopf.event`: the resync task runs
    outside any Kopf handler, where `kopf.event` raised and the Started Event
    of a Job that pass created was lost for good (a redo finds the Job there).
    """
    if events:
        bodies = [event_body(incident, "Warning" if warning else "Normal", reason, message, at, EXECUTE)
                  for reason, message, warning in events]
        await asyncio.to_thread(_post_all, api, bodies)


def _post_all(api: Any, bodies: list[dict[str, Any]]) -> None:
    for body in bodies:
        post_or_log(api, body)


# -- the level-based advance --------------------------------------------------


async def advance(memo: kopf.Memo, namespace: str, name: str) -> None:
    async with _lock(memo, namespace, name):
        for _ in range(ATTEMPTS):
            if await _advance_once(_ctx(memo), namespace, name):
                return


def _dry_run_summary(results: list[dict[str, Any]]) -> str:
    """What the dry-run waits for, or which dry-run failed and why: one sentence from the step results."""
    failed = [r for r in results if r["result"] == "failed"]
    if failed:
        return "; ".join(f"the dry-run of {r['name']} failed" + (f": {r['reason']}" if r.get("reason") else "")
                         for r in failed)
    waiting = [r for r in results if r["result"] in ("running", "pending")]
    return "; ".join(f"dry-run of {r['name']}: {r.get('reason') or 'starting'}" for r in waiting)


async def _advance_once(ctx: Ctx, namespace: str, name: str) -> bool:
    """One pass; False when the status write lost a race and the pass must be redone."""
    api = ctx.api
    incident = await _get_incident(api, namespace, name)
    if incident is None:
        return True
    status = incident.get("status") or {}
    rec = status.get("recommendation") or {}
    plan_hash = rec.get("planHash")
    execution = status.get("execution") or {}
    if not machine.has_work(status):
        return True  # novel/advisory, or no plan yet: nothing ever runs, not even dry-runs

    steps, params, built_hash, why_not = await _plan_steps(api, incident)
    uid = incident["metadata"]["uid"]
    jobs = await _list_jobs(api, namespace, name, uid)
    seen = await _seen(api, namespace, name, jobs, _recorded_reasons(status), ctx.now)
    changes: dict[str, Any] = {}
    # What this pass saw change, posted once its status write holds (a redo sees the
    # change again). What it did (a Job created) is posted at once, whatever follows:
    # a redo finds that Job there and would never announce it.
    events: list[tuple[str, str, bool]] = []
    refused: dict[tuple[str, str], str] = {}

    # (a) dry-run of an actionable plan whose Runbook still gives that plan: at
    # once with auto dry-run, else once an Approval of this plan was accepted
    account = ctx.settings.executor_service_account
    runbook = rec.get("runbook")
    dry = dict(status.get("dryRun") or {})
    dry_decision = None
    dry_why = ""
    plan_ok = built_hash is not None and built_hash == plan_hash
    # Only a recommendation this operator wrote for this incident leads to a Job.
    verified = machine.sealed(ctx.key, uid, rec)
    # A resolved incident starts nothing new, dry-runs included; a dry-run it had is still
    # followed, as the run it let start goes on (without it the run waited for it for ever).
    resolved = resolved_by(incident) is not None
    if (verified and rec.get("mode") == "actionable" and plan_ok
            and _dry_run_wanted(ctx.settings, dry, execution, plan_hash)
            and not (resolved and dry.get("planHash") != plan_hash)):
        if dry.get("planHash") != plan_hash:
            # Record the intent (plan, attempt) before creating Jobs, so a restart
            # in between looks for these exact Job names instead of new ones.
            fresh: dict[str, Any] = {"planHash": plan_hash, "attempt": int(dry.get("attempt", 0)) + 1, "steps": [],
                     "reason": "starting the dry-run Jobs"}
            await _apply(api, incident, {"dryRun": fresh})
            return False  # read again, with the intent recorded (or the race lost)
        attempt = int(dry["attempt"])
        observed, why = seen.observed(name, steps, attempt, ("dryrun",))
        kept, kept_why = machine.dry_run_recorded(dry, observed)
        observed, why = {**observed, **kept}, {**why, **kept_why}
        ended, ended_why = machine.not_started(machine.dry_run(steps, observed, why), resolved)
        observed, why = {**observed, **ended}, {**why, **ended_why}
        dry_decision = machine.dry_run(steps, observed, why)
        for c in dry_decision.create:
            step = next(s for s in steps if s["name"] == c.step)
            manifest = jobkit.job_manifest(name, namespace, uid, step, "dryrun", attempt, params,
                                           service_account=account, plan_hash=plan_hash, runbook=runbook)
            created, refusal = await _create_job(api, manifest)
            if created:
                await _post_events(api, incident, [("DryRunStarted", f"dry-run of step {c.step} started", False)],
                                   ctx.now)
            elif refusal:
                refused[("dryrun", c.step)] = refusal
        if refused:
            # A Job the API server refuses never exists: that dry-run failed, with the refusal as its reason.
            dry_decision = machine.dry_run(steps, {**observed, **{k: "failed" for k in refused}}, {**why, **refused})
        old = {s.get("name"): s for s in dry.get("steps") or []}
        view = []
        for r in dry_decision.results:
            jname = jobkit.job_name(name, "dryrun", r["name"], attempt) if r["result"] != "skipped" else None
            entry = {"name": r["name"], "job": jname, "result": r["result"] if r["result"] != "pending" else "running"}
            if r.get("reason"):
                entry["reason"] = r["reason"]
            if r["result"] in ("succeeded", "failed"):
                entry["logTail"] = old.get(r["name"], {}).get("logTail") or (
                    await _log_tail(api, namespace, jname) if jname in jobs else NO_LOG)
                if old.get(r["name"], {}).get("result") != r["result"]:
                    events.append(("DryRun" + r["result"].capitalize(), f"dry-run of step {r['name']} {r['result']}"
                                   + (f": {r['reason']}" if r["result"] == "failed" and r.get("reason") else ""),
                                   r["result"] == "failed"))
            elif r["result"] == "skipped":
                entry["logTail"] = "no dry-run command"
            view.append(entry)
        dry_why = _dry_run_summary([{**r, "reason": v.get("reason")} for r, v in zip(dry_decision.results, view)])
        new_dry = {**{k: v for k, v in dry.items() if k != "reason"}, "steps": view, "done": dry_decision.done,
                   "ok": dry_decision.ok, **({"reason": dry_why} if dry_why else {})}
        if new_dry != dry:
            changes["dryRun"] = new_dry

    # (c) execution of the approved plan
    if execution and execution.get("state") not in machine.TERMINAL and not verified and resolved:
        # Nothing will seal a resolved incident's recommendation again: its run ends, said, instead of waiting.
        why_stopped = machine.stopped_unverified(execution)
        changes["execution"] = {**execution, "state": machine.STOPPED, "reason": why_stopped}
        changes["conditions"], _ = set_condition(
            status.get("conditions") or [], st.EXECUTING, False, machine.STOPPED, why_stopped,
            int(incident["metadata"].get("generation", 0)), ctx.now,
        )
        events.append((f"Execution{machine.STOPPED}", why_stopped, True))
    elif execution and execution.get("state") not in machine.TERMINAL and not verified:
        if execution.get("reason") != UNSEALED:
            changes["execution"] = {**execution, "reason": UNSEALED}
    elif execution and execution.get("state") not in machine.TERMINAL:
        ex = dict(execution)
        attempt = int(ex.get("attempt", 1))
        observed, why = seen.observed(name, steps, attempt, ("run", "rollback"))
        gone, gone_why = machine.recorded_when_gone(execution, observed)
        observed, why = {**observed, **gone}, {**why, **gone_why}
        if ex.get("planHash") != built_hash or ex.get("planHash") != plan_hash:
            # The approved plan is no longer what the Runbook/recommendation gives: the run is judged
            # over its own steps (recorded, or with a Job), not the new plan's.
            ran, undid = _run_step_names(execution, jobs, attempt)
            observed, why = seen.observed(name, [{"name": n} for n in [*ran, *undid]], attempt, ("run", "rollback"))
            gone, gone_why = machine.recorded_when_gone(execution, observed)
            decision = machine.plan_changed(
                ran, undid, {**observed, **gone}, {**why, **gone_why},
                f"the approved plan {ex.get('planHash')} changed ({why_not or 'now ' + str(built_hash or plan_hash)})")
        else:
            dry_done = bool(dry_decision and dry.get("planHash") == plan_hash and dry_decision.done)
            # The approval is re-derived from the Approval objects, never taken from status.
            evidence = await _evidence(api, incident, jobs, attempt, built_hash, steps)
            unverified = machine.verify_approvals(ex, evidence, ctx.now, ctx.approval)

            def decide() -> machine.RunDecision:
                d = machine.run(
                    rec.get("mode", ""), steps, approved=unverified is None,
                    stopped=bool(ex.get("stopped")) or unverified is not None,
                    dry_run_done=dry_done, dry_run_ok=bool(dry_decision and dry_decision.ok), observed=observed,
                    why=why, dry_run_why=dry_why,
                )
                if unverified is not None and not ex.get("stopped") and d.create is None:
                    d = replace(d, reason=f"nothing runs: {unverified}")
                # Status alone never starts a Job, a rollback included.
                return machine.unproven(d, unverified, evidence.started_at is not None)

            decision = decide()
            while decision.create is not None:
                step = next(s for s in steps if s["name"] == decision.create.step)
                fail = None
                if (ctx.settings.allow_simulated_failure and decision.create.phase == "run"
                        and (incident["metadata"].get("annotations") or {}).get(SIMULATE_FAIL_ANNOTATION) == step["name"]):
                    fail = "fail"
                # What the step's dry-run ran (the dry-run of this plan: dry_done says it is), not what its tag names now.
                dry_job = jobs.get(jobkit.job_name(name, "dryrun", step["name"], int(dry.get("attempt") or 0)))
                image, unpinned = await _dry_run_image(api, namespace, step, dry_job)
                manifest = jobkit.job_manifest(name, namespace, uid, step, decision.create.phase, attempt, params,
                                               service_account=account, fail_label=fail, plan_hash=plan_hash,
                                               runbook=runbook, approvals=ex.get("approvals") or [ex.get("approval")],
                                               image=image)
                created, refusal = await _create_job(api, manifest)
                if created:
                    verb = "rollback of step" if decision.create.phase == "rollback" else "step"
                    started = [("StepStarted", f"{verb} {step['name']} started as Job {manifest['metadata']['name']}"
                                + (f", image {image} as its dry-run ran it" if image else ""), False)]
                    if unpinned:
                        started.append(("StepImageNotPinned", f"{verb} {step['name']} runs image {step['image']} as its "
                                        f"tag names it now, which may not be what its dry-run ran: {unpinned}", True))
                    await _post_events(api, incident, started, ctx.now)
                if refusal is None:
                    break
                # Refused for good: that step failed, and the machine decides again (a rollback, or the end).
                key = (decision.create.phase, decision.create.step)
                observed, why = {**observed, key: "failed"}, {**why, key: refusal}
                decision = decide()
        ex["steps"] = _view(jobs, name, attempt, "run", decision.steps)
        ex["rollbacks"] = _view(jobs, name, attempt, "rollback", decision.rollbacks)
        for kind, old_list, new_list in (("Step", execution.get("steps") or [], ex["steps"]),
                                         ("Rollback", execution.get("rollbacks") or [], ex["rollbacks"])):
            before = {s.get("name"): s.get("result") for s in old_list}
            for s in new_list:
                if s["result"] in ("succeeded", "failed") and before.get(s["name"]) != s["result"]:
                    events.append((f"{kind}{s['result'].capitalize()}", f"{kind.lower()} {s['name']} {s['result']}"
                                   + (f": {s['reason']}" if s["result"] == "failed" and s.get("reason") else ""),
                                   s["result"] == "failed"))
        # Approved but waiting (for dry-runs) is still a run in progress.
        state = {"Pending": machine.RUNNING, "Refused": machine.FAILED}.get(decision.state, decision.state)
        ex["state"] = state
        ex["reason"] = decision.reason
        if ex != execution:
            changes["execution"] = ex
        conds, _ = set_condition(
            status.get("conditions") or [], st.EXECUTING, state == machine.RUNNING, state, decision.reason,
            int(incident["metadata"].get("generation", 0)), ctx.now,
        )
        # Compared without timestamps, so an unchanged condition is not rewritten.
        if _strip(conds) != _strip(status.get("conditions") or []):
            changes["conditions"] = conds
        if ex != execution:
            if state in machine.TERMINAL and execution.get("state") != state:
                events.append((f"Execution{state}", decision.reason, state != machine.SUCCEEDED))

    held = not changes or await _apply(api, incident, changes)
    if held:
        await _post_events(api, incident, events, ctx.now)
    return held


async def _evidence(api: Any, incident: Mapping[str, Any], jobs: Mapping[str, Mapping[str, Any]], attempt: int,
                    built_hash: str | None, steps: list[dict[str, Any]]) -> machine.RunEvidence:
    """What the cluster itself shows about this run: Approvals, the recomputed plan, the Jobs made so far."""
    started: list[datetime] = []
    used: set[str] = set()
    for job in jobs.values():
        jmeta = job.get("metadata") or {}
        labels = jmeta.get("labels") or {}
        if labels.get(jobkit.LABEL_PHASE) not in ("run", "rollback"):
            continue
        if labels.get(jobkit.LABEL_ATTEMPT) == str(attempt):
            if (made := parse_time(jmeta.get("creationTimestamp"))) is not None:
                started.append(made)
        else:
            used.update(jobkit.approvals_of(job))
    return machine.RunEvidence(
        incident=incident, approvals=await _list_approvals(api, incident), plan_hash=built_hash,
        plan_risk=machine.plan_risk(steps), started_at=min(started) if started else None, used_before=frozenset(used),
    )


def _dry_run_wanted(exec_settings: ExecutionSettings, dry: Mapping[str, Any], execution: Mapping[str, Any],
                    plan_hash: str | None) -> bool:
    if exec_settings.auto_dry_run or dry.get("planHash") == plan_hash:
        return True  # automatic, or already started for this plan: follow it to the end
    return bool(execution.get("planHash") == plan_hash and execution.get("approval") and not execution.get("stopped"))


def _strip(conditions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in c.items() if k != "lastTransitionTime"} for c in conditions]


def _run_step_names(execution: Mapping[str, Any], jobs: Mapping[str, Any], attempt: int) -> tuple[list[str], list[str]]:
    """The run's step and rollback names: as status recorded them, then any this attempt made a Job for
    (a pass that created it may have lost its status write)."""
    made = jobkit.steps_made(jobs.values(), attempt)
    out = []
    for phase, key in (("run", "steps"), ("rollback", "rollbacks")):
        recorded = [str(s.get("name")) for s in execution.get(key) or [] if s.get("name")]
        out.append([*recorded, *(n for n in made[phase] if n not in recorded)])
    return out[0], out[1]


def _view(jobs: Mapping[str, Any], incident: str, attempt: int, phase: str, results: list[dict[str, str]]) -> list[dict[str, Any]]:
    out = []
    for r in results:
        jname = jobkit.job_name(incident, phase, r["name"], attempt)
        job = jobs.get(jname)
        started, finished = machine.job_times(job)
        entry = {
            "name": r["name"], "phase": phase, "job": jname if job else None, "result": r["result"],
            "startedAt": started, "finishedAt": finished if r["result"] in ("succeeded", "failed") else None,
        }
        if job:  # the image its Job runs: pinned to the dry-run's digest, or as the Runbook names it
            containers = ((job.get("spec") or {}).get("template") or {}).get("spec", {}).get("containers") or []
            entry["image"] = next((c.get("image") for c in containers if c.get("name") == jobkit.CONTAINER), None)
        if r.get("reason"):
            entry["reason"] = r["reason"]
        out.append(entry)
    return out


# -- Approvals ----------------------------------------------------------------


async def _list_approvals(api: Any, incident: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The Approvals of this Incident: those naming it, made since it was (`machine.for_this_incident`)."""
    meta = incident["metadata"]
    listing = cast(dict[str, Any], await asyncio.to_thread(
        k8s.CustomObjectsApi(api).list_namespaced_custom_object, GROUP, VERSION, meta["namespace"], "approvals"))
    return [a for a in listing.get("items") or [] if machine.for_this_incident(a, incident)]


async def _set_approval_state(api: Any, namespace: str, name: str, state: str, reason: str) -> None:
    try:
        await asyncio.to_thread(
            k8s.CustomObjectsApi(api).patch_namespaced_custom_object_status,
            GROUP, VERSION, namespace, "approvals", name, {"status": {"state": state, "reason": reason}},
        )
        metrics.approval(state)  # metrics
    except ApiException as exc:
        if exc.status != 404:
            raise


async def _mark_counted(api: Any, namespace: str, names: list[str], own: str, approvals: list[dict[str, Any]],
                        reason: str) -> None:
    """The Pending Approvals this run counted are Accepted now (best effort: the execution records them all)."""
    by_name = {(a.get("metadata") or {}).get("name"): a for a in approvals}
    for other in names:
        if other == own or ((by_name.get(other) or {}).get("status") or {}).get("state") != "Pending":
            continue
        await _set_approval_state(api, namespace, other, "Accepted", f"{reason} (counted when {own} arrived)")


async def _mark_lapsed(ctx: Ctx, namespace: str, approvals: list[dict[str, Any]]) -> None:
    """Pending Approvals whose time ran out before enough approvers came say so (best effort).

    They stopped counting when they expired whatever their status says; this
    only keeps `kubectl get approvals` from showing them Pending for ever.
    """
    for name in lapsed_pending(approvals, ctx.now, ctx.approval):
        await _set_approval_state(ctx.api, namespace, name, "Expired", (
            f"no further approver came within {ctx.approval.approval_ttl}; it no longer counts, approve again"))


def _expire_when_due(memo: kopf.Memo, namespace: str, name: str, incident: str, deadline: datetime) -> None:
    """At `deadline`, a Pending Approval that still waits for more approvers says it expired.

    Otherwise only another Approval of the incident would say so, and one that
    never comes left it Pending for ever in `kubectl get approvals`. Judged
    under the incident's lock, from the Approval as it is then: one counted
    meanwhile is Accepted and stays so. A restart schedules it again (on.resume).
    """
    tasks: dict[tuple[str, str], asyncio.Task[None]] = memo.setdefault("approval_expiries", {})
    if (namespace, name) in tasks:
        return

    async def expire() -> None:
        try:
            await asyncio.sleep(max(0.0, (deadline - clock(memo)()).total_seconds()) + 1)
            async with _lock(memo, namespace, incident):
                approval = await _get(memo.api, "approvals", namespace, name)
                if approval is not None:
                    await _mark_lapsed(_ctx(memo), namespace, [approval])
        except asyncio.CancelledError:
            raise
        except Exception:  # the API away: said at the next Approval of the incident, or the next start
            kopf_logger.exception(f"marking approval {namespace}/{name} expired failed")
        finally:
            tasks.pop((namespace, name), None)

    tasks[(namespace, name)] = asyncio.create_task(expire(), name=f"recall approval expiry {namespace}/{name}")


async def approval_created(name: str, namespace: str | None, spec: Mapping[str, Any], status: Mapping[str, Any],
                           patch: kopf.Patch, body: Mapping[str, Any], memo: kopf.Memo, **_: Any) -> None:
    if status.get("state"):
        # Judged already; an Approval is immutable, so the verdict is too. One still waiting for
        # more approvers (a restart since) says when its time runs out.
        deadline = parse_time(status.get("expiresAt"))
        if status.get("state") == "Pending" and deadline is not None:
            _expire_when_due(memo, namespaced(namespace), name, str(spec.get("incident")), deadline)
        return
    namespace = namespaced(namespace)
    incident_name = spec["incident"]
    approval = {"metadata": dict(body.get("metadata") or {}), "spec": dict(spec)}
    async with _lock(memo, namespace, incident_name):
        for _try in range(ATTEMPTS):
            ctx = _ctx(memo)
            incident = await _get_incident(ctx.api, namespace, incident_name)
            if incident is None:
                patch.status["state"] = "Refused"
                patch.status["reason"] = f"no Incident {incident_name} in namespace {namespace}"
                metrics.approval("Refused")  # metrics
                return
            st_ = incident.get("status") or {}
            if not machine.for_this_incident(approval, incident):
                patch.status["state"] = "Refused"
                patch.status["reason"] = machine.EARLIER_INCIDENT.format(incident=incident_name)
                metrics.approval("Refused")  # metrics
                return
            others = await _list_approvals(ctx.api, incident)
            policy = machine.Policy(approval, incident, others, ctx.now, ctx.approval)
            verdict = machine.judge_approval(name, spec, st_.get("recommendation"), st_.get("execution"), policy)
            # A new execution replaces the old one whole: every key of it is this writer's.
            if verdict.execution is None or await _apply(ctx.api, incident, {"execution": verdict.execution}):
                break
        else:
            raise kopf.TemporaryError("the incident kept changing; judging the approval again", delay=2)
        if verdict.execution is not None:
            await _mark_counted(ctx.api, namespace, verdict.execution.get("approvals") or [], name, others, verdict.reason)
        await _mark_lapsed(ctx, namespace, [o for o in others if (o.get("metadata") or {}).get("name") != name])
    patch.status["state"] = verdict.state
    patch.status["reason"] = verdict.reason
    deadline = expires_at(approval, ctx.approval)
    if verdict.state == "Pending" and deadline is not None:
        # A reader sees when this one stops counting unless enough others come first.
        patch.status["expiresAt"] = deadline.strftime("%Y-%m-%dT%H:%M:%SZ")
        _expire_when_due(memo, namespace, name, incident_name, deadline)
    metrics.approval(verdict.state)  # metrics
    await _post_events(ctx.api, incident, [(f"Approval{verdict.state}", f"approval {name}: {verdict.reason}",
                                            verdict.state not in ("Accepted", "Pending"))], ctx.now)
    if verdict.execution is not None:
        await advance(memo, namespace, incident_name)


# -- Kopf wiring --------------------------------------------------------------


async def incident_event(type: str | None, name: str, namespace: str | None, status: Mapping[str, Any],
                         memo: kopf.Memo, **_: Any) -> None:
    if type == "DELETED":
        return
    # Most events (a new Incident, a novel or advisory one) have nothing to run:
    # the event's own copy says so without another GET, which on a new
    # Incident's path is a third of the time to its first answer.
    if not machine.has_work(status):
        return
    await advance(memo, namespaced(namespace), name)


async def job_event(type: str | None, meta: Mapping[str, Any], namespace: str | None, body: Mapping[str, Any],
                    memo: kopf.Memo, **_: Any) -> None:
    if type == "DELETED":
        return
    metrics.job_seen(body)  # metrics: counts a finished Job once
    await advance(memo, namespaced(namespace), _incident_of(meta))


def _incident_of(job_meta: Mapping[str, Any]) -> str:
    return str((job_meta.get("annotations") or {}).get(jobkit.ANN_INCIDENT_NAME)
               or (job_meta.get("labels") or {})[jobkit.LABEL_INCIDENT])


def _about_a_job(body: Mapping[str, Any], **_: Any) -> bool:
    """Warnings about a Job (FailedCreate and the like): the Job object itself does not change for them."""
    involved = body.get("involvedObject") or {}
    return body.get("type") == "Warning" and involved.get("kind") == "Job"


async def job_warning(type: str | None, body: Mapping[str, Any], namespace: str | None, memo: kopf.Memo,
                      **_: Any) -> None:
    """A Warning Event about a Job: if it is one of ours, its incident's status says why within seconds."""
    if type == "DELETED":
        return
    job_name = str((body.get("involvedObject") or {}).get("name") or "")
    ns = namespaced(namespace)
    try:
        job = await asyncio.to_thread(k8s.BatchV1Api(memo.api).read_namespaced_job, job_name, ns)
    except ApiException as exc:
        if exc.status == 404:
            return
        raise
    meta = memo.api.sanitize_for_serialization(job)["metadata"]
    if jobkit.LABEL_INCIDENT not in (meta.get("labels") or {}):
        return  # someone else's Job
    await advance(memo, ns, _incident_of(meta))


async def execution_startup(memo: kopf.Memo, logger: Any, **_: Any) -> None:
    # A wrong policy value stops start-up here, with the variable named.
    config = operator_settings(memo)
    approval_settings, exec_settings = config.approval(), config.execution()
    if memo.get("api") is None:  # the execution handlers alone (tests, `kopf run -m`): a client of their own
        memo.api = api_client()
        memo.execution_owns_api = True
    memo.execution_locks = {}
    memo.clock = clock(memo)
    logger.info(
        f"approval policy: four-eyes {'on' if approval_settings.four_eyes else 'off'}, "
        f"approvals expire after {approval_settings.approval_ttl or 'never'}; "
        f"approvers by risk {dict(approval_settings.approvers_required)}; "
        f"auto dry-run {'on' if exec_settings.auto_dry_run else 'off'}; "
        f"step Jobs run as {exec_settings.executor_service_account}; recommendations sealed with "
        + ("the fixed key of RECALL_STATUS_KEY" if config.status_key else
           "a key of this process (RECALL_STATUS_KEY unset): after a restart an incident is triaged again "
           "before anything of it runs, and a run of a resolved incident stops")
    )


async def execution_cleanup(memo: kopf.Memo, **_: Any) -> None:
    tasks = [memo.pop("execution_resync", None), *(memo.pop("approval_expiries", None) or {}).values()]
    for task in tasks:
        if task is not None:
            task.cancel()
    await asyncio.gather(*(t for t in tasks if t is not None), return_exceptions=True)
    api = memo.pop("api", None) if memo.get("execution_owns_api") else None
    if api is not None:
        api.close()


RESYNC_SECONDS = 5.0


def in_progress(status: Mapping[str, Any], memo: kopf.Memo, spec: Mapping[str, Any] | None = None, **_: Any) -> bool:
    """Whether an Incident has a dry-run or an execution that is not finished.

    A resolved incident starts no dry-run, so one not begun for its plan is not waited for.
    """
    rec = status.get("recommendation") or {}
    dry = status.get("dryRun") or {}
    ex = status.get("execution") or {}
    begun = dry.get("planHash") == rec.get("planHash")
    if not begun and resolved_by({"spec": spec or {}}) is not None:
        return bool(ex and ex.get("state") not in machine.TERMINAL)
    dry_pending = rec.get("mode") == "actionable" and (not begun or not dry.get("done"))
    config = memo.get("settings")
    if dry_pending and config is not None and not config.auto_dry_run:
        dry_pending = dry.get("planHash") == rec.get("planHash") or (
            ex.get("planHash") == rec.get("planHash") and bool(ex.get("approval")) and not ex.get("stopped"))
    return dry_pending or bool(ex and ex.get("state") not in machine.TERMINAL)


async def runs_in_progress(name: str, namespace: str | None, spec: Mapping[str, Any], status: Mapping[str, Any],
                           meta: Mapping[str, Any], memo: kopf.Memo, **_: Any) -> dict[tuple[str, str], bool] | None:
    """The Incidents the resync loop advances, as the watch last saw them: an index needs no finalizer.

    Async though it awaits nothing: Kopf runs a plain function on a worker
    thread, before any other handler of every Incident event.

    A Kopf timer per Incident would do the same, but Kopf guards every object
    with a timer by a finalizer: one more write on each run, and an Incident
    deleted while the operator is down would wait for it to come back.
    """
    if meta.get("deletionTimestamp") or not in_progress(status, memo, spec):
        return None
    return {(namespaced(namespace), name): True}


async def resync_forever(memo: kopf.Memo, runs: Mapping[tuple[str, str], Any]) -> None:
    # Event handlers are not retried when they fail (an API timeout, a lost
    # race), so a periodic pass keeps an unfinished run from stalling.
    while True:
        await asyncio.sleep(RESYNC_SECONDS)
        for namespace, name in list(runs):
            try:
                await advance(memo, namespace, name)
            except Exception:
                metrics.RECONCILE_ERRORS.inc()  # metrics
                kopf_logger.exception(f"advancing {namespace}/{name} failed; the next pass tries again")


async def start_resync(memo: kopf.Memo, **kwargs: Any) -> None:
    # The index (a keyword argument named after it) is a live view Kopf keeps
    # filling; execution_cleanup cancels the task.
    runs = kwargs["runs_in_progress"]
    memo.execution_resync = asyncio.create_task(resync_forever(memo, runs), name="recall execution resync")


def register(registry: kopf.OperatorRegistry) -> kopf.OperatorRegistry:
    """Attach this module's handlers (and the lifecycle writer) to `registry`.

    A function rather than bare decorators so a test can run these handlers
    alone in a registry of their own, whatever else the test process imported.
    """
    kopf.on.startup(registry=registry, errors=kopf.ErrorsMode.PERMANENT)(execution_startup)
    kopf.on.cleanup(registry=registry)(execution_cleanup)
    kopf.on.event(GROUP, VERSION, "incidents", registry=registry)(incident_event)
    kopf.on.event("batch", "v1", "jobs", labels={jobkit.LABEL_INCIDENT: kopf.PRESENT}, registry=registry)(job_event)
    kopf.on.event("v1", "events", when=_about_a_job, registry=registry)(job_warning)
    kopf.index(GROUP, VERSION, "incidents", registry=registry)(runs_in_progress)
    kopf.on.startup(registry=registry)(start_resync)
    kopf.on.create(GROUP, VERSION, "approvals", registry=registry)(approval_created)
    kopf.on.resume(GROUP, VERSION, "approvals", registry=registry)(approval_created)
    lifecycle.register(registry)
    return registry


register(kopf.get_default_registry())
