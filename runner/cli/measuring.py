"""`memrun measure`: the peak memory of one command, any command."""

from __future__ import annotations

import json
import sys

import click

from runner.cli.app import (
    err,
    main,
)
from runner.cli.options import (
    INTERVAL_OPTION,
    MEMORY_CAP_OPTION,
    resolve_memory_cap,
    timeout_option,
)
from runner.measure.launcher import LauncherError


@main.command(
    context_settings={"ignore_unknown_options": True}, short_help="Measure one command's peak memory."
)
@timeout_option("Kill the whole process tree after this many seconds.")
@INTERVAL_OPTION
@MEMORY_CAP_OPTION
@click.option(
    "--cgroup",
    type=click.Choice(["auto", "v2", "v1", "none"]),
    default="auto",
    show_default=True,
    help="Memory cgroup backend for the exact whole-tree peak.",
)
@click.option("--json", "as_json", is_flag=True, help="Print every figure, with the timeline, as JSON.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def measure(
    timeout: float | None,
    interval: float,
    memory_cap: int | str,
    cgroup: str,
    as_json: bool,
    command: tuple[str, ...],
) -> None:
    """Measure the peak memory of one command:  memrun measure [OPTIONS] -- CMD [ARGS...]

    The command is run directly (never through a shell) via a tiny launcher, so the figures are
    the command's own and not inherited from memrun. Reported: peak RSS of the process tree
    (headline; kernel high-water marks, or the sampled tree sum when larger), the peak of a fresh
    memory cgroup holding the whole run (includes kernel memory such as thread stacks), wall and
    CPU time, exit status or signal, when `ready N` was printed, and the tail of stderr.

    Exit status: 0 when the command exited 0, 1 when it failed, timed out or was killed.
    """
    from runner.measure import measure as measure_run
    from runner.show.runtext import format_run

    try:
        result = measure_run(
            list(command),
            timeout=timeout,
            interval=interval / 1000.0,
            cgroup=cgroup,
            memory_cap=resolve_memory_cap(memory_cap, log=err),
        )
    except LauncherError as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=1))
    else:
        click.echo(format_run(result))
    sys.exit(0 if result.ok else 1)
