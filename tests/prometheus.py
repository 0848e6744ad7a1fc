"""A real Prometheus server for the tests, on loopback, scraping the targets it is given,
and, when given alerting rules and an Alertmanager, evaluating them and sending it what fires.

It is Debian's ``prometheus`` package. When the binary is not on PATH this
helper installs it with apt-get (the tests run as root, as CI does); when that
fails too, the test fails with the reason: a test that claims Prometheus
scraped the operator is never skipped, nor run against a stand-in.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from support import free_port, wait_http_ok

DEBIAN_PACKAGE = "prometheus"


class PrometheusError(RuntimeError):
    pass


def find_binary() -> str:
    """The prometheus binary; installed from Debian's package when missing."""
    found = shutil.which("prometheus") or ("/usr/bin/prometheus" if os.access("/usr/bin/prometheus", os.X_OK) else None)
    if found:
        return found
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    steps = (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "--no-install-recommends", DEBIAN_PACKAGE])
    for cmd in steps:
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise PrometheusError(f"prometheus is not installed and `{' '.join(cmd)}` could not run: {exc}") from exc
        if proc.returncode != 0:
            raise PrometheusError(
                f"prometheus is not installed and `{' '.join(cmd)}` failed ({proc.returncode}): {proc.stderr[-2000:]}"
            )
    found = shutil.which("prometheus") or ("/usr/bin/prometheus" if os.access("/usr/bin/prometheus", os.X_OK) else None)
    if not found:
        raise PrometheusError(f"apt-get installed {DEBIAN_PACKAGE}, yet no prometheus binary is on PATH")
    return found


class Prometheus:
    """``with Prometheus(tmp, ["127.0.0.1:9100"]) as prom: prom.query("up")``."""

    def __init__(self, directory: Path, targets: list[str], scrape_interval: str = "1s",
                 rules: list[dict[str, Any]] | None = None, alertmanager: str | None = None) -> None:
        self.directory = Path(directory)
        self.targets = targets
        self.scrape_interval = scrape_interval
        self.rules = rules or []  # alerting rules of one group: [{"alert": ..., "expr": ..., "labels": ...}]
        self.alertmanager = alertmanager  # host:port that firing alerts are sent to
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = self.directory / "prometheus.log"

    def config(self) -> str:
        # JSON is YAML; no YAML writer needed.
        config: dict[str, Any] = {
            "global": {"scrape_interval": self.scrape_interval, "evaluation_interval": self.scrape_interval},
            "scrape_configs": [{
                "job_name": "recall-operator",
                "scrape_interval": self.scrape_interval,
                "scrape_timeout": self.scrape_interval,
                "metrics_path": "/metrics",
                "static_configs": [{"targets": self.targets}],
            }],
        }
        if self.rules:
            config["rule_files"] = [str(self.directory / "rules.yml")]
        if self.alertmanager:
            config["alerting"] = {"alertmanagers": [{"static_configs": [{"targets": [self.alertmanager]}]}]}
        return json.dumps(config, indent=2)

    def start(self, timeout: float = 60.0) -> None:
        binary = find_binary()
        self.directory.mkdir(parents=True, exist_ok=True)
        cfg = self.directory / "prometheus.yml"
        cfg.write_text(self.config())
        if self.rules:
            groups = {"groups": [{"name": "test", "interval": self.scrape_interval, "rules": self.rules}]}
            (self.directory / "rules.yml").write_text(json.dumps(groups, indent=2))
        log = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            [binary, f"--config.file={cfg}", f"--storage.tsdb.path={self.directory / 'data'}",
             f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=info"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        log.close()
        if wait_http_ok(f"{self.url}/-/ready", self.proc, timeout):
            return
        if self.proc.poll() is not None:
            raise PrometheusError(f"prometheus exited with {self.proc.returncode}: {self.log()[-3000:]}")
        raise PrometheusError(f"prometheus did not become ready in {timeout:.0f} s: {self.log()[-3000:]}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def api(self, path: str, **params: str) -> Any:
        url = f"{self.url}/api/v1/{path}?{urllib.parse.urlencode(params)}"
        with urllib.request.urlopen(url, timeout=10) as r:
            body = json.load(r)
        if body.get("status") != "success":
            raise PrometheusError(f"{url}: {body}")
        return body["data"]

    def query(self, promql: str) -> list[dict[str, Any]]:
        """The instant vector of `promql`: [{"metric": {...}, "value": [ts, "v"]}, ...]."""
        return self.api("query", query=promql)["result"]

    def targets_health(self) -> list[dict[str, Any]]:
        return self.api("targets")["activeTargets"]

    def __enter__(self) -> Prometheus:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
