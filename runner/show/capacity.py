"""Capacity results as text: the table variant x budget (max N, tasks per MiB, what stopped it)."""

from __future__ import annotations

import json
from typing import Any

from runner.results import latest_capacity
from runner.units import size

LEGEND = (
    "max N = the largest N whose run was valid (exit 0, `ready N` before the sleep ran out, nothing "
    "OOM-killed) inside a memory cgroup capped at the budget, swap excluded, in two runs; found to "
    "within 2 % (the first failing N is the next one tried) by steps along the memory line of the "
    "valid probes, and bisection. *noisy*: an N valid once failed another time (or below a valid "
    "one), so the boundary is where run-to-run variation decides. Each probe sleeps 1.5 x the spawn time "
    "expected (at least 2 s; a probe whose tasks were not all alive in time, and still growing, is "
    "re-run once with twice the sleep), so a capacity holds for tasks that live that long. "
    "tasks/MiB = max N / budget. The cap counts everything the cgroup is charged: heap, stacks, "
    "kernel memory of threads, page cache."
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
    if r.get("noisy"):
        text += " · *noisy*"
    return text


def capacity_markdown(results: list[dict[str, Any]]) -> str:
    """variant x budget, the last result per pair (a re-run replaces an earlier one)."""
    if not results:
        return ""
    last = latest_capacity(results)
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


def check_markdown(checks: list[dict[str, Any]]) -> str:
    """`memrun capacity --check`: each stored boundary re-run, and whether it held."""
    lines = [
        "| variant | budget | max N again | 1.05 x max N | sleep | boundary |",
        "|---|---|---|---|---|---|",
    ]
    for c in checks:
        again = "valid" if c["valid_again"] else "**not valid**"
        above = f"failed ({c['above_code']})" if c["above_failed"] else "**valid**"
        sleep = f"{c['sleep_s']:g} s" if c.get("sleep_s") is not None else "predicted"
        lines.append(
            f"| {c['variant']} | {budget_label(c['budget_bytes'])} | {c['max_n']:,}: {again} | "
            f"{c['above_n']:,}: {above} | {sleep} | {'holds' if c['held'] else '**does not hold**'} |"
        )
    held = sum(c["held"] for c in checks)
    return "\n".join(lines) + f"\n\n{held} of {len(checks)} boundaries hold.\n"


def capacity_json_lines(results: list[dict[str, Any]]) -> str:
    keys = ("variant", "budget_bytes", "max_n", "first_failing_n", "stopped_by", "probes")
    return "".join(json.dumps({k: r.get(k) for k in keys}) + "\n" for r in results)


def naive_capacity(runs: Any, budget: int) -> dict[str, int]:
    """What dividing would predict from a sweep: (budget - M(1)) / per-task cost, with M(1) the
    median peak RSS at N=1 and the per-task cost that at the largest N with a valid figure. This is
    the sum a reader of the 2023 article would do; the searched capacity says whether it holds."""
    from runner.results.summary import summarize

    if runs is None or runs.empty:
        return {}
    table = summarize(runs, "peak_rss")
    out: dict[str, int] = {}
    if table.empty:
        return out
    for variant, rows in table.groupby("variant"):
        base = rows[(rows["n"] == 1) & rows["median"].notna()]
        costs = rows[rows["per_task"].notna() & (rows["per_task"] > 0)].sort_values("n")
        if len(base) and len(costs):
            out[str(variant)] = max(0, int((budget - base["median"].iloc[0]) / costs["per_task"].iloc[-1]))
    return out


def capacity_figures(results: list[dict[str, Any]], runs: Any, sweeps: list[dict[str, Any]]):  # type: ignore[no-untyped-def]
    """One bar chart per budget: tasks that fit (log scale), each with the naive prediction beside
    it, coloured by family. Yields (file stem, figure)."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    from runner.show.figure import NOTE_COLOR, STYLE, colors, family_legend, footnote, wrap
    from runner.show.text import caption, variant_info

    last = latest_capacity(results)
    info = variant_info(sweeps)
    names = sorted({v for v, _ in last})
    family = {v: info.get(v, {}).get("family", "") for v in names}
    palette = colors(names, family)
    with plt.rc_context(STYLE):
        for budget in sorted({b for _, b in last}):
            cells = sorted((r for (v, b), r in last.items() if b == budget), key=lambda r: r["max_n"])
            naive = naive_capacity(runs, budget)
            fig, ax = plt.subplots(figsize=(11, 1.9 + 0.42 * len(cells)), layout="constrained")
            for i, r in enumerate(cells):
                fits = max(r["max_n"], 0.8)  # a run of nothing still gets a sliver on a log axis
                ax.barh(i, fits, height=0.6, color=palette[r["variant"]])
                guess = naive.get(r["variant"])
                text = f"{r['max_n']:,}" + (f"  ({r['max_n'] / guess:.2f}× naive)" if guess else "")
                if r.get("stopped_by"):
                    text += f"  then {r['stopped_by']}"
                if r.get("noisy"):
                    text += "  (noisy)"
                ax.annotate(
                    text, (fits, i), xytext=(4, 0), textcoords="offset points", va="center", fontsize=9
                )
                if guess:
                    ax.plot([guess, guess], [i - 0.35, i + 0.35], color="black", linewidth=2)
            ax.set_xscale("log")
            top = max([r["max_n"] for r in cells] + list(naive.values()) + [10])
            ax.set_xlim(1, top * 30)  # decades from one task; room on the right for the labels
            ax.set_yticks(range(len(cells)), [r["variant"] for r in cells])
            ax.set_ylim(len(cells) - 0.5, -0.5)
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
            ax.set_xlabel("concurrent tasks that fit (log scale)")
            ax.grid(axis="x", color="#e6e6e6", linewidth=0.8)
            ax.set_axisbelow(True)
            family_legend(ax, palette, family, [r["variant"] for r in cells])
            fig.suptitle(f"Concurrent tasks that fit in {budget_label(budget)}", fontweight="bold")
            ax.set_title("\n".join(wrap(caption(runs, sweeps), 140)), color=NOTE_COLOR)
            notes = (
                "Bar: the largest N valid in a memory cgroup capped at the budget (swap excluded), "
                "searched to within 2 % and valid in two runs (noisy: an N valid once failed "
                "another time, so the answer is the confirmed N below it). Black tick: the naive "
                "prediction (budget − M(1)) / per-task peak RSS from the sweep. A bar past its "
                "tick: the runtime fits more than its RSS suggests (a GC that sizes its heap to the "
                "limit); short of it: the cgroup charges what RSS does not show (kernel memory of "
                "threads, page cache), or the runtime stops early."
            )
            footnote(fig, wrap(notes, 150, 4))
            yield f"capacity-{budget >> 20}MiB", fig
