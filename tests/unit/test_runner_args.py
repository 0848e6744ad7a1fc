"""`recall run` arguments that are refused before anything starts, and where the bridge writes."""

from __future__ import annotations

import argparse

import pytest

from recall_operator import runner
from recall_operator.cli import main


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "name at least one --namespace, or --all-namespaces"),
        # Incidents the bridge opened where nobody watches would never be triaged.
        (["-n", "shop", "--bridge-port", "9094", "--bridge-namespace", "payments"],
         "--bridge-namespace payments is not watched"),
        (["-A", "--bridge-port", "9094", "--bridge-namespace", "Alerts_NS"], "is not a namespace name"),
        (["-A", "--panel-url", "javascript:alert(1)"], "is not an http(s) URL"),
        (["-A", "--panel-url", "panel.example"], "is not an http(s) URL"),
    ],
)
def test_run_refuses_before_starting(capsys, args: list[str], message: str) -> None:
    assert main(["run", *args]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "namespace"),
    [
        (["-n", "shop", "-n", "payments"], "shop"),
        (["-n", "shop", "-n", "payments", "--bridge-namespace", "payments"], "payments"),
        (["-A", "--bridge-namespace", "alerts"], "alerts"),
        (["-A"], "default"),
    ],
)
def test_bridge_namespace(args: list[str], namespace: str) -> None:
    parser = argparse.ArgumentParser()
    runner.register(parser.add_subparsers())
    assert runner.bridge_namespace(parser.parse_args(["run", *args])) == namespace


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        # Whoever reaches the bridge opens Incidents as the operator: off loopback it needs a token.
        (["--bridge-host", "0.0.0.0"], "--bridge-host 0.0.0.0 is reachable from other hosts: give --bridge-token-file"),
        (["--bridge-host", ""], "(every address) is reachable from other hosts"),
        (["--bridge-host", "0.0.0.0", "--bridge-token-file", "{missing}"], "cannot be read"),
        (["--bridge-host", "0.0.0.0", "--bridge-token-file", "{empty}"], "is empty"),
    ],
)
def test_run_refuses_an_open_bridge(capsys, tmp_path, extra: list[str], message: str) -> None:
    empty = tmp_path / "empty"
    empty.write_text("\n")
    args = [a.format(missing=tmp_path / "nope", empty=empty) for a in extra]
    assert main(["run", "-A", "--bridge-port", "9094", *args]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(("host", "loopback"), [("127.0.0.1", True), ("127.0.0.2", True), ("::1", True),
                                                ("localhost", True), ("0.0.0.0", False), ("", False),
                                                ("10.0.0.1", False), ("::", False)])
def test_loopback_only(host: str, loopback: bool) -> None:
    assert runner.loopback_only(host) is loopback
