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
