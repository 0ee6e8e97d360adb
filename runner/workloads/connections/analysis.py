"""The connections workload's own cells: per (variant, N), the cgroup's kernel part per connection
(`cgroup_kernel`: v1 kmem + kmem.tcp, v2 kernel + sock) and the load client's medians (its cgroup
peak, CPU time and time to connect N), which tables, figures and exports share."""

from __future__ import annotations

import pandas as pd

from runner.analysis.values import num
from runner.results.summary import CLIENT_COLUMNS, counted_runs, summarize


def kernel_cells(runs: pd.DataFrame) -> dict[tuple[str, int], dict[str, float | None]]:
    """(variant, N) -> the cgroup's kernel part: median bytes and per connection (M(N) - M(1)) / N."""
    if "cgroup_kernel" not in runs or runs.empty:
        return {}
    table = summarize(runs, "cgroup_kernel")
    return {
        (str(r["variant"]), int(r["n"])): {"median": num(r["median"]), "per_task": num(r["per_task"])}
        for _, r in table.iterrows()
    }


def client_cells(runs: pd.DataFrame) -> dict[tuple[str, int], dict[str, float | None]]:
    """(variant, N) -> the load client's medians over valid runs: cgroup peak, CPU s, connect s."""
    runs = counted_runs(runs)
    if runs.empty or "client_peak" not in runs:
        return {}
    valid = runs[runs["verdict"] == "valid"]
    out = {}
    for (variant, n), cell in valid.groupby(["variant", "n"], sort=False):
        out[(str(variant), int(n))] = {
            column: num(cell[column].dropna().median()) if cell[column].notna().any() else None
            for column in CLIENT_COLUMNS
        }
    return out
