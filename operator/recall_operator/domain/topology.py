"""Who calls whom: the service graph from the topology ConfigMap."""

from __future__ import annotations

from collections.abc import Mapping
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
            deps = (entry or {}).get("dependsOn", []) if isinstance(entry, dict) else None
            if not isinstance(deps, list) or not all(isinstance(d, str) for d in deps):
                raise TopologyError(f"topology entry {service!r}: dependsOn must be a list of service names")
            graph[str(service)] = frozenset(deps)
        return cls(graph)

    def neighbours(self, service: str) -> frozenset[str]:
        """Services adjacent to `service`: the ones it calls and the ones that call it."""
        callers = {s for s, deps in self.depends_on.items() if service in deps}
        return frozenset(self.depends_on.get(service, frozenset()) | callers) - {service}

    def relation(self, a: str, b: str) -> Relation:
        if a == b:
            return "exact"
        if b in self.neighbours(a):
            return "adjacent"
        return "unrelated"

    def depth(self, service: str) -> int:
        """How many hops of callees lie below a service (0 for a leaf such as a database)."""
        seen: set[str] = set()

        def walk(s: str) -> int:
            if s in seen:
                return 0
            seen.add(s)
            deps = self.depends_on.get(s, frozenset())
            return 1 + max((walk(d) for d in deps), default=-1)

        return max(walk(service), 0)

    def callers(self, service: str) -> frozenset[str]:
        return frozenset(s for s, deps in self.depends_on.items() if service in deps)
