"""`memrun capacity`: the largest N whose run is valid under a memory cgroup capped at a budget.

Peak memory at a fixed N is what the 2023 article measured; sizing a service asks the inverse.
It is not a division: GC runtimes size their heaps from the cgroup limit, OS threads cost kernel
memory that RSS never shows but the cgroup charges, and some runtimes fail cleanly at a limit while
others are OOM-killed. So it is searched for, with real runs under the real cap: a prediction from
stored sweeps (or two calibration runs), a bracket around it, then bisection to within 2 % of N.

Every probe is a run record (kind "capacity-probe", memory_cap = the budget) in the same store as
sweeps; each (variant, budget) result is a line of capacity.jsonl. A search is deterministic given
its probes' outcomes, so --resume replays the stored probes and runs only what is missing.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

from runner import tasks
from runner.execute import context, execute
from runner.inputs import MAX_N
from runner.limits import read_limits
from runner.limits.host import THREAD_FLOOR_BYTES
from runner.limits.predict import thread_capacities
from runner.limits.raising import raised_limits
from runner.results import ResultsDir, RunRecord, cost
from runner.signals import sigterm_raises

TOLERANCE = 0.02  # the search ends when the first failing N is within 2 % above the last valid one
FIRST_STEP = 1.02  # the first bracketing step (the tolerance: a good prediction costs two probes)
GEOMETRIC_ABOVE = 1.25  # a bracket wider than this ratio is halved in log space, narrower ones in N
CALIBRATION_N = (1, 10_000)  # when no stored run predicts: two probes give a baseline and a slope
MIN_SLEEP = 2.0  # a probe's sleep: at least this, and SPAWN_MARGIN times the spawn time expected
MAX_SLEEP = 120.0
SPAWN_MARGIN = 1.5  # near a cap, spawning slows down (reclaim, GC); a late probe is re-run anyway
THREAD_LIMIT_MARGIN = 0.98  # start thread variants just below the kernel limit they would hit


@dataclass
class CapacityResult:
    """One (variant, budget): the largest valid N, the first failing N and why it failed."""

    variant: str
    budget_bytes: int
    max_n: int  # 0: not even one task fits
    first_failing_n: int | None  # None: nothing failed up to the search's ceiling
    stopped_by: str | None  # the first failing probe's verdict code
    stopped_reason: str | None
    probes: int
    predicted_n: int | None
    prediction: str  # how the search started
    capacity_id: str = ""
    finished_at: str = ""
    probe_ids: list[str] = field(default_factory=list)
    # The sleep of the valid probe at max_n: how long the N tasks were asked to stay alive. A
    # capacity holds for tasks that live that long; some runtimes grow as timers fire.
    sleep_s: float | None = None

    @property
    def tasks_per_mib(self) -> float:
        return self.max_n / (self.budget_bytes / (1 << 20))

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def search(probe: Callable[[int], bool], start: int, ceiling: int = MAX_N) -> tuple[int, int | None]:
    """(largest valid N, smallest failing N) around a monotone boundary, starting at a guess.

    Steps away from the guess by 2 %, then 4 %, 8 %, 17 %, 37 %, ... (each step the square of the
    last) until the boundary is bracketed, then halves the bracket (in log space while it is wide)
    until the failing N is within TOLERANCE of the valid one. A prediction within 2 % costs two
    probes; one off by 4x (a heap sized from the cap) about a dozen.
    """
    lo, hi = 0, None  # lo: largest valid so far (0 = none); hi: smallest failing so far
    n, step = max(1, min(start, ceiling)), FIRST_STEP
    while True:
        if probe(n):
            lo = max(lo, n)
        else:
            hi = n if hi is None else min(hi, n)
        if hi is not None and (hi - lo <= max(1, TOLERANCE * hi) or hi == 1):
            return lo, hi
        if hi is None:
            if lo >= ceiling:
                return lo, None
            n, step = min(ceiling, max(lo + 1, math.ceil(lo * step))), step * step
        elif lo == 0:
            n, step = max(1, min(hi - 1, math.floor(hi / step))), step * step
        else:
            n = _middle(lo, hi)


def _middle(lo: int, hi: int) -> int:
    """The next N inside (lo, hi): the geometric mean of a wide bracket, else the midpoint."""
    if hi / lo > GEOMETRIC_ABOVE:
        return min(hi - 1, max(lo + 1, round(math.sqrt(lo * hi))))
    return (lo + hi) // 2


@dataclass
class CapacityOptions:
    variants: list[tasks.Variant]
    budgets: list[int]
    out: ResultsDir
    history: list[RunRecord] = field(default_factory=list)  # stored sweeps that predict
    resume: bool = False
    interval: float = 0.05
    raise_limits: bool = False


@dataclass
class CapacityProgress:
    """Callbacks the CLI uses; the search itself prints nothing."""

    on_probe: Callable[[str, int, RunRecord, bool], None] = lambda variant, budget, record, ok: None
    on_result: Callable[[CapacityResult, int, int], None] = lambda result, i, total: None
    log: Callable[[str], None] = lambda line: None


def _spawn_times(records: list[RunRecord], variant: str) -> list[tuple[int, float]]:
    """(N, seconds to `ready N`) of every run of the variant that said it, valid or late: a late
    ready is still a spawn time, and a capped probe's is the one that matters near the cap.
    The slowest run at each N, made non-decreasing in N."""
    slowest: dict[int, float] = {}
    for r in records:
        ready = r.result.ready_s if r.result else None
        if r.variant == variant and ready is not None and r.result and r.result.ready_n == r.n:
            slowest[r.n] = max(slowest.get(r.n, 0.0), ready)
    out: list[tuple[int, float]] = []
    for n, t in sorted(slowest.items()):
        out.append((n, max(t, out[-1][1]) if out else t))
    return out


def spawn_estimate(points: list[tuple[int, float]], n: int) -> float | None:
    """Seconds to spawn N tasks, interpolated between the nearest measured N (beyond the last one
    along the last segment's slope; a single point gives only itself)."""
    if not points:
        return None
    if n <= points[0][0]:
        return points[0][1]
    for (n0, t0), (n1, t1) in itertools.pairwise(points):
        if n <= n1:
            return t0 + (t1 - t0) * (n - n0) / (n1 - n0)
    if len(points) == 1:  # no rate known: a late probe is re-run with the spawn time it showed
        return points[0][1]
    (n0, t0), (n1, t1) = points[-2], points[-1]
    return t1 + (t1 - t0) * (n - n1) / (n1 - n0)


def _sleep_for(records: list[RunRecord], variant: str, n: int) -> float:
    """SPAWN_MARGIN times the spawn time expected at N, at least MIN_SLEEP, rounded up to 0.5 s."""
    spawn = spawn_estimate(_spawn_times(records, variant), n)
    return _rounded_sleep(SPAWN_MARGIN * spawn if spawn is not None else 2 * MIN_SLEEP)


def _rounded_sleep(seconds: float) -> float:
    return min(MAX_SLEEP, max(MIN_SLEEP, math.ceil(2 * seconds) / 2))


def probe_timeout(sleep: float) -> float:
    """A valid probe takes its spawn (< sleep), the sleep, then as long again to wake and end."""
    return 2.5 * sleep + 5


RETRY = "capacity-retry"  # sleep_requested of a probe re-run with a longer sleep


def _too_short(record: RunRecord) -> bool:
    """A first probe whose tasks were not all alive within its (predicted) sleep."""
    return (
        record.code == "spawn-outlasted-sleep"
        and not (record.sleep_requested or "").startswith(RETRY)
        and record.sleep_s is not None
        and record.sleep_s < MAX_SLEEP
    )


def _probe_valid(record: RunRecord) -> bool:
    """Valid under the budget: `ready N` in time and exit 0, and nothing in the tree OOM-killed."""
    oom = record.result.cgroup_oom_kills if record.result else None
    return record.verdict == "valid" and not oom


def _stored_probes(out: ResultsDir) -> dict[tuple[str, int, int], RunRecord]:
    """(variant, budget, N) -> the last stored probe: what --resume replays instead of running."""
    found = {}
    for row in out.existing_rows():
        r = RunRecord.from_json(row)
        if r.kind == "capacity-probe" and r.memory_cap is not None:
            found[(r.variant, r.memory_cap, r.n)] = r
    return found


def _finished(out: ResultsDir) -> set[tuple[str, int]]:
    return {(r["variant"], int(r["budget_bytes"])) for r in out.existing_capacity()}


@dataclass
class _Prober:
    """Runs probes of one (variant, budget) under the cap, stores each the moment it ends, and
    re-runs once with a longer sleep a probe whose predicted sleep was too short."""

    variant: tasks.Variant
    budget: int
    opts: CapacityOptions
    identity: dict[str, Any]
    progress: CapacityProgress
    stored: dict[tuple[str, int, int], RunRecord] = field(default_factory=dict)  # --resume
    kind: str = "capacity-probe"
    probes: list[RunRecord] = field(default_factory=list)

    def run(self, n: int, sleep: float, how: str) -> RunRecord:
        ex = execute(
            self.variant,
            n,
            sleep,
            timeout=probe_timeout(sleep),
            ready_by=sleep,
            memory_cap=self.budget,
            interval=self.opts.interval,
        )
        record = ex.record(kind=self.kind, sleep_requested=f"{how}:{sleep:g}", **self.identity)
        self.opts.out.add_run(record, ex.timeline())
        self.probes.append(record)
        return record

    def __call__(self, n: int, sleep: float | None = None) -> RunRecord:
        record = self.stored.get((self.variant.name, self.budget, n))
        if record is not None:
            self.probes.append(record)
        else:
            if sleep is None:
                sleep = _sleep_for(self.opts.history + self.probes, self.variant.name, n)
            record = self.run(n, sleep, "capacity")
        if _too_short(record):
            # The sleep was predicted, and spawning near a cap is slower than the sweep saw:
            # a late probe says nothing about memory, so it is run once more with a longer sleep.
            ready = record.result.ready_s if record.result else None
            longer = _rounded_sleep(max(2 * (record.sleep_s or 0.0), SPAWN_MARGIN * (ready or 0.0)))
            record = self.run(n, longer, RETRY)
        self.progress.on_probe(self.variant.name, self.budget, record, _probe_valid(record))
        return record

    def valid(self, n: int) -> bool:
        return _probe_valid(self(n))


def _start(variant: tasks.Variant, budget: int, prober: _Prober) -> tuple[int, str]:
    """Where the search starts, and how that was predicted."""
    fit = cost.line(prober.opts.history, variant.name)
    if fit is None:  # calibrate: a baseline and a slope from two small runs under the same cap
        for n in CALIBRATION_N:
            prober(n)
        fit = cost.line(_as_sweep(prober.probes), variant.name)
    if fit is not None:
        start, how = fit.solve(budget), f"from {fit.how}"
    else:
        start, how = CALIBRATION_N[0], "no valid run to predict from: searched up from N=1"
    if threads := variant.per_task.get("threads"):
        # An OS thread costs at least its kernel memory, and no more threads start than the
        # kernel limits allow (as raised, with --raise-limits): start just below the lowest.
        start = min(start, max(1, budget // THREAD_FLOOR_BYTES))
        allowed = thread_capacities(variant.per_task, read_limits())
        if allowed:
            lowest = min(capacity for capacity, _ in allowed.values())
            start = min(start, max(1, int(THREAD_LIMIT_MARGIN * lowest / threads)))
    return start, how


def _one(
    variant: tasks.Variant,
    budget: int,
    opts: CapacityOptions,
    stored: dict[tuple[str, int, int], RunRecord],
    identity: dict[str, Any],
    progress: CapacityProgress,
) -> CapacityResult:
    """Search one (variant, budget); each probe is stored the moment it ends."""
    prober = _Prober(variant, budget, opts, identity, progress, stored if opts.resume else {})
    start, how = _start(variant, budget, prober)
    lo, hi = search(prober.valid, start)
    probes = prober.probes
    failing = next((r for r in reversed(probes) if r.n == hi and not _probe_valid(r)), None)
    passing = next((r for r in reversed(probes) if r.n == lo and _probe_valid(r)), None)
    stopped_by = stopped_reason = None
    if failing is not None and failing.verdict == "valid":  # valid but for an OOM kill in its tree
        stopped_by, stopped_reason = "out-of-memory", "a process of the run was OOM-killed at the cap"
    elif failing is not None:
        stopped_by, stopped_reason = failing.code, failing.reason
    return CapacityResult(
        variant=variant.name,
        budget_bytes=budget,
        max_n=lo,
        first_failing_n=hi,
        stopped_by=stopped_by,
        stopped_reason=stopped_reason,
        probes=len(probes),
        predicted_n=start,
        prediction=how,
        capacity_id=identity["sweep_id"],
        finished_at=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        probe_ids=[r.run_id or "" for r in probes],
        sleep_s=passing.sleep_s if passing is not None else None,
    )


def _as_sweep(records: list[RunRecord]) -> list[RunRecord]:
    """Calibration probes read as sweep runs, so the same line fitting applies to them."""
    return [r.replace(kind="sweep") for r in records]


Identity = Callable[[tasks.Variant], dict[str, Any]]


@contextlib.contextmanager
def _session(opts: CapacityOptions, progress: CapacityProgress, kind: str, busy: bool) -> Iterator[Identity]:
    """The frame of a capacity search or check: its start and end records (machine, limits,
    versions), SIGTERM as an interrupt, and the kernel limits raised for thread variants when
    asked (and busy, i.e. something will run). Yields the identity each probe record carries."""
    session_id = time.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]
    versions, meta = context(opts.variants)
    start = {"sweep_id": session_id, "event": "start", "kind": kind, **meta, "label": meta["host"]}
    opts.out.add_sweep({**start, "budgets": opts.budgets})
    threads = [v.per_task for v in opts.variants if v.per_task.get("threads")]
    limit_ctx: contextlib.AbstractContextManager[Any] = contextlib.nullcontext()
    if opts.raise_limits and threads and busy:
        # No more threads can fit than the budget holds of their kernel memory alone.
        limit_ctx = raised_limits(max(opts.budgets) // THREAD_FLOOR_BYTES, threads, log=progress.log)
    with sigterm_raises(), limit_ctx:
        yield lambda variant: {
            "sweep_id": session_id,
            "versions": versions.get(variant.name, {}),
            "label": meta["host"],
        }
    opts.out.add_sweep({"sweep_id": session_id, "event": "end"})


def run_capacity(opts: CapacityOptions, progress: CapacityProgress) -> list[CapacityResult]:
    """Every (variant, budget) not finished yet; returns the results of this call."""
    done = _finished(opts.out) if opts.resume else set()
    stored = _stored_probes(opts.out)
    todo = [(v, b) for b in opts.budgets for v in opts.variants if (v.name, b) not in done]
    if opts.resume:
        progress.log(f"resume: {len(done)} result(s) already in {opts.out.path}, {len(todo)} to search")
    results = []
    with _session(opts, progress, "capacity", busy=bool(todo)) as identity:
        for i, (variant, budget) in enumerate(todo, 1):
            result = _one(variant, budget, opts, stored, identity(variant), progress)
            opts.out.add_capacity(result.to_json())
            results.append(result)
            progress.on_result(result, i, len(todo))
    return results


CHECK_ABOVE = 1.05  # a boundary holds when max_n is valid again and this many times it is not


@dataclass
class BoundaryCheck:
    """A stored capacity re-run at its max_n and at CHECK_ABOVE times it, with the same sleep."""

    variant: str
    budget_bytes: int
    max_n: int
    above_n: int
    sleep_s: float | None
    at_max: RunRecord
    above: RunRecord

    @property
    def held(self) -> bool:
        return _probe_valid(self.at_max) and not _probe_valid(self.above)

    def to_json(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "budget_bytes": self.budget_bytes,
            "max_n": self.max_n,
            "valid_again": _probe_valid(self.at_max),
            "above_n": self.above_n,
            "above_failed": not _probe_valid(self.above),
            "above_code": self.above.code,
            "sleep_s": self.sleep_s,
            "held": self.held,
            "run_ids": [self.at_max.run_id, self.above.run_id],
        }


def run_checks(
    opts: CapacityOptions, progress: CapacityProgress, on_check: Callable[[BoundaryCheck], None]
) -> list[BoundaryCheck]:
    """Re-run every stored result of the chosen variants and budgets at its boundary: a capacity
    measured near a cap, where runtimes slow down and GCs react, is only worth quoting if it holds.
    The runs are stored as kind "capacity-check" and never feed a search."""
    latest: dict[tuple[str, int], dict[str, Any]] = {}
    for row in opts.out.existing_capacity():
        latest[(row["variant"], int(row["budget_bytes"]))] = row
    todo = [
        (v, b, latest[(v.name, b)])
        for b in opts.budgets
        for v in opts.variants
        if (v.name, b) in latest and int(latest[(v.name, b)]["max_n"]) > 0
    ]
    checks = []
    with _session(opts, progress, "capacity-check", busy=bool(todo)) as identity:
        for variant, budget, row in todo:
            prober = _Prober(variant, budget, opts, identity(variant), progress, kind="capacity-check")
            max_n, sleep = int(row["max_n"]), row.get("sleep_s")
            above_n = math.ceil(CHECK_ABOVE * max_n)
            check = BoundaryCheck(
                variant.name, budget, max_n, above_n, sleep, prober(max_n, sleep), prober(above_n, sleep)
            )
            checks.append(check)
            on_check(check)
    return checks
