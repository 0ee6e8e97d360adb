"""What the commands that show stored results load: one workload's runs, sweeps and capacity
answers, and each variant's model from the manifests (runner.tasks.models: for results stored
before sweeps recorded it)."""

from __future__ import annotations

from pathlib import Path

from runner.cli.app import InputError, err
from runner.results import ResultsError
from runner.tasks.models import variant_models

__all__ = ["load_results", "variant_models"]


def load_results(results: tuple[str, ...], workload: str):  # type: ignore[no-untyped-def]
    """The runs, sweeps and capacity answers of one workload in the given results directories
    (default results/), each warning met on the way said in one line."""
    from runner import workload as workloads
    from runner.results.selected import NothingSelected, load_selected

    chosen = workloads.get(workload)  # the name resolved once, here at the edge
    try:
        selected = load_selected([Path(p) for p in (results or ("results",))], chosen)
    except (ResultsError, NothingSelected) as e:
        raise InputError(str(e)) from None
    for line in selected.warnings:
        err(line)
    return selected
