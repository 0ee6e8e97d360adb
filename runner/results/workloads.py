"""Which workload a stored row or sweep belongs to, and the runs of one workload only.

Memory per sleeping task and memory per idle connection are different questions: a table or a
figure that put them side by side, or a median over both, would answer neither. Every row says
its workload (rows written before workloads existed are sleep rows), and every view of stored
results takes one workload's rows.

This is where a stored row's workload name becomes the Workload object (resolved() and only()):
the views below it are handed the object, never a name to look up again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from runner.workload import DEFAULT, Workload, get

if TYPE_CHECKING:  # pandas only where tables are made: capacity and sweep read of() without it
    import pandas as pd


def of(row: Mapping[str, Any]) -> str:
    """A stored row's or sweep's workload's name; one written before workloads existed is sleep."""
    value = row.get("workload")
    return value if isinstance(value, str) and value else DEFAULT


def resolved(row: Mapping[str, Any]) -> Workload:
    """A stored row's or sweep's workload, the object (sleep for one written before workloads)."""
    return get(of(row))


def column(runs: pd.DataFrame) -> pd.Series:
    """Every run's workload (sleep where the row has none)."""
    import pandas as pd

    if "workload" not in runs:
        return pd.Series([DEFAULT] * len(runs), index=runs.index, dtype=object)
    return runs["workload"].map(lambda w: w if isinstance(w, str) and w else DEFAULT)


def select(
    runs: pd.DataFrame, sweeps: list[dict[str, Any]], workload: Workload
) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """The runs and sweeps of one workload (stored rows keep its name). Where the workload compares
    itself with another (Workload.baseline: tick with sleep), that one's runs ride along as
    `attrs["baseline"]`, for its views to read; its rows never join the workload's own."""
    if runs.empty:
        return runs, [s for s in sweeps if of(s) == workload.name]
    mine = runs[column(runs) == workload.name].reset_index(drop=True)
    if workload.baseline:
        mine.attrs["baseline"] = runs[column(runs) == workload.baseline].reset_index(drop=True)
    return mine, [s for s in sweeps if of(s) == workload.name]


def only(runs: pd.DataFrame) -> Workload:
    """The one workload of runs (the default where there are none); a ValueError when they hold
    several (callers select() first)."""
    found = sorted(set(column(runs))) if not runs.empty else [DEFAULT]
    if len(found) > 1:
        raise ValueError(
            f"these runs hold {len(found)} workloads ({', '.join(found)}), which are never put in one "
            "table or figure: choose one with --workload"
        )
    return get(found[0])


def mixed(runs: pd.DataFrame, workload: Workload) -> str | None:
    """Why these runs of one workload cannot share a table: they hold several values of a
    parameter that makes a sweep of its own per value (Parameter.each: tick's --period), which a
    cell's median would pool; None when they hold one (or the workload has no such parameter)."""
    for p in workload.parameters:
        if not p.each or "params" not in runs:
            continue
        values = {(ps or {}).get(p.name) for ps in runs["params"] if isinstance(ps, dict)}
        if len(values - {None}) > 1:
            shown = ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in sorted(values - {None}))
            return (
                f"these {workload.name} runs hold several {p.option} values ({shown}), which one table "
                f"never mixes: keep each in its own results directory (a sweep of several does so)"
            )
    return None
