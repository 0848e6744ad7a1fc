"""Operability end to end: `recall run --metrics-port --log-format json` against the real API server,
scraped by a real Prometheus.

The operator runs as a subprocess, started the way a Deployment starts it, so
the runner's own endpoint (/metrics, /healthz, /readyz) and logging set-up are
what is tested. Waits are for the operator and Prometheus, never timed
assertions.
"""

from __future__ import annotations

import io
import json
import logging
import os
import signal
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kopf
import pytest
from kit import console_script
from prometheus import Prometheus, free_port
from support import wait_for

from recall_operator import logs, metrics
from recall_operator_dev.demo import apply, incident_status

pytestmark = pytest.mark.integration

INCIDENT = {
    "apiVersion": "recall.dev/v1alpha1",
    "kind": "Incident",
    "metadata": {"name": "inc-metrics-1"},
    "spec": {"service": "cart-service", "severity": "high", "title": "cart p99 latency over 2s",
             "symptoms": ["latency-spike"], "errorSignatures": ["upstream timed out"]},
}


CHART_FILES = Path(__file__).resolve().parents[2] / "helm" / "recall-operator" / "files"


def monitored_series() -> set[str]:
    """The recall_* series the alert rules and the dashboard query."""
    import re

    import yaml

    exprs = [r["expr"] for g in yaml.safe_load((CHART_FILES / "prometheus-rules.yaml").read_text())["groups"]
             for r in g["rules"]]
    dashboard = json.loads((CHART_FILES / "dashboard.json").read_text())
    exprs += [t["expr"] for panel in dashboard["panels"] for t in panel["targets"]]
    return {m for e in exprs for m in re.findall(r"\brecall_[a-z_]+", e)}


def http_get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()
    except (urllib.error.URLError, OSError) as exc:
        return 0, str(exc)


class Operator:
    def __init__(self, proc: subprocess.Popen[bytes], port: int, log_path: Path) -> None:
        self.proc, self.port, self.log_path = proc, port, log_path
        self.url = f"http://127.0.0.1:{port}"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


@pytest.fixture
def recall_run(cluster: Any, namespace: str, tmp_path: Path) -> Iterator[Operator]:
    port = free_port()
    log_path = tmp_path / "operator.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [*console_script("recall"), "run", "--namespace", namespace, "--metrics-port", str(port),
             "--memory", "embedded", "--memory-path", str(tmp_path / "memory.sqlite3"), "--log-format", "json"],
            stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "KUBECONFIG": str(cluster.kubeconfig)},
            start_new_session=True,
        )
    op = Operator(proc, port, log_path)
    try:
        yield op
    finally:
        op.stop()


def test_prometheus_scrapes_the_operator_and_probes_and_json_logs_work(
    recall_run: Operator, kubectl: Any, namespace: str, tmp_path: Path
) -> None:
    op = recall_run
    wait_for("/healthz to answer 200", lambda: op.proc.poll() is None and http_get(f"{op.url}/healthz")[0] == 200
             or (op.proc.poll() is not None and pytest.fail(f"the operator exited: {op.log()[-4000:]}")))
    status, body = wait_for("/readyz to answer 200", lambda: (r := http_get(f"{op.url}/readyz"))[0] == 200 and r)
    assert json.loads(body) == {"ready": True, "reason": "ready"}

    apply(kubectl, namespace, INCIDENT)
    rec = wait_for("a recommendation on the incident",
                   lambda: incident_status(kubectl, namespace, "inc-metrics-1").get("recommendation"))
    assert rec["mode"] in metrics.MODES

    code, text = http_get(f"{op.url}/metrics")
    assert code == 200
    assert f'recall_incidents_triaged_total{{mode="{rec["mode"]}"}} 1.0' in text
    # Every series the chart's alert rules and Grafana dashboard name is in this real scrape.
    exported = {line.split("{")[0].split(" ")[0] for line in text.splitlines() if line and not line.startswith("#")}
    named = monitored_series()
    assert named and named <= exported, f"named by the rules or dashboard, not exported: {sorted(named - exported)}"

    with Prometheus(tmp_path / "prometheus", [f"127.0.0.1:{op.port}"]) as prom:
        def series(promql: str) -> list[dict[str, Any]]:
            return prom.query(promql)

        wait_for("Prometheus to scrape the operator",
                 lambda: any(t["health"] == "up" for t in prom.targets_health()))
        triaged = wait_for("recall_incidents_triaged_total in Prometheus",
                           lambda: series("sum(recall_incidents_triaged_total)"))
        assert float(triaged[0]["value"][1]) >= 1
        by_mode = {s["metric"]["mode"]: float(s["value"][1]) for s in series("recall_incidents_triaged_total")}
        assert set(by_mode) == set(metrics.MODES) and by_mode[rec["mode"]] >= 1
        up = wait_for("recall_memory_up in Prometheus", lambda: series("recall_memory_up"))
        assert float(up[0]["value"][1]) == 1.0
        recalls = wait_for("recall_recall_seconds_count in Prometheus", lambda: series("recall_recall_seconds_count"))
        assert float(recalls[0]["value"][1]) >= 1
        for name in ("recall_scoring_seconds_count", "recall_outbox_depth", "recall_reconcile_errors_total"):
            assert series(name), f"{name} is not exported"

    # The operator stops cleanly on SIGINT, and every line it logged is one JSON object.
    assert op.stop() == 0, op.log()[-4000:]
    lines = [line for line in op.log().splitlines() if line.strip()]
    parsed = []
    for line in lines:
        try:
            parsed.append(json.loads(line))
        except ValueError:
            pytest.fail(f"a log line is not JSON: {line!r}")
    assert all({"time", "level", "logger", "message"} <= set(p) for p in parsed)
    about = [p for p in parsed if p.get("incident") == f"{namespace}/inc-metrics-1"]
    assert about, "no log line names the incident"
    assert any(p["logger"].startswith("kopf") for p in about)
    assert not any("Traceback" in p.get("message", "") or p.get("exception") for p in parsed), lines


# -- the pieces, without a cluster -------------------------------------------------


def test_readiness_needs_startup_done_and_memory_open() -> None:
    import asyncio

    ready = asyncio.Event()
    memo = kopf.Memo()
    assert metrics.readiness(None, memo)[0] is False
    assert metrics.readiness(ready, memo) == (False, "the operator's start-up handlers have not finished")
    ready.set()
    assert metrics.readiness(ready, memo) == (False, "the memory backend is not open")
    memo.memory = object()
    assert metrics.readiness(ready, memo) == (True, "ready")
    lists = metrics.FirstLists()
    assert metrics.readiness(ready, memo, lists)[0] is False
    lists.done.set()
    assert metrics.readiness(ready, memo, lists) == (True, "ready")


async def test_readyz_waits_for_one_list_of_each_watched_kind(cluster: Any, namespace: str) -> None:
    """On the real API server: a kind that cannot be listed (no CRD) keeps /readyz false and is named."""
    import asyncio

    from kopf._cogs.structs.references import Insights, Resource

    def insights_for(*plurals: str) -> Insights:
        insights = Insights()
        insights.watched_resources.update(Resource("recall.dev", "v1alpha1", p, namespaced=True) for p in plurals)
        insights.namespaces.add(namespace)
        insights.ready_resources.set()
        insights.ready_namespaces.set()
        return insights

    ready, memo = asyncio.Event(), kopf.Memo()
    ready.set()
    memo.memory = object()
    stuck = metrics.FirstLists()
    task = asyncio.create_task(metrics.list_watched_kinds(ready, insights_for("incidents", "nothings"), stuck,
                                                          retry_s=0.1))
    try:
        for _ in range(300):
            if "nothings" in stuck.missing:
                break
            await asyncio.sleep(0.1)
        ok, why = metrics.readiness(ready, memo, stuck)
        assert not ok and why.endswith(f"nothings.recall.dev in {namespace}: 404"), why
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    listed = metrics.FirstLists()
    await asyncio.wait_for(metrics.list_watched_kinds(ready, insights_for("incidents", "runbooks", "approvals"),
                                                      listed, retry_s=0.1), timeout=60)
    assert metrics.readiness(ready, memo, listed) == (True, "ready")


def test_a_finished_job_is_counted_once() -> None:
    def value() -> float:
        return metrics.REGISTRY.get_sample_value("recall_jobs_total", {"phase": "dryrun", "result": "failed"}) or 0.0

    before = value()
    owner = {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "name": "inc-1", "uid": "u-inc",
             "controller": True}
    job = {"metadata": {"uid": "u-test-once", "labels": {"recall.dev/phase": "dryrun"}, "ownerReferences": [owner]},
           "status": {"conditions": [{"type": "Failed", "status": "True"}]}}
    metrics.job_seen({"metadata": job["metadata"], "status": {}})  # still running: not counted
    metrics.job_seen(job)
    metrics.job_seen(job)
    assert value() == before + 1


def test_a_job_someone_else_labelled_adds_no_series() -> None:
    # Anyone who may create Jobs may copy the labels: a phase of their own would be a new series each.
    def series() -> int:
        return sum(len(m.samples) for m in metrics.REGISTRY.collect() if m.name == "recall_jobs")

    before, failed = series(), metrics.REGISTRY.get_sample_value(
        "recall_jobs_total", {"phase": "run", "result": "failed"}) or 0.0
    done = {"conditions": [{"type": "Failed", "status": "True"}]}
    owner = {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "name": "inc-1", "uid": "u-inc",
             "controller": True}
    for i, (phase, owners) in enumerate((("attacker-chosen-1", [owner]), ("run", []),
                                         ("run", [{**owner, "controller": False}]),
                                         ("run", [{**owner, "kind": "Deployment"}]))):
        metrics.job_seen({"metadata": {"uid": f"u-foreign-{i}", "labels": {"recall.dev/phase": phase},
                                       "ownerReferences": owners}, "status": done})
    assert series() == before
    assert (metrics.REGISTRY.get_sample_value("recall_jobs_total", {"phase": "run", "result": "failed"})
            or 0.0) == failed


def test_json_lines_carry_the_object_kopf_logs_for() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logs.JsonFormatter())
    target = logging.getLogger("kopf.objects")
    target.addHandler(handler)
    old_level = target.level
    target.setLevel(logging.INFO)
    try:
        body = kopf.Body({"apiVersion": "recall.dev/v1alpha1", "kind": "Incident",
                          "metadata": {"name": "inc-7", "namespace": "ns1", "uid": "u"}})
        kopf.ObjectLogger(body=body, settings=kopf.OperatorSettings()).info("hello %s", "there")
        logging.getLogger("kopf.objects").warning("no object")
    finally:
        target.removeHandler(handler)
        target.setLevel(old_level)
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    assert first["incident"] == "ns1/inc-7" and first["kind"] == "Incident" and first["message"] == "hello there"
    assert first["level"] == "INFO" and first["logger"] == "kopf.objects" and first["time"].endswith("+00:00")
    assert "incident" not in second


def test_backlog_counts_unfinished_executions_and_lapsed_approvals() -> None:
    from datetime import datetime, timezone

    now = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)

    def incident(state: str | None, since: str | None) -> dict[str, Any]:
        status: dict[str, Any] = {"execution": {"state": state}} if state else {}
        if since:
            status["conditions"] = [{"type": "Executing", "status": "True", "lastTransitionTime": since}]
        return {"status": status}

    incidents = [incident("Running", "2026-01-01T11:00:00Z"), incident("Running", "2026-01-01T11:50:00Z"),
                 incident("Succeeded", "2026-01-01T08:00:00Z"), incident(None, None), {"status": None}]
    approvals = [{"status": {"state": "Pending", "expiresAt": "2026-01-01T11:59:00Z"}},
                 {"status": {"state": "Pending", "expiresAt": "not a time"}},
                 # RFC 3339 needs a zone (domain.times.parse_time): without one it is no time, like the above
                 {"status": {"state": "Pending", "expiresAt": "2026-01-01T11:58:00"}},
                 {"status": {"state": "Pending", "expiresAt": "2026-01-01T12:30:00Z"}},
                 {"status": {"state": "Accepted", "expiresAt": "2026-01-01T10:00:00Z"}}, {}]
    counts, oldest, lapsed = metrics.backlog(incidents, approvals, now)
    assert counts == {"Running": 2} and oldest == {"Running": 3600.0} and lapsed == 1
