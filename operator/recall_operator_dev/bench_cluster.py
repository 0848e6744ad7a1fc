"""The parts of `recall bench` that need the local control plane: reconcile latency and an alert storm.

Latency is reported beside its floor, measured in the same run on the same
API server: a bare create plus a status patch by a plain client. The ratio is
what carries from one machine to another, not the milliseconds. The two are
measured in alternating rounds, so that a burst of load from elsewhere on the
machine falls on both alike rather than on whichever ran at the time.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, cast

import aiohttp

from recall_operator.api import API_VERSION, GROUP, VERSION
from recall_operator_dev.processes import free_port, stop

BENCH_NAMESPACE = "recall-bench"
FLOOR_NAMESPACE = "recall-bench-floor"
KOPF_FLOOR_NAMESPACE = "recall-bench-kopf"  # answered by recall_operator_dev.kopf_floor, one field
KOPF_ANSWER_NAMESPACE = "recall-bench-kopf-answer"  # answered by it with the operator's own answer
# Floor and reconcile latency are measured in this many alternating rounds.
ROUNDS = 10
# After the storm is triaged, the Events waiting behind its answers are posted within this
# (handlers.incident: one second without an answer); the storm's costs are read after it.
STORM_SETTLE_SECONDS = 3.0


def _incident(name: str, i: int) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "Incident",
        "metadata": {"name": name},
        "spec": {
            "service": ["checkout-api", "cart-service", "orders-db", "redis-cache"][i % 4],
            "severity": "high",
            "title": f"p99 latency above 2s on checkout, pool waits rising ({i})",
            "description": "HikariPool waits climbing since the last deploy; 5xx at the edge.",
            "symptoms": ["latency-spike", "5xx"],
            "errorSignatures": ["HikariPool-1 - Connection is not available, request timed out after 30000ms"],
        },
    }


def _alert(fingerprint: int, refire: int) -> dict[str, Any]:
    fp = f"{fingerprint:016x}"
    return {
        "version": "4",
        "status": "firing",
        "receiver": "recall",
        "groupKey": f"{{}}:{{alertname=\"Storm{fingerprint}\"}}",
        "alerts": [
            {
                "status": "firing",
                "labels": {"alertname": f"Storm{fingerprint}", "service": "checkout-api", "severity": "warning"},
                "annotations": {
                    "summary": f"checkout latency high (alert {fingerprint}, send {refire})",
                    "symptoms": "latency-spike,5xx",
                },
                "startsAt": "2026-01-01T00:00:00Z",
                "endsAt": "0001-01-01T00:00:00Z",
                "fingerprint": fp,
            }
        ],
    }


async def _floor(api: Any, count: int, prefix: str = "floor", answer: dict[str, Any] | None = None) -> list[float]:
    """A plain client's create + status patch round trip: what no operator can beat.

    Without `answer`, the patch is one field. With it, the client applies that
    whole status (server-side apply, as the operator writes it): what any writer
    of the same answer pays the API server, so that the ratio against it is what
    the operator itself adds.
    """
    from kubernetes import client

    from recall_operator.kube.client import apply_status

    custom = client.CustomObjectsApi(api)
    out = []
    for i in range(count):
        name = f"{prefix}-{i}"
        t0 = time.perf_counter()
        await asyncio.to_thread(custom.create_namespaced_custom_object, GROUP, VERSION, FLOOR_NAMESPACE, "incidents",
                                _incident(name, i))
        if answer is None:
            await asyncio.to_thread(
                custom.patch_namespaced_custom_object_status, GROUP, VERSION, FLOOR_NAMESPACE, "incidents", name,
                {"status": {"recommendation": {"mode": "novel"}}},
            )
        else:
            await asyncio.to_thread(apply_status, api, GROUP, VERSION, "incidents", "Incident", FLOOR_NAMESPACE, name,
                                    answer, "recall-bench-floor")
        out.append((time.perf_counter() - t0) * 1000)
    return out


async def _list_incidents(custom: Any, namespace: str = BENCH_NAMESPACE, **params: Any) -> dict[str, Any]:
    """A namespace's Incidents, as the API server lists them (on a thread: the client blocks)."""
    listed: dict[str, Any] = await asyncio.to_thread(
        custom.list_namespaced_custom_object, GROUP, VERSION, namespace, "incidents", **params
    )
    return listed


async def _until_triaged(api: Any, names: set[str], deadline: float) -> dict[str, float]:
    """When each named incident first showed a recommendation, by polling the list (one request a round)."""
    from kubernetes import client

    custom = client.CustomObjectsApi(api)
    seen: dict[str, float] = {}
    while len(seen) < len(names) and time.monotonic() < deadline:
        items = (await _list_incidents(custom))["items"]
        now = time.perf_counter()
        for item in items:
            name = item["metadata"]["name"]
            if name in names and name not in seen and (item.get("status") or {}).get("recommendation", {}).get("mode"):
                seen[name] = now
        await asyncio.sleep(0.02)
    return seen


async def _e2e(api: Any, count: int, prefix: str = "e2e", namespace: str = BENCH_NAMESPACE) -> list[float]:
    """Create incidents one after another; each waits for its recommendation before the next.

    A watch says when the recommendation appeared: the API server pushes the
    change as it is written. Polling for it (a GET every few milliseconds, as
    this bench first did) added its interval to every figure and its requests to
    the load on the API server and the CPUs, neither of which the floor carries.
    """
    from kubernetes import client, watch

    custom = client.CustomObjectsApi(api)
    seen: dict[str, float] = {}
    changed = threading.Condition()
    stop = threading.Event()
    failed: list[BaseException] = []
    listed = await _list_incidents(custom, namespace, limit=1)
    version = listed["metadata"]["resourceVersion"]

    def follow() -> None:
        nonlocal version
        try:
            while not stop.is_set():
                w = watch.Watch()
                for event in w.stream(custom.list_namespaced_custom_object, GROUP, VERSION, namespace,
                                      "incidents", resource_version=version, timeout_seconds=2):
                    at = time.perf_counter()
                    obj = event["object"]
                    version = obj["metadata"]["resourceVersion"]
                    if (obj.get("status") or {}).get("recommendation", {}).get("mode"):
                        with changed:
                            seen.setdefault(obj["metadata"]["name"], at)
                            changed.notify_all()
        except Exception as exc:  # handed to the measuring side, which stops waiting
            failed.append(exc)
            with changed:
                changed.notify_all()

    follower = threading.Thread(target=follow, name="bench-e2e-watch", daemon=True)
    follower.start()
    out = []
    try:
        for i in range(count):
            name = f"{prefix}-{i}"
            t0 = time.perf_counter()
            await asyncio.to_thread(custom.create_namespaced_custom_object, GROUP, VERSION, namespace, "incidents", _incident(name, i))

            def answered(name: str = name) -> bool:
                with changed:
                    return changed.wait_for(lambda: name in seen or bool(failed), timeout=60)

            if not await asyncio.to_thread(answered) or name not in seen:
                raise TimeoutError(f"{name} got no recommendation within 60 s") from (failed[0] if failed else None)
            out.append((seen[name] - t0) * 1000)
    finally:
        stop.set()
        await asyncio.to_thread(follower.join, 5)
    return out


async def _storm(api: Any, port: int, alerts: int, distinct: int) -> tuple[float, float, int, dict[int, int]]:
    """Send the alerts as fast as the bridge takes them; time until every distinct one is a triaged Incident."""
    from kubernetes import client

    url = f"http://127.0.0.1:{port}/alerts"
    payloads = [_alert(100_000 + (i % distinct), i // distinct) for i in range(alerts)]
    codes: dict[int, int] = {}
    t0 = time.perf_counter()
    async with aiohttp.ClientSession() as session:
        sem = asyncio.Semaphore(32)

        async def send(body: dict[str, Any]) -> None:
            async with sem, session.post(url, json=body) as resp:
                codes[resp.status] = codes.get(resp.status, 0) + 1

        await asyncio.gather(*(send(p) for p in payloads))
    sent = time.perf_counter() - t0
    items = (await _list_incidents(client.CustomObjectsApi(api)))["items"]
    names = {i["metadata"]["name"] for i in items if i["metadata"]["name"].startswith("alert-")}
    seen = await _until_triaged(api, names, time.monotonic() + 300)
    elapsed = (max(seen.values()) if seen else time.perf_counter()) - t0
    return round(elapsed, 2), round(sent, 2), len(names), codes


def _storm_floor(api: Any, alerts: int, distinct: int, threads: int = 16) -> float:
    """The storm's writes by a plain client on the same API server: what no bridge can beat.

    Each distinct alert is created once, every re-send patches its annotations
    (what the bridge does at least), `threads` requests at a time, in the
    storm's order; nothing triages them (they go to the floor's namespace).
    """
    from concurrent.futures import ThreadPoolExecutor

    from kubernetes import client

    custom = client.CustomObjectsApi(api)
    created = {fp: threading.Event() for fp in range(distinct)}

    def write(i: int) -> None:
        fp, name = i % distinct, f"storm-floor-{i % distinct}"
        seen = {"recall.dev/alert-status": "firing", "recall.dev/alert-last-seen-at": f"2026-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z"}
        if i < distinct:
            body = _incident(name, fp)
            body["metadata"]["annotations"] = seen
            custom.create_namespaced_custom_object(GROUP, VERSION, FLOOR_NAMESPACE, "incidents", body)
            created[fp].set()
            return
        if not created[fp].wait(60):
            raise TimeoutError(f"{name} was not created within 60 s")
        custom.patch_namespaced_custom_object(GROUP, VERSION, FLOOR_NAMESPACE, "incidents", name,
                                              {"metadata": {"annotations": seen}},
                                              _content_type="application/merge-patch+json")

    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(write, range(alerts)))
    return round(time.perf_counter() - t0, 2)


async def measure(quick: bool) -> dict[str, Any]:
    from kubernetes import client, config

    from recall_operator_dev.cluster import LocalCluster

    e2e_count, floor_count = (50, 50) if quick else (200, 200)
    remembered = 1_000 if quick else 10_000
    with tempfile.TemporaryDirectory(prefix="recall-bench-cluster-") as tmp:
        cluster = LocalCluster(Path(tmp) / "cluster")
        print("  starting the local control plane", file=sys.stderr)
        cluster.up(timeout=300)
        operator = None
        try:
            cluster.install_crds()
            for ns in (BENCH_NAMESPACE, FLOOR_NAMESPACE, KOPF_FLOOR_NAMESPACE, KOPF_ANSWER_NAMESPACE):
                cluster.kubectl("create", "namespace", ns)
            api = config.new_client_from_config(config_file=str(cluster.kubeconfig))
            store = Path(tmp) / "memory.sqlite3"
            operator, bridge_port, metrics_port = await _start_operator(cluster.kubeconfig, store, Path(tmp) / "operator.log")
            # Warm both paths so that the first request's client start-up is not measured.
            await _floor(api, 3, "warm")
            await _e2e(api, 3, "warm")
            # The operator's own answer to a bench incident, for the floor that writes the same.
            warm = await asyncio.to_thread(client.CustomObjectsApi(api).get_namespaced_custom_object,
                                           GROUP, VERSION, BENCH_NAMESPACE, "incidents", "warm-0")
            answer = cast(dict[str, Any], warm)["status"]
            await _floor(api, 3, "warm-answer", answer)
            answer_file = Path(tmp) / "answer.json"
            answer_file.write_text(json.dumps(answer))
            kopf_floors = [_start_kopf_floor(cluster.kubeconfig, Path(tmp) / "kopf-floor.log", KOPF_FLOOR_NAMESPACE),
                           _start_kopf_floor(cluster.kubeconfig, Path(tmp) / "kopf-answer.log", KOPF_ANSWER_NAMESPACE,
                                             answer_file)]
            try:
                # Also waits for each to start watching.
                await _e2e(api, 3, "warm-kopf", KOPF_FLOOR_NAMESPACE)
                await _e2e(api, 3, "warm-kopf", KOPF_ANSWER_NAMESPACE)
                print(f"  reconcile latency: {e2e_count} incidents, one after another", file=sys.stderr)
                floor: list[float] = []
                floor_answer: list[float] = []
                kopf_floor: list[float] = []
                kopf_answer: list[float] = []
                e2e: list[float] = []
                before_rounds = await _reevaluations(metrics_port)
                for r in range(ROUNDS):
                    floor += await _floor(api, floor_count // ROUNDS, f"floor-{r}")
                    floor_answer += await _floor(api, floor_count // ROUNDS, f"floor-answer-{r}", answer)
                    kopf_floor += await _e2e(api, e2e_count // ROUNDS, f"kopf-{r}", KOPF_FLOOR_NAMESPACE)
                    kopf_answer += await _e2e(api, e2e_count // ROUNDS, f"kopf-{r}", KOPF_ANSWER_NAMESPACE)
                    e2e += await _e2e(api, e2e_count // ROUNDS, f"e2e-{r}")
                reevaluations = _difference(await _reevaluations(metrics_port), before_rounds)
            finally:
                for process in kopf_floors:
                    stop(process)
            print("  alert storm: 1,000 alerts, 200 distinct", file=sys.stderr)
            pids = {"operator": operator.pid, **{k: v for k, v in cluster.pids.items()
                                                 if k in ("kube-apiserver", "etcd")}}
            cpu_before, requests_before = _cpu_seconds(pids), _write_requests(cluster)
            storm_s, sent_s, storm_n, codes = await _storm(api, bridge_port, 1000, 200)
            # What the storm cost each process, and which writes reached the API server; the
            # Events that wait behind the answers (handlers.incident.EventOutbox) are counted too.
            await asyncio.sleep(STORM_SETTLE_SECONDS)
            storm_cpu = {k: round(v - cpu_before.get(k, 0.0), 1) for k, v in _cpu_seconds(pids).items()}
            storm_requests = _difference(_write_requests(cluster), requests_before)
            print("  the storm's writes by a plain client", file=sys.stderr)
            storm_floor_s = await asyncio.to_thread(_storm_floor, _client(cluster.kubeconfig, 32), 1000, 200)
            # The same reconcile rounds with a remembered history, as an operator in use has one.
            stop(operator)
            operator = None
            print(f"  reconcile latency with {remembered:,} memories", file=sys.stderr)
            await _remember(store, remembered)
            operator, _, _ = await _start_operator(cluster.kubeconfig, store, Path(tmp) / "operator-memory.log")
            await _e2e(api, 3, "warm-memory")
            floor_memory: list[float] = []
            e2e_memory: list[float] = []
            for r in range(ROUNDS):
                floor_memory += await _floor(api, floor_count // ROUNDS, f"floor-memory-{r}")
                e2e_memory += await _e2e(api, e2e_count // ROUNDS, f"e2e-memory-{r}")
        finally:
            if operator is not None:
                stop(operator)
            cluster.down()
    return {
        "e2e_p50_ms": round(statistics.median(e2e), 1),
        "e2e_p99_ms": round(_p99(e2e), 1),
        "floor_p50_ms": round(statistics.median(floor), 1),
        "floor_p99_ms": round(_p99(floor), 1),
        "e2e_over_floor": round(statistics.median(e2e) / statistics.median(floor), 2),
        "e2e_p99_over_floor_p99": round(_p99(e2e) / _p99(floor), 2),
        # The floor that writes the operator's whole answer (its size costs the API server, not the operator).
        "floor_answer_p50_ms": round(statistics.median(floor_answer), 1),
        "floor_answer_p99_ms": round(_p99(floor_answer), 1),
        "floor_answer_bytes": len(json.dumps(answer)),
        "e2e_over_floor_answer": round(statistics.median(e2e) / statistics.median(floor_answer), 2),
        "e2e_p99_over_floor_answer_p99": round(_p99(e2e) / _p99(floor_answer), 2),
        # A Kopf operator that only writes the one-field answer (kopf_floor.py): what the framework costs.
        "kopf_floor_p50_ms": round(statistics.median(kopf_floor), 1),
        "kopf_floor_p99_ms": round(_p99(kopf_floor), 1),
        "kopf_floor_over_floor": round(statistics.median(kopf_floor) / statistics.median(floor), 2),
        "kopf_answer_p50_ms": round(statistics.median(kopf_answer), 1),
        "kopf_answer_p99_ms": round(_p99(kopf_answer), 1),
        "kopf_answer_over_floor": round(statistics.median(kopf_answer) / statistics.median(floor), 2),
        "e2e_over_kopf_answer": round(statistics.median(e2e) / statistics.median(kopf_answer), 2),
        # What the re-evaluation passes did with the open incidents during the rounds: how many
        # answers they worked out again, and how many they skipped as unchanged.
        "e2e_reevaluations": reevaluations,
        "storm_seconds": storm_s,
        "storm_sent_seconds": sent_s,
        "storm_floor_seconds": storm_floor_s,
        "storm_over_floor": round(storm_s / storm_floor_s, 2),
        "storm_incidents": storm_n,
        "storm_http_codes": {str(k): v for k, v in sorted(codes.items())},
        "storm_cpu_seconds": storm_cpu,
        "storm_api_writes": storm_requests,
        # With the store holding `e2e_memory_count` memories: recall and scoring are in the answer.
        "e2e_memory_count": remembered,
        "e2e_memory_p50_ms": round(statistics.median(e2e_memory), 1),
        "e2e_memory_p99_ms": round(_p99(e2e_memory), 1),
        "e2e_memory_over_floor": round(statistics.median(e2e_memory) / statistics.median(floor_memory), 2),
        "e2e_memory_p99_over_floor_p99": round(_p99(e2e_memory) / _p99(floor_memory), 2),
    }


def _start_kopf_floor(kubeconfig: Path, log_path: Path, namespace: str, answer: Path | None = None) -> subprocess.Popen[Any]:
    """`recall_operator_dev.kopf_floor` on its own namespace; the first incidents sent to it wait for it."""
    return subprocess.Popen(
        [sys.executable, "-m", "recall_operator_dev.kopf_floor", namespace, *([str(answer)] if answer else [])],
        env={**os.environ, "KUBECONFIG": str(kubeconfig)}, stdout=open(log_path, "w"), stderr=subprocess.STDOUT,
    )


async def _start_operator(kubeconfig: Path, store: Path, log_path: Path) -> tuple[subprocess.Popen[Any], int, int]:
    """`recall run` on the bench namespace with the embedded store at `store`; once its bridge answers."""
    bridge_port, metrics_port = free_port(), free_port()
    operator = subprocess.Popen(
        [sys.executable, "-m", "recall_operator.cli", "run", "--namespace", BENCH_NAMESPACE,
         "--memory", "embedded", "--memory-path", str(store),
         "--bridge-port", str(bridge_port), "--metrics-port", str(metrics_port)],
        env={**os.environ, "KUBECONFIG": str(kubeconfig)}, stdout=open(log_path, "w"), stderr=subprocess.STDOUT,
    )
    try:
        await _wait_for_bridge(bridge_port)
    except BaseException:
        stop(operator)
        raise
    return operator, bridge_port, metrics_port


async def _remember(store: Path, count: int) -> None:
    """Fill the operator's store (stopped) with `count` synthetic memories made from the sample history."""
    import random
    from datetime import UTC, datetime

    from recall_operator.memory.embedded import EmbeddedMemory
    from recall_operator_dev.bench import SAMPLE, fill, load_base

    memory = EmbeddedMemory(str(store))
    try:
        await fill(memory, load_base(SAMPLE), random.Random(11), datetime(2025, 1, 1, tzinfo=UTC), 0, count)
    finally:
        await memory.close()


def _cpu_seconds(pids: dict[str, int]) -> dict[str, float]:
    """CPU seconds (user + system) each process has used so far; empty where /proc is not there."""
    out = {}
    for name, pid in pids.items():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[name] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


def _write_requests(cluster: Any) -> dict[str, int]:
    """The API server's count of writes to Incidents and Events so far, by resource, verb and subresource."""
    found = cluster.kubectl("get", "--raw", "/metrics")
    counts: dict[str, int] = {}
    for line in found.stdout.splitlines():
        if not line.startswith("apiserver_request_total{"):
            continue
        labels = dict(pair.split("=", 1) for pair in line[line.index("{") + 1:line.rindex("}")].split(","))
        labels = {k: v.strip('"') for k, v in labels.items()}
        if labels.get("resource") not in ("incidents", "events") or labels.get("verb") in ("GET", "LIST", "WATCH"):
            continue
        key = " ".join(x for x in (labels["resource"], labels.get("subresource", ""), labels["verb"], labels["code"]) if x)
        counts[key] = counts.get(key, 0) + int(float(line.rsplit(" ", 1)[1]))
    return counts


def _difference(after: dict[str, int], before: dict[str, int]) -> dict[str, int]:
    return {k: v - before.get(k, 0) for k, v in sorted(after.items()) if v - before.get(k, 0)}


def _client(kubeconfig: Path, connections: int) -> Any:
    """An API client with `connections` pooled connections (the default pool is five per core)."""
    from kubernetes import client, config

    cfg = client.Configuration()
    config.load_kube_config(config_file=str(kubeconfig), client_configuration=cfg)
    cfg.connection_pool_maxsize = connections
    return client.ApiClient(cfg)


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


async def _reevaluations(port: int) -> dict[str, int]:
    """The operator's count of open incidents its re-evaluation passes worked out again or skipped, by result."""
    async with aiohttp.ClientSession() as session:
        async with session.get(f"http://127.0.0.1:{port}/metrics") as resp:
            text = await resp.text()
    counts: dict[str, int] = {}
    for line in text.splitlines():
        if line.startswith("recall_reevaluations_total{"):
            result = line[line.index('result="') + 8:].split('"', 1)[0]
            counts[result] = int(float(line.rsplit(" ", 1)[1]))
    return counts


async def _wait_for_bridge(port: int) -> None:
    deadline = time.monotonic() + 120
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            try:
                async with session.get(f"http://127.0.0.1:{port}/healthz") as resp:
                    if resp.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.2)
    raise TimeoutError(f"the operator's bridge did not answer on port {port} within 120 s")
