"""What the http workload adds to the report's records, table and figures: per (variant, C) its
phases' medians (the `http` column: latency, CPU per 1,000 requests, memory idle and under load,
saturation), its legend, heading and table (runner.workloads.web.table), and its figures
(latency percentile curves per C, memory idle and under load: runner.workloads.web.figures).

The views ask for it through the workload's methods (legend, tail, figures, ...) and never name it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from runner.analysis.hdr import Hist
from runner.results.record import METRICS
from runner.workloads.views import hgrm_folders
from runner.workloads.web.analysis import hist_cells, phase_cells
from runner.workloads.web.figures import cpu_chart, latency_chart, memory_chart
from runner.workloads.web.table import client_line as client_line  # `memrun inspect`'s line
from runner.workloads.web.table import http_table


def extras(runs: pd.DataFrame) -> dict[tuple[str, int], dict[str, Any]]:
    """Per (variant, C), its phases' medians under `http` (runner.workloads.web.analysis)."""
    return {key: {"http": cell} for key, cell in phase_cells(runs).items()}


def legend(metric: str, summary: pd.DataFrame) -> str:
    """One line under the table, so a pasted table carries its own units."""
    return (
        f"MB = 10^6 bytes of {METRICS.get(metric, metric)} of the HTTP server over its whole run (its "
        "C keep-alive connections opened, then each rate in turn): median over valid repeats. The table "
        "below has each rate's latency, CPU and memory.\n"
    )


def heading(head: str) -> str:
    """The table's heading: what the server did."""
    return (
        head.replace(", ", " of an HTTP server with N keep-alive connections under load, ", 1)
        if head
        else head
    )


def tail(recs: list[dict[str, Any]]) -> str:
    """Below the legend: the per-rate table."""
    return http_table(recs)


def figures(
    runs: pd.DataFrame | None, cells: list[dict[str, Any]], metric: str, prefix: str, caption: str
) -> Iterator[tuple[str, Figure]]:
    """(file stem without the workload prefix and label suffix, figure): latency curves at each C,
    and memory idle and under load; drawn once, with the headline metric."""
    if metric != "peak_rss" or runs is None:
        return
    phases = hist_cells(runs)
    for c in sorted({n for _, n in phases}):
        fig = latency_chart(phases, c, f"{prefix}HTTP latency at C = {c:,} keep-alive connections", caption)
        if fig is not None:
            yield f"latency-c{c}", fig
    fig = memory_chart(phases, f"{prefix}HTTP server memory, idle and under load", caption)
    if fig is not None:
        yield "memory-idle-load", fig
    fig = cpu_chart(phases, f"{prefix}HTTP server CPU per 1,000 answers against the rate", caption)
    if fig is not None:
        yield "cpu-per-1k", fig


def hgrm_parts(hists: dict[str, Hist]) -> list[tuple[str, Hist]]:
    """(file suffix, histogram) of one rate's `.hgrm` files: the latency of the requests answered
    (from the scheduled time), the requests censored apart (`-censored`: no answer by the end of
    the drain, each counted there, so its values are lower bounds), and the client's send lag
    (`-send-lag`). The stored latency holds the censored values too (the table marks the
    percentiles they reach as `≥`); an `.hgrm` has no way to mark a value, so they are taken out
    of it (the two were recorded at the same values) and written beside it, never mixed in
    unmarked."""
    latency, censored = hists["latency"], hists["censored"]
    answered = Hist(latency.counts - censored.counts) if censored.count else latency
    return [("", answered), ("-censored", censored), ("-send-lag", hists["send_lag"])]


def data_files(runs: pd.DataFrame, out_dir: Path, prefix: str) -> list[Path]:
    """HdrHistogram's percentile distributions (`.hgrm`, values in ms), one per variant, C and rate
    with a valid run, as wrk2 and HdrHistogram's plotter read them (hgrm_parts): the latency of the
    answered requests from the scheduled time, pooled (`<prefix>hgrm/VARIANT-cC-rR.hgrm`), the
    censored ones beside it where there are any (`...-censored.hgrm`), and the client's send lag
    (`...-send-lag.hgrm`). Several labels (machines) are never pooled: a folder each
    (`<prefix>hgrm-LABEL`)."""
    written = []
    for folder, group in hgrm_folders(runs, out_dir, prefix):
        for (variant, c), cell in sorted(hist_cells(group).items()):
            for rate, r in sorted(cell["rates"].items()):
                for suffix, h in hgrm_parts(r["_hists"]):
                    if not h.count or (suffix == "-send-lag" and not r.get("send_lag")):
                        continue
                    folder.mkdir(parents=True, exist_ok=True)
                    path = folder / f"{variant}-c{c}-r{rate}{suffix}.hgrm"
                    path.write_text(h.hgrm())
                    written.append(path)
    return written
