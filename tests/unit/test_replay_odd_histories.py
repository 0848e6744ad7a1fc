"""`recall replay` over random histories the format allows: every incident answered, the same twice, never a crash.

The histories it is scored on come from platforms this project never saw:
runbooks edited under a memory, migrations naming runbooks that never
existed, contradictions naming incidents not yet resolved, topologies with
cycles, corrections of corrections, CamelCase alert pages with no symptoms.
Each is valid by docs/replay-format.md, so a replay of it must give a row per
incident and per side, not an error.
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recall_operator.replay import run_replay

SERVICES = ["checkout-api", "orders-db", "edge-proxy", "cart-cache"]
SYMPTOMS = ["latency-spike", "5xx", "oom-kill", "consumer-lag", "disk-full", "devices-offline"]
RUNBOOKS = ["rb-rollback", "rb-scale-out", "rb-flush"]
WORDS = ["pool", "timeout", "KafkaConsumerLagHigh", "oom", "restart", "p99", "no", "not", "rebalance",
         "max_poll_records", "deploy", "é", "502", "'No space left'", "x509",
         "half\ud800pair"]  # a lone surrogate escape: a cluster would hold U+FFFD
T0 = datetime(2025, 1, 1, tzinfo=UTC)

words = st.lists(st.sampled_from(WORDS), min_size=1, max_size=7).map(" ".join)


def _runbook(name: str, title: str, services: list[str], symptoms: list[str], param: str | None,
             steps: list[tuple[bool, bool, str]]) -> dict[str, Any]:
    spec: dict[str, Any] = {"title": title, "services": services, "symptoms": symptoms, "steps": [
        {"name": f"step-{i}", "image": "registry.example/tools:1",
         "command": ["act", "--on", "$(TARGET)"] if uses else ["act"],
         **({"dryRunCommand": ["check"]} if dry else {}), **({"rollbackCommand": ["undo"]} if dry else {}),
         "risk": risk}
        for i, (uses, dry, risk) in enumerate(steps)]}
    if param is not None:
        spec["parameters"] = {"TARGET": param or None}
    return {"type": "apply", "object": {"apiVersion": "recall.dev/v1alpha1", "kind": "Runbook",
                                        "metadata": {"name": name}, "spec": spec}}


runbooks = st.builds(
    _runbook, st.sampled_from(RUNBOOKS), words, st.lists(st.sampled_from(SERVICES), max_size=2, unique=True),
    st.lists(st.sampled_from(SYMPTOMS), max_size=3, unique=True), st.one_of(st.none(), st.just(""), st.just("orders")),
    st.lists(st.tuples(st.booleans(), st.booleans(), st.sampled_from(["low", "medium", "high", "critical"])),
         min_size=1, max_size=2),
)
migrations = st.builds(
    lambda target, days, impacted, keywords, deduction: {"type": "apply", "object": {
        "apiVersion": "recall.dev/v1alpha1", "kind": "ArchitectureMigration", "metadata": {"name": f"mig-{target}"},
        "spec": {"targetService": target, "migrationDate": (T0 + timedelta(days=days)).date().isoformat(),
                 "oldArch": "VMs", "newArch": "managed", "impactedRunbooks": impacted,
                 "impactedFixKeywords": keywords, "confidenceDeduction": deduction}}},
    st.sampled_from(SERVICES), st.integers(-30, 60), st.lists(st.sampled_from(RUNBOOKS + ["rb-never-written"]), max_size=2),
    st.lists(st.sampled_from(["restart", "flush cache"]), max_size=2), st.integers(0, 100),
)
topologies = st.dictionaries(
    st.sampled_from(SERVICES + ["ghost"]), st.lists(st.sampled_from(SERVICES + ["ghost"]), max_size=3), max_size=5,
).map(lambda graph: {"type": "apply", "object": {
    "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "topology"},
    "data": {"topology": json.dumps({s: {"dependsOn": d} for s, d in graph.items()})}}})
incident_specs = st.fixed_dictionaries(
    {"service": st.sampled_from(SERVICES), "title": words,
     "severity": st.sampled_from(["critical", "high", "medium", "low"])},
    optional={
        "description": words, "symptoms": st.lists(st.sampled_from(SYMPTOMS), max_size=3, unique=True),
        "errorSignatures": st.lists(words, max_size=2),
        "deployment": st.fixed_dictionaries({}, optional={
            "id": st.sampled_from(["helm-app-7.1.0", "firmware-campaign-12"]), "revision": words,
            "minutesSinceDeploy": st.integers(0, 2000)}),
        "labels": st.fixed_dictionaries({}, optional={
            "fingerprint": st.sampled_from(["aa01", "bb02"]), "alertname": st.sampled_from(["LagHigh", "Edge5xx"])}),
        "parameters": st.fixed_dictionaries({}, optional={"TARGET": st.sampled_from(["orders", ""])}),
    },
)
resolutions = st.fixed_dictionaries(
    {"confirmedBy": st.sampled_from(["oncall-a", "oncall-b"])},
    optional={
        "rootCause": words, "summary": words, "runbook": st.one_of(st.none(), st.sampled_from(RUNBOOKS + ["rb-gone"])),
        "actions": st.lists(st.fixed_dictionaries({
            "action": st.one_of(words, st.sampled_from(RUNBOOKS).map(lambda r: f"run runbook {r}")),
            "result": st.sampled_from(["succeeded", "failed", "partial"])}), max_size=3),
    },
)
# What happens next, drawn as a kind and its body; names and times are given in order below.
# The same failure again: an earlier incident's report, its title reworded or not (memory's real work).
recurrences = st.tuples(st.just("recurrence"), st.tuples(st.integers(0, 20), st.one_of(st.none(), words)))
# Incidents and outcomes are drawn three times as often as each other kind, so that memory has something to recall.
incident_steps, outcome_steps = st.tuples(st.just("incident"), incident_specs), st.tuples(st.just("outcome"), resolutions)
steps = st.lists(st.one_of(
    incident_steps, outcome_steps, incident_steps, outcome_steps, recurrences, outcome_steps,
    st.tuples(st.just("apply"), st.one_of(runbooks, migrations, topologies)),
    st.tuples(st.just("contradiction"), st.tuples(st.booleans(), words)),
), min_size=4, max_size=20)


def _history(drawn: list[tuple[str, Any]], gaps: list[int]) -> list[dict[str, Any]]:
    """The drawn steps as history lines: each outcome closes an earlier incident (or corrects a closed one)."""
    lines: list[dict[str, Any]] = []
    opened: list[str] = []
    reports: list[dict[str, Any]] = []
    for i, (kind, body) in enumerate(drawn):
        at = (T0 + timedelta(minutes=sum(gaps[: i + 1]))).strftime("%Y-%m-%dT%H:%M:%SZ")
        if kind == "recurrence" and reports:
            which, title = body
            kind, body = "incident", {**reports[which % len(reports)], **({"title": title} if title else {})}
        if kind == "incident":
            reports.append(body)
            name = f"inc-{len(opened):03d}"
            earlier = opened[-2:]
            lines.append({"at": at, "type": "incident", "object": {
                "apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "metadata": {"name": name},
                "spec": {**body, "startedAt": at}},
                "truth": {"precedents": earlier, "runbook": RUNBOOKS[i % 3] if i % 2 else None,
                          "novel": not earlier, "unsafeRunbooks": [RUNBOOKS[i % 3]]}})
            opened.append(name)
        elif kind == "outcome" and opened:
            lines.append({"at": at, "type": "outcome", "incident": opened[i % len(opened)], "resolution": body})
        elif kind == "apply":
            lines.append({"at": at, **body})
        elif kind == "contradiction":
            reconciled, note = body
            named = (opened + ["inc-never"])[-2:] if opened else ["inc-never", "inc-other"]
            lines.append({"at": at, "type": "apply", "object": {
                "apiVersion": "recall.dev/v1alpha1", "kind": "Contradiction", "metadata": {"name": f"c-{i}"},
                "spec": {"topic": note, "memories": named,
                         "claims": [{"memory": m, "claim": f"{note} {k}"} for k, m in enumerate(named)],
                         "resolution": {"state": "reconciled", "note": note} if reconciled else {"state": "open"}}}})
    return lines


def _replay(path: Path) -> dict[str, Any]:
    result = asyncio.run(run_replay(path, ["on", "off"]))
    return {"scores": {side: result[side] for side in ("on", "off")},
            "rows": [(r.incident, r.memory, r.assessment.recommendation.mode, r.assessment.recommendation.runbook,
                      r.assessment.recommendation.actionability, [m.incident for m in r.assessment.matches])
                     for r in result["_rows"]]}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(drawn=steps, gaps=st.lists(st.integers(0, 600), min_size=20, max_size=20))
def test_every_valid_history_is_answered_incident_by_incident_and_the_same_twice(tmp_path: Path, drawn, gaps) -> None:
    lines = _history(drawn, gaps)
    path = tmp_path / "history.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    incidents = [line["object"]["metadata"]["name"] for line in lines if line["type"] == "incident"]
    if not incidents:
        return
    first = _replay(path)
    assert [(name, side) for name, side, *_ in first["rows"]] == [(n, s) for s in ("on", "off") for n in incidents]
    catalog = {line["object"]["metadata"]["name"] for line in lines
               if line["type"] == "apply" and line["object"]["kind"] == "Runbook"}
    for _, side, mode, runbook, actionability, matches in first["rows"]:
        assert mode in ("actionable", "advisory", "novel")
        assert runbook is None or runbook in catalog  # never a runbook only an outcome named
        assert 0 <= actionability <= 100
        assert side == "on" or not matches
        assert mode != "actionable" or runbook is not None
    for side in ("on", "off"):
        assert all(0.0 <= v <= 1.0 for v in first["scores"][side].values())
    assert _replay(path) == first  # nothing of one replay leaks into the next
