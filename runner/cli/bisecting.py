"""`memrun bisect VARIANT LIBRARY FROM..TO --n N`: which release changed the per-task cost.

The search and the prober are runner.bisection's (each version probed is measured as a sweep does it,
in its own build folder, its runs at N=1 and N stored in --out as ordinary sweep rows labelled
VARIANT@VERSION, so `memrun report OUT` shows every version tried); this module parses, prints each
figure as it comes, and the summary. The whole search holds the measuring lock: builds disturb
runs as much as runs do.
"""

from __future__ import annotations

import sys

import click

from runner.bisection import Outcome, search
from runner.bisection.probe import Prober
from runner.cli.app import InputError, err, machine, main, select_variants
from runner.cli.bisect_lines import probe_line, summary_lines
from runner.cli.kernels import check_kernels, is_host, kernel_option
from runner.cli.options import (
    INTERVAL_OPTION,
    MEMORY_CAP_OPTION,
    out_option,
    resolve_memory_cap,
    timeout_option,
)
from runner.cli.progress import SweepPrinter
from runner.inputs import SleepSpec, parse_n
from runner.results import METRICS, ResultsDir, ResultsError


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
    from runner.analysis.compare import parse_threshold
    from runner.tasks import registry
    from runner.vm import VmError

    variant = select_variants([variant_name])[0]
    spec = variant.folder.versions.get(library)
    if spec is None or not spec.applies_to(variant.name):
        axes = [n for n, s in variant.folder.versions.items() if s.applies_to(variant.name)]
        raise InputError(
            f"{variant.name} has no version axis {library!r} (its axes: {', '.join(axes) or 'none'})"
        )
    low, sep, high = span.partition("..")
    if not sep or not low or not high:
        raise InputError(f"expected FROM..TO (e.g. 1.20.0..1.54.1), got {span!r}")
    try:
        n = parse_n(n_text)
        limit = parse_threshold(threshold)
        sleep = SleepSpec.parse(sleep_text)
        ends = [registry.choose(variant.folder, spec, v)[0] for v in (low, high)]
        versions = registry.choose(variant.folder, spec, f"{ends[0]}..{ends[1]}")
    except registry.RegistryError as e:
        raise InputError(str(e)) from None
    except ValueError as e:
        raise InputError(str(e)) from None
    if n < 2:
        raise InputError("--n must be at least 2: the per-task cost compares N with N=1")
    check_kernels(kernels)
    versions = sorted({*versions, *ends}, key=registry.key)
    runs = repeat or (3 if variant.spread else 1)
    out = ResultsDir(out_dir)
    click.echo(
        f"bisect {variant.name}: {spec.name} {versions[0]} .. {versions[-1]}, {len(versions)} releases "
        f"in the registry's list; per-task {metric} at N={n:,}, threshold {limit:.0%}; "
        f"at most {Outcome(versions, limit).bound} builds"
    )
    with machine(wait):
        for kernel in dict.fromkeys(kernels or ("host",)):
            probe = Prober(
                variant,
                spec,
                n,
                metric,
                sleep,
                out,
                timeout=timeout,
                interval=interval / 1000.0,
                label=label,
                memory_cap=lambda: resolve_memory_cap(memory_cap, log=err),
                command=" ".join(["memrun", *sys.argv[1:]]),
                log=err,
                progress=SweepPrinter,
                on_probe=lambda p: click.echo(probe_line(p, n, metric)),
                kernel=None if is_host(kernel) else kernel,
            )
            if kernels:
                click.echo(f"on {'this machine' if is_host(kernel) else 'kernel ' + kernel}:")
            try:
                outcome = search(versions, probe.measure, threshold=limit, repeats=runs)
            except (ResultsError, VmError) as e:
                raise InputError(str(e)) from None
            except KeyboardInterrupt:
                click.echo(f"interrupted: the runs so far are in {out.path}", err=True)
                sys.exit(130)
            for line in summary_lines(outcome, probe, spec.name, n, out):
                click.echo(line)
