"""The http workload's cells: per (variant, C) the server idle, and per rate R the medians over
valid runs of what its phase measured (latency from the scheduled time and from the send, the
rate achieved, the server's CPU per 1,000 answers and peak memory in the window), whether it
saturated, and the runs' latency histograms pooled (for percentile curves)."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from typing import Any

import pandas as pd

from runner.results.summary import counted_runs
from runner.workloads.http.judge import saturation

LATENCY = ("p50_us", "p90_us", "p99_us", "p999_us", "max_us")


def _median(values: Iterable[Any]) -> float | None:
    got = [float(v) for v in values if isinstance(v, int | float)]
    return statistics.median(got) if got else None


def _slo(row: pd.Series) -> float:
    params = row.get("params") if isinstance(row.get("params"), dict) else {}
    return float(params.get("slo") or 0.1)


def phase_cells(runs: pd.DataFrame) -> dict[tuple[str, int], dict[str, Any]]:
    """(variant, C) -> {"idle_rss", "idle_cgroup", "client_cpu_s", "rates": {R: {...}}}, from valid
    runs. A rate is saturated when most of its runs saturated (a tie: saturated)."""
    runs = counted_runs(runs)
    if runs.empty or "client" not in runs:
        return {}
    valid = runs[runs["verdict"] == "valid"]
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for (variant, c), cell in valid.groupby(["variant", "n"], sort=False):
        clients = [(r["client"], _slo(r)) for _, r in cell.iterrows() if isinstance(r["client"], dict)]
        if not clients:
            continue
        idle = [cl.get("idle") or {} for cl, _ in clients]
        rates: dict[int, dict[str, Any]] = {}
        by_rate: dict[int, list[tuple[dict[str, Any], float]]] = {}
        for cl, slo in clients:
            for ph in cl.get("phases") or []:
                by_rate.setdefault(round(float(ph["rate"])), []).append((ph, slo))
        for rate, phases in sorted(by_rate.items()):
            why = [saturation(ph, rate, slo) for ph, slo in phases]
            saturated = sum(w is not None for w in why) * 2 >= len(why)
            lat = [ph.get("latency") or {} for ph, _ in phases]
            svc = [ph.get("service") or {} for ph, _ in phases]
            srv = [ph.get("server") or {} for ph, _ in phases]
            pooled: dict[int, int] = {}
            for h in lat:
                for upper, count in h.get("buckets") or []:
                    pooled[int(upper)] = pooled.get(int(upper), 0) + int(count)
            rates[rate] = {
                "runs": len(phases),
                "saturated": saturated,
                "why": next((w for w in why if w), None) if saturated else None,
                "achieved": _median(ph.get("achieved_rate") for ph, _ in phases),
                **{k: _median(h.get(k) for h in lat) for k in LATENCY},
                **{f"service_{k}": _median(h.get(k) for h in svc) for k in LATENCY},
                "server_cpu_per_1k_s": _median(s.get("cpu_per_1k_s") for s in srv),
                "server_peak_rss": _median(s.get("peak_rss") for s in srv),
                "server_peak_cgroup": _median(s.get("peak_cgroup") for s in srv),
                "client_cpu_s": _median(ph.get("cpu_s") for ph, _ in phases),
                "closed_by_server": _median(ph.get("closed_by_server") for ph, _ in phases),
                "window_s": _median(ph.get("window_s") for ph, _ in phases),
                "buckets": sorted(pooled.items()),
            }
        out[(str(variant), int(c))] = {
            "idle_rss": _median(i.get("rss") for i in idle),
            "idle_cgroup": _median(i.get("cgroup") for i in idle),
            "client_peak": _median(cl.get("cgroup_peak") for cl, _ in clients),
            "cpus": (clients[0][0].get("cpus") or {}),
            "rates": rates,
        }
    return out


def percentile_curve(buckets: list[tuple[int, int]]) -> tuple[list[float], list[float]]:
    """(percentiles, latency ms) from a histogram's buckets [(upper_us, count)]: at each bucket,
    the share of answers at or under it, as HdrHistogram plots them."""
    total = sum(c for _, c in buckets)
    if not total:
        return [], []
    xs, ys, seen = [], [], 0
    for upper, count in buckets:
        seen += count
        xs.append(100.0 * seen / total)
        ys.append(upper / 1000.0)
    return xs, ys
