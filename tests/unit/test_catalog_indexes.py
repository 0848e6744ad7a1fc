"""What the catalog's runbook index keeps of each Runbook object, called as Kopf calls it."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from recall_operator.handlers import catalog

SPEC = {"title": "Restart the cart pods", "services": ["cart-service"], "symptoms": ["oom"],
        "steps": [{"name": "restart", "image": "bitnami/kubectl:1.30", "command": ["kubectl", "rollout", "restart"]}]}
LOG = logging.getLogger("test")


def test_a_runbook_keeps_when_the_catalog_got_it() -> None:
    kept = catalog.runbook_index(name="cart-restart", namespace="shop", spec=SPEC, status={},
                                 meta={"creationTimestamp": "2025-03-04T09:00:00Z"}, logger=LOG)
    assert kept is not None
    runbook, record = kept["shop"]
    assert runbook.created_at == datetime(2025, 3, 4, 9, tzinfo=UTC)
    assert record.times_executed == 0


def test_a_runbook_without_a_creation_time_has_no_age_and_a_bad_one_is_left_out() -> None:
    kept = catalog.runbook_index(name="cart-restart", namespace="shop", spec=SPEC, status={}, meta={}, logger=LOG)
    assert kept is not None and kept["shop"][0].created_at is None
    assert catalog.runbook_index(name="bad", namespace="shop", spec={"title": "no steps"}, status={}, meta={},
                                 logger=LOG) is None


def test_a_topology_that_does_not_parse_is_kept_as_ignored_and_said_on_every_answer() -> None:
    from recall_operator.domain.models import Incident, IncidentSpec
    from recall_operator.domain.recommend import assess
    from recall_operator.domain.topology import IgnoredTopology

    good = catalog.topology_index(name="shop-graph", namespace="shop",
                                  body={"data": {"topology": "cart: {dependsOn: [redis]}\n"}})
    typo = catalog.topology_index(name="team-b", namespace="shop", body={"data": {"topology": "pay: {dependsOn: db"}})
    empty = catalog.topology_index(name="team-c", namespace="shop", body={"data": {}})
    assert isinstance(typo["shop"], IgnoredTopology) and "not valid YAML" in typo["shop"].why
    assert empty["shop"] == IgnoredTopology("team-c", "it has no data.topology")
    index = {"shop": [good["shop"], typo["shop"], empty["shop"]]}
    ctx = catalog.context_for("shop", datetime(2025, 3, 4, tzinfo=UTC), {}, {}, {}, index)
    # The good part still counts: cart calls redis.
    assert ctx.topology.relation("cart", "redis") == "adjacent"
    assert [t.configmap for t in ctx.ignored_topologies] == ["team-b", "team-c"]
    answer = assess(Incident(name="inc-1", spec=IncidentSpec(service="cart", title="cart slow")), [], ctx)
    assert [w for w in answer.recommendation.warnings if w.startswith("topology ConfigMap")] == [
        f"topology ConfigMap team-b is ignored ({typo['shop'].why}): its services' neighbours are unknown",
        "topology ConfigMap team-c is ignored (it has no data.topology): its services' neighbours are unknown"]
    clean = catalog.context_for("shop", datetime(2025, 3, 4, tzinfo=UTC), {}, {}, {}, {"shop": [good["shop"]]})
    assert not [w for w in assess(Incident(name="inc-1", spec=IncidentSpec(service="cart", title="cart slow")), [],
                                  clean).recommendation.warnings if w.startswith("topology")]


def test_a_namespace_topology_is_merged_once_while_its_configmaps_are_the_same() -> None:
    # Depths and neighbours are worked out once per topology object: a new object per decision
    # worked them out again for every answer (30 ms at 2,000 services).
    a = catalog.topology_index(name="a", namespace="shop", body={"data": {"topology": "cart: {dependsOn: [db]}\n"}})
    b = catalog.topology_index(name="b", namespace="shop", body={"data": {"topology": "pay: {dependsOn: [db]}\n"}})
    now = datetime(2025, 3, 4, tzinfo=UTC)
    first = catalog.context_for("shop", now, {}, {}, {}, {"shop": [a["shop"], b["shop"]]}).topology
    again = catalog.context_for("shop", now, {}, {}, {}, {"shop": [a["shop"], b["shop"]]}).topology
    assert again is first and first.relation("pay", "db") == "adjacent"
    # A ConfigMap changed (a new object in the index): merged anew, and what it says now counts.
    b2 = catalog.topology_index(name="b", namespace="shop", body={"data": {"topology": "pay: {dependsOn: [q]}\n"}})
    changed = catalog.context_for("shop", now, {}, {}, {}, {"shop": [a["shop"], b2["shop"]]}).topology
    assert changed is not first and changed.relation("pay", "q") == "adjacent" and changed.relation("pay", "db") == "unrelated"
    # Another namespace has its own.
    assert catalog.context_for("other", now, {}, {}, {}, {"other": [b["shop"]]}).topology is not changed
