"""Every spec and status field of every CRD says what it is, so `kubectl explain` never shows `<empty>`.

The walk covers each property under spec and status (the roots too), at any
depth; array items and map values take their description from the field that
holds them, as `kubectl explain` shows them. An Incident's status root is a
real schema, not an open object, so that explain lists its fields.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

CRD_DIR = Path(__file__).resolve().parents[2] / "crds"
FILES = sorted(CRD_DIR.glob("*.yaml"))


def undescribed(schema: dict[str, Any], path: str, needs: bool = True) -> Iterator[str]:
    if needs and not str(schema.get("description") or "").strip():
        yield path
    for name, sub in (schema.get("properties") or {}).items():
        yield from undescribed(sub, f"{path}.{name}")
    if isinstance(schema.get("items"), dict):
        yield from undescribed(schema["items"], f"{path}[]", needs=False)
    if isinstance(schema.get("additionalProperties"), dict):
        yield from undescribed(schema["additionalProperties"], f"{path}{{}}", needs=False)


def versions(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    crd = yaml.safe_load(path.read_text())
    for v in crd["spec"]["versions"]:
        yield f"{crd['spec']['names']['kind']} {v['name']}", v["schema"]["openAPIV3Schema"]


def test_there_are_crds_to_walk() -> None:
    assert len(FILES) == 5


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_spec_and_status_field_has_a_description(path: Path) -> None:
    for kind, schema in versions(path):
        missing = [p for root in ("spec", "status") if root in schema["properties"]
                   for p in undescribed(schema["properties"][root], root)]
        assert missing == [], f"{kind}: fields without a description: {missing}"


def test_the_walk_finds_a_missing_description() -> None:
    schema = {"description": "root", "properties": {
        "a": {"description": "described", "properties": {"b": {"type": "string"}}},
        "c": {"type": "array", "description": "list", "items": {"properties": {"d": {"type": "string"}}}},
    }}
    assert list(undescribed(schema, "status")) == ["status.a.b", "status.c[].d"]


def test_incident_status_root_is_a_real_schema() -> None:
    [(_, schema)] = list(versions(CRD_DIR / "incidents.yaml"))
    status = schema["properties"]["status"]
    assert not status.get("x-kubernetes-preserve-unknown-fields"), "status is an open object: explain lists nothing"
    # Every key the operator writes at the status root is declared (an undeclared one would be pruned).
    assert {"observedGeneration", "conditions", "dna", "matches", "recommendation", "dryRun", "execution",
            "memory"} <= set(status["properties"])
