"""An API request the server accepts and never answers ends with an error instead of blocking its thread for ever."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from recall_operator.kube import client as kube

KUBECONFIG = """apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:%d"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
"""


@pytest.fixture()
def silent_listener() -> Iterator[tuple[int, list[socket.socket]]]:
    """A port that accepts connections and never says a word (a half-open connection's far end), and them."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1], accepted
    stop.set()
    thread.join()
    for conn in accepted:
        conn.close()
    listener.close()


def _call(api: Any, **kwargs: Any) -> BaseException | None:
    """Send one GET on its own thread; the error it ended with, or None while it still waits after 20 s."""
    ended: list[BaseException] = []

    def send() -> None:
        try:
            kube._send(api, "GET", "/api/v1/namespaces", None, "application/json", **kwargs)
        except BaseException as exc:  # what ends it is the point of the test
            ended.append(exc)

    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    thread.join(20)
    return ended[0] if ended else None


@pytest.fixture()
def silent_kubeconfig(silent_listener: tuple[int, list[socket.socket]], tmp_path: Path,
                      monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[socket.socket]]:
    """A kubeconfig ($KUBECONFIG too) whose server is the silent listener, and the connections it accepted."""
    port, accepted = silent_listener
    config = tmp_path / "kubeconfig"
    config.write_text(KUBECONFIG % port)
    monkeypatch.setenv("KUBECONFIG", str(config))
    return config, accepted


def _timed_out(ended: BaseException | None) -> bool:
    return ended is not None and ("timed out" in str(ended).lower() or "timeout" in type(ended).__name__.lower())


def test_a_request_without_a_timeout_of_its_own_gives_up(silent_kubeconfig: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kube, "API_READ_TIMEOUT", 0.5)
    ended = _call(kube.api_client())
    assert ended is not None, "the request still waits for an answer that never comes"
    assert _timed_out(ended), repr(ended)


def test_a_callers_own_timeout_still_decides(silent_kubeconfig: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kube, "API_READ_TIMEOUT", 3600.0)  # the default alone would wait an hour
    ended = _call(kube.api_client(), timeout=0.5)
    assert ended is not None, "the caller's timeout was not used"


def test_the_bridge_asks_a_silent_api_server_once_not_four_times(silent_kubeconfig: Any,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # urllib3 re-sends a timed-out read three times: the bridge's 30 s became 120 s before Alertmanager heard.
    from recall_operator.bridge import server

    _, accepted = silent_kubeconfig
    monkeypatch.setattr(server, "REQUEST_TIMEOUT", 0.3)
    writer = server.IncidentWriter(server.load_api_client(), "ns")
    with pytest.raises(Exception, match="(?i)timed? ?out"):
        writer._read("alert-0123456789abcdef")
    writer.close()
    assert len(accepted) == 1


def test_the_plugin_asks_a_silent_api_server_once(silent_kubeconfig: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # A person running `kubectl recall` waited four read timeouts on a server that never answered.
    from recall_operator.plugin import Cluster

    config, accepted = silent_kubeconfig
    monkeypatch.setattr(kube, "API_READ_TIMEOUT", 0.3)
    cluster = Cluster(str(config), None, "ns")
    assert cluster.namespace == "ns"
    ended = _call(cluster.api)
    cluster.close()
    assert _timed_out(ended), repr(ended)
    assert len(accepted) == 1, f"asked {len(accepted)} times"
