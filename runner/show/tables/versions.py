"""Across versions, as tables: per-task cost against version, from stored results of `sweep --version`.

One figure and one table per runtime that was measured at chosen versions (runs whose record says
`version_of`): the versions in order on the x axis, KiB per task at each N above, M(1) below. The
installed build's runs of the same label, if any, are drawn as a hollow marker at the version
they recorded, so an A/A pair (the proxy's go1.26.8 beside the installed go 1.26.8) shows itself.
Runs of different labels are never pooled: each label gets its own figure.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from runner.analysis.records import records
from runner.analysis.versions import axes
from runner.results.groups import groups
from runner.show.tables.report import md_cell
from runner.show.text import check_metric, metric_title, n_label, usual_sleep


def markdown(runs: pd.DataFrame, metric: str = "peak_rss", sweeps: list[dict[str, Any]] | None = None) -> str:
    """A table per runtime and label: a row per version (never pooled), N across."""
    check_metric(metric)
    out: list[str] = []
    found = groups(runs, sweeps or [])
    several = sum(bool(axes(g.runs)) for g in found) > 1  # name the label only where it tells apart
    for group in found:
        recs = records(group.runs, metric)
        table = pd.DataFrame(recs)
        usual = usual_sleep(table) if not table.empty else None
        cells = {(r["variant"], r["n"]): md_cell(r, usual) for r in recs}
        for base, points in axes(group.runs).items():
            ns = sorted({n for (v, n) in cells if v in {p.variant for p in points}})
            where = f" ({group.label})" if several else ""
            out += [f"{metric_title(metric)} of {base} across versions{where}:", ""]
            out += ["| version | " + " | ".join(n_label(n) for n in ns) + " |", "|---|" + "---|" * len(ns)]
            for p in points:
                name = f"{p.version} (installed)" if p.installed else p.version
                out.append(f"| {name} | " + " | ".join(cells.get((p.variant, n), "—") for n in ns) + " |")
            out.append("")
    return "\n".join(out)
