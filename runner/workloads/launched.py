"""A load client of memrun's own, beside a measured program: the part the workloads' clients
share (connections' memrun-connect, http's memrun-http). Started through the launcher into a
memory cgroup of its own (a sibling of the run's, so never in the measured tree), optionally on
CPUs of its own (`taskset`), fed commands on stdin, its stdout lines handed to the workload's
client, and reported on: exit, its cgroup's peak, its CPU time.

Why through the launcher: it puts the client in its cgroup between fork and exec (every page and
socket it makes is charged there), sets its RLIMIT_NOFILE, reads its CPU time and peak RSS with
wait4, and kills it if memrun dies (PR_SET_PDEATHSIG).
"""

from __future__ import annotations

import collections
import contextlib
import os
import signal
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.measure import cgroups
from runner.measure.launcher import LaunchReport, ensure_launcher, read_lines
from runner.measure.result import signal_name

FINISH_S = 60.0  # closing a million sockets takes seconds; a client stuck longer is killed
STDERR_TAIL = 20


@dataclass(frozen=True)
class Ended:
    """How a launched client ended and what it cost (its own process and cgroup)."""

    exit_code: int | None
    signal: str | None
    error: str | None  # it could not be started at all
    stderr_tail: list[str] = field(default_factory=list)
    cgroup_peak: int | None = None  # its own cgroup's peak: its memory and its sockets' kernel memory
    cgroup_kernel_peak: int | None = None  # v1: kernel part of that (kmem high-water mark)
    cgroup_reason: str | None = None
    maxrss: int | None = None  # bytes, from wait4
    user_s: float | None = None
    sys_s: float | None = None


class LaunchedClient:
    """start(binary, args), send(line), close() (stdin's EOF: the client closes and reports),
    finish() -> Ended. on_stdout(line) is the workload's: override it."""

    def __init__(
        self, *, nofile: int, memory_cap: int | None = None, cgroup: str = "auto", cpus: str | None = None
    ) -> None:
        self.nofile, self.memory_cap, self.mode, self.cpus = nofile, memory_cap, cgroup, cpus
        self.cg: cgroups.RunCgroup = cgroups.NoCgroup("the client has not started")
        self.cg_reason: str | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self.report = LaunchReport()
        self.stderr: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL)
        self.readers: list[threading.Thread] = []
        self.start_error: str | None = None
        self._closed = False
        self._lock = threading.Lock()

    def on_stdout(self, line: str) -> None:
        """One line the client printed (stripped)."""

    def launch(self, binary: Path, args: list[str]) -> None:
        """Make its cgroup, start it. A failure is kept for the report (the workload's companion
        then stops the run), never raised past here."""
        launcher = ensure_launcher()
        self.cg = cgroups.for_run(self.mode)
        self.cg_reason = self.cg.reason
        if self.cg.reason is None:
            if self.memory_cap is not None:
                with contextlib.suppress(OSError):
                    self.cg.set_limit(self.memory_cap)
            self.cg.account_sockets()
        pin = ["taskset", "-c", self.cpus] if self.cpus else []
        rfd, wfd = os.pipe()
        argv = [
            str(launcher),
            f"--nofile={self.nofile}",
            str(wfd),
            self.cg.launcher_arg,
            *pin,
            str(binary),
            *args,
        ]
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(wfd,),
                start_new_session=True,
            )
        except OSError as e:
            os.close(rfd)
            self.start_error = f"cannot start {launcher}: {e.strerror}"
            self.report.close()
            return
        finally:
            os.close(wfd)
        stream = os.fdopen(rfd, "rb")
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self.readers = [
            threading.Thread(
                target=read_lines,
                args=(self.proc.stdout, lambda b: self.on_stdout(b.decode("utf-8", "replace").strip())),
                daemon=True,
            ),
            threading.Thread(
                target=read_lines,
                args=(self.proc.stderr, lambda b: self.stderr.append(b.decode("utf-8", "replace").rstrip())),
                daemon=True,
            ),
            threading.Thread(
                target=lambda: (
                    read_lines(stream, lambda b: self.report.feed(b.decode().strip())),
                    self.report.close(),
                    stream.close(),
                ),
                daemon=True,
            ),
        ]
        for t in self.readers:
            t.start()

    @property
    def ended(self) -> bool:
        """Whether the client has exited (or never started)."""
        return self.start_error is not None or self.report.exited.is_set()

    def send(self, line: str) -> None:
        """One command on its stdin (nothing once it is closed)."""
        with self._lock:
            if self._closed or self.proc is None or self.proc.stdin is None:
                return
            with contextlib.suppress(OSError):
                self.proc.stdin.write(line.encode() + b"\n")
                self.proc.stdin.flush()

    def close(self, last: str | None = "close") -> None:
        """Send `last` and close its stdin (once): the client closes everything and reports."""
        if last:
            self.send(last)
        with self._lock:
            if self._closed or self.proc is None or self.proc.stdin is None:
                return
            self._closed = True
            with contextlib.suppress(OSError):
                self.proc.stdin.close()

    def end(self, within_s: float = FINISH_S) -> Ended:
        """Close (if not yet told), wait for its exit, kill it if it hangs, read its cgroup and
        remove it. Nothing of the client survives this call."""
        self.close()
        if self.proc is not None:
            self.report.exited.wait(within_s)
            if self.report.pid:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.report.pid, signal.SIGKILL)  # if it hung: its group, its cgroup
            self.cg.kill_all()
            self.report.done.wait(10)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            for t in self.readers:
                t.join(timeout=5)
        peak, _ = self.cg.peak()
        kernel = self.cg.kernel_peak()
        self.cg.remove()
        exit_code = sig = None
        if self.report.status is not None:
            if os.WIFEXITED(self.report.status):
                exit_code = os.WEXITSTATUS(self.report.status)
            elif os.WIFSIGNALED(self.report.status):
                sig = signal_name(os.WTERMSIG(self.report.status))
        return Ended(
            exit_code=exit_code,
            signal=sig,
            error=self.start_error or self.report.exec_error,
            stderr_tail=list(self.stderr),
            cgroup_peak=peak,
            cgroup_kernel_peak=kernel,
            cgroup_reason=self.cg_reason,
            maxrss=self.report.maxrss_kib * 1024 if self.report.maxrss_kib is not None else None,
            user_s=self.report.utime,
            sys_s=self.report.stime,
        )


def ended_fields(ended: Ended) -> dict[str, Any]:
    """An Ended as keyword arguments of a workload's report."""
    return {k: getattr(ended, k) for k in Ended.__dataclass_fields__}


def problem(ended: Any, summary: dict[str, Any] | None) -> str | None:
    """Why a client did not do its job, in words, or None: it could not start, it said why in
    its summary, or it ended without one (how, and its last stderr line)."""
    if ended.error:
        return f"it could not start: {ended.error}"
    if summary and summary.get("error"):
        return str(summary["error"])
    if summary is None:
        how = f"killed by {ended.signal}" if ended.signal else f"exit {ended.exit_code}"
        last = next((line for line in reversed(ended.stderr_tail) if line.strip()), "")
        return f"it ended without a summary ({how})" + (f": {last}" if last else "")
    return None
