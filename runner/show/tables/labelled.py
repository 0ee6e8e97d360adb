"""`memrun report` over results that hold several labels (machines, or runs a user labelled apart):
one column group per label in the table (a `label` field in CSV and JSON).

Results of one label with one toolchain version per variant go through report.render() untouched,
so a single machine's report reads exactly as it always has. Only when runs must be kept apart
does anything change, and then the output says why.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from runner.analysis.records import records
from runner.results.groups import Group, groups, pooling_note
from runner.show.exports import registry
from runner.show.exports.exporter import Table, TableExporter
from runner.show.tables.report import RunsTable, legend, md_cell
from runner.show.text import caption, check_metric, metric_title, n_label, usual_sleep

WITHIN = "Per-task costs, ⚠ and † are worked out within each label."


def report(
    runs: pd.DataFrame, fmt: str = "md", metric: str = "peak_rss", sweeps: list[dict[str, Any]] | None = None
) -> str:
    """The table as md, csv or json, one column group (md) or a `label` field (csv, json) per label."""
    exporter = registry.get(fmt, TableExporter)
    return exporter.table(table(runs, metric, sweeps))


def table(runs: pd.DataFrame, metric: str = "peak_rss", sweeps: list[dict[str, Any]] | None = None) -> Table:
    """The runs' table: report.py's when they are one label's and nothing is kept apart, else
    the same with the reason under it (one label, a variant split by version), else one column
    group per label."""
    found = groups(runs, sweeps or [])
    note = pooling_note(found)
    if not note:
        return RunsTable(runs, metric, sweeps)
    if len(found) == 1:
        return NotedTable(found[0].runs, metric, sweeps, note)
    return LabelledTable(found, metric, note)


class NotedTable(RunsTable):
    """One label's usual table, a variant split by version: why, under the Markdown."""

    def __init__(
        self, runs: pd.DataFrame, metric: str, sweeps: list[dict[str, Any]] | None, note: str
    ) -> None:
        super().__init__(runs, metric, sweeps)
        self.note = note

    def markdown(self) -> str:
        return f"{super().markdown()}\n{self.note[:1].upper()}{self.note[1:]}\n"


class LabelledTable(Table):
    """Several labels' runs, never pooled: a column group per label, a `label` field per record."""

    def __init__(self, found: list[Group], metric: str, note: str) -> None:
        self.found, self.metric, self.note = found, metric, note

    def markdown(self) -> str:
        return _markdown(self.found, self.metric, self.note)

    def records(self) -> list[dict[str, Any]]:
        return [{"label": g.label, **rec} for g in self.found for rec in records(g.runs, self.metric)]


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
