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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import FuncFormatter, NullLocator

from runner.results import workloads
from runner.results.record import METRICS
from runner.results.summary import SPREAD_LIMIT, summarize
from runner.show.figures.style import (
    FLAG_COLOR,
    MISSING,
    NOTE_COLOR,
    STYLE,
    colors,
    family_legend,
    fit_xlim,
    footnote,
    marker_for,
    save,
    wrap,
)
from runner.show.text import (
    DAGGER,
    caption,
    cell_status,
    check_metric,
    file_word,
    kib_per_task,
    metric_name,
    metric_title,
    n_label,
    num,
    short,
    sleep_note,
    units,
    unusual_sleep,
    usual_sleep,
    variant_info,
)
from runner.units import KIB, MB
from runner.workloads import DEFAULT, get

WIDTH = 11.0  # inches: room for 10 variant names, a bar and a 40-character reason


@dataclass
class _Context:
    """What every figure of one call shares: the summary and the words under each title."""

    cells: list[dict[str, Any]]
    metric: str
    what: str  # e.g. "Peak RSS of the process tree"
    prefix: str  # before each title: "" or, when drawn for one of several labels, "label: "
    caption: str  # machine(s) and date(s)
    sleep_note: str
    usual_sleep: float | None
    colors: dict[str, Any]
    family: dict[str, str] = field(default_factory=dict)  # variant -> family ("" when unrecorded)
    workload: str = DEFAULT  # what N counts: its words are in every title (text.units)
    runs: pd.DataFrame | None = None  # the runs drawn (the connections chart reads its own figures)


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
    ctx = _context(runs, sweeps, metric, label, variants)
    suffix = f"-{file_word(label)}" if label else ""
    # A workload other than sleep names its files, so they never overwrite the sleep figures.
    workload = get(ctx.workload)
    prefix = workload.figure_prefix
    shown = workload.module("show")

    def draw() -> Generator[tuple[str, Figure], None, None]:
        with plt.rc_context(STYLE):
            for n in sorted({c["n"] for c in ctx.cells}):
                yield f"{prefix}bars-n{n}-{metric}{suffix}", _bar_chart(ctx, n)
            yield f"{prefix}loglog-{metric}{suffix}", _loglog_chart(ctx)
            per_task = _per_task_chart(ctx)
            if per_task is not None:
                yield f"{prefix}per-task-{metric}{suffix}", per_task
            if shown is not None and hasattr(shown, "figures"):  # what the workload adds
                for stem, fig in shown.figures(ctx.runs, ctx.cells, metric, ctx.prefix, ctx.caption):
                    yield f"{prefix}{stem}{suffix}", fig

    return draw()


def _context(
    runs: pd.DataFrame,
    sweeps: list[dict[str, Any]],
    metric: str,
    label: str | None = None,
    variants: Sequence[str] = (),
) -> _Context:
    workload = workloads.only(runs)
    summary = summarize(runs, metric)
    cells = summary.to_dict("records")
    for c in cells:
        for key in ("median", "min", "max", "spread", "per_task", "spawn_s", "sleep_s"):
            c[key] = num(c.get(key))
        c["n"] = int(c["n"])
    names = sorted(set(variants) | {c["variant"] for c in cells})
    info = variant_info(sweeps)
    family = {v: info.get(v, {}).get("family", "") for v in names}
    return _Context(
        cells=cells,
        metric=metric,
        what=metric_title(metric),
        prefix=f"{label}: " if label else "",
        caption=caption(runs, sweeps),
        sleep_note=sleep_note(summary),
        usual_sleep=usual_sleep(summary),
        colors=colors(names, family),
        family=family,
        workload=workload,
        runs=runs,
    )


def _dagger(ctx: _Context, cell: dict[str, Any]) -> str:
    sleep = unusual_sleep(cell, ctx.usual_sleep)
    return f"  {DAGGER}sleep {sleep:g} s" if sleep is not None else ""


# --- 1. bars per N ---------------------------------------------------------------------------------


def _bar_label(ctx: _Context, c: dict[str, Any]) -> str:
    text = f"{c['median'] / MB:,.1f} MB"
    if c["spread_flag"]:
        text += f"  ± {c['min'] / MB:,.1f}–{c['max'] / MB:,.1f} (spread {c['spread']:.0%})"
    return text + _dagger(ctx, c)


def _bar_chart(ctx: _Context, n: int) -> Figure:
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
    one, many = units(ctx.workload)
    tasks = ("task" if one == "task" else "connection") if n == 1 else many
    fig.suptitle(f"{ctx.prefix}{ctx.what}: {n_label(n)} {tasks}", fontweight="bold")
    ax.set_title("\n".join(wrap(ctx.caption, 140)), color=NOTE_COLOR)
    footnote(fig, _bar_notes(ctx, cells))
    fit_xlim(fig, ax, labels)
    return fig


def _draw_bar(ctx: _Context, ax: Any, i: int, c: dict[str, Any]) -> tuple[Text, float, int]:
    """The median as a bar, min-max as an error bar; the label goes past the error bar's end."""
    value = end = c["median"] / MB
    ax.barh(i, value, height=0.6, color=ctx.colors[c["variant"]])
    if c["valid"] > 1 and c["max"] != c["min"]:
        err = [[value - c["min"] / MB], [c["max"] / MB - value]]
        ax.errorbar(value, i, xerr=err, fmt="none", ecolor="black", elinewidth=1, capsize=3)
        end = c["max"] / MB
    color = FLAG_COLOR if c["spread_flag"] else "black"
    return _label(ax, end, i, _bar_label(ctx, c), color), end, 1


def _draw_stub(ctx: _Context, ax: Any, i: int, c: dict[str, Any], width: float) -> tuple[Text, float, int]:
    """A hatched stub, wide enough to see and obviously not a measurement, with verdict: reason."""
    ax.barh(i, width, height=0.6, **MISSING)
    text = cell_status({**c, "reason": short(c["reason"])}) + _dagger(ctx, c)
    return _label(ax, width, i, text, NOTE_COLOR, style="italic"), width, 1


def _label(ax: Any, x: float, y: float, text: str, color: str, **kw: Any) -> Text:
    return ax.annotate(
        text, (x, y), xytext=(4, 0), textcoords="offset points", va="center", fontsize=9, color=color, **kw
    )


def _bar_notes(ctx: _Context, cells: list[dict[str, Any]]) -> list[str]:
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


def _loglog_chart(ctx: _Context) -> Figure:
    fig, ax = plt.subplots(figsize=(WIDTH, 6.5), layout="constrained")
    series = _series(ctx)
    # Legend order = order of the lines at the right edge, top first, so the eye can match them.
    for variant, pts in sorted(series.items(), key=lambda kv: -kv[1][-1]["median"]):
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
    ax.set_xlabel(f"N, {units(ctx.workload)[1]} (log scale)")
    ax.set_ylabel(f"{metric_name(ctx.metric)}, MB (1,000,000 bytes), log scale")
    ax.grid(which="major", color="#e6e6e6", linewidth=0.8)
    if series:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False, title="variant")
    else:
        ax.text(0.5, 0.5, "no valid cell to plot", transform=ax.transAxes, ha="center", color=NOTE_COLOR)
        ax.set_yticks([])
    against = get(ctx.workload).words.against
    fig.suptitle(f"{ctx.prefix}{ctx.what} {against}", fontweight="bold")
    ax.set_title("\n".join(wrap(ctx.caption, 140)), color=NOTE_COLOR)
    notes = [f"Metric: {METRICS[ctx.metric]}. Points: median over valid repeats; bars: min–max."]
    notes.append(_missing_note(ctx, [c for c in ctx.cells if c["median"] is None], "Not plotted"))
    if any(unusual_sleep(c, ctx.usual_sleep) is not None for c in ctx.cells if c["median"] is not None):
        notes.append(ctx.sleep_note)
    footnote(fig, notes)
    return fig


def _series(ctx: _Context) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for c in sorted(ctx.cells, key=lambda c: c["n"]):
        if c["median"] is not None:
            out.setdefault(c["variant"], []).append(c)
    return out


def _missing_note(ctx: _Context, missing: list[dict[str, Any]], what: str) -> str:
    """Grouped by why, so ten failures read as one line: 'Not plotted: failed: rust-threads 100k, 1M;
    java-threads 1M. invalid: java-threads 100k.' Capped at three lines; the report has them all."""
    if not missing:
        return ""
    if len(missing) == len(ctx.cells):
        return f"{what}: every cell ({_status_word(ctx, missing[0])})."
    groups: dict[str, dict[str, list[str]]] = {}
    for c in sorted(missing, key=lambda c: (c["variant"], c["n"])):
        groups.setdefault(_status_word(ctx, c), {}).setdefault(c["variant"], []).append(n_label(c["n"]))
    parts = [
        f"{status}: " + "; ".join(f"{v} {', '.join(ns)}" for v, ns in by_variant.items())
        for status, by_variant in groups.items()
    ]
    return "\n".join(wrap(f"{what}: " + ". ".join(parts) + ".", lines=3))


def _status_word(ctx: _Context, c: dict[str, Any]) -> str:
    return c["verdict"] if c["verdict"] != "valid" else f"no {ctx.metric}"


# --- 3. per task ---------------------------------------------------------------------------------


def _per_task_chart(ctx: _Context) -> Figure | None:
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
    per = get(ctx.workload).words.per
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


def _per_task_order(ctx: _Context, ns: list[int]) -> list[str]:
    """Cheapest first, by the cost at the largest N each variant reached validly (at large N the
    baseline matters least); variants with no per-task figure at all go last."""

    def key(v: str) -> tuple[int, float, str]:
        costs = [c for c in ctx.cells if c["variant"] == v and c["n"] in ns and c["per_task"] is not None]
        if not costs:
            return (1, 0.0, v)
        return (0, max(costs, key=lambda c: c["n"])["per_task"], v)

    return sorted({c["variant"] for c in ctx.cells}, key=key)


def _per_task_bar(
    ctx: _Context, ax: Any, c: dict[str, Any] | None, y: float, h: float, color: Any, label: str | None
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
        else ("no N=1 baseline" if c["median"] is not None else _status_word(ctx, c))
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


def _per_task_notes(ctx: _Context, ns: list[int]) -> list[str]:
    notes = [
        f"Per task: (median at N − median at N=1) / N, valid cells only; M = {METRICS[ctx.metric]}.",
        "A value near 0 or below means the runtime's baseline dominates (or preallocates) at that N.",
    ]
    missing = [c for c in ctx.cells if c["n"] in ns and c["median"] is None]
    notes.append(_missing_note(ctx, missing, "n/a"))
    no_base = sorted(
        {c["variant"] for c in ctx.cells if c["n"] > 1 and c["median"] is not None and c["per_task"] is None}
    )
    if no_base:
        notes.append(f"No valid N=1 baseline: {', '.join(no_base)}.")
    if any(unusual_sleep(c, ctx.usual_sleep) is not None for c in ctx.cells if c["per_task"] is not None):
        notes.append(ctx.sleep_note)
    return notes


# --- 4. connections: user and kernel memory per connection -----------------------------------------


__all__ = ["figures", "plot_results"]
