"""The tick workload's cells: per (variant, N), over its valid counted runs, the lateness pooled
as HdrHistogram pools (counts added) and read at p50, p99, p99.9 and max, the share of wakes
achieved, the rate held, the CPU per wake (medians), whether every run kept up, and the cost of a
ticking task over a sleeping one where sleep runs of the same variant and N are beside them
(`runs.attrs["baseline"]`, runner.results.workloads.select)."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from typing import Any

import pandas as pd

from runner.analysis.hdr import PERCENTILES, Hist, stored, us
from runner.results.summary import counted_runs
from runner.units import KIB
from runner.workloads.tick.summary import MIN_CPU_S

LATENCY = (*PERCENTILES, "max_us")


def resolved_cpu(told: dict[str, Any]) -> float | None:
    """A run's CPU per wake (µs) where the CPU it rests on is at least MIN_CPU_S, else None."""
    per, wakes = told.get("cpu_per_wake_us"), told.get("achieved") or 0
    if not isinstance(per, int | float) or per * wakes / 1e6 < MIN_CPU_S:
        return None
    return float(per)


def _median(values: Iterable[Any]) -> float | None:
    got = [float(v) for v in values if isinstance(v, int | float)]
    return statistics.median(got) if got else None


def _peaks(runs: pd.DataFrame | None, metric: str) -> dict[tuple[str, int], float]:
    """(variant, N) -> the median of metric over valid counted runs."""
    if runs is None or runs.empty or metric not in runs:
        return {}
    runs = counted_runs(runs)
    valid = runs[(runs["verdict"] == "valid") & runs[metric].notna()]
    return {
        (str(v), int(n)): float(cell[metric].median()) for (v, n), cell in valid.groupby(["variant", "n"])
    }


def cells(runs: pd.DataFrame, metric: str = "peak_rss") -> dict[tuple[str, int], dict[str, Any]]:
    """(variant, N) -> the cell's tick figures (see the module docstring); `_hist` is the pooled
    lateness (for .hgrm files and figures)."""
    runs = counted_runs(runs)
    if runs.empty or "client" not in runs:
        return {}
    asleep = _peaks(runs.attrs.get("baseline"), metric)
    ticking = _peaks(runs, metric)
    out: dict[tuple[str, int], dict[str, Any]] = {}
    valid = runs[runs["verdict"] == "valid"]
    for (variant, n), cell in valid.groupby(["variant", "n"], sort=False):
        told = [c for c in cell["client"] if isinstance(c, dict) and c.get("asked")]
        if not told:
            continue
        key = (str(variant), int(n))
        h = Hist.empty()
        for c in told:
            h = h + stored(c.get("lateness"))
        lateness = {k: us(h.percentile_ns(p)) for k, p in PERCENTILES.items()}
        lateness["max_us"] = us(h.max_ns())
        over = None  # per task: at N = 1 it would be the two programs' difference, not a task's
        if key in asleep and key in ticking and n > 1:
            over = (ticking[key] - asleep[key]) / n
        out[key] = {
            "runs": len(told),
            "achieved_share": _median(c["achieved"] / c["asked"] for c in told),
            "wakes_per_s": _median(c.get("wakes_per_s") for c in told),
            "asked_per_s": _median(int(n) / c["window_s"] * c["periods"] for c in told if c.get("window_s")),
            "cpu_per_wake_us": _median(resolved_cpu(c) for c in told),
            "keeps_up": all(bool(c.get("keeps_up")) for c in told),
            "lateness": lateness,
            "over_sleep_bytes": over,
            "over_sleep_kib": None if over is None else over / KIB,
            "sleep_median_bytes": asleep.get(key),
            "_hist": h,
        }
    return out
