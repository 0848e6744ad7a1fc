"""`recall replay` on the dev histories: the documented output, safety, memory lift, bad lines, no leakage."""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path

import pytest

from recall_operator import replay as replay_module
from recall_operator.cli import main
from recall_operator.memory.embedded import EmbeddedMemory
from domain_builders import rewritten_history
from support import history

DEV = history("dev")
DEV2 = history("dev2")
DEV3 = history("dev3")
METRICS = {
    "precedent_at_1", "precedent_at_3", "runbook_at_1", "novel_precision", "novel_recall", "unsafe_actionable_rate",
}
ROW_KEYS = {"incident", "memory", "mode", "similarity", "actionability", "runbook", "matches"}


def replay(capsys: pytest.CaptureFixture[str], path: Path, *flags: str) -> dict:
    assert main(["replay", str(path), "--json", *flags]) == 0
    return json.loads(capsys.readouterr().out)


def _json_replay(*argv: str) -> dict | list:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["replay", *argv, "--json"]) == 0
    return json.loads(out.getvalue())


@pytest.fixture(scope="module")
def rows_of() -> dict[Path, list[dict]]:
    # Replaying is the slow part; the leakage test and the row checks share one run per history.
    return {path: _json_replay(str(path), "--per-incident")["rows"] for path in (DEV, DEV2, DEV3)}


@pytest.fixture(scope="module")
def dev_rows(rows_of: dict[Path, list[dict]]) -> list[dict]:
    return rows_of[DEV]


@pytest.fixture(scope="module")
def all_three() -> list[dict]:
    return _json_replay(str(DEV), str(DEV2), str(DEV3))


@pytest.mark.parametrize("index", [0, 1, 2], ids=["dev", "dev2", "dev3"])
def test_both_sides_have_exactly_the_documented_keys_and_never_act_unsafely(all_three: list[dict], index: int) -> None:
    result = all_three[index]
    assert set(result) == {"dataset", "incidents", "on", "off", "lift"}
    assert result["dataset"] == "history.jsonl" and result["incidents"] > 0
    for side in ("on", "off", "lift"):
        assert set(result[side]) == METRICS
    assert result["on"]["unsafe_actionable_rate"] == 0.0
    assert result["off"]["unsafe_actionable_rate"] == 0.0
    assert result["lift"]["precedent_at_1"] > 0.5


@pytest.mark.parametrize("index", [0, 1, 2], ids=["dev", "dev2", "dev3"])
def test_memory_never_chooses_runbooks_worse_than_the_catalog_alone(all_three: list[dict], index: int) -> None:
    result = all_three[index]
    assert result["on"]["runbook_at_1"] >= result["off"]["runbook_at_1"], result


BLIND = ("dispatch", "learning", "build-ci", "payments", "media-parcels", "games", "clinics", "adtech", "voip",
         "observability", "travel", "payroll", "esp")
# Histories on which memory still chooses runbooks no better than the catalog alone (issue 11's
# first target): held to the promise as a known failure, so that fixing it is seen.
BELOW_THE_CATALOG: dict[str, str] = {
    "payroll": "written blind in session 52: memory 0.662 against the catalog's 0.716; two contradictions whose "
               "pages look the same on both sides (its note says so) and manual fixes no runbook is found for",
}


@pytest.fixture(scope="module")
def blind() -> list[dict]:
    return _json_replay(*(str(history(f"blind/{name}")) for name in BLIND))


@pytest.mark.parametrize("index", range(len(BLIND)), ids=BLIND)
def test_on_histories_written_blind_to_the_code_precedents_are_found_and_nothing_unsafe_acts(
    blind: list[dict], index: int
) -> None:
    """datasets/blind/: written after the defaults were chosen, by writers kept from the code.
    Their scores are lower than the dev histories' (README), but memory must still find
    precedents and make nothing unsafe actionable."""
    result = blind[index]
    assert result["incidents"] >= 60
    assert result["on"]["precedent_at_3"] >= 0.9, result["on"]
    assert result["on"]["unsafe_actionable_rate"] == result["off"]["unsafe_actionable_rate"] == 0.0


@pytest.mark.parametrize("index", [
    pytest.param(i, marks=pytest.mark.xfail(strict=True, reason=BELOW_THE_CATALOG[name]))
    if name in BELOW_THE_CATALOG else i
    for i, name in enumerate(BLIND)
], ids=BLIND)
def test_on_histories_written_blind_to_the_code_memory_chooses_better_than_the_catalog(
    blind: list[dict], index: int
) -> None:
    result = blind[index]
    assert result["on"]["runbook_at_1"] > result["off"]["runbook_at_1"], (result["on"], result["off"])


def _terse_half(parity: int):
    """Every other incident that names its alert, rewritten as a bridge page says it: the title
    `[FIRING:1] <alertname> <service>`, the description's first sentence cut to 12 words, one tag,
    no log lines, no deploy. Outcomes stay as written."""
    seen = [0]

    def edit(event: dict) -> dict:
        spec = event.get("object", {}).get("spec", {}) if event["type"] == "incident" else {}
        alertname = (spec.get("labels") or {}).get("alertname")
        if event["type"] == "incident":
            seen[0] += 1
        if alertname and seen[0] % 2 == parity:
            first = re.split(r"[.;]\s", spec.get("description") or "")[0]
            spec.update(title=f"[FIRING:1] {alertname} {spec['service']}", description=" ".join(first.split()[:12]),
                        symptoms=(spec.get("symptoms") or [])[:1])
            spec.pop("errorSignatures", None)
            spec.pop("deployment", None)
        return event

    return edit


@pytest.mark.parametrize(("name", "parity"), [("dev", 0), ("dev", 1), ("dev2", 0), ("dev2", 1)])
def test_with_half_its_pages_terse_memory_still_never_chooses_worse_than_the_catalog(
    tmp_path: Path, name: str, parity: int
) -> None:
    """dev and dev2 are mostly people's reports; an unseen history may be half alert pages.
    Made so, their scores fall (docs/scoring.md), but memory must still choose runbooks at
    least as well as the catalog alone, find precedents, and make nothing unsafe actionable."""
    terse = rewritten_history(name, tmp_path / f"{name}-{parity}.jsonl", _terse_half(parity))
    assert sum("[FIRING:1]" in line for line in terse.read_text().splitlines()) >= 25
    result = asyncio.run(replay_module.run_replay(terse, ["on", "off"]))
    assert result["on"]["runbook_at_1"] >= result["off"]["runbook_at_1"], result["on"]
    assert result["on"]["precedent_at_3"] >= 0.8, result["on"]
    assert result["on"]["unsafe_actionable_rate"] == 0.0


def _bare_title(event: dict) -> dict:
    """An alert page titled as some bridges title it: `<alertname> <service>`, no status, count or region."""
    spec = event.get("object", {}).get("spec", {}) if event["type"] == "incident" else {}
    if (spec.get("labels") or {}).get("alertname"):
        spec["title"] = re.sub(r"\s*\([^)]*\)$", "", re.sub(r"^\[[A-Z]+(:\d+)?\]\s*", "", spec["title"]))
    return event


def test_alert_pages_titled_without_their_status_still_choose_at_least_as_well_as_the_catalog(tmp_path: Path) -> None:
    """dev3's pages say `[FIRING:1] <alertname> <service> (<region>)`; a history may title them barely."""
    bare = rewritten_history("dev3", tmp_path / "bare.jsonl", _bare_title)
    assert sum("[FIRING" in line for line in bare.read_text().splitlines()) == 0
    result = asyncio.run(replay_module.run_replay(bare, ["on", "off"]))
    assert result["on"]["runbook_at_1"] >= result["off"]["runbook_at_1"] + 0.1, result["on"]
    assert result["on"]["precedent_at_3"] >= 0.95, result["on"]
    assert result["on"]["unsafe_actionable_rate"] == 0.0


def _runbooks_without(field: str, every: int):
    """Every `every`-th Runbook applied without `field` (optional in the CRD)."""
    seen = [0]

    def edit(event: dict) -> dict:
        obj = event.get("object") or {}
        if obj.get("kind") == "Runbook":
            seen[0] += 1
            if seen[0] % every == 0:
                obj["spec"].pop(field, None)
        return event

    return edit


def _replay_without(tmp_path: Path, name: str, field: str) -> dict[int, dict]:
    """The history with every Runbook, then every other one, applied without `field`: both sides each."""
    out = {}
    for every in (1, 2):
        changed = rewritten_history(name, tmp_path / f"{name}-{every}.jsonl", _runbooks_without(field, every))
        out[every] = asyncio.run(replay_module.run_replay(changed, ["on", "off"]))
    for result in out.values():
        assert result["on"]["runbook_at_1"] >= result["off"]["runbook_at_1"] + 0.05, result["on"]
        assert result["on"]["unsafe_actionable_rate"] == 0.0
    return out


@pytest.mark.parametrize("name", ["dev", "dev2", "dev3"])
def test_runbooks_that_declare_no_symptoms_are_still_chosen_by_their_words(tmp_path: Path, name: str) -> None:
    """A GitOps repository may hold runbooks without tags. Before the catalog read their words it
    offered none of them: alone it chose right only where no runbook was the answer (0.13 to 0.22)."""
    every_one = _replay_without(tmp_path, name, "symptoms")[1]
    assert every_one["off"]["runbook_at_1"] > 0.4, every_one["off"]


@pytest.mark.parametrize("name", ["dev", "dev2", "dev3"])
def test_runbooks_that_list_no_service_are_chosen_wherever_they_fit(tmp_path: Path, name: str) -> None:
    """A runbook for no service acts on whichever one paged. Before it counted as one for another
    service, the catalog alone chose right 0.30 to 0.40 of the time and memory 0.62 to 0.74."""
    every_one = _replay_without(tmp_path, name, "services")[1]
    assert every_one["off"]["runbook_at_1"] > 0.6, every_one["off"]
    assert every_one["on"]["runbook_at_1"] > 0.8, every_one["on"]


def _runbooks_named_otherwise(event: dict) -> dict:
    """The catalog names its services as Deployments are named, not as the alerts name them."""
    obj = event.get("object") or {}
    if obj.get("kind") == "Runbook":
        obj["spec"]["services"] = [f"{s}-deploy" for s in obj["spec"].get("services") or ()]
    return event


def test_a_catalog_that_names_services_otherwise_is_said_in_the_answers(tmp_path: Path) -> None:
    """Runbooks are matched to spec.service by name; when none is in place, the answer says why none was offered."""
    said = "or a neighbour of it (a runbook is matched to spec.service by name"
    renamed = rewritten_history("dev3", tmp_path / "renamed.jsonl", _runbooks_named_otherwise)
    rows = asyncio.run(replay_module.run_replay(renamed, ["on"]))["_rows"]
    told = [r for r in rows if any(said in x for x in r.assessment.recommendation.reasons)]
    assert len(told) >= len(rows) / 3, len(told)
    assert all(r.assessment.recommendation.runbook is None for r in told)
    as_written = asyncio.run(replay_module.run_replay(history("dev3"), ["on"]))["_rows"]
    assert not [r.incident for r in as_written if any(said in x for x in r.assessment.recommendation.reasons)]


def _merged(out: Path) -> tuple[Path, dict[str, str]]:
    """The three histories as one store's: every event in time order, each topology ConfigMap under a
    name of its own, and the one service name two of them share told apart. Also: incident -> history."""
    events, home = [], {}
    for order, name in enumerate(("dev", "dev2", "dev3")):
        text = history(name).read_text()
        if name == "dev3":
            text = text.replace("auth-service", "hh-auth-service")  # dev has an auth-service of its own
        lines = [json.loads(line) for line in text.splitlines() if line.strip() and not line.startswith("#")]
        for i, event in enumerate(lines):
            obj = event.get("object") or {}
            if obj.get("kind") == "ConfigMap":
                obj["metadata"]["name"] += f"-{name}"
            if event["type"] == "incident":
                home[obj["metadata"]["name"]] = name
            events.append((event["at"], order, i, event))
    out.write_text("".join(json.dumps(e) + "\n" for *_, e in sorted(events, key=lambda e: e[:3])))
    return out, home


def test_another_platforms_memories_in_the_store_cost_each_history_little(tmp_path: Path) -> None:
    """One store may hold several platforms' memories (a Hindsight bank read whole). Replayed as one
    history, each platform's incidents must still choose runbooks at least as well as its catalog alone,
    within 0.05 of its own replay, with the true precedent in the top three and nothing unsafe."""
    merged, home = _merged(tmp_path / "merged.jsonl")
    rows = asyncio.run(replay_module.run_replay(merged, ["on"]))["_rows"]
    assert {home[r.incident] for r in rows} == {"dev", "dev2", "dev3"}
    for name, path in (("dev", DEV), ("dev2", DEV2), ("dev3", DEV3)):
        alone = asyncio.run(replay_module.run_replay(path, ["on", "off"]))
        together = replay_module.score([r for r in rows if home[r.incident] == name])
        assert len([r for r in rows if home[r.incident] == name]) == alone["incidents"]
        assert together["runbook_at_1"] >= alone["off"]["runbook_at_1"], (name, together, alone["off"])
        assert together["runbook_at_1"] >= alone["on"]["runbook_at_1"] - 0.05, (name, together, alone["on"])
        assert together["precedent_at_3"] >= 0.95, (name, together)
        assert together["unsafe_actionable_rate"] == 0.0, (name, together)


def test_several_histories_give_one_object_each_and_their_mean(all_three: list[dict]) -> None:
    assert [r["dataset"] for r in all_three] == ["history.jsonl"] * 3 + ["mean"]
    mean = all_three[-1]
    assert mean["incidents"] == sum(r["incidents"] for r in all_three[:3])
    for metric in METRICS:
        assert mean["on"][metric] == pytest.approx(sum(r["on"][metric] for r in all_three[:3]) / 3, abs=1e-4)


def test_several_histories_print_a_row_each_and_the_mean(capsys) -> None:
    assert main(["replay", str(DEV), str(DEV3), "--memory", "on"]) == 0
    out = capsys.readouterr().out
    table = out[out.index("history "):].splitlines()
    assert [line.split()[0] for line in table[1:]] == [str(DEV.parent / DEV.name), str(DEV3.parent / DEV3.name), "mean"]


def test_one_side_has_no_lift_and_rows_only_when_asked(capsys) -> None:
    result = replay(capsys, DEV2, "--memory", "on", "--per-incident")
    assert set(result) == {"dataset", "incidents", "on", "rows"}
    assert len(result["rows"]) == result["incidents"]
    assert all(set(r) == ROW_KEYS and r["memory"] == "on" for r in result["rows"])


def test_rows_are_per_incident_and_side(dev_rows: list[dict]) -> None:
    on = [r for r in dev_rows if r["memory"] == "on"]
    off = [r for r in dev_rows if r["memory"] == "off"]
    assert len(on) == len(off) > 0
    assert all(0 <= r["similarity"] <= 100 and 0 <= r["actionability"] <= 100 for r in dev_rows)
    assert all(r["matches"] == [] for r in off)  # memory off remembers nothing


PINNED = Path(__file__).with_name("replay_pinned.jsonl")


def pinned_rows(rows_of: dict[Path, list[dict]]) -> list[dict]:
    return [{"history": path.parent.name, **row} for path, rows in rows_of.items() for row in rows]


def test_every_answer_on_the_three_histories_is_the_pinned_one(rows_of: dict[Path, list[dict]]) -> None:
    """Speed work must not move what triage answers: every row of both sides is pinned.

    A change meant to move answers (scoring, the gate) re-pins them with
    `PYTHONPATH=tests python tests/unit/test_replay.py --pin` and says in its commit which moved and why.
    """
    def key(row: dict) -> tuple[str, str, str]:
        return row["history"], row["incident"], row["memory"]

    pinned = {key(r): r for r in map(json.loads, PINNED.read_text().splitlines())}
    now = {key(r): r for r in pinned_rows(rows_of)}
    assert set(now) == set(pinned), sorted(set(now) ^ set(pinned))[:10]
    moved = [f"{'/'.join(k)}: {pinned[k]} -> {now[k]}" for k in sorted(now) if now[k] != pinned[k]]
    assert not moved, f"{len(moved)} answers moved:\n" + "\n".join(moved[:20])


def _with_truths_shuffled(path: Path, tmp_path: Path) -> Path:
    lines = path.read_text(encoding="utf-8").splitlines()
    events = [(i, json.loads(line)) for i, line in enumerate(lines) if line.strip() and not line.startswith("#")]
    incidents = [(i, e) for i, e in events if e["type"] == "incident"]
    truths = [e.get("truth") for _, e in incidents]
    shuffled = truths[1:] + truths[:1]  # a rotation: no incident keeps its own truth
    random.Random(7).shuffle(shuffled)
    assert shuffled != truths
    for (i, e), t in zip(incidents, shuffled):
        e["truth"] = t
        lines[i] = json.dumps(e)
    copy = tmp_path / "history.jsonl"
    copy.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return copy


@pytest.mark.parametrize("path", [DEV, DEV2, DEV3], ids=["dev", "dev2", "dev3"])
def test_shuffling_every_truth_leaves_every_row_unchanged(
    tmp_path: Path, capsys, rows_of: dict[Path, list[dict]], path: Path
) -> None:
    assert replay(capsys, _with_truths_shuffled(path, tmp_path), "--per-incident")["rows"] == rows_of[path]


@pytest.mark.parametrize("name", BLIND)
def test_shuffling_every_truth_of_a_blind_history_leaves_every_row_unchanged(tmp_path: Path, capsys, name: str) -> None:
    path = history(f"blind/{name}")
    rows = replay(capsys, path, "--per-incident")["rows"]
    assert replay(capsys, _with_truths_shuffled(path, tmp_path), "--per-incident")["rows"] == rows



def _service_dotted(event: dict) -> dict:
    """An alert page's title as a bridge whose rules name the service `a.b` where the Incident says `a-b`."""
    spec = event.get("object", {}).get("spec", {}) if event["type"] == "incident" else {}
    if (spec.get("labels") or {}).get("alertname"):
        spec["title"] = spec["title"].replace(spec["service"], spec["service"].replace("-", "."))
    return event


def test_a_service_named_with_dots_in_the_alert_titles_moves_no_answer(
    tmp_path: Path, capsys, rows_of: dict[Path, list[dict]]
) -> None:
    """Left in, `mobile.api` is one more word every page of that service shares, and dev3 gave other answers."""
    dotted = rewritten_history("dev3", tmp_path / "dotted.jsonl", _service_dotted)
    assert sum(".api (" in line for line in dotted.read_text().splitlines()) >= 5
    assert replay(capsys, dotted, "--per-incident")["rows"] == rows_of[DEV3]


INCIDENT = {
    "at": "2025-01-02T00:00:00Z", "type": "incident",
    "object": {"kind": "Incident", "metadata": {"name": "inc-1"}, "spec": {"service": "a", "title": "t"}},
}


def _line(**changes) -> str:
    return json.dumps({**INCIDENT, **changes})


@pytest.mark.parametrize(
    ("lines", "line_no", "field"),
    [
        ([_line(), "{not json"], 2, "not valid JSON"),
        ([json.dumps({k: v for k, v in INCIDENT.items() if k != "at"})], 1, "'at'"),
        ([_line(at="2025-01-03T00:00:00Z"), _line(at="2025-01-02T00:00:00Z")], 2, "'at'"),
        ([_line(type="delete")], 1, "'type'"),
        ([_line(object={"kind": "Incident", "metadata": {"name": "inc-1"}, "spec": {"title": "t"}})], 1, "object.spec.service"),
        ([_line(), json.dumps({"at": "2025-01-03T00:00:00Z", "type": "outcome", "incident": "inc-404", "resolution": {}})], 2, "'incident'"),
        ([_line(truth={"novel": "maybe"})], 1, "truth.novel"),
        ([_line(truth={"precedent": ["inc-0"]})], 1, "truth.precedent"),
        ([_line(), _line(at="2025-01-03T00:00:00Z", object="X").replace('"X"', "[" * 5000 + "]" * 5000)],
         2, "nested too deeply"),
    ],
    ids=["bad-json", "missing-at", "unsorted", "unknown-type", "no-service", "unknown-incident", "bad-truth",
         "unknown-truth-field", "nested-too-deeply"],
)
def test_a_malformed_line_exits_2_naming_the_line_and_field(tmp_path: Path, capsys, lines, line_no: int, field: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("# a comment line is not counted as an event\n" + "\n".join(lines) + "\n", encoding="utf-8")
    assert main(["replay", str(path), "--json"]) == 2
    err = capsys.readouterr().err
    assert f"bad.jsonl:{line_no + 1}:" in err  # +1: the comment line
    assert field in err


def test_a_lone_surrogate_escape_reads_as_the_api_server_would_store_it(
    tmp_path: Path, capsys, rows_of: dict[Path, list[dict]]
) -> None:
    # JSON may escape half of a surrogate pair alone ("\ud800"): a cluster keeps U+FFFD for it, and so does
    # replay; it used to stop with a traceback when memory wrote the incident down.
    def with_text(odd: str) -> list[str]:
        out = []
        for line in DEV.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                event = json.loads(line)
                if event["type"] == "incident":
                    event["object"]["spec"]["description"] += f" {odd}"
                elif event["type"] == "outcome":
                    event["resolution"]["summary"] = f"{event['resolution'].get('summary', '')} {odd}"
                line = json.dumps(event)
            out.append(line)
        return out

    lone, stored = tmp_path / "lone.jsonl", tmp_path / "stored.jsonl"
    lone.write_text("\n".join(with_text("\ud800 and \udfff")) + "\n", encoding="utf-8")
    stored.write_text("\n".join(with_text("\ufffd and \ufffd")) + "\n", encoding="utf-8")
    assert "\\ud800" in lone.read_text(encoding="utf-8")
    assert replay(capsys, lone, "--per-incident")["rows"] == replay(capsys, stored, "--per-incident")["rows"]


@pytest.mark.parametrize("typo", ["precedent", "unsafe_runbooks", "Novel", "runbooks"])
def test_a_misspelt_answer_key_is_refused_naming_the_field_it_resembles(tmp_path: Path, capsys, typo: str) -> None:
    path = tmp_path / "typo.jsonl"
    path.write_text(_line(truth={typo: []}) + "\n", encoding="utf-8")
    assert main(["replay", str(path), "--json"]) == 2
    err = capsys.readouterr().err
    assert f"'truth.{typo}'" in err and "did you mean" in err, err


def test_an_answer_key_the_format_does_not_define_is_ignored_and_said_once(
    tmp_path: Path, capsys, rows_of: dict[Path, list[dict]]
) -> None:
    # A history may carry more about each incident than replay scores (a family,
    # a note): it is still scored, the same, and the command says what it ignored.
    lines = DEV.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if line.strip() and not line.startswith("#") and json.loads(line)["type"] == "incident":
            event = json.loads(line)
            event["truth"] = {**event["truth"], "family": "f", "notes": "seen at 3 a.m."}
            lines[i] = json.dumps(event)
    copy = tmp_path / "history.jsonl"
    copy.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["replay", str(copy), "--json", "--per-incident"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["rows"] == rows_of[DEV]
    notices = err.strip().splitlines()
    assert len(notices) == 2, err  # one a key, not one a line or a side
    assert any("'truth.family'" in n for n in notices) and any("'truth.notes'" in n for n in notices), err


def test_a_null_reads_as_the_field_left_out_as_the_api_server_stores_it(
    tmp_path: Path, capsys, rows_of: dict[Path, list[dict]]
) -> None:
    # dev3's alert pages leave out what they do not know; a script may write null for it instead.
    optional = {"incident": ("severity", "description", "symptoms", "errorSignatures", "deployment", "startedAt", "labels"),
                "outcome": ("rootCause", "summary", "runbook", "actions", "confirmedBy")}
    lines, nulls = [], 0
    for line in DEV3.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            event = json.loads(line)
            part = {"incident": lambda e: e["object"]["spec"], "outcome": lambda e: e["resolution"]}.get(event["type"])
            if part is not None:
                fields = part(event)
                left_out = [k for k in optional[event["type"]] if k not in fields]
                fields.update(dict.fromkeys(left_out))
                nulls += len(left_out)
            line = json.dumps(event)
        lines.append(line)
    assert nulls > 50  # the terse pages and the manual fixes leave plenty out
    copy = tmp_path / "history.jsonl"
    copy.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert replay(capsys, copy, "--per-incident")["rows"] == rows_of[DEV3]


def test_a_history_saved_with_a_byte_order_mark_or_crlf_lines_reads_the_same(
    tmp_path: Path, capsys, rows_of: dict[Path, list[dict]]
) -> None:
    copy = tmp_path / "history.jsonl"
    copy.write_bytes(b"\xef\xbb\xbf" + DEV.read_bytes().replace(b"\n", b"\r\n"))
    assert replay(capsys, copy, "--per-incident")["rows"] == rows_of[DEV]


def test_a_missing_file_exits_2(tmp_path: Path, capsys) -> None:
    assert main(["replay", str(tmp_path / "nope.jsonl")]) == 2
    assert "no such dataset" in capsys.readouterr().err


def test_replay_scores_with_the_settings_the_operator_would_read(capsys, monkeypatch) -> None:
    # An engineer tries a bar on history before putting it in the Deployment.
    monkeypatch.setenv("RECALL_NOVEL_BAR", "100")
    monkeypatch.setenv("RECALL_ACTIONABLE_BAR", "100")  # never under the novel bar
    monkeypatch.setenv("RECALL_RECOGNITION_FLOOR", "100")  # nothing below the bar is recognised either
    rows = replay(capsys, DEV, "--memory", "on", "--per-incident")["rows"]
    # Under the bar only an answer whose nearest incident the catalog's offer fixed, within 15 points
    # of the bar (Settings.offer_window), is not novel; it is advice.
    assert all(r["mode"] == "novel" for r in rows if r["similarity"] < 85)
    assert all(r["mode"] in ("novel", "advisory") for r in rows if r["similarity"] < 100)
    assert sum(r["mode"] == "novel" for r in rows) > len(rows) // 2


def test_a_bad_setting_exits_2_naming_the_variable(capsys, monkeypatch) -> None:
    monkeypatch.setenv("RECALL_NOVEL_BAR", "high")
    assert main(["replay", str(DEV)]) == 2
    assert "RECALL_NOVEL_BAR" in capsys.readouterr().err


def test_a_reason_never_counts_more_witnesses_than_it_names(tmp_path: Path) -> None:
    """"N of M independent precedents": M counts every precedent that voted, the near side of a contradiction included."""
    import asyncio
    import re

    from recall_operator.memory import open_backend
    from recall_operator.memory.base import MemorySettings
    from recall_operator.replay import replay_side

    async def reasons() -> list[str]:
        memory = open_backend(MemorySettings(backend="embedded", path=str(tmp_path / "memory.sqlite3")))
        try:
            rows = await replay_side(DEV3, memory)
        finally:
            await memory.close()
        return [r for row in rows for r in row.assessment.recommendation.reasons]

    counts = [tuple(map(int, m.groups())) for r in asyncio.run(reasons())
              if (m := re.match(r"(\d+) of (\d+) independent precedents", r))]
    assert counts, "dev3 has recommendations resting on precedents"
    assert all(0 < n <= of for n, of in counts), [c for c in counts if not 0 < c[0] <= c[1]]


if __name__ == "__main__":  # PYTHONPATH=tests python tests/unit/test_replay.py --pin
    import sys

    if sys.argv[1:] != ["--pin"]:
        sys.exit("usage: PYTHONPATH=tests python tests/unit/test_replay.py --pin   (rewrites replay_pinned.jsonl from a replay now)")
    rows = pinned_rows({path: _json_replay(str(path), "--per-incident")["rows"] for path in (DEV, DEV2, DEV3)})
    PINNED.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    print(f"pinned {len(rows)} rows in {PINNED.name}")


def _catalog_of(path: Path) -> set[str]:
    return {e.raw["object"]["metadata"]["name"] for e in replay_module.read_events(path)
            if e.type == "apply" and e.raw["object"].get("kind") == "Runbook"}


@pytest.fixture(scope="module")
def on_a_shared_store(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, list[replay_module.Row]]:
    """Each history replayed on a store that already holds the other two's memories.

    A Hindsight bank shared across clusters (RECALL_HINDSIGHT_SCOPE=bank) holds other
    platforms' incidents and runbooks; the histories are three such platforms.
    """
    async def run(target: Path) -> list[replay_module.Row]:
        store = EmbeddedMemory(tmp_path_factory.mktemp("shared") / "memory.sqlite3")
        try:
            for other in (DEV, DEV2, DEV3):
                if other != target:
                    await replay_module.replay_side(other, store)
            return await replay_module.replay_side(target, store)
        finally:
            await store.close()

    return {path: asyncio.run(run(path)) for path in (DEV, DEV2, DEV3)}


@pytest.mark.parametrize("index", [0, 1, 2], ids=["dev", "dev2", "dev3"])
def test_a_store_shared_with_other_platforms_never_recommends_their_runbooks(
    on_a_shared_store: dict[Path, list[replay_module.Row]], all_three: list[dict], index: int
) -> None:
    path = (DEV, DEV2, DEV3)[index]
    rows = on_a_shared_store[path]
    catalog = _catalog_of(path)
    foreign = [(r.incident, r.assessment.recommendation.runbook) for r in rows
               if r.assessment.recommendation.runbook not in catalog | {None}]
    assert foreign == [], "recommended a runbook this platform's catalog does not hold"
    scores = replay_module.score(rows)
    assert scores["unsafe_actionable_rate"] == 0.0
    # Other platforms' memories may cost some of memory's lift, never all of it.
    assert scores["runbook_at_1"] >= all_three[index]["off"]["runbook_at_1"], scores


def test_a_second_outcome_corrects_the_first_as_on_the_cluster(tmp_path: Path) -> None:
    """Memory holds the newest outcome; the runbook the first one counted is not counted again."""
    runbook = {"at": "2025-01-01T00:00:00Z", "type": "apply", "object": {
        "apiVersion": "recall.dev/v1alpha1", "kind": "Runbook", "metadata": {"name": "cart-flush-cache"},
        "spec": {"title": "Flush the cart cache", "services": ["cart"], "symptoms": ["latency-spike"],
                 "steps": [{"name": "flush", "image": "redis:7.2", "command": ["redis-cli", "flushall"],
                            "risk": "low"}]}}}
    spec = {"service": "cart", "severity": "high", "title": "cart checkout latency at 4 s after the cache filled",
            "description": "cart p99 latency 4 s, cache memory full, evictions at zero", "symptoms": ["latency-spike"]}

    def incident(name: str, at: str) -> dict:
        return {"at": at, "type": "incident", "truth": {"precedents": [], "novel": True},
                "object": {"kind": "Incident", "metadata": {"name": name}, "spec": spec}}

    def outcome(at: str, result: str, cause: str) -> dict:
        return {"at": at, "type": "outcome", "incident": "inc-1", "resolution": {
            "rootCause": cause, "summary": f"flushed the cart cache: {result}", "runbook": "cart-flush-cache",
            "actions": [{"action": "run runbook cart-flush-cache", "result": result}], "confirmedBy": "oncall"}}

    first = [runbook, incident("inc-1", "2025-01-02T00:00:00Z"),
             outcome("2025-01-02T01:00:00Z", "succeeded", "the cache filled with stale carts")]
    later = [incident("inc-2", "2025-01-05T00:00:00Z")]
    correction = outcome("2025-01-03T00:00:00Z", "failed", "the latency came back within the hour: not the cache")

    async def rows_of(events: list[dict]) -> list[replay_module.Row]:
        run = tmp_path / f"run-{len(list(tmp_path.iterdir()))}"  # a store and a file of its own each
        run.mkdir()
        path = run / "history.jsonl"
        path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
        store = EmbeddedMemory(run / "memory.sqlite3")
        try:
            return await replay_module.replay_side(path, store)
        finally:
            await store.close()

    plain = asyncio.run(rows_of([*first, *later]))[-1].assessment
    corrected = asyncio.run(rows_of([*first, correction, *later]))[-1].assessment
    assert plain.matches[0].incident == corrected.matches[0].incident == "inc-1"
    assert (plain.matches[0].outcome, corrected.matches[0].outcome) == ("succeeded", "failed")
    assert plain.recommendation.runbook == "cart-flush-cache"
    assert any("failed" in w and "inc-1" in w for w in corrected.recommendation.warnings), corrected.recommendation
    assert corrected.recommendation.mode != "actionable"
    # A correction that restates a success is counted once, from the first outcome: one run,
    # one success is 0.67 with the Beta prior of 1 of 2 (twice would be 0.75).
    restated = outcome("2025-01-03T00:00:00Z", "succeeded", "stale carts filled the cache after the TTL change")
    again = asyncio.run(rows_of([*first, restated, *later]))[-1].assessment
    assert "win rate of cart-flush-cache is 0.67 (smoothed)" in again.recommendation.reasons, again.recommendation
