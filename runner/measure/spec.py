"""What one measured run is given, in two frozen parts that runner.measure.run.Run takes as they
are: the command (what runs: its argv, environment and folder, its descriptors, what runs beside
it: the workload's part) and the run spec (how it is measured and bounded: the part a sweep's lane
or a capacity probe decides). Typed fields, so that a misspelt setting is a TypeError where the
spec is built, not a keyword that is passed along until a run ignores it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from runner.measure import cgroups, hold
from runner.measure.deadlines import Deadlines
from runner.measure.hooks import Companion, Watch, Watcher
from runner.measure.result import Sample

# At the hold (the first sample after `ready N`): given the tree's pids, the run's cgroup and the
# seconds since the fork, what the run's memory is made of then (runner.measure.hold.snapshot).
AtHold = Callable[[list[int], cgroups.RunCgroup, float], dict]

# Every line the program writes on stdout, in order (`ready` among them)
OnLine = Callable[[bytes], None]


@dataclass(frozen=True)
class Command:
    """What runs, as the workload made it (runner.execute.Launch): argv (no shell), its
    environment (None: memrun's) and folder; timeout: its bound in seconds since the fork where
    the spec sets none (the workload's default for it; None: unbounded); nofile: its
    RLIMIT_NOFILE, set by the launcher before exec (a server of N connections); account_sockets:
    charge the sockets it accepts to its cgroup (cgroups.RunCgroup.account_sockets); companion: a
    process beside it that may end the run early (Companion); on_line: the workload's own reader
    of its stdout (tick's summary), called before the spec's."""

    argv: Sequence[str]
    env: dict[str, str] | None = None
    cwd: str | Path | None = None
    timeout: float | None = None
    nofile: int | None = None
    account_sockets: bool = False
    companion: Companion | None = None
    on_line: OnLine | None = None


@dataclass(frozen=True)
class RunSpec:
    """How one run is measured and bounded, whatever it runs: built once by whoever schedules the
    run (a sweep's lane, a capacity probe, a test) and handed unchanged to the Run.

    timeout: seconds after the fork the whole tree is killed (None: the command's own bound);
    ready_by: `ready N` must have come by then; timeout_grace: how far the timeout may be pushed
    back while threads are still ending (runner.measure.deadlines.Deadlines).
    interval: seconds between samples of the tree (the timeline's resolution).
    memory_cap: bytes the run's cgroup may use (swap excluded where possible), so that a run that
    outgrows the machine is stopped inside its cgroup instead of waking the host's OOM killer.
    cgroup: "auto", "v2", "v1" or "none"; cgroup_root overrides where run cgroups are made.
    on_sample: called with every sample (a progress line).
    stop_when: asked after every sample whether the run has shown what it was for (Watch); its
    (code, reason) stops it there, as stopped_by and stopped_reason.
    watchers: follow the run's phases and may stop it (runner.measure.hooks.Watcher: a scheduler's).
    at_hold: called once, after the first sample that follows `ready N` (that sample has read the
    high-water marks), its dict kept as hold_split; None takes no snapshot.
    on_line: called with every line the program writes on stdout, in order (`ready` among them):
    the proof attacks read the trace a program writes under runner.tasks.proof.TRACE_ENV.
    on_stderr: called with every line it writes on stderr (a books run reads a runtime's books
    whole, where the result keeps only a tail).
    """

    timeout: float | None = None
    ready_by: float | None = None
    timeout_grace: float = 0.0
    interval: float = 0.05
    memory_cap: int | None = None
    cgroup: str = "auto"
    cgroup_root: Path | None = None
    on_sample: Callable[[Sample], None] | None = None
    stop_when: Watch | None = None
    watchers: Sequence[Watcher] = ()
    at_hold: AtHold | None = hold.snapshot
    on_line: OnLine | None = None
    on_stderr: OnLine | None = None

    def deadlines(self, command: Command) -> Deadlines:
        """The run's bounds: this spec's timeout, else the command's; its ready_by and grace."""
        timeout = self.timeout if self.timeout is not None else command.timeout
        return Deadlines(timeout, self.ready_by, self.timeout_grace)


def both(first: OnLine | None, then: OnLine | None) -> OnLine | None:
    """One reader of stdout lines that calls first, then then (either may be None)."""
    if first is None or then is None:
        return first or then

    def each(line: bytes) -> None:
        first(line)
        then(line)

    return each
