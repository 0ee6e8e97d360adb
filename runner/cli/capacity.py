"""`memrun capacity`: how many concurrent tasks fit in a memory budget."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from runner import tasks
from runner.cli.app import (
    InputError,
    check_futex_hash,
    check_raise_limits,
    err,
    machine,
    main,
    select_variants,
)
from runner.cli.options import BUFFER_OPTION, FUTEX_HASH_OPTION, INTERVAL_OPTION, out_option, workload_option
from runner.results import ResultsDir, ResultsError, load_records


@main.command(short_help="Find how many concurrent tasks fit in a memory budget.")
@click.option(
    "--memory",
    "budgets_text",
    required=True,
    help="Memory budgets, comma-separated: 256MiB,1GiB (sizes as for --memory-cap).",
)
@click.option("-r", "--variant", "variant_names", multiple=True, help="Variant (repeatable; default: all).")
@out_option("Results directory: every probe run goes to OUT/runs.jsonl, each result to OUT/capacity.jsonl.")
@click.option(
    "--from",
    "history",
    multiple=True,
    type=click.Path(exists=True, file_okay=False),
    help="Results of earlier sweeps to predict the start of each search from [default: OUT itself]; "
    "without any, two calibration runs (N=1 and N=10000) under the cap predict it.",
)
@click.option("--resume", is_flag=True, help="Reuse the probes and results OUT holds; run only the rest.")
@click.option(
    "--fresh",
    is_flag=True,
    help="Start every search from the sweeps' line (or the smaller budget's answer), ignoring an "
    "answer OUT already holds for the same budget: what a first search costs. Without it a stored "
    "answer is the start, its first failing N the next probe, and a boundary whose stored runs "
    "(or a --check of them) passed and failed at random is searched as a band from the start.",
)
@click.option(
    "--check",
    is_flag=True,
    help="Search nothing: re-run each result OUT holds (for these budgets and variants) at its "
    "max N and at 1.05 x its first failing N with the same sleep (a band's top once more too); "
    "exit 1 unless every result holds (a point: max N valid again, 1.05 x first failing N not; "
    "a band: max N valid again).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per (variant, budget).")
@INTERVAL_OPTION
@click.option(
    "--raise-limits",
    is_flag=True,
    help="(root) Raise thread limits for thread-per-task variants (and, for connections, the limits "
    "`memrun limits --workload connections` lists) to what the largest budget can hold.",
)
@click.option("--wait", is_flag=True, help="Wait for another measurement to finish instead of exiting 2.")
@FUTEX_HASH_OPTION
@workload_option()
@BUFFER_OPTION
def capacity(
    budgets_text: str,
    variant_names: tuple[str, ...],
    out_dir: str,
    history: tuple[str, ...],
    resume: bool,
    fresh: bool,
    check: bool,
    as_json: bool,
    interval: float,
    raise_limits: bool,
    wait: bool,
    futex_hash: int | None,
    workload: str,
    buffer: int,
) -> None:
    """For each variant and budget, the largest N whose run is valid in a memory cgroup capped at
    the budget (swap excluded), found by real runs: a prediction from stored sweeps, steps along
    the line the valid probes' memory draws (or from the answer OUT already holds for the
    budget, unless --fresh), bisection to within 2 %, and the answer run a second
    time (an N valid only once is not a capacity: the search moves below it). Where runs pass or
    fail from run to run, the answer is a band: max N valid in every run there, and the span up to
    the largest N seen valid once. Each search prints its cost against its floor (the valid run at
    max N twice and the failing run at the first failing N). Each probe sleeps
    1.5 x the spawn time expected at its N (at least 2 s) and is stopped if `ready N` has not
    come by then; such a probe, if its memory or threads were still growing, is run once more
    with twice the sleep, so that a capacity is not an artefact of a short sleep. Every probe is
    stored; Ctrl-C keeps them and --resume continues the search. --check re-runs the boundaries.

    Where no memory cgroup can be capped (no root and no delegated cgroup), it refuses with exit
    status 2 before any probe: an answer found without a cap would be false.

    --workload connections searches how many idle TCP connections a server holds in the budget
    (memrun's load client runs outside the capped cgroup); variants without it are not searched.
    """
    from runner import capacity as searching
    from runner.show.tables.capacity import capacity_json_lines, capacity_markdown

    budgets = _budgets(budgets_text)
    check_raise_limits(raise_limits)
    check_futex_hash(futex_hash)
    out = ResultsDir(out_dir)
    try:
        out.check_writable()
        past = [p for p in map(Path, history or (out_dir,)) if (p / "runs.jsonl").exists()]
        records = [r for _, r in load_records(past) if r.workload == workload] if past else []
    except ResultsError as e:
        raise InputError(str(e)) from None
    chosen = select_variants(variant_names)
    for v in chosen:
        if workload not in v.has:
            err(f"{v.name}: not searched, no {workload} workload in its manifest")
    opts = searching.CapacityOptions(
        variants=[v.under(workload) for v in chosen if workload in v.has],
        budgets=budgets,
        out=out,
        history=records,
        resume=resume,
        fresh=fresh,
        interval=interval / 1000.0,
        raise_limits=raise_limits,
        futex_hash=futex_hash,
        workload=workload,
        buffer=buffer,
    )
    with machine(wait):
        failed = tasks.build_all([v for v in opts.variants if tasks.readiness(v).usable], log=err)
        for v in opts.variants:  # never a variant left out without a word
            if not (r := tasks.readiness(v)).usable:
                why = "; ".join(r.problems)
                err(f"{v.name}: not searched, not usable here: {why} (memrun doctor {v.name})")
            elif v.folder.name in failed:
                err(f"{v.name}: not searched, its build failed (memrun build {v.name})")
        opts.variants = [
            v for v in opts.variants if tasks.readiness(v).usable and v.folder.name not in failed
        ]
        try:
            if check:
                checks = searching.run_checks(opts, _capacity_progress(), _on_check)
            else:
                results = searching.run_capacity(opts, _capacity_progress())
        except KeyboardInterrupt:
            click.echo(f"interrupted: every probe is kept in {out.path}; continue with --resume", err=True)
            sys.exit(130)
    if check:
        _report_checks(checks, out, as_json)
        return
    rows = [r.to_json() for r in results]
    if rows:
        from runner.show.tables.capacity import cost_total

        err(f"cost against the floor: {cost_total(rows)}")
    shown = searching.mine(opts)
    click.echo(capacity_json_lines(rows) if as_json else capacity_markdown(shown), nl=False)


def _budgets(text: str) -> list[int]:
    from runner.inputs import parse_size
    from runner.limits.host import default_memory_cap

    try:
        budgets = [parse_size(t) for t in text.split(",")]
    except ValueError as e:
        raise InputError(f"--memory: {e}") from None
    if len(set(budgets)) < len(budgets):
        raise InputError(f"--memory: a budget is given more than once in {text!r}")
    from runner.measure import cgroups

    if problem := cgroups.cap_problem():
        raise InputError(f"capacity needs a memory cap on every probe, and none can be set here: {problem}")
    spare = default_memory_cap()
    if spare is not None and max(budgets) > spare:
        raise InputError(
            f"--memory: {max(budgets):,} bytes is more than this machine can spare ({spare:,} bytes: "
            "MemAvailable minus a reserve); a capacity run that large could take the host down"
        )
    return sorted(budgets)


def _capacity_progress():  # type: ignore[no-untyped-def]
    from runner.capacity import CapacityProgress
    from runner.results.workloads import noun
    from runner.show.tables.capacity import band_text, budget_label, cost_line

    def on_probe(variant: str, budget: int, record, ok: bool) -> None:  # type: ignore[no-untyped-def]
        what = "valid" if ok else f"{record.verdict}: {record.reason}"
        err(f"  {variant} in {budget_label(budget)}: N={record.n:,} {what}"[:160])

    def on_result(result, i: int, total: int) -> None:  # type: ignore[no-untyped-def]
        row = result.to_json()
        band = band_text(row)
        then = f"then {result.stopped_by}" if result.stopped_by else "none failed up to the ceiling"
        err(
            f"[{i}/{total}] {result.variant} in {budget_label(result.budget_bytes)}: "
            f"{result.max_n:,} {noun(result.workload)} fit{'; ' + band if band else ''} "
            f"({result.probes} probes; {then}; {cost_line(row)})"
        )

    return CapacityProgress(on_probe=on_probe, on_result=on_result, log=err)


def _on_check(check) -> None:  # type: ignore[no-untyped-def]
    from runner.show.tables.capacity import budget_label

    verdict = "holds" if check.held else "does NOT hold"
    err(
        f"{check.variant} in {budget_label(check.budget_bytes)}: boundary {verdict} "
        f"(N={check.max_n:,} {check.at_max.verdict}, N={check.above_n:,} {check.above.verdict})"
    )


def _report_checks(checks, out: ResultsDir, as_json: bool) -> None:  # type: ignore[no-untyped-def]
    import json

    from runner.show.tables.capacity import check_markdown

    if not checks:
        raise InputError(f"no capacity result in {out.path} for these variants and budgets to check")
    rows = [c.to_json() for c in checks]
    click.echo("".join(json.dumps(r) + "\n" for r in rows) if as_json else check_markdown(rows), nl=False)
    if not all(c.held for c in checks):
        sys.exit(1)
