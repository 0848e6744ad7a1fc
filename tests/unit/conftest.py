"""Fixtures shared by the chart tests under tests/unit."""

from __future__ import annotations

import pytest

from support import renderer


@pytest.fixture(scope="session")
def helm() -> str:
    """The helm binary scripts/render-manifests.py uses (built by scripts/testbin.sh when missing, never skipped)."""
    return str(renderer().helm_binary())
