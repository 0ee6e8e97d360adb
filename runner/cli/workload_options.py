"""The `--workload` option and each workload's own options (its parameters), with help texts built
from the registered workloads' own words: a workload gains its lines in `--help` without a CLI edit."""

from __future__ import annotations

from collections.abc import Callable

import click

from runner import workload as workloads


def _known() -> list[workloads.Workload]:
    return [workloads.get(name) for name in workloads.names()]


# The help texts on workloads come from the registered workloads' own words, so a new one is listed.
WORKLOAD_HELP = (
    "What each program keeps alive: "
    + "; ".join(f"'{w.name}' = {w.about}" for w in _known())
    + ". Only variants whose manifest has the workload run it ([variant.workloads.NAME] in task.toml)."
)


def workloads_epilog(part: Callable[[workloads.Workload], str]) -> str:
    """A command's closing paragraphs on what it does under each workload, one paragraph each
    (part: which of its texts, e.g. its sweep_help)."""
    return "\n\n".join(text for w in _known() if (text := part(w)))


def workload_option(help_text: str = WORKLOAD_HELP):  # type: ignore[no-untyped-def]
    return click.option(
        "--workload",
        type=click.Choice(list(workloads.names())),
        default=workloads.DEFAULT,
        show_default=True,
        help=help_text,
    )


def workload_parameters(f):  # type: ignore[no-untyped-def]
    """One option per parameter of every known workload (runner.workload.Parameter), named and
    explained by the workload: the command receives them as keyword arguments (None: not given),
    and a workload gains an option without an edit here."""
    for name in reversed(workloads.names()):
        for p in reversed(workloads.get(name).parameters):
            f = click.option(
                p.option,
                p.name,
                default=None,
                metavar=p.metavar,
                help=f"{name}: {p.help} [default: {p.default}]",
            )(f)
    return f


def parameter_values(workload: str, given: dict[str, str | None]) -> dict[str, object]:
    """The chosen workload's parameter values from the options given; an option of another
    workload's is a ValueError (it would be silently ignored)."""
    mine = workloads.get(workload)
    own = {p.name for p in mine.parameters}
    for name in workloads.names():
        for p in workloads.get(name).parameters:
            if p.name not in own and given.get(p.name) is not None:
                raise ValueError(f"{p.option} is a parameter of --workload {name}, not of {workload}")
    return mine.parse_parameters(given)


SHOWN_WORKLOAD_HELP = " ".join(
    [
        f"Which workload's runs to show: {', '.join(workloads.names())} ({workloads.DEFAULT} is the "
        f"default; rows stored before workloads existed are {workloads.DEFAULT} rows). A table or "
        "figure never mixes two workloads.",
        *(w.shown_help for w in _known() if w.shown_help),
    ]
)
