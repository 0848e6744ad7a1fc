"""The operator installs and runs without the dev tooling; its wheel and image hold none of it.

The dev tooling (the local control plane with its PKI, the demo, the
benchmarks) lives in ``operator/recall_operator_dev`` and is a distribution of
its own, ``recall-operator-dev`` (``dev/pyproject.toml``), which carries its
``cryptography`` dependency. These checks hold the line that item 1 of the
house-keeping issue drew: ``pip install .`` gives the operator alone, and the
image's wheel holds no control-plane code.
"""

from __future__ import annotations

import email
import os
import re
import shutil
import subprocess
import sys
import textwrap
import tomllib
import zipfile
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
DEV_PACKAGE = "recall_operator_dev"
DEV_PROJECT = ROOT / "dev"


def _requirements(pyproject: Path) -> set[str]:
    """Every requirement a pyproject.toml declares, its extras' included, by name."""
    project = tomllib.loads(pyproject.read_text())["project"]
    declared = [*project.get("dependencies", []), *sum(project.get("optional-dependencies", {}).values(), [])]
    return {canonicalize_name(Requirement(r).name) for r in declared}


def test_cryptography_is_declared_by_the_dev_distribution_only() -> None:
    assert "cryptography" not in _requirements(ROOT / "pyproject.toml"), (
        "only the control plane's PKI needs cryptography: the dev distribution (dev/pyproject.toml) declares it"
    )
    assert "cryptography" in _requirements(DEV_PROJECT / "pyproject.toml")


def test_the_dev_venv_and_the_lock_install_the_dev_distribution() -> None:
    # The tests and `make demo` need the dev tooling; the lock must pin its dependency.
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"pip install [^\n]*-c constraints\.txt [^\n]*-e '\.\[[^\n]*-e \./dev\b", makefile)
    # A changed dev/pyproject.toml re-installs the venv, as a changed pyproject.toml does.
    stamp = re.search(r"^\$\(STAMP\):(.*)$", makefile, re.M)
    assert stamp and {"pyproject.toml", "dev/pyproject.toml", "constraints.txt"} <= set(stamp.group(1).split())
    lock = (ROOT / "scripts/lock.sh").read_text()
    assert re.search(r"pip\"? install [^\n]*'\.\[[^\n]*\]' (-e )?\./dev\b", lock)


def test_every_operator_module_imports_without_the_dev_tooling() -> None:
    # A fresh interpreter in which neither the dev package nor its dependency
    # can be imported (a None entry in sys.modules makes `import` raise
    # ModuleNotFoundError), as after `pip install .` alone.
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


def test_recall_says_what_to_install_when_a_dev_command_is_missing() -> None:
    for command in (["bench", "--quick"], ["demo"]):
        script = textwrap.dedent(f"""
            import sys
            sys.modules["{DEV_PACKAGE}"] = None
            from recall_operator.cli import main
            sys.exit(main({command!r}))
        """)
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert "recall-operator-dev" in done.stderr and "pip install -e ./dev" in done.stderr, done.stderr


def _checkout(tmp_path: Path) -> Path:
    """The two projects' sources, as a clone has them (no build leftovers)."""
    tree = tmp_path / "src"
    tree.mkdir()
    shutil.copy(ROOT / "pyproject.toml", tree)
    shutil.copy(ROOT / "README.md", tree)
    leftovers = shutil.ignore_patterns("__pycache__", "*.egg-info", "build")
    shutil.copytree(ROOT / "operator", tree / "operator", ignore=leftovers)
    shutil.copytree(DEV_PROJECT, tree / "dev", ignore=leftovers)
    return tree


def _wheel(project: Path, out: Path) -> zipfile.ZipFile:
    """The wheel pip builds from `project`, offline: the venv's setuptools, no index."""
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet", "-w", str(out), str(project)],
        capture_output=True, text=True, timeout=300, env=env,
    )
    assert done.returncode == 0, done.stderr
    (wheel,) = out.glob("*.whl")
    return zipfile.ZipFile(wheel)


def _metadata(wheel: zipfile.ZipFile) -> tuple[set[str], set[str]]:
    """A wheel's top-level entries and the names of every requirement it declares (extras too)."""
    tops = {name.split("/")[0] for name in wheel.namelist()}
    (meta,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    requires = email.message_from_bytes(wheel.read(meta)).get_all("Requires-Dist") or []
    return tops, {canonicalize_name(Requirement(r).name) for r in requires}


def test_the_operator_wheel_holds_the_operator_alone_and_the_dev_wheel_the_dev_tooling(tmp_path: Path) -> None:
    # What `pip install .` installs: built from a tree that holds both packages
    # side by side in operator/, as the repository does.
    tree = _checkout(tmp_path)
    assert (tree / "operator" / DEV_PACKAGE / "pki.py").exists()

    operator = _wheel(tree, tmp_path / "operator-wheel")
    tops, requires = _metadata(operator)
    assert {t for t in tops if not t.endswith(".dist-info")} == {"recall_operator"}, tops
    names = operator.namelist()
    assert "recall_operator/cli.py" in names and "recall_operator/py.typed" in names
    assert any(n.startswith("recall_operator/panel/templates/") for n in names), "package data left out"
    assert not [n for n in names if DEV_PACKAGE in n], [n for n in names if DEV_PACKAGE in n]
    assert "cryptography" not in requires, requires
    assert "kopf" in requires

    dev = _wheel(tree / "dev", tmp_path / "dev-wheel")
    tops, requires = _metadata(dev)
    assert {t for t in tops if not t.endswith(".dist-info")} == {DEV_PACKAGE}, tops
    assert f"{DEV_PACKAGE}/pki.py" in dev.namelist() and f"{DEV_PACKAGE}/py.typed" in dev.namelist()
    assert "cryptography" in requires, requires


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


def test_the_image_build_sees_no_dev_tooling() -> None:
    # The image's wheel is built from what its build stage copies: none of it
    # may be the dev tooling, or import the PKI's dependency.
    sources = _build_stage_copies()
    assert "pyproject.toml" in sources and "operator/recall_operator" in sources, sources
    shipped = [
        path
        for source in sources
        for path in ([ROOT / source] if (ROOT / source).is_file() else (ROOT / source).rglob("*.py"))
        if path.suffix == ".py"
    ]
    assert len(shipped) > 20
    for path in shipped:
        relative = path.relative_to(ROOT)
        assert DEV_PACKAGE not in relative.parts, f"the image's build copies {relative}"
        text = path.read_text()
        assert not re.search(r"^\s*(from|import) cryptography", text, re.M), f"{relative} imports cryptography"
        assert "LocalCluster" not in text, f"{relative} holds control-plane code"
