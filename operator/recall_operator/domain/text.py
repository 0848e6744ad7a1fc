"""Words, as the scoring sees them: one tokenizer for every backend and every term."""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable

_TOKEN = re.compile(r"[a-z0-9][a-z0-9_.:/-]*[a-z0-9]|[a-z0-9]")
_INCIDENT_NAME = re.compile(r"\b[a-z][a-z0-9]*(?:-[a-z0-9]+)*-inc-\d+\b|\binc-\d+\b")
_SPLIT = re.compile(r"[._:/-]+")

# Words that say nothing about a failure, whatever the platform.
STOPWORDS = frozenset(
    """a an and are as at be been but by for from has have in into is it its of on or our
    so that the their then there these this to was were what when which while with
    after before about over under than all any some not no we they he she after also
    since until
    """.split()
)


# An identifier written in CamelCase (an alert name such as `EMQXConnectionsDropping`,
# `OOMKilled`, `InvalidProviderToken`): a capital after a lowercase letter or a
# digit, or an acronym run into a word.
_CAMEL = re.compile(r"\b[A-Za-z0-9]*(?:[a-z0-9][A-Z]|[A-Z]{2}[a-z])[A-Za-z0-9]*\b")
_CAMEL_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[a-z])(?=[0-9])")


def camel_words(text: str) -> str:
    """The words of every CamelCase identifier in the text, space-separated.

    An alert bridge page says `MobileApiEdge5xxRatio` where a person writes
    "5xx ratio at the edge of the mobile API": the words are what they share.
    """
    return " ".join(_CAMEL_BREAK.sub(" ", m) for m in _CAMEL.findall(text))


def tokens(text: str) -> list[str]:
    """Lowercase word tokens; compound tokens (`max.poll.interval.ms`, `EMQXConnectionsDropping`) also yield their parts."""
    return list(_tokens(text))


# A memory's words are derived once, when it is written (similarity.memory_features),
# so what is tokenized again and again is small: the catalog's runbooks, a
# query's own text. A large cache only held every memory ever written: at 65,536
# entries it was a fifth of the process's memory, and every one of its entries
# is an object the collector walks on each full collection.
@functools.lru_cache(maxsize=2_048)
def _tokens(text: str) -> tuple[str, ...]:
    out: list[str] = []
    camel = camel_words(text)
    for tok in _TOKEN.findall(f"{text} {camel}".lower() if camel else text.lower()):
        parts = [p for p in _SPLIT.split(tok) if p]
        if len(parts) > 1:
            out.append(tok)
        # Bare short numbers (ports, counts) match everything and mean nothing alone.
        out.extend(p for p in parts if not (p.isdigit() and len(p) <= 3))
    return tuple(t for t in out if t not in STOPWORDS)


def service_name_words(service: str) -> Callable[[str], bool]:
    """Whether a word is the service's name or a part of it, however it is joined.

    A bridge writes the service as its rule has it (`billing.usage`,
    `billing_usage`) where the Incident says `billing-usage`: the same parts
    in the same order name the service and nothing else. In another order
    they are something else (`/api/search` is an endpoint of `search-api`).
    """
    words = frozenset(tokens(service))
    name = tuple(p for p in _SPLIT.split(service.lower()) if p)
    return lambda word: word in words or tuple(p for p in _SPLIT.split(word) if p) == name


def mentions(text: str, name: str) -> bool:
    """Whether the text names an object (a runbook, a service) as a whole word: `scale-out` is
    not named by `ingester-scale-out`, nor `rollback` by `rollback-release`."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


def tokens_cache_clear() -> None:
    """Forget the cached tokens (for a tool that changes how text is split while it runs)."""
    _tokens.cache_clear()


# An Incident's name is at most 253 characters; a longer run of letters and dashes names none.
_NAME_WINDOW = 260
_CITED = re.compile(r"inc-\d")


def incident_names(text: str) -> list[str]:
    """Incident names cited in free text (`inc-0042`, `tw-inc-013`), in order, without repeats.

    Read word by word, and a long word only around each `inc-<digit>` in it: the pattern
    backtracks over a run of dashed words, and over a 16 KiB run its time grew
    with the square of the length (seconds of the event loop per outcome).
    """
    seen: dict[str, None] = {}
    for word in text.lower().split():
        if not _CITED.search(word):
            continue
        if len(word) <= _NAME_WINDOW + 40:
            pieces = [word]
        else:
            pieces = [word[max(0, i - _NAME_WINDOW): i + 40] for i in (m.start() for m in _CITED.finditer(word))]
        for piece in pieces:
            for name in _INCIDENT_NAME.findall(piece):
                seen.setdefault(name)
    return list(seen)


# Words that open a denial in incident reports: "no lock waits", "not UO", "without errors",
# "nothing was deployed". A root cause that says "nothing watched the Ready
# condition" does not make "ready" a fact of its incident (precedent_facts).
_NEGATION_CUES = frozenset({"no", "not", "without", "nor", "none", "nothing", "nobody", "neither"})
# "Isn't failing", "hasn't changed": a state denied. "Can't connect", "don't show
# up", "didn't run" are the failure itself, so other n't forms open nothing, nor
# does "never" ("the e-mails never arrive").
_DENIED_STATE = frozenset({"isn't", "aren't", "wasn't", "weren't", "hasn't", "haven't", "hadn't"})
# "Could not write", "will not start": an inability is a symptom, not a denial.
_INABILITY = frozenset({"can", "could", "will", "would", "do", "does", "did", "cannot"})
# Where a denial of a thing ends: at its verb, or at a word of place or time
# ("no record is created for them", "not Ready for 6 hours", "no deploy since
# Friday"). What follows says what the absent thing would do, or where and
# when, not another absence. A verb right after the cue is part of the denial
# ("not been restarted"); "by", "from" and "of" carry it on ("not caused by a
# deploy" denies the deploy).
_ENDS_DENIAL = frozenset({"is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "gets", "got",
                          "for", "since", "in", "on", "at", "during", "after", "before", "until", "above", "below",
                          "over", "under", "between", "within", "across", "per"})
# "Addresses that are not current pod IPs": a relative clause describes what
# is seen; it denies nothing.
_RELATIVE = frozenset({"that", "which", "who", "whose"})
# A negation reaches this many words, and never past a clause boundary.
NEGATION_SCOPE = 4
_CLAUSE = re.compile(r"[.;:,()!?]|\b(?:but|and|with|while)\b")
_WORD = re.compile(r"[a-z]{3,}")
# Quotes that open after a non-letter and close before one, so "isn't" is no quote.
_QUOTED = re.compile(r"(?<![A-Za-z])'[^']*'(?![A-Za-z])|\"[^\"]*\"|“[^”]*”")
# Six letters match "rebalances" with "rebalancing" and "deployed" with "deploy"
# across two reports without any language data.
STEM_LENGTH = 6


def stem(word: str) -> str:
    return word[:STEM_LENGTH]


def plain_stems(words: list[str]) -> set[str]:
    """Stems of simple words (compound tokens and very short words say too little)."""
    return {stem(w) for w in words if len(w) > 2 and not any(c in w for c in "-._:/")}


def _opens_denial(words: list[str], i: int) -> bool:
    w, before = words[i], words[max(0, i - 2) : i]
    if _RELATIVE & set(before):
        return False
    if words[i + 1 : i + 2] == ["longer"]:
        return False  # "the gateway no longer routes to it": a change that is the failure
    if w == "not" and before and before[-1] in _INABILITY:
        return False
    if words[i + 1 : i + 2] and words[i + 1] in _INABILITY:
        return False  # "nobody can log in": an inability, as "could not write" is
    return w in _NEGATION_CUES or w in _DENIED_STATE


def negated_words(text: str) -> dict[str, str]:
    """What a report says is NOT happening ("no rebalances", "not SAML", "no deploy since Friday"):
    each denied word's stem, with the word as the report wrote it (the first time).

    Only plain words count: in "no errors in tenant-api" the denial is about
    errors, and the parts of a name like `tenant-api` or `rows_ingested` would
    deny things the sentence never meant.
    """
    out: dict[str, str] = {}
    # A quoted phrase is what a user heard or a system printed ("device is not
    # responding"): the failure's own words, never the reporter's denial.
    text = _QUOTED.sub(" ", text)
    for clause in _CLAUSE.split(text.lower()):
        words = clause.split()
        for i in range(len(words)):
            if _opens_denial(words, i):
                taken = False
                for w in words[i + 1 : i + 1 + NEGATION_SCOPE]:
                    w = w.strip("'\"")
                    if w in _ENDS_DENIAL and taken:
                        break
                    if _WORD.fullmatch(w) and w not in STOPWORDS:
                        out.setdefault(stem(w), w)
                        taken = True
    return out


def negated_stems(text: str) -> set[str]:
    """Stems of what a report says is not happening."""
    return set(negated_words(text))


# "tenant-db is up", "reads are fine", "the leader has not changed": a report
# that names a part and says it works clears that part, which rules out a
# precedent whose confirmed cause lay there (similarity.cleared_parts).
_CLEARED = re.compile(
    r"\b([a-z][a-z0-9-]*)\s+(?:is|are|was|were|stays|stayed|remains|remained|looks|seems|has been|have been)\s+"
    r"(?:still\s+|all\s+)?(?:up|fine|healthy|normal|green|unchanged|unaffected|stable|ok|okay|available|reachable)\b"
    r"|\b([a-z][a-z0-9-]*)\s+(?:has|have|had)\s+not\s+changed\b"
    r"|\b([a-z][a-z0-9-]*)\s+(?:hasn't|haven't|hadn't)\s+changed\b"
)
# "The other 47 partitions are fine", "the rest are healthy": one of them is not.
_CONTRAST = frozenset({"other", "others", "remaining", "rest"})
_REFLEXIVE = frozenset({"itself", "themselves"})
# Words that stand for no part: "everything else is normal", "the rest are fine".
_NO_PART = _CONTRAST | {"else", "everything", "everyone", "something", "nothing"}
# How far back the words before a cleared part are looked for: a fixed window, so a long
# report costs no more per phrase than a short one.
_BEFORE_CHARS = 120


def cleared_words(text: str) -> dict[str, str]:
    """What a report says works or has not changed: each part's stem, with the word as written.

    A part the report names again elsewhere ("partition 9 crashes ... the other
    partitions are fine", "the hubs on LTE drop; broadband hubs are unaffected")
    is where the failure is, and only some of it works: it clears nothing.
    """
    text = _QUOTED.sub(" ", text).lower()
    said = Counter(stem(w) for w in _WORD.findall(text))
    out: dict[str, str] = {}
    for m in _CLEARED.finditer(text):
        before = text[max(0, m.start() - _BEFORE_CHARS): m.start()].split()[-3:]
        word = next(g for g in m.groups() if g)
        if word in _REFLEXIVE:  # "redis itself is healthy" clears redis
            word, before = (before[-1], before[:-1]) if before else ("", [])
        if _CONTRAST & set(before) or not _WORD.fullmatch(word) or word in STOPWORDS or word in _NO_PART:
            continue
        if said[stem(word)] == 1:
            out.setdefault(stem(word), word)
    return out
