"""What proves, from outside the program, that a run's N waits overlapped.

A program's `ready N` says every task has entered its wait (tasks/README.md states each program's
proof). Two checks need no trust in the program:

- **Timing.** Every wait starts after the fork and lasts at least the sleep, so if the whole run
  took less than twice the sleep, the first wait had not ended when the last one began: all N
  overlapped, whatever the program does. A run shorter than the sleep itself cannot have waited.
- **Memory held still.** Once every task waits, nothing more is allocated until the first wait can
  end, which is no earlier than the sleep after the fork. So the tree's RSS at `ready` divided by
  its highest RSS between `ready` and that moment is about 1. A program that prints `ready` before
  its tasks run (an event loop that has not started them, a thread not yet scheduled) shows a
  ratio well below 1, because the tasks' memory arrives after the line.
"""

from __future__ import annotations

from collections.abc import Sequence

from runner.measure.result import Sample

HELD = 0.95  # the hold ratio a run whose `ready` proves all N waiting reaches (tests, inspect)


def timing_proves_overlap(wall_s: float | None, sleep_s: float | None) -> bool | None:
    """wall < 2 x sleep: every wait began before the first could end. None when either is unknown."""
    if wall_s is None or not sleep_s:
        return None
    return wall_s < 2 * sleep_s


def hold_ratio(timeline: Sequence[Sample], ready_s: float | None, until_s: float | None) -> float | None:
    """RSS at `ready` ÷ the highest RSS from `ready` to until_s (the earliest a wait can end).

    RSS at `ready` is the first sample taken at or after the line (the sampler's interval later at
    most); None when the run printed no `ready`, or no sample falls in the window.
    """
    if ready_s is None or until_s is None or until_s <= ready_s:
        return None
    window = [s for s in timeline if ready_s <= s.t <= until_s and s.procs > 0 and s.rss > 0]
    if not window:
        return None
    return window[0].rss / max(s.rss for s in window)


def hold_window_end(workload_holds_after_ready: bool, ready_s: float | None, sleep_s: float) -> float | None:
    """The earliest moment a wait can end: the sleep after the fork for tasks that sleep; for a
    workload whose waits begin at `ready` (a client holds connections for the sleep from then),
    the sleep after `ready`."""
    if ready_s is None:
        return None
    return ready_s + sleep_s if workload_holds_after_ready else sleep_s
