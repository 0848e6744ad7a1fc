"""The control plane's ports: picked where outgoing connections never take them, so a restart finds its port again."""

from __future__ import annotations

import random
import socket
from pathlib import Path

import pytest

from recall_operator_dev import processes


def test_a_restartable_port_is_below_the_range_of_outgoing_connections_and_free() -> None:
    low, _ = processes.ephemeral_range()
    ports = {processes.restartable_port(random.Random(seed)) for seed in range(20)}
    assert all(low - processes.RESTARTABLE_SPAN <= p < low for p in ports), ports
    for port in ports:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", port))  # free: it binds


def test_a_port_in_use_is_never_given(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # A range one port wide below it leaves one candidate; taken, the picker falls back to port 0's.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
        taken.listen()
        ranges = tmp_path / "range"
        ranges.write_text(f"{port + 1}\t60999\n")
        monkeypatch.setattr(processes, "EPHEMERAL_RANGE_FILE", ranges)
        monkeypatch.setattr(processes, "RESTARTABLE_SPAN", 1)
        assert processes.restartable_port(random.Random(1)) != port


def test_without_the_kernel_s_range_the_usual_linux_one_is_assumed(monkeypatch: pytest.MonkeyPatch,
                                                                      tmp_path: Path) -> None:
    monkeypatch.setattr(processes, "EPHEMERAL_RANGE_FILE", tmp_path / "missing")
    assert processes.ephemeral_range() == (32768, 60999)
