"""Capacity figures: one bar chart per budget of the concurrent tasks that fit, each beside the
naive prediction from the sweep, coloured by family."""

from __future__ import annotations

import math
from typing import Any

from runner.analysis.capacity import naive_capacity
from runner.results import capacity_by_label, latest_capacity, workloads
from runner.show.tables.capacity import band_text, budget_label, short


def capacity_figures(results: list[dict[str, Any]], runs: Any, sweeps: list[dict[str, Any]]):  # type: ignore[no-untyped-def]
    """One bar chart per budget: tasks that fit (log scale), each with the naive prediction beside
    it, coloured by family. Yields (file stem, figure); one set per label when the results hold
    several, each stem ending in the label's slug and each title naming it."""
    from runner.show.exports.per_label import slug

    groups = capacity_by_label(results)
    for label, rows in groups.items():
        if len(groups) == 1 or label is None:
            yield from _figures(rows, runs, sweeps, "", "")
            continue
        mine = runs[runs["label"] == label] if "label" in getattr(runs, "columns", ()) else runs
        yield from _figures(rows, mine, sweeps, f"-{slug(label)}", f" on {label}")


def _figures(results: list[dict[str, Any]], runs: Any, sweeps: list[dict[str, Any]], suffix: str, where: str):  # type: ignore[no-untyped-def]
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    from runner.show.figures.style import NOTE_COLOR, STYLE, colors, family_legend, fit_xlim, footnote, wrap
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
            labels = []
            for i, r in enumerate(cells):
                fits = max(r["max_n"], 0.8)  # a run of nothing still gets a sliver on a log axis
                ax.barh(i, fits, height=0.6, color=palette[r["variant"]])
                end = fits
                if band_text(r):  # the flaky span: passed in some runs, failed in others
                    end = r["flaky_up_to"]
                    ax.barh(i, end - fits, left=fits, height=0.6, color=palette[r["variant"]], alpha=0.3)
                guess = naive.get(r["variant"])
                text = f"{r['max_n']:,}" + (f"  ({r['max_n'] / guess:.2f}× naive)" if guess else "")
                if band_text(r):
                    text += f"; up to {short(r['flaky_up_to'])} sometimes"
                elif r.get("noisy"):
                    text += "  (noisy)"
                if r.get("stopped_by"):
                    text += f"  then {r['stopped_by']}"
                labels.append(
                    (
                        ax.annotate(
                            text, (end, i), xytext=(4, 0), textcoords="offset points", va="center", fontsize=9
                        ),
                        end,
                        1,
                    )
                )
                if guess:
                    ax.plot([guess, guess], [i - 0.35, i + 0.35], color="black", linewidth=2)
            ax.set_xscale("log")
            top = max([r["max_n"] for r in cells] + [r.get("flaky_up_to") or 0 for r in cells])
            top = max([top, *naive.values(), 10])
            ax.set_xlim(1, top * 10)  # decades from one task; fit_xlim makes room for the labels
            ax.set_yticks(range(len(cells)), [r["variant"] for r in cells])
            ax.set_ylim(len(cells) - 0.5, -0.5)
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
            workload = workloads.resolved(cells[0])  # every answer drawn is of one workload
            what = workload.words.noun
            ax.set_xlabel(f"concurrent {what} that fit (log scale)")
            ax.grid(axis="x", color="#e6e6e6", linewidth=0.8)
            ax.set_axisbelow(True)
            family_legend(ax, palette, family, [r["variant"] for r in cells])
            fig.suptitle(f"Concurrent {what} that fit in {budget_label(budget)}{where}", fontweight="bold")
            ax.set_title("\n".join(wrap(caption(runs, sweeps), 140)), color=NOTE_COLOR)
            notes = (
                "Bar: the largest N valid in a memory cgroup capped at the budget (swap excluded) in "
                "every run made there, at least two; searched to within 2 % (5 % where noisy). "
                "Lighter bar: N that passed in some runs and failed in others, up to the largest "
                "seen valid once (the runtime is noisy there: GC stalls, slow exits). Black tick: the naive "
                "prediction (budget − M(1)) / per-task peak RSS from the sweep. A bar past its "
                "tick: the runtime fits more than its RSS suggests (a GC that sizes its heap to the "
                "limit); short of it: the cgroup charges what RSS does not show (kernel memory of "
                "threads, page cache), or the runtime stops early."
            )
            footnote(fig, wrap(notes, 150, 4))
            fit_xlim(fig, ax, labels)  # every label inside the axes, none under the legend
            # ticks where the bars are: the room made for their labels needs none
            ax.set_xticks([10**k for k in range(0, math.ceil(math.log10(top)) + 1, 2)])
            ax.set_xticks([], minor=True)
            # another workload's answers never overwrite the sleep answers' figure
            yield f"{workload.figure_prefix}capacity-{budget >> 20}MiB{suffix}", fig
