"""`memrun sweep`: every variant at every N, each run stored as it ends."""

from __future__ import annotations

import socket

import click

from runner.cli.app import (
    InputError,
    check_futex_hash,
    check_raise_limits,
    err,
    machine,
    refuse_taken_label,
    select_variants,
)
from runner.cli.campaign_options import campaign_command, run_options
from runner.cli.kernels import check_kernels, is_host
from runner.cli.options import (
    MEMORY_CAP_OPTION,
    out_option,
    resolve_memory_cap,
    timeout_option,
)
from runner.cli.sweep_here import sweep_here, sweep_in_guest
from runner.cli.sweep_options import (
    DEFAULT_NS,
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
)
from runner.cli.versioning import VERSION_OPTION, VERSIONS_PRESET_OPTION, versioned
from runner.cli.workload_options import parameter_values
from runner.inputs import sweep_inputs
from runner.limits import futex
from runner.results import ResultsDir


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
def sweep(
    n_list: str | None,
    variant_names: tuple[str, ...],
    sleep_text: str,
    repeat: int,
    jobs: int,
    out_dir: str,
    resume: bool,
    label: str | None,
    env_items: tuple[str, ...],
    timeout: float | None,
    interval: float,
    memory_cap: int | str,
    wait: bool,
    raise_limits: bool,
    futex_hash: int | None,
    workload: str,
    version_items: tuple[str, ...],
    preset: str | None,
    shard_text: str | None,
    kernels: tuple[str, ...],
    **given: str | None,
) -> None:
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
    from runner import sweep as sweeping
    from runner import workload as workloads
    from runner.shard import Shard
    from runner.sweep import campaigns

    if n_list is None:
        n_list = workloads.get(workload).default_ns or DEFAULT_NS
    try:
        ns, sleep, env_override = sweep_inputs(n_list, sleep_text, label, env_items)
        params = parameter_values(workload, given)
        shard = Shard.parse(shard_text) if shard_text is not None else None
    except ValueError as e:
        raise InputError(str(e)) from None
    check_raise_limits(raise_limits)
    check_futex_hash(futex_hash)
    out = ResultsDir(out_dir)
    check_kernels(kernels)
    install = versioned(select_variants(variant_names), bool(variant_names), version_items, preset)
    opts = sweeping.SweepOptions(
        variants=[],
        ns=ns,
        sleep=sleep,
        repeat=repeat,
        out=out,
        resume=resume,
        timeout=timeout,
        interval=interval / 1000.0,
        raise_limits=raise_limits,
        memory_cap=resolve_memory_cap(memory_cap, log=err),
        futex_hash=futex_hash,
        label=label.strip() if label else futex.label(socket.gethostname(), futex_hash),
        env_override=env_override,
        workload=workloads.get(workload),  # the name resolved once, here at the edge
        params=params,
        shard=shard,
        jobs=jobs,
    )
    if not kernels or any(is_host(k) for k in kernels):
        refuse_taken_label(out, opts.label)  # before waiting for the machine or building
    with machine(wait):  # installing a version unpacks toolchains: not beside a measurement
        opts.variants = install()
        try:
            if skipped := sweeping.skipped(opts, refuse_all=True):
                err(f"memrun sweep: skipped, no {workload} workload in their manifest: {', '.join(skipped)}")
        except ValueError as e:
            raise InputError(str(e)) from None
        for one in campaigns(opts):  # a sweep per value of an `each` parameter (tick's --period)
            if not kernels:
                sweep_here(one, one.out)
                continue
            for kernel in dict.fromkeys(kernels):
                sweep_here(one, one.out) if is_host(kernel) else sweep_in_guest(kernel, one, one.out)
