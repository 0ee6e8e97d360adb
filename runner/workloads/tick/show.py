"""What the tick workload adds to the report's records, table and figures: its columns (wakes,
lateness, CPU per wake, the cost over a sleeping task), its legend, the table of its wakes under
the memory table, its figures, the lateness as `.hgrm` files, and `memrun inspect`'s line.

The views ask for it through the workload's methods and never name it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from runner.results.record import METRICS
from runner.show.text import n_label
from runner.workloads.tick.analysis import cells
from runner.workloads.tick.figures import lateness_chart, over_sleep_chart
from runner.workloads.views import hgrm_folders


def extras(runs: pd.DataFrame) -> dict[tuple[str, int], dict[str, Any]]:
    """Per (variant, N), its cell's figures under `tick` (the pooled histogram left out)."""
    return {
        key: {"tick": {k: v for k, v in c.items() if not k.startswith("_")}} for key, c in cells(runs).items()
    }


def legend(metric: str, summary: pd.DataFrame) -> str:
    """One line under the table, so a pasted table carries its own units."""
    return (
        f"MB = 10^6 bytes of {METRICS.get(metric, metric)} of N tasks that each keep their state and "
        "wake every period, over the whole run (spawn, first wakes, the ticking hold): median over "
        "valid repeats. ready = seconds until every task had woken once. The table below has the "
        "wakes, their lateness and CPU, and the cost of a ticking task over a sleeping one.\n"
    )


def heading(head: str) -> str:
    """The table's heading: what the tasks did."""
    return head.replace(", ", " of N tasks that keep state and wake on a timer, ", 1) if head else head


def _ms(value_us: float | None) -> str:
    return "–" if value_us is None else f"{value_us / 1000:.3g}"


def tail(recs: list[dict[str, Any]]) -> str:
    """Below the legend: per cell, the wakes achieved, the lateness percentiles (ms), the CPU per
    wake and the KiB a ticking task costs over a sleeping one."""
    rows = sorted((r for r in recs if isinstance(r.get("tick"), dict)), key=lambda r: (r["n"], r["variant"]))
    if not rows:
        return ""
    lines = [
        "",
        "| variant | N | wakes achieved | held/s | p50 ms | p99 ms | p99.9 ms | max ms | CPU µs/wake "
        "| KiB/task over sleep |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        t = r["tick"]
        lat = t["lateness"]
        share = t.get("achieved_share")
        achieved = "–" if share is None else f"{share:.2%}" + ("" if t.get("keeps_up") else " ✗")
        held = t.get("wakes_per_s")
        held_text = "–" if held is None else f"{held:,.0f}"
        cpu = t.get("cpu_per_wake_us")
        over = t.get("over_sleep_kib")
        lines.append(
            f"| {r['variant']} | {n_label(r['n'])} | {achieved} | {held_text} | "
            f"{_ms(lat.get('p50_us'))} | {_ms(lat.get('p99_us'))} | {_ms(lat.get('p999_us'))} | "
            f"{_ms(lat.get('max_us'))} | {'–' if cpu is None else f'{cpu:.3g}'} | "
            f"{'–' if over is None else f'{over:.2f}'} |"
        )
    lines.append(
        "\nwakes achieved: of those due in the window's whole periods, the share that came before its "
        "end (✗: cannot keep up: under 99 %, or p99 past one period); lateness: wake − due time, "
        "pooled over runs; CPU: the tree's user + system time over the window ÷ wakes (– under 0.1 s of "
        "CPU, which the kernel counts in 10 ms ticks); KiB/task over sleep: (peak ticking − peak "
        "sleeping) ÷ N at N > 1, where this folder has sleep runs at that N."
    )
    return "\n".join(lines) + "\n"


def figures(
    runs: pd.DataFrame | None, cells_: list[dict[str, Any]], metric: str, prefix: str, caption: str
) -> Iterator[tuple[str, Figure]]:
    """(file stem without the workload prefix and label suffix, figure): p99 lateness against N,
    and the cost of a ticking task beside a sleeping one; drawn once, with the headline metric."""
    if metric != "peak_rss" or runs is None:
        return
    found = cells(runs)
    fig = lateness_chart(found, f"{prefix}p99 wake-up lateness of N ticking tasks against N", caption)
    if fig is not None:
        yield "lateness-p99", fig
    fig = over_sleep_chart(found, f"{prefix}Memory per task: ticking beside sleeping", caption)
    if fig is not None:
        yield "per-task-tick-sleep", fig


def data_files(runs: pd.DataFrame, out_dir: Path, prefix: str) -> list[Path]:
    """HdrHistogram's percentile distributions of the lateness (`.hgrm`, values in ms), one per
    variant and N with a valid run (`<prefix>hgrm/VARIANT-nN.hgrm`), a folder per label where
    there are several."""
    written = []
    for folder, group in hgrm_folders(runs, out_dir, prefix):
        for (variant, n), cell in sorted(cells(group).items()):
            h = cell["_hist"]
            if not h.count:
                continue
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"{variant}-n{n}.hgrm"
            path.write_text(h.hgrm())
            written.append(path)
    return written


def client_line(n: int, told: Mapping[str, Any]) -> str | None:
    """`memrun inspect`'s line on the program's own account of its window."""
    if not told.get("asked"):
        return None
    lat = told.get("lateness") or {}
    cpu = told.get("cpu_per_wake_us")
    return (
        f"ticks: {told['periods']} whole period(s) after `ready`: {told['achieved']:,} of "
        f"{told['asked']:,} wakes achieved ({told.get('wakes_per_s') or 0:,.0f}/s); lateness p50 "
        f"{_ms(lat.get('p50_us'))} ms, p99 {_ms(lat.get('p99_us'))} ms, max {_ms(lat.get('max_us'))} ms; "
        f"CPU {'–' if cpu is None else f'{cpu:.3g} µs'} per wake"
        + ("" if told.get("keeps_up") else "; cannot keep up")
    )
