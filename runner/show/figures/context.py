"""What every figure of one call shares: the summary's cells, the words under each title, the
colours, and the notes for cells that are not drawn."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from runner.results import workloads
from runner.results.summary import summarize
from runner.show.figures.style import (
    colors,
    wrap,
)
from runner.show.text import (
    DAGGER,
    caption,
    metric_title,
    n_label,
    num,
    sleep_note,
    unusual_sleep,
    usual_sleep,
    variant_info,
)
from runner.workload import Workload, get

WIDTH = 11.0  # inches: room for 10 variant names, a bar and a 40-character reason


@dataclass
@dataclass
class Context:
    """What every figure of one call shares: the summary and the words under each title."""

    cells: list[dict[str, Any]]
    metric: str
    what: str  # e.g. "Peak RSS of the process tree"
    prefix: str  # before each title: "" or, when drawn for one of several labels, "label: "
    caption: str  # machine(s) and date(s)
    sleep_note: str
    usual_sleep: float | None
    colors: dict[str, Any]
    family: dict[str, str] = field(default_factory=dict)  # variant -> family ("" when unrecorded)
    # what N counts: its words are in every title (the default workload's unless said)
    workload: Workload = field(default_factory=get)
    runs: pd.DataFrame | None = None  # the runs drawn (the connections chart reads its own figures)


def context(
    runs: pd.DataFrame,
    sweeps: list[dict[str, Any]],
    metric: str,
    label: str | None = None,
    variants: Sequence[str] = (),
) -> Context:
    workload = workloads.only(runs)
    summary = summarize(runs, metric)
    cells = summary.to_dict("records")
    for c in cells:
        for key in ("median", "min", "max", "spread", "per_task", "spawn_s", "sleep_s"):
            c[key] = num(c.get(key))
        c["n"] = int(c["n"])
    names = sorted(set(variants) | {c["variant"] for c in cells})
    info = variant_info(sweeps)
    family = {v: info.get(v, {}).get("family", "") for v in names}
    return Context(
        cells=cells,
        metric=metric,
        what=metric_title(metric),
        prefix=f"{label}: " if label else "",
        caption=caption(runs, sweeps),
        sleep_note=sleep_note(summary),
        usual_sleep=usual_sleep(summary),
        colors=colors(names, family),
        family=family,
        workload=workload,
        runs=runs,
    )


def dagger(ctx: Context, cell: dict[str, Any]) -> str:
    sleep = unusual_sleep(cell, ctx.usual_sleep)
    return f"  {DAGGER}sleep {sleep:g} s" if sleep is not None else ""


def missing_note(ctx: Context, missing: list[dict[str, Any]], what: str) -> str:
    """Grouped by why, so ten failures read as one line: 'Not plotted: failed: rust-threads 100k, 1M;
    java-threads 1M. invalid: java-threads 100k.' Capped at three lines; the report has them all."""
    if not missing:
        return ""
    if len(missing) == len(ctx.cells):
        return f"{what}: every cell ({status_word(ctx, missing[0])})."
    groups: dict[str, dict[str, list[str]]] = {}
    for c in sorted(missing, key=lambda c: (c["variant"], c["n"])):
        groups.setdefault(status_word(ctx, c), {}).setdefault(c["variant"], []).append(n_label(c["n"]))
    parts = [
        f"{status}: " + "; ".join(f"{v} {', '.join(ns)}" for v, ns in by_variant.items())
        for status, by_variant in groups.items()
    ]
    return "\n".join(wrap(f"{what}: " + ". ".join(parts) + ".", lines=3))


def status_word(ctx: Context, c: dict[str, Any]) -> str:
    return c["verdict"] if c["verdict"] != "valid" else f"no {ctx.metric}"


def series(ctx: Context) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for c in sorted(ctx.cells, key=lambda c: c["n"]):
        if c["median"] is not None:
            out.setdefault(c["variant"], []).append(c)
    return out
