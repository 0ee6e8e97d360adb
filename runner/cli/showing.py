"""Commands that show stored results and never run a task: report, plot, compare."""

from __future__ import annotations

from pathlib import Path

import click

from runner.cli.app import InputError, err, main
from runner.cli.loading import load_results, variant_models
from runner.cli.options import out_option
from runner.cli.refusing import refused
from runner.cli.workload_options import SHOWN_WORKLOAD_HELP, workload_option
from runner.results import METRICS

DEFAULT = click.core.ParameterSource.DEFAULT
METRIC_HELP = "Memory figure to show: " + "; ".join(f"{k} = {v}" for k, v in METRICS.items())


class FormatChoice(click.Choice):
    """`--format`'s choices: the formats in runner.show.exports.registry (tables=True: those that
    render a table, as `compare` does), read when click needs them (not at import: a format
    registered later counts, and listing them loads no table)."""

    def __init__(self, tables: bool = False) -> None:
        self.case_sensitive = True
        self.tables = tables

    @property  # type: ignore[override]
    def choices(self) -> tuple[str, ...]:
        from runner.show.exports import registry
        from runner.show.exports.exporter import Exporter, TableExporter

        return tuple(registry.names(TableExporter if self.tables else Exporter))


@main.command(short_help="Draw figures from stored results.")
@click.argument("results", nargs=-1, type=click.Path())
@out_option("Directory for the PNG and SVG figures.", default="plots")
@click.option(
    "--metric", type=click.Choice(list(METRICS)), default="peak_rss", show_default=True, help=METRIC_HELP
)
@workload_option(SHOWN_WORKLOAD_HELP)
def plot(results: tuple[str, ...], out_dir: str, metric: str, workload: str) -> None:
    """Draw figures from stored results (default: results/); never runs a task program.

    One bar chart per N, a log-log chart of memory against N, and the per-task cost
    (M(N) - M(1)) / N. Cells without a valid run are drawn with their reason, never as zero.
    Another --workload's figures are named after it (connections-*), and it adds its own.
    """
    from runner.show import document

    selected = load_results(results, workload)
    runs, sweeps, capacity = selected.runs, selected.sweeps, selected.capacity
    try:
        written, note = document.figures(runs, sweeps, Path(out_dir), metric, capacity)
    except OSError as e:
        raise InputError(f"cannot write figures to {out_dir}: {e.strerror}") from None
    except ValueError as e:
        raise InputError(str(e)) from None
    written += document.more_figures(runs, sweeps, Path(out_dir), metric, capacity)
    if note:
        err(f"memrun plot: {note} Figures per label." if "labels" in note else f"memrun plot: {note}")
    for path in written:
        click.echo(str(path))


REPORT_HELP = """Print the table variants x N from stored results (default: results/).

Per cell: median MB (min-max and a flag when repeats spread over 5 %), KiB per task, time
until all N tasks were waiting, and the verdict with its reason where no run was valid.
Several labels (machines) get one column group each; their runs are never pooled.

--format html -o report.html writes one self-contained page (figures inline as SVG, no
network or JavaScript needed): first the answer (one sentence, links to every section, every
runtime at the largest N in one figure), then the runtimes grouped as OS threads, green threads
and actors, and async runtimes, the versions, a section per workload the results hold (unless
--workload names one) with its table and figures, the capacity answers, the causes of every
cell without a figure, the machines and the exact commands. The Markdown report has the same
sections in the same order, but for the answer and the runtimes' table (the page's alone).

--format bmf and --format gab export median, min and max per workload x variant x N x metric
for Bencher (`bencher run --adapter json`) and github-action-benchmark (`tool:
customSmallerIsBetter`), named without the machine so a kernel update keeps every series:
one file per label (-o gab.json writes gab.SLUG.json for each when there are several), and
for bmf the `bencher run --testbed SLUG` line to upload each with.
"""


@main.command(short_help="Print the variants x N table from stored results.", help=REPORT_HELP)
@click.argument("results", nargs=-1, type=click.Path())
@click.option(
    "--format",
    "fmt",
    type=FormatChoice(),
    default="md",
    show_default=True,
    help="md, csv, json, html; bmf (Bencher Metric Format) and gab (github-action-benchmark "
    "customSmallerIsBetter) carry every metric, whatever --metric says.",
)
@click.option(
    "--metric", type=click.Choice(list(METRICS)), default="peak_rss", show_default=True, help=METRIC_HELP
)
@click.option(
    "-o", "--output", type=click.Path(), default=None, help="Write to this file instead of standard output."
)
@click.option(
    "--section",
    default=None,
    help="Print one section of the Markdown report (runtimes, versions, the workload's name, capacity): "
    "what a page of the docs quotes.",
)
@workload_option(SHOWN_WORKLOAD_HELP)
@click.pass_context
def report(
    ctx: click.Context,
    results: tuple[str, ...],
    fmt: str,
    metric: str,
    output: str | None,
    section: str | None,
    workload: str,
) -> None:
    from runner.show import reporting
    from runner.show.exports import registry

    path = Path(output) if output else None
    with refused(ValueError):  # a ReportError, or an unknown format
        reporting.check_output(path)
        request = reporting.Request(registry.get(fmt), metric, path, section, variant_models())
        if request.exporter.every_workload and ctx.get_parameter_source("workload") is DEFAULT:
            written = reporting.every_workload(request, [Path(p) for p in results or ("results",)], err)
        else:
            written = reporting.one_workload(request, load_results(results, workload), err)
    if written.text is not None:
        click.echo(written.text, nl=not written.raw)
    for p in written.paths:
        click.echo(str(p))
