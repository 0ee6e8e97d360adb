"""Words, tables and the figure only the connections workload has.

Per connection, memory is two things: what the server's processes hold (user memory: RSS, the
headline) and what the kernel holds for the server in its cgroup (the socket, its file and inode,
epoll items: `cgroup_kernel`, v1 kmem + kmem.tcp, v2 kernel + sock). Both are (M(N) - M(1)) / N.
Beside them, the load client's own cost (its cgroup peak, CPU time and time to connect N), so
that a reader can see it was never the bottleneck; it is never part of the server's figures.
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from runner.results.summary import CLIENT_COLUMNS, counted_runs, summarize
from runner.show.figure import NOTE_COLOR, footnote, wrap
from runner.show.text import n_label, num
from runner.units import KIB, MB


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


def kernel_cells(runs: pd.DataFrame) -> dict[tuple[str, int], dict[str, float | None]]:
    """(variant, N) -> the cgroup's kernel part: median bytes and per connection (M(N) - M(1)) / N."""
    if "cgroup_kernel" not in runs or runs.empty:
        return {}
    table = summarize(runs, "cgroup_kernel")
    return {
        (str(r["variant"]), int(r["n"])): {"median": num(r["median"]), "per_task": num(r["per_task"])}
        for _, r in table.iterrows()
    }


def client_cells(runs: pd.DataFrame) -> dict[tuple[str, int], dict[str, float | None]]:
    """(variant, N) -> the load client's medians over valid runs: cgroup peak, CPU s, connect s."""
    runs = counted_runs(runs)
    if runs.empty or "client_peak" not in runs:
        return {}
    valid = runs[runs["verdict"] == "valid"]
    out = {}
    for (variant, n), cell in valid.groupby(["variant", "n"], sort=False):
        out[(str(variant), int(n))] = {
            column: num(cell[column].dropna().median()) if cell[column].notna().any() else None
            for column in CLIENT_COLUMNS
        }
    return out


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


def per_connection_chart(
    cells: list[dict[str, Any]], kernel: dict[tuple[str, int], dict[str, float | None]], title: str, note: str
) -> Figure | None:
    """KiB per connection at each N > 1, user memory and the cgroup's kernel memory stacked;
    None when no cell has both."""
    rows = []
    for c in cells:
        k = kernel.get((c["variant"], c["n"]), {}).get("per_task")
        if c["n"] > 1 and c.get("per_task") is not None and k is not None:
            rows.append((c["variant"], c["n"], c["per_task"] / KIB, k / KIB))
    if not rows:
        return None
    ns = sorted({r[1] for r in rows})
    total = {(v, n): u + k for v, n, u, k in rows}
    largest = {v: max(n for vv, n, *_ in rows if vv == v) for v, *_ in rows}
    variants = sorted({r[0] for r in rows}, key=lambda v: (total[(v, largest[v])], v))
    grid = {(v, n): (u, k) for v, n, u, k in rows}
    k_count = len(ns)
    h = 0.8 / k_count
    fig, ax = plt.subplots(figsize=(11.0, 2.2 + (0.22 * k_count + 0.1) * len(variants)), layout="constrained")
    blues = plt.get_cmap("Blues")(np.linspace(0.45, 0.9, k_count))
    oranges = plt.get_cmap("Oranges")(np.linspace(0.35, 0.8, k_count))
    top = max(u + k for _, _, u, k in rows)
    for j, n in enumerate(ns):
        for i, v in enumerate(variants):
            y = i + (j - (k_count - 1) / 2) * h
            first = i == 0
            if (v, n) not in grid:
                ax.annotate(
                    "n/a",
                    (0, y),
                    xytext=(3, 0),
                    textcoords="offset points",
                    va="center",
                    fontsize=7,
                    color=NOTE_COLOR,
                    style="italic",
                )
                continue
            u, k = grid[(v, n)]
            user = f"user (RSS), N = {n_label(n)}" if first else None
            ax.barh(y, u, height=h * 0.92, color=blues[j], label=user)
            ax.barh(
                y,
                k,
                left=max(u, 0),
                height=h * 0.92,
                color=oranges[j],
                label=f"kernel (cgroup), N = {n_label(n)}" if first else None,
            )
            ax.annotate(
                f"{u:,.2f} + {k:,.2f} KiB",
                (max(u, 0) + k, y),
                xytext=(3, 0),
                textcoords="offset points",
                va="center",
                fontsize=7.5,
            )
    ax.set_yticks(range(len(variants)), variants)
    ax.set_ylim(len(variants) - 0.5, -0.5)
    ax.set_xlim(min(0.0, *(u for _, _, u, _ in rows)), top * 1.3)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel("KiB per connection (1 KiB = 1024 bytes): (M(N) − M(1)) / N")
    ax.grid(axis="x", color="#e6e6e6", linewidth=0.8)
    ax.set_axisbelow(True)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False, fontsize=8)
    fig.suptitle(title, fontweight="bold")
    ax.set_title("\n".join(wrap(note, 140)), color=NOTE_COLOR)
    footnote(
        fig,
        [
            "User: peak RSS of the server's process tree. Kernel: kernel memory of the server's "
            "cgroup at its peak sample (v1 kmem + kmem.tcp, v2 kernel + sock of memory.stat).",
            "Both per connection against the same variant's N=1 run; the load client is in a "
            "cgroup of its own and in neither.",
        ],
    )
    return fig
