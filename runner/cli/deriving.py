"""`memrun derive`: every committed figure, page and docs figure made again from the committed
data (derived.toml and the pages' generated blocks), and the value and table commands the blocks
use."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from runner.cli.app import InputError, err, main
from runner.cli.refusing import refused
from runner.cli.workload_options import workload_option

SHOW_HELP = (
    "one: the value of the one variant (-r); range: lowest–highest; span: lowest (variant) to highest "
    "(variant); median; each: every variant's, smallest first; count: how many have one; total: their sum."
)


@main.group(
    invoke_without_command=True, short_help="Make every committed figure and docs figure again from the data."
)
@click.option(
    "--check", is_flag=True, help="Write nothing: name every file or block that differs; exit 1 if any."
)
@click.option(
    "--jobs", type=click.IntRange(min=1), default=None, help="Commands at once [default: the CPU count]."
)
@click.pass_context
def derive(ctx: click.Context, check: bool, jobs: int | None) -> None:
    """Make every file derived.toml lists (figures, plots/report.html) and every generated block
    of the pages it names, from the stored results committed beside them; write what differs.
    Run from the checkout's root. Never runs a task: only commands that read stored results.

    --check makes everything in a scratch directory and names each committed file or docs block
    that differs from what the data give (and each committed figure no command makes), with exit
    status 1: what CI runs, so a figure or a number in the docs cannot drift from its data.
    """
    if ctx.invoked_subcommand is not None:
        return
    from runner.derive.blocks import BlockError
    from runner.derive.plan import PlanError
    from runner.derive.regenerate import DeriveError, regenerate

    try:
        outcome = regenerate(Path.cwd(), check=check, workers=jobs)
    except (PlanError, BlockError, DeriveError) as e:
        raise InputError(str(e)) from None
    for line in outcome.stale:
        err(("stale: " if check else "made again: ") + line)
    for path in outcome.orphans:
        err(f"not derived: {path}: committed under derived.toml's `derived`, but no command makes it")
    if check:
        if not outcome.fresh:
            err(
                f"memrun derive --check: {len(outcome.stale)} of {outcome.made} derived files and pages "
                f"differ from what the data give, {len(outcome.orphans)} committed file(s) made by no "
                "command; `memrun derive` makes them again"
            )
            sys.exit(1)
        err(f"memrun derive --check: all {outcome.made} derived files and pages are what the data give")
        return
    err(f"memrun derive: {len(outcome.written)} of {outcome.made} files and pages written")
    if outcome.orphans:
        sys.exit(1)


@derive.command("value", short_help="One figure of stored results, for a sentence of the docs.")
@click.argument("selection")
@click.argument("quantity")
@click.option(
    "--against", default=None, help="Another selection: the figure is this one's against it, per variant."
)
@click.option(
    "--against-variant",
    default=None,
    help="Compare every variant with this one variant of --against (default: the same selection).",
)
@click.option("--as", "how", type=click.Choice(["ratio", "difference"]), default="ratio", show_default=True)
@click.option("--show", type=click.Choice(["one", "range", "span", "median", "each", "count", "total"]),
              default="one", show_default=True, help=SHOW_HELP)  # fmt: skip
@click.option("-r", "--variant", "variants", multiple=True, help="Only this variant (repeatable).")
@workload_option()
def value(selection: str, quantity: str, against: str | None, against_variant: str | None, how: str,
          show: str, variants: tuple[str, ...], workload: str) -> None:  # fmt: skip
    """A figure of SELECTION (DIR[:LABEL][#K-M]): QUANTITY per variant (COLUMN@N, per_task:COLUMN@N,
    held_rss@N, runs, runs@N, valid@N, capacity:FIELD@BUDGET, sweep:FIELD, machine:FIELD; /NUMBER
    after it divides by a published figure; QUANTITY;QUANTITY pools several for one range; a
    {format} last), optionally against another selection, shown as --show says. See
    runner/derive/query.py for the whole syntax."""
    from runner import workload as workloads
    from runner.derive.query import QueryError
    from runner.derive.query import value as compute

    chosen = workloads.get(workload)  # the name resolved once, here at the edge
    try:
        click.echo(compute(selection, quantity, chosen, show, variants, against, how, against_variant))
    except (QueryError, ValueError) as e:
        raise InputError(str(e)) from None


@derive.command("table", short_help="A table of stored results' figures, one row per variant.")
@click.option("--from", "sources", multiple=True, required=True,
              help="NAME=DIR[:LABEL][#K-M]: a selection the columns name (repeatable).")  # fmt: skip
@click.option(
    "--col",
    "columns",
    multiple=True,
    required=True,
    help="HEADER=NAME:QUANTITY[+NAME:QUANTITY…]: a column; one cell's figures joined by ' · '.",
)
@click.option(
    "--sort",
    type=int,
    default=1,
    show_default=True,
    help="Rows by this column's first figure, smallest first (0: in the order -r gives them).",
)
@click.option("-r", "--variant", "variants", multiple=True, help="Only this variant (repeatable).")
@workload_option()
def table(
    sources: tuple[str, ...], columns: tuple[str, ...], sort: int, variants: tuple[str, ...], workload: str
) -> None:
    """A Markdown table: one row per variant, one column per --col; a cell without a valid run
    says why."""
    from runner import workload as workloads
    from runner.derive.query import QueryError
    from runner.derive.tabulate import named
    from runner.derive.tabulate import table as compute

    with refused(QueryError, ValueError):
        click.echo(compute(named(sources), list(columns), workloads.get(workload), variants, sort))


@derive.command("checks", short_help="Every `memrun capacity --check` of stored answers: what held.")
@click.argument("selection")
@workload_option()
def checks(selection: str, workload: str) -> None:
    """Every check round of the capacity answers in SELECTION (DIR[:LABEL]), read back from the
    stored answers and runs alone: the hold rates of points and bands (a cell once stored as a
    band counts as one in every check) and each answer it lowered."""
    from runner import workload as workloads
    from runner.derive.answers import AnswerError
    from runner.derive.searches import checks as compute

    with refused(AnswerError):
        click.echo(compute(selection, workloads.get(workload)), nl=False)


@derive.command("searches", short_help="Every `memrun capacity` search of stored answers: its cost.")
@click.argument("selection")
@click.option(
    "--last", is_flag=True, help="Only the latest search, as one line without its id (for a sentence)."
)
@workload_option()
def searches(selection: str, last: bool, workload: str) -> None:
    """Every capacity search (not a check) of the answers in SELECTION (DIR[:LABEL]): how many
    answers and probes, and its probes' seconds against the floor its answers need."""
    from runner import workload as workloads
    from runner.derive.answers import AnswerError
    from runner.derive.searches import searches as compute

    with refused(AnswerError):
        click.echo(compute(selection, workloads.get(workload), last))
