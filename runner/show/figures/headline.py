"""The page's first figure: every runtime's memory at the largest N, in one screen.

One bar per installed variant at the largest N any of them reached, grouped and coloured as the
runtimes' table groups them (OS threads, green threads and actors, async runtimes), smallest
first within a group, on a log scale (195 MB and 12 GB in one figure), the value above each bar.
A variant without a figure there gets a hatched stub saying why (never a zero). Short enough for
the first screen of a laptop (drawn 11 by 4.6 inches, the page's width)."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from runner.analysis.records import records
from runner.show.figures.style import MISSING, NOTE_COLOR, STYLE
from runner.show.tables.runtimes import MODELS, OTHER, installed
from runner.show.text import caption, metric_title, n_label, variant_info

COLORS = {
    "OS threads": "#c0504d",
    "Green threads and actors": "#4f81bd",
    "Async runtimes": "#2e9e6b",
    OTHER: "#8c8c8c",
}


def headline(
    runs: pd.DataFrame,
    sweeps: list[dict[str, Any]],
    metric: str = "peak_rss",
    models: dict[str, str] | None = None,
    noun: str = "tasks",
) -> tuple[Figure, int] | None:
    """The figure and the N it shows; None when no variant has a figure at any N above 1."""
    recs = records(installed(runs), metric)
    top = max((r["n"] for r in recs if r["median_bytes"] is not None and r["n"] > 1), default=None)
    if top is None:
        return None
    info = variant_info(sweeps)
    at = {str(r["variant"]): r for r in recs if r["n"] == top}
    groups: dict[str, list[tuple[float, str]]] = {}
    for variant, r in at.items():
        model = info.get(variant, {}).get("model") or (models or {}).get(variant)
        value = r["median_bytes"]
        groups.setdefault(MODELS.get(model or "", OTHER), []).append(
            (value if value is not None else 0.0, variant)
        )
    order = [(title, sorted(groups[title])) for title in [*MODELS.values(), OTHER] if title in groups]
    values = [v for _, rows in order for v, _ in rows if v]
    low, high = min(values) / 1e6, max(values) / 1e6
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(11, 4.6), layout="constrained")
        x, ticks, names = 0.0, [], []
        for title, rows in order:
            start = x
            for value, variant in rows:
                if value:
                    ax.bar(x, value / 1e6, width=0.75, color=COLORS[title])
                    text, y, color = f"{value / 1e6:,.0f}", value / 1e6, "black"
                else:
                    ax.bar(x, low / 2, width=0.75, bottom=low / 4, **MISSING)
                    text, y, color = str(at[variant]["verdict"]), low * 0.8, NOTE_COLOR
                ax.annotate(text, (x, y), xytext=(0, 2), textcoords="offset points", ha="center", va="bottom",
                            fontsize=7, rotation=90, color=color)  # fmt: skip
                ticks.append(x)
                names.append(variant)
                x += 1
            ax.annotate(title, ((start + x - 1) / 2, 1.0), xycoords=("data", "axes fraction"), ha="center",
                        va="bottom", fontsize=9, fontweight="bold", color=COLORS[title])  # fmt: skip
            x += 0.8  # a gap between groups
        ax.set_yscale("log")
        ax.set_ylim(low / 4, high * 6)
        ax.set_xlim(-0.7, x - 0.8 + 0.2)
        ax.set_xticks(ticks, names, rotation=55, ha="right", rotation_mode="anchor", fontsize=8)
        ax.set_ylabel(f"MB at N = {n_label(top)} (log scale)")
        ax.grid(axis="y", color="#e6e6e6", linewidth=0.8)
        ax.set_axisbelow(True)
        fig.suptitle(
            f"{metric_title(metric)} of {n_label(top)} concurrent {noun}, per runtime", fontweight="bold"
        )
        ax.set_title(caption(runs, sweeps), color=NOTE_COLOR, pad=16)  # the groups' names sit above it
    return fig, top
