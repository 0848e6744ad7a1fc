"""A real Alertmanager for tests (Debian package ``prometheus-alertmanager``).

It listens on loopback on a free port, with clustering off, its storage in a
temporary directory, and one route: every alert goes to a webhook receiver
(the bridge) with short group and repeat intervals, so notifications and
repeats arrive within seconds. ``http_config`` is the webhook receiver's own
(for instance ``{"authorization": {"credentials_file": path}}``).

    with Alertmanager(webhook_url="http://127.0.0.1:8080/alerts") as am:
        am.post_alerts([{"labels": {...}, "annotations": {...}}])

A missing binary raises :class:`AlertmanagerError`: tests that need it fail,
they do not skip (CI must install the package).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from support import free_port, wait_http_ok

BINARY_NAMES = ("prometheus-alertmanager", "alertmanager")
START_TIMEOUT = 60.0


class AlertmanagerError(RuntimeError):
    """Alertmanager could not be found or started; the message ends with its log tail."""


def find_binary() -> str:
    for name in BINARY_NAMES:
        path = shutil.which(name)
        if path:
            return path
    raise AlertmanagerError(
        "no Alertmanager binary on PATH (looked for "
        f"{', '.join(BINARY_NAMES)}): install the Debian package prometheus-alertmanager"
    )


def config_yaml(webhook_url: str, *, group_wait: str, group_interval: str, repeat_interval: str,
                http_config: dict[str, Any] | None = None) -> str:
    # group_by fingerprint-level labels so each test alert is its own group and
    # its own notification, which keeps the counts in the tests simple.
    config = {
        "route": {
            "receiver": "bridge",
            "group_by": ["alertname", "service", "instance"],
            "group_wait": group_wait,
            "group_interval": group_interval,
            "repeat_interval": repeat_interval,
        },
        "receivers": [
            {
                "name": "bridge",
                "webhook_configs": [{"url": webhook_url, "send_resolved": True,
                                     **({"http_config": http_config} if http_config else {})}],
            }
        ],
    }
    return json.dumps(config, indent=2)  # JSON is YAML


class Alertmanager:
    def __init__(
        self,
        webhook_url: str,
        *,
        group_wait: str = "1s",
        group_interval: str = "1s",
        repeat_interval: str = "2s",
        http_config: dict[str, Any] | None = None,
    ) -> None:
        self.webhook_url = webhook_url
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._tmp = tempfile.TemporaryDirectory(prefix="alertmanager-")
        self.dir = Path(self._tmp.name)
        self.log_path = self.dir / "alertmanager.log"
        (self.dir / "config.yml").write_text(
            config_yaml(
                webhook_url,
                group_wait=group_wait,
                group_interval=group_interval,
                repeat_interval=repeat_interval,
                http_config=http_config,
            )
        )
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: Any = None

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def start(self) -> None:
        binary = find_binary()
        self._log = self.log_path.open("ab")
        self._proc = subprocess.Popen(
            [
                binary,
                f"--config.file={self.dir / 'config.yml'}",
                f"--storage.path={self.dir / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}",
                # empty: no gossip cluster, so no second port and no peers to wait for
                "--cluster.listen-address=",
                "--log.level=debug",
            ],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        if wait_http_ok(f"{self.url}/-/ready", self._proc, START_TIMEOUT):
            return
        if self._proc.poll() is not None:
            raise AlertmanagerError(f"alertmanager exited with {self._proc.returncode}:\n{self.log_tail()}")
        self.stop()
        raise AlertmanagerError(f"alertmanager not ready after {START_TIMEOUT}s:\n{self.log_tail()}")

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(timeout=15)
        self._proc = None
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> Alertmanager:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self._tmp.cleanup()

    def post_alerts(self, alerts: list[dict[str, Any]]) -> None:
        """POST to /api/v2/alerts (labels, annotations, startsAt, endsAt, generatorURL)."""
        request = urllib.request.Request(
            f"{self.url}/api/v2/alerts",
            data=json.dumps(alerts).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as resp:
                if resp.status != 200:
                    raise AlertmanagerError(f"alertmanager answered {resp.status} to POST /api/v2/alerts")
        except urllib.error.HTTPError as exc:
            raise AlertmanagerError(
                f"alertmanager refused the alerts ({exc.code}): {exc.read().decode(errors='replace')}"
            ) from exc

    def alerts(self) -> list[dict[str, Any]]:
        with urllib.request.urlopen(f"{self.url}/api/v2/alerts", timeout=10) as resp:
            return list(json.loads(resp.read()))
