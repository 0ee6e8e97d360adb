"""`memrun capacity`'s options on what a search counts and settles: where its start is predicted
from, and whether stored answers are skipped, set aside or re-measured; and every option of the
command as it was given, typed (CapacityArgs)."""

from __future__ import annotations

from dataclasses import dataclass

import click


@dataclass(frozen=True)
class CapacityArgs:
    """`memrun capacity`'s options as given, one field per option by its click name (made by
    runner.cli.campaign_options.command_args; runner.cli.capacity_here.capacity_command runs
    them); given: the workload parameters (--buffer, --rate...; None: not given)."""

    budgets_text: str
    variant_names: tuple[str, ...]
    out_dir: str
    history: tuple[str, ...]
    resume: bool
    fresh: bool
    check: bool
    as_json: bool
    interval: float  # milliseconds
    raise_limits: bool
    wait: bool
    futex_hash: int | None
    workload: str
    label: str | None
    kernels: tuple[str, ...]
    jobs: int
    given: dict[str, str | None]


def search_options(f):  # type: ignore[no-untyped-def]
    """--from, --resume, --fresh and --check, in that order in `--help`."""
    f = click.option(
        "--check",
        is_flag=True,
        help="Re-measure each answer OUT holds (for these budgets and variants): its max N once (three "
        "times for a band) and 1.05 x its first failing N once, with the answer's sleep. The runs join "
        "the evidence; a failure at max N (or a fit past the first failure) lowers the answer, the search "
        "goes on until it is settled again, and the answer is stored again with the reason. Exit 1 "
        "unless every answer holds (a point: max N fits, 1.05 x first failing N does not; a band: max N "
        "fits in all three runs).",
    )(f)
    f = click.option(
        "--fresh",
        is_flag=True,
        help="Set aside the stored runs and answer of each boundary and start from the sweeps' line (or "
        "the smaller budget's answer): what a first search costs. Without it every stored run of the same "
        "program, runtime versions, label and budget counts (a search runs only what they do not settle), "
        "and an answer stored for an earlier program is the start, its first failing N the next probe.",
    )(f)
    f = click.option(
        "--resume",
        is_flag=True,
        help="Skip every (variant, budget) OUT already holds an answer for. (Every search counts the "
        "probes OUT holds anyway, an interrupted one's included, so nothing stored is run again needlessly.)",
    )(f)
    f = click.option(
        "--from",
        "history",
        multiple=True,
        type=click.Path(exists=True, file_okay=False),
        help="Results of earlier sweeps to predict the start of each search from [default: OUT itself]; "
        "without any, two calibration runs (N=1 and N=10000) under the cap predict it.",
    )(f)
    return f
