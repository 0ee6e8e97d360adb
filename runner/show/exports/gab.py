"""`memrun report --format gab`: github-action-benchmark's `customSmallerIsBetter` input, so its
action can chart memrun's figures on GitHub Pages and comment or fail on a change.

Shape (the action's README, "Examples: Custom benchmarks"): a JSON list of {name, unit, value,
range?, extra?}; range and extra are free text the action only displays. One entry per variant x
N x metric ("go/N=10000/peak_rss"), value = median in MB (10^6 bytes, the unit of memrun's
tables), range = half the min-max width, extra = the min-max, run count and label. Memory is a
cost, so smaller is better.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from runner.analysis.cells import cells
from runner.units import MB

UNIT = "MB"


def entries(runs: pd.DataFrame, sweeps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found, several = cells(runs, sweeps)
    out = []
    for c in found:
        runs_word = f"{c.valid} valid run{'s' if c.valid != 1 else ''}"
        spread = f"min {c.min / MB:.3f} MB, max {c.max / MB:.3f} MB"
        out.append(
            {
                "name": f"{c.name(several)}/{c.metric}",
                "unit": UNIT,
                "value": round(c.median / MB, 6),
                "range": f"± {(c.max - c.min) / 2 / MB:.3f}",
                "extra": f"{spread} over {runs_word}; label {c.label}",
            }
        )
    return out


def render(runs: pd.DataFrame, sweeps: list[dict[str, Any]]) -> str:
    return json.dumps(entries(runs, sweeps), indent=1, ensure_ascii=False) + "\n"
