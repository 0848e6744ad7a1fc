"""What the replay format allows and the dev histories never do: each read as the format and the cluster read it.

A history from another platform is scored by the same command; a valid line it
reads otherwise than the format says moves that platform's scores, and one it
cannot read loses the whole file.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from recall_operator.cli import main
from support import history

AT = "2025-0{month}-01T00:00:00Z"
TOPOLOGY_TEXT = "checkout: {dependsOn: [payments]}\n"


def _incident(name: str, month: int, **spec: Any) -> dict[str, Any]:
    body = {"service": "checkout", "severity": "high",
            "title": "checkout 502s after the payments pool filled up",
            "description": "checkout returns 502 for 8% of orders; payments logs pool exhausted, waiting 30 s",
            "symptoms": ["5xx", "pool-exhausted"], **spec}
    return {"at": AT.format(month=month), "type": "incident", "truth": {"precedents": [], "novel": True},
            "object": {"kind": "Incident", "metadata": {"name": name}, "spec": body}}


def _outcome(name: str, month: int, **resolution: Any) -> dict[str, Any]:
    return {"at": AT.format(month=month).replace("T00", "T05"), "type": "outcome", "incident": name,
            "resolution": {"rootCause": "the payments connection pool was too small for the sale's traffic",
                           "summary": "raised the pool from 20 to 60 connections; 502s stopped", **resolution}}


def _configmap(name: str, text: str, month: int = 1) -> dict[str, Any]:
    return {"at": AT.format(month=month), "type": "apply",
            "object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"topology": text}}}


def _replay(tmp_path: Path, capsys: pytest.CaptureFixture[str], events: list[dict[str, Any]],
            memory: str = "on") -> dict[str, Any]:
    path = tmp_path / f"history-{len(list(tmp_path.iterdir()))}.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    code = main(["replay", str(path), "--json", "--per-incident", "--memory", memory])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def _last(result: dict[str, Any]) -> dict[str, Any]:
    return [r for r in result["rows"] if r["memory"] == "on"][-1]


def test_an_outcome_naming_nobody_and_no_action_is_still_a_precedent(tmp_path: Path, capsys) -> None:
    # The format makes only an outcome line the human gate; it requires neither confirmedBy nor actions.
    bare = _last(_replay(tmp_path, capsys, [_incident("inc-1", 1), _outcome("inc-1", 1), _incident("inc-2", 2)]))
    signed = _last(_replay(tmp_path, capsys, [_incident("inc-1", 1), _outcome("inc-1", 1, confirmedBy="oncall"),
                                              _incident("inc-2", 2)]))
    assert bare["matches"][:1] == ["inc-1"], bare
    assert bare["mode"] != "novel"
    assert (bare["similarity"], bare["mode"]) == (signed["similarity"], signed["mode"])


def test_topology_configmaps_of_different_names_add_up_and_one_applied_again_replaces_itself(
    tmp_path: Path, capsys
) -> None:
    # A precedent on a neighbour scores higher than one on an unrelated service: the topology decides.
    events = [_incident("inc-1", 1, service="payments"), _outcome("inc-1", 1, confirmedBy="oncall"),
              _incident("inc-2", 2)]
    merged = _last(_replay(tmp_path, capsys, [_configmap("all", TOPOLOGY_TEXT + "web: {dependsOn: [checkout]}\n"),
                                              *events]))
    parts = _last(_replay(tmp_path, capsys, [_configmap("shop", TOPOLOGY_TEXT),
                                             _configmap("web", "web: {dependsOn: [checkout]}\n"), *events]))
    none = _last(_replay(tmp_path, capsys, events))
    assert parts["similarity"] == merged["similarity"] > none["similarity"], (parts, merged, none)
    # The same name applied again without the edge: the neighbour is gone, as if never there.
    apart = "checkout: {dependsOn: []}\n"
    replaced = _last(_replay(tmp_path, capsys, [_configmap("shop", TOPOLOGY_TEXT), _configmap("shop", apart), *events]))
    assert replaced == _last(_replay(tmp_path, capsys, [_configmap("shop", apart), *events]))
    assert replaced["similarity"] < parts["similarity"]


def test_a_migration_applied_again_keeps_the_time_it_was_first_applied(tmp_path: Path, capsys) -> None:
    # On the cluster a migration takes effect from its creationTimestamp, which an edit keeps: a corrected
    # note must not make the memories resolved since it was first applied stale.
    runbook = {"at": AT.format(month=1), "type": "apply", "object": {
        "kind": "Runbook", "metadata": {"name": "payments-grow-pool"},
        "spec": {"title": "Grow the payments connection pool", "services": ["payments", "checkout"],
                 "symptoms": ["pool-exhausted"],
                 "steps": [{"name": "grow", "image": "tools:1", "command": ["grow-pool"], "risk": "low"}]}}}

    def migration(month: int, note: str) -> dict[str, Any]:
        return {"at": AT.format(month=month), "type": "apply", "object": {
            "kind": "ArchitectureMigration", "metadata": {"name": "payments-to-managed-db"},
            "spec": {"targetService": "checkout", "migrationDate": "2025-01-15", "oldArch": "self-hosted",
                     "newArch": note, "impactedRunbooks": ["payments-restart-db"],
                     "impactedFixKeywords": ["raised the pool"]}}}

    fixed = [_outcome("inc-1", 2, runbook="payments-grow-pool", confirmedBy="oncall",
                      actions=[{"action": "run runbook payments-grow-pool", "result": "succeeded"}])]
    once = [runbook, migration(1, "managed"), _incident("inc-1", 2), *fixed, _incident("inc-2", 4)]
    again = [runbook, migration(1, "managed"), _incident("inc-1", 2), *fixed, migration(3, "managed Postgres"),
             _incident("inc-2", 4)]
    first, edited = _last(_replay(tmp_path, capsys, once)), _last(_replay(tmp_path, capsys, again))
    assert (first["mode"], first["runbook"]) == ("actionable", "payments-grow-pool")
    assert edited == first
    # Applied for the first time after the fix, the same migration does make it stale.
    late = _last(_replay(tmp_path, capsys, [runbook, _incident("inc-1", 2), *fixed, migration(3, "managed"),
                                            _incident("inc-2", 4)]))
    assert late["mode"] != "actionable", late


def test_numbers_booleans_a_leap_second_and_an_empty_dependency_list_are_read_not_refused(
    tmp_path: Path, capsys
) -> None:
    # The format types none of these; one such line used to end the whole replay with no scores.
    events = [_configmap("topology", "checkout:\n  dependsOn:\npayments: {dependsOn: [checkout]}\n"),
              _incident("inc-1", 1, labels={"priority": 1, "paged": True, "team": "shop"},
                        deployment={"id": 4412, "revision": 42, "environment": "prod", "minutesSinceDeploy": 12},
                        startedAt="2016-12-31T23:59:60Z"),
              _outcome("inc-1", 1, confirmedBy="oncall"), _incident("inc-2", 2)]
    result = _replay(tmp_path, capsys, events)
    assert [r["incident"] for r in result["rows"]] == ["inc-1", "inc-2"]
    assert _last(result)["matches"][:1] == ["inc-1"]


def test_the_lift_is_on_minus_off_rounded_once() -> None:
    # Rounding each side first, then their difference, is off by 0.0001 where the sides round apart.
    import contextlib
    import io

    path = history("dev2")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["replay", str(path), "--json", "--per-incident"]) == 0
    result = json.loads(out.getvalue())
    truth = {e["object"]["metadata"]["name"]: e["truth"]["runbook"]
             for e in map(json.loads, (line for line in path.read_text(encoding="utf-8").splitlines()
                                       if line.strip() and not line.startswith("#")))
             if e["type"] == "incident"}
    hits = {side: sum(r["runbook"] == truth[r["incident"]] for r in result["rows"] if r["memory"] == side)
            for side in ("on", "off")}
    exact = Fraction(hits["on"] - hits["off"], result["incidents"])
    assert result["lift"]["runbook_at_1"] == round(float(exact), 4)
