"""Text for `memrun limits --workload connections [--n N]`: every limit one connection meets here
(descriptors, backlog, ports, conntrack, memory), which of them N hits, the client's pacing, and the
thread limits of thread-per-connection variants."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping
from typing import Any

from runner.limits import connections as conn
from runner.limits import max_n, read_limits
from runner.limits.raising import plan
from runner.limits.sockets import with_conntrack_probe
from runner.show.limits import variant_lines
from runner.tasks import Variant
from runner.workloads.connections import CONNECTIONS

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


def limits_report(n: int | None, variants: Iterable[Variant], params: Mapping[str, Any] | None = None) -> str:
    """Text for `memrun limits --workload connections [--n N]`: every limit one connection meets
    (value here; with N, what N needs, whether N hits it and the remedy), the largest N nothing
    stops, the client's pacing, and the thread limits of thread-per-connection variants (their
    `per_task` applies under this workload too)."""
    buffer = int((params or {}).get("buffer") or conn.DEFAULT_BUFFER)  # --buffer: each task's
    limits = with_conntrack_probe(read_limits())
    variants = list(variants)
    having = [v.under(CONNECTIONS) for v in variants if v.runs(CONNECTIONS)]
    lacking = [v.name for v in variants if not v.runs(CONNECTIONS)]
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
            lines += variant_lines(n, v.name, v.per_task, limits, workload=CONNECTIONS)
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
