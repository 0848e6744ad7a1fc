"""The decision chain end to end on small hand-built histories, the seeds' cases among them."""

from __future__ import annotations

from datetime import timedelta

import pytest

from recall_operator.domain.consolidation import count_runbook_outcomes, unvouched
from recall_operator.domain.models import ContradictionResolution, RunbookRecord
from recall_operator.domain.catalog import CatalogFit
from recall_operator.domain.recommend import CLAIMS_SHOWN, NOTE_SHOWN, assess, lead_with_where_it_worked, offer_fixed_nearest
from recall_operator.domain.similarity import Breakdown, ScoredMemory
from domain_builders import (
    KAFKA_TEXT,
    REDIS_TEXT,
    T0,
    context,
    contradiction,
    incident,
    memory,
    migration,
    runbook,
)

VM_RESTART = runbook("redis-restart-vm", ["redis-cluster", "cart-service"], ["latency-spike", "timeout"])
MANAGED = runbook("redis-failover-managed", ["redis-cluster"], ["latency-spike", "timeout", "cache-eviction"])
RECORDS = {"redis-restart-vm": RunbookRecord(times_executed=3, times_succeeded=3)}
REDIS_PRECEDENT = memory(
    "inc-0017",
    runbook="redis-restart-vm",
    actions=[("restart redis-server on the VM via runbook redis-restart-vm", "succeeded")],
    resolved_at=T0 - timedelta(days=30),
    **REDIS_TEXT,
)
REDIS_MIGRATION = migration("redis-to-enterprise", "redis-cluster", ["redis-restart-vm"], keywords=["restart redis-server"])


def test_without_a_migration_the_precedent_is_actionable() -> None:
    rec = assess(incident(**REDIS_TEXT), [REDIS_PRECEDENT], context(catalog=[VM_RESTART, MANAGED], records=RECORDS))
    assert (rec.recommendation.mode, rec.recommendation.runbook) == ("actionable", "redis-restart-vm")


def test_a_precedent_nobody_signed_does_not_make_its_runbook_actionable() -> None:
    """The same precedent, read from a Hindsight bank without a valid signature (memory.hindsight): a
    forgery claiming the runbook worked. It is still a precedent, and no longer a reason to act."""
    signed = {"redis-restart-vm": count_runbook_outcomes([REDIS_PRECEDENT.resolution], "redis-restart-vm")}
    trusted = assess(incident(**REDIS_TEXT), [REDIS_PRECEDENT], context(catalog=[VM_RESTART, MANAGED], records=signed))
    assert trusted.recommendation.mode == "actionable"  # what the forger is after
    forged = REDIS_PRECEDENT.model_copy(update={"resolution": unvouched(REDIS_PRECEDENT.resolution)})
    # Its record, counted from memory, has only what the operator saw: nothing.
    records = {"redis-restart-vm": count_runbook_outcomes([forged.resolution], "redis-restart-vm")}
    result = assess(incident(**REDIS_TEXT), [forged], context(catalog=[VM_RESTART, MANAGED], records=records))
    assert result.matches[0].incident == "inc-0017"
    assert result.recommendation.mode != "actionable", result.recommendation
    # On-call reads its success as a claim (status.matches[].actions[].reported).
    assert result.matches[0].actions == [{"action": "restart redis-server on the VM via runbook redis-restart-vm",
                                          "result": "succeeded", "reported": True}]
    assert "reported" not in trusted.matches[0].actions[0]


@pytest.mark.parametrize("catalog", [[VM_RESTART, MANAGED], [VM_RESTART]])
def test_redis_migration_marks_the_memory_stale_without_deleting_it(catalog) -> None:
    ctx = context(catalog=catalog, records=RECORDS, migrations=[REDIS_MIGRATION])
    result = assess(incident(**REDIS_TEXT), [REDIS_PRECEDENT], ctx)
    match = next(m for m in result.matches if m.incident == "inc-0017")
    assert match.stale is not None and match.stale.migration == "redis-to-enterprise"
    rec = result.recommendation
    adjusted = [w for w in rec.warnings if "actionability adjusted from" in w]
    assert adjusted and " because inc-0017 used runbook redis-restart-vm" in adjusted[0]
    assert not (rec.mode == "actionable" and rec.runbook == "redis-restart-vm")
    assert rec.runbook != "redis-restart-vm"
    assert "precedents used runbook redis-restart-vm, but it is stale after migration redis-to-enterprise" in rec.reasons


def test_a_stale_fix_phrase_deducts_but_never_below_the_floor() -> None:
    # The precedent's runbook is still valid, but its actions restarted the old VMs by hand.
    rb = runbook("cart-drain", ["cart-service"], ["latency-spike"])
    mem = memory(
        "inc-3", runbook="cart-drain", actions=[("restart redis-server", "succeeded"), ("run cart-drain", "succeeded")],
        resolved_at=T0 - timedelta(days=30), **REDIS_TEXT,
    )
    fresh = assess(incident(**REDIS_TEXT), [mem], context(catalog=[rb])).recommendation
    mig = migration("m", "redis-cluster", keywords=["restart redis-server"], deduction=100)
    stale = assess(incident(**REDIS_TEXT), [mem], context(catalog=[rb], migrations=[mig])).recommendation
    assert stale.actionability == 15 < fresh.actionability
    assert any(f"adjusted from {fresh.actionability} to 15 because" in w for w in stale.warnings)
    assert stale.mode == "advisory"


KAFKA_RAISE = runbook("kafka-raise-poll-interval", ["kafka-orders"], ["consumer-lag"])
KAFKA_LOWER = runbook("kafka-lower-poll-records", ["kafka-orders"], ["consumer-lag"])


def test_kafka_contradiction_is_advisory_and_shows_both_claims() -> None:
    older = memory("inc-0007", service="kafka-orders", runbook=KAFKA_RAISE.name, resolved_at=T0, **KAFKA_TEXT)
    newer = memory("inc-0023", service="kafka-orders", runbook=KAFKA_LOWER.name, resolved_at=T0 + timedelta(days=20),
                   **{**KAFKA_TEXT, "title": "order consumers lagging"})
    c = contradiction("kafka-poll", {
        "inc-0007": "raise max.poll.interval.ms",
        "inc-0023": "lower max.poll.records; a longer interval hides deadlocked consumers",
    })
    ctx = context(catalog=[KAFKA_RAISE, KAFKA_LOWER], contradictions=[c])
    result = assess(incident(service="kafka-orders", **KAFKA_TEXT), [older, newer], ctx)
    rec = result.recommendation
    assert rec.mode == "advisory"
    text = "\n".join(rec.warnings)
    assert "raise max.poll.interval.ms" in text and "lower max.poll.records" in text
    assert {m.contradiction for m in result.matches} == {"kafka-poll"}
    # Reconciled, the same history may be acted on.
    done = contradiction("kafka-poll", dict(zip(c.spec.memories, ("a", "b"))), state="reconciled")
    again = assess(incident(service="kafka-orders", **KAFKA_TEXT), [older, newer], context(catalog=[KAFKA_RAISE, KAFKA_LOWER], contradictions=[done]))
    assert not any("open contradiction" in w for w in again.recommendation.warnings)


def test_an_open_contradiction_s_warning_repeats_a_few_claims_in_a_line_each() -> None:
    """A person may write 64 claims of 8 KB: each answer it touches would carry half a megabyte of them."""
    older = memory("inc-0007", service="kafka-orders", runbook=KAFKA_RAISE.name, resolved_at=T0, **KAFKA_TEXT)
    newer = memory("inc-0023", service="kafka-orders", runbook=KAFKA_LOWER.name, resolved_at=T0 + timedelta(days=20),
                   **KAFKA_TEXT)
    claims = {"inc-0007": "raise the interval " + "because " * 1000, "inc-0023": "lower the records",
              **{f"inc-90{i:02d}": f"claim {i}" for i in range(20)}}
    c = contradiction("kafka-poll", claims)
    ctx = context(catalog=[KAFKA_RAISE, KAFKA_LOWER], contradictions=[c])
    rec = assess(incident(service="kafka-orders", **KAFKA_TEXT), [older, newer], ctx).recommendation
    [warning] = [w for w in rec.warnings if w.startswith("open contradiction kafka-poll")]
    assert "inc-0007: raise the interval because" in warning and "inc-0023: lower the records" in warning
    assert warning.endswith(f"; {len(claims) - CLAIMS_SHOWN} more claim(s) in the Contradiction"), warning
    assert len(warning) < (NOTE_SHOWN + 20) * CLAIMS_SHOWN + 100
    assert rec.mode == "advisory"


def test_a_reconciled_contradiction_says_who_reconciled_it_and_how_the_claims_fit() -> None:
    """Its note tells on-call which condition calls for which fix; who signed it is what lifted the gate."""
    older = memory("inc-0007", service="kafka-orders", runbook=KAFKA_RAISE.name, resolved_at=T0, **KAFKA_TEXT)
    newer = memory("inc-0023", service="kafka-orders", runbook=KAFKA_LOWER.name, resolved_at=T0 + timedelta(days=20),
                   **KAFKA_TEXT)
    base = contradiction("kafka-poll", {"inc-0007": "raise the interval", "inc-0023": "lower the records"})

    def reasons(resolution: dict[str, str]) -> list[str]:
        c = base.model_copy(update={"spec": base.spec.model_copy(update={
            "resolution": ContradictionResolution.model_validate(resolution)})})
        ctx = context(catalog=[KAFKA_RAISE, KAFKA_LOWER], contradictions=[c])
        return assess(incident(service="kafka-orders", **KAFKA_TEXT), [older, newer], ctx).recommendation.reasons

    note = "raise the interval when a batch is slow;\n  lower the records when consumers deadlock"
    signed = reasons({"state": "reconciled", "note": note, "reconciledBy": "rita",
                      "reconciledAt": "2026-03-02T10:00:00Z"})
    assert ("contradiction kafka-poll was reconciled by rita on 2026-03-02: raise the interval when a batch is slow; "
            "lower the records when consumers deadlock") in signed, signed
    unsigned = reasons({"state": "reconciled", "note": "x " * 400})
    line = next(r for r in unsigned if r.startswith("contradiction kafka-poll was reconciled"))
    assert line.startswith("contradiction kafka-poll was reconciled (unsigned): x x") and line.endswith("...")
    assert len(line) < NOTE_SHOWN + 60
    assert not any("was reconciled" in r for r in reasons({"state": "open", "note": note}))


def test_a_runbook_whose_last_attempt_failed_is_never_actionable() -> None:
    rb = runbook("cart-restart", ["cart-service"], ["latency-spike"])
    failed = memory("inc-5", actions=[("run cart-restart", "failed")], runbook="cart-restart", **REDIS_TEXT)
    rec = assess(incident(**REDIS_TEXT), [failed], context(catalog=[rb])).recommendation
    assert not (rec.mode == "actionable" and rec.runbook == "cart-restart")
    assert any("cart-restart was tried before" in w for w in rec.warnings)
    # When another precedent of the same failure it resolved speaks for it, the reason names the failure.
    worked = memory("inc-4", actions=[("run cart-restart", "succeeded")], runbook="cart-restart", **REDIS_TEXT)
    rec = assess(incident(**REDIS_TEXT), [worked, failed], context(catalog=[rb])).recommendation
    assert "precedents used runbook cart-restart, but it failed before in inc-5" in rec.reasons, rec.reasons


def test_nothing_alike_is_novel_and_read_only() -> None:
    far = memory("inc-9", service="orders-db", runbook="db-vacuum", title="disk full on orders-db")
    rec = assess(incident(**REDIS_TEXT), [far], context(catalog=[VM_RESTART])).recommendation
    assert rec.mode == "novel" and rec.actionability == 0
    assert any("read-only" in w for w in rec.warnings)
    empty = assess(incident(**REDIS_TEXT), [], context()).recommendation
    assert (empty.mode, empty.similarity, empty.runbook) == ("novel", 0, None)


def test_novel_mode_offers_a_proven_runbook_only_when_its_catalog_entry_covers_the_incident() -> None:
    far = memory("inc-9", service="orders-db", runbook="db-vacuum", title="disk full on orders-db")
    ctx = context(catalog=[VM_RESTART], records=RECORDS)  # redis-restart-vm has run three times
    covered = assess(incident(symptoms=["timeout"], title="cart reads stall"), [far], ctx).recommendation
    assert (covered.mode, covered.runbook, covered.source) == ("novel", "redis-restart-vm", "catalog")
    partial = assess(incident(symptoms=["timeout", "5xx"], title="cart reads stall"), [far], ctx).recommendation
    assert (partial.mode, partial.runbook) == ("novel", None)
    unproven = context(catalog=[VM_RESTART])
    assert assess(incident(symptoms=["timeout", "5xx"], title="cart reads stall"), [far], unproven).recommendation.runbook == (
        "redis-restart-vm"
    )


def test_novel_mode_offers_a_proven_runbook_of_the_service_next_door_when_it_covers_every_symptom() -> None:
    # The page comes from a caller (cart-service calls redis-cluster) of the service the runbook is written for.
    far = memory("inc-9", service="orders-db", runbook="db-vacuum", title="disk full on orders-db")
    redis_only = runbook("redis-restart-vm", ["redis-cluster"], ["latency-spike", "timeout"])
    ctx = context(catalog=[redis_only], records=RECORDS)
    caller = assess(incident(service="cart-service", symptoms=["timeout"], title="cart reads stall"), [far], ctx)
    rec = caller.recommendation
    assert (rec.mode, rec.runbook, rec.source) == ("novel", "redis-restart-vm", "catalog")
    assert "applies to a neighbour of cart-service" in rec.reasons[-1]
    partial = assess(incident(service="cart-service", symptoms=["timeout", "5xx"]), [far], ctx).recommendation
    assert (partial.mode, partial.runbook) == ("novel", None)
    unrelated = assess(incident(service="orders-db", symptoms=["timeout"]), [far], ctx).recommendation
    assert unrelated.runbook is None


# An alert page says little: under the novel bar against a person's report of the same failure.
PAGE = {"title": "[FIRING:1] CartLatencyHigh cart-service", "description": "cart p99 2.1s > 1s for 10m",
        "symptoms": ["latency-spike"]}


def test_a_page_whose_nearest_incident_the_catalogs_offer_fixed_is_advice_not_exploration() -> None:
    ctx = context(catalog=[VM_RESTART], records=RECORDS)
    result = assess(incident(**PAGE), [REDIS_PRECEDENT], ctx)
    rec = result.recommendation
    assert rec.similarity < 55 and result.matches[0].incident == "inc-0017"
    assert (rec.mode, rec.runbook, rec.source, rec.actionability) == ("advisory", "redis-restart-vm", "catalog", 0)
    assert rec.evidence == ["inc-0017"]
    assert "is what fixed its nearest past incident (inc-0017)" in rec.reasons[-1], rec.reasons
    # The same nearest incident fixed by another runbook: the catalog's offer stays an exploration.
    other = REDIS_PRECEDENT.model_copy(update={"resolution": memory("x", runbook="cart-scale-out").resolution})
    novel = assess(incident(**PAGE), [other], ctx).recommendation
    assert (novel.mode, novel.runbook, novel.evidence) == ("novel", "redis-restart-vm", [])


def _near(name: str, similarity: int, rb: str | None, result: str = "succeeded", **text) -> ScoredMemory:
    actions = [(f"run runbook {rb}", result)] if rb else [("restart the redis vm by hand", "succeeded")]
    return ScoredMemory(memory(name, runbook=rb, actions=actions, **(text or REDIS_TEXT)), similarity,
                        Breakdown(1, 1, 1, 1, 1, 1))


OFFER = CatalogFit("redis-restart-vm", 0.7, "applies to cart-service")


@pytest.mark.parametrize("scored, offer, nearest", [
    # The nearest ran the offered runbook and it worked.
    ([_near("a", 48, "redis-restart-vm"), _near("b", 44, "cart-scale-out")], OFFER, ("a",)),
    # Fixed by hand, in a way the offered runbook describes (its title's words).
    ([_near("a", 48, None, title="cart latency: restart redis vm")], OFFER, ("a",)),
    # The nearest was fixed another way, though a farther one ran the offer.
    ([_near("a", 48, "cart-scale-out"), _near("b", 46, "redis-restart-vm")], OFFER, ()),
    # It ran there and failed: not what fixed it.
    ([_near("a", 48, "redis-restart-vm", "failed")], OFFER, ()),
    # Two tied for nearest, fixed two ways: no agreement.
    ([_near("a", 48, "redis-restart-vm"), _near("b", 48, "cart-scale-out")], OFFER, ()),
    # Two tied for nearest, both by the offer: both named.
    ([_near("a", 48, "redis-restart-vm"), _near("b", 48, "redis-restart-vm")], OFFER, ("a", "b")),
    # Farther under the novel bar than the window the floor (40) leaves.
    ([_near("a", 39, "redis-restart-vm")], OFFER, ()),
    # Nothing offered, or nothing recalled.
    ([_near("a", 48, "redis-restart-vm")], None, ()),
    ([], OFFER, ()),
], ids=["ran-and-worked", "described-manual-fix", "farther-only", "failed-there", "tie-split", "tie-agrees",
        "too-far", "no-offer", "nothing-recalled"])
def test_offer_fixed_nearest(scored, offer, nearest) -> None:
    ctx = context(catalog=[VM_RESTART], records=RECORDS)
    assert offer_fixed_nearest(incident(**PAGE).spec, scored, offer, ctx, {}, 40) == nearest


def test_the_asking_incident_is_never_its_own_precedent() -> None:
    me = memory("inc-new", runbook="redis-restart-vm", **REDIS_TEXT)
    result = assess(incident("inc-new", **REDIS_TEXT), [me], context(catalog=[VM_RESTART]))
    assert result.matches == [] and result.recommendation.mode == "novel"


def test_an_earlier_incident_of_the_same_name_is_a_precedent_and_said_to_be_one() -> None:
    # inc-0017 was remembered, deleted, and its name used again (another uid) for the same failure.
    held = REDIS_PRECEDENT.model_copy(update={"uid": "uid-first"})
    again = incident("inc-0017", **{**REDIS_TEXT, "description": "redis latency again, same node"})
    ctx = context(catalog=[VM_RESTART, MANAGED], records=RECORDS)
    result = assess(again.model_copy(update={"uid": "uid-second"}), [held], ctx)
    assert [m.incident for m in result.matches] == ["inc-0017"]
    assert (result.recommendation.mode, result.recommendation.runbook) == ("actionable", "redis-restart-vm")
    said = [w for w in result.recommendation.warnings if "earlier incident of this name" in w]
    assert said and f"{held.resolved_at:%Y-%m-%d}" in said[0], result.recommendation.warnings
    # The object that wrote it asks again (a re-evaluation): not its own precedent.
    assert assess(again.model_copy(update={"uid": "uid-first"}), [held], ctx).matches == []


def test_precedents_that_disagree_keep_it_advisory() -> None:
    a = runbook("fix-a", ["cart-service"], ["latency-spike"])
    b = runbook("fix-b", ["cart-service"], ["latency-spike"])
    mems = [memory("inc-a", runbook="fix-a", **REDIS_TEXT), memory("inc-b", runbook="fix-b", **REDIS_TEXT)]
    rec = assess(incident(**REDIS_TEXT), mems, context(catalog=[a, b])).recommendation
    assert rec.mode == "advisory"
    assert any(w.startswith("precedents disagree") for w in rec.warnings)


def test_matches_carry_breakdowns_that_add_up() -> None:
    result = assess(incident(**REDIS_TEXT), [REDIS_PRECEDENT], context(catalog=[VM_RESTART], records=RECORDS))
    m = result.matches[0]
    assert abs(sum(m.breakdown.values()) - m.similarity) <= 1
    assert m.outcome == "succeeded" and m.runbook == "redis-restart-vm"


# A terse page remembered with what it turned out to be, and a wordier
# look-alike on the same service whose confirmed cause was something else.
TERSE_PAGE = memory(
    "inc-0031",
    service="checkout-api",
    runbook="k8s-rollback-deploy",
    title="[FIRING:1] CheckoutLatencyP99 checkout-api",
    description="p99 2.8s > 1s for 5m",
    symptoms=["latency-spike"],
    res=None,
    resolved_at=T0 - timedelta(days=20),
)
TERSE_PAGE = TERSE_PAGE.model_copy(update={"resolution": TERSE_PAGE.resolution.model_copy(update={
    "root_cause": "release 4.2 issued one orders-db query per basket line: an N+1 query pattern on the basket view",
    "summary": "rolled back release 4.2; the basket view query was batched in 4.3",
})})
LOOK_ALIKE = memory(
    "inc-0044",
    service="checkout-api",
    runbook="checkout-scale-out",
    title="checkout-api p99 latency high after the release, pods at CPU limit",
    description="p99 latency rose after release 4.9 as the sale traffic came in; every pod at its CPU limit",
    symptoms=["latency-spike", "post-deploy-regression", "cpu-saturation"],
    resolved_at=T0 - timedelta(days=5),
)


def test_a_precedent_recognised_by_its_confirmed_cause_ranks_nearer_but_the_gate_reads_similarity() -> None:
    new = incident(
        service="checkout-api",
        title="checkout-api p99 latency after release 5.0",
        description="each basket line issues its own orders-db query since the release: an N+1 query pattern again",
        symptoms=["latency-spike", "post-deploy-regression"],
    )
    catalog = [
        runbook("k8s-rollback-deploy", ["checkout-api"], ["latency-spike"]),
        runbook("checkout-scale-out", ["checkout-api"], ["latency-spike", "cpu-saturation"]),
    ]
    result = assess(new, [LOOK_ALIKE, TERSE_PAGE], context(catalog=catalog))
    by_name = {m.incident: m for m in result.matches}
    terse, alike = by_name["inc-0031"], by_name["inc-0044"]
    # The report alone makes the look-alike at least as similar ...
    assert alike.similarity >= terse.similarity
    # ... but the terse page's outcome names this failure, and that decides the order ...
    assert terse.recognition > alike.recognition
    assert terse.similarity + terse.recognition > alike.similarity + alike.recognition
    # ... beneath the match the recommended runbook worked in: the gate reads similarity, so it
    # chose the look-alike's fix, and that match is listed first, saying which one is nearer.
    rec = result.recommendation
    assert rec.runbook == "checkout-scale-out"
    assert [m.incident for m in result.matches] == ["inc-0044", "inc-0031"]
    assert ("inc-0044 is listed first: runbook checkout-scale-out worked in it "
            "(inc-0031 comes before it by similarity and recognition)") in rec.reasons
    # The gate's "best similarity" is the highest similarity, whatever the order.
    assert rec.similarity == max(m.similarity for m in result.matches)


def _shown(*found: tuple[str, str | None, str]) -> list[ScoredMemory]:
    """Matches in the order given, as ranked: (name, the runbook its outcome names, how that run went)."""
    def one(name: str, rb: str | None, result: str) -> ScoredMemory:
        actions = [(f"run runbook {rb}", result)] if rb else [("fixed it by hand", "succeeded")]
        return ScoredMemory(memory(name, runbook=rb, actions=actions), 80, Breakdown(1, 1, 1, 1, 1, 1))
    return [one(*f) for f in found]


@pytest.mark.parametrize("runbook, found, order", [
    # The nearest match the recommended runbook worked in leads; the rest keep their order.
    ("rollback", [("a", "scale-out", "succeeded"), ("b", None, ""), ("c", "rollback", "succeeded"),
                  ("d", "rollback", "succeeded")], "cabd"),
    # Already first: nothing moves.
    ("rollback", [("a", "rollback", "succeeded"), ("b", "rollback", "succeeded")], "ab"),
    # A run that failed is not where it worked.
    ("rollback", [("a", "scale-out", "succeeded"), ("b", "rollback", "failed"), ("c", "rollback", "succeeded")], "cab"),
    ("rollback", [("a", "scale-out", "succeeded"), ("b", "rollback", "failed")], "ab"),
    # No runbook recommended (novel with nothing to offer, a person decides): similarity's order.
    (None, [("a", None, ""), ("b", "rollback", "succeeded")], "ab"),
    # The runbook worked in none of the matches shown (the catalog's pick): similarity's order.
    ("flush-cache", [("a", "rollback", "succeeded"), ("b", None, "")], "ab"),
    # Nothing recalled.
    ("rollback", [], ""),
])
def test_the_match_the_recommended_runbook_worked_in_is_listed_first(runbook, found, order) -> None:
    shown = _shown(*found)
    assert "".join(s.memory.incident for s in lead_with_where_it_worked(shown, runbook)) == order


def test_a_catalog_runbook_that_worked_in_a_farther_match_lists_that_match_first() -> None:
    # Memory's nearest look-alike was fixed by a runbook declared for other symptoms; the catalog's
    # fit for what this incident shows is a runbook that worked in a farther match, shown first.
    dns = runbook("coredns-scale-out", ["cart-service"], ["dns-failures"])
    restart = runbook("cart-restart", ["cart-service"], ["latency-spike"])
    words = dict(title="cart pods slow, upstream calls timing out after the node upgrade",
                 description="checkout requests wait on upstream calls that time out since the node upgrade")
    near = memory("inc-1", runbook=restart.name, symptoms=["latency-spike"], **words)
    far = memory("inc-2", service="payment-service", runbook=dns.name, title="resolver SERVFAIL",
                 description="SERVFAIL from the resolver", symptoms=["dns-failures"])
    new = incident(symptoms=["dns-failures"], **words)
    result = assess(new, [near, far], context(catalog=[dns, restart]))
    rec = result.recommendation
    assert rec.runbook == dns.name
    assert [m.incident for m in result.matches] == ["inc-2", "inc-1"]
    assert result.matches[0].similarity < result.matches[1].similarity
    assert any(r.startswith(f"inc-2 is listed first: runbook {dns.name} worked in it") for r in rec.reasons)


@pytest.mark.parametrize("catalog, answer", [
    ([MANAGED], ("advisory", "redis-failover-managed", "catalog")),  # the catalog's best fit instead, never actionable
    ([], ("advisory", None, None)),
])
def test_a_remembered_runbook_the_catalog_no_longer_holds_is_never_recommended(catalog, answer) -> None:
    # The precedent is strong enough to act on (see the test above), but its
    # runbook was deleted or renamed since: it has no steps to run here.
    rec = assess(incident(**REDIS_TEXT), [REDIS_PRECEDENT], context(catalog=catalog, records=RECORDS)).recommendation
    assert (rec.mode, rec.runbook, rec.source) == answer
    assert "precedents used runbook redis-restart-vm, but it is not in the catalog" in rec.reasons, rec.reasons


# -- one person's word against what the operator saw --------------------------
# A responder opens Incidents that copy a recurrence's report and records their outcomes herself at once:
# nobody else saw those incidents happen, and the operator ran nothing there (consolidation.one_voice).

CART_RESTART = runbook("cart-restart", ["cart-service"], ["latency-spike", "timeout"])


def _said_by(name: str, who: str, actions: list[tuple[str, str]], opened_by: str | None = None,
             days: int = 1) -> object:
    from domain_builders import resolution

    return memory(name, res=resolution(None, actions, confirmed_by=who), resolved_at=T0 + timedelta(days=days),
                  **REDIS_TEXT).model_copy(update={"opened_by": opened_by or who})


SEEN_TO_WORK = memory("inc-seen", runbook="cart-restart", resolved_at=T0, **REDIS_TEXT).model_copy(
    update={"opened_by": "system:recall:alertmanager-bridge"})


def test_manual_fixes_one_person_both_reported_and_confirmed_do_not_out_vote_a_runbook_the_operator_saw_work() -> None:
    made_up = [_said_by(f"inc-m{i}", "mallory", [("restarted the redis primary by hand", "succeeded")], days=i)
               for i in range(1, 4)]
    ctx = context(catalog=[CART_RESTART], records={"cart-restart": RunbookRecord(times_executed=1, times_succeeded=1)})
    rec = assess(incident(**REDIS_TEXT), [SEEN_TO_WORK, *made_up], ctx).recommendation
    assert (rec.mode, rec.runbook) == ("actionable", "cart-restart"), rec
    assert not any(w.startswith("precedents disagree") for w in rec.warnings), rec.warnings
    said = next(r for r in rec.reasons if "only the word of" in r)
    assert "mallory" in said and "seen to work in inc-seen" in said, said
    # The same manual fixes, confirmed by a second person, are witnesses: they still disagree.
    witnessed = [m.model_copy(update={"opened_by": "olga"}) for m in made_up]
    rec = assess(incident(**REDIS_TEXT), [SEEN_TO_WORK, *witnessed], ctx).recommendation
    assert not any("only the word of" in r for r in rec.reasons)
    assert rec.mode == "advisory" and any(w.startswith("precedents disagree") for w in rec.warnings), rec


def test_a_failure_one_person_alone_claims_does_not_block_a_runbook_the_operator_saw_work() -> None:
    claim = _said_by("inc-m9", "mallory", [("run runbook cart-restart", "failed"),
                                            ("restarted the redis primary by hand", "succeeded")], days=9)
    ctx = context(catalog=[CART_RESTART])
    rec = assess(incident(**REDIS_TEXT), [SEEN_TO_WORK, claim], ctx).recommendation
    assert rec.runbook == "cart-restart", rec
    assert not any("failed before" in r for r in rec.reasons), rec.reasons
    assert not any("tried before under the same conditions and failed" in w for w in rec.warnings), rec.warnings
    assert any("failed in inc-m9 on the word of mallory alone" in r for r in rec.reasons), rec.reasons
    # Confirmed by someone other than its opener, the same failure blocks it (believing a failure is the safe side).
    heard_twice = claim.model_copy(update={"opened_by": "olga"})
    rec = assess(incident(**REDIS_TEXT), [SEEN_TO_WORK, heard_twice], ctx).recommendation
    assert rec.mode != "actionable" or rec.runbook != "cart-restart", rec
    assert any("cart-restart was tried before" in w for w in rec.warnings), rec.warnings


def test_one_person_s_word_still_counts_where_the_operator_saw_nothing() -> None:
    # A fresh install: every outcome was opened and recorded by one person. Memory knows nothing better.
    claim = _said_by("inc-m1", "oncall-a", [("run runbook cart-restart", "failed")])
    rec = assess(incident(**REDIS_TEXT), [claim], context(catalog=[CART_RESTART])).recommendation
    assert any("cart-restart was tried before" in w for w in rec.warnings), rec.warnings
    assert not any("word of" in r for r in rec.reasons)


def test_an_unsigned_memory_claiming_a_witness_is_still_one_voice() -> None:
    """A memory on a Hindsight bank without a valid signature says the alert bridge opened it and the
    operator observed the runbook fail: nothing vouches for either claim (consolidation.unvouched_memory)."""
    from recall_operator.domain.consolidation import one_voice, unvouched_memory
    from recall_operator.domain.models import Action

    claim = _said_by("inc-f1", "mallory", [], opened_by="system:recall:alertmanager-bridge", days=9)
    claim = claim.model_copy(update={"resolution": claim.resolution.model_copy(update={"actions": (
        Action(action="run runbook cart-restart", result="failed", observed=True),)})})
    assert one_voice(claim) is None  # as it claims to be
    read = unvouched_memory(claim)
    assert one_voice(read) == "mallory" and not read.resolution.actions[0].observed
    rec = assess(incident(**REDIS_TEXT), [SEEN_TO_WORK, read], context(catalog=[CART_RESTART])).recommendation
    assert rec.runbook == "cart-restart" and not any("tried before" in w for w in rec.warnings), rec
