"""Tables from stored records: every run as a pandas row, and one summary row per (variant, N).

Kept apart from the store so that commands which never show a table (`--help`, `limits`, `doctor`,
`measure`) never import pandas.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from runner.results import workloads
from runner.results.load import load_records

SPREAD_LIMIT = 0.05
# The load client's figures (connections), flat: its cgroup peak, CPU time, time to connect N.
CLIENT_COLUMNS = {"client_peak": "cgroup_peak", "client_cpu_s": "cpu_s", "client_connect_s": "connect_s"}


def kernel_part(breakdown: Any) -> float | None:
    """The kernel memory in one breakdown of a run's cgroup: v1 kmem (with kmem.tcp, the socket
    buffers, when counted), v2 `kernel` and `sock` of memory.stat. None when not recorded."""
    if not isinstance(breakdown, dict) or "kernel" not in breakdown:
        return None
    return float(breakdown["kernel"]) + float(breakdown.get("sock") or 0)


def _client(client: Any, key: str) -> float | None:
    """A figure of a run's load client (connections), flat for tables."""
    if not isinstance(client, dict):
        return None
    if key == "cpu_s":
        parts = [client.get("user_s"), client.get("sys_s")]
        return float(sum(parts)) if all(isinstance(p, int | float) for p in parts) else None
    value = (client.get("summary") or {}).get(key) if key == "connect_s" else client.get(key)
    return float(value) if isinstance(value, int | float) else None


def load_runs(paths: Iterable[Path]) -> pd.DataFrame:
    """All run rows of the given results directories (or runs.jsonl files) as one table, with
    derived columns: the workload (sleep for rows stored before there were others), the cgroup's
    kernel part (kernel_part) and, for connections, the load client's peak, CPU and connect time."""
    rows = [{**record.to_json(), "source": str(where)} for where, record in load_records(paths)]
    runs = pd.DataFrame(rows)
    runs["workload"] = workloads.column(runs)
    breakdowns = runs["cgroup_breakdown"] if "cgroup_breakdown" in runs else [None] * len(runs)
    held = runs["cgroup_breakdown_held"] if "cgroup_breakdown_held" in runs else [None] * len(runs)
    # While the N connections were held, where recorded (at the highest total the client may be
    # closing them, the sockets half freed); else at the cgroup's highest sample.
    pairs = zip(breakdowns, held, strict=True)
    runs["cgroup_kernel"] = [kernel_part(h if isinstance(h, dict) and h else b) for b, h in pairs]
    clients = runs["client"] if "client" in runs else [None] * len(runs)
    for column, key in CLIENT_COLUMNS.items():
        runs[column] = [_client(c, key) for c in clients]
    return runs


def _reason(last: pd.Series, n_valid: int, metric: str) -> str:
    """Why a cell has no number. A missing reason is NaN once in a DataFrame, which must not
    become the text "nan"; valid runs without the metric (no cgroup on that machine) say so."""
    if n_valid:
        return f"no {metric} recorded"
    reason = last.get("reason")
    return reason if isinstance(reason, str) else ""


def sweep_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs of sweeps, without the probes of capacity searches (which ran at whatever N the
    search tried, under a cap, and must not be pooled into a sweep's cells)."""
    return runs[runs["kind"].fillna("sweep") == "sweep"] if "kind" in runs else runs


def counted_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs a cell's figures come from: sweep runs, without superseded rows (an invalid run
    that --sleep auto ran again)."""
    runs = sweep_runs(runs)
    if "superseded" in runs:
        runs = runs[~runs["superseded"].fillna(False).astype(bool)]
    return runs


def cell_values(runs: pd.DataFrame, metric: str = "peak_rss") -> dict[tuple[str, int], list[float]]:
    """(variant, n) -> the metric of every valid counted run, in the order they ran: the samples a
    significance test needs (summarize keeps only their median, min and max)."""
    runs = counted_runs(runs)
    if runs.empty or metric not in runs:
        return {}
    valid = runs[(runs["verdict"] == "valid") & runs[metric].notna()]
    return {
        (str(v), int(n)): [float(x) for x in cell[metric]]
        for (v, n), cell in valid.groupby(["variant", "n"], sort=False)
    }


def _overlap(valid: pd.DataFrame) -> dict[str, Any]:
    """A cell's evidence that its N waits overlapped (runner.judge.overlap), over its valid runs: the
    lowest hold ratio (RSS at `ready` ÷ the highest until the first wait could end), whether every
    run's own timing proves it, and the kind of its program's `ready` proof. None where the runs
    predate these fields."""
    ratios = valid["hold_ratio"].dropna() if "hold_ratio" in valid else pd.Series(dtype=float)
    timing = valid["overlap_by_timing"].dropna() if "overlap_by_timing" in valid else pd.Series(dtype=bool)
    kinds = set(valid["proof"].dropna()) if "proof" in valid else set()
    return {
        "hold_ratio": float(ratios.min()) if len(ratios) else None,
        "overlap_by_timing": bool(timing.astype(bool).all()) if 0 < len(timing) == len(valid) else None,
        # the kind of the program's own `ready` proof (runner.tasks.proof), when its runs agree
        "proof": kinds.pop() if len(kinds) == 1 else None,
    }


def summarize(runs: pd.DataFrame, metric: str = "peak_rss") -> pd.DataFrame:
    """One row per (variant, n): median, min and max of metric over valid repeats, the spread
    flag, median spawn time, and -- where no run was valid -- the verdict and reason instead.

    Superseded rows (an invalid run that --sleep auto ran again) and the probes of capacity
    searches (runs at whatever N the search tried, under a cap) are left out. Runs of two
    workloads are refused (runner.results.workloads): no median spans both.
    """
    workloads.only(runs)
    runs = counted_runs(runs)
    out = []
    for (variant, n), cell in runs.groupby(["variant", "n"], sort=False):
        valid = cell[cell["verdict"] == "valid"]
        values = valid[metric].dropna() if metric in valid else pd.Series(dtype=float)
        last = cell.iloc[-1]
        rec: dict[str, Any] = {
            "variant": variant,
            "n": int(n),
            "runs": len(cell),
            "valid": len(valid),
            "median": float(values.median()) if len(values) else None,
            "min": float(values.min()) if len(values) else None,
            "max": float(values.max()) if len(values) else None,
            "spawn_s": float(valid["ready_s"].median()) if len(valid) else None,
            "sleep_s": float(valid["sleep_s"].max()) if len(valid) else float(last.get("sleep_s", "nan")),
            "verdict": "valid" if len(values) else str(last["verdict"]),
            "reason": None if len(values) else _reason(last, len(valid), metric),
            **_overlap(valid),
        }
        rec["spread"] = (rec["max"] - rec["min"]) / rec["median"] if rec["median"] else None
        rec["spread_flag"] = bool(rec["spread"] is not None and rec["spread"] > SPREAD_LIMIT)
        out.append(rec)
    table = pd.DataFrame(out)
    # Per-task cost against the same variant's N=1 baseline: (M(N) - M(1)) / N.
    base = {r["variant"]: r["median"] for r in out if r["n"] == 1 and r["median"] is not None}
    table["per_task"] = [
        (r["median"] - base[r["variant"]]) / r["n"]
        if r["median"] is not None and r["variant"] in base and r["n"] > 1
        else None
        for r in out
    ]
    return table
