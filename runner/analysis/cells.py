"""The cells every exporter writes (bmf, gab): one per label x variant x N x metric with a figure.

Exporters for other tools' formats share this, so that they agree on what a cell is: the median
over valid runs with their min and max, runs of different labels (machines, fingerprints) never
pooled, cells without a valid run left out (their reason is in `memrun report`, not a number).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from runner.analysis.records import records
from runner.results.groups import groups
from runner.results.record import METRICS


@dataclass(frozen=True)
class Cell:
    label: str
    variant: str
    n: int
    metric: str
    median: float  # bytes
    min: float
    max: float
    valid: int  # runs the figure is the median of

    def name(self, several_labels: bool) -> str:
        """ "go/N=10000", or "vm/go/N=10000" when the export holds several labels."""
        base = f"{self.variant}/N={self.n}"
        return f"{self.label}/{base}" if several_labels else base


def cells(runs: pd.DataFrame, sweeps: list[dict[str, Any]]) -> tuple[list[Cell], bool]:
    """Every cell with a figure, for every metric, and whether they span several labels."""
    found = groups(runs, sweeps)
    out = []
    for g in found:
        for metric in METRICS:
            for r in records(g.runs, metric):
                if r["median_bytes"] is None:
                    continue
                out.append(
                    Cell(
                        g.label,
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
    return out, len(found) > 1
