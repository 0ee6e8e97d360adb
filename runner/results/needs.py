"""What it would take: the memory N tasks of a thread variant need, said beside a failed verdict.

A thread cell that failed at a kernel limit invites raising the limit; whether the machine could
then hold N threads at all is a question of memory, which no sysctl changes. The answer comes
from the measured per-task cost (runner.results.cost: the cgroup figure, kernel stacks and page
tables included), or, with no stored run, from the kernel-memory floor of one OS thread.
"""

from __future__ import annotations

from collections.abc import Iterable

from runner.limits.host import Limits, int_value
from runner.limits.predict import need
from runner.results import cost
from runner.results.record import RunRecord
from runner.units import size
from runner.workload import Workload


def thread_need(
    records: Iterable[RunRecord],
    variant: str,
    per_task: dict,
    n: int,
    limits: Limits,
    workload: Workload | None = None,  # None: the default one
) -> str | None:
    """One sentence: what N tasks need and what this machine has, for a variant with an OS thread
    per task; None for other variants (their limits are the runtime's own, or memory alone).

    e.g. "1,000,000 tasks need ≈ 34.9 GiB in their cgroup (36.6 KiB per task from N=1 to
    N=10,000, cgroup_peak), more than this machine's 23.5 GiB"
    """
    if not need(per_task, "threads"):
        return None
    estimate = cost.estimate(records, variant, per_task, n, workload)
    if estimate is None:
        return None
    total = int_value(limits, "mem_total")
    where = " in their cgroup" if "cgroup_peak" in estimate.how else ""
    text = f"{n:,} tasks need ≈ {size(estimate.bytes)}{where} ({estimate.how})"
    if total is None:
        return text
    if estimate.bytes > total:
        return f"{text}, more than this machine's {size(total)}"
    return f"{text}; this machine has {size(total)}, so memory would hold them"
