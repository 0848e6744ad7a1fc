"""Guards (staleness, failed before, contradictions) and the catalog fit."""

from __future__ import annotations

from datetime import timedelta

import pytest

from recall_operator.domain.catalog import (
    CATALOG_FIT_BAR,
    DESCRIBED_BAR,
    addresses,
    best_catalog_fit,
    catalog_fit,
    covers,
    described_by_words,
    runbook_for_fix,
    successor,
    unlisted,
)
from recall_operator.domain.guards import (
    failed_before,
    memory_staleness,
    migration_time,
    open_contradictions,
    stale_runbooks,
)
from recall_operator.domain.models import MigrationSpec
from domain_builders import T0, TOPOLOGY, contradiction, memory, migration, resolution, runbook, spec

MIGRATED = T0 + timedelta(days=14)
LATER = T0 + timedelta(days=60)
MIG = migration("redis-to-enterprise", "redis-cluster", ["redis-restart-vm"], when=MIGRATED, keywords=["restart redis-server"])


@pytest.mark.parametrize(
    ("mem", "now", "stale"),
    [
        (memory("inc-1", runbook="redis-restart-vm", resolved_at=T0), LATER, True),  # used the runbook
        (memory("inc-1", actions=[("ssh in and restart redis-server", "succeeded")], resolved_at=T0), LATER, True),
        (memory("inc-1", runbook="redis-restart-vm", resolved_at=MIGRATED + timedelta(days=1)), LATER, False),
        (memory("inc-1", runbook="redis-restart-vm", resolved_at=T0), MIGRATED - timedelta(days=1), False),
        (memory("inc-1", runbook="k8s-rollback", resolved_at=T0), LATER, False),  # another fix
        # On a service the migration does not touch, only the runbook counts: recorded, though no action names it,
        (memory("inc-1", service="orders-db", resolved_at=T0,
                res=resolution("redis-restart-vm", [("failed the primary over by hand", "succeeded")])), LATER, True),
        # ... and not when an action names only a longer runbook name that contains it.
        (memory("inc-1", service="orders-db", resolved_at=T0,
                actions=[("run redis-restart-vm-graceful", "succeeded")]), LATER, False),
    ],
)
def test_memory_staleness(mem, now, stale: bool) -> None:
    found = memory_staleness(mem, [MIG], TOPOLOGY, now)
    assert (found is not None) is stale
    if found:
        assert found.migration == "redis-to-enterprise" and found.deduction == 29
        assert "inc-1" in found.why and "redis-to-enterprise" in found.why


@pytest.mark.parametrize(
    ("keyword", "fix", "stale"),
    [
        ("lb", "rollback of the release", False),  # r-o-l-l-b-a-c-k holds "lb", not the word
        ("ha", "changed the pool size", False),
        ("lb", "drained the LB first, then restarted", True),
        ("haproxy", "reloaded haproxy.", True),
        ("restart redis-server", "ssh in and restart redis-server on each VM", True),
        ("restart redis-server", "restart redis-servers", False),
    ],
)
def test_a_fix_keyword_counts_only_as_whole_words(keyword: str, fix: str, stale: bool) -> None:
    # The memory is on another service than the migrated one: only the keyword can make it stale.
    m = migration("edge-lb-to-cloud", "edge-ingress", keywords=[keyword], when=MIGRATED)
    mem = memory("inc-1", service="cart-service", actions=[(fix, "succeeded")], resolved_at=T0)
    assert (memory_staleness(mem, [m], TOPOLOGY, LATER) is not None) is stale


@pytest.mark.parametrize(
    ("now", "expected"),
    [(MIGRATED - timedelta(seconds=1), {}), (MIGRATED, {"redis-restart-vm": "redis-to-enterprise"})],
)
def test_stale_runbooks_only_once_in_effect(now, expected) -> None:
    assert stale_runbooks([MIG], now) == expected


def test_stale_runbooks_from_a_date_only_migration() -> None:
    m = migration("m", "redis-cluster", ["rb"], when=MIGRATED).model_copy(update={"applied_at": None})
    assert stale_runbooks([m], MIGRATED - timedelta(hours=1)) == {}
    assert stale_runbooks([m], MIGRATED) == {"rb": "m"}


@pytest.mark.parametrize(
    ("applied", "took_effect"),
    [
        (MIGRATED + timedelta(hours=7), MIGRATED + timedelta(hours=7)),  # applied on its day: that moment
        (MIGRATED + timedelta(days=30), MIGRATED + timedelta(days=30)),  # written down late: when it was learned
        (MIGRATED - timedelta(days=30), MIGRATED),  # written down ahead: not in effect before its date
        (None, MIGRATED),
    ],
)
def test_a_migration_takes_effect_when_learned_but_never_before_its_date(applied, took_effect) -> None:
    m = MIG.model_copy(update={"applied_at": applied})
    assert migration_time(m) == took_effect
    # Before its date nothing is stale yet, however early it was written down.
    before = memory("inc-0", runbook="redis-restart-vm", resolved_at=T0)
    assert stale_runbooks([m], MIGRATED - timedelta(hours=1)) == {}
    assert memory_staleness(before, [m], TOPOLOGY, MIGRATED - timedelta(hours=1)) is None
    assert memory_staleness(before, [m], TOPOLOGY, MIGRATED + timedelta(days=40)) is not None


@pytest.mark.parametrize(
    ("attempts", "expected"),
    [
        ([("failed", 0)], {"rb": "inc-0"}),
        ([("failed", 0), ("succeeded", 1)], {}),  # worked later: not held against it
        ([("succeeded", 0), ("failed", 1)], {"rb": "inc-1"}),  # the LAST attempt decides
        ([("failed", 1), ("succeeded", 0)], {"rb": "inc-1"}),  # by time, not by list order
        ([], {}),
    ],
)
def test_failed_before_uses_the_last_attempt(attempts: list[tuple[str, int]], expected: dict) -> None:
    precedents = [
        memory(f"inc-{day}", actions=[("run runbook rb", result)], resolved_at=T0 + timedelta(days=day))
        for result, day in attempts
    ]
    assert failed_before(precedents, ["rb", "other"]) == expected


def test_open_contradictions_leave_reconciled_ones_out() -> None:
    open_c = contradiction("c-open", {"inc-1": "raise it", "inc-2": "lower it"})
    done = contradiction("c-done", {"inc-3": "a", "inc-4": "b"}, state="reconciled")
    assert [c.name for c in open_contradictions([open_c, done], ["inc-2"])] == ["c-open"]
    assert open_contradictions([open_c, done], ["inc-3", "inc-9"]) == []
    assert open_contradictions([open_c, done], ["inc-4"]) == []


REDIS_RB = runbook("redis-flush", ["cart-service", "redis-cluster"], ["latency-spike", "timeout"], title="flush redis hot keys")


@pytest.mark.parametrize(
    ("service", "symptoms", "fit", "why"),
    [
        # the tags are words the runbook says too: the word term is full (0.1) wherever they are shared
        ("cart-service", ["latency-spike", "timeout"], 1.0, "applies to cart-service"),
        ("checkout-api", ["latency-spike", "timeout"], 0.775, "applies to a neighbour of checkout-api"),
        ("orders-db", ["latency-spike", "timeout"], 0.55, "does not list orders-db"),
        ("cart-service", [], 0.45, "symptoms shared: none"),
    ],
)
def test_catalog_fit(service: str, symptoms: list[str], fit: float, why: str) -> None:
    result = catalog_fit(spec(service, title="nothing in common", symptoms=symptoms), REDIS_RB, TOPOLOGY)
    assert result.fit == pytest.approx(fit)
    assert why in result.why


def test_catalog_fit_the_runbook_s_words_count_least() -> None:
    said = {"description": "p99 of cart reads at 3 s, callers retry", "symptoms": ["timeout"]}
    plain = catalog_fit(spec(title="cart reads slow since noon", **said), REDIS_RB, TOPOLOGY).fit
    worded = catalog_fit(spec(title="cart reads slow since noon, redis hot keys", **said), REDIS_RB, TOPOLOGY).fit
    assert 0 < worded - plain <= 0.1
    # the service's own name is the service term's evidence, not a shared word
    named = catalog_fit(spec(title="cart-service cart reads slow since noon", **said), REDIS_RB, TOPOLOGY).fit
    assert named == plain


def test_best_catalog_fit_skips_the_excluded_and_the_unfit() -> None:
    other = runbook("cart-restart", ["cart-service"], ["latency-spike"])
    unrelated = runbook("db-vacuum", ["orders-db"], ["disk-full"])
    catalog = {rb.name: rb for rb in (REDIS_RB, other, unrelated)}
    s = spec(symptoms=["latency-spike", "timeout"])
    assert best_catalog_fit(s, catalog, TOPOLOGY).runbook == "redis-flush"
    assert best_catalog_fit(s, catalog, TOPOLOGY, excluded={"redis-flush"}).runbook == "cart-restart"
    assert best_catalog_fit(s, catalog, TOPOLOGY, excluded={"redis-flush", "cart-restart"}) is None
    assert best_catalog_fit(spec("orders-db"), {"redis-flush": REDIS_RB}, TOPOLOGY) is None
    assert CATALOG_FIT_BAR > 0


# A catalog whose runbooks declare no symptoms (the field is optional): each is read by its words.
UNTAGGED = {
    rb.name: rb
    for rb in (
        runbook("redis-flush", ["cart-service", "redis-cluster"], title="Flush hot keys when redis evictions spike"),
        runbook("cart-rollback", ["cart-service"], title="Roll the cart deployment back to its previous release"),
        runbook("db-vacuum", ["orders-db"], title="Vacuum bloated tables when autovacuum falls behind"),
    )
}


def test_a_runbook_that_declares_no_symptoms_is_offered_when_its_words_say_the_incident_s() -> None:
    evictions = spec(title="cart reads slow, redis evictions spiking since noon", description="hot keys evicted")
    fit = best_catalog_fit(evictions, UNTAGGED, TOPOLOGY)
    assert fit is not None and fit.runbook == "redis-flush"
    assert fit.described >= DESCRIBED_BAR and not fit.shared_symptoms
    assert "declares no symptoms, and its own words match this incident's (word match" in fit.why
    # On its service, with nothing of its words said, it is not offered: where it applies is not what it fixes.
    assert best_catalog_fit(spec(title="checkout totals are wrong", description="rounding"), UNTAGGED, TOPOLOGY) is None


def test_a_word_every_runbook_says_counts_little() -> None:
    """`echo` is in every runbook's steps here; `evictions` in one runbook's title."""
    common = described_by_words(spec(title="cart totals wrong by a cent, echo of yesterday"), UNTAGGED)
    rare = described_by_words(spec(title="cart totals wrong by a cent, evictions of yesterday"), UNTAGGED)
    assert set(common) == set(UNTAGGED)
    assert max(common.values()) < DESCRIBED_BAR < rare["redis-flush"]


def test_only_runbooks_without_declared_symptoms_are_read_by_their_words() -> None:
    tagged = runbook("cart-restart", ["cart-service"], ["latency-spike"], title="Restart cart when redis evictions spike")
    catalog = {**UNTAGGED, tagged.name: tagged}
    assert "cart-restart" not in described_by_words(spec(title="redis evictions"), catalog)
    assert described_by_words(spec(title="redis evictions"), {tagged.name: tagged}) == {}
    # A declared runbook is still judged by its tags: the words alone never offer it.
    assert best_catalog_fit(spec("cart-service", title="redis evictions spike", symptoms=["oom-kill"]),
                            {tagged.name: tagged}, TOPOLOGY) is None


def test_a_runbook_s_description_is_read_too() -> None:
    plain = runbook("cart-restart", ["cart-service"], title="Restart cart")
    described = plain.model_copy(update={"spec": plain.spec.model_copy(
        update={"description": "Use when redis evictions spike and hot keys leave the cache cold."})})
    page = spec(title="redis evictions spike, hot keys gone")
    assert best_catalog_fit(page, {"cart-restart": plain, **UNTAGGED}, TOPOLOGY).runbook == "redis-flush"
    assert described_by_words(page, {"cart-restart": described, **UNTAGGED})["cart-restart"] > DESCRIBED_BAR


def test_a_proven_runbook_without_declared_symptoms_never_covers_an_incident() -> None:
    """Memory has seen it run, so the catalog offers it only for a whole cover, which needs declared symptoms."""
    evictions = spec("redis-cluster", title="redis evictions spiking", symptoms=["latency-spike"])
    assert best_catalog_fit(evictions, UNTAGGED, TOPOLOGY).runbook == "redis-flush"
    assert best_catalog_fit(evictions, UNTAGGED, TOPOLOGY, proven={"redis-flush"}) is None


# A runbook that lists no service acts on whichever one paged: it applies anywhere, as a neighbour's does.
ANYWHERE = runbook("flush-hot-keys", [], ["latency-spike", "timeout"], title="flush the hot keys of a cache")


def test_a_runbook_for_no_service_fits_any_service_as_a_neighbour_s_would() -> None:
    page = spec("kafka-orders", title="nothing in common", symptoms=["latency-spike", "timeout"])
    anywhere, beside = catalog_fit(page, ANYWHERE, TOPOLOGY), catalog_fit(page, REDIS_RB, TOPOLOGY)
    assert "lists no service" in anywhere.why and "does not list kafka-orders" in beside.why
    assert anywhere.fit == pytest.approx(catalog_fit(spec("checkout-api", **_said(page)), REDIS_RB, TOPOLOGY).fit)
    assert beside.fit < anywhere.fit
    assert covers(page, ANYWHERE, TOPOLOGY) and not covers(page, REDIS_RB, TOPOLOGY)


@pytest.mark.parametrize(
    ("catalog", "says"),
    [
        ({}, False),  # no catalog at all: nothing to say about its names
        ({REDIS_RB.name: REDIS_RB}, True),  # for cart-service and redis-cluster, neither next to kafka-orders
        ({"db": runbook("db", ["orders-db"])}, False),  # kafka-orders calls orders-db
        ({REDIS_RB.name: REDIS_RB, ANYWHERE.name: ANYWHERE}, False),  # one for no service applies anywhere
    ],
)
def test_unlisted_when_the_catalog_names_neither_the_service_nor_a_neighbour(catalog, says: bool) -> None:
    assert unlisted("kafka-orders", catalog, TOPOLOGY) is says


def _said(s) -> dict:
    return {"title": s.title, "symptoms": list(s.symptoms)}


def test_a_runbook_for_no_service_can_be_the_one_a_manual_fix_describes() -> None:
    fixed = memory("inc-1", service="kafka-orders", actions=[("flushed the hot keys of the cache", "succeeded")])
    page = spec("kafka-orders", title="consumers slow", symptoms=["timeout"])
    listed = runbook("flush-hot-keys", ["redis-cluster"], ["latency-spike", "timeout"], title="flush the hot keys of a cache")
    # The same runbook listing only a service nowhere near is no candidate; listing none, it is.
    assert runbook_for_fix(page, [fixed], {listed.name: listed}, TOPOLOGY) is None
    match = runbook_for_fix(page, [fixed], {ANYWHERE.name: ANYWHERE}, TOPOLOGY)
    assert match is not None and match.runbook == "flush-hot-keys"


@pytest.mark.parametrize(
    ("service", "symptoms", "whole"),
    [
        ("redis-cluster", ["latency-spike", "timeout"], True),
        ("redis-cluster", ["timeout"], True),
        ("redis-cluster", ["timeout", "disk-full"], False),  # one symptom the runbook does not address
        ("payment-service", ["timeout"], True),  # it calls redis-cluster: a neighbour is the runbook's place too
        ("payment-service", ["timeout", "disk-full"], False),
        ("kafka-orders", ["timeout"], False),  # neither the runbook's services nor next to them
        ("redis-cluster", [], False),  # nothing seen, nothing covered
    ],
)
def test_covers_needs_the_service_or_a_neighbour_and_every_symptom(service: str, symptoms: list[str], whole: bool) -> None:
    assert covers(spec(service, symptoms=symptoms), REDIS_RB, TOPOLOGY) is whole


@pytest.mark.parametrize(
    ("seen", "declared", "answer"),
    [
        (["timeout", "disk-full"], ["latency-spike", "timeout"], True),  # one shared symptom is enough
        (["disk-full"], ["latency-spike", "timeout"], False),  # declared for something else
        ([], ["latency-spike", "timeout"], True),  # a page without tags: nothing says otherwise
        (["disk-full"], [], True),  # a runbook that declares nothing: nothing to compare
    ],
)
def test_addresses_asks_for_one_shared_symptom_when_both_declare_some(seen, declared, answer: bool) -> None:
    assert addresses(spec(symptoms=seen), runbook("r", ["redis-cluster"], declared)) is answer


def test_a_proven_runbook_is_offered_only_when_it_covers_the_incident() -> None:
    catalog = {REDIS_RB.name: REDIS_RB}
    partial = spec("redis-cluster", symptoms=["timeout", "disk-full"])
    whole = spec("redis-cluster", symptoms=["timeout"])
    assert best_catalog_fit(partial, catalog, TOPOLOGY).runbook == "redis-flush"  # the catalog alone speaks
    assert best_catalog_fit(partial, catalog, TOPOLOGY, proven={"redis-flush"}) is None
    assert best_catalog_fit(whole, catalog, TOPOLOGY, proven={"redis-flush"}).runbook == "redis-flush"
    assert best_catalog_fit(whole, catalog, TOPOLOGY, excluded={"redis-flush"}, proven={"redis-flush"}) is None


@pytest.mark.parametrize(
    ("written", "moment"),
    [
        ("2025-01-15", "2025-01-15T00:00:00+00:00"),  # a day: its start, in UTC
        ("2025-01-15T00:00:00-08:00", "2025-01-15T08:00:00+00:00"),  # midnight somewhere else is not a day
        ("2025-01-15T03:00:00-08:00", "2025-01-15T11:00:00+00:00"),
        ("2025-01-15T00:00:00Z", "2025-01-15T00:00:00+00:00"),
    ],
)
def test_a_migration_date_with_a_time_keeps_its_offset(written: str, moment: str) -> None:
    m = MIG.model_copy(update={"spec": MIG.spec.model_copy(update={
        "migration_date": MigrationSpec.model_validate({"targetService": "x", "migrationDate": written}).migration_date,
    }), "applied_at": None})
    assert migration_time(m).isoformat() == moment


def test_a_migration_date_that_is_no_time_is_refused_with_what_it_reads() -> None:
    with pytest.raises(ValueError, match="neither a day"):
        MigrationSpec.model_validate({"targetService": "x", "migrationDate": "next tuesday at noon"})


# A runbook written after a manual fix, in other words than the fix's: its title and step say
# "evict", "reload" and "config" where the fix said "dropped the poisoned entries".
RELOAD = runbook("cdn-reload-edge-config", ["redis-cluster"], ["latency-spike"],
                 title="evict and reload the edge config")
RESTART = runbook("redis-restart-pods", ["redis-cluster"], ["latency-spike"], title="restart the cache pods")
POISONED = {"title": "cache answers stale prices", "symptoms": ["latency-spike"]}


def _fixed_by_hand(summary: str, actions=(("dropped the poisoned entries by hand", "succeeded"),)):
    return memory("inc-1", service="redis-cluster", **POISONED,
                  res=resolution(None, actions, rootCause="a bad import poisoned the price keys", summary=summary))


def test_a_runbook_the_confirmed_outcome_names_describes_the_manual_fix_whatever_the_word_match() -> None:
    catalog = {RELOAD.name: RELOAD, RESTART.name: RESTART}
    page = spec("redis-cluster", **POISONED)
    silent = _fixed_by_hand("Prices were right again within minutes.")
    assert runbook_for_fix(page, [silent], catalog, TOPOLOGY) is None  # the words alone do not reach the bar
    named = _fixed_by_hand("Prices were right again within minutes; written up as cdn-reload-edge-config.")
    match = runbook_for_fix(page, [named], catalog, TOPOLOGY)
    assert match is not None and (match.runbook, match.cited) == (RELOAD.name, True)
    assert match.why() == f"runbook {RELOAD.name} describes the manual fix of inc-1 (a confirmed outcome names it)"


def test_a_named_runbook_must_be_for_what_the_incident_shows_and_a_longer_name_does_not_name_it() -> None:
    named = _fixed_by_hand("Written up as cdn-reload-edge-config.")
    # The incident shows something the runbook is not declared for: the outcome's word does not make it fit.
    assert runbook_for_fix(spec("redis-cluster", title="disk full", symptoms=["disk-full"]), [named],
                           {RELOAD.name: RELOAD}, TOPOLOGY) is None
    longer = _fixed_by_hand("Written up as cdn-reload-edge-config-v2.")
    assert runbook_for_fix(spec("redis-cluster", **POISONED), [longer], {RELOAD.name: RELOAD}, TOPOLOGY) is None


# A migration made the VM runbook stale; the team wrote its successor for the managed cluster,
# declared for the same services and symptoms. Another failure's runbook shares the page's symptom
# and lists the paging service alone, so it fits the page as well or better.
OLD_FLUSH = runbook("redis-vm-flush-keys", ["redis-cluster", "cart-service"], ["latency-spike", "timeout", "evictions"])
NEW_FLUSH = runbook("redis-managed-flush-keys", ["redis-cluster", "cart-service"],
                    ["latency-spike", "timeout", "evictions"])
SESSIONS = runbook("cart-trim-sessions", ["cart-service"], ["timeout"])
SLOW_CART = spec("cart-service", title="cart requests timing out", symptoms=["timeout"])


def test_a_stale_runbook_s_successor_is_the_one_declared_for_what_it_was() -> None:
    catalog = {rb.name: rb for rb in (OLD_FLUSH, NEW_FLUSH, SESSIONS)}
    fit = successor(SLOW_CART, OLD_FLUSH.name, catalog, TOPOLOGY, excluded={OLD_FLUSH.name})
    assert fit is not None and fit.runbook == NEW_FLUSH.name
    assert fit.why.endswith(f"declared for what {OLD_FLUSH.name} was (100% of it): its successor"), fit.why
    # The best fit for the page alone is not it: that is what the successor is asked for.
    assert catalog_fit(SLOW_CART, SESSIONS, TOPOLOGY).fit >= catalog_fit(SLOW_CART, NEW_FLUSH, TOPOLOGY).fit


@pytest.mark.parametrize(("stale", "candidate", "page"), [
    # Nothing declared to compare: listing the same services alone does not make a successor.
    (runbook("redis-vm-flush-keys", ["redis-cluster", "cart-service"]),
     runbook("redis-managed-flush-keys", ["redis-cluster", "cart-service"]), SLOW_CART),
    # Less than half of what the stale one was declared for.
    (OLD_FLUSH, runbook("redis-managed-flush-keys", ["redis-cluster"], ["timeout", "disk-full", "5xx"]), SLOW_CART),
    # A successor that is not for what this incident shows.
    (OLD_FLUSH, NEW_FLUSH, spec("cart-service", title="cart disk full", symptoms=["disk-full"])),
])
def test_no_successor_without_a_shared_declaration_or_for_another_symptom(stale, candidate, page) -> None:
    catalog = {stale.name: stale, candidate.name: candidate}
    assert successor(page, stale.name, catalog, TOPOLOGY, excluded={stale.name}) is None
