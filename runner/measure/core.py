"""Measure one command: the loop of one Run on its own (runner.measure.run): launch it, step it
until it stops, finish it. A scheduler that keeps several runs in flight drives each Run itself
(runner.scheduling); every figure still comes through the same Run."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from runner.measure import hold
from runner.measure.deadlines import GRACE_STEP_S, still_ending
from runner.measure.hooks import Companion, Watch, Watcher
from runner.measure.result import RunResult, Sample
from runner.measure.run import Cancelled, Run
from runner.measure.spec import AtHold, Command, OnLine, RunSpec

__all__ = [
    "GRACE_STEP_S",
    "AtHold",
    "Cancelled",
    "Command",
    "Companion",
    "Run",
    "RunSpec",
    "Watch",
    "Watcher",
    "measure",
    "measure_command",
    "still_ending",
]


def measure_command(command: Command, spec: RunSpec | None = None) -> RunResult:
    """Run the command and measure its memory, as the spec says (both handed to the Run as they
    are). Ctrl-C kills the run, then re-raises; a watcher that stops the run as Ctrl-C does makes
    this raise Cancelled (a KeyboardInterrupt)."""
    run = Run(command, spec)
    try:
        run.launch()
        while run.step() is None:
            pass
    except BaseException:
        run.abandon()
        raise
    return run.finish()


def measure(
    argv: Sequence[str],
    *,
    timeout: float | None = None,
    ready_by: float | None = None,
    timeout_grace: float = 0.0,
    interval: float = 0.05,
    cgroup: str = "auto",
    cgroup_root: Path | None = None,
    memory_cap: int | None = None,
    env: dict[str, str] | None = None,
    cwd: str | Path | None = None,
    on_sample: Callable[[Sample], None] | None = None,
    nofile: int | None = None,
    account_sockets: bool = False,
    companion: Companion | None = None,
    stop_when: Watch | None = None,
    watchers: Sequence[Watcher] = (),
    at_hold: AtHold | None = hold.snapshot,
    on_line: OnLine | None = None,
) -> RunResult:
    """Run argv (no shell) and measure its memory: measure_command() for a caller that has no
    command or spec of its own (a test, a script), each keyword a field of the one or the other
    (runner.measure.spec: Command's env, cwd, nofile, account_sockets, companion; RunSpec's
    others)."""
    command = Command(argv, env, cwd, nofile=nofile, account_sockets=account_sockets, companion=companion)
    spec = RunSpec(
        timeout=timeout,
        ready_by=ready_by,
        timeout_grace=timeout_grace,
        interval=interval,
        memory_cap=memory_cap,
        cgroup=cgroup,
        cgroup_root=cgroup_root,
        on_sample=on_sample,
        stop_when=stop_when,
        watchers=watchers,
        at_hold=at_hold,
        on_line=on_line,
    )
    return measure_command(command, spec)
