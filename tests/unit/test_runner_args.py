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


@pytest.mark.parametrize("argv", [["run", "-A", "--panel-port", "8090", "--panel-host", "0.0.0.0"],
                                  ["run", "-A", "--panel-port", "8090", "--panel-host", "10.0.0.7"],
                                  ["panel", "--host", "0.0.0.0"]])
def test_the_panel_is_never_bound_where_other_hosts_reach_it(capsys, argv: list[str]) -> None:
    # It has no login and reads every Incident with the identity it runs as.
    assert main(argv) == 2
    assert "is reachable from other hosts, and the panel has no login" in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "message"), [
    (["run", "-A", "--metrics-port", "70000"], "--metrics-port: 70000 is not a port: 1 to 65535"),
    (["run", "-A", "--bridge-port", "-1"], "--bridge-port: -1 is not a port"),
    (["run", "-A", "--panel-port", "http"], "--panel-port: 'http' is not a port number"),
    (["panel", "--port", "0"], "--port: 0 is not a port"),
])
def test_a_port_out_of_range_is_refused_before_anything_starts(capsys, argv: list[str], message: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(("host", "loopback"), [("127.0.0.1", True), ("127.0.0.2", True), ("::1", True),
                                                ("localhost", True), ("0.0.0.0", False), ("", False),
                                                ("10.0.0.1", False), ("::", False)])
def test_loopback_only(host: str, loopback: bool) -> None:
    assert runner.loopback_only(host) is loopback


def _parsed(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    runner.register(parser.add_subparsers())
    return parser.parse_args(["run", "-A", *argv])


@pytest.mark.parametrize(
    ("flags", "env"),
    [
        (["--novel-bar", "40"], {"RECALL_NOVEL_BAR": "40"}),
        (["--four-eyes", "false"], {"RECALL_FOUR_EYES": "false"}),
        (["--memory-backend", "hindsight", "--hindsight-url", "http://m:8888"],
         {"RECALL_MEMORY_BACKEND": "hindsight", "RECALL_HINDSIGHT_URL": "http://m:8888"}),
        # The chart passes the older spelling --memory.
        (["--memory", "hindsight"], {"RECALL_MEMORY_BACKEND": "hindsight"}),
        (["--memory-path", "/data/m.sqlite3"], {"RECALL_MEMORY_PATH": "/data/m.sqlite3"}),
    ],
)
def test_run_flags_and_variables_give_the_same_settings(flags: list[str], env: dict[str, str]) -> None:
    by_flags = runner.settings_from_args(_parsed(*flags), {})
    by_env = runner.settings_from_args(_parsed(), env)
    assert by_flags == by_env
    assert by_flags != runner.settings_from_args(_parsed(), {})


def test_run_flags_win_over_the_environment() -> None:
    s = runner.settings_from_args(_parsed("--novel-bar", "45"), {"RECALL_NOVEL_BAR": "40", "RECALL_FOUR_EYES": "off"})
    assert (s.novel_bar, s.four_eyes) == (45, False)


def test_every_setting_but_the_secrets_has_a_run_flag() -> None:
    from recall_operator.config import OperatorSettings

    args = vars(_parsed())
    for name in OperatorSettings.model_fields:
        assert (f"setting_{name}" in args) is (name not in runner.ENV_ONLY), name
    # A secret on a command line shows in every process listing.
    assert runner.ENV_ONLY == {"status_key", "hindsight_key", "hindsight_api_key"}


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["--novel-bar", "high"], {}, "recall run: --novel-bar 'high' is not a number"),
        (["--memory", "postgres"], {}, "recall run: --memory-backend 'postgres' is not one of embedded, hindsight"),
        ([], {"RECALL_AUTO_DRY_RUN": "sometimes"}, "recall run: RECALL_AUTO_DRY_RUN='sometimes' is not true or false"),
        ([], {"RECALL_APPROVERS_HIGH": "3"}, "RECALL_APPROVERS_CRITICAL=2 is fewer than RECALL_APPROVERS_HIGH=3"),
        (["--hindsight-url", "notaurl"], {}, "recall run: --hindsight-url 'notaurl' is not an http(s) URL with a host"),
        ([], {"RECALL_HINDSIGHT_URL": "ftp://h:1"}, "RECALL_HINDSIGHT_URL='ftp://h:1' is not an http(s) URL"),
        # Opened lazily, a store nobody can create left a ready operator triaging without memory.
        (["--memory-path", "/nonexistent-dir/x.sqlite3"], {},
         "recall run: --memory-path /nonexistent-dir/x.sqlite3: directory /nonexistent-dir does not exist"),
        ([], {"RECALL_MEMORY_PATH": "/nonexistent-dir/x.sqlite3"}, "RECALL_MEMORY_PATH /nonexistent-dir/x.sqlite3:"),
    ],
)
def test_run_refuses_a_wrong_setting_naming_its_flag_or_variable(
    capsys, monkeypatch, args: list[str], env: dict[str, str], message: str
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(["run", "-A", *args]) == 2
    assert message in capsys.readouterr().err


def test_a_server_that_cannot_listen_is_said_with_its_flag() -> None:
    import asyncio
    import socket

    async def listen(port: int) -> None:
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", port)
        server.close()

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(runner.CannotServe, match=rf"^on --metrics-port {port}: .*in use"):
            asyncio.run(runner._serving(f"--metrics-port {port}", listen(port)))


def test_the_replica_started_first_has_the_highest_peering_priority() -> None:
    from recall_operator.runner import standby_priority

    first, later = standby_priority(1_000.0, 999), standby_priority(1_000.001, 0)
    assert first > later  # one millisecond apart, whatever the tiebreak
    assert standby_priority(1_000.0, 1) != standby_priority(1_000.0, 2)  # the same millisecond: still apart


def test_the_collector_skips_what_start_up_loaded_and_collects_in_full_rarely() -> None:
    import gc

    from recall_operator.runner import FULL_COLLECTION_EVERY, settle_collector

    held = gc.get_threshold()
    try:
        settle_collector()
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == (held[0], held[1], FULL_COLLECTION_EVERY) and FULL_COLLECTION_EVERY > held[2]
    finally:
        gc.unfreeze()
        gc.set_threshold(*held)
