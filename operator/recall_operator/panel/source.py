"""Where the panel's objects come from: the Kubernetes API, read with the identity the panel runs as.

Only `get` and `list` are ever called. The client is the synchronous
`kubernetes` one (the operator's own), run in worker threads so that the
event loop it shares with Kopf (under `recall run --panel-port`) never waits
on the network.
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Sequence
from typing import Any

from recall_operator.api import GROUP, VERSION

PLURALS = ("incidents", "runbooks", "contradictions", "architecturemigrations", "approvals")


class NotAllowed(Exception):
    """The namespace is not one the panel was started for."""


class Source:
    """Reads the recall.dev kinds and Jobs, in the namespaces named (every namespace when none are)."""

    def __init__(self, namespaces: Sequence[str] = (), api: Any = None) -> None:
        self.namespaces = list(dict.fromkeys(namespaces))
        self._api = api

    def _client(self) -> Any:
        if self._api is None:
            from recall_operator.kube.client import api_client

            self._api = api_client(pool_size=8)
        return self._api

    def close(self) -> None:
        if self._api is not None:
            self._api.close()
            self._api = None

    def allowed(self, namespace: str) -> bool:
        return not self.namespaces or namespace in self.namespaces

    def _check(self, namespace: str) -> None:
        if not self.allowed(namespace):
            raise NotAllowed(namespace)

    async def _run(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        return await asyncio.to_thread(fn, *args, **kwargs)

    def _objects(self) -> Any:
        from kubernetes import client

        return client.CustomObjectsApi(self._client())

    async def list(self, plural: str, namespace: str | None = None) -> list[dict[str, Any]]:
        """Every object of a kind: in one namespace, in the panel's namespaces, or cluster-wide."""
        api = self._objects()
        if namespace is not None:
            self._check(namespace)
            found = await self._run(api.list_namespaced_custom_object, GROUP, VERSION, namespace, plural)
            return list(found.get("items") or [])
        if not self.namespaces:
            found = await self._run(api.list_cluster_custom_object, GROUP, VERSION, plural)
            return list(found.get("items") or [])
        lists = await asyncio.gather(*(
            self._run(api.list_namespaced_custom_object, GROUP, VERSION, ns, plural) for ns in self.namespaces
        ))
        return [item for found in lists for item in found.get("items") or []]

    async def get(self, plural: str, namespace: str, name: str) -> dict[str, Any] | None:
        """One object, or None when it does not exist."""
        from kubernetes.client.exceptions import ApiException

        self._check(namespace)
        try:
            return dict(await self._run(self._objects().get_namespaced_custom_object,
                                        GROUP, VERSION, namespace, plural, name))
        except ApiException as exc:
            if exc.status == 404:
                return None
            raise

    # builtins.list: in the class body below list(), `list` names that method.
    async def jobs(self, namespace: str, incident: str) -> builtins.list[dict[str, Any]]:
        """The Jobs the operator made for one incident (dry-run, run and rollback), as plain dicts."""
        from kubernetes import client

        from recall_operator.kube.jobs import incident_selector

        self._check(namespace)
        api = self._client()
        found = await self._run(client.BatchV1Api(api).list_namespaced_job, namespace,
                                label_selector=incident_selector(incident))
        return [api.sanitize_for_serialization(j) for j in found.items]


class StaticSource(Source):
    """The same reads, answered from objects held in memory: for the benchmark and for tests without a cluster."""

    def __init__(self, objects: dict[str, list[dict[str, Any]]], jobs: list[dict[str, Any]] | None = None,
                 namespaces: Sequence[str] = ()) -> None:
        super().__init__(namespaces)
        self.objects = objects
        self._jobs = jobs or []

    def close(self) -> None:
        pass

    def _in(self, plural: str, namespace: str | None) -> list[dict[str, Any]]:
        return [o for o in self.objects.get(plural, [])
                if (namespace is None and self.allowed((o.get("metadata") or {}).get("namespace", "")))
                or (o.get("metadata") or {}).get("namespace") == namespace]

    async def list(self, plural: str, namespace: str | None = None) -> list[dict[str, Any]]:
        if namespace is not None:
            self._check(namespace)
        return self._in(plural, namespace)

    async def get(self, plural: str, namespace: str, name: str) -> dict[str, Any] | None:
        self._check(namespace)
        return next((o for o in self._in(plural, namespace) if o["metadata"]["name"] == name), None)

    # builtins.list: in the class body below list(), `list` names that method.
    async def jobs(self, namespace: str, incident: str) -> builtins.list[dict[str, Any]]:
        from recall_operator.kube.jobs import LABEL_INCIDENT, _label_value

        self._check(namespace)
        return [j for j in self._jobs if (j.get("metadata") or {}).get("namespace") == namespace
                and ((j.get("metadata") or {}).get("labels") or {}).get(LABEL_INCIDENT) == _label_value(incident)]
