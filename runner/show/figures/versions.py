"""Across versions, as figures: per-task cost against version, from stored results of `sweep --version`.

One figure and one table per runtime that was measured at chosen versions (runs whose record says
`version_of`): the versions in order on the x axis, KiB per task at each N above, M(1) below. The
installed build's runs of the same label, if any, are drawn as a hollow marker at the version
they recorded, so an A/A pair (the proxy's go1.26.8 beside the installed go 1.26.8) shows itself.
Runs of different labels are never pooled: each label gets its own figure.
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from runner.analysis.records import records
from runner.analysis.versions import Point, Step, axes, steps
from runner.results.groups import Group, groups
from runner.show.figures.style import NOTE_COLOR, STYLE, footnote, save
from runner.show.text import caption, check_metric, file_word, metric_name, n_label
from runner.units import KIB, MB


def figures(
    runs: pd.DataFrame, sweeps: list[dict[str, Any]], metric: str = "peak_rss"
) -> list[tuple[str, Figure]]:
    """(file stem, figure) per runtime measured at chosen versions, per label."""
    check_metric(metric)
    found = [(g, axes(g.runs)) for g in groups(runs, sweeps)]
    out = []
    for group, mine in found:
        found_steps = [st for st in steps(group.runs, group.sweeps, metric) if st.bisected] if mine else []
        on_axis = {p.variant for points in mine.values() for p in points}
        recs = records(group.runs[group.runs["variant"].isin(on_axis)], metric) if mine else []
        for base, points in mine.items():
            stem = f"versions-{base}-{metric}"
            if sum(base in other for _, other in found) > 1:  # the label only where two labels have it
                stem += f"-{file_word(group.label)}"
            marks = [st for st in found_steps if st.base == base]
            out.append((stem, _figure(group, base, points, metric, marks, recs)))
    return out


def _mark(ax: Any, points: list[Point], found: list[Step]) -> None:
    """A `memrun bisect` finding: a dashed line between the two versions, with the change."""
    where = {p.version: x for x, p in enumerate(points) if not p.installed}
    for st in found:
        if st.before in where and st.after in where:
            x = (where[st.before] + where[st.after]) / 2
            ax.axvline(x, color=NOTE_COLOR, linestyle="--", linewidth=0.9)
            ax.annotate(
                f"{st.after}: {st.change:+.0%} at N = {n_label(st.n)}\n(memrun bisect)",
                (x, 1.0), xycoords=("data", "axes fraction"), xytext=(3, -3), textcoords="offset points",
                ha="left", va="top", fontsize=7, color=NOTE_COLOR,
            )  # fmt: skip


def _figure(
    group: Group,
    base: str,
    points: list[Point],
    metric: str,
    found: list[Step] | None = None,
    summary: list[dict[str, Any]] | None = None,
) -> Figure:
    """One runtime's axis; summary: the group's records of the axes' variants, when computed once
    for every runtime of the group."""
    recs = {
        (r["variant"], r["n"]): r for r in (summary if summary is not None else records(group.runs, metric))
    }
    ns = sorted({n for (v, n) in recs if any(p.variant == v for p in points)})
    xs = list(range(len(points)))
    with plt.rc_context(STYLE):
        fig, (top, bottom) = plt.subplots(
            2, 1, figsize=(max(7.0, 0.55 * len(points) + 3), 6.2), sharex=True, layout="constrained",
            gridspec_kw={"height_ratios": [2.2, 1]},
        )  # fmt: skip
        missing: list[str] = []
        for i, n in enumerate(n for n in ns if n > 1):
            ys = [_kib(recs.get((p.variant, n))) for p in points]
            color = plt.get_cmap("viridis")(0.15 + 0.7 * i / max(len(ns) - 2, 1))
            top.plot(
                [x for x, y, p in zip(xs, ys, points, strict=True) if y is not None and not p.installed],
                [y for y, p in zip(ys, points, strict=True) if y is not None and not p.installed],
                "o-", color=color, label=f"N = {n_label(n)}", markersize=4, linewidth=1.2,
            )  # fmt: skip
            for x, y, p in zip(xs, ys, points, strict=True):
                if y is not None and p.installed:
                    top.plot([x], [y], "o", markerfacecolor="none", markeredgecolor=color, markersize=9)
                elif y is None and (p.variant, n) in recs:
                    missing.append(f"{p.version} at N={n_label(n)}: {recs[(p.variant, n)]['verdict']}")
        base_mb = [_mb(recs.get((p.variant, 1))) for p in points]
        bottom.bar(
            xs, [b or 0 for b in base_mb], color=["none" if p.installed else "#7a9cc6" for p in points],
            edgecolor=["#333333" if p.installed else "#7a9cc6" for p in points], width=0.6,
        )  # fmt: skip
        for x, b in zip(xs, base_mb, strict=True):
            if b is not None:
                bottom.annotate(f"{b:.1f}", (x, b), ha="center", va="bottom", fontsize=7, color=NOTE_COLOR)
        top.set_ylabel("KiB per task, (M(N) − M(1)) / N")
        highest = [_kib(r) for (v, n), r in recs.items() if n > 1 and any(p.variant == v for p in points)]
        highest = [h for h in highest if h is not None]
        top.set_ylim(0, 1.15 * max(highest) if highest else 1)  # room above the highest marker
        _mark(top, points, found or [])
        top.legend(loc="best", fontsize=8, frameon=False)
        top.grid(axis="y", alpha=0.3)
        what = f"{base}: {metric_name(metric)} per task across versions"
        top.set_title(f"{what}\n{caption(group.runs, group.sweeps)}")
        bottom.set_ylabel("M(1), MB")
        bottom.set_xticks(
            xs,
            [f"{p.version}\ninstalled" if p.installed else p.version for p in points],
            rotation=60,
            fontsize=8,
        )
        bottom.grid(axis="y", alpha=0.3)
        notes = []
        if any(p.installed for p in points):
            notes.append("Hollow markers and bars: the installed build, at the version its runs recorded.")
        runs = max(
            (r["runs"] for (v, _), r in recs.items() if any(p.variant == v for p in points)), default=0
        )
        if runs == 1:
            notes.append(
                "One run per cell: a difference of a few per cent may be noise until runs are repeated."
            )
        if missing:
            notes.append("No figure: " + "; ".join(missing))
        footnote(fig, notes)
    return fig


def write(
    runs: pd.DataFrame, sweeps: list[dict[str, Any]], out_dir: Any, metric: str = "peak_rss"
) -> list[Any]:
    """Save every versions figure as PNG and SVG; the paths written."""
    paths = []
    for stem, fig in figures(runs, sweeps, metric):
        paths += save(fig, out_dir, stem, ("png", "svg"))
    return paths


def _kib(rec: dict[str, Any] | None) -> float | None:
    return None if rec is None or rec.get("per_task_bytes") is None else rec["per_task_bytes"] / KIB


def _mb(rec: dict[str, Any] | None) -> float | None:
    return None if rec is None or rec.get("median_bytes") is None else rec["median_bytes"] / MB
