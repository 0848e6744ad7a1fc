"""Liveness of the control plane's processes: a process is gone only when nothing of it holds its ports."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

from recall_operator_dev.processes import alive, proc_start_time

# A child that listens, keeps one thread running and ends its first thread:
# what a killed Go server looks like for a moment, its first thread a zombie
# while the others still exit and still hold the listening socket.
FIRST_THREAD_ENDS_FIRST = """
import ctypes, socket, threading, time
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen()
print(server.getsockname()[1], flush=True)
threading.Thread(target=time.sleep, args=(60,)).start()
ctypes.CDLL(None).pthread_exit(None)
"""


def _state(pid: int) -> str:
    stat = open(f"/proc/{pid}/stat").read()
    return stat[stat.rindex(")") + 2 :].split()[0]


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as Go's listeners do
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def test_a_zombie_first_thread_with_threads_still_exiting_is_not_gone() -> None:
    child = subprocess.Popen([sys.executable, "-c", FIRST_THREAD_ENDS_FIRST], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        port = int(child.stdout.readline())
        deadline = time.monotonic() + 10
        while _state(child.pid) != "Z" and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _state(child.pid) == "Z"
        started = proc_start_time(child.pid)
        assert started is not None
        assert alive(child.pid, started)
        assert not _bindable(port)  # why it must count as alive: its port is still held
    finally:
        child.kill()
        child.wait(timeout=10)
    assert proc_start_time(child.pid) is None
    assert _bindable(port)


def test_a_process_that_ended_is_gone_and_a_running_one_is_not() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        started = proc_start_time(child.pid)
        assert started is not None and alive(child.pid, started)
        assert not alive(child.pid, started + 1)  # same pid, another process
    finally:
        child.kill()
        child.wait(timeout=10)
    assert not alive(child.pid, started)
