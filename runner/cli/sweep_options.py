"""The options only `memrun sweep` has (click only): what it runs, how long each run sleeps, how
often, under which label and settings, and whether it may raise kernel limits; and every option
of the command as it was given, typed (SweepArgs)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import click

from runner.cli.kernels import kernel_option
from runner.scheduling.jobs import DEFAULT_JOBS

DEFAULT_NS = "1,1e4,1e5,1e6"

N_OPTION = click.option(
    "--n",
    "n_list",
    default=None,
    help="Task counts, comma-separated: 1e4, 10k, 10_000 and 10000 all mean ten thousand "
    "[default: 1,1e4,1e5,1e6; the workload's own where it has one: http 100,1e4].",
)

VARIANT_OPTION = click.option(
    "-r",
    "--variant",
    "variant_names",
    multiple=True,
    help="Variant to run (repeatable; default: all). See `memrun doctor`.",
)

SLEEP_OPTION = click.option(
    "--sleep",
    "sleep_text",
    default="10",
    show_default=True,
    help="Seconds each task sleeps, or 'auto' (10 s, or auto:S to start at S s): a cell whose spawn, "
    "predicted from the smaller N, would not end well inside that sleep gets twice 1.5 x the "
    "prediction, rounded up to 5 s, before it runs; a run whose spawning outlasted the sleep anyway "
    "is run again with twice its spawn time, rounded up to 5 s (the row records the sleep used). "
    "connections: seconds the N connections are held after "
    "`ready N` (holding starts once all are open, so it is never outlasted; auto = 10 s).",
)

REPEAT_OPTION = click.option(
    "--repeat",
    type=click.IntRange(1, 100),
    default=1,
    show_default=True,
    help="Runs per (variant, N); the report gives median and min-max.",
)

RULE = (
    "Runs overlap only while they hold: a run starts only while every run in flight holds (its "
    "tasks all waiting, and its CPU measured idle: the holds together under 0.1 of a core), so one "
    "run spawns at a time, and only if its predicted spawn ends before "
    "the earliest of their wakes and its predicted peak fits in the memory the machine has free; "
    "runs of other workloads, and runs that raise or meet a kernel limit, run alone. Before each "
    "fork memrun touches the memory the run is predicted to take, so that a VM's host has backed it "
    "(docs/method.md). Each run records what ran beside it (`memrun inspect`)."
)


def jobs_option(what: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """--jobs: how many runs (what: "runs", "probes") may be in flight at once."""
    return click.option(
        "--jobs",
        type=click.IntRange(1, 64),
        default=DEFAULT_JOBS,
        show_default=True,
        help=f"{what.capitalize()} in flight at most. {RULE} --jobs 1: one at a time, in order.",
    )


JOBS_OPTION = jobs_option("runs")

LABEL_OPTION = click.option(
    "--label",
    default=None,
    help="Name stored in every run (default: the host name); `report`, `plot` and `compare` never "
    "pool runs of different labels into one median.",
)

ENV_OPTION = click.option(
    "--env",
    "env_items",
    multiple=True,
    metavar="NAME=VALUE",
    help="Set a variable for every run (repeatable), over the manifest's own: an A/B test of a "
    "runtime setting (GOGC=50, JAVA_TOOL_OPTIONS=-Xss512k). Stored in every run; report and "
    "compare keep such runs apart and name the setting.",
)

WAIT_OPTION = click.option(
    "--wait",
    is_flag=True,
    help="If another measurement holds the machine, wait for it instead of exiting with status 2.",
)

RAISE_LIMITS_OPTION = click.option(
    "--raise-limits",
    is_flag=True,
    help="(root) Raise kernel.pid_max, threads-max, vm.max_map_count and RLIMIT_NPROC to "
    "what the largest N needs; for connections also fs.nr_open, net.core.somaxconn and, where they "
    "apply, fs.file-max, tcp_max_syn_backlog and nf_conntrack_max (`memrun limits --workload "
    "connections --n N` lists them). Every value is put back afterwards, and after a SIGKILL by "
    "the next memrun command.",
)

SHARD_OPTION = click.option(
    "--shard",
    "shard_text",
    default=None,
    metavar="I/K",
    help="Run only shard I of K of the cells (a CI matrix job each; `memrun merge` joins their "
    "results). A cell's shard is a hash of its workload, variant, N and repeat: it never moves when "
    "other variants or sizes are added.",
)

KERNEL_OPTION = kernel_option("the sweep")


@dataclass(frozen=True)
class SweepArgs:
    """`memrun sweep`'s options as given, one field per option by its click name (made by
    runner.cli.campaign_options.command_args; runner.cli.sweep_here.sweep_command runs them);
    given: the workload parameters (--buffer, --rate...; None: not given)."""

    n_list: str | None
    variant_names: tuple[str, ...]
    sleep_text: str
    repeat: int
    jobs: int
    out_dir: str
    resume: bool
    label: str | None
    env_items: tuple[str, ...]
    timeout: float | None
    interval: float  # milliseconds
    memory_cap: int | str
    wait: bool
    raise_limits: bool
    futex_hash: int | None
    workload: str
    version_items: tuple[str, ...]
    preset: str | None
    shard_text: str | None
    kernels: tuple[str, ...]
    given: dict[str, str | None]
