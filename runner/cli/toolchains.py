"""Toolchain commands: what is installed and built (doctor), building, installing (setup)."""

from __future__ import annotations

import shlex

import click

from runner import tasks
from runner.cli.app import err, main, select_variants
from runner.measure.launcher import LauncherError, ensure_launcher
from runner.tasks import install


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

    placed = cgroups.find(act=False)
    where = f"{placed.version}: {placed.how}" if placed.version else f"none: {placed.reason}"
    click.echo(f"cgroup       {where}")
    bad = 0
    width = max(len(v.name) for v in chosen) + 1
    for v in chosen:
        r = tasks.readiness(v)
        versions = ", ".join(f"{k} {val}" for k, val in r.versions().items())
        if r.usable:
            built = "built" if tasks.is_built(v) else f"not built (memrun build {v.name})"
            click.echo(f"{v.name:<{width}} ready    {built}; {versions}")
            axes = [s for s in v.folder.versions.values() if s.applies_to(v.name)]
            for spec in axes:  # what `sweep --version` and `bisect` can choose for this variant
                click.echo(f"{'':<{width}}          versions: --version {spec.name}=V, {spec.what}")
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
    failed = tasks.build_all(select_variants(variants), log=err, force=force)
    if failed:
        raise click.ClickException(f"build failed for {', '.join(failed)}")


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
    failed = tasks.build_all(usable, log=err)
    if failed:
        raise click.ClickException(f"build failed for {', '.join(failed)}")
    if len(usable) < len(chosen):
        missing = ", ".join(v.name for v in chosen if v not in usable)
        raise click.ClickException(f"not usable here: {missing} (see memrun doctor)")
