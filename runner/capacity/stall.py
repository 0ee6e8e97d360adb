"""A capacity probe ends where its exit stalls.

A capacity answers "does it fit": a probe whose N tasks said `ready` in time and held under the
cap until their sleep was over has fitted, whatever its threads do next. Python's threads near
20k under 1 GiB then stall at random in the kernel's futex hash, none ending for minutes, and a
search that waited for them to time out spent a third of a reference run there. So the probe is
stopped once the stall shows (runner.judge.diagnose.stall: no thread ending for STALL_S after
every sleep was over), judged `exit-stalled` with its remedy, and counted as a fit
(probes.fits). A sweep has no such watch: there a run that does not end is not a figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from runner.judge.diagnose import STALL_S, live, stall
from runner.measure.result import Sample

STALLED = "exit-stalled"
CHECK_EVERY_S = 1.0  # the timeline is read for a stall at most this often (it grows by 20 samples/s)


@dataclass
class StallWatch:
    """measure()'s stop_when for a probe with this sleep: (STALLED, why) once its exit stalls."""

    sleep_s: float
    _next_s: float = 0.0

    def __call__(self, timeline: Sequence[Sample], ready_s: float | None) -> tuple[str, str] | None:
        if ready_s is None or not timeline:
            return None
        now, slept = timeline[-1].t, ready_s + self.sleep_s
        if now < slept + STALL_S or now < self._next_s:
            return None
        self._next_s = now + CHECK_EVERY_S
        found = stall(live(timeline), slept)
        return (STALLED, found.text) if found is not None else None


def room(sleep: float) -> float:
    """The least timeout that lets a stall show before it: `ready` by the sleep, then the sleep,
    then STALL_S of threads not ending, read within CHECK_EVERY_S."""
    return 2 * sleep + STALL_S + 2 * CHECK_EVERY_S
