"""What the catalog's runbook index keeps of each Runbook object, called as Kopf calls it."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from recall_operator.handlers import catalog

SPEC = {"title": "Restart the cart pods", "services": ["cart-service"], "symptoms": ["oom"],
        "steps": [{"name": "restart", "image": "bitnami/kubectl:1.30", "command": ["kubectl", "rollout", "restart"]}]}
LOG = logging.getLogger("test")


def test_a_runbook_keeps_when_the_catalog_got_it() -> None:
    kept = catalog.runbook_index(name="cart-restart", namespace="shop", spec=SPEC, status={},
                                 meta={"creationTimestamp": "2025-03-04T09:00:00Z"}, logger=LOG)
    assert kept is not None
    runbook, record = kept["shop"]
    assert runbook.created_at == datetime(2025, 3, 4, 9, tzinfo=UTC)
    assert record.times_executed == 0


def test_a_runbook_without_a_creation_time_has_no_age_and_a_bad_one_is_left_out() -> None:
    kept = catalog.runbook_index(name="cart-restart", namespace="shop", spec=SPEC, status={}, meta={}, logger=LOG)
    assert kept is not None and kept["shop"][0].created_at is None
    assert catalog.runbook_index(name="bad", namespace="shop", spec={"title": "no steps"}, status={}, meta={},
                                 logger=LOG) is None
