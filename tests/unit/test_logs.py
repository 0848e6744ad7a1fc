"""Which log lines `recall run` writes: Kopf's per-handler success chatter only with --verbose."""

from __future__ import annotations

import io
import logging

import pytest

from recall_operator import logs


@pytest.fixture
def restore_logging():
    root, objects = logging.getLogger(), logging.getLogger("kopf.objects")
    saved = (list(root.handlers), root.level, list(objects.filters))
    yield
    for h in list(root.handlers):
        root.removeHandler(h)
    for h in saved[0]:
        root.addHandler(h)
    root.setLevel(saved[1])
    objects.filters[:] = saved[2]


def _written(level: int) -> str:
    out = io.StringIO()
    logs.configure("text", level, out)
    kopf_objects = logging.getLogger("kopf.objects")
    kopf_objects.info("Handler 'incident_reconcile' succeeded.")
    kopf_objects.error("Handler 'incident_reconcile' failed with an exception and will try again in 60 seconds: boom")
    kopf_objects.info("answered incident payments/inc-1: advisory")
    logging.getLogger("kopf.activities.startup").info("Handler 'recall_startup' succeeded.")
    return out.getvalue()


@pytest.mark.usefixtures("restore_logging")
def test_kopf_success_lines_are_dropped_and_failures_and_own_lines_kept() -> None:
    text = _written(logging.INFO)
    assert "incident_reconcile' succeeded" not in text
    assert "failed with an exception" in text
    assert "answered incident payments/inc-1" in text
    # Only the per-object logger is filtered: a start-up activity's success still shows once.
    assert "recall_startup' succeeded" in text


@pytest.mark.usefixtures("restore_logging")
def test_verbose_keeps_every_line() -> None:
    assert "incident_reconcile' succeeded" in _written(logging.DEBUG)
