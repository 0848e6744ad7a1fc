"""`recall ablation`: does each similarity term and each gate policy earn its place?

Each part is removed in turn and every history replayed with memory on. A
term removed gives its weight to the others in proportion (so that the bars
keep their meaning on a 100-point scale); a policy removed leaves the chain
without it; `recognition` turns the recognised-precedent rule off. A rule
that lives in the scoring code as a constant or a helper (the points a denial
costs, the credit a neighbour earns, CamelCase words, ...; `RULES`) is turned
off by giving that constant or helper its "off" value for the replay.

Then leave one history out: for each history, the other two choose whether
the part stays (it stays when it raises their summed objective) and the
history left out says what that choice was worth. A part the pairs drop in
every rotation does not earn its place. The objective is the README's:
runbook@1 + precedent@1 / 2 + (novel precision + recall) / 4 - 5 x unsafe.
It starts from the bars and weights the operator would run with (the same
RECALL_* variables as `recall replay`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from pathlib import Path
from types import ModuleType
from typing import Any

from recall_operator.config import ConfigError, OperatorSettings
from recall_operator.domain import catalog, gate, recommend, similarity, text
from recall_operator.domain.models import IncidentSpec
from recall_operator.domain.recommend import Settings
from recall_operator.domain.similarity import TERMS, LexicalScorer, Weights, incident_words
from recall_operator.replay import DatasetError, as_stored, read_events, run_replay


def objective(scores: dict[str, float]) -> float:
    """The one figure every default is chosen by (README, Replay)."""
    return (scores["runbook_at_1"] + scores["precedent_at_1"] / 2
            + (scores["novel_precision"] + scores["novel_recall"]) / 4 - 5 * scores["unsafe_actionable_rate"])


@dataclass(frozen=True)
class Rule:
    """A scoring rule written as a module constant or helper, not a setting, and how to turn it off."""

    name: str
    module: ModuleType
    attribute: str
    off: Callable[[Any], Any]  # from what the code holds to what it holds without the rule


def _neighbour_as_unrelated(credit: Callable[[str, float], float]) -> Callable[[str, float], float]:
    return lambda relation, lexical: credit("unrelated" if relation == "adjacent" else relation, lexical)


RULES: tuple[Rule, ...] = (
    # A denied symptom ("no rebalances") costs its look-alike nothing.
    Rule("ruled_out", similarity, "RULED_OUT_POINTS", lambda _: 0.0),
    # A part the report clears ("the leader has not changed") rules out no precedent whose cause it was.
    Rule("cleared_parts", similarity, "cleared_parts", lambda _: lambda spec: {}),
    # A precedent on a neighbour earns what one on an unrelated service earns (its words' share).
    Rule("neighbour_credit", similarity, "_service_credit", _neighbour_as_unrelated),
    # A precedent on an unrelated service earns no service credit for sharing this report's words.
    Rule("unrelated_credit", similarity, "UNRELATED_SERVICE_CREDIT", lambda _: 0.0),
    # The lexical term is the plain share of this incident's BM25 mass, not full at 0.4 of it.
    Rule("lexical_saturation", similarity, "LEXICAL_SATURATION", lambda _: 1.0),
    # What was rolled out shortly before the page adds no words to either side.
    Rule("change_words", similarity, "change_words", lambda _: lambda spec: []),
    # Whether both pages came shortly after a deploy is unknown (the signals term's deploy half is even).
    Rule("deploy_alignment", similarity, "_recent_deploy", lambda _: lambda spec: None),
    # CamelCase identifiers (an alert's name) are not split into their words.
    Rule("camel_words", text, "camel_words", lambda _: lambda t: ""),
    # No catalog runbook is taken for a precedent's manual fix.
    Rule("manual_fix_runbook", catalog, "FIX_MATCH_BAR", lambda _: math.inf),
    # An incident that declares no symptoms is compared as having none (none are read from its words).
    Rule("symptoms_read", recommend, "read_symptoms", lambda _: lambda spec, catalog, memories: ()),
    # A service the topology does not name has no neighbours (none are taken from runbooks and reports).
    Rule("neighbours_seen", recommend, "seen_together", lambda _: lambda spec, memories, ctx: []),
    # A remembered runbook for services this one neither calls nor serves keeps its vote.
    Rule("acting_elsewhere", recommend, "_acting_elsewhere", lambda _: lambda spec, remembered, blocked, ctx, backers: {}),
    # A precedent whose confirmed cause was its release votes where no release came before.
    Rule("release_failures", recommend, "released_cause", lambda _: lambda memory: None),
    # A runbook that undid releases needs a whole cover in novel mode, after a release too.
    Rule("release_territory", recommend, "release_undoers", lambda _: lambda scored: {}),
    # A contradiction's sides are ordered by their conditions' words alone, however near one side's memory.
    Rule("nearest_side", recommend, "nearest_side_speaks", lambda _: lambda sides: False),
    # A runbook's failure counts against it even where the precedent lacked what it is declared for.
    Rule("failure_conditions", recommend, "_condition_absent", lambda _: lambda spec, memory, runbook, catalog: ()),
    # A reconciled note's thresholds are not read against the values a page reports.
    Rule("note_thresholds", recommend, "note_readings", lambda _: lambda c, runbooks, values: [[] for _ in runbooks]),
    # A runbook a manual fix's confirmed outcome names describes it only as far as the words match.
    Rule("cited_fix", catalog, "cites", lambda _: lambda memory, runbook: False),
    # A stale fix is replaced by the best fit for the page, not by the runbook declared for what it was.
    Rule("successor", recommend, "successor", lambda _: lambda spec, stale, catalog, topology, excluded=(): None),
    # The matches are listed in their similarity's order, whatever runbook the answer recommends.
    Rule("where_it_worked", recommend, "lead_with_where_it_worked", lambda _: lambda top, runbook: list(top)),
)


@contextmanager
def rule_off(rule: Rule | None) -> Iterator[None]:
    """The scoring without `rule` while the block runs; as written again after it."""
    if rule is None:
        yield
        return
    held = getattr(rule.module, rule.attribute)
    setattr(rule.module, rule.attribute, rule.off(held))
    text.tokens_cache_clear()  # tokens are cached by text, and a rule may change them
    try:
        yield
    finally:
        setattr(rule.module, rule.attribute, held)
        text.tokens_cache_clear()


@dataclass(frozen=True)
class Variant:
    name: str  # "all", "term:lexical", "policy:fix_failed_here", "rule:recognition", "rule:ruled_out"
    settings: Settings
    chain: tuple[gate.Policy, ...]
    rule: Rule | None = None  # a RULES entry turned off while this variant replays


def without_term(weights: Weights, term: str) -> Weights:
    """The weights with `term` at 0 and the others scaled up to add to 1 again."""
    rest = 1.0 - getattr(weights, term)
    if rest <= 0:
        raise ValueError(f"the {term} term holds all the weight: nothing is left to scale")
    return Weights(**{f.name: 0.0 if f.name == term else getattr(weights, f.name) / rest for f in fields(weights)})


# What the chain is for, not a rule in it: the novel mode, the answer when nothing
# can be chosen (every later policy reads the chosen fix), and acting.
STRUCTURAL = (gate.nothing_similar, gate.no_runbook_remembered, gate.act)


def variants(settings: Settings = Settings(), chain: Sequence[gate.Policy] = gate.CHAIN) -> list[Variant]:
    """The full gate, then each term, policy and rule removed in turn (not the chain's STRUCTURAL ones)."""
    out = [Variant("all", settings, tuple(chain))]
    for term in TERMS:
        out.append(Variant(f"term:{term}", replace(settings, weights=without_term(settings.weights, term)),
                           tuple(chain)))
    for policy in chain:
        if policy in STRUCTURAL:
            continue
        out.append(Variant(f"policy:{policy.__name__}", settings, tuple(p for p in chain if p is not policy)))
    # A floor at the novel bar leaves no precedent below the bar to recognise.
    out.append(Variant("rule:recognition", replace(settings, recognition_floor=settings.novel_bar), tuple(chain)))
    # Look-alikes within the window of the best precedent vote with it; without the window only the best does.
    out.append(Variant("rule:evidence_window", replace(settings, evidence_window=0), tuple(chain)))
    out += [Variant(f"rule:{rule.name}", settings, tuple(chain), rule) for rule in RULES]
    return out


@dataclass(frozen=True)
class Replayed:
    """One history under one variant: its memory-on scores and each incident's answer."""

    scores: dict[str, float]
    answers: dict[str, tuple[str, str | None, str]]  # incident -> (mode, runbook, the deciding reason)


async def replay_variant(paths: Sequence[Path], variant: Variant) -> list[Replayed]:
    out = []
    for path in paths:
        with rule_off(variant.rule):
            result = await run_replay(path, ["on"], settings=variant.settings, chain=variant.chain)
        recs = {r.incident: r.assessment.recommendation for r in result["_rows"]}
        answers = {name: (rec.mode, rec.runbook, rec.reasons[-1]) for name, rec in recs.items()}
        out.append(Replayed(result["on"], answers))
    return out


def plain_precedent_at_1(path: Path) -> float:
    """precedent@1 of the plainest ranking: BM25 of the incident's words over each remembered
    incident's words and its confirmed root cause and summary, nothing else.

    The first round's unseen histories were ranked better by this than by the
    full similarity, whose extra terms had been fitted to the histories at hand;
    the ablation prints it beside the full ranking so that a term which only
    fits the histories it was chosen on shows as a gap closing or turning.
    """
    specs: dict[str, IncidentSpec] = {}
    remembered: dict[str, list[str]] = {}  # a corrected outcome replaces the first, as in memory
    hits = recurrences = 0
    for event in read_events(path):
        if event.type == "incident":
            obj = event.raw.get("object") or {}
            spec = IncidentSpec.model_validate(as_stored(obj.get("spec") or {}))  # as the replay reads it
            specs[obj.get("metadata", {}).get("name", "")] = spec
            truth = event.raw.get("truth") or {}
            if truth.get("novel"):
                continue
            recurrences += 1
            if remembered:
                names = list(remembered)
                scores = LexicalScorer([remembered[n] for n in names]).bm25(incident_words(spec))
                best = max(range(len(names)), key=scores.__getitem__)
                # Without a word in common it has found nothing (a tie would name the oldest).
                hits += scores[best] > 0 and names[best] in (truth.get("precedents") or [])
        elif event.type == "outcome" and event.raw.get("incident") in specs:
            name = event.raw["incident"]
            resolution = event.raw.get("resolution") or {}
            said = f"{resolution.get('rootCause') or ''} {resolution.get('summary') or ''}"
            remembered[name] = incident_words(specs[name]) + text.tokens(said)
    return hits / recurrences if recurrences else 0.0


@dataclass(frozen=True)
class Rotation:
    left_out: int  # index of the history the other two choose for
    choice: str  # "keep", "drop", or "tie" when the part moves nothing on the other two
    worth: float  # objective the left-out history gains by the choice (a tie counts as keeping: the part is there)


def rotations(full: Sequence[float], ablated: Sequence[float]) -> list[Rotation]:
    """Leave one history out: the other two keep the part when it raises their summed objective."""
    out = []
    for i in range(len(full)):
        pair_gain = sum(f - a for j, (f, a) in enumerate(zip(full, ablated)) if j != i)
        choice = "keep" if pair_gain > 1e-9 else "drop" if pair_gain < -1e-9 else "tie"
        gain = full[i] - ablated[i]
        out.append(Rotation(i, choice, round(-gain if choice == "drop" else gain, 4)))
    return out


def verdict(rots: Sequence[Rotation], decided: int, changed: int) -> str:
    if all(r.choice == "tie" and abs(r.worth) < 1e-9 for r in rots):
        if not decided:
            return "never decides here"
        return f"moves no score: decides {decided} answers, {changed} of them another way without it"
    if all(r.choice == "drop" for r in rots):
        return "goes: every history does better without it"
    if all(r.choice != "drop" and r.worth >= -1e-9 for r in rots) and any(r.worth > 1e-9 for r in rots):
        return "earns its place"
    return "does not carry: the rotations split"


def changed_answers(full: Replayed, ablated: Replayed, whole: bool = False) -> list[str]:
    """Incidents whose mode or runbook differ without the part (`whole`: or the reason that decided them)."""
    n = 3 if whole else 2
    return [name for name, answer in full.answers.items() if ablated.answers.get(name, ())[:n] != answer[:n]]


def table(labels: Sequence[str], results: dict[str, list[Replayed]], plain: Sequence[float]) -> str:
    full_runs = results["all"]
    full = [objective(r.scores) for r in full_runs]
    width = max(max(len(n) for n in results), len("(precedent@1, plain BM25)")) + 2
    head = f"{'removed':<{width}}" + "".join(f"{label:>12}" for label in labels)
    head += "".join(f"{'out ' + label:>14}" for label in labels) + "  verdict"
    lines = [head, f"{'(objective, all)':<{width}}" + "".join(f"{f:>12.3f}" for f in full),
             f"{'(precedent@1, all)':<{width}}" + "".join(f"{r.scores['precedent_at_1']:>12.3f}" for r in full_runs),
             f"{'(precedent@1, plain BM25)':<{width}}" + "".join(f"{p:>12.3f}" for p in plain)]
    for name, runs in results.items():
        if name == "all":
            continue
        ablated = [objective(r.scores) for r in runs]
        rots = rotations(full, ablated)
        changed = sum(len(changed_answers(f, a)) for f, a in zip(full_runs, runs))
        decided = sum(len(changed_answers(f, a, whole=True)) for f, a in zip(full_runs, runs))
        # Positive: the part helps that history (its objective falls without it).
        row = f"{name:<{width}}" + "".join(f"{f - a:>+12.3f}" for f, a in zip(full, ablated))
        row += "".join(f"{r.choice + ' ' + format(r.worth, '+.3f'):>14}" for r in rots)
        lines.append(row + "  " + verdict(rots, decided, changed))
    return "\n".join(lines)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ablation", help="replay histories with each similarity term and gate policy removed in turn")
    p.add_argument("datasets", nargs="+", type=Path, metavar="HISTORY")
    p.add_argument("--json", action="store_true", help="print each variant's scores per history as JSON")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    missing = [str(d) for d in args.datasets if not d.is_file()]
    if missing:
        print(f"recall ablation: no such dataset file: {', '.join(missing)}", file=sys.stderr)
        return 2
    results: dict[str, list[Replayed]] = {}
    try:
        for variant in variants(OperatorSettings.from_env(os.environ).gate()):
            results[variant.name] = asyncio.run(replay_variant(args.datasets, variant))
    except (DatasetError, ConfigError, ValueError) as exc:  # a bad line, a bad setting, one term with all the weight
        print(f"recall ablation: {exc}", file=sys.stderr)
        return 2
    labels = [d.parent.name if d.name == "history.jsonl" else d.stem for d in args.datasets]
    plain = [round(plain_precedent_at_1(d), 4) for d in args.datasets]
    if args.json:
        print(json.dumps({"histories": labels, "objective": {name: [objective(r.scores) for r in runs]
                                                              for name, runs in results.items()},
                          "scores": {name: [r.scores for r in runs] for name, runs in results.items()},
                          "plain_precedent_at_1": plain}))
    else:
        print(table(labels, results, plain))
    return 0
