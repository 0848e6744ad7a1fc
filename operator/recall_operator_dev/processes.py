"""The control plane's components as plain processes: free ports, liveness by pid and start time, log tails."""

from __future__ import annotations

import random
import socket
import subprocess
from pathlib import Path
from typing import Any

__all__ = ["alive", "free_port", "log_tail", "proc_start_time", "restartable_port", "stop"]


def free_port() -> int:
    """A loopback port free right now (another process may still take it before it is bound)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# Where the kernel takes the local ports of outgoing connections (Linux; elsewhere this default).
EPHEMERAL_RANGE_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")
# How far below that range restartable ports are picked from.
RESTARTABLE_SPAN = 10_000


def ephemeral_range() -> tuple[int, int]:
    try:
        low, high = EPHEMERAL_RANGE_FILE.read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999


def restartable_port(rng: random.Random | None = None) -> int:
    """A loopback port free right now, outside the range of outgoing connections' local ports.

    A component restarted on its port must find it free again. A port from the
    ephemeral range (what binding port 0 gives) can meanwhile become the local
    end of any outgoing connection, the API server's reconnects to a stopped
    etcd among them, and the restart fails with "address already in use".
    """
    pick = rng or random.SystemRandom()
    low, _ = ephemeral_range()
    first = max(1024, low - RESTARTABLE_SPAN)
    for _ in range(200):
        port = pick.randrange(first, low)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    return free_port()


def proc_start_time(pid: int) -> int | None:
    """The kernel's start time of `pid` (clock ticks since boot), or None if gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    if fields[0] in ("Z", "X"):  # exited, only waiting to be reaped
        return None
    return int(fields[19])


def alive(pid: int, start_time: int | None) -> bool:
    """Whether `pid` still runs and, given its start time, is the same process (pids are reused)."""
    now = proc_start_time(pid)
    return now is not None and (start_time is None or now == start_time)


def log_tail(path: Path, lines: int = 25) -> str:
    """The last lines of a component's log, for an error message."""
    try:
        text = path.read_text(errors="replace").splitlines()
    except FileNotFoundError:
        return "(no log)"
    return "\n".join(text[-lines:])


def stop(process: subprocess.Popen[Any], grace: float = 20.0) -> None:
    """Ask a child process to stop; kill it if it has not within `grace` seconds (no wait is for ever)."""
    process.terminate()
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
