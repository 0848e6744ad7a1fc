"""Incident DNA: eight dimensions, each 0..1, each with the reason it has its value.

DNA is a coarse fingerprint of an incident's shape, independent of its words:
two incidents can read differently and still share a shape. It feeds the
smallest term of similarity and is shown to people in status.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from recall_operator.domain.models import IncidentSpec, as_read
from recall_operator.domain.text import tokens
from recall_operator.domain.topology import Topology

DIMENSIONS = (
    "symptoms",
    "errorSeverity",
    "serviceDepth",
    "deployProximity",
    "blastRadius",
    "configurationDrift",
    "networkPressure",
    "resolutionComplexity",
)

_SEVERITY = {"critical": 1.0, "high": 0.75, "medium": 0.5, "low": 0.25}
# Words that say a change of configuration or version is in play.
_DRIFT_WORDS = frozenset(
    "config configuration configmap flag setting settings policy version upgrade upgraded "
    "migration migrated schema release rollout changed change template rotation rotated".split()
)
# Words that say the network or a dependency is under pressure.
_NETWORK_WORDS = frozenset(
    "timeout timeouts timed latency connection connections refused reset dns 5xx 502 503 504 "
    "429 throttling throttled rate-limit upstream retries retry saturation queue backlog".split()
)
# Half-life of deploy proximity: a deploy two hours old is half as suspicious as one just made.
DEPLOY_HALF_LIFE_MINUTES = 120.0


@dataclass(frozen=True)
class Dimension:
    name: str
    value: float
    reason: str


def incident_dna(spec: IncidentSpec, topology: Topology) -> list[Dimension]:
    spec = as_read(spec)  # the words scoring reads (models.as_read), so the DNA shown is the one compared
    words = tokens(f"{spec.title} {spec.description} {' '.join(spec.error_signatures)} {' '.join(spec.symptoms)}")
    n_services = max(len(topology.depends_on), 1)
    depth = topology.depth(spec.service)
    upstream = _transitive_callers(topology, spec.service)
    drift = _drift_words(words)
    pressure = _pressure_words(words)
    deploy = spec.deployment
    minutes = deploy.minutes_since_deploy if deploy else None
    actions = len(spec.resolution.actions) if spec.resolution else None
    own = _own_values(spec, words)
    service_depth, blast = placement_values(spec.service, topology)

    return [
        Dimension("symptoms", own[0], f"{len(spec.symptoms)} symptom tags (5 or more is 1.0)"),
        Dimension("errorSeverity", own[1], f"severity {spec.severity}"),
        Dimension(
            "serviceDepth",
            service_depth,
            f"{spec.service} has {depth} levels of dependencies below it"
            if spec.service in topology.depends_on
            else f"{spec.service} is not in the topology",
        ),
        Dimension(
            "deployProximity",
            own[2],
            "no recent deploy recorded" if minutes is None else f"last deploy {minutes:g} minutes before the page",
        ),
        Dimension(
            "blastRadius",
            blast,
            f"{len(upstream)} of {n_services} services depend on {spec.service}",
        ),
        Dimension(
            "configurationDrift",
            own[3],
            f"change words: {', '.join(drift)}" if drift else "no change words in the incident text",
        ),
        Dimension(
            "networkPressure",
            own[4],
            f"pressure words: {', '.join(pressure)}" if pressure else "no pressure words in the incident text",
        ),
        Dimension(
            "resolutionComplexity",
            0.5 if actions is None else min(actions / 4, 1.0),
            "not yet resolved: assumed middling" if actions is None else f"{actions} actions to resolve",
        ),
    ]


def dna_similarity(a: list[Dimension], b: list[Dimension]) -> float:
    """1 - mean absolute difference over the dimensions known before resolution."""
    pairs = [(x.value, y.value) for x, y in zip(a, b) if x.name != "resolutionComplexity"]
    return 1 - sum(abs(x - y) for x, y in pairs) / len(pairs)


# -- the same values without their reasons, for scoring many memories -----------
#
# A memory's own dimensions (symptoms, errorSeverity, deployProximity,
# configurationDrift, networkPressure) never change once it is written; the two
# that depend on where its service sits in the topology (serviceDepth,
# blastRadius) change with the topology, so they are looked up per query and
# per service. `values_similarity` adds the differences in DIMENSIONS order, as
# `dna_similarity` does, so the two give the same float.


def own_values(spec: IncidentSpec) -> tuple[float, float, float, float, float]:
    """symptoms, errorSeverity, deployProximity, configurationDrift, networkPressure: the spec's alone."""
    return _own_values(
        spec, tokens(f"{spec.title} {spec.description} {' '.join(spec.error_signatures)} {' '.join(spec.symptoms)}")
    )


def placement_values(service: str, topology: Topology) -> tuple[float, float]:
    """serviceDepth and blastRadius: where the service sits in this topology."""
    n_services = max(len(topology.depends_on), 1)
    max_depth = topology.max_depth or 1
    depth = topology.depth(service)
    upstream = _transitive_callers(topology, service)
    return (1 - depth / max_depth if service in topology.depends_on else 0.5, round(len(upstream) / n_services, 3))


def values_similarity(
    own_a: tuple[float, ...], place_a: tuple[float, float], own_b: tuple[float, ...], place_b: tuple[float, float]
) -> float:
    """`dna_similarity` of two incidents given their own and placement values.

    Written out in DIMENSIONS order (it runs once per candidate): the same
    float as summing the differences over a list of pairs.
    """
    total = (abs(own_a[0] - own_b[0]) + abs(own_a[1] - own_b[1]) + abs(place_a[0] - place_b[0])
             + abs(own_a[2] - own_b[2]) + abs(place_a[1] - place_b[1]) + abs(own_a[3] - own_b[3])
             + abs(own_a[4] - own_b[4]))
    return 1 - total / 7


def _drift_words(words: list[str]) -> list[str]:
    return sorted({w for w in words if w in _DRIFT_WORDS})


def _pressure_words(words: list[str]) -> list[str]:
    return sorted({w for w in words if w in _NETWORK_WORDS})


def _own_values(spec: IncidentSpec, words: list[str]) -> tuple[float, float, float, float, float]:
    deploy = spec.deployment
    minutes = deploy.minutes_since_deploy if deploy else None
    return (
        min(len(spec.symptoms) / 5, 1.0),
        _SEVERITY[spec.severity],
        0.0 if minutes is None else round(math.pow(0.5, minutes / DEPLOY_HALF_LIFE_MINUTES), 3),
        min(len(_drift_words(words)) / 3, 1.0),
        min(len(_pressure_words(words)) / 3, 1.0),
    )


def _transitive_callers(topology: Topology, service: str) -> set[str]:
    seen: set[str] = set()
    frontier = [service]
    while frontier:
        for caller in topology.callers(frontier.pop()):
            if caller not in seen and caller != service:
                seen.add(caller)
                frontier.append(caller)
    return seen
