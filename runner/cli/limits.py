"""`memrun limits`: the limits in force, who hits them, and restoring what a killed memrun raised."""

from __future__ import annotations

import os
from pathlib import Path

import click

from runner import workload as workloads
from runner.cli.app import InputError, main, select_variants
from runner.cli.workload_options import parameter_values, workload_parameters
from runner.inputs import parse_n


@main.command("limits", short_help="Show thread/process/connection limits and who hits them.")
@click.option("--n", "n_text", default=None, help="Check this N (e.g. 1e5): which variant hits which limit.")
@click.option(
    "--workload",
    type=click.Choice(workloads.names()),
    default=workloads.DEFAULT,
    show_default=True,
    help="sleep: the limits that cap OS threads. connections: every limit N idle connections meet "
    "(RLIMIT_NOFILE of server and client, fs.nr_open, fs.file-max, net.core.somaxconn, "
    "tcp_max_syn_backlog, ip_local_port_range, nf_conntrack_max, memory), then the thread limits of "
    "thread-per-connection variants.",
)
@click.option(
    "-r",
    "--variant",
    "variant_names",
    multiple=True,
    help="Only this variant (repeatable); also accepted as arguments.",
)
@click.option(
    "--restore",
    is_flag=True,
    help="(root) Put back kernel limits that a memrun killed mid-sweep left raised (from its journal).",
)
@click.option(
    "--results",
    "results_dir",
    default=None,
    type=click.Path(file_okay=False),
    help="Stored results whose per-task cost predicts the memory N threads need "
    "[default: plots/data when present, else the kernel-memory floor per thread].",
)
@workload_parameters
@click.argument("variants", nargs=-1)
def limits_command(
    n_text: str | None,
    workload: str,
    variant_names: tuple[str, ...],
    restore: bool,
    results_dir: str | None,
    variants: tuple[str, ...],
    **given: str | None,
) -> None:
    """Show the limits that bound threads and processes here, and which variants hit them.

    pid_max, threads-max, vm.max_map_count, RLIMIT_NPROC, RLIMIT_STACK, cgroup pids.max, memory
    and overcommit. With --n, each variant that needs an OS thread per task is checked against
    them, with the exact command that lifts the limit (or use `memrun sweep --raise-limits`), and
    with the memory N such threads need (measured per-task cost from --results, kernel included).

    With --workload connections: each limit N idle connections meet, its value here, what N needs
    and whether N hits it (HIT: runs fail; slows: connects are retried), with the remedy; the
    workload's options (--buffer) as a sweep with them would meet them.
    """
    from runner.show.limits import limits_report

    if restore:
        _restore_limits()
        return
    n = None
    if n_text is not None:
        try:
            n = parse_n(n_text)
        except ValueError as e:
            raise InputError(f"--n: {e}") from None
    try:
        params = parameter_values(workload, given)
    except ValueError as e:
        raise InputError(str(e)) from None
    chosen = select_variants([*variants, *variant_names])
    own = workloads.get(workload).limits_report(n, chosen, params)  # a workload with limits of its own
    if own is not None:
        click.echo(own)
        return
    records, source = _stored(results_dir) if n is not None else ([], None)
    click.echo(limits_report(n, chosen, records, source))


def _stored(results_dir: str | None) -> tuple[list, str | None]:
    """The run records that give measured per-task costs: --results DIR, else plots/data (here,
    or in the checkout: the reference results), else none (the per-thread floor is used)."""
    from runner.paths import ROOT
    from runner.results import ResultsError, load_records

    if results_dir:
        path = Path(results_dir)
    else:
        found = [p for p in (Path("plots/data"), ROOT / "plots" / "data") if (p / "runs.jsonl").exists()]
        if not found:
            return [], None
        path = found[0]
    try:
        return [record for _, record in load_records([path])], str(path)
    except ResultsError as e:
        raise InputError(f"--results: {e}") from None


def _restore_limits() -> None:
    from runner.limits import journal

    found = journal.read()
    if found is None:
        click.echo("nothing to restore: no memrun has raised limits here without putting them back")
        return
    owner, _entries = found
    if owner.pid and owner.alive():
        raise click.ClickException(
            f"memrun {owner.describe()} is running and holds the raised limits; it restores them "
            "when it ends (stop it with Ctrl-C or kill, not kill -9)"
        )
    if os.geteuid() != 0:
        raise InputError("restoring kernel limits needs root (it writes /proc/sys)")
    journal.recover(log=click.echo, force=True)
