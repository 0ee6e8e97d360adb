"""`memrun capacity` on this machine: the searches (or --check's checks) run, and their table
printed, each check's line on the way."""

from __future__ import annotations

import sys

import click

from runner.cli.app import InputError, err
from runner.cli.progress import capacity_progress
from runner.results import ResultsDir, ResultsError


def searches_here(opts, check: bool, as_json: bool) -> bool:  # type: ignore[no-untyped-def]
    """The searches (or checks) on this machine, their table printed; False when a check found an
    answer that does not hold."""
    from runner import capacity as searching
    from runner.show.tables.capacity import capacity_json_lines, capacity_markdown, cost_total

    try:
        if check:
            checks = searching.run_checks(opts, capacity_progress(), _on_check)
        else:
            results = searching.run_capacity(opts, capacity_progress())
    except KeyboardInterrupt:
        click.echo(f"interrupted: every probe is kept in {opts.out.path}; continue with --resume", err=True)
        sys.exit(130)
    except ResultsError as e:  # the label is another machine's there
        raise InputError(str(e)) from None
    if check:
        return _report_checks(checks, opts.out, as_json)
    rows = [r.to_json() for r in results]
    if rows:
        err(f"cost against the floor: {cost_total(rows)}")
    shown = searching.mine(opts)
    click.echo(capacity_json_lines(rows) if as_json else capacity_markdown(shown), nl=False)
    return True


def _on_check(check) -> None:  # type: ignore[no-untyped-def]
    from runner.show.tables.capacity import budget_label

    where = f"{check.variant} in {budget_label(check.budget_bytes)}"
    if check.skipped:
        err(f"{where}: not checked: {check.skipped}")
        return
    row = check.to_json()
    above = "failed" if row["above_failed"] else "fitted"
    verdict = "holds" if check.held else "does NOT hold"
    err(
        f"{where}: {verdict} (N={check.max_n:,}: {row['fitted_at_max']} of {row['runs_at_max']} fitted; "
        f"N={check.above_n:,} {above})" + (f"; {check.after.why}" if check.lowered_to is not None else "")
    )


def _report_checks(checks, out: ResultsDir, as_json: bool) -> bool:  # type: ignore[no-untyped-def]
    import json

    from runner.show.tables.capacity import check_markdown

    if not checks:
        raise InputError(f"no capacity result in {out.path} for these variants and budgets to check")
    rows = [c.to_json() for c in checks]
    click.echo("".join(json.dumps(r) + "\n" for r in rows) if as_json else check_markdown(rows), nl=False)
    return all(c.held for c in checks if not c.skipped)
