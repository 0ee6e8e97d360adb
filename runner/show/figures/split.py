"""Where each byte of a task goes, as a figure: one stacked bar per variant, KiB per task by
component (runner.analysis.explain), at N = 100,000, or at the largest N below it that the variant
reached (10,000 for OS threads, which stop at this machine's limits before 100k).

A bar stacks the resident parts (thread stacks, heap and arenas, other anonymous, file-backed),
the RSS the parts leave unattributed where the peak lies above them (hatched), then the kernel's
parts from the cgroup (kernel stacks, page tables, slab, sockets, other kernel memory; on cgroup
v1 stacks, slab and other are one part). A part below zero (a runtime that held less at N than at
1) is not drawn; the number at the bar's end is the sum of what is drawn."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from runner.analysis.explain import PARTS_TITLE, RSS_PARTS, V1_KERNEL_OTHER, Split, from_rows, splits
from runner.show.figures.style import footnote
from runner.units import KIB

AT_N = 100_000
COLORS = {
    "stack": "#4c72b0",
    "heap": "#dd8452",
    "anon": "#55a868",
    "file": "#8c8c8c",
    "unattributed": "#ffffff",
    "kernel_stack": "#c44e52",
    "pagetables": "#8172b3",
    "slab": "#937860",
    "sock": "#da8bc3",
    "kernel_other": "#ccb974",
}
KERNEL = ("kernel_stack", "pagetables", "slab", "sock", "kernel_other")


def chosen(found: list[Split], at: int = AT_N) -> list[Split]:
    """One split per variant: at N = at, else at its largest N below it."""
    best: dict[str, Split] = {}
    for s in found:
        if s.n > at:
            continue
        if s.variant not in best or s.n > best[s.variant].n:
            best[s.variant] = s
    return list(best.values())


def segments(s: Split) -> list[tuple[str, float]]:
    """(key, KiB per task) of one bar, bottom to top, negatives left out."""
    rss = {k: p for k, _, p in s.rss.parts}
    out = [(k, rss[k] / KIB) for k, _ in RSS_PARTS]
    if s.rss.unattributed and s.rss.unattributed > 0:
        out.append(("unattributed", s.rss.unattributed / KIB))
    if s.cgroup:
        cg = {k: p for k, _, p in s.cgroup.parts}
        out += [(k, cg[k] / KIB) for k in KERNEL if k in cg]
    return [(k, v) for k, v in out if v > 0]


def split_chart(runs: pd.DataFrame, prefix: str = "", caption: str = "") -> Figure | None:
    """The figure, or None where no valid run took a snapshot at its hold."""
    found, _ = splits(from_rows(runs))
    bars = sorted(chosen(found), key=lambda s: sum(v for _, v in segments(s)))
    if not bars:
        return None
    v1 = any(s.cgroup and any(t == V1_KERNEL_OTHER for _, t, _ in s.cgroup.parts) for s in bars)
    fig, ax = plt.subplots(figsize=(10, 1.6 + 0.42 * len(bars)), layout="constrained")
    drawn: set[str] = set()
    for y, s in enumerate(bars):
        left = 0.0
        for key, value in segments(s):
            style: dict[str, Any] = {"color": COLORS[key]}
            if key == "unattributed":
                style = {"color": "#ffffff", "hatch": "///", "edgecolor": "#8c8c8c", "linewidth": 0.6}
            label = _title(key, v1) if key not in drawn else None
            drawn.add(key)
            ax.barh(y, value, left=left, label=label, **style)
            left += value
        ax.text(left, y, f" {left:,.2f}", va="center", fontsize=8)
    ax.set_yticks(range(len(bars)), [f"{s.variant} (N={s.n:,})" for s in bars])
    ax.set_xlabel("KiB per task, (part(N) − part(1)) / N")
    ax.set_title(f"{prefix}Where each byte of a task goes: resident parts, then kernel parts")
    ax.set_xlim(0, max(sum(v for _, v in segments(s)) for s in bars) * 1.15)
    handles, labels = ax.get_legend_handles_labels()
    order = [_title(k, v1) for k in COLORS]  # the legend in the bars' order, bottom to top
    pairs = sorted(zip(handles, labels, strict=True), key=lambda hl: order.index(hl[1]))
    ax.legend(*zip(*pairs, strict=True), loc="lower right", fontsize=7, frameon=False)
    notes = ["smaps of every process and the cgroup's memory.stat, once at the hold (all N waiting)."]
    if caption:
        notes.append(caption)
    footnote(fig, notes)
    return fig


def _title(key: str, v1: bool) -> str:
    if key == "unattributed":
        return "unattributed (peak RSS above the hold)"
    if key == "kernel_other" and v1:
        return V1_KERNEL_OTHER
    return PARTS_TITLE[key]
