"""Times as Kubernetes, Alertmanager and the history files write them (RFC 3339), read one way.

Every time the operator reads comes from an object someone else wrote: a
creationTimestamp, a condition's lastTransitionTime, an alert's startsAt, a
history line's `at`. An odd one (year 0, 30 February, a word, a number) is
"no time", never an exception that stops a reconcile; the caller decides what
no time means for it.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

# RFC 3339's date-time: seconds and a zone required, any fraction, `t`/`z` in
# either case and a space for the `T` (as the RFC allows). Python's own
# fromisoformat takes more (dates alone, no zone, basic format), none of it a
# time a Kubernetes or Alertmanager client would send.
_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:(\d{2})(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$")
_SECONDS = slice(17, 19)  # where the seconds sit in a matched text


def parse_time(value: object) -> datetime | None:
    """An RFC 3339 time as an aware datetime in UTC; None for anything that is not one.

    A datetime passes through (a naive one is taken as UTC): the Kubernetes
    client hands some fields over already parsed. A leap second (`:60`) is
    read as the second before it, which datetime can hold; a fraction past
    microseconds (Alertmanager writes nanoseconds) is cut to microseconds.
    """
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, str) and (shape := _RFC3339.match(value.strip())):
        text = value.strip().upper()
        if shape.group(1) == "60":
            text = text[: _SECONDS.start] + "59" + text[_SECONDS.stop :]
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError:  # year 0, 30 February, hour 24: the shape of a time, not a time
            return None
    else:
        return None
    try:
        return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00:00+01:00 is before the first instant datetime holds
        return None
