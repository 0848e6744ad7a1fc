"""Whatever an Alertmanager (or anything posing as one) sends, the bridge answers without raising.

Generated webhook bodies, text drawn from all of Unicode (lone surrogates,
control and format characters included, as a JSON body can carry them): each
is refused with a 4xx and a reason, or mapped to Incidents the API server
would store as sent. The table tests in test_bridge_mapping.py pin each rule;
this looks for the combination nobody wrote down.
"""

from __future__ import annotations

import copy
import re
import unicodedata
import urllib.parse
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recall_operator.bridge import alertmanager as am
from recall_operator.bridge.alertmanager import BridgeError, Mapped, map_payload
from recall_operator.domain.models import IncidentSpec
from recall_operator.domain.times import parse_time

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 3, 4, 5, 6, 7, tzinfo=timezone.utc)
DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def _spec_schema() -> dict[str, Any]:
    crd = yaml.safe_load((ROOT / "crds" / "incidents.yaml").read_text())
    schema = copy.deepcopy(crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"])
    schema["additionalProperties"] = False  # the bridge writes only fields the CRD declares
    return schema


SPEC_SCHEMA = _spec_schema()

# Any code point, surrogates too: json.loads turns "\ud800" into one.
anything = st.text(st.characters(codec=None, categories=None), max_size=40)
words = st.text(st.characters(whitelist_categories=("L", "N", "Zs", "P")), min_size=1, max_size=30)
# Drawn from all of Unicode, a control or zero-width character is rare: these are the ones that did harm
# elsewhere (NUL, a right-to-left override, U+180E, a lone surrogate), mixed with what makes a name.
risky = st.sampled_from(["\x00", "\x1f", "\x7f", "\x85", "\u200b", "\u202e", "\u180e", "\ufeff", "\t", "\n",
                         "\r", "\ud800", " ", "\u3000", "-", ".", ":", "/", '"', "a", "Z", "5", "\u00e9", "\u65e5"])
text = st.one_of(anything, words, st.text(risky, max_size=30))
# Times as Alertmanager writes them (nanoseconds, Go's zero time for "not set"), a leap second, an offset,
# and times the CRD or the calendar refuse.
good_times = st.sampled_from(["2026-03-04T05:00:00.123456789Z", "0001-01-01T00:00:00Z", "2026-03-04T05:00:60+02:00",
                              "1969-12-31T23:59:59Z", "9999-12-31T23:59:59Z", "2026-03-04t05:00:00z"])
label_keys = st.one_of(st.sampled_from([*am.SERVICE_LABELS, *am.WORKLOAD_LABELS, "alertname", "severity",
                                        "namespace", "source", "fingerprint"]), anything)
annotation_keys = st.one_of(st.sampled_from(["summary", *am.DESCRIPTION_ANNOTATIONS, "symptoms",
                                             *am.SIGNATURE_ANNOTATIONS, "runbook_url"]), anything)
generator_urls = st.one_of(
    anything,
    text.map(lambda q: "http://prometheus.example/graph?" + urllib.parse.urlencode({am.GENERATOR_QUERY_KEY: q},
                                                                                  errors="surrogatepass")),
)
# An alert of the webhook's shape: every check of `validate_payload` passes, so what it says decides.
well_formed = st.fixed_dictionaries(
    {
        "status": st.sampled_from(["firing", "resolved"]),
        "labels": st.builds(lambda labels, key, value: {**labels, key: value},
                            st.dictionaries(label_keys, text, max_size=6), st.sampled_from(am.SERVICE_LABELS), text),
        "startsAt": good_times,
        "fingerprint": text.filter(str.strip),
    },
    optional={
        "annotations": st.dictionaries(annotation_keys, text, max_size=6),
        "endsAt": good_times,
        "generatorURL": generator_urls,
    },
)
# And one that may break it anywhere: a key left out, a time that is not one, a value of another type.
json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | anything,
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(anything, inner, max_size=3),
                           max_leaves=8)
broken = st.builds(lambda a, key, value, drop: {k: v for k, v in {**a, key: value}.items() if k != drop},
                   well_formed, st.sampled_from(["status", "labels", "annotations", "startsAt", "endsAt",
                                                 "fingerprint", "generatorURL"]), json_values,
                   st.sampled_from(["", "status", "labels", "startsAt", "fingerprint"]))


def webhook(alerts: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"version": st.just("4"), "status": st.sampled_from(["firing", "resolved"]),
         "alerts": st.lists(alerts, min_size=1, max_size=4)},
        optional={"truncatedAlerts": st.integers(min_value=-3, max_value=3), "receiver": text},
    )


def _categories(value: str) -> set[str]:
    return {unicodedata.category(ch) for ch in value}


def _fits_the_crd(spec: dict[str, Any]) -> None:
    """What the API server checks of a new Incident's spec: the schema, and the CEL rules on its strings."""
    jsonschema.validate(spec, SPEC_SCHEMA)
    service, title = spec["service"], spec["title"]
    assert service.strip() and title.strip()
    seen = _categories(service)
    assert any(c[0] in "LN" for c in seen) and not seen & {"Cc", "Cf"}, repr(service)
    assert any(c[0] in "LNPS" for c in _categories(title)), repr(title)
    assert "\n" not in title and not _categories(title) & {"Cc", "Cf"}, repr(title)
    # Signatures are compared as words, one log line each; a tab is kept (log lines have them), nothing else unseen.
    for line in spec.get("errorSignatures", []):
        assert "\n" not in line and not _categories(line.replace("\t", "")) & {"Cc", "Cf"}, repr(line)
    assert not _categories(spec.get("description", "").replace("\t", "").replace("\n", "")) & {"Cc", "Cf"}
    if "startedAt" in spec:  # the CRD's format and its CEL rule: a real time, 1970 or later
        started = parse_time(spec["startedAt"])
        assert started is not None and started.year >= 1970, spec["startedAt"]
    IncidentSpec.model_validate(spec)  # and the operator reads it back


def _check(result: Mapped) -> None:
    assert result.incidents and len({i.name for i in result.incidents}) == len(result.incidents)
    for skipped in result.skipped:
        assert skipped.reason.startswith(f"alerts[{skipped.index}]: ")
    for item in result.incidents:
        meta = item.manifest["metadata"]
        assert meta["name"] == item.name and len(item.name) <= am.MAX_NAME and DNS_SUBDOMAIN.fullmatch(item.name)
        for value in meta["annotations"].values():
            assert isinstance(value, str) and len(value) <= am.MAX_ANNOTATION_VALUE
        _fits_the_crd(item.manifest["spec"])
        # A re-fire touches only the annotations the bridge tracks, never the spec a person may have edited.
        assert set(item.patch) == {"metadata"} and set(item.patch["metadata"]) == {"annotations"}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(webhook(well_formed))
def test_a_well_formed_webhook_maps_to_incidents_the_crd_accepts_or_says_why_none(body: dict[str, Any]) -> None:
    result = map_payload(body, namespace="prod", received_at=NOW, panel_url="https://recall.example")
    if isinstance(result, BridgeError):
        # Only when no alert can be an Incident (no visible service or title), naming the first one's reason.
        assert result.status_code == 422 and result.reason.startswith("alerts[0]: "), result
        return
    _check(result)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(webhook(st.one_of(well_formed, broken)))
def test_any_webhook_is_refused_with_a_reason_or_mapped(body: dict[str, Any]) -> None:
    result = map_payload(body, namespace="prod", received_at=NOW)
    if isinstance(result, BridgeError):
        assert 400 <= result.status_code < 500 and result.reason.strip()
    else:
        _check(result)


@settings(max_examples=150, deadline=None)
@given(json_values)
def test_any_json_value_is_refused_with_a_4xx(body: Any) -> None:
    result = map_payload(body, namespace="prod", received_at=NOW)
    assert isinstance(result, BridgeError) and 400 <= result.status_code < 500 and result.reason.strip()
