"""Text for `memrun limits [--workload W] [--n N]`: the limits in force here, and which variant hits
which at N (threads under the sleep workload; descriptors, backlog, ports and memory, and the
threads of thread-per-connection variants, under the connections workload)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from runner.limits import Limits, max_n, predict, read_limits
from runner.results.needs import thread_need
from runner.results.record import RunRecord
from runner.tasks import Variant
from runner.units import count, size
from runner.workload import Workload


def _per_task_text(per_task: dict) -> str:
    words = {"threads": "OS thread(s)", "maps": "mapping(s)", "stack_kib": "KiB of stack"}
    return ", ".join(f"{v} {words.get(k, k)}" for k, v in per_task.items()) + " per task"


def _table(limits: Limits) -> list[str]:
    def row(name: str, value: str, why: str) -> str:
        return f"  {name:<27}{value:<22}{why}"

    def num(key: str) -> str:
        return count(limits.get(key))

    def mem(key: str) -> str:
        return size(limits.get(key))

    nproc_why = "threads per user" + ("" if limits.get("nproc_enforced") else "; not enforced for root")
    return [
        "Limits that cap threads and processes here:",
        row("kernel.pid_max", num("pid_max"), "every thread needs a PID, system-wide"),
        row("kernel.threads-max", num("threads_max"), "threads on the whole system"),
        row("vm.max_map_count", num("max_map_count"), "mappings per process (2-4 per thread stack)"),
        row("vm.overcommit_memory", num("overcommit_memory"), "2 = thread stacks count to CommitLimit"),
        row("RLIMIT_NPROC (ulimit -u)", f"{num('nproc_soft')} / {num('nproc_hard')}", nproc_why),
        row("RLIMIT_STACK (ulimit -s)", mem("stack_soft"), "glibc's default thread stack size"),
        row("RLIMIT_AS (ulimit -v)", mem("as_soft"), "address space per process"),
        row("cgroup pids.max", num("pids_max"), str(limits.get("pids_cgroup") or "no pids cgroup")),
        row("cgroup memory limit", mem("mem_cgroup_max"), "bytes this cgroup may use"),
        row("MemTotal / MemAvailable", f"{mem('mem_total')} / {mem('mem_available')}", ""),
        row("CommitLimit", mem("commit_limit"), f"committed now {mem('committed_as')}"),
        row("tasks running now", num("threads_now"), "threads + processes (/proc/loadavg)"),
        row(
            "futex hash per process",
            f"{num('futex_hash_buckets')} buckets" if limits.get("futex_hash_buckets") else "global table",
            "each sleeping thread lengthens a chain every wake walks (--futex-hash)",
        ),
    ]


def variant_lines(
    n: int | None,
    name: str,
    per_task: dict,
    limits: Limits,
    records: Sequence[RunRecord] = (),
    workload: Workload | None = None,
) -> list[str]:
    """One variant's lines: what caps its N here, and at N what it meets and what it takes
    (workload: its units' own limits besides their threads'; None: tasks alone)."""
    cap = max_n(per_task, limits, workload=workload)
    limit_text = f"up to N ~ {cap[0]:,} here, then {cap[1].limit}" if cap else "no limit here caps it"
    lines = [f"  {name} ({_per_task_text(per_task)}): {limit_text}"]
    if n is not None:
        hits = predict(n, per_task, limits)  # a workload's own limits are listed above it
        lines += [f"    {hit.describe()}" for hit in hits] or [f"    fits N = {n:,}"]
        takes = thread_need(records, name, per_task, n, limits, workload)
        if takes:
            lines.append(f"    memory: {takes}")
    return lines


def limits_report(
    n: int | None,
    variants: Iterable[Variant],
    records: Sequence[RunRecord] = (),
    source: str | None = None,
    workload: Workload | None = None,
) -> str:
    """Text for `memrun limits [--n N]`: the limits in force, which variant hits which at N, and
    what N threads of each thread variant need in memory (from `records`, stored runs read from
    `source`, else the kernel-memory floor per thread). Under the connections workload, what N
    connections need of this machine instead (the workload's own limits report; None: the
    default workload, whose tasks meet only their threads' limits)."""
    own = workload.limits_report(n, variants) if workload is not None else None
    if own is not None:
        return own
    limits = read_limits()
    lines = _table(limits)
    variants = list(variants)
    threaded = [v for v in variants if v.per_task]
    title = f"At N = {n:,}:" if n is not None else "Per variant (give --n N to check one N):"
    lines += ["", title]
    for v in threaded:
        lines += variant_lines(n, v.name, v.per_task, limits, records)
    others = [v.name for v in variants if not v.per_task]
    if others:
        lines.append(f"  no OS thread or mapping per task (none of the above applies): {', '.join(others)}")
    if n is not None and threaded:
        lines += [
            "",
            f"Memory from the runs stored in {source} (cgroup peak: kernel memory included)"
            if source
            else "Memory from the kernel-memory floor per OS thread (give --results DIR for measured costs)",
        ]
    if n is not None and any(predict(n, v.per_task, limits) for v in threaded):
        lines += ["", "`memrun sweep --raise-limits` (as root) raises these, and restores them after."]
    return "\n".join(lines)


def limits_here(
    n: int | None,
    variants: Sequence[Variant],
    workload: Workload,
    params: dict[str, object],
    results: str | None = None,
) -> str:
    """What `memrun limits` prints: the workload's own report where it has one (what N idle
    connections meet, with its options' values params), else the limits that cap threads and, at
    N, which variant hits which and what N threads need in memory, from the per-task costs stored
    in results (default: plots/data; none: the kernel-memory floor per thread). ResultsError
    ("--results: …") for stored results that cannot be read."""
    own = workload.limits_report(n, variants, params)
    if own is not None:
        return own
    records, source = stored_costs(results) if n is not None else ([], None)
    return limits_report(n, variants, records, source)


def stored_costs(results: str | None) -> tuple[list[RunRecord], str | None]:
    """The run records that give measured per-task costs, and where they were read: results,
    else plots/data (here, or in the checkout: the reference results), else none."""
    from runner.paths import ROOT
    from runner.results import ResultsError, load_records

    if results:
        path = Path(results)
    else:
        found = [p for p in (Path("plots/data"), ROOT / "plots" / "data") if (p / "runs.jsonl").exists()]
        if not found:
            return [], None
        path = found[0]
    try:
        return [record for _, record in load_records([path])], str(path)
    except ResultsError as e:
        raise ResultsError(f"--results: {e}") from None
