"""What a capacity search cost, against the least any search could have cost.

Once the answer is known, its evidence must still hold the fitting runs at max_n (two, or three
for a band: what makes it a capacity) and the failing run at first_failing_n: that is its floor,
each run taking the wall time it took with the sleep and timeout it had. Everything else a search runs is
the price of not knowing the answer in advance; cost ÷ floor says how well it was guessed and
narrowed, independently of how slow the runtime is.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass

from runner.results import RunRecord


@dataclass(frozen=True)
class Spent:
    """One probe as far as cost goes: its N, its outcome and the seconds it ran."""

    n: int
    valid: bool
    seconds: float


def spent(records: Iterable[RunRecord], valid: Iterable[bool]) -> list[Spent]:
    """The probes of a search as Spent (a probe that could not run at all cost nothing)."""
    return [
        Spent(r.n, ok, r.result.wall_s if r.result and r.result.wall_s is not None else 0.0)
        for r, ok in zip(records, valid, strict=True)
    ]


def cost(probes: Iterable[Spent]) -> float:
    return sum(p.seconds for p in probes)


def floor(probes: Iterable[Spent], max_n: int, first_failing_n: int | None, runs: int = 2) -> float:
    """The runs the answer's evidence requires: `runs` fitting runs at max_n (two, three for a
    band; at the mean of those made) and the first failing run at first_failing_n. An answer
    with nothing failing, or nothing fitting, has only the part it has."""
    probes = list(probes)
    valid = [p.seconds for p in probes if p.n == max_n and p.valid] if max_n > 0 else []
    failing = [p.seconds for p in probes if p.n == first_failing_n and not p.valid]
    return runs * (statistics.fmean(valid) if valid else 0.0) + (failing[0] if failing else 0.0)
