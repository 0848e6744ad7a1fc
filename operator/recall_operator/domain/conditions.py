"""Kubernetes-style conditions, kept the way kubectl users expect.

A list keyed by `type`; `lastTransitionTime` changes only when `status` does;
every condition carries the generation it was computed for. The clock is
passed in, so this stays pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any


def set_condition(
    conditions: Sequence[dict[str, Any]],
    type_: str,
    status: bool,
    reason: str,
    message: str,
    generation: int,
    now: datetime,
) -> tuple[list[dict[str, Any]], bool]:
    """The new list, and whether `status` changed (a transition, worth an Event)."""
    value = "True" if status else "False"
    old = condition(conditions, type_)
    transitioned = old is None or old.get("status") != value
    new = {
        "type": type_,
        "status": value,
        "reason": reason,
        "message": message,
        "observedGeneration": generation,
        "lastTransitionTime": now.isoformat() if transitioned or old is None else old.get("lastTransitionTime", now.isoformat()),
    }
    if old is None:
        return [*map(dict, conditions), new], True
    return [new if c.get("type") == type_ else dict(c) for c in conditions], transitioned


def condition(conditions: Sequence[dict[str, Any]], type_: str) -> dict[str, Any] | None:
    return next((c for c in conditions if c.get("type") == type_), None)
