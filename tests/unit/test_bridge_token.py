"""The bridge's bearer token file, as a Secret volume presents it: a symlink swapped on rotation."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from recall_operator.bridge.server import BridgeToken


def secret_volume(root: Path, token: str, generation: int) -> None:
    """What the kubelet does: write a new timestamped folder, then swap the ..data symlink onto it."""
    folder = root / f"..2026_01_01_00_00_0{generation}"
    folder.mkdir()
    (folder / "token").write_text(token)
    tmp = root / "..data_tmp"
    tmp.symlink_to(folder.name)
    os.replace(tmp, root / "..data")
    if not (root / "token").is_symlink():
        (root / "token").symlink_to("..data/token")


def test_a_rotated_secret_replaces_the_token(tmp_path: Path) -> None:
    secret_volume(tmp_path, "first-token\n", 1)
    token = BridgeToken(str(tmp_path / "token"))
    assert token.accepts("Bearer first-token")
    assert not token.accepts("Bearer second-token")
    secret_volume(tmp_path, "second-token\n", 2)
    assert token.accepts("Bearer second-token")
    assert not token.accepts("Bearer first-token")


@pytest.mark.parametrize("header", [None, "", "Bearer", "Bearer ", "Basic first-token", "bearer first-tokenx",
                                    "Token first-token", "first-token"])
def test_anything_but_the_token_is_refused(tmp_path: Path, header: str | None) -> None:
    (tmp_path / "token").write_text("first-token")
    assert not BridgeToken(str(tmp_path / "token")).accepts(header)


def test_the_last_good_token_holds_while_the_file_is_missing(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("first-token")
    token = BridgeToken(str(path))
    path.unlink()
    assert token.accepts("Bearer first-token")


def test_an_empty_or_missing_file_is_refused_at_start(tmp_path: Path) -> None:
    (tmp_path / "empty").write_text("  \n")
    with pytest.raises(ValueError, match="is empty"):
        BridgeToken(str(tmp_path / "empty"))
    with pytest.raises(FileNotFoundError):
        BridgeToken(str(tmp_path / "missing"))


def test_a_header_that_is_no_utf_8_is_a_wrong_token_not_an_error(tmp_path: Path) -> None:
    # aiohttp hands undecodable header bytes over as lone surrogates; encoding them raised (a 500).
    (tmp_path / "token").write_text("first-token")
    token = BridgeToken(str(tmp_path / "token"))
    assert not token.accepts("Bearer \udcff\udcfe")
    assert not token.accepts("Bearer \ud800")
