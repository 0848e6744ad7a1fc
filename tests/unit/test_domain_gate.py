"""The gate's policy chain, one table per policy, and the failure classes found on unseen histories.

Each policy is a pure function of the gathered evidence that either decides
or passes (None). The situations below are written for these tests; none is
copied from a history.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from recall_operator.domain import gate, recommend
from recall_operator.domain.consolidation import Outcomes
from recall_operator.domain.catalog import CatalogFit
from recall_operator.domain.gate import Evidence, Fix, Side
from recall_operator.domain.models import Runbook, RunbookRecord
from recall_operator.domain.candidates import merge_repages
from recall_operator.domain.recommend import Settings, assess, gather, side_reason
from recall_operator.domain.similarity import Breakdown, ScoredMemory, incident_words, score_candidates
from recall_operator.domain.text import tokens
from recall_operator.domain.topology import Topology
from domain_builders import T0, context, contradiction, incident, memory, migration, resolution, runbook, spec

BASE = Evidence(best=80, novel_bar=55, actionable_bar=60, actionability=70)
FIX = Fix("fix-a", 80.0, ran_in=("inc-1",))
FIT = CatalogFit("catalog-b", 0.6, "applies to cart-service; symptoms shared: timeout", ("timeout",))


def ev(**changes) -> Evidence:
    return replace(BASE, **changes)


@pytest.mark.parametrize(
    ("evidence", "decided"),
    [
        (ev(best=54), ("novel", None)),
        (ev(best=54, exploration=FIT), ("novel", "catalog-b")),
        (ev(best=55), None),
        (ev(best=52, recognised=("inc-1",)), None),
    ],
    ids=["under-the-bar", "under-the-bar-with-a-catalog-offer", "at-the-bar", "under-the-bar-but-recognised"],
)
def test_nothing_similar(evidence: Evidence, decided) -> None:
    got = gate.nothing_similar(evidence)
    assert (got and (got.mode, got.runbook)) == decided


def test_with_no_runbook_for_the_service_the_answer_says_the_catalog_names_none() -> None:
    """A catalog that names services otherwise (Deployments, teams) is never offered: say it, not only "none fits"."""
    unlisted = gate.nothing_similar(ev(best=30, unlisted="billing-usage"))
    assert "no catalog runbook fits: none lists billing-usage or a neighbour of it" in unlisted.reason
    assert "none lists" not in gate.nothing_similar(ev(best=30)).reason
    blocked = gate.no_runbook_remembered(ev(chosen=None, unlisted="billing-usage"))
    assert blocked is not None and "no catalog runbook fits instead: none lists billing-usage" in blocked.reason
    by_hand = gate.no_runbook_remembered(ev(chosen=Fix(None, 70.0, described=("inc-1",)), unlisted="billing-usage"))
    assert by_hand is not None and "describes that fix: none lists billing-usage" in by_hand.reason


@pytest.mark.parametrize(
    ("evidence", "decided"),
    [
        (ev(best=48, exploration=FIT, fixed_nearest=("inc-1",)), ("advisory", "catalog-b", "catalog")),
        (ev(best=48, exploration=FIT), None),
        (ev(best=48, fixed_nearest=("inc-1",)), None),
        (ev(best=55, exploration=FIT, fixed_nearest=("inc-1",)), None),
        (ev(best=52, exploration=FIT, fixed_nearest=("inc-1",), recognised=("inc-2",)), None),
    ],
    ids=["offer-fixed-the-nearest", "offer-fixed-nothing-near", "no-offer", "at-the-bar", "recognised-instead"],
)
def test_catalog_fixed_nearest(evidence: Evidence, decided) -> None:
    got = gate.catalog_fixed_nearest(evidence)
    assert (got and (got.mode, got.runbook, got.source)) == decided
    if got:
        assert got.actionability == 0
        assert "below the novel bar 55" in got.reason and "fixed its nearest past incident (inc-1)" in got.reason


def test_without_catalog_fixed_nearest_the_same_evidence_is_novel() -> None:
    # The policy comes first; the rest of the chain reads the evidence as novel, with the offer to explore.
    e = ev(best=48, exploration=FIT, fixed_nearest=("inc-1",))
    assert (gate.decide(e).mode, gate.decide(e).policy) == ("advisory", "catalog_fixed_nearest")
    without = tuple(p for p in gate.CHAIN if p is not gate.catalog_fixed_nearest)
    assert (gate.decide(e, without).mode, gate.decide(e, without).runbook) == ("novel", "catalog-b")


@pytest.mark.parametrize(
    ("evidence", "decided"),
    [
        (ev(fixes=(FIX,), chosen=FIX), None),
        (ev(fixes=(FIX,), leader_stale="m1", replacement=FIT, replacement_ceiling=40), ("advisory", "catalog-b", 40)),
        (ev(fixes=(FIX,), leader_stale="m1"), ("advisory", None, 0)),
    ],
    ids=["fresh", "stale-with-replacement", "stale-without"],
)
def test_remembered_fix_stale(evidence: Evidence, decided) -> None:
    got = gate.remembered_fix_stale(evidence)
    assert (got and (got.mode, got.runbook, got.actionability)) == decided


MANUAL = Fix(None, 80.0)


@pytest.mark.parametrize(
    ("evidence", "decided"),
    [
        (ev(fixes=(FIX,), chosen=FIX), None),
        (ev(fixes=(MANUAL,), chosen=MANUAL), ("advisory", None)),
        (ev(fixes=(replace(FIX, blocked="failed before in inc-1"),), chosen=None, replacement=FIT), ("advisory", "catalog-b")),
    ],
    ids=["a-runbook", "only-by-hand", "every-fix-blocked"],
)
def test_no_runbook_remembered(evidence: Evidence, decided) -> None:
    got = gate.no_runbook_remembered(evidence)
    assert (got and (got.mode, got.runbook)) == decided


@pytest.mark.parametrize(
    ("evidence", "decided"),
    [
        (ev(fixes=(FIX,), chosen=FIX), None),
        (ev(fixes=(FIX,), chosen=FIX, newer=FIT, last_worked="inc-1, resolved 2025-01-01"),
         ("advisory", "catalog-b", "catalog", 60)),
        (ev(fixes=(FIX,), chosen=FIX, actionability=40, newer=FIT), ("advisory", "catalog-b", "catalog", 40)),
        (ev(fixes=(MANUAL,), chosen=MANUAL, newer=FIT), None),
    ],
    ids=["nothing-newer", "newer-fits-best", "never-above-memory-s-own-score", "no-runbook-chosen"],
)
def test_newer_runbook_written(evidence: Evidence, decided) -> None:
    got = gate.newer_runbook_written(evidence)
    assert (got and (got.mode, got.runbook, got.source, got.actionability)) == decided
    if got:
        assert "fix-a" in got.reason and "catalog-b" in got.reason and evidence.last_worked in got.reason


@pytest.mark.parametrize(
    ("evidence", "decided"),
    [
        (ev(fixes=(FIX,), chosen=FIX), None),
        (ev(fixes=(FIX,), chosen=FIX, left_out=("timeout",), covering=FIT), ("advisory", "catalog-b", "catalog", 60)),
        (ev(fixes=(FIX,), chosen=FIX, actionability=40, left_out=("timeout",), covering=FIT),
         ("advisory", "catalog-b", "catalog", 40)),
        (ev(fixes=(FIX,), chosen=FIX, left_out=("timeout",)), None),
        (ev(fixes=(MANUAL,), chosen=MANUAL, left_out=("timeout",), covering=FIT), None),
    ],
    ids=["declared-for-every-symptom", "another-runbook-covers-them", "never-above-memory-s-own-score",
         "nothing-covers-them", "no-runbook-chosen"],
)
def test_symptoms_left_out(evidence: Evidence, decided) -> None:
    got = gate.symptoms_left_out(evidence)
    assert (got and (got.mode, got.runbook, got.source, got.actionability)) == decided
    if got:
        assert got.reason.startswith("memory's fix, runbook fix-a, is not declared for timeout, which this incident shows")
        assert "fix-a" in got.warnings[0]


def test_a_symptom_memory_s_fix_leaves_out_points_to_the_runbook_declared_for_all_of_them() -> None:
    poll = runbook("orders-longer-poll", ["kafka-orders"], ["consumer-lag", "rebalance"])
    smaller = runbook("orders-smaller-batches", ["kafka-orders"], ["consumer-lag", "rebalance", "commit-failed"])
    words = {"title": "orders consumers rebalancing, lag growing", "description": "the group rebalances every minute"}
    before = memory("inc-1", service="kafka-orders", runbook=poll.name, resolved_at=T0,
                    symptoms=["consumer-lag", "rebalance"], **words)
    ctx = context(catalog=[poll, smaller], records={poll.name: RunbookRecord(times_executed=5, times_succeeded=5)})
    same = assess(incident(service="kafka-orders", symptoms=["consumer-lag", "rebalance"], **words), [before], ctx)
    assert (same.recommendation.runbook, same.recommendation.mode) == (poll.name, "actionable")
    # The same page, but offsets are not being committed either: a symptom the poll runbook is not written for.
    stuck = assess(incident(service="kafka-orders", symptoms=["consumer-lag", "rebalance", "commit-failed"], **words),
                   [before], ctx).recommendation
    assert (stuck.mode, stuck.runbook, stuck.source) == ("advisory", smaller.name, "catalog")
    assert stuck.reasons[-1].startswith(f"memory's fix, runbook {poll.name}, is not declared for commit-failed"), stuck.reasons
    # A precedent that showed commit-failed too was fixed by the poll runbook: memory knows it for that symptom.
    seen = memory("inc-2", service="kafka-orders", runbook=poll.name, resolved_at=T0,
                  symptoms=["consumer-lag", "rebalance", "commit-failed"], **words)
    known = assess(incident(service="kafka-orders", symptoms=["consumer-lag", "rebalance", "commit-failed"], **words),
                   [seen], ctx).recommendation
    assert (known.runbook, known.source) == (poll.name, "memory")
    # Nothing declared for all of it: memory's fix stands.
    alone = context(catalog=[poll], records=ctx.records)
    kept = assess(incident(service="kafka-orders", symptoms=["consumer-lag", "rebalance", "commit-failed"], **words),
                  [before], alone).recommendation
    assert kept.runbook == poll.name


@pytest.mark.parametrize(
    ("failed", "decided"),
    [({}, None), ({"fix-a": "inc-7"}, "advisory"), ({"other": "inc-7"}, None)],
    ids=["nothing-failed", "this-fix-failed", "another-fix-failed"],
)
def test_fix_failed_here(failed, decided) -> None:
    got = gate.fix_failed_here(ev(fixes=(FIX,), chosen=FIX, failed=failed))
    assert (got and got.mode) == decided


@pytest.mark.parametrize(
    ("undeclared", "chosen", "decided"),
    [(None, FIX, None), (("tenant-db", ("tenant-api", "sso")), FIX, "advisory"), (("tenant-db", ("tenant-api",)), None, None)],
    ids=["written-for-this-service", "would-act-on-another-service", "nothing-chosen"],
)
def test_fix_for_other_services(undeclared, chosen, decided) -> None:
    got = gate.fix_for_other_services(ev(fixes=(FIX,), chosen=chosen, undeclared=undeclared))
    assert (got and got.mode) == decided
    if got:
        assert got.reason == "runbook fix-a acts on $(SERVICE), which is tenant-db here, but it is written for tenant-api, sso"
        assert got.runbook == "fix-a" and got.actionability == BASE.actionability


@pytest.mark.parametrize(
    ("unset", "chosen", "decided"),
    [((), FIX, None), (("CURRENT_REVISION",), FIX, "advisory"), (("CURRENT_REVISION",), None, None)],
    ids=["every-value-given", "a-value-nobody-gives", "nothing-chosen"],
)
def test_values_missing(unset, chosen, decided) -> None:
    got = gate.values_missing(ev(fixes=(FIX,), chosen=chosen, unset=unset))
    assert (got and got.mode) == decided
    if got:
        assert got.reason == ("runbook fix-a needs CURRENT_REVISION, which nothing gives: its commands would run "
                              "with it empty")
        assert got.runbook == "fix-a" and got.actionability == BASE.actionability
        assert "spec.parameters" in got.warnings[0]


@pytest.mark.parametrize(
    ("guessed_only", "chosen", "decided"),
    [((), FIX, None), (("queue",), FIX, "advisory"), (("queue",), None, None)],
    ids=["ran-where-the-topology-says", "ran-only-next-door-by-a-guess", "nothing-chosen"],
)
def test_neighbour_guessed(guessed_only, chosen, decided) -> None:
    got = gate.neighbour_guessed(ev(fixes=(FIX,), chosen=chosen, guessed_only=guessed_only))
    assert (got and got.mode) == decided
    if got:
        assert got.reason == ("runbook fix-a ran only on queue, a neighbour by what runbooks and reports say, "
                              "not by the topology")
        assert got.runbook == "fix-a" and got.actionability == BASE.actionability
        assert "topology ConfigMap" in got.warnings[0]


def test_a_fix_seen_only_next_door_by_a_guess_is_shown_but_not_acted_on() -> None:
    # No topology names worker: the runbook that acts on worker and queue makes them neighbours,
    # enough to recall queue's incident, not to run its fix on worker's say-so.
    drain = runbook("drain-queue", ["worker", "queue"], ["queue-backlog"])
    text = {"title": "queue depth growing, jobs waiting", "description": "backlog of 2M jobs, consumers idle",
            "symptoms": ["queue-backlog"]}
    before = [memory(f"inc-{i}", service="queue", runbook=drain.name, resolved_at=T0 + timedelta(days=i), **text)
              for i in (1, 2, 3)]
    none = Topology({})
    rec = assess(incident(service="worker", **text), before, context(catalog=[drain], topology=none)).recommendation
    assert (rec.mode, rec.runbook) == ("advisory", "drain-queue"), rec.reasons
    assert rec.reasons[-1].startswith("runbook drain-queue ran only on queue"), rec.reasons
    declared = Topology.parse("worker: {dependsOn: [queue]}")
    acted = assess(incident(service="worker", **text), before, context(catalog=[drain], topology=declared))
    assert acted.recommendation.mode == "actionable", acted.recommendation.reasons


def test_a_neighbour_s_runbook_is_shown_but_never_actionable_against_this_service() -> None:
    # cart-service's precedent was fixed by its own restart runbook; checkout-api (which calls
    # cart-service) pages with the same words. The runbook would restart $(SERVICE) = checkout-api.
    restart = runbook("cart-restart", ["cart-service"], ["timeout"])
    text = {"title": "timeouts reading carts", "description": "cart reads time out after 5s", "symptoms": ["timeout"]}
    before = memory("inc-1", service="cart-service", runbook=restart.name, resolved_at=T0, **text)
    rec = assess(incident(service="checkout-api", **text), [before], context(catalog=[restart])).recommendation
    assert (rec.mode, rec.runbook) == ("advisory", "cart-restart"), rec.reasons
    assert rec.reasons[-1].startswith("runbook cart-restart acts on $(SERVICE), which is checkout-api here"), rec.reasons
    assert any("spec.parameters.SERVICE" in w for w in rec.warnings), rec.warnings
    same_service = assess(incident(service="cart-service", **text), [before], context(catalog=[restart])).recommendation
    assert not any("acts on $(SERVICE)" in r for r in same_service.reasons)
    # As the warning says: the incident names the service to act on, one the runbook lists.
    aimed = incident(service="checkout-api", parameters={"SERVICE": "cart-service"}, **text)
    assert assess(aimed, [before], context(catalog=[restart])).recommendation.mode == "actionable"


@pytest.mark.parametrize(
    ("state", "decided"), [("open", "advisory"), (None, None)], ids=["open", "none-open"]
)
def test_contradiction_open(state, decided) -> None:
    found = [contradiction("c", {"inc-1": "a", "inc-2": "b"})] if state else []
    got = gate.contradiction_open(ev(fixes=(FIX,), chosen=FIX, contradictions=found))
    assert (got and got.mode) == decided


@pytest.mark.parametrize(
    ("runner_up", "decided"),
    [
        (None, None),
        (Fix("fix-b", 79.0, ran_in=("inc-2",)), "advisory"),
        (Fix("fix-b", 50.0, ran_in=("inc-2",)), None),
        (Fix("fix-b", 79.0, ran_in=("inc-2",), blocked="stale after migration m"), None),
    ],
    ids=["alone", "close-second", "distant-second", "blocked-second"],
)
def test_precedents_disagree(runner_up, decided) -> None:
    fixes = (FIX,) if runner_up is None else (FIX, runner_up)
    got = gate.precedents_disagree(ev(fixes=fixes, chosen=FIX))
    assert (got and got.mode) == decided


@pytest.mark.parametrize(
    ("fix", "decided"),
    [(FIX, None), (Fix("fix-a", 80.0, described=("inc-1",)), ("advisory", "catalog"))],
    ids=["ran-before", "only-describes-a-manual-fix"],
)
def test_fix_from_catalog_only(fix: Fix, decided) -> None:
    got = gate.fix_from_catalog_only(ev(fixes=(fix,), chosen=fix))
    assert (got and (got.mode, got.source)) == decided


@pytest.mark.parametrize(("score", "decided"), [(59, "advisory"), (60, None)], ids=["under", "at"])
def test_below_actionable_bar(score: int, decided) -> None:
    got = gate.below_actionable_bar(ev(fixes=(FIX,), chosen=FIX, actionability=score))
    assert (got and got.mode) == decided


def test_the_chain_ends_in_act_and_the_first_policy_that_decides_wins() -> None:
    assert gate.decide(ev(fixes=(FIX,), chosen=FIX)).mode == "actionable"
    both = ev(fixes=(FIX,), chosen=FIX, failed={"fix-a": "inc-7"}, actionability=10)
    assert gate.decide(both).policy == "fix_failed_here"  # it comes before the actionability bar
    assert gate.decide(both, chain=[gate.below_actionable_bar]).policy == "below_actionable_bar"
    assert gate.CHAIN[-1] is gate.act


# --------------------------------------------------------------- the failure classes


def described_runbook(name: str, title: str, step: str, command: list[str]) -> Runbook:
    return Runbook.model_validate({"name": name, "spec": {
        "title": title, "services": ["orders-db"], "symptoms": ["disk-pressure"],
        "steps": [{"name": step, "image": "postgres:16", "command": command}],
    }})


def runbook_with_symptoms(rb: Runbook, symptoms: list[str]) -> Runbook:
    return rb.model_copy(update={"spec": rb.spec.model_copy(update={"symptoms": tuple(symptoms)})})


WAL_TEXT = {
    "title": "orders-db disk filling, WAL directory growing",
    "description": "pg_wal grew from 20 GiB to 180 GiB overnight; writes will stop when the volume fills",
    "symptoms": ["disk-pressure", "storage-growth"],
}
SLOT_RUNBOOK = described_runbook(
    "orders-db-drop-abandoned-slot", "Drop an abandoned logical replication slot that pins WAL",
    "drop-inactive-replication-slot", ["psql", "-c", "SELECT pg_drop_replication_slot('$(SLOT)')"],
)
VACUUM_RUNBOOK = described_runbook(
    "orders-db-vacuum-bloat", "Vacuum bloated tables after a mass delete", "vacuum-full", ["vacuumdb", "--full"],
)


def test_a_failure_fixed_by_hand_is_answered_with_the_runbook_written_for_that_fix() -> None:
    by_hand = memory(
        "inc-1", service="orders-db", resolved_at=T0, **WAL_TEXT,
        res=None, actions=[("dropped the inactive replication slot cdc_orders by hand with pg_drop_replication_slot",
                            "succeeded")],
    )
    ctx = context(catalog=[SLOT_RUNBOOK, VACUUM_RUNBOOK])
    rec = assess(incident(service="orders-db", **WAL_TEXT), [by_hand], ctx).recommendation
    assert (rec.mode, rec.runbook, rec.source) == ("advisory", "orders-db-drop-abandoned-slot", "catalog")
    described = [r for r in rec.reasons if "describes the manual fix of inc-1" in r]
    # The evidence and the deciding policy both say it: on-call reads it once, last, as the reason.
    assert len(described) == 1 and rec.reasons[-1] == described[0], rec.reasons


def test_a_runbook_that_failed_in_a_precedent_is_never_taken_for_the_fix_made_there_by_hand() -> None:
    # "ran the slot runbook: failed; dropped the slot by hand": the words of the manual fix are the runbook's
    # own, but the runbook is what did not work there. Taken for the fix, the failure became its witness.
    tried = memory(
        "inc-1", service="orders-db", resolved_at=T0, **WAL_TEXT,
        res=None, actions=[("run runbook orders-db-drop-abandoned-slot", "failed"),
                           ("dropped the inactive replication slot cdc_orders by hand with pg_drop_replication_slot",
                            "succeeded")],
    )
    # It worked later (so it is not held back): inc-1 must still not count as its second precedent.
    worked = memory("inc-2", service="orders-db", resolved_at=T0 + timedelta(days=3), **WAL_TEXT,
                    runbook="orders-db-drop-abandoned-slot")
    rec = assess(incident(service="orders-db", **WAL_TEXT), [tried, worked],
                 context(catalog=[SLOT_RUNBOOK, VACUUM_RUNBOOK])).recommendation
    assert not any("describes the manual fix of inc-1" in r for r in rec.reasons), rec.reasons
    assert not any(r.startswith("2 of 2 independent precedents") for r in rec.reasons), rec.reasons


def test_a_runbook_that_failed_in_another_failure_still_stands_for_the_manual_fix_it_describes() -> None:
    # inc-2 looked alike (the same disk alarm) but was table bloat: the slot runbook was tried there
    # first and failed, and the vacuum runbook, declared only for bloat, fixed it. That failure
    # belongs to the bloat; here, where nothing shows bloat, the slot runbook still describes inc-1's fix.
    vacuum = runbook_with_symptoms(VACUUM_RUNBOOK, ["table-bloat"])
    by_hand = memory(
        "inc-1", service="orders-db", resolved_at=T0, **WAL_TEXT,
        res=None, actions=[("dropped the inactive replication slot cdc_orders by hand with pg_drop_replication_slot",
                            "succeeded")],
    )
    bloat = memory("inc-2", service="orders-db", resolved_at=T0 + timedelta(days=5), runbook=vacuum.name,
                   actions=[(f"run runbook {SLOT_RUNBOOK.name}", "failed"), (f"run runbook {vacuum.name}", "succeeded")],
                   **{**WAL_TEXT, "symptoms": ["disk-pressure", "table-bloat"]})
    ctx = context(catalog=[SLOT_RUNBOOK, vacuum])
    rec = assess(incident(service="orders-db", **WAL_TEXT), [by_hand, bloat], ctx).recommendation
    assert rec.runbook == SLOT_RUNBOOK.name, rec.reasons
    assert any("describes the manual fix of inc-1" in r for r in rec.reasons), rec.reasons
    assert (f"runbook {SLOT_RUNBOOK.name} failed in inc-2, another failure: it was fixed by runbook {vacuum.name}, "
            "declared only for what this incident does not show") in rec.reasons
    # Where the incident shows the bloat too, inc-2 is this failure, and its failure counts.
    both = incident(service="orders-db", **{**WAL_TEXT, "symptoms": ["disk-pressure", "table-bloat"]})
    assert assess(both, [by_hand, bloat], ctx).recommendation.runbook != SLOT_RUNBOOK.name


def test_a_manual_fix_no_runbook_describes_leaves_no_runbook() -> None:
    by_hand = memory("inc-1", service="orders-db", resolved_at=T0, **WAL_TEXT,
                     actions=[("asked the storage team to extend the volume", "succeeded")])
    rec = assess(incident(service="orders-db", **WAL_TEXT), [by_hand], context(catalog=[VACUUM_RUNBOOK])).recommendation
    assert (rec.mode, rec.runbook) == ("advisory", None)


def test_a_manual_fix_whose_runbook_is_for_other_symptoms_is_not_this_incidents() -> None:
    # The slot runbook describes the precedent's fix, but it is declared for
    # disk pressure, and this page shows only replication lag.
    by_hand = memory(
        "inc-1", service="orders-db", resolved_at=T0, **WAL_TEXT,
        actions=[("dropped the inactive replication slot cdc_orders by hand with pg_drop_replication_slot", "succeeded")],
    )
    lagging = {**WAL_TEXT, "symptoms": ["replication-lag"]}
    ctx = context(catalog=[SLOT_RUNBOOK, VACUUM_RUNBOOK])
    rec = assess(incident(service="orders-db", **lagging), [by_hand], ctx).recommendation
    assert (rec.mode, rec.runbook) == ("advisory", None)
    assert rec.reasons[-1].endswith("no catalog runbook for what this incident shows describes that fix"), rec.reasons
    # A bare page with no symptom tags has nothing to tell them apart: the described runbook is shown.
    bare = {**WAL_TEXT, "symptoms": []}
    assert assess(incident(service="orders-db", **bare), [by_hand], ctx).recommendation.runbook == SLOT_RUNBOOK.name


def test_a_manual_precedent_and_a_runbook_precedent_of_one_fix_agree() -> None:
    by_hand = memory("inc-1", service="orders-db", resolved_at=T0, **WAL_TEXT,
                     actions=[("dropped the inactive replication slot by hand with pg_drop_replication_slot", "succeeded")])
    with_runbook = memory("inc-2", service="orders-db", runbook=SLOT_RUNBOOK.name,
                          resolved_at=T0 + timedelta(days=9), **WAL_TEXT)
    rec = assess(incident(service="orders-db", **WAL_TEXT), [by_hand, with_runbook],
                 context(catalog=[SLOT_RUNBOOK, VACUUM_RUNBOOK])).recommendation
    assert rec.runbook == SLOT_RUNBOOK.name and rec.source == "memory"
    assert not any(w.startswith("precedents disagree") for w in rec.warnings)


LAG = {"symptoms": ["consumer-lag"], "title": "orders consumers lagging behind"}
SCALE = runbook("orders-scale-consumers", ["kafka-orders"], ["consumer-lag"])
BATCH = runbook("orders-bigger-batches", ["kafka-orders"], ["consumer-lag"])


def lag_history():
    surge = memory(
        "inc-1", service="kafka-orders", runbook=SCALE.name, resolved_at=T0,
        description="input doubled after the sale started; the database kept up",
        **LAG,
    )
    slow_db = memory(
        "inc-2", service="kafka-orders", runbook=BATCH.name, resolved_at=T0 + timedelta(days=20),
        actions=[(f"run runbook {SCALE.name}", "failed"), (f"run runbook {BATCH.name}", "succeeded")],
        description="inserts rejected by the database with too many parts; small batches",
        res=None, **LAG,
    )
    c = contradiction("orders-lag", {
        "inc-1": "more consumers cleared the lag: input had doubled and the database kept up",
        "inc-2": "more consumers made it worse: the database was rejecting small inserts; bigger batches fixed it",
    }, state="reconciled")
    return [surge, slow_db], c


def test_a_remembered_runbook_declared_only_for_other_symptoms_gives_way_to_the_catalogs() -> None:
    dns = runbook("orders-dns-scale-out", ["kafka-orders"], ["dns-failures"])
    words = {"title": "orders consumers stalled", "description": "consumers stopped committing offsets at 09:12"}
    scaled = memory("inc-1", service="kafka-orders", runbook=SCALE.name, resolved_at=T0, **{**LAG, **words})
    ctx = context(catalog=[SCALE, dns], records={SCALE.name: RunbookRecord(times_executed=4, times_succeeded=4)})
    lagging = assess(incident(service="kafka-orders", **{**LAG, **words}), [scaled], ctx).recommendation
    assert lagging.runbook == SCALE.name and lagging.source == "memory"
    # The same page, but what it shows is DNS failures: the scale-out was another failure's fix.
    resolving = assess(incident(service="kafka-orders", **words, symptoms=["dns-failures"]), [scaled], ctx)
    rec = resolving.recommendation
    assert resolving.matches[0].incident == "inc-1" and rec.mode == "advisory"
    assert (rec.runbook, rec.source) == ("orders-dns-scale-out", "catalog")
    assert (f"precedents used runbook {SCALE.name}, but it is declared for consumer-lag, "
            "not for what this incident shows (dns-failures)") in rec.reasons


def test_a_contradiction_answers_with_the_side_whose_conditions_this_incident_shows() -> None:
    history, c = lag_history()
    ctx = context(catalog=[SCALE, BATCH], contradictions=[c])
    surge = incident(service="kafka-orders", description="input doubled after a promotion; the database keeps up", **LAG)
    rec = assess(surge, history, ctx).recommendation
    # The older side wins: its conditions are this incident's, and its fix's
    # failure belongs to the other condition, so it does not block it.
    assert rec.runbook == SCALE.name
    assert any("resembles the side of inc-1" in r for r in rec.reasons)
    rejected = incident(service="kafka-orders", description="the database rejects small inserts: too many parts", **LAG)
    assert assess(rejected, history, ctx).recommendation.runbook == BATCH.name


def test_a_side_whose_condition_the_report_denies_comes_after_the_side_it_does_not() -> None:
    # A surge report that says what it is not. Its words repeat the other
    # condition's ("inserts", "rejected") more than the surge side's, but to rule it out.
    history, c = lag_history()
    ctx = context(catalog=[SCALE, BATCH], contradictions=[c])
    surge = incident(service="kafka-orders", title="orders consumers lagging", symptoms=["consumer-lag"],
                     description="orders consumers lagging after the sale opened. No small inserts rejected by the database")
    rec = assess(surge, history, ctx).recommendation
    assert rec.runbook == SCALE.name, rec.reasons
    [line] = [r for r in rec.reasons if r.startswith("contradiction orders-lag: this incident resembles")]
    assert line.startswith("contradiction orders-lag: this incident resembles the side of inc-1 (")
    assert f"its report denies 'inserts', 'rejected', 'small', which the side of inc-2 (fixed by {BATCH.name}) names" in line
    # Its words alone are nearer the other side's: the denial is what puts that side last.
    pool = score_candidates(surge.spec, history, Topology(), {})
    [(near, far)] = recommend.contradiction_sides(surge, [c], pool, pool, lambda m: m.resolution.runbook)
    assert (near.runbook, far.runbook) == (SCALE.name, BATCH.name)
    assert far.condition > near.condition and far.denied == ("inserts", "rejected", "small") and near.denied == ()


def test_when_the_report_denies_both_sides_conditions_the_words_still_decide() -> None:
    near = Side("lag", "bigger-batches", ("inc-2",), 80, 0.18, ("inserts",))
    far = Side("lag", "scale", ("inc-1",), 85, 0.06, ("input",))
    line = side_reason(near, [far])
    assert "denies" not in line and "more than inc-1 (0.06, fixed by scale)" in line


def test_a_correction_does_not_move_a_side_onto_the_other_condition_s_incidents() -> None:
    # One responder restates inc-2's root cause with the surge side's words: the side a
    # contradiction recorded for small inserts would then claim every traffic surge.
    from recall_operator.domain.consolidation import as_first_resolved

    history, c = lag_history()
    ctx = context(catalog=[SCALE, BATCH], contradictions=[c])
    surge = incident(service="kafka-orders", description="input doubled after a promotion; the database keeps up", **LAG)
    slow_db = history[1]
    restated = slow_db.model_copy(update={
        "resolved_at": slow_db.resolved_at + timedelta(days=30),
        "resolution": slow_db.resolution.model_copy(update={
            "root_cause": "input doubled after a promotion; the database keeps up; then it rejected small inserts"}),
    })
    corrected = as_first_resolved(slow_db, restated)
    rec = assess(surge, [history[0], corrected], ctx).recommendation
    assert rec.runbook == SCALE.name, rec.reasons
    assert any("resembles the side of inc-1" in r for r in rec.reasons), rec.reasons
    # Read from the restated cause alone, as before memory kept the first one, the surge's words
    # count for the other side as much as for its own: only its nearer memory keeps it there.
    taken = assess(surge, [history[0], restated], ctx).recommendation
    assert any("the sides' conditions are about as much in its words" in r for r in taken.reasons), \
        taken.reasons


@pytest.mark.parametrize("near, other, says, never", [
    (0.18, 0.06, "(its conditions' words 0.18, fixed by bigger-batches) more than inc-1 (0.06, fixed by scale)",
     "confirmed last"),
    # Neither side's conditions are in the words: the reason is the order of confirmation, and it says so.
    (0.0, 0.0, "(its conditions' words 0.00, fixed by bigger-batches) as much as inc-1 (0.00, fixed by scale); "
     "the side confirmed last speaks", "more than"),
    # The words about as near on both sides: the nearer memory speaks, and the line says which and by how much.
    (0.10, 0.08, "(its nearest memory, similarity 90 against 85, fixed by bigger-batches): the sides' conditions "
     "are about as much in its words (0.10; inc-1 (0.08, fixed by scale))", "confirmed last"),
])
def test_the_side_reason_claims_a_resemblance_only_when_the_words_show_one(near, other, says, never) -> None:
    similarity = 90 if near and near < 1.5 * other else 80
    line = side_reason(Side("lag", "bigger-batches", ("inc-2",), similarity, near),
                       [Side("lag", "scale", ("inc-1",), 85, other)])
    assert line.startswith("contradiction lag: this incident resembles the side of inc-2 (")  # the panel reads this
    assert says in line and never not in line, line


def test_an_open_contradiction_stays_advisory_whichever_side_is_nearer() -> None:
    history, c = lag_history()
    still_open = contradiction("orders-lag", {m: "claim" for m in c.spec.memories})
    surge = incident(service="kafka-orders", description="input doubled after a promotion; the database keeps up", **LAG)
    rec = assess(surge, history, context(catalog=[SCALE, BATCH], contradictions=[still_open])).recommendation
    assert rec.mode == "advisory" and any(w.startswith("open contradiction") for w in rec.warnings)


def test_a_terse_alert_shares_its_alert_name_words_with_a_person_s_report() -> None:
    alert = spec("device-gateway", title="[FIRING:1] BrokerConnectionsDropping device-gateway",
                 description="connected clients -9% in 10m")
    report = spec("device-gateway", title="Hubs dropping their broker connections every few minutes",
                  description="Connections drop and come back; clients reconnect in a loop")
    shared = set(incident_words(alert)) & set(incident_words(report))
    assert {"connections", "dropping", "broker"} <= shared
    assert {"oom", "killed"} <= set(tokens("OOMKilled")) and "5xx" in tokens("EdgeRatio5xxHigh")


def test_the_paging_service_s_name_is_not_counted_as_words() -> None:
    # Two failures on one service share its name in every title: that is the
    # service term's business, not evidence that they are the same failure.
    words = incident_words(spec("rules-engine", title="rules-engine queue backlog", description="rules-engine slow"))
    assert "rules" not in words and "engine" not in words and {"queue", "backlog", "slow"} <= set(words)


def test_look_alikes_on_one_service_are_told_apart_by_the_words_that_differ() -> None:
    restart = memory("inc-1", service="cart-service", runbook="cart-restart",
                     title="cart-service pods stuck after cart-service config reload",
                     description="cart-service workers hang on a stale config; restarting them clears it")
    replace_node = memory("inc-2", service="cart-service", runbook="cart-replace-node",
                          title="cart-service slow on one node with a failing disk",
                          description="cart-service pods on one node see io errors from a failing disk")
    new = incident(service="cart-service", title="cart-service slow, io errors on one node",
                   description="one node reports a failing disk; cart-service pods there are slow")
    result = assess(new, [restart, replace_node], context())
    assert result.matches[0].incident == "inc-2"


def test_a_runbook_nearly_as_well_supported_beats_a_manual_fix_nothing_describes() -> None:
    one_off = memory("inc-1", service="orders-db", resolved_at=T0, **WAL_TEXT,
                     actions=[("asked the storage team to extend the volume", "succeeded")])
    with_runbook = memory("inc-2", service="orders-db", runbook=SLOT_RUNBOOK.name, resolved_at=T0 + timedelta(days=3),
                          **{**WAL_TEXT, "symptoms": ["disk-pressure"]})
    result = assess(incident(service="orders-db", **WAL_TEXT), [one_off, with_runbook],
                    context(catalog=[SLOT_RUNBOOK, VACUUM_RUNBOOK]))
    rec = result.recommendation
    assert (rec.mode, rec.runbook) == ("advisory", SLOT_RUNBOOK.name)
    # The manual fix is the closer one, and the match the runbook worked in is listed first, saying so.
    assert [m.incident for m in result.matches[:2]] == ["inc-2", "inc-1"]
    assert (f"inc-2 is listed first: runbook {SLOT_RUNBOOK.name} worked in it "
            "(inc-1 comes before it by similarity and recognition)") in rec.reasons
    assert any(w.startswith("precedents disagree: a manual fix") for w in rec.warnings)


# -- recognised below the bar: a terse page whose confirmed outcome names the failure

def _terse_precedent(cause: str, summary: str):
    page = memory(
        "inc-0052",
        service="payment-service",
        runbook="payment-rotate-psp-key",
        title="[FIRING:1] PaymentAuthDeclinesHigh payment-service",
        description="declines 14% > 3% for 10m",
        symptoms=["5xx"],
        resolved_at=T0 - timedelta(days=9),
    )
    return page.model_copy(update={"resolution": page.resolution.model_copy(update={"root_cause": cause, "summary": summary})})


PSP_REPORT = incident(
    service="payment-service",
    title="payment-service declines: the card processor rejects our API key since the rotation",
    description="authorisations fail with invalid_api_key from the card processor; the key rotated at 02:00 "
                "and the processor still holds the old one",
    symptoms=["5xx", "auth-errors"],
)
PSP_CATALOG = [runbook("payment-rotate-psp-key", ["payment-service"], ["auth-errors"])]


def test_a_precedent_below_the_novel_bar_is_recognised_by_its_confirmed_outcome() -> None:
    named = _terse_precedent(
        "the card processor kept the old API key after our rotation: every authorisation failed with invalid_api_key",
        "pushed the rotated API key to the card processor with payment-rotate-psp-key",
    )
    silent = _terse_precedent("unknown", "recovered on its own")
    with_outcome = assess(PSP_REPORT, [named], context(catalog=PSP_CATALOG))
    without = assess(PSP_REPORT, [silent], context(catalog=PSP_CATALOG))
    # The same report, the same page: only what the outcome says differs.
    assert with_outcome.matches[0].similarity == without.matches[0].similarity < 55
    assert not any(r.startswith("inc-0052 is recognised") for r in without.recommendation.reasons)
    # Unrecognised, it is novel; only because the catalog's offer ran in it is it still taken for a recurrence.
    assert "is what fixed its nearest past incident (inc-0052)" in without.recommendation.reasons[-1]
    alone = tuple(p for p in gate.CHAIN if p is not gate.catalog_fixed_nearest)
    assert assess(PSP_REPORT, [silent], context(catalog=PSP_CATALOG), chain=alone).recommendation.mode == "novel"
    rec = with_outcome.recommendation
    assert (rec.mode, rec.runbook) == ("advisory", "payment-rotate-psp-key")
    assert any(r.startswith("inc-0052 is recognised") for r in rec.reasons), rec.reasons


# A search cluster filled its disks; the watermarks were raised and that worked.
# Later the team wrote a runbook that deletes expired indices for the same failure.
DISK = {
    "title": "search-index data nodes past the flood-stage watermark, indices read-only",
    "description": "disk on two data nodes passed 95%; writes to every index with a shard there are blocked",
    "symptoms": ["disk-full", "read-only-index", "ingest-stalled"],
}
RAISE = runbook("search-raise-watermarks", ["search-index"], ["disk-full", "read-only-index"])
EXPIRE = runbook("search-delete-expired-indices", ["search-index"], ["disk-full", "read-only-index", "ingest-stalled"])
WORKED = T0 + timedelta(days=10)


def _disk_answer(raise_created, expire_created):
    raised = memory("inc-1", service="search-index", runbook=RAISE.name, resolved_at=WORKED, **DISK)
    catalog = [RAISE.model_copy(update={"created_at": raise_created}),
               EXPIRE.model_copy(update={"created_at": expire_created})]
    return assess(incident(service="search-index", **DISK), [raised], context(catalog=catalog)).recommendation


def test_a_runbook_written_after_memory_s_fix_last_worked_is_shown_instead() -> None:
    rec = _disk_answer(T0, WORKED + timedelta(days=20))
    assert (rec.mode, rec.runbook, rec.source) == ("advisory", EXPIRE.name, "catalog")
    assert any(f"memory's fix, runbook {RAISE.name}, last worked (inc-1, resolved 2025-01-11)" in r
               for r in rec.reasons)
    assert any("never ran for this failure" in w for w in rec.warnings)


@pytest.mark.parametrize(
    ("raise_created", "expire_created"),
    [
        (T0, WORKED - timedelta(days=1)),  # the other runbook was there already when memory's fix worked
        (WORKED + timedelta(days=30), WORKED + timedelta(days=30)),  # the whole catalog was created afresh since
        (T0, None),  # nobody knows when it came
        (None, WORKED + timedelta(days=20)),  # nor when memory's own runbook came
    ],
    ids=["older", "catalog-created-afresh", "age-unknown", "remembered-age-unknown"],
)
def test_memory_s_fix_stands_when_nothing_says_the_other_runbook_came_after_it(raise_created, expire_created) -> None:
    rec = _disk_answer(raise_created, expire_created)
    assert (rec.runbook, rec.source) == (RAISE.name, "memory")


# One look-alike fixed by fix-x scores 66; three fixed by fix-y score 63, 54 and 51.
FIX_X, FIX_Y = runbook("fix-x", ["cart-service"], ["timeout"]), runbook("fix-y", ["cart-service"], ["timeout"])


def _look_alikes(*found: tuple[str, str, int]) -> list[ScoredMemory]:
    return [ScoredMemory(memory(name, runbook=rb, resolved_at=T0 + timedelta(days=i), symptoms=["timeout"]),
                         similarity, Breakdown(1, 1, 1, 1, 1, 1))
            for i, (name, rb, similarity) in enumerate(found)]


def test_look_alikes_under_the_novel_bar_vote_once_the_incident_has_a_precedent() -> None:
    scored = _look_alikes(("inc-a", "fix-x", 66), ("inc-b", "fix-y", 63), ("inc-c", "fix-y", 54), ("inc-d", "fix-y", 51))
    found = gather(incident(symptoms=["timeout"]), scored, merge_repages(scored), context(catalog=[FIX_X, FIX_Y]),
                   Settings())
    assert gate.decide(found.evidence).runbook == "fix-y"
    assert "3 of 4 independent precedents were resolved by runbook fix-y" in found.reasons
    assert {"inc-c", "inc-d"} <= set(found.names)


def test_a_novel_incident_s_look_alikes_are_no_evidence() -> None:
    scored = _look_alikes(("inc-a", "fix-x", 54), ("inc-b", "fix-y", 50))
    # The catalog offers fix-y, which only the farther look-alike ran.
    found = gather(incident(symptoms=["timeout"]), scored, merge_repages(scored), context(catalog=[FIX_Y]),
                   Settings())
    assert (found.evidence.fixes, found.names) == ((), [])
    assert gate.decide(found.evidence).mode == "novel"
    # The nearest ran the runbook the catalog offers: it alone is named, as what the offer fixed, and still
    # nothing votes.
    offered = gather(incident(symptoms=["timeout"]), scored, merge_repages(scored), context(catalog=[FIX_X]),
                     Settings())
    assert (offered.evidence.fixes, offered.names, offered.evidence.fixed_nearest) == ((), ["inc-a"], ("inc-a",))


# --------------------------------------------------------------------------
# the votes that make the fixes the chain reads (recommend._votes)


def _voter(name: str, similarity: int, runbook: str | None = None, result: str = "succeeded") -> ScoredMemory:
    actions = [(f"run runbook {runbook}", result)] if runbook else [("fixed it by hand", "succeeded")]
    return ScoredMemory(memory(name, runbook=runbook, actions=actions), similarity, Breakdown(1, 1, 1, 1, 1, 1))


@pytest.mark.parametrize(
    ("voters", "support"),
    [
        ([_voter("a", 80, "fix-a")], {"fix-a": 80}),
        # One fix seen twice is as strong as its best precedent, and a little more.
        ([_voter("a", 70, "fix-a"), _voter("b", 80, "fix-a")], {"fix-a": 80 + recommend.FURTHER_WITNESS}),
        ([_voter("a", 80, "fix-a"), _voter("b", 60, "fix-b")], {"fix-a": 80, "fix-b": 60}),
        # A runbook that failed where it ran is no vote for anything there.
        ([_voter("a", 80, "fix-a", "failed"), _voter("b", 60, "fix-b")], {"fix-b": 60}),
        # A manual fix votes for what describes it (here: nothing).
        ([_voter("a", 75)], {None: 75}),
    ],
    ids=["one", "same-fix-twice", "two-fixes", "failed-runbook-no-vote", "by-hand"],
)
def test_votes(voters: list[ScoredMemory], support: dict[str | None, float]) -> None:
    got, ran_in, described_by = recommend._votes(voters, lambda m: m.resolution.runbook, Outcomes())
    assert got == support
    assert {rb: [s.memory.incident for s in ss] for rb, ss in ran_in.items()} == {
        rb: [v.memory.incident for v in voters if v.memory.resolution.runbook == rb] for rb in support if rb
    }
    assert set(described_by) == ({None} if None in support else set())


BY_HAND = Fix(None, 80.0, described=("inc-9",))
NEXT = Fix("fix-b", 64.0, ran_in=("inc-3",))


@pytest.mark.parametrize(
    ("fixes", "chosen"),
    [
        ((), None),
        ((FIX, NEXT), FIX),
        ((replace(FIX, blocked="is stale after migration m1"),), None),
        ((replace(FIX, blocked="failed before in inc-2"), NEXT), NEXT),
        # A manual fix leads, but a runbook has 0.8 of its support: the runbook is what a person sees.
        ((BY_HAND, NEXT), NEXT),
        ((BY_HAND, replace(NEXT, support=63.0)), BY_HAND),
    ],
    ids=["nothing", "the-leader", "all-blocked", "the-next-usable", "runbook-near-a-manual-fix", "manual-fix-well-ahead"],
)
def test_chosen_fix(fixes: tuple[Fix, ...], chosen: Fix | None) -> None:
    assert recommend.chosen_fix(fixes, 0.8) == chosen


# Two branches of one platform: the edge calls a search API and a video packager, each with its own store.
BRANCHES = Topology.parse(
    """
edge: {dependsOn: [search-api, video-packager]}
search-api: {dependsOn: [search-index]}
video-packager: {dependsOn: [object-store]}
search-index: {dependsOn: []}
object-store: {dependsOn: []}
nat-gateway: {dependsOn: []}
"""
)
# An alert page as a bridge writes it: the rule's grammar says more than the service's own words.
P99_PAGE = {"title": "[FIRING:1] LatencyHigh", "description": "p99 above 1s for 10 minutes",
            "symptoms": ["latency-spike"],
            "errorSignatures": ["histogram_quantile(0.99, sum by (le) (rate(request_seconds_bucket[5m]))) > 1"]}


def _packager_precedent(fixed_by: Runbook):
    return memory("inc-1", service="video-packager", runbook=fixed_by.name, resolved_at=T0, **P99_PAGE)


def test_a_remembered_runbook_for_a_service_this_one_neither_calls_nor_serves_gives_way() -> None:
    # The packager's page was fixed by restarting the packager; the same page from the search API
    # is not the packager's failure, and its fix would restart a service search never touches.
    restart = runbook("packager-restart", ["video-packager"], ["latency-spike"])
    search_rollback = runbook("search-rollback", ["search-api"], ["latency-spike"])
    ctx = context(catalog=[restart, search_rollback], topology=BRANCHES)
    rec = assess(incident(service="search-api", **P99_PAGE), [_packager_precedent(restart)], ctx).recommendation
    assert rec.runbook == "search-rollback", rec.reasons
    assert ("precedents used runbook packager-restart, but it acts on video-packager, which search-api does not "
            "call, directly or further down, and which does not call search-api") in rec.reasons
    # From the edge, which calls the packager, the packager can be what broke.
    from_edge = assess(incident(service="edge", **P99_PAGE), [_packager_precedent(restart)], ctx).recommendation
    assert from_edge.runbook == "packager-restart", from_edge.reasons


def test_a_runbook_memory_saw_fix_this_services_own_page_is_not_judged_by_the_graph() -> None:
    # The search API paged once before, and restarting the packager fixed it: some path the graph
    # does not draw (a shared thumbnail cache, say) runs between them. Memory saw it; the graph
    # does not overrule what memory saw here.
    restart = runbook("packager-restart", ["video-packager"], ["latency-spike"])
    search_rollback = runbook("search-rollback", ["search-api"], ["latency-spike"])
    ctx = context(catalog=[restart, search_rollback], topology=BRANCHES)
    seen_here = memory("inc-2", service="search-api", runbook=restart.name, resolved_at=T0 + timedelta(days=3),
                       **P99_PAGE)
    rec = assess(incident(service="search-api", **P99_PAGE), [_packager_precedent(restart), seen_here],
                 ctx).recommendation
    assert rec.runbook == "packager-restart", rec.reasons
    assert not any("does not call" in r for r in rec.reasons), rec.reasons
    # A neighbour's page is not this service's: the search index paged, and the rule judges again.
    index_page = memory("inc-3", service="search-index", runbook=restart.name, resolved_at=T0 + timedelta(days=3),
                        **P99_PAGE)
    nearby = assess(incident(service="search-api", **P99_PAGE), [_packager_precedent(restart), index_page],
                    ctx).recommendation
    assert any("acts on video-packager, which search-api does not call" in r for r in nearby.reasons), nearby.reasons


def test_a_runbook_for_a_service_the_graph_draws_no_edge_to_is_not_judged_by_the_graph() -> None:
    # Whoever drew the topology left the NAT gateway without edges: every service may use it.
    nat = runbook("nat-restart", ["nat-gateway"], ["latency-spike"])
    ctx = context(catalog=[nat], topology=BRANCHES)
    rec = assess(incident(service="search-api", **P99_PAGE), [_packager_precedent(nat)], ctx).recommendation
    assert rec.runbook == "nat-restart", rec.reasons
    # Nor is a service the graph does not name (its neighbours would be guessed).
    restart = runbook("packager-restart", ["video-packager"], ["latency-spike"])
    unnamed = assess(incident(service="recs-api", **P99_PAGE), [_packager_precedent(restart)],
                     context(catalog=[restart], topology=BRANCHES)).recommendation
    assert not any("does not call" in r for r in unnamed.reasons), unnamed.reasons


# A fleet's allocation page, twice: once after a build went out (that build was the cause), once a
# capacity limit. The same words; what differs is the release before it and what the outcome blamed.
ALLOCATION_PAGE = {"title": "[FIRING:1] AllocationFailures fleet-allocator",
                   "description": "allocator answers UnAllocated for more than 2 requests/s",
                   "symptoms": ["allocation-failures"]}
FLEET_RAISE = runbook("fleet-raise-capacity", ["fleet-allocator"], ["allocation-failures"])
PREVIOUS_BUILD = runbook("previous-build", ["fleet-allocator"], ["allocation-failures"])


def _allocation_history():
    capacity = memory("inc-1", service="fleet-allocator", runbook=FLEET_RAISE.name, resolved_at=T0,
                      **{**ALLOCATION_PAGE, "description": "node group at its max size, servers Pending"})
    release = memory(
        "inc-2", service="fleet-allocator", resolved_at=T0 + timedelta(days=9), **ALLOCATION_PAGE,
        deployment={"id": "game-server-7.3.0", "revision": "7.3.0", "minutesSinceDeploy": 24},
        res=resolution(PREVIOUS_BUILD.name, [(f"run runbook {FLEET_RAISE.name}", "failed"),
                                             (f"run runbook {PREVIOUS_BUILD.name}", "succeeded")],
                       rootCause="build 7.3.0 ran out of memory loading a map before reporting Ready"),
    )
    return [capacity, release]


def test_a_release_s_failure_neither_votes_nor_blocks_where_no_release_came_before() -> None:
    ctx = context(catalog=[FLEET_RAISE, PREVIOUS_BUILD])
    rec = assess(incident(service="fleet-allocator", **ALLOCATION_PAGE), _allocation_history(), ctx).recommendation
    assert rec.runbook == FLEET_RAISE.name, rec.reasons
    assert ("inc-2 was a failure of the release it followed (7.3.0, its confirmed cause says), and no release is "
            "recorded shortly before this incident: its fix and its failures do not count here") in rec.reasons
    # After a release of its own, the release's failure is this incident's precedent again.
    released = incident(service="fleet-allocator", **ALLOCATION_PAGE,
                        deployment={"id": "game-server-7.4.0", "revision": "7.4.0", "minutesSinceDeploy": 15})
    again = assess(released, _allocation_history(), ctx).recommendation
    assert again.runbook == PREVIOUS_BUILD.name, again.reasons
    assert not any("failure of the release" in r for r in again.reasons)


def _side(name: str, similarity: int, condition: float, denied: tuple[str, ...] = ()) -> Side:
    return Side("c", name, (f"inc-{name}",), similarity, condition, denied)


@pytest.mark.parametrize(("sides", "speaks"), [
    # One side's words clearly lead (1.5 times the next): the words decide, however near the other's memory.
    ([_side("a", 80, 0.18), _side("b", 83, 0.06)], False),
    # About as much of each side's words, and one side's memory clearly nearer: that side.
    ([_side("a", 77, 0.10), _side("b", 58, 0.08)], True),
    # About as much, but the memories only 2 points apart: the words still decide.
    ([_side("a", 93, 0.07), _side("b", 91, 0.10)], False),
    # No word of either condition: nothing to weigh, the side confirmed last speaks.
    ([_side("a", 70, 0.0), _side("b", 40, 0.0)], False),
    # A side whose words this incident denies is out of the weighing, and one side is left.
    ([_side("a", 77, 0.10), _side("b", 58, 0.08, ("idle",))], False),
    ([_side("a", 77, 0.10), _side("b", 58, 0.08, ("idle",)), _side("c", 50, 0.09)], True),
    # Two sides tie on the words; the third, far behind in them, has the nearest memory: it takes no part,
    # and the two that tie are only 2 points apart.
    ([_side("a", 60, 0.15), _side("b", 58, 0.15), _side("c", 90, 0.03)], False),
    ([_side("a", 60, 0.15), _side("b", 25, 0.15), _side("c", 90, 0.03)], True),
])
def test_nearest_side_speaks_only_when_the_words_do_not_tell_the_sides_apart(sides, speaks: bool) -> None:
    assert recommend.nearest_side_speaks(sides) is speaks


def test_a_side_clearly_behind_in_the_words_is_not_lifted_by_its_nearer_memory() -> None:
    tied, far, behind = _side("a", 60, 0.15), _side("b", 25, 0.15), _side("c", 90, 0.03)
    assert recommend.contenders([tied, far, behind]) == [tied, far]
    line = side_reason(tied, [far, behind])
    assert line.startswith("contradiction c: this incident resembles the side of inc-a (its nearest memory, "
                           "similarity 60 against 25, fixed by a)"), line
    assert line.endswith("; clearly behind in them: inc-c (0.03, fixed by c)"), line


def test_a_runbook_that_undid_releases_is_offered_for_a_new_failure_right_after_a_release() -> None:
    # The rollback fixed two releases' failures on other services; it ran, so in novel mode its
    # catalog entry alone (declared for 5xx and latency, not for a login failure) no longer speaks
    # for it, unless this incident too follows a release: that is where undoing a release applies.
    rollback = runbook("release-rollback", ["checkout-api", "payment-service", "cart-service"],
                       ["5xx", "latency-spike"])
    before = [
        memory(f"inc-{i}", service=svc, resolved_at=T0 + timedelta(days=i), title=title, symptoms=["5xx"],
               deployment={"id": f"{svc}-{i}.2.0", "revision": f"{i}.2.0", "minutesSinceDeploy": 20},
               res=resolution(rollback.name, [(f"run runbook {rollback.name}", "succeeded")],
                              rootCause=f"release {i}.2.0 of {svc} broke its database queries"))
        for i, (svc, title) in enumerate([("checkout-api", "checkout failing after the deploy"),
                                          ("payment-service", "payments erroring since the rollout")], start=1)
    ]
    ctx = context(catalog=[rollback], records={rollback.name: RunbookRecord(times_executed=2, times_succeeded=2)})
    new_failure = {"title": "shoppers logged out when they open the cart", "symptoms": ["5xx", "login-failure"]}
    released = incident(service="cart-service", **new_failure,
                        deployment={"id": "cart-service-7.0.0", "revision": "7.0.0", "minutesSinceDeploy": 12})
    rec = assess(released, before, ctx).recommendation
    assert (rec.mode, rec.runbook) == ("novel", rollback.name), rec.reasons
    assert (f"runbook {rollback.name} undid the releases that caused inc-1, inc-2 (their confirmed causes name "
            "them), and this incident follows a release: its catalog entry speaks for it here") in rec.reasons
    # Nothing released before it: the runbook's record says where it works, and this is not there.
    unreleased = assess(incident(service="cart-service", **new_failure), before, ctx).recommendation
    assert (unreleased.mode, unreleased.runbook) == ("novel", None), unreleased.reasons


# -- a runbook's failure where what it is for was absent --------------------------------------

DKIM = runbook("mailer-rotate-dkim-key", ["mailer"], ["delivery-failures", "auth-rejects"])
SENDERS = runbook("mailer-scale-senders", ["mailer"], ["delivery-failures", "queue-backlog"])
BOUNCING = {"title": "outbound mail deliveries failing for most tenants",
            "description": "receiving servers bounce our messages; deliveries failing since the morning"}


def _signature_then_backlog():
    """inc-1: the signing key, fixed by rotating it. inc-2 looked alike but was a sender backlog: the
    rotation was tried there first and failed, and scaling the senders fixed it."""
    signed = memory("inc-1", service="mailer", resolved_at=T0, runbook=DKIM.name,
                    **{**BOUNCING, "symptoms": ["delivery-failures", "auth-rejects"]})
    backlog = memory("inc-2", service="mailer", resolved_at=T0 + timedelta(days=20), runbook=SENDERS.name,
                     actions=[(f"run runbook {DKIM.name}", "failed"), (f"run runbook {SENDERS.name}", "succeeded")],
                     **{**BOUNCING, "symptoms": ["delivery-failures", "queue-backlog"]})
    return [signed, backlog], context(catalog=[DKIM, SENDERS])


def test_a_runbook_that_failed_where_what_it_is_for_was_absent_is_not_held_against_it() -> None:
    memories, ctx = _signature_then_backlog()
    rejected = incident(service="mailer", **{**BOUNCING, "symptoms": ["delivery-failures", "auth-rejects"]})
    rec = assess(rejected, memories, ctx).recommendation
    assert rec.runbook == DKIM.name, rec.reasons
    assert (f"runbook {DKIM.name} failed in inc-2, which did not show auth-rejects: the runbook is declared for it "
            "and this incident shows it, and it worked in a precedent as near, so that failure was under other "
            "conditions") in rec.reasons
    assert not any("tried before under the same conditions" in w for w in rec.warnings), rec.warnings
    # Where the rotation never worked, a tag inc-2 left out is no evidence of another condition.
    alone = assess(rejected, memories[1:], ctx).recommendation
    assert any(f"runbook {DKIM.name} was tried before under the same conditions and failed (inc-2)" in w
               for w in alone.warnings), alone.warnings
    # Where this incident does not show the rejections either, inc-2's conditions were this one's:
    # the rotation's failure there counts against it.
    bare = incident(service="mailer", **{**BOUNCING, "symptoms": ["delivery-failures"]})
    plain = assess(bare, memories, ctx).recommendation
    assert plain.runbook != DKIM.name or plain.mode != "actionable", plain.reasons
    assert any(f"runbook {DKIM.name} was tried before under the same conditions and failed (inc-2)" in w
               for w in plain.warnings), plain.warnings


def test_a_precedent_that_declared_no_symptoms_is_not_read_as_lacking_one() -> None:
    memories, ctx = _signature_then_backlog()
    untagged = memories[1].model_copy(update={"spec": memories[1].spec.model_copy(update={"symptoms": []})})
    rejected = incident(service="mailer", **{**BOUNCING, "symptoms": ["delivery-failures", "auth-rejects"]})
    rec = assess(rejected, [memories[0], untagged], ctx).recommendation
    assert any(f"runbook {DKIM.name} was tried before under the same conditions and failed (inc-2)" in w
               for w in rec.warnings), rec.warnings


# -- a reconciled note's thresholds, read against the values a page reports -------------------

ADD_WORKERS = runbook("resizer-add-workers", ["image-resizer"], ["queue-backlog"])
PURGE_CACHE = runbook("resizer-purge-origin-cache", ["image-resizer"], ["queue-backlog"])
RESIZE_PAGE = "[FIRING:1] ResizeQueueDelay image-resizer"


def _resize_page(name: str, ratio: int, delay: int = 7, **fields):
    text = {"title": RESIZE_PAGE, "description": f"resize queue delay {delay}m; origin cache hit ratio {ratio}%",
            "symptoms": ["queue-backlog"], "labels": {"alertname": "ResizeQueueDelay"}}
    if name == "inc-new":
        return incident(service="image-resizer", **text)
    return memory(name, service="image-resizer", **text, **fields)


def _cache_or_volume():
    """Two pages of one alert, the same words but for a number: a surge with a warm cache (more
    workers) and a cold cache (purge it; more workers failed first). A contradiction reconciled by a
    note that gives each condition as a threshold, and a later page of the cold cache, not listed in it."""
    surge = _resize_page("inc-1", 93, runbook=ADD_WORKERS.name)
    cold = _resize_page("inc-2", 28, resolved_at=T0 + timedelta(days=10), runbook=PURGE_CACHE.name,
                        actions=[(f"run runbook {ADD_WORKERS.name}", "failed"),
                                 (f"run runbook {PURGE_CACHE.name}", "succeeded")])
    again = _resize_page("inc-3", 31, delay=9, resolved_at=T0 + timedelta(days=30), runbook=PURGE_CACHE.name)
    note = ("Both hold, under different conditions. Uploads surging with a warm cache (origin cache hit ratio "
            "above 80%): add workers (resizer-add-workers). A cold or poisoned cache (origin cache hit ratio "
            "under 50%): purge it (resizer-purge-origin-cache); more workers only wait on the origin.")
    c = contradiction("resize-backlog", {"inc-1": "more workers drained the queue",
                                         "inc-2": "more workers did not help; purging the cache did"},
                      state="reconciled", topic="resize queue backlog", note=note)
    return [surge, cold, again], context(catalog=[ADD_WORKERS, PURGE_CACHE], contradictions=[c])


@pytest.mark.parametrize(("ratio", "side", "other"), [
    (90, ADD_WORKERS.name, PURGE_CACHE.name),
    (25, PURGE_CACHE.name, ADD_WORKERS.name),
])
def test_the_side_whose_threshold_the_page_meets_speaks(ratio: int, side: str, other: str) -> None:
    memories, ctx = _cache_or_volume()
    rec = assess(_resize_page("inc-new", ratio), memories, ctx).recommendation
    assert rec.runbook == side, rec.reasons
    line = next(r for r in rec.reasons if r.startswith("contradiction resize-backlog: read against the thresholds"))
    bound = "above 80%" if side == ADD_WORKERS.name else "under 50%"
    assert f"put it on the side of inc-{1 if side == ADD_WORKERS.name else 2}" in line, line
    assert f"(fixed by {side}): 'origin cache hit ratio {ratio}%' meets 'origin cache hit ratio {bound}'" in line, line
    assert f"(fixed by {other}): 'origin cache hit ratio {ratio}%' misses" in line, line


def test_without_the_thresholds_the_words_cannot_tell_the_two_pages_apart(monkeypatch) -> None:
    memories, ctx = _cache_or_volume()
    monkeypatch.setattr(recommend, "note_readings", lambda c, runbooks, values: [[] for _ in runbooks])
    warm = assess(_resize_page("inc-new", 90), memories, ctx).recommendation
    cold = assess(_resize_page("inc-new", 25), memories, ctx).recommendation
    assert warm.runbook == cold.runbook, (warm.reasons, cold.reasons)


def test_a_value_in_another_unit_or_of_another_quantity_reads_nothing() -> None:
    memories, ctx = _cache_or_volume()
    for description in ("resize queue delay 8m; origin cache hit ratio 0.9", "resize queue delay 8m; cpu 90%"):
        page = incident(service="image-resizer", title=RESIZE_PAGE, description=description,
                        symptoms=["queue-backlog"])
        rec = assess(page, memories, ctx).recommendation
        assert not any("read against the thresholds" in r for r in rec.reasons), rec.reasons


# -- a stale runbook's successor -------------------------------------------------------------

def test_the_replacement_for_a_stale_fix_is_its_successor_not_the_page_s_best_fit() -> None:
    old = runbook("redis-vm-flush-keys", ["redis-cluster", "cart-service"], ["latency-spike", "timeout", "evictions"])
    new = runbook("redis-managed-flush-keys", ["redis-cluster", "cart-service"], ["latency-spike", "timeout", "evictions"])
    sessions = runbook("cart-trim-sessions", ["cart-service"], ["timeout"])
    text = {"title": "cart requests timing out", "description": "cart lookups time out against the cache",
            "symptoms": ["timeout"]}
    flushed = memory("inc-1", service="cart-service", runbook=old.name, **text)
    moved = migration("redis-to-managed", "redis-cluster", [old.name], when=T0 + timedelta(days=14))
    ctx = context(catalog=[old, new, sessions], migrations=[moved])
    rec = assess(incident(service="cart-service", **text), [flushed], ctx).recommendation
    assert rec.runbook == new.name, rec.reasons
    assert any(r.endswith(f"declared for what {old.name} was (100% of it): its successor)") for r in rec.reasons), rec.reasons
    # Without a successor in the catalog, the page's best fit is offered, as before.
    alone = assess(incident(service="cart-service", **text), [flushed], context(catalog=[old, sessions],
                                                                               migrations=[moved])).recommendation
    assert alone.runbook == sessions.name, alone.reasons


@pytest.mark.parametrize(("sentence", "side"), [
    ("A cold cache (hit ratio under 50%): purge it (resizer-purge-origin-cache).", 1),
    # Both named: the sentence speaks of neither alone.
    ("Not resizer-add-workers but resizer-purge-origin-cache when the cache is cold.", None),
    # No name, but the words of one side's fix that the other's name lacks.
    ("When the hit ratio is above 80%, add workers.", 0),
    ("If the origin is cold, purge the origin cache.", 1),
    # Only the words both names share ("resizer"): no side.
    ("The resizer queue is the first thing to look at.", None),
])
def test_a_sentence_of_a_reconciled_note_speaks_of_the_side_it_names_or_whose_fix_it_says(sentence, side) -> None:
    assert recommend.note_side(sentence, [ADD_WORKERS.name, PURGE_CACHE.name, None]) == side


# -- a failure under the other side's condition does not bar a runbook from its own side --------

POOL = runbook("checkout-raise-db-pool", ["checkout-api"], ["timeout"], title="raise the checkout database pool")
BYPASS = runbook("checkout-bypass-fraud-check", ["checkout-api"], ["timeout"],
                 title="bypass the fraud check at checkout while the fraud vendor's scoring API is slow")


def _pool_or_fraud_check():
    """Checkout timeouts under two conditions: the database pool ran out (raise it), or the fraud
    check went slow (bypassed by hand; a runbook for that was written afterwards). In inc-3, a pool
    exhaustion, the bypass runbook was tried first and failed."""
    text = {"title": "checkout requests timing out", "symptoms": ["timeout"]}
    pool = memory("inc-1", service="checkout-api", runbook=POOL.name,
                  description="every connection of the checkout database pool is taken", **text)
    fraud = memory("inc-2", service="checkout-api", resolved_at=T0 + timedelta(days=5), **text,
                   description="the fraud check answers in 20 seconds; checkout waits on it",
                   res=resolution(None, [(f"run runbook {POOL.name}", "failed"),
                                         ("bypassed the slow fraud check at checkout by hand", "succeeded")],
                                  rootCause="the fraud vendor's scoring API slowed down"))
    pool_again = memory("inc-3", service="checkout-api", resolved_at=T0 + timedelta(days=20), runbook=POOL.name,
                        description="checkout database pool exhausted again", **text,
                        actions=[(f"run runbook {BYPASS.name}", "failed"), (f"run runbook {POOL.name}", "succeeded")])
    c = contradiction("checkout-timeouts", {"inc-1": "raising the database pool fixed it",
                                            "inc-2": "raising the pool did nothing; the fraud check was slow",
                                            "inc-3": "the pool again; bypassing the fraud check did nothing"},
                      topic="checkout timeouts")
    return [pool, fraud, pool_again], context(catalog=[POOL, BYPASS], contradictions=[c])


def test_a_runbook_that_failed_under_the_other_condition_still_describes_this_side_s_manual_fix() -> None:
    memories, ctx = _pool_or_fraud_check()
    slow_check = incident(service="checkout-api", title="checkout requests timing out", symptoms=["timeout"],
                          description="the fraud check is slow again, checkout waits on its answers")
    rec = assess(slow_check, memories, ctx).recommendation
    assert rec.runbook == BYPASS.name, rec.reasons
    assert f"runbook {BYPASS.name} describes the manual fix of inc-2" in " ".join(rec.reasons), rec.reasons
    # The pool's side: the failure of the bypass there stands, as it did.
    exhausted = incident(service="checkout-api", title="checkout requests timing out", symptoms=["timeout"],
                         description="every connection of the checkout database pool is taken again")
    pool_rec = assess(exhausted, memories, ctx).recommendation
    assert pool_rec.runbook == POOL.name, pool_rec.reasons


# -- a reconciled side acted on only when the incident shows its condition ----------------------

def _surges_and_a_cold_cache():
    """A cold cache fixed by a purge (more workers failed there), then three warm-cache surges fixed by
    more workers, and a note that gives each condition in words: a record good enough to act on."""
    page = {"title": RESIZE_PAGE, "description": "resize queue delay over ten minutes", "symptoms": ["queue-backlog"]}
    surges = [memory(f"inc-{i}", service="image-resizer", runbook=ADD_WORKERS.name,
                     resolved_at=T0 + timedelta(days=4 + i), **page) for i in (1, 2, 3)]
    cold = memory("inc-4", service="image-resizer", resolved_at=T0, runbook=PURGE_CACHE.name,
                  actions=[(f"run runbook {ADD_WORKERS.name}", "failed"), (f"run runbook {PURGE_CACHE.name}", "succeeded")],
                  **{**page, "description": "resize queue delay, origin answers slowly, thumbnails missing"})
    note = ("Both hold. Uploads surging after a campaign send with the origin healthy: add workers "
            "(resizer-add-workers). A cold or poisoned origin cache, thumbnails missing: purge it "
            "(resizer-purge-origin-cache).")
    c = contradiction("resize-backlog", {"inc-1": "more workers drained it", "inc-4": "more workers failed; a purge"},
                      state="reconciled", topic="resize queue backlog", note=note)
    records = {ADD_WORKERS.name: RunbookRecord(times_executed=12, times_succeeded=12)}
    return [*surges, cold], context(catalog=[ADD_WORKERS, PURGE_CACHE], contradictions=[c], records=records)


def test_a_reconciled_side_whose_condition_the_page_does_not_show_is_not_acted_on() -> None:
    memories, ctx = _surges_and_a_cold_cache()
    bare = incident(service="image-resizer", title=RESIZE_PAGE, description="resize queue delay over ten minutes",
                    symptoms=["queue-backlog"])
    rec = assess(bare, memories, ctx).recommendation
    assert (rec.mode, rec.runbook) == ("advisory", ADD_WORKERS.name), rec.reasons
    assert rec.actionability == Settings().actionable_bar - 1
    assert any("a condition this incident shows nothing of" in r for r in rec.reasons), rec.reasons
    # The same page that says the surge's condition ("campaign", "healthy") may be acted on.
    said = incident(service="image-resizer", title=RESIZE_PAGE, symptoms=["queue-backlog"],
                    description="resize queue delay over ten minutes since the campaign send, origin healthy")
    acted = assess(said, memories, ctx).recommendation
    assert (acted.mode, acted.runbook) == ("actionable", ADD_WORKERS.name), acted.reasons
