"""Thresholds a reconciled note states, read against the values an incident reports.

A contradiction reconciled by condition says which condition calls for which
fix, and the conditions are often numbers: "top tenant under about 10% of
in-memory series: add ingesters", "receiver p99 under 1 s". An alert page
reports the same quantities ("top tenant t-2044 at 37% of in-memory series",
"receiver p99 0.4s"), and a bag of words cannot tell 37% from 10%. This
module finds each threshold a text states, the value an incident gives for
the same quantity (named by the same words, in the same kind of unit), and
whether the value meets it.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

from recall_operator.domain.text import STOPWORDS, stem

# A number as people write it (48,210; 0.4; 37) and its unit. Not a part of a
# name (t-2044, zone-a-11, v1.2), a clock time (07:50), a date or a rate's
# divisor (3,900/5m): those have a letter, dash, dot, colon or slash beside them.
_NUMBER = (r"(?<![\w.:/-])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\d:/.-]|,\d)"
           r"\s*(%|ms|s|sec|secs|seconds|min|mins|minutes|h|hours)?(?![\w/-])")
_BOUND = (r"\b(under|below|less than|fewer than|over|above|more than|exceeding|at least|at most)"
          r"(?:\s+(?:about|around|roughly|approximately|well))*\s*~?\s*")
_STATED = re.compile(_BOUND + _NUMBER, re.IGNORECASE)
_VALUE = re.compile(_NUMBER, re.IGNORECASE)
_ENDS_WITH_BOUND = re.compile(_BOUND + r"$", re.IGNORECASE)
# A quantity and its number stay within one clause.
_CLAUSE = re.compile(r"[,;:()\[\]]|\.(?:\s|$)|\b(?:and|or|but|while|with)\b", re.IGNORECASE)
_WORD = re.compile(r"[a-z][a-z0-9_-]*")
_ABOVE = frozenset({"over", "above", "more than", "exceeding", "at least"})
_SECONDS = {"ms": 0.001, "s": 1, "sec": 1, "secs": 1, "seconds": 1, "min": 60, "mins": 60, "minutes": 60,
            "h": 3600, "hours": 3600}
# Words that qualify a number rather than name its quantity.
_FILLER = STOPWORDS | {"around", "roughly", "approximately", "well", "less", "more", "fewer", "least", "most",
                       "exceeding", "below", "above", "up", "down", "now", "only", "holds", "stays", "sits",
                       "reaches", "reached"}
# How many words before a number (and after it, in an "of ..." that follows) name its quantity.
QUANTITY_WORDS = 4
# A reported value is a stated quantity's when they share this many words (all of them, when it has fewer).
SHARED_WORDS = 2
# How much of a text is read: a note or a report states its conditions in its first few kilobytes.
READ_TEXT = 8_192


@dataclass(frozen=True)
class Threshold:
    """One stated condition: a quantity (the stems of its words), a direction, a bound."""

    quantity: frozenset[str]
    above: bool
    bound: float
    unit: str  # "%", "s" (any time unit, in seconds) or "" (a count)
    said: str  # as the text says it

    def met_by(self, value: float) -> bool:
        return value > self.bound if self.above else value < self.bound


@dataclass(frozen=True)
class Value:
    """One number an incident reports, with the stems of the words that name it."""

    quantity: frozenset[str]
    value: float
    unit: str
    said: str


@dataclass(frozen=True)
class Reading:
    """A value this incident reports, read against a threshold for the same quantity."""

    threshold: Threshold
    value: Value

    @property
    def met(self) -> bool:
        return self.threshold.met_by(self.value.value)

    def says(self) -> str:
        return f"{self.value.said!r} {'meets' if self.met else 'misses'} {self.threshold.said!r}"


class _Clauses:
    """Where a text's clauses begin and end, found once."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.cuts = [(m.start(), m.end()) for m in _CLAUSE.finditer(text)]
        self.starts = [c[0] for c in self.cuts]

    def around(self, start: int, end: int) -> tuple[str, str]:
        """The clause's text before and after a span."""
        i = bisect.bisect_right(self.starts, start) - 1
        left = self.cuts[i][1] if i >= 0 and self.cuts[i][1] <= start else 0
        j = bisect.bisect_left(self.starts, end)
        right = self.cuts[j][0] if j < len(self.cuts) else len(self.text)
        return self.text[left:start], self.text[end:right]


def _unit(raw: str | None) -> tuple[str, float]:
    if not raw:
        return "", 1.0
    if raw == "%":
        return "%", 1.0
    return "s", _SECONDS[raw.lower()]


def _quantity(before: str, after: str) -> tuple[frozenset[str], str]:
    """The stems naming a number's quantity (the nearest words before it, and an `of ...` after it), and those words."""
    words = [w for w in _WORD.findall(before.lower()) if w not in _FILLER][-QUANTITY_WORDS:]
    tail = after.lower().split()
    if tail[:1] == ["of"]:
        words += [w for w in _WORD.findall(" ".join(tail[1:1 + QUANTITY_WORDS])) if w not in _FILLER]
    return frozenset(stem(w) for w in words if len(w) > 1), " ".join(before.split()[-QUANTITY_WORDS:])


def _numbers(pattern: re.Pattern[str], text: str) -> Iterator[tuple[re.Match[str], str, frozenset[str], str]]:
    """Each match of `pattern` in the text read so far, with the clause before it and its quantity (stems, words)."""
    text = text[:READ_TEXT]
    clauses = _Clauses(text)
    for m in pattern.finditer(text):
        before, after = clauses.around(m.start(), m.end())
        quantity, named = _quantity(before, after)
        if quantity:
            yield m, before, quantity, f"{named} {m.group(0).strip()}"


def _amount(number: str, unit: str | None) -> tuple[float, str]:
    kind, scale = _unit(unit)
    return float(number.replace(",", "")) * scale, kind


def stated_thresholds(text: str) -> list[Threshold]:
    """Every `<quantity> under/over <number><unit>` the text states."""
    out = []
    for m, _, quantity, said in _numbers(_STATED, text):
        bound, unit = _amount(m.group(2), m.group(3))
        out.append(Threshold(quantity, m.group(1).lower() in _ABOVE, bound, unit, said))
    return out


def reported_values(text: str) -> list[Value]:
    """Every number the text reports for a named quantity (not the bounds it states itself: "more than 2%")."""
    out = []
    for m, before, quantity, said in _numbers(_VALUE, text):
        if not _ENDS_WITH_BOUND.search(before):
            value, unit = _amount(m.group(1), m.group(2))
            out.append(Value(quantity, value, unit, said))
    return out


def read_against(thresholds: list[Threshold], values: list[Value]) -> list[Reading]:
    """Each threshold a value is reported for (the first such value), read against it."""
    out = []
    for t in thresholds:
        need = min(SHARED_WORDS, len(t.quantity))
        for v in values:
            if v.unit == t.unit and len(v.quantity & t.quantity) >= need:
                out.append(Reading(t, v))
                break
    return out
