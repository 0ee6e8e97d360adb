"""Finding where run cgroups can go, making one per run, and cleaning up after a killed memrun.

Which backend (runner.measure.cgroups.v1, .v2) a run gets follows from the mounts; the parent its
cgroup is made under from placement (on v2 it may have to be made). Where none can be made,
for_run() gives the none backend with the reason, and every cgroup figure becomes null with it.
"""

from __future__ import annotations

import os
import re
import time
from functools import cache
from pathlib import Path

from runner.measure.cgroups import placement
from runner.measure.cgroups.base import CgroupUnavailable, RunCgroup
from runner.measure.cgroups.none import NoCgroup
from runner.measure.cgroups.placement import Placement
from runner.measure.cgroups.v1 import V1Cgroup
from runner.measure.cgroups.v2 import V2Cgroup
from runner.state import start_ticks

BACKENDS: dict[str, type[RunCgroup]] = {"v1": V1Cgroup, "v2": V2Cgroup}


def cgroup_at(version: str, path: Path) -> RunCgroup:
    """The backend of that version for an existing cgroup directory."""
    return BACKENDS[version](path)


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
    """Pick a backend and the parent cgroup runs are made under (runner.measure.cgroups.placement).

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
                    out.append((cgroup_at(version, Path(dirpath) / name), int(m.group(1)), int(m.group(2))))
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
    cg = cgroup_at(version, path)
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


def for_run(mode: str = "auto", *, root: Path | None = None) -> RunCgroup:
    """A fresh cgroup for one run, or the none backend with the reason there is none."""
    try:
        return create(mode, root=root)
    except CgroupUnavailable as e:
        return NoCgroup(str(e))


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
