"""Capacity results as text: the table variant x budget (max N, tasks per MiB, what stopped it)."""

from __future__ import annotations

import json
from typing import Any

from runner.units import size

LEGEND = (
    "max N = the largest N whose run was valid (exit 0, `ready N` before the sleep ran out, nothing "
    "OOM-killed) inside a memory cgroup capped at the budget, swap excluded; found by bisection to "
    "within 2 % (the first failing N is the next one tried). tasks/MiB = max N / budget. The cap "
    "counts everything the cgroup is charged: heap, stacks, kernel memory of threads, page cache."
)


def budget_label(budget: int) -> str:
    return size(budget).replace(" ", "\u00a0") if budget % (1 << 20) else f"{budget >> 20:,} MiB"


def _cell(r: dict[str, Any]) -> str:
    if not r["max_n"]:
        text = "**none fit**"
    else:
        text = f"**{r['max_n']:,}** · {r['max_n'] / (r['budget_bytes'] / (1 << 20)):,.0f}/MiB"
    if r.get("stopped_by"):
        text += f" · then {r['stopped_by']}"
    return text


def capacity_markdown(results: list[dict[str, Any]]) -> str:
    """variant x budget, the last result per pair (a re-run replaces an earlier one)."""
    if not results:
        return ""
    last = {(r["variant"], r["budget_bytes"]): r for r in results}
    budgets = sorted({b for _, b in last})
    variants = sorted({v for v, _ in last})
    lines = [
        "| variant | " + " | ".join(f"fits in {budget_label(b)}" for b in budgets) + " |",
        "|---|" + "---|" * len(budgets),
    ]
    for v in variants:
        lines.append(
            f"| {v} | " + " | ".join(_cell(last[(v, b)]) if (v, b) in last else "—" for b in budgets) + " |"
        )
    return "\n".join(lines) + "\n\n" + LEGEND + "\n"


def capacity_json_lines(results: list[dict[str, Any]]) -> str:
    keys = ("variant", "budget_bytes", "max_n", "first_failing_n", "stopped_by", "probes")
    return "".join(json.dumps({k: r.get(k) for k in keys}) + "\n" for r in results)
