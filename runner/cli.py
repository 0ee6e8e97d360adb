"""The `memrun` command line: parse, call the library, print. No measuring logic lives here."""

from __future__ import annotations

import json
import sys

import click

from runner import __version__, install, tasks
from runner.measure import measure as measure_run
from runner.measure.launcher import LauncherError, ensure_launcher
from runner.textfmt import format_run


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


@main.command(context_settings={"ignore_unknown_options": True})
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Kill the whole process tree after this many seconds.",
)
@click.option(
    "--interval",
    type=click.FloatRange(min=1),
    default=50.0,
    show_default=True,
    help="Milliseconds between samples of the process tree (timeline resolution).",
)
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
    timeout: float | None, interval: float, cgroup: str, as_json: bool, command: tuple[str, ...]
) -> None:
    """Measure the peak memory of one command:  memrun measure [OPTIONS] -- CMD [ARGS...]

    The command is run directly (never through a shell) via a tiny launcher, so the figures are
    the command's own and not inherited from memrun. Reported: peak RSS of the process tree
    (headline; kernel high-water marks, or the sampled tree sum when larger), the peak of a fresh
    memory cgroup holding the whole run (includes kernel memory such as thread stacks), wall and
    CPU time, exit status or signal, when `ready N` was printed, and the tail of stderr.

    Exit status: 0 when the command exited 0, 1 when it failed, timed out or was killed.
    """
    try:
        result = measure_run(list(command), timeout=timeout, interval=interval / 1000.0, cgroup=cgroup)
    except LauncherError as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=1))
    else:
        click.echo(format_run(result))
    sys.exit(0 if result.ok else 1)


@main.command()
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
    for v in chosen:
        r = tasks.readiness(v)
        versions = ", ".join(f"{k} {val}" for k, val in r.versions().items())
        if r.usable:
            built = "built" if tasks.is_built(v) else f"not built (memrun build {v.name})"
            click.echo(f"{v.name:<15} ready    {built}; {versions}")
        else:
            bad += 1
            click.echo(f"{v.name:<15} MISSING  {'; '.join(r.problems)}")
            click.echo(f"{'':<15}          fix: {v.folder.install or 'see ' + str(v.folder.manifest)}")
    if bad:
        raise SystemExit(1)


@main.command()
@click.argument("variants", nargs=-1)
@click.option("--force", is_flag=True, help="Rebuild even when up to date.")
def build(variants: tuple[str, ...], force: bool) -> None:
    """Build task programs (default: all) into build/, skipping what is up to date."""
    chosen = select_variants(variants)
    build_variants(chosen, force=force)


def build_variants(chosen: list[tasks.Variant], force: bool = False) -> None:
    failed = []
    for tf in tasks.folders(chosen):
        v = next(x for x in chosen if x.folder is tf)
        names = ", ".join(x.name for x in tf.variants)
        click.echo(f"[{tf.name}] {names}: ", nl=False)
        try:
            ran = tasks.build(v, log=lambda line: click.echo(f"\n  $ {line}", nl=False), force=force)
        except tasks.BuildError as e:
            click.echo(f"\n  FAILED\n{e}", err=True)
            failed.append(tf.name)
            continue
        click.echo("\n  built" if ran else "up to date")
    if failed:
        raise click.ClickException(f"build failed for {', '.join(failed)}")


@main.command()
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
    build_variants(usable)
    if len(usable) < len(chosen):
        missing = ", ".join(v.name for v in chosen if v not in usable)
        raise click.ClickException(f"not usable here: {missing} (see memrun doctor)")
