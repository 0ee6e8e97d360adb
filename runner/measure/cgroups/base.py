"""The interface every memory cgroup backend has, as BenchExec's abstract Cgroups: one fresh cgroup
per run, which the launcher puts the program in between fork and exec, so every page it touches is
charged there. The one exact peak for a whole process tree comes from it, with the kernel memory
(thread stacks, page tables, sockets) that RSS never shows.

Three backends: cgroup v1 and v2 (runner.measure.cgroups.v1, .v2) and none (.none), which stands
where no cgroup can be made and says why, so that the measuring core asks the same questions of
every run and never checks for a missing cgroup.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import time
from abc import ABC, abstractmethod
from pathlib import Path


class CgroupUnavailable(RuntimeError):
    """No memory cgroup can be made here; the message says why."""


class RunCgroup(ABC):
    """One fresh memory cgroup holding one run."""

    version: str | None = None  # "v1", "v2", or None where there is no cgroup
    reason: str | None = None  # why the cgroup figures are missing (the none backend)

    def __init__(self, path: Path) -> None:
        self.path = path

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.path!s})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.path == self.path  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), self.path))

    @property
    def launcher_arg(self) -> str:
        """What the launcher is told to join before exec: this cgroup's procs file."""
        return str(self.path / "cgroup.procs")

    def _read_int(self, name: str) -> int | None:
        try:
            return int((self.path / name).read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def _stat(self, keys: dict[str, str]) -> dict[str, int] | None:
        """memory.stat reduced to memrun's names for this version's keys; None when unreadable."""
        out: dict[str, int] = {}
        try:
            for line in (self.path / "memory.stat").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key in keys:
                    out[keys[key]] = int(value)
        except (OSError, ValueError):
            return None
        return out

    def pids(self) -> list[int]:
        """The processes in the cgroup."""
        try:
            return [int(x) for x in (self.path / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def members(self, root: int) -> list[int]:
        """The run's processes, root's tree however it forked: what the cgroup holds."""
        return self.pids()

    @abstractmethod
    def usage(self) -> int | None:
        """The memory charged to the cgroup now, in bytes."""

    @abstractmethod
    def peak(self) -> tuple[int | None, str | None]:
        """The kernel's high-water mark for the cgroup, or None and why."""

    @abstractmethod
    def breakdown(self) -> dict[str, int]:
        """Current memory.stat, reduced to anon / file / kernel (/ sock) parts where it has them."""

    @abstractmethod
    def account_sockets(self) -> bool | None:
        """Charge the TCP sockets of this cgroup's processes to it, those they accept included;
        returns whether sockets are accounted (None: no cgroup to charge)."""

    @abstractmethod
    def oom_kills(self) -> int | None:
        """How many processes the OOM killer took in this cgroup: evidence, not inference."""

    def kernel_peak(self) -> int | None:
        """A separate kernel-memory high-water mark, where the version keeps one."""
        return None

    @abstractmethod
    def set_limit(self, limit: int) -> int:
        """Cap the cgroup's memory (swap excluded where the controller allows); returns the limit
        the kernel took (it rounds to pages). A run past it is OOM-killed inside its cgroup, or its
        allocations fail, instead of the host's global OOM killer choosing among all processes."""

    def kill_all(self, deadline: float = 10.0) -> None:
        """SIGKILL every process in the cgroup, including ones that left the process group."""
        kill_file = self.path / "cgroup.kill"
        if kill_file.exists():
            with contextlib.suppress(OSError):
                kill_file.write_text("1")
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.02)

    def remove(self) -> None:
        """Remove the (empty) cgroup, waiting out the moment the kernel still calls it busy."""
        for _ in range(100):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError as e:
                if e.errno != errno.EBUSY:
                    return
                time.sleep(0.05)
