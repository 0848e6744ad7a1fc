"""Grounding: is every number, duration and incident a text states found in the evidence it cites?

The operator checks a confirmed outcome with it (`unsupported_claims`): the
summary and root cause a person writes become memory, and a reader months
later takes their numbers as remembered.

A recommendation that says "batches of 500" because a precedent did is
grounded; one that adds "proven to stay within 30 s" when no precedent said so
has invented a fact that an engineer at 3 a.m. will take as remembered. The
check is mechanical on purpose: a prompt can ask a writer not to invent
numbers, only a comparison can show that none was invented.

What counts as a claim:

- a quantity: a number with its unit if it has one. Durations (`30 s`,
  `30-second`, `15 minutes`, `1h30m`), sizes (`2.1 TB`), percentages
  (`99%`, `99 percent`), rates (`500 rps`), factors (`3x`) are compared by
  value in a canonical unit, so `30 s` ~ `30s` ~ `30 seconds` ~ `0.5 min`;
  a bare number (`500`) is compared by value with any number in the evidence;
- a version-like dotted number (`1.29.4`), a date (`2025-01-15`) and a clock
  time (`02:11`), compared as written;
- an incident name (`inc-0042`, `tw-inc-013`).

Digits inside identifiers (`p99`, `utf-8`, `redis:7.2`, `max.poll.records`,
`k8s`) belong to names, not to claims, and numbers spelled as words are not
read; both are limits of a mechanical reader, stated here rather than hidden.
Every claim found lands in exactly one of `grounded` or `ungrounded`, each
with a reason a person can check.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Literal

from recall_operator.domain.models import IncidentSpec, Resolution, Runbook
from recall_operator.domain.text import incident_names

Kind = Literal["number", "duration", "size", "percent", "rate", "factor", "version", "date", "time", "incident"]

# Unit spelling -> (dimension, factor to the canonical unit of that dimension).
# Durations are in seconds; sizes in bytes (decimal and binary prefixes kept
# apart, as storage dashboards keep them); "m" is minutes, as in `5m` windows.
_UNITS: dict[str, tuple[Kind, Decimal]] = {}


def _units(kind: Kind, factor: str, *spellings: str) -> None:
    for s in spellings:
        _UNITS[s] = (kind, Decimal(factor))


_units("duration", "0.000000001", "ns", "nanosecond", "nanoseconds")
_units("duration", "0.000001", "us", "µs", "microsecond", "microseconds")
_units("duration", "0.001", "ms", "msec", "msecs", "millisecond", "milliseconds")
_units("duration", "1", "s", "sec", "secs", "second", "seconds")
_units("duration", "60", "m", "min", "mins", "minute", "minutes")
_units("duration", "3600", "h", "hr", "hrs", "hour", "hours")
_units("duration", "86400", "d", "day", "days")
_units("duration", "604800", "w", "wk", "wks", "week", "weeks")
_units("size", "1", "b", "byte", "bytes")
for _i, _p in enumerate(("k", "m", "g", "t", "p"), start=1):
    _units("size", str(1000**_i), f"{_p}b")
    _units("size", str(1024**_i), f"{_p}ib")
_units("percent", "1", "%", "percent", "per cent", "pct")
_units("rate", "1", "rps", "qps", "req/s", "requests/s", "/s", "per second")
_units("factor", "1", "x", "×")

# Longest spelling first, so that `ms` is not read as `m` followed by `s`.
_UNIT = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))
# 1,000 with thousands separators, or plain digits with optional decimals
# (several dots make a version, handled below); `k` multiplies counts (`10k`).
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)*"
_QUANTITY = re.compile(
    rf"(?<![\w.,])(?P<num>{_NUMBER})(?P<k>k(?![a-z]))?(?:[ \t-]?(?P<unit>{_UNIT}))?(?![\w%])",
    re.IGNORECASE,
)
# Go-style compound durations (`1h30m`, `2m30s`): read as one duration, not as loose digits.
_COMPOUND = re.compile(r"(?<![\w.])(?:\d+(?:\.\d+)?(?:ms|h|m|s)){2,}(?!\w)", re.IGNORECASE)
_COMPOUND_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)", re.IGNORECASE)
_DATE = re.compile(r"(?<![\w.])\d{4}-\d{2}-\d{2}(?![\d])")
# A full timestamp gives two claims: its date and its time of day.
_TIME = re.compile(r"(?:(?<=\d[tT])|(?<![\w.:]))\d{1,2}:\d{2}(?::\d{2})?(?![\d:])")
# Words with digits inside (`p99`, `utf-8`, `redis:7.2`, `v1.29.4`) are names, not numbers.
# A run of identifier characters that starts with a letter; it is an identifier when it holds a
# digit (`identifiers`). Matching the digit inside the pattern backtracked over every start of a
# long dashed run: seconds for a 16 KiB root cause.
_IDENTIFIER_RUN = re.compile(r"(?<![\w])[a-z_][\w.:/-]*", re.IGNORECASE)
_DIGIT = re.compile(r"\d")


@dataclass(frozen=True)
class GroundingItem:
    text: str  # as written in the recommendation
    kind: Kind
    value: str  # the normalised form compared with the evidence (e.g. "30 s", "500")
    reason: str


@dataclass(frozen=True)
class GroundingReport:
    grounded: list[GroundingItem] = field(default_factory=list)
    ungrounded: list[GroundingItem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.ungrounded


@dataclass(frozen=True)
class _Claim:
    text: str
    kind: Kind
    value: str  # canonical, comparable
    numeral: Decimal | None  # the number as written, for "found, but not as a duration" reasons
    start: int


def _decimal(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None


def _canonical(value: Decimal) -> str:
    # normalize() turns 1E+3 into scientific form; quantize keeps plain digits for people.
    text = format(value.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


_CANONICAL_UNIT = {"duration": "s", "size": "B", "percent": "%", "rate": "/s", "factor": "x"}


def _mask(text: str, spans: list[tuple[int, int]]) -> str:
    chars = list(text)
    for a, b in spans:
        chars[a:b] = " " * (b - a)
    return "".join(chars)


def _claims(text: str) -> list[_Claim]:
    """Every claim in `text`, in order of appearance; each character belongs to at most one claim."""
    claims: list[_Claim] = []
    taken: list[tuple[int, int]] = []

    for name in incident_names(text):
        for m in re.finditer(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text, re.IGNORECASE):
            claims.append(_Claim(m.group(), "incident", name, None, m.start()))
            taken.append(m.span())
    work = _mask(text, taken)

    for m in _DATE.finditer(work):
        claims.append(_Claim(m.group(), "date", m.group(), None, m.start()))
        taken.append(m.span())
    for m in _TIME.finditer(work):
        claims.append(_Claim(m.group(), "time", m.group(), None, m.start()))
        taken.append(m.span())
    work = _mask(work, taken)

    for m in _COMPOUND.finditer(work):
        seconds = sum(
            (Decimal(n) * _UNITS[u.lower()][1] for n, u in _COMPOUND_PART.findall(m.group())), Decimal(0)
        )
        claims.append(_Claim(m.group(), "duration", f"{_canonical(seconds)} s", None, m.start()))
        taken.append(m.span())
    work = _mask(work, taken)
    # Identifier digits are masked only now, so that `inc-0042` and `2025-01-15` were read first.
    work = _mask(work, [m.span() for m in _IDENTIFIER_RUN.finditer(work) if _DIGIT.search(m.group())])

    for m in _QUANTITY.finditer(work):
        num, unit = m.group("num"), m.group("unit")
        if num.count(".") > 1:
            claims.append(_Claim(m.group(), "version", num, None, m.start()))
            continue
        numeral = _decimal(num)
        if numeral is None:  # pragma: no cover - the pattern only admits digits
            continue
        value = numeral * (1000 if m.group("k") else 1)
        if unit is None:
            claims.append(_Claim(m.group(), "number", _canonical(value), numeral, m.start()))
            continue
        kind, factor = _UNITS[unit.lower()]
        claims.append(
            _Claim(m.group(), kind, f"{_canonical(value * factor)} {_CANONICAL_UNIT[kind]}", numeral, m.start())
        )
    return sorted(claims, key=lambda c: c.start)


def _describe(kind: Kind) -> str:
    return {"number": "a number", "version": "a version", "incident": "an incident name"}.get(kind, f"a {kind}")


def check_grounding(text: str, evidence: list[str]) -> GroundingReport:
    """Split the claims of a recommendation's text into grounded and ungrounded, each with its reason."""
    found = [(i, c) for i, ev in enumerate(evidence) for c in _claims(ev)]
    grounded: list[GroundingItem] = []
    ungrounded: list[GroundingItem] = []
    for claim in _claims(text):
        hit = _find(claim, found, evidence)
        if hit is not None:
            grounded.append(GroundingItem(claim.text, claim.kind, claim.value, hit))
        else:
            ungrounded.append(GroundingItem(claim.text, claim.kind, claim.value, _why_not(claim, found, evidence)))
    return GroundingReport(grounded, ungrounded)


def _find(claim: _Claim, found: list[tuple[int, _Claim]], evidence: list[str]) -> str | None:
    for i, ev in found:
        same = ev.kind == claim.kind and ev.value == claim.value
        # A bare number in the recommendation is grounded by the same number
        # anywhere in the evidence, whatever unit it carries there: "500" does
        # not claim a unit, so it cannot contradict one.
        loose = claim.kind == "number" and ev.numeral is not None and ev.numeral == claim.numeral
        if same or loose:
            return f"found in evidence {i + 1} as '{ev.text}'"
    if claim.kind in ("version", "date", "time"):
        # Written forms are compared as text too: the evidence may hold them inside a name (`kubectl:1.29.4`).
        pattern = re.compile(rf"(?<![\d.]){re.escape(claim.value)}(?![\d])")
        for i, ev_text in enumerate(evidence):
            if pattern.search(ev_text):
                return f"found in evidence {i + 1} as written"
    return None


def _why_not(claim: _Claim, found: list[tuple[int, _Claim]], evidence: list[str]) -> str:
    if not evidence:
        return f"{_describe(claim.kind)} with nothing cited to support it"
    if claim.kind == "incident":
        return f"{claim.value} is not among the incidents the evidence describes"
    same_numeral = [ev for _, ev in found if claim.numeral is not None and ev.numeral == claim.numeral]
    if same_numeral:
        return (
            f"the evidence mentions '{same_numeral[0].text}' but not {_describe(claim.kind)} of {claim.value}"
        )
    return f"no {claim.kind} of {claim.value} in the cited evidence"


def _record(spec: IncidentSpec, resolution: Resolution, runbooks: Iterable[Runbook]) -> list[str]:
    """What was recorded about an incident besides the outcome's own words: one evidence text each."""
    texts = [spec.title, spec.description, *spec.symptoms, *spec.error_signatures]
    if spec.deployment is not None:
        d = spec.deployment
        texts.append(" ".join(str(v) for v in (d.id, d.revision) if v))
        if d.minutes_since_deploy is not None:
            texts.append(f"{d.minutes_since_deploy:g} minutes since the deploy")
    if spec.started_at is not None:
        texts.append(spec.started_at.isoformat())
    texts.extend(f"{a.action}: {a.result}" for a in resolution.actions)
    texts.extend(n for n in (resolution.runbook, resolution.reported_runbook) if n)
    for rb in runbooks:
        texts.extend([rb.name, rb.spec.title, rb.spec.description])
        texts.extend(f"{p.name}={p.default}" for p in rb.spec.parameters if p.default is not None)
        texts.extend(" ".join([s.name, *s.command]) for s in rb.spec.steps)
    return [t for t in texts if t]


def unsupported_claims(spec: IncidentSpec, resolution: Resolution, runbooks: Iterable[Runbook] = ()) -> tuple[str, ...]:
    """What an outcome's summary and root cause state that nothing recorded about the incident says.

    The record is the incident as paged (title, description, symptoms, error
    signatures, the deploy, when it started), the actions with their results,
    and the runbooks the outcome names (`runbooks`: their words, parameters and
    commands). A claim not in it is not wrong, only the writer's word alone;
    kept with the memory, it tells a later reader which numbers those are.
    Incident names are left out: a summary names another incident to say this
    one repeats it (`consolidation.related_incident`), which no record of this
    incident can show.
    """
    evidence = _record(spec, resolution, runbooks)
    out: list[str] = []
    for part, text in (("summary", resolution.summary), ("root cause", resolution.root_cause)):
        for item in check_grounding(text, evidence).ungrounded:
            if item.kind != "incident":
                out.append(f"the {part} says '{item.text}', which nothing recorded says")
    return tuple(dict.fromkeys(out))
