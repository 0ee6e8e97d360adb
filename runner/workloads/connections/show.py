"""What the connections workload adds to the report's records, table and figures: its columns
(kernel memory per connection, the load client's cost), its legend (user and kernel
memory per connection, `ready` as the time to accept and read N), the heading's words, the load
client's table under it, and the per-connection figure (user and kernel parts stacked).

The views ask for it through the workload's methods (legend, tail, figures, ...) and never name it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from runner.results.record import METRICS
from runner.results.summary import SPREAD_LIMIT
from runner.show.text import sleep_note
from runner.units import KIB
from runner.workloads.connections.analysis import client_cells, kernel_cells
from runner.workloads.connections.figures import per_connection_chart
from runner.workloads.connections.table import client_line as client_line  # `memrun inspect`'s line
from runner.workloads.connections.table import client_table


def extras(runs: pd.DataFrame) -> dict[tuple[str, int], dict[str, Any]]:
    """Per (variant, N), the columns its report records add: the cgroup's kernel part per
    connection, and the load client's medians."""
    kernel, client = kernel_cells(runs), client_cells(runs)
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for key in {*kernel, *client}:
        k, c = kernel.get(key, {}), client.get(key, {})
        per = k.get("per_task")
        out[key] = {
            "kernel_median_bytes": k.get("median"),
            "kernel_per_task_bytes": per,
            "kernel_per_task_kib": None if per is None else per / KIB,
            "client_peak_bytes": c.get("client_peak"),
            "client_cpu_s": c.get("client_cpu_s"),
            "client_connect_s": c.get("client_connect_s"),
        }
    return out


def legend(metric: str, summary: pd.DataFrame) -> str:
    """One line under the table, so a pasted table carries its own units."""
    line = (
        f"MB = 10^6 bytes of {METRICS.get(metric, metric)} of the server holding N idle TCP "
        f"connections: median over valid repeats, (min–max) when repeated, ⚠ when repeats differ "
        f"by more than {SPREAD_LIMIT:.0%}. KiB/conn = (M(N) − M(1)) / N in KiB (1024 bytes); "
        "kernel = the same for the kernel memory of the server's cgroup while every connection was "
        "held (v1 kmem + kmem.tcp, v2 kernel + sock). ready = seconds until the server printed "
        "`ready N` (all N accepted, each task has read its first message). A cell without a "
        "valid run (`ready N`, no connection dropped before memrun closed them, exit 0) shows its "
        "verdict and reason instead of a number."
    )
    note = sleep_note(summary)
    return f"{line} {note}" if note else line


def heading(head: str) -> str:
    """The table's heading: what the server held."""
    return head.replace(", ", " with N idle TCP connections, ", 1) if head else head


def tail(recs: list[dict[str, Any]]) -> str:
    """Below the legend: the load client's own cost per cell, so a reader sees it never limited."""
    return client_table(recs)


def figures(
    runs: pd.DataFrame | None, cells: list[dict[str, Any]], metric: str, prefix: str, caption: str
) -> Iterator[tuple[str, Figure]]:
    """(file stem without the workload prefix and label suffix, figure): memory per idle connection,
    user and kernel parts stacked, for the headline metric."""
    if metric != "peak_rss":
        return
    kernel = kernel_cells(runs) if runs is not None else {}
    title = f"{prefix}Memory per idle TCP connection: user and kernel"
    split = per_connection_chart(cells, kernel, title, caption)
    if split is not None:
        yield "per-connection", split
