"""Who calls whom: the service graph from the topology ConfigMap."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
import functools
from dataclasses import dataclass, field
from typing import Literal

import yaml

Relation = Literal["exact", "adjacent", "unrelated"]


MAX_SERVICES = 2_000


class TopologyError(ValueError):
    """The topology text is not a map of service -> {dependsOn: [...]}."""


@dataclass(frozen=True)
class IgnoredTopology:
    """A topology ConfigMap that does not parse: its services' neighbours are unknown until it is fixed.

    Kept (not dropped) so that every answer in its namespace can say why it
    reads no neighbours from it: a typo in the graph silently turns every
    caller into an unrelated service and moves every match.
    """

    configmap: str
    why: str

    @property
    def warning(self) -> str:
        return f"topology ConfigMap {self.configmap} is ignored ({self.why}): its services' neighbours are unknown"


@dataclass(frozen=True)
class Topology:
    depends_on: Mapping[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str) -> Topology:
        try:
            raw = yaml.safe_load(text) or {}
        except yaml.YAMLError as exc:
            raise TopologyError(f"topology is not valid YAML: {exc}") from exc
        except RecursionError as exc:  # PyYAML composes nested nodes by recursion: `[[[[...` past its limit
            raise TopologyError("topology is nested too deeply to map services to what they call") from exc
        if not isinstance(raw, dict):
            raise TopologyError("topology must map each service to {dependsOn: [...]}")
        graph: dict[str, frozenset[str]] = {}
        for service, entry in raw.items():
            # `orders-db:` alone (no body) is a leaf, as is `{dependsOn: []}`.
            deps = (entry or {}).get("dependsOn") if isinstance(entry, dict | None) else False
            if deps is None:  # `dependsOn:` with nothing after it (YAML null) calls nothing too
                deps = []
            if not isinstance(deps, list) or not all(isinstance(d, str) for d in deps):
                raise TopologyError(f"topology entry {service!r}: dependsOn must be a list of service names")
            graph[str(service)] = frozenset(deps)
        topology = cls(graph)
        if len(topology.services) > MAX_SERVICES:
            # Depths are worked out for every answer: a graph this large is a mistake, not a platform.
            raise TopologyError(f"topology names {len(topology.services)} services, more than {MAX_SERVICES}")
        return topology

    def neighbours(self, service: str) -> frozenset[str]:
        """Services adjacent to `service`: the ones it calls and the ones that call it."""
        return self._adjacent.get(service, frozenset())

    @functools.cached_property
    def _adjacent(self) -> dict[str, frozenset[str]]:
        """Every named service's neighbours, worked out once: scoring asks for them per candidate."""
        adjacent: dict[str, set[str]] = {}
        for service, deps in self.depends_on.items():
            adjacent.setdefault(service, set()).update(deps)
            for dep in deps:
                adjacent.setdefault(dep, set()).add(service)
        return {service: frozenset(near - {service}) for service, near in adjacent.items()}

    @functools.cached_property
    def services(self) -> frozenset[str]:
        """Every service the graph names, as a caller or as a callee."""
        return frozenset(self.depends_on).union(*self.depends_on.values())

    def relation(self, a: str, b: str) -> Relation:
        if a == b:
            return "exact"
        if b in self.neighbours(a):
            return "adjacent"
        return "unrelated"

    @functools.cached_property
    def max_depth(self) -> int:
        """The deepest chain in the whole topology (computed once per topology)."""
        return max(self._depths.values(), default=0)

    def depth(self, service: str) -> int:
        """The longest chain of callees below a service (0 for a leaf such as a database, or one not named).

        A cycle in the topology is cut where it closes, so a typo there cannot hang the operator.
        """
        return self._depths.get(service, 0)

    @functools.cached_property
    def _depths(self) -> dict[str, int]:
        """Every named service's depth, from one walk that visits each service once.

        A walk from each service in turn was quadratic: 2,000 services with ten
        callees each took 15 s of the event loop. The walks start in name order,
        so where a cycle is cut (and with it a cyclic graph's depths) depends on
        the graph alone, never on which service was asked about first.
        """
        done: dict[str, int] = {}
        for service in sorted(self.depends_on):
            if service not in done:
                _longest_chains(self.depends_on, service, done)
        return done

    def within_reach(self, service: str) -> frozenset[str]:
        """Where a failure that pages `service` can be: the service, what it calls however far down, and its callers.

        A failure travels from callee to caller, so everything below the
        service can be the broken part; a caller can be too (it floods the
        service, or the service pages for its caller's requests).
        """
        seen = {service}
        todo = [service]
        while todo:
            for dep in self.depends_on.get(todo.pop(), ()):
                if dep not in seen:
                    seen.add(dep)
                    todo.append(dep)
        return frozenset(seen | self.callers(service))

    def callers(self, service: str) -> frozenset[str]:
        return self._callers.get(service, frozenset())

    @functools.cached_property
    def _callers(self) -> dict[str, frozenset[str]]:
        """Who calls each service, worked out once (the reverse of `depends_on`)."""
        callers: dict[str, set[str]] = {}
        for service, deps in self.depends_on.items():
            for dep in deps:
                callers.setdefault(dep, set()).add(service)
        return {service: frozenset(c) for service, c in callers.items()}


def _longest_chains(depends_on: Mapping[str, frozenset[str]], start: str, done: dict[str, int]) -> None:
    """Into `done`, the longest chain of callees below `start` and below every service it reaches
    that `done` does not hold yet, each cycle cut where it closes.

    Walked with a stack of its own, not by recursion: a topology is anyone's
    ConfigMap, and a chain of a thousand services exceeded Python's recursion
    limit and stopped every answer of its namespace.
    """
    on_path = {start}
    best = {start: 0}
    stack = [(start, iter(sorted(depends_on.get(start, frozenset()))))]
    while stack:
        service, deps = stack[-1]
        for dep in deps:
            if dep in on_path:
                continue
            if dep in done:
                best[service] = max(best[service], 1 + done[dep])
                continue
            on_path.add(dep)
            best[dep] = 0
            stack.append((dep, iter(sorted(depends_on.get(dep, frozenset())))))
            break
        else:
            stack.pop()
            on_path.discard(service)
            done[service] = best[service]
            if stack:
                caller = stack[-1][0]
                best[caller] = max(best[caller], 1 + done[service])


def merge_topologies(topologies: Iterable[Topology | IgnoredTopology]) -> Topology:
    """Several topology ConfigMaps in one namespace add up (each team may own its part)."""
    graph: dict[str, frozenset[str]] = {}
    for t in topologies:
        if isinstance(t, IgnoredTopology):
            continue
        for service, deps in t.depends_on.items():
            graph[service] = graph.get(service, frozenset()) | deps
    return Topology(graph)


def filled_in(declared: Topology, seen_together: Iterable[Iterable[str]]) -> Topology:
    """The declared graph, with each service it does not name joined to the services it was seen with.

    A team starts without a topology ConfigMap, or adds a service before its
    entry: `neighbours` would say that service has none, so a precedent next
    door counts as unrelated and a runbook for the service behind it fits
    nowhere. What else says two services are related is each group in
    `seen_together`: the services one Runbook acts on, or a service and those
    its incident's report or confirmed outcome names. Only a service the
    declared graph does not name gets such neighbours: where a team wrote the
    graph, its edges are the answer (joining named services too cost the
    development histories precedent@1 and runbook@1).
    """
    named = declared.services
    graph = {service: set(deps) for service, deps in declared.depends_on.items()}
    joined = False
    for group in seen_together:
        members = set(group)
        for service in members - named:
            for other in members - {service}:
                graph.setdefault(service, set()).add(other)
                joined = True
    return Topology({service: frozenset(deps) for service, deps in graph.items()}) if joined else declared
