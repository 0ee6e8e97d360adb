"""The tick workload's own figures: p99 wake-up lateness against N per runtime (log axes, where
a runtime that cannot keep up shows as a line that leaves the period), and the memory a ticking
task costs beside what a sleeping one costs at the same N."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from runner.show.figures.style import MARKERS, footnote, wrap
from runner.show.text import n_label
from runner.units import KIB

LINES = ("-", "--", ":", "-.")


def line_style(i: int) -> tuple[Any, str, str]:
    """The i-th line's colour, dash and marker: ten colours, then the same ten dashed with
    another marker, and so on, so that 29 runtimes (and up to 40) never share a look; tab20's 20
    colours spread over 29 lines gave several pairs the same one."""
    palette = plt.get_cmap("tab10").colors
    turn = i // len(palette)
    return palette[i % len(palette)], LINES[turn % len(LINES)], MARKERS[turn % len(MARKERS)]


def lateness_chart(cells: dict[tuple[str, int], dict[str, Any]], title: str, note: str) -> Figure | None:
    """p99 lateness (ms) against N, a line per variant with two N or more; an open marker where
    the cell could not keep up. None when no variant has two."""
    series: dict[str, list[tuple[int, float, bool]]] = {}
    for (variant, n), c in cells.items():
        p99 = c["lateness"].get("p99_us")
        if p99 is not None:
            series.setdefault(variant, []).append((n, max(p99, 1.0) / 1000, bool(c.get("keeps_up"))))
    series = {v: sorted(points) for v, points in series.items() if len(points) > 1}
    if not series:
        return None
    fig, ax = plt.subplots(figsize=(11.0, 6.5), layout="constrained")
    for i, (variant, points) in enumerate(sorted(series.items())):
        color, line, marker = line_style(i)
        ns = [p[0] for p in points]
        ax.plot(ns, [p[1] for p in points], line, color=color, label=variant, linewidth=1.4)
        for n, ms, ok in points:
            ax.plot(n, ms, marker, color=color, markerfacecolor=color if ok else "white", markersize=5)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("N tasks (log)")
    ax.set_ylabel("p99 lateness, ms (log)")
    ax.set_title(title)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7, ncol=2, loc="upper left")
    footnote(fig, [*wrap(note), "open marker: cannot keep up (under 99 % of wakes, or p99 past a period)"])
    return fig


def over_sleep_chart(cells: dict[tuple[str, int], dict[str, Any]], title: str, note: str) -> Figure | None:
    """KiB per task at each N > 1 where both exist: the sleeping task's cost (its peak ÷ N) and
    what ticking adds to it, stacked. None where no cell has a sleep baseline."""
    rows = []
    for (variant, n), c in cells.items():
        base, over = c.get("sleep_median_bytes"), c.get("over_sleep_bytes")
        if n > 1 and base is not None and over is not None:
            rows.append((variant, n, base / n / KIB, over / KIB))
    if not rows:
        return None
    ns = sorted({r[1] for r in rows})
    grid = {(v, n): (b, o) for v, n, b, o in rows}
    largest = {v: max(n for vv, n, *_ in rows if vv == v) for v, *_ in rows}
    variants = sorted({r[0] for r in rows}, key=lambda v: (sum(grid[(v, largest[v])]), v))
    h = 0.8 / len(ns)
    fig, ax = plt.subplots(figsize=(11.0, 2.2 + (0.22 * len(ns) + 0.1) * len(variants)), layout="constrained")
    greys = plt.get_cmap("Greys")(np.linspace(0.35, 0.6, len(ns)))
    greens = plt.get_cmap("Greens")(np.linspace(0.45, 0.9, len(ns)))
    for j, n in enumerate(ns):
        for i, v in enumerate(variants):
            if (v, n) not in grid:
                continue
            y = i + (j - (len(ns) - 1) / 2) * h
            base, over = grid[(v, n)]
            first = i == 0
            ax.barh(
                y,
                base,
                height=h * 0.92,
                color=greys[j],
                label=f"sleeping, N = {n_label(n)}" if first else None,
            )
            ax.barh(
                y,
                over,
                left=base if over >= 0 else base + over,
                height=h * 0.92,
                color=greens[j] if over >= 0 else "white",
                edgecolor=greens[j],
                label=f"added by ticking, N = {n_label(n)}" if first else None,
            )
    ax.set_yticks(range(len(variants)), variants)
    ax.set_xlabel("KiB per task (peak ÷ N)")
    ax.set_title(title)
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    footnote(fig, wrap(note))
    return fig
