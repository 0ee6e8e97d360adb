"""How long a capacity probe sleeps and may run: long enough for its tasks to be all alive, no
longer, since a search runs dozens of probes."""

from __future__ import annotations

import math

from runner.results import RunRecord
from runner.results.timing import end_times, interpolate, spawn_times

__all__ = ["end_times", "interpolate", "probe_timeout", "rounded_sleep", "sleep_for", "spawn_times"]

MIN_SLEEP = 2.0  # a probe's sleep: at least this, and SPAWN_MARGIN times the spawn time expected
MAX_SLEEP = 120.0
SPAWN_MARGIN = 1.5  # near a cap, spawning slows down (reclaim, GC); a late probe is re-run anyway


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
