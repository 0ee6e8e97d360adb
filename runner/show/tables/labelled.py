"""`memrun report` over results that hold several labels (machines, or runs a user labelled apart):
one column group per label in the table (a `label` field in CSV and JSON).

Results of one label with one toolchain version per variant go through report.render() untouched,
so a single machine's report reads exactly as it always has. Only when runs must be kept apart
does anything change, and then the output says why.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from runner.analysis.records import records
from runner.results.groups import Group, groups, pooling_note
from runner.show.tables.report import legend, md_cell, render
from runner.show.text import caption, check_metric, metric_title, n_label, usual_sleep

WITHIN = "Per-task costs, ⚠ and † are worked out within each label."


def report(
    runs: pd.DataFrame, fmt: str = "md", metric: str = "peak_rss", sweeps: list[dict[str, Any]] | None = None
) -> str:
    """The table as md, csv or json, one column group (md) or a `label` field (csv, json) per label."""
    found = groups(runs, sweeps or [])
    note = pooling_note(found)
    if not note:
        return render(runs, fmt, metric, sweeps=sweeps)
    if len(found) == 1:  # one label, a variant split by version: the usual table, and why
        text = render(found[0].runs, fmt, metric, sweeps=sweeps)
        return f"{text}\n{note[:1].upper()}{note[1:]}\n" if fmt == "md" else text
    if fmt == "md":
        return _markdown(found, metric, note)
    rows = [{"label": g.label, **rec} for g in found for rec in records(g.runs, metric)]
    if fmt == "csv":
        return pd.DataFrame(rows).to_csv(index=False)
    if fmt == "json":
        return json.dumps(rows, indent=1) + "\n"
    return render(runs, fmt, metric)  # the error names the formats


def _markdown(found: list[Group], metric: str, note: str) -> str:
    check_metric(metric)
    recs = {g.label: records(g.runs, metric) for g in found}
    table = pd.DataFrame([r for rs in recs.values() for r in rs])
    usual = usual_sleep(table)
    columns = [(g.label, n) for g in found for n in sorted({r["n"] for r in recs[g.label]})]
    variants = list(dict.fromkeys(r["variant"] for rs in recs.values() for r in rs))
    cells = {(label, r["variant"], r["n"]): md_cell(r, usual) for label, rs in recs.items() for r in rs}
    lines = [
        "| variant | " + " | ".join(_escape(f"{label} · {n_label(n)}") for label, n in columns) + " |",
        "|---|" + "---|" * len(columns),
    ]
    for v in variants:
        row = " | ".join(cells.get((label, v, n), "—") for label, n in columns)
        lines.append(f"| {_escape(v)} | {row} |")
    head = [f"{metric_title(metric)}. {note[:1].upper()}{note[1:]} One column group per label:", ""]
    head += [f"- {_escape(g.label)}: {caption(g.runs, g.sweeps)}" for g in found]
    return "\n".join([*head, "", *lines, "", f"{legend(metric, table)} {WITHIN}", ""])


def _escape(text: str) -> str:
    return text.replace("|", "\\|")
