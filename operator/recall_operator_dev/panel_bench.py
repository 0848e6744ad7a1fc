"""How long the panel takes to make an incident's page with five matches: a figure for `recall bench`.

The incident and its evidence are what the decision chain makes of a history
(`recall replay`), laid out as the operator writes them into status; the
objects are held in memory, so the figure is the page's own cost (reading
the status, laying it out, rendering the template), not the API server's.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

MATCHES = 5


def _objects(dataset: Path, row: Any, events: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    from recall_operator.domain.models import IncidentSpec, Runbook, RunbookSpec
    from recall_operator.domain.plan import PlanError, build_plan
    from recall_operator.kube.status import match_status, prune_none, recommendation_status

    ns = "bench"
    objects: dict[str, list[dict[str, Any]]] = {"incidents": [], "runbooks": [], "contradictions": []}
    runbooks: dict[str, dict[str, Any]] = {}
    target: dict[str, Any] | None = None
    for e in events:
        if e["type"] not in ("apply", "incident"):
            continue
        obj = json.loads(json.dumps(e["object"]))
        obj.setdefault("metadata", {}).update(namespace=ns, creationTimestamp=e.get("at"))
        kind = obj.get("kind")
        if kind == "Incident":
            objects["incidents"].append(obj)
            if obj["metadata"]["name"] == row.incident:
                target = obj
        elif kind == "Runbook":
            runbooks[obj["metadata"]["name"]] = obj
        elif kind == "Contradiction":
            objects["contradictions"].append(obj)
    objects["runbooks"] = list(runbooks.values())
    assert target is not None
    rec = row.assessment.recommendation
    plan = None
    if rec.runbook in runbooks:
        try:
            plan = build_plan(IncidentSpec.model_validate(target["spec"]),
                              Runbook(name=rec.runbook, spec=RunbookSpec.model_validate(runbooks[rec.runbook]["spec"])))
        except (PlanError, ValueError):
            plan = None
    target["status"] = prune_none({
        "matches": [match_status(m) for m in row.assessment.matches],
        "recommendation": recommendation_status(rec, plan),
    })
    return objects


async def panel_render_ms(dataset: Path, renders: int = 200) -> dict[str, Any]:
    """p50 / p99 milliseconds to make one incident page with five matches, from objects in memory."""
    from recall_operator_dev.demo import read_history
    from recall_operator.panel import server
    from recall_operator.panel.source import StaticSource
    from recall_operator.replay import run_replay

    replayed = await run_replay(dataset, ["on"])
    rows = [r for r in replayed["_rows"] if len(r.assessment.matches) >= MATCHES]
    if not rows:
        return {}
    # The one with the most to show: warnings, reasons and a plan.
    row = max(rows, key=lambda r: (len(r.assessment.recommendation.warnings) + len(r.assessment.recommendation.reasons),
                                   r.incident))
    source = StaticSource(_objects(dataset, row, read_history(dataset)))
    now = datetime.now(UTC)
    await server.incident_page(source, "bench", row.incident, now)  # templates compiled once, as in a server
    times = []
    size = 0
    for _ in range(renders):
        t0 = time.perf_counter()
        body = await server.incident_page(source, "bench", row.incident, now)
        times.append((time.perf_counter() - t0) * 1000)
        size = len(body or "")
    times.sort()
    return {"incident": row.incident, "matches": len(row.assessment.matches), "renders": renders,
            "p50": round(times[len(times) // 2], 2), "p99": round(times[min(len(times) - 1, int(len(times) * 0.99))], 2),
            "page_kb": round(size / 1024, 1)}
