"""The report as one document, in the order a reader needs it: the answer (what was measured,
where, and the headline), the runtimes grouped as readers think of them, the version axis, one
section per workload, the capacity answers. The Markdown report and the HTML page render the same
sections in the same order: the page adds the figures, the causes, the machines and the method;
the Markdown report leaves out what is the page's alone (the answer's sentence, which introduces
a figure, and the runtimes' table, which repeats the workload's numbers grouped)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from runner.analysis.records import records
from runner.analysis.versions import has_versions, steps
from runner.results.summary import sweep_runs
from runner.show.text import machines, metric_name, n_label
from runner.workload import Workload, is_default


@dataclass(frozen=True)
class Shown:
    """One workload's runs as a report shows them (runner.show.document.shown), its sweeps and
    its capacity answers."""

    workload: Workload
    runs: pd.DataFrame
    sweeps: list[dict[str, Any]]
    capacity: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Section:
    """One part of the report, written once in Markdown and rendered both as the Markdown report
    and in the HTML page: its key (the page's anchor), the page's heading, the line that leads
    into it in the Markdown report, its body, whether it is the page's alone, and the workload
    whose figures go with it."""

    key: str
    title: str
    lead: str
    markdown: str
    page_only: bool = False
    workload: Workload | None = None
    short: str = ""  # its name in the page's links ("" : its title)

    @property
    def link(self) -> str:
        return self.short or self.title


def installed(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs of installed builds where the runs also hold chosen versions (those have the
    versions section; a workload's table and figures show the builds as installed)."""
    from runner.show.tables.runtimes import installed as plain

    mine = plain(runs)
    return mine if not mine.empty else runs


def opening(parts: list[Shown]) -> Shown:
    """The part a report opens with: the default workload's where it is there, else the first."""
    return next((p for p in parts if is_default(p.workload.name)), parts[0])


def largest_n(runs: pd.DataFrame, metric: str) -> int | None:
    """The largest N above 1 at which any installed build has a figure: the headline's N."""
    found = [r["n"] for r in records(installed(runs), metric) if r["median_bytes"] is not None and r["n"] > 1]
    return max(found, default=None)


def answer(first: Shown, metric: str) -> str:
    """The page's first sentence: what was measured, of how many runtimes, where and when."""
    runs = installed(first.runs)
    n = largest_n(runs, metric)
    words = first.workload.words
    count = runs["variant"].nunique() if not runs.empty else 0
    at = f"{n_label(n)} concurrent {words.noun}" if n else f"N concurrent {words.noun}"
    return (
        f"{count} runtimes, {at} each: the {metric_name(metric)}, measured with memrun on "
        f"{machines(first.sweeps)}, one fresh process per run, and a figure only where all N "
        f"{words.noun} were alive at once."
    )


def _title(workload: Workload) -> str:
    """A workload's section heading: what its N are ("Concurrent tasks", "Idle TCP connections")."""
    title = workload.words.title
    return title[:1].upper() + title[1:]


def _steps(runs: pd.DataFrame, sweeps: list[dict[str, Any]], metric: str) -> str:
    found = [s for s in steps(runs, sweeps, metric) if s.bisected]
    if not found:
        return ""
    lines = ["Where `memrun bisect` found a release that changed the cost per task (more than 10 %):", ""]
    for s in found:
        lines.append(
            f"- {s.name} {s.before} → {s.after} at N = {n_label(s.n)}: {s.before_bytes / 1024:.2f} → "
            f"{s.after_bytes / 1024:.2f} KiB per task ({s.change:+.0%})"
        )
    return "\n".join(lines) + "\n"


def sections(
    parts: list[Shown], metric: str = "peak_rss", models: dict[str, str] | None = None
) -> list[Section]:
    """The document of the given workloads' runs (the default workload's first, if present)."""
    from runner.show.tables import labelled, runtimes, versions

    first = opening(parts)
    parts = [first, *(p for p in parts if p is not first)]
    out = [
        Section("answer", "The answer", "", answer(first, metric), page_only=True),
        Section(
            "runtimes",
            "Runtimes",
            "The runtimes, grouped by how they keep their tasks:",
            runtimes.markdown(first.runs, first.sweeps, metric, models),
            page_only=True,
        ),
    ]
    for p in parts:
        if not p.runs.empty and has_versions(p.runs):
            body = versions.markdown(sweep_runs(p.runs), metric, p.sweeps)
            if found := _steps(sweep_runs(p.runs), p.sweeps, metric):
                body += "\n" + found
            lead = "Across versions (`memrun sweep --version`):"
            out.append(
                Section("versions", "Across versions", lead, body, workload=p.workload, short="Versions")
            )
    for p in parts:
        table = labelled.report(installed(p.runs), "md", metric, p.sweeps)
        name = p.workload.name  # the section's key: the page's anchor and `report --section`
        short = name.upper() if len(name) <= 4 else name.capitalize()
        out.append(Section(name, _title(p.workload), "", table, workload=p.workload, short=short))
    split = explain_section(first.runs) if is_default(first.workload.name) else None
    if split is not None:
        out.append(split)
    answers = [p for p in parts if p.capacity]
    if answers:
        from runner.show.tables.capacity import capacity_markdown

        several = len(answers) > 1
        body = "\n\n".join(
            (f"**{_title(p.workload)}**\n\n" if several else "") + capacity_markdown(p.capacity)
            for p in answers
        )
        # what N counts in each workload's answers, in their words ("tasks and connections")
        what = " and ".join(dict.fromkeys(p.workload.words.noun for p in answers))
        out.append(
            Section(
                "capacity",
                f"Capacity: {what} that fit in a memory budget",
                f"Concurrent {what} that fit in a memory budget (`memrun capacity`):",
                body,
                short="Capacity",
            )
        )
    return out


def markdown(parts: list[Section]) -> str:
    """The document as the Markdown report: every section that is not the page's alone, each
    after its lead-in line."""
    shown = [p for p in parts if not p.page_only]
    if not shown:
        return ""
    first, *rest = shown
    text = (f"{first.lead}\n\n" if first.lead else "") + first.markdown
    for p in rest:  # as the report has always joined its table and capacity answers
        text += (f"\n\n{p.lead}\n\n" if p.lead else "\n\n") + p.markdown.rstrip("\n")
    return text


def explain_section(runs: pd.DataFrame) -> Section | None:
    """Where each byte of a task goes (`memrun explain`), at the N the figure draws; None where no
    valid run took a snapshot at its hold."""
    from runner.analysis.explain import from_rows, splits
    from runner.show.figures.split import chosen
    from runner.show.tables.explain import splits_table

    found, _ = splits(from_rows(sweep_runs(installed(runs))))
    shown = sorted(chosen(found), key=lambda s: s.variant)
    if not shown:
        return None
    return Section(
        "split",
        "Where each byte of a task goes",
        "Where each byte of a task goes, KiB per task, (part(N) − part(1)) / N, from a snapshot at the hold:",
        splits_table(shown),
        short="Bytes",
    )


def section(parts: list[Section], key: str) -> str:
    """One section's Markdown (`memrun report --section KEY`); ValueError naming the keys there are."""
    for p in parts:
        if p.key == key:
            return p.markdown.rstrip("\n")
    raise ValueError(f"no section {key!r} in this report: {', '.join(p.key for p in parts)}")
