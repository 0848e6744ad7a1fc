"""Seeing two confirmed outcomes disagree, and saying so as a proposed Contradiction.

When the same fix worked for one incident and failed for a close look-alike,
nobody should have to notice it by chance at 3 a.m.: the operator proposes an open
Contradiction with both claims, and a person reconciles it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
import hashlib
from dataclasses import dataclass

from recall_operator.domain.consolidation import one_voice, record_outcome
from recall_operator.domain.models import Contradiction, EpisodicMemory
from recall_operator.domain.similarity import ScoredMemory

# Only precedents this similar are "the same failure pattern"; below it, two
# different fixes are two different failures, not a disagreement.
SAME_PATTERN_SIMILARITY = 70


def reconciled_by(user: str | None) -> str:
    """How a reconciliation names its author, wherever it is shown: unsigned ones say so.

    The chart's admission policy makes reconciledBy the user who wrote the
    reconciliation; without it (or in an imported history) it may be empty.
    """
    return f"by {user}" if user else "(unsigned)"


@dataclass(frozen=True)
class Proposal:
    name: str
    topic: str
    memories: tuple[str, str]
    claims: tuple[tuple[str, str], tuple[str, str]]
    why: str

    def spec(self) -> dict[str, object]:
        """The Contradiction's spec, as the CRD takes it: open until a person reconciles it."""
        return {
            "topic": self.topic,
            "memories": list(self.memories),
            "claims": [{"memory": m, "claim": c} for m, c in self.claims],
            "resolution": {"state": "open"},
        }


def claim(memory: EpisodicMemory) -> str:
    """What an outcome says fixed it, in a line."""
    res = memory.resolution
    failed = [a.action for a in res.actions if a.result == "failed"]
    fix = f"runbook {res.runbook} resolved it" if res.runbook else "it was resolved by hand"
    tried = f"; tried and failed: {'; '.join(failed)}" if failed else ""
    who = f" (confirmed by {res.confirmed_by})" if res.confirmed_by else ""
    return f"{fix}{tried}{who}"[:1000]


# A Kubernetes object's name: a DNS subdomain of at most 253 characters.
MAX_NAME = 253


def disagreement(new: EpisodicMemory, old: EpisodicMemory, runbooks: Iterable[str]) -> str | None:
    """Why two outcomes of one failure pattern disagree, or None when they agree."""
    # Only the same fix working in one and failing in the other is proposed:
    # two look-alikes fixed by different runbooks are as often two different
    # failures (on both dev histories, most such pairs are), and a false
    # proposal would hold back every later recommendation that cites them.
    for rb in runbooks:
        # What the operator saw, not a claim about a runbook it never ran there (`record_outcome`).
        a, b = record_outcome(old.resolution, rb), record_outcome(new.resolution, rb)
        if {a, b} == {"succeeded", "failed"}:
            return f"runbook {rb} {a} in {old.incident} but {b} in {new.incident}"
    return None


def proposal_name(old: str, new: str) -> str:
    """`recall-<old>-vs-<new>`, or, too long for an object name, its start and a digest of both names.

    Cut at 253 characters, a long incident name left a name ending in `-` or
    `.`, which the API server refuses: the Contradiction was never proposed,
    and the disagreement held nothing back.
    """
    name = f"recall-{old}-vs-{new}"
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(f"{old}/{new}".encode()).hexdigest()[:16]
    return name[: MAX_NAME - len(digest) - 1].rstrip("-.") + "-" + digest


def propose(
    new: EpisodicMemory,
    scored: Sequence[ScoredMemory],
    runbooks: Iterable[str],
    existing: Iterable[Contradiction] = (),
) -> Proposal | None:
    """The open Contradiction to propose for a new outcome, if its closest look-alike disagrees.

    Pairs already named together in a Contradiction are not proposed again.
    An outcome only one person vouches for (`one_voice`) proposes none, on
    either side: the operator would put its own name on that person's claim,
    and a Contradiction holds every later recommendation citing it advisory.
    """
    if one_voice(new) is not None:
        return None
    known = [set(c.spec.memories) for c in existing]
    names = list(runbooks)
    for s in scored:
        if s.similarity < SAME_PATTERN_SIMILARITY:
            break
        old = s.memory
        if (old.incident == new.incident or any({old.incident, new.incident} <= k for k in known)
                or one_voice(old) is not None):
            continue
        why = disagreement(new, old, names)
        if why is None:
            continue
        return Proposal(
            name=proposal_name(old.incident, new.incident),
            topic=f"{new.spec.service}: {new.spec.title}"[:256],
            memories=(old.incident, new.incident),
            claims=((old.incident, claim(old)), (new.incident, claim(new))),
            why=f"{why} (similarity {s.similarity})",
        )
    return None
