"""Words, as the scoring sees them: one tokenizer for every backend and every term."""

from __future__ import annotations

import re

_TOKEN = re.compile(r"[a-z0-9][a-z0-9_.:/-]*[a-z0-9]|[a-z0-9]")
_INCIDENT_NAME = re.compile(r"\b[a-z][a-z0-9]*(?:-[a-z0-9]+)*-inc-\d+\b|\binc-\d+\b")
_SPLIT = re.compile(r"[._:/-]+")

# Words that say nothing about a failure, whatever the platform.
STOPWORDS = frozenset(
    """a an and are as at be been but by for from has have in into is it its of on or our
    so that the their then there these this to was were what when which while with
    after before about over under than all any some not no we they he she after also
    """.split()
)


def tokens(text: str) -> list[str]:
    """Lowercase word tokens; compound tokens (`max.poll.interval.ms`) also yield their parts."""
    out: list[str] = []
    for tok in _TOKEN.findall(text.lower()):
        parts = [p for p in _SPLIT.split(tok) if p]
        if len(parts) > 1:
            out.append(tok)
        # Bare short numbers (ports, counts) match everything and mean nothing alone.
        out.extend(p for p in parts if not (p.isdigit() and len(p) <= 3))
    return [t for t in out if t not in STOPWORDS]


def incident_names(text: str) -> list[str]:
    """Incident names cited in free text (`inc-0042`, `tw-inc-013`), in order, without repeats."""
    seen: dict[str, None] = {}
    for name in _INCIDENT_NAME.findall(text.lower()):
        seen.setdefault(name)
    return list(seen)
