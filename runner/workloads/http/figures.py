"""The http workload's figures: latency percentile curves per variant (one panel per rate, both
axes log-scaled as HdrHistogram plots them: the x axis spreads the tail, 99 % and 99.9 % as far
apart as 90 % and 99 %), and the server's memory idle and under load against C."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from runner.show.figures.style import footnote, wrap
from runner.show.text import n_label
from runner.units import MB
from runner.workloads.http.analysis import percentile_curve

TICKS = (50.0, 90.0, 99.0, 99.9, 99.99)


def _x(p: float) -> float:
    """Where percentile p sits on the axis: 1 / (1 - p), so each further 9 takes the same room."""
    return 1.0 / max(1e-6, 1.0 - p / 100.0)


def latency_chart(
    cells: dict[tuple[str, int], dict[str, Any]], c: int, title: str, note: str
) -> Figure | None:
    """At C connections, a panel per rate: each variant's latency (from the scheduled time) at each
    percentile, its runs' histograms pooled. None when no variant has a phase at C."""
    at_c = {v: cell for (v, n), cell in cells.items() if n == c}
    rates = sorted({r for cell in at_c.values() for r in cell["rates"]})
    if not rates:
        return None
    variants = sorted(at_c)
    cmap = plt.get_cmap("tab20")
    colors = {v: cmap(i % 20) for i, v in enumerate(variants)}
    fig, axes = plt.subplots(
        1, len(rates), figsize=(5.2 * len(rates), 4.8), layout="constrained", squeeze=False
    )
    for ax, rate in zip(axes[0], rates, strict=True):
        for v in variants:
            r = at_c[v]["rates"].get(rate)
            if not r or not r["buckets"]:
                continue
            xs, ys = percentile_curve(r["buckets"])
            style = ":" if r["saturated"] else "-"
            ax.plot([_x(min(x, 99.999)) for x in xs], ys, style, color=colors[v], lw=1.4)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks([_x(t) for t in TICKS], [f"{t:g}%" for t in TICKS])
        ax.minorticks_off()
        ax.set_xlim(_x(0.0), _x(99.999))
        ax.set_title(f"{n_label(rate)} requests/s")
        ax.set_xlabel("percentile")
        ax.grid(True, which="major", alpha=0.3)
    axes[0][0].set_ylabel("latency from the scheduled time, ms (log)")
    # one entry per variant, whichever panels it reached (a variant saturated at a lower rate has
    # no curve in the higher ones)
    handles = [Line2D([], [], color=colors[v], lw=1.4, label=v) for v in variants]
    axes[0][-1].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False, fontsize=8)
    fig.suptitle(title, fontweight="bold")
    footnote(
        fig,
        [
            *wrap(note, 160, 1),
            "Open loop: request j is scheduled at j / R on connection j mod C and its latency counts "
            "from that time (wrk2's correction), so a stall counts in full. Dotted: the rate saturated.",
        ],
    )
    return fig


def memory_chart(cells: dict[tuple[str, int], dict[str, Any]], title: str, note: str) -> Figure | None:
    """Per variant, the server's RSS once its C connections were open (idle) and its peak in any
    measured window (under load), a bar per C in each panel."""
    rows = []
    for (v, c), cell in cells.items():
        loads = [r["server_peak_rss"] for r in cell["rates"].values() if r.get("server_peak_rss") is not None]
        if cell.get("idle_rss") is not None and loads:
            rows.append((v, c, cell["idle_rss"] / MB, max(loads) / MB))
    if not rows:
        return None
    cs = sorted({r[1] for r in rows})
    grid = {(v, c): (i, load) for v, c, i, load in rows}
    variants = sorted({r[0] for r in rows}, key=lambda v: max(grid.get((v, c), (0, 0))[1] for c in cs))
    h = 0.8 / len(cs)
    fig, axes = plt.subplots(
        1,
        2,
        figsize=(11.0, 1.8 + 0.3 * len(variants) * len(cs)),
        layout="constrained",
        sharey=True,
        sharex=True,
    )
    blues = plt.get_cmap("Blues")(np.linspace(0.45, 0.9, len(cs)))
    for ax, part, name in (
        (axes[0], 0, "idle: C connections open"),
        (axes[1], 1, "under load: peak in a window"),
    ):
        for j, c in enumerate(cs):
            ys, xs = [], []
            for i, v in enumerate(variants):
                if (v, c) in grid:
                    ys.append(i + (j - (len(cs) - 1) / 2) * h)
                    xs.append(grid[(v, c)][part])
            ax.barh(ys, xs, height=h * 0.92, color=blues[j], label=f"C = {n_label(c)}")
        ax.set_title(name)
        ax.set_xlabel("server RSS, MB (10^6 bytes)")
        ax.grid(True, axis="x", alpha=0.3)
    axes[0].set_yticks(range(len(variants)), variants)
    axes[1].legend(loc="lower right", frameon=False, fontsize=8)
    fig.suptitle(title, fontweight="bold")
    footnote(
        fig,
        [
            *wrap(note, 140, 1),
            "Idle: the server's RSS with its C connections open before the first request. Under load: "
            "its highest RSS in any rate's measured window (medians over valid runs).",
        ],
    )
    return fig
