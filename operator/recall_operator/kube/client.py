"""One way to reach the API server, for every part of the operator that talks to it."""

from __future__ import annotations

import os
from typing import Any


def api_client(pool_size: int | None = None) -> Any:
    """In a pod the ServiceAccount; elsewhere the kubeconfig that $KUBECONFIG names now.

    The kubernetes library reads $KUBECONFIG once, when first imported; a
    process that sets it later (the demo, the tests) would silently get
    ~/.kube/config, so the variable is read here, at call time.
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
    return client.ApiClient(configuration)


class Conflict(Exception):
    """The object changed since the resourceVersion a write was guarded by, or it is gone."""


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
    from kubernetes import client

    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if resource_version is not None:
        metadata["resourceVersion"] = resource_version
    body = {"apiVersion": f"{group}/{version}", "kind": kind, "metadata": metadata, "status": status}
    try:
        # The client declares object; the answer is the patched object as parsed JSON.
        result: Any = client.CustomObjectsApi(api).patch_namespaced_custom_object_status(
            group, version, namespace, plural, name, body,
            field_manager=manager, force=True, _content_type="application/apply-patch+yaml",
        )
    except client.ApiException as exc:
        if exc.status in (404, 409):
            raise Conflict(f"{plural}/{name}: {exc.status} {exc.reason}") from exc
        raise
    return result


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
