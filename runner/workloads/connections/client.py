"""memrun's load client (client.c) for one run: built on first use, started through the launcher
into a memory cgroup of its own (a sibling of the run's, so never in the measured tree), told
when to close, and reported on: its own summary, its cgroup peak and its CPU time.

Why through the launcher: it puts the client in its cgroup between fork and exec (every page and
socket it makes is charged there), sets its RLIMIT_NOFILE, reads its CPU time and peak RSS with
wait4, and kills it if memrun dies (PR_SET_PDEATHSIG); the client itself closes every connection
when its stdin reaches EOF, so nothing is left behind either way.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import signal
import subprocess
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from runner.measure import cgroups
from runner.measure.launcher import LaunchReport, compiled, ensure_launcher, read_lines
from runner.measure.result import signal_name
from runner.paths import BUILD_DIR

SOURCE = Path(__file__).with_name("client.c")
FINISH_S = 60.0  # closing a million sockets takes seconds; a client stuck longer is killed
STDERR_TAIL = 20


def client_path() -> Path:
    return BUILD_DIR / "tools" / "memrun-connect"


def ensure_client() -> Path:
    """The client binary, (re)built when missing or older than its source."""
    return compiled(SOURCE, client_path(), what="the connections client")


@dataclass(frozen=True)
class ClientReport:
    """What one run's load client did and what it cost; stored in the run record as `client`.

    summary is the client's own account (client.c: connected, dropped, connect errors, listen
    drops, its elapsed times); None when it printed none (it could not start, or was killed)."""

    summary: dict[str, Any] | None
    exit_code: int | None
    signal: str | None
    error: str | None  # it could not be started at all
    stderr_tail: list[str] = field(default_factory=list)
    connected_s: float | None = None  # seconds from its start to `connected N`
    cgroup_peak: int | None = None  # its own cgroup's peak: its memory and its sockets' kernel memory
    cgroup_kernel_peak: int | None = None  # v1: kernel part of that (kmem high-water mark)
    cgroup_reason: str | None = None
    maxrss: int | None = None  # bytes, from wait4
    user_s: float | None = None
    sys_s: float | None = None

    def count(self, key: str) -> int:
        value = (self.summary or {}).get(key)
        return int(value) if isinstance(value, int | float) else 0

    @property
    def problem(self) -> str | None:
        """Why the client did not do its job, in words, or None."""
        if self.error:
            return f"it could not start: {self.error}"
        if self.summary and self.summary.get("error"):
            return str(self.summary["error"])
        if self.summary is None:
            how = f"killed by {self.signal}" if self.signal else f"exit {self.exit_code}"
            last = next((line for line in reversed(self.stderr_tail) if line.strip()), "")
            return f"it ended without a summary ({how})" + (f": {last}" if last else "")
        return None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class LoadClient:
    """The client of one run: start(), close() once the hold is over, finish() for the report."""

    def __init__(
        self,
        port: int,
        n: int,
        *,
        nofile: int,
        memory_cap: int | None = None,
        cgroup: str = "auto",
    ) -> None:
        self.port, self.n, self.nofile = port, n, nofile
        self.memory_cap, self.mode = memory_cap, cgroup
        self.cg: cgroups.RunCgroup = cgroups.NoCgroup("the client has not started")
        self.cg_reason: str | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self.report = LaunchReport()
        self.summary: dict[str, Any] | None = None
        self.connected_s: float | None = None
        self.stderr: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL)
        self.readers: list[threading.Thread] = []
        self.start_error: str | None = None
        self._closed = False
        self._lock = threading.Lock()

    def _on_stdout(self, raw: bytes) -> None:
        line = raw.decode("utf-8", "replace").strip()
        kind, _, rest = line.partition(" ")
        if kind == "connected":
            with contextlib.suppress(ValueError, IndexError):
                self.connected_s = float(rest.split()[1])
        elif kind == "summary":
            with contextlib.suppress(ValueError):
                self.summary = json.loads(rest)

    def start(self) -> None:
        """Build if needed, make its cgroup, start it. A failure is kept for the report (the run
        is then stopped by Hold.step), never raised past here but a missing C compiler."""
        binary, launcher = ensure_client(), ensure_launcher()
        self.cg = cgroups.for_run(self.mode)
        self.cg_reason = self.cg.reason
        if self.cg.reason is None:
            if self.memory_cap is not None:
                with contextlib.suppress(OSError):
                    self.cg.set_limit(self.memory_cap)
            self.cg.account_sockets()
        rfd, wfd = os.pipe()
        argv = [
            str(launcher),
            f"--nofile={self.nofile}",
            str(wfd),
            self.cg.launcher_arg,
            str(binary),
            str(self.port),
            str(self.n),
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
            threading.Thread(target=read_lines, args=(self.proc.stdout, self._on_stdout), daemon=True),
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

    def close(self) -> None:
        """Tell the client to close every connection (once; it then reports and exits)."""
        with self._lock:
            if self._closed or self.proc is None or self.proc.stdin is None:
                return
            self._closed = True
            with contextlib.suppress(OSError):
                self.proc.stdin.write(b"close\n")
                self.proc.stdin.flush()
            with contextlib.suppress(OSError):
                self.proc.stdin.close()

    def finish(self, within_s: float = FINISH_S) -> ClientReport:
        """Close (if not yet told), wait for the client's summary and exit, kill it if it hangs,
        read its cgroup and remove it. Nothing of the client survives this call."""
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
        error = self.start_error or self.report.exec_error
        return ClientReport(
            summary=self.summary,
            exit_code=exit_code,
            signal=sig,
            error=error,
            stderr_tail=list(self.stderr),
            connected_s=self.connected_s,
            cgroup_peak=peak,
            cgroup_kernel_peak=kernel,
            cgroup_reason=self.cg_reason,
            maxrss=self.report.maxrss_kib * 1024 if self.report.maxrss_kib is not None else None,
            user_s=self.report.utime,
            sys_s=self.report.stime,
        )
