"""One way to reach the API server, for every part of the operator that talks to it."""

from __future__ import annotations

import json
import os
import re
from typing import Any

# A character beyond the Basic Multilingual Plane (an emoji in a title) is a
# UTF-16 surrogate pair in Python's JSON ("\ud83d\udd25"). JSON is YAML, but
# the API server's YAML reader refuses surrogate escapes, so an apply body
# carrying one is a 400 and the status is never written. YAML spells the
# character as one 8-digit escape; only pairs after an even number of
# backslashes are escapes (an odd count means a literal backslash came first).
_SURROGATE_PAIR = re.compile(r"(?<!\\)((?:\\\\)*)\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})")


# A UTF-16 surrogate on its own: JSON can escape one ("\ud800") that pairs with
# nothing, which no UTF-8 text can hold. The API server's JSON reader stores
# U+FFFD in its place (Python's reader keeps it, and then cannot encode it).
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def as_stored_text(value: Any) -> Any:
    """Decoded JSON with each lone surrogate, in keys and strings, as U+FFFD: the text the API server would keep."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {as_stored_text(k): as_stored_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_stored_text(v) for v in value]
    return value


def apply_body(obj: Any) -> str:
    """`obj` as JSON that the API server's YAML reader accepts (the body of an apply patch)."""
    def one_escape(m: re.Match[str]) -> str:
        high, low = int(m.group(2), 16), int(m.group(3), 16)
        return f"{m.group(1)}\\U{0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00):08x}"

    return _SURROGATE_PAIR.sub(one_escape, json.dumps(obj))


def api_client(pool_size: int | None = None, retries: bool = True) -> Any:
    """In a pod the ServiceAccount; elsewhere the kubeconfig that $KUBECONFIG names now.

    The kubernetes library reads $KUBECONFIG once, when first imported; a
    process that sets it later (the demo, the tests) would silently get
    ~/.kube/config, so the variable is read here, at call time. Without
    `retries`, a request that fails or times out is not sent again by urllib3
    (three more times by default, each with the whole timeout again).
    """
    from kubernetes import client, config

    configuration = client.Configuration()
    try:
        config.load_incluster_config(client_configuration=configuration)
    except config.ConfigException:
        first = (os.environ.get("KUBECONFIG") or "").split(os.pathsep)[0] or None
        config.load_kube_config(config_file=first, client_configuration=configuration)
    if pool_size:
        configuration.connection_pool_maxsize = pool_size
    if not retries:
        configuration.retries = False
    api = client.ApiClient(configuration)
    bound_requests(api)
    return api


# How long one API request may take when its caller gives no timeout: connecting,
# then each read. The API server ends a request it cannot serve after 60 s on
# its own; these bound a connection that was accepted and then never answered
# (a partition, a load balancer dropping it), where a call would otherwise block
# its thread for ever, holding an incident's lock and its loop's pass with it.
API_CONNECT_TIMEOUT = 10.0
API_READ_TIMEOUT = 70.0


def bound_requests(api: Any) -> None:
    """Give every request of `api` a timeout unless its caller gives its own."""
    request = api.rest_client.request

    def bounded(*args: Any, _request_timeout: Any = None, **kwargs: Any) -> Any:
        return request(*args, _request_timeout=_request_timeout or (API_CONNECT_TIMEOUT, API_READ_TIMEOUT), **kwargs)

    api.rest_client.request = bounded


# Every API class of the Kubernetes client the operator calls (a test keeps the list whole).
OPERATOR_APIS = ("AuthenticationV1Api", "BatchV1Api", "CoreV1Api", "CustomObjectsApi")


def load_api_models() -> None:
    """Load the API classes the operator calls, now, and with them their models.

    The client loads an API class, and every model its methods name, when the
    class is first used: CoreV1Api alone brings about 250 modules and 80k
    objects. `recall run` loads them before it freezes what start-up loaded
    (runner.run_operator), so that no full garbage collection walks them later.
    """
    from kubernetes import client

    for name in OPERATOR_APIS:
        getattr(client, name)


class Conflict(Exception):
    """The object changed since the resourceVersion a write was guarded by, or it is gone."""


class TooLarge(Exception):
    """The write would make the object larger than the API server keeps (etcd's request limit, 1.5 MiB)."""


def _send(api: Any, method: str, path: str, body: Any, content_type: str, query: dict[str, str] | None = None,
          timeout: float | None = None) -> tuple[int, str, bytes]:
    """One request on the client's own REST layer (its connection pool, TLS and credentials): status, reason, body.

    `body` is sent as it is when a string; the REST layer serialises anything
    else as JSON.

    The generated API methods validate their arguments and build a model of
    every answer; on the two writes every answer makes (its status and its
    Event) that was most of the client's time: an Event posted through
    CoreV1Api took 1.5 ms of CPU and 5.6 ms, and 0.8 ms and 2.0 ms this way.
    """
    from urllib.parse import urlencode

    cfg = api.configuration
    url = f"{cfg.host}{path}" + (f"?{urlencode(query)}" if query else "")
    headers = {**api.default_headers, "Content-Type": content_type, "Accept": "application/json"}
    for auth in cfg.auth_settings().values():
        if auth.get("in") == "header" and auth.get("value"):
            headers[auth["key"]] = auth["value"]
    response = api.rest_client.request(method, url, headers=headers, body=body, _request_timeout=timeout)
    return response.status, response.reason, response.read()


def apply_status(api: Any, group: str, version: str, plural: str, kind: str, namespace: str, name: str,
                 status: dict[str, Any], manager: str, resource_version: str | None = None) -> dict[str, Any]:
    """Server-side apply of `status` to an object's status subresource, as field manager `manager`.

    The API server keeps, per manager, the fields it sent last: whatever this
    manager sent before and leaves out now is removed, and fields other
    managers own are left alone. So a manager sends everything it owns on
    every apply, and two writers never undo each other. `force` is set: this
    manager's word wins over anyone who wrote the same field by other means.
    With a resourceVersion the apply is refused (Conflict) if the object
    changed since; Conflict too when the object is gone. Returns the object.
    """
    from urllib.parse import quote

    from kubernetes import client

    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if resource_version is not None:
        metadata["resourceVersion"] = resource_version
    body = {"apiVersion": f"{group}/{version}", "kind": kind, "metadata": metadata, "status": status}
    # The generated client takes only a dict and serialises it with surrogate
    # escapes (see apply_body), so the request is sent with its own REST layer.
    path = "/apis/" + "/".join(quote(p, safe="") for p in (group, version, "namespaces", namespace, plural, name, "status"))
    code, reason, data = _send(api, "PATCH", path, apply_body(body), "application/apply-patch+yaml",
                               {"fieldManager": manager, "force": "true"})
    if code in (404, 409):
        raise Conflict(f"{plural}/{name}: {code} {reason}")
    if code == 413 or b"request is too large" in data:
        raise TooLarge(f"{plural}/{name}: {code} {_message(data) or reason}")
    if code >= 400:
        raise client.ApiException(status=code, reason=reason, body=data.decode(errors="replace"))
    result: dict[str, Any] = json.loads(data)
    return result


def _message(data: bytes) -> str:
    """The message of a Status answer; "" when it is not one."""
    try:
        return str(json.loads(data).get("message") or "")
    except (ValueError, AttributeError):
        return ""


def set_finalizer(api: Any, group: str, version: str, plural: str, namespace: str, name: str, uid: str,
                  finalizer: str, present: bool) -> bool:
    """Add or remove one finalizer on the object `uid`, leaving the others (Kopf's, a person's) alone.

    Read, then a merge patch guarded by the version read: an apply would
    create the object were it gone, and a plain merge patch of the list could
    drop a finalizer someone added meanwhile. False when nothing changed: the
    object is gone or is another one, it already is as asked, or it changed
    since it was read (Conflict; the caller's next pass asks again).
    """
    from urllib.parse import quote

    from kubernetes import client

    path = "/apis/" + "/".join(quote(p, safe="") for p in (group, version, "namespaces", namespace, plural, name))
    code, reason, data = _send(api, "GET", path, None, "application/json")
    if code == 404:
        return False
    if code >= 400:
        raise client.ApiException(status=code, reason=reason, body=data.decode(errors="replace"))
    meta = json.loads(data).get("metadata") or {}
    held = list(meta.get("finalizers") or [])
    if meta.get("uid") != uid or (finalizer in held) == present:
        return False
    wanted = [*held, finalizer] if present else [f for f in held if f != finalizer]
    patch = {"metadata": {"resourceVersion": meta.get("resourceVersion"), "finalizers": wanted}}
    code, reason, data = _send(api, "PATCH", path, patch, "application/merge-patch+json")
    if code == 404:
        return False
    if code == 409:
        raise Conflict(f"{plural}/{name}: {code} {reason}")
    if code >= 400:
        raise client.ApiException(status=code, reason=reason, body=data.decode(errors="replace"))
    return True


def post_event(api: Any, event: dict[str, Any], timeout: float | None = None) -> None:
    """Create one core/v1 Event (the body as the API takes it); raises ApiException when refused."""
    from urllib.parse import quote

    from kubernetes import client

    path = f"/api/v1/namespaces/{quote(event['metadata']['namespace'], safe='')}/events"
    code, reason, data = _send(api, "POST", path, event, "application/json", timeout=timeout)
    if code >= 400:
        raise client.ApiException(status=code, reason=reason, body=data.decode(errors="replace"))


def remove_status_fields(api: Any, group: str, version: str, plural: str, namespace: str, name: str,
                         patch: dict[str, Any], manager: str) -> None:
    """Delete status fields (a merge patch of nulls) that an apply could not remove: another manager owns them too."""
    from kubernetes import client

    try:
        client.CustomObjectsApi(api).patch_namespaced_custom_object_status(
            group, version, namespace, plural, name, {"status": patch}, field_manager=manager,
            _content_type="application/merge-patch+json",
        )
    except client.ApiException as exc:
        if exc.status != 404:
            raise
