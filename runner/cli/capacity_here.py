"""`memrun capacity` from its options as given: each checked before anything is built, the
machine held, then the searches (or --check's checks) here, their table printed and each check's
line on the way, or in a VM of a kernel."""

from __future__ import annotations

import sys

import click

from runner import workload as workloads
from runner.campaign import CampaignSettings
from runner.capacity.check import BoundaryCheck
from runner.capacity.probes import CapacityOptions
from runner.cli.app import (
    InputError,
    check_futex_hash,
    check_raise_limits,
    err,
    given_args,
    machine,
    refuse_taken_label,
    select_variants,
)
from runner.cli.capacity_options import CapacityArgs
from runner.cli.kernels import check_kernels, in_guest, is_host
from runner.cli.progress import capacity_progress
from runner.cli.workload_options import parameter_values
from runner.results import ResultsDir, ResultsError
from runner.vm.guest import guest_args


def capacity_command(a: CapacityArgs) -> None:
    """The searches (or checks) of every variant and budget, here or in a guest of each --kernel,
    once the label is checked free (before the machine is waited for) and the variants are built;
    exit 1 when a check found an answer that does not hold."""
    from runner import capacity as searching
    from runner.capacity import prepare

    opts = capacity_options(a)
    kernels = a.kernels or ("host",)
    if any(is_host(k) for k in kernels):
        refuse_taken_label(opts.campaign.out, searching.label_of(opts))  # before waiting for the machine
    with machine(a.wait):
        opts = prepare.prepare(opts, log=err)
        held = True
        for kernel in dict.fromkeys(kernels):
            if is_host(kernel):
                held = searches_here(opts, a.check, a.as_json) and held
            else:
                base, out = searching.label_of(opts), opts.campaign.out
                code = in_guest(kernel, "capacity", guest_args(given_args()), out, base, None).returncode
                if code == 2:
                    raise InputError(
                        f"the capacity in the guest of {kernel} refused its input; its output is above"
                    )
                held = code == 0 and held
    if not held:
        sys.exit(1)


def capacity_options(a: CapacityArgs) -> CapacityOptions:
    """The searches' options, every option checked first (a bad one: one line, exit 2); the
    variants those that have the workload (each other one named), the stored runs read."""
    from runner.capacity import prepare

    budgets = _budgets(a.budgets_text)
    check_raise_limits(a.raise_limits)
    check_futex_hash(a.futex_hash)
    check_kernels(a.kernels)
    out = ResultsDir(a.out_dir)
    chosen = workloads.get(a.workload)  # the name resolved once, here at the edge
    try:
        params = parameter_values(a.workload, a.given)  # --buffer, --rate...: as a sweep takes them
        records = prepare.history(out, a.history, chosen)
    except (ValueError, ResultsError) as e:
        raise InputError(str(e)) from None
    campaign = CampaignSettings(
        variants=prepare.with_workload(select_variants(a.variant_names), chosen, log=err),
        out=out,
        workload=chosen,
        params=params,
        interval=a.interval / 1000.0,
        futex_hash=a.futex_hash,
        raise_limits=a.raise_limits,
        label=a.label.strip() if a.label else None,
        jobs=a.jobs,
        resume=a.resume,
    )
    return CapacityOptions(campaign, budgets, history=records, fresh=a.fresh)


def _budgets(text: str) -> list[int]:
    from runner.capacity.prepare import BudgetError, budgets

    try:
        return budgets(text)
    except BudgetError as e:
        raise InputError(str(e)) from None


def searches_here(opts: CapacityOptions, check: bool, as_json: bool) -> bool:
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
        out = opts.campaign.out.path
        click.echo(f"interrupted: every probe is kept in {out}; continue with --resume", err=True)
        sys.exit(130)
    except ResultsError as e:  # the label is another machine's there
        raise InputError(str(e)) from None
    if check:
        return _report_checks(checks, opts.campaign.out, as_json)
    rows = [r.to_json() for r in results]
    if rows:
        err(f"cost against the floor: {cost_total(rows)}")
    shown = searching.mine(opts)
    click.echo(capacity_json_lines(rows) if as_json else capacity_markdown(shown), nl=False)
    return True


def _on_check(check: BoundaryCheck) -> None:
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


def _report_checks(checks: list[BoundaryCheck], out: ResultsDir, as_json: bool) -> bool:
    import json

    from runner.show.tables.capacity import check_markdown

    if not checks:
        raise InputError(f"no capacity result in {out.path} for these variants and budgets to check")
    rows = [c.to_json() for c in checks]
    click.echo("".join(json.dumps(r) + "\n" for r in rows) if as_json else check_markdown(rows), nl=False)
    return all(c.held for c in checks if not c.skipped)
