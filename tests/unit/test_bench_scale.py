"""`recall bench`'s memory figures, on a store small enough for the unit suite.

The figures themselves are never asserted (they are the machine's, not the
code's); what is checked is that a run measures what it says it does: every
figure of the embedded store at every size, in a sane order, and the
reference workload timed beside the queries.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from recall_operator.memory.base import MemorySettings
from recall_operator_dev import bench


async def test_a_scale_run_gives_every_embedded_figure_at_every_size_with_the_reference_beside(tmp_path: Path) -> None:
    base = bench.load_base(bench.SAMPLE)
    out = await bench.measure_scale("embedded", [40, 80], base, MemorySettings(path=str(tmp_path / "bench.sqlite3")),
                                    queries=bench.REFERENCE_EVERY * 2)
    for figure in ("recall_p50_ms", "recall_p99_ms", "scoring_p50_ms", "recall_first_ms", "add_memory_ms", "rss_mb",
                   "store_mb", "fill_s", "machine_reference_ms"):
        assert set(out[figure]) == {"40", "80"}, figure
    for size in ("40", "80"):
        # Scoring is timed as a part of each timed query, so its median cannot pass theirs.
        assert 0 < out["scoring_p50_ms"][size] <= out["recall_p50_ms"][size] <= out["recall_p99_ms"][size]
        assert out["machine_reference_ms"][size] > 0
    # Figures the embedded store does not have (Hindsight's) are left empty, so the report skips them.
    assert out["index_load_s"] == {} and out["shared_seen_ms"] == {}


def test_the_reference_workload_stays_the_same_work() -> None:
    # Its figures are compared across sessions: changing its words (or its pattern) breaks every comparison,
    # so a change must be made on purpose, here.
    words = " ".join(bench._REFERENCE_WORDS)
    assert hashlib.sha256(words.encode()).hexdigest()[:16] == "40cd7e0a4cb8c61e"
    assert bench._REFERENCE_PATTERN.pattern == r"a\w+e"
    assert bench.reference_ms() > 0
