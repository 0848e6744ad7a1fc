"""Logging for `recall run`: plain text (the default) or one JSON object per line.

A JSON line always has ``time`` (RFC 3339, UTC), ``level``, ``logger`` and
``message``; a line logged within a handler for an Incident also has
``incident`` (``namespace/name``) and ``kind``; for another kind, ``object``
and ``kind``. Kopf's per-object logger (the
``logger`` a handler receives) puts the object's reference in the record's
``k8s_ref`` extra (apiVersion, kind, name, uid, namespace); that is where the
object comes from. Exceptions go into ``exception`` as the formatted traceback,
so a line never spans two.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def object_of(record: logging.LogRecord) -> dict[str, Any] | None:
    """The Kubernetes object a record was logged for (Kopf's ``k8s_ref`` extra), if any."""
    ref = getattr(record, "k8s_ref", None)
    if isinstance(ref, dict) and ref.get("name"):
        return ref
    return None


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        ref = object_of(record)
        if ref is not None:
            ns = ref.get("namespace")
            name = f"{ns}/{ref['name']}" if ns else ref["name"]
            kind = ref.get("kind") or "Incident"
            line["kind"] = kind
            # An Incident's handlers name it as `incident`; a Job's or an Approval's
            # name their own object (the incident is in its labels or spec, which
            # Kopf's reference does not carry).
            line["incident" if kind == "Incident" else "object"] = name
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            line["exception"] = record.exc_text
        return json.dumps(line, default=str, ensure_ascii=False)


class _ObjectPrefix(logging.Formatter):
    """Text lines name the object too, as Kopf's own text format does."""

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        ref = object_of(record)
        if ref is None:
            return text
        prefix = f"[{ref.get('namespace')}/{ref['name']}] " if ref.get("namespace") else f"[{ref['name']}] "
        head, sep, tail = text.partition(": ")
        return f"{head}{sep}{prefix}{tail}" if sep else prefix + text


class QuietSuccess(logging.Filter):
    """Drops Kopf's "Handler '...' succeeded." lines; every failure and the operator's own lines pass.

    Kopf logs one at INFO for each handler on each event: three lines per
    Incident event, which said nothing the operator's own lines and the
    Incident's conditions do not, buried what did, and in an alert storm cost
    about 8% of the event loop. `--verbose` keeps them.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.msg
        return not (record.levelno == logging.INFO and isinstance(msg, str)
                    and msg.startswith("Handler ") and msg.endswith(" succeeded."))


_QUIET = QuietSuccess()


def configure(fmt: str = "text", level: int = logging.INFO, stream: Any = None) -> logging.Handler:
    """Send every log line to `stream` (stderr) in `fmt`; replaces the root logger's handlers."""
    if fmt not in FORMATS:
        raise ValueError(f"log format {fmt!r}: use one of {', '.join(FORMATS)}")
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else _ObjectPrefix(TEXT_FORMAT))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    # Kopf's object logger may have been given handlers of its own by `kopf run`'s
    # configuration; here everything goes through the root, once.
    for name in ("kopf", "kopf.objects"):
        logging.getLogger(name).propagate = True
    objects = logging.getLogger("kopf.objects")
    # On the logger, not the handler: a dropped line is never formatted or written.
    if level > logging.DEBUG:
        objects.addFilter(_QUIET)
    else:
        objects.removeFilter(_QUIET)
    return handler
