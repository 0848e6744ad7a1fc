"""The bridge's writer: a new alert is created, a re-fire patched; one it wrote before is patched first."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes.client.exceptions import ApiException

from recall_operator.bridge.alertmanager import AlertIncident
from recall_operator.bridge.server import IncidentWriter, WriteFailure


class FakeApi:
    """Incidents by name; every call recorded as (verb, name)."""

    def __init__(self, existing: frozenset[str] = frozenset(), refuse: int | None = None) -> None:
        self.objects = set(existing)
        self.calls: list[tuple[str, str]] = []
        self.refuse = refuse

    def create_namespaced_custom_object(self, group: str, version: str, namespace: str, plural: str,
                                        body: dict[str, Any], **_: Any) -> dict[str, Any]:
        name = body["metadata"]["name"]
        self.calls.append(("create", name))
        if self.refuse:
            raise ApiException(status=self.refuse, reason="refused")
        if name in self.objects:
            raise ApiException(status=409, reason="AlreadyExists")
        self.objects.add(name)
        return body

    def patch_namespaced_custom_object(self, group: str, version: str, namespace: str, plural: str, name: str,
                                       body: dict[str, Any], **_: Any) -> dict[str, Any]:
        self.calls.append(("patch", name))
        if name not in self.objects:
            raise ApiException(status=404, reason="NotFound")
        return body


def _item(name: str) -> AlertIncident:
    return AlertIncident(name=name, status="firing", manifest={"metadata": {"name": name}},
                         patch={"metadata": {"annotations": {"recall.dev/alert-status": "firing"}}})


@pytest.fixture
def writer() -> Iterator[IncidentWriter]:
    w = IncidentWriter(None, "shop", workers=2)
    yield w
    w.close()


def _write(writer: IncidentWriter, api: FakeApi, *names: str) -> list[str]:
    writer._api = api

    async def go() -> list[str]:
        return [await writer.write(_item(n)) for n in names]

    return asyncio.run(go())


def test_a_new_alert_is_created_and_its_refire_patched_without_a_create_first(writer: IncidentWriter) -> None:
    api = FakeApi()
    assert _write(writer, api, "alert-a", "alert-a", "alert-a") == ["created", "updated", "updated"]
    assert api.calls == [("create", "alert-a"), ("patch", "alert-a"), ("patch", "alert-a")]


def test_an_alert_another_replica_created_is_patched_after_the_refused_create(writer: IncidentWriter) -> None:
    api = FakeApi(existing=frozenset({"alert-b"}))
    assert _write(writer, api, "alert-b") == ["updated"]
    assert api.calls == [("create", "alert-b"), ("patch", "alert-b")]


def test_an_incident_deleted_since_the_bridge_wrote_it_is_created_again(writer: IncidentWriter) -> None:
    api = FakeApi()
    _write(writer, api, "alert-c")
    api.objects.clear()  # a person deleted it
    api.calls.clear()
    assert _write(writer, api, "alert-c") == ["created"]
    assert api.calls == [("patch", "alert-c"), ("create", "alert-c")]
    assert api.objects == {"alert-c"}


def test_a_refusal_is_a_write_failure_and_the_name_is_not_remembered(writer: IncidentWriter) -> None:
    api = FakeApi(refuse=500)
    with pytest.raises(WriteFailure) as failure:
        _write(writer, api, "alert-d")
    assert failure.value.status_code == 503
    api.refuse = None
    api.calls.clear()
    assert _write(writer, api, "alert-d") == ["created"]
    assert api.calls == [("create", "alert-d")]
