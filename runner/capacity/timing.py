"""How long a capacity probe sleeps and may run: long enough for its tasks to be all alive, no
longer, since a search runs dozens of probes."""

from __future__ import annotations

import itertools
import math

from runner.results import RunRecord

MIN_SLEEP = 2.0  # a probe's sleep: at least this, and SPAWN_MARGIN times the spawn time expected
MAX_SLEEP = 120.0
SPAWN_MARGIN = 1.5  # near a cap, spawning slows down (reclaim, GC); a late probe is re-run anyway


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


def sleep_for(records: list[RunRecord], variant: str, n: int) -> float:
    """SPAWN_MARGIN times the spawn time expected at N, at least MIN_SLEEP, rounded up to 0.5 s."""
    spawn = interpolate(spawn_times(records, variant), n)
    return rounded_sleep(SPAWN_MARGIN * spawn if spawn is not None else 2 * MIN_SLEEP)


def rounded_sleep(seconds: float) -> float:
    return min(MAX_SLEEP, max(MIN_SLEEP, math.ceil(2 * seconds) / 2))


def probe_timeout(records: list[RunRecord], variant: str, n: int, sleep: float) -> float:
    """The sleep, then twice the time from the sleep's end to the exit expected at N (valid runs
    interpolated), and 5 s: a probe that runs past it is stuck, not slow, even near the cap."""
    after = interpolate(end_times(records, variant), n)
    return sleep + 2 * (after if after is not None else sleep) + 5
