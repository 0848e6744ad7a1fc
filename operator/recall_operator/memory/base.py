"""The one interface every memory backend offers.

Backends store and retrieve; they do not judge. Recall returns candidates and
the domain scores them, so that the same scoring holds on every backend.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from recall_operator.domain.candidates import is_namesake
from recall_operator.domain.models import EpisodicMemory, Incident, as_read
from recall_operator.domain.similarity import Recalled
from recall_operator.domain.text import tokens
from recall_operator.domain.topology import Topology

T = TypeVar("T")


class MemoryUnavailable(Exception):
    """The backend cannot be reached; callers degrade, and writes wait in the outbox."""


class MemoryRefused(MemoryUnavailable):
    """The backend answered, and will not keep this memory as written: sending it again changes nothing.

    A MemoryUnavailable to every caller that only degrades; the outcome's writer
    says so on the Incident instead of retrying it for ever.
    """


@dataclass(frozen=True)
class RecallQuery:
    """What a new incident asks of memory."""

    incident: str  # the asking incident: never returned as its own precedent
    service: str
    text: str  # the incident's own words: title, description, error signatures
    symptoms: tuple[str, ...] = ()
    neighbours: tuple[str, ...] = ()  # services adjacent in the topology
    namespace: str | None = None  # None: every namespace
    limit: int = 50


def recall_query(incident: Incident, topology: Topology) -> RecallQuery:
    """What an incident asks of memory: its own words (as far as scoring reads them), its service and
    that service's neighbours."""
    spec = as_read(incident.spec)
    return RecallQuery(
        incident=incident.name,
        service=spec.service,
        text=" ".join([spec.title, spec.description, *spec.error_signatures]),
        symptoms=spec.symptoms,
        neighbours=tuple(sorted(topology.neighbours(spec.service))),
        namespace=incident.namespace,
    )


async def recall_precedents(memory: MemoryBackend, incident: Incident, topology: Topology) -> list[EpisodicMemory]:
    """What memory recalls for an incident, with the memory of an earlier incident of its name.

    Every backend leaves the asking incident's name out of recall, as it
    cannot be its own precedent. When that name was deleted and used again
    (another uid), the memory it holds is another incident's, often the
    closest one: it is handed over too, and the domain scores it like any other.
    """
    found = await memory.recall(recall_query(incident, topology))
    if not incident.uid:
        return found
    held = await memory.get(incident.name, incident.namespace)
    if held is None or not is_namesake(held, incident):
        return found
    kept = found.features if isinstance(found, Recalled) else [None] * len(found)
    return Recalled([*found, held], [*kept, None])


def search_terms(query: RecallQuery) -> list[str]:
    """The distinct words a query searches with: its text's tokens, then its symptoms', first seen first."""
    seen = dict.fromkeys(tokens(query.text))
    for symptom in query.symptoms:
        seen.update(dict.fromkeys(tokens(symptom)))
    return list(seen)


def interleave(arms: Sequence[Iterable[T]], key: Callable[[T], Hashable], limit: int) -> list[T]:
    """Take from each arm in turn, skipping what an earlier arm already gave, until `limit`.

    Every way of finding a precedent keeps a share of the candidates, so one arm
    that matches many memories cannot crowd out another that matches the right one.
    """
    iterators = [iter(arm) for arm in arms]
    seen: set[Hashable] = set()
    out: list[T] = []
    while iterators and len(out) < limit:
        for it in list(iterators):
            for item in it:
                k = key(item)
                if k not in seen:
                    seen.add(k)
                    out.append(item)
                    break
            else:
                iterators.remove(it)
            if len(out) >= limit:
                break
    return out


class MemoryBackend(Protocol):
    name: str

    async def remember(self, memory: EpisodicMemory) -> None:
        """Store a confirmed outcome. Idempotent: the same incident twice replaces, never duplicates."""

    async def remember_many(self, memories: Sequence[EpisodicMemory]) -> None:
        """Store each as `remember` would, in fewer round trips (a bulk load); a later duplicate wins."""

    async def recall(self, query: RecallQuery) -> list[EpisodicMemory]:
        """Candidates for the query (at most query.limit), the asking incident excluded."""

    async def get(self, incident: str, namespace: str | None = None) -> EpisodicMemory | None:
        """One incident's memory; without a namespace the newest of that name (ties: first namespace by name)."""

    async def outcomes_naming(self, namespace: str, runbook: str) -> list[EpisodicMemory]:
        """Every memory of `namespace` whose outcome names `runbook` (its runbook, or an action), in any order.

        A superset is fine: the caller asks `consolidation.runbook_outcome` how
        the runbook fared in each. Read when a Runbook object is new, to give it
        the track record memory holds (handlers.catalog).
        """

    async def count(self) -> int: ...

    def revision(self) -> object:
        """A value that changes whenever what `recall` and `get` can return may have changed; None: unknown.

        Opaque, compared only with ==: two equal revisions mean every memory is
        as it was, including memories another connection, process or operator
        wrote. The re-evaluation loop skips an open incident whose answer was
        worked out at the same revision (domain.reevaluation.must_reevaluate);
        a backend that cannot tell says None, and every answer is worked out again.
        """

    async def health(self) -> str | None:
        """None when the backend answers what the operator would ask of it; else why not. Never raises."""

    async def close(self) -> None: ...


@dataclass
class MemorySettings:
    backend: str = "embedded"  # or "hindsight"
    path: str = "recall-memory.sqlite3"  # embedded store file
    hindsight_url: str = "http://127.0.0.1:8888"
    hindsight_bank: str = "recall-operator"
    # Hindsight: recall from a local index kept in step by polling, every hindsight_poll_s seconds. Read from
    # the environment only through config.OperatorSettings (RECALL_HINDSIGHT_INDEX, RECALL_HINDSIGHT_POLL_S):
    # parsed here too, they took other words than the operator did.
    hindsight_index: bool = True
    hindsight_poll_s: float = 2.0
    # Hindsight: what an incident recalls, memories of its namespace's name or every one on the bank.
    hindsight_scope: str = "namespace"
    # Hindsight: this operator's cluster identity, in the id of every memory it writes ("": none).
    cluster: str = ""
    # Hindsight: the bank's signing keys, the current one first, comma-separated ("": memories are
    # neither signed nor checked). A key the bank used before still vouches for what it signed.
    hindsight_key: str = field(default="", repr=False)
    # Hindsight: the API key its server asks for ("": none is sent).
    hindsight_api_key: str = field(default="", repr=False)
    extra: dict[str, str] = field(default_factory=dict)

    def hindsight_keys(self) -> tuple[bytes, ...]:
        return tuple(k.strip().encode() for k in self.hindsight_key.split(",") if k.strip())
