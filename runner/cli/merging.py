"""`memrun merge`: join results directories (a sharded sweep's) into one."""

from __future__ import annotations

import click

from runner.cli.app import InputError, err, main


@main.command(short_help="Join results directories (the shards of a sweep) into one.")
@click.argument("out", type=click.Path(file_okay=False))
@click.argument("dirs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False))
def merge(out: str, dirs: tuple[str, ...]) -> None:
    """Join the runs, timelines, sweep records and capacity answers of DIRS into OUT (made if
    missing), for `report`, `plot` and `compare` to see as one: the shards of one sweep
    (`memrun sweep --shard I/K` on each machine of a CI matrix), or results of one machine made
    at different times.

    A run is never added twice (merging again changes nothing). Runs of machines whose
    fingerprints differ (kernel, CPUs, THP, glibc...) are refused under one label, and nothing
    is written: sweep such machines with their own --label, then merge.
    """
    from runner.results import ResultsDir, ResultsError
    from runner.results.merge import merge as joined

    try:
        done = joined(ResultsDir(out), dirs)
    except ResultsError as e:
        raise InputError(str(e)) from None
    err(
        f"merged {len(done.sources)} directories into {out}: {done.runs:,} runs, {done.sweeps:,} sweep "
        f"records and {done.capacity:,} capacity answers added; {done.already:,} runs were there already"
    )
