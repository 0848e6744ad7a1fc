"""A Hindsight server that asks for an API key, a real one (Hindsight's ApiKeyTenantExtension).

Without a key, anyone who can reach the server reads every incident the bank
holds and writes into it. With one, only a client that sends it does: the
operator sends RECALL_HINDSIGHT_API_KEY. A missing or wrong key is memory
unavailable, said with the reason, so an outcome waits in the outbox instead
of being lost or crashing the handler.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hindsight_client import Hindsight
from hindsight_client_api.exceptions import ApiException

from hindsight_server import HindsightServer, serving
from recall_operator.cli import main
from recall_operator.memory import open_backend
from recall_operator.memory.base import MemorySettings, MemoryUnavailable, recall_query
from recall_operator.memory.hindsight import HindsightMemory

API_KEY = "an API key the operator's Secret holds"
NS = "payments"


@pytest.fixture(scope="module")
def locked_server() -> Iterator[HindsightServer]:
    with serving(HindsightServer(api_key=API_KEY)) as server:
        yield server


@pytest.mark.hindsight
@pytest.mark.parametrize("index", [True, False], ids=["index", "direct"])
async def test_only_a_client_with_the_api_key_reads_or_writes_the_bank(
    locked_server: HindsightServer, history: Any, index: bool
) -> None:
    bank = f"locked-{uuid.uuid4().hex[:12]}"
    settings = MemorySettings(backend="hindsight", hindsight_url=locked_server.url, hindsight_bank=bank,
                              hindsight_index=index, cluster="eu", hindsight_api_key=API_KEY)
    operator = open_backend(settings)
    keyless = HindsightMemory(locked_server.url, bank=bank, index=index, cluster="eu")
    wrong = HindsightMemory(locked_server.url, bank=bank, index=index, cluster="eu", api_key="a guess")
    try:
        memory = history.memory("inc-0001").model_copy(update={"namespace": NS})
        await operator.remember(memory)
        assert await operator.health() is None
        held = await operator.get("inc-0001", NS)
        assert held is not None and held.resolution == memory.resolution
        query = dataclasses.replace(recall_query(history.incidents["inc-0008"].model_copy(update={"namespace": NS}),
                                                 history.topology), limit=5)
        assert "inc-0001" in {m.incident for m in await operator.recall(query)}

        for client, why in ((keyless, "asks for an API key: set RECALL_HINDSIGHT_API_KEY"),
                            (wrong, "refused the API key of RECALL_HINDSIGHT_API_KEY")):
            # The server's health endpoint asks for no key; the operator's check must not say up.
            assert why in (await client.health() or "")
            with pytest.raises(MemoryUnavailable, match="HTTP 401") as refused:
                await client.remember(history.memory("inc-0002").model_copy(update={"namespace": NS}))
            assert why in str(refused.value)
            with pytest.raises(MemoryUnavailable, match=why):
                await client.recall(query)
        assert await operator.count() == 1  # nothing the refused clients sent was stored

        # The bank's text stays private: a plain client without the key reads nothing.
        raw = Hindsight(locked_server.url)
        try:
            with pytest.raises(ApiException) as listed:
                await raw.alist_memories(bank)
            assert listed.value.status == 401
        finally:
            await raw.aclose()
    finally:
        for backend in (operator, keyless, wrong):
            await backend.close()


@pytest.mark.hindsight
def test_replay_sends_the_api_key_and_says_so_when_it_has_none(
    locked_server: HindsightServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`recall replay --backend hindsight` reads RECALL_HINDSIGHT_API_KEY as the operator does."""
    sample = Path(__file__).resolve().parents[2] / "samples" / "history.jsonl"
    argv = ["replay", str(sample), "--memory", "on", "--backend", "hindsight", "--hindsight-url", locked_server.url,
            "--hindsight-writes", "queued", "--json", "--per-incident"]
    monkeypatch.delenv("RECALL_HINDSIGHT_API_KEY", raising=False)
    assert main(argv) == 1
    refused = capsys.readouterr()
    assert "memory unavailable, no scores" in refused.err and "set RECALL_HINDSIGHT_API_KEY" in refused.err
    assert refused.out == ""  # no scores from a memory that held nothing

    monkeypatch.setenv("RECALL_HINDSIGHT_API_KEY", API_KEY)
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    # The sample's recurrences recalled the outcomes written before them: the bank took and served them.
    assert sum(1 for row in rows if row["matches"]) >= len(rows) // 2
