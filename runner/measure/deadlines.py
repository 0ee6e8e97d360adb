"""When a run must be stopped by memrun rather than end by itself: its timeout (pushed back while
its threads are still ending), and the moment `ready N` must have come by."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from runner.measure.result import Sample

GRACE_STEP_S = 1.0
ENDING_OVER_S = 1.0  # threads must have fallen over this window for a run to count as ending

TIMEOUT = "timeout"  # Deadlines.missed: the timeout passed (and no grace is left or due)
READY_LATE = "ready-deadline"  # `ready N` had not come by ready_by


def still_ending(timeline: Sequence[Sample]) -> bool:
    """Whether the tree's thread count fell over the last ENDING_OVER_S (by 0.1 %, at least one)."""
    if not timeline:
        return False
    now = timeline[-1]
    then = next((p for p in reversed(timeline) if p.t <= now.t - ENDING_OVER_S), None)
    return then is not None and then.threads - now.threads >= max(1, then.threads // 1000)


@dataclass(frozen=True)
class Deadlines:
    """A run's bounds, in seconds since its fork.

    timeout: the whole tree is killed after it (timed_out=True).
    ready_by: `ready N` must have come by then, else the tree is killed (timed_out=True,
    ready_deadline_s set): a capacity probe whose tasks were not all alive within its sleep can no
    longer be valid, and near a memory cap such a run may thrash until the timeout.
    grace: seconds the timeout may be pushed back, GRACE_STEP_S at a time, while the tree's
    thread count is still falling: thousands of OS threads that woke together can take longer to
    end than the timeout foresaw, and such a run is slow, not stuck. A stuck run's threads do not
    end.
    """

    timeout: float | None = None
    ready_by: float | None = None
    grace: float = 0.0

    def missed(
        self, elapsed: float, ready: bool, extended: float, timeline: Sequence[Sample]
    ) -> tuple[str | None, float]:
        """(TIMEOUT or READY_LATE when the run must stop now, else None; the timeout's extension
        so far, grown by a step when the run is past its timeout but still ending threads)."""
        if self.timeout is not None and elapsed > self.timeout + extended:
            if extended < self.grace and still_ending(timeline):
                return None, extended + GRACE_STEP_S
            return TIMEOUT, extended
        if self.ready_by is not None and not ready and elapsed > self.ready_by:
            return READY_LATE, extended
        return None, extended
