"""The README's commands, checked against the real parsers so that the documentation cannot rot.

Every `recall ...`, `kubectl recall ...` and `make ...` line in the README's
code blocks must name a subcommand or target that exists, with flags that
its parser accepts. The replay table's figures are checked by running replay.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from recall_operator import cli, plugin

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def _commands(prefix: str) -> list[str]:
    # Every fenced block is paired, whatever its language, so a yaml block cannot shift the pairs.
    blocks = [body for lang, body in re.findall(r"```(\w*)\n(.*?)```", README, flags=re.S) if lang in ("", "sh", "console")]
    lines = []
    for block in blocks:
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("#")[0].strip().removeprefix("$ ")
            if line.startswith(prefix):
                lines.append(line)
    return lines


def _flags(line: str) -> list[str]:
    return [w.split("=")[0] for w in re.findall(r"(?<![\w-])--[a-z][a-z-]*(?:=\S+)?", line)]


def _help(main, argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as exit_:
        main([*argv, "--help"])
    assert exit_.value.code == 0, f"{argv} is not a valid command"
    return out.getvalue()


@pytest.mark.parametrize("line", _commands("recall "))
def test_recall_commands_in_the_readme_exist_with_their_flags(line: str) -> None:
    words = shlex.split(line.replace("[", " ").replace("]", " ").replace("|", " "))
    sub = [w for w in words[1:3] if re.fullmatch(r"[a-z]+", w)][:1]
    if sub == ["cluster"]:
        sub = ["cluster", "up"]
    text = _help(cli.main, sub)
    for flag in _flags(line):
        assert flag in text, f"README says `{line}` but `recall {' '.join(sub)}` has no {flag}"


@pytest.mark.parametrize("line", _commands("kubectl recall "))
def test_kubectl_recall_commands_in_the_readme_exist_with_their_flags(line: str) -> None:
    words = shlex.split(line)
    text = _help(plugin.main, [words[2]])
    for flag in _flags(line):
        assert flag in text, f"README says `{line}` but `kubectl recall {words[2]}` has no {flag}"


def test_make_targets_in_the_readme_exist() -> None:
    makefile = (ROOT / "Makefile").read_text()
    for line in _commands("make "):
        target = line.split()[1]
        assert re.search(rf"^{re.escape(target)}:", makefile, flags=re.M), f"README names `make {target}`"


def test_there_are_commands_to_check() -> None:
    assert _commands("recall ") and _commands("kubectl recall ") and _commands("make ")


def test_the_replay_table_in_the_readme_is_what_replay_measures() -> None:
    import asyncio

    from recall_operator.replay import METRICS, run_replay

    histories = ("dev", "dev2", "dev3")
    measured = {
        name: asyncio.run(run_replay(ROOT / "datasets" / name / "history.jsonl", ["on", "off"])) for name in histories
    }
    rows = {m: re.search(rf"^\| {m} \|(.*)\|$", README, flags=re.M) for m in METRICS}
    for metric, row in rows.items():
        assert row, f"the README's replay table has no row for {metric}"
        cells = [float(c) for c in row.group(1).split("|")]
        expected = [measured[name][side][metric] for name in histories for side in ("on", "off")]
        assert cells == pytest.approx(expected, abs=0.0015), f"README {metric}: {cells}, replay: {expected}"
