"""Who calls whom: the service graph from the topology ConfigMap."""

from __future__ import annotations

from collections.abc import Mapping
import functools
from dataclasses import dataclass, field
from typing import Literal

import yaml

Relation = Literal["exact", "adjacent", "unrelated"]


class TopologyError(ValueError):
    """The topology text is not a map of service -> {dependsOn: [...]}."""


@dataclass(frozen=True)
class Topology:
    depends_on: Mapping[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str) -> Topology:
        try:
            raw = yaml.safe_load(text) or {}
        except yaml.YAMLError as exc:
            raise TopologyError(f"topology is not valid YAML: {exc}") from exc
        if not isinstance(raw, dict):
            raise TopologyError("topology must map each service to {dependsOn: [...]}")
        graph: dict[str, frozenset[str]] = {}
        for service, entry in raw.items():
            # `orders-db:` alone (no body) is a leaf, as is `{dependsOn: []}`.
            deps = (entry or {}).get("dependsOn", []) if isinstance(entry, dict | None) else None
            if not isinstance(deps, list) or not all(isinstance(d, str) for d in deps):
                raise TopologyError(f"topology entry {service!r}: dependsOn must be a list of service names")
            graph[str(service)] = frozenset(deps)
        return cls(graph)

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

    def relation(self, a: str, b: str) -> Relation:
        if a == b:
            return "exact"
        if b in self.neighbours(a):
            return "adjacent"
        return "unrelated"

    @functools.cached_property
    def max_depth(self) -> int:
        """The deepest chain in the whole topology (computed once per topology)."""
        return max((self.depth(s) for s in self.depends_on), default=0)

    def depth(self, service: str) -> int:
        """The longest chain of callees below a service (0 for a leaf such as a database).

        A cycle in the topology is cut where it closes, so a typo there cannot hang the operator.
        """
        if service not in self._depths:
            self._depths[service] = _longest_chain(self.depends_on, service, frozenset({service}), {})
        return self._depths[service]

    @functools.cached_property
    def _depths(self) -> dict[str, int]:
        # Filled as services are asked about: scoring asks once per candidate's service.
        return {}

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


def _longest_chain(depends_on: Mapping[str, frozenset[str]], service: str, path: frozenset[str],
                   memo: dict[str, int]) -> int:
    # A function of the module, not a closure: a closure that calls itself is a
    # reference cycle, and every answer's Topology would wait for the garbage
    # collector instead of being freed when the answer is done.
    if service in memo:
        return memo[service]
    deps = [d for d in depends_on.get(service, frozenset()) if d not in path]
    memo[service] = max((1 + _longest_chain(depends_on, d, path | {d}, memo) for d in sorted(deps)), default=0)
    return memo[service]
