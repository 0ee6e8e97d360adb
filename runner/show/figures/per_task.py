"""The per-task figure: (M(N) - M(1)) / N in KiB per task, grouped by variant, one bar per N."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.text import Text

from runner.results.record import METRICS
from runner.show.figures.context import WIDTH, Context, missing_note, status_word
from runner.show.figures.style import (
    NOTE_COLOR,
    fit_xlim,
    footnote,
    wrap,
)
from runner.show.text import (
    DAGGER,
    kib_per_task,
    metric_name,
    n_label,
    unusual_sleep,
)
from runner.units import KIB


def per_task_chart(ctx: Context) -> Figure | None:
    ns = sorted({c["n"] for c in ctx.cells if c["n"] > 1})
    if not any(c["per_task"] is not None for c in ctx.cells):
        return None
    grid = {(c["variant"], c["n"]): c for c in ctx.cells}
    variants = _per_task_order(ctx, ns)
    k = len(ns)
    h = 0.8 / k
    height = 1.9 + (0.2 * k + 0.1) * len(variants)
    fig, ax = plt.subplots(figsize=(WIDTH, height), layout="constrained")
    labels: list[tuple[Text, float, int]] = []
    colors = plt.get_cmap("Blues")(np.linspace(0.45, 0.9, k))  # darker = more tasks
    for j, n in enumerate(ns):
        for i, v in enumerate(variants):
            y = i + (j - (k - 1) / 2) * h
            legend = f"N = {n_label(n)}" if i == 0 else None
            labels += _per_task_bar(ctx, ax, grid.get((v, n)), y, h, colors[j], legend)
    ax.set_yticks(range(len(variants)), variants)
    for i in range(len(variants) - 1):
        ax.axhline(i + 0.5, color="#eeeeee", linewidth=0.8)
    ax.set_ylim(len(variants) - 0.5, -0.5)
    ax.axvline(0, color="black", linewidth=0.8)
    values = [c["per_task"] / KIB for c in ctx.cells if c["per_task"] is not None]
    ax.set_xlim(min(0.0, *values) * 1.05, max(0.0, *values) * 1.05 or 1.0)
    per = ctx.workload.words.per
    ax.set_xlabel(f"KiB per {per} (1 KiB = 1024 bytes), from {metric_name(ctx.metric)}")
    ax.grid(axis="x", color="#e6e6e6", linewidth=0.8)
    ax.set_axisbelow(True)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)  # outside: bars vary too much
    title = f"{ctx.prefix}Memory per {per}: (M(N) − M(1)) / N, {metric_name(ctx.metric)}"
    fig.suptitle(title, fontweight="bold")
    ax.set_title("\n".join(wrap(ctx.caption, 140)), color=NOTE_COLOR)
    footnote(fig, _per_task_notes(ctx, ns))
    fit_xlim(fig, ax, labels)
    return fig


def _per_task_order(ctx: Context, ns: list[int]) -> list[str]:
    """Cheapest first, by the cost at the largest N each variant reached validly (at large N the
    baseline matters least); variants with no per-task figure at all go last."""

    def key(v: str) -> tuple[int, float, str]:
        costs = [c for c in ctx.cells if c["variant"] == v and c["n"] in ns and c["per_task"] is not None]
        if not costs:
            return (1, 0.0, v)
        return (0, max(costs, key=lambda c: c["n"])["per_task"], v)

    return sorted({c["variant"] for c in ctx.cells}, key=key)


def _per_task_bar(
    ctx: Context, ax: Any, c: dict[str, Any] | None, y: float, h: float, color: Any, label: str | None
) -> list[tuple[Text, float, int]]:
    if c is not None and c["per_task"] is not None:
        value = c["per_task"] / KIB
        ax.barh(y, value, height=h * 0.92, color=color, label=label)
        side = 1 if value >= 0 else -1
        text = kib_per_task(c["per_task"]).removesuffix(" KiB/task").removesuffix(" KiB")
        text += "" if unusual_sleep(c, ctx.usual_sleep) is None else f" {DAGGER}"
        t = ax.annotate(
            text,
            (value, y),
            xytext=(3 * side, 0),
            textcoords="offset points",
            va="center",
            ha="left" if side > 0 else "right",
            fontsize=7.5,
        )
        return [(t, value, side)]
    if label is not None:  # keep the legend entry even if this variant's bar is missing
        ax.barh(y, 0, height=h * 0.92, color=color, label=label)
    why = (
        "not measured"
        if c is None
        else ("no N=1 baseline" if c["median"] is not None else status_word(ctx, c))
    )
    t = ax.annotate(
        f"n/a: {why}",
        (0, y),
        xytext=(3, 0),
        textcoords="offset points",
        va="center",
        fontsize=7,
        color=NOTE_COLOR,
        style="italic",
    )
    return [(t, 0.0, 1)]


def _per_task_notes(ctx: Context, ns: list[int]) -> list[str]:
    notes = [
        f"Per task: (median at N − median at N=1) / N, valid cells only; M = {METRICS[ctx.metric]}.",
        "A value near 0 or below means the runtime's baseline dominates (or preallocates) at that N.",
    ]
    missing = [c for c in ctx.cells if c["n"] in ns and c["median"] is None]
    notes.append(missing_note(ctx, missing, "n/a"))
    no_base = sorted(
        {c["variant"] for c in ctx.cells if c["n"] > 1 and c["median"] is not None and c["per_task"] is None}
    )
    if no_base:
        notes.append(f"No valid N=1 baseline: {', '.join(no_base)}.")
    if any(unusual_sleep(c, ctx.usual_sleep) is not None for c in ctx.cells if c["per_task"] is not None):
        notes.append(ctx.sleep_note)
    return notes
