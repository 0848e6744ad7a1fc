#!/usr/bin/env python3
"""How fast the embedded memory is at 1k, 10k and 100k memories: figures only, no verdict.

Synthetic memories are the dev history's incidents, multiplied: each copy gets
its own name, a service drawn from a larger estate, fresh hosts, ids and
numbers in its words (as real recurrences have), and a later resolution time.
Queries are the history's own incidents asked the way the operator asks
(title, description, error signatures, symptoms, neighbours; limit 50).

    python scripts/bench_memory.py [--sizes 1000,10000,100000] [--history PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from recall_operator.domain.models import EpisodicMemory, IncidentSpec, Resolution
from recall_operator.memory.base import RecallQuery
from recall_operator.memory.embedded import EmbeddedMemory

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_HISTORY = ROOT.parent / "shared" / "datasets" / "dev" / "history.jsonl"
SERVICES = [f"svc-{n:03d}" for n in range(300)]


def load_templates(path: Path) -> list[EpisodicMemory]:
    import json

    specs: dict[str, IncidentSpec] = {}
    memories = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        event = json.loads(line)
        if event["type"] == "incident":
            specs[event["object"]["metadata"]["name"]] = IncidentSpec.model_validate(event["object"]["spec"])
        elif event["type"] == "outcome":
            name = event["incident"]
            at = datetime.fromisoformat(event["at"].replace("Z", "+00:00"))
            memories.append(
                EpisodicMemory(
                    incident=name, spec=specs[name], resolution=Resolution.model_validate(event["resolution"]), resolved_at=at
                )
            )
    return memories


def _noise(rng: random.Random) -> str:
    return " ".join(
        [
            f"host-{rng.randrange(10_000):04d}.shop.internal",
            f"req-{rng.getrandbits(40):010x}",
            f"{rng.randrange(1, 60_000)}ms",
            rng.choice(["eu-west-1a", "eu-west-1b", "eu-west-1c", "us-east-1a"]),
        ]
    )


def synthetic(templates: list[EpisodicMemory], n: int, start: int, rng: random.Random) -> list[EpisodicMemory]:
    base = datetime(2020, 1, 1, tzinfo=timezone.utc)
    out = []
    for i in range(start, start + n):
        t = templates[i % len(templates)]
        service = rng.choice([t.spec.service, *rng.sample(SERVICES, 3)])
        spec = t.spec.model_copy(
            update={
                "service": service,
                "description": f"{t.spec.description} {_noise(rng)}",
                "error_signatures": tuple(f"{sig} {_noise(rng)}" for sig in t.spec.error_signatures),
            }
        )
        out.append(
            t.model_copy(update={"incident": f"syn-{i:06d}", "spec": spec, "resolved_at": base + timedelta(minutes=37 * i)})
        )
    return out


def queries(templates: list[EpisodicMemory], rng: random.Random, count: int) -> list[RecallQuery]:
    out = []
    for i in range(count):
        spec = templates[i % len(templates)].spec
        out.append(
            RecallQuery(
                incident=f"ask-{i}",
                service=spec.service,
                text=" ".join([spec.title, spec.description, *spec.error_signatures]),
                symptoms=spec.symptoms,
                neighbours=tuple(rng.sample(SERVICES, rng.randrange(2, 7))),
            )
        )
    return out


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def _pair(wall: list[float], cpu: list[float], p: float) -> str:
    return f"{pct(wall, p) * 1e3:>9.2f} ({pct(cpu, p) * 1e3:>6.2f})"


async def bench(sizes: list[int], history: Path, folder: Path) -> None:
    rng = random.Random(7)
    templates = load_templates(history)
    memory = EmbeddedMemory(folder / "bench.sqlite3")
    asked = queries(templates, rng, 300)
    # A store kept from an earlier run (--dir) is grown, not rebuilt.
    held = await memory.count()
    sizes = sorted({max(size, held) for size in sizes})
    # Wall time, and in brackets the CPU time of this thread: on a busy machine
    # the second is the work itself, the first adds the wait for a core.
    print(
        f"{'memories':>9} {'fill/s':>7} {'remember p50':>20} {'p99':>18}"
        f" {'recall p50':>20} {'p99':>18} {'file MB':>8}   (ms; in brackets: CPU ms)"
    )
    for size in sizes:
        began = time.perf_counter()
        # At least the 500 timed writes, when the kept store is already this big.
        fill = synthetic(templates, max(size - held, 500), held, random.Random(held))
        for m in fill[:-500]:
            await memory.remember(m)
        # The last 500 writes are the ones timed, on a store already near this size.
        writes, write_cpu = [], []
        for m in fill[-500:]:
            t, c = time.perf_counter(), time.thread_time()
            await memory.remember(m)
            writes.append(time.perf_counter() - t)
            write_cpu.append(time.thread_time() - c)
        rate = len(fill) / (time.perf_counter() - began)
        held += len(fill)
        for q in asked[:20]:  # warm the page cache, as a running operator's is
            await memory.recall(q)
        reads, read_cpu = [], []
        for q in asked:
            t, c = time.perf_counter(), time.thread_time()
            await memory.recall(q)
            reads.append(time.perf_counter() - t)
            read_cpu.append(time.thread_time() - c)
        size_mb = sum(p.stat().st_size for p in folder.iterdir()) / 1e6
        print(
            f"{held:>9} {rate:>7.0f} {_pair(writes, write_cpu, 50)} {_pair(writes, write_cpu, 99)}"
            f" {_pair(reads, read_cpu, 50)} {_pair(reads, read_cpu, 99)} {size_mb:>8.1f}",
            flush=True,
        )
    await memory.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--history", type=Path, default=DEFAULT_HISTORY)
    parser.add_argument("--dir", type=Path, help="keep the store here and grow it on the next run (default: a temporary folder)")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    if args.dir:
        args.dir.mkdir(parents=True, exist_ok=True)
        asyncio.run(bench(sizes, args.history, args.dir))
    else:
        with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
            asyncio.run(bench(sizes, args.history, Path(tmp)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
