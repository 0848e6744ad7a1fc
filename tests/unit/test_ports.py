"""Ports for the processes we start: picked where outgoing connections never take them, so a restart finds its port again."""

from __future__ import annotations

import random
import socket
from pathlib import Path

import pytest

from recall_operator import ports


def test_a_port_is_below_the_range_of_outgoing_connections_and_free() -> None:
    low, _ = ports.ephemeral_range()
    picked = {ports.free_port(random.Random(seed)) for seed in range(20)}
    assert all(low - ports.SPAN <= p < low for p in picked), picked
    for port in picked:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", port))  # free: it binds


def test_two_picks_before_either_is_bound_are_two_ports() -> None:
    # The same random sequence twice would give the same first candidate; the
    # second pick must skip it although nothing has bound it yet.
    first = ports.free_port(random.Random(3))
    second = ports.free_port(random.Random(3))
    assert first != second


def test_a_port_in_use_is_never_given(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # A range one port wide below it leaves one candidate; taken, the picker falls back to port 0's.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
        taken.listen()
        ranges = tmp_path / "range"
        ranges.write_text(f"{port + 1}\t60999\n")
        monkeypatch.setattr(ports, "EPHEMERAL_RANGE_FILE", ranges)
        monkeypatch.setattr(ports, "SPAN", 1)
        assert ports.free_port(random.Random(1)) != port


def test_without_the_kernel_s_range_the_usual_linux_one_is_assumed(monkeypatch: pytest.MonkeyPatch,
                                                                      tmp_path: Path) -> None:
    monkeypatch.setattr(ports, "EPHEMERAL_RANGE_FILE", tmp_path / "missing")
    assert ports.ephemeral_range() == (32768, 60999)
