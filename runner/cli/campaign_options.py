"""What `memrun sweep` and `memrun capacity` declare alike, the two campaigns of runs: the command
itself (its closing paragraphs from every workload's own words), the options that say how each
of its runs is made (runner.campaign.CampaignSettings holds them for both), and the command's
arguments as its one typed args dataclass (command_args)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from runner import workload as workloads
from runner.cli.app import KeepsArgs, main
from runner.cli.options import FUTEX_HASH_OPTION, INTERVAL_OPTION
from runner.cli.workload_options import workload_option, workload_parameters, workloads_epilog


def campaign_command(
    short_help: str, part: Callable[[workloads.Workload], str]
) -> Callable[[Callable[..., Any]], Any]:
    """A campaign's command (its arguments kept for a guest: KeepsArgs), closed by what it does
    under each workload (part: which of a workload's texts, e.g. its sweep_help)."""
    return main.command(cls=KeepsArgs, short_help=short_help, epilog=workloads_epilog(part))


def run_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """--workload, --interval, --futex-hash and every workload's parameters (--buffer, --rate...),
    in that order in `--help`: the same options, the same defaults, for a sweep's runs and a
    capacity search's probes. The command gets the parameters as keyword arguments
    (workload_parameters), to pass with --workload to parameter_values()."""
    f = workload_parameters(f)
    for option in (FUTEX_HASH_OPTION, INTERVAL_OPTION, workload_option()):
        f = option(f)
    return f


Args = TypeVar("Args")


def command_args(cls: type[Args], args: Mapping[str, object]) -> Args:
    """A campaign command's arguments (click's, by their names) as its args dataclass (cls:
    runner.cli.sweep_options.SweepArgs, runner.cli.capacity_options.CapacityArgs): one field per
    option, and `given` the workload parameters (--buffer, --rate...; None: not given). An option
    without a field, or a field no option fills, is a TypeError at the command's first call
    instead of an argument passed along unread."""
    names = {f.name for f in dataclasses.fields(cls)} - {"given"}  # type: ignore[arg-type]
    parameters = {p.name for name in workloads.names() for p in workloads.get(name).parameters}
    given = {k: v for k, v in args.items() if k not in names}
    if stray := sorted(set(given) - parameters):
        raise TypeError(f"{cls.__name__} has no field {', '.join(stray)}")
    return cls(**{k: v for k, v in args.items() if k in names}, given=given)
