"""The status the operator writes, built from real assessments (no cluster needed)."""

from __future__ import annotations

import gc
from typing import Any
from datetime import UTC, datetime, timedelta

from recall_operator.domain.dna import incident_dna
from recall_operator.domain.models import (
    ArchitectureMigration,
    EpisodicMemory,
    Incident,
    IncidentSpec,
    MigrationSpec,
    Resolution,
    Runbook,
    RunbookRecord,
    RunbookSpec,
)
from recall_operator.domain.plan import build_plan
from recall_operator.domain.recommend import Context, assess
from recall_operator.domain.topology import Topology
from recall_operator.domain.consolidation import DELETION_WAIT, RUN_WAIT
from recall_operator.kube import status as st

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
TOPOLOGY = Topology.parse("cart-service: {dependsOn: [redis-cluster]}\nredis-cluster: {dependsOn: []}\n")
RESTART = Runbook(
    name="redis-restart",
    spec=RunbookSpec.model_validate(
        {
            "title": "Restart redis",
            "services": ["redis-cluster"],
            "symptoms": ["latency-spike", "timeout"],
            "steps": [
                {
                    "name": "restart",
                    "image": "redis:7.2",
                    "command": ["redis-cli", "-h", "$(SERVICE)", "shutdown"],
                    "dryRunCommand": ["redis-cli", "-h", "$(SERVICE)", "info"],
                    "risk": "low",
                }
            ],
        }
    ),
)
SPEC = {
    "service": "redis-cluster",
    "severity": "high",
    "title": "redis primary slow, commands timing out",
    "description": "redis-cluster primary answering slowly; cart-service sees i/o timeouts",
    "symptoms": ["latency-spike", "timeout"],
    "errorSignatures": ["READONLY You can't write against a read only replica"],
}


def _memory(name: str, days_ago: int) -> EpisodicMemory:
    return EpisodicMemory(
        incident=name,
        spec=IncidentSpec.model_validate(SPEC),
        resolution=Resolution.model_validate(
            {
                "rootCause": "redis primary stuck on a slow fork",
                "summary": "restarted redis on the VM with runbook redis-restart",
                "runbook": "redis-restart",
                "actions": [{"action": "run runbook redis-restart", "result": "succeeded"}],
            }
        ),
        resolved_at=NOW - timedelta(days=days_ago),
    )


def _ctx(migrations: list[ArchitectureMigration] | None = None) -> Context:
    return Context(
        now=NOW,
        topology=TOPOLOGY,
        catalog={RESTART.name: RESTART},
        records={RESTART.name: RunbookRecord(times_executed=3, times_succeeded=3)},
        migrations=migrations or [],
    )


def _triage(candidates: list[EpisodicMemory], ctx: Context, current: dict | None = None):
    incident = Incident(name="inc-new", spec=IncidentSpec.model_validate(SPEC))
    assessment = assess(incident, candidates, ctx)
    rec = assessment.recommendation
    plan = build_plan(incident.spec, RESTART, read_only=rec.mode == "novel") if rec.runbook else None
    dna = incident_dna(incident.spec, ctx.topology)
    return assessment, plan, st.triage_status(current or {}, assessment, plan, dna, 1, NOW)


def test_recurrence_fills_matches_recommendation_and_conditions() -> None:
    assessment, plan, change = _triage([_memory("inc-1", 30), _memory("inc-2", 10)], _ctx())
    status = change.patch
    rec = status["recommendation"]
    assert rec["mode"] == assessment.recommendation.mode
    assert rec["runbook"] == "redis-restart"
    assert plan is not None and rec["planHash"] == plan.plan_hash
    assert rec["steps"][0]["command"] == ["redis-cli", "-h", "$(SERVICE)", "shutdown"]
    assert [m["incident"] for m in status["matches"]] == [m.incident for m in assessment.matches]
    first = status["matches"][0]
    assert set(first) >= {"incident", "similarity", "breakdown", "outcome", "actions", "runbook", "stale", "contradiction"}
    assert first["breakdown"] and first["stale"] is None
    assert set(status["dna"]) == {
        "symptoms", "errorSeverity", "serviceDepth", "deployProximity",
        "blastRadius", "configurationDrift", "networkPressure", "resolutionComplexity",
    }
    assert all("reason" in d and 0 <= d["value"] <= 1 for d in status["dna"].values())
    conditions = {c["type"]: c for c in status["conditions"]}
    assert conditions["Triaged"]["status"] == "True"
    assert conditions["Triaged"]["reason"] == rec["mode"].capitalize()
    assert conditions["MemoryAvailable"]["status"] == "True"
    assert conditions["AwaitingApproval"]["status"] == ("True" if rec["mode"] == "actionable" else "False")
    assert status["observedGeneration"] == 1
    assert {c["type"] for c in change.transitions} == {"Triaged", "AwaitingApproval", "MemoryAvailable"}


def test_cold_incident_is_novel_with_read_only_steps() -> None:
    _, plan, change = _triage([], _ctx())
    rec = change.patch["recommendation"]
    assert rec["mode"] == "novel"
    assert rec["actionability"] == 0
    if plan is not None:  # the catalog may offer its dry-run commands to explore
        assert rec["readOnly"] is True
        assert all(s["command"] == s["dryRunCommand"] and s["rollbackCommand"] == [] for s in rec["steps"])
    conditions = {c["type"]: c for c in change.patch["conditions"]}
    assert conditions["AwaitingApproval"]["status"] == "False"


def test_stale_match_shows_the_migration() -> None:
    migration = ArchitectureMigration(
        name="redis-to-managed",
        spec=MigrationSpec.model_validate(
            {
                "targetService": "redis-cluster",
                "migrationDate": "2025-02-01",
                "oldArch": "redis on VMs",
                "newArch": "managed redis",
                "impactedRunbooks": ["redis-restart"],
                "confidenceDeduction": 30,
            }
        ),
        applied_at=NOW - timedelta(days=5),
    )
    _, _, change = _triage([_memory("inc-1", 30)], _ctx([migration]))
    stale = change.patch["matches"][0]["stale"]
    assert stale["migration"] == "redis-to-managed"
    assert stale["oldArch"] == "redis on VMs" and stale["newArch"] == "managed redis"
    assert stale["deduction"] == 30
    assert change.patch["recommendation"]["mode"] != "actionable"


def test_second_identical_triage_writes_nothing() -> None:
    _, _, first = _triage([_memory("inc-1", 30)], _ctx())
    # What the server holds after the merge patch (nulls removed).
    server = st.prune_none(first.patch)
    _, _, second = _triage([_memory("inc-1", 30)], _ctx(), current=server)
    assert second.empty and second.transitions == []


def test_changed_recommendation_keeps_unchanged_condition_times() -> None:
    _, _, first = _triage([], _ctx())
    server = st.prune_none(first.patch)
    later = NOW + timedelta(minutes=5)
    incident = Incident(name="inc-new", spec=IncidentSpec.model_validate(SPEC))
    assessment = assess(incident, [_memory("inc-1", 30), _memory("inc-2", 10)], _ctx())
    plan = build_plan(incident.spec, RESTART)
    change = st.triage_status(server, assessment, plan, incident_dna(incident.spec, TOPOLOGY), 1, later)
    assert "recommendation" in change.patch
    conditions = {c["type"]: c for c in change.patch["conditions"]}
    # MemoryAvailable did not flip, so its transition time is the first one.
    assert conditions["MemoryAvailable"]["lastTransitionTime"] == NOW.isoformat()
    assert "MemoryAvailable" not in {c["type"] for c in change.transitions}


def test_memory_down_is_a_condition_not_a_crash() -> None:
    incident = Incident(name="inc-new", spec=IncidentSpec.model_validate(SPEC))
    assessment = assess(incident, [], _ctx())
    change = st.triage_status({}, assessment, None, incident_dna(incident.spec, TOPOLOGY), 2, NOW, "connection refused")
    cond = {c["type"]: c for c in change.patch["conditions"]}["MemoryAvailable"]
    assert cond["status"] == "False" and cond["reason"] == "MemoryUnavailable"
    assert "connection refused" in cond["message"]


def test_an_outcome_memory_must_not_take_is_settled_said_and_not_retried() -> None:
    key = st.resolution_key({"summary": "restarted"})
    refused = st.refused_status({}, key, 2, NOW, "memory already holds another incident named inc-1")
    server = st.prune_none(refused.patch)
    assert st.is_settled(server, key)
    assert not st.is_settled(server, st.resolution_key({"summary": "a correction"}))  # a new outcome is tried
    resolved = {c["type"]: c for c in server["conditions"]}["Resolved"]
    assert (resolved["status"], resolved["reason"]) == ("False", "NameTaken")
    # Written after all (the other memory went away, a correction): the refusal is cleared.
    done = st.consolidated_status(server, key, "embedded", [], 2, NOW)
    assert st.prune_none({**server, **done.patch})["memory"].get("refused") is None
    # Memory refusing what the outcome says is settled the same way, and says which refusal it was.
    said = st.prune_none(st.refused_status({}, key, 2, NOW, "memory refused it: HTTP 422", "MemoryRefused").patch)
    assert st.is_settled(said, key)
    assert {c["type"]: c for c in said["conditions"]}["Resolved"]["reason"] == "MemoryRefused"


def _running(state: str = "Running", reason: str = "step flush is running") -> dict[str, Any]:
    return {"execution": {"state": state, "runbook": "cart-hot-keys", "reason": reason}}


def test_an_outcome_recorded_during_the_operator_s_run_waits_for_its_end_at_most_run_wait() -> None:
    key = st.resolution_key({"summary": "the runbook fixed it"})
    waits = st.waits_for_run(_running(), key, NOW)
    assert waits is not None and waits[1] == NOW and "cart-hot-keys" in waits[0] and "step flush" in waits[0]
    wait = st.run_wait_status(_running(), key, 2, NOW, waits[1], waits[0])
    server = {**_running(), **st.prune_none(wait.patch)}
    resolved = {c["type"]: c for c in server["conditions"]}["Resolved"]
    assert (resolved["status"], resolved["reason"]) == ("False", "RunInProgress")
    assert f"{NOW + RUN_WAIT:%Y-%m-%d %H:%M}" in resolved["message"]
    # Not settled: the loop tries again; answered under its key: the watch leaves it to the loop.
    assert not st.is_settled(server, key) and server["memory"]["key"] == key
    # Later passes keep the time it began to wait, and give up RUN_WAIT after it.
    later = NOW + RUN_WAIT / 2
    again = st.waits_for_run({**server, **_running(reason="step restart is running")}, key, later)
    assert again is not None and again[1] == NOW and "step restart" in again[0]
    assert st.waits_for_run(server, key, NOW + RUN_WAIT) is None
    # A new outcome (a correction) waits from now; a run that ended lets it be written.
    assert st.waits_for_run(server, "another-outcome", later) == (again[0].replace("restart", "flush"), later)
    for ended in ("Succeeded", "Failed", "RolledBack", "Stopped"):
        assert st.waits_for_run({**server, **_running(ended)}, key, later) is None
    assert st.waits_for_run({}, key, NOW) is None
    # Written at last: the wait is cleared.
    done = st.consolidated_status(server, key, "embedded", ["cart-hot-keys"], 2, later)
    assert done.patch["memory"]["waiting"] is None and done.patch["memory"]["waitingSince"] is None


def test_outbox_then_consolidated() -> None:
    resolution = {"rootCause": "x", "runbook": "redis-restart", "actions": [{"action": "a", "result": "succeeded"}]}
    key = st.resolution_key(resolution)
    assert key == st.resolution_key(dict(reversed(list(resolution.items()))))
    pending = st.outbox_status({}, key, 1, NOW, "down")
    assert pending.patch["memory"]["outbox"] == "pending"
    server = st.prune_none(pending.patch)
    assert not st.is_settled(server, key)
    done = st.consolidated_status(server, key, "embedded", ["redis-restart"], 1, NOW)
    merged = {**server, **st.prune_none(done.patch)}
    assert st.is_settled(merged, key)
    assert not st.is_settled(merged, "another-outcome")
    assert "outbox" not in merged["memory"]
    resolved = {c["type"]: c for c in merged["conditions"]}["Resolved"]
    assert resolved["status"] == "True"
    assert any(c["type"] == "Resolved" for c in done.transitions)


def test_an_incident_is_held_from_deletion_only_while_its_outcome_waits_and_deletion_wait_at_most() -> None:
    outcome = {"summary": "recycled the pods", "confirmedBy": "alice"}
    key = st.resolution_key(outcome)
    spec = {"service": "cart", "resolution": outcome}
    outbox = st.prune_none(st.outbox_status({}, key, 2, NOW, "connection refused").patch)
    run_wait = {**_running(), **st.prune_none(st.run_wait_status(_running(), key, 2, NOW, NOW, "step flush").patch)}
    done = {**outbox, **st.prune_none(st.consolidated_status(outbox, key, "embedded", [], 2, NOW).patch)}
    refused = st.prune_none(st.refused_status({}, key, 2, NOW, "another incident's memory").patch)
    corrected = {**spec, "corrections": [{"summary": "it was the network", "confirmedBy": "bob"}]}
    rows = [
        # (spec, status, deletion asked at, held)
        (spec, outbox, None, True),
        (spec, run_wait, None, True),
        (spec, done, None, False),  # in memory: nothing to lose
        (spec, refused, None, False),  # refused for good: nothing will be written
        (spec, {}, None, False),  # not taken yet: the handler writes it now, no extra write
        ({"service": "cart"}, outbox, None, False),  # no outcome (it was taken back)
        (corrected, outbox, None, False),  # a correction not taken yet: the next answer decides
        (spec, outbox, NOW, True),
        (spec, outbox, NOW - DELETION_WAIT + timedelta(seconds=1), True),
        (spec, outbox, NOW - DELETION_WAIT, False),  # the deletion waited long enough: the outcome is lost
        (spec, done, NOW, False),
    ]
    for row_spec, status, asked, held in rows:
        assert st.holds_deletion(row_spec, status, asked, NOW) is held, (row_spec, status, asked)
    # A deletion requested while the operator was down waits DELETION_WAIT from the operator's start.
    asked_long_ago, started = NOW - 3 * DELETION_WAIT, NOW - timedelta(minutes=1)
    assert st.deletion_wait_began(asked_long_ago, started) == started
    assert st.holds_deletion(spec, outbox, st.deletion_wait_began(asked_long_ago, started), NOW) is True
    assert st.holds_deletion(spec, outbox, st.deletion_wait_began(asked_long_ago, None), NOW) is False
    assert st.deletion_wait_began(NOW, started) == NOW  # asked while the operator ran: from the request
    assert st.deletion_wait_began(None, started) is None  # not being deleted
    # While the deletion waits, the outbox says until when, and what is lost after.
    waiting = st.outbox_status(outbox, key, 2, NOW, "connection refused", NOW + DELETION_WAIT)
    resolved = {c["type"]: c for c in waiting.patch["conditions"]}["Resolved"]
    assert f"deletion waits for it until {NOW + DELETION_WAIT:%Y-%m-%d %H:%M} UTC" in resolved["message"]
    assert "lost" in resolved["message"]
    assert [c["type"] for c in waiting.transitions] == ["Resolved"]  # one Event says the deletion waits


def test_what_became_of_a_deleted_incident_s_outcome() -> None:
    outcome = {"summary": "recycled the pods", "confirmedBy": "alice"}
    key = st.resolution_key(outcome)
    spec = {"service": "cart", "resolution": outcome}
    outbox = st.prune_none(st.outbox_status({}, key, 2, NOW, "connection refused").patch)
    run_wait = st.prune_none(st.run_wait_status({}, key, 2, NOW, NOW, "step flush is running").patch)
    done = {**outbox, **st.prune_none(st.consolidated_status(outbox, key, "embedded", [], 2, NOW).patch)}
    refused = st.prune_none(st.refused_status({}, key, 2, NOW, "another incident's memory").patch)
    invalid = st.prune_none(st.invalid_status({}, 2, NOW, "spec.resolution: an outcome needs a summary").patch)
    rows = [
        # (spec, status, words, lost)
        (spec, done, "written into memory", False),
        (spec, refused, "another incident's memory", False),  # refused for good: not the deletion's doing
        (spec, outbox, "connection refused", True),
        (spec, run_wait, "step flush is running", True),
        (spec, invalid, "needs a summary", False),  # never one memory could take
        (spec, {}, "had not taken it", False),
        ({"service": "cart"}, outbox, "no outcome", False),
    ]
    for row_spec, status, words, lost in rows:
        why, is_lost = st.outcome_after_deletion(row_spec, status)
        assert (words in why, is_lost) == (True, lost), (why, status)


def test_runbook_counts_are_counted_once_per_incident() -> None:
    first = st.runbook_counts_status({}, "ns/inc-1", "succeeded", NOW)
    assert first is not None
    assert (first["timesExecuted"], first["timesSucceeded"]) == (1, 1)
    assert 0.5 < first["winRate"] < 1.0  # smoothed: one success is not 100%
    assert first["lastOutcome"]["result"] == "succeeded"
    assert st.runbook_counts_status(first, "ns/inc-1", "succeeded", NOW) is None
    second = st.runbook_counts_status(first, "ns/inc-2", "failed", NOW)
    assert second is not None
    assert (second["timesExecuted"], second["timesSucceeded"], second["timesFailed"]) == (2, 1, 1)
    assert second["winRate"] < first["winRate"]
    assert st.record_from_status(second) == RunbookRecord(times_executed=2, times_succeeded=1)


def test_a_denial_is_explained_in_the_match() -> None:
    # The new report says "no fork"; the precedent's confirmed cause was a slow fork.
    incident_spec = {**SPEC, "description": SPEC["description"] + "; no fork in the logs"}
    incident = Incident(name="inc-new", spec=IncidentSpec.model_validate(incident_spec))
    assessment = assess(incident, [_memory("inc-1", 30)], _ctx())
    change = st.triage_status({}, assessment, None, incident_dna(incident.spec, TOPOLOGY), 1, NOW)
    match = change.patch["matches"][0]
    assert match["ruledOut"] == ["this report denies 'fork', which inc-1 had"]
    assert match["breakdown"]["ruledOut"] < 0
    _, _, plain = _triage([_memory("inc-1", 30)], _ctx())
    assert plain.patch["matches"][0]["ruledOut"] is None


def test_a_rollout_shortly_before_both_incidents_is_named_in_the_match() -> None:
    # The same client library went out 25 minutes before this page and 15 before the
    # precedent's; a rollout three days before the page is no likely cause.
    def rolled(minutes: float) -> dict:
        return {**SPEC, "deployment": {"id": "redis-client-lib-2.4.1", "revision": "shared redis client 2.4.1",
                                       "minutesSinceDeploy": minutes}}

    before = EpisodicMemory(incident="inc-1", spec=IncidentSpec.model_validate(rolled(15)),
                            resolution=_memory("inc-1", 30).resolution, resolved_at=NOW - timedelta(days=30))
    # "redis" is the paging service's own name (redis-cluster): the service term's evidence.
    for minutes, shared in ((25, ["client", "lib", "shared"]), (4320, None)):
        incident = Incident(name="inc-new", spec=IncidentSpec.model_validate(rolled(minutes)))
        assessment = assess(incident, [before], _ctx())
        change = st.triage_status({}, assessment, None, incident_dna(incident.spec, TOPOLOGY), 1, NOW)
        assert change.patch["matches"][0]["sharedChange"] == shared


def test_an_answer_leaves_no_reference_cycles_behind() -> None:
    # Objects in a reference cycle outlive the answer that made them until
    # Python's full collection finds them; in the operator each such
    # collection holds the event loop for 20-90 ms. Everything an answer
    # builds must go when its last reference does.
    migration = ArchitectureMigration(
        name="redis-to-managed",
        spec=MigrationSpec.model_validate({"targetService": "redis-cluster", "migrationDate": "2025-02-01",
                                           "impactedRunbooks": ["redis-restart"]}),
    )
    gc.collect()
    gc.disable()
    try:
        for candidates, ctx in (([_memory("inc-1", 3), _memory("inc-2", 40)], _ctx()), ([], _ctx()),
                                ([_memory("inc-1", 3)], _ctx([migration]))):
            _, _, change = _triage(candidates, ctx)
            st.leftovers(change.patch, {"recommendation": {"parameters": {"OLD": "x"}}}, st.TRIAGE_KEYS)
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_an_answer_repeats_the_last_actions_of_each_match_a_line_each() -> None:
    # Outcomes may list 64 actions of 4 KB: five such matches made an answer no Incident could hold, so any
    # incident that recalled them was left untriaged. The answer gives each match's last ACTIONS_SHOWN.
    from recall_operator.domain.recommend import ACTIONS_SHOWN, NOTE_SHOWN

    def padded(name: str, days_ago: int) -> EpisodicMemory:
        m = _memory(name, days_ago)
        tried = [{"action": f"attempt {i} " + "x" * 4000, "result": "failed"} for i in range(63)]
        actions = [*tried, {"action": "run runbook redis-restart", "result": "succeeded"}]
        return m.model_copy(update={"resolution": m.resolution.model_copy(
            update={"actions": tuple(Resolution.model_validate({"actions": actions}).actions)})})

    assessment, _, change = _triage([padded(f"inc-{i}", 10 + i) for i in range(5)], _ctx())
    assert len(change.patch["matches"]) == 5
    for match in change.patch["matches"]:
        assert len(match["actions"]) == ACTIONS_SHOWN and match["actionsLeftOut"] == 64 - ACTIONS_SHOWN
        assert match["actions"][-1] == {"action": "run runbook redis-restart", "result": "succeeded"}
        assert all(len(a["action"]) <= NOTE_SHOWN for a in match["actions"])
    assert len(repr(change.patch)) < 64 * 1024
    # An outcome of a few actions is repeated whole, and says nothing left out.
    _, _, plain = _triage([_memory("inc-1", 30)], _ctx())
    assert plain.patch["matches"][0]["actionsLeftOut"] is None
    assert plain.patch["matches"][0]["actions"] == [{"action": "run runbook redis-restart", "result": "succeeded"}]
