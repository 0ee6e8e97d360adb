"""Memory cgroup backends: v2, v1 and none, behind one interface (as BenchExec does).

A fresh memory cgroup per run gives the one exact peak for a whole process tree, and it counts
kernel memory (thread stacks, page tables) that RSS never shows. The program joins the cgroup in
the launcher between fork and exec, so every page it touches is charged here. Where no cgroup can
be made the backend says why, and every cgroup figure becomes null with that reason.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from runner.measure import placement
from runner.measure.placement import Placement
from runner.state import start_ticks

# memory.stat keys mapped to memrun's names, per cgroup version.
_V2_KEYS = {
    "anon": "anon",
    "file": "file",
    "kernel": "kernel",
    "kernel_stack": "kernel_stack",
    "pagetables": "pagetables",
    "slab": "slab",
    "sock": "sock",
    "shmem": "shmem",
}
_V1_KEYS = {"total_rss": "anon", "total_cache": "file", "total_shmem": "shmem"}


class CgroupUnavailable(RuntimeError):
    """No memory cgroup can be made here; the message says why."""


@dataclass
class RunCgroup:
    """One fresh memory cgroup holding one run."""

    version: str  # "v1" or "v2"
    path: Path

    @property
    def procs_file(self) -> Path:
        return self.path / "cgroup.procs"

    def _read_int(self, name: str) -> int | None:
        try:
            return int((self.path / name).read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def pids(self) -> list[int]:
        try:
            return [int(x) for x in self.procs_file.read_text().split()]
        except OSError:
            return []

    def usage(self) -> int | None:
        return self._read_int("memory.current" if self.version == "v2" else "memory.usage_in_bytes")

    def peak(self) -> tuple[int | None, str | None]:
        """The kernel's high-water mark for the cgroup, or None and why."""
        name = "memory.peak" if self.version == "v2" else "memory.max_usage_in_bytes"
        value = self._read_int(name)
        if value is None:
            return None, f"{name} not readable (cgroup {self.version}; memory.peak needs Linux 5.19+)"
        return value, None

    def breakdown(self) -> dict[str, int]:
        """Current memory.stat, reduced to anon / file / kernel parts where this version has them."""
        keys = _V2_KEYS if self.version == "v2" else _V1_KEYS
        out: dict[str, int] = {}
        try:
            for line in (self.path / "memory.stat").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key in keys:
                    out[keys[key]] = int(value)
        except (OSError, ValueError):
            return out
        if self.version == "v1":
            kmem = self._read_int("memory.kmem.usage_in_bytes")
            if kmem is not None:
                out["kernel"] = kmem
            # Socket buffers: a counter of their own in v1, outside memory.usage_in_bytes, and
            # only counted once socket accounting is on (account_sockets).
            tcp = self._read_int("memory.kmem.tcp.usage_in_bytes")
            if tcp:
                out["sock"] = tcp
        return out

    def account_sockets(self) -> bool:
        """Charge the TCP sockets of this cgroup's processes to it, those they accept included.

        cgroup v2 does so always. cgroup v1 associates sockets with a memory cgroup only once its
        memory.kmem.tcp.limit_in_bytes has been written (-1: no limit, accounting only); until
        then the struct sock of an accepted connection, allocated in softirq context, is charged
        nowhere (measured on Linux 6.18: 1.5 KiB per accepted connection in kmem without, 3.8 KiB
        with; docs/connections.md). The setting dies with the cgroup. The kernel
        logs once per boot that the file is deprecated. Returns whether sockets are accounted."""
        if self.version == "v2":
            return True
        try:
            (self.path / "memory.kmem.tcp.limit_in_bytes").write_text("-1")
        except OSError:
            return False
        return True

    def oom_kills(self) -> int | None:
        """How many processes the OOM killer took in this cgroup: evidence, not inference."""
        name = "memory.events" if self.version == "v2" else "memory.oom_control"
        try:
            for line in (self.path / name).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except (OSError, ValueError):
            pass
        return None

    def kernel_peak(self) -> int | None:
        """v1 keeps a separate kernel-memory high-water mark; v2 has none."""
        return self._read_int("memory.kmem.max_usage_in_bytes") if self.version == "v1" else None

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

    def set_limit(self, limit: int) -> int:
        """Cap the cgroup's memory (swap excluded where the controller allows); returns the limit
        the kernel took (it rounds to pages). A run past it is OOM-killed inside its cgroup, or its
        allocations fail, instead of the host's global OOM killer choosing among all processes."""
        if self.version == "v2":
            (self.path / "memory.max").write_text(str(limit))
            with contextlib.suppress(OSError):  # no swap controller: nothing to exclude
                (self.path / "memory.swap.max").write_text("0")
            return self._read_int("memory.max") or limit
        (self.path / "memory.limit_in_bytes").write_text(str(limit))
        memsw = self.path / "memory.memsw.limit_in_bytes"  # only with swap accounting enabled
        if memsw.exists():
            with contextlib.suppress(OSError):
                memsw.write_text(str(limit))
        return self._read_int("memory.limit_in_bytes") or limit

    def remove(self) -> None:
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


def mounts() -> list[tuple[str, str, set[str]]]:
    """(mount point, fstype, super options) of every cgroup mount, from /proc/self/mountinfo."""
    out = []
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        left, _, right = line.partition(" - ")
        fields = left.split()
        rfields = right.split()
        if len(fields) < 5 or len(rfields) < 3:
            continue
        fstype = rfields[0]
        if fstype in ("cgroup", "cgroup2"):
            out.append((fields[4], fstype, set(rfields[2].split(","))))
    return out


def own_path(controller: str | None) -> str | None:
    """This process's cgroup path for a v1 controller, or the v2 path when controller is None."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controller is None and controllers == "":
            return path
        if controller is not None and controller in controllers.split(","):
            return path
    return None


def find(mode: str = "auto", *, act: bool = True) -> Placement:
    """Pick a backend and the parent cgroup runs are made under (runner.measure.placement).

    mode is "auto", "v2", "v1" or "none". On v1 the parent is this process's own memory cgroup,
    so any limit that encloses memrun also encloses the runs. On v2 it may have to be made.
    act=False only describes what would be done.
    """
    if mode == "none":
        return Placement(None, None, "", "cgroup measurement disabled (--cgroup none)")
    table = mounts()
    reasons = []
    if mode in ("auto", "v2"):
        for point, fstype, _opts in table:
            if fstype != "cgroup2":
                continue
            try:
                controllers = (Path(point) / "cgroup.controllers").read_text().split()
            except OSError:
                controllers = []
            if "memory" not in controllers:
                reasons.append(f"cgroup v2 at {point} has no memory controller")
                continue
            return placement.v2(Path(point), own_path(None) or "/", act=act)
        if mode == "v2":
            return Placement(None, None, "", "; ".join(reasons) or "no cgroup v2 mount")
    if mode in ("auto", "v1"):
        for point, fstype, opts in table:
            if fstype == "cgroup" and "memory" in opts:
                parent = Path(point) / (own_path("memory") or "/").lstrip("/")
                return Placement("v1", parent, f"{parent} (cgroup v1: memrun's own memory cgroup)")
        reasons.append("no cgroup v1 memory controller mounted")
    return Placement(None, None, "", "; ".join(reasons) or "no memory cgroup found")


@cache
def prepared(mode: str = "auto") -> Placement:
    """The placement for this process, made once (a move into a leaf is done at most once)."""
    return find(mode, act=True)


def detect(mode: str = "auto") -> tuple[str | None, Path | None, str | None]:
    """(version, parent directory for run cgroups, reason when none), prepared once per process."""
    return prepared(mode).as_tuple()


RUN_NAME = re.compile(r"^memrun-(\d+)-(\d+)$")  # memrun-<owner pid>-<CLOCK_BOOTTIME ns at creation>


def _owner_alive(pid: int, created_ns: int) -> bool:
    """Whether the process that made a run cgroup still exists. A live process with that PID which
    started after the cgroup was made is a reuse of the PID, not the owner."""
    ticks = start_ticks(pid)
    return ticks is not None and ticks / os.sysconf("SC_CLK_TCK") <= created_ns / 1e9 + 1


def run_cgroups(max_depth: int = 6) -> list[tuple[RunCgroup, int, int]]:
    """Every memrun run cgroup anywhere in the memory hierarchy: (cgroup, owner PID, created ns)."""
    out = []
    for point, fstype, opts in mounts():
        if not (fstype == "cgroup2" or (fstype == "cgroup" and "memory" in opts)):
            continue
        version = "v2" if fstype == "cgroup2" else "v1"
        for dirpath, dirnames, _files in os.walk(point):
            if dirpath.count(os.sep) - point.count(os.sep) >= max_depth:
                dirnames.clear()
            for name in list(dirnames):
                m = RUN_NAME.match(name)
                if m:
                    dirnames.remove(name)  # a run cgroup has no children of its own
                    out.append((RunCgroup(version, Path(dirpath) / name), int(m.group(1)), int(m.group(2))))
    return out


def stale() -> list[RunCgroup]:
    """Run cgroups whose owning memrun process is gone: what a SIGKILLed memrun leaves behind.
    A live memrun's cgroups are never among them."""
    return [cg for cg, pid, created in run_cgroups() if not _owner_alive(pid, created)]


def remove_stale() -> list[Path]:
    """Kill what is left in each stale run cgroup and remove it; returns the paths removed."""
    removed = []
    for cg in stale():
        cg.kill_all(deadline=5)
        cg.remove()
        if not cg.path.exists():
            removed.append(cg.path)
    return removed


def create(mode: str = "auto", *, root: Path | None = None) -> RunCgroup:
    """Make a fresh cgroup for one run, or raise CgroupUnavailable with the reason.

    root overrides the detected parent directory (tests use it to simulate an unusable cgroup).
    """
    version, parent, reason = detect(mode)
    if version is None or parent is None:
        raise CgroupUnavailable(reason or "no memory cgroup")
    if root is not None:
        parent = root
    # Boot-time clock, the one /proc/PID/stat start times count in: stale() compares the two.
    name = f"memrun-{os.getpid()}-{time.clock_gettime_ns(time.CLOCK_BOOTTIME)}"
    path = parent / name
    try:
        path.mkdir()
    except OSError as e:
        raise CgroupUnavailable(
            f"cannot create a {version} memory cgroup under {parent}: {e.strerror}"
            + ("" if os.geteuid() == 0 else " (not root)")
        ) from None
    cg = RunCgroup(version, path)
    if version == "v2" and not (path / "memory.current").exists():
        # The parent does not delegate memory to its children; enabling it needs an empty parent.
        try:
            (parent / "cgroup.subtree_control").write_text("+memory")
        except OSError as e:
            cg.remove()
            raise CgroupUnavailable(
                f"memory controller not enabled for children of {parent} ({e.strerror})"
            ) from None
    if cg.usage() is None:
        cg.remove()
        raise CgroupUnavailable(f"{path} has no memory accounting files")
    return cg


def cap_problem(mode: str = "auto") -> str | None:
    """Why no run here can be capped (None when one can): made, capped and removed once, so a
    command whose answer depends on a cap learns before its first run that it would have none."""
    try:
        cg = create(mode)
    except CgroupUnavailable as e:
        return str(e)
    try:
        cg.set_limit(64 * 1024 * 1024)
    except OSError as e:
        return f"cannot set a memory limit on {cg.path}: {e.strerror}"
    finally:
        cg.remove()
    return None
