"""The tests' name for the package's offline Hindsight server (one place starts it: recall_operator.memory.hindsight_server)."""

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from recall_operator.memory.hindsight_server import HindsightServer, HindsightServerError

__all__ = ["HindsightServer", "HindsightServerError", "serving"]


@contextmanager
def serving(server: HindsightServer) -> Iterator[HindsightServer]:
    """`server` started for the block and removed after it; one that does not start fails the test with its log."""
    try:
        server.start()
    except HindsightServerError as exc:
        server.cleanup()
        pytest.fail(f"the Hindsight server did not start: {exc}", pytrace=False)
    try:
        yield server
    finally:
        server.cleanup()
