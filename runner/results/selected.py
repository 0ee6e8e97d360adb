"""The runs a view shows: one workload's runs and sweeps from the results directories a user named,
the capacity answers beside them, and the warnings met on the way (a torn last record is one line,
and the table still follows). One function for every command that shows stored results."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from runner.results import workloads
from runner.results.load import load_capacity, load_sweeps
from runner.results.store import ResultsError, TornRecordWarning
from runner.results.summary import load_runs


class NothingSelected(ValueError):
    """The directories hold runs, but none of the workload asked for; the message says which."""


@dataclass
class Selected:
    """One workload's runs, sweeps and capacity answers, and the warnings that loading them gave."""

    runs: pd.DataFrame
    sweeps: list[dict[str, Any]]
    capacity: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def load_selected(paths: list[Path], workload: str) -> Selected:
    """The runs of `workload` in paths. ResultsError when a file cannot be read, NothingSelected
    when none of its runs are there. Warnings other than a torn record are shown as Python shows
    them; torn records are returned, for the caller to say in one line each."""
    torn: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TornRecordWarning)
        try:
            loaded = load_runs(paths), load_sweeps(paths)
        finally:
            for w in caught:
                if issubclass(w.category, TornRecordWarning):
                    torn.append(f"warning: {w.message}")
                else:
                    warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    runs, sweeps = workloads.select(*loaded, workload)
    if runs.empty:
        others = sorted(set(workloads.column(loaded[0])))
        raise NothingSelected(
            f"no {workload} runs in {', '.join(str(p) for p in paths)} "
            f"(it holds {', '.join(others)} runs: --workload {others[0]})"
        )
    capacity = [r for r in load_capacity(paths) if workloads.of(r) == workload]
    return Selected(runs, sweeps, capacity, torn)


__all__ = ["NothingSelected", "ResultsError", "Selected", "load_selected"]
