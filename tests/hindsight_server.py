"""The tests' name for the package's offline Hindsight server (one place starts it: recall_operator.memory.hindsight_server)."""

from recall_operator.memory.hindsight_server import HindsightServer, HindsightServerError

__all__ = ["HindsightServer", "HindsightServerError"]
