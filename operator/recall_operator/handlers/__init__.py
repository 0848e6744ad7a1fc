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
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import kopf

from recall_operator import metrics
from recall_operator.config import OperatorSettings, cluster_identity, env_name
from recall_operator.kube.client import api_client
from recall_operator.kube.kopf_settings import configure_settings
from recall_operator.memory import open_backend

HANDLER_MODULES = ("incident", "catalog", "execution")
# Threads for the handlers' blocking calls (the API client, embedded memory), and the API client's
# connections: one each. Python's default, cores + 4, is six threads on two cores; with as many
# incidents open at once (an alert storm) a status write waited seconds in that queue behind
# reads and recalls, its incident's answer with it.
WORKER_THREADS = 32

# The variables tests set to start an operator with `kopf run -m` (config.OperatorSettings has them all).
ENV_BACKEND = env_name("memory_backend")
ENV_PATH = env_name("memory_path")
ENV_HINDSIGHT_URL = env_name("hindsight_url")
ENV_STATUS_KEY = env_name("status_key")


def operator_settings(memo: Any) -> OperatorSettings:
    """The operator's settings, from the memo.

    `recall run` puts them there from its flags and the environment before
    Kopf starts; an operator started by `kopf run -m` (the tests) has them read
    from the environment here, by whichever start-up handler comes first. A
    wrong value raises ConfigError naming the variable, which stops start-up.
    """
    found: OperatorSettings | None = memo.get("settings")
    if found is None:
        found = memo.settings = OperatorSettings.from_env(os.environ)
    return found


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
    """Import every handler module, so that each registers its handlers with Kopf."""
    for name in HANDLER_MODULES:
        importlib.import_module(f"{__name__}.{name}")
    return list(HANDLER_MODULES)


@kopf.on.login()
def recall_login(**kwargs: Any) -> kopf.ConnectionInfo | None:
    # Kopf's default login goes through the kubernetes library, which reads
    # $KUBECONFIG once, when it is first imported; an operator started later in
    # the same process (tests, the demo) must read it now. Kopf's own readers do.
    return kopf.login_with_service_account(**kwargs) or kopf.login_with_kubeconfig(**kwargs)


async def check_memory_forever(memo: kopf.Memo, every: float, log: logging.Logger) -> None:
    """Ask memory every `every` seconds whether it answers, so that `recall_memory_up` (and the
    RecallMemoryDown alert) show an outage while no incident is using memory, not at the next page.

    A check that does not answer within `every` counts as down, and no other check starts
    until it ends: the embedded store's check waits on a thread for the store's lock, and a
    lock held for good would otherwise take one more of the threads the status writes use
    at every interval. The log says when memory stops answering and when it is back, once each.
    """
    answered: bool | None = None
    pending: tuple[object, asyncio.Task[str | None]] | None = None  # the backend asked, and its check
    try:
        while True:
            memory = memo.get("memory")
            if pending is not None and pending[0] is not memory:
                pending[1].cancel()  # a backend swapped out: its check says nothing of this one
                pending = None
            why: str | None = "no memory backend is open"
            if memory is not None:
                if pending is None:
                    pending = (memory, asyncio.ensure_future(memory.health()))
                check = pending[1]
                await asyncio.wait({check}, timeout=every)
                why = _why_down(check, every)
                if check.done():
                    pending = None
            up = why is None
            metrics.memory_up(up, checked=True)
            if not up and answered is not False:
                log.warning(f"memory backend does not answer its health check ({why}; next check in {every:g} s): "
                            "incidents are triaged without memory and outcomes wait in the outbox until it does")
            elif up and answered is False:
                log.info("memory backend answers its health check again")
            answered = up
            await asyncio.sleep(every)
    finally:
        if pending is not None:
            pending[1].cancel()


def _why_down(check: asyncio.Task[str | None], every: float) -> str | None:
    """Why memory is down by this check, or None: still waiting, raised, or the backend's own reason."""
    if not check.done():
        return f"no answer within {every:g} s; the check is still waiting, and no other starts until it ends"
    if check.cancelled():
        return "the check was cancelled"
    exc = check.exception()
    if exc is not None:  # health() promises never to raise; a backend that breaks it is down too
        return f"the check raised {type(exc).__name__}: {exc}"
    return check.result()


# A start-up failure (a wrong policy value) stops the operator instead of
# being retried every minute: the Deployment's crash loop is the visible signal.
@kopf.on.startup(errors=kopf.ErrorsMode.PERMANENT)
async def recall_startup(settings: kopf.OperatorSettings, memo: kopf.Memo, logger: Any, **_: Any) -> None:
    configure_settings(settings)
    # Started by `kopf run -m`, the settings are read here: a wrong value stops start-up, the variable named.
    ms = operator_settings(memo).memory()
    asyncio.get_running_loop().set_default_executor(
        ThreadPoolExecutor(max_workers=WORKER_THREADS, thread_name_prefix="recall-worker"))
    if memo.get("api") is None:
        memo.api = api_client(pool_size=WORKER_THREADS)
    if ms.backend == "hindsight" and not ms.cluster:
        # Read once: every memory this operator writes to a shared bank carries it.
        ms.cluster = await asyncio.to_thread(cluster_identity, memo.api)
    memo.memory = open_backend(ms, on_unsigned=metrics.UNSIGNED_MEMORIES.inc)
    memo.locks = {}
    # A clock put in the memo before start-up (a test's) is kept.
    memo.clock = clock(memo)
    # A deletion requested while the operator was down waits DELETION_WAIT from here (kube.status).
    memo.started = memo.clock()
    where = ms.path if ms.backend == "embedded" else f"{ms.hindsight_url}, bank {ms.hindsight_bank}, cluster {ms.cluster}"
    logger.info(f"memory backend {ms.backend} ({where})")
    # recall_cleanup cancels it (memo.background) before memory is closed.
    memo.setdefault("background", []).append(asyncio.create_task(
        check_memory_forever(memo, operator_settings(memo).memory_probe_s, logging.getLogger("recall_operator.memory")),
        name="recall memory health check"))
    if ms.backend == "hindsight" and not ms.hindsight_keys():
        logger.warning("memories on the Hindsight bank are neither signed nor checked (RECALL_HINDSIGHT_KEY is unset): "
                       "whoever can write to the server can add a precedent whose runbook counts as having worked")


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
