"""Measure one command: start it through the launcher, sample the tree, reap it, report.

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

import collections
import contextlib
import datetime as dt
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from runner.measure import cgroups, ending, hold, procfs
from runner.measure.launcher import LaunchReport, ensure_launcher, read_lines
from runner.measure.result import RunResult, Sample
from runner.measure.sampler import Sampler

READY_RE = re.compile(rb"^ready (\d+)\s*$")
STDERR_TAIL = 40


GRACE_STEP_S = 1.0
ENDING_OVER_S = 1.0  # threads must have fallen over this window for a run to count as ending


def still_ending(timeline: Sequence[Sample]) -> bool:
    """Whether the tree's thread count fell over the last ENDING_OVER_S (by 0.1 %, at least one)."""
    if not timeline:
        return False
    now = timeline[-1]
    then = next((p for p in reversed(timeline) if p.t <= now.t - ENDING_OVER_S), None)
    return then is not None and then.threads - now.threads >= max(1, then.threads // 1000)


def _kill_descendants_until_reaped(launcher: int, done: threading.Event, within_s: float) -> None:
    """Kill the launcher's descendants again and again until it reports every child reaped.

    One scan is not enough. psutil reads every process's parent first, then walks down from the
    launcher; a parent killed just before (by the group kill) and reaped during that walk is
    skipped, and so are the children it had when their parent was read: a setsid child escapes
    both the group kill and the scan (seen once in CI). Those children now belong to the launcher
    (the subreaper), so the next scan finds them. The launcher reports `done` only when it has no
    child left; scanning until then catches every such orphan. With a cgroup there is none left.
    """
    deadline = time.monotonic() + within_s
    while True:
        for pid in procfs.descendants(launcher):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if done.wait(0.05) or time.monotonic() > deadline:
            return


def _kill_group(pgid: int | None) -> None:
    if pgid:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)


def _kill_everything(
    report: LaunchReport,
    proc: subprocess.Popen,
    cg: cgroups.RunCgroup,
    readers: list[threading.Thread],
    interrupted: bool,
) -> None:
    """Whatever happened, nothing of the run survives this. Normally the program has exited and
    this only takes what it left behind; after a timeout or Ctrl-C it takes the program too. Three
    nets: its process group, its cgroup (catches setsid escapees) and, without a cgroup, the
    launcher's descendants (it is their subreaper)."""
    _kill_group(report.pid)
    cg.kill_all()
    _kill_descendants_until_reaped(proc.pid, report.done, within_s=10)
    report.exited.wait(10)
    report.done.wait(10)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    for t in readers:
        t.join(timeout=5)
    if interrupted:
        cg.remove()


class Companion(Protocol):
    """A process that runs beside the measured program, outside its cgroup, and may end the run
    (the connections workload's load client). measure() calls begin() once the program is
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


# At the hold (the first sample after `ready N`): given the tree's pids, the run's cgroup and the
# seconds since the fork, what the run's memory is made of then (runner.measure.hold.snapshot).
AtHold = Callable[[list[int], cgroups.RunCgroup, float], dict]


class Watch(Protocol):
    """Whether a run may stop before it ends by itself: given the samples so far and when `ready N`
    came (seconds since fork, None before), (code, reason) to stop it now, else None."""

    def __call__(self, timeline: Sequence[Sample], ready_s: float | None) -> tuple[str, str] | None: ...


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
    at_hold: AtHold | None = hold.snapshot,
    on_line: Callable[[bytes], None] | None = None,
) -> RunResult:
    """Run argv (no shell) and measure its memory. Ctrl-C kills the run, then re-raises.

    timeout: seconds after which the whole tree is killed (timed_out=True).
    ready_by: seconds by which `ready N` must have come, else the tree is killed then (timed_out=True,
    ready_deadline_s set): a capacity probe whose tasks were not all alive within its sleep can no
    longer be valid, and near a memory cap such a run may thrash until the timeout.
    timeout_grace: seconds the timeout may be pushed back, GRACE_STEP_S at a time, while the
    tree's thread count is still falling: thousands of OS threads that woke together can take
    longer to end than the timeout foresaw, and such a run is slow, not stuck
    (timeout_extended_s says by how much). A stuck run's threads do not end.
    interval: seconds between samples of the tree (the timeline's resolution).
    cgroup: "auto", "v2", "v1" or "none"; cgroup_root overrides where run cgroups are made.
    memory_cap: bytes the run's cgroup may use (swap excluded where possible), so that a run that
    outgrows the machine is stopped inside its cgroup instead of waking the host's OOM killer.
    nofile: the program's RLIMIT_NOFILE, set by the launcher before exec (a server of N connections).
    account_sockets: charge the sockets the run accepts to its cgroup (cgroups.RunCgroup.account_sockets).
    companion: a process that runs beside the program and may end the run early (Companion).
    stop_when: asked after every sample whether the run has shown what it was for (Watch); its
    (code, reason) stops it there, as stopped_by and stopped_reason.
    at_hold: called once, after the first sample that follows `ready N` (that sample has read the
    high-water marks), its dict kept as hold_split; None takes no snapshot.
    on_line: called with every line the program writes on stdout, in order (`ready` among them):
    the proof attacks read the trace a program writes under runner.tasks.proof.TRACE_ENV.
    """
    argv = [str(a) for a in argv]
    if not argv:
        raise ValueError("empty command")
    launcher = ensure_launcher()
    started_at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")

    cg = cgroups.for_run(cgroup, root=cgroup_root)
    cg_reason = cg.reason
    cap: int | None = None
    if memory_cap is not None and cg.reason is None:
        try:
            cap = cg.set_limit(memory_cap)
        except OSError as e:
            cg_reason = f"cannot set the memory cap on {cg.path}: {e.strerror}"
    sockets: bool | None = None
    if account_sockets:
        sockets = cg.account_sockets()

    report = LaunchReport()
    ready: dict[str, float | int] = {}
    stdout_other = 0
    stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL)
    stdout_tail: collections.deque[str] = collections.deque(maxlen=10)

    def on_stdout(line: bytes) -> None:
        nonlocal stdout_other
        t = time.monotonic()
        if on_line is not None:
            on_line(line)
        m = READY_RE.match(line)
        if m and "n" not in ready:
            ready["n"], ready["t"] = int(m.group(1)), t
        else:
            stdout_other += 1
            stdout_tail.append(line.decode("utf-8", "replace").rstrip("\n"))

    def on_stderr(line: bytes) -> None:
        stderr_tail.append(line.decode("utf-8", "replace").rstrip("\n"))

    rfd, wfd = os.pipe()
    try:
        proc = subprocess.Popen(
            [
                str(launcher),
                *([f"--nofile={nofile}"] if nofile else []),
                str(wfd),
                cg.launcher_arg,
                *argv,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(wfd,),
            env=env,
            cwd=cwd,
            start_new_session=True,  # Ctrl-C reaches memrun only; memrun then kills the run
        )
    except BaseException:
        os.close(rfd)
        os.close(wfd)
        # a Ctrl-C inside Popen may come after the launcher started: take what it started
        cg.kill_all()
        cg.remove()
        raise
    sampler = Sampler(cg, on_sample)
    timeline = sampler.timeline
    timed_out = False
    stopped: str | None = None
    stopped_by: str | None = None
    deadline: float | None = None
    extended = 0.0
    interrupted = False
    at_the_hold: dict | None = None

    def sample(t0: float) -> None:
        holding = companion is not None and "t" in ready and companion.holding
        sampler.sample(t0, report.pid or 0, holding)

    os.close(wfd)
    report_stream = os.fdopen(rfd, "rb")
    readers: list[threading.Thread] = []
    try:
        # Inside the try: under load, Ctrl-C can arrive while the readers start, after the program
        # (and anything it forked) is already running; the finally below must still take it all.
        readers += [
            threading.Thread(target=read_lines, args=(proc.stdout, on_stdout), daemon=True),
            threading.Thread(target=read_lines, args=(proc.stderr, on_stderr), daemon=True),
            threading.Thread(
                target=lambda: (
                    read_lines(report_stream, lambda b: report.feed(b.decode().strip())),
                    report.close(),
                ),
                daemon=True,
            ),
        ]
        for t in readers:
            t.start()
        report.started.wait()
        if report.pid is not None and report.t_fork is not None:
            t0 = report.t_fork
            if companion:
                companion.begin()
            while not report.exited.is_set():
                sample(t0)
                if at_hold and at_the_hold is None and "t" in ready:
                    at_the_hold = at_hold(cg.members(report.pid), cg, time.monotonic() - t0)
                if companion and (stopped := companion.step(ready.get("t"))):
                    break
                ready_s = float(ready["t"]) - t0 if "t" in ready else None
                if stop_when and (stop := stop_when(timeline, ready_s)) is not None:
                    stopped_by, stopped = stop
                    break
                if timeout is not None and time.monotonic() - t0 > timeout + extended:
                    if extended < timeout_grace and still_ending(timeline):
                        extended += GRACE_STEP_S
                        continue
                    timed_out = True
                    break
                if ready_by is not None and "n" not in ready and time.monotonic() - t0 > ready_by:
                    timed_out, deadline = True, ready_by
                    break
                report.exited.wait(interval)
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        # The companion ends first, while the program still runs: a client told to close its
        # connections before its server is killed counts no drop the kill would cause.
        try:
            if companion:
                companion.end()
        finally:
            _kill_everything(report, proc, cg, readers, interrupted)

    cg_end = ending.read_cgroup(cg, sampler, interval, cg_reason)
    t_fork = report.t_fork or time.monotonic()
    t_exit = report.t_exit or time.monotonic()
    ended = ending.outcome(report, proc.returncode, list(stderr_tail))
    rss = ending.rss_peak(report, sampler, ended.error)

    return RunResult(
        argv=argv,
        started_at=started_at,
        exit_code=ended.exit_code,
        signal=ended.signal,
        timed_out=timed_out,
        ready_deadline_s=deadline,
        stopped_reason=stopped,
        stopped_by=stopped_by,
        timeout_extended_s=extended or None,
        interrupted=interrupted,
        error=ended.error,
        wall_s=round(t_exit - t_fork, 6),
        user_s=report.done_utime if report.done_utime is not None else report.utime,
        sys_s=report.done_stime if report.done_stime is not None else report.stime,
        ready_n=int(ready["n"]) if "n" in ready else None,
        ready_s=round(float(ready["t"]) - t_fork, 6) if "t" in ready else None,
        stdout_other=stdout_other,
        peak_rss=rss.peak,
        peak_rss_source=rss.source,
        hwm_max=rss.hwm_max,
        hwm_sum=rss.hwm_sum,
        sampled_peak_rss=sampler.sampled_peak,
        ru_maxrss=rss.ru_maxrss,
        procs_max=sampler.procs_max,
        threads_max=sampler.threads_max,
        pte_peak=sampler.pte_peak,
        cgroup_version=cg.version,
        cgroup_peak=cg_end.peak,
        cgroup_kernel_peak=cg_end.kernel_peak,
        cgroup_peak_source=cg_end.source,
        cgroup_oom_kills=cg_end.oom_kills,
        cgroup_breakdown=sampler.breakdown,
        cgroup_breakdown_held=sampler.held,
        cgroup_reason=cg_end.reason,
        memory_cap=cap,
        socket_accounting=sockets,
        stderr_tail=list(stderr_tail),
        stdout_tail=list(stdout_tail),
        interval_s=interval,
        samples=len(timeline),
        timeline=timeline,
        hold_split=at_the_hold,
    )
