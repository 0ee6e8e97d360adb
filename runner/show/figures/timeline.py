"""One run's timeline as a figure: memory, threads, thread creation and CPU against time, with the
moments and limits that explain how the run ended.

Why four panels on one time axis: a failure is read across them. The thread count stopping at a
line (a limit) or bending over (creation slowing), the CPU going to the kernel while it bends,
memory following the threads, `ready` coming late or never, and the end (exit, signal, OOM
kill, timeout) are one story; separate figures would make the reader line them up by eye.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from runner.judge.diagnose import MIN_RISE, Diagnosis, cpu_rates, creation_start, live, net_rates
from runner.limits.host import Limits, int_value
from runner.limits.predict import need, thread_capacities
from runner.measure.result import Sample
from runner.results.record import RunRecord
from runner.show.ending import end_label
from runner.show.figures.style import NOTE_COLOR, STYLE, footnote, save, wrap
from runner.units import MB

OFF_SCALE = 3.0  # a limit more than this many times the highest value is named, not drawn
RSS, CGROUP, THREADS, PROCS = "#1f77b4", "#ff7f0e", "#2ca02c", "#8c564b"
USER, SYSTEM = "#9ecae1", "#d62728"
READY, SLEEP_END, END, LIMIT = "#2ca02c", "#9467bd", "#d62728", "#555555"


@dataclass(frozen=True)
class Moment:
    """A vertical line across every panel: when, what, in which colour and style."""

    t: float
    label: str
    color: str
    style: str = "--"


def moments(record: RunRecord, timeline: Sequence[Sample]) -> list[Moment]:
    """`ready` (if it came), the sleep's end for the first tasks and for the last (when `ready`
    came), and the end of the run."""
    r = record.result
    out = []
    points = live(timeline)
    sleep = record.sleep_s
    if r is not None and r.ready_s is not None:
        out.append(Moment(r.ready_s, f"ready after {r.ready_s:.2f} s", READY))
    if points and sleep:
        first = creation_start(points) + sleep
        out.append(Moment(first, f"first tasks' {sleep:g} s sleep ends", SLEEP_END, ":"))
        if r is not None and r.ready_s is not None:
            out.append(Moment(r.ready_s + sleep, "last tasks' sleep ends", SLEEP_END, ":"))
    if r is not None:
        out.append(Moment(r.wall_s, end_label(record), END, "-"))
    return out


def _hline(ax: Any, y: float, label: str, color: str = LIMIT, below: bool = False) -> None:
    """A limit as a dashed line, named at the right end (below the line when `below`, so that two
    limits close together keep both names readable)."""
    ax.axhline(y, color=color, linestyle="--", linewidth=0.9)
    ax.annotate(
        label,
        (0.995, y),
        xycoords=("axes fraction", "data"),
        xytext=(0, -2 if below else 2),
        textcoords="offset points",
        ha="right",
        va="top" if below else "bottom",
        fontsize=7.5,
        color=color,
    )


def _thousands(ax: Any) -> None:
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))


def _memory_panel(
    ax: Any, record: RunRecord, points: Sequence[Sample], limits: Limits, notes: list[str]
) -> None:
    t = [p.t for p in points]
    ax.plot(t, [p.rss / MB for p in points], color=RSS, label="RSS of the process tree")
    cg = [(p.t, p.cgroup / MB) for p in points if p.cgroup is not None]
    if cg:
        ax.plot(*zip(*cg, strict=True), color=CGROUP, label="run cgroup (kernel memory included)")
    top = max([p.rss for p in points] + [p.cgroup or 0 for p in points] + [1])
    cap = record.memory_cap or (record.result.memory_cap if record.result else None)
    total = int_value(limits, "mem_total")
    bound, what = (cap, "memory cap of the run") if cap else (total, "machine's memory (no cap)")
    if bound and bound <= OFF_SCALE * top:
        _hline(ax, bound / MB, f"{what}: {bound / MB:,.0f} MB")
    elif bound:
        notes.append(f"{what[0].upper()}{what[1:]}: {bound / MB:,.0f} MB, off this scale.")
    ax.set_ylabel("MB")
    ax.set_ylim(bottom=0)
    ax.legend(loc="lower center", fontsize=7.5, frameon=False)
    ax.set_title("memory", loc="left")


def _threads_panel(
    ax: Any, record: RunRecord, points: Sequence[Sample], per_task: dict, limits: Limits, notes: list[str]
) -> None:
    t = [p.t for p in points]
    ax.plot(t, [p.threads for p in points], color=THREADS, label="threads")
    if max(p.procs for p in points) > 1:
        ax.plot(t, [p.procs for p in points], color=PROCS, label="processes")
    top = max(p.threads for p in points)
    wanted = record.n * (need(per_task, "threads") or 0)
    lines = [
        (cap, how) for cap, how in thread_capacities(per_task or {"threads": 1}, limits).values() if cap > 0
    ]
    if not _thread_run(points, per_task):
        lines = []  # its tasks are not threads: no thread limit is what stopped it
    if wanted:
        lines.append((wanted, f"N × {need(per_task, 'threads')} thread(s) per task"))
    previous = None
    below = False
    for value, how in sorted(lines):
        if value > OFF_SCALE * max(top, 1):
            notes.append(f"Off this scale: {how} = {value:,}.")
            continue
        below = previous is not None and value - previous < 0.08 * OFF_SCALE * max(top, 1) and not below
        _hline(ax, value, f"{how} = {value:,}", below=below)
        previous = value
    ax.set_ylabel("count")
    ax.set_ylim(bottom=0)
    _thousands(ax)
    ax.legend(loc="lower center", fontsize=7.5, frameon=False)
    ax.set_title("threads and processes", loc="left")


def _thread_run(points: Sequence[Sample], per_task: dict) -> bool:
    """Whether the run's tasks are OS threads: its manifest says so, or its thread count rose."""
    return bool(need(per_task, "threads")) or max(p.threads for p in points) - points[0].threads >= MIN_RISE


def _creation_panel(
    ax: Any, record: RunRecord, points: Sequence[Sample], window: float, per_task: dict
) -> None:
    rates = net_rates(points, window)
    if rates:
        ax.plot([x for x, _ in rates], [y for _, y in rates], color=THREADS, drawstyle="steps-mid")
    ax.axhline(0, color=NOTE_COLOR, linewidth=0.6)
    _thousands(ax)
    ax.set_ylabel("threads / s")
    if not _thread_run(points, per_task):
        ax.set_title("threads started minus ended, per second (this run's tasks are not threads)", loc="left")
        return
    if record.sleep_s:
        clean = creation_start(points) + record.sleep_s
        ax.axvspan(points[0].t, min(clean, points[-1].t), color=THREADS, alpha=0.07, linewidth=0)
    ax.set_title(
        "threads started minus ended, per second (shaded: no task has ended yet, so this is the "
        "creation rate)",
        loc="left",
    )


def _cpu_panel(ax: Any, record: RunRecord, points: Sequence[Sample], window: float, cpus: int | None) -> None:
    rates = cpu_rates(points, window)
    r = record.result
    if rates:
        x = [m for m, _, _ in rates]
        ax.stackplot(
            x,
            [s for _, _, s in rates],
            [u for _, u, _ in rates],
            colors=[SYSTEM, USER],
            labels=["system (kernel)", "user"],
            step="mid",
        )
        # above the panel, at the right: inside, it would sit on the areas it names
        ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), fontsize=7.5, frameon=False, ncols=2)
    elif r is not None and r.user_s is not None and r.sys_s is not None:
        share = r.sys_s / (r.user_s + r.sys_s) if r.user_s + r.sys_s else 0
        ax.text(
            0.5,
            0.5,
            "CPU time was not sampled in this run (stored before memrun sampled it).\nWhole run: "
            f"user {r.user_s:.1f} s, system {r.sys_s:.1f} s ({share * 100:.0f} % in the kernel) "
            f"in {r.wall_s:.1f} s",
            transform=ax.transAxes,
            ha="center",
            va="center",
            fontsize=8.5,
            color=NOTE_COLOR,
        )
    if cpus:
        _hline(ax, cpus, f"{cpus} CPUs")
        ax.set_ylim(0, cpus * 1.15)
    ax.set_ylabel("CPUs busy")
    ax.set_xlabel("seconds since the program started")
    ax.set_title("CPU time of the process tree", loc="left")


def save_timeline_figure(
    record: RunRecord,
    timeline: Sequence[Sample],
    out_dir: Path,
    stem: str,
    *,
    per_task: dict,
    limits: Limits,
    cpus: int | None,
    diagnosis: Diagnosis | None,
) -> list[Path]:
    """Draw the run's figure and write it as PNG and SVG (the style holds while both are made)."""
    with plt.rc_context(STYLE):
        fig = timeline_figure(
            record, timeline, per_task=per_task, limits=limits, cpus=cpus, diagnosis=diagnosis
        )
        return save(fig, out_dir, stem, ("png", "svg"))


def _close(marks: list[Moment], gap: float) -> list[list[Moment]]:
    """Moments closer than `gap` seconds share one label, so labels never print over each other."""
    groups: list[list[Moment]] = []
    for m in marks:
        if groups and m.t - groups[-1][-1].t < gap:
            groups[-1].append(m)
        else:
            groups.append([m])
    return groups


def timeline_figure(
    record: RunRecord,
    timeline: Sequence[Sample],
    *,
    per_task: dict,
    limits: Limits,
    cpus: int | None,
    diagnosis: Diagnosis | None,
) -> Figure:
    """The figure for one run: memory, threads and processes, creation rate, CPU, against time.
    Draw it under plt.rc_context(STYLE) (save_timeline_figure does)."""
    points = live(timeline) or list(timeline)
    if not points:
        raise ValueError("this run has no timeline")
    fig, axes = plt.subplots(
        4, 1, figsize=(9, 10), sharex=True, layout="constrained", height_ratios=[3, 3, 2, 2]
    )
    notes: list[str] = []
    span = max(p.t for p in points)
    window = max(2 * (record.result.interval_s if record.result else 0.05), span / 80)
    _memory_panel(axes[0], record, points, limits, notes)
    _threads_panel(axes[1], record, points, per_task, limits, notes)
    _creation_panel(axes[2], record, points, window, per_task)
    _cpu_panel(axes[3], record, points, window, cpus)
    marks = moments(record, timeline)
    right = max([span, *[m.t for m in marks if m.color == END]]) * 1.02
    shown = []
    for m in sorted(marks, key=lambda m: m.t):
        if m.t > right:
            notes.append(f"{m.label[0].upper()}{m.label[1:]} at {m.t:.1f} s, after the run ended.")
            continue
        for ax in axes:
            ax.axvline(m.t, color=m.color, linestyle=m.style, linewidth=1.1)
        shown.append(m)
    for group in _close(shown, 0.02 * right):
        last = group[-1]
        axes[0].annotate(
            "; ".join(m.label for m in group),
            (last.t, 1.0),
            xycoords=("data", "axes fraction"),
            rotation=90,
            ha="right",
            va="top",
            fontsize=7.5,
            color=last.color,
            bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 0.5},
        )
    if diagnosis is not None:
        axes[1].plot([diagnosis.at_s], [diagnosis.threads], "o", color=END, markersize=5)
        what = {
            "limit": "stopped at a limit",
            "plateau": "creation stopped",
            "slowdown": "creation fell",
            "stall": "threads stopped ending",
        }
        axes[1].annotate(
            what[diagnosis.kind],
            (diagnosis.at_s, diagnosis.threads),
            xytext=(6, -10),
            textcoords="offset points",
            fontsize=7.5,
            color=END,
        )
    axes[-1].set_xlim(0, right)
    r = record.result
    ready = f"ready after {r.ready_s:.2f} s" if r and r.ready_s is not None else "no `ready` line"
    fig.suptitle(
        f"{record.variant}, N = {record.n:,}: {record.verdict} ({record.code}); {ready}; {end_label(record)} "
        f"after {r.wall_s:.1f} s"
        if r
        else f"{record.variant}, N = {record.n:,}",
        fontsize=10,
        x=0.01,
        ha="left",
    )
    story = [*wrap(f"Timeline: {diagnosis.text}.", 140, 2)] if diagnosis else []
    footnote(
        fig,
        [
            *story,
            *wrap(f"Verdict: {record.reason}", 140, 3),
            *notes,
            f"run {record.run_id}, sweep {record.sweep_id}",
        ],
    )
    return fig
