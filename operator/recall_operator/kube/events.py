"""Kubernetes Events about the operator's objects, posted through its own API client.

Kopf's `kopf.event` queues an Event only inside a handler Kopf runs (the queue
lives in that handler's context); called from the re-evaluation loop or the
execution resync, it raised, and the Event was lost. These post from anywhere:
build the body here, post it on a worker thread.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from recall_operator.kube.client import post_event

# One Event post that the API server does not answer in this long is given up
# (logged), so a stalled API server cannot hold a caller, or a stop, forever.
EVENT_POST_TIMEOUT = 10

logger = logging.getLogger("recall_operator.kube.events")


def event_body(body: Mapping[str, Any], type_: str, reason: str, message: str, at: datetime,
               action: str) -> dict[str, Any]:
    """A core/v1 Event about the object `body`, with the fields Kopf gives the Events it posts."""
    meta = body["metadata"]
    ref = {"apiVersion": body["apiVersion"], "kind": body["kind"], "name": meta["name"],
           "namespace": meta["namespace"], "uid": meta["uid"], "resourceVersion": meta.get("resourceVersion")}
    # eventTime is a MicroTime: the API server refuses one without its six digits
    # of microseconds, which isoformat() leaves out on a whole second.
    when = at.isoformat(timespec="microseconds")
    return {
        "metadata": {"namespace": meta["namespace"], "generateName": "recall-event-"},
        "action": action, "type": type_, "reason": reason, "message": message[:1024],
        "reportingComponent": "kopf", "reportingInstance": "recall-operator", "source": {"component": "kopf"},
        "involvedObject": ref, "firstTimestamp": when, "lastTimestamp": when, "eventTime": when,
    }


def post_or_log(api: Any, event: Mapping[str, Any]) -> None:
    """Post one Event (blocking). Best effort: a refusal is logged, never raised."""
    try:
        post_event(api, dict(event), timeout=EVENT_POST_TIMEOUT)
    except Exception as exc:
        what = event["involvedObject"]
        logger.warning(f"could not post event {event['reason']} on {what['namespace']}/{what['name']}: {exc}")
