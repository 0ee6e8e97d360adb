"""Words and tables only the connections workload has, beside its cells (.analysis) and its figure
(.figures) in its package.

Per connection, memory is two things: what the server's processes hold (user memory: RSS, the
headline) and what the kernel holds for the server in its cgroup (the socket, its file and inode,
epoll items: `cgroup_kernel`, v1 kmem + kmem.tcp, v2 kernel + sock). Both are (M(N) - M(1)) / N.
Beside them, the load client's own cost (its cgroup peak, CPU time and time to connect N), so
that a reader can see it was never the bottleneck; it is never part of the server's figures.
"""

from __future__ import annotations

from typing import Any

from runner.show.text import n_label
from runner.units import MB


def client_line(n: int, client: dict[str, Any]) -> str:
    """One line about a run's load client, for `memrun inspect`."""
    summary = client.get("summary") or {}
    if not summary:
        return f"load client: no summary ({client.get('error') or client.get('exit_code')})"
    parts = [
        f"connected {summary.get('connected', 0):,} of {n:,}",
        f"dropped by the server {summary.get('dropped', 0):,}",
        f"connect errors {summary.get('connect_errors', 0):,}",
    ]
    if isinstance(summary.get("connect_s"), int | float):
        parts.append(f"all open after {summary['connect_s']:.2f} s")
    if isinstance(client.get("cgroup_peak"), int):
        parts.append(f"its cgroup peak {client['cgroup_peak'] / MB:,.1f} MB")
    cpu = [client.get("user_s"), client.get("sys_s")]
    if all(isinstance(c, int | float) for c in cpu):
        parts.append(f"CPU {cpu[0]:.2f} s user + {cpu[1]:.2f} s sys")
    return "load client: " + ", ".join(parts)


def client_table(recs: list[dict[str, Any]]) -> str:
    """The load client's cost per cell, under the connections table (Markdown)."""
    cells = [r for r in recs if r.get("client_peak_bytes") is not None]
    if not cells:
        return ""
    ns = sorted({r["n"] for r in cells})
    variants = list(dict.fromkeys(r["variant"] for r in cells))
    grid = {(r["variant"], r["n"]): r for r in cells}

    def cell(r: dict[str, Any] | None) -> str:
        if r is None:
            return "—"
        text = f"{r['client_peak_bytes'] / MB:,.1f} MB"
        if r.get("client_cpu_s") is not None:
            text += f" · CPU {r['client_cpu_s']:.2f} s"
        if r.get("client_connect_s") is not None:
            text += f" · open in {r['client_connect_s']:.2f} s"
        return text

    lines = [
        "memrun's load client in each valid run (its own cgroup, not in the figures above): "
        "cgroup peak (its sockets' kernel memory included), CPU time (user + sys), and seconds "
        "until all N connections were open and had sent their message.",
        "",
        "| variant | " + " | ".join(n_label(n) for n in ns) + " |",
        "|---|" + "---|" * len(ns),
    ]
    for v in variants:
        lines.append(f"| {v} | " + " | ".join(cell(grid.get((v, n))) for n in ns) + " |")
    return "\n".join(lines) + "\n"
