"""The Hindsight memory backend: a Hindsight server through `hindsight-client`, async calls only.

A memory is retained as its cold-reader text (`memory_text`), one document per
incident (`<namespace>/<incident>`: retaining it again replaces it), tagged
with its structured fields (`service:`, `runbook:`, `outcome:`, `ns:`,
`incident:`, and `action:<result>` for each result among its actions), and
with the whole memory as JSON in its metadata so that it is rebuilt exactly.

Hindsight is the system of record; recall is served from a local index in
front of it, as an informer serves reads in front of the API server:

- At first use the bank is listed into the index (the embedded store's code,
  in a temporary file), and recall waits for that first listing (at most
  INDEX_WAIT seconds; a larger bank is answered by the server until it is in).
- What this operator writes goes to Hindsight first, then into the index: the
  index never holds a memory the server refused.
- Every `poll_interval` seconds the documents written since the last poll
  (by `updated_at`, with an overlap for late commits) are read into the index,
  so that a memory written by another operator on the bank is recalled here
  within one interval. When the bank's document count and the index disagree
  (a memory deleted or lost on the server, a write missed), and every
  FULL_LISTING_EVERY seconds in any case, the bank is listed again whole and
  the index made equal to it: the server wins every disagreement.
- A failed call to Hindsight marks the index out of date: recall, get and
  count raise MemoryUnavailable (as they would without an index) until a poll
  succeeds; recall and get try that poll themselves first.
- After a restart of the operator the index is empty and is listed again.

Which memories of the bank an incident recalls is the backend's `scope`:
`namespace` (the default) recalls only memories confirmed in a namespace of
the incident's name, `bank` every memory on the bank, whatever namespace it
was confirmed in. The bank is what a team shares: several clusters pointed at
one bank share their memories by namespace name under `namespace` (a
`payments` incident in one cluster recalls `payments` in another, and nothing
from `checkout`), and all of them under `bank` (a team whose namespaces are
named per cluster, `payments-eu` and `payments-us`, or one operator whose
teams share one memory). Teams that must not share use banks of their own.
A memory is one document per cluster, namespace and incident name on the
bank (`<cluster>/<namespace>/<incident>`), so two clusters that both confirm
`payments/inc-42` keep both. The cluster is the operator's identity
(RECALL_CLUSTER; by default the UID of its cluster's kube-system namespace,
the same for every replica and restart of the operator there). This operator
reads its own memories, and those written before clusters had identities
(`<namespace>/<incident>`, no cluster in their metadata), under their incident
names; a memory another cluster confirmed is read as `<incident>.<cluster>`,
so that the scoring, which tells precedents apart by name, never takes it for
this cluster's incident of the same name, and a reader sees it is not one of
theirs. A write here replaces the document of the same namespace and name
written before identities: that write would have overwritten it then.
A backend made without a cluster (`recall replay`, the bench) writes and reads
as before identities.

Without the index (`index=False`), recall asks the server in two round trips:
the incident's telling words by keyword (BM25) at budget low within the
namespace, and one listing of the latest memories on the paging service and
its neighbours (namespace filtered here). The two are merged as the embedded
store merges its arms.

One client is opened per event loop (when the backend is made inside a running
loop, as the operator's start-up makes it; else at the first call there), and kept
(with its connection pool and the SSL context it built once) until `close()`
or the loop's end: a client's HTTP session belongs to the loop it started in.

`remember_many` writes many memories in a few requests (a bulk load, the
bench's history): each item is exactly what `remember` sends, so a memory
written either way is the same document.

`remember` returns once the server has stored the memory (one synchronous
retain, about 200 ms: the server embeds the text). The operator relies on
that: an outcome leaves the Incident's outbox only when `remember` returned,
so a crash at any moment leaves it either stored or still in the outbox.

With `write_behind=True` (`recall replay`, which writes one outcome after
each incident and recalls at the next one), `remember` puts the memory into
the index and queues it for the server instead; one background writer sends
what has queued meanwhile in one request (the server works on a batch's
documents together: about 60 ms a memory in bulk against 200 ms alone on a
2-core machine), so the writes overlap the replay instead of pausing it:
- Recall that needs the server consistent with what was written waits for
  the writes queued so far: recall, get and count without the index, every
  poll of the index, `remember_many`, `flush()` and `close()`.
- A write the server refuses (or that cannot reach it) is not left in the
  index as stored: its keys lose their claim to be newer than the bank, the
  index is marked out of date, and the next recall lists the bank again (the
  server's version wins, or the memory goes) or raises MemoryUnavailable.
  The failure, naming the outcomes, is logged and raised by the next
  `remember`, `remember_many`, `flush()` or `close()`.
- The outcomes not yet confirmed live only in this process. So write-behind
  is for a caller that holds them elsewhere and waits for `flush()` or
  `close()` before calling the work done: replay reads them from its history
  file, and a replay that ends before its writes are stored ends in an error
  (a cancelled writer logs the outcomes it did not store), never in a result.
  The operator does not use it.

With `queued=True` as well, what waits is sent at the next poll, `flush()` or
`close()` (a read of the server waits for it as above), as an asynchronous
retain: the server commits the batch to its operations table (PostgreSQL, in
one transaction) and answers at once, and its worker embeds and stores the
documents afterwards, retrying a failed attempt. A write is then settled when
it is queued there, not when it is searchable: `flush()` and `close()` return
while the server still works, and what it stores is seen by other clients (and
by this backend's listings) only as its worker gets to it, about 50 ms of the
server's CPU an outcome. Until then the index keeps the outcome as written here
(a listing that lacks it does not drop it); each poll, `flush()` and `close()`
ask the server how its operations went, and one that failed is handled as a
refused write above. An operation still under way at `close()` is logged, not
waited for: a failure after that is on the server's operation log alone.
Each batch carries its own operation id, so a retried request is not queued
twice. The server may work on two queued batches at once, so an incident
written twice is sent again only once its first operation is done.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import hmac
import json
import logging
import re
import shutil
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeGuard, TypeVar, cast

import aiohttp
from hindsight_client import Hindsight
from hindsight_client_api.exceptions import ApiException, NotFoundException
from hindsight_client_api.models.list_memory_units_response import ListMemoryUnitsResponse
from hindsight_client_api.models.recall_response import RecallResponse

from recall_operator.domain.consolidation import final_outcome, memory_text, unvouched_memory
from recall_operator.domain.models import EpisodicMemory
from recall_operator.domain.text import STOPWORDS
from recall_operator.domain.times import parse_time
from recall_operator.memory.base import MemoryRefused, MemoryUnavailable, RecallQuery, interleave
from recall_operator.memory.embedded import EmbeddedMemory

T = TypeVar("T")
log = logging.getLogger(__name__)

DEFAULT_BANK = "recall-operator"
# What an incident recalls: memories of its namespace's name, or every memory on the bank.
SCOPES = ("namespace", "bank")
# A retain embeds the text on the server's CPU; a recall is tens of milliseconds.
WRITE_TIMEOUT = 30.0
# A bulk request: RETAIN_BATCH memories at up to a few hundred ms each on a busy 2-core server.
BULK_TIMEOUT = 300.0
RETAIN_BATCH = 100
# Two requests in flight keep the server busy while the other waits on its slowest document.
BULK_IN_FLIGHT = 2
RETAIN_CONTEXT = "a confirmed incident outcome, written for a cold reader"
READ_TIMEOUT = 10.0
# How often a write of an incident whose earlier version is still queued on the server asks again.
OPERATION_POLL = 0.2
# How long a queued write waits for the server to finish an earlier version of the same outcome.
QUEUED_WAIT = 120.0
HEALTH_TIMEOUT = 3.0
# A listing of the whole bank: LIST_PAGE documents (a few kB of metadata each) a request.
LIST_PAGE = 500
LIST_TIMEOUT = 60.0
# Seconds between polls for memories written elsewhere (RECALL_HINDSIGHT_POLL_S).
DEFAULT_POLL_INTERVAL = 2.0
# A poll re-reads documents this much older than the newest it saw: a write
# stamped before that one may commit after it.
POLL_OVERLAP = timedelta(seconds=30)
# The whole bank is listed again this often even when the counts agree (a
# deletion and a write elsewhere in one interval leave the count unchanged).
FULL_LISTING_EVERY = 600.0
# How long the first recall waits for the first listing of the bank.
INDEX_WAIT = 30.0
# Room for `limit` whole memories in one answer (a memory's text is about 250 tokens).
TOKENS_PER_MEMORY = 320
GIST_CHARS = 240
MIN_ARM_MEMORIES = 25
# A memory's text is a few thousand characters at most: one chunk, recalled whole.
BANK_CHUNK_CHARS = 20000
# The server's BM25 uses at most this many query terms (HINDSIGHT_API_BM25_MAX_QUERY_TERMS).
BM25_TERMS = 16
_WORD = re.compile(r"[A-Za-z0-9_]+")
# No cosine reaches 1.0 between different texts: the semantic arm contributes nothing.
WORDS_ONLY = {"semantic": 1.0}

# A cluster identity is a DNS label: it is part of a document id and of the
# name a memory of another cluster is read under, which must stay a Kubernetes
# name (a Contradiction is named after the memories it holds).
_CLUSTER = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")


def valid_cluster(cluster: str) -> bool:
    return bool(_CLUSTER.match(cluster))


def document_id(namespace: str, incident: str, cluster: str = "") -> str:
    """A memory's document: `<cluster>/<namespace>/<incident>`, or `<namespace>/<incident>` without a cluster."""
    return f"{cluster}/{namespace}/{incident}" if cluster else f"{namespace}/{incident}"


def memory_tags(memory: EpisodicMemory, cluster: str = "") -> list[str]:
    """The structured fields recall filters on; `action:<result>` once per result among the actions."""
    res = memory.resolution
    tags = [
        f"service:{memory.spec.service}",
        f"ns:{memory.namespace}",
        f"incident:{memory.incident}",
        f"outcome:{final_outcome(res)}",
    ]
    if cluster:
        tags.append(f"cluster:{cluster}")
    if res.runbook:
        tags.append(f"runbook:{res.runbook}")
    tags.extend(f"action:{result}" for result in dict.fromkeys(a.result for a in res.actions))
    return tags


def memory_seal(key: bytes, cluster: str, memory_json: str) -> str:
    """The signature of a memory's JSON as written by `cluster`, under the bank's key (RECALL_HINDSIGHT_KEY)."""
    return hmac.new(key, f"{cluster}\n{memory_json}".encode(), hashlib.sha256).hexdigest()


def vouched_for(metadata: dict[str, Any] | None, keys: Sequence[bytes]) -> bool:
    """Whether a document's memory was signed with one of `keys` by the cluster it names, and not changed since."""
    raw, seal = (metadata or {}).get("memory"), (metadata or {}).get("seal")
    if not isinstance(raw, str) or not isinstance(seal, str):
        return False
    return any(hmac.compare_digest(seal, memory_seal(key, _written_by(metadata), raw)) for key in keys)


def memory_metadata(memory: EpisodicMemory, cluster: str = "", key: bytes | None = None) -> dict[str, str]:
    """Metadata values must be strings: the memory itself travels as JSON, signed when the bank has a key."""
    metadata = {
        "memory": memory.model_dump_json(by_alias=True),
        "namespace": memory.namespace,
        "incident": memory.incident,
        "service": memory.spec.service,
        "runbook": memory.resolution.runbook or "",
        "outcome": final_outcome(memory.resolution),
        "resolved_at": memory.resolved_at.isoformat(),
    }
    if cluster:
        metadata["cluster"] = cluster
    if key is not None:
        metadata["seal"] = memory_seal(key, cluster, metadata["memory"])
    return metadata


def retain_item(memory: EpisodicMemory, cluster: str = "", key: bytes | None = None) -> dict[str, Any]:
    """What is retained for one memory, by `remember` and `remember_many` alike."""
    return {
        "content": memory_text(memory),
        "document_id": document_id(memory.namespace, memory.incident, cluster),
        "tags": memory_tags(memory, cluster),
        "metadata": memory_metadata(memory, cluster, key),
        "timestamp": memory.resolved_at,
        "context": RETAIN_CONTEXT,
    }


# What a server answers when it will not keep what a request carries: malformed (400), too large
# (413), not valid by its own rules or blocked by its Memory Defense (422).
CONTENT_REFUSALS = frozenset({400, 413, 422})


def _detail(body: Any) -> str:
    """What a refusal's JSON body says (FastAPI's `detail`), cut to a line a condition can carry."""
    try:
        detail = json.loads(body or "{}").get("detail", body)
    except (ValueError, AttributeError):
        detail = body
    return " ".join(str(detail or "no reason given").split())[:300]


def local_name(incident: str, written_by: str, cluster: str) -> str:
    """The name a memory is read under by an operator of `cluster`: its own, or `<incident>.<cluster it came from>`.

    A memory written without a cluster (before identities, or by a backend
    without one) is read under its own name, as it always was.
    """
    return incident if written_by in ("", cluster) else f"{incident}.{written_by}"


def _written_by(metadata: dict[str, Any] | None) -> str:
    """The cluster a document's metadata names; "" for one written without a cluster."""
    cluster = (metadata or {}).get("cluster")
    return cluster if isinstance(cluster, str) else ""


def _from_metadata(metadata: dict[str, Any] | None) -> EpisodicMemory | None:
    """The memory a unit carries; None for anything in the bank that this operator did not write."""
    raw = (metadata or {}).get("memory")
    if not isinstance(raw, str):
        return None
    try:
        return EpisodicMemory.model_validate_json(raw)
    except ValueError:
        return None


@dataclass
class _Queued:
    """An outcome waiting for the write-behind writer, and whoever waits for it to be settled."""

    memory: EpisodicMemory
    settled: list[asyncio.Future[None]]


@dataclass
class _LoopClient:
    """What one event loop holds: its client, the task that polls and closes it, and its write-behind queue."""

    client: Hindsight
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # one sync at a time in this loop
    tried: asyncio.Event = field(default_factory=asyncio.Event)  # the first sync ended, either way
    keeper: asyncio.Task[None] | None = None
    # Write-behind: outcomes not sent yet, in the order they came (one per incident,
    # the latest), the batch on its way, and the future of the last one queued.
    queued: dict[tuple[str, str], _Queued] = field(default_factory=dict)
    sending: list[_Queued] = field(default_factory=list)
    tail: asyncio.Future[None] | None = None
    writer: asyncio.Task[None] | None = None


@dataclass(frozen=True)
class _Listed:
    """One document of the bank as a listing shows it."""

    key: tuple[str, str]
    memory: EpisodicMemory
    updated_at: datetime | None
    legacy: bool = False  # written without a cluster


class HindsightMemory:
    """Memory on a Hindsight server, recalled from a local index; connection failures raise MemoryUnavailable."""

    name = "hindsight"

    def __init__(
        self,
        base_url: str,
        bank: str = DEFAULT_BANK,
        *,
        index: bool = True,
        poll_interval: float = DEFAULT_POLL_INTERVAL,
        write_behind: bool = False,
        queued: bool = False,
        scope: str = "namespace",
        cluster: str = "",
        keys: Sequence[bytes] = (),
        api_key: str | None = None,
        on_unsigned: Callable[[], None] | None = None,
    ) -> None:
        if scope not in SCOPES:
            raise ValueError(f"hindsight scope must be one of {', '.join(SCOPES)}, not {scope!r}")
        if cluster and not valid_cluster(cluster):
            raise ValueError(f"a cluster identity is a DNS label (a-z, 0-9, '-', at most 63), not {cluster!r}")
        self.base_url = base_url.rstrip("/")
        self.bank = bank
        self.scope = scope
        self.cluster = cluster
        # The bank's keys (RECALL_HINDSIGHT_KEY, the current one first): what this operator writes is
        # signed with the first, and a memory signed with none of them backs no runbook (`_read`).
        # No keys: nothing is signed nor checked.
        self.keys = tuple(keys)
        self.key = self.keys[0] if self.keys else None
        self.api_key = api_key  # sent as a bearer token; a server without an API key ignores it
        self._unvouched: set[str] = set()  # documents already named in the log as not signed
        self.on_unsigned = on_unsigned  # called once for each of them (the operator counts them: metrics)
        self.poll_interval = poll_interval
        self.with_index = index
        self.write_behind = write_behind
        self.queued = queued
        # Asynchronous retains the server has queued and not yet reported done: each
        # operation's outcomes, and which operation holds each key.
        self._operations: dict[str, list[_Queued]] = {}
        self._pending: dict[tuple[str, str], str] = {}
        # A write-behind failure not yet raised to a caller, and how many there were
        # (a poll that saw a failure happen while it listed does not call the index current).
        self._failure: MemoryUnavailable | None = None
        self._failures = 0
        self._relist = False  # list the whole bank at the next poll: a write the index holds was refused
        self._bank_ready = False
        self._loops: dict[asyncio.AbstractEventLoop, _LoopClient] = {}
        self._index_dir: Path | None = None
        self._index: EmbeddedMemory | None = None
        if index:
            self._index_dir = Path(tempfile.mkdtemp(prefix="recall-hindsight-index-"))
            self._index = EmbeddedMemory(self._index_dir / "index.sqlite3", durable=False)
        self._loaded = False  # the whole bank has been listed into the index once
        self._current = False  # no call has failed since the last successful poll
        self._newest: datetime | None = None  # the newest `updated_at` seen (the server's clock)
        self._foreign = 0  # documents in the bank that the index does not hold (not its own, or hidden by another)
        self._listed_at = 0.0  # time.monotonic() of the last whole listing
        # The `updated_at` of each document listed within the poll overlap: every poll
        # reads those again, and one unchanged since is not parsed and written again.
        self._stamps: dict[tuple[str, str], datetime] = {}
        # Writes made here, by generation: a listing fetched before a write must not undo it.
        self._generation = 0
        self._written: dict[tuple[str, str], int] = {}
        # Documents of the bank written without a cluster, by (namespace, incident), as
        # the last listing saw them: a write here of the same key replaces them.
        self._legacy: set[tuple[str, str]] = set()
        self.polls = 0  # successful polls, for tests and the bench
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # opened at the first call, in whichever loop makes it
        # Opened inside an event loop (the operator's start-up): the client, and the
        # first listing of the bank, start now rather than at the first incident.
        self._held()

    # -- the client of this event loop ---------------------------------------

    def _held(self) -> _LoopClient:
        loop = asyncio.get_running_loop()
        held = self._loops.get(loop)
        if held is None:
            for gone in [other for other in self._loops if other.is_closed()]:
                del self._loops[gone]
            # One timeout for the client; each call is bounded by its own below.
            client = Hindsight(self.base_url, api_key=self.api_key, timeout=BULK_TIMEOUT, user_agent="recall-operator",
                               max_attempts=2)
            held = self._loops[loop] = _LoopClient(client)
            held.keeper = loop.create_task(self._keep(held), name=f"hindsight-memory {self.bank}")
        return held

    async def _call(self, timeout: float, make: Callable[[Hindsight], Awaitable[T]], content: bool = False) -> T:
        """One request on this loop's client, bounded by `timeout`; unavailability raised as MemoryUnavailable.

        `content`: the request carries a memory, so a refusal of what it carries
        (CONTENT_REFUSALS: the server's validation, a Memory Defense block) is
        MemoryRefused, which no retry of the same memory would change.
        """
        held = self._held()
        try:
            async with asyncio.timeout(timeout):
                return await make(held.client)
        except aiohttp.ClientResponseError as exc:
            self._current = False
            if exc.status in (401, 403):
                raise self._refused(exc.status, exc.message) from exc
            if content and exc.status in CONTENT_REFUSALS:
                raise MemoryRefused(f"hindsight at {self.base_url}: HTTP {exc.status} {exc.message}") from exc
            raise MemoryUnavailable(f"hindsight at {self.base_url}: HTTP {exc.status} {exc.message}") from exc
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            self._current = False
            raise MemoryUnavailable(f"hindsight at {self.base_url}: {type(exc).__name__}: {exc}") from exc
        except ApiException as exc:
            if content and exc.status in CONTENT_REFUSALS:
                raise MemoryRefused(f"hindsight at {self.base_url}: HTTP {exc.status} {exc.reason}: "
                                    f"{_detail(exc.body)}") from exc
            # A server that is up but cannot serve (5xx, at capacity) is as
            # unavailable as one that is down; any other refusal is a bug here.
            if exc.status is None or exc.status >= 500 or exc.status in (408, 429):
                self._current = False
                raise MemoryUnavailable(f"hindsight at {self.base_url}: HTTP {exc.status} {exc.reason}") from exc
            if exc.status in (401, 403):
                self._current = False
                raise self._refused(exc.status, exc.reason) from exc
            raise

    def _refused(self, status: int, reason: Any) -> MemoryUnavailable:
        """The server asks for an API key this operator did not send, or not this one: unavailable until
        the key is right, so outcomes wait in the outbox and the Incident's condition says why."""
        given = ("refused the API key of RECALL_HINDSIGHT_API_KEY" if self.api_key
                 else "asks for an API key: set RECALL_HINDSIGHT_API_KEY")
        return MemoryUnavailable(f"hindsight at {self.base_url}: HTTP {status} {reason}: the server {given}")

    async def _keep(self, held: _LoopClient) -> None:
        """The loop's poller (with an index), and the one who closes the loop's client when cancelled."""
        try:
            if self._index is None:
                await asyncio.Event().wait()  # nothing to poll: hold the client until the end
            failing = False
            while True:
                try:
                    await self._sync(held)
                    if failing:
                        log.info(f"memory index: Hindsight at {self.base_url} answers again; the index is current")
                    failing = False
                except Exception as exc:  # noqa: BLE001 - the poller outlives any one bad answer
                    self._current = False
                    if not failing:  # once per outage, not once per poll
                        log.warning(f"memory index: poll failed, memory is unavailable until one succeeds: {exc}")
                    failing = True
                finally:
                    held.tried.set()
                await asyncio.sleep(self.poll_interval)
        finally:
            await held.client.aclose()

    # -- the interface -------------------------------------------------------

    async def remember(self, memory: EpisodicMemory) -> None:
        if self.write_behind:
            return await self._remember_behind(memory)
        await self._prepare_bank()
        item = retain_item(memory, self.cluster, self.key)
        await self._call(WRITE_TIMEOUT, lambda c: c.aretain_batch(self.bank, items=[item]), content=True)
        await self._into_index([memory])
        await self._supersede([memory])

    async def flush(self) -> None:
        """Wait until every write-behind outcome queued in this loop is settled; raise if any was not stored."""
        await self._writes_settled()
        if self._operations:
            await self._check_operations()
        self._raise_failure()

    async def remember_many(self, memories: Sequence[EpisodicMemory]) -> None:
        """Each memory as `remember` stores it, in requests of RETAIN_BATCH, BULK_IN_FLIGHT at a time.

        The same incident twice keeps the later one, as two `remember` calls
        would: the server would otherwise fold both into one document. On a
        failure some requests may have been stored; writing again is safe.
        """
        latest = {(m.namespace, m.incident): m for m in memories}
        if not latest:
            return
        # An outcome still queued behind must not land after (and over) a newer one written here.
        await self.flush()
        items = [retain_item(m, self.cluster, self.key) for m in latest.values()]
        batches = [items[i : i + RETAIN_BATCH] for i in range(0, len(items), RETAIN_BATCH)]
        slots = asyncio.Semaphore(BULK_IN_FLIGHT)
        await self._prepare_bank()

        async def send(batch: list[dict[str, Any]]) -> None:
            async with slots:
                await self._call(BULK_TIMEOUT, lambda c: c.aretain_batch(self.bank, items=batch))

        await _all_of([send(batch) for batch in batches])
        await self._into_index(list(latest.values()))
        await self._supersede(list(latest.values()))

    # -- write-behind -------------------------------------------------------------

    async def _remember_behind(self, memory: EpisodicMemory) -> None:
        """Into the index now, onto the server with whatever else queues while the writer is busy."""
        self._raise_failure()
        await self._prepare_bank()
        held = self._held()
        key = (memory.namespace, memory.incident)
        settled: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        earlier = held.queued.pop(key, None)  # the same incident again before it was sent: the later one wins
        held.queued[key] = _Queued(memory, [*(earlier.settled if earlier else ()), settled])
        held.tail = settled
        await self._into_index([memory])
        if not self.queued:
            self._start_writer(held)
        # Queued: sent at the next poll, flush() or close(), all that waits in one request, so
        # that the server's worker does not take the CPU from the caller write by write.

    def _start_writer(self, held: _LoopClient) -> None:
        if held.queued and (held.writer is None or held.writer.done()):
            held.writer = asyncio.get_running_loop().create_task(
                self._write_queued(held), name=f"hindsight-memory {self.bank} writer"
            )

    async def _write_queued(self, held: _LoopClient) -> None:
        """Send the queue in batches of RETAIN_BATCH, oldest first; each batch's futures settle when it has."""
        try:
            while held.queued:
                keys = list(held.queued)[:RETAIN_BATCH]
                held.sending = [held.queued.pop(k) for k in keys]
                try:
                    items = [retain_item(q.memory, self.cluster, self.key) for q in held.sending]
                    if self.queued:
                        await self._send_queued(held.sending, items)
                    else:
                        # Awaited within this iteration, so the lambda sees this batch's items.
                        await self._call(BULK_TIMEOUT, lambda c: c.aretain_batch(self.bank, items=items))  # noqa: B023
                except Exception as exc:  # noqa: BLE001 - whatever it was, these outcomes are not stored
                    # Later outcomes are not sent after a lost one: the caller learns of the
                    # failure at its next call and decides (replay stops; nothing is left half-known).
                    lost = [*held.sending, *held.queued.values()]
                    held.queued.clear()
                    self._not_stored(lost, exc)
                    _settle(lost)
                else:
                    if not self.queued:  # queued: once the server has stored it (_check_operations)
                        await self._supersede([q.memory for q in held.sending])
                    _settle(held.sending)
                held.sending = []
        except asyncio.CancelledError:
            lost = [*held.sending, *held.queued.values()]
            held.queued.clear()
            held.sending = []
            if lost:
                self._not_stored(lost, MemoryUnavailable("the event loop ended before they were sent"))
                _settle(lost)
            raise

    async def _send_queued(self, batch: list[_Queued], items: list[dict[str, Any]]) -> None:
        """One asynchronous retain: returns once the server has queued the batch (see `queued`)."""
        keys = {(q.memory.namespace, q.memory.incident) for q in batch}
        # An incident whose earlier version is still queued waits for it: the server's
        # workers may take two operations at once, and the later must land last. The
        # wait ends: a server that neither finishes nor fails an operation in
        # QUEUED_WAIT seconds leaves this batch not stored, with the reason.
        deadline = time.monotonic() + QUEUED_WAIT
        while keys & self._pending.keys():
            await self._check_operations()
            if not keys & self._pending.keys():
                break
            if time.monotonic() >= deadline:
                earlier = sorted({self._pending[k] for k in keys & self._pending.keys()})
                raise MemoryUnavailable(
                    f"an earlier version of the same outcome is still queued on the server after {QUEUED_WAIT:.0f} s "
                    f"(operation {', '.join(earlier)})"
                )
            await asyncio.sleep(OPERATION_POLL)
        operation = str(uuid.uuid4())
        answer = await self._call(
            BULK_TIMEOUT,
            lambda c: c.aretain_batch(self.bank, items=items, retain_async=True, operation_id=operation),
        )
        # A large batch is split by the server into child operations under this one.
        operation = answer.operation_id or operation
        self._operations[operation] = list(batch)
        for key in keys:
            self._pending[key] = operation

    async def _check_operations(self) -> None:
        """Ask the server how each queued operation went: done ones are forgotten, failed ones not stored."""
        for operation, batch in list(self._operations.items()):
            try:
                status = await self._call(
                    READ_TIMEOUT,
                    # Awaited within this iteration, so the lambda sees this operation.
                    lambda c: c.operations.get_operation_status(self.bank, operation),  # noqa: B023
                )
            except MemoryUnavailable:
                return  # asked again at the next poll
            # Another caller (a poll, a flush) may have asked meanwhile and settled it already.
            if status.status in ("pending", "processing") or self._operations.pop(operation, None) is None:
                continue
            for q in batch:
                key = (q.memory.namespace, q.memory.incident)
                if self._pending.get(key) == operation:
                    del self._pending[key]
            if status.status != "completed":
                self._not_stored(batch, MemoryUnavailable(
                    f"operation {operation} {status.status}: {status.error_message or 'no reason given'}"
                ))
            else:
                await self._supersede([q.memory for q in batch])

    def _not_stored(self, lost: list[_Queued], exc: BaseException) -> None:
        """Outcomes the index holds but the server does not: the next recall lists the bank again first."""
        keys = {(q.memory.namespace, q.memory.incident) for q in lost}
        for key in keys:
            self._written.pop(key, None)  # no longer newer than what a listing says
        self._relist = True
        self._current = False
        self._failures += 1
        names = ", ".join(sorted(f"{ns}/{name}" for ns, name in keys))
        message = f"hindsight at {self.base_url} did not store {len(keys)} outcome(s) ({names}): {exc}"
        log.error(f"memory: {message}")
        if self._failure is None:
            self._failure = MemoryUnavailable(message)
            self._failure.__cause__ = exc

    def _raise_failure(self) -> None:
        failure, self._failure = self._failure, None
        if failure is not None:
            raise failure

    async def _writes_settled(self) -> None:
        """Wait for every write-behind outcome this loop has queued so far (sent, or known lost)."""
        held = self._loops.get(asyncio.get_running_loop())
        if held is not None and held.tail is not None and not held.tail.done():
            self._start_writer(held)
            await asyncio.shield(held.tail)

    def _writing(self) -> bool:
        """Whether outcomes written here may be missing from the bank: queued here, or on the server."""
        held = self._loops.get(asyncio.get_running_loop())
        return bool(self._pending) or (held is not None and held.tail is not None and not held.tail.done())

    async def _into_index(self, memories: list[EpisodicMemory]) -> None:
        """What the server accepted, into the index, marked as written here after any listing in flight."""
        if self._index is None:
            return
        self._generation += 1
        for m in memories:
            self._written[(m.namespace, m.incident)] = self._generation
        await self._index.remember_many(memories)

    async def _supersede(self, memories: Sequence[EpisodicMemory]) -> None:
        """Delete the documents written before cluster identities that these writes replace.

        Before identities, writing `payments/inc-42` overwrote whatever cluster had
        written it; the write now goes to `<cluster>/payments/inc-42`, so the old
        document is deleted, as it would have been overwritten. With the index
        listed, only documents the listing saw are asked for; without it every
        key is (a document that is not there is not an error). A delete that
        fails leaves the old document, which this operator's index reads under the
        same key as the new one and drops at its next listing in favour of it.
        """
        if not self.cluster:
            return
        keys = {(m.namespace, m.incident) for m in memories}
        if self._index is not None and self._loaded:
            keys &= self._legacy
        for namespace, incident in sorted(keys):
            try:
                await self._call(
                    WRITE_TIMEOUT,
                    # Awaited within this iteration, so the lambda sees this key.
                    lambda c: c.documents.delete_document(self.bank, document_id(namespace, incident)),  # noqa: B023
                )
            except NotFoundException:
                pass
            except (MemoryUnavailable, ApiException) as exc:
                log.warning(f"memory: {namespace}/{incident} written before cluster identities is left on the bank: {exc}")
                continue
            self._legacy.discard((namespace, incident))

    def _read(self, metadata: dict[str, Any] | None) -> EpisodicMemory | None:
        """The memory a document or unit carries, under the name this operator reads it by (see `local_name`).

        With a key, a memory not signed with it (written by anyone who can reach
        the server, or before the key was set) keeps its words as a precedent,
        but what it says succeeded is only reported, and it is one voice (`unvouched_memory`).
        """
        memory = _from_metadata(metadata)
        if memory is None:
            return None
        name = local_name(memory.incident, _written_by(metadata), self.cluster)
        update: dict[str, Any] = {} if name == memory.incident else {"incident": name}
        if self.keys and not vouched_for(metadata, self.keys):
            memory = unvouched_memory(memory)
            document = f"{memory.namespace}/{name}"
            if document not in self._unvouched:
                self._unvouched.add(document)
                if self.on_unsigned is not None:
                    self.on_unsigned()
                log.warning(f"memory: {document} is not signed with this bank's key (RECALL_HINDSIGHT_KEY): "
                            "recalled, but what it says succeeded backs no runbook")
        return memory.model_copy(update=update) if update else memory

    def _listed(self, item: Any) -> _Listed | None:
        memory = self._read(item.document_metadata)
        if memory is None:
            return None
        # The server writes its timestamptz as RFC 3339; read in UTC, one listing's times compare with the last's.
        return _Listed(
            (memory.namespace, memory.incident),
            memory,
            parse_time(item.updated_at),
            legacy=not _written_by(item.document_metadata),
        )

    async def _prepare_bank(self) -> None:
        """Create or update the bank once per backend object, with the retrieval this backend relies on.

        Without an LLM there are no entities, so the graph arm follows only
        similarity links, and the temporal arm reads clock times in incident
        text as dates: both add noise to what the operator scores. One memory
        is one chunk, so that a memory is recalled whole.
        """
        if self._bank_ready:
            return
        await self._call(
            WRITE_TIMEOUT,
            lambda c: c.acreate_bank(
                self.bank,
                name="recall-operator incident memory",
                retain_chunk_size=BANK_CHUNK_CHARS,
                enable_graph_retrieval=False,
                enable_temporal_retrieval=False,
                enable_observations=False,
            ),
        )
        self._bank_ready = True

    async def recall(self, query: RecallQuery) -> list[EpisodicMemory]:
        if query.limit <= 0:
            return []
        if self.scope == "bank":
            # The query names the incident's namespace; on a bank-wide scope every namespace answers.
            query = dataclasses.replace(query, namespace=None)
        if await self._index_serves():
            assert self._index is not None
            return await self._index.recall(query)
        await self._writes_settled()
        return await self._recall_from_server(query)

    async def get(self, incident: str, namespace: str | None = None) -> EpisodicMemory | None:
        if await self._index_serves():
            assert self._index is not None
            return await self._index.get(incident, namespace)
        await self._writes_settled()
        # The documents the name may be: this cluster's, one written before identities,
        # and, for `<name>.<cluster>`, that other cluster's `<name>`.
        base, _, other = incident.rpartition(".")
        foreign = [(other, base)] if base and valid_cluster(other) and other != self.cluster else []
        if namespace is not None:
            ids = [document_id(namespace, incident, self.cluster), *(
                [document_id(namespace, incident)] if self.cluster else []
            ), *(document_id(namespace, name, by) for by, name in foreign)]
            for doc_id in ids:
                try:
                    # Awaited within this iteration, so the lambda sees this id.
                    doc = await self._call(READ_TIMEOUT, lambda c: c.documents.get_document(self.bank, doc_id))  # noqa: B023
                except NotFoundException:
                    continue
                memory = self._read(doc.document_metadata)
                if memory is not None and memory.incident == incident:
                    return memory
            return None
        names = [incident, *(name for _, name in foreign)]
        try:
            page = await self._call(
                READ_TIMEOUT,
                lambda c: c.alist_memories(
                    self.bank, tags=[f"incident:{n}" for n in names], tags_match="any_strict", time_field="mentioned_at"
                ),
            )
        except NotFoundException:
            return None
        found = [m for m in map(self._read, (i.metadata for i in page.items)) if m and m.incident == incident]
        return min(found, key=lambda m: (-m.resolved_at.timestamp(), m.namespace), default=None)

    async def outcomes_naming(self, namespace: str, runbook: str) -> list[EpisodicMemory]:
        if await self._index_serves():
            assert self._index is not None
            return await self._index.outcomes_naming(namespace, runbook)
        await self._writes_settled()
        # No tag names a runbook an action ran (a failed one included), so the bank is read
        # whole: this is asked once per new Runbook object, not per incident.
        listed, _ = await self._list_documents()
        # This cluster's document over one written before cluster identities, as the index keeps it.
        listed.sort(key=lambda i: not i.legacy)
        found = {i.key: i.memory for i in listed if i.memory.namespace == namespace}
        return [m for m in found.values() if runbook in m.model_dump_json(by_alias=True)]

    async def count(self) -> int:
        """The bank's documents, as the server counts them (the system of record)."""
        await self._writes_settled()
        try:
            listing = await self._call(READ_TIMEOUT, lambda c: c.documents.list_documents(self.bank, limit=1))
        except NotFoundException:
            return 0
        return listing.total

    async def health(self) -> str | None:
        """None when the server answers a read of this bank with this operator's API key; else why not.

        Not the server's health endpoint: it asks for no key, and said yes to an
        operator whose every recall and write the server refused (a wrong or
        missing RECALL_HINDSIGHT_API_KEY). One document is listed; a bank not
        created yet is healthy (the first outcome creates it).
        """
        try:
            await self._call(HEALTH_TIMEOUT, lambda c: c.documents.list_documents(self.bank, limit=1))
        except NotFoundException:
            return None
        except Exception as exc:  # noqa: BLE001 - health() answers, it never raises
            return str(exc) or type(exc).__name__
        return None

    async def close(self) -> None:
        """Settle this loop's write-behind queue, close its client (its poller ends with it), drop the index.

        A write-behind outcome that was not stored is raised here, after the rest is closed.
        """
        current = asyncio.get_running_loop()
        await self._writes_settled()
        if self._operations:
            await self._check_operations()
        if self._pending:
            log.info(
                f"memory: {len(self._pending)} outcome(s) queued on hindsight at {self.base_url} are not yet"
                f" searchable; its worker stores them (operations {', '.join(sorted(self._operations))})"
            )
        for loop, held in list(self._loops.items()):
            if held.keeper is None:
                continue
            if loop is current:
                held.keeper.cancel()
                await asyncio.gather(held.keeper, return_exceptions=True)
            elif not loop.is_closed():
                loop.call_soon_threadsafe(held.keeper.cancel)
        self._loops.clear()
        if self._index is not None:
            await self._index.close()
            self._index = None
            self._loaded = self._current = False
        if self._index_dir is not None:
            shutil.rmtree(self._index_dir, ignore_errors=True)
            self._index_dir = None
        self._raise_failure()

    # -- beyond the interface -------------------------------------------------

    async def refresh(self) -> None:
        """Poll now instead of at the next interval (tests; a caller that knows the bank changed)."""
        await self._sync(self._held())

    @property
    def indexed(self) -> bool:
        """True when recall is answered by the local index."""
        return self._index is not None and self._loaded and self._current

    def revision(self) -> object:
        """The local index's revision while it answers recall (MemoryBackend.revision); None while it does not.

        Without the index the server answers, and what it holds is not known
        here until asked: None says "unknown", so every answer is worked out again.
        """
        return self._index.revision() if self._index is not None and self.indexed else None

    # -- the local index ---------------------------------------------------------

    async def _index_serves(self) -> bool:
        """Whether the index answers this call: loaded, and not out of date (a poll is tried first if it is)."""
        if self._index is None:
            return False
        held = self._held()
        if not self._loaded:
            # The first listing of the bank, as an informer waits for its cache:
            # bounded, a large bank is answered by the server meanwhile.
            try:
                async with asyncio.timeout(INDEX_WAIT):
                    await held.tried.wait()
            except TimeoutError:
                return False
            if not self._loaded:
                return False  # the listing failed: the server answers, or says it cannot
        if not self._current:
            async with held.lock:
                if not self._current:
                    await self._sync(held, locked=True)
        # Still out of date when a write-behind outcome was refused during that poll:
        # the server answers this call, and the next one lists the bank again.
        return self._current

    async def _sync(self, held: _LoopClient, locked: bool = False) -> None:
        """One poll: the whole bank the first time (or on disagreement), else what changed since the last."""
        if not locked:
            async with held.lock:
                return await self._sync(held, locked=True)
        index = self._index
        if index is None:
            return
        # What was queued behind before this poll is on the server (or known lost)
        # before the poll compares the two: the listing must not undo a write in flight.
        await self._writes_settled()
        if self._operations:
            await self._check_operations()
        since = self._generation
        failures = self._failures
        if self._relist or not self._loaded or time.monotonic() - self._listed_at > FULL_LISTING_EVERY:
            await self._list_all(index, since)
            self._relist = False  # only once a listing is in: a failed one is tried again whole
        else:
            total = await self._list_changes(index, since)
            # Outcomes queued since the poll began are in the index and maybe not yet in the
            # bank: the counts are compared at a quiet poll (a write queued then is kept anyway).
            if not self._writing() and total != await index.count() + self._foreign:
                log.info(
                    f"memory index: the bank holds {total} documents, the index {await index.count()}"
                    f" (+{self._foreign} not ours): listing the bank again"
                )
                await self._list_all(index, since)
        self._loaded = True
        # A write refused while this poll listed leaves the index out of date: the next call lists again.
        self._current = self._failures == failures
        self.polls += 1

    def _written_after(self, since: int) -> set[tuple[str, str]]:
        """Keys a listing must not undo: written here after it began, or queued on the server and not yet stored."""
        return {key for key, generation in self._written.items() if generation > since} | self._pending.keys()

    async def _list_documents(self) -> tuple[list[_Listed], int]:
        """Every document of the bank that holds a memory, and how many do not (another writer's)."""
        listed: list[_Listed] = []
        foreign = 0
        offset = 0
        while True:
            try:
                page = await self._call(
                    LIST_TIMEOUT,
                    # mypy cannot type a lambda with a default; the default binds this page's offset
                    lambda c, o=offset: c.documents.list_documents(self.bank, limit=LIST_PAGE, offset=o),  # type: ignore[misc]
                )
            except NotFoundException:
                break  # no bank yet: nothing was ever remembered
            items = [self._listed(item) for item in page.items]
            listed.extend(i for i in items if i is not None)
            foreign += sum(i is None for i in items)
            offset += len(page.items)
            if not page.items or offset >= page.total:
                break
        return listed, foreign

    async def _list_all(self, index: EmbeddedMemory, since: int) -> None:
        """Make the index equal to the bank: every document read, anything the bank lacks dropped."""
        listed, foreign = await self._list_documents()
        keep = self._written_after(since)  # written here while the listing was under way: newer than it
        if self.cluster:
            # A key with both (a write here whose old document could not be deleted): the
            # old one first, so that the later, this cluster's, is what the index keeps.
            listed.sort(key=lambda i: not i.legacy)
            self._legacy = {i.key for i in listed if i.legacy}
        await index.remember_many([i.memory for i in listed if i.key not in keep])
        present = {i.key for i in listed} | keep
        stale = index.keys() - present
        if stale:
            index.forget_many(stale)
        # A document another of the same key hides (one written before identities beside this
        # cluster's, whose delete failed) is in the bank's count and not in the index.
        self._foreign = foreign + len(listed) - len({i.key for i in listed})
        self._listed_at = time.monotonic()
        self._note_newest(listed)
        self._stamps = {}
        # Not what was kept back for a write made here meanwhile: the next poll must read those again.
        self._note_stamps([i for i in listed if i.key not in keep])
        # Generations up to `since` are settled: the listing saw them.
        self._written = {k: g for k, g in self._written.items() if g > since}

    async def _list_changes(self, index: EmbeddedMemory, since: int) -> int:
        """Read the documents written since the last poll into the index; the bank's document count."""
        start = (self._newest - POLL_OVERLAP).isoformat() if self._newest else None
        changed: list[_Listed] = []
        offset = 0
        total = 0
        while True:
            try:
                page, counted = await _all_of(
                    [
                        self._call(
                            READ_TIMEOUT,
                            # mypy cannot type a lambda with a default; the default binds this page's offset
                            lambda c, o=offset: c.documents.list_documents(  # type: ignore[misc]
                                self.bank, time_field="updated_at", start_date=start, limit=LIST_PAGE, offset=o
                            ),
                        ),
                        self._call(READ_TIMEOUT, lambda c: c.documents.list_documents(self.bank, limit=1)),
                    ]
                    if offset == 0
                    else [
                        self._call(
                            READ_TIMEOUT,
                            # mypy cannot type a lambda with a default; the default binds this page's offset
                            lambda c, o=offset: c.documents.list_documents(  # type: ignore[misc]
                                self.bank, time_field="updated_at", start_date=start, limit=LIST_PAGE, offset=o
                            ),
                        ),
                        _none(),
                    ]
                )
            except NotFoundException:
                return 0
            assert page is not None  # only the count, asked for on the first page alone, may be None
            if counted is not None:
                total = counted.total
            changed.extend(
                i for i in map(self._listed, (i for i in page.items if not self._unchanged(i))) if i is not None
            )
            offset += len(page.items)
            if not page.items or offset >= page.total:
                break
        keep = self._written_after(since)
        if self.cluster:
            changed.sort(key=lambda i: not i.legacy)
            self._legacy |= {i.key for i in changed if i.legacy}
        fresh = [i.memory for i in changed if i.key not in keep]
        if fresh:
            await index.remember_many(fresh)  # an unchanged memory is left alone
        self._note_newest(changed)
        # Not what was kept back for a write made here meanwhile: the next poll must read those again.
        self._note_stamps([i for i in changed if i.key not in keep])
        self._written = {k: g for k, g in self._written.items() if g > since}
        return total

    def _unchanged(self, item: Any) -> bool:
        """Whether a listed document is one an earlier poll read at this same `updated_at` (no need to parse it)."""
        meta = item.document_metadata or {}
        namespace, incident = meta.get("namespace"), meta.get("incident")
        if not isinstance(namespace, str) or not isinstance(incident, str):
            return False
        seen = self._stamps.get((namespace, local_name(incident, _written_by(meta), self.cluster)))
        return seen is not None and seen == parse_time(item.updated_at)

    def _note_stamps(self, listed: list[_Listed]) -> None:
        """Remember when each listed document changed last, for as long as polls read it again."""
        for i in listed:
            if i.updated_at is not None:
                self._stamps[i.key] = i.updated_at
        if self._newest is not None:
            oldest = self._newest - POLL_OVERLAP
            self._stamps = {k: t for k, t in self._stamps.items() if t >= oldest}

    def _note_newest(self, listed: list[_Listed]) -> None:
        moments = [i.updated_at for i in listed if i.updated_at is not None]
        if moments:
            newest = max(moments)
            self._newest = newest if self._newest is None else max(self._newest, newest)

    # -- recall without the index: two round trips ------------------------------

    async def _recall_from_server(self, query: RecallQuery) -> list[EpisodicMemory]:
        gist = " ".join([_opening(query.text, GIST_CHARS), *query.symptoms]).strip() or query.service
        neighbours = [s for s in dict.fromkeys(query.neighbours) if s != query.service]
        scope = [] if query.namespace is None else [{"tags": [f"ns:{query.namespace}"], "match": "all_strict"}]
        max_tokens = TOKENS_PER_MEMORY * max(query.limit, MIN_ARM_MEMORIES)
        services = [query.service, *neighbours]
        try:
            answer, listing = await _all_of(
                [
                    # the incident's telling words, word for word, on any service; BM25
                    # alone (fusion ranks by rank, so an exact log line found by BM25
                    # would lose to loose matches found by both arms)
                    self._call(
                        READ_TIMEOUT,
                        lambda c: c.arecall(
                            self.bank,
                            query=" ".join(telling_words(query.text)) or gist,
                            max_tokens=max_tokens,
                            budget="low",
                            tag_groups=scope or None,
                            min_scores=WORDS_ONLY,
                        ),
                    ),
                    # the latest memories on the service and its neighbours, whatever their words
                    self._call(
                        READ_TIMEOUT,
                        lambda c: c.alist_memories(
                            self.bank,
                            tags=[f"service:{s}" for s in services],
                            tags_match="any_strict",
                            time_field="mentioned_at",
                            limit=query.limit * len(services),
                        ),
                    ),
                ]
            )
        except NotFoundException:
            return []  # no bank yet: nothing was ever remembered

        def wanted(m: EpisodicMemory | None) -> TypeGuard[EpisodicMemory]:
            return (
                m is not None
                and query.namespace in (None, m.namespace)
                and not (m.incident == query.incident and query.namespace in (None, m.namespace))
            )

        # _all_of types both answers as their common base; each is the one its call returns.
        results = cast(RecallResponse, answer).results
        by_words = [m for m in map(self._read, (r.metadata for r in results or [])) if wanted(m)]
        units = cast(ListMemoryUnitsResponse, listing).items
        latest = [m for m in map(self._read, (i.metadata for i in units)) if wanted(m)]
        latest.sort(key=lambda m: m.resolved_at.timestamp(), reverse=True)
        on_service = [m for m in latest if m.spec.service == query.service][: query.limit]
        on_neighbours = [m for m in latest if m.spec.service != query.service][: query.limit]
        # As the embedded store merges: the words every other place, the service
        # and its neighbours the places between.
        words = iter(by_words)
        return interleave(
            [words, on_service, words, on_neighbours],
            key=lambda m: (m.namespace, m.incident),
            limit=query.limit,
        )


async def _none() -> None:
    return None


def _settle(queued: list[_Queued]) -> None:
    """Wake whoever waits for these outcomes; whether they were stored is told by the backend's failure."""
    for q in queued:
        for future in q.settled:
            if not future.done():
                future.set_result(None)


def telling_words(text: str, limit: int = BM25_TERMS) -> list[str]:
    """The words of an incident most likely to pick out its precedents by keyword, at most `limit`.

    The server's BM25 keeps only the 16 terms it finds rarest in its statistics,
    and a term it has never seen counts as rarest although it matches nothing,
    so a long question often comes back empty. We choose instead: identifiers
    first (`HikariPool`, `OOMKilled`, `PSP_TIMEOUT`, `x509`), then the longest
    words; numbers and ids (four digits or more) say nothing about the next time.
    """
    ranked: dict[str, tuple[bool, int, int]] = {}
    for position, word in enumerate(_WORD.findall(text)):
        lower = word.lower()
        if (
            lower in ranked
            or len(lower) < 3
            or lower in STOPWORDS
            or lower.isdigit()
            or sum(c.isdigit() for c in lower) >= 4
        ):
            continue
        identifier = any(c.isupper() for c in word[1:]) or "_" in word or any(c.isdigit() for c in word)
        ranked[lower] = (not identifier, -len(lower), position)
    return sorted(ranked, key=ranked.__getitem__)[:limit]


def _opening(text: str, chars: int) -> str:
    """The first `chars` characters of text, cut at a word boundary."""
    if len(text) <= chars:
        return text
    cut = text.rfind(" ", 0, chars)
    return text[: cut if cut > 0 else chars]


async def _all_of(calls: Sequence[Awaitable[T]]) -> list[T]:
    """Await every call, then raise the first failure: none is left running when the client closes."""
    outcomes = await asyncio.gather(*calls, return_exceptions=True)
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
    # gather() types each outcome as a result or an exception; the loop above raised any exception.
    return outcomes  # type: ignore[return-value]
