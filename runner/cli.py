"""The `memrun` command line: parse, call the library, print. No measuring logic lives here."""

from __future__ import annotations

import json
import sys

import click

from runner import __version__
from runner.measure import measure as measure_run
from runner.measure.launcher import LauncherError
from runner.textfmt import format_run


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="memrun")
def main() -> None:
    """memrun: how much memory does it cost to keep N concurrent tasks alive in runtime X?

    Start with `memrun doctor` (what is installed), then `memrun sweep` (measure),
    `memrun report` / `memrun plot` (show stored results), `memrun limits` (why threads fail).
    """


@main.command(context_settings={"ignore_unknown_options": True})
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Kill the whole process tree after this many seconds.",
)
@click.option(
    "--interval",
    type=click.FloatRange(min=1),
    default=50.0,
    show_default=True,
    help="Milliseconds between samples of the process tree (timeline resolution).",
)
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
    timeout: float | None, interval: float, cgroup: str, as_json: bool, command: tuple[str, ...]
) -> None:
    """Measure the peak memory of one command:  memrun measure [OPTIONS] -- CMD [ARGS...]

    The command is run directly (never through a shell) via a tiny launcher, so the figures are
    the command's own and not inherited from memrun. Reported: peak RSS of the process tree
    (headline; kernel high-water marks, or the sampled tree sum when larger), the peak of a fresh
    memory cgroup holding the whole run (includes kernel memory such as thread stacks), wall and
    CPU time, exit status or signal, when `ready N` was printed, and the tail of stderr.

    Exit status: 0 when the command exited 0, 1 when it failed, timed out or was killed.
    """
    try:
        result = measure_run(list(command), timeout=timeout, interval=interval / 1000.0, cgroup=cgroup)
    except LauncherError as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=1))
    else:
        click.echo(format_run(result))
    sys.exit(0 if result.ok else 1)
