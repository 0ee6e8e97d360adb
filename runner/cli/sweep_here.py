"""`memrun sweep`'s run: its cells here, each progress line as it comes, or in a VM of a kernel."""

from __future__ import annotations

import sys

import click

from runner.cli.app import InputError, err, given_args
from runner.cli.kernels import in_guest
from runner.results import ResultsDir, ResultsError, ResultsWriteError


def sweep_in_guest(kernel: str, opts, out: ResultsDir) -> None:  # type: ignore[no-untyped-def]
    """The same cells in a VM of the kernel (runner.vm): built here first, run there."""
    from runner import sweep as sweeping
    from runner.vm.guest import guest_args

    try:
        sweeping.prepare(opts, log=err)
    except ResultsError as e:
        raise InputError(str(e)) from None
    in_guest(kernel, "sweep", guest_args(given_args()), out, opts.label, opts.memory_cap)


def sweep_here(opts, out: ResultsDir) -> None:  # type: ignore[no-untyped-def]
    """The sweep on this machine, its progress on stderr; nothing finished is lost on Ctrl-C."""
    from runner import sweep as sweeping
    from runner.cli.progress import SweepPrinter
    from runner.show.story import sweep_ended, write_failed

    try:
        sweeping.prepare(opts, log=err)
    except ResultsError as e:
        raise InputError(str(e)) from None
    except ResultsWriteError as e:
        raise click.ClickException(write_failed(e, out)) from None
    printer = SweepPrinter()
    try:
        end = sweeping.run_sweep(opts, printer.progress())
    except KeyboardInterrupt:
        printer.clear()
        click.echo(
            f"interrupted: finished runs are kept in {out.path}/runs.jsonl; "
            f"continue with the same command plus --resume",
            err=True,
        )
        sys.exit(130)
    except ResultsError as e:
        raise InputError(str(e)) from None
    except ResultsWriteError as e:  # disk full: exit status 1, every finished run intact
        printer.clear()
        raise click.ClickException(write_failed(e, out)) from None
    except OSError as e:  # a limit that cannot be raised
        printer.clear()
        raise click.ClickException(f"sweep stopped, finished runs are kept in {out.path}: {e}") from None
    printer.clear()
    for line in sweep_ended(end, out):
        click.echo(line)
