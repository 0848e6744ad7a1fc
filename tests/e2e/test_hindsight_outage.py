"""A Hindsight outage under the running operator: outcomes wait in the outbox, then land once.

The operator runs as `recall run --memory hindsight` (a subprocess) against
the real local API server and a real Hindsight server of this test's own
(tests/hindsight_server.py: its API and database, restartable on the same
data). While Hindsight is down, recorded outcomes wait in the outbox with
`MemoryAvailable=False`, one deleted meanwhile is held until its outcome
lands, and new incidents are still triaged (degraded, no crash); when it is back, every outbox entry drains and each memory is in the
bank exactly once, read back through the backend's own `get` and `count`.
Before any incident uses memory in the outage, `recall_memory_up` already
reads 0 from the operator's health check alone.
Waits are polls with generous deadlines.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hindsight_server import HindsightServer, serving
from prometheus import free_port
from recall_operator.memory.hindsight import HindsightMemory
from support import stop_process, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.hindsight]

RUNBOOK = {
    "title": "recycle the cart pods", "services": ["cart"], "symptoms": ["latency-spike"],
    "steps": [{"name": "restart", "image": "kubectl:1.36",
               "command": ["kubectl", "rollout", "restart", "deployment/$(SERVICE)"],
               "dryRunCommand": ["kubectl", "rollout", "status", "deployment/$(SERVICE)"]}],
}
OUTCOME = {"rootCause": "hot keys after a cache flush", "summary": "recycled the cart pods; latency back to normal",
           "runbook": "cart-recycle", "actions": [{"action": "cart-recycle", "result": "succeeded"}],
           "confirmedBy": "alice"}
DURING = [f"inc-down-{i}" for i in range(4)]


@pytest.fixture
def hindsight() -> Iterator[HindsightServer]:
    # A folder of its own (the database runs as another user, who cannot enter pytest's tmp_path).
    with serving(HindsightServer()) as server:
        yield server


def conditions(status: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["type"]: c for c in status.get("conditions") or []}


def test_outcomes_wait_in_the_outbox_while_hindsight_is_down_then_land_once(
    hindsight: HindsightServer, kubectl: Callable[..., Any], namespace: str, cluster: Any, tmp_path: Path
) -> None:
    def apply(obj: dict[str, Any]) -> None:
        obj["metadata"]["namespace"] = namespace
        kubectl("apply", "-f", "-", input=json.dumps(obj), check=True)

    def status(name: str) -> dict[str, Any]:
        proc = kubectl("get", "incidents.recall.dev", name, "-n", namespace, "-o", "json")
        return (json.loads(proc.stdout).get("status") or {}) if proc.returncode == 0 else {}

    def incident(name: str) -> None:
        apply({"apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "metadata": {"name": name},
               "spec": {"service": "cart", "title": f"cart p99 over 2s ({name})", "severity": "high",
                        "symptoms": ["latency-spike"]}})

    def triaged(name: str) -> dict[str, Any]:
        return wait_for(f"{name} triaged", lambda: (s := status(name)) and "Triaged" in conditions(s)
                        and s.get("recommendation") and s)

    def resolve(name: str) -> None:
        kubectl("patch", "incidents.recall.dev", name, "-n", namespace, "--type=merge",
                "-p", json.dumps({"spec": {"resolution": OUTCOME}}), check=True)

    apply({"apiVersion": "recall.dev/v1alpha1", "kind": "Runbook", "metadata": {"name": "cart-recycle"},
           "spec": RUNBOOK})
    env = {k: v for k, v in os.environ.items() if not k.startswith("RECALL_")}
    env.update({"KUBECONFIG": str(cluster.kubeconfig), "PYTHONUNBUFFERED": "1",
                "RECALL_MEMORY_BACKEND": "hindsight", "RECALL_HINDSIGHT_URL": hindsight.url,
                "RECALL_MEMORY_PROBE_S": "1"})
    log = tmp_path / "operator.log"
    port = free_port()

    def memory_up() -> float | None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
                text = response.read().decode()
        except OSError:
            return None
        return next((float(line.split()[1]) for line in text.splitlines() if line.startswith("recall_memory_up ")), None)

    with open(log, "wb") as fh:
        op = subprocess.Popen([sys.executable, "-m", "recall_operator.cli", "run", "--namespace", namespace,
                               "--metrics-port", str(port)],
                              env=env, stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                              start_new_session=True)
    output = lambda: log.read_text(errors="replace")  # noqa: E731
    try:
        # Up: an incident is triaged with memory available, and its outcome is remembered.
        incident("inc-before")
        assert conditions(triaged("inc-before"))["MemoryAvailable"]["status"] == "True", output()
        resolve("inc-before")
        wait_for("inc-before consolidated", lambda: conditions(status("inc-before")).get("Resolved", {})
                 .get("status") == "True")

        wait_for("recall_memory_up 1", lambda: memory_up() == 1.0)
        hindsight.stop()
        # Nothing uses memory now: the health check alone shows the outage, and the log says so once.
        wait_for("recall_memory_up 0 with no incident open", lambda: memory_up() == 0.0)
        wait_for("the outage in the operator's log", lambda: "does not answer its health check" in output())
        for name in DURING:
            incident(name)
            triaged(name)
        for name in DURING:
            resolve(name)
        for name in DURING:
            st = wait_for(f"{name}'s outcome in the outbox",
                          lambda n=name: (s := status(n)).get("memory", {}).get("outbox") == "pending" and s)
            cond = conditions(st)
            assert cond["MemoryAvailable"]["status"] == "False", cond
            assert cond["Resolved"]["status"] == "False", cond
            assert st["memory"].get("lastError"), st["memory"]
        # Deleted while its outcome waits: held (Terminating) until memory takes it.
        kubectl("delete", "incidents.recall.dev", DURING[0], "-n", namespace, "--wait=false", check=True)
        held = wait_for(f"{DURING[0]}'s deletion said to wait", lambda: conditions(status(DURING[0])).get(
            "Resolved", {}).get("reason") == "DeletionWaitsForMemory" and status(DURING[0]))
        assert "deletion waits for it until" in conditions(held)["Resolved"]["message"], held
        # Still triaging while memory is down: degraded, not stopped.
        incident("inc-new-while-down")
        st = triaged("inc-new-while-down")
        assert conditions(st)["Triaged"]["status"] == "True", st
        assert conditions(st)["MemoryAvailable"]["status"] == "False", st
        assert op.poll() is None, output()[-5000:]

        hindsight.start()
        wait_for(f"{DURING[0]} deleted once its outcome landed",
                 lambda: kubectl("get", "incidents.recall.dev", DURING[0], "-n", namespace).returncode != 0)
        for name in DURING[1:]:
            st = wait_for(f"{name}'s outbox drained",
                          lambda n=name: conditions(s := status(n)).get("Resolved", {}).get("status") == "True" and s)
            assert "outbox" not in st["memory"] and st["memory"]["consolidated"], st["memory"]
            assert conditions(st)["MemoryAvailable"]["status"] == "True", st
        assert memory_up() == 1.0
        wait_for("the end of the outage in the operator's log", lambda: "answers its health check again" in output())
        # Checked every second through the whole outage, and said once.
        assert output().count("memory backend does not answer its health check") == 1, output()[-3000:]
        assert op.poll() is None, output()[-5000:]
    finally:
        stop_process(op)

    # The operator wrote under its cluster's default identity, the kube-system namespace's UID:
    # read back as that cluster, so that each memory is read under its own name.
    uid = kubectl("get", "namespace", "kube-system", "-o", "jsonpath={.metadata.uid}", check=True).stdout.strip()

    async def read_back() -> tuple[int, dict[str, Any]]:
        backend = HindsightMemory(hindsight.url, cluster=uid)
        try:
            found = {n: await backend.get(n, namespace) for n in ["inc-before", *DURING]}
            return await backend.count(), found
        finally:
            await backend.close()

    count, found = asyncio.run(read_back())
    # Each outcome exactly once: one document per incident, none lost, none doubled by the retries.
    assert count == 1 + len(DURING), (count, output()[-3000:])
    for name, memory in found.items():
        assert memory is not None and memory.incident == name and memory.namespace == namespace, (name, memory)
        assert memory.resolution.root_cause == OUTCOME["rootCause"]
    sys.__stderr__.write(f"\nhindsight outage: {len(DURING)} outcomes queued, {count} memories in the bank, "
                         f"0 lost\n")
