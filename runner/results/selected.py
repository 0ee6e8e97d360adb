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
from runner.workload import Workload


class NothingSelected(ValueError):
    """The directories hold runs, but none of the workload asked for; the message says which."""


@dataclass
class Selected:
    """One workload's runs, sweeps and capacity answers, and the warnings that loading them gave."""

    runs: pd.DataFrame
    sweeps: list[dict[str, Any]]
    capacity: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def load_selected(paths: list[Path], workload: Workload) -> Selected:
    """The runs of `workload` in paths. ResultsError when a file cannot be read, NothingSelected
    when none of its runs are there. Warnings other than a torn record are shown as Python shows
    them; torn records are returned, for the caller to say in one line each."""
    return load_workloads(paths, workload)[workload]


def load_workloads(paths: list[Path], workload: Workload | None = None) -> dict[Workload, Selected]:
    """Each workload's runs in paths (the one asked for, or every one they hold: the HTML page
    shows each in a section of its own), read once, each under its Workload (the stored names
    resolved here, once). Errors and warnings as load_selected."""
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
    held = sorted(set(workloads.column(loaded[0])))
    wanted = [workload] if workload is not None else [workloads.get(name) for name in held]
    answers = load_capacity(paths)
    out = {}
    for w in wanted:
        runs, sweeps = workloads.select(*loaded, w)
        if runs.empty:
            raise NothingSelected(
                f"no {w.name} runs in {', '.join(str(p) for p in paths)} "
                f"(it holds {', '.join(held)} runs: --workload {held[0]})"
            )
        if mixed := workloads.mixed(runs, w):
            raise NothingSelected(mixed)
        out[w] = Selected(runs, sweeps, [r for r in answers if workloads.resolved(r) is w], torn)
    return out


__all__ = ["NothingSelected", "ResultsError", "Selected", "load_selected", "load_workloads"]
