"""`recall replay`: feed an incident history through the decision chain, in time order, and score it.

The format and the scores are fixed by the replay contract (replay-format.md).
The answer key (`truth`) of an incident is read only after its recommendation
is final, and an outcome is written to memory only when its line comes, that
is after every incident before it has been scored: no row can see the future.
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from recall_operator.config import ConfigError, OperatorSettings
from recall_operator.domain.consolidation import as_first_resolved, count_runbook_outcomes
from recall_operator.domain.models import (
    ArchitectureMigration,
    ContradictionSpec,
    Contradiction,
    EpisodicMemory,
    Incident,
    IncidentSpec,
    MigrationSpec,
    Resolution,
    Runbook,
    RunbookRecord,
    RunbookSpec,
)
from recall_operator.domain.gate import CHAIN, Policy
from recall_operator.domain.recommend import Assessment, Context, Settings, assess
from recall_operator.domain.times import parse_time
from recall_operator.domain.topology import Topology, TopologyError, merge_topologies
from recall_operator.kube.client import as_stored_text
from recall_operator.memory import open_backend
from recall_operator.memory.base import MemoryBackend, MemorySettings, MemoryUnavailable, recall_query

METRICS = (
    "precedent_at_1",
    "precedent_at_3",
    "runbook_at_1",
    "novel_precision",
    "novel_recall",
    "unsafe_actionable_rate",
)


class DatasetError(ValueError):
    """A dataset line that cannot be replayed; the message names the line and the field."""


class _Truth(BaseModel):
    # A key the format does not define is read past (`_read_truth`): a history
    # that carries more about each incident than replay scores is still scored.
    model_config = ConfigDict(extra="allow")
    precedents: list[str] = Field(default_factory=list)
    runbook: str | None = None
    novel: bool = False
    unsafe_runbooks: list[str] = Field(default_factory=list, alias="unsafeRunbooks")


@dataclass
class Event:
    line: int
    at: datetime
    type: str
    raw: dict[str, Any]


def read_events(path: Path) -> Iterator[Event]:
    """Parse a dataset file; a bad line raises DatasetError naming the line and the field."""
    previous: datetime | None = None
    # utf-8-sig: a file saved by an editor that starts it with a byte-order mark reads the same.
    with path.open(encoding="utf-8-sig") as f:
        for number, text in enumerate(f, start=1):
            text = text.strip()
            if not text or text.startswith("#"):
                continue
            try:
                # What a cluster would hold: the API server keeps U+FFFD for a lone surrogate escape.
                raw = as_stored_text(json.loads(text))
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{path}:{number}: not valid JSON: {exc.msg} at column {exc.colno}") from exc
            except RecursionError as exc:
                raise DatasetError(f"{path}:{number}: nested too deeply to be an event") from exc
            if not isinstance(raw, dict):
                raise DatasetError(f"{path}:{number}: each line must be a JSON object")
            kind = raw.get("type")
            if kind not in ("apply", "incident", "outcome"):
                raise DatasetError(f"{path}:{number}: field 'type' must be apply, incident or outcome, not {kind!r}")
            if "at" not in raw:
                raise DatasetError(f"{path}:{number}: field 'at' is missing")
            at = parse_time(raw["at"]) if isinstance(raw["at"], str) else None
            if at is None:
                raise DatasetError(
                    f"{path}:{number}: field 'at' is not an RFC 3339 time with its zone"
                    f" (2025-01-02T03:04:05Z): {raw['at']!r}"
                )
            if previous is not None and at < previous:
                raise DatasetError(f"{path}:{number}: events must be sorted by 'at'; {raw['at']} comes after a later event")
            previous = at
            yield Event(number, at, kind, raw)


def as_stored(value: Any) -> Any:
    """A manifest's value as the API server stores it: a key whose value is null
    is dropped (a structural schema prunes a null in a field it does not mark
    nullable, and then its default applies). No field of a dataset's kinds
    reads null otherwise than absent, so every null key is dropped here."""
    if isinstance(value, dict):
        return {k: as_stored(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [as_stored(v) for v in value]
    return value


def _field_error(path: Path, event: Event, prefix: str, exc: ValidationError) -> DatasetError:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in (prefix, *err["loc"]) if p != "")
    return DatasetError(f"{path}:{event.line}: field '{where}': {err['msg']}")


def _name(path: Path, event: Event, obj: dict[str, Any]) -> str:
    name = (obj.get("metadata") or {}).get("name")
    if not isinstance(name, str) or not name:
        raise DatasetError(f"{path}:{event.line}: field 'object.metadata.name' is missing")
    return name


# Who confirmed an outcome line that names nobody: the history it comes from.
HISTORY_CONFIRMER = "replay"

TRUTH_KEYS = ("precedents", "runbook", "novel", "unsafeRunbooks")


def _read_truth(path: Path, event: Event, notices: dict[str, str]) -> _Truth:
    """An incident's answer key. A misspelt key is refused, naming the one it
    resembles: read past, it would score the incident on an empty key. Any
    other key is noted once a history (`notices`, by key) and not read."""
    try:
        truth = _Truth.model_validate(as_stored(event.raw.get("truth") or {}))
    except ValidationError as exc:
        raise _field_error(path, event, "truth", exc) from None
    for key in truth.model_extra or {}:
        near = difflib.get_close_matches(key, TRUTH_KEYS, n=1, cutoff=0.8)
        if near:
            raise DatasetError(f"{path}:{event.line}: field 'truth.{key}': not a field of the answer key; "
                               f"did you mean '{near[0]}'?")
        notices.setdefault(key, f"{path}:{event.line}: field 'truth.{key}' is not part of the answer key; "
                                "ignored here and on every later line")
    return truth


@dataclass
class World:
    """What the operator knows at a moment of the replay."""

    topology: Topology = field(default_factory=Topology)  # every topology ConfigMap's, added up
    topologies: dict[str, Topology] = field(default_factory=dict)  # by ConfigMap name
    catalog: dict[str, Runbook] = field(default_factory=dict)
    migrations: dict[str, ArchitectureMigration] = field(default_factory=dict)
    contradictions: dict[str, Contradiction] = field(default_factory=dict)
    resolutions: list[Resolution] = field(default_factory=list)
    open_incidents: dict[str, Incident] = field(default_factory=dict)
    resolved: dict[str, Incident] = field(default_factory=dict)  # closed by an outcome; a later one corrects it

    def records(self) -> dict[str, RunbookRecord]:
        return {name: count_runbook_outcomes(self.resolutions, name) for name in self.catalog}

    def context(self, now: datetime) -> Context:
        return Context(
            now=now,
            topology=self.topology,
            catalog=self.catalog,
            records=self.records(),
            migrations=list(self.migrations.values()),
            contradictions=list(self.contradictions.values()),
        )


@dataclass
class Row:
    incident: str
    memory: str
    assessment: Assessment
    truth: _Truth

    def as_json(self) -> dict[str, Any]:
        rec = self.assessment.recommendation
        return {
            "incident": self.incident,
            "memory": self.memory,
            "mode": rec.mode,
            "similarity": rec.similarity,
            "actionability": rec.actionability,
            "runbook": rec.runbook,
            "matches": [m.incident for m in self.assessment.matches],
        }


def apply_object(world: World, path: Path, event: Event) -> None:
    obj = event.raw.get("object")
    if not isinstance(obj, dict):
        raise DatasetError(f"{path}:{event.line}: field 'object' must be a manifest")
    kind, name = obj.get("kind"), _name(path, event, obj)
    spec = as_stored(obj.get("spec") or {})
    try:
        if kind == "ConfigMap":
            text = (obj.get("data") or {}).get("topology")
            if text is None:
                raise DatasetError(f"{path}:{event.line}: field 'object.data.topology' is missing")
            # As on the cluster: each ConfigMap is its own part of the graph, and applying one again replaces it.
            world.topologies[name] = Topology.parse(text)
            world.topology = merge_topologies(world.topologies.values())
        elif kind == "Runbook":
            # An edit keeps the time the catalog first got it, as an object's creationTimestamp does.
            first = world.catalog[name].created_at if name in world.catalog else event.at
            world.catalog[name] = Runbook(name=name, spec=RunbookSpec.model_validate(spec), created_at=first)
        elif kind == "ArchitectureMigration":
            # An edit keeps when the migration was first applied (its creationTimestamp on the cluster): a
            # corrected note does not make the memories resolved since then stale.
            first = world.migrations[name].applied_at if name in world.migrations else event.at
            world.migrations[name] = ArchitectureMigration(
                name=name, spec=MigrationSpec.model_validate(spec), applied_at=first
            )
        elif kind == "Contradiction":
            world.contradictions[name] = Contradiction(name=name, spec=ContradictionSpec.model_validate(spec))
        else:
            raise DatasetError(
                f"{path}:{event.line}: field 'object.kind': {kind!r} cannot be applied "
                "(Runbook, ArchitectureMigration, Contradiction or a topology ConfigMap)"
            )
    except ValidationError as exc:
        raise _field_error(path, event, "object.spec", exc) from None
    except TopologyError as exc:
        raise DatasetError(f"{path}:{event.line}: field 'object.data.topology': {exc}") from None


async def replay_side(
    path: Path, memory: MemoryBackend | None, settings: Settings = Settings(),
    notices: dict[str, str] | None = None, chain: Sequence[Policy] = CHAIN,
) -> list[Row]:
    """One pass over the history. `memory=None` is the baseline: no episodic memory, no track records.

    `notices` collects what was read past (by key), for the command to say;
    `chain` is the gate's policies (an ablation replays it with one left out).
    """
    world = World()
    rows: list[Row] = []
    label = "on" if memory is not None else "off"
    for event in read_events(path):
        if event.type == "apply":
            apply_object(world, path, event)
        elif event.type == "incident":
            obj = event.raw.get("object")
            if not isinstance(obj, dict):
                raise DatasetError(f"{path}:{event.line}: field 'object' must be an Incident manifest")
            name = _name(path, event, obj)
            try:
                incident = Incident(name=name, spec=IncidentSpec.model_validate(as_stored(obj.get("spec") or {})))
            except ValidationError as exc:
                raise _field_error(path, event, "object.spec", exc) from None
            world.open_incidents[name] = incident
            candidates = await memory.recall(recall_query(incident, world.topology)) if memory else []
            ctx = world.context(event.at)
            if memory is None:
                ctx = Context(now=ctx.now, topology=ctx.topology, catalog=ctx.catalog, records={},
                              migrations=ctx.migrations, contradictions=ctx.contradictions)
            assessment = assess(incident, candidates, ctx, settings, chain)
            # Only now, with the recommendation final, is the answer key read.
            truth = _read_truth(path, event, notices if notices is not None else {})
            rows.append(Row(name, label, assessment, truth))
        else:
            closed = event.raw.get("incident")
            name = closed if isinstance(closed, str) else ""
            found = world.open_incidents.pop(name, None)
            # A second outcome of an incident corrects the first, as a correction
            # does on the cluster: memory holds the newest, and the runbook it
            # names is not counted again (a correction moves no win rate).
            corrects = found is None and name in world.resolved
            if corrects:
                found = world.resolved[name]
            if found is None:
                raise DatasetError(f"{path}:{event.line}: field 'incident': {closed!r} is not an incident of this "
                                   "dataset opened before this line")
            try:
                resolution = Resolution.model_validate(as_stored(event.raw.get("resolution") or {}))
            except ValidationError as exc:
                raise _field_error(path, event, "resolution", exc) from None
            if not resolution.confirmed_by:
                # An outcome line is the human gate itself ("the human-confirmed resolution"); on the cluster
                # the admission policy makes every outcome name who confirmed it. Without a name it would
                # count as unconfirmed and never be anyone's precedent.
                resolution = resolution.model_copy(update={"confirmed_by": HISTORY_CONFIRMER})
            world.resolved[found.name] = found
            if memory is not None:
                if not corrects:
                    world.resolutions.append(resolution)
                episode = EpisodicMemory(incident=found.name, spec=found.spec, resolution=resolution, resolved_at=event.at)
                # As the operator writes a correction: dated and caused as first confirmed.
                held = await memory.get(found.name, found.namespace) if corrects else None
                await memory.remember(as_first_resolved(held, episode))
    return rows


def score(rows: list[Row]) -> dict[str, float]:
    """The scores of one side, rounded as printed."""
    return {k: round(v, 4) for k, v in _rates(rows).items()}


def _rates(rows: list[Row]) -> dict[str, float]:
    """The scores of one side, unrounded: the lift is taken from these, then rounded once."""
    recurrences = [r for r in rows if not r.truth.novel]
    def share(hits: int, total: int) -> float:
        return hits / total if total else 0.0

    def top(r: Row, k: int) -> bool:
        return any(m.incident in r.truth.precedents for m in r.assessment.matches[:k])

    predicted_novel = [r for r in rows if r.assessment.recommendation.mode == "novel"]
    truly_novel = [r for r in rows if r.truth.novel]
    unsafe = [
        r for r in rows
        if r.assessment.recommendation.mode == "actionable"
        and r.assessment.recommendation.runbook in r.truth.unsafe_runbooks
    ]
    return {
        "precedent_at_1": share(sum(top(r, 1) for r in recurrences), len(recurrences)),
        "precedent_at_3": share(sum(top(r, 3) for r in recurrences), len(recurrences)),
        "runbook_at_1": share(sum(r.assessment.recommendation.runbook == r.truth.runbook for r in rows), len(rows)),
        "novel_precision": share(sum(r.truth.novel for r in predicted_novel), len(predicted_novel)),
        "novel_recall": share(sum(r.assessment.recommendation.mode == "novel" for r in truly_novel), len(truly_novel)),
        "unsafe_actionable_rate": share(len(unsafe), len(rows)),
    }


async def run_replay(
    path: Path, sides: list[str], backend: str = "embedded", settings: Settings = Settings(),
    hindsight_url: str | None = None, hindsight_writes: str = "stored", memory_settings: MemorySettings | None = None,
    chain: Sequence[Policy] = CHAIN,
) -> dict[str, Any]:
    """One history replayed with memory on and off (`sides`).

    `memory_settings`: the operator's memory settings (its Hindsight keys, index and
    poll): the replay keeps its own store and bank. Hindsight writes behind,
    recall is served from its index: every outcome of a replay is in its
    history file, so none needs to be on the server before the next incident
    is scored, only before the replay is done. Closing the backend waits for
    the writes and raises MemoryUnavailable if one was not stored, and the
    replay fails rather than report scores on a memory the server does not hold.
    """
    result: dict[str, Any] = {"dataset": path.name}
    rows: list[Row] = []
    rates: dict[str, dict[str, float]] = {}
    notices: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="recall-replay-") as tmp:
        for side in sides:
            memory = None
            if side == "on":
                # A store and a bank of its own: a replay never writes into the operator's memory.
                ms = replace(memory_settings or MemorySettings(), backend=backend, path=str(Path(tmp) / "memory.sqlite3"),
                             hindsight_bank=f"replay-{int(time.time() * 1000)}")
                if hindsight_url:
                    ms.hindsight_url = hindsight_url
                memory = open_backend(ms, write_behind=True, queued=hindsight_writes == "queued")
            try:
                side_rows = await replay_side(path, memory, settings, notices, chain)
            finally:
                if memory is not None:
                    await memory.close()
            result["incidents"] = len(side_rows)
            rates[side] = _rates(side_rows)
            result[side] = score(side_rows)
            rows.extend(side_rows)
    if "on" in rates and "off" in rates:
        result["lift"] = {k: round(rates["on"][k] - rates["off"][k], 4) for k in METRICS}
    result["_rows"] = rows
    result["_notices"] = list(notices.values())
    return result


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="score the operator's recommendations on incident histories")
    p.add_argument("datasets", nargs="+", type=Path, metavar="HISTORY",
                   help="replay histories (JSONL, see datasets/README.md); several give a row each and the mean")
    p.add_argument("--memory", choices=["on", "off", "both"], default="both")
    p.add_argument("--backend", choices=["embedded", "hindsight"], default="embedded")
    p.add_argument("--hindsight-url", default=None, help="Hindsight server for --backend hindsight")
    p.add_argument("--hindsight-writes", choices=["stored", "queued"], default="stored",
                   help="the replay ends when the server has stored every outcome (searchable), or when it has "
                        "queued them in its database for its worker (default: stored)")
    p.add_argument("--json", action="store_true", help="print one JSON object (a list of them for several histories)")
    p.add_argument("--per-incident", action="store_true", help="include a row per incident")
    p.set_defaults(func=main)


def mean_result(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Each metric averaged over the histories, each history counting once whatever its size."""
    mean: dict[str, Any] = {"dataset": "mean", "incidents": sum(r["incidents"] for r in results)}
    for side in ("on", "off", "lift"):
        if side in results[0]:
            mean[side] = {k: round(sum(r[side][k] for r in results) / len(results), 4) for k in METRICS}
    return mean


def main(args: argparse.Namespace) -> int:
    missing = [str(d) for d in args.datasets if not d.is_file()]
    if missing:
        print(f"recall replay: no such dataset file: {', '.join(missing)}", file=sys.stderr)
        return 2
    sides = ["on", "off"] if args.memory == "both" else [args.memory]
    # The bars and weights the operator would run with, so a setting can be tried here first; on
    # Hindsight, its keys too (a bank that asks for an API key, memories it signs).
    try:
        operator = OperatorSettings.from_env(os.environ)
    except ConfigError as exc:
        print(f"recall replay: {exc}", file=sys.stderr)
        return 2
    results: list[dict[str, Any]] = []
    for dataset in args.datasets:
        started = time.perf_counter()
        try:
            result = asyncio.run(run_replay(dataset, sides, args.backend, operator.gate(), args.hindsight_url,
                                              args.hindsight_writes, operator.memory()))
        except DatasetError as exc:
            print(f"recall replay: {exc}", file=sys.stderr)
            return 2
        except MemoryUnavailable as exc:
            print(f"recall replay: {dataset}: memory unavailable, no scores: {exc}", file=sys.stderr)
            return 1
        result["_elapsed"] = time.perf_counter() - started
        for notice in result.pop("_notices"):
            print(f"recall replay: {notice}", file=sys.stderr)
        results.append(result)
    for result in results:
        rows: list[Row] = result.pop("_rows")
        elapsed = result.pop("_elapsed")
        if args.per_incident:
            result["rows"] = [r.as_json() for r in rows]
        if args.json:
            continue
        print(_table(result, elapsed))
        if args.per_incident:
            for r in rows:
                rec = r.assessment.recommendation
                print(f"{r.incident:<14} {r.memory:<3} {rec.mode:<10} sim={rec.similarity:>3} act={rec.actionability:>3} "
                      f"runbook={rec.runbook or '-'}  matches={','.join(m.incident for m in r.assessment.matches[:3])}")
        print()
    if args.json:
        print(json.dumps(results[0] if len(results) == 1 else [*results, mean_result(results)]))
    elif len(results) > 1:
        # Histories are usually all called history.jsonl: their folders tell them apart.
        labels = [str(d.parent / d.name) if d.name == "history.jsonl" else d.name for d in args.datasets]
        print(_summary([*results, mean_result(results)], [*labels, "mean"], sides))
    return 0


def _table(result: dict[str, Any], elapsed: float) -> str:
    sides = [s for s in ("on", "off", "lift") if s in result]
    lines = [f"{result['dataset']}: {result.get('incidents', 0)} incidents, replayed in {elapsed:.1f} s", ""]
    lines.append(f"{'metric':<24}" + "".join(f"{'memory ' + s if s != 'lift' else 'lift':>14}" for s in sides))
    for k in METRICS:
        lines.append(f"{k:<24}" + "".join(f"{result[s][k]:>14.3f}" for s in sides))
    return "\n".join(lines)


def _summary(results: list[dict[str, Any]], labels: list[str], sides: list[str]) -> str:
    """One row per history and side, and the mean, for comparing histories at a glance."""
    short = {"precedent_at_1": "p@1", "precedent_at_3": "p@3", "runbook_at_1": "runbook@1",
             "novel_precision": "novel P", "novel_recall": "novel R", "unsafe_actionable_rate": "unsafe"}
    width = max(len(label) for label in labels) + 2
    lines = [f"{'history':<{width}}{'memory':>8}" + "".join(f"{short[k]:>11}" for k in METRICS)]
    for label, result in zip(labels, results):
        for side in (*sides, *(["lift"] if "lift" in result else [])):
            lines.append(f"{label:<{width}}{side:>8}" + "".join(f"{result[side][k]:>11.3f}" for k in METRICS))
    return "\n".join(lines)
