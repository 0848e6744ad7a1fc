"""Neighbours for services the topology does not name (topology.filled_in, recommend.seen_together)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from domain_builders import context, incident, memory, rewritten_history, runbook, spec

from recall_operator.domain import recommend
from recall_operator.domain.recommend import assess, seen_together
from recall_operator.domain.topology import Topology, filled_in
from recall_operator.replay import run_replay

DECLARED = Topology.parse("web: {dependsOn: [db]}\ndb: {}")


def test_a_service_the_graph_does_not_name_takes_what_it_was_seen_with() -> None:
    graph = filled_in(DECLARED, [{"queue", "worker"}, {"worker", "db"}])
    assert graph.neighbours("worker") == {"queue", "db"}
    assert graph.neighbours("queue") == {"worker"}
    assert graph.neighbours("db") == {"web", "worker"}  # a named service sees the new one back


def test_a_service_the_graph_names_keeps_its_declared_neighbours() -> None:
    graph = filled_in(DECLARED, [{"web", "cache"}, {"web", "db", "search"}])
    # web is named, so no edge is added for it; cache and search are not, and join what they were seen with
    assert graph.neighbours("cache") == {"web"}
    assert graph.neighbours("search") == {"web", "db"}
    assert filled_in(DECLARED, [{"web", "db"}, {"web"}]) is DECLARED  # nothing new: the same graph


def test_runbooks_and_reports_say_which_services_go_together() -> None:
    catalog = [runbook("drain-queue", ["worker", "queue"]), runbook("restart-web", ["web"])]
    past = [memory("inc-1", "worker", title="jobs stuck", description="worker cannot reach billing-db")]
    groups = seen_together(spec("worker", title="worker backlog"), past, context(catalog=catalog, topology=DECLARED))
    known = {"worker", "queue", "web", "db"}
    assert {"worker", "queue"} in groups  # the runbook that acts on both
    # "billing-db" is no service anyone knows: a report names only services in sight
    assert all(group <= known for group in groups), groups
    named_everything = context(catalog=catalog, topology=Topology.parse("worker: {dependsOn: [queue, web]}"))
    assert seen_together(spec("worker"), past, named_everything) == []  # the graph already answers


def test_without_a_topology_a_precedent_next_door_is_a_neighbour_and_the_reasons_say_why() -> None:
    none = Topology({})
    catalog = [runbook("drain-queue", ["worker", "queue"], ["queue-backlog"])]
    past = memory("inc-1", "queue", runbook="drain-queue", title="queue depth growing, workers idle",
                  description="backlog of 2M jobs", symptoms=["queue-backlog"])
    page = incident(service="worker", title="worker throughput low, queue depth growing",
                    description="backlog of 1.8M jobs", symptoms=["queue-backlog"])
    result = assess(page, [past], context(catalog=catalog, topology=none))
    assert result.matches[0].breakdown["service"] == pytest.approx(20.0)  # the adjacent credit, 0.8 x 25
    assert ("neighbours of worker that the topology does not give, seen with it in runbooks or reports: queue"
            in result.recommendation.reasons)
    declared = assess(page, [past], context(catalog=catalog, topology=Topology.parse("worker: {}\nqueue: {}")))
    assert declared.matches[0].breakdown["service"] < 20.0  # a graph that names both keeps them apart
    assert not any("topology does not give" in r for r in declared.recommendation.reasons)


def _without_topology(event: dict[str, Any]) -> dict[str, Any] | None:
    is_topology = event["type"] == "apply" and event["object"]["kind"] == "ConfigMap"
    return None if is_topology else event


async def test_a_history_without_its_topology_still_finds_neighbours(tmp_path: Path, monkeypatch: Any) -> None:
    """Each dev history with its topology ConfigMap left out: reading neighbours from runbooks and
    reports raises runbook@1 with memory on every one (measured: 0.80 -> 0.86, 0.79 -> 0.88, 0.66 -> 0.79)."""
    for name in ("dev", "dev2", "dev3"):
        bare = rewritten_history(name, tmp_path / f"{name}.jsonl", _without_topology)
        read = (await run_replay(bare, ["on"]))["on"]["runbook_at_1"]
        with monkeypatch.context() as m:
            m.setattr(recommend, "seen_together", lambda *_: [])
            unread = (await run_replay(bare, ["on"]))["on"]["runbook_at_1"]
        assert read >= unread + 0.05, (name, read, unread)
