"""`memrun capacity`: how many concurrent tasks fit in a memory budget."""

from __future__ import annotations

import click

from runner.cli.campaign_options import campaign_command, command_args, run_options
from runner.cli.capacity_options import CapacityArgs, search_options
from runner.cli.kernels import kernel_option
from runner.cli.options import out_option
from runner.cli.sweep_options import jobs_option


@campaign_command("Find how many concurrent tasks fit in a memory budget.", lambda w: w.capacity_help)
@click.option(
    "--memory",
    "budgets_text",
    required=True,
    help="Memory budgets, comma-separated: 256MiB,1GiB (sizes as for --memory-cap).",
)
@click.option("-r", "--variant", "variant_names", multiple=True, help="Variant (repeatable; default: all).")
@out_option("Results directory: every probe run goes to OUT/runs.jsonl, each result to OUT/capacity.jsonl.")
@search_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per (variant, budget).")
@run_options
@click.option(
    "--raise-limits",
    is_flag=True,
    help="(root) Raise thread limits for thread-per-task variants (and, for connections, the limits "
    "`memrun limits --workload connections` lists) to what the largest budget can hold.",
)
@click.option("--wait", is_flag=True, help="Wait for another measurement to finish instead of exiting 2.")
@click.option(
    "--label",
    default=None,
    help="Stored with every probe and answer (default: the host name); answers of different labels "
    "are never pooled, and a search counts only the stored runs of its own.",
)
@kernel_option("each search")
@jobs_option("probes")
def capacity(**args: object) -> None:
    """For each variant and budget, the largest N that fits in a memory cgroup capped at the budget
    (swap excluded): `ready N` in time and every task held under the cap until its sleep was over,
    nothing OOM-killed. A probe whose threads then stop ending is stopped there and fits, with the
    stall named (a capacity answers "does it fit"; a sweep, "did it run").

    The answer comes from every stored run of the same program, runtime versions, label and budget
    (searches, checks, sweeps under the same cap): max N fitted in every run there, at least twice
    (three times once runs have passed and failed at random, and then a 5 % step below the first
    failure), with no failure at or below it, within 2 % of the first failing N (5 % once noisy).
    What the stored runs do not settle is searched: a prediction from stored sweeps (or the answer
    stored for an earlier program), steps along the line the fitting probes' memory draws, and
    bisection. Each search prints its cost against its floor (the fitting runs at max N the answer
    needs and the failing run at the first failing N). Each probe sleeps 1.5 x the spawn time
    expected at its N (at least 2 s) and is stopped if `ready N` has not come by then; such a
    probe, if its memory or threads were still growing, is run once more with twice the sleep, so
    that a capacity is not an artefact of a short sleep. Every probe is stored; Ctrl-C keeps them,
    and the next search counts them. --check re-measures the answers.

    Where no memory cgroup can be capped (no root and no delegated cgroup), it refuses with exit
    status 2 before any probe: an answer found without a cap would be false.

    --kernel K runs the searches in a VM of that Debian kernel (as `sweep --kernel` does), with the
    stored runs of OUT to count and its answers stored under LABEL@RELEASE.
    """
    from runner.cli.capacity_here import capacity_command

    capacity_command(command_args(CapacityArgs, args))
