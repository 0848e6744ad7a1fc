"""The Kubernetes API classes the operator calls are loaded before `recall run` freezes its start-up objects."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import recall_operator
from recall_operator.kube.client import OPERATOR_APIS

PACKAGE = Path(recall_operator.__file__).parent
# `client.CoreV1Api(`, `k8s.BatchV1Api(`, `from kubernetes.client import CustomObjectsApi`
API_CLASS = re.compile(r"\b([A-Z][A-Za-z0-9]*V\d\w*Api|CustomObjectsApi)\b")


def test_every_api_class_the_operator_names_is_loaded_before_the_freeze() -> None:
    named = {m for path in PACKAGE.rglob("*.py") for m in API_CLASS.findall(path.read_text())}
    assert "CoreV1Api" in named  # the pattern finds them at all
    assert named <= set(OPERATOR_APIS), f"add to kube.client.OPERATOR_APIS: {sorted(named - set(OPERATOR_APIS))}"


def test_loading_them_brings_their_models_in() -> None:
    # A fresh interpreter: the client loads an API module only when its class is first used.
    probe = (
        "import sys\n"
        "from recall_operator.kube.client import load_api_models\n"
        "before = 'kubernetes.client.api.core_v1_api' in sys.modules\n"
        "load_api_models()\n"
        "models = sum(m.startswith('kubernetes.client.models.') for m in sys.modules)\n"
        "print(before, 'kubernetes.client.api.batch_v1_api' in sys.modules, models)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    assert out[:2] == ["False", "True"], out
    assert int(out[2]) > 100, out
