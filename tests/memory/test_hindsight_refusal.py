"""A real Hindsight server that will not keep an outcome as written: the operator is told so once, not for ever.

Its own validation refuses a retain whose time is one of its placeholders
(year 9999, an open bound); a Memory Defense block answers the same way. Sent
again, the same outcome is refused again, so it is MemoryRefused, which the
outcome's writer says on the Incident, and never the MemoryUnavailable that
keeps it in the outbox for ever.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import pytest

from recall_operator.memory.base import MemoryRefused
from recall_operator.memory.hindsight import HindsightMemory

pytestmark = pytest.mark.hindsight


@pytest.mark.parametrize("index", [True, False], ids=["index", "direct"])
async def test_an_outcome_the_server_will_not_keep_is_refused_with_its_reason(
    hindsight_server: Any, history: Any, index: bool
) -> None:
    memory = HindsightMemory(hindsight_server.url, bank=f"refusal-{uuid.uuid4().hex[:12]}", index=index)
    try:
        odd = history.memory("inc-0002").model_copy(update={"resolved_at": datetime(9999, 1, 1, tzinfo=UTC)})
        with pytest.raises(MemoryRefused, match="HTTP 422") as refused:
            await memory.remember(odd)
        assert "placeholder" in str(refused.value)  # the server's own words reach the Incident
        # The server is up: the same memory at its real time is kept.
        await memory.remember(history.memory("inc-0002"))
        assert await memory.get("inc-0002", history.memory("inc-0002").namespace) is not None
    finally:
        await memory.close()
