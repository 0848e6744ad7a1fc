"""Where confirmed outcomes are kept: the backend interface (`base`) and the backends.

The package opens the backend the settings name; the backends import `base`,
never the package, so nothing here imports itself back.
"""

from __future__ import annotations

from collections.abc import Callable

from recall_operator.memory.base import MemoryBackend, MemorySettings


def open_backend(
    settings: MemorySettings,
    on_unsigned: Callable[[], None] | None = None,
    *,
    write_behind: bool = False,
    queued: bool = False,
) -> MemoryBackend:
    """The backend named in the settings; each imported only when chosen, so the embedded path loads no client.

    `on_unsigned`: called once for each memory a Hindsight bank holds without a valid signature.
    `write_behind`, `queued`: Hindsight only, what `recall replay` writes with (HindsightMemory says what
    each means); the embedded store's writes are done when `remember` returns.
    """
    if settings.backend == "embedded":
        from recall_operator.memory.embedded import EmbeddedMemory

        return EmbeddedMemory(settings.path)
    if settings.backend == "hindsight":
        from recall_operator.memory.hindsight import HindsightMemory

        return HindsightMemory(
            settings.hindsight_url,
            bank=settings.hindsight_bank,
            index=settings.hindsight_index,
            poll_interval=settings.hindsight_poll_s,
            write_behind=write_behind,
            queued=queued,
            scope=settings.hindsight_scope,
            cluster=settings.cluster,
            keys=settings.hindsight_keys(),
            api_key=settings.hindsight_api_key or None,
            on_unsigned=on_unsigned,
        )
    raise ValueError(f"unknown memory backend {settings.backend!r}: use 'embedded' or 'hindsight'")
