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
import math
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from runner import tasks
from runner.execute import context, execute
from runner.inputs import MAX_N
from runner.limits.host import THREAD_FLOOR_BYTES
from runner.limits.raising import raised_limits
from runner.results import ResultsDir, RunRecord, cost
from runner.signals import sigterm_raises

TOLERANCE = 0.02  # the search ends when the first failing N is within 2 % above the last valid one
FIRST_STEP = 1.05  # the first bracketing step from the prediction; each further step squares it
CALIBRATION_N = (1, 10_000)  # when no stored run predicts: two probes give a baseline and a slope
MIN_SLEEP = 2.0  # a probe's sleep: at least this, and twice the spawn time expected


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

    @property
    def tasks_per_mib(self) -> float:
        return self.max_n / (self.budget_bytes / (1 << 20))

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def search(probe: Callable[[int], bool], start: int, ceiling: int = MAX_N) -> tuple[int, int | None]:
    """(largest valid N, smallest failing N) around a monotone boundary, starting at a guess.

    Steps away from the guess by 5 %, then 10 %, 21 %, ... until the boundary is bracketed, then
    halves the bracket until the failing N is within TOLERANCE of the valid one. A prediction
    within 5 % costs two probes to bracket and two to narrow.
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
            n, step = min(ceiling, math.ceil(lo * step)), step * step
        elif lo == 0:
            n, step = max(1, math.floor(hi / step)), step * step
        else:
            n = (lo + hi) // 2


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


MAX_SLEEP = 120.0


def _sleep_for(records: list[RunRecord], variant: str, n: int) -> float:
    """Twice the spawn time expected at N, at least MIN_SLEEP: a line through the ready times of
    the variant's valid runs (startup at the smallest N, the per-task rate up to the largest)."""
    points: dict[int, float] = {}
    for r in records:
        if r.variant == variant and r.verdict == "valid" and r.result and r.result.ready_s is not None:
            points[r.n] = max(points.get(r.n, 0.0), r.result.ready_s)
    if not points:
        return MIN_SLEEP * 2
    low, top = min(points), max(points)
    rate = (points[top] - points[low]) / (top - low) if top > low else 0.0
    spawn = points[top] + max(0.0, rate) * max(0, n - top)
    return min(MAX_SLEEP, max(MIN_SLEEP, math.ceil(4 * spawn) / 2))


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


def _one(
    variant: tasks.Variant,
    budget: int,
    opts: CapacityOptions,
    stored: dict[tuple[str, int, int], RunRecord],
    identity: dict[str, Any],
    progress: CapacityProgress,
) -> CapacityResult:
    """Search one (variant, budget); each probe is stored the moment it ends."""
    seen: list[RunRecord] = list(opts.history)
    probes: list[RunRecord] = []

    def probe(n: int) -> bool:
        record = stored.get((variant.name, budget, n)) if opts.resume else None
        if record is None:
            sleep = _sleep_for(seen + probes, variant.name, n)
            ex = execute(variant, n, sleep, timeout=2 * sleep + 20, memory_cap=budget, interval=opts.interval)
            record = ex.record(kind="capacity-probe", sleep_requested=f"capacity:{sleep:g}", **identity)
            opts.out.add_run(record, ex.timeline())
        probes.append(record)
        ok = _probe_valid(record)
        progress.on_probe(variant.name, budget, record, ok)
        return ok

    fit = cost.line(opts.history, variant.name)
    if fit is None:  # calibrate: a baseline and a slope from two small runs under the same cap
        for n in CALIBRATION_N:
            probe(n)
        fit = cost.line(_as_sweep(probes), variant.name)
    if fit is not None:
        start, how = fit.solve(budget), f"from {fit.how}"
    else:
        start, how = CALIBRATION_N[0], "no valid run to predict from: searched up from N=1"
    if variant.per_task.get("threads"):  # an OS thread costs at least its kernel memory
        start = min(start, max(1, budget // THREAD_FLOOR_BYTES))
    lo, hi = search(probe, start)
    failing = next((r for r in reversed(probes) if r.n == hi and not _probe_valid(r)), None)
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
    )


def _as_sweep(records: list[RunRecord]) -> list[RunRecord]:
    """Calibration probes read as sweep runs, so the same line fitting applies to them."""
    return [r.replace(kind="sweep") for r in records]


def run_capacity(opts: CapacityOptions, progress: CapacityProgress) -> list[CapacityResult]:
    """Every (variant, budget) not finished yet; returns the results of this call."""
    capacity_id = time.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]
    versions, meta = context(opts.variants)
    opts.out.add_sweep(
        {
            "sweep_id": capacity_id,
            "event": "start",
            "kind": "capacity",
            **meta,
            "label": meta["host"],
            "budgets": opts.budgets,
        }
    )
    done = _finished(opts.out) if opts.resume else set()
    stored = _stored_probes(opts.out)
    todo = [(v, b) for b in opts.budgets for v in opts.variants if (v.name, b) not in done]
    if opts.resume:
        progress.log(f"resume: {len(done)} result(s) already in {opts.out.path}, {len(todo)} to search")
    results = []
    threads = [v.per_task for v in opts.variants if v.per_task.get("threads")]
    limit_ctx: contextlib.AbstractContextManager[Any] = contextlib.nullcontext()
    if opts.raise_limits and threads and todo:
        # No more threads can fit than the budget holds of their kernel memory alone.
        limit_ctx = raised_limits(max(opts.budgets) // THREAD_FLOOR_BYTES, threads, log=progress.log)
    with sigterm_raises(), limit_ctx:
        for i, (variant, budget) in enumerate(todo, 1):
            identity = {
                "sweep_id": capacity_id,
                "versions": versions.get(variant.name, {}),
                "label": meta["host"],
            }
            result = _one(variant, budget, opts, stored, identity, progress)
            opts.out.add_capacity(result.to_json())
            results.append(result)
            progress.on_result(result, i, len(todo))
    opts.out.add_sweep({"sweep_id": capacity_id, "event": "end", "results": len(results)})
    return results
