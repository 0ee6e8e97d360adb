"""The version axes of stored results: for each runtime measured at chosen versions (`sweep
--version`, runs whose record says `version_of`), its points in version order, the installed
build's runs of the same label included at the version they recorded."""

from __future__ import annotations

import itertools
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


@dataclass(frozen=True)
class Step:
    """Where the cost per task moves between two neighbouring versions measured on one axis."""

    base: str  # the variant the versions are of
    name: str  # what was chosen ("tokio", "go")
    before: str  # version
    after: str
    n: int
    before_bytes: float  # per task
    after_bytes: float
    bisected: bool  # both versions were probed by `memrun bisect` at this N: what it found

    @property
    def change(self) -> float:
        return self.after_bytes / self.before_bytes - 1


def steps(
    runs: pd.DataFrame, sweeps: list[dict[str, Any]], metric: str, threshold: float = 0.10
) -> list[Step]:
    """Every pair of neighbouring versions on an axis (chosen versions only, the installed build
    aside) whose cost per task at one N differs by more than threshold (memrun bisect's default):
    where a release changed it (at one run a cell, many are noise: the page marks the bisected
    ones). `bisected` when `memrun bisect` probed both at that N."""
    from runner.analysis.records import records

    bisect = {str(s.get("sweep_id")) for s in sweeps if str(s.get("command", "")).startswith("memrun bisect")}
    probed = {
        (str(v), int(n))
        for v, n, sweep_id in zip(
            _column(runs, "variant"), _column(runs, "n"), _column(runs, "sweep_id"), strict=True
        )
        if str(sweep_id) in bisect
    }
    found = axes(runs)
    on_axis = {p.variant for points in found.values() for p in points if not p.installed}
    if not on_axis:
        return []
    mine_runs = runs[runs["variant"].isin(on_axis)]  # the others' summaries are not needed
    cost = {(str(r["variant"]), int(r["n"])): r["per_task_bytes"] for r in records(mine_runs, metric)}
    chosen = dict(zip(_column(runs, "variant"), _column(runs, "chosen_version"), strict=True))
    out = []
    for base, points in found.items():
        mine = [p for p in points if not p.installed]
        ns = sorted({n for (v, n) in cost if n > 1 and any(p.variant == v for p in mine)})
        for n in ns:
            measured = [p for p in mine if cost.get((p.variant, n)) is not None]
            for a, b in itertools.pairwise(measured):
                before, after = cost[(a.variant, n)], cost[(b.variant, n)]
                if before and before > 0 and abs(after / before - 1) > threshold:
                    name = next(iter((chosen.get(b.variant) or {"version": ""}).keys()))
                    both = (a.variant, n) in probed and (b.variant, n) in probed
                    out.append(Step(base, name, a.version, b.version, n, before, after, both))
    return out
