"""Alertmanager → Incident bridge.

``alertmanager`` maps webhook payloads to Incident manifests (pure);
``server`` is the aiohttp receiver the runner starts with ``serve()``.
"""

from __future__ import annotations

from .alertmanager import AlertIncident, BridgeError, Mapped, map_payload

__all__ = ["AlertIncident", "BridgeError", "Mapped", "map_payload", "serve"]


async def serve(
    port: int, namespace: str, host: str = "127.0.0.1", *, token_file: str | None = None, panel_url: str | None = None
) -> None:
    """Run the webhook receiver until cancelled (see :func:`.server.serve`)."""
    # Imported here so that the pure mapping is usable without the web stack loaded.
    from .server import serve as _serve

    await _serve(port, namespace, host, token_file=token_file, panel_url=panel_url)
