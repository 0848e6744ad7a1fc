"""The documented plugin route: the `kubectl-recall` console script on PATH is found and run by a real kubectl.

kubectl (built by scripts/testbin.sh) discovers plugins by name on PATH; the
console script `pip install` writes beside the interpreter is the plugin. No
network: the package under test is the one installed in this environment.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from support import renderer

pytestmark = pytest.mark.integration


def kubectl_dir() -> str:
    return str(Path(renderer().helm_binary()).parent)  # kubectl is built beside helm


def run(*args: str, path: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": path}
    return subprocess.run(["kubectl", *args], capture_output=True, text=True, env=env, timeout=60, check=False)


def test_kubectl_finds_and_runs_the_installed_plugin() -> None:
    scripts = str(Path(sys.executable).parent)
    assert (Path(scripts) / "kubectl-recall").exists(), "the package's console scripts are not installed"
    path = os.pathsep.join([scripts, kubectl_dir(), "/usr/bin", "/bin"])
    listed = run("plugin", "list", path=path)
    assert str(Path(scripts) / "kubectl-recall") in listed.stdout, listed.stdout + listed.stderr
    helped = run("recall", "--help", path=path)
    assert helped.returncode == 0, helped.stderr
    for sub in ("why", "approve", "reject", "resolve"):
        assert sub in helped.stdout
    # Without the environment on PATH, kubectl has no such command: the route is what makes it work.
    missing = run("recall", "--help", path=os.pathsep.join([kubectl_dir(), "/usr/bin", "/bin"]))
    assert missing.returncode != 0
