"""What `memrun sweep` and `memrun capacity` declare alike, the two campaigns of runs: the command
itself (its closing paragraphs from every workload's own words) and the options that say how each
of its runs is made, which runner.execute.campaign_settings() reads for both."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
