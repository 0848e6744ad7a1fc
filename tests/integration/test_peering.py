"""Two replicas of the operator on one Kopf peering: one works, the other stands by.

Kopf pauses every operator of a peering when two share the highest priority,
and replicas of a Deployment are started alike: with the one default
priority, neither triaged anything while both answered /readyz. Here two real
`recall run --peering` processes share the chart's peering objects on the
real API server, and an Incident must be answered.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from recall_operator_dev.processes import stop
from support import renderer, wait_for

pytestmark = pytest.mark.integration

PEERING = "recall-operator-peering-test"


@pytest.fixture
def peering(kubectl: Callable[..., Any], namespace: str) -> str:
    """The chart's Kopf peering CRDs, and the namespace's KopfPeering (an operator of named namespaces peers there)."""
    render = renderer()
    rendered = render.render_chart(render.helm_binary(), "--set", "replicas=2", "--set", "memory.backend=hindsight",
                                   "--set", "memory.hindsight.url=http://h:8888")
    crds = [d for d in yaml.safe_load_all(rendered)
            if d and d["kind"] == "CustomResourceDefinition" and d["spec"]["group"] == "kopf.dev"]
    assert {c["metadata"]["name"] for c in crds} == {"kopfpeerings.kopf.dev", "clusterkopfpeerings.kopf.dev"}
    kubectl("apply", "--server-side", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": crds}),
            check=True)
    for crd in crds:
        kubectl("wait", "--for=condition=Established", f"crd/{crd['metadata']['name']}", "--timeout=60s", check=True)
    peer = {"apiVersion": "kopf.dev/v1", "kind": "KopfPeering", "metadata": {"name": PEERING, "namespace": namespace}}
    kubectl("apply", "-f", "-", input=json.dumps(peer), check=True)
    return PEERING


def test_of_two_replicas_on_one_peering_one_answers(
    peering: str, kubectl: Callable[..., Any], namespace: str, tmp_path: Path
) -> None:
    operators = []
    try:
        for i in range(2):
            operators.append(subprocess.Popen(
                [sys.executable, "-m", "recall_operator.cli", "run", "--namespace", namespace, "--peering", peering,
                 "--memory", "embedded", "--memory-path", str(tmp_path / f"memory-{i}.sqlite3")],
                env={**os.environ}, stdout=open(tmp_path / f"operator-{i}.log", "w"), stderr=subprocess.STDOUT))
        # Both have seen each other once the peering object lists two peers.
        def peers() -> int:
            got = kubectl("get", "kopfpeering", peering, "-n", namespace, "-o", "json", check=True).stdout
            return len(json.loads(got).get("status") or {})

        wait_for("both replicas in the peering", lambda: peers() >= 2, deadline=60)
        incident = {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "metadata": {"name": "inc-peered"},
                    "spec": {"service": "checkout", "title": "checkout 5xx after the release", "severity": "high"}}
        kubectl("apply", "-n", namespace, "-f", "-", input=json.dumps(incident), check=True)

        def answered() -> bool:
            got = json.loads(kubectl("get", "incident", "inc-peered", "-n", namespace, "-o", "json", check=True).stdout)
            return bool((got.get("status") or {}).get("recommendation"))

        wait_for("the Incident's answer from the active replica", answered, deadline=60,
                 detail=lambda: "".join((tmp_path / f"operator-{i}.log").read_text()[-2000:] for i in range(2)))
        logs = "".join((tmp_path / f"operator-{i}.log").read_text() for i in range(2))
        assert "Pausing all operators, including self" not in logs
    finally:
        for operator in operators:
            stop(operator)
