"""The figure only the connections workload has: memory per connection, user and kernel parts
stacked per variant and N. Per connection, memory is two things: what the server's processes hold
(user memory: RSS, the headline) and what the kernel holds for the server in its cgroup (the socket,
its file and inode, epoll items: `cgroup_kernel`). Both are (M(N) - M(1)) / N."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from runner.show.figures.style import NOTE_COLOR, footnote, wrap
from runner.show.text import n_label
from runner.units import KIB


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
            "cgroup while every connection was held (v1 kmem + kmem.tcp, v2 kernel + sock).",
            "Both per connection against the same variant's N=1 run; the load client is in a "
            "cgroup of its own and in neither.",
        ],
    )
    return fig
