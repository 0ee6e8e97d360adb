"""Measure one command: the loop of one Run on its own (runner.measure.run): launch it, step it
until it stops, finish it. A scheduler that keeps several runs in flight drives each Run itself
(runner.scheduling); every figure still comes through the same Run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runner.measure import hold
from runner.measure.deadlines import GRACE_STEP_S, Deadlines, still_ending
from runner.measure.hooks import Companion, Watch, Watcher
from runner.measure.result import RunResult
from runner.measure.run import AtHold, Cancelled, Run

__all__ = [
    "GRACE_STEP_S",
    "AtHold",
    "Cancelled",
    "Companion",
    "Run",
    "Watch",
    "Watcher",
    "measure",
    "still_ending",
]


def measure(
    argv: Sequence[str],
    *,
    timeout: float | None = None,
    ready_by: float | None = None,
    timeout_grace: float = 0.0,
    at_hold: AtHold | None = hold.snapshot,
    **options: Any,
) -> RunResult:
    """Run argv (no shell) and measure its memory. Ctrl-C kills the run, then re-raises; a
    watcher that stops the run as Ctrl-C does makes this raise Cancelled (a KeyboardInterrupt).

    timeout, ready_by, timeout_grace: the run's Deadlines (runner.measure.deadlines).
    at_hold: the snapshot at the hold, kept as hold_split (Run.reached_hold); None takes none.
    options: the Run's (interval, cgroup, cgroup_root, memory_cap, env, cwd, on_sample, nofile,
    account_sockets, companion, stop_when, watchers, on_line: runner.measure.run.Run).
    """
    run = Run(argv, deadlines=Deadlines(timeout, ready_by, timeout_grace), at_hold=at_hold, **options)
    try:
        run.launch()
        while run.step() is None:
            pass
    except BaseException:
        run.abandon()
        raise
    return run.finish()
