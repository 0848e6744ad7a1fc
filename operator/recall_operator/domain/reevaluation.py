"""When an open incident's answer must be worked out again, and when the one it holds still stands.

The re-evaluation loop (handlers.incident) comes to every open incident every
few seconds; working its answer out (recall and scoring) costs milliseconds of
CPU each, while a new Incident waits behind the pass. It keeps, per incident,
what its answer was worked out from (`Evaluated`), and asks `must_reevaluate`
before working it out again. Pure: the handler reads the inputs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from recall_operator.domain.guards import migration_time
from recall_operator.domain.models import ArchitectureMigration

# However unchanged its inputs look, an open incident's answer is worked out
# again once this long after the last time (on the operator's clock; 30 passes):
# a net under anything `must_reevaluate` does not know of, at a thirtieth of the
# cost of working every answer out on every pass.
REEVALUATE_AT_LEAST = timedelta(minutes=5)


@dataclasses.dataclass(frozen=True)
class Inputs:
    """What an open incident's answer is worked out from besides the incident, read just before evaluate() runs."""

    memory: object  # memory.revision(); None: unknown (no memory, or a backend that cannot tell)
    # The index entries of the incident's namespace, one tuple per index (handlers.incident.INDEX_NAMES). Kopf
    # keeps an entry's value object while the object's events bring an equal one, so
    # comparing these (identity first, then ==) is cheap and exact.
    cluster: tuple[tuple[Any, ...], ...]
    now: datetime  # the operator's clock (memo.clock)
    until: datetime | None  # when the clock alone may next change the answer (answer_expires); None: never


@dataclasses.dataclass(frozen=True)
class Evaluated:
    """One evaluation of an open incident whose answer the incident now holds: at this version, from these inputs."""

    resource_version: str
    inputs: Inputs


def answer_expires(migrations: Iterable[ArchitectureMigration], at: datetime) -> datetime | None:
    """The first moment after `at` at which the clock alone may change an answer worked out at `at`.

    The only rule that reads the clock: a migration counts from the moment it
    takes effect (domain.guards.in_effect). So an answer holds until the next
    migration of its namespace takes effect; None when none is still to come.
    """
    return min((t for m in migrations if (t := migration_time(m)) > at), default=None)


def must_reevaluate(last: Evaluated | None, resource_version: str | None, now: Inputs, *, open_: bool,
                    retry: bool, at_least: timedelta = REEVALUATE_AT_LEAST) -> str | None:
    """Why the loop must work this incident's answer out again; None: it holds the answer its inputs give.

    Pure, and conservative: any doubt means worked out again (a wasted
    evaluation costs milliseconds; a skipped one that would have changed the
    answer leaves a wrong recommendation). `last` is the evaluation on record
    (None: none), `resource_version` the incident's as the loop sees it now.
    """
    if retry:
        return "its answer failed before"  # the handler's failure: the loop answers it, always
    if not open_:
        return "an outcome waits for memory"  # the outbox: each pass retries the write
    if last is None:
        return "no evaluation on record"
    if resource_version is None or resource_version != last.resource_version:
        return "the incident changed"
    if now.memory is None or last.inputs.memory is None:
        return "memory cannot say whether it changed"
    if now.memory != last.inputs.memory:
        return "memory changed"
    if now.cluster != last.inputs.cluster:
        return "the catalog of its namespace changed"
    if now.now < last.inputs.now:
        return "the clock went back"
    if last.inputs.until is not None and now.now >= last.inputs.until:
        return "a migration took effect since"
    if now.now - last.inputs.now >= at_least:
        return f"not worked out for {at_least}"
    return None
