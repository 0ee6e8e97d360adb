"""`--sleep auto`'s re-run rule, shared by a sweep's cells and `memrun explain --books`: a run
judged `spawn-outlasted-sleep` runs again with a sleep twice its spawn, unless the machine's thread
limits are what held the spawn back (no sleep makes such a run valid: the JVM under pid_max starts a
thread only once another ends)."""

from __future__ import annotations

import math

from runner import tasks
from runner.inputs import DEFAULT_SLEEP
from runner.limits import predict as limit_hits
from runner.limits import read_limits


def auto_sleep(ready_s: float, base: float = DEFAULT_SLEEP) -> float:
    """A sleep that outlasts spawning: twice the observed spawn time, rounded up to 5 s, and never
    below the sleep it started from."""
    return float(max(base, 5 * math.ceil(2 * ready_s / 5)))


def longer_sleep(
    code: str, ready_s: float | None, variant: tasks.Variant, n: int, base: float
) -> float | None:
    """The sleep to run a judged run again with, or None when it is not to be run again: it was
    not judged spawn-outlasted-sleep, never said `ready`, or met a thread limit here."""
    if code != "spawn-outlasted-sleep" or ready_s is None:
        return None
    if limit_hits(n, variant.per_task, read_limits()):
        return None
    return auto_sleep(ready_s, base)
