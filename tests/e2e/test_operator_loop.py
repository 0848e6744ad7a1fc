"""The operator loop on a real API server: Incident -> gated recommendation; outcome -> memory.

Each test runs the operator (Kopf, the project's handlers, embedded memory)
against its own namespace and drives it only through the API, as people and
GitOps would: kubectl apply, kubectl patch.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from recall_operator_dev.demo import (
    apply, history_steps, import_outcome, imported_execution, load_history, read_history, wait_for,
)
from recall_operator.replay import run_replay
from support import history

pytestmark = pytest.mark.integration

# Generous: these wait for the operator, never measure it.
DEADLINE_S = 120.0
REPO = Path(__file__).resolve().parents[2]


def dev_history() -> Path:
    """The dev replay history the repository carries."""
    return history("dev")


def until(what: str, check: Callable[[], Any]) -> Any:
    return wait_for(what, check, timeout=DEADLINE_S)


def _conditions(status: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["type"]: c for c in status.get("conditions") or []}


def _catalog_steps() -> list[Any]:
    steps, _ = history_steps(read_history(dev_history()), stop_before="inc-0001")
    assert steps and all(s.kind == "apply" for s in steps)
    return steps


def _create_and_time(kubectl: Any, namespace: str, manifest: dict[str, Any], get_status: Any) -> tuple[dict[str, Any], float]:
    started = time.monotonic()
    apply(kubectl, namespace, manifest)
    name = manifest["metadata"]["name"]
    status = until(
        f"a recommendation on {name}",
        lambda: (s := get_status(name)).get("recommendation", {}).get("mode") and s,
    )
    elapsed = time.monotonic() - started
    # KopfRunner captures sys.stdout while the operator runs; the measurement goes to the real stderr.
    sys.__stderr__.write(f"\n{name}: create -> recommendation in status: {elapsed:.2f} s\n")
    return status, elapsed


def test_cold_incident_is_novel_with_read_only_steps(operator: Any, kubectl: Any, namespace: str, get_status: Any,
                                                     record_property: Any) -> None:
    load_history(kubectl, namespace, _catalog_steps())
    _, first = history_steps(read_history(dev_history()), stop_before="inc-0001")
    assert first is not None
    status, elapsed = _create_and_time(kubectl, namespace, first, get_status)
    record_property("create_to_recommendation_s", round(elapsed, 2))

    rec = status["recommendation"]
    assert rec["mode"] == "novel"
    assert rec["actionability"] == 0
    assert status["matches"] == []
    assert rec.get("steps"), "a catalog runbook fits inc-0001, so its dry-run steps are offered"
    assert rec["readOnly"] is True
    for step in rec["steps"]:
        assert step["command"] == step["dryRunCommand"]
        assert step["rollbackCommand"] == []
    assert len(status["dna"]) == 8 and all(d["reason"] for d in status["dna"].values())
    cond = _conditions(status)
    assert cond["Triaged"]["status"] == "True" and cond["Triaged"]["reason"] == "Novel"
    assert cond["AwaitingApproval"]["status"] == "False"
    assert cond["MemoryAvailable"]["status"] == "True"
    assert status["observedGeneration"] == 1

    # The answer is one Event on the incident, naming each condition transition.
    def said() -> dict[str, str]:
        proc = kubectl("get", "events", "-n", namespace, "--field-selector", "involvedObject.name=inc-0001", "-o", "json")
        return {e["reason"]: e["message"] for e in json.loads(proc.stdout)["items"]} if proc.returncode == 0 else {}

    answer = until("the Triaged event", lambda: said().get("Novel"))
    assert "Triaged=True (Novel)" in answer and "MemoryAvailable=True (Recalled)" in answer, answer
    assert "AwaitingApproval=False (NotActionable)" in answer, answer


def _replay_row(name: str) -> Any:
    """What `recall replay` recommends for `name` on the same history: the operator must agree."""
    result = asyncio.run(run_replay(dev_history(), ["on"]))
    return next(r for r in result["_rows"] if r.incident == name).assessment.recommendation


def test_recurrence_is_recalled_its_outcome_counted_and_a_clear_one_is_actionable(
    operator: Any, kubectl: Any, namespace: str, get_status: Any, get_json: Any, record_property: Any
) -> None:
    events = read_history(dev_history())
    steps, clear = history_steps(events, stop_before="inc-0046")
    assert clear is not None
    at = next(i for i, s in enumerate(steps) if s.manifest["metadata"]["name"] == "inc-0022")
    assert sum(s.kind == "incident" for s in steps[:at]) >= 20
    load_history(kubectl, namespace, steps[:at])

    before = get_json("runbook", "k8s-rollback-deploy").get("status") or {}
    assert before.get("timesExecuted", 0) >= 4, "the history's rollbacks were counted on consolidation"

    # A POOL-like page (DB pool timeouts after a rollout), its outcome not yet known.
    pool = json.loads(json.dumps(steps[at].manifest))
    outcome = pool["spec"].pop("resolution")
    status, elapsed = _create_and_time(kubectl, namespace, pool, get_status)
    record_property("create_to_recommendation_s", round(elapsed, 2))
    rec = status["recommendation"]
    assert status["matches"], "precedents were recalled"
    assert all(m["breakdown"] and m["outcome"] for m in status["matches"])
    assert {"inc-0001", "inc-0008", "inc-0009"} & {m["incident"] for m in status["matches"][:3]}
    assert rec["runbook"] == "k8s-rollback-deploy"
    # The operator and the replay run the same decision chain on the same knowledge.
    replayed = _replay_row("inc-0022")
    assert (rec["mode"], rec["runbook"], rec["similarity"], rec["actionability"]) == (
        replayed.mode, replayed.runbook, replayed.similarity, replayed.actionability
    )

    table = kubectl("get", "incidents", "-n", namespace, "inc-0022", check=True).stdout.splitlines()
    # Cells by the header's column offsets: a blank cell (a phase not written yet) shifts nothing.
    starts = [m.start() for m in re.finditer(r"\S+", table[0])] + [None]
    row = {table[0][a:b].strip(): table[1][a:b].strip() for a, b in zip(starts, starts[1:], strict=False)}
    assert ["NAME", "PHASE", "SERVICE", "SEVERITY", "MODE", "SIMILARITY", "ACTIONABILITY", "RUNBOOK"] == list(row)[:8]
    assert (row["MODE"], row["SIMILARITY"], row["ACTIONABILITY"]) == (
        rec["mode"], str(rec["similarity"]), str(rec["actionability"])
    )
    assert row["RUNBOOK"] == "k8s-rollback-deploy"

    # A person records the outcome: it is consolidated once, and the runbook's record moves, because
    # status.execution records the rollback as run here (written as the history's record of it).
    kubectl("patch", "incident", "inc-0022", "-n", namespace, "--subresource=status", "--type=merge",
            "-p", json.dumps({"status": {"execution": imported_execution(outcome)}}), check=True)
    kubectl("patch", "incident", "inc-0022", "-n", namespace, "--type=merge",
            "-p", json.dumps({"spec": {"resolution": outcome}}), check=True)
    resolved = until("Resolved=True", lambda: _conditions(get_status("inc-0022")).get("Resolved", {}).get("status") == "True"
                     and get_status("inc-0022"))
    assert resolved["memory"]["consolidated"]
    assert "outbox" not in resolved["memory"]
    after = until(
        "the runbook's record to count inc-0022",
        lambda: (s := get_json("runbook", "k8s-rollback-deploy").get("status") or {}).get("timesExecuted", 0)
        > before["timesExecuted"] and s,
    )
    assert after["timesExecuted"] == before["timesExecuted"] + 1
    assert after["timesSucceeded"] == before["timesSucceeded"] + 1
    assert after["winRate"] > before["winRate"]
    assert after["lastOutcome"]["incident"] == f"{namespace}/inc-0022"
    # The recommendation made before the outcome stays: the operator never rewrites it, nor spec.
    body = json.loads(kubectl("get", "incident", "inc-0022", "-n", namespace, "-o", "json", check=True).stdout)
    assert body["spec"]["resolution"]["runbook"] == outcome["runbook"]
    assert body["status"]["recommendation"] == rec

    # inc-0022 gives no CURRENT_REVISION, which the rollback's own undo needs: never actionable.
    assert rec["mode"] == "advisory" and any("needs CURRENT_REVISION" in w for w in rec["warnings"]), rec

    # More history, then a clear recurrence of the rollback case that gives the revision to go back to:
    # actionable, with a plan to approve (its dry-run Jobs run as the executor account, made here as the
    # chart makes it).
    load_history(kubectl, namespace, steps[at + 1:])
    kubectl("create", "serviceaccount", "recall-runbook-executor", "-n", namespace, check=True)
    clear = json.loads(json.dumps(clear))
    clear["spec"]["parameters"] = {"CURRENT_REVISION": "41"}
    status, _ = _create_and_time(kubectl, namespace, clear, get_status)
    rec = status["recommendation"]
    assert rec["mode"] == "actionable", rec
    assert rec["runbook"] == "k8s-rollback-deploy"
    assert re.fullmatch(r"[0-9a-f]{16}", rec["planHash"])
    assert rec["readOnly"] is False and any("undo" in " ".join(s["command"]) for s in rec["steps"])
    assert {"inc-0001", "inc-0022"} & {m["incident"] for m in status["matches"][:3]}
    assert _conditions(status)["AwaitingApproval"]["status"] == "True"

    # Where each incident is, at a glance: the history is Resolved and needs nothing; the clear
    # recurrence is dry-run, then waits for its Approval, and Ready says for which plan.
    history_one = until("a history incident Resolved and Ready", lambda: (
        (s := get_status("inc-0001")).get("phase") == "Resolved"
        and _conditions(s).get("Ready", {}).get("status") == "True" and s))
    assert _conditions(history_one)["Ready"]["reason"] == "Resolved"
    assert until("inc-0022 Resolved", lambda: get_status("inc-0022").get("phase") == "Resolved")
    name = clear["metadata"]["name"]
    waiting = until(f"{name} awaiting approval", lambda: (
        (s := get_status(name)).get("phase") == "AwaitingApproval" and s.get("dryRun", {}).get("done") and s))
    conditions = _conditions(waiting)
    assert conditions["Ready"]["status"] == "False" and rec["planHash"] in conditions["Ready"]["message"]
    # Writers each with its own field manager, none removing what another wrote. Triage's
    # answer already carries AwaitingApproval; the lifecycle writer writes only when it sees
    # the phase move (DryRun while the dry-run runs), which a dry-run done before its event
    # is handled never shows it, so its manager may or may not be there.
    assert {"Triaged", "AwaitingApproval", "MemoryAvailable", "Ready"} <= set(conditions)
    body = json.loads(kubectl("get", "incident", name, "-n", namespace, "-o", "json",
                              "--show-managed-fields", check=True).stdout)
    managers = {m["manager"] for m in body["metadata"]["managedFields"] if m.get("subresource") == "status"
                and m.get("operation") == "Apply"}
    assert {"recall-triage", "recall-execution"} <= managers <= {
        "recall-triage", "recall-execution", "recall-lifecycle"}, managers


DISK = {
    "service": "search-index", "severity": "high",
    "title": "search-index data nodes past the flood-stage watermark, indices read-only",
    "description": "disk on two data nodes passed 95%; writes to every index with a shard there are blocked",
    "symptoms": ["disk-full", "read-only-index", "ingest-stalled"],
}


def _runbook(name: str, title: str, symptoms: list[str], command: list[str]) -> dict[str, Any]:
    return {"apiVersion": "recall.dev/v1alpha1", "kind": "Runbook", "metadata": {"name": name},
            "spec": {"title": title, "services": ["search-index"], "symptoms": symptoms,
                     "steps": [{"name": "act", "image": "curlimages/curl:8.6.0", "command": command}]}}


def _watermarks_fixed(kubectl: Any, namespace: str, incident: str) -> dict[str, Any]:
    """The search-raise-watermarks Runbook, and a DISK incident it was seen to fix (imported with its run)."""
    rb = _runbook("search-raise-watermarks", "raise the disk watermarks", ["disk-full", "read-only-index"],
                  ["curl", "-XPUT", "http://search/_cluster"])
    apply(kubectl, namespace, rb)
    import_outcome(kubectl, namespace, {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident",
                                        "metadata": {"name": incident}, "spec": DISK}, {
        "rootCause": "a tenant's backfill filled two data nodes", "summary": "raised the watermarks; writes resumed",
        "runbook": "search-raise-watermarks", "confirmedBy": "oncall-a",
        "actions": [{"action": "run runbook search-raise-watermarks", "result": "succeeded"}]})
    return rb


def test_a_runbook_written_after_memory_s_fix_worked_is_shown_for_the_next_one(
    operator: Any, kubectl: Any, namespace: str, get_status: Any, get_json: Any
) -> None:
    _watermarks_fixed(kubectl, namespace, "disk-1")
    first = {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "metadata": {"name": "disk-1"}, "spec": DISK}
    remembered = until("disk-1 in memory", lambda: (m := get_status("disk-1").get("memory") or {}).get("consolidated")
                       and m)
    # creationTimestamp counts whole seconds: the new runbook comes in a later second than the memory.
    written = datetime.fromisoformat(remembered["writtenAt"])
    wait_for("the next second", lambda: datetime.now(UTC) >= written.replace(microsecond=0) + timedelta(seconds=1),
             timeout=5)
    apply(kubectl, namespace, _runbook("search-delete-expired-indices", "delete indices past their retention",
                                       ["disk-full", "read-only-index", "ingest-stalled"],
                                       ["curl", "-XDELETE", "http://search/expired-*"]))
    created = get_json("runbook", "search-delete-expired-indices")["metadata"]["creationTimestamp"]
    assert datetime.fromisoformat(created.replace("Z", "+00:00")) > written

    status, _ = _create_and_time(kubectl, namespace, {**first, "metadata": {"name": "disk-2"}}, get_status)
    rec = status["recommendation"]
    assert status["matches"][0]["incident"] == "disk-1"
    assert (rec["mode"], rec["runbook"], rec["source"]) == ("advisory", "search-delete-expired-indices", "catalog"), rec
    assert any("was written after memory's fix, runbook search-raise-watermarks, last worked (disk-1" in r
               for r in rec["reasons"]), rec["reasons"]


def test_a_correction_of_an_incident_the_record_has_forgotten_is_not_counted_again(
    operator: Any, kubectl: Any, namespace: str, get_status: Any, get_json: Any, memory_path: Path
) -> None:
    from recall_operator.memory.embedded import EmbeddedMemory

    async def held() -> Any:
        store = EmbeddedMemory(memory_path)
        try:
            found = await store.get("disk-old", namespace)
            assert found is not None
            return found
        finally:
            await store.close()

    _watermarks_fixed(kubectl, namespace, "disk-old")
    first = until("disk-old in memory", lambda: get_status("disk-old").get("memory", {}).get("consolidated"))
    when = asyncio.run(held()).resolved_at
    counted = until("disk-old counted", lambda: (s := get_json("runbook", "search-raise-watermarks").get("status")
                                                  or {}).get("timesExecuted") == 1 and s)
    # The record names the incidents it counted only in a window: 200 outcomes later, disk-old has left it.
    kubectl("patch", "runbook", "search-raise-watermarks", "-n", namespace, "--subresource=status", "--type=merge",
            "-p", json.dumps({"status": {"countedIncidents": []}}), check=True)
    kubectl("patch", "incident", "disk-old", "-n", namespace, "--type=merge", "-p", json.dumps({"spec": {
        "corrections": [{"reason": "the watermarks were raised twice", "summary": "raised the watermarks twice",
                         "rootCause": "snapshots filled the data disks",
                         "runbook": "search-raise-watermarks", "confirmedBy": "oncall-b",
                         "actions": [{"action": "run runbook search-raise-watermarks", "result": "succeeded"}]}]}}),
            check=True)
    until("the correction in memory", lambda: (c := get_status("disk-old").get("memory", {}).get("consolidated"))
          and c != first)
    after = get_json("runbook", "search-raise-watermarks").get("status") or {}
    assert (after["timesExecuted"], after["timesSucceeded"]) == (counted["timesExecuted"], counted["timesSucceeded"])
    # Memory holds the correction, resolved when the incident was: dated anew, a fix from before a migration
    # read as one from after it. And caused as first confirmed: a contradiction's sides are read from that.
    corrected = asyncio.run(held())
    assert corrected.resolved_at == when
    assert corrected.resolution.root_cause == "snapshots filled the data disks"
    assert corrected.first_cause == "a tenant's backfill filled two data nodes"


def test_a_runbook_whose_steps_changed_is_not_vouched_for_by_the_record_of_its_old_steps(
    operator: Any, kubectl: Any, namespace: str, get_status: Any, get_json: Any
) -> None:
    rb = _watermarks_fixed(kubectl, namespace, "disk-a")
    until("disk-a counted", lambda: (get_json("runbook", "search-raise-watermarks").get("status") or {}).get(
        "timesSucceeded") == 1)

    def win_rate_said(name: str) -> str:
        apply(kubectl, namespace, {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident",
                                   "metadata": {"name": name}, "spec": DISK})
        rec = until(f"{name} answered", lambda: get_status(name).get("recommendation"))
        return next(r for r in rec["reasons"] if r.startswith("win rate of search-raise-watermarks"))

    assert win_rate_said("disk-b") == "win rate of search-raise-watermarks is 0.67 (smoothed)"
    # The same name, other commands: the success was earned by the old ones.
    rb["spec"]["steps"][0]["command"] = ["curl", "-XDELETE", "http://search/closed-*"]
    apply(kubectl, namespace, rb)
    until("the catalog to hold the new steps", lambda: get_json("runbook", "search-raise-watermarks")["metadata"][
        "generation"] == 2)
    tries = iter(range(1, 100))
    said = until("a new incident to read the new steps' record", lambda: (
        w := win_rate_said(f"disk-c{next(tries)}")).endswith("0.50 (smoothed)") and w)
    assert said == "win rate of search-raise-watermarks is 0.50 (smoothed)"


def test_a_runbook_made_again_gets_back_the_record_memory_holds(
    operator: Any, kubectl: Any, namespace: str, get_status: Any, get_json: Any
) -> None:
    raise_watermarks = _runbook("search-raise-watermarks", "raise the disk watermarks",
                                ["disk-full", "read-only-index"], ["curl", "-XPUT", "http://search/_cluster"])
    apply(kubectl, namespace, raise_watermarks)
    page = {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "spec": DISK}
    outcomes = {
        "disk-1": {"rootCause": "a backfill filled two data nodes", "summary": "raised the watermarks",
                   "runbook": "search-raise-watermarks", "confirmedBy": "oncall-a",
                   "actions": [{"action": "run runbook search-raise-watermarks", "result": "succeeded"}]},
        "disk-2": {"rootCause": "snapshots kept on the data disks", "summary": "the watermarks did not help; deleted"
                   " the snapshots by hand", "confirmedBy": "oncall-b",
                   "actions": [{"action": "run runbook search-raise-watermarks", "result": "failed"},
                               {"action": "delete old snapshots", "result": "succeeded"}]},
    }
    for name, outcome in outcomes.items():
        import_outcome(kubectl, namespace, {**page, "metadata": {"name": name}}, outcome)
        until(f"{name} in memory", lambda n=name: (get_status(n).get("memory") or {}).get("consolidated"))
    record = until("both outcomes counted", lambda: (s := get_json("runbook", "search-raise-watermarks")
                                                     .get("status") or {}).get("timesExecuted") == 2 and s)
    assert (record["timesSucceeded"], record["timesFailed"]) == (1, 1)
    # Memory was asked when the object was new, and held nothing of it then.
    assert record["countedFromMemory"]["counted"] is False

    # GitOps prunes the Runbook and applies it again (a replace sync, a rename undone): a new object.
    uid = get_json("runbook", "search-raise-watermarks")["metadata"]["uid"]
    kubectl("delete", "runbook", "search-raise-watermarks", "-n", namespace, "--wait=true", check=True)
    apply(kubectl, namespace, raise_watermarks)
    again = until("the record counted from memory",
                  lambda: (o := get_json("runbook", "search-raise-watermarks")).get("status", {})
                  .get("countedFromMemory", {}).get("counted") and o)
    assert again["metadata"]["uid"] != uid
    status = again["status"]
    keys = ("timesExecuted", "timesSucceeded", "timesFailed", "winRate")
    assert {k: status[k] for k in keys} == {k: record[k] for k in keys}
    assert sorted(status["countedIncidents"]) == sorted(record["countedIncidents"])
    assert status["countedFromMemory"]["outcomes"] == 2
    # `kubectl describe runbook` says so.
    def said() -> dict[str, str]:
        proc = kubectl("get", "events", "-n", namespace, "--field-selector",
                       f"involvedObject.uid={again['metadata']['uid']}", "-o", "json", check=True)
        return {e["reason"]: e["message"] for e in json.loads(proc.stdout)["items"]}

    counted = until("the CountedFromMemory event", lambda: said().get("CountedFromMemory"))
    assert "2 outcomes (1 succeeded, 1 failed), win rate 0.5" in counted, counted

    # The next outcome counts on top of it, once.
    import_outcome(kubectl, namespace, {**page, "metadata": {"name": "disk-3"}}, outcomes["disk-1"])
    after = until("the third outcome counted", lambda: (s := get_json("runbook", "search-raise-watermarks")
                                                        .get("status") or {}).get("timesExecuted", 0) >= 3 and s)
    assert (after["timesExecuted"], after["timesSucceeded"], after["timesFailed"]) == (3, 2, 1)

    # Made anew with other commands: the runs memory holds were runs of the old steps, and vouch for nothing.
    kubectl("delete", "runbook", "search-raise-watermarks", "-n", namespace, "--wait=true", check=True)
    raise_watermarks["spec"]["steps"][0]["command"] = ["curl", "-XDELETE", "http://search/closed-*"]
    apply(kubectl, namespace, raise_watermarks)
    other = until("memory asked for the new object's record",
                  lambda: (o := get_json("runbook", "search-raise-watermarks")).get("status", {})
                  .get("countedFromMemory") and o)
    assert other["metadata"]["uid"] != again["metadata"]["uid"]
    # disk-1's and disk-3's successes and disk-2's failure were all runs of the old steps (the history's record
    # of disk-2 is its failed run): none is the new steps' record.
    assert other["status"].get("timesExecuted", 0) == 0, other["status"]
    assert not other["status"].get("countedIncidents"), other["status"]
    assert other["status"]["countedFromMemory"]["outcomes"] == 0  # memory was asked, and holds none of them


def test_an_alert_that_fires_again_after_its_outcome_is_recalled_by_its_new_incident(
    operator: Any, kubectl: Any, namespace: str, get_status: Any, k8s_api: Any
) -> None:
    from recall_operator.bridge.alertmanager import alert_to_incident
    from recall_operator.bridge.server import IncidentWriter

    def firing(start: str) -> Any:
        alert = {"status": "firing", "fingerprint": "5eed0fa11ed",
                 "labels": {"alertname": "SearchIndexReadOnly", "service": "search-index", "severity": "critical"},
                 "annotations": {"summary": DISK["title"], "description": DISK["description"],
                                 "symptoms": ",".join(DISK["symptoms"])},
                 "startsAt": start}
        item = alert_to_incident(alert, namespace=namespace, received_at=datetime.now(UTC))
        assert not isinstance(item, str), item
        return item

    async def write(item: Any) -> Any:
        writer = IncidentWriter(k8s_api, namespace, workers=1)
        try:
            return await writer.write(item)
        finally:
            writer.close()

    first = asyncio.run(write(firing("2026-02-01T03:00:00Z")))
    until(f"{first.name} triaged", lambda: get_status(first.name).get("recommendation"))
    kubectl("patch", "incident", first.name, "-n", namespace, "--type=merge", "-p", json.dumps(
        {"spec": {"resolution": {"rootCause": "a backfill filled two data nodes", "confirmedBy": "oncall-a",
                                 "summary": "raised the watermarks, then moved the backfill off the hot nodes"}}}),
            check=True)
    until(f"{first.name} in memory", lambda: (get_status(first.name).get("memory") or {}).get("consolidated"))

    again = asyncio.run(write(firing("2026-02-09T04:30:00Z")))
    assert (again.outcome, again.name) == ("created", f"{first.name}-20260209043000")
    status = until(f"{again.name} triaged", lambda: (s := get_status(again.name)).get("recommendation") and s)
    # The closed firing is the precedent: memory answers the alert's recurrence.
    assert status["matches"][0]["incident"] == first.name, status["matches"]
    assert status["recommendation"]["mode"] != "novel", status["recommendation"]


def test_an_alert_without_a_symptoms_annotation_is_read_for_the_tags_its_words_say(
    operator: Any, kubectl: Any, namespace: str, get_status: Any, get_json: Any, k8s_api: Any
) -> None:
    """Most alert rules carry no `symptoms` annotation: the page is still offered the runbook its words name."""
    from recall_operator.bridge.alertmanager import alert_to_incident
    from recall_operator.bridge.server import IncidentWriter

    apply(kubectl, namespace, _runbook("search-raise-watermarks", "raise the disk watermarks",
                                       ["disk-full", "read-only-index"], ["curl", "-XPUT", "http://search/_cluster"]))
    alert = {"status": "firing", "fingerprint": "d15cf0111",
             "labels": {"alertname": "SearchIndexDiskFull", "service": "search-index", "severity": "critical"},
             "annotations": {"description": "disk 96% on two data nodes"},
             "startsAt": "2026-02-01T03:00:00Z"}
    item = alert_to_incident(alert, namespace=namespace, received_at=datetime.now(UTC))
    assert not isinstance(item, str), item
    assert "symptoms" not in item.manifest["spec"]  # the bridge invents none

    async def write() -> Any:
        writer = IncidentWriter(k8s_api, namespace, workers=1)
        try:
            return await writer.write(item)
        finally:
            writer.close()

    page = asyncio.run(write())
    rec = until(f"{page.name} triaged", lambda: get_status(page.name).get("recommendation"))
    assert rec["reasons"][0] == "declares no symptoms; its words say disk-full", rec["reasons"]
    assert rec["runbook"] == "search-raise-watermarks", rec
    # what the alert said stays as it said it: the tags read are the decision's, not the report's
    assert "symptoms" not in get_json("incident", page.name)["spec"]


def test_a_catalog_of_runbooks_without_services_or_tags_is_still_offered_by_what_they_say(
    operator: Any, kubectl: Any, namespace: str, get_status: Any
) -> None:
    """Both fields are optional: a GitOps repository may hold generic runbooks that list neither.

    Each one's Accepted condition says how the catalog will offer it, and a new
    incident with nothing in memory is offered the one whose words match it.
    """
    for step in _catalog_steps():
        manifest = json.loads(json.dumps(step.manifest))
        if manifest["kind"] == "Runbook":
            manifest["spec"].pop("services", None)
            manifest["spec"].pop("symptoms", None)
        apply(kubectl, namespace, manifest)
    accepted = until("the migration runbook accepted", lambda: next(
        (c for c in json.loads(kubectl("get", "runbook", "orders-db-batched-migration", "-n", namespace, "-o", "json",
                                       check=True).stdout).get("status", {}).get("conditions") or []
         if c["type"] == "Accepted"), None))
    assert accepted["status"] == "True", accepted
    assert "for no service: it may be offered for an incident on any service" in accepted["message"], accepted
    assert "it declares no symptoms, so the catalog offers it where its title" in accepted["message"], accepted

    _, page = history_steps(read_history(dev_history()), stop_before="inc-0004")
    assert page is not None
    apply(kubectl, namespace, page)
    rec = until("inc-0004 triaged", lambda: get_status("inc-0004").get("recommendation"))
    assert (rec["mode"], rec["runbook"], rec["readOnly"]) == ("novel", "orders-db-batched-migration", True), rec
    offer = next(r for r in rec["reasons"] if "catalog runbook orders-db-batched-migration fits" in r)
    assert "lists no service, so it may apply anywhere" in offer, offer
    assert "declares no symptoms, and its own words match this incident's" in offer, offer


def test_an_incident_name_used_again_does_not_replace_the_memory_of_the_first(
    operator: Any, kubectl: Any, namespace: str, get_status: Any, memory_path: Path
) -> None:
    from recall_operator.memory.embedded import EmbeddedMemory

    def page(description: str) -> dict[str, Any]:
        return {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "metadata": {"name": "disk-9"},
                "spec": {**DISK, "description": description}}

    def resolve(summary: str) -> dict[str, Any]:
        until("disk-9 triaged", lambda: get_status("disk-9").get("recommendation"))
        kubectl("patch", "incident", "disk-9", "-n", namespace, "--type=merge", "-p", json.dumps(
            {"spec": {"resolution": {"summary": summary, "confirmedBy": "oncall-a"}}}), check=True)
        return until("disk-9's outcome settled",  # type: ignore[no-any-return]
                     lambda: (s := get_status("disk-9")).get("memory", {}).get("key")
                     and (s["memory"].get("consolidated") or s["memory"].get("refused")) and s)

    def remembered() -> Any:
        store = EmbeddedMemory(memory_path)
        try:
            return asyncio.run(store.get("disk-9", namespace))
        finally:
            asyncio.run(store.close())

    first = page("disk on two data nodes passed 95%")
    apply(kubectl, namespace, first)
    assert resolve("raised the watermarks")["memory"]["consolidated"]
    assert remembered().resolution.summary == "raised the watermarks"

    # Deleted (a clean-up), and the name used again for another failure.
    kubectl("delete", "incident", "disk-9", "-n", namespace, "--wait=true", check=True)
    apply(kubectl, namespace, page("snapshots filled the data disks"))
    # The first disk-9's memory is this one's precedent, said to be an earlier incident of the name.
    triaged = until("the second disk-9 triaged", lambda: (s := get_status("disk-9")).get("recommendation") and s)
    assert "disk-9" in [m["incident"] for m in triaged["matches"]], triaged["matches"]
    assert any("earlier incident of this name" in w for w in triaged["recommendation"]["warnings"] or []), \
        triaged["recommendation"]
    refused = resolve("deleted the snapshots")
    assert refused["memory"]["refused"] and "another incident named disk-9" in refused["memory"]["refused"]
    settled = _conditions(refused)["Resolved"]
    assert (settled["status"], settled["reason"]) == ("False", "NameTaken"), settled
    assert remembered().resolution.summary == "raised the watermarks", "the first outcome is still memory's"

    # The first incident applied again as it was (a sync re-creating it): its own place, written.
    kubectl("delete", "incident", "disk-9", "-n", namespace, "--wait=true", check=True)
    apply(kubectl, namespace, first)
    assert resolve("raised the watermarks")["memory"]["consolidated"]


def test_after_the_redis_migration_the_vm_restart_is_stale(
    operator: Any, kubectl: Any, namespace: str, get_status: Any
) -> None:
    steps, new = history_steps(read_history(dev_history()), stop_before="inc-0042")
    assert any(s.manifest["kind"] == "ArchitectureMigration" for s in steps)
    load_history(kubectl, namespace, steps)
    status, _ = _create_and_time(kubectl, namespace, new, get_status)
    rec = status["recommendation"]
    assert not (rec["mode"] == "actionable" and rec["runbook"] == "redis-restart-vm"), rec
    assert rec["runbook"] != "redis-restart-vm"
    stale = {m["incident"]: m["stale"] for m in status["matches"] if m.get("stale")}
    assert {"inc-0002", "inc-0014", "inc-0029"} & set(stale), status["matches"]
    for s in stale.values():
        assert s["migration"] == "redis-cluster-to-elasticache"
        assert s["oldArch"] and s["newArch"] and s["deduction"] > 0


def test_odd_incidents_do_not_stop_the_operator(operator: Any, kubectl: Any, namespace: str, get_status: Any) -> None:
    load_history(kubectl, namespace, _catalog_steps())
    odd = {
        "apiVersion": "recall.dev/v1alpha1",
        "kind": "Incident",
        "metadata": {"name": "odd-1"},
        "spec": {"service": "not-in-the-topology", "title": "?"},
    }
    status, _ = _create_and_time(kubectl, namespace, odd, get_status)
    assert status["recommendation"]["mode"] == "novel"
    assert status["dna"]["serviceDepth"]["reason"].endswith("is not in the topology")
    # An outcome with nothing in it says nothing: the API server refuses it (it would be an empty memory).
    empty = kubectl("patch", "incident", "odd-1", "-n", namespace, "--type=merge",
                    "-p", json.dumps({"spec": {"resolution": {}}}))
    assert empty.returncode != 0 and "an outcome needs at least a summary or an action" in empty.stderr, empty.stderr
    # The least an outcome can be: a summary. Remembered, nothing counted.
    kubectl("patch", "incident", "odd-1", "-n", namespace, "--type=merge",
            "-p", json.dumps({"spec": {"resolution": {"summary": "went away by itself"}}}), check=True)
    until("odd-1 resolved", lambda: _conditions(get_status("odd-1")).get("Resolved", {}).get("status") == "True")
    # And the operator is still there for the next one.
    normal = {**odd, "metadata": {"name": "after-odd"},
              "spec": {"service": "checkout-api", "title": "checkout-api 5xx", "symptoms": ["5xx"]}}
    status, _ = _create_and_time(kubectl, namespace, normal, get_status)
    assert status["recommendation"]["mode"] in ("novel", "advisory", "actionable")


@pytest.mark.parametrize("memory_path", ["not-created-yet"], indirect=True)
def test_memory_down_degrades_triage_and_keeps_outcomes_in_the_outbox(
    operator: Any, kubectl: Any, namespace: str, get_status: Any, get_json: Any, memory_path: Path
) -> None:
    # The memory file's folder does not exist: the store really cannot be opened.
    assert not memory_path.parent.exists()
    load_history(kubectl, namespace, _catalog_steps())
    _, first = history_steps(read_history(dev_history()), stop_before="inc-0001")
    assert first is not None
    status, _ = _create_and_time(kubectl, namespace, first, get_status)
    assert status["recommendation"]["mode"] == "novel"
    down = _conditions(status)["MemoryAvailable"]
    assert down["status"] == "False" and down["reason"] == "MemoryUnavailable"
    assert "cannot open memory file" in down["message"]

    outcome = next(e["resolution"] for e in read_history(dev_history()) if e["type"] == "outcome")
    # The history's record of the run, as an operator that ran it would have it: the outcome counts.
    kubectl("patch", "incident", "inc-0001", "-n", namespace, "--subresource=status", "--type=merge",
            "-p", json.dumps({"status": {"execution": imported_execution(outcome)}}), check=True)
    kubectl("patch", "incident", "inc-0001", "-n", namespace, "--type=merge",
            "-p", json.dumps({"spec": {"resolution": outcome}}), check=True)
    pending = until("the outcome to wait in the outbox",
                    lambda: (s := get_status("inc-0001")).get("memory", {}).get("outbox") == "pending" and s)
    assert _conditions(pending)["Resolved"]["status"] == "False"
    assert (get_json("runbook", "k8s-rollback-deploy").get("status") or {}).get("timesExecuted", 0) == 0

    # Memory comes back: the re-evaluation loop delivers the outcome, once.
    memory_path.parent.mkdir(parents=True)
    done = until("the outbox to be delivered",
                 lambda: _conditions(s := get_status("inc-0001")).get("Resolved", {}).get("status") == "True" and s)
    assert "outbox" not in done["memory"] and done["memory"]["consolidated"]
    assert _conditions(done)["MemoryAvailable"]["status"] == "True"

    # The loop runs outside Kopf's handlers, and still reports its transitions as an Event.
    def said() -> dict[str, str]:
        proc = kubectl("get", "events", "-n", namespace, "--field-selector", "involvedObject.name=inc-0001", "-o", "json")
        return {e["reason"]: e["message"] for e in json.loads(proc.stdout)["items"]} if proc.returncode == 0 else {}

    remembered = until("the loop's Remembered event", lambda: said().get("Remembered"))
    assert "Resolved=True (Consolidated)" in remembered, remembered
    counted = until("the runbook count",
                    lambda: (get_json("runbook", "k8s-rollback-deploy").get("status") or {}).get("timesExecuted"))
    assert counted == 1
