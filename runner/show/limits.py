"""Text for `memrun limits [--workload W] [--n N]`: the limits in force here, and which variant hits
which at N (threads under the sleep workload; descriptors, backlog, ports and memory, and the
threads of thread-per-connection variants, under the connections workload)."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Sequence

from runner.limits import Limits, max_n, predict, read_limits
from runner.limits import connections as conn
from runner.limits.connections import CONNECTIONS
from runner.limits.raising import plan
from runner.limits.sockets import with_conntrack_probe
from runner.results.needs import thread_need
from runner.results.record import RunRecord
from runner.tasks import Variant
from runner.units import count, size


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


def _variant_lines(
    n: int | None,
    name: str,
    per_task: dict,
    limits: Limits,
    records: Sequence[RunRecord] = (),
    workload: str = "sleep",
) -> list[str]:
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
    workload: str = "sleep",
) -> str:
    """Text for `memrun limits [--n N]`: the limits in force, which variant hits which at N, and
    what N threads of each thread variant need in memory (from `records`, stored runs read from
    `source`, else the kernel-memory floor per thread). Under the connections workload, what N
    connections need of this machine instead (connections_report)."""
    if workload == CONNECTIONS:
        return connections_report(n, variants)
    limits = read_limits()
    lines = _table(limits)
    variants = list(variants)
    threaded = [v for v in variants if v.per_task]
    title = f"At N = {n:,}:" if n is not None else "Per variant (give --n N to check one N):"
    lines += ["", title]
    for v in threaded:
        lines += _variant_lines(n, v.name, v.per_task, limits, records)
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


WIDTH = 100  # wrapped text: the notes, the pacing, the raise-limits summary
PACING = (
    "The client's pacing: a server's accept queue holds min(its listen() backlog, net.core.somaxconn) "
    "connections; the client must keep fewer than that connected but not yet accepted (a finished "
    "connect() says nothing about accept() on loopback). The listener's queue (ss -ltn: Recv-Q of "
    "Send-Q) is the gauge; ListenOverflows and TCPReqQFullDoCookies in /proc/net/netstat must not "
    "move during a run."
)


def _wrap(text: str, indent: int = 0, hang: int = 0) -> list[str]:
    """Lines of at most WIDTH, never broken inside a command ("ulimit -Hn") or a name."""
    return textwrap.wrap(
        text,
        WIDTH,
        initial_indent=" " * indent,
        subsequent_indent=" " * (indent + hang),
        break_long_words=False,
        break_on_hyphens=False,
    )


def _wrapped(text: str) -> list[str]:
    return _wrap(text, 6, 2)


def _check_lines(check: conn.Check, n: int | None) -> list[str]:
    status = f"{check.status:<14}" if n is not None else ""
    lines = [f"  {check.limit:<32}{status}{check.value}"]
    if n is not None and check.needed:
        lines += _wrapped(f"N needs {check.needed}")
    if check.note:
        lines += _wrapped(check.note)
    if n is not None and check.hit is not None:
        lines += _wrapped(f"-> {check.hit.remedy}")
    return lines


def connections_report(n: int | None, variants: Iterable[Variant], buffer: int = conn.DEFAULT_BUFFER) -> str:
    """Text for `memrun limits --workload connections [--n N]`: every limit one connection meets
    (value here; with N, what N needs, whether N hits it and the remedy), the largest N nothing
    stops, the client's pacing, and the thread limits of thread-per-connection variants (their
    `per_task` applies under this workload too)."""
    limits = with_conntrack_probe(read_limits())
    variants = list(variants)
    having = [v.under(CONNECTIONS) for v in variants if CONNECTIONS in v.has]
    lacking = [v.name for v in variants if CONNECTIONS not in v.has]
    title = f"At N = {n:,} connections" if n is not None else "Limits one connection meets here"
    lines = [
        f"{title} (workload connections: a server task per connection, memrun's client at the other end):"
    ]
    for check in conn.checks(n if n is not None else 1, limits, buffer):
        lines += _check_lines(check, n)
    cap = max_n({}, limits, workload=CONNECTIONS)
    lines += [
        "",
        f"Up to N ~ {cap[0]:,} connections here, then {cap[1].limit}."
        if cap
        else "No limit read here caps the number of connections.",
        "HIT: runs fail; slows: connects are dropped and retried, so spawning takes longer.",
        "",
        *_wrap(PACING),
    ]
    threaded = [v for v in having if v.per_task]
    if threaded:
        lines += ["", "Thread per connection (their threads count as well):"]
        for v in threaded:
            lines += _variant_lines(n, v.name, v.per_task, limits, workload=CONNECTIONS)
    others = [v.name for v in having if not v.per_task]
    if others:
        lines += ["", *_wrap(f"No OS thread per connection (only the limits above): {', '.join(others)}")]
    if lacking:
        lines += [
            "",
            *_wrap(f"No connections workload in their manifest: {', '.join(lacking)}"),
        ]
    if n is not None:
        changes = plan(n, [v.per_task for v in having], limits, CONNECTIONS)
        if changes:
            raised = ", ".join(f"{c.name} to {c.new:,}" for c in changes)
            lines += [
                "",
                *_wrap(
                    f"`memrun sweep --workload connections --raise-limits` (as root) raises {raised}, and "
                    "puts each back after the sweep. RLIMIT_NOFILE is no sysctl: memrun sets it on each "
                    "run's server and client (at most fs.nr_open, or its own hard limit without "
                    "CAP_SYS_RESOURCE)."
                ),
            ]
    return "\n".join(lines)
