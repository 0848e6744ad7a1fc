"""The tokenizer, incident names, the topology graph and incident DNA."""

from __future__ import annotations

import random

import pytest

from recall_operator.domain.dna import DIMENSIONS, dna_similarity, incident_dna
from recall_operator.domain.similarity import incident_words
from recall_operator.domain.text import (
    cleared_words,
    incident_names,
    negated_stems,
    negated_words,
    service_name_words,
    tokens,
)
from recall_operator.domain.topology import Topology, TopologyError
from domain_builders import REDIS_TEXT, TOPOLOGY, spec


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Redis TIMEOUT", ["redis", "timeout"]),
        ("the pod and the node", ["pod", "node"]),  # stopwords go
        ("max.poll.interval.ms", ["max.poll.interval.ms", "max", "poll", "interval", "ms"]),
        ("port 443 and 50000 rows", ["port", "50000", "rows"]),  # short bare numbers mean nothing alone
        ("http-503", ["http-503", "http"]),  # the number lives on only inside its compound
        ("", []),
    ],
)
def test_tokens(text: str, expected: list[str]) -> None:
    assert tokens(text) == expected



@pytest.mark.parametrize(
    ("word", "names_it"),
    [
        ("billing-usage", True), ("billing.usage", True), ("billing_usage", True), ("usage", True),
        ("usage.billing", False),  # another order is something else: `/api/search` of `search-api`
        ("billing.usage.lag", False), ("usage-ratio", False), ("lag", False),
    ],
)
def test_a_word_names_the_service_whatever_joins_its_parts(word: str, names_it: bool) -> None:
    assert service_name_words("billing-usage")(word) is names_it


def test_a_page_that_writes_its_service_dotted_says_nothing_more_than_one_that_dashes_it() -> None:
    dashed = spec(service="billing-usage", title="[FIRING:1] ConsumerUtilisationLow billing-usage",
                  description="consumer utilisation 0.12 on billing-usage")
    dotted = spec(service="billing-usage", title="[FIRING:1] ConsumerUtilisationLow billing.usage",
                  description="consumer utilisation 0.12 on billing_usage")
    assert incident_words(dotted) == incident_words(dashed)
    assert "utilisation" in incident_words(dotted)


@pytest.mark.parametrize(
    ("text", "denied"),
    [
        ("no rebalances in the log", {"rebala"}),  # where it was looked for is not denied
        ("They sign in with OIDC, not SAML.", {"saml"}),
        ("No lock waits and no deploy since Friday.", {"lock", "waits", "deploy"}),
        ("tenant-api isn't failing", {"failin"}),  # a state denied
        ("no errors in tenant-api", {"errors"}),  # the parts of a name deny nothing
        ("billing-meter received no rows_ingested events", {"events"}),
        # The failure itself, not a denial: an inability, a "don't", a relative clause.
        ("41 shards could not write to the MinIO repository", set()),
        ("new records don't show up", set()),
        ("upstream addresses that are not current pod IPs", set()),
        ("the gateway no longer routes to the new pods", set()),
        # The scope stops at a clause boundary.
        ("no evictions, redis latency high", {"evicti"}),
        ("", set()),
    ],
)
def test_negated_stems(text: str, denied: set[str]) -> None:
    assert negated_stems(text) == denied


@pytest.mark.parametrize(
    ("text", "cleared"),
    [
        ("Writes to one table fail. The database is up and the leader has not changed.", {"database", "leader"}),
        ("Uploads fail with 503; downloads are fine and the status page is green.", {"downloads", "page"}),
        ("Lag grows. The broker itself is healthy: low CPU.", {"broker"}),  # the part before "itself"
        ("Sign-ins fail. The certificate hasn't changed since May.", {"certificate"}),
        ("Queue depth grows; input is still normal.", {"input"}),
        # One of them is not: "the other ...", "the rest ...".
        ("Shard 4 is read-only. The other shards are fine.", set()),
        ("pods on other nodes are healthy", set()),
        # A part named again elsewhere is where the failure is; only some of it works.
        ("LTE hubs reconnect every five minutes; broadband hubs are unaffected.", set()),
        # A name's parts, a pronoun, a quoted message and a denied state clear nothing.
        ("Checkout fails; cart-db is up.", set()),
        ("Our latency to everything else is normal.", set()),
        ("One consumer is stuck; the rest are fine and everything is stable.", set()),
        ("The device shows 'gateway is healthy' and then drops.", set()),
        ("The replica is not fine.", set()),
        ("", set()),
    ],
)
def test_cleared_words(text: str, cleared: set[str]) -> None:
    assert set(cleared_words(text).values()) == cleared


def test_a_long_report_clears_what_its_phrases_say_wherever_they_stand() -> None:
    # Each phrase looks back a fixed window for "the other ...": the same answer deep in a long report.
    filler = " ".join(f"line{i} of the timeline." for i in range(2_000))
    assert set(cleared_words(f"{filler} The other shards are fine. {filler} The broker is healthy.").values()) == {
        "broker"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("re-page of inc-0008, like INC-0008 and inc-0012", ["inc-0008", "inc-0012"]),
        ("see tw-inc-013", ["tw-inc-013"]),
        ("winc-0001 and inc-x", []),
        ("nothing", []),
    ],
)
def test_incident_names(text: str, expected: list[str]) -> None:
    assert incident_names(text) == expected


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("a: [unclosed", "not valid YAML"),
        ("- a\n- b", "must map each service"),
        ("a: {dependsOn: b}", "'a': dependsOn must be a list"),
        ("a: {dependsOn: [1]}", "'a': dependsOn must be a list"),
        ("a: 3", "'a'"),
        # A ConfigMap anyone with configmaps/edit writes: the index kept nothing of it and said nothing.
        ("[" * 5000 + "]" * 5000, "nested too deeply"),
        ("a: {dependsOn: " + "{x: " * 3000 + "1" + "}" * 3001, "nested too deeply"),
    ],
)
def test_topology_parse_refuses_bad_text_with_the_entry_named(text: str, error: str) -> None:
    with pytest.raises(TopologyError, match=error.replace("[", r"\[")):
        Topology.parse(text)


@pytest.mark.parametrize(
    ("text", "graph"),
    [
        ("", {}),
        ("a: {dependsOn: [b]}\nb: {}", {"a": {"b"}, "b": set()}),
    ],
)
def test_topology_parse_good(text: str, graph: dict[str, set[str]]) -> None:
    assert {k: set(v) for k, v in Topology.parse(text).depends_on.items()} == graph


@pytest.mark.parametrize(
    ("service", "neighbours"),
    [
        ("cart-service", {"redis-cluster", "checkout-api", "ingress-gateway"}),
        ("redis-cluster", {"cart-service", "payment-service"}),
        ("unknown", set()),
    ],
)
def test_neighbours_are_callees_and_callers(service: str, neighbours: set[str]) -> None:
    assert TOPOLOGY.neighbours(service) == neighbours


@pytest.mark.parametrize(
    ("service", "reach"),
    [
        # What it calls however far down, and who calls it; not its callees' other callers.
        ("checkout-api", {"checkout-api", "payment-service", "cart-service", "kafka-orders", "orders-db",
                          "redis-cluster", "ingress-gateway"}),
        ("cart-service", {"cart-service", "redis-cluster", "ingress-gateway", "checkout-api"}),
        ("orders-db", {"orders-db", "payment-service", "kafka-orders"}),
        ("unnamed", {"unnamed"}),
    ],
)
def test_within_reach_is_the_service_all_it_calls_and_its_callers(service: str, reach: set[str]) -> None:
    assert TOPOLOGY.within_reach(service) == reach


def test_within_reach_survives_a_cycle() -> None:
    graph = Topology.parse("a: {dependsOn: [b]}\nb: {dependsOn: [c]}\nc: {dependsOn: [a]}")
    assert graph.within_reach("a") == {"a", "b", "c"}


def test_neighbours_of_a_service_named_only_as_a_dependency_and_of_one_that_calls_itself() -> None:
    graph = Topology.parse("api: {dependsOn: [db, api]}\nworker: {dependsOn: [db]}\n")
    assert graph.neighbours("db") == {"api", "worker"}  # no entry of its own: its callers only
    assert graph.neighbours("api") == {"db"}  # a service is never its own neighbour
    assert graph.neighbours("worker") == {"db"}


@pytest.mark.parametrize(
    ("a", "b", "relation"),
    [
        ("cart-service", "cart-service", "exact"),
        ("cart-service", "redis-cluster", "adjacent"),
        ("redis-cluster", "cart-service", "adjacent"),
        ("ingress-gateway", "redis-cluster", "unrelated"),  # two hops is not next door
        ("x", "y", "unrelated"),
    ],
)
def test_relation(a: str, b: str, relation: str) -> None:
    assert TOPOLOGY.relation(a, b) == relation


@pytest.mark.parametrize(
    ("service", "depth"),
    [("redis-cluster", 0), ("cart-service", 1), ("checkout-api", 2), ("ingress-gateway", 3), ("unknown", 0)],
)
def test_depth_is_the_longest_callee_chain(service: str, depth: int) -> None:
    assert TOPOLOGY.depth(service) == depth


def test_depth_survives_a_cycle() -> None:
    assert Topology.parse("a: {dependsOn: [b]}\nb: {dependsOn: [a]}").depth("a") >= 1


def _longest_below(graph: dict[str, list[str]], service: str) -> int:
    """The plain definition, for graphs without a cycle: one more than the deepest callee."""
    return max((1 + _longest_below(graph, d) for d in graph.get(service, [])), default=0)


@pytest.mark.parametrize("seed", range(20))
def test_depths_of_a_graph_without_cycles_are_its_longest_chains(seed: int) -> None:
    rng = random.Random(seed)
    names = [f"s{i:02d}" for i in range(30)]
    # Edges only from a later name to an earlier one: no cycle, in any order of the names.
    graph = {n: sorted(rng.sample(names[:i], k=min(i, rng.randint(0, 3)))) for i, n in enumerate(names)}
    rng.shuffle(names)
    topology = Topology({n: frozenset(d) for n, d in graph.items()})
    assert {n: topology.depth(n) for n in names} == {n: _longest_below(graph, n) for n in names}
    assert topology.max_depth == max(_longest_below(graph, n) for n in names)


def test_a_cyclic_graphs_depths_do_not_depend_on_which_service_is_asked_first() -> None:
    text = "a: {dependsOn: [b]}\nb: {dependsOn: [c]}\nc: {dependsOn: [a, d]}\nd: {dependsOn: [e]}\ne: {}\n"
    orders = [list("abcde"), list("edcba"), list("cadbe")]
    answers = []
    for order in orders:
        topology = Topology.parse(text)
        answers.append({s: topology.depth(s) for s in order})
    assert answers[0] == answers[1] == answers[2]
    assert answers[0]["e"] == 0 and answers[0]["d"] == 1 and answers[0]["c"] >= 2


def test_a_large_topology_walks_each_service_once() -> None:
    # 2,000 services with ten callees each: a walk from every service in turn visited about
    # 44 million edges; one walk visits each edge once. Counted, not timed.
    depends_on = {f"s{i:04d}": frozenset(f"s{(i * 7 + k) % 2000:04d}" for k in range(1, 11)) for i in range(2000)}
    visits = 0

    class Counting(dict):  # type: ignore[type-arg]
        def get(self, key, default=None):  # type: ignore[no-untyped-def]
            nonlocal visits
            visits += 1
            return super().get(key, default)

    topology = Topology(Counting(depends_on))
    assert topology.max_depth >= 10
    assert visits <= 2 * 2000


def test_callers_and_depths_asked_again_answer_as_the_first_time() -> None:
    # Both are worked out once per topology and kept; asking twice, or in another order, changes nothing.
    graph = Topology.parse("a: {dependsOn: [b, c]}\nb: {dependsOn: [c]}\nd: {dependsOn: [c, d]}\n")
    assert graph.callers("c") == {"a", "b", "d"} and graph.callers("d") == {"d"} and graph.callers("x") == set()
    assert [graph.depth(s) for s in ("c", "a", "b", "a", "c")] == [0, 2, 1, 2, 0]
    assert TOPOLOGY.callers("redis-cluster") == {"cart-service", "payment-service"}


@pytest.mark.parametrize(
    "fields",
    [
        {},
        REDIS_TEXT,
        {"severity": "critical", "deployment": {"minutesSinceDeploy": 0}, "symptoms": list("abcdefg")},
        {"severity": "low", "description": "config rollout changed the schema version; timeouts 503 retry"},
    ],
)
def test_dna_has_eight_dimensions_in_range_each_with_a_reason(fields: dict) -> None:
    dna = incident_dna(spec("cart-service", **fields), TOPOLOGY)
    assert [d.name for d in dna] == list(DIMENSIONS)
    assert len(dna) == 8
    for d in dna:
        assert 0.0 <= d.value <= 1.0, d
        assert d.reason


@pytest.mark.parametrize(
    ("fields", "name", "value"),
    [
        ({"severity": "critical"}, "errorSeverity", 1.0),
        ({"severity": "low"}, "errorSeverity", 0.25),
        ({"deployment": {"minutesSinceDeploy": 0}}, "deployProximity", 1.0),
        ({"deployment": {"minutesSinceDeploy": 120}}, "deployProximity", 0.5),
        ({}, "deployProximity", 0.0),
        ({"symptoms": ["a", "b"]}, "symptoms", 0.4),
        ({"description": "config version upgrade"}, "configurationDrift", 1.0),
        ({"description": "timeout"}, "networkPressure", 1 / 3),
        ({}, "resolutionComplexity", 0.5),
    ],
)
def test_dna_dimension_values(fields: dict, name: str, value: float) -> None:
    dims = {d.name: d for d in incident_dna(spec("cart-service", **fields), TOPOLOGY)}
    assert dims[name].value == pytest.approx(value)


@pytest.mark.parametrize(
    ("service", "depth_value", "blast"),
    [("redis-cluster", 1.0, 4 / 7), ("ingress-gateway", 0.0, 0.0), ("not-there", 0.5, 0.0)],
)
def test_dna_topology_dimensions(service: str, depth_value: float, blast: float) -> None:
    dims = {d.name: d for d in incident_dna(spec(service), TOPOLOGY)}
    assert dims["serviceDepth"].value == pytest.approx(depth_value)
    assert dims["blastRadius"].value == pytest.approx(blast, abs=1e-3)


def test_dna_similarity_is_one_for_itself_and_less_for_another_shape() -> None:
    a = incident_dna(spec("redis-cluster", severity="critical", **REDIS_TEXT), TOPOLOGY)
    b = incident_dna(spec("ingress-gateway", severity="low"), TOPOLOGY)
    assert dna_similarity(a, a) == 1.0
    assert 0.0 <= dna_similarity(a, b) < 1.0


@pytest.mark.parametrize(
    ("text", "denied"),
    [
        ("Users hear 'device is not responding' from the speaker", set()),
        ('The dashboard shows "no data" for every panel', set()),
        ("No deploy since Friday; the app says 'not responding'", {"deploy"}),
        ("The pods aren't restarting", {"restar"}),
    ],
    ids=["single-quoted-message", "double-quoted-message", "denial-beside-a-quote", "apostrophe-is-no-quote"],
)
def test_a_quoted_message_is_the_failure_s_words_not_a_denial(text: str, denied: set[str]) -> None:
    assert set(negated_words(text)) == denied


@pytest.mark.parametrize(
    ("text", "denied"),
    [
        # What the absent thing would have done is not denied: only the thing.
        ("No device record is created for the new batch", {"device", "record"}),
        ("No replica has caught up since noon", {"replic"}),
        # A verb right after the cue is part of what is denied.
        ("The pod has not been restarted", {"restar"}),
        # A phrase that says where or when ends it too: "6 hours" is not denied.
        ("Certificate not Ready for 6 hours", {"ready"}),
        ("No tenant above 10% of traffic", {"tenant"}),
        # What brought it about is part of the denial: a cause denied.
        ("The lag was not caused by a deploy", {"caused", "deploy"}),
        # "Never arrive" and "nobody can log in" are the failure itself, as "didn't run" is.
        ("The confirmation e-mails never arrive", set()),
        ("Nobody can log in through the IdP", set()),
        # "Nothing" and "nobody" deny as "no" does.
        ("Nothing was deployed today", {"deploy", "today"}),
        ("Nobody rotated the key", {"rotate", "key"}),
        # Without a verb the denial runs its full reach of four words.
        ("No lock waits or failovers today", {"lock", "waits", "failov"}),
    ],
)
def test_what_a_denial_covers(text: str, denied: set[str]) -> None:
    assert set(negated_words(text)) == denied


def test_a_long_chain_is_walked_without_recursion_and_a_huge_graph_is_refused() -> None:
    from recall_operator.domain.dna import incident_dna
    from recall_operator.domain.models import IncidentSpec
    from recall_operator.domain.topology import MAX_SERVICES, TopologyError

    # A ConfigMap anyone with edit may write: 1,500 services in one chain exceeded Python's recursion limit.
    chain = "".join(f"s{i}: {{dependsOn: [s{i + 1}]}}\n" for i in range(1_500))
    graph = Topology.parse(chain)
    assert graph.depth("s0") == 1_500 and graph.max_depth == 1_500
    dims = {d.name: d for d in incident_dna(IncidentSpec(service="cart", title="cart slow"), graph)}
    assert dims["serviceDepth"].reason == "cart is not in the topology"
    # A cycle in a long chain is still cut where it closes.
    assert Topology.parse(chain + "s1500: {dependsOn: [s0]}\n").depth("s0") == 1_500
    with pytest.raises(TopologyError, match=f"more than {MAX_SERVICES}"):
        Topology.parse("".join(f"s{i}: {{dependsOn: []}}\n" for i in range(MAX_SERVICES + 1)))
