"""Triage's plan on a real embedded memory: a runbook whose command needs a value nobody gives is never actionable."""

from __future__ import annotations

import asyncio
from pathlib import Path

from domain_builders import REDIS_TEXT, T0, context, incident, memory
from recall_operator.domain.models import Runbook, RunbookRecord
from recall_operator.handlers.incident import triage
from recall_operator.memory.embedded import EmbeddedMemory


def _undo(default: str | None = None) -> Runbook:
    parameters = [{"name": "DEPLOYMENT", **({"default": default} if default is not None else {})}]
    return Runbook.model_validate({"name": "cart-undo", "spec": {
        "title": "undo the cart rollout", "services": ["cart-service"], "symptoms": ["latency-spike", "timeout"],
        "parameters": parameters,
        "steps": [{"name": "undo", "image": "bitnami/kubectl:1.30", "risk": "low",
                   "command": ["kubectl", "rollout", "undo", "deployment/$(DEPLOYMENT)"]}]}})


def _triage(tmp_path: Path, runbook: Runbook, parameters: dict[str, str] | None = None) -> tuple[object, object]:
    async def go() -> tuple[object, object]:
        store = EmbeddedMemory(tmp_path / "memory.sqlite3")
        try:
            await store.remember(memory("inc-seen", runbook="cart-undo", resolved_at=T0, **REDIS_TEXT))
            ctx = context(catalog=[runbook], records={"cart-undo": RunbookRecord(times_executed=2, times_succeeded=2)})
            asked = incident(**REDIS_TEXT, parameters=parameters or {})
            assessment, plan, error = await triage(asked, ctx, store)
            assert error is None
            return assessment.recommendation, plan
        finally:
            await store.close()

    return asyncio.run(go())


def test_a_plan_whose_parameter_nobody_gives_is_shown_but_never_actionable(tmp_path: Path) -> None:
    rec, plan = _triage(tmp_path, _undo())
    assert rec.runbook == "cart-undo" and rec.mode == "advisory", rec
    assert any("needs DEPLOYMENT" in w and "spec.parameters" in w for w in rec.warnings), rec.warnings
    assert plan is not None and plan.steps[0].command[-1] == "deployment/$(DEPLOYMENT)"


def test_the_same_plan_with_the_value_given_is_actionable(tmp_path: Path) -> None:
    rec, _ = _triage(tmp_path, _undo(), {"DEPLOYMENT": "cart"})
    assert (rec.mode, rec.runbook) == ("actionable", "cart-undo"), rec
    # An explicit empty default is the author's choice, and a value.
    (tmp_path / "b").mkdir()
    rec, _ = _triage(tmp_path / "b", _undo(default=""))
    assert rec.mode == "actionable" and not any("needs DEPLOYMENT" in w for w in rec.warnings), rec
