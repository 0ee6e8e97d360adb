"""What stored runs say about a boundary before its search runs again.

A re-run after an upgrade or a reboot moves a capacity little, so the answer already stored for
the same variant and budget is where the search starts (run.py), the N that failed just above it
is its next probe, and any sign that runs there pass or fail at random makes the search noisy
from its first probe. The sign is the stored search's own (it was noisy) or a re-check's
(`--check` ran max_n again and it failed, or ran 5 % past the first failing N and it passed):
a point answer that did not hold was a band the search had not seen."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from runner.capacity.evidence import fits
from runner.results import RunRecord
from runner.results.capacity import CapacityResult


@dataclass(frozen=True)
class Prior:
    """The stored answer's hints for a new search of the same boundary."""

    result: CapacityResult  # the stored answer: its max_n is where the search starts
    noisy: bool
    why_noisy: str = ""  # in words, for the result's prediction

    @property
    def hint(self) -> int | None:
        """The stored first failing N: the probe after a valid start."""
        return self.result.first_failing_n


def checks_after(records: Iterable[RunRecord], result: CapacityResult) -> list[RunRecord]:
    """The `--check` runs of the result's variant, budget and workload made after its search."""
    return [
        r
        for r in records
        if r.kind == "capacity-check"
        and r.variant == result.variant
        and r.memory_cap == result.budget_bytes
        and r.workload == result.workload
        and (r.sweep_id or "") > result.capacity_id
    ]


def seen_noisy(history: Iterable[CapacityResult]) -> CapacityResult | None:
    """The first stored answer of a cell that was a band: once seen noisy, a cell stays a band in
    every search and check after it, even where a later answer (a check run as a point before
    this rule held) says otherwise. history: every stored answer of one variant, budget,
    workload and label, in the order stored."""
    return next((r for r in history if r.noisy), None)


def prior(
    result: CapacityResult, checks: Iterable[RunRecord], history: Iterable[CapacityResult] = ()
) -> Prior:
    """The start, the hint and the noise a stored answer gives its re-run (history: every answer
    stored for the cell, the latest included)."""
    why = "its search saw runs pass and fail at one N" if result.noisy else ""
    if not why and (band := seen_noisy(history)) is not None:
        why = f"an answer stored for it was a band ({band.capacity_id})"
    for r in checks:
        if why:
            break
        if r.n <= result.max_n and not fits(r):
            why = f"its re-check failed at {r.n:,} (max N {result.max_n:,})"
        elif result.first_failing_n is not None and r.n >= result.first_failing_n and fits(r):
            why = f"its re-check was valid at {r.n:,}, past the first failing N {result.first_failing_n:,}"
    return Prior(result, bool(why), why)
