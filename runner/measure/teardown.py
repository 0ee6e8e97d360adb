"""Taking down whatever a run left: its process group, its cgroup, the launcher's descendants, the
launcher itself and the threads that read its pipes."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time

from runner.measure import cgroups, procfs
from runner.measure.launcher import LaunchReport


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


def kill_group(pgid: int | None) -> None:
    if pgid:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)


def kill_everything(
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
    kill_group(report.pid)
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
