"""`memrun sweep` from its options as given: each checked before anything is built, the machine
held, the chosen versions installed, then each sweep's cells here (each progress line as it comes)
or in a VM of a kernel."""

from __future__ import annotations

import socket
import sys
from collections.abc import Callable
from dataclasses import replace

import click

from runner import tasks
from runner import workload as workloads
from runner.campaign import CampaignSettings
from runner.cli.app import (
    InputError,
    check_futex_hash,
    check_raise_limits,
    err,
    given_args,
    machine,
    refuse_taken_label,
    select_variants,
)
from runner.cli.kernels import check_kernels, in_guest, is_host
from runner.cli.options import resolve_memory_cap
from runner.cli.sweep_options import DEFAULT_NS, SweepArgs
from runner.cli.versioning import versioned
from runner.cli.workload_options import parameter_values
from runner.inputs import sweep_inputs
from runner.limits import futex
from runner.results import ResultsDir, ResultsError, ResultsWriteError
from runner.sweep_options import SweepOptions


def sweep_command(a: SweepArgs) -> None:
    """The sweeps the options make (one per value of an `each` parameter: tick's --period), each
    here or in a guest of each --kernel; the label checked free before the machine is waited for
    or anything built, the versions installed once it is held (not beside a measurement)."""
    from runner import sweep as sweeping

    opts, install = sweep_options(a)
    if not a.kernels or any(is_host(k) for k in a.kernels):
        refuse_taken_label(opts.campaign.out, _label(opts))  # before waiting for the machine or building
    with machine(a.wait):  # installing a version unpacks toolchains: not beside a measurement
        opts = replace(opts, campaign=replace(opts.campaign, variants=install()))
        try:
            if skipped := sweeping.skipped(opts, refuse_all=True):
                names = ", ".join(skipped)
                err(f"memrun sweep: skipped, no {a.workload} workload in their manifest: {names}")
        except ValueError as e:
            raise InputError(str(e)) from None
        for one in sweeping.campaigns(opts):
            out = one.campaign.out
            for kernel in dict.fromkeys(a.kernels or ("host",)):
                sweep_here(one, out) if is_host(kernel) else sweep_in_guest(kernel, one, out)


def sweep_options(a: SweepArgs) -> tuple[SweepOptions, Callable[[], list[tasks.Variant]]]:
    """The sweep's options (no variants yet), every option checked first (a bad one: one line,
    exit 2), and the call that gives the variants, installing the versions chosen
    (runner.cli.versioning.versioned)."""
    from runner.shard import Shard

    n_list = a.n_list if a.n_list is not None else workloads.get(a.workload).default_ns or DEFAULT_NS
    try:
        ns, sleep, env_override = sweep_inputs(n_list, a.sleep_text, a.label, a.env_items)
        params = parameter_values(a.workload, a.given)
        shard = Shard.parse(a.shard_text) if a.shard_text is not None else None
    except ValueError as e:
        raise InputError(str(e)) from None
    check_raise_limits(a.raise_limits)
    check_futex_hash(a.futex_hash)
    out = ResultsDir(a.out_dir)
    check_kernels(a.kernels)
    install = versioned(select_variants(a.variant_names), bool(a.variant_names), a.version_items, a.preset)
    campaign = CampaignSettings(
        variants=[],
        out=out,
        workload=workloads.get(a.workload),  # the name resolved once, here at the edge
        params=params,
        interval=a.interval / 1000.0,
        futex_hash=a.futex_hash,
        raise_limits=a.raise_limits,
        label=a.label.strip() if a.label else futex.label(socket.gethostname(), a.futex_hash),
        jobs=a.jobs,
        resume=a.resume,
    )
    memory_cap = resolve_memory_cap(a.memory_cap, log=err)
    opts = SweepOptions(campaign, ns, sleep, a.repeat, a.timeout, memory_cap, env_override, shard=shard)
    return opts, install


def _label(opts: SweepOptions) -> str:
    """The label the command's sweep stores (sweep_options always names one: --label, else the
    host name with --futex-hash's suffix)."""
    assert opts.campaign.label is not None
    return opts.campaign.label


def sweep_in_guest(kernel: str, opts: SweepOptions, out: ResultsDir) -> None:
    """The same cells in a VM of the kernel (runner.vm): built here first, run there."""
    from runner import sweep as sweeping
    from runner.vm.guest import guest_args

    try:
        sweeping.prepare(opts, log=err)
    except ResultsError as e:
        raise InputError(str(e)) from None
    in_guest(kernel, "sweep", guest_args(given_args()), out, _label(opts), opts.memory_cap)


def sweep_here(opts: SweepOptions, out: ResultsDir) -> None:
    """The sweep on this machine, its progress on stderr; nothing finished is lost on Ctrl-C."""
    from runner import sweep as sweeping
    from runner.cli.progress import SweepPrinter
    from runner.show.story import sweep_ended, write_failed

    try:
        opts = sweeping.prepare(opts, log=err)
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
