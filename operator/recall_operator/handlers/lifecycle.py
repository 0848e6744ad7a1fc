"""The lifecycle writer: keeps status.phase and the Ready condition (domain.lifecycle decides them).

Every Incident event recomputes both from the event's spec and status; only a
difference is written, with the lifecycle's own field manager and guarded by
the event's resourceVersion. A write that loses to a newer version is
dropped: that newer version comes as an event of its own and is summed up then.
Triage sends the same two fields with each of its writes (kube.status,
lifecycle_fields), so after a new Incident's first answer there is nothing
left here to write; what moves them later (the execution, a spec edit, an
outcome) is written here. Registered by the execution handlers' `register`,
so every operator that can run anything (and the tests' execution-only
operator) keeps the phase.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import kopf

from recall_operator.api import GROUP, VERSION, namespaced
from recall_operator.domain.conditions import condition
from recall_operator.domain.lifecycle import lifecycle
from recall_operator.handlers import clock
from recall_operator.kube import status as st
from recall_operator.kube.client import Conflict, apply_status

PLURAL = "incidents"


def lifecycle_status(spec: Mapping[str, Any], status: Mapping[str, Any], generation: int,
                     now: Any) -> dict[str, Any] | None:
    """What the lifecycle writer applies (phase and Ready), or None when status already says it."""
    want = lifecycle(spec, status)
    conditions = status.get("conditions") or []
    if want.phase is None and condition(conditions, st.TRIAGED) is None and not status.get("phase"):
        return None  # not triaged yet: the first answer comes before anything is summed up
    old = condition(conditions, st.READY) or {}
    same = (old.get("status") == ("True" if want.ready else "False") and old.get("reason") == want.reason
            and old.get("message") == want.message and old.get("observedGeneration") == generation)
    if same and status.get("phase") == want.phase:
        return None
    return st.lifecycle_fields(spec, status, generation, now)


async def lifecycle_event(type: str | None, name: str, namespace: str | None, spec: Mapping[str, Any],
                          status: Mapping[str, Any], meta: Mapping[str, Any], memo: kopf.Memo, **_: Any) -> None:
    if type == "DELETED" or meta.get("deletionTimestamp"):
        return
    namespace = namespaced(namespace)
    body = lifecycle_status(spec, status, int(meta.get("generation") or 0), clock(memo)())
    if body is None:
        return
    try:
        await asyncio.to_thread(apply_status, memo.api, GROUP, VERSION, PLURAL, "Incident", namespace, name, body,
                                st.LIFECYCLE_MANAGER, meta.get("resourceVersion"))
    except Conflict:
        pass  # a newer version exists; its own event sums it up


def register(registry: kopf.OperatorRegistry) -> kopf.OperatorRegistry:
    kopf.on.event(GROUP, VERSION, PLURAL, registry=registry)(lifecycle_event)
    return registry
