"""The bridge's writer against the real API server: a new alert is created, a re-fire patched,
one it wrote before patched first (or, with no news within a minute, only read), one deleted
since created again.

The writer's client is the real one; a thin recorder in front of it notes each
call's verb, so the tests can tell a re-fire's patch from a create refused as
AlreadyExists. Every call still reaches the API server.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from recall_operator.api import API_VERSION, GROUP, VERSION
from recall_operator.domain.approval_rules import BRIDGE_OPENER
from recall_operator.bridge.alertmanager import AlertIncident
from recall_operator.bridge.server import IncidentWriter, WriteFailure

pytestmark = pytest.mark.integration


class Recorder:
    """The real CustomObjectsApi, each create and patch noted as (verb, name) before it is sent."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.calls: list[tuple[str, str]] = []

    def create_namespaced_custom_object(self, *args: Any, **kwargs: Any) -> Any:
        self.calls.append(("create", args[4]["metadata"]["name"]))
        return self.real.create_namespaced_custom_object(*args, **kwargs)

    def patch_namespaced_custom_object(self, *args: Any, **kwargs: Any) -> Any:
        self.calls.append(("patch", args[4]))
        return self.real.patch_namespaced_custom_object(*args, **kwargs)

    def get_namespaced_custom_object(self, *args: Any, **kwargs: Any) -> Any:
        self.calls.append(("get", args[4]))
        return self.real.get_namespaced_custom_object(*args, **kwargs)


SEEN = "recall.dev/alert-last-seen-at"


def _item(name: str, namespace: str, firing: str = "firing", seen: str = "2026-01-01T00:00:00Z") -> AlertIncident:
    annotations = {"recall.dev/alert-status": firing, SEEN: seen}
    manifest = {"apiVersion": API_VERSION, "kind": "Incident",
                "metadata": {"name": name, "namespace": namespace,
                             "annotations": {**annotations, "recall.dev/opened-by": BRIDGE_OPENER}},
                "spec": {"service": "checkout", "title": f"alert {name}", "severity": "high"}}
    return AlertIncident(name=name, status=firing, manifest=manifest, patch={"metadata": {"annotations": annotations}})


class Clock:
    """The writer's clock, moved by the test (seconds)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def writer(k8s_api: Any, namespace: str, clock: Clock) -> Iterator[tuple[IncidentWriter, Recorder]]:
    w = IncidentWriter(k8s_api, namespace, workers=2, clock=clock)
    recorder = Recorder(w._api)
    w._api = recorder
    yield w, recorder
    w.close()


def _write(w: IncidentWriter, *items: AlertIncident) -> list[str]:
    async def go() -> list[str]:
        return [(await w.write(item)).outcome for item in items]

    return asyncio.run(go())


def _get(k8s_api: Any, namespace: str, name: str) -> dict[str, Any]:
    from kubernetes import client

    found: dict[str, Any] = client.CustomObjectsApi(k8s_api).get_namespaced_custom_object(
        GROUP, VERSION, namespace, "incidents", name)
    return found


def test_a_new_alert_is_created_and_its_refires_patched_without_a_create_first(
    writer: tuple[IncidentWriter, Recorder], k8s_api: Any, namespace: str
) -> None:
    w, api = writer
    outcomes = _write(w, _item("alert-a", namespace), _item("alert-a", namespace, "resolved"),
                      _item("alert-a", namespace))
    assert outcomes == ["created", "updated", "updated"]
    # Each patch is written at the version its read found (`_patch`), so a late request cannot undo a later one.
    assert api.calls == [("create", "alert-a"), ("get", "alert-a"), ("patch", "alert-a"), ("get", "alert-a"),
                         ("patch", "alert-a")]
    assert _get(k8s_api, namespace, "alert-a")["metadata"]["annotations"]["recall.dev/alert-status"] == "firing"


def test_an_incident_another_replica_created_is_patched_after_the_refused_create(
    writer: tuple[IncidentWriter, Recorder], k8s_api: Any, namespace: str
) -> None:
    from kubernetes import client

    client.CustomObjectsApi(k8s_api).create_namespaced_custom_object(
        GROUP, VERSION, namespace, "incidents", _item("alert-b", namespace).manifest)
    w, api = writer
    assert _write(w, _item("alert-b", namespace, "resolved")) == ["updated"]
    # The refused create is followed by a read: only an Incident the bridge opened takes the alert.
    assert api.calls == [("create", "alert-b"), ("get", "alert-b"), ("get", "alert-b"), ("patch", "alert-b")]
    assert _get(k8s_api, namespace, "alert-b")["metadata"]["annotations"]["recall.dev/alert-status"] == "resolved"


def test_an_incident_deleted_since_the_bridge_wrote_it_is_created_again(
    writer: tuple[IncidentWriter, Recorder], k8s_api: Any, namespace: str
) -> None:
    from kubernetes import client

    w, api = writer
    _write(w, _item("alert-c", namespace), _item("alert-e", namespace))
    for name in ("alert-c", "alert-e"):
        client.CustomObjectsApi(k8s_api).delete_namespaced_custom_object(GROUP, VERSION, namespace, "incidents", name)
    api.calls.clear()
    # A re-fire with news (resolved) is patched first; one with none is read: either finds it gone.
    assert _write(w, _item("alert-c", namespace, "resolved"), _item("alert-e", namespace, seen="2026-01-01T00:00:09Z")) \
        == ["created", "created"]
    assert api.calls == [("get", "alert-c"), ("get", "alert-c"), ("create", "alert-c"),
                         ("get", "alert-e"), ("get", "alert-e"), ("create", "alert-e")]
    assert _get(k8s_api, namespace, "alert-c")["spec"]["title"] == "alert alert-c"
    assert _get(k8s_api, namespace, "alert-e")["metadata"]["annotations"][SEEN] == "2026-01-01T00:00:09Z"


def test_a_refire_with_no_news_is_read_not_written_until_a_minute_after_the_last_write(
    writer: tuple[IncidentWriter, Recorder], clock: Clock, k8s_api: Any, namespace: str
) -> None:
    w, api = writer
    assert _write(w, _item("alert-f", namespace)) == ["created"]
    version = _get(k8s_api, namespace, "alert-f")["metadata"]["resourceVersion"]
    clock.now += 30
    assert _write(w, _item("alert-f", namespace, seen="2026-01-01T00:00:30Z")) == ["unchanged"]
    clock.now += 29  # still within a minute of the write, though 29 s after the last re-fire
    assert _write(w, _item("alert-f", namespace, seen="2026-01-01T00:00:59Z")) == ["unchanged"]
    found = _get(k8s_api, namespace, "alert-f")
    assert found["metadata"]["resourceVersion"] == version  # nothing was written
    assert found["metadata"]["annotations"][SEEN] == "2026-01-01T00:00:00Z"
    clock.now += 2
    assert _write(w, _item("alert-f", namespace, seen="2026-01-01T00:01:01Z")) == ["updated"]
    assert _get(k8s_api, namespace, "alert-f")["metadata"]["annotations"][SEEN] == "2026-01-01T00:01:01Z"
    # News is written at once, however soon: the alert resolved.
    assert _write(w, _item("alert-f", namespace, "resolved", seen="2026-01-01T00:01:02Z")) == ["updated"]
    assert api.calls == [("create", "alert-f"), ("get", "alert-f"), ("get", "alert-f"), ("get", "alert-f"),
                         ("patch", "alert-f"), ("get", "alert-f"), ("patch", "alert-f")]
    assert _get(k8s_api, namespace, "alert-f")["metadata"]["annotations"]["recall.dev/alert-status"] == "resolved"


def test_a_refused_write_is_a_write_failure_and_the_name_is_not_remembered(
    writer: tuple[IncidentWriter, Recorder], namespace: str
) -> None:
    w, api = writer
    bad = _item("alert-d", namespace)
    del bad.manifest["spec"]["title"]  # the CRD requires it: the API server refuses the create
    with pytest.raises(WriteFailure) as failure:
        _write(w, bad)
    assert failure.value.status_code == 502 and "(422)" in failure.value.reason, failure.value.reason
    api.calls.clear()
    assert _write(w, _item("alert-d", namespace)) == ["created"]
    assert api.calls == [("create", "alert-d")]


STARTS = "recall.dev/alert-starts-at"
LATEST = "recall.dev/alert-latest-incident"
RECURRENCE_OF = "recall.dev/alert-recurrence-of"
CLOSED = {"summary": "restarted the consumers", "confirmedBy": "oncall-a",
          "actions": [{"action": "restart consumers", "result": "succeeded"}]}


def _firing(name: str, namespace: str, start: str, firing: str = "firing",
            seen: str = "2026-01-01T00:00:00Z") -> AlertIncident:
    """An alert as the bridge maps it: tracking annotations patched, the opener set only on create."""
    item = _item(name, namespace, firing, seen)
    tracking = item.patch["metadata"]["annotations"]
    tracking.update({STARTS: start, "recall.dev/alert-fingerprint": f"fp-{name}"})
    item.manifest["metadata"]["annotations"] = {**tracking, "recall.dev/opened-by": BRIDGE_OPENER}
    return item


def _close(k8s_api: Any, namespace: str, name: str) -> None:
    """A person records the outcome: the Incident is closed."""
    from kubernetes import client

    client.CustomObjectsApi(k8s_api).patch_namespaced_custom_object(
        GROUP, VERSION, namespace, "incidents", name, {"spec": {"resolution": CLOSED}})


def _names(w: IncidentWriter, *items: AlertIncident) -> list[tuple[str, str]]:
    async def go() -> list[tuple[str, str]]:
        return [((done := await w.write(item)).outcome, done.name) for item in items]

    return asyncio.run(go())


def test_an_alert_that_fires_again_after_its_incident_was_closed_opens_a_new_incident(
    writer: tuple[IncidentWriter, Recorder], k8s_api: Any, namespace: str, clock: Clock
) -> None:
    # The same labels give the same fingerprint every time the alert fires: without telling firings
    # apart, its recurrence a week later only patched the closed Incident, and nobody was paged.
    w, _ = writer
    first, second = "2026-01-01T00:00:00Z", "2026-01-08T09:30:00Z"
    assert _names(w, _firing("alert-r", namespace, first)) == [("created", "alert-r")]
    _close(k8s_api, namespace, "alert-r")
    clock.now += 120
    # Its own firing still repeats after a person closed it: that stays on the closed Incident.
    assert _names(w, _firing("alert-r", namespace, first, seen="2026-01-01T00:10:00Z")) == [("updated", "alert-r")]
    # It fires again: a new Incident, named by the firing's start, pointing back at the closed one.
    again = "alert-r-20260108093000"
    assert _names(w, _firing("alert-r", namespace, second)) == [("created", again)]
    made = _get(k8s_api, namespace, again)
    assert made["metadata"]["annotations"][RECURRENCE_OF] == "alert-r"
    assert made["metadata"]["annotations"][STARTS] == second
    assert "resolution" not in made["spec"]
    closed = _get(k8s_api, namespace, "alert-r")
    assert closed["metadata"]["annotations"][LATEST] == again
    assert closed["metadata"]["annotations"][STARTS] == first, "the closed Incident keeps its own firing's record"
    # Its repeats and its flaps go to the open one, from this writer and from one that knows nothing (a restart).
    assert _names(w, _firing("alert-r", namespace, second, "resolved")) == [("updated", again)]
    fresh = IncidentWriter(k8s_api, namespace, workers=1)
    try:
        assert _names(fresh, _firing("alert-r", namespace, "2026-01-08T10:00:00Z")) == [("updated", again)]
        # Closed too: the next firing opens a third, after the second.
        _close(k8s_api, namespace, again)
        third = "alert-r-20260115000000"
        assert _names(fresh, _firing("alert-r", namespace, "2026-01-15T00:00:00Z")) == [("created", third)]
    finally:
        fresh.close()
    assert _get(k8s_api, namespace, third)["metadata"]["annotations"][RECURRENCE_OF] == again
    assert _get(k8s_api, namespace, "alert-r")["metadata"]["annotations"][LATEST] == third
    # And the first writer, which last wrote the second, follows.
    assert _names(w, _firing("alert-r", namespace, "2026-01-15T00:00:00Z", "resolved")) == [("updated", third)]


def test_a_closed_incident_of_an_alert_without_a_start_still_takes_its_refires(
    writer: tuple[IncidentWriter, Recorder], k8s_api: Any, namespace: str
) -> None:
    # Without startsAt firings cannot be told apart; nothing new is opened on a guess.
    w, _ = writer
    assert _names(w, _item("alert-s", namespace)) == [("created", "alert-s")]
    _close(k8s_api, namespace, "alert-s")
    assert _names(w, _item("alert-s", namespace, "resolved")) == [("updated", "alert-s")]


def test_an_open_incident_takes_a_flap_but_not_a_firing_a_day_after_its_alert_resolved(
    writer: tuple[IncidentWriter, Recorder], k8s_api: Any, namespace: str
) -> None:
    w, _ = writer

    def resolved(start: str, at: str) -> AlertIncident:
        item = _firing("alert-o", namespace, start, "resolved")
        item.patch["metadata"]["annotations"]["recall.dev/alert-resolved-at"] = at
        item.manifest["metadata"]["annotations"]["recall.dev/alert-resolved-at"] = at
        return item

    assert _names(w, _firing("alert-o", namespace, "2026-01-01T00:00:00Z")) == [("created", "alert-o")]
    assert _names(w, resolved("2026-01-01T00:00:00Z", "2026-01-01T01:00:00Z")) == [("updated", "alert-o")]
    # Back ten minutes later: a flap, the same incident (nobody has closed it).
    assert _names(w, _firing("alert-o", namespace, "2026-01-01T01:10:00Z")) == [("updated", "alert-o")]
    assert _names(w, resolved("2026-01-01T01:10:00Z", "2026-01-01T02:00:00Z")) == [("updated", "alert-o")]
    # Back two days later with the incident still open: a new failure pages as a new Incident.
    assert _names(w, _firing("alert-o", namespace, "2026-01-03T02:00:00Z")) == [
        ("created", "alert-o-20260103020000")]
    assert "resolution" not in _get(k8s_api, namespace, "alert-o")["spec"]


def test_a_first_incident_deleted_after_its_outcome_was_remembered_gives_its_name_to_no_other(
    k8s_api: Any, namespace: str, tmp_path: Any
) -> None:
    # alert-m was paged, closed and remembered, then deleted (a retention clean-up). Its next firing
    # under the same name would be excluded from its own recall and, once resolved, replace that memory.
    from datetime import UTC, datetime

    from recall_operator.domain.models import EpisodicMemory, IncidentSpec, Resolution
    from recall_operator.memory.embedded import EmbeddedMemory

    memory = EmbeddedMemory(tmp_path / "memory.sqlite3")
    spec = IncidentSpec(service="checkout", title="alert alert-m")
    asyncio.run(memory.remember(EpisodicMemory(
        incident="alert-m", namespace=namespace, spec=spec, resolved_at=datetime(2026, 1, 1, 2, tzinfo=UTC),
        resolution=Resolution(summary="restarted the consumers", confirmedBy="oncall-a"))))

    async def remembered(name: str) -> bool:
        return await memory.get(name, namespace) is not None

    def writes(*items: AlertIncident) -> list[tuple[str, str]]:
        w = IncidentWriter(k8s_api, namespace, workers=1, remembered=remembered)
        try:
            return _names(w, *items)
        finally:
            w.close()

    again = "alert-m-20260201000000"
    assert writes(_firing("alert-m", namespace, "2026-02-01T00:00:00Z")) == [("created", again)]
    assert _get(k8s_api, namespace, again)["metadata"]["annotations"][RECURRENCE_OF] == "alert-m"
    # Its repeats, from a bridge that knows nothing of it, converge on it.
    assert writes(_firing("alert-m", namespace, "2026-02-01T00:00:00Z", "resolved")) == [("updated", again)]
    # An alert memory has never seen keeps its plain name.
    assert writes(_firing("alert-n", namespace, "2026-02-01T00:00:00Z")) == [("created", "alert-n")]
    asyncio.run(memory.close())


def test_an_alert_s_name_someone_else_took_first_gets_none_of_its_pages(
    writer: tuple[IncidentWriter, Recorder], k8s_api: Any, namespace: str
) -> None:
    # Fingerprints can be computed: a person opens alert-q before the alert fires (admission reserves the
    # prefix; this is a cluster without the policy). Her Incident would have taken the alert's pages.
    from kubernetes import client

    start = "2026-01-02T03:04:05Z"
    squat = _firing("alert-q", namespace, start)
    squat.manifest["metadata"]["annotations"]["recall.dev/opened-by"] = "mallory"
    squat.manifest["spec"]["title"] = "mallory's report"
    client.CustomObjectsApi(k8s_api).create_namespaced_custom_object(
        GROUP, VERSION, namespace, "incidents", squat.manifest)
    w, _ = writer
    own = "alert-q-20260102030405"
    assert _names(w, _firing("alert-q", namespace, start)) == [("created", own)]
    # A restarted writer (no hints) finds the same one for the firing's repeats.
    fresh = IncidentWriter(k8s_api, namespace, workers=1)
    try:
        assert _names(fresh, _firing("alert-q", namespace, start, "resolved")) == [("updated", own)]
    finally:
        fresh.close()
    made = _get(k8s_api, namespace, own)
    assert made["metadata"]["annotations"]["recall.dev/opened-by"] == BRIDGE_OPENER
    assert made["metadata"]["annotations"]["recall.dev/alert-status"] == "resolved"
    assert RECURRENCE_OF not in made["metadata"]["annotations"], "the squatter's Incident is no earlier firing"
    theirs = _get(k8s_api, namespace, "alert-q")
    assert theirs["spec"]["title"] == "mallory's report"
    assert theirs["metadata"]["annotations"]["recall.dev/alert-status"] == "firing"  # as she wrote it
    assert LATEST not in theirs["metadata"]["annotations"]
    # Both names taken by others: the write fails, says so, and Alertmanager retries it.
    squat2 = _firing("alert-q", namespace, "2026-02-01T00:00:00Z")
    taken = dict(squat.manifest, metadata={**squat.manifest["metadata"], "name": "alert-q-20260201000000"})
    client.CustomObjectsApi(k8s_api).create_namespaced_custom_object(GROUP, VERSION, namespace, "incidents", taken)
    with pytest.raises(WriteFailure) as failed:
        _names(w, squat2)
    assert failed.value.status_code == 503 and "not opened by the alert bridge" in failed.value.reason


def test_a_request_that_arrives_after_a_later_one_changes_nothing(
    writer: tuple[IncidentWriter, Recorder], k8s_api: Any, namespace: str
) -> None:
    # A firing that waited on its way (its sender gave up and re-sent) landed after the alert's resolution
    # and turned it back into a firing alert, its resolved-at gone.
    w, api = writer
    assert _write(w, _item("alert-r", namespace, seen="2026-01-01T00:00:10Z"),
                  _item("alert-r", namespace, "resolved", seen="2026-01-01T00:00:20Z")) == ["created", "updated"]
    version = _get(k8s_api, namespace, "alert-r")["metadata"]["resourceVersion"]
    api.calls.clear()
    assert _write(w, _item("alert-r", namespace, seen="2026-01-01T00:00:05Z")) == ["updated"]
    assert api.calls == [("get", "alert-r")]  # read, found newer, not written
    found = _get(k8s_api, namespace, "alert-r")
    assert found["metadata"]["resourceVersion"] == version
    assert found["metadata"]["annotations"]["recall.dev/alert-status"] == "resolved"


def test_a_patch_whose_incident_changed_after_its_read_is_read_again_and_yields_to_the_later_request(
    writer: tuple[IncidentWriter, Recorder], k8s_api: Any, namespace: str
) -> None:
    from kubernetes import client

    w, api = writer
    assert _write(w, _item("alert-s", namespace, seen="2026-01-01T00:00:10Z")) == ["created"]
    real_get = api.get_namespaced_custom_object
    raced: list[bool] = []

    def get_then_someone_writes(*args: Any, **kwargs: Any) -> Any:
        found = real_get(*args, **kwargs)
        if not raced:  # between this read and the writer's patch, a later request (firing again) lands
            raced.append(True)
            client.CustomObjectsApi(k8s_api).patch_namespaced_custom_object(
                GROUP, VERSION, namespace, "incidents", "alert-s", _item(
                    "alert-s", namespace, seen="2026-01-01T00:00:30Z").patch,
                _content_type="application/merge-patch+json")
        return found

    api.get_namespaced_custom_object = get_then_someone_writes  # type: ignore[method-assign]
    api.calls.clear()
    assert _write(w, _item("alert-s", namespace, "resolved", seen="2026-01-01T00:00:20Z")) == ["updated"]
    # The patch at the version first read is refused (409); the second read finds the later request's.
    assert api.calls == [("get", "alert-s"), ("patch", "alert-s"), ("get", "alert-s")]
    annotations = _get(k8s_api, namespace, "alert-s")["metadata"]["annotations"]
    assert (annotations["recall.dev/alert-status"], annotations[SEEN]) == ("firing", "2026-01-01T00:00:30Z")
