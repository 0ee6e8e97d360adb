"""The `memrun` command line: parse, call the library, print. No measuring logic lives here."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import socket
import sys
import warnings
from pathlib import Path

import click

from runner import __version__, tasks
from runner.inputs import SleepSpec, parse_n, parse_n_list
from runner.measure.launcher import LauncherError, ensure_launcher
from runner.options import INTERVAL_OPTION, MEMORY_CAP_OPTION, resolve_memory_cap, timeout_option
from runner.results import (
    METRICS,
    ResultsDir,
    ResultsError,
    ResultsWriteError,
    TornRecordWarning,
    load_records,
)
from runner.tasks import install


class InputError(click.ClickException):
    """Bad user input or a broken manifest: one line, exit status 2, no traceback."""

    exit_code = 2


class _Group(click.Group):
    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except tasks.ManifestError as e:
            raise InputError(f"task manifest: {e}") from None


def select_variants(names: tuple[str, ...] | list[str]) -> list[tasks.Variant]:
    """The named variants (all when none are named); an unknown name is an InputError."""
    known = tasks.load_all()
    if not names:
        return list(known.values())
    unknown = [n for n in names if n not in known]
    if unknown:
        raise InputError(f"unknown variant {', '.join(unknown)} (known: {', '.join(known)})")
    return [known[n] for n in dict.fromkeys(names)]


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="memrun")
def main() -> None:
    """memrun: how much memory does it cost to keep N concurrent tasks alive in runtime X?

    Start with `memrun doctor` (what is installed), then `memrun sweep` (measure),
    `memrun report` / `memrun plot` (show stored results), `memrun limits` (why threads fail).
    """
    recover()


def recover() -> None:
    """Before any command: undo what a memrun killed mid-run left behind (as root; a user cannot
    have raised limits or made run cgroups). Each thing undone is said in one line."""
    if os.geteuid() != 0:
        return
    from runner.limits import journal
    from runner.measure import cgroups

    journal.recover(log=_err)
    removed = cgroups.remove_stale()
    if removed:
        _err(f"memrun: removed {len(removed)} run cgroup(s) left by a memrun that is gone")


@main.command(
    context_settings={"ignore_unknown_options": True}, short_help="Measure one command's peak memory."
)
@timeout_option("Kill the whole process tree after this many seconds.")
@INTERVAL_OPTION
@MEMORY_CAP_OPTION
@click.option(
    "--cgroup",
    type=click.Choice(["auto", "v2", "v1", "none"]),
    default="auto",
    show_default=True,
    help="Memory cgroup backend for the exact whole-tree peak.",
)
@click.option("--json", "as_json", is_flag=True, help="Print every figure, with the timeline, as JSON.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def measure(
    timeout: float | None,
    interval: float,
    memory_cap: int | str,
    cgroup: str,
    as_json: bool,
    command: tuple[str, ...],
) -> None:
    """Measure the peak memory of one command:  memrun measure [OPTIONS] -- CMD [ARGS...]

    The command is run directly (never through a shell) via a tiny launcher, so the figures are
    the command's own and not inherited from memrun. Reported: peak RSS of the process tree
    (headline; kernel high-water marks, or the sampled tree sum when larger), the peak of a fresh
    memory cgroup holding the whole run (includes kernel memory such as thread stacks), wall and
    CPU time, exit status or signal, when `ready N` was printed, and the tail of stderr.

    Exit status: 0 when the command exited 0, 1 when it failed, timed out or was killed.
    """
    from runner.measure import measure as measure_run
    from runner.show.runtext import format_run

    try:
        result = measure_run(
            list(command),
            timeout=timeout,
            interval=interval / 1000.0,
            cgroup=cgroup,
            memory_cap=resolve_memory_cap(memory_cap),
        )
    except LauncherError as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=1))
    else:
        click.echo(format_run(result))
    sys.exit(0 if result.ok else 1)


@main.command(short_help="Check toolchains, versions and builds per variant.")
@click.argument("variants", nargs=-1)
def doctor(variants: tuple[str, ...]) -> None:
    """Say, per variant, whether its toolchain is here, its versions, and whether it is built.

    Where something is missing the row says the exact fix. Exit status 1 when a requested variant
    (default: all) cannot be used here.
    """
    chosen = select_variants(variants)
    try:
        click.echo(f"launcher     ok ({ensure_launcher()})")
    except LauncherError as e:
        click.echo(f"launcher     MISSING: {e}")
    from runner.measure import cgroups

    version, parent, reason = cgroups.detect()
    click.echo(f"cgroup       {f'{version} under {parent}' if version else f'none: {reason}'}")
    bad = 0
    width = max(len(v.name) for v in chosen) + 1
    for v in chosen:
        r = tasks.readiness(v)
        versions = ", ".join(f"{k} {val}" for k, val in r.versions().items())
        if r.usable:
            built = "built" if tasks.is_built(v) else f"not built (memrun build {v.name})"
            click.echo(f"{v.name:<{width}} ready    {built}; {versions}")
        else:
            bad += 1
            click.echo(f"{v.name:<{width}} MISSING  {'; '.join(r.problems)}")
            click.echo(f"{'':<{width}}          fix: {v.folder.install or 'see ' + str(v.folder.manifest)}")
            for argv in install.commands(v.folder):
                click.echo(f"{'':<{width}}          memrun setup runs: {shlex.join(argv)}")
    if bad:
        raise SystemExit(1)


@main.command(short_help="Build task programs into build/.")
@click.argument("variants", nargs=-1)
@click.option("--force", is_flag=True, help="Rebuild even when up to date.")
def build(variants: tuple[str, ...], force: bool) -> None:
    """Build task programs (default: all) into build/, skipping what is up to date."""
    failed = tasks.build_all(select_variants(variants), log=_err, force=force)
    if failed:
        raise click.ClickException(f"build failed for {', '.join(failed)}")


def _err(line: str) -> None:
    click.echo(line, err=True)


@main.command(short_help="Install missing toolchains, then build.")
@click.argument("variants", nargs=-1)
def setup(variants: tuple[str, ...]) -> None:
    """Install missing toolchains (apt and pip, as root) and build the task programs.

    Idempotent: installs only what `memrun doctor` reports missing. What no package here provides
    (rustup, say) is printed with its install command.
    """
    chosen = select_variants(variants)
    problems = install.install(chosen, log=click.echo)
    for p in problems:
        click.echo(f"cannot install: {p}", err=True)
    usable = [v for v in chosen if tasks.readiness(v).usable]
    failed = tasks.build_all(usable, log=_err)
    if failed:
        raise click.ClickException(f"build failed for {', '.join(failed)}")
    if len(usable) < len(chosen):
        missing = ", ".join(v.name for v in chosen if v not in usable)
        raise click.ClickException(f"not usable here: {missing} (see memrun doctor)")


@main.command(short_help="Measure every variant at every N and store the runs.")
@click.option(
    "--n",
    "n_list",
    default="1,1e4,1e5,1e6",
    show_default=True,
    help="Task counts, comma-separated: 1e4, 10k, 10_000 and 10000 all mean ten thousand.",
)
@click.option(
    "-r",
    "--variant",
    "variant_names",
    multiple=True,
    help="Variant to run (repeatable; default: all). See `memrun doctor`.",
)
@click.option(
    "--sleep",
    "sleep_text",
    default="10",
    show_default=True,
    help="Seconds each task sleeps, or 'auto' (10 s, or auto:S to start at S s): a run whose "
    "spawning outlasted the sleep is run again with a sleep of twice the spawn time, rounded up to "
    "5 s (the row records the sleep used).",
)
@click.option(
    "--repeat",
    type=click.IntRange(1, 100),
    default=1,
    show_default=True,
    help="Runs per (variant, N); the report gives median and min-max.",
)
@click.option(
    "--out",
    "out_dir",
    default="results",
    show_default=True,
    type=click.Path(file_okay=False),
    help="Results directory; runs are appended to OUT/runs.jsonl as each one ends.",
)
@click.option("--resume", is_flag=True, help="Run only the cells OUT does not hold yet.")
@click.option(
    "--label",
    default=None,
    help="Name stored in every run (default: the host name); `report`, `plot` and `compare` never "
    "pool runs of different labels into one median.",
)
@timeout_option("Kill a run after this many seconds [default: 2 x sleep + 90].")
@INTERVAL_OPTION
@MEMORY_CAP_OPTION
@click.option(
    "--wait",
    is_flag=True,
    help="If another measurement holds the machine, wait for it instead of exiting with status 2.",
)
@click.option(
    "--raise-limits",
    is_flag=True,
    help="(root) Raise kernel.pid_max, threads-max, vm.max_map_count and RLIMIT_NPROC to "
    "what the largest N needs; every value is put back afterwards.",
)
def sweep(
    n_list: str,
    variant_names: tuple[str, ...],
    sleep_text: str,
    repeat: int,
    out_dir: str,
    resume: bool,
    label: str | None,
    timeout: float | None,
    interval: float,
    memory_cap: int | str,
    wait: bool,
    raise_limits: bool,
) -> None:
    """Measure every variant at every N: build, run each cell once at a time, store each run.

    A run counts (verdict "valid") only if it exited 0 and printed `ready N` before the sleep
    ran out, so that all N tasks were alive at once. Failed and invalid runs are stored with
    their reason and a remedy, never as figures. Show results with `memrun report` / `memrun plot`.
    """
    from runner import sweep as sweeping

    try:
        ns = parse_n_list(n_list)
    except ValueError as e:
        raise InputError(f"--n: {e}") from None
    try:
        sleep = SleepSpec.parse(sleep_text)
    except ValueError as e:
        raise InputError(str(e)) from None
    if label is not None and not label.strip():
        raise InputError("--label must not be empty")
    if raise_limits and os.geteuid() != 0:
        raise InputError("--raise-limits needs root (it writes /proc/sys); see `memrun limits --n N`")
    out = ResultsDir(out_dir)
    opts = sweeping.SweepOptions(
        variants=select_variants(variant_names),
        ns=ns,
        sleep=sleep,
        repeat=repeat,
        out=out,
        resume=resume,
        timeout=timeout,
        interval=interval / 1000.0,
        raise_limits=raise_limits,
        memory_cap=resolve_memory_cap(memory_cap),
        label=label.strip() if label else socket.gethostname(),
    )
    with _machine(wait):
        _sweep(opts, out)


@contextlib.contextmanager
def _machine(wait: bool):  # type: ignore[no-untyped-def]
    """The machine-wide measurement lock, or exit 2 naming who holds it."""
    from runner import lock

    try:
        with lock.measuring(log=_err, wait=wait):
            yield
    except lock.Busy as e:
        raise InputError(str(e)) from None


def _sweep(opts, out: ResultsDir) -> None:  # type: ignore[no-untyped-def]
    from runner import sweep as sweeping
    from runner.show.progress import SweepPrinter

    try:
        sweeping.prepare(opts, log=_err)
    except ResultsError as e:
        raise InputError(str(e)) from None
    except ResultsWriteError as e:
        raise click.ClickException(_write_failed(e, out)) from None
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
        raise click.ClickException(_write_failed(e, out)) from None
    except OSError as e:  # a limit that cannot be raised
        printer.clear()
        raise click.ClickException(f"sweep stopped, finished runs are kept in {out.path}: {e}") from None
    printer.clear()
    ratio = end["total_wall_s"] / end["programs_wall_s"] if end["programs_wall_s"] else float("nan")
    click.echo(
        f"done: {end['cells_run']} cell(s) in {end['total_wall_s']:.0f} s "
        f"(programs' own wall time {end['programs_wall_s']:.0f} s, ratio {ratio:.3f}); "
        f"results in {out.path}; next: memrun report {out.path}  /  memrun plot {out.path}"
    )


@main.command(short_help="Find how many concurrent tasks fit in a memory budget.")
@click.option(
    "--memory",
    "budgets_text",
    required=True,
    help="Memory budgets, comma-separated: 256MiB,1GiB (sizes as for --memory-cap).",
)
@click.option("-r", "--variant", "variant_names", multiple=True, help="Variant (repeatable; default: all).")
@click.option(
    "--out",
    "out_dir",
    default="results",
    show_default=True,
    type=click.Path(file_okay=False),
    help="Results directory: every probe run goes to OUT/runs.jsonl, each result to OUT/capacity.jsonl.",
)
@click.option(
    "--from",
    "history",
    multiple=True,
    type=click.Path(exists=True, file_okay=False),
    help="Results of earlier sweeps to predict the start of each search from [default: OUT itself]; "
    "without any, two calibration runs (N=1 and N=10000) under the cap predict it.",
)
@click.option("--resume", is_flag=True, help="Reuse the probes and results OUT holds; run only the rest.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per (variant, budget).")
@INTERVAL_OPTION
@click.option("--raise-limits", is_flag=True, help="(root) Raise thread limits for thread-per-task variants.")
@click.option("--wait", is_flag=True, help="Wait for another measurement to finish instead of exiting 2.")
def capacity(
    budgets_text: str,
    variant_names: tuple[str, ...],
    out_dir: str,
    history: tuple[str, ...],
    resume: bool,
    as_json: bool,
    interval: float,
    raise_limits: bool,
    wait: bool,
) -> None:
    """For each variant and budget, the largest N whose run is valid in a memory cgroup capped at
    the budget (swap excluded), found by real runs: a prediction, a bracket, then bisection to
    within 2 %. Every probe is stored; Ctrl-C keeps them and --resume continues the search.
    """
    from runner import capacity as searching
    from runner.show.capacity import capacity_json_lines, capacity_markdown

    budgets = _budgets(budgets_text)
    if raise_limits and os.geteuid() != 0:
        raise InputError("--raise-limits needs root (it writes /proc/sys)")
    out = ResultsDir(out_dir)
    try:
        out.check_writable()
        past = [p for p in map(Path, history or (out_dir,)) if (p / "runs.jsonl").exists()]
        records = [r for _, r in load_records(past)] if past else []
    except ResultsError as e:
        raise InputError(str(e)) from None
    opts = searching.CapacityOptions(
        variants=select_variants(variant_names),
        budgets=budgets,
        out=out,
        history=records,
        resume=resume,
        interval=interval / 1000.0,
        raise_limits=raise_limits,
    )
    with _machine(wait):
        failed = tasks.build_all([v for v in opts.variants if tasks.readiness(v).usable], log=_err)
        opts.variants = [
            v for v in opts.variants if tasks.readiness(v).usable and v.folder.name not in failed
        ]
        try:
            results = searching.run_capacity(opts, _capacity_progress())
        except KeyboardInterrupt:
            click.echo(f"interrupted: every probe is kept in {out.path}; continue with --resume", err=True)
            sys.exit(130)
    rows = [r.to_json() for r in results]
    click.echo(capacity_json_lines(rows) if as_json else capacity_markdown(out.existing_capacity()), nl=False)


def _budgets(text: str) -> list[int]:
    from runner.inputs import parse_size
    from runner.limits.host import default_memory_cap

    try:
        budgets = [parse_size(t) for t in text.split(",")]
    except ValueError as e:
        raise InputError(f"--memory: {e}") from None
    if len(set(budgets)) < len(budgets):
        raise InputError(f"--memory: a budget is given more than once in {text!r}")
    spare = default_memory_cap()
    if spare is not None and max(budgets) > spare:
        raise InputError(
            f"--memory: {max(budgets):,} bytes is more than this machine can spare ({spare:,} bytes: "
            "MemAvailable minus a reserve); a capacity run that large could take the host down"
        )
    return sorted(budgets)


def _capacity_progress():  # type: ignore[no-untyped-def]
    from runner.capacity import CapacityProgress
    from runner.show.capacity import budget_label

    def on_probe(variant: str, budget: int, record, ok: bool) -> None:  # type: ignore[no-untyped-def]
        what = "valid" if ok else f"{record.verdict}: {record.reason}"
        _err(f"  {variant} in {budget_label(budget)}: N={record.n:,} {what}"[:160])

    def on_result(result, i: int, total: int) -> None:  # type: ignore[no-untyped-def]
        _err(
            f"[{i}/{total}] {result.variant} in {budget_label(result.budget_bytes)}: "
            f"{result.max_n:,} tasks fit ({result.probes} probes; then {result.stopped_by})"
        )

    return CapacityProgress(on_probe=on_probe, on_result=on_result, log=_err)


def _write_failed(e: ResultsWriteError, out: ResultsDir) -> str:
    n = out.runs_added
    kept = "no run had finished" if not n else f"the {n} finished run{'s are' if n > 1 else ' is'} kept"
    return f"sweep stopped: {e}; {kept}; {e.remedy}, then run the same command with --resume"


def _load(results: tuple[str, ...]):
    from runner.results.store import load_sweeps
    from runner.results.summary import load_runs

    paths = [Path(p) for p in (results or ("results",))]
    error = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TornRecordWarning)
        try:
            loaded = load_runs(paths), load_sweeps(paths)
        except ResultsError as e:
            error = e
    for w in caught:  # a torn last record is one line, and the table still follows
        if issubclass(w.category, TornRecordWarning):
            _err(f"warning: {w.message}")
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    if error is not None:
        raise InputError(str(error))
    return loaded


METRIC_HELP = "Memory figure to show: " + "; ".join(f"{k} = {v}" for k, v in METRICS.items())


@main.command(short_help="Draw figures from stored results.")
@click.argument("results", nargs=-1, type=click.Path())
@click.option(
    "--out",
    "out_dir",
    default="plots",
    show_default=True,
    type=click.Path(file_okay=False),
    help="Directory for the PNG and SVG figures.",
)
@click.option(
    "--metric", type=click.Choice(list(METRICS)), default="peak_rss", show_default=True, help=METRIC_HELP
)
def plot(results: tuple[str, ...], out_dir: str, metric: str) -> None:
    """Draw figures from stored results (default: results/); never runs a task program.

    One bar chart per N, a log-log chart of memory against N, and the per-task cost
    (M(N) - M(1)) / N. Cells without a valid run are drawn with their reason, never as zero.
    """
    runs, sweeps = _load(results)
    from runner.show.labelled import plot as plot_labelled

    try:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        written, note = plot_labelled(runs, sweeps, Path(out_dir), metric)
    except OSError as e:
        raise InputError(f"cannot write figures to {out_dir}: {e.strerror}") from None
    except ValueError as e:
        raise InputError(str(e)) from None
    if note:
        _err(f"memrun plot: {note} Figures per label." if "labels" in note else f"memrun plot: {note}")
    for path in written:
        click.echo(str(path))


@main.command(short_help="Print the variants x N table from stored results.")
@click.argument("results", nargs=-1, type=click.Path())
@click.option(
    "--format", "fmt", type=click.Choice(["md", "csv", "json", "html"]), default="md", show_default=True
)
@click.option(
    "--metric", type=click.Choice(list(METRICS)), default="peak_rss", show_default=True, help=METRIC_HELP
)
@click.option(
    "-o", "--output", type=click.Path(), default=None, help="Write to this file instead of standard output."
)
def report(results: tuple[str, ...], fmt: str, metric: str, output: str | None) -> None:
    """Print the table variants x N from stored results (default: results/).

    Per cell: median MB (min-max and a flag when repeats spread over 5 %), KiB per task, time
    until all N tasks were spawned, and the verdict with its reason where no run was valid.
    Several labels (machines) get one column group each; their runs are never pooled.

    --format html -o report.html writes one self-contained page (figures inline as SVG, no
    network or JavaScript needed): table, causes, bar charts, log-log and per-task charts,
    machines, versions and the exact commands.
    """
    from runner.show.output import check_writable, write_text

    try:
        if output:
            check_writable(Path(output))
    except OSError as e:
        raise InputError(str(e)) from None
    runs, sweeps = _load(results)
    from runner.show import html, labelled

    try:
        if fmt == "html":
            text = html.page(runs, sweeps, metric)
        else:
            text = labelled.report(runs, fmt, metric, sweeps)
        if not output:
            click.echo(text, nl=fmt != "html")
            return
        write_text(Path(output), text if fmt == "html" else text + "\n")
    except OSError as e:
        raise InputError(str(e) if e.strerror is None else f"cannot write {output}: {e.strerror}") from None
    except ValueError as e:
        raise InputError(str(e)) from None
    click.echo(output)


@main.command(short_help="Compare two results directories cell by cell; exit 1 on a regression.")
@click.argument("base", type=click.Path())
@click.argument("other", type=click.Path())
@click.option(
    "--metric", type=click.Choice(list(METRICS)), default="peak_rss", show_default=True, help=METRIC_HELP
)
@click.option(
    "--threshold",
    default="5%",
    show_default=True,
    help="Smallest change that counts, as a percentage of BASE (and only beyond the repeats' spread).",
)
@click.option("--format", "fmt", type=click.Choice(["md", "csv", "json"]), default="md", show_default=True)
def compare(base: str, other: str, metric: str, threshold: str, fmt: str) -> None:
    """Compare OTHER against BASE, two results directories (one label each), per (variant, N).

    Both medians (min-max), the ratio OTHER / BASE and a verdict: significant when the ranges
    [min, max] do not overlap and the ratio differs from 1 by more than the threshold; then
    smaller (better) or larger (worse), else not significant. Toolchain versions that differ
    are shown. Exit status 1 when any cell is larger, or has a figure in BASE but none in OTHER,
    so a CI job can guard a runtime upgrade; 0 otherwise; 2 on bad input.
    """
    from runner.show import compare as comparing

    try:
        limit = comparing.parse_threshold(threshold)
        result = comparing.compare_dirs(Path(base), Path(other), metric, limit)
    except ValueError as e:  # ResultsError included
        raise InputError(str(e)) from None
    click.echo(comparing.render(result, fmt), nl=False)
    sys.exit(1 if result.worse else 0)


@main.command("limits", short_help="Show thread/process limits and who hits them.")
@click.option("--n", "n_text", default=None, help="Check this N (e.g. 1e5): which variant hits which limit.")
@click.option(
    "--restore",
    is_flag=True,
    help="(root) Put back kernel limits that a memrun killed mid-sweep left raised (from its journal).",
)
@click.argument("variants", nargs=-1)
def limits_command(n_text: str | None, restore: bool, variants: tuple[str, ...]) -> None:
    """Show the limits that bound threads and processes here, and which variants hit them.

    pid_max, threads-max, vm.max_map_count, RLIMIT_NPROC, RLIMIT_STACK, cgroup pids.max, memory
    and overcommit. With --n, each variant that needs an OS thread per task is checked against
    them, with the exact command that lifts the limit (or use `memrun sweep --raise-limits`).
    """
    from runner.show.limits import limits_report

    if restore:
        _restore_limits()
        return
    n = None
    if n_text is not None:
        try:
            n = parse_n(n_text)
        except ValueError as e:
            raise InputError(f"--n: {e}") from None
    click.echo(limits_report(n, select_variants(variants)))


def _restore_limits() -> None:
    from runner.limits import journal

    found = journal.read()
    if found is None:
        click.echo("nothing to restore: no memrun has raised limits here without putting them back")
        return
    owner, _entries = found
    if owner.pid and owner.alive():
        raise click.ClickException(
            f"memrun {owner.describe()} is running and holds the raised limits; it restores them "
            "when it ends (stop it with Ctrl-C or kill, not kill -9)"
        )
    if os.geteuid() != 0:
        raise InputError("restoring kernel limits needs root (it writes /proc/sys)")
    journal.recover(log=click.echo, force=True)


def run() -> None:
    """Console entry point: every user error is one line on stderr with exit status 2."""
    try:
        status = main.main(standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as e:
        click.echo(e.format_message(), err=True)
        sys.exit(2)
    except click.UsageError as e:  # bad option or argument: one line, not the usage block
        where = f"memrun {e.ctx.info_name}: " if e.ctx and e.ctx.parent else ""
        click.echo(f"Error: {where}{e.format_message()}", err=True)
        sys.exit(2)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except (click.Abort, KeyboardInterrupt):
        click.echo("interrupted", err=True)
        sys.exit(130)
    sys.exit(status if isinstance(status, int) else 0)
