"""`memrun sweep`: every variant at every N, each run stored as it ends."""

from __future__ import annotations

import click

from runner.cli.campaign_options import campaign_command, command_args, run_options
from runner.cli.options import MEMORY_CAP_OPTION, out_option, timeout_option
from runner.cli.sweep_options import (
    ENV_OPTION,
    JOBS_OPTION,
    KERNEL_OPTION,
    LABEL_OPTION,
    N_OPTION,
    RAISE_LIMITS_OPTION,
    REPEAT_OPTION,
    SHARD_OPTION,
    SLEEP_OPTION,
    VARIANT_OPTION,
    WAIT_OPTION,
    SweepArgs,
)
from runner.cli.versioning import VERSION_OPTION, VERSIONS_PRESET_OPTION


@campaign_command("Measure every variant at every N and store the runs.", lambda w: w.sweep_help)
@N_OPTION
@VARIANT_OPTION
@SLEEP_OPTION
@run_options
@REPEAT_OPTION
@JOBS_OPTION
@out_option("Results directory; runs are appended to OUT/runs.jsonl as each one ends.")
@click.option("--resume", is_flag=True, help="Run only the cells OUT does not hold yet under this label.")
@LABEL_OPTION
@ENV_OPTION
@timeout_option("Kill a run after this many seconds [default: 2 x sleep + 90].")
@MEMORY_CAP_OPTION
@WAIT_OPTION
@RAISE_LIMITS_OPTION
@VERSION_OPTION
@VERSIONS_PRESET_OPTION
@SHARD_OPTION
@KERNEL_OPTION
def sweep(**args: object) -> None:
    """Measure every variant at every N: build, run each cell, store each run as it ends.

    A run counts (verdict "valid") only if it exited 0 and printed `ready N` before the sleep
    ran out, so that all N tasks were alive at once. Failed and invalid runs are stored with
    their reason and a remedy, never as figures. Show results with `memrun report` / `memrun plot`.

    Runs overlap only while they hold: a run starts only while every run in flight holds (its
    tasks all waiting), so one run spawns at a time and no spawn meets another run's wake. It
    starts only if its spawn, predicted from the smaller N, ends before the earliest wake in
    flight and its predicted peak fits in the memory the machine has free; other workloads, and
    cells that raise or meet a kernel limit, run alone. Each run records what ran beside it
    (`memrun inspect` tells it), and --jobs 1 runs one at a time, in order.
    """
    from runner.cli.sweep_here import sweep_command

    sweep_command(command_args(SweepArgs, args))
