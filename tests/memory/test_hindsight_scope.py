"""What an incident recalls from a bank shared by several clusters: its namespace's memories, or the whole bank.

Against a real server, on both paths (the local index, and the server asked
directly). Two clusters share one bank: one confirms outcomes in namespace
`payments-eu`, the other pages in `payments-us` and in `payments`. Under the
default scope, `namespace`, an incident recalls only memories confirmed in a
namespace of its own name, on whichever cluster; under `bank` it recalls them all.
"""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from typing import Any

import pytest

from recall_operator.config import ConfigError, OperatorSettings
from recall_operator.memory import open_backend
from recall_operator.memory.base import recall_query
from recall_operator.memory.hindsight import HindsightMemory

FIRST = 12
ASKING = "inc-0008"  # its precedent among the first outcomes is inc-0001: the same connection leak
PRECEDENT = "inc-0001"


def in_namespace(history: Any, namespace: str) -> list[Any]:
    return [m.model_copy(update={"namespace": namespace}) for m in history.memories[:FIRST]]


def asked_from(history: Any, namespace: str) -> Any:
    incident = history.incidents[ASKING].model_copy(update={"namespace": namespace})
    return dataclasses.replace(recall_query(incident, history.topology), limit=10)


@pytest.mark.hindsight
@pytest.mark.parametrize("index", [True, False], ids=["index", "direct"])
async def test_a_namespace_scope_recalls_its_namespace_on_every_cluster_and_a_bank_scope_recalls_all(
    hindsight_server: Any, history: Any, index: bool
) -> None:
    bank = f"scope-{uuid.uuid4().hex[:12]}"
    eu = HindsightMemory(hindsight_server.url, bank=bank, index=False)  # the cluster that confirmed them
    opened = [eu]
    try:
        await eu.remember_many(in_namespace(history, "payments-eu"))
        # The same failures confirmed in a namespace named alike on a third cluster.
        await eu.remember(history.memory(PRECEDENT).model_copy(update={"namespace": "payments"}))
        # Operators started after those writes: their indexes list them at start-up.
        by_namespace = HindsightMemory(hindsight_server.url, bank=bank, index=index)
        whole_bank = HindsightMemory(hindsight_server.url, bank=bank, index=index, scope="bank")
        opened += [by_namespace, whole_bank]

        def found(memories: list[Any]) -> set[tuple[str, str]]:
            return {(m.namespace, m.incident) for m in memories}

        # namespace: payments-us recalls nothing of payments-eu; payments recalls what payments confirmed.
        assert await by_namespace.recall(asked_from(history, "payments-us")) == []
        assert found(await by_namespace.recall(asked_from(history, "payments"))) == {("payments", PRECEDENT)}
        assert found(await by_namespace.recall(asked_from(history, "payments-eu"))) <= {
            ("payments-eu", m.incident) for m in history.memories[:FIRST]
        }
        # bank: every namespace answers, and the precedent is found in both namespaces that confirmed it.
        from_us = found(await whole_bank.recall(asked_from(history, "payments-us")))
        assert {("payments-eu", PRECEDENT), ("payments", PRECEDENT)} <= from_us
        assert {ns for ns, _ in from_us} == {"payments-eu", "payments"}
        # The asking incident (confirmed among the first outcomes, in payments-eu) is never its own precedent.
        assert ASKING in {m.incident for m in history.memories[:FIRST]}
        assert ASKING not in {name for _, name in from_us}
        # get() names its namespace in either scope: the scope widens recall, not identity.
        assert await whole_bank.get(PRECEDENT, "payments-us") is None
        assert (await whole_bank.get(PRECEDENT, "payments")) is not None
        assert by_namespace.indexed == whole_bank.indexed == index
    finally:
        for memory in opened:
            await memory.close()


def test_the_scope_is_a_setting_of_its_own_name_and_reaches_the_backend() -> None:
    settings = OperatorSettings.from_env({"RECALL_MEMORY_BACKEND": "hindsight", "RECALL_HINDSIGHT_SCOPE": "bank"})
    assert settings.memory().hindsight_scope == "bank"
    memory = open_backend(settings.memory())
    try:
        assert isinstance(memory, HindsightMemory) and memory.scope == "bank"
    finally:
        asyncio.run(memory.close())
    assert OperatorSettings.from_env({}).memory().hindsight_scope == "namespace"
    flagged = OperatorSettings.from_env({"RECALL_HINDSIGHT_SCOPE": "bank"}, {"hindsight_scope": "namespace"})
    assert flagged.hindsight_scope == "namespace"  # a flag wins over the variable
    with pytest.raises(ConfigError, match="RECALL_HINDSIGHT_SCOPE"):
        OperatorSettings.from_env({"RECALL_HINDSIGHT_SCOPE": "cluster"})
    with pytest.raises(ValueError, match="scope"):
        HindsightMemory("http://127.0.0.1:1", scope="everything")
