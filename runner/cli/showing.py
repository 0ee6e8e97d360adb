"""Commands that show stored results and never run a task: report, plot, compare."""

from __future__ import annotations

from pathlib import Path

import click

from runner.cli.app import InputError, err, main
from runner.cli.loading import load_results, variant_models
from runner.cli.options import out_option
from runner.cli.workload_options import SHOWN_WORKLOAD_HELP, workload_option
from runner.results import METRICS, ResultsError

METRIC_HELP = "Memory figure to show: " + "; ".join(f"{k} = {v}" for k, v in METRICS.items())


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


@main.command(short_help="Print the variants x N table from stored results.")
@click.argument("results", nargs=-1, type=click.Path())
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["md", "csv", "json", "html", "bmf", "gab"]),
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
    """Print the table variants x N from stored results (default: results/).

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
    from runner.show.exports.output import check_writable, write_text

    try:
        if output:
            check_writable(Path(output))
    except OSError as e:
        raise InputError(str(e)) from None
    from runner.show import document

    models = variant_models()
    if fmt == "html" and ctx.get_parameter_source("workload") is click.core.ParameterSource.DEFAULT:
        _page(results, metric, output, models)
        return
    selected = load_results(results, workload)
    if fmt in ("bmf", "gab") and output:
        _write_exports(document.exports(selected.runs, selected.sweeps, fmt), fmt, Path(output))
        return
    try:
        text = document.report(
            selected.runs, selected.sweeps, fmt, metric, selected.capacity, models, section
        )
        if not output:
            if fmt == "bmf":  # one label, or report() refused: its testbed
                from runner.show.exports.per_label import testbed_hint

                labels = [label for label in document.exports(selected.runs, selected.sweeps, fmt) if label]
                if labels and (hint := testbed_hint(fmt, labels[0], None)):
                    err(hint)
            click.echo(text, nl=fmt != "html")
            return
        write_text(Path(output), text if fmt == "html" else text + "\n")
    except OSError as e:
        raise InputError(str(e) if e.strerror is None else f"cannot write {output}: {e.strerror}") from None
    except ValueError as e:
        raise InputError(str(e)) from None
    click.echo(output)


def _page(results: tuple[str, ...], metric: str, output: str | None, models: dict[str, str]) -> None:
    """The HTML page of every workload in the results, to output or stdout."""
    from runner.results.selected import NothingSelected, load_workloads
    from runner.show import document
    from runner.show.exports.output import write_text

    try:
        found = load_workloads([Path(p) for p in (results or ("results",))])
    except (ResultsError, NothingSelected) as e:
        raise InputError(str(e)) from None
    for line in dict.fromkeys(w for s in found.values() for w in s.warnings):
        err(line)
    try:
        text = document.page([(w, s.runs, s.sweeps, s.capacity) for w, s in found.items()], metric, models)
        if not output:
            click.echo(text, nl=False)
            return
        write_text(Path(output), text)
    except OSError as e:
        raise InputError(str(e) if e.strerror is None else f"cannot write {output}: {e.strerror}") from None
    except ValueError as e:
        raise InputError(str(e)) from None
    click.echo(output)


def _write_exports(files: dict[str, str], fmt: str, output: Path) -> None:
    """One bmf or gab file per label (gab.json -> gab.SLUG.json when there are several), each
    path on stdout; for bmf, the `bencher run --testbed` line of each on stderr."""
    from runner.show.exports.output import write_text
    from runner.show.exports.per_label import path_for, testbed_hint

    for label, text in files.items():
        path = path_for(output, label, len(files) > 1)
        try:
            write_text(path, text)
        except OSError as e:
            raise InputError(str(e) if e.strerror is None else f"cannot write {path}: {e.strerror}") from None
        if hint := testbed_hint(fmt, label, path) if label else None:
            err(hint)
        click.echo(str(path))
