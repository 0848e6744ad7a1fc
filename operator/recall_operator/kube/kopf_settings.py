"""The operator's Kopf settings, apart from its handlers.

Importing `recall_operator.handlers` registers the operator's start-up with
Kopf (memory, the health check); anything else that runs Kopf with the same
settings (the bench's Kopf floor) takes them from here.
"""

from __future__ import annotations

import logging

import kopf

PREFIX = "recall.dev"


def configure_settings(settings: kopf.OperatorSettings) -> None:
    # Strict status schemas would prune status.kopf, and a GitOps tool would
    # fight over it; Kopf's bookkeeping goes into our own annotations instead.
    settings.persistence.progress_storage = kopf.AnnotationsProgressStorage(prefix=PREFIX)
    settings.persistence.diffbase_storage = kopf.AnnotationsDiffBaseStorage(
        prefix=PREFIX, key="last-handled-configuration"
    )
    settings.persistence.finalizer = f"{PREFIX}/finalizer"
    # Kopf's own log lines become Events only when something is wrong; the
    # operator posts its own Events for condition transitions.
    settings.posting.level = logging.WARNING
    settings.watching.server_timeout = 270
    settings.watching.client_timeout = 300
