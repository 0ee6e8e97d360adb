"""`memrun limits`: the limits in force, who hits them, and restoring what a killed memrun raised."""

from __future__ import annotations

import click

from runner import workload as workloads
from runner.cli.app import InputError, main, select_variants
from runner.cli.refusing import refused
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
    from runner.results import ResultsError
    from runner.show.limits import limits_here

    if restore:
        _restore_limits()
        return
    with refused(ValueError, prefix="--n: "):
        n = parse_n(n_text) if n_text is not None else None
    with refused(ValueError):
        params = parameter_values(workload, given)
    chosen = select_variants([*variants, *variant_names])
    with refused(ResultsError):
        click.echo(limits_here(n, chosen, workloads.get(workload), params, results_dir))


def _restore_limits() -> None:
    """--restore: the journal's refusals said as the command's errors (a live owner: exit 1)."""
    from runner.limits import journal

    try:
        if not journal.put_back(log=click.echo):
            click.echo("nothing to restore: no memrun has raised limits here without putting them back")
    except journal.Held as e:
        raise click.ClickException(str(e)) from None
    except journal.NotRoot as e:
        raise InputError(str(e)) from None
