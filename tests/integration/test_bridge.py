"""The alert bridge end to end: a real Alertmanager, the bridge, a real API server.

The bridge runs through its public entry point, ``serve()``, in a thread with
its own event loop, writing into the test's namespace; Alertmanager (Debian's
prometheus-alertmanager, which must be installed: a missing binary fails the
test) delivers to it by webhook. Nothing is mocked. Waits are polls with
generous deadlines, never timed assertions.
"""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from alertmanager import Alertmanager, free_port
from prometheus import Prometheus
from recall_operator.bridge import serve
from recall_operator.bridge.alertmanager import MAX_BODY_BYTES, incident_name
from support import post_json as post
from support import wait_for

pytestmark = pytest.mark.integration

DEADLINE = 90.0


class BridgeThread:
    """``serve()`` on a free loopback port, in a thread with its own loop, until stopped."""

    def __init__(self, namespace: str, panel_url: str | None = None) -> None:
        self.namespace = namespace
        self.panel_url = panel_url
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._loop = asyncio.new_event_loop()
        self._task: asyncio.Task[None] | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="bridge", daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._task = self._loop.create_task(serve(self.port, self.namespace, panel_url=self.panel_url))
        try:
            self._loop.run_until_complete(self._task)
        except asyncio.CancelledError:
            pass
        except BaseException as exc:  # surfaced by health() so the test says why
            self._error = exc
        finally:
            self._loop.close()

    def health(self) -> dict[str, Any] | None:
        if self._error is not None:
            pytest.fail(f"the bridge stopped: {self._error!r}")
        try:
            with urllib.request.urlopen(f"{self.url}/healthz", timeout=5) as resp:
                return dict(json.loads(resp.read()))
        except (urllib.error.URLError, OSError):
            return None

    def start(self) -> None:
        self._thread.start()
        wait_for("the bridge's /healthz", self.health, deadline=DEADLINE)

    def stop(self) -> None:
        if self._task is not None:
            self._loop.call_soon_threadsafe(self._task.cancel)
        self._thread.join(timeout=30)
        assert not self._thread.is_alive(), "the bridge did not stop when cancelled"


@pytest.fixture
def bridge(namespace: str, cluster: Any) -> Iterator[BridgeThread]:
    # `cluster` points KUBECONFIG at the test control plane, which serve() reads.
    b = BridgeThread(namespace)
    b.start()
    try:
        yield b
    finally:
        b.stop()


@pytest.fixture
def panel_bridge(namespace: str, cluster: Any) -> Iterator[BridgeThread]:
    """A bridge that links each new Incident to the memory panel."""
    b = BridgeThread(namespace, panel_url="https://recall.example/panel/")
    b.start()
    try:
        yield b
    finally:
        b.stop()


def test_with_a_panel_url_each_new_incident_links_to_its_panel_page(
    panel_bridge: BridgeThread, namespace: str, k8s_api: Any
) -> None:
    status, _ = post(f"{panel_bridge.url}/alerts", json.dumps(webhook(direct_alert("f00d"))).encode())
    assert status == 200
    (incident,) = wait_for("the Incident", lambda: incidents(k8s_api, namespace), deadline=DEADLINE)
    name = incident["metadata"]["name"]
    link = incident["metadata"]["annotations"]["recall.dev/panel-url"]
    assert link == f"https://recall.example/panel/ns/{namespace}/incidents/{name}"


def test_a_firing_after_the_incident_was_closed_is_a_new_incident_with_its_own_panel_link(
    panel_bridge: BridgeThread, namespace: str, k8s_api: Any
) -> None:
    from kubernetes import client

    status, _ = post(f"{panel_bridge.url}/alerts", json.dumps(webhook(direct_alert("cafe"))).encode())
    assert status == 200
    first = incident_name("cafe")
    # A person records what fixed it.
    client.CustomObjectsApi(k8s_api).patch_namespaced_custom_object(
        "recall.dev", "v1alpha1", namespace, "incidents", first,
        {"spec": {"resolution": {"summary": "scaled the pool", "confirmedBy": "oncall-a"}}})
    # The same alert fires again a week later: Alertmanager sends the same fingerprint, a new start.
    later = {**direct_alert("cafe"), "startsAt": "2026-01-08T06:00:00Z"}
    status, body = post(f"{panel_bridge.url}/alerts", json.dumps(webhook(later)).encode())
    assert status == 200, body
    again = f"{first}-20260108060000"
    assert body["created"] == [again]
    made = {i["metadata"]["name"]: i for i in incidents(k8s_api, namespace)}
    assert set(made) == {first, again}
    assert made[again]["metadata"]["annotations"]["recall.dev/panel-url"] == (
        f"https://recall.example/panel/ns/{namespace}/incidents/{again}")
    assert made[again]["spec"]["startedAt"] == "2026-01-08T06:00:00Z"
    assert made[first]["spec"]["resolution"]["summary"] == "scaled the pool"


def incidents(k8s_api: Any, namespace: str) -> list[dict[str, Any]]:
    from kubernetes import client

    api = client.CustomObjectsApi(k8s_api)
    return list(api.list_namespaced_custom_object("recall.dev", "v1alpha1", namespace, "incidents")["items"])


def webhook(*alerts: dict[str, Any]) -> dict[str, Any]:
    return {"version": "4", "status": "firing", "receiver": "test", "groupKey": "{}", "alerts": list(alerts)}


def direct_alert(fingerprint: str, **labels: str) -> dict[str, Any]:
    return {
        "status": "firing",
        "labels": {"alertname": "DirectAlert", "service": "checkout", **labels},
        "annotations": {"summary": f"direct {fingerprint}"},
        "startsAt": "2026-01-01T00:00:00Z",
        "endsAt": "0001-01-01T00:00:00Z",
        "fingerprint": fingerprint,
    }


def now_rfc3339(delta: float = 0.0) -> str:
    return (datetime.now(timezone.utc) + timedelta(seconds=delta)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


# --------------------------------------------------------------------------


def test_alertmanager_alerts_become_one_incident_each(bridge: BridgeThread, namespace: str, k8s_api: Any) -> None:
    alert = {
        "labels": {"alertname": "CartLatency", "service": "cart-service", "severity": "warning", "instance": "a"},
        "annotations": {
            "summary": "p99 latency over 2s on cart",
            "description": "checkout times out",
            "symptoms": "Latency Spike, cache_eviction",
            "errorSignatures": "redis: pool timeout",
        },
        "generatorURL": "http://prometheus.invalid/graph",
    }
    by_job = {
        "labels": {"alertname": "PricingDown", "job": "pricing-api", "severity": "page", "instance": "b"},
        "annotations": {},
    }
    with Alertmanager(f"{bridge.url}/alerts") as am:
        am.post_alerts([alert, by_job])

        def by_alertname() -> dict[str, list[dict[str, Any]]]:
            out: dict[str, list[dict[str, Any]]] = {}
            for inc in incidents(k8s_api, namespace):
                out.setdefault(inc["spec"]["labels"]["alertname"], []).append(inc)
            return out

        found = wait_for("both alerts as Incidents", lambda: (lambda m: m if len(m) == 2 else None)(by_alertname()),
                         deadline=DEADLINE)
        [cart] = found["CartLatency"]
        fingerprint = cart["spec"]["labels"]["fingerprint"]
        am_fingerprints = {a["labels"]["alertname"]: a["fingerprint"] for a in am.alerts()}
        assert fingerprint == am_fingerprints["CartLatency"]
        assert cart["metadata"]["name"] == incident_name(fingerprint)
        spec = cart["spec"]
        assert spec["service"] == "cart-service"
        assert spec["severity"] == "medium"
        assert spec["title"] == "p99 latency over 2s on cart"
        assert spec["description"] == "checkout times out"
        assert spec["symptoms"] == ["latency-spike", "cache-eviction"]
        assert spec["errorSignatures"] == ["redis: pool timeout"]
        assert spec["startedAt"].endswith("Z")
        assert spec["labels"]["source"] == "alertmanager"
        assert spec["labels"]["instance"] == "a"
        assert cart["metadata"]["annotations"]["recall.dev/alert-status"] == "firing"
        assert cart["metadata"]["annotations"]["recall.dev/alert-generator-url"] == "http://prometheus.invalid/graph"
        [pricing] = found["PricingDown"]
        assert pricing["spec"]["service"] == "pricing-api"  # job label as the fallback
        assert pricing["spec"]["severity"] == "critical"
        assert pricing["spec"]["title"] == "PricingDown"

        # The same alert posted twice more, and re-sent by Alertmanager on every
        # repeat_interval: updates, never a second Incident.
        am.post_alerts([alert])
        am.post_alerts([alert])
        updated_before = bridge.health()["updated"]  # type: ignore[index]
        wait_for(
            "Alertmanager to repeat the notifications",
            lambda: (bridge.health() or {}).get("updated", 0) >= updated_before + 4,
            deadline=DEADLINE,
        )
        names = [i["metadata"]["name"] for i in incidents(k8s_api, namespace)]
        assert sorted(names) == sorted({incident_name(f) for f in am_fingerprints.values()})
        assert bridge.health()["created"] == 2  # type: ignore[index]
        again = [i for i in incidents(k8s_api, namespace) if i["metadata"]["name"] == cart["metadata"]["name"]]
        assert again[0]["spec"] == spec  # re-fires leave the spec alone

        # Resolve it: recorded in annotations, never as a resolution.
        am.post_alerts([{**alert, "endsAt": now_rfc3339(-1)}])

        def resolved() -> dict[str, Any] | None:
            for inc in incidents(k8s_api, namespace):
                if inc["metadata"]["name"] == cart["metadata"]["name"]:
                    ann = inc["metadata"].get("annotations", {})
                    if ann.get("recall.dev/alert-status") == "resolved":
                        return inc
            return None

        done = wait_for("the resolved notification", resolved, deadline=120)
        assert done["metadata"]["annotations"]["recall.dev/alert-resolved-at"].endswith("Z")
        assert "resolution" not in done["spec"]
        assert done["spec"] == spec
        assert len(incidents(k8s_api, namespace)) == 2


def test_a_rule_prometheus_fires_pages_with_its_query_as_the_signature(
    bridge: BridgeThread, namespace: str, k8s_api: Any, tmp_path: Any
) -> None:
    """Prometheus evaluates a rule with no errorSignatures annotation and sends it through
    Alertmanager: the Incident carries the rule's query, read from the generator URL that
    Prometheus itself wrote, so a terse page still says what it measured."""
    query = 'sum by (job) (prometheus_build_info{job="recall-operator"}) > 0'
    rule = {
        "alert": "BuildInfoPresent",
        "expr": query,
        "labels": {"service": "metrics-store", "severity": "warning"},
        "annotations": {"summary": "build info is exported"},
    }
    with Alertmanager(f"{bridge.url}/alerts") as am:
        prom = Prometheus(tmp_path / "prometheus", [], rules=[rule], alertmanager=f"127.0.0.1:{am.port}")
        prom.targets = [f"127.0.0.1:{prom.port}"]  # it scrapes itself, so the rule's series exists
        with prom:
            incident = wait_for(
                "the rule's alert as an Incident",
                lambda: next(iter(incidents(k8s_api, namespace)), None),
                deadline=DEADLINE,
            )
    spec = incident["spec"]
    assert spec["labels"]["alertname"] == "BuildInfoPresent"
    assert spec["service"] == "metrics-store"
    assert spec["errorSignatures"] == [query]
    generator = incident["metadata"]["annotations"]["recall.dev/alert-generator-url"]
    assert "g0.expr=" in generator


MALFORMED_HTTP: list[tuple[str, bytes, str | None, int, str]] = [
    ("bad json", b'{"version": "4", "alerts": [', "application/json", 400, "not valid JSON"),
    ("oversized", b'{"pad": "' + b"x" * (MAX_BODY_BYTES + 10) + b'"}', "application/json", 413, "exceeds the limit"),
    ("text content type", json.dumps(webhook(direct_alert("t1"))).encode(), "text/plain", 415, "content type"),
    ("no content type", json.dumps(webhook(direct_alert("t2"))).encode(), None, 415, "content type"),
    (
        "missing service label",
        json.dumps(webhook({**direct_alert("t3"), "labels": {"alertname": "X"}})).encode(),
        "application/json",
        422,
        "labels name no service",
    ),
    ("wrong version", json.dumps({**webhook(direct_alert("t4")), "version": "2"}).encode(), "application/json", 422, "version"),
    # Invisible characters only (issue 12): they made Incidents once; now the reason says what is missing.
    (
        "zero-width service",
        json.dumps(webhook({**direct_alert("t6"), "labels": {"alertname": "X", "service": "\u200b\u180e"}})).encode(),
        "application/json",
        422,
        "names no service: it has no letter or digit",
    ),
    # Visible, but no letter or digit: the API server would refuse it, so the bridge says why first.
    (
        "symbol service",
        json.dumps(webhook({**direct_alert("t8"), "labels": {"alertname": "X", "service": "--"}})).encode(),
        "application/json",
        422,
        "the service label '--' names no service",
    ),
    (
        "integer too long to read",
        b'{"version": "4", "n": ' + b"1" * 5000 + b"}",
        "application/json",
        400,
        "not valid JSON here",
    ),
    (
        "invisible title",
        json.dumps(webhook({**direct_alert("t7"), "labels": {"service": "checkout"},
                            "annotations": {"summary": "\u200b\u0000\u180e"}})).encode(),
        "application/json",
        422,
        "a title with a visible character",
    ),
    (
        "labels wrong type",
        json.dumps(webhook({**direct_alert("t5"), "labels": "service=x"})).encode(),
        "application/json",
        422,
        "alerts[0].labels must be an object",
    ),
]


@pytest.mark.parametrize(("case", "body", "ctype", "status", "reason"), MALFORMED_HTTP, ids=[m[0] for m in MALFORMED_HTTP])
def test_malformed_posts_get_a_4xx_with_a_reason(
    bridge: BridgeThread, namespace: str, k8s_api: Any, case: str, body: bytes, ctype: str | None, status: int, reason: str
) -> None:
    code, answer = post(f"{bridge.url}/alerts", body, ctype)
    assert code == status, answer
    assert reason in answer.get("error", ""), answer
    assert incidents(k8s_api, namespace) == []


def test_oversized_chunked_body_is_refused(bridge: BridgeThread, namespace: str, k8s_api: Any) -> None:
    # No Content-Length to refuse up front: the limit must hold while streaming.
    import http.client

    chunk = b" " * 65536
    conn = http.client.HTTPConnection("127.0.0.1", bridge.port, timeout=60)
    try:
        conn.request(
            "POST",
            "/alerts",
            body=iter([chunk] * (MAX_BODY_BYTES // len(chunk) + 2)),
            headers={"Content-Type": "application/json"},
            encode_chunked=True,
        )
        resp = conn.getresponse()
        assert resp.status == 413
        assert "exceeds the limit" in json.loads(resp.read())["error"]
    finally:
        conn.close()
    assert incidents(k8s_api, namespace) == []


def test_extreme_alert_is_accepted_by_the_api_server(bridge: BridgeThread, namespace: str, k8s_api: Any) -> None:
    # Everything cut to the CRD's limits, including its CEL rules, which only a
    # real API server runs: the bridge must never make an Incident it refuses.
    extreme = direct_alert("EXTREME/fp with spaces", job="j" * 400)
    extreme["labels"] = {"alertname": "A" * 5000, "service": " " + "s" * 600, **{f"l{i}": "v" * 5000 for i in range(150)}}
    extreme["annotations"] = {
        "summary": "   \n" + "t" * 3000,
        "description": "d" * 70_000,
        "symptoms": ",".join(f"--Tag {i}!!" + "x" * 70 for i in range(100)) + ",,,ü",
        "errorSignatures": "\n".join("e" * 9000 for _ in range(2)) + "\n" + "\n".join(f"sig {i}" for i in range(200)),
    }
    code, answer = post(f"{bridge.url}/alerts", json.dumps(webhook(extreme)).encode())
    assert code == 200, answer
    assert answer["created"] == [incident_name("EXTREME/fp with spaces")]
    [inc] = incidents(k8s_api, namespace)
    assert len(inc["spec"]["symptoms"]) == 64 and len(inc["spec"]["labels"]) == 128


def post_through_a_new_bridge(namespace: str, body: bytes) -> tuple[int, Any]:
    bridge = BridgeThread(namespace)
    bridge.start()
    try:
        return post(f"{bridge.url}/alerts", body)
    finally:
        bridge.stop()


def test_an_alert_with_lone_surrogates_is_one_incident_after_the_bridge_restarts(
    namespace: str, cluster: Any, k8s_api: Any
) -> None:
    # JSON can carry "\ud800", which no UTF-8 string holds: the API server stores U+FFFD in its place. A
    # bridge that compared what it sent with what it reads back took its own Incident for someone else's.
    odd = direct_alert("fp-\ud800", team="\udfff-ops")
    odd["annotations"]["summary"] = "queue \ud83d stuck"
    body = json.dumps(webhook(odd)).encode()
    assert b"\\ud800" in body  # the escape as a sender writes it, not a character
    # Each post goes through a bridge of its own: one restarted knows nothing of what it wrote, so it reads
    # the Incident back and must know it as its own.
    code, answer = post_through_a_new_bridge(namespace, body)
    assert code == 200, answer
    [made] = answer["created"]
    code, answer = post_through_a_new_bridge(namespace, body)
    assert code == 200, answer
    assert answer.get("created", []) == [], answer
    [incident] = incidents(k8s_api, namespace)
    assert incident["metadata"]["name"] == made
    assert incident["spec"]["labels"]["team"] == "\ufffd-ops"
    assert incident["spec"]["title"] == "queue \ufffd stuck"


def test_100_concurrent_posts_make_exactly_one_incident_per_alert(
    bridge: BridgeThread, namespace: str, k8s_api: Any
) -> None:
    good = [f"{i:016x}" for i in range(40)]
    requests: list[tuple[bytes, str, set[int]]] = []
    for fp in good:
        requests.append((json.dumps(webhook(direct_alert(fp))).encode(), "application/json", {200}))
    for i in range(30):  # duplicates of the good ones, racing their originals
        requests.append((json.dumps(webhook(direct_alert(good[i % 15]))).encode(), "application/json", {200}))
    bad_bodies: list[tuple[bytes, str, set[int]]] = [
        (b"{nope", "application/json", {400}),
        (json.dumps(webhook({**direct_alert("bad"), "labels": {"alertname": "NoSvc"}})).encode(), "application/json", {422}),
        (json.dumps(webhook(direct_alert("bad2"))).encode(), "text/plain", {415}),
        (json.dumps({"version": "4", "status": "firing", "alerts": "x"}).encode(), "application/json", {422}),
        (b'{"x": "' + b"y" * (MAX_BODY_BYTES + 1) + b'"}', "application/json", {413}),
    ]
    for i in range(30):
        requests.append(bad_bodies[i % len(bad_bodies)])
    assert len(requests) == 100

    barrier = threading.Barrier(len(requests))

    def send(req: tuple[bytes, str, set[int]]) -> tuple[int, dict[str, Any]]:
        barrier.wait(timeout=60)
        return post(f"{bridge.url}/alerts", req[0], req[1])

    with ThreadPoolExecutor(max_workers=len(requests)) as pool:
        results = list(pool.map(send, requests))

    created: dict[str, int] = {}
    for (body, _ctype, expected), (code, answer) in zip(requests, results):
        assert code in expected, (code, answer, body[:200])
        if code == 200:
            for name in answer["created"]:
                created[name] = created.get(name, 0) + 1
        else:
            assert answer.get("error"), answer
    expected_names = {incident_name(fp) for fp in good}
    # Each distinct alert was created by exactly one request; its duplicates updated it.
    assert created == dict.fromkeys(expected_names, 1)
    names = [i["metadata"]["name"] for i in incidents(k8s_api, namespace)]
    assert sorted(names) == sorted(expected_names)


def test_an_alert_skipped_in_a_batch_is_counted_where_alert_rules_can_see_it(
    bridge: BridgeThread, namespace: str, k8s_api: Any
) -> None:
    # The batch is answered 200 (the other alert became an Incident), so Alertmanager never retries the
    # skipped one: without a metric, only the bridge's log knew it was dropped.
    from recall_operator import metrics

    def count(outcome: str) -> float:
        return metrics.REGISTRY.get_sample_value("recall_bridge_alerts_total", {"outcome": outcome}) or 0.0

    before = {o: count(o) for o in ("created", "skipped")}
    orphan = {**direct_alert("skip-me"), "labels": {"alertname": "NoService"}}
    code, answer = post(f"{bridge.url}/alerts", json.dumps(webhook(direct_alert("keep-me"), orphan)).encode())
    assert code == 200, answer
    assert [s["alert"] for s in answer["skipped"]] == [1] and "service" in answer["skipped"][0]["reason"]
    assert count("skipped") == before["skipped"] + 1
    assert count("created") == before["created"] + 1


def test_an_alert_the_api_server_refuses_is_skipped_and_said_and_its_group_is_written(
    bridge: BridgeThread, namespace: str, k8s_api: Any
) -> None:
    # U+13439 is a format character to the API server's CEL (a newer Unicode than this Python's), so the
    # Incident is refused. Answered 502, Alertmanager re-sent the whole group until it gave up, and lost it.
    from recall_operator import metrics

    def skipped() -> float:
        return metrics.REGISTRY.get_sample_value("recall_bridge_alerts_total", {"outcome": "skipped"}) or 0.0

    before = skipped()
    odd = direct_alert("0000000000000bad", service="ledger\U00013439")
    body = {**webhook(direct_alert("000000000000600d"), odd), "truncatedAlerts": 3}
    code, answer = post(f"{bridge.url}/alerts", json.dumps(body).encode())
    assert code == 200, answer
    assert answer["created"] == [incident_name("000000000000600d")]
    assert [s["alert"] for s in answer["skipped"]] == [1], answer
    assert "kubernetes refused" in answer["skipped"][0]["reason"] and "service" in answer["skipped"][0]["reason"]
    # The three Alertmanager itself left out of the group are said and counted with the skipped one.
    assert answer["truncated"] == 3
    assert skipped() == before + 4
    assert [i["metadata"]["name"] for i in incidents(k8s_api, namespace)] == [incident_name("000000000000600d")]


def test_a_body_that_stops_arriving_is_answered_408(
    namespace: str, cluster: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    from recall_operator.bridge import server

    monkeypatch.setattr(server, "BODY_READ_SECONDS", 1)
    b = BridgeThread(namespace)
    b.start()
    try:
        with socket.create_connection(("127.0.0.1", b.port), timeout=20) as conn:
            conn.sendall(b"POST /alerts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 100\r\n\r\n{\"version\"")
            answer = conn.recv(4096).decode()
        assert answer.startswith("HTTP/1.1 408"), answer
        assert "did not arrive within 1 s" in answer
    finally:
        b.stop()
