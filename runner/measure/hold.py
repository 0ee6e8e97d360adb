"""What a run's memory is made of at its hold: one snapshot, once all N tasks wait.

Taken once per run, at the first sample after `ready N` (the sample has read every process's
high-water mark first), from outside the program: /proc/PID/smaps of every process of the run's
tree, split by kind of mapping (runner.measure.smaps), their page tables (VmPTE) and threads, and
the run cgroup's usage and memory.stat (v2: kernel_stack, pagetables, slab, sock; v1 keeps only
the kernel total, memory.kmem.usage_in_bytes, and sockets apart). It reads; it allocates nothing
in the program and charges nothing to its cgroup, so the run's figures are the same with or without
it (tests/measure/test_hold.py runs a program of known cost both ways).

The record is compact: sums per class, never the raw smaps (a 10k-thread process has 40k mappings).
`memrun explain` turns the snapshots of a variant's runs at several N into a per-task split.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from runner.measure import procfs, smaps
from runner.measure.cgroups import RunCgroup


def snapshot(pids: Sequence[int], cg: RunCgroup, t: float) -> dict[str, Any]:
    """The run's split now. pids: the processes of its tree; t: seconds since the fork, kept with
    the time the snapshot took, so a reader can check it fell inside the hold."""
    start = time.monotonic()
    user: dict[str, dict[str, int]] = {}
    procs = threads = pte = 0
    for pid in pids:
        status = procfs.read_status(pid)
        split = smaps.read_split(pid)
        if status is None or split is None:
            continue
        procs += 1
        threads += status.threads
        pte += status.pte
        smaps.add(user, split)
    out: dict[str, Any] = {
        "t": round(t, 3),
        "procs": procs,
        "threads": threads,
        "user": user,
        "pte": pte,
    }
    usage = cg.usage()
    if usage is not None:
        out["cgroup"] = {"usage": usage, **cg.breakdown()}
    out["took_s"] = round(time.monotonic() - start, 4)
    return out
