"""The report as one document: its sections written once in Markdown (the table, the capacity
answers, the version tables), which the Markdown report joins with a line leading into each and
the HTML page renders under its headings, beside its figures."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from runner.analysis.versions import has_versions
from runner.results import workloads
from runner.results.summary import sweep_runs


@dataclass(frozen=True)
class Section:
    """One part of the report, written once in Markdown and rendered both as the Markdown report
    and in the HTML page: its key (the page's anchor), the page's heading, the line that leads
    into it in the Markdown report, and its body."""

    key: str
    title: str
    lead: str
    markdown: str


def sections(
    runs: pd.DataFrame, sweeps: list[dict[str, Any]], metric: str, capacity: list[dict[str, Any]]
) -> list[Section]:
    """The report as a document: the table, then the capacity answers and the version tables
    where there are any. runs and sweeps as shown() gives them."""
    from runner.show.tables import labelled

    out = [Section("table", "Table", "", labelled.report(runs, "md", metric, sweeps))]
    if capacity:
        from runner.show.tables.capacity import capacity_markdown

        what = workloads.noun(workloads.of(capacity[0]))
        out.append(
            Section(
                "capacity",
                f"Capacity: {what} that fit in a memory budget",
                f"Concurrent {what} that fit in a memory budget (`memrun capacity`):",
                capacity_markdown(capacity),
            )
        )
    split = explain_section(runs)
    if split is not None:
        out.append(split)
    if not runs.empty and has_versions(runs):
        from runner.show.tables import versions

        body = versions.markdown(sweep_runs(runs), metric, sweeps)
        out.append(
            Section("versions", "Across versions", "Across versions (`memrun sweep --version`):", body)
        )
    return out


def markdown(parts: list[Section]) -> str:
    """The document as the Markdown report: the table, each other part after its lead-in line."""
    text = parts[0].markdown
    for part in parts[1:]:
        text += f"\n\n{part.lead}\n\n" + part.markdown.rstrip("\n")
    return text


def explain_section(runs: pd.DataFrame) -> Section | None:
    """Where each byte of a task goes (`memrun explain`), at the N the figure draws; None where no
    valid run took a snapshot at its hold."""
    from runner.analysis.explain import from_rows, splits
    from runner.show.figures.split import chosen
    from runner.show.tables.explain import splits_table

    found, _ = splits(from_rows(sweep_runs(runs)))
    shown = sorted(chosen(found), key=lambda s: s.variant)
    if not shown:
        return None
    return Section(
        "split",
        "Where each byte of a task goes",
        "Where each byte of a task goes, KiB per task, (part(N) − part(1)) / N, from a snapshot at the hold:",
        splits_table(shown),
    )
