"""Alertmanager webhook payload → Incident manifests. Pure: no I/O, no clock.

The bridge is the main writer of Incident specs, so everything here is shaped
by two promises:

* The API server never refuses a bridge-made Incident: every field is cut to
  the CRD's limits (crds/incidents.yaml) and symptoms are rewritten into the
  CRD's tag pattern, so a weird alert still pages as an Incident instead of
  being lost to a 422 from Kubernetes.
* Alert text never becomes a command. The bridge writes only descriptive spec
  fields; it never writes ``spec.parameters`` (values substituted into Runbook
  commands) nor ``spec.resolution`` (a human-confirmed outcome, the only thing
  that becomes memory). A ``resolved`` alert means the symptom stopped, not
  that anyone knows why, so it is recorded in annotations only.

Mapping (alert → Incident):

* ``metadata.name``: ``alert-<fingerprint>``, DNS-1123. Alertmanager's
  fingerprint is a hash of the alert's labels, so a re-fired or re-sent alert
  maps to the same name and the API server's AlreadyExists turns it into an
  update rather than a second Incident. Once a person has closed that
  Incident (or its alert resolved an hour before), a later firing of the
  alert (another ``startsAt``) is a new one,
  ``<name>-<start>`` (``ended_firing``, ``recurrence_name``): the writer in
  server.py reads which Incident a firing belongs to.
* ``spec.service``: label ``service``, else ``job`` (Prometheus' scrape job,
  usually the service), else ``app``. An alert with none of them is skipped:
  the operator cannot recall precedents without knowing what pages. An alert
  on what kube-state-metrics or the kubelet measured (``job`` names one of
  them: KubePodCrashLooping, KubeDeploymentReplicasMismatch, CPU throttling)
  carries that exporter as its ``service`` and ``job``; the workload it is
  about comes first there (``WORKLOAD_LABELS``), or every crash-looping pod
  of the cluster would page as one service and recall the others' incidents.
* ``spec.severity``: label ``severity`` mapped onto critical/high/medium/low
  (see ``SEVERITY_ALIASES``); absent or unknown → medium.
* ``spec.title``: annotation ``summary``, else label ``alertname``. Control
  and format characters (NUL, zero-width spaces, U+180E) are dropped from the
  title and the service; an alert left with no visible service or title is
  refused with the reason.
* annotation ``recall.dev/opened-by``: the bridge (``BRIDGE_OPENER``), the
  opener on record, so the approval rules know no person vouched for it.
* ``spec.description``: annotation ``description``, else ``message`` (the
  older kubernetes-mixin rules' one annotation).
* ``spec.symptoms``: annotation ``symptoms``, comma-separated tags. Without it the
  decision reads known tags from the words (domain/symptoms.py).
* ``spec.errorSignatures``: annotation ``errorSignatures`` (or
  ``error_signatures``), one signature per line (log lines contain commas).
  Without it, the rule's own query when the generator URL gives one
  (``rule_query``): what the alert measured is the signal a terse page has,
  and the metric it names is often all it shares with a precedent.
* ``spec.startedAt``: ``startsAt``.
* ``spec.labels``: the alert's labels plus ``fingerprint``, ``alertname`` and
  ``source: alertmanager``.
* annotation ``recall.dev/panel-url``: with ``--panel-url``, the memory panel's
  page for the incident, for a paging tool to link to.
* annotations ``recall.dev/alert-*``: status, fingerprint, when last seen,
  when resolved, generator URL. A re-fire patches only these, so the spec a
  person may have refined stays as it is.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import re
import unicodedata
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from recall_operator.api import API_VERSION
from recall_operator.kube.client import as_stored_text
from recall_operator.domain.times import parse_time
from recall_operator.domain.approval_rules import BRIDGE_OPENER, OPENED_BY_ANNOTATION as OPENED_BY

KIND = "Incident"

# A webhook body bigger than this is refused before parsing (413), and
# Alertmanager drops a group refused with a 4xx for good. A real alert is one
# to a few KiB (labels, a summary, a description, links), so a group of
# MAX_ALERTS real alerts must fit with room to spare: 1,000 alerts of 1.2 KB
# were refused at 1 MiB.
MAX_BODY_BYTES = 16 * 1024 * 1024
# Alertmanager truncates a group to `max_alerts` itself; more than this in one
# request is not a real notification.
MAX_ALERTS = 1000

# Limits copied from crds/incidents.yaml (kept in step by the unit tests).
MAX_NAME = 253
MAX_SERVICE = 253
MAX_TITLE = 1024
MAX_DESCRIPTION = 65536
MAX_SYMPTOMS = 64
MAX_SYMPTOM_LEN = 63
SYMPTOM_PATTERN = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$")
MAX_SIGNATURES = 128
MAX_SIGNATURE_LEN = 8192
MAX_LABELS = 128
MAX_LABEL_VALUE = 4096
# Kubernetes caps all annotations of an object at 256 KiB together; a URL cut
# here keeps the bridge's annotations far below that.
MAX_ANNOTATION_VALUE = 4096

ANNOTATION_PREFIX = "recall.dev/"
ANN_STATUS = ANNOTATION_PREFIX + "alert-status"
ANN_FINGERPRINT = ANNOTATION_PREFIX + "alert-fingerprint"
ANN_STARTS_AT = ANNOTATION_PREFIX + "alert-starts-at"
ANN_LAST_SEEN = ANNOTATION_PREFIX + "alert-last-seen-at"
ANN_RESOLVED_AT = ANNOTATION_PREFIX + "alert-resolved-at"
ANN_GENERATOR = ANNOTATION_PREFIX + "alert-generator-url"
# Where the memory panel shows this incident's evidence, for a paging tool to link to.
ANN_PANEL = ANNOTATION_PREFIX + "panel-url"
# On the first Incident of an alert: the newest one its later firings opened (see `ended_firing`).
ANN_LATEST = ANNOTATION_PREFIX + "alert-latest-incident"
# On an Incident a later firing opened: the Incident of the firing before it.
ANN_RECURRENCE_OF = ANNOTATION_PREFIX + "alert-recurrence-of"
SOURCE_LABEL = ANNOTATION_PREFIX + "source"

SERVICE_LABELS = ("service", "job", "app")
# Exporters that measure other workloads' state; their scrape target is not what pages.
EXPORTER_JOBS = frozenset({"kube-state-metrics", "kubelet"})
# The labels those exporters give the object a series is about, the most telling first.
WORKLOAD_LABELS = ("deployment", "statefulset", "daemonset", "cronjob", "job_name", "horizontalpodautoscaler",
                   "container", "persistentvolumeclaim")
SIGNATURE_ANNOTATIONS = ("errorSignatures", "error_signatures")
# Older kubernetes-mixin rules (and rules written after them) say it all in `message`.
DESCRIPTION_ANNOTATIONS = ("description", "message")

# Keys as `map_severity` reads a label: lower case, without "-", "_" or spaces ("SEV-1" is "sev1").
SEVERITY_ALIASES: dict[str, str] = {
    **dict.fromkeys(("critical", "crit", "page", "p0", "p1", "sev0", "sev1", "s0", "s1", "emergency", "fatal",
                     "disaster", "urgent", "blocker"), "critical"),
    **dict.fromkeys(("high", "error", "err", "major", "p2", "sev2", "s2"), "high"),
    **dict.fromkeys(("medium", "warning", "warn", "moderate", "average", "p3", "sev3", "s3"), "medium"),
    **dict.fromkeys(("low", "info", "informational", "minor", "notice", "none", "p4", "p5", "sev4", "sev5", "s4",
                     "s5"), "low"),
}
_SEVERITY_NOISE = re.compile(r"[-_\s]+")
DEFAULT_SEVERITY = "medium"

ALERT_STATUSES = ("firing", "resolved")
# An alert that fires again this long after it resolved is a new failure, not a flap, even
# while its Incident is open: Prometheus' `for` and Alertmanager's resolve_timeout span minutes.
REFIRE_AFTER = timedelta(hours=1)

_NON_DNS = re.compile(r"[^a-z0-9-]+")
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_WHITESPACE = re.compile(r"\s+")
_RECURRENCE_SUFFIX = re.compile(r"-[0-9]{14}$")


@dataclass(frozen=True)
class BridgeError:
    """Why a request is refused: the HTTP status and a reason a sender can act on."""

    status_code: int
    reason: str


@dataclass(frozen=True)
class AlertIncident:
    """One alert, ready to write: ``manifest`` to create, ``patch`` (a JSON merge
    patch touching only the alert-tracking annotations) when it already exists."""

    name: str
    status: str
    manifest: dict[str, Any]
    patch: dict[str, Any]
    panel_url: str | None = None
    index: int = -1  # its place in the request's alerts (-1: not known)

    @property
    def starts_at(self) -> str | None:
        """When this firing of the alert began (``startsAt``), as the bridge records it; None if not sent."""
        start = self.patch["metadata"]["annotations"].get(ANN_STARTS_AT)
        return start if isinstance(start, str) else None


@dataclass(frozen=True)
class Skipped:
    index: int
    reason: str


@dataclass(frozen=True)
class Mapped:
    incidents: list[AlertIncident]
    # Alerts that cannot become an Incident (no service label): the rest of the
    # group is still written, because Alertmanager never re-sends after a 4xx.
    skipped: list[Skipped] = field(default_factory=list)
    # Alerts Alertmanager itself left out of the group (its `max_alerts`, `truncatedAlerts`): never sent,
    # so counted with the skipped ones and said in the answer.
    truncated: int = 0


# --------------------------------------------------------------------------
# request level


def check_request(content_type: str | None, content_length: int | None) -> BridgeError | None:
    """Refuse before reading the body: wrong media type (415), declared too big (413)."""
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media != "application/json" and not (media.startswith("application/") and media.endswith("+json")):
        return BridgeError(415, f"content type must be application/json, got {media or 'none'!r}")
    if content_length is not None and content_length > MAX_BODY_BYTES:
        return BridgeError(413, f"body of {content_length} bytes exceeds the limit of {MAX_BODY_BYTES} bytes")
    return None


def parse_body(body: bytes) -> Any | BridgeError:
    """Decode a JSON body: too big → 413, not UTF-8 JSON → 400."""
    if len(body) > MAX_BODY_BYTES:
        return BridgeError(413, f"body exceeds the limit of {MAX_BODY_BYTES} bytes")
    if not body.strip():
        return BridgeError(400, "body is empty: expected an Alertmanager webhook JSON object")
    try:
        return json.loads(body.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return BridgeError(400, f"body is not UTF-8: {exc.reason} at byte {exc.start}")
    except json.JSONDecodeError as exc:
        return BridgeError(400, f"body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
    except ValueError as exc:  # an integer longer than Python reads (4,300 digits)
        return BridgeError(400, f"body is not valid JSON here: {exc}")
    except RecursionError:
        return BridgeError(400, "body is not valid JSON: nested too deeply")


# --------------------------------------------------------------------------
# payload level


def _type_name(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number" if isinstance(value, (int, float)) else type(value).__name__
    )


def _check_type(where: str, value: Any, expected: type | tuple[type, ...], name: str) -> BridgeError | None:
    # bool is an int in Python, never a count or a string in a payload.
    if isinstance(value, bool) and bool not in (expected if isinstance(expected, tuple) else (expected,)):
        return BridgeError(422, f"{where} must be {name}, got boolean")
    if not isinstance(value, expected):
        return BridgeError(422, f"{where} must be {name}, got {_type_name(value)}")
    return None


def format_time(value: datetime) -> str:
    return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _is_zero(value: datetime) -> bool:
    # Go's zero time.Time, which Alertmanager sends for "not set"; the CRD
    # refuses any start before 1970, so such a time is left out, not sent.
    return value.year < 1970


def incident_name(fingerprint: str) -> str:
    """``alert-<fingerprint>`` as a DNS-1123 subdomain, the same for the same fingerprint.

    A fingerprint that needed rewriting gets a digest of the original appended,
    so two fingerprints differing only in case or punctuation stay apart.
    """
    lowered = fingerprint.lower()
    cleaned = _NON_DNS.sub("-", lowered).strip("-")
    # A name ending like a later firing's (`recurrence_name`: -YYYYMMDDHHMMSS) could be posted ahead of that
    # firing and take its pages; such a fingerprint is rewritten, so no first name ever looks like one.
    if cleaned == fingerprint and len("alert-" + cleaned) <= MAX_NAME and not _RECURRENCE_SUFFIX.search(cleaned):
        return "alert-" + cleaned
    # surrogatepass: a JSON "\ud800" decodes to a lone surrogate, which plain UTF-8 cannot encode.
    digest = hashlib.sha256(fingerprint.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    stem = ("alert-" + cleaned)[: MAX_NAME - len(digest) - 1].rstrip("-")
    return f"{stem}-{digest}"


def sanitize_symptom(raw: str) -> str | None:
    """A free-text tag → the CRD's symptom pattern, or None when nothing is left."""
    tag = _NON_DNS.sub("-", raw.strip().lower()).strip("-")
    tag = re.sub(r"-{2,}", "-", tag)[:MAX_SYMPTOM_LEN].rstrip("-")
    return tag if tag and SYMPTOM_PATTERN.match(tag) else None


def parse_symptoms(value: str) -> list[str]:
    out: list[str] = []
    for raw in value[: MAX_SYMPTOMS * MAX_SYMPTOM_LEN * READ_FACTOR].split(","):
        tag = sanitize_symptom(raw)
        if tag and tag not in out:
            out.append(tag)
        if len(out) >= MAX_SYMPTOMS:
            break
    return out


def parse_signatures(value: str) -> list[str]:
    out: list[str] = []
    # As far as the CRD can keep of them (a megabyte): four times that took most of a second.
    for line in _without_invisible(value, MAX_SIGNATURES * MAX_SIGNATURE_LEN // READ_FACTOR).splitlines():
        line = line.strip()[:MAX_SIGNATURE_LEN]
        if line and line not in out:
            out.append(line)
        if len(out) >= MAX_SIGNATURES:
            break
    return out


# Where Prometheus and Thanos Ruler put the firing rule's query in an alert's
# generatorURL: a link to their expression browser, `.../graph?g0.expr=...`.
GENERATOR_QUERY_KEY = "g0.expr"


def rule_query(generator_url: str) -> str | None:
    """The query of the rule that fired, on one line, from its generator URL; None when it gives none.

    Only a URL that carries the query as Prometheus writes it is read; other
    senders (Grafana, vmalert) link to the rule instead, and give nothing here.
    The query is shown and compared as words, like any signature: never run.
    """
    try:  # a query is percent-encoded: three characters to one at most, so this reads past any that is kept
        query = urllib.parse.urlsplit(generator_url[: MAX_SIGNATURE_LEN * READ_FACTOR]).query
    except ValueError:  # "http://[::1" and the like: not a URL, so no query either
        return None
    values = urllib.parse.parse_qs(query, errors="replace").get(GENERATOR_QUERY_KEY) or []
    expression = _one_line(values[0], MAX_SIGNATURE_LEN) if values else ""
    return expression if visible(expression) else None


def map_severity(value: str | None) -> str:
    if not value:
        return DEFAULT_SEVERITY
    return SEVERITY_ALIASES.get(_SEVERITY_NOISE.sub("", value.lower()), DEFAULT_SEVERITY)


def _one_line(value: str, limit: int) -> str:
    return _WHITESPACE.sub(" ", _without_invisible(value, limit)).strip()[:limit].rstrip()


# How much of a text the bridge reads for a field of `limit` characters: what it keeps, with room for the
# spaces and invisible characters it drops. A request may carry 16 MiB, and reading a 15 MB annotation
# whole, character by character, held the event loop for 3 s only to keep its first 64 KiB.
READ_FACTOR = 4


def _without_invisible(value: str, limit: int) -> str:
    """The text's first `limit` x READ_FACTOR characters without control and format characters (NUL,
    zero-width spaces, U+180E and the like)."""
    return "".join(ch for ch in value[: limit * READ_FACTOR]
                   if unicodedata.category(ch) not in ("Cc", "Cf") or ch in "\t\n")


def visible(value: str) -> bool:
    """Whether the text shows anything: a letter, digit, punctuation mark or symbol."""
    return any(unicodedata.category(ch)[0] in "LNPS" for ch in value)


def named(value: str) -> bool:
    """Whether the text has a letter or a digit, as the CRD asks of a service."""
    return any(unicodedata.category(ch)[0] in "LN" for ch in value)


def _label_value(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return _without_invisible(text, MAX_LABEL_VALUE)[:MAX_LABEL_VALUE]


def _spec_labels(labels: dict[str, Any], fingerprint: str, alertname: str | None) -> dict[str, str]:
    # The bridge's own keys go first so the CRD's cap on the number of labels
    # never squeezes them out; the alert's labels fill the rest in name order.
    out: dict[str, str] = {
        "source": "alertmanager",
        "fingerprint": _label_value(fingerprint),
    }
    if alertname:
        out["alertname"] = _label_value(alertname)
    for key in sorted(labels):
        if len(out) >= MAX_LABELS:
            break
        if key and key not in out:
            out[key] = _label_value(labels[key])
    return out


def _service(labels: dict[str, Any]) -> str | None:
    keys = (*WORKLOAD_LABELS, *SERVICE_LABELS) if labels.get("job") in EXPORTER_JOBS else SERVICE_LABELS
    for key in keys:
        value = labels.get(key)
        if isinstance(value, str) and value.strip():
            # One line, as the CRD takes it: no tab or line break either.
            return _one_line(value, MAX_SERVICE)
    return None


def _validate_alert(index: int, alert: Any) -> BridgeError | None:
    where = f"alerts[{index}]"
    if (err := _check_type(where, alert, dict, "an object")) is not None:
        return err
    for key in ("status", "labels", "startsAt", "fingerprint"):
        if key not in alert:
            return BridgeError(422, f"{where}.{key} is missing")
    checks: list[tuple[str, type | tuple[type, ...], str]] = [
        ("status", str, "a string"),
        ("labels", dict, "an object"),
        ("annotations", dict, "an object"),
        ("startsAt", str, "a string"),
        ("endsAt", str, "a string"),
        ("fingerprint", str, "a string"),
        ("generatorURL", str, "a string"),
    ]
    for key, expected, name in checks:
        if key in alert and (err := _check_type(f"{where}.{key}", alert[key], expected, name)) is not None:
            return err
    if alert["status"] not in ALERT_STATUSES:
        return BridgeError(422, f"{where}.status must be firing or resolved, got {alert['status'][:64]!r}")
    if not alert["fingerprint"].strip():
        return BridgeError(422, f"{where}.fingerprint is empty")
    for key in ("labels", "annotations"):
        for name, value in (alert.get(key) or {}).items():
            if isinstance(value, (dict, list)):
                return BridgeError(422, f"{where}.{key}.{name[:64]} must be a string, got {_type_name(value)}")
    for key in ("startsAt", "endsAt"):
        if key in alert and parse_time(alert[key]) is None:
            return BridgeError(422, f"{where}.{key} is not an RFC 3339 time: {alert[key][:64]!r}")
    return None


def validate_payload(payload: Any) -> BridgeError | None:
    """Check the webhook's shape (version 4). Shape errors refuse the whole request:
    a sender that gets the shape wrong is broken, and partial writes would hide it."""
    if (err := _check_type("the payload", payload, dict, "a JSON object")) is not None:
        return err
    for key in ("version", "status", "alerts"):
        if key not in payload:
            return BridgeError(422, f"{key} is missing")
    if (err := _check_type("version", payload["version"], str, "a string")) is not None:
        return err
    if payload["version"] != "4":
        return BridgeError(422, f"unsupported webhook version {payload['version'][:16]!r}: expected \"4\"")
    checks: list[tuple[str, type | tuple[type, ...], str]] = [
        ("status", str, "a string"),
        ("alerts", list, "an array"),
        ("receiver", str, "a string"),
        ("groupKey", str, "a string"),
        ("externalURL", str, "a string"),
        ("groupLabels", dict, "an object"),
        ("commonLabels", dict, "an object"),
        ("commonAnnotations", dict, "an object"),
        ("truncatedAlerts", int, "an integer"),
    ]
    for key, expected, name in checks:
        if key in payload and (err := _check_type(key, payload[key], expected, name)) is not None:
            return err
    if payload["status"] not in ALERT_STATUSES:
        return BridgeError(422, f"status must be firing or resolved, got {payload['status'][:64]!r}")
    alerts = payload["alerts"]
    if len(alerts) > MAX_ALERTS:
        return BridgeError(413, f"{len(alerts)} alerts in one request exceeds the limit of {MAX_ALERTS}")
    if not alerts:
        return BridgeError(422, "alerts is empty: nothing to record")
    for index, alert in enumerate(alerts):
        if (err := _validate_alert(index, alert)) is not None:
            return err
    return None


def panel_link(panel_url: str, namespace: str, name: str) -> str:
    """The memory panel's stable page for one incident (`/ns/NAMESPACE/incidents/NAME`)."""
    return f"{panel_url.rstrip('/')}/ns/{namespace}/incidents/{name}"


def alert_to_incident(
    alert: dict[str, Any], *, namespace: str, received_at: datetime, panel_url: str | None = None
) -> AlertIncident | str:
    """One validated alert → an Incident, or the reason it cannot be one."""
    labels: dict[str, Any] = alert["labels"]
    annotations: dict[str, Any] = alert.get("annotations") or {}
    service = _service(labels)
    if service is None:
        return f"labels name no service: set one of {', '.join(SERVICE_LABELS)}"
    if not named(service):
        return f"the service label {service!r} names no service: it has no letter or digit"
    if service.startswith("-"):
        # A runbook's command takes the service as $(SERVICE): `--all` would be an option, not a service.
        return f"the service label {service[:64]!r} starts with '-': a command would read it as an option"
    alertname = labels.get("alertname") if isinstance(labels.get("alertname"), str) else None
    summary = annotations.get("summary")
    title = _one_line(summary, MAX_TITLE) if isinstance(summary, str) else ""
    if not visible(title) and alertname:
        title = _one_line(alertname, MAX_TITLE)
    if not visible(title):
        return ("neither annotations.summary nor labels.alertname gives a title with a visible character "
                "(only spaces, control or zero-width characters)")

    fingerprint: str = alert["fingerprint"].strip()
    name = incident_name(fingerprint)
    spec: dict[str, Any] = {
        "service": service,
        "severity": map_severity(labels.get("severity") if isinstance(labels.get("severity"), str) else None),
        "title": title,
    }
    # Without control and format characters: a right-to-left override (U+202E) shows a reader at
    # 3 a.m. other text than the memory matches on.
    description = next((text for k in DESCRIPTION_ANNOTATIONS if isinstance(annotations.get(k), str)
                        and (text := _without_invisible(annotations[k], MAX_DESCRIPTION).strip())), "")
    if description:
        spec["description"] = description[:MAX_DESCRIPTION]
    if isinstance(annotations.get("symptoms"), str):
        symptoms = parse_symptoms(annotations["symptoms"])
        if symptoms:
            spec["symptoms"] = symptoms
    for key in SIGNATURE_ANNOTATIONS:
        if isinstance(annotations.get(key), str):
            signatures = parse_signatures(annotations[key])
            if signatures:
                spec["errorSignatures"] = signatures
            break
    generator = alert.get("generatorURL")
    if "errorSignatures" not in spec and isinstance(generator, str) and (query := rule_query(generator)):
        spec["errorSignatures"] = [query]
    started = parse_time(alert["startsAt"])
    if started is not None and not _is_zero(started):
        spec["startedAt"] = format_time(started)
    spec["labels"] = _spec_labels(labels, fingerprint, alertname)

    status = alert["status"]
    tracking: dict[str, str | None] = {
        ANN_STATUS: status,
        ANN_FINGERPRINT: fingerprint[:MAX_ANNOTATION_VALUE],
        ANN_LAST_SEEN: format_time(received_at),
    }
    if started is not None and not _is_zero(started):
        tracking[ANN_STARTS_AT] = format_time(started)
    if isinstance(alert.get("generatorURL"), str) and alert["generatorURL"]:
        tracking[ANN_GENERATOR] = alert["generatorURL"][:MAX_ANNOTATION_VALUE]
    if status == "resolved":
        ends = parse_time(alert["endsAt"]) if isinstance(alert.get("endsAt"), str) else None
        tracking[ANN_RESOLVED_AT] = format_time(ends if ends is not None and not _is_zero(ends) else received_at)
    else:
        # Firing again after a resolution: a stale resolved-at would claim the
        # symptom had stopped. null removes the key in a merge patch.
        tracking[ANN_RESOLVED_AT] = None

    created_annotations = {k: v for k, v in tracking.items() if v is not None}
    if panel_url:
        created_annotations[ANN_PANEL] = panel_link(panel_url, namespace, name)[:MAX_ANNOTATION_VALUE]
    manifest = {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {SOURCE_LABEL: "alertmanager"},
            # The bridge is the opener on record (the fingerprint is the alert's identity):
            # the approval rules ask more approvers of an incident nobody vouched for.
            "annotations": {OPENED_BY: BRIDGE_OPENER, **created_annotations},
        },
        "spec": spec,
    }
    patch = {"metadata": {"annotations": tracking}}
    # The bridge reads an Incident back to know it as its alert's (the fingerprint annotation) and to tell a
    # re-fire with news from one without: it writes what the API server will keep, or a restarted bridge takes
    # its own Incident for someone else's and opens a second one for the same alert.
    return AlertIncident(name=name, status=status, manifest=as_stored_text(manifest),
                         patch=as_stored_text(patch), panel_url=panel_url)


def ended_firing(incident: Mapping[str, Any], item: AlertIncident) -> bool:
    """Whether `incident`, read back, holds an earlier firing of this alert that has ended.

    Alertmanager's fingerprint is the same every time an alert with the same
    labels fires, so the first Incident's name would take every later firing
    as a re-fire, and the recurrence memory exists for would never be
    triaged. A firing is told by its start. An earlier firing has ended when a
    person recorded the Incident's outcome (``spec.resolution``), or when its
    alert resolved ``REFIRE_AFTER`` or more before this firing began: an
    Incident left open must not swallow every later page. Otherwise the
    Incident takes the firing (a flapping alert stays one incident), and a
    closed one still takes the repeats of its own firing (a person may close
    it while the alert still fires). Without a start, firings cannot be told apart.
    """
    start = item.starts_at
    if start is None:
        return False
    spec = incident.get("spec") or {}
    annotations = (incident.get("metadata") or {}).get("annotations") or {}
    if (annotations.get(ANN_STARTS_AT) or spec.get("startedAt")) == start:
        return False
    if spec.get("resolution") is not None:
        return True
    resolved = parse_time(annotations.get(ANN_RESOLVED_AT))
    began = parse_time(start)
    return resolved is not None and began is not None and began - resolved >= REFIRE_AFTER


def alert_incident_of(incident: Mapping[str, Any], item: AlertIncident) -> bool:
    """Whether `incident` is one the bridge opened for this alert (its fingerprint, opened by the bridge).

    The first Incident's pointer to the newest (``ANN_LATEST``) is an annotation
    anyone who may edit Incidents can change; followed blindly, it would send
    the alert's later firings into an unrelated open Incident, and no new one
    would page. The opener is the creating user, set by admission.
    """
    annotations = (incident.get("metadata") or {}).get("annotations") or {}
    mine = item.patch["metadata"]["annotations"].get(ANN_FINGERPRINT)
    return annotations.get(OPENED_BY) == BRIDGE_OPENER and annotations.get(ANN_FINGERPRINT) == mine


def names_a_recurrence(pointer: object, first: str) -> bool:
    """Whether an ``ANN_LATEST`` value can name a later firing's Incident of `first`: anything else is not read.

    The annotation is free text to whoever may edit Incidents; a value with a
    slash would address another path of the API (``<name>/status``).
    """
    return (isinstance(pointer, str) and pointer.startswith(first + "-") and len(pointer) <= MAX_NAME
            and _DNS_SUBDOMAIN.fullmatch(pointer) is not None)


def recurrence_name(first: str, start: str) -> str:
    """The Incident of a later firing: the first one's name and the firing's start, ``<first>-YYYYMMDDHHMMSS``.

    The same for every repeat of that firing, so they converge on one Incident.
    """
    suffix = "-" + re.sub(r"[^0-9]", "", start)[:14]
    return first[: MAX_NAME - len(suffix)].rstrip(".-") + suffix


def renamed(item: AlertIncident, name: str, recurrence_of: str | None = None) -> AlertIncident:
    """The same alert written under another Incident name (a later firing's), optionally naming the one before."""
    manifest = copy.deepcopy(item.manifest)
    metadata = manifest["metadata"]
    metadata["name"] = name
    if recurrence_of is not None:
        metadata["annotations"][ANN_RECURRENCE_OF] = recurrence_of
    if item.panel_url:
        metadata["annotations"][ANN_PANEL] = panel_link(item.panel_url, metadata["namespace"], name)[
            :MAX_ANNOTATION_VALUE]
    return dataclasses.replace(item, name=name, manifest=manifest)


def map_payload(
    payload: Any, *, namespace: str, received_at: datetime, panel_url: str | None = None
) -> Mapped | BridgeError:
    """A decoded webhook body → the Incidents to write, or why it is refused.

    Alerts with the same fingerprint in one payload collapse to the last one.
    When no alert can become an Incident the request is refused (422) with the
    first alert's reason; otherwise the unusable ones are reported as skipped.
    """
    if (err := validate_payload(payload)) is not None:
        return err
    by_name: dict[str, AlertIncident] = {}
    skipped: list[Skipped] = []
    for index, alert in enumerate(payload["alerts"]):
        result = alert_to_incident(alert, namespace=namespace, received_at=received_at, panel_url=panel_url)
        if isinstance(result, str):
            skipped.append(Skipped(index, f"alerts[{index}]: {result}"))
        else:
            by_name.pop(result.name, None)
            by_name[result.name] = dataclasses.replace(result, index=index)
    if not by_name:
        return BridgeError(422, skipped[0].reason)
    truncated = payload.get("truncatedAlerts")
    return Mapped(incidents=list(by_name.values()), skipped=skipped,
                  truncated=truncated if isinstance(truncated, int) and truncated > 0 else 0)
