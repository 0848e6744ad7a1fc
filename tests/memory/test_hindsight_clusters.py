"""Two clusters on one Hindsight bank, each with its identity: the same namespace/name is two memories.

Against a real server, on both paths (the local index, and the server asked
directly). Clusters `eu` and `us` both confirm `payments/inc-0001`, each with
its own outcome: both documents stay on the bank, each operator reads its own
under its name and the other's as `inc-0001.<cluster>`, and recalls both.
A bank written before identities (documents `<namespace>/<incident>`, no
cluster) is read as before, and a write of the same key replaces the old
document, as it would have overwritten it then.
"""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from typing import Any

import pytest
from support import settled

from recall_operator.config import ConfigError, OperatorSettings, cluster_identity
from recall_operator.domain.models import EpisodicMemory
from recall_operator.memory import open_backend
from recall_operator.memory.base import recall_query
from recall_operator.memory.hindsight import HindsightMemory

NS = "payments"
SHARED = "inc-0001"  # confirmed in both clusters under this name
ASKING = "inc-0008"  # its precedent is inc-0001: the same connection leak
OTHER = "inc-0002"


def confirmed_in(history: Any, name: str, cluster: str) -> EpisodicMemory:
    """The history's outcome of `name` in namespace payments, its summary saying which cluster confirmed it."""
    memory = history.memory(name)
    resolution = memory.resolution.model_copy(update={"summary": f"{memory.resolution.summary} (confirmed in {cluster})"})
    return memory.model_copy(update={"namespace": NS, "resolution": resolution})


def asked(history: Any, name: str) -> Any:
    incident = history.incidents[name].model_copy(update={"namespace": NS})
    return dataclasses.replace(recall_query(incident, history.topology), limit=10)


def names(memories: list[EpisodicMemory]) -> set[str]:
    return {m.incident for m in memories}


@pytest.mark.hindsight
@pytest.mark.parametrize("index", [True, False], ids=["index", "direct"])
async def test_two_clusters_confirming_the_same_namespace_and_name_keep_both_and_recall_each_other(
    hindsight_server: Any, history: Any, index: bool
) -> None:
    bank = f"clusters-{uuid.uuid4().hex[:12]}"
    eu = HindsightMemory(hindsight_server.url, bank=bank, index=index, cluster="eu")
    us = HindsightMemory(hindsight_server.url, bank=bank, index=index, cluster="us")
    try:
        await eu.remember(confirmed_in(history, SHARED, "eu"))
        await us.remember(confirmed_in(history, SHARED, "us"))
        for memory in (eu, us):
            await memory.refresh()  # the poll that brings the other cluster's write (no wait for the interval)
        assert await eu.count() == 2  # neither overwrote the other

        # Each reads its own under its name, the other's under `<name>.<cluster>`.
        for here, there in (("eu", "us"), ("us", "eu")):
            memory = eu if here == "eu" else us
            own = await memory.get(SHARED, NS)
            theirs = await memory.get(f"{SHARED}.{there}", NS)
            assert own is not None and own.incident == SHARED and f"(confirmed in {here})" in own.resolution.summary
            assert theirs is not None and theirs.incident == f"{SHARED}.{there}"
            assert f"(confirmed in {there})" in theirs.resolution.summary
            assert theirs.namespace == NS
            # Without a namespace: the name still tells which cluster's.
            assert (await memory.get(f"{SHARED}.{there}")) == theirs

            # A later incident recalls both outcomes as two precedents.
            assert {SHARED, f"{SHARED}.{there}"} <= names(await memory.recall(asked(history, ASKING)))
            # The incident itself recalls the other cluster's of its name, never its own.
            found = names(await memory.recall(asked(history, SHARED)))
            assert f"{SHARED}.{there}" in found and SHARED not in found
            assert memory.indexed == index
    finally:
        await eu.close()
        await us.close()


@pytest.mark.hindsight
@pytest.mark.parametrize("index", [True, False], ids=["index", "direct"])
async def test_a_bank_written_before_identities_is_read_as_before_and_a_write_replaces_its_document(
    hindsight_server: Any, history: Any, index: bool
) -> None:
    bank = f"legacy-{uuid.uuid4().hex[:12]}"
    before = HindsightMemory(hindsight_server.url, bank=bank, index=False)  # an operator without an identity
    opened = [before]
    try:
        await before.remember_many([confirmed_in(history, SHARED, "the old version"), confirmed_in(history, OTHER, "x")])
        eu = HindsightMemory(hindsight_server.url, bank=bank, index=index, cluster="eu")
        us = HindsightMemory(hindsight_server.url, bank=bank, index=index, cluster="us")
        opened += [eu, us]
        # Read as before, by every cluster: under their own names.
        for memory in (eu, us):
            old = await memory.get(SHARED, NS)
            assert old is not None and "(confirmed in the old version)" in old.resolution.summary
            assert SHARED in names(await memory.recall(asked(history, ASKING)))
            assert await memory.get(OTHER, NS) is not None

        # eu confirms inc-0001 again: its document replaces the one written before identities.
        await eu.remember(confirmed_in(history, SHARED, "eu"))
        await us.refresh()
        assert await eu.count() == 2  # eu's inc-0001 and the old inc-0002
        mine = await eu.get(SHARED, NS)
        assert mine is not None and "(confirmed in eu)" in mine.resolution.summary
        theirs = await us.get(f"{SHARED}.eu", NS)
        assert theirs is not None and "(confirmed in eu)" in theirs.resolution.summary
        assert await us.get(SHARED, NS) is None  # the old document is gone, and us never confirmed one
        found = names(await us.recall(asked(history, ASKING)))
        assert f"{SHARED}.eu" in found and SHARED not in found
        # us confirms inc-0002 again: the old one goes, eu reads us's as inc-0002.us.
        await us.remember(confirmed_in(history, OTHER, "us"))
        await eu.refresh()
        assert await eu.count() == 2
        assert await eu.get(OTHER, NS) is None
        other = await eu.get(f"{OTHER}.us", NS)
        assert other is not None and "(confirmed in us)" in other.resolution.summary
    finally:
        for memory in opened:
            await memory.close()


def test_the_cluster_is_a_setting_that_reaches_the_backend_and_must_be_a_dns_label() -> None:
    settings = OperatorSettings.from_env({"RECALL_MEMORY_BACKEND": "hindsight", "RECALL_CLUSTER": "eu-1"})
    assert settings.memory().cluster == "eu-1"
    memory = open_backend(settings.memory())
    try:
        assert isinstance(memory, HindsightMemory) and memory.cluster == "eu-1"
    finally:
        asyncio.run(memory.close())
    assert OperatorSettings.from_env({"RECALL_CLUSTER": "eu-1"}, {"cluster": "us-2"}).cluster == "us-2"
    assert OperatorSettings.from_env({}).cluster == ""  # unset: the start-up reads kube-system's UID
    for wrong in ("EU", "eu_1", "eu.1", "-eu", "e" * 64):
        with pytest.raises(ConfigError, match="RECALL_CLUSTER"):
            OperatorSettings.from_env({"RECALL_CLUSTER": wrong})
        with pytest.raises(ValueError, match="DNS label"):
            HindsightMemory("http://127.0.0.1:1", cluster=wrong)


def test_the_default_identity_is_the_kube_system_uid_the_same_at_every_read(k8s_api: Any) -> None:
    from kubernetes import client

    first, again = cluster_identity(k8s_api), cluster_identity(k8s_api)
    assert first == again == client.CoreV1Api(k8s_api).read_namespace("kube-system").metadata.uid
    assert HindsightMemory("http://127.0.0.1:1", cluster=first).cluster == first  # a UID is a DNS label


@pytest.mark.hindsight
async def test_a_queued_write_replaces_the_document_written_before_identities_once_it_is_stored(
    hindsight_server: Any, history: Any
) -> None:
    bank = f"legacy-queued-{uuid.uuid4().hex[:12]}"
    before = HindsightMemory(hindsight_server.url, bank=bank, index=False)
    eu = HindsightMemory(
        hindsight_server.url, bank=bank, cluster="eu", write_behind=True, queued=True, poll_interval=0.1
    )
    try:
        await before.remember(confirmed_in(history, SHARED, "the old version"))
        await eu.refresh()
        await eu.remember(confirmed_in(history, SHARED, "eu"))
        await eu.flush()
        # Until the server has stored eu's document the old one stays: the bank never lacks the memory.
        async def eu_stored() -> bool:
            assert await before.count() >= 1
            await eu.refresh()
            return not eu._pending

        async def old_one_gone() -> bool:
            await eu.refresh()
            return await before.count() == 1

        await settled("the server to store eu's document", eu_stored)
        await settled("the document written before identities to go", old_one_gone)
        mine = await eu.get(SHARED, NS)
        assert mine is not None and "(confirmed in eu)" in mine.resolution.summary
        assert await before.get(SHARED, NS) is None  # read without a cluster: the old document is gone
    finally:
        await eu.close()
        await before.close()
