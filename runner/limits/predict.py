"""Predict which limit N tasks of a variant would hit here, from what each task needs of the OS.

Per-task needs come from the manifest's optional `[variant.per_task]` table (tasks/README.md):
`threads` (OS threads per task), `maps` (memory mappings per task), `stack_kib` (virtual memory
reserved per task, which only matters under strict overcommit or RLIMIT_AS). A variant whose tasks
need none (async tasks, green threads, VM processes) hits none of these.
"""

from __future__ import annotations

from runner.limits.hit import Hit
from runner.limits.hit import round_up as _round_up
from runner.limits.host import (
    BASE_MAPS,
    BASE_THREADS,
    HEADROOM,
    LABELS,
    PID_MAX_LIMIT,
    RESERVED_PIDS,
    THREAD_FLOOR_BYTES,
    UNLIMITED,
    Limits,
    int_value,
)
from runner.workload import Workload


def need(per_task: dict, key: str) -> int:
    return int(per_task.get(key, 0) or 0)


def _sysctl_hit(key: str, needed: int, limits: Limits, ceiling: int | None = None) -> Hit | None:
    """A kernel.* / vm.* limit below what N needs, and the sysctl that lifts it (with headroom)."""
    current = int_value(limits, key)
    if current is None or needed <= current:
        return None
    target = _round_up(needed + HEADROOM)
    if ceiling is not None:
        target = min(ceiling, target)
    return Hit(key, LABELS[key], current, needed, target, f"sysctl -w {LABELS[key]}={target}")


def _pid_max_hit(threads: int, limits: Limits) -> Hit | None:
    if threads == 0:
        return None
    needed = threads + (int_value(limits, "threads_now") or 0) + BASE_THREADS + RESERVED_PIDS
    hit = _sysctl_hit("pid_max", needed, limits, ceiling=PID_MAX_LIMIT)
    if hit and needed > PID_MAX_LIMIT:
        return Hit(
            hit.key,
            hit.limit,
            hit.current,
            needed,
            PID_MAX_LIMIT,
            f"impossible here: more than {PID_MAX_LIMIT:,} PIDs (the kernel maximum); run fewer tasks",
        )
    return hit


def _threads_max_hit(threads: int, limits: Limits) -> Hit | None:
    if threads == 0:
        return None
    needed = threads + (int_value(limits, "threads_now") or 0) + BASE_THREADS
    return _sysctl_hit("threads_max", needed, limits)


def _map_count_hit(maps: int, limits: Limits) -> Hit | None:
    return _sysctl_hit("max_map_count", maps + BASE_MAPS, limits) if maps else None


def _nproc_hit(threads: int, limits: Limits) -> Hit | None:
    """RLIMIT_NPROC counts every thread of the user; root is exempt, so this is for non-root runs."""
    current = int_value(limits, "nproc_soft")
    if current is None or threads == 0 or not limits.get("nproc_enforced"):
        return None
    needed = threads + BASE_THREADS
    if needed <= current:
        return None
    target = _round_up(needed + HEADROOM)
    hard = limits.get("nproc_hard")
    if hard == UNLIMITED or (isinstance(hard, int) and hard >= target):
        remedy = f"ulimit -u {target}"
    else:
        remedy = f"raise the hard limit to {target} (nproc in /etc/security/limits.conf), or run as root"
    return Hit("nproc_soft", "RLIMIT_NPROC (ulimit -u)", current, needed, target, remedy)


def _pids_cgroup_hit(threads: int, limits: Limits) -> Hit | None:
    """Left to the user: a pids.max is usually a container's or a service's deliberate cap."""
    current = int_value(limits, "pids_max")
    if current is None or threads == 0:
        return None
    needed = threads + BASE_THREADS
    if needed <= current:
        return None
    where = limits.get("pids_cgroup") or "<this cgroup>"
    return Hit(
        "pids_max", LABELS["pids_max"], current, needed, None, f"echo max > {where}/pids.max (as root)"
    )


def _memory_hit(threads: int, limits: Limits) -> Hit | None:
    """OS threads cost kernel memory that no sysctl removes; say so before a sweep swaps or OOMs."""
    available = int_value(limits, "mem_available")
    if available is None or threads == 0:
        return None
    cgroup_max = int_value(limits, "mem_cgroup_max")
    current = min(available, cgroup_max) if cgroup_max is not None else available
    needed = threads * THREAD_FLOOR_BYTES
    if needed <= current:
        return None
    return Hit(
        "mem_available",
        "memory (MemAvailable)",
        current,
        needed,
        None,
        f"none by sysctl: ~{THREAD_FLOOR_BYTES // 1024} KiB of kernel memory per OS thread; run fewer tasks",
    )


def _commit_hit(stack: int, limits: Limits) -> Hit | None:
    """Under vm.overcommit_memory=2 every thread stack is committed up front."""
    limit = int_value(limits, "commit_limit")
    if limits.get("overcommit_memory") != 2 or limit is None or stack == 0:
        return None
    needed = stack + (int_value(limits, "committed_as") or 0)
    if needed <= limit:
        return None
    return Hit(
        "commit_limit",
        "CommitLimit (vm.overcommit_memory=2)",
        limit,
        needed,
        None,
        "sysctl -w vm.overcommit_memory=0 (or raise vm.overcommit_ratio)",
    )


def _address_space_hit(stack: int, limits: Limits) -> Hit | None:
    current = int_value(limits, "as_soft")
    if current is None or stack == 0 or stack <= current:
        return None
    return Hit("as_soft", "RLIMIT_AS (ulimit -v)", current, stack, None, "ulimit -v unlimited")


def predict(n: int, per_task: dict, limits: Limits, workload: Workload | None = None) -> list[Hit]:
    """The limits N tasks of a variant would exceed, given what each task needs of the OS.

    A variant whose tasks need no OS thread and no mapping (async tasks, goroutines, Erlang
    processes) hits none of these under the sleep workload; its limits are the runtime's own
    (Erlang +P) or memory. Under the connections workload every task also holds a connection, whose
    limits (descriptors, backlog, ports, conntrack, memory: runner.limits.connections) come after
    the thread limits its `per_task` calls for.
    """
    threads = n * need(per_task, "threads")
    maps = n * need(per_task, "maps")
    stack = n * need(per_task, "stack_kib") * 1024
    checks = [
        _pid_max_hit(threads, limits),
        _threads_max_hit(threads, limits),
        _map_count_hit(maps, limits),
        _nproc_hit(threads, limits),
        _pids_cgroup_hit(threads, limits),
        _commit_hit(stack, limits),
        _address_space_hit(stack, limits),
        _memory_hit(threads, limits),
    ]
    found = [hit for hit in checks if hit is not None]
    if workload is not None:  # None: tasks alone (the sleep workload's units hold nothing else)
        found += workload.limit_hits(n, limits)  # a connection's limits come after its thread's
    return found


def max_n(
    per_task: dict, limits: Limits, ceiling: int = 100_000_000, workload: Workload | None = None
) -> tuple[int, Hit] | None:
    """The largest N that hits no limit that makes runs fail, and the first such limit N+1 hits;
    None when nothing caps it. (A limit that only slows a run, an accept backlog, caps nothing.)

    A binary search over predict(): the needs grow with N, so the answer is one boundary.
    """

    def failing(n: int) -> list[Hit]:
        return [hit for hit in predict(n, per_task, limits, workload) if hit.fails]

    if not failing(ceiling):
        return None
    lo, hi = 0, ceiling  # failing(lo) is empty, failing(hi) is not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if failing(mid):
            hi = mid
        else:
            lo = mid
    return lo, failing(hi)[0]


def thread_capacities(per_task: dict, limits: Limits) -> dict[str, tuple[int, str]]:
    """How many threads each limit allows a run: key -> (capacity, how it was worked out)."""
    out = {}
    now = int_value(limits, "threads_now") or 0
    if (pid_max := int_value(limits, "pid_max")) is not None:
        out["pid_max"] = (pid_max - now, f"kernel.pid_max {pid_max:,} minus {now:,} tasks already running")
    if (threads_max := int_value(limits, "threads_max")) is not None:
        out["threads_max"] = (threads_max - now, f"kernel.threads-max {threads_max:,} minus {now:,} running")
    maps, threads = need(per_task, "maps"), need(per_task, "threads")
    if (map_count := int_value(limits, "max_map_count")) is not None and maps and threads:
        per_thread = maps / threads
        out["max_map_count"] = (
            int(map_count / per_thread),
            f"vm.max_map_count {map_count:,} / {per_thread:g} mappings per thread",
        )
    if (nproc := int_value(limits, "nproc_soft")) is not None and limits.get("nproc_enforced"):
        out["nproc_soft"] = (nproc, f"RLIMIT_NPROC {nproc:,}")
    if (pids := int_value(limits, "pids_max")) is not None:
        out["pids_max"] = (pids, f"cgroup pids.max {pids:,}")
    return out
