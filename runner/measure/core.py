"""Measure one command: the loop of one Run on its own (runner.measure.run): launch it, step it
until it stops, finish it. A scheduler that keeps several runs in flight drives each Run itself
(runner.schedule); every figure still comes through the same Run."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from runner.measure.deadlines import GRACE_STEP_S, Deadlines, still_ending
from runner.measure.hooks import Companion, Watch, Watcher
from runner.measure.result import RunResult, Sample
from runner.measure.run import Cancelled, Run

__all__ = ["GRACE_STEP_S", "Cancelled", "Companion", "Run", "Watch", "Watcher", "measure", "still_ending"]


def measure(
    argv: Sequence[str],
    *,
    timeout: float | None = None,
    ready_by: float | None = None,
    interval: float = 0.05,
    cgroup: str = "auto",
    cgroup_root: Path | None = None,
    memory_cap: int | None = None,
    env: dict[str, str] | None = None,
    cwd: str | Path | None = None,
    on_sample: Callable[[Sample], None] | None = None,
    timeout_grace: float = 0.0,
    nofile: int | None = None,
    account_sockets: bool = False,
    companion: Companion | None = None,
    stop_when: Watch | None = None,
    watchers: Sequence[Watcher] = (),
) -> RunResult:
    """Run argv (no shell) and measure its memory. Ctrl-C kills the run, then re-raises; a
    watcher that stops the run as Ctrl-C does makes this raise Cancelled (a KeyboardInterrupt).

    timeout, ready_by, timeout_grace: the run's Deadlines (runner.measure.deadlines).
    interval: seconds between samples of the tree (the timeline's resolution).
    cgroup: "auto", "v2", "v1" or "none"; cgroup_root overrides where run cgroups are made.
    memory_cap: bytes the run's cgroup may use (swap excluded where possible), so that a run that
    outgrows the machine is stopped inside its cgroup instead of waking the host's OOM killer.
    nofile: the program's RLIMIT_NOFILE, set by the launcher before exec (a server of N connections).
    account_sockets: charge the sockets the run accepts to its cgroup (cgroups.RunCgroup.account_sockets).
    companion: a process that runs beside the program and may end the run early (Companion).
    stop_when: asked after every sample whether the run has shown what it was for (Watch); its
    (code, reason) stops it there, as stopped_by and stopped_reason.
    watchers: follow the run's phases and may stop it (Watcher: a scheduler, a snapshot at the hold).
    """
    run = Run(
        argv,
        deadlines=Deadlines(timeout, ready_by, timeout_grace),
        interval=interval,
        cgroup=cgroup,
        cgroup_root=cgroup_root,
        memory_cap=memory_cap,
        env=env,
        cwd=cwd,
        on_sample=on_sample,
        nofile=nofile,
        account_sockets=account_sockets,
        companion=companion,
        stop_when=stop_when,
        watchers=watchers,
    )
    try:
        run.launch()
        while run.step() is None:
            pass
    except BaseException:
        run.abandon()
        raise
    return run.finish()
