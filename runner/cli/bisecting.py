"""`memrun bisect VARIANT LIBRARY FROM..TO --n N`: which release changed the per-task cost.

The question, the search and the prober are runner.bisection's (each version probed is measured as
a sweep does it, in its own build folder, its runs at N=1 and N stored in --out as ordinary sweep
rows labelled VARIANT@VERSION, so `memrun report OUT` shows every version tried), the lines it
prints runner.show.bisection's; this module parses, and prints each figure as it comes, and the
summary. The whole search holds the measuring lock: builds disturb runs as much as runs do.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

import click

from runner.bisection import search
from runner.bisection.probe import Prober
from runner.cli.app import InputError, err, machine, main, select_variants
from runner.cli.kernels import check_kernels, is_host, kernel_option
from runner.cli.options import (
    INTERVAL_OPTION,
    MEMORY_CAP_OPTION,
    out_option,
    resolve_memory_cap,
    timeout_option,
)
from runner.cli.progress import SweepPrinter
from runner.cli.refusing import refused
from runner.results import METRICS, ResultsDir, ResultsError
from runner.show.bisection import probe_line, summary_lines

if TYPE_CHECKING:
    from runner.bisection.plan import Bisection


@main.command(short_help="Find the first version whose per-task cost at N changes.")
@click.argument("variant_name", metavar="VARIANT")
@click.argument("library", metavar="LIBRARY")
@click.argument("span", metavar="FROM..TO")
@click.option("--n", "n_text", required=True, help="The N whose per-task cost is compared (1e5, 100k…).")
@click.option(
    "--metric", type=click.Choice(list(METRICS)), default="peak_rss", show_default=True, help="Memory figure."
)
@click.option(
    "--threshold",
    default="10%",
    show_default=True,
    help="A version changed when its per-task cost differs from FROM's by more than this.",
)
@click.option(
    "--repeat",
    type=click.IntRange(1, 5),
    default=None,
    help="Runs at each N per version to start with [default: 1, or 3 where the manifest says the "
    "runtime's runs spread]; a verdict near the threshold gets more runs, up to 5.",
)
@click.option("--sleep", "sleep_text", default="10", show_default=True, help="As for sweep: seconds or auto.")
@out_option("Results directory: every run is stored as a sweep row (VARIANT@VERSION).")
@click.option("--label", default=None, help="Stored in every run (default: the host name).")
@timeout_option("Kill a run after this many seconds [default: 2 x sleep + 90].")
@INTERVAL_OPTION
@MEMORY_CAP_OPTION
@click.option(
    "--wait", is_flag=True, help="Queue behind another measurement instead of exiting with status 2."
)
@kernel_option("the search (each version's runs)")
def bisect(
    variant_name: str,
    library: str,
    span: str,
    n_text: str,
    metric: str,
    threshold: str,
    repeat: int | None,
    sleep_text: str,
    out_dir: str,
    label: str | None,
    timeout: float | None,
    interval: float,
    memory_cap: int | str,
    wait: bool,
    kernels: tuple[str, ...],
) -> None:
    """Find the first version of LIBRARY (a [versions.LIBRARY] table of VARIANT's task.toml: tokio,
    go, node…) between FROM and TO whose per-task cost at N, (M(N) - M(1)) / N, differs from FROM's
    by more than --threshold. Binary search over the versions the registry lists in the range: it
    builds only the versions it probes, at most ceil(log2(versions)) + 2 of them, and prints each
    version tried with its figures, then the first changed version.

    --kernel K searches in a VM of that Debian kernel: each version is built here and its runs are
    made in a guest (one boot per version probed), stored under LABEL@RELEASE; with several
    kernels, one search each.
    """
    from runner.bisection.plan import BisectError, plan

    with refused(BisectError):
        asked = plan(select_variants([variant_name])[0], library, span, n_text, threshold, sleep_text, repeat)
    check_kernels(kernels)
    out = ResultsDir(out_dir)
    click.echo(asked.header(metric))
    settings = Settings(timeout, interval / 1000.0, label, lambda: resolve_memory_cap(memory_cap, log=err))
    with machine(wait):
        for kernel in dict.fromkeys(kernels or ("host",)):
            _search(asked, metric, out, settings, kernel, several=bool(kernels))


class Settings(NamedTuple):
    """How each version's runs are made: as a sweep's options say."""

    timeout: float | None
    interval: float  # seconds
    label: str | None
    memory_cap: Callable[[], int | None]


def _search(
    chosen: Bisection, metric: str, out: ResultsDir, settings: Settings, kernel: str, several: bool
) -> None:
    """One search, here or in a guest of one kernel: each version's line as it is measured, then
    the summary. Interrupted: where the runs so far are, and exit status 130."""
    from runner.vm import VmError

    probe = Prober(
        chosen.variant,
        chosen.spec,
        chosen.n,
        metric,
        chosen.sleep,
        out,
        **settings._asdict(),
        command=" ".join(["memrun", *sys.argv[1:]]),
        log=err,
        progress=SweepPrinter,
        on_probe=lambda p: click.echo(probe_line(p, chosen.n, metric)),
        kernel=None if is_host(kernel) else kernel,
    )
    if several:
        click.echo(f"on {'this machine' if is_host(kernel) else 'kernel ' + kernel}:")
    try:
        outcome = search(chosen.versions, probe.measure, threshold=chosen.threshold, repeats=chosen.repeats)
    except (ResultsError, VmError) as e:
        raise InputError(str(e)) from None
    except KeyboardInterrupt:
        click.echo(f"interrupted: the runs so far are in {out.path}", err=True)
        sys.exit(130)
    for line in summary_lines(outcome, probe, chosen.spec.name, chosen.n, out):
        click.echo(line)
