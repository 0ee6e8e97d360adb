"""Measuring commands: one command (measure), every variant at every N (sweep)."""

from __future__ import annotations

import json
import socket
import sys

import click

from runner.cli.app import (
    InputError,
    check_futex_hash,
    check_raise_limits,
    err,
    machine,
    main,
    select_variants,
)
from runner.cli.options import (
    BUFFER_OPTION,
    FUTEX_HASH_OPTION,
    INTERVAL_OPTION,
    MEMORY_CAP_OPTION,
    out_option,
    resolve_memory_cap,
    timeout_option,
    workload_option,
)
from runner.cli.versioning import VERSION_OPTION, VERSIONS_PRESET_OPTION, versioned
from runner.inputs import SleepSpec, parse_env, parse_n_list
from runner.limits import futex
from runner.measure.launcher import LauncherError
from runner.results import ResultsDir, ResultsError, ResultsWriteError

MAX_BUFFER = 1 << 26  # 64 MiB per connection: more is surely a typo


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
            memory_cap=resolve_memory_cap(memory_cap, log=err),
        )
    except LauncherError as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=1))
    else:
        click.echo(format_run(result))
    sys.exit(0 if result.ok else 1)


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
    "5 s (the row records the sleep used). connections: seconds the N connections are held after "
    "`ready N` (holding starts once all are open, so it is never outlasted; auto = 10 s).",
)
@workload_option()
@BUFFER_OPTION
@click.option(
    "--repeat",
    type=click.IntRange(1, 100),
    default=1,
    show_default=True,
    help="Runs per (variant, N); the report gives median and min-max.",
)
@out_option("Results directory; runs are appended to OUT/runs.jsonl as each one ends.")
@click.option("--resume", is_flag=True, help="Run only the cells OUT does not hold yet.")
@click.option(
    "--label",
    default=None,
    help="Name stored in every run (default: the host name); `report`, `plot` and `compare` never "
    "pool runs of different labels into one median.",
)
@click.option(
    "--env",
    "env_items",
    multiple=True,
    metavar="NAME=VALUE",
    help="Set a variable for every run (repeatable), over the manifest's own: an A/B test of a "
    "runtime setting (GOGC=50, JAVA_TOOL_OPTIONS=-Xss512k). Stored in every run; report and "
    "compare keep such runs apart and name the setting.",
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
    "what the largest N needs; for connections also fs.nr_open, net.core.somaxconn and, where they "
    "apply, fs.file-max, tcp_max_syn_backlog and nf_conntrack_max (`memrun limits --workload "
    "connections --n N` lists them). Every value is put back afterwards, and after a SIGKILL by "
    "the next memrun command.",
)
@FUTEX_HASH_OPTION
@VERSION_OPTION
@VERSIONS_PRESET_OPTION
def sweep(
    n_list: str,
    variant_names: tuple[str, ...],
    sleep_text: str,
    repeat: int,
    out_dir: str,
    resume: bool,
    label: str | None,
    env_items: tuple[str, ...],
    timeout: float | None,
    interval: float,
    memory_cap: int | str,
    wait: bool,
    raise_limits: bool,
    futex_hash: int | None,
    workload: str,
    buffer: int,
    version_items: tuple[str, ...],
    preset: str | None,
) -> None:
    """Measure every variant at every N: build, run each cell once at a time, store each run.

    A run counts (verdict "valid") only if it exited 0 and printed `ready N` before the sleep
    ran out, so that all N tasks were alive at once. Failed and invalid runs are stored with
    their reason and a remedy, never as figures. Show results with `memrun report` / `memrun plot`.

    --workload connections measures memory per idle TCP connection instead: each variant's server
    (tasks/README.md, "Connections protocol") accepts N connections from memrun's own load
    client, which runs in a cgroup of its own (its peak memory and CPU are recorded beside the
    server's), and reads one 16-byte message on each; once it says `ready N` the connections are
    held for the sleep, then closed, and the server must exit 0. A run is invalid when a
    connection was dropped or reset by the server before the close, the client could not open
    N, or the server never said `ready N`. Variants without the workload are skipped, by name.
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
    try:
        env_override = parse_env(env_items)
    except ValueError as e:
        raise InputError(str(e)) from None
    check_raise_limits(raise_limits)
    check_futex_hash(futex_hash)
    if buffer < 1 or buffer > MAX_BUFFER:
        raise InputError(f"--buffer must be between 1 byte and {MAX_BUFFER:,} bytes, got {buffer:,}")
    out = ResultsDir(out_dir)
    install = versioned(select_variants(variant_names), bool(variant_names), version_items, preset)
    opts = sweeping.SweepOptions(
        variants=[],
        ns=ns,
        sleep=sleep,
        repeat=repeat,
        out=out,
        resume=resume,
        timeout=timeout,
        interval=interval / 1000.0,
        raise_limits=raise_limits,
        memory_cap=resolve_memory_cap(memory_cap, log=err),
        futex_hash=futex_hash,
        label=label.strip() if label else futex.label(socket.gethostname(), futex_hash),
        env_override=env_override,
        workload=workload,
        buffer=buffer,
    )
    with machine(wait):  # installing a version unpacks toolchains: not beside a measurement
        opts.variants = install()
        if skipped := sweeping.skipped(opts):
            if len(skipped) == len(opts.variants):
                raise InputError(
                    f"no variant selected has the {workload} workload "
                    f"([variant.workloads.{workload}] in its task.toml): {', '.join(skipped)}"
                )
            err(f"memrun sweep: skipped, no {workload} workload in their manifest: {', '.join(skipped)}")
        _sweep(opts, out)


def _sweep(opts, out: ResultsDir) -> None:  # type: ignore[no-untyped-def]
    from runner import sweep as sweeping
    from runner.cli.progress import SweepPrinter

    try:
        sweeping.prepare(opts, log=err)
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
    for line in _failures(out, end["sweep_id"]):
        click.echo(line)


def _failures(out: ResultsDir, sweep_id: str) -> list[str]:
    """The end-of-sweep summary: each cell of this sweep without a figure, its cause, and the
    `memrun inspect` command that tells its story (runner.show.story.sweep_summary)."""
    from runner.results import RunRecord
    from runner.show.story import sweep_summary

    try:
        rows = [RunRecord.from_json(row) for row in out.existing_rows() if row.get("sweep_id") == sweep_id]
    except (KeyError, TypeError, ResultsError):
        return []
    return sweep_summary(rows, out.path)


def _write_failed(e: ResultsWriteError, out: ResultsDir) -> str:
    n = out.runs_added
    kept = "no run had finished" if not n else f"the {n} finished run{'s are' if n > 1 else ' is'} kept"
    return f"sweep stopped: {e}; {kept}; {e.remedy}, then run the same command with --resume"
