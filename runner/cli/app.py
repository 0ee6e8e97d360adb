"""The `memrun` command group and what every command shares: one-line input errors, variant
selection, undoing what a killed memrun left behind, the machine-wide measurement lock, and the
refusal to store a machine's runs under another machine's label."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import click

from runner import __version__, tasks

if TYPE_CHECKING:
    from runner.results import ResultsDir


class InputError(click.ClickException):
    """Bad user input or a broken manifest: one line, exit status 2, no traceback."""

    exit_code = 2


# Each command's module (runner.cli.<module>), imported when the command is named: importing every
# command's module (the sweep, the bisection, the VM code...) took most of memrun's start, ~5 s
# of each in a TCG guest, where the guest tests start memrun tens of times. A module registers
# its commands on `main` (or on `derive`) as it is imported.
COMMANDS = {
    "bisect": ("bisecting",),
    "build": ("toolchains",),
    "capacity": ("capacity",),
    "compare": ("comparing",),
    "derive": ("deriving", "deriving_pages"),
    "doctor": ("toolchains",),
    "explain": ("explaining",),
    "inspect": ("inspecting",),
    "limits": ("limits",),
    "measure": ("measuring",),
    "merge": ("merging",),
    "plot": ("showing",),
    "report": ("showing",),
    "setup": ("toolchains",),
    "sweep": ("sweeping",),
}


def load_commands(names: list[str] | None = None) -> None:
    """Import the modules of the commands named (of every command when None)."""
    import importlib

    for name in COMMANDS if names is None else names:
        for module in COMMANDS.get(name, ()):
            importlib.import_module(f"runner.cli.{module}")


class _Group(click.Group):
    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            load_commands([cmd_name])
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        load_commands()  # `memrun --help` lists them all
        return super().list_commands(ctx)

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except tasks.ManifestError as e:
            raise InputError(f"task manifest: {e}") from None


class KeepsArgs(click.Command):
    """A command that keeps the arguments it was typed with, as given, so that `--kernel` can pass
    them on to the same command in a guest (given_args)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta[_GIVEN] = list(args)
        return super().parse_args(ctx, args)


_GIVEN = "memrun.given_args"


def given_args() -> list[str]:
    """The current command's own arguments as typed (a KeepsArgs command)."""
    return list(click.get_current_context().meta.get(_GIVEN, []))


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
    `memrun report` / `memrun plot` (show stored results), `memrun limits` (why threads fail),
    `memrun inspect` (how a run went, from its timeline).
    """
    recover()


def recover() -> None:
    """Before any command: undo what a memrun killed mid-run left behind: raised limits (only
    root can have raised them), a VM still running (runner.vm.boot) and run cgroups (a user's
    too, in a delegated subtree). Each thing undone is said in one line."""
    from runner.measure import cgroups

    if os.geteuid() == 0:
        from runner.limits import journal

        journal.recover(log=err)
    from runner.vm import boot

    boot.recover(log=err)
    removed = cgroups.remove_stale()
    if removed:
        err(f"memrun: removed {len(removed)} run cgroup(s) left by a memrun that is gone")


def err(line: str) -> None:
    click.echo(line, err=True)


@contextlib.contextmanager
def machine(wait: bool) -> Iterator[None]:
    """The machine-wide measurement lock, or exit 2 naming who holds it; while it is held, a VM's
    free page reporting is held back (runner.limits.page_reporting), and put back after."""
    from runner import lock
    from runner.limits import page_reporting

    try:
        with lock.measuring(log=err, wait=wait), page_reporting.held(log=err):
            yield
    except lock.Busy as e:
        raise InputError(str(e)) from None


def check_futex_hash(slots: int | None) -> None:
    """--futex-hash checked before anything runs: a bad size, a kernel without a per-process futex
    hash, or no C compiler for the preload is one line and exit 2."""
    if slots is None:
        return
    from runner.limits import futex
    from runner.measure.launcher import LauncherError

    try:
        futex.environment(slots)
    except (futex.FutexHashError, LauncherError) as e:
        raise InputError(str(e)) from None


def check_raise_limits(raise_limits: bool) -> None:
    """--raise-limits writes /proc/sys: refuse it up front, before minutes of building, unless root."""
    if raise_limits and os.geteuid() != 0:
        raise InputError("--raise-limits needs root (it writes /proc/sys); see `memrun limits --n N`")


def refuse_taken_label(out: ResultsDir, label: str) -> None:
    """One line and exit 2 when OUT holds runs of `label` from another machine (a kernel build,
    a host): stored beside them, this machine's runs would pool with theirs."""
    from runner import fingerprint
    from runner.results.labels import LabelTaken, check_free

    try:
        check_free(out.path, label, fingerprint.collect())
    except LabelTaken as e:
        raise InputError(str(e)) from None
