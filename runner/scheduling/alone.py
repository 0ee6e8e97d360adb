"""Which runs must have the machine to themselves, whatever --jobs says: runs of a workload whose
hold is not idle (a client keeps connections busy, a server answers requests), and runs whose OS
threads meet a kernel limit here (or need it raised: --raise-limits). Those take the limit itself,
not only the CPU: a run near kernel.pid_max leaves no PID for a neighbour's threads, and the JVM at
that limit starts a thread only when another ends, for minutes, at 90 % system CPU."""

from __future__ import annotations

from runner.limits import predict as limit_hits
from runner.limits.host import Limits
from runner.workload import Workload


def alone_because(
    n: int, per_task: dict, limits: Limits, raised: bool, may_overlap: bool, workload: Workload | None = None
) -> str | None:
    """Why a cell must run with nothing beside it, or None. limits: as they were before the sweep
    raised any; raised: --raise-limits."""
    if not may_overlap:
        return "its workload's runs use the CPU while they hold"
    hits = limit_hits(n, per_task, limits, workload=workload)
    if hits and raised:
        return f"it needs {hits[0].limit} raised (--raise-limits)"
    if hits:
        return f"it meets {hits[0].limit} here"
    return None
