"""The CRD files, checked without a cluster.

Each file must be a structural, apiextensions.k8s.io/v1 CRD in group
recall.dev with the agreed names, printer columns and status subresource, and
every object in the dev replay histories must validate against its schema.

The schemas are checked with `jsonschema` after a faithful translation of the
OpenAPI subset Kubernetes uses (nullable, int-or-string, preserve-unknown-fields).
Unknown fields are treated as errors, as `kubectl apply` (strict field
validation) does, so a dataset field the schema does not declare fails here.
The CEL rules cannot run without an API server; each has a Python mirror below,
checked against the same objects, and a test keeps the mirrors complete. The
real rules run in tests/integration/test_crds.py.
"""

from __future__ import annotations

import copy
import json
import re
import unicodedata
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from support import HISTORIES, history

ROOT = Path(__file__).resolve().parents[2]
CRD_DIR = ROOT / "crds"

GROUP = "recall.dev"
VERSION = "v1alpha1"

EXPECTED: dict[str, dict[str, Any]] = {
    "Incident": {
        "file": "incidents.yaml",
        "plural": "incidents",
        "short": ["inc"],
        "columns": {
            "Phase": ".status.phase",
            "Service": ".spec.service",
            "Severity": ".spec.severity",
            "Mode": ".status.recommendation.mode",
            "Similarity": ".status.recommendation.similarity",
            "Actionability": ".status.recommendation.actionability",
            "Runbook": ".status.recommendation.runbook",
            "Ready": '.status.conditions[?(@.type=="Ready")].status',
            "Age": ".metadata.creationTimestamp",
        },
    },
    "Runbook": {
        "file": "runbooks.yaml",
        "plural": "runbooks",
        "short": ["rb"],
        "columns": {
            "Services": ".status.servicesText",
            "Win Rate": ".status.winRate",
            "Executed": ".status.timesExecuted",
            "Accepted": '.status.conditions[?(@.type=="Accepted")].status',
            "Age": ".metadata.creationTimestamp",
        },
    },
    "ArchitectureMigration": {
        "file": "architecturemigrations.yaml",
        "plural": "architecturemigrations",
        "short": ["migration", "am"],
        "columns": {
            "Target": ".spec.targetService",
            "Date": ".spec.migrationDate",
            "Deduction": ".spec.confidenceDeduction",
            "Accepted": '.status.conditions[?(@.type=="Accepted")].status',
        },
    },
    "Contradiction": {
        "file": "contradictions.yaml",
        "plural": "contradictions",
        "short": ["contra"],
        "columns": {
            "Topic": ".spec.topic",
            "State": ".spec.resolution.state",
            "Accepted": '.status.conditions[?(@.type=="Accepted")].status',
        },
    },
    "Approval": {
        "file": "approvals.yaml",
        "plural": "approvals",
        "short": ["appr"],
        "columns": {
            "Incident": ".spec.incident",
            "Decision": ".spec.decision",
            "Approver": ".spec.approver",
            "State": ".status.state",
            "Age": ".metadata.creationTimestamp",
        },
    },
}

# Status fields the operator and the printer columns rely on, per kind.
STATUS_FIELDS: dict[str, list[str]] = {
    "Incident": [
        "conditions",
        "dna",
        "matches",
        "recommendation.mode",
        "recommendation.similarity",
        "recommendation.actionability",
        "recommendation.runbook",
        "recommendation.source",
        "recommendation.planHash",
        "recommendation.steps",
        "recommendation.warnings",
        "recommendation.evidence",
        "dryRun",
        "execution",
        "memory",
        "observedGeneration",
    ],
    "Runbook": ["timesExecuted", "timesSucceeded", "winRate", "lastOutcome"],
    "ArchitectureMigration": ["staleRunbooks", "staleMemories"],
    "Contradiction": ["state"],
    "Approval": ["state", "reason"],
}

# Status objects whose shape will keep evolving: they must keep unknown fields.
OPEN_STATUS_OBJECTS: dict[str, list[str]] = {
    # The Incident's status root is a real schema (kubectl explain lists it); its records stay open.
    "Incident": ["dna", "matches[]", "recommendation", "dryRun", "execution", "memory"],
    "Runbook": [""],
    "ArchitectureMigration": [""],
    "Contradiction": [""],
    "Approval": [""],
}


# --------------------------------------------------------------------------- loading


def _load_crds() -> dict[str, dict[str, Any]]:
    crds: dict[str, dict[str, Any]] = {}
    for path in sorted(CRD_DIR.glob("*.yaml")):
        docs = [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
        assert len(docs) == 1, f"{path.name}: expected one document, found {len(docs)}"
        crd = docs[0]
        crd["__file__"] = path.name
        crds[crd["spec"]["names"]["kind"]] = crd
    return crds


CRDS = _load_crds()


def _schema(kind: str) -> dict[str, Any]:
    (version,) = CRDS[kind]["spec"]["versions"]
    return version["schema"]["openAPIV3Schema"]


def _history_events(name: str) -> list[dict[str, Any]]:
    path = history(name)
    events = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            events.append(json.loads(line))
    return events


def dataset_objects(name: str) -> list[tuple[str, dict[str, Any]]]:
    """(label, object) for every object of our kinds in a history, plus each
    Incident again with its outcome as spec.resolution (as a person records it)."""
    events = _history_events(name)
    out: list[tuple[str, dict[str, Any]]] = []
    incidents: dict[str, dict[str, Any]] = {}
    for i, event in enumerate(events):
        obj = event.get("object")
        if obj is not None and obj.get("apiVersion") == f"{GROUP}/{VERSION}":
            out.append((f"{name}#{i} {obj['kind']}/{obj['metadata']['name']}", obj))
            if obj["kind"] == "Incident":
                incidents[obj["metadata"]["name"]] = obj
        if event.get("type") == "outcome":
            resolved = copy.deepcopy(incidents[event["incident"]])
            resolved["spec"]["resolution"] = event["resolution"]
            out.append((f"{name}#{i} Incident/{event['incident']} +resolution", resolved))
    return out


# --------------------------------------------------------------------------- schema walking


def _children(node: dict[str, Any], path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    for key, child in (node.get("properties") or {}).items():
        yield (f"{path}.{key}" if path else key), child
    if isinstance(node.get("items"), dict):
        yield f"{path}[]", node["items"]
    if isinstance(node.get("additionalProperties"), dict):
        yield f"{path}{{}}", node["additionalProperties"]


def walk(node: dict[str, Any], path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    yield path, node
    for child_path, child in _children(node, path):
        yield from walk(child, child_path)


def lookup(schema: dict[str, Any], dotted: str) -> dict[str, Any] | None:
    # A filter such as [?(@.type=="Ready")] picks items of a list: look into the items.
    dotted = re.sub(r"\[\?\(@\.[^\]]*\)\]", "[]", dotted)
    node: dict[str, Any] | None = schema
    for part in [p for p in dotted.split(".") if p]:
        if part.endswith("[]"):
            node = (node or {}).get("properties", {}).get(part[:-2])
            node = (node or {}).get("items")
        else:
            node = (node or {}).get("properties", {}).get(part)
        if node is None:
            return None
    return node


# --------------------------------------------------------------------------- files and names


def test_every_kind_has_its_own_file() -> None:
    assert set(CRDS) == set(EXPECTED)
    for kind, want in EXPECTED.items():
        assert CRDS[kind]["__file__"] == want["file"]


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_crd_identity(kind: str) -> None:
    crd, want = CRDS[kind], EXPECTED[kind]
    assert crd["apiVersion"] == "apiextensions.k8s.io/v1"
    assert crd["kind"] == "CustomResourceDefinition"
    assert crd["metadata"]["name"] == f"{want['plural']}.{GROUP}"
    spec = crd["spec"]
    assert spec["group"] == GROUP
    assert spec["scope"] == "Namespaced"
    names = spec["names"]
    assert names["kind"] == kind
    assert names["listKind"] == f"{kind}List"
    assert names["plural"] == want["plural"]
    assert names["singular"] == kind.lower()
    assert names["shortNames"] == want["short"]
    assert "recall" in names["categories"]


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_v1alpha1_served_stored_with_status_subresource(kind: str) -> None:
    versions = CRDS[kind]["spec"]["versions"]
    assert [v["name"] for v in versions] == [VERSION]
    (version,) = versions
    assert version["served"] is True
    assert version["storage"] is True
    assert version["subresources"]["status"] == {}
    schema = version["schema"]["openAPIV3Schema"]
    assert schema["properties"]["status"]["type"] == "object"


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_printer_columns(kind: str) -> None:
    (version,) = CRDS[kind]["spec"]["versions"]
    columns = {c["name"]: c for c in version["additionalPrinterColumns"]}
    for name, path in EXPECTED[kind]["columns"].items():
        assert name in columns, f"{kind}: printer column {name!r} missing"
        assert columns[name]["jsonPath"] == path
    schema = _schema(kind)
    for column in columns.values():
        assert column["type"] in {"integer", "number", "string", "boolean", "date"}
        path = column["jsonPath"]
        if path == ".metadata.creationTimestamp":
            assert column["type"] == "date"
            continue
        assert lookup(schema, path) is not None, (
            f"{kind}: column {column['name']} reads {path}, which the schema does not declare"
        )


# --------------------------------------------------------------------------- structural schema rules

_FORBIDDEN = {"$ref", "definitions", "dependencies", "patternProperties", "additionalItems", "id", "$schema"}


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_schema_is_structural(kind: str) -> None:
    schema = _schema(kind)
    assert schema["type"] == "object"
    assert schema["properties"]["metadata"] == {"type": "object"}, "metadata must stay free (labels, annotations)"
    for path, node in walk(schema):
        where = f"{kind}:{path or '<root>'}"
        assert not (_FORBIDDEN & node.keys()), f"{where}: forbidden keyword {_FORBIDDEN & node.keys()}"
        assert not node.get("uniqueItems"), f"{where}: uniqueItems is not allowed; use x-kubernetes-list-type"
        if "type" not in node:
            assert node.get("x-kubernetes-preserve-unknown-fields") or node.get("x-kubernetes-int-or-string"), (
                f"{where}: every node needs a type unless it preserves unknown fields"
            )
        else:
            assert node["type"] in {"object", "array", "string", "integer", "number", "boolean"}, where
        if node.get("type") == "array":
            assert isinstance(node.get("items"), dict), f"{where}: arrays need an items schema"
        if node.get("type") != "object":
            assert "properties" not in node and "additionalProperties" not in node, where
        assert not ("properties" in node and "additionalProperties" in node), (
            f"{where}: properties and additionalProperties are exclusive"
        )
        if node.get("x-kubernetes-list-type") == "map":
            keys = node["x-kubernetes-list-map-keys"]
            assert set(keys) <= set(node["items"].get("required", [])), f"{where}: list-map keys must be required"
        for value_validation in ("anyOf", "allOf", "oneOf", "not"):
            assert value_validation not in node, f"{where}: keep schemas free of {value_validation}"
        for req in node.get("required", []):
            assert req in node.get("properties", {}), f"{where}: required {req!r} is not a property"
        if "enum" in node:
            assert node.get("type") == "string", where
            assert all(isinstance(v, str) for v in node["enum"]), where


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_every_cel_rule_says_what_is_wrong(kind: str) -> None:
    for path, node in walk(_schema(kind)):
        for rule in node.get("x-kubernetes-validations", []):
            assert rule.get("rule"), f"{kind}:{path}: empty rule"
            message = rule.get("message", "")
            assert len(message) >= 15 and not message.endswith("."), (
                f"{kind}:{path}: {rule['rule']!r} needs a human message"
            )


def _bounded(node: dict[str, Any]) -> bool:
    kind = node.get("type")
    if kind == "string":
        return "maxLength" in node or "enum" in node or node.get("format") in {"date-time", "date"}
    if kind == "array":
        return "maxItems" in node
    if kind == "object" and isinstance(node.get("additionalProperties"), dict):
        return "maxProperties" in node
    return True


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_cel_inputs_are_bounded(kind: str) -> None:
    """Lists and strings a CEL rule can reach carry maxItems / maxLength, so the
    API server's cost estimate stays within its limits."""
    for path, node in walk(_schema(kind)):
        if not node.get("x-kubernetes-validations"):
            continue
        for sub_path, sub in walk(node, path):
            assert _bounded(sub), f"{kind}:{sub_path} is reached by a CEL rule at {path} but has no upper bound"


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_spec_is_bounded(kind: str) -> None:
    spec = _schema(kind)["properties"]["spec"]
    for path, node in walk(spec, "spec"):
        assert _bounded(node), f"{kind}:{path} has no upper bound"


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_status_declares_its_fields_and_keeps_unknown_ones(kind: str) -> None:
    status = _schema(kind)["properties"]["status"]
    for field in STATUS_FIELDS[kind]:
        assert lookup(status, field) is not None, f"{kind}: status.{field} is not declared"
    for path in OPEN_STATUS_OBJECTS[kind]:
        node = lookup(status, path) if path else status
        assert node is not None and node.get("x-kubernetes-preserve-unknown-fields") is True, (
            f"{kind}: status.{path or '<root>'} must keep unknown fields"
        )
    conditions = status["properties"]["conditions"]
    assert conditions["x-kubernetes-list-type"] == "map"
    assert set(conditions["items"]["properties"]) >= {
        "type",
        "status",
        "reason",
        "message",
        "observedGeneration",
        "lastTransitionTime",
    }


def test_incident_spec_contract() -> None:
    spec = _schema("Incident")["properties"]["spec"]
    assert set(spec["required"]) == {"service", "title"}
    assert spec["properties"]["severity"]["enum"] == ["critical", "high", "medium", "low"]
    assert spec["properties"]["startedAt"]["format"] == "date-time"
    assert spec["properties"]["deployment"]["properties"]["minutesSinceDeploy"]["minimum"] == 0
    assert spec["properties"]["parameters"]["additionalProperties"]["type"] == "string"
    actions = spec["properties"]["resolution"]["properties"]["actions"]["items"]
    assert actions["properties"]["result"]["enum"] == ["succeeded", "failed", "partial"]
    assert spec["properties"]["resolution"]["properties"]["runbook"]["nullable"] is True
    # People fix typos in the service name: it must stay mutable until the
    # outcome is recorded. Then the outcome and the report it answers are fixed
    # (memory is built from them); corrections are appended.
    for path, node in walk(spec):
        for rule in node.get("x-kubernetes-validations", []):
            if "oldSelf" in rule["rule"]:
                assert path == "" and re.search(r"oldSelf\.(resolution|corrections)", rule["rule"]), (path, rule)
    assert "corrections" in spec["properties"]
    # A field added to the report later is frozen with the rest, or this fails.
    assert any(r["rule"] == _REPORT_FROZEN for r in spec["x-kubernetes-validations"])
    assert {*_REPORT, *_REPORT_OPTIONAL} == set(spec["properties"]) - {"resolution", "corrections"}


def test_approval_spec_is_immutable() -> None:
    rules = _schema("Approval")["properties"]["spec"]["x-kubernetes-validations"]
    assert {
        "rule": "self == oldSelf",
        "message": "an Approval cannot be changed after creation; create a new one",
    } in rules


def test_runbook_step_names_must_be_unique() -> None:
    steps = _schema("Runbook")["properties"]["spec"]["properties"]["steps"]
    assert "self.all(s, self.exists_one(t, t.name == s.name))" in [r["rule"] for r in steps["x-kubernetes-validations"]]
    assert steps["minItems"] == 1


# --------------------------------------------------------------------------- OpenAPI -> JSON Schema


def _is_rfc3339(value: object) -> bool:
    if not isinstance(value, str):
        return True
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})", value):
        return False
    try:
        datetime.fromisoformat(value.upper().replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


FORMATS = jsonschema.FormatChecker(formats=())
FORMATS.checks("date-time")(_is_rfc3339)

_COPIED = (
    "required",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "format",
)


def to_json_schema(node: dict[str, Any], *, root: bool = True) -> dict[str, Any]:
    """Translate a structural OpenAPI v3 schema; unknown fields become errors
    unless the node preserves them (strict field validation)."""
    out: dict[str, Any] = {k: node[k] for k in _COPIED if k in node}
    nullable = bool(node.get("nullable"))
    preserve = bool(node.get("x-kubernetes-preserve-unknown-fields"))
    if node.get("x-kubernetes-int-or-string"):
        out["type"] = ["integer", "string"]
    elif "type" in node:
        out["type"] = [node["type"], "null"] if nullable else node["type"]
    if "enum" in node:
        out["enum"] = list(node["enum"]) + ([None] if nullable else [])
    if "properties" in node:
        out["properties"] = {k: to_json_schema(v, root=False) for k, v in node["properties"].items()}
        if root and "metadata" in out["properties"]:
            out["properties"]["metadata"] = {"type": "object"}
    if isinstance(node.get("items"), dict):
        out["items"] = to_json_schema(node["items"], root=False)
    if isinstance(node.get("additionalProperties"), dict):
        out["additionalProperties"] = to_json_schema(node["additionalProperties"], root=False)
    elif node.get("type") == "object" and not preserve:
        out["additionalProperties"] = False
    return out


def validator_for(kind: str) -> jsonschema.protocols.Validator:
    return jsonschema.Draft202012Validator(to_json_schema(_schema(kind)), format_checker=FORMATS)


def schema_errors(obj: dict[str, Any]) -> list[str]:
    errors = validator_for(obj["kind"]).iter_errors(obj)
    return [f"{'.'.join(str(p) for p in e.absolute_path)}: {e.message}" for e in errors]


# --------------------------------------------------------------------------- CEL mirrors

_SYMPTOM = r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$"
_STEP = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
_NAME = r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$"
_HASH = r"^[0-9a-f]{8,64}$"
_DATE = (
    r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])([Tt]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"
    r"([.][0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9]))?$"
)

Mirror = Callable[[Any, Any], bool]
_OUTCOME = "(has(self.summary) && self.summary.trim().size() > 0) || (has(self.actions) && self.actions.size() > 0)"
# The report an outcome answers: every spec field but the outcome's own.
_REPORT = ("service", "title", "severity")
_REPORT_OPTIONAL = ("description", "symptoms", "errorSignatures", "deployment", "startedAt", "labels", "parameters")
_REPORT_FROZEN = "!has(oldSelf.resolution) || (" + " && ".join(
    [f"self.{f} == oldSelf.{f}" for f in _REPORT]
    + [f"has(self.{f}) == has(oldSelf.{f}) && (!has(self.{f}) || self.{f} == oldSelf.{f})" for f in _REPORT_OPTIONAL]
) + ")"

# rule text -> Python predicate(self, oldSelf); oldSelf is None on create.
CEL_MIRRORS: dict[str, Mirror] = {
    "self.trim().size() > 0": lambda s, o: len(s.strip()) > 0,
    "self.getFullYear() >= 1970": lambda s, o: int(str(s)[:4]) >= 1970,
    f"self.all(s, s.matches('{_SYMPTOM}'))": lambda s, o: all(re.search(_SYMPTOM, x) for x in s),
    "self.size() > 0": lambda s, o: len(s) > 0,
    "self.size() >= 2": lambda s, o: len(s) >= 2,
    "self.all(s, self.exists_one(t, t.name == s.name))": lambda s, o: all(
        sum(t["name"] == x["name"] for t in s) == 1 for x in s
    ),
    "!has(self.timeoutSeconds) || !has(self.estimatedSeconds) || self.estimatedSeconds <= self.timeoutSeconds": (
        lambda s, o: "timeoutSeconds" not in s
        or "estimatedSeconds" not in s
        or s["estimatedSeconds"] <= s["timeoutSeconds"]
    ),
    f"self.matches('{_STEP}')": lambda s, o: re.search(_STEP, s) is not None,
    "self.size() > 0 && self[0].trim().size() > 0": lambda s, o: len(s) > 0 and len(s[0].strip()) > 0,
    f"self.matches('{_DATE}')": lambda s, o: re.search(_DATE, s) is not None,
    "!has(self.claims) || self.claims.all(c, c.memory in self.memories)": lambda s, o: all(
        c["memory"] in s["memories"] for c in s.get("claims", [])
    ),
    "self.all(m, self.exists_one(n, n == m))": lambda s, o: len(set(s)) == len(s),
    "self.state != 'reconciled' || (has(self.note) && self.note.trim().size() > 0)": (
        lambda s, o: s["state"] != "reconciled" or len(s.get("note", "").strip()) > 0
    ),
    "self == oldSelf": lambda s, o: o is None or s == o,
    "self.decision != 'reject' || (has(self.reason) && self.reason.trim().size() > 0)": (
        lambda s, o: s["decision"] != "reject" or len(s.get("reason", "").strip()) > 0
    ),
    f"self.matches('{_NAME}')": lambda s, o: re.search(_NAME, s) is not None,
    f"self.matches('{_HASH}')": lambda s, o: re.search(_HASH, s) is not None,
    'self.matches(r"[\\pL\\pN]") && !self.matches(r"[\\p{Cc}\\p{Cf}]")': lambda s, o: (
        any(unicodedata.category(c)[0] in "LN" for c in s)
        and not any(unicodedata.category(c) in ("Cc", "Cf") for c in s)
    ),
    'self.matches(r"[\\pL\\pN\\pP\\pS]")': lambda s, o: any(unicodedata.category(c)[0] in "LNPS" for c in s),
    _OUTCOME: lambda s, o: len(s.get("summary", "").strip()) > 0 or len(s.get("actions") or []) > 0,
    "!has(oldSelf.resolution) || (has(self.resolution) && self.resolution == oldSelf.resolution)": (
        lambda s, o: o is None or "resolution" not in o or s.get("resolution") == o["resolution"]
    ),
    _REPORT_FROZEN: lambda s, o: o is None or "resolution" not in o or all(
        s.get(f) == o.get(f) for f in (*_REPORT, *_REPORT_OPTIONAL)
    ),
    "!has(self.corrections) || has(self.resolution)": lambda s, o: "corrections" not in s or "resolution" in s,
    "self.all(k, k.size() <= 253 && k.matches('^[A-Z][A-Z0-9_]*$'))": lambda s, o: all(
        len(k) <= 253 and re.search(r"^[A-Z][A-Z0-9_]*$", k) for k in s
    ),
    "self.all(k, self[k].matches('^[A-Za-z0-9._:/@=+,-]*$'))": lambda s, o: all(
        re.search(r"^[A-Za-z0-9._:/@=+,-]*$", v) for v in s.values()
    ),
    "self.all(k, !self[k].startsWith('-'))": lambda s, o: not any(v.startswith("-") for v in s.values()),
    (
        "!has(oldSelf.corrections) || (has(self.corrections) && self.corrections.size() >= oldSelf.corrections.size()"
        " && oldSelf.corrections.all(c, c in self.corrections))"
    ): lambda s, o: o is None or "corrections" not in o or (
        len(s.get("corrections") or []) >= len(o["corrections"]) and all(c in s["corrections"] for c in o["corrections"])
    ),
}


def cel_violations(schema: dict[str, Any], value: Any, path: str = "") -> list[str]:
    """Evaluate the mirrored rules wherever the object has a value (as on create)."""
    found = []
    for rule in schema.get("x-kubernetes-validations", []):
        if not CEL_MIRRORS[rule["rule"]](value, None):
            found.append(f"{path}: {rule['message']}")
    if isinstance(value, dict):
        for key, child in value.items():
            sub = (schema.get("properties") or {}).get(key)
            if sub is None and isinstance(schema.get("additionalProperties"), dict):
                sub = schema["additionalProperties"]
            if sub is not None:
                found += cel_violations(sub, child, f"{path}.{key}")
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, child in enumerate(value):
            found += cel_violations(schema["items"], child, f"{path}[{i}]")
    return found


def test_every_cel_rule_has_a_python_mirror() -> None:
    for kind in EXPECTED:
        for path, node in walk(_schema(kind)):
            for rule in node.get("x-kubernetes-validations", []):
                assert rule["rule"] in CEL_MIRRORS, f"{kind}:{path}: add a mirror for {rule['rule']!r}"


def test_cel_patterns_match_schema_patterns() -> None:
    """Where a field has both a pattern and a CEL regex, they agree."""
    for kind in EXPECTED:
        for path, node in walk(_schema(kind)):
            target = node["items"] if node.get("type") == "array" else node
            for rule in node.get("x-kubernetes-validations", []):
                match = re.search(r"matches\('([^']*)'\)", rule["rule"])
                if match and "pattern" in target:
                    assert match.group(1) == target["pattern"], f"{kind}:{path}"


# --------------------------------------------------------------------------- the datasets


@pytest.mark.parametrize("history", HISTORIES)
def test_dataset_has_objects_of_every_spec_kind(history: str) -> None:
    kinds = {obj["kind"] for _, obj in dataset_objects(history)}
    assert kinds >= {"Incident", "Runbook", "ArchitectureMigration", "Contradiction"}
    assert kinds <= set(EXPECTED)


@pytest.mark.parametrize("history", HISTORIES)
def test_every_dataset_object_validates_against_its_schema(history: str) -> None:
    failures = []
    for label, obj in dataset_objects(history):
        failures += [f"{label}: {err}" for err in schema_errors(obj)]
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("history", HISTORIES)
def test_every_dataset_object_passes_the_cel_rules(history: str) -> None:
    failures = []
    for label, obj in dataset_objects(history):
        failures += [f"{label}: {err}" for err in cel_violations(_schema(obj["kind"]), obj)]
    assert not failures, "\n".join(failures)


# --------------------------------------------------------------------------- the validator itself


def _incident(**spec: Any) -> dict[str, Any]:
    base = {"service": "cart-service", "title": "cart p99 above 2s", "severity": "high"}
    base.update(spec)
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Incident", "metadata": {"name": "x"}, "spec": base}


def test_validator_accepts_a_minimal_incident() -> None:
    assert schema_errors(_incident()) == []
    assert cel_violations(_schema("Incident"), _incident()) == []


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ({"bogus": 1}, "Additional properties"),
        ({"severity": "sev1"}, "is not one of"),
        ({"symptoms": ["Latency Spike"]}, "does not match"),
        ({"startedAt": "yesterday"}, "is not a 'date-time'"),
        ({"deployment": {"minutesSinceDeploy": -1}}, "less than the minimum"),
        ({"resolution": {"actions": [{"action": "restart", "result": "worked"}]}}, "is not one of"),
        ({"resolution": {"runbook": None}}, None),
        ({"parameters": {"SERVICE": 3}}, "is not of type 'string'"),
    ],
)
def test_validator_is_strict(spec: dict[str, Any], needle: str | None) -> None:
    errors = schema_errors(_incident(**spec))
    if needle is None:
        assert errors == []
    else:
        assert any(needle in e for e in errors), errors


def test_runbook_parameters_may_be_a_map_or_a_list() -> None:
    runbook = {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "Runbook",
        "metadata": {"name": "r"},
        "spec": {"title": "t", "steps": [{"name": "a", "image": "busybox", "command": ["true"]}]},
    }
    for parameters in ({"SERVICE": "cart-service"}, ["SERVICE"], [{"name": "SERVICE", "default": "cart"}]):
        candidate = copy.deepcopy(runbook)
        candidate["spec"]["parameters"] = parameters
        assert schema_errors(candidate) == []


@pytest.mark.parametrize(
    ("kind", "spec", "message"),
    [
        ("Incident", {"service": "  ", "title": "t"}, "service cannot be blank"),
        ("Incident", {"service": "\u200b\u180e", "title": "t"}, "service must be a visible name"),
        ("Incident", {"service": "cart\u0000", "title": "t"}, "service must be a visible name"),
        ("Incident", {"service": "cart", "title": "\u200b\u0000"}, "title needs a visible character"),
        ("Incident", {"service": "cart", "title": "t", "resolution": {}}, "an outcome needs at least a summary"),
        ("Incident", {"service": "cart", "title": "t", "corrections": [{"reason": "r", "confirmedBy": "a",
                                                                       "summary": "s"}]},
         "record spec.resolution first"),
        (
            "Runbook",
            {"title": "t", "steps": [{"name": "a", "image": "i", "command": ["x"]}] * 2},
            "step names must be unique",
        ),
        ("Runbook", {"title": "t", "steps": [{"name": "a", "image": "i", "command": [""]}]}, "needs a command"),
        ("Contradiction", {"topic": "t", "memories": ["a"]}, "at least two memories"),
        (
            "Contradiction",
            {"topic": "t", "memories": ["a", "b"], "claims": [{"memory": "c", "claim": "x"}]},
            "every claim must name a memory",
        ),
        (
            "Contradiction",
            {"topic": "t", "memories": ["a", "b"], "resolution": {"state": "reconciled"}},
            "needs a note",
        ),
        (
            "Approval",
            {"incident": "inc-1", "planHash": "deadbeef", "decision": "reject", "approver": "alice"},
            "a rejection needs a reason",
        ),
        ("ArchitectureMigration", {"targetService": "redis", "migrationDate": "15/01/2025"}, "migrationDate must be"),
    ],
)
def test_cel_mirrors_refuse_bad_input(kind: str, spec: dict[str, Any], message: str) -> None:
    found = cel_violations(_schema(kind), {"spec": spec})
    assert any(message in f for f in found), found
