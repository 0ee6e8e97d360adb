"""The report's records: one tidy record per (variant, N) with raw numbers (bytes, seconds, and MB
and KiB for readers of a CSV), the model that the tables, the HTML page and the exports share."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from runner.analysis.values import check_metric, num
from runner.results import workloads
from runner.results.summary import summarize
from runner.units import KIB, MB


def records(runs: pd.DataFrame, metric: str = "peak_rss") -> list[dict[str, Any]]:
    """Tidy records, raw numbers: bytes and seconds, plus MB / KiB for readers of the CSV."""
    check_metric(metric)
    if runs.empty:
        return []
    workload = workloads.only(runs)
    extra = workload.report_extras(runs)  # the columns the workload adds
    out = []
    for _, r in summarize(runs, metric).iterrows():
        median, lo, hi, per_task = (num(r.get(k)) for k in ("median", "min", "max", "per_task"))
        out.append(
            {
                "variant": r["variant"],
                "n": int(r["n"]),
                "metric": metric,
                "verdict": r["verdict"],
                "reason": r["reason"] if isinstance(r["reason"], str) and median is None else None,
                "runs": int(r["runs"]),
                "valid": int(r["valid"]),
                "median_bytes": median,
                "min_bytes": lo,
                "max_bytes": hi,
                "median_mb": None if median is None else median / MB,
                "min_mb": None if lo is None else lo / MB,
                "max_mb": None if hi is None else hi / MB,
                "spread": num(r.get("spread")),
                "spread_flag": bool(r["spread_flag"]),
                "per_task_bytes": per_task,
                "per_task_kib": None if per_task is None else per_task / KIB,
                "spawn_s": num(r.get("spawn_s")),
                "sleep_s": num(r.get("sleep_s")),
                "hold_ratio": num(r.get("hold_ratio")),
                "overlap_by_timing": _flag(r.get("overlap_by_timing")),
                "proof": r["proof"] if isinstance(r.get("proof"), str) else None,
                "workload": workload.name,  # as stored
                **extra.get((r["variant"], int(r["n"])), {}),
            }
        )
    return out


def _flag(value: Any) -> bool | None:
    """A yes/no summary column as JSON has it: pandas gives numpy booleans, or NaN for none."""
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else bool(value)
