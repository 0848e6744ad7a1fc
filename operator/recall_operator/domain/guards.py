"""Guards: reasons a remembered fix loses authority here and now.

A migration makes a memory stale (it stays, its fix counts for less); an open
contradiction makes the recommendation advisory; a fix that already failed
under the same conditions is never actionable. Each guard is a small pure
function that says what it found and why.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time

from recall_operator.domain.consolidation import Outcomes, one_voice, runbook_outcome
from recall_operator.domain.models import ArchitectureMigration, Contradiction, EpisodicMemory
from recall_operator.domain.topology import Topology

# However stale, a memory keeps this much actionability: it still tells what was seen.
STALE_FLOOR = 15


def migration_time(migration: ArchitectureMigration) -> datetime:
    """When a migration took effect: when the cluster learned of it, never before its migrationDate.

    Written down ahead of its date, it is not in effect until then: the fixes
    of the old architecture still apply. Written down late, it counts from when
    the cluster learned of it: a memory's time is when its outcome was written
    into memory (an imported history is written all at once), so an outcome
    written before the migration object cannot be told from one of the old
    architecture, and taking it as stale is the safe side.
    """
    when = migration.spec.migration_date
    if isinstance(when, datetime):
        moment = when if when.tzinfo else when.replace(tzinfo=UTC)
    else:
        assert isinstance(when, date)
        moment = datetime.combine(when, time.min, tzinfo=UTC)
    return moment if migration.applied_at is None else max(migration.applied_at, moment)


def in_effect(migrations: Iterable[ArchitectureMigration], now: datetime) -> list[ArchitectureMigration]:
    return [m for m in migrations if migration_time(m) <= now]


@dataclass(frozen=True)
class Staleness:
    migration: str
    old_arch: str
    new_arch: str
    deduction: int
    why: str


def memory_staleness(
    memory: EpisodicMemory, migrations: Sequence[ArchitectureMigration], topology: Topology, now: datetime
) -> Staleness | None:
    """The migration that made this memory's fix stale, if any.

    A memory is stale when it was resolved before a migration in effect now,
    and its fix touched what changed: a runbook the migration names, a fix
    phrase it lists, or the migrated service itself or one next to it.
    """
    after = [m for m in migrations if memory.resolved_at < migration_time(m) <= now]  # in effect, and since
    if not after:  # most memories: no migration since they were resolved
        return None
    actions = " ".join(a.action for a in memory.resolution.actions)
    fix_text = f"{memory.resolution.summary} {actions}".lower()
    for m in after:
        spec = m.spec
        # runbook_outcome is None for a runbook no action names (by its whole name) and the outcome does not
        # record: the substring test skips those cheaply, as failed_before does.
        used = [rb for rb in spec.impacted_runbooks
                if (rb == memory.resolution.runbook or rb in actions)
                and runbook_outcome(memory.resolution, rb) is not None]
        phrases = [k for k in spec.impacted_fix_keywords if _says(fix_text, k)]
        related = topology.relation(memory.spec.service, spec.target_service) != "unrelated"
        if used or phrases or (related and memory.resolution.runbook in spec.impacted_runbooks):
            what = f"runbook {', '.join(used)}" if used else f"fix '{phrases[0]}'" if phrases else "its fix"
            return Staleness(
                migration=m.name,
                old_arch=spec.old_arch,
                new_arch=spec.new_arch,
                deduction=spec.confidence_deduction,
                why=f"{memory.incident} used {what} on {spec.old_arch or 'the old architecture'}, "
                f"before migration {m.name}",
            )
    return None


def stale_runbooks(migrations: Sequence[ArchitectureMigration], now: datetime) -> dict[str, str]:
    """Runbook -> the migration in effect that made it stale."""
    out: dict[str, str] = {}
    for m in in_effect(migrations, now):
        for rb in m.spec.impacted_runbooks:
            out.setdefault(rb, m.name)
    return out


def failed_before(precedents: Iterable[EpisodicMemory], runbooks: Iterable[str],
                  proven: Collection[str] = (), outcomes: Outcomes | None = None) -> dict[str, str]:
    """Runbook -> the precedent in which its most recent attempt failed.

    Similar precedents are "the same conditions". A runbook that failed and
    later worked under the same conditions is not held against it; one whose
    last attempt failed is never actionable here. An action counts for a
    runbook when its text names the runbook. A failure only one person vouches
    for (`one_voice`), or only claimed for a runbook the operator did not run
    there (a reported action, `record_outcome`), is not held against a runbook
    in `proven`, one the operator saw work under these conditions. `outcomes`:
    the answer's, when it asks more than once.
    """
    fared = outcomes or Outcomes()
    names = list(runbooks)
    last: dict[str, tuple[str, str]] = {}
    for memory in sorted(precedents, key=lambda m: m.resolved_at):
        heard = one_voice(memory) is not None
        # runbook_outcome is None for a runbook its actions never name and it
        # does not record; skipping those first keeps this cheap on a big catalog.
        said = " ".join(a.action for a in memory.resolution.actions)
        for rb in names:
            if (rb != memory.resolution.runbook and rb not in said) or (heard and rb in proven):
                continue
            result = fared.of(memory.resolution, rb, recorded=rb in proven)
            if result is not None:
                last[rb] = (result, memory.incident)
    return {rb: incident for rb, (result, incident) in last.items() if result == "failed"}


def open_contradictions(
    contradictions: Iterable[Contradiction], incidents: Iterable[str]
) -> list[Contradiction]:
    """Open contradictions that involve any of these incidents."""
    names = set(incidents)
    return [
        c
        for c in contradictions
        if c.spec.resolution.state == "open" and names.intersection(c.spec.memories)
    ]


def _says(text: str, phrase: str) -> bool:
    """Whether lower-case `text` holds `phrase` as whole words: a keyword "lb" is not in "rollback"."""
    phrase = phrase.lower()
    return phrase in text and _whole_words(phrase).search(text) is not None


@functools.lru_cache(maxsize=1024)
def _whole_words(phrase: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![a-z0-9]){re.escape(phrase)}(?![a-z0-9])")
