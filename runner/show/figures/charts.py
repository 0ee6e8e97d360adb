"""Figures from stored results, in the spirit of the 2023 article; never runs a task.

Three kinds, all from `results.summarize()` so that a figure and `memrun report` agree:
  bars-n{N}-{metric}   one bar chart per N, variants smallest first, the value written on each bar
  loglog-{metric}      the metric against N per variant, log-log, valid cells only
  per-task-{metric}    (M(N) - M(1)) / N in KiB per task, grouped by variant

A cell with no valid run is never drawn as a zero: it is a hatched grey stub carrying its verdict
and reason, because "failed at 100k threads" is a result and a 0 MB bar would be a lie.
"""

from __future__ import annotations

import contextlib
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import FuncFormatter, NullLocator

from runner.results.record import METRICS
from runner.results.summary import SPREAD_LIMIT
from runner.show.figures.context import WIDTH, Context, context, dagger, missing_note, series
from runner.show.figures.per_task import per_task_chart
from runner.show.figures.split import split_chart
from runner.show.figures.style import (
    FLAG_COLOR,
    MISSING,
    NOTE_COLOR,
    STYLE,
    family_legend,
    fit_xlim,
    footnote,
    marker_for,
    save,
    wrap,
)
from runner.show.text import (
    DAGGER,
    cell_status,
    check_metric,
    file_word,
    metric_name,
    n_label,
    short,
    unusual_sleep,
)
from runner.units import MB


def plot_results(
    runs: pd.DataFrame,
    sweeps: list[dict[str, Any]],
    out_dir: Path,
    metric: str = "peak_rss",
    formats: Sequence[str] = ("png", "svg"),
    label: str | None = None,
    variants: Sequence[str] = (),
) -> list[Path]:
    """Write every figure in every format to out_dir; returns the files written.

    The per-task chart is skipped when no N > 1 has a valid run (nothing to divide). With a label
    (one of several in the results) each title starts with it and each file name ends with it.
    """
    drawn = figures(runs, sweeps, metric, label, variants)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with contextlib.closing(drawn):
        for stem, fig in drawn:
            written += save(fig, out_dir, stem, formats)
    return written


def figures(
    runs: pd.DataFrame,
    sweeps: list[dict[str, Any]],
    metric: str = "peak_rss",
    label: str | None = None,
    variants: Sequence[str] = (),
) -> Generator[tuple[str, Figure], None, None]:
    """Each figure with its file stem, drawn but not saved, so a caller can write files or keep
    SVG text in memory. Save (or close) each before asking for the next: the style applies only
    while this generator runs. `variants` fixes the colours (default: the variants drawn), so
    figures of several labels give a variant the same colour. Bad input raises here, not later."""
    check_metric(metric)
    if runs.empty:
        raise ValueError("no runs to plot")
    ctx = context(runs, sweeps, metric, label, variants)
    suffix = f"-{file_word(label)}" if label else ""
    # A workload other than sleep names its files, so they never overwrite the sleep figures.
    workload = ctx.workload
    prefix = workload.figure_prefix

    def draw() -> Generator[tuple[str, Figure], None, None]:
        with plt.rc_context(STYLE):
            for n in sorted({c["n"] for c in ctx.cells}):
                yield f"{prefix}bars-n{n}-{metric}{suffix}", _bar_chart(ctx, n)
            yield f"{prefix}loglog-{metric}{suffix}", _loglog_chart(ctx)
            per_task = per_task_chart(ctx)
            if per_task is not None:
                yield f"{prefix}per-task-{metric}{suffix}", per_task
            where = split_chart(ctx.runs, ctx.prefix, ctx.caption)  # where each byte of a task goes
            if where is not None:
                yield f"{prefix}split-per-task{suffix}", where
            for stem, fig in workload.figures(ctx.runs, ctx.cells, metric, ctx.prefix, ctx.caption):
                yield f"{prefix}{stem}{suffix}", fig  # what the workload adds

    return draw()


# --- 1. bars per N ---------------------------------------------------------------------------------


def _bar_label(ctx: Context, c: dict[str, Any]) -> str:
    text = f"{c['median'] / MB:,.1f} MB"
    if c["spread_flag"]:
        text += f"  ± {c['min'] / MB:,.1f}–{c['max'] / MB:,.1f} (spread {c['spread']:.0%})"
    return text + dagger(ctx, c)


def _bar_chart(ctx: Context, n: int) -> Figure:
    cells = [c for c in ctx.cells if c["n"] == n]
    drawn = sorted((c for c in cells if c["median"] is not None), key=lambda c: c["median"])
    missing = sorted((c for c in cells if c["median"] is None), key=lambda c: c["variant"])
    order = drawn + missing
    top = max((c["max"] or c["median"] for c in drawn), default=MB) / MB

    fig, ax = plt.subplots(figsize=(WIDTH, 1.9 + 0.42 * len(order)), layout="constrained")
    labels = [
        _draw_bar(ctx, ax, i, c) if c["median"] is not None else _draw_stub(ctx, ax, i, c, 0.02 * top)
        for i, c in enumerate(order)
    ]
    ax.set_yticks(range(len(order)), [c["variant"] for c in order])
    ax.set_ylim(len(order) - 0.5, -0.5)  # smallest on top, like reading a ranking
    ax.set_xlim(0, top * 1.05)
    ax.set_xlabel(f"{metric_name(ctx.metric)}, MB (1 MB = 1,000,000 bytes)")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,g}"))
    if not drawn:  # a scale with nothing on it would only invite reading the stubs as values
        ax.set_xticks([])
    ax.grid(axis="x", color="#e6e6e6", linewidth=0.8)
    ax.set_axisbelow(True)
    family_legend(ax, ctx.colors, ctx.family, [c["variant"] for c in drawn])
    words = ctx.workload.words
    tasks = words.per if n == 1 else words.title
    fig.suptitle(f"{ctx.prefix}{ctx.what}: {n_label(n)} {tasks}", fontweight="bold")
    ax.set_title("\n".join(wrap(ctx.caption, 140)), color=NOTE_COLOR)
    footnote(fig, _bar_notes(ctx, cells))
    fit_xlim(fig, ax, labels)
    return fig


def _draw_bar(ctx: Context, ax: Any, i: int, c: dict[str, Any]) -> tuple[Text, float, int]:
    """The median as a bar, min-max as an error bar; the label goes past the error bar's end."""
    value = end = c["median"] / MB
    ax.barh(i, value, height=0.6, color=ctx.colors[c["variant"]])
    if c["valid"] > 1 and c["max"] != c["min"]:
        err = [[value - c["min"] / MB], [c["max"] / MB - value]]
        ax.errorbar(value, i, xerr=err, fmt="none", ecolor="black", elinewidth=1, capsize=3)
        end = c["max"] / MB
    color = FLAG_COLOR if c["spread_flag"] else "black"
    return _label(ax, end, i, _bar_label(ctx, c), color), end, 1


def _draw_stub(ctx: Context, ax: Any, i: int, c: dict[str, Any], width: float) -> tuple[Text, float, int]:
    """A hatched stub, wide enough to see and obviously not a measurement, with verdict: reason."""
    ax.barh(i, width, height=0.6, **MISSING)
    text = cell_status({**c, "reason": short(c["reason"])}) + dagger(ctx, c)
    return _label(ax, width, i, text, NOTE_COLOR, style="italic"), width, 1


def _label(ax: Any, x: float, y: float, text: str, color: str, **kw: Any) -> Text:
    return ax.annotate(
        text, (x, y), xytext=(4, 0), textcoords="offset points", va="center", fontsize=9, color=color, **kw
    )


def _bar_notes(ctx: Context, cells: list[dict[str, Any]]) -> list[str]:
    notes = [
        f"Metric: {METRICS[ctx.metric]}. Bar: median over valid repeats"
        + ("; error bar: min–max." if any(c["valid"] > 1 for c in cells) else "."),
    ]
    if any(c["spread_flag"] for c in cells):
        notes.append(f"± min–max: repeats differ by more than {SPREAD_LIMIT:.0%}; treat with care.")
    if any(c["median"] is None for c in cells):
        notes.append("Hatched grey: no figure for this cell (verdict: reason), not a zero.")
    if any(unusual_sleep(c, ctx.usual_sleep) is not None for c in cells):
        notes.append(ctx.sleep_note)
    return notes


# --- 2. log-log ----------------------------------------------------------------------------------


def _loglog_chart(ctx: Context) -> Figure:
    fig, ax = plt.subplots(figsize=(WIDTH, 6.5), layout="constrained")
    lines = series(ctx)
    # Legend order = order of the lines at the right edge, top first, so the eye can match them.
    for variant, pts in sorted(lines.items(), key=lambda kv: -kv[1][-1]["median"]):
        x = [p["n"] for p in pts]
        y = [p["median"] / MB for p in pts]
        lo = [(p["median"] - (p["min"] or p["median"])) / MB for p in pts]
        hi = [((p["max"] or p["median"]) - p["median"]) / MB for p in pts]
        color = ctx.colors[variant]
        marker = marker_for(ctx.family, variant)
        ax.errorbar(
            x, y, yerr=[lo, hi], fmt=f"-{marker}", color=color, label=variant, capsize=3, markersize=5
        )
        for p, yy in zip(pts, y, strict=True):
            if unusual_sleep(p, ctx.usual_sleep) is not None:
                ax.annotate(DAGGER, (p["n"], yy), xytext=(5, 3), textcoords="offset points", color=color)
    ns = sorted({c["n"] for c in ctx.cells})
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(ns, [n_label(n) for n in ns])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlim(min(ns) / 2, max(ns) * 2)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,g}"))
    ax.set_xlabel(f"N, {ctx.workload.words.title} (log scale)")
    ax.set_ylabel(f"{metric_name(ctx.metric)}, MB (1,000,000 bytes), log scale")
    ax.grid(which="major", color="#e6e6e6", linewidth=0.8)
    if lines:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False, title="variant")
    else:
        ax.text(0.5, 0.5, "no valid cell to plot", transform=ax.transAxes, ha="center", color=NOTE_COLOR)
        ax.set_yticks([])
    against = ctx.workload.words.against
    fig.suptitle(f"{ctx.prefix}{ctx.what} {against}", fontweight="bold")
    ax.set_title("\n".join(wrap(ctx.caption, 140)), color=NOTE_COLOR)
    notes = [f"Metric: {METRICS[ctx.metric]}. Points: median over valid repeats; bars: min–max."]
    notes.append(missing_note(ctx, [c for c in ctx.cells if c["median"] is None], "Not plotted"))
    if any(unusual_sleep(c, ctx.usual_sleep) is not None for c in ctx.cells if c["median"] is not None):
        notes.append(ctx.sleep_note)
    footnote(fig, notes)
    return fig


# --- 3. per task ---------------------------------------------------------------------------------


# --- 4. connections: user and kernel memory per connection -----------------------------------------


__all__ = ["figures", "plot_results"]
