"""One set of versions: constraints.txt pins every dependency the two pyproject.toml files declare (the
operator's and the dev tooling's, dev/pyproject.toml), and every install uses it."""

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
    found = []
    for pyproject in (ROOT / "pyproject.toml", ROOT / "dev" / "pyproject.toml"):
        project = tomllib.loads(pyproject.read_text())["project"]
        extras = [r for group in project.get("optional-dependencies", {}).values() for r in group]
        found += [Requirement(r) for r in [*project["dependencies"], *extras]]
    return found


def test_the_dev_tooling_dependency_is_among_those_checked() -> None:
    assert "cryptography" in {canonicalize_name(r.name) for r in declared()}


def test_every_declared_dependency_is_pinned_inside_its_range() -> None:
    pinned = pins()
    for req in declared():
        name = canonicalize_name(req.name)
        assert name in pinned, f"{req.name} is declared in pyproject.toml but not pinned: run `make lock`"
        assert req.specifier.contains(pinned[name], prereleases=True), (
            f"{req.name}=={pinned[name]} is outside pyproject.toml's {req.specifier}: run `make lock`"
        )


def test_the_projects_themselves_are_not_pinned() -> None:
    for name in ("recall-operator", "recall-operator-dev"):
        assert name not in pins(), f"a pinned {name} would fight the editable install"


def test_the_venv_and_the_image_install_with_the_constraints() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"pip install .*-c constraints\.txt -e '\.\[.* -e \./dev", makefile), "make venv must install with -c"
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "COPY constraints.txt" in dockerfile
    assert re.search(r"pip install [^\n]*-c \S*constraints\.txt [^\n]*\.whl", dockerfile), "the image must install with -c"
