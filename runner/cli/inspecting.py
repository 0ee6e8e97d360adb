"""`memrun inspect`: each chosen run's story and figure, from stored results (never runs a task)."""

from __future__ import annotations

import warnings
from pathlib import Path

import click

from runner.cli.app import InputError, err, main
from runner.cli.options import out_option
from runner.cli.workload_options import SHOWN_WORKLOAD_HELP, workload_option
from runner.inputs import parse_n
from runner.workload import get as get_workload


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
    from runner import tasks
    from runner.limits import read_limits
    from runner.results import ResultsError, TornRecordWarning, load_records, load_sweeps, workloads
    from runner.results.timelines import load_timelines
    from runner.show.figures.timeline import save_timeline_figure
    from runner.show.story import choose, make_case, story

    try:
        n = parse_n(n_text) if n_text is not None else None
    except ValueError as e:
        raise InputError(f"--n: {e}") from None
    path = Path(results)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TornRecordWarning)
        try:
            loaded = load_records([path])
            sweeps = {str(s.get("sweep_id")): s for s in load_sweeps([path])}
        except ResultsError as e:
            raise InputError(str(e)) from None
    for w in caught:
        err(f"warning: {w.message}")
    if not run_id:  # the runs of one workload: a sweep of connections is not the latest sleep sweep
        loaded = [(d, r) for d, r in loaded if r.workload == workload]
        sweeps = {k: s for k, s in sweeps.items() if workloads.of(s) == workload}
    if overlap:
        _print_overlap(path, [r for _, r in loaded], variants, n)
        return
    chosen = choose(loaded, variants, n, run_id)
    if not chosen:
        what = (
            f"run {run_id}"
            if run_id
            else "runs matching "
            + " ".join([*(f"-r {v}" for v in variants), *([f"--n {n}"] if n is not None else [])])
        )
        if not run_id and not variants and n is None:
            if not loaded:
                raise InputError(f"no {workload} runs in {path} (--workload chooses another)")
            click.echo(f"every run of the latest {workload} sweep in {path} is valid: nothing to inspect")
            return
        raise InputError(f"no {what} in {path}")
    known = tasks.load_all()
    records = [r for _, r in loaded]
    now = read_limits()
    try:
        timelines = load_timelines(path, [r.run_id for _, r in chosen if r.run_id])
    except ResultsError as e:
        raise InputError(str(e)) from None
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"cannot write figures to {out}: {e.strerror}") from None
    for i, (directory, record) in enumerate(chosen):
        variant = known.get(record.variant)
        ran = get_workload(record.workload)  # the stored row's name, resolved once here
        if variant and variant.runs(ran) and ran is not variant.workload:
            variant = variant.under(ran)  # its per-task needs under that workload
        case = make_case(
            directory,
            record,
            timelines.get(str(record.run_id), []),
            sweeps.get(str(record.sweep_id)),
            variant.per_task if variant else {},
            [r for r in records if r.workload == record.workload],
            now,
        )
        if case.timeline and record.result is not None:
            stem = f"{record.variant}-n{record.n}-{record.run_id}"
            try:
                case.figures = save_timeline_figure(
                    record,
                    case.timeline,
                    out,
                    stem,
                    per_task=case.per_task,
                    limits=case.limits,
                    cpus=case.cpus,
                    diagnosis=case.diagnosis,
                )
            except OSError as e:
                raise InputError(f"cannot write figures to {out}: {e.strerror}") from None
        click.echo(("\n" if i else "") + story(case))
        line = get_workload(record.workload).client_line(record.n, record.client) if record.client else None
        if line is not None:
            click.echo(line)  # the workload's load client


def _print_overlap(path: Path, records: list, variants: tuple[str, ...], n: int | None) -> None:
    """`inspect --overlap`: the overlap evidence of every valid sweep run that matches."""
    from runner.results import ResultsError
    from runner.results.timelines import load_timelines
    from runner.show.story import overlap_table

    chosen = [
        r
        for r in records
        if r.kind == "sweep"
        and not r.superseded
        and (not variants or r.variant in variants)
        and (n is None or r.n == n)
    ]
    missing = [r.run_id for r in chosen if r.hold_ratio is None and r.run_id]
    try:
        timelines = load_timelines(path, missing) if missing else {}
    except ResultsError as e:
        raise InputError(str(e)) from None
    lines = overlap_table(chosen, timelines)
    if not lines:
        raise InputError(f"no valid sweep runs matching in {path}")
    click.echo("\n".join(lines))
