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

from runner.measure import cgroups, procfs
from runner.measure.launcher import LaunchReport, ensure_launcher, read_lines
from runner.measure.result import RunResult, Sample, signal_name

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
    cg: cgroups.RunCgroup | None,
    readers: list[threading.Thread],
    interrupted: bool,
) -> None:
    """Whatever happened, nothing of the run survives this. Normally the program has exited and
    this only takes what it left behind; after a timeout or Ctrl-C it takes the program too. Three
    nets: its process group, its cgroup (catches setsid escapees) and, without a cgroup, the
    launcher's descendants (it is their subreaper)."""
    _kill_group(report.pid)
    if cg:
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
    if interrupted and cg:
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
    """
    argv = [str(a) for a in argv]
    if not argv:
        raise ValueError("empty command")
    launcher = ensure_launcher()
    started_at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")

    cg: cgroups.RunCgroup | None = None
    cg_reason: str | None = None
    cap: int | None = None
    try:
        cg = cgroups.create(cgroup, root=cgroup_root)
    except cgroups.CgroupUnavailable as e:
        cg_reason = str(e)
    if cg and memory_cap is not None:
        try:
            cap = cg.set_limit(memory_cap)
        except OSError as e:
            cg_reason = f"cannot set the memory cap on {cg.path}: {e.strerror}"
    sockets: bool | None = None
    if cg and account_sockets:
        sockets = cg.account_sockets()

    report = LaunchReport()
    ready: dict[str, float | int] = {}
    stdout_other = 0
    stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL)
    stdout_tail: collections.deque[str] = collections.deque(maxlen=10)

    def on_stdout(line: bytes) -> None:
        nonlocal stdout_other
        t = time.monotonic()
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
                str(cg.procs_file) if cg else "-",
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
        if cg:  # a Ctrl-C inside Popen may come after the launcher started: take what it started
            cg.kill_all()
            cg.remove()
        raise
    timeline: list[Sample] = []
    hwm: dict[int, int] = {}
    sampled_peak: int | None = None
    pte_peak: int | None = None
    threads_max = 0
    procs_max = 0
    cg_best = -1
    cg_breakdown: dict[str, int] = {}
    held_best = -1
    cg_held: dict[str, int] = {}
    timed_out = False
    stopped: str | None = None
    deadline: float | None = None
    extended = 0.0
    interrupted = False

    def sample(t0: float) -> None:
        nonlocal sampled_peak, pte_peak, threads_max, procs_max, cg_best, cg_breakdown, held_best, cg_held
        pids = cg.pids() if cg else [report.pid, *procfs.descendants(report.pid)]
        rss = threads = pte = procs = 0
        user = system = 0.0
        for pid in pids:
            st = procfs.read_status(pid)
            if st is None:
                continue
            procs += 1
            rss += st.rss
            threads += st.threads
            pte += st.pte
            hwm[pid] = max(hwm.get(pid, 0), st.hwm)
            cpu = procfs.read_cpu(pid)
            if cpu is not None:
                user, system = user + cpu[0], system + cpu[1]
        usage = cg.usage() if cg else None
        if usage is not None and usage > cg_best:
            cg_best = usage
            cg_breakdown = cg.breakdown()
        if cg and companion and "t" in ready and companion.holding:
            # The highest total may come as the companion undoes its work (a server whose user
            # memory grows while its sockets are freed at the close): the kernel part then is
            # read half-emptied. Keep the breakdown of the highest kernel part while held too.
            held = cg.breakdown()
            kernel = held.get("kernel", 0) + held.get("sock", 0)
            if kernel > held_best:
                held_best, cg_held = kernel, held
        if procs:
            sampled_peak = max(sampled_peak or 0, rss)
            pte_peak = max(pte_peak or 0, pte)
        threads_max = max(threads_max, threads)
        procs_max = max(procs_max, procs)
        cpu_s = (round(user, 2), round(system, 2)) if procs else (None, None)
        point = Sample(round(time.monotonic() - t0, 4), rss, threads, procs, usage, *cpu_s)
        timeline.append(point)
        if on_sample:
            on_sample(point)

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
                if companion and (stopped := companion.step(ready.get("t"))):
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

    cg_peak = cg_kernel_peak = cg_oom = cg_source = None
    if cg:
        cg_oom = cg.oom_kills()
        cg_peak, reason = cg.peak()
        cg_source = "kernel"
        if reason and cg_best >= 0:
            # No kernel high-water mark (v2 before 5.19): the highest memory.current sampled.
            cg_peak, cg_source = cg_best, f"sampled memory.current every {interval:g} s ({reason})"
        elif reason:
            cg_reason, cg_source = reason, None
        cg_kernel_peak = cg.kernel_peak()
        cg.remove()

    t_fork = report.t_fork or time.monotonic()
    t_exit = report.t_exit or time.monotonic()
    status = report.status
    exit_code = sig = None
    if status is not None:
        if os.WIFEXITED(status):
            exit_code = os.WEXITSTATUS(status)
        elif os.WIFSIGNALED(status):
            sig = signal_name(os.WTERMSIG(status))
    error = report.exec_error
    if report.pid is None and error is None:
        error = f"launcher failed (exit {proc.returncode}): " + " | ".join(stderr_tail)
    if error:
        exit_code, sig = None, None

    ru_maxrss = report.maxrss_kib * 1024 if report.maxrss_kib is not None else None
    if report.pid is not None and ru_maxrss is not None and not error:
        hwm[report.pid] = max(hwm.get(report.pid, 0), ru_maxrss)
    kernel_marks = list(hwm.values())
    if report.done_maxrss_kib is not None and not error:
        kernel_marks.append(report.done_maxrss_kib * 1024)
    hwm_max = max(kernel_marks) if kernel_marks else None
    if hwm_max is not None and hwm_max >= (sampled_peak or 0):
        peak, source = hwm_max, "kernel-hwm"
    else:
        peak, source = sampled_peak or 0, "sampled-tree-sum"

    return RunResult(
        argv=argv,
        started_at=started_at,
        exit_code=exit_code,
        signal=sig,
        timed_out=timed_out,
        ready_deadline_s=deadline,
        stopped_reason=stopped,
        timeout_extended_s=extended or None,
        interrupted=interrupted,
        error=error,
        wall_s=round(t_exit - t_fork, 6),
        user_s=report.done_utime if report.done_utime is not None else report.utime,
        sys_s=report.done_stime if report.done_stime is not None else report.stime,
        ready_n=int(ready["n"]) if "n" in ready else None,
        ready_s=round(float(ready["t"]) - t_fork, 6) if "t" in ready else None,
        stdout_other=stdout_other,
        peak_rss=peak,
        peak_rss_source=source,
        hwm_max=hwm_max,
        hwm_sum=sum(hwm.values()) if hwm else None,
        sampled_peak_rss=sampled_peak,
        ru_maxrss=ru_maxrss,
        procs_max=procs_max,
        threads_max=threads_max,
        pte_peak=pte_peak,
        cgroup_version=cg.version if cg else None,
        cgroup_peak=cg_peak,
        cgroup_kernel_peak=cg_kernel_peak,
        cgroup_peak_source=cg_source,
        cgroup_oom_kills=cg_oom,
        cgroup_breakdown=cg_breakdown,
        cgroup_breakdown_held=cg_held,
        cgroup_reason=cg_reason,
        memory_cap=cap,
        socket_accounting=sockets,
        stderr_tail=list(stderr_tail),
        stdout_tail=list(stdout_tail),
        interval_s=interval,
        samples=len(timeline),
        timeline=timeline,
    )
