"""`memrun plot` over results that hold several labels (machines, or runs a user labelled apart):
one set of figures per label, each title and file name carrying it, a variant keeping its colour
across labels. One label goes through plot_results() untouched."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from runner.results.groups import groups, pooling_note
from runner.show.figures.charts import plot_results
from runner.show.text import file_word


def plot(
    runs: pd.DataFrame, sweeps: list[dict[str, Any]], out_dir: Path, metric: str = "peak_rss"
) -> tuple[list[Path], str]:
    """Every figure, once per label when there are several (titles and file names carry the label,
    a variant keeps its colour across labels); returns the files and the pooling note ("" if none)."""
    found = groups(runs, sweeps)
    note = pooling_note(found)
    if len(found) <= 1:  # no runs at all: plot_results says so
        return plot_results(found[0].runs if note else runs, sweeps, out_dir, metric), note
    words: dict[str, str] = {}
    for g in found:
        other = words.setdefault(file_word(g.label), g.label)
        if other != g.label:
            raise ValueError(f"labels {other!r} and {g.label!r} give the same file names; relabel one")
    names = sorted({v for g in found for v in g.runs["variant"]})
    written: list[Path] = []
    for g in found:
        written += plot_results(g.runs, g.sweeps, out_dir, metric, label=g.label, variants=names)
    return written, note
