"""The operator installs and runs without the dev tooling; the image is built without it.

The dev tooling (the local control plane with its PKI, the demo, the
benchmarks) lives in ``recall_operator_dev`` and needs the ``dev`` extra.
These checks hold the line that item 1 of the house-keeping issue drew:
``pip install .`` without extras gives a working operator, and the image's
wheel holds no control-plane code.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import setuptools
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
DEV_PACKAGE = "recall_operator_dev"


def test_cryptography_is_needed_by_the_dev_extra_only() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = {Requirement(r).name for r in project["dependencies"]}
    assert "cryptography" not in runtime, "only the control plane's PKI needs cryptography: keep it in the dev extra"
    assert "cryptography" in {Requirement(r).name for r in project["optional-dependencies"]["dev"]}


def test_the_dev_venv_and_the_lock_install_the_dev_extra() -> None:
    # The tests and `make demo` need the dev tooling; the lock must pin its dependency.
    for name in ("Makefile", "scripts/lock.sh"):
        installs = re.findall(r"pip\"? install [^\n]*'\.\[([^\]]*)\]'", (ROOT / name).read_text())
        assert installs and all("dev" in extras.split(",") for extras in installs), (name, installs)


def test_every_operator_module_imports_without_the_dev_tooling() -> None:
    # A fresh interpreter in which neither the dev package nor the extra's
    # dependency can be imported (a None entry in sys.modules makes `import`
    # raise ModuleNotFoundError), as after `pip install .` without extras.
    script = textwrap.dedent(f"""
        import importlib, pkgutil, sys
        for name in ("cryptography", "{DEV_PACKAGE}"):
            sys.modules[name] = None
        import recall_operator
        names = [m.name for m in pkgutil.walk_packages(recall_operator.__path__, "recall_operator.")]
        for name in names:
            importlib.import_module(name)
        loaded = sorted(m for m in sys.modules if m.startswith(("{DEV_PACKAGE}.", "cryptography.")))
        assert not loaded, loaded
        print(len(names))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 20, "the walk found too few modules to mean anything"


def test_recall_names_the_extra_when_a_dev_command_is_missing() -> None:
    script = textwrap.dedent(f"""
        import sys
        sys.modules["{DEV_PACKAGE}"] = None
        from recall_operator.cli import main
        sys.exit(main(["bench", "--quick"]))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "recall-operator[dev]" in done.stderr


def _build_stage_copies() -> list[str]:
    """The sources the Dockerfile's build stage copies from the context (the wheel is built from them)."""
    dockerfile = (ROOT / "Dockerfile").read_text()
    build_stage = dockerfile.split("\nFROM ")[1]  # [0] is the header comment, [2] the image stage
    assert " AS build" in build_stage
    sources: list[str] = []
    for line in build_stage.splitlines():
        match = re.match(r"COPY\s+(?!--)(.+)$", line.strip())
        if match:
            sources.extend(match.group(1).split()[:-1])
    return sources


def test_the_image_wheel_holds_the_operator_but_no_dev_tooling(tmp_path: Path) -> None:
    # The tree the build stage sees, and the packages setuptools finds in it
    # (pyproject.toml: [tool.setuptools.packages.find] where = ["operator"]).
    for source in _build_stage_copies():
        target = tmp_path / source
        if (ROOT / source).is_dir():
            shutil.copytree(ROOT / source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / source, target)
    packages = setuptools.find_packages(where=str(tmp_path / "operator"))
    assert "recall_operator" in packages
    assert not [p for p in packages if p.split(".")[0] != "recall_operator"], packages
    shipped = list((tmp_path / "operator").rglob("*.py"))
    assert shipped
    for path in shipped:
        text = path.read_text()
        assert not re.search(r"^\s*(from|import) cryptography", text, re.M), f"{path.relative_to(tmp_path)} imports cryptography"
        assert "LocalCluster" not in text, f"{path.relative_to(tmp_path)} holds control-plane code"
