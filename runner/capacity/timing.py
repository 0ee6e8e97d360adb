"""How long a capacity probe sleeps and may run: long enough for its tasks to be all alive, no
longer, since a search runs dozens of probes."""

from __future__ import annotations

import itertools
import math

from runner.results import RunRecord

MIN_SLEEP = 2.0  # a probe's sleep: at least this, and SPAWN_MARGIN times the spawn time expected
MAX_SLEEP = 120.0
SPAWN_MARGIN = 1.5  # near a cap, spawning slows down (reclaim, GC); a late probe is re-run anyway


def spawn_times(records: list[RunRecord], variant: str) -> list[tuple[int, float]]:
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


def sleep_for(records: list[RunRecord], variant: str, n: int) -> float:
    """SPAWN_MARGIN times the spawn time expected at N, at least MIN_SLEEP, rounded up to 0.5 s."""
    spawn = spawn_estimate(spawn_times(records, variant), n)
    return rounded_sleep(SPAWN_MARGIN * spawn if spawn is not None else 2 * MIN_SLEEP)


def rounded_sleep(seconds: float) -> float:
    return min(MAX_SLEEP, max(MIN_SLEEP, math.ceil(2 * seconds) / 2))


def probe_timeout(sleep: float) -> float:
    """A valid probe takes its spawn (< sleep), the sleep, then as long again to wake and end."""
    return 2.5 * sleep + 5
