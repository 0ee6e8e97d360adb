"""`memrun compare`: two results directories cell by cell, exit 1 on a regression (a CI guard)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from runner.cli.app import main
from runner.cli.refusing import refused
from runner.cli.showing import METRIC_HELP, FormatChoice
from runner.cli.workload_options import SHOWN_WORKLOAD_HELP, workload_option
from runner.results import METRICS
from runner.results.record import TIME_METRICS


@main.command(short_help="Compare two results directories cell by cell; exit 1 on a regression.")
@click.argument("base", type=click.Path())
@click.argument("other", type=click.Path())
@click.option(
    "--metric",
    type=click.Choice([*METRICS, *TIME_METRICS]),
    default="peak_rss",
    show_default=True,
    help=METRIC_HELP + " ready_s: the spawn time, in seconds (its --floor too).",
)
@click.option(
    "--threshold",
    default="5%",
    show_default=True,
    help="Ratio factor: the medians must differ by more than this percentage of BASE.",
)
@click.option(
    "--floor",
    "floor_text",
    default=None,
    help="Absolute floor: the medians must also differ by more than this size (memory figures of "
    "a small process wobble by a few hundred KiB between runs); 0 turns it off. "
    "[default: 512KiB; for --metric ready_s, seconds: 0]",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Exit 1 also when a cell changed past the threshold and floor but had too few runs to "
    "test (one run a side).",
)
@click.option(
    "--format",
    "fmt",
    type=FormatChoice(tables=True),
    default="md",
    show_default=True,
    help="The table's format: any of runner.show.exports' formats that render a table.",
)
@workload_option(SHOWN_WORKLOAD_HELP)
def compare(
    base: str,
    other: str,
    metric: str,
    threshold: str,
    floor_text: str | None,
    strict: bool,
    fmt: str,
    workload: str,
) -> None:
    """Compare OTHER against BASE, two results directories (one label each), per (variant, N).
    DIR:LABEL takes one label's runs from a directory that holds several (`memrun report DIR`
    names them); capacity probes are never compared.

    Both medians (min-max), the ratio OTHER / BASE, the evidence (runs a side, p) and a verdict.
    Larger or smaller only when all three hold: the runs differ beyond chance (exact Mann-Whitney
    U, p < 0.002, from 7 runs a side; with 2 to 6, 99 % confidence intervals apart), the ratio
    passes --threshold, and the difference passes --floor. A change the runs cannot test (one
    run a side) is "too few runs", with the --repeat that would decide it. What differs between
    the two machines is listed, with a warning where it can move memory; toolchain versions and
    settings that differ are shown per cell.

    Exit status 1 when any cell is larger, or has a figure in BASE but none in OTHER (with
    --strict, also on too few runs), so a CI job can guard a runtime upgrade; 0 otherwise; 2 on
    bad input.
    """
    from runner import workload as workloads
    from runner.analysis.compare import compare_dirs, rule_of
    from runner.show.tables.compare import render

    with refused(ValueError):  # ResultsError included
        rule = rule_of(metric, threshold, floor_text)
        result = compare_dirs(Path(base), Path(other), metric, rule=rule, workload=workloads.get(workload))
    click.echo(render(result, fmt), nl=False)
    sys.exit(1 if result.failed(strict) else 0)
