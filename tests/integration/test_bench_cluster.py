"""`recall bench --cluster-only --quick` runs whole on a control plane of its own: every figure it prints is there.

The figures themselves are never asserted (they are the machine's); what is
asserted is that each was measured from what really happened: the storm's
alerts all answered, one Incident per distinct alert, the answer the floor
writes is the operator's own, and the memory phase had its memories.
"""

from __future__ import annotations

import asyncio

import pytest

from recall_operator_dev import bench_cluster

pytestmark = pytest.mark.integration

FIGURES = ("e2e_p50_ms", "e2e_p99_ms", "floor_p50_ms", "floor_p99_ms", "floor_answer_p50_ms", "floor_answer_p99_ms",
           "kopf_floor_p50_ms", "kopf_answer_p50_ms", "storm_seconds", "storm_floor_seconds", "e2e_memory_p50_ms", "e2e_memory_p99_ms")


def test_the_quick_cluster_bench_measures_every_figure() -> None:
    result = asyncio.run(bench_cluster.measure(quick=True))
    assert all(result[k] > 0 for k in FIGURES), {k: result[k] for k in FIGURES}
    assert result["storm_incidents"] == 200
    assert result["storm_http_codes"] == {"200": 1000}
    assert result["storm_api_writes"]["incidents POST 201"] == 200
    # The floor applies what the operator answered: a whole status, not one field.
    assert result["floor_answer_bytes"] > 1000
    assert result["e2e_memory_count"] == 1000
