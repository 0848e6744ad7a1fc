"""Two operator processes on one Hindsight bank, against a real server.

test_hindsight_index.py opens two backends in one process; here each operator
is an OS process of its own (tests/memory/hindsight_peer.py): its own event
loop, its own client, its own local index in its own temporary file and its
own poller, sharing nothing with the other but the Hindsight server. That is
how two clusters, or two replicas of the operator, share one memory.

"Within its poll interval" is asserted by counting polls, not by a clock: the
reader counts the polls it has finished when the writer's `remember` has
returned, and the memory must be in its index by the end of the second poll
after that (the one in flight may have listed the bank before the write; the
next one starts after it). The latency is printed, not asserted.
"""

from __future__ import annotations

import dataclasses
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import uuid
from pathlib import Path
from typing import IO, Any

import pytest

from recall_operator.domain.models import EpisodicMemory
from recall_operator.memory.base import RecallQuery, recall_query

pytestmark = pytest.mark.hindsight

PEER = Path(__file__).with_name("hindsight_peer.py")
POLL = 0.5  # seconds; the operator's default is 2
FIRST = 12
# A guard against a hung peer, not a measurement: a command that takes this long fails the test.
ANSWER_DEADLINE = 180.0


class Peer:
    """One operator's memory in its own process; `ask` sends a command and returns its answer."""

    def __init__(self, url: str, bank: str, folder: Path, name: str, scope: str = "namespace") -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.stderr = folder / "stderr.log"
        # TMPDIR: the index's temporary file stays in the test's folder even when the process is killed.
        self.proc = subprocess.Popen(
            [sys.executable, str(PEER), url, bank, str(POLL), scope],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr.open("w"),
            text=True,
            env={**os.environ, "TMPDIR": str(folder)},
        )
        self.lines: queue.Queue[str] = queue.Queue()
        assert self.proc.stdout is not None
        threading.Thread(target=_pump, args=(self.proc.stdout, self.lines), daemon=True).start()
        assert self._read() == {"ready": True}

    def _read(self) -> dict[str, Any]:
        try:
            line = self.lines.get(timeout=ANSWER_DEADLINE)
        except queue.Empty:
            raise AssertionError(f"{self.name} did not answer; its log:\n{self.stderr.read_text()[-3000:]}") from None
        if not line:
            raise AssertionError(f"{self.name} exited; its log:\n{self.stderr.read_text()[-3000:]}")
        answer: dict[str, Any] = json.loads(line)
        assert "error" not in answer, f"{self.name}: {answer['error']}"
        return answer

    def ask(self, **command: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(command, default=str) + "\n")
        self.proc.stdin.flush()
        return self._read()

    def remember(self, memory: EpisodicMemory) -> tuple[float, float]:
        """When the call began and when it returned (the server had stored it), on the machine's monotonic clock."""
        answer = self.ask(op="remember", memory=_memory_json(memory))
        return float(answer["began"]), float(answer["at"])

    def recall(self, query: RecallQuery) -> list[tuple[str, str]]:
        answer = self.ask(op="recall", query=dataclasses.asdict(query))
        assert answer["indexed"], f"{self.name} answered from the server, not its index"
        return [(ns, name) for ns, name in answer["incidents"]]

    def get(self, incident: str, namespace: str = "default") -> EpisodicMemory | None:
        raw = self.ask(op="get", incident=incident, namespace=namespace)["memory"]
        return None if raw is None else EpisodicMemory.model_validate(raw)

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.ask(op="close")
            except (AssertionError, BrokenPipeError, ValueError):
                pass
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdin is not None:
            self.proc.stdin.close()

    def crash(self) -> None:
        """SIGKILL: no close(), no flush; the index file is left behind as a crash would leave it."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        if self.proc.stdin is not None:
            self.proc.stdin.close()


def _pump(stream: IO[str], lines: queue.Queue[str]) -> None:
    for line in stream:
        lines.put(line)
    lines.put("")  # the process exited


def _memory_json(memory: EpisodicMemory) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(memory.model_dump_json(by_alias=True))
    return loaded


def by_own_words(memory: EpisodicMemory) -> RecallQuery:
    """What a later incident worded like this one asks."""
    spec = memory.spec
    return RecallQuery(incident="inc-probe", service=spec.service, text=f"{spec.title} {spec.description}", limit=3)


@dataclasses.dataclass
class Seen:
    from_write: float  # seconds from the writer's call beginning to the reader's recall
    from_stored: float  # from the writer's call returning (the server may show a document before it answers)
    polls: int  # the reader's polls finished after the writer's call returned

    def __str__(self) -> str:
        return (f"{self.from_write * 1000:.0f} ms after the write began, {self.from_stored * 1000:.0f} ms after it"
                f" returned ({self.polls} poll(s) after it, one every {POLL} s)")


def wait_for(reader: Peer, memory: EpisodicMemory, write: tuple[float, float]) -> Seen:
    """When the reader recalled what the writer wrote (`write`: its call's beginning and end)."""
    answer = reader.ask(
        op="await",
        query=dataclasses.asdict(by_own_words(memory)),
        incident=memory.incident,
        namespace=memory.namespace,
    )
    assert answer["at"] is not None, f"{reader.name} never recalled {memory.incident} ({answer})"
    assert answer["indexed"], f"{reader.name} recalled {memory.incident} from the server, not its index"
    return Seen(answer["at"] - write[0], answer["at"] - write[1], answer["polls_after"] - answer["polls_before"])


@pytest.fixture
def shared_bank() -> str:
    return f"procs-{uuid.uuid4().hex[:12]}"


def test_an_outcome_confirmed_in_one_operator_process_is_recalled_by_another_at_its_next_poll(
    hindsight_server: Any, history: Any, shared_bank: str, tmp_path: Path
) -> None:
    one = Peer(hindsight_server.url, shared_bank, tmp_path / "one", "operator one")
    other: Peer | None = None
    try:
        one.ask(op="remember_many", memories=[_memory_json(m) for m in history.memories[:FIRST]])
        other = Peer(hindsight_server.url, shared_bank, tmp_path / "other", "operator two")
        # Its start-up listing holds the first outcomes: inc-0001 is inc-0008's precedent.
        assert ("default", "inc-0001") in other.recall(recall_query(history.incidents["inc-0008"], history.topology))

        new = history.memories[FIRST]
        assert ("default", new.incident) not in other.recall(by_own_words(new))
        seen = wait_for(other, new, one.remember(new))
        assert seen.polls <= 2, f"recalled only after {seen.polls} polls of the other process"
        sys.__stderr__.write(f"\ntwo processes: {new.incident} confirmed in one, recalled in the other {seen}\n")
        assert other.get(new.incident) == new

        # And back, with a correction of that outcome written before a new one.
        corrected = new.model_copy(
            update={"resolution": new.resolution.model_copy(update={"summary": "Corrected by the other cluster."})}
        )
        other.remember(corrected)
        later = history.memories[FIRST + 1]
        seen = wait_for(one, later, other.remember(later))
        assert seen.polls <= 2, f"recalled only after {seen.polls} polls of the first process"
        sys.__stderr__.write(f"two processes, back: {later.incident} recalled {seen}\n")
        # The poll that brought the later outcome brought the earlier correction too.
        assert one.get(new.incident) == corrected
        assert one.ask(op="count")["count"] == other.ask(op="count")["count"] == FIRST + 2
    finally:
        one.close()
        if other is not None:
            other.close()


def test_an_operator_process_killed_and_started_again_lists_what_was_written_while_it_was_down(
    hindsight_server: Any, history: Any, shared_bank: str, tmp_path: Path
) -> None:
    asking = [recall_query(history.incidents[name], history.topology) for name in ("inc-0008", "inc-0032", "inc-0040")]
    one = Peer(hindsight_server.url, shared_bank, tmp_path / "one", "operator one")
    other = Peer(hindsight_server.url, shared_bank, tmp_path / "other", "operator two")
    restarted: Peer | None = None
    try:
        one.ask(op="remember_many", memories=[_memory_json(m) for m in history.memories[:FIRST]])
        other.crash()  # no close(): whatever its index held is gone with it

        # Written while it is down: two new outcomes and a correction of an old one.
        first = history.memories[0]
        corrected = first.model_copy(
            update={"resolution": first.resolution.model_copy(update={"summary": "Rewritten while it was down."})}
        )
        for m in (history.memories[FIRST], history.memories[FIRST + 1], corrected):
            one.remember(m)

        restarted = Peer(hindsight_server.url, shared_bank, tmp_path / "restarted", "operator two, restarted")
        # The first recall waits for the listing; then it answers as the writer's own index does.
        for q in asking:
            assert restarted.recall(q) == one.recall(q), q.incident
        for m in [corrected, *history.memories[1 : FIRST + 2]]:
            assert restarted.get(m.incident, m.namespace) == m, m.incident
        assert restarted.ask(op="count")["count"] == FIRST + 2
    finally:
        one.close()
        other.close()
        if restarted is not None:
            restarted.close()
