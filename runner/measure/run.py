"""One measured run as an object: launch() it, step() it until it gives a stop reason, finish() it.

Why an object: a scheduler that keeps several runs in flight must see each one's phases (forked,
`ready N`, ended) while it runs, and stop it from outside (Ctrl-C of a sweep with runs in
flight). measure() is the loop for one run on its own: launch, step until done, finish.

Which number is the headline, and why: `peak_rss` is the larger of the kernel's exact per-process
high-water marks (VmHWM while a process lives, ru_maxrss from wait4 when it ends) and the sampled
peak of the tree's summed RSS. For a single-process program (every task program but the Elixir
wrapper's helpers) that is the kernel's exact figure, the same one GNU time prints as %M. For a
tree, no kernel counter gives the simultaneous peak of the sum, so the sampled sum is used, never
below the largest exact single-process peak. The cgroup peak is reported beside it: exact for
the whole tree and it includes kernel memory (thread stacks, page tables), but also any page cache
the run was first to touch.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import threading
import time

from runner.measure import cgroups, ending
from runner.measure.deadlines import READY_LATE, TIMEOUT
from runner.measure.hooks import INTERRUPTED
from runner.measure.launcher import LaunchReport, ensure_launcher, read_lines
from runner.measure.output import Output
from runner.measure.result import RunResult, Sample
from runner.measure.sampler import Sampler
from runner.measure.spec import Command, RunSpec, both
from runner.measure.teardown import kill_everything

# Why step() says a run is over (besides Deadlines' TIMEOUT and READY_LATE)
EXITED = "exited"  # the program exited (or was never started)
COMPANION = "companion"  # the companion gave up (stopped_reason says why)
WATCHED = "watched"  # the watch, or a watcher, stopped it (stopped_by, stopped_reason)
STOPPED = "interrupted"  # a watcher stopped it as Ctrl-C does: not a result


class Cancelled(KeyboardInterrupt):
    """The run was stopped from outside as Ctrl-C stops it (a sweep interrupted with this run in
    flight): everything of it is gone and it has no result."""


class Run:
    """One run of a command in a fresh memory cgroup, measured: what runs is the command
    (runner.measure.spec.Command), how it is measured and bounded the spec (RunSpec), both kept
    as they were given (command, spec), so that what a run was told is what its scheduler built."""

    def __init__(self, command: Command, spec: RunSpec | None = None) -> None:
        self.command, self.spec = command, spec or RunSpec()
        self.argv = [str(a) for a in command.argv]
        if not self.argv:
            raise ValueError("empty command")
        self.deadlines = self.spec.deadlines(command)
        self.interval, self.companion = self.spec.interval, command.companion
        self.stop_when, self.watchers = self.spec.stop_when, list(self.spec.watchers)
        self.cg = cgroups.for_run(self.spec.cgroup, root=self.spec.cgroup_root)
        self.cg_reason, self.cap, self.sockets = self.cg.reason, None, None
        self._limit(self.spec.memory_cap, command.account_sockets)
        self.at_hold, self.hold_split = self.spec.at_hold, None
        self.output = Output(both(command.on_line, self.spec.on_line), self.spec.on_stderr)
        self.report = LaunchReport()
        self.sampler = Sampler(self.cg, self.spec.on_sample)
        self.proc: subprocess.Popen | None = None
        self.readers: list[threading.Thread] = []
        self.started_at = ""
        self.timed_out, self.interrupted, self.held = False, False, False
        self.ready_deadline_s: float | None = None
        self.stopped: str | None = None
        self.stopped_by: str | None = None
        self.extended = 0.0
        self.reason: str | None = None  # why step() ended the run, once it has

    def _limit(self, memory_cap: int | None, account_sockets: bool) -> None:
        """The cgroup's cap (memory_cap bytes, swap excluded where possible) and, when asked, its
        accounting of the sockets the run accepts (cgroups.RunCgroup.account_sockets)."""
        if memory_cap is not None and self.cg.reason is None:
            try:
                self.cap = self.cg.set_limit(memory_cap)
            except OSError as e:
                self.cg_reason = f"cannot set the memory cap on {self.cg.path}: {e.strerror}"
        if account_sockets:
            self.sockets = self.cg.account_sockets()

    # --- what a watcher reads ------------------------------------------------------------------

    @property
    def forked(self) -> bool:
        return self.report.pid is not None and self.report.t_fork is not None

    @property
    def pid(self) -> int | None:
        """The program's PID (its process group's too), once forked."""
        return self.report.pid

    @property
    def t_fork(self) -> float | None:
        """time.monotonic() at the fork (the launcher's clock is the same)."""
        return self.report.t_fork

    @property
    def ready_s(self) -> float | None:
        """Seconds from the fork to `ready N`, None before it came."""
        at, t0 = self.output.ready_at, self.report.t_fork
        return None if at is None or t0 is None else at - t0

    @property
    def elapsed(self) -> float:
        return time.monotonic() - (self.report.t_fork or time.monotonic())

    @property
    def timeline(self) -> list[Sample]:
        return self.sampler.timeline

    # --- launch ---------------------------------------------------------------------------------

    def launch(self) -> None:
        """Start the program through the launcher in the run's cgroup, and its readers; returns
        once it is forked (or could not be). Call abandon() if this raises."""
        launcher = ensure_launcher()
        self.started_at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        nofile = [f"--nofile={self.command.nofile}"] if self.command.nofile else []
        rfd, wfd = os.pipe()
        try:
            self.proc = subprocess.Popen(
                [str(launcher), *nofile, str(wfd), self.cg.launcher_arg, *self.argv],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(wfd,),
                env=self.command.env,
                cwd=self.command.cwd,
                start_new_session=True,  # Ctrl-C reaches memrun only; memrun then kills the run
            )
        except BaseException:
            os.close(rfd)
            raise
        finally:
            os.close(wfd)
        self._read(os.fdopen(rfd, "rb"))
        self.report.started.wait()
        if self.forked:
            if self.companion:
                self.companion.begin()
            for w in self.watchers:
                w.launched(self)

    def _read(self, report_stream) -> None:  # type: ignore[no-untyped-def]
        """A thread per stream: stdout, stderr and the launcher's reports."""
        assert self.proc is not None
        self.readers += [
            threading.Thread(target=read_lines, args=(self.proc.stdout, self.output.on_stdout), daemon=True),
            threading.Thread(target=read_lines, args=(self.proc.stderr, self.output.on_stderr), daemon=True),
            threading.Thread(
                target=lambda: (
                    read_lines(report_stream, lambda b: self.report.feed(b.decode().strip())),
                    self.report.close(),
                ),
                daemon=True,
            ),
        ]
        for t in self.readers:
            t.start()

    # --- step -----------------------------------------------------------------------------------

    def step(self) -> str | None:
        """One sample and the checks after it, then a wait of one interval (cut short by the
        exit). Returns why the run is over (EXITED, TIMEOUT, READY_LATE, COMPANION, WATCHED,
        STOPPED) once it is, else None."""
        if self.reason is not None:
            return self.reason
        if not self.forked or self.report.exited.is_set():
            self.reason = EXITED
            return self.reason
        ready = self.output.ready_at is not None
        self.sampler.sample(self.report.t_fork or 0.0, self.report.pid or 0, ready and self._holding())
        if ready and not self.held:
            self.reached_hold()
        self.reason = self._why_stop()
        if self.reason is None:
            self.report.exited.wait(self.interval)
        return self.reason

    def reached_hold(self) -> None:
        """`ready N` came: every task waits. Called once, from the run's own thread, right after
        the first sample that follows the line (that sample has read the high-water marks): the
        hold's snapshot (at_hold, kept as hold_split; its read of the cgroup is offered to the
        sampler as a sample's is), then each watcher's held()."""
        self.held = True
        if self.at_hold is not None and self.report.pid is not None:
            self.hold_split = self.at_hold(self.cg.members(self.report.pid), self.cg, self.elapsed)
            read = dict(self.hold_split.get("cgroup") or {})
            if isinstance(usage := read.pop("usage", None), int):
                self.sampler.offer(usage, read, self._holding())
        for w in self.watchers:
            w.held(self)

    def _holding(self) -> bool:
        """Whether a companion holds what it opened now (the sampler's `holding`, once `ready`)."""
        return self.companion is not None and self.companion.holding

    def _why_stop(self) -> str | None:
        """Whether the run must stop now, and why: the companion gave up, a watcher or the watch
        stopped it, or a deadline passed."""
        if self.companion and (why := self.companion.step(self.output.ready_at)):
            self.stopped = why
            return COMPANION
        for w in self.watchers:
            if (stop := w.stepped(self)) is not None:
                if stop[0] == INTERRUPTED:
                    self.interrupted = True
                    return STOPPED
                self.stopped_by, self.stopped = stop
                return WATCHED
        if self.stop_when and (stop := self.stop_when(self.timeline, self.ready_s)) is not None:
            self.stopped_by, self.stopped = stop
            return WATCHED
        ready = self.output.ready_n is not None
        missed, self.extended = self.deadlines.missed(self.elapsed, ready, self.extended, self.timeline)
        if missed == TIMEOUT:
            self.timed_out = True
        elif missed == READY_LATE:
            self.timed_out, self.ready_deadline_s = True, self.deadlines.ready_by
        return missed

    # --- finish ---------------------------------------------------------------------------------

    def _take_down(self) -> None:
        """The companion ends first, while the program still runs (a client told to close its
        connections before its server is killed counts no drop the kill would cause); then
        nothing of the run survives (runner.measure.teardown)."""
        try:
            if self.companion:
                self.companion.end()
        finally:
            if self.proc is not None:
                kill_everything(self.report, self.proc, self.cg, self.readers, self.interrupted)
            elif self.interrupted:
                self.cg.kill_all()
                self.cg.remove()

    def abandon(self) -> None:
        """Stop the run wherever it is (an exception, Ctrl-C): everything of it is killed and its
        cgroup removed; there is no result."""
        self.interrupted = True
        try:
            self._take_down()
        finally:
            for w in self.watchers:
                w.finished(self)

    def finish(self) -> RunResult:
        """Take down what is left of the run and read its end. Raises Cancelled when a watcher
        stopped it as Ctrl-C does."""
        try:
            self._take_down()
            if self.interrupted:
                raise Cancelled("the run was stopped from outside")
            return self._result()
        finally:
            for w in self.watchers:
                w.finished(self)

    def _result(self) -> RunResult:
        sampler, report, out = self.sampler, self.report, self.output
        cg_end = ending.read_cgroup(self.cg, sampler, self.interval, self.cg_reason)
        t_fork = report.t_fork or time.monotonic()
        t_exit = report.t_exit or time.monotonic()
        ended = ending.outcome(report, self.proc.returncode if self.proc else None, list(out.stderr_tail))
        rss = ending.rss_peak(report, sampler, ended.error)
        return RunResult(
            argv=self.argv,
            started_at=self.started_at,
            exit_code=ended.exit_code,
            signal=ended.signal,
            timed_out=self.timed_out,
            ready_deadline_s=self.ready_deadline_s,
            stopped_reason=self.stopped,
            stopped_by=self.stopped_by,
            timeout_extended_s=self.extended or None,
            interrupted=self.interrupted,
            error=ended.error,
            wall_s=round(t_exit - t_fork, 6),
            user_s=report.done_utime if report.done_utime is not None else report.utime,
            sys_s=report.done_stime if report.done_stime is not None else report.stime,
            ready_n=out.ready_n if out.ready_at is not None else None,
            ready_s=round(out.ready_at - t_fork, 6) if out.ready_at is not None else None,
            stdout_other=out.stdout_other,
            peak_rss=rss.peak,
            peak_rss_source=rss.source,
            hwm_max=rss.hwm_max,
            hwm_sum=rss.hwm_sum,
            sampled_peak_rss=sampler.sampled_peak,
            ru_maxrss=rss.ru_maxrss,
            procs_max=sampler.procs_max,
            threads_max=sampler.threads_max,
            pte_peak=sampler.pte_peak,
            cgroup_version=self.cg.version,
            cgroup_peak=cg_end.peak,
            cgroup_kernel_peak=cg_end.kernel_peak,
            cgroup_peak_source=cg_end.source,
            cgroup_oom_kills=cg_end.oom_kills,
            cgroup_breakdown=sampler.breakdown,
            cgroup_breakdown_held=sampler.held,
            cgroup_reason=cg_end.reason,
            memory_cap=self.cap,
            socket_accounting=self.sockets,
            stderr_tail=list(out.stderr_tail),
            stdout_tail=list(out.stdout_tail),
            interval_s=self.interval,
            samples=len(sampler.timeline),
            timeline=sampler.timeline,
            hold_split=self.hold_split,
        )
