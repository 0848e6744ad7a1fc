"""Words, as the scoring sees them: one tokenizer for every backend and every term."""

from __future__ import annotations

import functools
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
    return list(_tokens(text))


# Memories are tokenized again for every query that recalls them; the cache
# keeps that cost out of the recall path (bounded, so memory stays flat).
@functools.lru_cache(maxsize=65_536)
def _tokens(text: str) -> tuple[str, ...]:
    out: list[str] = []
    for tok in _TOKEN.findall(text.lower()):
        parts = [p for p in _SPLIT.split(tok) if p]
        if len(parts) > 1:
            out.append(tok)
        # Bare short numbers (ports, counts) match everything and mean nothing alone.
        out.extend(p for p in parts if not (p.isdigit() and len(p) <= 3))
    return tuple(t for t in out if t not in STOPWORDS)


def incident_names(text: str) -> list[str]:
    """Incident names cited in free text (`inc-0042`, `tw-inc-013`), in order, without repeats."""
    seen: dict[str, None] = {}
    for name in _INCIDENT_NAME.findall(text.lower()):
        seen.setdefault(name)
    return list(seen)


# Words that open a negation in incident reports: "no lock waits", "not UO", "without errors".
_NEGATION_CUES = frozenset({"no", "not", "never", "without", "nor", "none"})
# A negation reaches this many words, and never past a clause boundary.
NEGATION_SCOPE = 4
_CLAUSE = re.compile(r"[.;:,()!?]|\b(?:but|and|with|while)\b")
# Six letters match "rebalances" with "rebalancing" and "deployed" with "deploy"
# across two reports without any language data.
STEM_LENGTH = 6


def stem(word: str) -> str:
    return word[:STEM_LENGTH]


def plain_stems(words: list[str]) -> set[str]:
    """Stems of simple words (compound tokens and very short words say too little)."""
    return {stem(w) for w in words if len(w) > 2 and not any(c in w for c in "-._:/")}


def negated_stems(text: str) -> set[str]:
    """Stems of what a report says is NOT happening ("no rebalances", "not UO", "no deploy since Friday")."""
    out: set[str] = set()
    for clause in _CLAUSE.split(text.lower()):
        words = clause.split()
        for i, w in enumerate(words):
            if w in _NEGATION_CUES or w.endswith("n't"):
                out |= plain_stems(tokens(" ".join(words[i + 1 : i + 1 + NEGATION_SCOPE])))
    return out
