"""What may run beside a measured program and act on its run: a companion process (the load
client of connections and http), a watch that may stop the run once it has shown what it was for,
and watchers that follow the run's phases (a scheduler, a snapshot at the hold)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from runner.measure.launcher import LaunchReport
from runner.measure.output import Output
from runner.measure.result import Sample


class Companion(Protocol):
    """A process that runs beside the measured program, outside its cgroup, and may end the run
    (the connections workload's load client). The Run calls begin() once the program is
    forked, step() after every sample, and end() before anything of the run is killed.
    `holding` is true until the companion starts to undo what it did (the client's close): the
    cgroup's breakdown while held is read from the samples taken before then."""

    holding: bool

    def begin(self) -> None: ...

    def step(self, ready_at: float | None) -> str | None:
        """ready_at: when `ready N` came (time.monotonic()), or None. Returns why the run must
        stop now (the program is then killed and the result's stopped_reason says why), or None."""
        ...

    def end(self) -> None: ...


class Watch(Protocol):
    """Whether a run may stop before it ends by itself: given the samples so far and when `ready N`
    came (seconds since fork, None before), (code, reason) to stop it now, else None."""

    def __call__(self, timeline: Sequence[Sample], ready_s: float | None) -> tuple[str, str] | None: ...


INTERRUPTED = "interrupted"  # a Watcher's code that stops the run as Ctrl-C does (not stored)


class RunView(Protocol):
    """What a Watcher reads of the run it follows (runner.measure.run.Run is the one there is):
    named here, so that the hooks need not import the Run that calls them."""

    output: Output  # its stdout as read so far (output.ready_at: when `ready N` came)
    report: LaunchReport  # the launcher's account (report.t_exit: when the program ended)

    @property
    def t_fork(self) -> float | None: ...

    @property
    def ready_s(self) -> float | None: ...

    @property
    def elapsed(self) -> float: ...

    @property
    def timeline(self) -> list[Sample]: ...


class Watcher:
    """Follows one run from its own thread: launched() once the program is forked (it is
    spawning), held() once `ready N` came (the run just reached its hold: every task waits, the
    moment for a one-time snapshot), stepped() after every sample, finished() once nothing of the
    run is left. stepped() may return (code, reason) to stop the run now: INTERRUPTED stops it
    as Ctrl-C does (measure() then raises Cancelled), any other code is stored as stopped_by.
    The defaults do nothing: a watcher overrides what it needs."""

    def launched(self, run: RunView) -> None:
        """The program is forked: run.t_fork is set."""

    def held(self, run: RunView) -> None:
        """`ready N` came: run.ready_s is set, every task is in its wait."""

    def stepped(self, run: RunView) -> tuple[str, str] | None:
        """After each sample (run.timeline[-1]): (code, reason) to stop the run now, or None."""
        return None

    def finished(self, run: RunView) -> None:
        """The run is over and reaped (or was never started)."""
