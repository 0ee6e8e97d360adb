"""`memrun report --format bmf`: the Bencher Metric Format, so `bencher run --adapter json` can
track memrun's figures and alert on them with Bencher's own thresholds.

Shape (bencher.dev, "Bencher Metric Format"): {benchmark: {measure: {value, lower_value,
upper_value}}}. A benchmark is one workload, variant and N ("sleep/go/N=10000"); a measure is one
memrun metric ("peak-rss"); value is the median over valid runs, lower and upper their min and
max, all in bytes. Bencher creates a measure the first time it sees its slug. The machine is
Bencher's testbed, not part of a name: one document per label (runner.show.exports.per_label),
given to `bencher run --testbed SLUG`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from runner.show.exports.per_label import PerLabelExporter, slug
from runner.show.exports.registry import register

if TYPE_CHECKING:
    from runner.analysis.cells import Cell


def measure(metric: str) -> str:
    """A metric's Bencher measure slug: lower case, hyphens ("peak_rss" -> "peak-rss")."""
    return metric.replace("_", "-")


def document(found: list[Cell]) -> dict[str, dict[str, dict[str, float]]]:
    """One label's cells as a BMF document."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for c in found:
        out.setdefault(c.name, {})[measure(c.metric)] = {
            "value": c.median,
            "lower_value": c.min,
            "upper_value": c.max,
        }
    return out


def render(found: list[Cell]) -> str:
    return json.dumps(document(found), indent=1) + "\n"


@register
class Bmf(PerLabelExporter):
    name = "bmf"

    def render(self, found: list[Cell]) -> str:
        return render(found)

    def hint(self, label: str, path: Path | None) -> str:
        """How to upload the file to Bencher with its machine as the testbed."""
        where = f"--file {path}" if path is not None else "(from standard input)"
        return f"bencher run --testbed {slug(label)} --adapter json {where}"
