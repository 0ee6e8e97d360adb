"""Tables from stored results: variants x N, never re-running anything.

Markdown is for pasting into a blog post next to the 2023 article's table (MB, 10^6 bytes, like
the article); CSV and JSON are the tidy records of runner.analysis.records, one per (variant, N),
with raw numbers for other tools. The words it shares with the figures (N labels, units, captions)
come from runner.show.text.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from runner.analysis.records import records
from runner.results import workloads
from runner.results.record import METRICS
from runner.results.summary import SPREAD_LIMIT
from runner.show.exports import registry
from runner.show.exports.exporter import Table, TableExporter
from runner.show.text import (
    DAGGER,
    caption,
    cell_status,
    kib_per_task,
    metric_title,
    n_label,
    seconds,
    short,
    sleep_note,
    unusual_sleep,
    usual_sleep,
    variant_info,
)
from runner.units import mb


def md_cell(rec: dict[str, Any], usual: float | None) -> str:
    if rec["median_bytes"] is None:
        text = f"*{short(cell_status(rec), 80)}*"
    else:
        text = f"**{mb(rec['median_bytes'])}**"
        if rec["valid"] > 1:
            text += f" ({rec['min_mb']:,.1f}–{rec['max_mb']:,.1f})"
        if rec["spread_flag"]:
            text += f" ⚠{rec['spread'] * 100:.0f}%"
        words = workloads.resolved(rec).words
        if rec["per_task_bytes"] is not None:
            text += f" · {kib_per_task(rec['per_task_bytes'], words.unit)}"
        if rec.get("kernel_per_task_bytes") is not None:
            text += f" · kernel {kib_per_task(rec['kernel_per_task_bytes'], words.unit)}"
        if rec["spawn_s"] is not None:
            text += f" · {words.spawn} {seconds(rec['spawn_s'])}"
    sleep = unusual_sleep(rec, usual)
    if sleep is not None:
        text += f" {DAGGER}{sleep:g} s"
    return text.replace("|", "\\|")


def legend(metric: str, summary: pd.DataFrame) -> str:
    """One line under the table, so a pasted table carries its own units."""
    own = workloads.only(summary).legend(metric, summary)
    if own is not None:
        return own
    line = (
        f"MB = 10^6 bytes of {METRICS.get(metric, metric)}: median over valid repeats, "
        f"(min–max) when repeated, ⚠ when repeats differ by more than {SPREAD_LIMIT:.0%}. "
        "KiB/task = (M(N) − M(1)) / N in KiB (1024 bytes). "
        "spawn = seconds until the program printed its `ready N` line. "
        "A cell without a valid run (exit 0 and `ready N` before the sleep ran out) shows its "
        "verdict and reason instead of a number."
    )
    note = sleep_note(summary)
    return f"{line} {note}" if note else line


def to_markdown(
    runs: pd.DataFrame, metric: str = "peak_rss", sweeps: list[dict[str, Any]] | None = None
) -> str:
    recs = records(runs, metric)
    if not recs:
        return "*no runs*\n"
    table = pd.DataFrame(recs)
    usual = usual_sleep(table)
    ns = sorted(table["n"].unique())
    variants = list(dict.fromkeys(table["variant"]))
    cells = {(r["variant"], r["n"]): md_cell(r, usual) for r in recs}
    lines = [
        "| variant | " + " | ".join(n_label(n) for n in ns) + " |",
        "|---|" + "---|" * len(ns),
    ]
    for v in variants:
        lines.append(f"| {v} | " + " | ".join(cells.get((v, n), "—") for n in ns) + " |")
    head = f"{metric_title(metric)}, {caption(runs, sweeps)}\n\n" if sweeps is not None else ""
    workload = workloads.resolved(recs[0])
    added = workload.tail(recs)  # what the workload adds below its legend
    tail = legend(metric, table) + "\n" + (f"\n{added}" if added else "")
    return workload.heading(head) + "\n".join(lines) + "\n\n" + tail + idioms(variants, sweeps or [])


def idioms(variants: list[str], sweeps: list[dict[str, Any]]) -> str:
    """What each variant's program does, one line each, as the sweeps recorded it (nothing for
    results written before they did)."""
    info = variant_info(sweeps)
    known = [v for v in variants if v in info]
    if not known:
        return ""

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    rows = [f"| {v} | {cell(info[v].get('family', ''))} | {cell(info[v].get('idiom', ''))} |" for v in known]
    return "\n" + "\n".join(["| variant | family | idiom |", "|---|---|---|", *rows]) + "\n"


class RunsTable(Table):
    """The variants x N table of runs that are one label's: to_markdown(), or their records."""

    def __init__(
        self, runs: pd.DataFrame, metric: str = "peak_rss", sweeps: list[dict[str, Any]] | None = None
    ) -> None:
        self.runs, self.metric, self.sweeps = runs, metric, sweeps

    def markdown(self) -> str:
        return to_markdown(self.runs, self.metric, self.sweeps)

    def records(self) -> list[dict[str, Any]]:
        return records(self.runs, self.metric)


def render(
    runs: pd.DataFrame, fmt: str = "md", metric: str = "peak_rss", sweeps: list[dict[str, Any]] | None = None
) -> str:
    """The table in a table format (md, csv, json). `sweeps` (optional) adds a machine and date
    line to md."""
    return registry.get(fmt, TableExporter).table(RunsTable(runs, metric, sweeps))
