"""What `memrun report` and `memrun plot` make of the selected runs: the report in the format asked
(a table, the HTML page, or a file for Bencher or github-action-benchmark, with the capacity answers
and the version tables where the format has room for them), and every figure."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from runner.analysis.versions import has_versions
from runner.results import workloads
from runner.results.summary import sweep_runs
from runner.show.tables import document

if TYPE_CHECKING:
    from runner.show.exports.exporter import Request
    from runner.workload import Workload


def report(
    runs: pd.DataFrame,
    sweeps: list[dict[str, Any]],
    fmt: str,
    metric: str,
    capacity: list[dict[str, Any]],
    models: dict[str, str] | None = None,
    section: str | None = None,
) -> str:
    """The report as text in fmt (runner.show.exports.registry: its exporter renders it; without
    a final newline, but for html). Its table and figures are the sweeps' (capacity probes are
    no cells, and probes made on another kernel build would be a label of their own with nothing
    in it); the capacity answers come beside them. md and html render one document
    (runner.show.tables.document: its sections in one order; `section` picks one section's
    Markdown, in a table format too), csv and json are the table's records, bmf and gab files
    for other tools. models: variant -> how it keeps its tasks, for results whose sweeps did not
    record it (the runtimes' groups)."""
    from runner.show.exports import registry
    from runner.show.exports.exporter import Request

    exporter = registry.get(fmt)
    workload = workloads.only(runs)  # the default's, when there are none
    return exporter.report(Request(workload, runs, sweeps, metric, capacity, models, section))


def markdown_report(request: Request) -> str:
    """The Markdown report of one workload's runs, or the one section request.section names."""
    runs, sweeps = request.shown()
    selection = document.Shown(request.workload, runs, sweeps, request.capacity)
    parts = document.sections([selection], request.metric, request.models)
    return document.section(parts, request.section) if request.section else document.markdown(parts)


def page(
    selections: list[tuple[Workload, pd.DataFrame, list[dict[str, Any]], list[dict[str, Any]]]],
    metric: str = "peak_rss",
    models: dict[str, str] | None = None,
) -> str:
    """The HTML page of every workload given as (workload, runs, sweeps, capacity answers)."""
    from runner.show.exports import htmlpage

    found = []
    for workload, runs, sweeps, capacity in selections:
        runs, sweeps = shown(runs, sweeps)
        found.append(document.Shown(workload, runs, sweeps, capacity))
    return htmlpage.page_of(found, metric, models)


def exports(runs: pd.DataFrame, sweeps: list[dict[str, Any]], fmt: str) -> dict[str, str]:
    """label -> its file in fmt, a format of one file per label (runner.show.exports.per_label);
    one empty document, under no label, when nothing has a figure."""
    from runner.show.exports import registry
    from runner.show.exports.per_label import PerLabelExporter

    return registry.get(fmt, PerLabelExporter).files(runs, sweeps)


def shown(runs: pd.DataFrame, sweeps: list[dict[str, Any]]) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """The runs a table or figure of cells shows, and the sweeps its captions name: the sweeps'
    runs only (capacity probes are no cells, and probes made on another kernel build would
    otherwise be a label of their own with nothing to draw), unless there are none."""
    swept = sweep_runs(runs)
    if swept.empty:
        return runs, sweeps
    ids = set(swept["sweep_id"]) if "sweep_id" in swept else set()
    return swept, [s for s in sweeps if s.get("sweep_id") in ids] or sweeps


def installed(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs the bar, log-log and per-task figures draw: those of installed builds, when there
    are any; runs at chosen versions (`sweep --version`) have their own figure, versions-*."""
    if "version_of" not in runs:
        return runs
    plain = runs[runs["version_of"].isna()]
    return plain if not plain.empty else runs


def figures(
    runs: pd.DataFrame,
    sweeps: list[dict[str, Any]],
    out_dir: Path,
    metric: str,
    capacity: list[dict[str, Any]],
) -> tuple[list[Path], str]:
    """Every figure of the selected runs, written to out_dir: the sweep's (once per label where
    there are several), the capacity answers', the version axes'. Returns the files and the
    note on labels kept apart ("" if none). OSError and ValueError reach the caller."""
    from runner.show.figures.labelled import plot as plot_labelled

    written: list[Path] = []
    note = ""
    out_dir.mkdir(parents=True, exist_ok=True)
    if not capacity or not sweep_runs(runs).empty:
        drawn, theirs = shown(runs, sweeps)
        written, note = plot_labelled(installed(drawn), theirs, out_dir, metric)
    return written, note


def more_figures(
    runs: pd.DataFrame,
    sweeps: list[dict[str, Any]],
    out_dir: Path,
    metric: str,
    capacity: list[dict[str, Any]],
) -> list[Path]:
    """The capacity answers' figures and the version axes' (after the sweep's), and the data files
    a workload adds beside its figures (`<package>.show`'s data_files(): the http workload's
    .hgrm percentile distributions)."""
    written: list[Path] = []
    swept = sweep_runs(runs)
    if not swept.empty and "workload" in swept and swept["workload"].nunique() == 1:
        workload = workloads.only(swept)
        written += workload.data_files(swept, out_dir, workload.figure_prefix)
    if capacity:
        from runner.show.figures.capacity import capacity_figures
        from runner.show.figures.style import save

        for stem, fig in capacity_figures(capacity, runs, sweeps):
            written += save(fig, out_dir, stem, ("png", "svg"))
    if not sweep_runs(runs).empty and has_versions(runs):
        from runner.show.figures import versions

        written += versions.write(sweep_runs(runs), sweeps, out_dir, metric)
    return written
