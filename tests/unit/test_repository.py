"""The repository stands alone: a clone with nothing beside it runs its tests, demo and benches.

A person who clones the project has only the clone, so no test, script or
Makefile target may read a path outside it, and the histories the tests and
the README replay are carried in `datasets/`.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from support import DATASETS, HISTORIES, history

ROOT = Path(__file__).resolve().parents[2]

# A parent of the repository named by hand, or a `parents[N]` / `.parent`
# chain from a file that climbs out of the clone.
OUTSIDE = re.compile(r"\.\./shared|\.parent\s*/\s*[\"']shared[\"']|(?:ROOT|REPO)\.parent\b")
PARENTS = re.compile(r"Path\(__file__\)\.resolve\(\)\.parents\[(\d+)\]")


def tracked_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    wanted = (".py", ".sh", ".toml", ".yaml", ".yml", ".md", ".cfg")
    return [
        ROOT / name
        for name in out.splitlines()
        if not name.startswith("datasets/") and (name.endswith(wanted) or Path(name).name in ("Makefile", "run"))
    ]


def test_no_file_reads_a_path_outside_the_repository() -> None:
    files = tracked_files()
    assert any(f.name == "Makefile" for f in files) and any(f.name == "run" for f in files)
    outside = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                outside.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
            for match in PARENTS.finditer(line):
                # parents[k] of a file k folders below the root is the root; a larger k climbs out.
                depth = len(path.relative_to(ROOT).parts) - 1
                if int(match.group(1)) > depth:
                    outside.append(f"{path.relative_to(ROOT)}:{number}: climbs out: {line.strip()}")
    assert not outside, "paths outside the repository:\n" + "\n".join(outside)


@pytest.mark.parametrize("name", HISTORIES)
def test_each_development_history_is_carried_with_its_readme(name: str) -> None:
    path = history(name)
    events = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(events) > 100, f"{path} has only {len(events)} events"
    assert (DATASETS / name / "README.md").is_file()


def test_a_missing_history_is_a_failure_not_a_skip() -> None:
    with pytest.raises(AssertionError, match="missing from the repository"):
        history("no-such-history")


def test_no_test_skips_itself() -> None:
    # A missing fixture must fail: a skipped test hides a broken checkout.
    skipping = re.compile(r"pytest\.skip\(|pytest\.mark\.skip|importorskip\(")
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in (ROOT / "tests").rglob("*.py")
        if path.name != Path(__file__).name
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if skipping.search(line)
    ]
    assert not found, f"tests that skip themselves: {found}"
