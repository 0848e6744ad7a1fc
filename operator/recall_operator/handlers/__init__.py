"""Kopf handlers: thin glue between the watch streams, the domain and memory.

Importing any handler module imports this package first, so the operator's
start-up (Kopf settings, the memory backend, the API client) is registered
whichever way the operator is started: `recall run`, or
`kopf run -m recall_operator.handlers.incident` as the tests do.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import secrets
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import kopf

from recall_operator.config import settings_from_env
from recall_operator.kube.client import api_client
from recall_operator.memory import open_backend
from recall_operator.memory.base import MemorySettings

PREFIX = "recall.dev"
HANDLER_MODULES = ("incident", "catalog", "execution")

# Environment variables read once at start-up (the tests and `recall run` set them).
ENV_BACKEND = "RECALL_MEMORY_BACKEND"
ENV_PATH = "RECALL_MEMORY_PATH"
ENV_HINDSIGHT_URL = "RECALL_HINDSIGHT_URL"
ENV_HINDSIGHT_BANK = "RECALL_HINDSIGHT_BANK"
# The key of the seal on recommendations (domain.execution.seal). Unset: a
# random key per process, so a restarted operator re-triages an incident
# (within one re-evaluation pass) before anything of it runs again.
ENV_STATUS_KEY = "RECALL_STATUS_KEY"
_PROCESS_KEY = secrets.token_bytes(32)


def status_key() -> bytes:
    """The key this operator seals its recommendations with."""
    explicit = os.environ.get(ENV_STATUS_KEY)
    return explicit.encode() if explicit else _PROCESS_KEY


Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


def clock(memo: Mapping[str, Any]) -> Clock:
    """The operator's clock (memo.clock: a callable giving aware datetimes); a test puts its own there.

    Every handler asks it for "now" (approval expiry, condition times, staleness),
    so time-dependent rules are tested by moving this clock, not by sleeping.
    """
    found = memo.get("clock")
    return found if found is not None else utc_now


def load_all() -> list[str]:
    """Import every handler module that exists; another module's absence is not an error."""
    loaded = []
    for name in HANDLER_MODULES:
        try:
            importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            continue
        loaded.append(name)
    return loaded


def memory_settings_from_env(env: Mapping[str, str]) -> MemorySettings:
    defaults = MemorySettings()
    return MemorySettings(
        backend=env.get(ENV_BACKEND, defaults.backend),
        path=env.get(ENV_PATH, defaults.path),
        hindsight_url=env.get(ENV_HINDSIGHT_URL, defaults.hindsight_url),
        hindsight_bank=env.get(ENV_HINDSIGHT_BANK, defaults.hindsight_bank),
    )


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


@kopf.on.login()
def recall_login(**kwargs: Any) -> kopf.ConnectionInfo | None:
    # Kopf's default login goes through the kubernetes library, which reads
    # $KUBECONFIG once, when it is first imported; an operator started later in
    # the same process (tests, the demo) must read it now. Kopf's own readers do.
    return kopf.login_with_service_account(**kwargs) or kopf.login_with_kubeconfig(**kwargs)


# A start-up failure (a wrong policy value) stops the operator instead of
# being retried every minute: the Deployment's crash loop is the visible signal.
@kopf.on.startup(errors=kopf.ErrorsMode.PERMANENT)
async def recall_startup(settings: kopf.OperatorSettings, memo: kopf.Memo, logger: Any, **_: Any) -> None:
    configure_settings(settings)
    # A wrong policy value stops start-up here, with the variable named.
    memo.policy = settings_from_env(os.environ)
    ms = memo.get("memory_settings") or memory_settings_from_env(os.environ)
    memo.memory_settings = ms
    memo.memory = open_backend(ms)
    if memo.get("api") is None:
        memo.api = api_client()
    memo.locks = {}
    # A clock put in the memo before start-up (a test's) is kept.
    memo.clock = clock(memo)
    logger.info(f"memory backend {ms.backend} ({ms.path if ms.backend == 'embedded' else ms.hindsight_url})")


@kopf.on.cleanup()
async def recall_cleanup(memo: kopf.Memo, **_: Any) -> None:
    # Background tasks (the incident re-evaluation loop) use memory and the API: they stop first.
    background = memo.get("background") or []
    for task in background:
        task.cancel()
    await asyncio.gather(*background, return_exceptions=True)
    memory = memo.get("memory")
    if memory is not None:
        await memory.close()
    api = memo.pop("api", None)  # closed once, whichever module's cleanup comes first
    if api is not None:
        api.close()
