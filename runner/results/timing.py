"""What stored runs say of a variant's times: how long spawning took at each N (to `ready N`),
how long the end took after the sleep, and a time at any N between (or past) those measured.
Capacity probes size their sleeps and timeouts from these, and a scheduler predicts a run's
phases from them."""

from __future__ import annotations

import itertools

from runner.results.record import RunRecord


def _rising(by_n: dict[int, float]) -> list[tuple[int, float]]:
    """The slowest time at each N, sorted and made non-decreasing in N."""
    out: list[tuple[int, float]] = []
    for n, t in sorted(by_n.items()):
        out.append((n, max(t, out[-1][1]) if out else t))
    return out


def spawn_times(records: list[RunRecord], variant: str) -> list[tuple[int, float]]:
    """(N, seconds to `ready N`) of every run of the variant that said it, valid or late: a late
    ready is still a spawn time, and a capped probe's is the one that matters near the cap."""
    slowest: dict[int, float] = {}
    for r in records:
        ready = r.result.ready_s if r.result else None
        if r.variant == variant and ready is not None and r.result and r.result.ready_n == r.n:
            slowest[r.n] = max(slowest.get(r.n, 0.0), ready)
    return _rising(slowest)


def end_times(records: list[RunRecord], variant: str) -> list[tuple[int, float]]:
    """(N, seconds from the end of the sleep to the exit) of the variant's valid runs: the last
    task ends a spawn time after the first, then the runtime wakes, joins and frees N tasks --
    five times the spawn time for trio at 1M, so a timeout must come from this, not the spawn."""
    slowest: dict[int, float] = {}
    for r in records:
        if r.variant == variant and r.verdict == "valid" and r.result and r.sleep_s is not None:
            slowest[r.n] = max(slowest.get(r.n, 0.0), max(0.0, r.result.wall_s - r.sleep_s))
    return _rising(slowest)


def interpolate(points: list[tuple[int, float]], n: int) -> float | None:
    """A time at N (to spawn, or to end after the sleep), interpolated between the nearest measured
    N (beyond the last one along the last segment's slope; a single point gives only itself)."""
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
