"""`memrun report --format gab`: github-action-benchmark's `customSmallerIsBetter` input, so its
action can chart memrun's figures on GitHub Pages and comment or fail on a change.

Shape (the action's README, "Examples: Custom benchmarks"): a JSON list of {name, unit, value,
range?, extra?}; range and extra are free text the action only displays. One entry per workload x
variant x N x metric ("sleep/go/N=10000/peak_rss"), value = median in MB (10^6 bytes, the unit of
memrun's tables), range = half the min-max width, extra = the min-max, run count and label. Memory
is a cost, so smaller is better. One file per label (runner.show.exports.per_label): the action
keeps one chart history per file, so a machine is a file, never part of a name.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from runner.show.exports.per_label import PerLabelExporter
from runner.show.exports.registry import register
from runner.units import MB

if TYPE_CHECKING:
    from runner.analysis.cells import Cell

UNIT = "MB"


def entries(found: list[Cell]) -> list[dict[str, Any]]:
    """One label's cells as the action's entries."""
    out = []
    for c in found:
        runs_word = f"{c.valid} valid run{'s' if c.valid != 1 else ''}"
        spread = f"min {c.min / MB:.3f} MB, max {c.max / MB:.3f} MB"
        out.append(
            {
                "name": f"{c.name}/{c.metric}",
                "unit": UNIT,
                "value": round(c.median / MB, 6),
                "range": f"± {(c.max - c.min) / 2 / MB:.3f}",
                "extra": f"{spread} over {runs_word}; label {c.label}",
            }
        )
    return out


def render(found: list[Cell]) -> str:
    return json.dumps(entries(found), indent=1, ensure_ascii=False) + "\n"


@register
class Gab(PerLabelExporter):
    name = "gab"

    def render(self, found: list[Cell]) -> str:
        return render(found)
