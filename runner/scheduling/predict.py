"""What a run will do before it runs: how long its spawn takes (fork to `ready N`), how much
memory it peaks at, how long it takes to end after its wait. From the same variant's runs (of the
same workload, on the same machine) at the same N or at the smaller N measured before it, else a
deliberately pessimistic bound, so that a variant nothing is known of overlaps little and never
takes the host's memory on a guess.

Spawn: the slowest `ready` seen at each N, interpolated, or extrapolated along the last segment
(runner.results.timing) or, when faster, the largest N's own time per task; from a single smaller
N, along UNKNOWN_PER_TASK_S (a pessimistic rate:
OS threads at 10k took 220 µs each here). Peak: the largest measured at the same N, else the line
through the smaller N's valid runs (runner.results.cost, the cgroup figure first: it counts kernel
memory), else a smaller N's peak plus UNKNOWN_PER_TASK_BYTES a task. The error of each prediction
is stored with the run (errors()), so a reader sees how far off it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from runner.measure.result import RunResult
from runner.results import RunRecord, cost
from runner.results.timing import end_times, interpolate, spawn_times
from runner.units import KIB, MIB, size
from runner.workload import Workload

UNKNOWN_BASE_S = 2.0  # a program's start, before any task
UNKNOWN_PER_TASK_S = 300e-6
TYPICAL_PER_TASK_S = 10e-6  # for an ETA: Python's asyncio took 12 µs a task at 1M, Go 2.3 µs
UNKNOWN_BASE_BYTES = 512 * MIB
UNKNOWN_PER_TASK_BYTES = 64 * KIB  # above every runtime's cost here (OS threads: 37 KiB with kernel memory)
BOUND_BY = "peak bound from"  # a smaller N's peak plus a pessimistic cost a task: not a measured line
UNKNOWN_EXIT_S = 1.0
UNKNOWN_EXIT_PER_TASK_S = 50e-6  # trio took 39 s to end 1M tasks after their sleep
# For an ETA, which should be right on the whole, not safe for each run: the median variant of the
# quick start of 1584c97 peaked at 1.1 GB with 1M tasks and ended 0.6 s after its sleep.
TYPICAL_BASE_BYTES = 64 * MIB
TYPICAL_PER_TASK_BYTES = 1 * KIB
TYPICAL_EXIT_PER_TASK_S = 1e-6


@dataclass(frozen=True)
class Unknowns:
    """What a task is taken to cost where nothing of its variant was measured: its spawn, its
    memory (on a base for the program) and its exit after the sleep. BOUNDS for the scheduler,
    which must never take the host's memory or meet a wake on a guess; TYPICAL for an ETA, which
    priced every 1M cell at 64 GiB and 50 s of exit until the 10k cells had run (39 min at the
    quick start's first row, with 9 left)."""

    spawn_s: float
    base_bytes: int
    bytes: int
    exit_s: float


BOUNDS = Unknowns(UNKNOWN_PER_TASK_S, UNKNOWN_BASE_BYTES, UNKNOWN_PER_TASK_BYTES, UNKNOWN_EXIT_PER_TASK_S)
TYPICAL = Unknowns(TYPICAL_PER_TASK_S, TYPICAL_BASE_BYTES, TYPICAL_PER_TASK_BYTES, TYPICAL_EXIT_PER_TASK_S)


@dataclass(frozen=True)
class Prediction:
    """A run's phases and peak before it runs, and how they were worked out."""

    spawn_s: float
    peak: int  # bytes: the cgroup's figure where one was measured, else RSS
    exit_s: float  # seconds from the end of the wait to the exit
    how: str
    guessed: tuple[str, ...] = ()  # "spawn", "peak": nothing of the variant told them, bounds stand in

    @property
    def warm(self) -> int:
        """Bytes to touch before the fork (runner.scheduling.warm): the peak where it was measured
        or read off a line through measured N, nothing where a bound stands in for it."""
        return 0 if "peak" in self.guessed else self.peak

    def to_json(self) -> dict[str, Any]:
        return {
            "spawn_s": round(self.spawn_s, 3),
            "peak": self.peak,
            "exit_s": round(self.exit_s, 3),
            "how": self.how,
        }


def _mine(records: Sequence[RunRecord], variant: str, workload: Workload) -> list[RunRecord]:
    return [
        r
        for r in records
        if r.variant == variant and r.resolved_workload is workload and r.result is not None
    ]


def _spawn(runs: list[RunRecord], variant: str, n: int, rate: float) -> tuple[float, str, bool] | None:
    """(seconds, how, whether the rate was measured) or None when nothing was."""
    points = spawn_times(runs, variant)
    if not points:
        return None
    if len(points) == 1 and n > points[0][0]:
        m, t = points[0]
        return t + (n - m) * rate, f"spawn {t:.2f} s at N={m:,} + {rate * 1e6:g} µs a task", False
    at = interpolate(points, n)
    assert at is not None
    top, t_top = points[-1]
    if n > top:
        # Past the largest N measured, the rate between the two largest is no better than their
        # difference, which at small N is mostly noise on the start (Python: 0.06 s at N=1, 0.15 s
        # at 10k, 1.2 s at 100k): all of the largest N's spawn counted as tasks bounds it.
        at = max(at, t_top + (n - top) * t_top / top)
    exact = any(m == n for m, _ in points)
    return at, ("spawn as measured at this N" if exact else f"spawn from N={top:,} and below"), True


def figure(result: RunResult | None) -> int | None:
    """The memory a run took of the machine: its cgroup's peak (kernel memory too), else its RSS."""
    return None if result is None else (result.cgroup_peak or result.peak_rss or None)


def _peak(
    runs: list[RunRecord], variant: str, n: int, workload: Workload, per_task: int = UNKNOWN_PER_TASK_BYTES
) -> tuple[int, str] | None:
    same = [f for r in runs if r.n == n and (f := figure(r.result))]
    if same:
        return max(same), "peak as measured at this N"
    line = cost.from_records(runs, variant, n, workload)
    if line is not None:
        return line.bytes, f"peak on {line.how}"
    below = [(r.n, f) for r in runs if r.n < n and (f := figure(r.result))]
    if not below:
        return None
    m, f = max(below)
    return f + (n - m) * per_task, f"{BOUND_BY} {size(f)} at N={m:,} + {per_task // KIB} KiB a task"


def predict(
    records: Sequence[RunRecord], variant: str, n: int, workload: Workload, unknown: Unknowns = BOUNDS
) -> Prediction:
    """The prediction for one run of variant at N from `records` (this machine's runs: the caller
    leaves out other labels and capacity probes, whose caps slow their spawn). unknown: what a task
    costs where nothing was measured (bounds by default; an ETA takes typical costs). A spawn not
    from a measured rate is `guessed`: no sleep is chosen from it."""
    runs = _mine(records, variant, workload)
    measured, peak = (
        _spawn(runs, variant, n, unknown.spawn_s),
        _peak(runs, variant, n, workload, unknown.bytes),
    )
    ends = interpolate(end_times(runs, variant), n)
    guessed = []
    if measured is None:
        spawn = UNKNOWN_BASE_S + n * unknown.spawn_s, "spawn unknown: bound"
        guessed.append("spawn")
    else:
        spawn = measured[:2]
        if not measured[2]:
            guessed.append("spawn")
    if peak is None:
        peak = unknown.base_bytes + n * unknown.bytes, "peak unknown: bound"
    if peak[1].startswith(("peak unknown", BOUND_BY)):
        guessed.append("peak")
    exit_s = ends if ends is not None else UNKNOWN_EXIT_S + n * unknown.exit_s
    return Prediction(spawn[0], int(peak[0]), exit_s, f"{spawn[1]}; {peak[1]}", tuple(guessed))


def errors(prediction: Prediction, ready_s: float | None, figure: int | None) -> dict[str, float | None]:
    """How far off the prediction was: measured ÷ predicted - 1, for the spawn and the peak."""
    spawn = ready_s / prediction.spawn_s - 1 if ready_s is not None and prediction.spawn_s > 0 else None
    peak = figure / prediction.peak - 1 if figure and prediction.peak > 0 else None
    return {
        "spawn_error": None if spawn is None else round(spawn, 3),
        "peak_error": None if peak is None else round(peak, 3),
    }
