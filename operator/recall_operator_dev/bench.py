"""`recall bench`: how fast and how large the operator can go, measured side by side in one run.

Figures, never assertions: each is printed with its target beside it. The
histories are synthetic but shaped like real ones: every memory is a resolved
incident of a replay history (the demo's sample by default), re-worded (new
numbers, hosts and ids, sentences reordered, a symptom dropped) and often moved
to another service, so that recall cannot lean on exact repeats.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import FrameType
from typing import Any

from recall_operator.config import OperatorSettings
from recall_operator.domain.models import EpisodicMemory, Incident, IncidentSpec, Resolution
from recall_operator.domain.recommend import assess
from recall_operator.memory import open_backend
from recall_operator.memory.base import MemoryBackend, MemorySettings, RecallQuery, recall_query
from recall_operator.memory.hindsight import HindsightMemory
from recall_operator.replay import World, apply_object, read_events, run_replay

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "history.jsonl"

TARGETS = {
    "recall_p50_ms": "< 5 ms at 1k, 10k and 100k memories (embedded)",
    "recall_p99_ms": "< 20 ms at 1k, 10k and 100k memories (embedded); Hindsight with its index < 100 ms at 10k, "
                     "< 150 ms at 100k",
    "add_memory_ms": "< 2 ms at 100k memories (embedded)",
    "rss_mb": "< 400 MB at 100k memories (embedded)",
    "e2e_over_floor": "<= 1.5 (e2e_p50_ms over floor_p50_ms)",
    "e2e_p99_over_floor_p99": "<= 1.5 (e2e_p99_ms over floor_p99_ms)",
    "storm_seconds": "< 10 s for 1,000 alerts (200 distinct)",
}


@dataclass
class Base:
    """What synthetic memories are made from: a history's world and its resolved incidents."""

    world: World
    resolved: list[EpisodicMemory] = field(default_factory=list)


def load_base(path: Path) -> Base:
    world = World()
    specs: dict[str, IncidentSpec] = {}
    base = Base(world)
    for event in read_events(path):
        if event.type == "apply":
            apply_object(world, path, event)
        elif event.type == "incident":
            obj = event.raw["object"]
            specs[obj["metadata"]["name"]] = IncidentSpec.model_validate(obj["spec"])
        else:
            name = event.raw["incident"]
            base.resolved.append(
                EpisodicMemory(
                    incident=name,
                    spec=specs[name],
                    resolution=Resolution.model_validate(event.raw["resolution"]),
                    resolved_at=event.at,
                )
            )
            world.resolutions.append(base.resolved[-1].resolution)
    if not base.resolved:
        raise SystemExit(f"recall bench: {path} has no resolved incidents to build a history from")
    return base


_NUMBER = re.compile(r"\d+")
# Queries run and reported apart before the steady-state ones are timed.
WARM_UP = 5
# Synthetic history is made and written this many memories at a time.
FILL_BATCH = 1_000
SCALE_FIGURES = (
    "recall_p50_ms", "recall_p99_ms", "scoring_p50_ms", "recall_first_ms", "add_memory_ms", "rss_mb", "store_mb", "fill_s",
    "index_load_s", "shared_seen_ms", "machine_reference_ms",
)
# The machine's own speed moves every figure above more than most changes do:
# on the 2-core development machine, with nothing else running, the same
# pure-Python work took 40 ms at one moment and 72 ms half a minute before.
# So while the queries are timed, a fixed workload is timed too, once every
# this many queries (outside the timed span), and its median is printed
# beside them: figures from two runs compare only as far as their reference does.
REFERENCE_EVERY = 20
_REFERENCE_WORDS = ["".join(random.Random(i).choice("abcdefghij") for _ in range(3 + i % 7)) for i in range(2000)]
_REFERENCE_PATTERN = re.compile(r"a\w+e")


def reference_ms() -> float:
    """Milliseconds of a fixed pure-Python workload, the kind scoring does (counting words, sorting them,
    JSON, a regex): how fast the machine is now. Never change it: its figures are compared across sessions."""
    t0 = time.perf_counter()
    for _ in range(5):
        counts: dict[str, int] = {}
        for w in _REFERENCE_WORDS:
            counts[w] = counts.get(w, 0) + 1
        ordered = sorted(_REFERENCE_WORDS, key=lambda w: (len(w), w))
        json.loads(json.dumps(counts))
        sum(1 for w in ordered if _REFERENCE_PATTERN.search(w))
    return (time.perf_counter() - t0) * 1000


# Hindsight: outcomes confirmed through one operator and waited for in another, on one bank.
SHARED_PROBES = 5


def reword(text: str, rng: random.Random) -> str:
    """The same report in other words: other numbers, sentences in another order."""
    text = _NUMBER.sub(lambda m: str(rng.randint(1, 10 ** len(m.group()))), text)
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", text) if s]
    rng.shuffle(sentences)
    return " ".join(sentences)


def synthetic_memory(base: Base, i: int, rng: random.Random, start: datetime) -> EpisodicMemory:
    src = rng.choice(base.resolved)
    services = sorted(base.world.topology.depends_on) or [src.spec.service]
    symptoms = list(src.spec.symptoms)
    if len(symptoms) > 1 and rng.random() < 0.5:
        symptoms.pop(rng.randrange(len(symptoms)))
    spec = src.spec.model_copy(
        update={
            "service": src.spec.service if rng.random() < 0.5 else rng.choice(services),
            "title": reword(src.spec.title, rng),
            "description": reword(src.spec.description, rng) + f" host-{rng.randrange(10_000)} req-{i}",
            "symptoms": tuple(symptoms),
            "error_signatures": tuple(reword(s, rng) for s in src.spec.error_signatures),
            "labels": {**src.spec.labels, "fingerprint": f"{rng.getrandbits(64):016x}"},
        }
    )
    return EpisodicMemory(
        incident=f"syn-{i:06d}", spec=spec, resolution=src.resolution, resolved_at=start + timedelta(minutes=i)
    )


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def rss_mb() -> float:
    """The process's resident memory now (Linux), in MB."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)


# The profile (`--profile`) samples every thread's innermost frame this often,
# while recall and scoring run; only samples taken inside them count.
PROFILE_INTERVAL_S = 0.0005
PROFILE_TOP = 5
# Frames that mark a stack as working on recall or scoring (the loop's own
# waiting, and idle worker threads, are not).
_PROFILED = frozenset({"assess", "_recall"})
# A frame is named by its file below the package or library folder, never by where Python is installed.
_SOURCE_ROOT = re.compile(r"^.*?(?:/site-packages/|/recall_operator/|/lib/python3\.\d+/)")


def _frame_name(frame: Any) -> str:
    code = frame.f_code
    return f"{code.co_qualname} ({_SOURCE_ROOT.sub('', code.co_filename)}:{frame.f_lineno or code.co_firstlineno})"


class StackSampler:
    """A small sampling profiler: which frames recall + scoring spend their time in.

    A thread reads every other thread's stack (`sys._current_frames`) each
    interval and counts its innermost frame (self time) with the frame that
    called it (which statement a helper ran), as py-spy would,
    without another process or package: it sees the worker thread recall runs
    on, which cProfile (per thread) does not. Frames inside C code that holds
    the interpreter (pydantic's parser) are counted to the Python frame that
    called it.
    """

    def __init__(self, interval: float = PROFILE_INTERVAL_S) -> None:
        self.interval = interval
        self.counts: Counter[str] = Counter()
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="recall-bench-profile", daemon=True)

    def __enter__(self) -> StackSampler:
        self._switch = sys.getswitchinterval()
        sys.setswitchinterval(self.interval / 2)  # let the sampler in between bytecodes this often
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        sys.setswitchinterval(self._switch)

    def _run(self) -> None:
        me = threading.get_ident()
        while not self._stop.wait(self.interval):
            for ident, frame in sys._current_frames().items():
                if ident == me:
                    continue
                leaf = frame
                f: FrameType | None = frame
                while f is not None and f.f_code.co_name not in _PROFILED:
                    f = f.f_back
                if f is None:
                    continue
                caller = leaf.f_back
                where = f" <- {_frame_name(caller)}" if caller is not None and leaf is not f else ""
                self.counts[_frame_name(leaf) + where] += 1
                self.samples += 1

    def top(self, n: int = PROFILE_TOP) -> list[dict[str, Any]]:
        return [
            {"frame": frame, "share": round(count / self.samples, 3), "samples": count}
            for frame, count in self.counts.most_common(n)
        ]


async def fill(
    memory: MemoryBackend, base: Base, rng: random.Random, start: datetime, filled: int, count: int
) -> float:
    """Grow a store from `filled` to `count` synthetic memories in bulk; the seconds the writes took."""
    seconds = 0.0
    while filled < count:
        chunk = [synthetic_memory(base, i, rng, start) for i in range(filled, min(count, filled + FILL_BATCH))]
        t0 = time.perf_counter()
        await memory.remember_many(chunk)
        seconds += time.perf_counter() - t0
        filled += len(chunk)
    return seconds


async def measure_scale(
    backend: str, counts: list[int], base: Base, settings: MemorySettings, queries: int = 200, seed: int = 7,
    profile: dict[str, list[dict[str, Any]]] | None = None,
) -> dict[str, dict[str, float]]:
    """Fill one store up to each count in turn; at each, time recall+scoring and one more write.

    The history is written in bulk (`remember_many`, the same documents as
    `remember`); what is timed is the operator's own path: one `remember` per
    added memory, and `recall` plus scoring per query. With `profile`, the
    same number of further queries run under `StackSampler` (after the timed
    ones, so the timings carry no sampling cost) and its top frames are kept per count.
    """
    rng = random.Random(seed)
    start = datetime(2020, 1, 1, tzinfo=timezone.utc)
    memory = open_backend(settings)
    out: dict[str, dict[str, float]] = {k: {} for k in SCALE_FIGURES}
    filled = 0
    filling = 0.0
    try:
        for count in counts:
            filling += await fill(memory, base, rng, start, filled, count)
            filled = count
            latencies: list[float] = []
            # The scoring's own share of each timed query (`assess` alone): what
            # is left of recall + scoring when the store answers at once.
            scoring: list[float] = []
            # The first queries after a store grows read its index from disk; the
            # operator is long-running, so those are reported apart from the steady state.
            cold: list[float] = []
            reference: list[float] = []
            for q in range(queries + WARM_UP):
                probe = synthetic_memory(base, 10_000_000 + q, rng, start)
                incident = Incident(name=f"probe-{q}", spec=probe.spec)
                ctx = base.world.context(start + timedelta(days=3650))
                t0 = time.perf_counter()
                candidates = await memory.recall(recall_query(incident, base.world.topology))
                t1 = time.perf_counter()
                assess(incident, candidates, ctx)
                t2 = time.perf_counter()
                (cold if q < WARM_UP else latencies).append((t2 - t0) * 1000)
                if q >= WARM_UP:
                    scoring.append((t2 - t1) * 1000)
                    if (q - WARM_UP) % REFERENCE_EVERY == 0:
                        reference.append(reference_ms())
            if profile is not None:
                with StackSampler() as sampler:
                    await timed_recalls(memory, base, rng, start, queries)
                profile[str(count)] = sampler.top()
                print(f"  {backend:<9} {count:>7} memories: profile of recall+scoring ({sampler.samples} samples)",
                      file=sys.stderr)
                for entry in profile[str(count)]:
                    print(f"      {100 * entry['share']:5.1f}%  {entry['frame']}", file=sys.stderr)
            adds = await timed_adds(memory, base, rng, start, count, 50)
            key = str(count)
            out["recall_p50_ms"][key] = round(percentile(latencies, 50), 2)
            out["recall_p99_ms"][key] = round(percentile(latencies, 99), 2)
            out["scoring_p50_ms"][key] = round(percentile(scoring, 50), 2)
            out["machine_reference_ms"][key] = round(statistics.median(reference), 2)
            out["recall_first_ms"][key] = round(cold[0], 2)
            out["add_memory_ms"][key] = round(statistics.median(adds), 3)
            out["rss_mb"][key] = rss_mb()
            out["fill_s"][key] = round(filling, 1)
            if backend == "embedded":
                out["store_mb"][key] = round(Path(settings.path).stat().st_size / 2**20, 1)
            print(
                f"  {backend:<9} {count:>7} memories: recall+scoring p50 {out['recall_p50_ms'][key]} ms, "
                f"p99 {out['recall_p99_ms'][key]} ms (scoring alone p50 {out['scoring_p50_ms'][key]} ms; "
                f"reference workload {out['machine_reference_ms'][key]} ms); "
                f"add {out['add_memory_ms'][key]} ms; "
                f"rss {out['rss_mb'][key]} MB; history written in {out['fill_s'][key]} s",
                file=sys.stderr,
            )
    finally:
        await memory.close()
    return out


def probe_incident(base: Base, q: int, rng: random.Random, start: datetime) -> Incident:
    probe = synthetic_memory(base, 10_000_000 + q, rng, start)
    return Incident(name=f"probe-{q}", spec=probe.spec)


async def timed_adds(
    memory: MemoryBackend, base: Base, rng: random.Random, start: datetime, count: int, n: int
) -> list[float]:
    """Milliseconds of each of `n` single `remember` calls on a store holding `count` memories."""
    adds = []
    for a in range(n):
        m = synthetic_memory(base, 20_000_000 + count + a, rng, start)
        t0 = time.perf_counter()
        await memory.remember(m)
        adds.append((time.perf_counter() - t0) * 1000)
    return adds


async def timed_recalls(memory: MemoryBackend, base: Base, rng: random.Random, start: datetime, n: int) -> list[float]:
    """Recall plus scoring for n probe incidents, in ms."""
    ctx = base.world.context(start + timedelta(days=3650))
    out = []
    for q in range(n):
        incident = probe_incident(base, q, rng, start)
        t0 = time.perf_counter()
        candidates = await memory.recall(recall_query(incident, base.world.topology))
        assess(incident, candidates, ctx)
        out.append((time.perf_counter() - t0) * 1000)
    return out


async def measure_hindsight(
    url: str, counts: list[int], base: Base, queries: int, seed: int = 7
) -> dict[str, dict[str, dict[str, float]]]:
    """Hindsight at each count: recall from the local index and from the server alone, side by side.

    The bank is filled in bulk by a writer without an index. At each count a
    new backend lists the bank into its index (`index_load_s`, an operator's
    start-up), then recall plus scoring is timed on it (`hindsight`) and on a
    backend that asks the server in two round trips (`hindsight-direct`).
    `shared_seen_ms`: an outcome confirmed through one indexed backend, waited
    for by recall in another on the same bank (the default poll interval).
    """
    rng = random.Random(seed)
    start = datetime(2020, 1, 1, tzinfo=timezone.utc)
    settings = replace(OperatorSettings.from_env(os.environ).memory(), backend="hindsight", hindsight_url=url,
                       hindsight_bank=f"bench-{int(time.time())}")
    poll = settings.hindsight_poll_s
    indexed_out: dict[str, dict[str, float]] = {k: {} for k in SCALE_FIGURES}
    direct_out: dict[str, dict[str, float]] = {k: {} for k in SCALE_FIGURES}
    writer = HindsightMemory(url, bank=settings.hindsight_bank, index=False)
    filled, filling = 0, 0.0
    try:
        for count in counts:
            filling += await fill(writer, base, rng, start, filled, count)
            filled = count
            key = str(count)
            indexed = HindsightMemory(url, bank=settings.hindsight_bank, poll_interval=poll)
            other = HindsightMemory(url, bank=settings.hindsight_bank, poll_interval=poll)
            try:
                t0 = time.perf_counter()
                await indexed.refresh()  # what the first recall after start-up waits for
                indexed_out["index_load_s"][key] = round(time.perf_counter() - t0, 2)
                await other.refresh()
                for out, memory, n in ((indexed_out, indexed, queries), (direct_out, writer, min(queries, 30))):
                    latencies = await timed_recalls(memory, base, rng, start, n + WARM_UP)
                    out["recall_first_ms"][key] = round(latencies[0], 2)
                    out["recall_p50_ms"][key] = round(percentile(latencies[WARM_UP:], 50), 2)
                    out["recall_p99_ms"][key] = round(percentile(latencies[WARM_UP:], 99), 2)
                    out["fill_s"][key] = round(filling, 1)
                adds = await timed_adds(indexed, base, rng, start, count, 10)
                indexed_out["add_memory_ms"][key] = round(statistics.median(adds), 1)
                filled += 10
                seen = []
                for a in range(SHARED_PROBES):
                    m = synthetic_memory(base, 30_000_000 + count + a, rng, start)
                    seen.append(await shared_seen_ms(indexed, other, m, deadline=poll * 5 + 30))
                    filled += 1
                indexed_out["shared_seen_ms"][key] = round(statistics.median(seen))
                indexed_out["rss_mb"][key] = rss_mb()
            finally:
                await indexed.close()
                await other.close()
            for name, out in (("hindsight", indexed_out), ("hindsight-direct", direct_out)):
                print(
                    f"  {name:<16} {count:>7} memories: recall+scoring p50 {out['recall_p50_ms'][key]} ms, "
                    f"p99 {out['recall_p99_ms'][key]} ms"
                    + (f"; index listed in {out['index_load_s'][key]} s; add {out['add_memory_ms'][key]} ms; "
                       f"seen by another operator after {out['shared_seen_ms'][key]} ms (median of {SHARED_PROBES}, "
                       f"poll every {poll:g} s)" if out is indexed_out else f"; history written in {filling:.1f} s"),
                    file=sys.stderr,
                )
    finally:
        await writer.close()
    return {"hindsight": indexed_out, "hindsight-direct": direct_out}


async def shared_seen_ms(one: MemoryBackend, other: MemoryBackend, memory: EpisodicMemory, deadline: float) -> float:
    """ms from `one.remember(memory)` returning to `other` recalling it by its own words."""
    spec = memory.spec
    asking = RecallQuery(incident="probe-shared", service=spec.service, text=f"{spec.title} {spec.description}", limit=5)
    await one.remember(memory)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < deadline:
        if any(m.incident == memory.incident for m in await other.recall(asking)):
            return (time.perf_counter() - t0) * 1000
        await asyncio.sleep(0.05)
    raise RuntimeError(f"recall bench: {memory.incident} was not recalled by the other operator within {deadline:.0f} s")


async def measure_replay(dataset: Path, backend: str, hindsight_url: str | None) -> float:
    t0 = time.perf_counter()
    result = await run_replay(dataset, ["on"], backend, hindsight_url=hindsight_url)
    return round(result["incidents"] / (time.perf_counter() - t0), 1)


def not_measured(skipped: list[int], largest: int, fill_s: dict[str, float]) -> dict[str, str]:
    """Why each size above --hindsight-max was left out, in the fill rate this run measured.

    A Hindsight server embeds and links every memory it stores; at the rate
    measured up to `largest`, the larger banks would take the time said here.
    """
    ms = fill_s[str(largest)] * 1000 / largest
    out = {}
    for count in skipped:
        minutes = (count - largest) * ms / 60_000
        out[str(count)] = (f"not measured: {largest} memories were written at {ms:.0f} ms each in bulk, so the "
                           f"{count - largest} more would take about {minutes:.0f} min (raise --hindsight-max to wait)")
        print(f"  hindsight        {count:>7} memories: {out[str(count)]}", file=sys.stderr)
    return out


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="measure recall at scale, reconcile latency and an alert storm")
    p.add_argument("--quick", action="store_true", help="stop at 10k memories and smaller samples (a few minutes)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--dataset", type=Path, default=SAMPLE, help="history the synthetic memories are made from")
    p.add_argument("--hindsight-url", default=None,
                   help="also measure a running Hindsight server (start one with `recall hindsight up`)")
    p.add_argument("--hindsight-max", type=int, default=10_000,
                   help="the largest history written into Hindsight (default 10000: writing 100k takes hours)")
    p.add_argument("--skip-cluster", action="store_true", help="skip the parts that need the local control plane")
    p.add_argument("--cluster-only", action="store_true", help="only the parts that need the local control plane")
    p.add_argument("--profile", action="store_true",
                   help="also print the top five frames of embedded recall + scoring at each size (sampled)")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    if not args.dataset.is_file():
        print(f"recall bench: no such dataset file: {args.dataset}", file=sys.stderr)
        return 2
    if args.cluster_only:
        from recall_operator_dev import bench_cluster

        print(json.dumps(asyncio.run(bench_cluster.measure(quick=args.quick))))
        return 0
    result = asyncio.run(run_bench(args))
    if args.json:
        print(json.dumps(result))
    else:
        print(report(result))
    return 0


async def run_bench(args: argparse.Namespace) -> dict[str, Any]:
    base = load_base(args.dataset)
    counts = [1_000, 10_000] if args.quick else [1_000, 10_000, 100_000]
    result: dict[str, Any] = {"quick": args.quick, "targets": TARGETS}
    scale: dict[str, dict[str, dict[str, float]]] = {}
    profile: dict[str, list[dict[str, Any]]] | None = {} if getattr(args, "profile", False) else None
    with tempfile.TemporaryDirectory(prefix="recall-bench-") as tmp:
        scale["embedded"] = await measure_scale(
            "embedded", counts, base, MemorySettings(path=str(Path(tmp) / "bench.sqlite3")), profile=profile
        )
    if profile is not None:
        result["profile"] = {"embedded": profile}
    if args.hindsight_url:
        hs_counts = [c for c in counts if c <= args.hindsight_max]
        scale.update(await measure_hindsight(args.hindsight_url, hs_counts, base, queries=50 if args.quick else 200))
        skipped = [c for c in counts if c > args.hindsight_max]
        if hs_counts and skipped:
            result["hindsight_not_measured"] = not_measured(skipped, hs_counts[-1], scale["hindsight"]["fill_s"])
    for key in SCALE_FIGURES:
        result[key] = {b: figures[key] for b, figures in scale.items() if figures[key]}
    result["replay_incidents_per_s"] = {"embedded": await measure_replay(args.dataset, "embedded", None)}
    from recall_operator_dev.panel_bench import panel_render_ms  # the memory panel's incident page, five matches

    result["panel_render_ms"] = await panel_render_ms(args.dataset)
    if args.hindsight_url:
        result["replay_incidents_per_s"]["hindsight"] = await measure_replay(args.dataset, "hindsight", args.hindsight_url)
    if not args.skip_cluster:
        from recall_operator_dev import bench_cluster

        result.update(await bench_cluster.measure(quick=args.quick))
    return result


def report(result: dict[str, Any]) -> str:
    lines = ["recall bench" + (" --quick" if result["quick"] else ""), ""]
    for key in SCALE_FIGURES:
        for backend, figures in result.get(key, {}).items():
            row = ", ".join(f"{n}: {v}" for n, v in figures.items())
            target = TARGETS.get(key, "")
            lines.append(f"{key:<24} {backend:<10} {row}" + (f"   (target {target})" if target else ""))
    for backend, sizes in result.get("profile", {}).items():
        for count, frames in sizes.items():
            lines.append(f"{'profile':<24} {backend:<10} {count}: recall + scoring, top {len(frames)} frames (self)")
            lines += [f"{'':<36}{100 * f['share']:5.1f}%  {f['frame']}" for f in frames]
    for count, why in result.get("hindsight_not_measured", {}).items():
        lines.append(f"{'hindsight':<24} {count}: {why}")
    lines.append(f"{'replay_incidents_per_s':<24} " + ", ".join(f"{b}: {v}" for b, v in result["replay_incidents_per_s"].items()))
    if result.get("panel_render_ms"):
        panel = result["panel_render_ms"]
        lines.append(f"{'panel_render_ms':<24} p50 {panel['p50']}, p99 {panel['p99']} "
                     f"({panel['incident']}: {panel['matches']} matches, {panel['page_kb']} KB page, objects in memory)")
    for key in ("e2e_p50_ms", "e2e_p99_ms", "floor_p50_ms", "floor_p99_ms", "e2e_over_floor", "e2e_p99_over_floor_p99",
                "floor_answer_p50_ms", "floor_answer_p99_ms", "floor_answer_bytes", "e2e_over_floor_answer",
                "e2e_p99_over_floor_answer_p99", "kopf_floor_p50_ms", "kopf_floor_p99_ms", "kopf_floor_over_floor",
                "kopf_answer_p50_ms", "kopf_answer_p99_ms", "kopf_answer_over_floor", "e2e_over_kopf_answer", "e2e_memory_count", "e2e_memory_p50_ms", "e2e_memory_p99_ms",
                "e2e_memory_over_floor", "e2e_memory_p99_over_floor_p99",
                "storm_seconds", "storm_sent_seconds", "storm_floor_seconds", "storm_over_floor", "storm_incidents"):
        if key in result:
            target = TARGETS.get(key, "")
            lines.append(f"{key:<24} {result[key]}" + (f"   (target {target})" if target else ""))
    return "\n".join(lines)
