"""`memrun report --format bmf`: the Bencher Metric Format, so `bencher run --adapter json` can
track memrun's figures and alert on them with Bencher's own thresholds.

Shape (bencher.dev, "Bencher Metric Format"): {benchmark: {measure: {value, lower_value,
upper_value}}}. A benchmark is one variant at one N ("go/N=10000"); a measure is one memrun
metric ("peak-rss"); value is the median over valid runs, lower and upper their min and max, all
in bytes. Bencher creates a measure the first time it sees its slug.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from runner.analysis.cells import cells


def measure(metric: str) -> str:
    """A metric's Bencher measure slug: lower case, hyphens ("peak_rss" -> "peak-rss")."""
    return metric.replace("_", "-")


def document(runs: pd.DataFrame, sweeps: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, float]]]:
    found, several = cells(runs, sweeps)
    out: dict[str, dict[str, dict[str, float]]] = {}
    for c in found:
        out.setdefault(c.name(several), {})[measure(c.metric)] = {
            "value": c.median,
            "lower_value": c.min,
            "upper_value": c.max,
        }
    return out


def render(runs: pd.DataFrame, sweeps: list[dict[str, Any]]) -> str:
    return json.dumps(document(runs, sweeps), indent=1) + "\n"
