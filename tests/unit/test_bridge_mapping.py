"""Alertmanager webhook → Incident mapping, as plain functions (no cluster).

The integration test (tests/integration/test_bridge.py) sends the same kinds
of payloads through a real Alertmanager and a real API server; here every
branch of the mapping and every refusal is pinned down, table-driven.
"""

from __future__ import annotations

import copy
import json
import urllib.parse
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from recall_operator.bridge import alertmanager as am
from recall_operator.bridge.alertmanager import BridgeError, Mapped, map_payload
from recall_operator.domain.models import IncidentSpec
from recall_operator.domain.symptoms import symptoms_said

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 3, 4, 5, 6, 7, tzinfo=timezone.utc)
NS = "prod"


def alert(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "status": "firing",
        "labels": {"alertname": "HighLatency", "service": "cart-service", "severity": "critical", "team": "shop"},
        "annotations": {
            "summary": "p99 latency above 2s on cart",
            "description": "checkout requests time out",
            "symptoms": "Latency Spike, 5xx,  cache_eviction ",
            "errorSignatures": "redis: connection pool timeout\nupstream timed out, retrying",
        },
        "startsAt": "2026-03-04T05:00:00.123456789Z",
        "endsAt": "0001-01-01T00:00:00Z",
        "generatorURL": "http://prometheus.example/graph?g0.expr=x",
        "fingerprint": "0123456789abcdef",
    }
    base.update(over)
    return base


def payload(*alerts: dict[str, Any], **over: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "version": "4",
        "groupKey": '{}:{alertname="HighLatency"}',
        "truncatedAlerts": 0,
        "status": "firing",
        "receiver": "recall",
        "groupLabels": {"alertname": "HighLatency"},
        "commonLabels": {"alertname": "HighLatency"},
        "commonAnnotations": {},
        "externalURL": "http://alertmanager.example",
        "alerts": list(alerts) or [alert()],
    }
    body.update(over)
    return body


def mapped(body: Any) -> Mapped:
    result = map_payload(body, namespace=NS, received_at=NOW)
    assert isinstance(result, Mapped), result
    return result


def refused(body: Any) -> BridgeError:
    result = map_payload(body, namespace=NS, received_at=NOW)
    assert isinstance(result, BridgeError), result
    return result


def without(d: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k != key}


# --------------------------------------------------------------------------
# the mapping


def test_firing_alert_maps_to_the_incident_spec() -> None:
    [inc] = mapped(payload()).incidents
    assert inc.name == "alert-0123456789abcdef"
    assert inc.manifest["apiVersion"] == "recall.dev/v1alpha1"
    assert inc.manifest["kind"] == "Incident"
    assert inc.manifest["metadata"]["namespace"] == NS
    assert inc.manifest["metadata"]["labels"] == {"recall.dev/source": "alertmanager"}
    assert inc.manifest["spec"] == {
        "service": "cart-service",
        "severity": "critical",
        "title": "p99 latency above 2s on cart",
        "description": "checkout requests time out",
        "symptoms": ["latency-spike", "5xx", "cache-eviction"],
        "errorSignatures": ["redis: connection pool timeout", "upstream timed out, retrying"],
        "startedAt": "2026-03-04T05:00:00Z",
        "labels": {
            "source": "alertmanager",
            "fingerprint": "0123456789abcdef",
            "alertname": "HighLatency",
            "service": "cart-service",
            "severity": "critical",
            "team": "shop",
        },
    }
    annotations = inc.manifest["metadata"]["annotations"]
    assert annotations["recall.dev/alert-status"] == "firing"
    assert annotations["recall.dev/alert-last-seen-at"] == "2026-03-04T05:06:07Z"
    assert "recall.dev/alert-resolved-at" not in annotations


def test_the_bridge_never_writes_resolution_or_parameters() -> None:
    # Alert text must not reach Runbook commands (parameters) nor claim a fix (resolution),
    # even when the alert carries labels or annotations by those names.
    a = alert(
        status="resolved",
        endsAt="2026-03-04T05:30:00Z",
        labels={**alert()["labels"], "parameters": "rm -rf /", "resolution": "fixed"},
        annotations={**alert()["annotations"], "resolution": "restart it", "parameters": "x"},
    )
    [inc] = mapped(payload(a, status="resolved")).incidents
    assert "resolution" not in inc.manifest["spec"]
    assert "parameters" not in inc.manifest["spec"]
    assert "spec" not in inc.patch
    assert inc.manifest["metadata"]["annotations"]["recall.dev/alert-resolved-at"] == "2026-03-04T05:30:00Z"
    assert inc.patch["metadata"]["annotations"]["recall.dev/alert-status"] == "resolved"


def test_refire_patch_touches_only_tracking_annotations() -> None:
    [inc] = mapped(payload()).incidents
    assert set(inc.patch) == {"metadata"}
    assert set(inc.patch["metadata"]) == {"annotations"}
    assert all(k.startswith("recall.dev/alert-") for k in inc.patch["metadata"]["annotations"])
    # firing again clears a stale resolved-at (null deletes it in a merge patch)
    assert inc.patch["metadata"]["annotations"]["recall.dev/alert-resolved-at"] is None


def test_same_fingerprint_same_name_and_spec() -> None:
    first = mapped(payload()).incidents[0]
    later = map_payload(payload(), namespace=NS, received_at=datetime(2027, 1, 1, tzinfo=timezone.utc))
    assert isinstance(later, Mapped)
    assert later.incidents[0].name == first.name
    assert later.incidents[0].manifest["spec"] == first.manifest["spec"]


def test_duplicate_fingerprints_in_one_payload_collapse_to_the_last() -> None:
    result = mapped(payload(alert(), alert(status="resolved", endsAt="2026-03-04T06:00:00Z")))
    assert [i.name for i in result.incidents] == ["alert-0123456789abcdef"]
    assert result.incidents[0].status == "resolved"


@pytest.mark.parametrize(
    ("labels", "service"),
    [
        ({"service": "a", "job": "b", "app": "c"}, "a"),
        ({"job": "b", "app": "c"}, "b"),
        ({"app": "c"}, "c"),
        ({"service": "  ", "job": "b"}, "b"),
        ({"service": " padded "}, "padded"),
    ],
)
def test_service_falls_back_to_job_then_app(labels: dict[str, str], service: str) -> None:
    [inc] = mapped(payload(alert(labels={"alertname": "X", **labels}))).incidents
    assert inc.manifest["spec"]["service"] == service


# Labels as kube-prometheus' rules produce them: the series' own labels, scraped
# from kube-state-metrics or the kubelet, plus the rule's.
KSM = {"job": "kube-state-metrics", "service": "kube-prometheus-stack-kube-state-metrics", "endpoint": "http",
       "instance": "10.0.3.7:8080", "namespace": "shop"}


@pytest.mark.parametrize(
    ("labels", "service"),
    [
        ({"alertname": "KubePodCrashLooping", **KSM, "pod": "cart-7d9f-x2", "container": "cart", "reason": "CrashLoopBackOff"},
         "cart"),
        ({"alertname": "KubeDeploymentReplicasMismatch", **KSM, "deployment": "checkout-api"}, "checkout-api"),
        ({"alertname": "KubeStatefulSetReplicasMismatch", **KSM, "statefulset": "orders-db"}, "orders-db"),
        ({"alertname": "KubeJobFailed", **KSM, "job_name": "nightly-export-29123"}, "nightly-export-29123"),
        ({"alertname": "CPUThrottlingHigh", "job": "kubelet", "service": "kube-prometheus-stack-kubelet",
          "namespace": "shop", "pod": "cart-7d9f-x2", "container": "cart"}, "cart"),
        ({"alertname": "KubePersistentVolumeFillingUp", "job": "kubelet", "service": "kube-prometheus-stack-kubelet",
          "namespace": "shop", "persistentvolumeclaim": "data-orders-db-0"}, "data-orders-db-0"),
        # An exporter's alert about nothing but itself still pages as the exporter.
        ({"alertname": "KubeStateMetricsListErrors", **KSM}, "kube-prometheus-stack-kube-state-metrics"),
        # An application's own metrics keep its service, whatever container served them.
        ({"alertname": "HighLatency", "job": "cart", "service": "cart-service", "container": "server"}, "cart-service"),
    ],
    ids=["crashloop", "deployment", "statefulset", "job", "throttling", "volume", "exporter-itself", "app"],
)
def test_an_alert_on_what_a_cluster_exporter_measured_pages_for_the_workload(
    labels: dict[str, str], service: str
) -> None:
    [inc] = mapped(payload(alert(labels=labels))).incidents
    assert inc.manifest["spec"]["service"] == service
    assert inc.manifest["spec"]["labels"]["job"] == labels["job"]  # the scrape target stays on record


@pytest.mark.parametrize(
    ("label", "severity"),
    [
        ("critical", "critical"), ("CRIT", "critical"), ("page", "critical"),
        ("error", "high"), ("high", "high"),
        ("warning", "medium"), ("medium", "medium"),
        ("info", "low"), ("low", "low"),
        # Incident ladders count from 0 or 1 and are spelt many ways: SEV0 is not a word the bridge does not know.
        ("SEV0", "critical"), ("P0", "critical"), ("sev-1", "critical"), ("Sev 1", "critical"), ("S1", "critical"),
        ("urgent", "critical"), ("blocker", "critical"), ("SEV_2", "high"), ("s3", "medium"), ("sev5", "low"),
        ("bogus", "medium"), (None, "medium"),
    ],
)
def test_severity_mapping(label: str | None, severity: str) -> None:
    labels = {"alertname": "X", "service": "s"} | ({"severity": label} if label else {})
    [inc] = mapped(payload(alert(labels=labels))).incidents
    assert inc.manifest["spec"]["severity"] == severity


def test_title_falls_back_to_alertname_and_is_one_line() -> None:
    [inc] = mapped(payload(alert(annotations={}))).incidents
    assert inc.manifest["spec"]["title"] == "HighLatency"
    assert "description" not in inc.manifest["spec"] and "symptoms" not in inc.manifest["spec"]
    [inc] = mapped(payload(alert(annotations={"summary": "line one\n  line two\t"}))).incidents
    assert inc.manifest["spec"]["title"] == "line one line two"


@pytest.mark.parametrize(
    ("raw", "tags"),
    [
        ("latency-spike", ["latency-spike"]),
        ("OOM Kill, 5XX", ["oom-kill", "5xx"]),
        ("--a--b--, ,,", ["a-b"]),
        ("dup, DUP, dup ", ["dup"]),
        ("ünïcode!!, ok", ["n-code", "ok"]),
        ("!!!, ---", []),
        ("x" * 100, ["x" * 63]),
        ("a" * 62 + "-b", ["a" * 62]),
    ],
)
def test_symptoms_are_sanitised_to_the_crd_pattern(raw: str, tags: list[str]) -> None:
    assert am.parse_symptoms(raw) == tags
    for tag in am.parse_symptoms(raw):
        assert am.SYMPTOM_PATTERN.match(tag) and len(tag) <= 63


def test_fingerprint_names_are_dns_1123_and_distinct() -> None:
    assert am.incident_name("abcdef0123") == "alert-abcdef0123"
    upper, lower = am.incident_name("ABC"), am.incident_name("abc")
    assert upper != lower and upper.startswith("alert-abc-")
    long = am.incident_name("f" * 400)
    assert len(long) <= 253
    for name in (upper, lower, long, am.incident_name("a/b c_d.e")):
        assert len(name) <= 253
        assert all(part and part[0].isalnum() and part[-1].isalnum() for part in name.split("."))
        assert set(name) <= set("abcdefghijklmnopqrstuvwxyz0123456789-.")


def test_labels_are_strings_and_capped_with_bridge_keys_kept() -> None:
    labels = {f"k{i:03}": f"v{i}" for i in range(300)} | {"service": "s", "alertname": "A", "num": 3}
    a = alert(labels=labels)
    # numbers are sanitised to strings (labels are strings in the CRD)
    assert am.validate_payload(payload(a)) is None
    [inc] = mapped(payload(a)).incidents
    spec_labels = inc.manifest["spec"]["labels"]
    assert len(spec_labels) == am.MAX_LABELS
    assert spec_labels["source"] == "alertmanager" and spec_labels["fingerprint"] == "0123456789abcdef"
    assert all(isinstance(v, str) for v in spec_labels.values())
    [inc] = mapped(payload(alert(labels={"service": "s", "alertname": "A", "num": 3, "flag": True}))).incidents
    assert inc.manifest["spec"]["labels"]["num"] == "3"
    assert inc.manifest["spec"]["labels"]["flag"] == "true"


def test_alert_without_service_is_skipped_when_others_map() -> None:
    bad = alert(fingerprint="ffff", labels={"alertname": "NoService"})
    result = mapped(payload(alert(), bad))
    assert [i.name for i in result.incidents] == ["alert-0123456789abcdef"]
    assert [s.index for s in result.skipped] == [1]
    assert "service" in result.skipped[0].reason


@pytest.mark.parametrize(
    ("stamp", "expected"),
    [
        ("2026-03-04T05:00:00Z", "2026-03-04T05:00:00Z"),
        ("2026-03-04T05:00:00.999999999Z", "2026-03-04T05:00:00Z"),
        ("2026-03-04T07:00:00+02:00", "2026-03-04T05:00:00Z"),
        ("2026-03-04T05:00:00.5-01:30", "2026-03-04T06:30:00Z"),
    ],
)
def test_started_at_is_normalised_to_utc(stamp: str, expected: str) -> None:
    [inc] = mapped(payload(alert(startsAt=stamp))).incidents
    assert inc.manifest["spec"]["startedAt"] == expected


@pytest.mark.parametrize("stamp", ["0001-01-01T00:00:00Z", "1969-12-31T23:59:59Z"])
def test_a_start_the_crd_would_refuse_is_left_out(stamp: str) -> None:
    # Go's zero time means "not set"; anything before 1970 is no real start either.
    [inc] = mapped(payload(alert(startsAt=stamp))).incidents
    assert "startedAt" not in inc.manifest["spec"]


# --------------------------------------------------------------------------
# every bridge-made Incident fits the CRD


def _incident_spec_schema() -> dict[str, Any]:
    crd = yaml.safe_load((ROOT / "crds" / "incidents.yaml").read_text())
    return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]


def test_limits_match_the_crd() -> None:
    props = _incident_spec_schema()["properties"]
    assert props["service"]["maxLength"] == am.MAX_SERVICE
    assert props["title"]["maxLength"] == am.MAX_TITLE
    assert props["description"]["maxLength"] == am.MAX_DESCRIPTION
    assert props["symptoms"]["maxItems"] == am.MAX_SYMPTOMS
    assert props["symptoms"]["items"]["maxLength"] == am.MAX_SYMPTOM_LEN
    assert props["symptoms"]["items"]["pattern"] == am.SYMPTOM_PATTERN.pattern
    assert props["errorSignatures"]["maxItems"] == am.MAX_SIGNATURES
    assert props["errorSignatures"]["items"]["maxLength"] == am.MAX_SIGNATURE_LEN
    assert props["labels"]["maxProperties"] == am.MAX_LABELS
    assert props["labels"]["additionalProperties"]["maxLength"] == am.MAX_LABEL_VALUE
    assert set(props["severity"]["enum"]) == set(am.SEVERITY_ALIASES.values())


def test_extreme_alert_still_fits_the_crd_schema() -> None:
    huge = alert(
        labels={"service": "s" * 1000, "alertname": "A" * 5000, **{f"l{i}": "v" * 9000 for i in range(200)}},
        annotations={
            "summary": "t" * 5000,
            "description": "d" * 100_000,
            "symptoms": ",".join(f"Tag {i} !" + "x" * 80 for i in range(200)),
            "errorSignatures": "\n".join(f"e{i}" + "y" * 9000 for i in range(300)),
        },
    )
    [inc] = mapped(payload(huge)).incidents
    schema = copy.deepcopy(_incident_spec_schema())
    schema["additionalProperties"] = False
    jsonschema.validate(inc.manifest["spec"], schema)
    assert inc.manifest["spec"]["service"].strip() and inc.manifest["spec"]["title"].strip()


@pytest.mark.parametrize(
    ("annotations", "description"),
    [
        ({"summary": "s", "description": "from description", "message": "from message"}, "from description"),
        ({"summary": "s", "message": "Pod web-0 has restarted 5 times"}, "Pod web-0 has restarted 5 times"),
        ({"summary": "s", "description": "  ", "message": "the message"}, "the message"),
        ({"summary": "s", "description": "\u200b\u200b", "message": "the message"}, "the message"),
        ({"summary": "s"}, None),
    ],
)
def test_description_falls_back_to_the_message_annotation(annotations: dict[str, str], description: str | None) -> None:
    [inc] = mapped(payload(alert(annotations=annotations))).incidents
    assert inc.manifest["spec"].get("description") == description


def _signatures(**over: Any) -> list[str] | None:
    [inc] = mapped(payload(alert(**over))).incidents
    return inc.manifest["spec"].get("errorSignatures")


PROMETHEUS_LINK = (
    "http://prometheus.example:9090/graph?g0.expr=sum+by+%28job%29+%28rate%28"
    "http_requests_total%7Bcode%3D~%225..%22%7D%5B5m%5D%29%29%0A++%3E+0.05&g0.tab=1"
)
NO_SIGNATURES = {"summary": "p99 latency above 2s on cart"}


GENERATOR_LINKS: list[tuple[str, str, list[str] | None]] = [
    ("prometheus: the rule's query, on one line", PROMETHEUS_LINK,
     ['sum by (job) (rate(http_requests_total{code=~"5.."}[5m])) > 0.05']),
    ("thanos ruler writes the same link", "https://thanos.example/graph?g0.expr=up+%3D%3D+0&g0.tab=1", ["up == 0"]),
    ("a link to the rule, not its query (Grafana, vmalert)", "https://grafana.example/alerting/grafana/abc/view", None),
    ("a query that is only spaces", "http://p.example/graph?g0.expr=%20%0A%09", None),
    ("not a URL", "http://[::1", None),
    ("no generator URL", "", None),
]


@pytest.mark.parametrize(("case", "generator", "signatures"), GENERATOR_LINKS, ids=[g[0] for g in GENERATOR_LINKS])
def test_a_rule_without_signatures_gives_its_query_from_the_generator_url(
    case: str, generator: str, signatures: list[str] | None
) -> None:
    assert _signatures(annotations=NO_SIGNATURES, generatorURL=generator) == signatures, case


def test_the_query_is_evidence_a_terse_page_lacks_without_it() -> None:
    """A rule with no symptoms or signatures annotation: its query names what it measured, and the
    decision reads the tag from it (domain.symptoms) that the page's own words never say."""
    link = "http://p.example/graph?g0.expr=" + urllib.parse.quote('sum(kafka_consumergroup_lag{group="ingest"}) > 1e6')
    terse = {"summary": "Ingest behind"}
    known = {"consumer-lag", "oom-kill", "5xx"}

    def said(generator: str) -> tuple[str, ...]:
        [inc] = mapped(payload(alert(annotations=terse, generatorURL=generator))).incidents
        return symptoms_said(IncidentSpec.model_validate(inc.manifest["spec"]), known)

    assert said("") == ()
    assert said(link) == ("consumer-lag",)


def test_signatures_the_rule_writes_win_over_its_query() -> None:
    assert _signatures(generatorURL=PROMETHEUS_LINK) == ["redis: connection pool timeout", "upstream timed out, retrying"]


def test_a_hostile_query_is_cut_to_the_crd_and_loses_its_invisible_characters() -> None:
    expression = "up\u202e == 0 " + "x" * (3 * am.MAX_SIGNATURE_LEN)
    link = "http://p.example/graph?" + urllib.parse.urlencode({"g0.expr": expression})
    [query] = _signatures(annotations=NO_SIGNATURES, generatorURL=link) or [""]
    assert len(query) == am.MAX_SIGNATURE_LEN
    assert query.startswith("up == 0 x")


# --------------------------------------------------------------------------
# refusals: each malformed payload gets a 4xx that names what is wrong


MALFORMED: list[tuple[str, Any, int, str]] = [
    ("not an object", [1, 2], 422, "the payload must be a JSON object"),
    ("no version", without(payload(), "version"), 422, "version is missing"),
    ("wrong version", payload(version="3"), 422, "unsupported webhook version"),
    ("version not a string", payload(version=4), 422, "version must be a string"),
    ("no alerts", without(payload(), "alerts"), 422, "alerts is missing"),
    ("alerts not a list", payload(alerts={"a": 1}), 422, "alerts must be an array"),
    ("empty alerts", {**payload(), "alerts": []}, 422, "alerts is empty"),
    ("too many alerts", payload(*[alert(fingerprint=f"{i:x}") for i in range(am.MAX_ALERTS + 1)]), 413, "exceeds the limit"),
    ("bad top status", payload(status="pending"), 422, "status must be firing or resolved"),
    ("receiver wrong type", payload(receiver=7), 422, "receiver must be a string"),
    ("alert not an object", payload(alerts=["x"]), 422, "alerts[0] must be an object"),
    ("alert missing labels", payload(without(alert(), "labels")), 422, "alerts[0].labels is missing"),
    ("alert missing fingerprint", payload(without(alert(), "fingerprint")), 422, "alerts[0].fingerprint is missing"),
    ("alert missing startsAt", payload(without(alert(), "startsAt")), 422, "alerts[0].startsAt is missing"),
    ("labels not an object", payload(alert(labels=["service"])), 422, "alerts[0].labels must be an object"),
    ("nested label value", payload(alert(labels={"service": {"x": 1}})), 422, "alerts[0].labels.service must be a string"),
    ("alert status unknown", payload(alert(status="maybe")), 422, "alerts[0].status must be firing or resolved"),
    ("bad startsAt", payload(alert(startsAt="yesterday")), 422, "alerts[0].startsAt is not an RFC 3339 time"),
    ("empty fingerprint", payload(alert(fingerprint="  ")), 422, "alerts[0].fingerprint is empty"),
    ("fingerprint a number", payload(alert(fingerprint=12)), 422, "alerts[0].fingerprint must be a string"),
    ("no service label", payload(alert(labels={"alertname": "X", "severity": "high"})), 422, "labels name no service"),
    ("no title at all", payload(alert(labels={"service": "s"}, annotations={})), 422, "neither annotations.summary"),
]


@pytest.mark.parametrize(("case", "body", "status", "reason"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_payloads_are_refused_with_a_reason(case: str, body: Any, status: int, reason: str) -> None:
    err = refused(body)
    assert err.status_code == status, err
    assert reason in err.reason, err


BODIES: list[tuple[str, bytes, int, str]] = [
    ("empty body", b"", 400, "body is empty"),
    ("truncated json", b'{"version": "4", "alerts": [', 400, "not valid JSON"),
    ("not utf-8", b'{"a": "\xff\xfe"}', 400, "not UTF-8"),
    ("too big", b" " * (am.MAX_BODY_BYTES + 1), 413, "exceeds the limit"),
    ("deep nesting", b"[" * 100_000 + b"]" * 100_000, 400, "not valid JSON"),
]


@pytest.mark.parametrize(("case", "body", "status", "reason"), BODIES, ids=[b[0] for b in BODIES])
def test_bad_bodies_are_refused_with_a_reason(case: str, body: bytes, status: int, reason: str) -> None:
    err = am.parse_body(body)
    assert isinstance(err, BridgeError), err
    assert err.status_code == status and reason in err.reason, err


def test_good_body_parses() -> None:
    assert am.parse_body(json.dumps(payload()).encode()) == payload()


@pytest.mark.parametrize(
    ("content_type", "length", "status"),
    [
        ("application/json", 10, None),
        ("application/json; charset=utf-8", None, None),
        ("application/vnd.alert+json", 10, None),
        ("text/plain", 10, 415),
        (None, 10, 415),
        ("application/x-www-form-urlencoded", 10, 415),
        ("application/json", am.MAX_BODY_BYTES + 1, 413),
    ],
)
def test_request_headers_are_checked_first(content_type: str | None, length: int | None, status: int | None) -> None:
    err = am.check_request(content_type, length)
    assert (err.status_code if err else None) == status


def test_with_a_panel_url_a_new_incident_links_to_its_panel_page_and_a_refire_leaves_it() -> None:
    mapped = map_payload(payload(alert()), namespace=NS, received_at=NOW, panel_url="https://panel.example/")
    assert isinstance(mapped, Mapped)
    (item,) = mapped.incidents
    link = item.manifest["metadata"]["annotations"][am.ANN_PANEL]
    assert link == f"https://panel.example/ns/{NS}/incidents/{item.name}"
    assert am.ANN_PANEL not in item.patch["metadata"]["annotations"]  # a re-fire patches alert tracking only
    plain = map_payload(payload(alert()), namespace=NS, received_at=NOW)
    assert isinstance(plain, Mapped) and am.ANN_PANEL not in plain.incidents[0].manifest["metadata"]["annotations"]


# -------------------------------------------------------------------- a later firing of the same alert


def _mapped(**over: Any) -> am.AlertIncident:
    inc = am.alert_to_incident(alert(**over), namespace=NS, received_at=NOW, panel_url="https://panel.example")
    assert isinstance(inc, am.AlertIncident)
    return inc


def _read_back(start: str | None, resolution: Any = None, started_at: str | None = None,
               resolved_at: str | None = None) -> dict[str, Any]:
    annotations = {} if start is None else {am.ANN_STARTS_AT: start}
    if resolved_at is not None:
        annotations[am.ANN_RESOLVED_AT] = resolved_at
    spec: dict[str, Any] = {"service": "cart-service", "title": "t"}
    if resolution is not None:
        spec["resolution"] = resolution
    if started_at is not None:
        spec["startedAt"] = started_at
    return {"metadata": {"name": "alert-x", "annotations": annotations}, "spec": spec}


CLOSED = {"summary": "raised the pool", "confirmedBy": "oncall-a"}


@pytest.mark.parametrize(
    ("incident", "over", "closed"),
    [
        # open: every firing stays on it (a flapping alert is one incident)
        (_read_back("2026-03-01T00:00:00Z"), {}, False),
        # closed, and this is another firing
        (_read_back("2026-03-01T00:00:00Z", CLOSED), {}, True),
        # closed, and this is its own firing repeated (a person closed it while it still fired)
        (_read_back("2026-03-04T05:00:00Z", CLOSED), {}, False),
        # written without the annotation: its spec's start tells
        (_read_back(None, CLOSED, started_at="2026-03-04T05:00:00Z"), {}, False),
        (_read_back(None, CLOSED, started_at="2026-02-01T00:00:00Z"), {}, True),
        # an alert without a start: firings cannot be told apart, nothing new on a guess
        (_read_back("2026-03-01T00:00:00Z", CLOSED), {"startsAt": "0001-01-01T00:00:00Z"}, False),
        # left open, its alert resolved a day before this firing: a new failure, not a flap
        (_read_back("2026-03-01T00:00:00Z", resolved_at="2026-03-03T05:00:00Z"), {}, True),
        # left open, its alert resolved minutes before: a flap
        (_read_back("2026-03-01T00:00:00Z", resolved_at="2026-03-04T04:50:00Z"), {}, False),
    ],
)
def test_an_incident_whose_firing_ended_takes_no_other_firing_of_its_alert(
    incident: dict[str, Any], over: dict[str, Any], closed: bool
) -> None:
    assert am.ended_firing(incident, _mapped(**over)) is closed


def test_a_later_firing_is_named_by_its_start_within_the_name_limit() -> None:
    inc = _mapped()
    assert am.recurrence_name(inc.name, inc.starts_at or "") == "alert-0123456789abcdef-20260304050000"
    long = am.recurrence_name("alert-" + "a" * 250, "2026-03-04T05:00:00Z")
    assert len(long) <= am.MAX_NAME and long.endswith("a-20260304050000")


def test_a_later_firing_links_its_own_panel_page_and_the_incident_before_it() -> None:
    inc = _mapped()
    again = am.renamed(inc, "alert-0123456789abcdef-20260304050000", recurrence_of="alert-0123456789abcdef")
    annotations = again.manifest["metadata"]["annotations"]
    assert again.manifest["metadata"]["name"] == again.name
    assert annotations[am.ANN_PANEL] == f"https://panel.example/ns/{NS}/incidents/{again.name}"
    assert annotations[am.ANN_RECURRENCE_OF] == "alert-0123456789abcdef"
    # The first stays as it was.
    assert inc.manifest["metadata"]["annotations"][am.ANN_PANEL].endswith("/incidents/alert-0123456789abcdef")
    assert am.ANN_RECURRENCE_OF not in inc.manifest["metadata"]["annotations"]


def test_only_an_incident_the_bridge_opened_for_this_alert_is_one_of_its_firings() -> None:
    inc = _mapped()
    theirs = {"metadata": {"annotations": {am.ANN_FINGERPRINT: "0123456789abcdef", am.OPENED_BY: am.BRIDGE_OPENER}}}
    assert am.alert_incident_of(theirs, inc)
    # Opened by a person (admission sets the opener), or for another alert: not followed.
    by_hand = {"metadata": {"annotations": {am.ANN_FINGERPRINT: "0123456789abcdef", am.OPENED_BY: "mallory"}}}
    other = {"metadata": {"annotations": {am.ANN_FINGERPRINT: "fedcba9876543210", am.OPENED_BY: am.BRIDGE_OPENER}}}
    assert not am.alert_incident_of(by_hand, inc)
    assert not am.alert_incident_of(other, inc)
    assert not am.alert_incident_of({"metadata": {}}, inc)


@pytest.mark.parametrize(
    ("pointer", "read"),
    [
        ("alert-0123456789abcdef-20260304050000", True),
        ("alert-0123456789abcdef-20260304050000/status", False),  # another path of the API
        ("quiet-open", False),  # not one of this alert's
        ("alert-0123456789abcdef", False),  # the first itself
        ("alert-0123456789abcdef-" + "9" * 240, False),  # longer than a name can be
        ("alert-0123456789abcdef-X", False),
        (42, False),
    ],
)
def test_the_latest_incident_pointer_is_read_only_when_it_can_name_a_later_firing(pointer: Any, read: bool) -> None:
    assert am.names_a_recurrence(pointer, "alert-0123456789abcdef") is read


def test_no_first_name_looks_like_a_later_firings_so_none_can_be_posted_ahead_of_it() -> None:
    # A later firing of alert `fv1` is `alert-fv1-<its start>`; an alert posted with that fingerprint took
    # its pages. Such a fingerprint is rewritten; a plain one (Alertmanager's 16 hex digits) is not.
    later = am.recurrence_name(am.incident_name("fv1"), "2026-12-06T01:00:00Z")
    assert am.incident_name("fv1-20261206010000") != later
    assert am.incident_name("fv1-20261206010000").startswith("alert-fv1-20261206010000-")
    assert am.incident_name("0123456789abcdef") == "alert-0123456789abcdef"


def test_a_fingerprint_with_a_lone_surrogate_gets_a_name_not_an_error() -> None:
    name = am.incident_name("fp\ud800")
    assert name.startswith("alert-fp-") and name == am.incident_name("fp\ud800")


def test_lone_surrogates_are_written_as_the_api_server_stores_them() -> None:
    # The server reads "\ud800" as U+FFFD; the bridge compares what it reads back with what it wrote.
    odd = alert(fingerprint="fp\ud800", labels={"alertname": "X\udfff", "service": "cart\ud83d", "\ud800k": "v"})
    odd["annotations"] = {"summary": "stuck \ud800", "errorSignatures": "err \udc00"}
    [inc] = mapped(payload(odd)).incidents
    spec, annotations = inc.manifest["spec"], inc.manifest["metadata"]["annotations"]
    assert (spec["service"], spec["title"], spec["errorSignatures"]) == ("cart\ufffd", "stuck \ufffd", ["err \ufffd"])
    assert spec["labels"]["alertname"] == "X\ufffd" and spec["labels"]["\ufffdk"] == "v"
    assert annotations[am.ANN_FINGERPRINT] == inc.patch["metadata"]["annotations"][am.ANN_FINGERPRINT] == "fp\ufffd"
    assert inc.name == am.incident_name("fp\ud800")  # the name is the one earlier bridges gave this alert
    IncidentSpec.model_validate(spec)


def test_a_field_is_read_no_further_than_what_its_limit_can_keep() -> None:
    # A request may carry 16 MiB; a 15 MB annotation was read whole, character by character, for 3 s of
    # the event loop, to keep its first 64 KiB. Each field now reads READ_FACTOR times what it keeps.
    hidden = "\u200b" * (am.MAX_DESCRIPTION * am.READ_FACTOR)
    [short] = mapped(payload(alert(annotations={"summary": "s", "description": "\u200b" * 10 + "seen"}))).incidents
    assert short.manifest["spec"]["description"] == "seen"
    [long] = mapped(payload(alert(annotations={"summary": "s", "description": hidden + "seen"}))).incidents
    assert "description" not in long.manifest["spec"]
    labels = {"alertname": "X", "service": "cart", "team": "\u200b" * (am.MAX_LABEL_VALUE * am.READ_FACTOR) + "ops"}
    [label] = mapped(payload(alert(labels=labels))).incidents
    assert label.manifest["spec"]["labels"]["team"] == ""
    symptoms = "," * (am.MAX_SYMPTOMS * am.MAX_SYMPTOM_LEN * am.READ_FACTOR) + "latency"
    [tags] = mapped(payload(alert(annotations={"summary": "s", "symptoms": symptoms}))).incidents
    assert "symptoms" not in tags.manifest["spec"]


def test_a_service_label_a_command_would_read_as_an_option_is_skipped() -> None:
    result = mapped(payload(alert(), alert(fingerprint="fedcba9876543210",
                                           labels={"alertname": "X", "service": "--all"})))
    assert [s.index for s in result.skipped] == [1]
    assert "read it as an option" in result.skipped[0].reason


def test_alerts_alertmanager_left_out_of_the_group_are_counted() -> None:
    assert mapped(payload(alert(), truncatedAlerts=750)).truncated == 750
    assert mapped(payload(alert())).truncated == 0


def test_a_group_of_a_thousand_real_sized_alerts_fits_the_body_limit() -> None:
    # About 1.2 KB each, as Kubernetes alerts with a runbook link and a description are: refused at 1 MiB.
    alerts = [alert(fingerprint=f"{i:016x}", annotations={"summary": "s" * 200, "description": "d" * 600,
                                                         "runbook_url": "https://runbooks.example/" + "r" * 200})
              for i in range(am.MAX_ALERTS)]
    body = json.dumps(payload(*alerts)).encode()
    assert len(body) > 1024 * 1024
    assert am.check_request("application/json", len(body)) is None
    assert not isinstance(am.parse_body(body), BridgeError)


def test_bidi_overrides_and_zero_width_characters_never_reach_the_incident() -> None:
    # U+202E shows `kubectl get` readers the text reversed; memory would match on the characters as sent.
    tricky = "\u202egnol\u200b"
    [inc] = mapped(payload(alert(labels={"alertname": "X", "service": "cart", "team": tricky},
                                 annotations={"summary": "s", "description": f"disk {tricky}",
                                              "errorSignatures": f"err {tricky}\nplain"}))).incidents
    spec = inc.manifest["spec"]
    assert spec["labels"]["team"] == "gnol"
    assert spec["description"] == "disk gnol"
    assert spec["errorSignatures"] == ["err gnol", "plain"]
