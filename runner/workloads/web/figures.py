"""The http workload's figures: latency percentile curves per variant (one panel per rate, both
axes log-scaled as HdrHistogram plots them: the x axis spreads the tail, 99 % and 99.9 % as far
apart as 90 % and 99 %), and the server's memory idle and under load against C."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from runner.analysis.hdr import Hist
from runner.show.figures.style import footnote, wrap
from runner.show.text import n_label
from runner.units import MB

TICKS = (50.0, 90.0, 99.0, 99.9, 99.99)


def _x(p: float) -> float:
    """Where percentile p sits on the axis: 1 / (1 - p), so each further 9 takes the same room."""
    return 1.0 / max(1e-6, 1.0 - p / 100.0)


def _plot_curve(ax: Any, h: Hist, censored_from_ns: int | None, color: Any, style: str, lw: float) -> None:
    """One HdrHistogram curve; its part at or past the smallest censored value dashed (a lower
    bound: those requests got no answer)."""
    xs, ys = h.curve()
    if not xs:
        return
    px = [_x(min(x, 99.999)) for x in xs]
    cut = (
        len(ys)
        if censored_from_ns is None
        else next((i for i, y in enumerate(ys) if y * 1e6 >= censored_from_ns), len(ys))
    )
    ax.plot(px[: cut + 1], ys[: cut + 1], style, color=color, lw=lw)
    if cut < len(ys):
        ax.plot(px[cut:], ys[cut:], "--", color=color, lw=lw, alpha=0.7)


def _closed(cell: dict[str, Any]) -> str:
    """`closed 24,000 · 447 · 0` per rate, where the server closed connections at any rate."""
    got = [r.get("closed_by_server") or 0 for _, r in sorted(cell["rates"].items())]
    return f" (closed {' · '.join(f'{c:,.0f}' for c in got)})" if any(got) else ""


def latency_chart(
    cells: dict[tuple[str, int], dict[str, Any]], c: int, title: str, note: str
) -> Figure | None:
    """At C connections, a panel per rate: each variant's latency from the scheduled time at each
    percentile (HdrHistogram's plot), its valid runs' histograms pooled, and in grey its client's
    send lag (the floor under which nothing is the server's). Dotted: saturated or client-limited;
    dashed: censored (no answer by the end of the drain). None when no variant has a phase at C."""
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
        lowest = []
        for v in variants:
            r = at_c[v]["rates"].get(rate)
            if not r or "_hists" not in r:
                continue
            hists = r["_hists"]
            if (least := hists["latency"].min_ns()) is not None:
                lowest.append(max(least, 1_000) / 1e6)
            style = ":" if r["saturated"] or r.get("client_limited") else "-"
            _plot_curve(ax, hists["latency"], hists["censored"].min_ns(), colors[v], style, 1.4)
            if r.get("send_lag"):
                _plot_curve(ax, hists["send_lag"], None, "0.6", "-", 0.6)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks([_x(t) for t in TICKS], [f"{t:g}%" for t in TICKS])
        ax.minorticks_off()
        ax.set_xlim(_x(0.0), _x(99.999))
        if lowest:  # a send lag of a few ns would stretch the axis down to nothing of interest
            ax.set_ylim(bottom=min(lowest) / 4)
        ax.set_title(f"{n_label(rate)} requests/s")
        ax.set_xlabel("percentile (log scale of 1 / (1 - p))")
        ax.grid(True, which="major", alpha=0.3)
    axes[0][0].set_ylabel("latency from the scheduled time, ms (log)")
    # one entry per variant, whichever panels it reached (a variant saturated at a lower rate has
    # no curve in the higher ones), with the connections the server closed per rate
    handles = [Line2D([], [], color=colors[v], lw=1.4, label=v + _closed(at_c[v])) for v in variants]
    handles.append(Line2D([], [], color="0.6", lw=0.6, label="the client's send lag"))
    axes[0][-1].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False, fontsize=8)
    fig.suptitle(title, fontweight="bold")
    footnote(
        fig,
        [
            *wrap(note, 160, 1),
            *wrap(
                "Open loop: request j is scheduled at j / R on connection j mod C and its latency counts "
                "from that time (wrk2's correction), so a stall counts in full. HdrHistogram, 3 significant "
                "digits, the valid runs pooled. Dotted: the rate saturated the server, or the client's "
                "send lag p99 passed 10 % of the latency p99 (client-limited). Dashed: requests with no "
                "answer by the end of the drain, counted there (a lower bound). Grey: the client's send "
                "lag. closed: connections the server closed at each rate.",
                160,
                4,
            ),
        ],
    )
    return fig


def cpu_chart(cells: dict[tuple[str, int], dict[str, Any]], title: str, note: str) -> Figure | None:
    """The server's CPU time per 1,000 answers against the rate, a line per variant, a panel per
    C: it falls as the rate rises (fixed costs spread, more work per wake-up), so no single
    rate's figure is a rate a core can hold."""
    cs = sorted({c for _, c in cells})
    rows = {
        (v, c): [
            (rate, r["server_cpu_per_1k_s"] * 1000)
            for rate, r in sorted(cell["rates"].items())
            if r.get("server_cpu_per_1k_s") is not None and not r["saturated"]
        ]
        for (v, c), cell in cells.items()
    }
    if not any(rows.values()):
        return None
    variants = sorted({v for v, _ in cells})
    cmap = plt.get_cmap("tab20")
    colors = {v: cmap(i % 20) for i, v in enumerate(variants)}
    fig, axes = plt.subplots(1, len(cs), figsize=(5.2 * len(cs), 4.6), layout="constrained", squeeze=False)
    for ax, c in zip(axes[0], cs, strict=True):
        for v in variants:
            pts = rows.get((v, c)) or []
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", color=colors[v], lw=1.2, ms=3)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"C = {n_label(c)}")
        ax.set_xlabel("requests per second (log)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("server CPU ms per 1,000 answers (log)")
    handles = [Line2D([], [], color=colors[v], lw=1.2, marker="o", ms=3, label=v) for v in variants]
    axes[0][-1].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False, fontsize=8)
    fig.suptitle(title, fontweight="bold")
    footnote(
        fig,
        [
            *wrap(note, 160, 1),
            "The server's CPU seconds in each rate's measured window (from its own samples) per 1,000 "
            "answers, medians over valid runs; saturated rates are left out (the server was busy all "
            "window). It falls as the rate rises: the inverse of one rate's figure is no rate a core holds.",
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
