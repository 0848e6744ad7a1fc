"""A raw HTTPS client for the local API server, as its admin.

The control plane checks itself (readiness, the fake Node, the CRDs) before any
kubeconfig-driven client could be trusted to work, so it speaks HTTP directly:
one request, one connection, the admin's client certificate.
"""

from __future__ import annotations

import http.client
import json
import ssl
from typing import Any

from recall_operator_dev.pki import Pki

__all__ = ["request", "ssl_context"]


def ssl_context(pki: Pki, *, client: bool = True) -> ssl.SSLContext:
    """Trust the local CA; with `client`, present the admin's certificate too."""
    ctx = ssl.create_default_context(cafile=str(pki.path("ca.crt")))
    if client:
        ctx.load_cert_chain(str(pki.path("admin.crt")), str(pki.path("admin.key")))
    return ctx


def request(
    port: int, pki: Pki, method: str, path: str, body: Any = None, timeout: float = 10.0
) -> tuple[int, Any]:
    """One request to the API server on loopback `port` as the admin; returns (status, decoded JSON or text)."""
    conn = http.client.HTTPSConnection("127.0.0.1", port, context=ssl_context(pki), timeout=timeout)
    try:
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        conn.request(method, path, body=data, headers=headers)
        resp = conn.getresponse()
        raw = resp.read().decode(errors="replace")
        try:
            return resp.status, json.loads(raw)
        except ValueError:
            return resp.status, raw
    finally:
        conn.close()
