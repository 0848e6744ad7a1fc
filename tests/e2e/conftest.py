"""The operator, started the way `recall run` starts it, against the real local API server.

``operator`` runs Kopf (``kopf.testing.KopfRunner``) with the project's handler
modules, watching the test's namespace, with a fresh embedded memory file; the
memory is named through the environment variables that the start-up hook
reads, exactly as in a Deployment.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from kopf.testing import KopfRunner

from recall_operator_dev.demo import incident_status
from kit import STATUS_KEY
from recall_operator.handlers import ENV_BACKEND, ENV_PATH, ENV_STATUS_KEY
from recall_operator.runner import operator_args


@pytest.fixture(autouse=True)
def status_key(monkeypatch: pytest.MonkeyPatch) -> str:
    """Operators started here seal recommendations with the key kit.recommend uses."""
    monkeypatch.setenv(ENV_STATUS_KEY, STATUS_KEY)
    return STATUS_KEY


@pytest.fixture
def memory_path(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """The embedded memory file; a test may name a folder of it (indirect parametrize), e.g. one not made yet."""
    return tmp_path / getattr(request, "param", ".") / "memory.sqlite3"


@pytest.fixture
def operator(
    cluster: Any, namespace: str, memory_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[KopfRunner]:
    monkeypatch.setenv(ENV_BACKEND, "embedded")
    monkeypatch.setenv(ENV_PATH, str(memory_path))
    with KopfRunner(operator_args([namespace]), timeout=60) as runner:
        yield runner
    # Leaving the block stops the operator; it must have run cleanly throughout.
    assert runner.exception is None, runner.output
    assert runner.exit_code == 0, runner.output
    assert "Traceback" not in runner.output, runner.output


@pytest.fixture
def get_status(kubectl: Any, namespace: str) -> Callable[[str], dict[str, Any]]:
    return lambda name: incident_status(kubectl, namespace, name)


@pytest.fixture
def get_json(kubectl: Any, namespace: str) -> Callable[[str, str], dict[str, Any]]:
    def get(kind: str, name: str) -> dict[str, Any]:
        proc = kubectl("get", kind, name, "-n", namespace, "-o", "json")
        return json.loads(proc.stdout) if proc.returncode == 0 else {}

    return get

