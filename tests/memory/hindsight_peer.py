"""One operator's memory in a process of its own, driven line by line (tests/memory/test_hindsight_processes.py).

    python hindsight_peer.py URL BANK POLL_SECONDS [SCOPE]

opens a HindsightMemory with its local index and its own poller inside its
own event loop, as `recall run` does at start-up, then answers one JSON
command a line on stdin with one JSON line on stdout:

- {"op": "remember", "memory": {...}}: stored on the server (and in this
  index) before it answers {"stored": true, "began": <monotonic seconds when
  the call began>, "at": <when it returned>}.
- {"op": "remember_many", "memories": [...]}: the same, in bulk.
- {"op": "recall", "query": {...}}: {"incidents": [[namespace, incident], ...],
  "indexed": <answered from the index>}.
- {"op": "await", "query": {...}, "incident": NAME, "namespace": NS}: how many
  polls this process has finished now, then recall until NAME is among the
  answers; {"at": <monotonic>, "polls_before": n, "polls_after": m, "indexed": ...}.
- {"op": "get", "incident": NAME, "namespace": NS}: {"memory": {...} | null}.
- {"op": "count"}: {"count": n}; {"op": "close"}: closes the backend and exits.

CLOCK_MONOTONIC is one clock for every process on the machine, so the
parent can subtract a writer's "at" from a reader's.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any

from recall_operator.domain.models import EpisodicMemory
from recall_operator.memory.base import RecallQuery
from recall_operator.memory.hindsight import HindsightMemory

# A recalling process gives up after this long; the parent reports what it saw.
AWAIT_DEADLINE = 120.0


def as_query(raw: dict[str, Any]) -> RecallQuery:
    return RecallQuery(
        **{**raw, "symptoms": tuple(raw.get("symptoms", ())), "neighbours": tuple(raw.get("neighbours", ()))}
    )


async def answer(memory: HindsightMemory, command: dict[str, Any]) -> dict[str, Any]:
    op = command["op"]
    if op == "remember":
        began = time.monotonic()
        await memory.remember(EpisodicMemory.model_validate(command["memory"]))
        return {"stored": True, "began": began, "at": time.monotonic()}
    if op == "remember_many":
        await memory.remember_many([EpisodicMemory.model_validate(m) for m in command["memories"]])
        return {"stored": True, "at": time.monotonic()}
    if op == "recall":
        found = await memory.recall(as_query(command["query"]))
        return {"incidents": [[m.namespace, m.incident] for m in found], "indexed": memory.indexed}
    if op == "await":
        query = as_query(command["query"])
        wanted = (command["namespace"], command["incident"])
        polls_before = memory.polls
        began = time.monotonic()
        while time.monotonic() - began < AWAIT_DEADLINE:
            found = await memory.recall(query)
            if wanted in {(m.namespace, m.incident) for m in found}:
                return {"at": time.monotonic(), "polls_before": polls_before, "polls_after": memory.polls,
                        "indexed": memory.indexed}
            await asyncio.sleep(0.02)
        return {"at": None, "polls_before": polls_before, "polls_after": memory.polls, "indexed": memory.indexed}
    if op == "get":
        got = await memory.get(command["incident"], command["namespace"])
        return {"memory": None if got is None else got.model_dump(mode="json", by_alias=True)}
    if op == "count":
        return {"count": await memory.count()}
    raise ValueError(f"unknown op {op!r}")


async def main(url: str, bank: str, poll: float, scope: str) -> None:
    memory = HindsightMemory(url, bank=bank, poll_interval=poll, scope=scope)
    loop = asyncio.get_running_loop()
    try:
        print(json.dumps({"ready": True}), flush=True)
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if not line:
                return  # the parent went away
            command = json.loads(line)
            if command["op"] == "close":
                return
            try:
                reply = await answer(memory, command)
            except Exception as exc:  # noqa: BLE001 - the parent shows it; the peer keeps answering
                reply = {"error": f"{type(exc).__name__}: {exc}"}
            print(json.dumps(reply), flush=True)
    finally:
        await memory.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else "namespace"))
