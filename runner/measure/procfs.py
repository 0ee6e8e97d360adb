"""Read the kernel's per-process counters from /proc/PID/status.

VmHWM is the kernel's own exact RSS high-water mark for a live process; sampling VmRSS can miss a
short peak, VmHWM cannot. Threads gives thread counts for the timeline (how far a thread-spawning
program got before a limit stopped it); /proc/PID/stat gives CPU time, so a timeline shows where a
stalled run spent its time (user code or the kernel).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import psutil

_FIELDS = {"VmRSS": "rss", "VmHWM": "hwm", "VmPTE": "pte", "Threads": "threads"}


@dataclass(frozen=True)
class ProcStatus:
    rss: int  # bytes
    hwm: int  # bytes
    pte: int  # bytes
    threads: int


def read_status(pid: int) -> ProcStatus | None:
    """Return the counters, or None when the process is gone (or a zombie without an mm)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            text = f.read().decode("ascii", "replace")
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    values: dict[str, int] = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        name = _FIELDS.get(key)
        if name is None:
            continue
        parts = rest.split()
        if not parts:
            continue
        number = int(parts[0])
        values[name] = number * 1024 if name != "threads" else number
    if "rss" not in values:  # kernel threads and zombies have no memory lines
        return None
    return ProcStatus(values["rss"], values.get("hwm", 0), values.get("pte", 0), values.get("threads", 1))


def descendants(pid: int) -> list[int]:
    """All live descendants of a process (one scan of /proc, as psutil does; threads are not listed).

    Used when no cgroup lists the run's processes. Per-thread /proc/PID/task/*/children would be
    exact too, but costs one read per thread: 10k reads per sample for a thread benchmark.
    """
    try:
        return [p.pid for p in psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return []


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def read_cpu(pid: int) -> tuple[float, float] | None:
    """(user, system) CPU seconds of a process: all its threads, live and ended, plus the children
    it has reaped (cutime, cstime), so a tree's sum does not drop when a child exits. None when
    the process is gone. Resolution is one clock tick (10 ms), fine over a timeline's windows."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            text = f.read().decode("ascii", "replace")
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    # Fields after the command name, which may itself hold spaces and parentheses.
    rest = text[text.rfind(")") + 2 :].split()
    try:
        utime, stime, cutime, cstime = (int(x) for x in rest[11:15])
    except ValueError:
        return None
    return (utime + cutime) / _TICK, (stime + cstime) / _TICK
