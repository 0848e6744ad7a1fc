"""Loopback ports for the processes this project starts: the test control plane, Hindsight, the tests' peers.

A port is picked by binding and letting go, from below the kernel's range for
outgoing connections' local ports. A process stopped and started again on its
port must find it free: a port from that range (what binding port 0 gives)
can meanwhile become the local end of any outgoing connection (an API
server's reconnects to a stopped etcd, a client's retries of a stopped
Hindsight), and the restart fails with "address already in use".
"""

from __future__ import annotations

import argparse
import ipaddress
import random
import socket
import threading
from pathlib import Path

# Where the kernel takes the local ports of outgoing connections (Linux; elsewhere this default).
EPHEMERAL_RANGE_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")
# How far below that range ports are picked from.
SPAN = 10_000

# Ports handed out by this process: two picks in a row (a bridge port and a
# metrics port) must not give the same one before either is bound.
_given: set[int] = set()
_lock = threading.Lock()


def ephemeral_range() -> tuple[int, int]:
    try:
        low, high = EPHEMERAL_RANGE_FILE.read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def free_port(rng: random.Random | None = None) -> int:
    """A loopback port free right now, never given before by this process, outside the outgoing range.

    Another process may still take it before it is bound; a caller that
    starts a server on it retries with a new one when that happens.
    """
    pick = rng or random.SystemRandom()
    low, _ = ephemeral_range()
    first = max(1024, low - SPAN)
    with _lock:
        for _ in range(200):
            port = pick.randrange(first, low)
            if port not in _given and _bindable(port):
                _given.add(port)
                return port
        # Nothing free below the range: the kernel's pick, as port 0 gives it.
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        _given.add(port)
        return port


def loopback_only(host: str) -> bool:
    """Whether binding `host` keeps the port on this machine (an empty host binds every address)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def port_number(text: str) -> int:
    """An argparse type: a TCP port to listen on, 1 to 65535 (a number out of range failed after start-up)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port: 1 to 65535")
    return port
