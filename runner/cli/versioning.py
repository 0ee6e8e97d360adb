"""What `sweep` and `bisect` share about versions: the options and turning a choice into variants,
with every problem (a version the registry lacks, no such axis) one line and exit status 2."""

from __future__ import annotations

from collections.abc import Callable

import click

from runner.cli.app import InputError, err
from runner.tasks import Variant

VERSION_OPTION = click.option(
    "--version",
    "version_items",
    multiple=True,
    metavar="NAME=V1,V2",
    help="Run at these versions of NAME (a [versions.NAME] table of the variant's task.toml: go, "
    "node, tokio…), each built into its own folder and labelled VARIANT@VERSION (repeatable). A "
    "version is 1.22.0, FROM..TO (every release between), FROM..TO/minor or /major (the newest of "
    "each series), a preset name, or 'installed' (the default build). A version the registry does "
    "not list is an error.",
)
VERSIONS_PRESET_OPTION = click.option(
    "--versions",
    "preset",
    default=None,
    metavar="PRESET",
    help="Run every variant that has this preset at its version: 'article' = the versions the 2023 "
    "article ran (Go 1.18, Node 12, the tokio and async-std of spring 2023).",
)


def versioned(
    selected: list[Variant], named: bool, items: tuple[str, ...], preset: str | None
) -> Callable[[], list[Variant]]:
    """The variants a sweep runs once versions are chosen (the selection itself when none are).

    The choice is checked against the registries now, so a version they lack stops the command
    at once; installing (downloads, unpacking toolchains) waits for the call, which the sweep
    makes once it holds the measuring lock."""
    if not items and not preset:
        return lambda: selected
    from runner import versions

    try:
        axes = versions.plan(selected, named, versions.parse_items(items), preset)
    except versions.VersionError as e:
        raise InputError(str(e)) from None
    return lambda: versions.variants(selected, named, axes, log=err)
