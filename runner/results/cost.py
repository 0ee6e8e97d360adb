"""What N tasks of a variant will need, before running them: from earlier runs, or from the manifest.

Two sources, best first. Stored valid runs of the same variant at smaller N give a measured line
through the cgroup figure (kernel memory included): M(N) = M(n_max) + slope * (N - n_max). Without
them, a thread-per-task variant still has a floor: the kernel memory every OS thread costs.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from runner.limits.host import THREAD_FLOOR_BYTES
from runner.limits.predict import need
from runner.results.record import RunRecord
from runner.units import KIB, size
from runner.workload import Workload, get

METRICS_BY_PREFERENCE = ("cgroup_peak", "peak_rss")  # the cgroup peak counts kernel memory


@dataclass(frozen=True)
class Need:
    """Bytes N tasks are expected to need, and how that was worked out (one phrase)."""

    bytes: int
    per_task: float  # bytes per task used for the estimate
    how: str

    def describe(self) -> str:
        return f"≈ {size(self.bytes)} ({self.how})"


def _figure(record: RunRecord) -> tuple[str, int] | None:
    if record.result is None:
        return None
    for metric in METRICS_BY_PREFERENCE:
        value = getattr(record.result, metric)
        if value:
            return metric, value
    return None


@dataclass(frozen=True)
class Line:
    """Memory against N for one variant, from its valid runs: M(N) = at_top + slope * (N - top)."""

    top: int
    at_top: int
    slope: float  # bytes per task
    how: str

    def at(self, n: int) -> int:
        return int(self.at_top + self.slope * (n - self.top))

    def solve(self, budget: int) -> int:
        """The N at which the line reaches the budget (at least 1)."""
        if self.slope <= 0:
            return self.top
        return max(1, int(self.top + (budget - self.at_top) / self.slope))


def line(
    records: Iterable[RunRecord], variant: str, below: int | None = None, workload: Workload | None = None
) -> Line | None:
    """The line through the variant's valid runs of one workload (at N below `below`, when
    given), or None. A server holding connections and a program of sleeping tasks are two
    lines: a thread per connection costs its socket as well as its stack. workload: None, the
    default one."""
    workload = workload or get(None)
    points: dict[int, tuple[str, int]] = {}
    for r in records:
        if r.variant != variant or r.verdict != "valid" or r.superseded or r.kind != "sweep":
            continue
        if r.resolved_workload is not workload:
            continue
        if below is not None and r.n >= below:
            continue
        figure = _figure(r)
        if figure and (r.n not in points or figure[1] > points[r.n][1]):
            points[r.n] = figure
    # One point gives no slope: dividing M(N) by N would charge the whole baseline (the runtime
    # itself, tens of MB) to each task, and from N=1 predict terabytes. Two points, one metric.
    if len(points) < 2:
        return None
    top, low = max(points), min(points)
    metric, at_top = points[top]
    if points[low][0] != metric:
        return None
    slope = max(0.0, (at_top - points[low][1]) / (top - low))
    how = f"{slope / KIB:,.1f} KiB per task from N={low:,} to N={top:,}, {metric}"
    return Line(top, at_top, slope, how)


def from_records(
    records: Iterable[RunRecord], variant: str, n: int, workload: Workload | None = None
) -> Need | None:
    """Extrapolate from valid runs of this variant (and workload) at smaller N, or None without any."""
    fit = line(records, variant, below=n, workload=workload)
    return Need(fit.at(n), fit.slope, fit.how) if fit else None


def from_per_task(per_task: dict, n: int) -> Need | None:
    """The kernel-memory floor of one OS thread per task (a lower bound: stacks come on top)."""
    threads = n * need(per_task, "threads")
    if not threads:
        return None
    return Need(
        threads * THREAD_FLOOR_BYTES,
        float(THREAD_FLOOR_BYTES),
        f"at least {THREAD_FLOOR_BYTES // KIB} KiB of kernel memory per OS thread × {threads:,}",
    )


def estimate(
    records: Iterable[RunRecord], variant: str, per_task: dict, n: int, workload: Workload | None = None
) -> Need | None:
    return from_records(records, variant, n, workload) or from_per_task(per_task, n)
