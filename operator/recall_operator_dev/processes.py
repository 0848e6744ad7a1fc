"""The control plane's components as plain processes: free ports, liveness by pid and start time, log tails."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from recall_operator.ports import free_port

__all__ = ["alive", "free_port", "log_tail", "proc_start_time", "stop"]


def proc_start_time(pid: int) -> int | None:
    """The kernel's start time of `pid` (clock ticks since boot), or None if gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    # Exited, only waiting to be reaped: a zombie that is its last thread. A
    # killed multi-threaded process (etcd, the API server) shows its first
    # thread as a zombie while the others are still exiting and still hold its
    # listening sockets; until they are gone, a restart on its ports would fail.
    if fields[0] in ("Z", "X") and _threads(pid) <= 1:
        return None
    return int(fields[19])


def _threads(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return 0


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
