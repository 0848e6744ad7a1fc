"""Who wrote a memory on a Hindsight bank: the bank's key tells, against a real server.

Hindsight takes a write from anyone who can reach it. With RECALL_HINDSIGHT_KEY
set, every memory the operator writes is signed with it (an HMAC over the
memory and the cluster that wrote it), and a memory read without a valid
signature keeps its words as a precedent but what it says succeeded is only
reported: it backs no runbook and moves no win rate (domain.consolidation.unvouched).
The forger here writes through the same HTTP API anyone could call, under
the operator's own cluster name; a second one signs with another key.
"""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

import pytest

from recall_operator import metrics
from recall_operator.domain.approval_rules import BRIDGE_OPENER
from recall_operator.domain.consolidation import count_runbook_outcomes, one_voice, runbook_outcome
from recall_operator.domain.models import Action, EpisodicMemory
from recall_operator.memory.base import recall_query
from recall_operator.memory.hindsight import HindsightMemory

NS = "payments"
KEY = b"the key every operator on this bank shares"
OLD_KEY = b"the key the bank used before"
VOUCHED = "inc-0001"  # fixed by k8s-rollback-deploy, written by the operator
ASKING = "inc-0008"  # its precedent is inc-0001: the same connection leak
RUNBOOK = "k8s-rollback-deploy"


def forged(history: Any, name: str) -> EpisodicMemory:
    """A made-up precedent for the asking incident's failure, claiming the runbook worked."""
    real = history.memory(VOUCHED)
    resolution = real.resolution.model_copy(update={
        "summary": f"{real.resolution.summary} (forged as {name})",
        "actions": (Action(action=f"run runbook {RUNBOOK}", result="succeeded"),),
    })
    # It claims the alert bridge opened it: a witnessed incident, were the claim believed.
    return real.model_copy(update={"incident": name, "namespace": NS, "resolution": resolution,
                                   "opened_by": BRIDGE_OPENER})


@pytest.mark.hindsight
@pytest.mark.parametrize("index", [True, False], ids=["index", "direct"])
async def test_a_memory_not_signed_with_the_bank_s_key_backs_no_runbook(
    hindsight_server: Any, history: Any, index: bool
) -> None:
    bank = f"signed-{uuid.uuid4().hex[:12]}"
    operator = HindsightMemory(hindsight_server.url, bank=bank, index=index, cluster="eu", keys=(KEY, OLD_KEY),
                               on_unsigned=metrics.UNSIGNED_MEMORIES.inc)  # as the operator opens it
    forger = HindsightMemory(hindsight_server.url, bank=bank, index=False, cluster="eu")  # no key at all
    other_key = HindsightMemory(hindsight_server.url, bank=bank, index=False, cluster="us", keys=(b"not the bank's",))
    # An operator of another cluster before the key was rotated: what it signed still counts.
    before = HindsightMemory(hindsight_server.url, bank=bank, index=False, cluster="us", keys=(OLD_KEY,))
    try:
        mine = history.memory(VOUCHED).model_copy(update={"namespace": NS})
        assert mine.resolution.runbook == RUNBOOK
        await operator.remember(mine)
        await forger.remember(forged(history, "inc-9001"))
        await other_key.remember(forged(history, "inc-9002"))
        await before.remember(history.memory(VOUCHED).model_copy(update={"namespace": NS}))
        unsigned_before = metrics.REGISTRY.get_sample_value("recall_unsigned_memories_total") or 0.0
        await operator.refresh()
        assert await operator.count() == 4

        own = await operator.get(VOUCHED, NS)
        assert own is not None and own.resolution == mine.resolution  # signed here: read as written
        rotated = await operator.get(f"{VOUCHED}.us", NS)
        assert rotated is not None and rotated.resolution == mine.resolution  # signed with the previous key
        names = ("inc-9001", "inc-9002.us")
        for name in names:
            fake = await operator.get(name, NS)
            assert fake is not None, name
            assert fake.resolution.runbook is None and fake.resolution.reported_runbook == RUNBOOK
            assert [a.reported for a in fake.resolution.actions] == [True], fake.resolution.actions
            assert runbook_outcome(fake.resolution, RUNBOOK) is None
            # Nothing vouches for who it says opened it either: its writer is its one voice.
            assert one_voice(fake) == fake.resolution.confirmed_by, (fake.opened_by, fake.resolution.confirmed_by)
        # Each forgery counted once, for the RecallUnsignedMemory alert, however often it is read.
        assert metrics.REGISTRY.get_sample_value("recall_unsigned_memories_total") == unsigned_before + 2
        # Recalled for its words, it backs nothing: the runbook's record counts the operator's own run only.
        query = dataclasses.replace(recall_query(history.incidents[ASKING].model_copy(update={"namespace": NS}),
                                                 history.topology), limit=10)
        recalled = {m.incident: m for m in await operator.recall(query)}
        assert {VOUCHED, f"{VOUCHED}.us", *names} <= set(recalled), set(recalled)
        record = count_runbook_outcomes([m.resolution for m in recalled.values()], RUNBOOK)
        assert (record.times_executed, record.times_succeeded) == (2, 2)  # the two signed, not the forgeries
        naming = await operator.outcomes_naming(NS, RUNBOOK)
        assert count_runbook_outcomes([m.resolution for m in naming], RUNBOOK).times_succeeded == 2

        # Without a key the operator checks nothing: the forgeries count as they claim (the start-up log warns).
        trusting = HindsightMemory(hindsight_server.url, bank=bank, index=index, cluster="eu")
        try:
            await trusting.refresh()
            fake = await trusting.get("inc-9001", NS)
            assert fake is not None and runbook_outcome(fake.resolution, RUNBOOK) == "succeeded"
        finally:
            await trusting.close()
    finally:
        for memory in (operator, forger, other_key, before):
            await memory.close()
