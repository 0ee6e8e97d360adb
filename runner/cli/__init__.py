"""The `memrun` command line: click only (parse, call the library, print). One module per group
of commands, imported when one of its commands is named (runner.cli.app.COMMANDS); runner.cli.app
holds the group and what the commands share."""

from __future__ import annotations

import sys

import click

from runner.cli.app import main

__all__ = ["main", "run"]


def run() -> None:
    """Console entry point: every user error is one line on stderr with exit status 2."""
    try:
        status = main.main(standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as e:
        click.echo(e.format_message(), err=True)
        sys.exit(2)
    except click.UsageError as e:  # bad option or argument: one line, not the usage block
        where = f"memrun {e.ctx.info_name}: " if e.ctx and e.ctx.parent else ""
        click.echo(f"Error: {where}{e.format_message()}", err=True)
        sys.exit(2)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except (click.Abort, KeyboardInterrupt):
        click.echo("interrupted", err=True)
        sys.exit(130)
    sys.exit(status if isinstance(status, int) else 0)
