"""The chart's memory panel: off by default; when enabled, a flag, a named port and a ClusterIP Service for port-forward."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import yaml

from support import renderer

CHART = Path(__file__).resolve().parents[2] / "helm" / "recall-operator"
render = renderer()


def _template(helm: str, *args: str) -> list[dict[str, Any]]:
    proc = subprocess.run([helm, "template", "recall-operator", str(CHART), "--namespace", "recall-system",
                           "--kube-version", "1.34.0", *args],
                          capture_output=True, text=True, check=False, env=render.helm_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    return [d for d in yaml.safe_load_all(proc.stdout) if d]


def _container(items: list[dict[str, Any]]) -> dict[str, Any]:
    deployment = next(d for d in items if d["kind"] == "Deployment")
    return deployment["spec"]["template"]["spec"]["containers"][0]


def test_the_panel_is_off_by_default(helm: str) -> None:
    items = _template(helm)
    assert not [d for d in items if d["kind"] == "Service" and d["metadata"]["name"].endswith("-panel")]
    container = _container(items)
    assert "--panel-port" not in container["args"]
    assert "panel" not in {p["name"] for p in container.get("ports") or []}


def test_an_enabled_panel_is_reached_through_its_service(helm: str) -> None:
    items = _template(helm, "--set", "panel.enabled=true", "--set", "panel.port=8099")
    container = _container(items)
    args = container["args"]
    assert args[args.index("--panel-port") + 1] == "8099"
    assert "--panel-host" not in args  # loopback: only a port-forward reaches it
    assert {"name": "panel", "containerPort": 8099, "protocol": "TCP"} in container["ports"]
    service = next(d for d in items if d["kind"] == "Service" and d["metadata"]["name"] == "recall-operator-panel")
    assert service["spec"]["type"] == "ClusterIP"
    assert service["spec"]["ports"] == [{"name": "panel", "port": 8099, "targetPort": "panel", "protocol": "TCP"}]


def test_the_schema_refuses_a_wrong_panel_port(helm: str) -> None:
    proc = subprocess.run([helm, "template", "r", str(CHART), "--kube-version", "1.34.0", "--set", "panel.port=0"],
                          capture_output=True, text=True, check=False, env=render.helm_env(), timeout=120)
    assert proc.returncode != 0 and "panel" in proc.stderr
