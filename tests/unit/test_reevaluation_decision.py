"""When the re-evaluation loop works an open incident's answer out again, and when it may skip it.

`must_reevaluate` is pure: the evaluation on record, what the inputs are now,
and the answer. Each row changes one thing from an evaluation on record, and
says whether that alone makes the loop work the answer out again. A skip that
should not have been is a wrong recommendation left standing, so every input
the evaluation reads has a row that is not skipped.
"""

from __future__ import annotations

import ast
import inspect
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest

import recall_operator.domain as domain_pkg
from domain_builders import T0, memory, migration, runbook
from recall_operator.domain.reevaluation import (
    REEVALUATE_AT_LEAST,
    Evaluated,
    Inputs,
    answer_expires,
    must_reevaluate,
)
from recall_operator.memory.embedded import EmbeddedMemory

RB = (runbook("redis-flush-hot-keys", ["redis-cache"]), None)
MIG = migration("to-managed-redis", "redis-cache", when=T0 + timedelta(days=14))
CLUSTER = ((RB,), (MIG,), (), ())
AT = T0 + timedelta(days=1)
UNTIL = T0 + timedelta(days=14)
ON_RECORD = Evaluated("1000", Inputs(memory=(1, 5, 7), cluster=CLUSTER, now=AT, until=UNTIL))


def _now(**changes: object) -> Inputs:
    return Inputs(**{"memory": (1, 5, 7), "cluster": CLUSTER, "now": AT + timedelta(seconds=10), "until": UNTIL,
                     **changes})  # type: ignore[arg-type]


# (what differs from the evaluation on record, resourceVersion now, inputs now, open, retry, why or None)
ROWS = [
    ("nothing: skipped", "1000", _now(), True, False, None),
    ("nothing, just before the net: skipped", "1000", _now(now=AT + REEVALUATE_AT_LEAST - timedelta(seconds=1)),
     True, False, None),
    ("the same catalog in equal, new objects: skipped", "1000",
     _now(cluster=(((runbook("redis-flush-hot-keys", ["redis-cache"]), None),),
                   (migration("to-managed-redis", "redis-cache"),), (), ())), True, False, None),
    ("a retry", "1000", _now(), True, True, "its answer failed before"),
    ("an outcome waiting for memory", "1000", _now(), False, False, "an outcome waits for memory"),
    ("the incident (spec, status, anything)", "1001", _now(), True, False, "the incident changed"),
    ("the incident's version unknown", None, _now(), True, False, "the incident changed"),
    ("a memory remembered or forgotten", "1000", _now(memory=(1, 5, 8)), True, False, "memory changed"),
    ("a memory written by another process", "1000", _now(memory=(1, 6, 7)), True, False, "memory changed"),
    ("memory reopened", "1000", _now(memory=(2, 5, 7)), True, False, "memory changed"),
    ("memory cannot tell (Hindsight without its index)", "1000", _now(memory=None), True, False,
     "memory cannot say whether it changed"),
    ("a runbook (spec or win rate)", "1000",
     _now(cluster=(((runbook("redis-flush-hot-keys", ["redis-cache"], risk="high"), None),), (MIG,), (), ())),
     True, False,
     "the catalog of its namespace changed"),
    ("a runbook added", "1000", _now(cluster=((RB, RB), (MIG,), (), ())), True, False,
     "the catalog of its namespace changed"),
    ("a migration", "1000", _now(cluster=((RB,), (MIG, migration("to-v2", "cart-service")), (), ())), True, False,
     "the catalog of its namespace changed"),
    ("a migration gone", "1000", _now(cluster=((RB,), (), (), ())), True, False,
     "the catalog of its namespace changed"),
    ("a contradiction", "1000", _now(cluster=((RB,), (MIG,), ("c",), ())), True, False,
     "the catalog of its namespace changed"),
    ("a topology", "1000", _now(cluster=((RB,), (MIG,), (), ("t",))), True, False,
     "the catalog of its namespace changed"),
    ("the clock back", "1000", _now(now=AT - timedelta(seconds=1)), True, False, "the clock went back"),
    ("the clock at a migration's moment", "1000", _now(now=UNTIL), True, False, "a migration took effect since"),
    ("the clock past it", "1000", _now(now=UNTIL + timedelta(hours=1)), True, False,
     "a migration took effect since"),
    ("the clock past the net", "1000", _now(now=AT + REEVALUATE_AT_LEAST), True, False,
     f"not worked out for {REEVALUATE_AT_LEAST}"),
]


@pytest.mark.parametrize(("rv", "now", "open_", "retry", "why"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_what_makes_the_loop_work_an_answer_out_again(
    rv: str | None, now: Inputs, open_: bool, retry: bool, why: str | None
) -> None:
    assert must_reevaluate(ON_RECORD, rv, now, open_=open_, retry=retry) == why


def test_without_an_evaluation_on_record_nothing_is_skipped() -> None:
    assert must_reevaluate(None, "1000", _now(), open_=True, retry=False) == "no evaluation on record"


def test_memory_that_could_not_tell_then_is_not_trusted() -> None:
    unknown = Evaluated("1000", Inputs(memory=None, cluster=CLUSTER, now=AT, until=None))
    assert must_reevaluate(unknown, "1000", _now(memory=None), open_=True, retry=False) is not None
    assert must_reevaluate(unknown, "1000", _now(), open_=True, retry=False) is not None


def test_an_answer_without_a_migration_to_come_holds_until_the_net() -> None:
    never = Evaluated("1000", Inputs(memory=(1, 5, 7), cluster=CLUSTER, now=AT, until=None))
    assert must_reevaluate(never, "1000", _now(now=AT + timedelta(minutes=4)), open_=True, retry=False) is None
    assert must_reevaluate(never, "1000", _now(now=AT + timedelta(minutes=5)), open_=True, retry=False) is not None


def test_an_answer_expires_when_the_next_migration_takes_effect() -> None:
    soon, later = T0 + timedelta(days=3), T0 + timedelta(days=9)
    migrations = [migration("a", "redis-cache", when=later), migration("b", "cart-service", when=soon),
                  migration("past", "orders-db", when=T0 - timedelta(days=1))]
    assert answer_expires(migrations, T0) == soon
    assert answer_expires(migrations, soon) == later  # one in effect at the moment itself is no boundary
    assert answer_expires(migrations, later) is None
    assert answer_expires([], T0) is None


# Every domain function that takes the clock (a parameter named now) or reads it
# (Context.now), and what it is for. Those triage's evaluation reaches must be
# covered by answer_expires; the others are the execution's (approvals, Jobs) or
# the catalog's (Accepted conditions), and conditions.set_condition only stamps a
# transition that happens for another reason.
CLOCK_READERS = {
    "acceptance.accepted_status": "the catalog's Accepted condition: a transition's time",
    "approval_rules._expired": "the execution's approvals",
    "approval_rules.lapsed_pending": "the execution's approvals",
    "approval_rules.check_approval": "the execution's approvals",
    "conditions.set_condition": "a transition's time",
    "execution._policy_verdict": "the execution's approvals",
    "execution.verify_approvals": "the execution's approvals",
    "execution._past_deadline": "the execution's Jobs",
    "execution.job_progress": "the execution's Jobs",
    "guards.in_effect": "migrations in effect: answer_expires",
    "guards.memory_staleness": "through in_effect",
    "guards.stale_runbooks": "through in_effect",
    "recommend._matches": "ctx.now to memory_staleness",
    "recommend.gather": "ctx.now to stale_runbooks",
    "recommend._replacement": "ctx.now to stale_runbooks",
    "recommend.actionability": "ctx.now to memory_staleness",
    "reevaluation.must_reevaluate": "the clock of the loop's own decision, compared with answer_expires",
}


def _clock_readers() -> set[str]:
    """`module.function` of every domain function with a parameter named now, or that reads an attribute `now`."""
    found: set[str] = set()
    for path in sorted(Path(inspect.getfile(domain_pkg)).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                params = [a.arg for a in [*node.args.args, *node.args.kwonlyargs]]
                if "now" in params or any(isinstance(n, ast.Attribute) and n.attr == "now" for n in ast.walk(node)):
                    found.add(f"{path.stem}.{node.name}")
    return found


def test_every_reader_of_the_clock_in_the_domain_is_known_here() -> None:
    # A new rule that reads the clock may change answers with time alone: answer_expires must learn of it.
    found = _clock_readers()
    assert found == set(CLOCK_READERS), sorted(found ^ set(CLOCK_READERS))


def test_embedded_memory_s_revision_moves_with_every_write_and_only_then(tmp_path: Path) -> None:
    import asyncio

    path = tmp_path / "memory.sqlite3"

    async def go() -> None:
        store = EmbeddedMemory(path)
        first = store.revision()
        assert first is not None and store.revision() == first
        one = memory("inc-1", resolved_at=T0)
        await store.remember(one)
        after_write = store.revision()
        assert after_write != first
        await store.remember(one)  # the same memory again: nothing changes, nor does the revision
        await store.count()
        await store.get("inc-1")
        assert store.revision() == after_write
        # Another connection (another process, another operator) writes: the file is not what it was.
        other = EmbeddedMemory(path)
        other.forget_many([("default", "inc-1")])
        after_other = store.revision()
        assert after_other != after_write
        store.forget_many([("default", "inc-1")])
        assert store.revision() == after_other  # nothing left to forget: unchanged
        await other.remember(memory("inc-2", resolved_at=T0))
        assert store.revision() != after_other
        await other.close()
        # Not even a statement of its own: another process's commit alone moves it.
        raw = sqlite3.connect(path)
        before_raw = store.revision()
        raw.execute("UPDATE memories SET outcome = outcome || '!'")
        raw.commit()
        raw.close()
        assert store.revision() != before_raw
        await store.close()
        # Reopened, the counts start again: the revision still differs from every earlier one.
        again = store.revision()
        assert again not in (first, after_write, after_other, before_raw)
        await store.close()

    asyncio.run(go())


def test_memory_that_cannot_be_opened_has_no_revision(tmp_path: Path) -> None:
    assert EmbeddedMemory(tmp_path / "no-such-folder" / "memory.sqlite3").revision() is None
