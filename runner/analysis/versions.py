"""The version axes of stored results: for each runtime measured at chosen versions (`sweep
--version`, runs whose record says `version_of`), its points in version order, the installed
build's runs of the same label included at the version they recorded."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from runner.results.groups import version_word
from runner.tasks.registry import key


@dataclass(frozen=True)
class Point:
    """One variant of the axis: the version it ran, and whether it is the installed build."""

    variant: str
    version: str
    installed: bool


def _column(runs: pd.DataFrame, name: str) -> list[Any]:
    return list(runs[name]) if name in runs else [None] * len(runs)


def axes(runs: pd.DataFrame) -> dict[str, list[Point]]:
    """base variant -> its points in version order (installed build included when it has runs)."""
    found: dict[str, dict[str, Point]] = {}
    names: dict[str, str] = {}  # base -> the NAME its versions were chosen by ("go", "tokio")
    rows = zip(
        _column(runs, "variant"), _column(runs, "version_of"), _column(runs, "chosen_version"), strict=True
    )
    for variant, base, chosen in rows:
        if isinstance(base, str) and base and isinstance(chosen, dict) and chosen:
            name, version = next(iter(chosen.items()))
            names[base] = name
            found.setdefault(base, {})[variant] = Point(variant, version, False)
    runtime = _column(runs, "runtime") if "runtime" in runs else _column(runs, "variant")
    for variant, plain, tools in zip(
        _column(runs, "variant"), runtime, _column(runs, "versions"), strict=True
    ):
        if plain in found and variant not in found[plain] and isinstance(tools, dict):
            recorded = tools.get(names[plain])
            if recorded:
                found[plain][variant] = Point(variant, version_word(recorded), True)
    return {
        base: sorted(points.values(), key=lambda p: (key(p.version), p.installed))
        for base, points in found.items()
    }


def has_versions(runs: pd.DataFrame) -> bool:
    return "version_of" in runs and runs["version_of"].notna().any()
