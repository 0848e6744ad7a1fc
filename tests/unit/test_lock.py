"""One set of versions: constraints.txt pins every dependency pyproject.toml declares, and every install uses it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]


def pins() -> dict[str, str]:
    found = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: {line!r} is not pinned with =="
            found[canonicalize_name(name)] = version.strip()
    return found


def declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = [r for group in project["optional-dependencies"].values() for r in group]
    return [Requirement(r) for r in [*project["dependencies"], *extras]]


def test_every_declared_dependency_is_pinned_inside_its_range() -> None:
    pinned = pins()
    for req in declared():
        name = canonicalize_name(req.name)
        assert name in pinned, f"{req.name} is declared in pyproject.toml but not pinned: run `make lock`"
        assert req.specifier.contains(pinned[name], prereleases=True), (
            f"{req.name}=={pinned[name]} is outside pyproject.toml's {req.specifier}: run `make lock`"
        )


def test_the_project_itself_is_not_pinned() -> None:
    assert "recall-operator" not in pins(), "a pinned recall-operator would fight the editable install"


def test_the_venv_and_the_image_install_with_the_constraints() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"pip install .*-c constraints\.txt -e '\.\[", makefile), "make venv must install with -c"
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "COPY constraints.txt" in dockerfile
    assert re.search(r"pip install [^\n]*-c \S*constraints\.txt [^\n]*\.whl", dockerfile), "the image must install with -c"
