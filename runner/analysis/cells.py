"""The cells every exporter writes (bmf, gab): one per label x variant x N x metric with a figure,
grouped by label (one file per label: a series must not be named after the machine).

Exporters for other tools' formats share this, so that they agree on what a cell is: the median
over valid runs with their min and max, runs of different labels (machines, fingerprints) never
pooled, cells without a valid run left out (their reason is in `memrun report`, not a number).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from runner.analysis.records import records
from runner.results import workloads
from runner.results.groups import groups
from runner.results.record import METRICS
from runner.workload import Workload


@dataclass(frozen=True)
class Cell:
    label: str
    workload: Workload
    variant: str
    n: int
    metric: str
    median: float  # bytes
    min: float
    max: float
    valid: int  # runs the figure is the median of

    @property
    def name(self) -> str:
        """ "sleep/go/N=10000": what was measured, never where. A benchmark named after the
        machine (its label carries the kernel build) would start a new series in Bencher and
        github-action-benchmark at every kernel update; the machine is the file's (one per label,
        Bencher's testbed)."""
        return f"{self.workload.name}/{self.variant}/N={self.n}"


def cells(runs: pd.DataFrame, sweeps: list[dict[str, Any]]) -> dict[str, list[Cell]]:
    """Every cell with a figure, for every metric, by label: one export file each."""
    found = groups(runs, sweeps)
    workload = workloads.only(runs)  # the runs shown are of one workload
    out = []
    for g in found:
        for metric in METRICS:
            for r in records(g.runs, metric):
                if r["median_bytes"] is None:
                    continue
                out.append(
                    Cell(
                        g.label,
                        workload,
                        str(r["variant"]),
                        int(r["n"]),
                        metric,
                        r["median_bytes"],
                        r["min_bytes"],
                        r["max_bytes"],
                        int(r["valid"]),
                    )
                )
    out.sort(key=lambda c: (c.label, c.variant, c.n))
    by_label: dict[str, list[Cell]] = {}
    for c in out:
        by_label.setdefault(c.label, []).append(c)
    return by_label
