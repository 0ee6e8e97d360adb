"""The version axis of a sweep: `--version NAME=V1,V2` and `--versions PRESET` turned into the
variants to run (`go@1.18.10`, `rust-tokio@1.28.2`), each installed into its own build folder.

Which variants a choice applies to: the ones named with -r that have a [versions.NAME] table, or,
without -r, every variant that has one. Variants named with -r that the choice does not touch run
as they are. A version the registry does not list stops everything before anything is built.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from runner.tasks import chosen, load_all, registry
from runner.tasks.manifest import Variant
from runner.tasks.versionspec import VersionSpec


class VersionError(ValueError):
    """A version choice that cannot be met: one line, naming what the registry has instead."""


@dataclass(frozen=True)
class Axis:
    """One variant to run at these versions (registry spellings, or registry.INSTALLED)."""

    variant: Variant
    spec: VersionSpec
    versions: list[str]


def parse_items(items: Iterable[str]) -> dict[str, list[str]]:
    """`--version go=1.18.10,1.22.0 --version node=12..26/major` -> {NAME: [item, ...]}."""
    out: dict[str, list[str]] = {}
    for item in items:
        name, sep, choice = item.partition("=")
        if not sep or not name.strip() or not choice.strip():
            raise VersionError(f"--version: expected NAME=V1,V2 (e.g. go=1.22.0,1.26.8), got {item!r}")
        out.setdefault(name.strip(), []).extend(c.strip() for c in choice.split(","))
    return out


def _axes_named(name: str) -> list[str]:
    return sorted({n for v in load_all().values() for n in v.folder.versions})


def plan(
    selected: list[Variant], named: bool, items: dict[str, list[str]], preset: str | None = None
) -> list[Axis]:
    """The variants and versions to run. `selected`: the -r variants (all when `named` is false)."""
    pool = selected if named else list(load_all().values())
    out: list[Axis] = []
    for name, choices in items.items():
        targets = [(v, v.folder.versions[name]) for v in pool if name in v.folder.versions]
        targets = [(v, s) for v, s in targets if s.applies_to(v.name)]
        if not targets:
            among = f" among {', '.join(v.name for v in selected)}" if named else ""
            known = ", ".join(_axes_named(name)) or "none"
            raise VersionError(
                f"--version {name}: no variant{among} has a version axis {name!r} (axes: {known})"
            )
        for variant, spec in targets:
            out.append(Axis(variant, spec, _choose(variant, spec, choices)))
    if preset:
        found = [
            (v, s)
            for v in pool
            for s in v.folder.versions.values()
            if s.applies_to(v.name) and preset in s.presets
        ]
        if not found:
            presets = sorted(
                {p for v in load_all().values() for s in v.folder.versions.values() for p in s.presets}
            )
            raise VersionError(
                f"--versions {preset}: no version table has that preset "
                f"(presets: {', '.join(presets) or 'none'})"
            )
        for variant, spec in found:
            out.append(Axis(variant, spec, _choose(variant, spec, [preset])))
    return out


def _choose(variant: Variant, spec: VersionSpec, choices: list[str]) -> list[str]:
    versions: list[str] = []
    for choice in choices:
        try:
            picked = registry.choose(variant.folder, spec, choice)
        except registry.RegistryError as e:
            raise VersionError(str(e)) from None
        versions += [v for v in picked if v not in versions]
    return versions


def variants(
    selected: list[Variant], named: bool, axes: list[Axis], log: Callable[[str], None] = lambda s: None
) -> list[Variant]:
    """Every variant to run: the untouched -r variants, then each axis's versions in order,
    installed now (downloads happen here, before the measuring lock is taken)."""
    touched = {a.variant.name for a in axes}
    out = [v for v in selected if v.name not in touched] if named else []
    for axis in axes:
        listed = registry.listing(axis.variant.folder, axis.spec)
        for version in axis.versions:
            if version == registry.INSTALLED:
                out.append(axis.variant)
                continue
            log(
                f"[version] {axis.variant.name} at {axis.spec.name} {version}: installing into its own folder"
            )
            out.append(
                chosen.choose(axis.variant, axis.spec, version, listed, log=lambda line: log(f"  $ {line}"))
            )
    return list({v.name: v for v in out}.values())
