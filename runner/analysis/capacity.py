"""The naive capacity: what dividing a budget by a sweep's per-task cost predicts, the sum a reader
of the 2023 article would do. The searched capacity (runner.capacity) says whether it holds."""

from __future__ import annotations

from typing import Any


def naive_capacity(runs: Any, budget: int) -> dict[str, int]:
    """What dividing would predict from a sweep: (budget - M(1)) / per-task cost, with M(1) the
    median peak RSS at N=1 and the per-task cost that at the largest N with a valid figure. This is
    the sum a reader of the 2023 article would do; the searched capacity says whether it holds."""
    from runner.results.summary import summarize

    if runs is None or runs.empty:
        return {}
    return naive_of_summary(summarize(runs, "peak_rss"), budget)


def naive_of_summary(table: Any, budget: int) -> dict[str, int]:
    """naive_capacity from the sweep's summary (summarize's table of peak RSS), for a caller that
    asks it of several budgets: the summary is most of the cost."""
    out: dict[str, int] = {}
    if table.empty:
        return out
    for variant, rows in table.groupby("variant"):
        base = rows[(rows["n"] == 1) & rows["median"].notna()]
        costs = rows[rows["per_task"].notna() & (rows["per_task"] > 0)].sort_values("n")
        if len(base) and len(costs):
            out[str(variant)] = max(0, int((budget - base["median"].iloc[0]) / costs["per_task"].iloc[-1]))
    return out
