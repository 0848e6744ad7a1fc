"""The Hindsight memory backend: a Hindsight server through `hindsight-client`, async calls only.

A memory is retained as its cold-reader text (`memory_text`), one document per
incident (`<namespace>/<incident>`: retaining it again replaces it), tagged
with its structured fields (`service:`, `runbook:`, `outcome:`, `ns:`,
`incident:`, and `action:<result>` for each result among its actions) so that
recall can filter on them, and with the whole memory as JSON in its metadata
so that recall rebuilds it exactly.

Recall asks several questions at once and merges the answers by incident:
  - the incident's telling words (error signatures, identifiers), by keyword only, on any service;
  - what reads like this on the paging service (service tag);
  - what reads like this anywhere, by meaning;
  - what reads like this on a neighbour (neighbour tags);
  - which fixes failed on this service or its neighbours (tags);
  - what was resolved most recently on this service, and on its neighbours (listings, no
    words), which carry on the service's and the neighbours' turns when nothing there reads alike.
The semantic arm drops matches below cosine 0.3, so the questions carry the
incident's own words (its opening: title and first lines) rather than a keyword.

Each call opens its own client and closes it: a client's HTTP session is bound
to the event loop it was first used in, and a call is rare next to its cost.

`remember_many` writes many memories in a few requests (a bulk load, the
bench's history): each item is exactly what `remember` sends, so a memory
written either way is the same document. The server still embeds each memory
on its own CPU; the saving is in round trips and in the server working on
several documents at once.
"""

from __future__ import annotations

import asyncio
import re
from itertools import chain
from collections.abc import AsyncIterator, Awaitable, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import aiohttp
from hindsight_client import Hindsight
from hindsight_client_api.exceptions import ApiException, NotFoundException

from recall_operator.domain.consolidation import memory_text
from recall_operator.domain.models import EpisodicMemory
from recall_operator.domain.text import STOPWORDS
from recall_operator.memory.base import MemoryUnavailable, RecallQuery, final_outcome, interleave

T = TypeVar("T")

DEFAULT_BANK = "recall-operator"
# A retain embeds the text on the server's CPU; a recall is tens of milliseconds.
WRITE_TIMEOUT = 30.0
# A bulk request: RETAIN_BATCH memories at up to a few hundred ms each on a busy 2-core server.
BULK_TIMEOUT = 300.0
RETAIN_BATCH = 100
# Two requests in flight keep the server busy while the other waits on its slowest document.
BULK_IN_FLIGHT = 2
RETAIN_CONTEXT = "a confirmed incident outcome, written for a cold reader"
READ_TIMEOUT = 10.0
HEALTH_TIMEOUT = 3.0
# Room for `limit` whole memories in one answer. A memory's text is about 250
# tokens; budgeting 1024 made every arm pull four times the memories it needs,
# and the arms queue for the server's CPU (recall at 1k memories: p50 546 ms
# with 1024, 390 ms with 320, the same replay scores on both dev histories).
TOKENS_PER_MEMORY = 320
FAILED_FIX_TAG = "action:failed"
GIST_CHARS = 240
MIN_ARM_MEMORIES = 25
# A memory's text is a few thousand characters at most: one chunk, recalled whole.
BANK_CHUNK_CHARS = 20000
# The server's BM25 uses at most this many query terms (HINDSIGHT_API_BM25_MAX_QUERY_TERMS).
BM25_TERMS = 16
_WORD = re.compile(r"[A-Za-z0-9_]+")
# No cosine reaches 1.0 between different texts: the semantic arm contributes nothing.
WORDS_ONLY = {"semantic": 1.0}


def document_id(namespace: str, incident: str) -> str:
    return f"{namespace}/{incident}"


def memory_tags(memory: EpisodicMemory) -> list[str]:
    """The structured fields recall filters on; `action:<result>` once per result among the actions."""
    res = memory.resolution
    tags = [
        f"service:{memory.spec.service}",
        f"ns:{memory.namespace}",
        f"incident:{memory.incident}",
        f"outcome:{final_outcome(res)}",
    ]
    if res.runbook:
        tags.append(f"runbook:{res.runbook}")
    tags.extend(f"action:{result}" for result in dict.fromkeys(a.result for a in res.actions))
    return tags


def memory_metadata(memory: EpisodicMemory) -> dict[str, str]:
    """Metadata values must be strings: the memory itself travels as JSON."""
    return {
        "memory": memory.model_dump_json(by_alias=True),
        "namespace": memory.namespace,
        "incident": memory.incident,
        "service": memory.spec.service,
        "runbook": memory.resolution.runbook or "",
        "outcome": final_outcome(memory.resolution),
        "resolved_at": memory.resolved_at.isoformat(),
    }


def retain_item(memory: EpisodicMemory) -> dict[str, Any]:
    """What is retained for one memory, by `remember` and `remember_many` alike."""
    return {
        "content": memory_text(memory),
        "document_id": document_id(memory.namespace, memory.incident),
        "tags": memory_tags(memory),
        "metadata": memory_metadata(memory),
        "timestamp": memory.resolved_at,
        "context": RETAIN_CONTEXT,
    }


def _from_metadata(metadata: dict[str, Any] | None) -> EpisodicMemory | None:
    """The memory a unit carries; None for anything in the bank that this operator did not write."""
    raw = (metadata or {}).get("memory")
    if not isinstance(raw, str):
        return None
    try:
        return EpisodicMemory.model_validate_json(raw)
    except ValueError:
        return None


def _any_of(tags: Sequence[str]) -> dict[str, Any]:
    return {"tags": list(tags), "match": "any_strict"}


class HindsightMemory:
    """Memory on a Hindsight server; connection failures raise MemoryUnavailable."""

    name = "hindsight"

    def __init__(self, base_url: str, bank: str = DEFAULT_BANK) -> None:
        self.base_url = base_url.rstrip("/")
        self.bank = bank
        self._bank_ready = False

    @asynccontextmanager
    async def _client(self, timeout: float) -> AsyncIterator[Hindsight]:
        client = Hindsight(self.base_url, timeout=timeout, user_agent="recall-operator", max_attempts=2)
        try:
            yield client
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as exc:
            raise MemoryUnavailable(f"hindsight at {self.base_url}: {type(exc).__name__}: {exc}") from exc
        except ApiException as exc:
            # A server that is up but cannot serve (5xx, at capacity) is as
            # unavailable as one that is down; any other refusal is a bug here.
            if exc.status is None or exc.status >= 500 or exc.status in (408, 429):
                raise MemoryUnavailable(f"hindsight at {self.base_url}: HTTP {exc.status} {exc.reason}") from exc
            raise
        finally:
            await client.aclose()

    # -- the interface -------------------------------------------------------

    async def remember(self, memory: EpisodicMemory) -> None:
        async with self._client(WRITE_TIMEOUT) as client:
            await self._prepare_bank(client)
            await client.aretain_batch(self.bank, items=[retain_item(memory)])

    async def remember_many(self, memories: Sequence[EpisodicMemory]) -> None:
        """Each memory as `remember` stores it, in requests of RETAIN_BATCH, BULK_IN_FLIGHT at a time.

        The same incident twice keeps the later one, as two `remember` calls
        would: the server would otherwise fold both into one document. On a
        failure some requests may have been stored; writing again is safe.
        """
        latest = {(m.namespace, m.incident): m for m in memories}
        items = [retain_item(m) for m in latest.values()]
        if not items:
            return
        batches = [items[i : i + RETAIN_BATCH] for i in range(0, len(items), RETAIN_BATCH)]
        slots = asyncio.Semaphore(BULK_IN_FLIGHT)
        async with self._client(BULK_TIMEOUT) as client:
            await self._prepare_bank(client)

            async def send(batch: list[dict[str, Any]]) -> None:
                async with slots:
                    await client.aretain_batch(self.bank, items=batch)

            await _all_of([send(batch) for batch in batches])

    async def _prepare_bank(self, client: Hindsight) -> None:
        """Create or update the bank once per backend object, with the retrieval this backend relies on.

        Without an LLM there are no entities, so the graph arm follows only
        similarity links, and the temporal arm reads clock times in incident
        text as dates: both add noise to what the operator scores. One memory
        is one chunk, so that a memory is recalled whole.
        """
        if self._bank_ready:
            return
        await client.acreate_bank(
            self.bank,
            name="recall-operator incident memory",
            retain_chunk_size=BANK_CHUNK_CHARS,
            enable_graph_retrieval=False,
            enable_temporal_retrieval=False,
            enable_observations=False,
        )
        self._bank_ready = True

    async def recall(self, query: RecallQuery) -> list[EpisodicMemory]:
        if query.limit <= 0:
            return []
        # The server embeds every question, and embedding costs by the word piece:
        # the semantic arms ask with the gist (the title comes first).
        gist = " ".join([_opening(query.text, GIST_CHARS), *query.symptoms]).strip() or query.service
        neighbours = [s for s in dict.fromkeys(query.neighbours) if s != query.service]
        nearby = [f"service:{s}" for s in (query.service, *neighbours)]
        scope = [] if query.namespace is None else [{"tags": [f"ns:{query.namespace}"], "match": "all_strict"}]
        # Each arm brings more than its share: the merge skips what another arm already gave.
        max_tokens = TOKENS_PER_MEMORY * max(query.limit, MIN_ARM_MEMORIES)

        async with self._client(READ_TIMEOUT) as client:
            await self._prepare_bank(client)

            async def ask(text: str, groups: list[dict[str, Any]], words_only: bool = False) -> list[EpisodicMemory]:
                answer = await client.arecall(
                    self.bank,
                    query=text,
                    max_tokens=max_tokens,
                    tag_groups=(scope + groups) or None,
                    # Fusion ranks by rank, so an exact log line found by BM25 alone
                    # loses to loose matches found by both arms: this arm is BM25 only.
                    min_scores=WORDS_ONLY if words_only else None,
                )
                return [m for m in map(_from_metadata, (r.metadata for r in answer.results or [])) if m]

            arms: list[Awaitable[list[EpisodicMemory]]] = [
                # the error signatures and deploy pattern, word for word, on any service
                ask(" ".join(telling_words(query.text)) or gist, [], words_only=True),
                # what happened on this service that reads like this
                ask(f"{query.service}: {gist}", [_any_of([f"service:{query.service}"])]),
                # what reads like this anywhere
                ask(gist, []),
                # what reads like this on a neighbour
                ask(gist, [_any_of([f"service:{s}" for s in neighbours])]) if neighbours else _nothing(),
                # which fixes failed here or next door
                ask(f"failed fix on {query.service}: {gist}", [_any_of(nearby), _any_of([FAILED_FIX_TAG])]),
                # the latest memories here, and next door, whatever their words
                self._recent(client, [query.service], query.namespace, query.limit),
                self._recent(client, neighbours, query.namespace, query.limit) if neighbours else _nothing(),
            ]
            try:
                answers = await _all_of(arms)
            except NotFoundException:
                return []  # no bank yet: nothing was ever remembered

        def asker(m: EpisodicMemory) -> bool:
            return m.incident == query.incident and query.namespace in (None, m.namespace)

        words, service, meaning, neighbour, failed, recent, recent_next_door = (
            [m for m in answer if not asker(m)] for answer in answers
        )
        by_words, by_meaning = iter(words), iter(meaning)
        # The two arms that search every service take a second turn each round:
        # the words are the stronger evidence. A service's turn goes on to its
        # latest memories when nothing there reads alike, so the paging service
        # and its neighbours are always represented.
        return interleave(
            [
                by_words,
                chain(service, recent),
                by_meaning,
                chain(neighbour, recent_next_door),
                by_words,
                by_meaning,
                failed,
            ],
            key=lambda m: (m.namespace, m.incident),
            limit=query.limit,
        )

    async def _recent(
        self, client: Hindsight, services: list[str], namespace: str | None, limit: int
    ) -> list[EpisodicMemory]:
        """The most recently resolved memories on these services, newest first, whatever their words."""
        if namespace is None:
            listings = [([f"service:{s}" for s in services], "any_strict")]
        else:  # (ns AND service) for each service: a listing takes one flat tag set
            listings = [([f"service:{s}", f"ns:{namespace}"], "all_strict") for s in services]
        pages = await _all_of(
            [
                client.alist_memories(self.bank, tags=tags, tags_match=match, time_field="mentioned_at", limit=limit)
                for tags, match in listings
            ]
        )
        found = [m for page in pages for m in map(_from_metadata, (i.metadata for i in page.items)) if m]
        found.sort(key=lambda m: m.resolved_at.timestamp(), reverse=True)
        return found

    async def get(self, incident: str, namespace: str | None = None) -> EpisodicMemory | None:
        async with self._client(READ_TIMEOUT) as client:
            try:
                if namespace is not None:
                    doc = await client.documents.get_document(self.bank, document_id(namespace, incident))
                    return _from_metadata(doc.document_metadata)
                page = await client.alist_memories(
                    self.bank, tags=[f"incident:{incident}"], tags_match="any_strict", time_field="mentioned_at"
                )
            except NotFoundException:
                return None
        found = [m for m in map(_from_metadata, (i.metadata for i in page.items)) if m and m.incident == incident]
        return min(found, key=lambda m: (-m.resolved_at.timestamp(), m.namespace), default=None)

    async def count(self) -> int:
        async with self._client(READ_TIMEOUT) as client:
            try:
                listing = await client.documents.list_documents(self.bank, limit=1)
            except NotFoundException:
                return 0
        return listing.total

    async def healthy(self) -> bool:
        try:
            async with self._client(HEALTH_TIMEOUT) as client:
                await client.monitoring.health_endpoint_health_get(_request_timeout=HEALTH_TIMEOUT)
        except Exception:  # noqa: BLE001 - healthy() answers, it never raises
            return False
        return True

    async def close(self) -> None:
        """Nothing is held between calls: each call closes its own client."""


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


async def _nothing() -> list[EpisodicMemory]:
    return []


async def _all_of(calls: Sequence[Awaitable[T]]) -> list[T]:
    """Await every call, then raise the first failure: none is left running when the client closes."""
    outcomes = await asyncio.gather(*calls, return_exceptions=True)
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
    return outcomes  # type: ignore[return-value]
