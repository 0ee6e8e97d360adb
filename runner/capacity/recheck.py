"""Re-measuring a settled answer (`--check`): its max N again, the N just past its first
failure, and, when that moves the answer, the search on from every run (runner.capacity.search
computes the answer; this says what a check runs and whether the answer held)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from runner.capacity.search import Found, Probe, _State, search
from runner.inputs import MAX_N


@dataclass(frozen=True)
class Rechecked:
    """A re-check of a settled answer: how its runs went, and the answer from all the evidence
    after them (lower when a run failed at max_n or fitted past the first failing N)."""

    max_n: int
    at_max: list[bool]  # each run at max_n: fitted or not
    above_n: int
    above: bool  # the run at CHECK_ABOVE x first_failing_n fitted
    noisy: bool  # the answer checked was a band
    found: Found  # the answer afterwards

    @property
    def held(self) -> bool:
        """A point holds when max_n fitted again and the N past its first failure did not; a band
        makes no claim above max_n, and holds when max_n fitted in every run."""
        return all(self.at_max) and (self.noisy or not self.above)


CHECK_ABOVE = 1.05  # a point holds when max_n fits again and this times first_failing_n does not


def recheck(
    probe: Callable[[int], Probe],
    found: Found,
    budget: int,
    known: dict[int, list[Probe]],
    baseline: int = 0,
    ceiling: int = MAX_N,
) -> Rechecked:
    """Run a settled answer's max_n again (once for a point, three times for a band, stopping at
    a failure) and CHECK_ABOVE times its first failing N once; the runs join `known` (updated in
    place). If the evidence no longer settles the same answer, the search goes on from it, noisy
    when it now is, until it settles a lower one."""
    times = 3 if found.noisy else 1
    at_max: list[bool] = []
    for _ in range(times):
        run = probe(found.max_n)
        known.setdefault(found.max_n, []).append(run)
        at_max.append(run.valid)
        if not run.valid:
            break
    above_n = math.ceil(CHECK_ABOVE * (found.first_failing_n or found.max_n))
    above = probe(above_n)
    known.setdefault(above_n, []).append(above)
    state = _State(budget, baseline, known, noisy=found.noisy)
    after = state.found() if state.settled(ceiling) else None
    if after is None or after.max_n != found.max_n:
        start = state.lo or max(1, (state.top or found.max_n) - 1)
        after = search(probe, start, budget, baseline, ceiling, noisy=state.noisy, known=known)
    return Rechecked(found.max_n, at_max, above_n, above.valid, found.noisy, after)
