"""`memrun inspect`: each chosen run's story and figure, from stored results (never runs a task)."""

from __future__ import annotations

from pathlib import Path

import click

from runner.cli.app import InputError, err, main
from runner.cli.options import out_option
from runner.cli.workload_options import SHOWN_WORKLOAD_HELP, workload_option
from runner.inputs import parse_n


@main.command(short_help="Tell how chosen runs went, from their timelines: text and a figure each.")
@click.argument("results", required=False, default="results", type=click.Path())
@click.option("-r", "--variant", "variants", multiple=True, help="Only this variant (repeatable).")
@click.option("--n", "n_text", default=None, help="Only this N (e.g. 1e5).")
@click.option("--run", "run_id", default=None, help="Exactly this run (its run_id in runs.jsonl).")
@out_option("Directory for the figures (PNG and SVG, one per run).", default="inspect")
@workload_option(SHOWN_WORKLOAD_HELP + " --run finds its run whatever the workload.")
@click.option(
    "--overlap",
    is_flag=True,
    help="Instead of stories: one line per valid run (of the sweeps' runs, after -r and --n) with what "
    "proves from outside that its N waits overlapped: wall < 2 × sleep, and the hold ratio (RSS at "
    "`ready` ÷ the highest RSS until the first wait could end; ≥ 0.95 when every task was waiting).",
)
def inspect(
    results: str,
    variants: tuple[str, ...],
    n_text: str | None,
    run_id: str | None,
    out_dir: str,
    workload: str,
    overlap: bool,
) -> None:
    """Tell how runs went, from their stored timelines: a short text and a figure per run.

    Default: every run without a figure in the latest sweep of RESULTS (default results/). With
    -r/--n: the latest sweep's runs of those cells (its failed ones, or all when all are valid).
    The text gives, in time order, when threads began, where their creation slowed or stopped
    and at which limit, `ready` (or its absence), the sleep's end and how the run ended (exit,
    signal, OOM kill, timeout), with CPU time, the cause, the remedy and what N would take in
    memory. The figure draws memory, threads, the creation rate and CPU against time, with the
    limits that matter as lines.
    """
    from runner.show.inspection import InspectError, overlap_evidence, stories

    try:
        n = parse_n(n_text) if n_text is not None else None
    except ValueError as e:
        raise InputError(f"--n: {e}") from None
    try:
        if overlap:
            click.echo(overlap_evidence(Path(results), variants, n, None if run_id else workload, log=err))
            return
        for text in stories(Path(results), variants, n, run_id, Path(out_dir), workload, log=err):
            click.echo(text)
    except InspectError as e:
        raise InputError(str(e)) from None
