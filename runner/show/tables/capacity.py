"""Capacity results as text: the table variant x budget (max N, tasks per MiB, what stopped it)."""

from __future__ import annotations

import json
from typing import Any

from runner.results import capacity_by_label, latest_capacity
from runner.units import size

LEGEND = (
    "max N = the largest N that fitted inside a memory cgroup capped at the budget, swap excluded: "
    "`ready N` before the sleep ran out and every task held under the cap until its sleep was over, "
    "nothing OOM-killed (a run whose exit then stalled is stopped there and counts: a capacity "
    'answers "does it fit"). It is computed from every stored run of the same program at that '
    "budget (searches, checks, sweeps under the same cap): it fitted in every run made there, at "
    "least twice (three times once runs have been seen to pass and fail at random), with no "
    "failure at or below it, found to within 2 % of the first failing N by steps along the memory "
    "line of the fitting probes, and bisection. Where runs pass or fail from run to run, the answer "
    "is a band: max N sits at least a 5 % step below the first failing N, and up to the largest N "
    "seen fitting once, runs pass or fail (how many of each, in brackets). Each probe sleeps 1.5 x "
    "the spawn time expected (at least 2 s; a probe whose tasks were not all alive in time, and "
    "still growing, is re-run once with twice the sleep), so a capacity holds for tasks that live "
    "that long. tasks/MiB = max N / budget. The cap counts everything the cgroup is charged: heap, "
    "stacks, kernel memory of threads, page cache."
)


def budget_label(budget: int) -> str:
    return size(budget).replace(" ", "\u00a0") if budget % (1 << 20) else f"{budget >> 20:,} MiB"


def short(n: int) -> str:
    """74,617 -> 74.6k, 1,224,777 -> 1.22M: band edges side by side stay readable."""
    for unit, scale in (("M", 1_000_000), ("k", 1_000)):
        if n >= scale:
            value = n / scale
            return f"{value:.3g}{unit}" if value < 100 else f"{value:,.0f}{unit}"
    return str(n)


def band_text(r: dict[str, Any]) -> str | None:
    """The flaky span of a noisy result, in words; None for a point answer (or an old row). Runs
    above max N that fitted may lie past the first failure (they pass or fail from run to run
    there), or all below it: a band's max N sits a 5 % step below its first failure, and what
    fitted in that step is not yet an answer."""
    top, first = r.get("flaky_up_to"), r.get("first_failing_n")
    if not r.get("noisy") or top is None or top <= r["max_n"]:
        return None
    runs = f"{r.get('flaky_passed', 0)} passed, {r.get('flaky_failed', 0)} failed"
    if first is not None and top < first:
        return f"fitted up to {short(top)}, failed from {short(first)} ({runs} above max N)"
    low = min(first, top) if first is not None else top
    if short(low) == short(top):  # one N (or two that round alike) passed once and failed once
        return f"at {top:,} runs pass or fail ({runs})"
    return f"{short(low)}–{short(top)} pass or fail from run to run ({runs})"


def _cell(r: dict[str, Any]) -> str:
    if not r["max_n"]:
        text = "**none fit**"
    else:
        text = f"**{r['max_n']:,}** · {r['max_n'] / (r['budget_bytes'] / (1 << 20)):,.0f}/MiB"
    if passed := r.get("passed_at_max"):
        text += f" · {passed} of {passed} runs fitted there"
    band = band_text(r)
    if band:
        text += f" · {band}"
    if stalled := r.get("stalled"):
        remedy = f", {r['stall_remedy']} ends it" if r.get("stall_remedy") else ""
        text += f" · exit stalled after the sleep in {stalled} of them{remedy}"
    if str(r.get("why", "")).startswith("lowered"):
        text += f" · {r['why']}"
    if r.get("stopped_by"):
        text += f" · then {r['stopped_by']}"
    if r.get("noisy") and not band:
        text += " · *noisy*"
    return text


def cost_line(r: dict[str, Any]) -> str:
    """One search's cost against its floor (see runner.capacity.floor), or why there is none."""
    cost, floor = r.get("cost_s"), r.get("floor_s")
    if cost is None or not floor:
        return "cost not recorded"
    return f"{cost:,.1f} s of probes, floor {floor:,.1f} s: {cost / floor:.2f}× floor"


def cost_total(results: list[dict[str, Any]]) -> str:
    """The sum over searches: what the goal (1.5 x in total) is judged on."""
    measured = [r for r in results if r.get("cost_s") is not None and r.get("floor_s")]
    if not measured:
        return "no search with a recorded cost"
    cost = sum(r["cost_s"] for r in measured)
    floor = sum(r["floor_s"] for r in measured)
    return (
        f"{len(measured)} searches, {sum(r.get('probes', 0) for r in measured):,} probes: "
        f"{cost / 60:,.1f} min of probes against a floor of {floor / 60:,.1f} min, "
        f"{cost / floor:.2f}× floor"
    )


def capacity_markdown(results: list[dict[str, Any]]) -> str:
    """variant x budget, the last result per pair (a re-run replaces an earlier one); one table per
    label when the results hold several (a guest's kernel, another machine)."""
    if not results:
        return ""
    groups = capacity_by_label(results)
    if len(groups) == 1:
        return _table(results) + "\n\n" + LEGEND + "\n"
    tables = [f"**{label or 'unlabelled'}**\n\n{_table(rows)}" for label, rows in groups.items()]
    return "\n\n".join(tables) + "\n\n" + LEGEND + "\n"


def _table(results: list[dict[str, Any]]) -> str:
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
    return "\n".join(lines)


def check_markdown(checks: list[dict[str, Any]]) -> str:
    """`memrun capacity --check`: each stored answer re-run, whether it held, and the answer the
    evidence gives afterwards. A point holds when max N fits again and 1.05 x the first failing N
    does not; a band when max N fits in all three runs."""
    lines = [
        "| variant | budget | max N again | 1.05 x first failing N | sleep | result | answer now |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in checks:
        if c.get("skipped"):
            where = f"| {c['variant']} | {budget_label(c['budget_bytes'])} |"
            lines.append(f"{where} — | — | — | not checked | {c['skipped']} |")
            continue
        again = f"{c['fitted_at_max']} of {c['runs_at_max']} fitted"
        above = f"failed ({c['above_code']})" if c["above_failed"] else "**fitted**"
        sleep = f"{c['sleep_s']:g} s" if c.get("sleep_s") is not None else "predicted"
        what = "band" if c.get("noisy") else "point"
        verdict = f"{what} holds" if c["held"] else f"**{what} does not hold**"
        now = f"{c['lowered_to']:,} ({c['why']})" if c.get("lowered_to") is not None else "unchanged"
        lines.append(
            f"| {c['variant']} | {budget_label(c['budget_bytes'])} | {c['max_n']:,}: {again} | "
            f"{c['above_n']:,}: {above} | {sleep} | {verdict} | {now} |"
        )
    return "\n".join(lines) + "\n\n" + check_summary(checks) + "\n"


def check_summary(checks: list[dict[str, Any]]) -> str:
    """The re-check in one paragraph: points that held (the goal is 95 %), bands whose max N
    held (90 %), and how many answers the check lowered."""
    ran = [c for c in checks if not c.get("skipped")]
    points = [c for c in ran if not c.get("noisy")]
    bands = [c for c in ran if c.get("noisy")]
    parts = []
    if points:
        held = sum(c["held"] for c in points)
        parts.append(f"{held} of {len(points)} point answers hold ({100 * held / len(points):.0f} %).")
    if bands:
        held = sum(c["held"] for c in bands)
        parts.append(f"{held} of {len(bands)} bands hold at max N ({100 * held / len(bands):.0f} %).")
    lowered = sum(c.get("lowered_to") is not None for c in ran)
    if ran:
        parts.append(f"{lowered} answer(s) lowered, each stored again with the reason.")
    if skipped := len(checks) - len(ran):
        parts.append(f"{skipped} not checked (their runs were of another program or version).")
    return " ".join(parts)


def capacity_json_lines(results: list[dict[str, Any]]) -> str:
    keys = (
        "variant",
        "budget_bytes",
        "max_n",
        "first_failing_n",
        "noisy",
        "flaky_up_to",
        "flaky_passed",
        "flaky_failed",
        "stopped_by",
        "probes",
        "cost_s",
        "floor_s",
        "passed_at_max",
        "evidence_runs",
        "stalled",
        "why",
    )
    return "".join(json.dumps({k: r.get(k) for k in keys}) + "\n" for r in results)


def rounds_markdown(rounds: list[Any]) -> str:
    """Every `--check` round (runner.analysis.checks) in one line each: its sessions and time, the
    hold rates (a cell once stored as a band counted as one) and each answer it lowered."""
    lines = []
    for i, r in enumerate(rounds, 1):
        minutes, seconds = divmod(round(r.seconds), 60)
        parts = f"{len(r.ids)} sessions" if len(r.ids) > 1 else "one session"
        lowered = [
            f"{c['variant']} at {budget_label(c['budget_bytes'])} ({c['max_n']:,} → {c['lowered_to']:,})"
            for c in r.checks
            if c.get("lowered_to") is not None
        ]
        text = f"- **Check {i}** ({parts}, {minutes} min {seconds} s of runs): {check_summary(r.checks)}"
        lines.append(text + (f" Lowered: {', '.join(lowered)}." if lowered else ""))
    return "\n".join(lines) + "\n" if lines else "No `--check` has stored its answers here.\n"
