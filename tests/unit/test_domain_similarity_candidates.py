"""Similarity terms, candidate ordering, cleaning and re-page merging."""

from __future__ import annotations

from datetime import timedelta

import pytest

from recall_operator.domain.candidates import clean_candidates, is_confirmed, is_namesake, merge_repages
from recall_operator.domain.models import RunbookRecord
from recall_operator.domain.similarity import (
    released_cause,
    ADJACENT_SERVICE_CREDIT,
    RULED_OUT_POINTS,
    UNRELATED_SERVICE_CREDIT,
    Breakdown,
    Denial,
    LexicalScorer,
    Weights,
    both_ways,
    change_words,
    cleared_cause,
    cleared_parts,
    denied_by_precedent,
    denied_symptoms,
    overlap,
    precedent_facts,
    ruled_out,
    score_candidates,
    scoring_words,
    service_match,
    signal_alignment,
)
from domain_builders import KAFKA_TEXT, REDIS_TEXT, T0, TOPOLOGY, incident, memory, resolution, spec

DOC = ["redis", "timeout", "cart", "latency"]


@pytest.mark.parametrize(
    ("pool", "query", "expected"),
    [
        ([DOC], DOC, 1.0),  # identical document: a full match whatever the pool
        ([DOC, ["kafka", "lag"], ["disk", "full"]], DOC, 1.0),
        ([["kafka", "lag"]], DOC, 0.0),  # disjoint
        ([DOC], [], 0.0),  # an empty query says nothing
    ],
)
def test_lexical_relevance_is_normalised(pool: list[list[str]], query: list[str], expected: float) -> None:
    assert LexicalScorer(pool).relevance(query, 0) == pytest.approx(expected)


def test_lexical_relevance_is_between_for_a_partial_match_and_does_not_grow_with_the_pool() -> None:
    partial = ["redis", "kafka", "disk", "queue", "dns", "oom", "cpu", "pod"]
    small = LexicalScorer([partial, ["x"]]).relevance(DOC + partial[1:], 0)
    big = LexicalScorer([partial] + [["x", str(i)] for i in range(200)]).relevance(DOC + partial[1:], 0)
    assert 0.0 < small <= 1.0 and 0.0 < big <= 1.0


def test_relevances_of_the_whole_pool_are_the_same_floats_as_one_document_at_a_time() -> None:
    # `relevances` finds each document's query terms once for the IDF count and
    # the score; `relevance` looks them up per document on a fresh scorer. The
    # pool repeats words, lacks some, and holds one the query never asks about.
    pool = [DOC + ["redis"], ["kafka", "lag", "cart"], ["disk"], [], ["latency", "cart", "cart", "oom"]]
    query = ["cart", "latency", "redis", "redis", "dns", "oom", "kafka", "disk", "queue", "pod"]
    together = LexicalScorer(pool).relevances(query)
    assert together == [LexicalScorer(pool).relevance(query, i) for i in range(len(pool))]
    assert together[0] > together[4] > together[2] > together[1] > 0.0 == together[3]


@pytest.mark.parametrize(
    ("a", "b", "value"),
    [
        ("cart-service", "cart-service", 1.0),
        ("cart-service", "redis-cluster", ADJACENT_SERVICE_CREDIT),
        ("ingress-gateway", "orders-db", 0.0),
    ],
)
def test_service_match(a: str, b: str, value: float) -> None:
    assert service_match(TOPOLOGY, a, b) == value


@pytest.mark.parametrize(
    ("a", "b", "words", "value"),
    [
        # Elsewhere in the topology only the words earn service credit, and never a neighbour's.
        ("ingress-gateway", "orders-db", 1.0, UNRELATED_SERVICE_CREDIT),
        ("ingress-gateway", "orders-db", 0.4, UNRELATED_SERVICE_CREDIT * 0.4),
        ("ingress-gateway", "orders-db", 0.0, 0.0),
        # The same service and a neighbour do not depend on the words.
        ("cart-service", "cart-service", 0.0, 1.0),
        ("cart-service", "redis-cluster", 1.0, ADJACENT_SERVICE_CREDIT),
    ],
)
def test_service_match_on_an_unrelated_service_follows_the_words(a: str, b: str, words: float, value: float) -> None:
    assert service_match(TOPOLOGY, a, b, words) == pytest.approx(value)
    assert service_match(TOPOLOGY, a, b, words) <= max(ADJACENT_SERVICE_CREDIT, service_match(TOPOLOGY, a, b))


DNS_TEXT = {
    "title": "NXDOMAIN for internal names, lookups timing out",
    "description": "coredns answers slowly; getaddrinfo EAI_AGAIN on many pods",
    "symptoms": ["dns-failure", "timeout"],
    "errorSignatures": ["getaddrinfo EAI_AGAIN orders-db.shop.svc.cluster.local"],
}


def test_a_precedent_saying_the_same_on_an_unrelated_service_outranks_a_vague_one_on_the_same_service() -> None:
    # Shared infrastructure breaks under many services: the words carry the match.
    same_words = memory("inc-dns-elsewhere", service="orders-db", **DNS_TEXT)
    same_service = memory("inc-vague", service="ingress-gateway", title="gateway slow", symptoms=["timeout"])
    scored = score_candidates(spec("ingress-gateway", **DNS_TEXT), [same_service, same_words], TOPOLOGY, {})
    assert scored[0].memory.incident == "inc-dns-elsewhere"
    assert scored[0].breakdown.service == pytest.approx(UNRELATED_SERVICE_CREDIT * scored[0].breakdown.lexical)


def _deployed(id_: str | None, revision: str | None, minutes: float | None) -> dict:
    return {"deployment": {"id": id_, "revision": revision, "minutesSinceDeploy": minutes}}


@pytest.mark.parametrize(
    ("service", "deploy", "words"),
    [
        # What was rolled out, less its version and commit, and less the paging service's own name.
        ("orders-db", _deployed("helm-checkout-api-4.2.0", "checkout-api 4.2.0 (9c1e77b)", 30),
         ["helm", "checkout", "api", "checkout-api", "checkout", "api"]),
        ("checkout-api", _deployed("helm-checkout-api-4.2.0", None, 30), ["helm"]),
        ("checkout-api", _deployed("helm-checkout-api-4.2.0", None, 240), ["helm"]),
        # An older deploy is not a likely cause, and an unknown age is not a recent one.
        ("orders-db", _deployed("helm-checkout-api-4.2.0", None, 241), []),
        ("orders-db", _deployed("helm-checkout-api-4.2.0", None, None), []),
        ("orders-db", {}, []),
        ("orders-db", _deployed(None, None, 5), []),
    ],
)
def test_change_words_are_a_recent_deploys_names(service: str, deploy: dict, words: list[str]) -> None:
    assert change_words(spec(service, **deploy)) == words


@pytest.mark.parametrize(
    ("deploy", "cause", "release"),
    [
        # The confirmed cause names the revision, or the deployment's id, that went out before it.
        (_deployed("shop-web-2025.11.3", "2025.11.3", 20), "release 2025.11.3 dropped the cart cookie", "2025.11.3"),
        (_deployed("shop-web-2025.11.3", None, 20), "shop-web-2025.11.3 shipped a broken migration", "shop-web-2025.11.3"),
        # A deploy nobody blamed, one too old to be a likely cause, or none at all.
        (_deployed("shop-web-2025.11.3", "2025.11.3", 20), "the session store ran out of memory", None),
        (_deployed("shop-web-2025.11.3", "2025.11.3", 600), "release 2025.11.3 dropped the cart cookie", None),
        ({}, "release 2025.11.3 dropped the cart cookie", None),
        # A name without a version names no one release.
        (_deployed("shop-web", "main", 20), "a change on main dropped the cart cookie", None),
    ],
)
def test_a_release_s_failure_is_one_whose_confirmed_cause_names_that_release(
    deploy: dict, cause: str, release: str | None
) -> None:
    precedent = memory("inc-1", service="shop-web", res=resolution("rollback", rootCause=cause), **deploy)
    assert released_cause(precedent) == release


def test_scoring_words_are_the_incidents_words_then_the_change() -> None:
    s = spec("orders-db", title="primary CPU saturated", **_deployed("helm-checkout-api-4.2.0", None, 30))
    assert scoring_words(s) == ["primary", "cpu", "saturated", "helm", "checkout", "api"]


def test_the_same_rollout_before_both_pages_lifts_a_precedent_paged_on_another_service() -> None:
    # A shared client library went out before both pages: last time the cart
    # paged, this time checkout, its caller, in other words. Its look-alike
    # came after another rollout.
    said = {"title": "carts fail to load", "description": "redis calls hang after the client upgrade",
            "symptoms": ["timeout"]}
    precedent = memory("inc-cart", service="cart-service", **said,
                       **_deployed("redis-client-lib-3.1.0", "shared redis client 3.1.0 (51aa0de)", 20))
    look_alike = memory("inc-cart-other", service="cart-service", **said,
                        **_deployed("ingress-values-2.0.0", "ingress values 2.0.0", 20))
    text = {"title": "checkout requests stall", "description": "calls to the cart hang", "symptoms": ["timeout"]}
    rollout = ("redis-client-lib-3.2.0", "shared redis client 3.2.0 (9c1e77b)")
    now = spec("checkout-api", **text, **_deployed(*rollout, 40))
    by_name = {s.memory.incident: s for s in score_candidates(now, [look_alike, precedent], TOPOLOGY, {})}
    assert by_name["inc-cart"].breakdown.lexical > by_name["inc-cart-other"].breakdown.lexical
    assert by_name["inc-cart"].similarity > by_name["inc-cart-other"].similarity
    # The same rollout days before the page says nothing: the precedent's lead is
    # gone (its longer record of what changed even weighs a little against it).
    days_later = spec("checkout-api", **text, **_deployed(*rollout, 4000))
    old = {s.memory.incident: s for s in score_candidates(days_later, [look_alike, precedent], TOPOLOGY, {})}
    assert old["inc-cart"].breakdown.lexical <= old["inc-cart-other"].breakdown.lexical


@pytest.mark.parametrize(
    ("a", "b", "value"),
    [
        (["x", "y"], ["x", "y"], 1.0),
        (["x", "y"], ["y", "x", "x"], 1.0),
        (["x"], ["y"], 0.0),
        ([], ["y"], 0.0),
        ([], [], 0.0),
        (["x", "y"], ["x", "z"], 0.5),
    ],
)
def test_overlap(a: list[str], b: list[str], value: float) -> None:
    assert overlap(a, b) == value


@pytest.mark.parametrize(
    ("a", "b", "value"),
    [
        # Same signatures, both right after a deploy.
        ({"errorSignatures": ["OOMKilled"], "deployment": {"minutesSinceDeploy": 5}},
         {"errorSignatures": ["OOMKilled"], "deployment": {"minutesSinceDeploy": 30}}, 1.0),
        # Same signatures, deploy timing unknown on one side: half the deploy part.
        ({"errorSignatures": ["OOMKilled"]}, {"errorSignatures": ["OOMKilled"]}, 0.85),
        # Nothing shared, one just deployed and the other long after.
        ({"errorSignatures": ["a"], "deployment": {"minutesSinceDeploy": 5}},
         {"errorSignatures": ["b"], "deployment": {"minutesSinceDeploy": 5000}}, 0.0),
        ({}, {}, 0.15),
    ],
)
def test_signal_alignment(a: dict, b: dict, value: float) -> None:
    assert signal_alignment(spec(**a), spec(**b)) == pytest.approx(value)


@pytest.mark.parametrize(("value", "points"), [(0.0, 0), (1.0, 100), (0.5, 50)])
def test_breakdown_points_are_the_weighted_sum(value: float, points: int) -> None:
    b = Breakdown(value, value, value, value, value, value)
    assert b.points(Weights()) == points
    assert sum(b.as_status(Weights()).values()) == pytest.approx(points)


def test_score_candidates_best_first_with_ties_most_recent_first() -> None:
    same = memory("inc-same", **REDIS_TEXT)
    twin_old = memory("inc-twin-old", resolved_at=T0 - timedelta(days=9), **REDIS_TEXT)
    other = memory("inc-other", service="kafka-orders", **KAFKA_TEXT)
    scored = score_candidates(spec(**REDIS_TEXT), [other, twin_old, same], TOPOLOGY, {})
    assert [s.memory.incident for s in scored] == ["inc-same", "inc-twin-old", "inc-other"]
    assert scored[0].similarity == scored[1].similarity > scored[2].similarity
    assert all(0 <= s.similarity <= 100 for s in scored)
    assert score_candidates(spec(), [], TOPOLOGY, {}) == []


def test_a_runbook_track_record_lifts_similarity_only_a_little() -> None:
    m = memory("inc-1", runbook="rb", **REDIS_TEXT)
    none = score_candidates(spec(**REDIS_TEXT), [m], TOPOLOGY, {})[0]
    good = score_candidates(spec(**REDIS_TEXT), [m], TOPOLOGY, {"rb": RunbookRecord(times_executed=9, times_succeeded=9)})[0]
    assert none.breakdown.runbook == 0.5 < good.breakdown.runbook
    assert 0 < good.similarity - none.similarity <= 5


@pytest.mark.parametrize(
    ("res", "confirmed"),
    [
        (resolution(confirmed_by="oncall"), True),
        (resolution(confirmed_by="", runbook="rb"), True),
        (resolution(confirmed_by="", actions=[("restart", "failed")]), True),
        (resolution(confirmed_by=""), False),
    ],
)
def test_is_confirmed(res, confirmed: bool) -> None:
    assert is_confirmed(memory("inc-1", res=res)) is confirmed


def test_clean_candidates_drops_itself_and_the_unconfirmed() -> None:
    pool = [
        memory("inc-self"),
        memory("inc-ok"),
        memory("inc-unconfirmed", res=resolution(confirmed_by="")),
    ]
    assert [m.incident for m in clean_candidates(incident("inc-self"), pool)] == ["inc-ok"]


def _held(uid: str | None, **fields: object):
    return memory("disk-9", **{"description": "disk on two data nodes passed 95%", **fields}).model_copy(
        update={"uid": uid})


@pytest.mark.parametrize(
    ("held", "asking", "namesake"),
    [
        # Deleted and used again for another failure: the first one's memory is a precedent.
        (_held("uid-1"), incident("disk-9", description="snapshots filled the data disks").model_copy(
            update={"uid": "uid-2"}), True),
        # The same object: its own memory, never its precedent.
        (_held("uid-1"), incident("disk-9", description="snapshots filled the data disks").model_copy(
            update={"uid": "uid-1"}), False),
        # The same report applied again (a sync re-creating it): the incident itself.
        (_held("uid-1"), incident("disk-9", description="disk on two data nodes passed 95%").model_copy(
            update={"uid": "uid-2"}), False),
        # Without both uids the two cannot be told apart (a memory from before uids, a replay) ...
        (_held(None), incident("disk-9", description="snapshots filled the data disks").model_copy(
            update={"uid": "uid-2"}), False),
        # ... but by time: a memory resolved before this Incident was created is an earlier one's.
        (_held(None), incident("disk-9", description="snapshots filled the data disks").model_copy(
            update={"uid": "uid-2", "created_at": T0 + timedelta(days=1)}), True),
        (_held(None), incident("disk-9", description="snapshots filled the data disks").model_copy(
            update={"uid": "uid-2", "created_at": T0 - timedelta(days=1)}), False),
        (_held("uid-1"), incident("disk-9", description="snapshots filled the data disks"), False),
        # Another name is no namesake.
        (_held("uid-1"), incident("disk-10", description="snapshots").model_copy(update={"uid": "uid-2"}), False),
    ],
)
def test_is_namesake(held, asking, namesake: bool) -> None:
    assert is_namesake(held, asking) is namesake
    kept = [m.incident for m in clean_candidates(asking, [held, memory("inc-ok")])]
    assert kept == (["disk-9", "inc-ok"] if namesake else
                    ["inc-ok"] if held.incident == asking.name else ["disk-9", "inc-ok"])


def _paged(name: str, minutes: float, fingerprint: str = "fp-1"):
    return memory(name, startedAt=(T0 + timedelta(minutes=minutes)).isoformat(), labels={"fingerprint": fingerprint}, **REDIS_TEXT)


@pytest.mark.parametrize(
    ("pages", "groups"),
    [
        ([("a", 0, "fp-1"), ("b", 10, "fp-1")], [["a", "b"]]),  # re-page within 15 min
        ([("a", 0, "fp-1"), ("b", 15, "fp-1")], [["a", "b"]]),  # the window is inclusive
        ([("a", 0, "fp-1"), ("b", 16, "fp-1")], [["a"], ["b"]]),
        ([("a", 0, "fp-1"), ("b", 60 * 24 * 120, "fp-1")], [["a"], ["b"]]),  # months apart: two events
        ([("a", 0, "fp-1"), ("b", 1, "fp-2")], [["a"], ["b"]]),  # another alert
        ([("a", 0, "fp-1"), ("b", 10, "fp-1"), ("c", 20, "fp-1")], [["a", "b", "c"]]),  # chained
    ],
)
def test_merge_repages(pages: list[tuple[str, float, str]], groups: list[list[str]]) -> None:
    scored = score_candidates(spec(**REDIS_TEXT), [_paged(*p) for p in pages], TOPOLOGY, {})
    scored.sort(key=lambda s: s.memory.incident)
    assert [[s.memory.incident for s in g] for g in merge_repages(scored)] == groups


def test_repage_needs_a_fingerprint_and_a_start() -> None:
    a, b = memory("a", **REDIS_TEXT), memory("b", **REDIS_TEXT)
    scored = score_candidates(spec(**REDIS_TEXT), [a, b], TOPOLOGY, {})
    assert len(merge_repages(scored)) == 2


SAML = memory(
    "inc-saml",
    service="sso-bridge",
    title="tenant cannot sign in through their IdP",
    symptoms=["login-failure", "auth-errors"],
    errorSignatures=["saml: response signature invalid: no trusted certificate matches KeyInfo"],
    res=resolution(rootCause="the IdP rolled its token-signing certificate; the stored metadata had only the old one"),
)
DISK_LOG = 'ERROR: could not extend file "base/16384/24577": No space left on device'
DISK = memory("inc-disk", service="orders-db", title="orders-db volume full", symptoms=["disk-full"],
              errorSignatures=[DISK_LOG], res=resolution(rootCause="an inactive replication slot kept WAL"))
REBALANCE = memory("inc-rebalance", service="kafka-orders", res=resolution(rootCause="a slow handler"), **KAFKA_TEXT)
UNTRUSTED_CA = memory(
    "inc-untrusted-ca", service="broker", title="new sensors refused by the broker",
    res=resolution(rootCause="a new signing certificate was created but nobody added it to the broker's trust store"),
)
UNRENEWED = memory(
    "inc-unrenewed", service="edge", title="clients fail TLS on the edge",
    res=resolution(rootCause="nothing renewed the certificate after the issuer's account changed"),
)
DEPLOYED = memory(
    "inc-deployed", service="tenant-db", title="db cpu high", symptoms=["db-cpu-high"],
    deployment={"minutesSinceDeploy": 30},
    res=resolution(rootCause="a new query scanning a large table; not a failover"),
)


@pytest.mark.parametrize(
    ("precedent", "present", "absent"),
    [
        (SAML, {"saml", "certif", "login", "failur"}, {"deploy"}),  # log lines and the confirmed cause count
        (REBALANCE, {"rebala", "consum", "handle"}, set()),
        # A recent deploy is a fact; what the root cause itself denies is not.
        (DEPLOYED, {"deploy", "query", "scanni"}, {"failov"}),
    ],
)
def test_precedent_facts(precedent, present: set[str], absent: set[str]) -> None:
    facts = precedent_facts(precedent)
    assert present <= facts
    assert not absent & facts


@pytest.mark.parametrize(
    ("report", "precedent", "expected"),
    [
        # The report denies what the precedent's log lines were.
        ({"title": "sign-in fails", "description": "They use OIDC, not SAML."}, SAML, ("saml",)),
        ({"title": "consumer lag", "description": "lag grows; no rebalances in the group log"}, REBALANCE, ("rebalances",)),
        # "No deploy since Friday" rules out a precedent that a deploy caused...
        ({"title": "db cpu high", "description": "No lock waits and no deploy since Friday."}, DEPLOYED, ("deploy",)),
        # ...and rules out nothing where the precedent's facts are other things.
        ({"title": "db cpu high", "description": "No lock waits and no deploy since Friday."}, SAML, ()),
        # "No record is created": the record is absent; being created is what it does, not a denied fact.
        ({"title": "sensors cannot connect", "description": "No device record is created for them."}, UNTRUSTED_CA, ()),
        ({"title": "sensors cannot connect", "description": "No new certificate since May."}, UNTRUSTED_CA, ("certificate", "new")),
        # Both say it was not renewed: the precedent's cause denies it too, so it is no fact of it.
        ({"title": "clients fail TLS", "description": "The certificate is not renewed."}, UNRENEWED, ()),
        # An inability is the failure itself, not a denial.
        ({"title": "sign-in fails", "description": "Users could not sign in with SAML."}, SAML, ()),
        # A symptom the incident tags itself, or its own log lines show, is never denied by a sentence.
        ({"title": "lag", "description": "no rebalances yet", "symptoms": ["rebalance"]}, REBALANCE, ()),
        ({"title": "inserts fail with no space left on device", "errorSignatures": [DISK_LOG]}, DISK, ()),
        # Without the log line the sentence is taken at its word: a known limit of reading denials.
        ({"title": "inserts fail with no space left on device"}, DISK, ("left", "space")),
    ],
)
def test_ruled_out(report: dict, precedent, expected: tuple[str, ...]) -> None:
    found = ruled_out(denied_symptoms(spec(**report)), precedent)
    assert tuple(d.word for d in found) == expected
    assert not any(d.by_precedent for d in found)


HEALTHY_DB = memory(
    "inc-pool-leak", service="checkout-api", title="checkout-api pool exhausted after release",
    description="Threads wait for a connection. orders-db looks healthy: no lock waits, low CPU.",
    symptoms=["connection-pool-exhausted"], res=resolution(rootCause="a connection leak in the release"),
)


@pytest.mark.parametrize(
    ("symptoms", "errors", "expected"),
    [
        # The old report said "no lock waits"; the new incident is tagged with them.
        (["latency-spike", "lock-wait"], [], ("lock",)),
        (["latency-spike"], [], ()),
        # The new incident's own log lines do not count: only what it tags itself.
        (["latency-spike"], ["process 88121 still waiting for RowExclusiveLock"], ()),
    ],
)
def test_denied_by_precedent(symptoms: list[str], errors: list[str], expected: tuple[str, ...]) -> None:
    new = spec("checkout-api", title="orders hang", symptoms=symptoms, errorSignatures=errors)
    found = denied_by_precedent(new, HEALTHY_DB)
    assert tuple(d.word for d in found) == expected
    assert all(d.by_precedent for d in found)


def test_a_precedent_that_denied_what_the_incident_shows_is_ruled_out() -> None:
    alike = {"title": "checkout-api pool exhausted, requests time out", "description": "threads wait for a connection"}
    plain = score_candidates(spec("checkout-api", symptoms=["connection-pool-exhausted"], **alike), [HEALTHY_DB],
                             TOPOLOGY, {})[0]
    locks = score_candidates(spec("checkout-api", symptoms=["connection-pool-exhausted", "lock-wait"], **alike),
                             [HEALTHY_DB], TOPOLOGY, {})[0]
    assert plain.breakdown.ruled_out == ()
    assert [d.explain("inc-pool-leak") for d in locks.breakdown.ruled_out] == [
        "inc-pool-leak's report denied 'lock', which this incident shows"
    ]
    assert locks.similarity < plain.similarity


def test_a_word_denied_both_ways_counts_once() -> None:
    # Each report denies what the other tagged: one stem, one deduction, this report's denial first.
    old = memory("inc-old", service="checkout-api", title="pool exhausted", description="no rebalances seen",
                 symptoms=["lock-wait"], res=resolution(rootCause="a leak"))
    new = spec("checkout-api", title="lag", description="no lock waits here", symptoms=["rebalance"])
    found = both_ways(new, denied_symptoms(new), old)
    assert [(d.word, d.by_precedent) for d in found] == [("lock", False), ("rebalances", True)]
    same = memory("inc-same", service="checkout-api", title="x", description="no lock waits",
                  symptoms=["lock-wait"], res=resolution(rootCause="a leak"))
    twice = spec("checkout-api", title="y", description="no lock waits", symptoms=["lock-wait"])
    assert both_ways(twice, denied_symptoms(twice), same) == ()  # each tags what it "denies": nothing is denied


def test_a_denial_takes_a_full_look_alike_under_the_novel_bar_and_at_most_two_count() -> None:
    report = {**KAFKA_TEXT, "title": "kafka-orders consumer lag growing", "symptoms": ["consumer-lag"],
              "description": "order consumers fall behind; no rebalances in the group"}
    twin = memory("inc-twin", service="kafka-orders", res=resolution(rootCause="a slow handler"), **KAFKA_TEXT)
    plain = score_candidates(spec("kafka-orders", **KAFKA_TEXT), [twin], TOPOLOGY, {})[0]
    denied = score_candidates(spec("kafka-orders", **report), [twin], TOPOLOGY, {})[0]
    assert denied.breakdown.ruled_out
    assert denied.similarity < 55 <= plain.similarity
    many = Breakdown(1, 1, 1, 1, 1, 1, ruled_out=tuple(Denial(w, w, False) for w in "abcd"))
    assert many.points(Weights()) == 100 - 2 * RULED_OUT_POINTS
    assert many.as_status(Weights())["ruledOut"] == -2 * RULED_OUT_POINTS


FAILOVER = memory(
    "inc-failover", service="job-runner", title="job-runner cannot record runs, inserts fail",
    description="Every run fails at the INSERT into runs. The dispatcher drops them.",
    symptoms=["write-failures", "missed-runs"],
    res=resolution("db-repoint-pooler", rootCause="the database leader was rebooted; the pooler kept the old leader"),
)
# The same service, alert and symptoms, with another cause the reporter points at by clearing the old one.
SEQUENCE = {"title": "job-runner cannot record runs, inserts fail",
            "description": "Every run fails at the INSERT into runs. The leader has not changed and other "
                           "tables take writes.",
            "symptoms": ["write-failures", "missed-runs"]}


@pytest.mark.parametrize(
    ("report", "precedent", "expected"),
    [
        (SEQUENCE, FAILOVER, ("leader",)),
        # Only the confirmed cause counts: a precedent whose report (not its cause) named the leader stays.
        (SEQUENCE, memory("inc-report", service="job-runner", description="the leader looked busy",
                          res=resolution(rootCause="a full disk")), ()),
        # A cause that itself says the leader was not the matter names no leader.
        (SEQUENCE, memory("inc-not", service="job-runner", res=resolution(rootCause="not a leader change: a bad index")),
         ()),
        # What the incident shows itself (its tags, its log lines) is never cleared by a sentence.
        ({**SEQUENCE, "symptoms": ["leader-election"]}, FAILOVER, ()),
    ],
)
def test_cleared_cause(report: dict, precedent, expected: tuple[str, ...]) -> None:
    found = cleared_cause(cleared_parts(spec("job-runner", **report)), precedent)
    assert tuple(d.word for d in found) == expected
    assert all(d.cleared and not d.by_precedent for d in found)


def test_a_look_alike_whose_cause_the_report_cleared_falls_under_the_novel_bar() -> None:
    """A trap on one service: same alert, same symptoms, and a report that says the old cause is not it."""
    plain = {**SEQUENCE, "description": "Every run fails at the INSERT into runs."}
    alike = score_candidates(spec("job-runner", **plain), [FAILOVER], TOPOLOGY, {})[0]
    trap = score_candidates(spec("job-runner", **SEQUENCE), [FAILOVER], TOPOLOGY, {})[0]
    assert alike.breakdown.ruled_out == () and alike.similarity >= 55
    assert [d.explain("inc-failover") for d in trap.breakdown.ruled_out] == [
        "this report says 'leader' works or has not changed, and inc-failover's confirmed cause named it"
    ]
    assert trap.breakdown.as_status(Weights())["ruledOut"] == -RULED_OUT_POINTS
    assert trap.similarity < 55
