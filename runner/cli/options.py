"""Click parameter types and options shared by several commands: one place decides what a valid
number, size or interval is, so every command rejects NaN, infinity and bad sizes alike."""

from __future__ import annotations

import math
from collections.abc import Callable

import click

from runner.inputs import parse_size


class FiniteFloat(click.FloatRange):
    """A FloatRange that also refuses NaN and infinity (NaN passes every range comparison)."""

    name = "number"

    def convert(self, value, param, ctx):  # type: ignore[no-untyped-def]
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


class MemoryCap(click.ParamType):
    """`auto` (default: what the machine can spare), `none`, or a size such as 512MiB, 1.5G."""

    name = "SIZE|auto|none"

    def convert(self, value, param, ctx):  # type: ignore[no-untyped-def]
        if isinstance(value, int) or value in ("auto", "none"):
            return value
        try:
            return parse_size(str(value))
        except ValueError as e:
            self.fail(str(e), param, ctx)


INTERVAL_OPTION = click.option(
    "--interval",
    type=FiniteFloat(min=1),
    default=50.0,
    show_default=True,
    help="Milliseconds between samples of the process tree (the timeline's resolution).",
)


def out_option(help_text: str, default: str = "results"):  # type: ignore[no-untyped-def]
    """--out: where a command writes (results for the measuring ones, figures for the showing
    ones); each command says what goes there."""
    return click.option(
        "--out",
        "out_dir",
        default=default,
        show_default=True,
        type=click.Path(file_okay=False),
        help=help_text,
    )


def timeout_option(help_text: str):  # type: ignore[no-untyped-def]
    return click.option("--timeout", type=FiniteFloat(min=0, min_open=True), default=None, help=help_text)


MEMORY_CAP_OPTION = click.option(
    "--memory-cap",
    type=MemoryCap(),
    default="auto",
    show_default=True,
    help="Memory limit of each run's cgroup (swap excluded): a size such as 512MiB, 1GiB or 1.5G, "
    "'none', or 'auto' = MemAvailable at start minus a reserve (1 GiB or 10 % of RAM, whichever is "
    "larger). A run past it is stopped inside its cgroup, never by the host's OOM killer.",
)


def resolve_memory_cap(value: int | str, log: Callable[[str], None] | None = None) -> int | None:
    """The option's value in bytes: None for 'none', the machine's default for 'auto'.

    A cap that cannot be set is never silently dropped: a size the user gave is refused (exit 2);
    the 'auto' default, which only guards the host, is dropped with one line through log.
    """
    if value == "none":
        return None
    from runner.measure import cgroups

    problem = cgroups.cap_problem()
    if problem and value != "auto":
        raise click.UsageError(f"--memory-cap {value} cannot be applied here: {problem}")
    if problem:
        if log:
            log(
                "memrun: host protection is off: runs are not capped, so one that outgrows the "
                f"machine meets the host's OOM killer ({problem})"
            )
        return None
    if value == "auto":
        from runner.limits.host import default_memory_cap

        return default_memory_cap()
    return int(value)


FUTEX_HASH_OPTION = click.option(
    "--futex-hash",
    "futex_hash",
    type=int,
    default=None,
    metavar="SLOTS",
    help="(Linux 6.16+) Every process of a run asks the kernel for a futex hash of SLOTS buckets "
    "(a power of two, e.g. 131072) instead of the default sized from the CPUs (16 on 2 CPUs), "
    "which makes each start of a thread slower the more threads sleep in futex waits. Recorded "
    "with each run; the default label gains '+futex-hash-SLOTS', so such runs are never pooled "
    "with plain ones.",
)
