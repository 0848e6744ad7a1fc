"""The CRDs' spec schemas and the pydantic models say the same fields.

The CRDs in crds/ are written by hand beside domain/models.py. A field only in
the CRD is accepted by the API server and then ignored by the operator (as
timeoutSeconds and the parameter defaults once were); a field only in the
model is refused by the API server as unknown (as apiAccess once was). This
walks both, at every depth, and names each field one has and the other has not.

Rules of the walk:
- a CRD object with `properties` is compared with the model at that place,
  field by field (by the model's alias, the name the resource uses);
- an array is compared through its items;
- a CRD node that declares no properties and keeps unknown fields is
  free-form (Runbook parameters: a map or a list): nothing to compare there;
- a model field marked `derived()` is the operator's own (memory keeps it):
  it must not be in the CRD, where anybody could write it.

Approval has no model: the operator reads it as a plain mapping
(domain/execution.py); the test says so, so that a model added later is
walked too.
"""

from __future__ import annotations

import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import BaseModel

from recall_operator.domain import models
from recall_operator.domain.models import DERIVED

CRDS = Path(__file__).resolve().parents[2] / "crds"

# kind -> the model of its spec (None: the kind has no model).
SPEC_MODELS: dict[str, type[BaseModel] | None] = {
    "Incident": models.IncidentSpec,
    "Runbook": models.RunbookSpec,
    "ArchitectureMigration": models.MigrationSpec,
    "Contradiction": models.ContradictionSpec,
    "Approval": None,
}


def model_in(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model an annotation holds (through Optional, tuple[...], list[...]), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = model_in(arg)
        if found is not None:
            return found
    return None


def is_derived(field: Any) -> bool:
    extra = field.json_schema_extra
    return isinstance(extra, dict) and bool(extra.get(DERIVED))


def free_form(schema: dict[str, Any]) -> bool:
    return not schema.get("properties") and bool(schema.get("x-kubernetes-preserve-unknown-fields"))


def drift(schema: dict[str, Any], model: type[BaseModel], path: str) -> Iterator[str]:
    """Every field at or under `path` that the CRD schema and the model do not both have."""
    while schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        schema, path = schema["items"], f"{path}[]"
    if free_form(schema):
        return
    crd = schema.get("properties") or {}
    fields = {(f.alias or name): f for name, f in model.model_fields.items()}
    for name in sorted(set(crd) | set(fields)):
        where = f"{path}.{name}"
        if name not in fields:
            yield f"{where} is in the CRD but not in the model {model.__name__}"
            continue
        field = fields[name]
        if name not in crd:
            if not is_derived(field):
                yield f"{where} is in the model {model.__name__} but not in the CRD"
            continue
        if is_derived(field):
            yield f"{where} is derived by the operator ({model.__name__}) but the CRD lets people write it"
            continue
        sub = model_in(field.annotation)
        node = crd[name]
        if sub is not None:
            yield from drift(node, sub, where)
        else:
            inner = node
            while inner.get("type") == "array" and isinstance(inner.get("items"), dict):
                inner = inner["items"]
            if inner.get("properties"):
                yield f"{where} has fields in the CRD, but the model {model.__name__} keeps it as {field.annotation}"


def spec_schemas() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path in sorted(CRDS.glob("*.yaml")):
        crd = yaml.safe_load(path.read_text())
        kind = crd["spec"]["names"]["kind"]
        for version in crd["spec"]["versions"]:
            yield kind, version["name"], version["schema"]["openAPIV3Schema"]["properties"]["spec"]


def test_every_kind_is_listed() -> None:
    assert {kind for kind, _, _ in spec_schemas()} == set(SPEC_MODELS)


@pytest.mark.parametrize("kind", sorted(k for k, m in SPEC_MODELS.items() if m is not None))
def test_the_crd_spec_and_the_model_have_the_same_fields(kind: str) -> None:
    model = SPEC_MODELS[kind]
    assert model is not None
    walked = [(version, schema) for k, version, schema in spec_schemas() if k == kind]
    assert walked, f"no CRD for {kind}"
    found = [f"{kind} {version}: {d}" for version, schema in walked for d in drift(schema, model, "spec")]
    assert found == [], "the CRD and the model drifted apart:\n" + "\n".join(found)


def test_approval_has_no_model_to_drift_from() -> None:
    """If an Approval model appears in domain/models.py, SPEC_MODELS must name it so that it is walked."""
    assert not [name for name in vars(models) if name.startswith("Approval")]


SCHEMA = {"type": "object", "properties": {
    "title": {"type": "string"},
    "steps": {"type": "array", "items": {"type": "object", "properties": {
        "name": {"type": "string"}, "image": {"type": "string"}, "command": {"type": "array"},
        "retries": {"type": "integer"}}}},
    "parameters": {"x-kubernetes-preserve-unknown-fields": True},
}}


def test_the_walk_names_each_drifted_field_and_where_it_is() -> None:
    class Step(models._Model):
        name: str
        image: str
        command: tuple[str, ...]
        secret_flag: bool = models.Field(default=False, alias="secretFlag")

    class Spec(models._Model):
        title: str
        steps: tuple[Step, ...]
        parameters: tuple[models.RunbookParameter, ...] = ()
        note: str = ""
        cached: str = models.derived(default="")

    found = list(drift(SCHEMA, Spec, "spec"))
    assert found == [
        "spec.note is in the model Spec but not in the CRD",
        "spec.steps[].retries is in the CRD but not in the model Step",
        "spec.steps[].secretFlag is in the model Step but not in the CRD",
    ]


def test_a_derived_field_in_the_crd_is_drift() -> None:
    class Spec(models._Model):
        title: str = models.derived(default="")

    assert list(drift({"properties": {"title": {"type": "string"}}}, Spec, "spec")) == [
        "spec.title is derived by the operator (Spec) but the CRD lets people write it"]


def test_a_plain_map_where_the_crd_declares_fields_is_drift() -> None:
    class Spec(models._Model):
        deployment: dict[str, str] = {}

    schema = {"properties": {"deployment": {"type": "object", "properties": {"id": {"type": "string"}}}}}
    (only,) = drift(schema, Spec, "spec")
    assert only.startswith("spec.deployment has fields in the CRD")
