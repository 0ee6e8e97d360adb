"""The search for a capacity: from a guess, bracket a boundary, narrow it, and confirm its valid
side. Each valid probe says how much of the budget it used, which says where to look next."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from runner.inputs import MAX_N

TOLERANCE = 0.02  # the search ends when the first failing N is within 2 % above the last valid one
FIRST_STEP = 1.02  # the first step without a memory figure (the tolerance: a good guess costs two)
GEOMETRIC_ABOVE = 1.25  # a bracket wider than this ratio is halved in log space, narrower ones in N
AIM = 0.99  # a step guided by memory aims this far inside the predicted boundary
FLAT_BELOW, FLAT_PEAK = 0.97, 0.99  # 3 % fewer tasks, 99 % of the memory: memory does not follow N
MAX_JUMP = 8.0  # a memory-guided step never goes further above the last valid N than this
MAX_DOWN = 2.0  # steps down without a valid probe grow by cubing, up to halving N


@dataclass(frozen=True)
class Probe:
    """What the search needs of a run: whether it was valid, and its peak under the cap."""

    valid: bool
    peak: int | None = None  # bytes charged to the cgroup (kernel memory included)


@dataclass(frozen=True)
class Found:
    """A search's answer: max_n valid (twice when confirmed), first_failing_n the smallest N that
    failed; noisy: an N that was valid once failed when run again, or a smaller N failed after a
    larger one was valid, so the boundary is where noise decides."""

    max_n: int
    first_failing_n: int | None
    noisy: bool = False


@dataclass
class _State:
    budget: int
    baseline: int
    outcomes: dict[int, list[Probe]]
    noisy: bool = False

    def valid(self, n: int) -> bool:
        return all(p.valid for p in self.outcomes[n])

    @property
    def hi(self) -> int | None:
        failed = [n for n in self.outcomes if not self.valid(n)]
        return min(failed) if failed else None

    @property
    def lo(self) -> int:
        """The largest valid N below every failure: valid runs above a failure are not trusted."""
        hi = self.hi
        return max((n for n in self.outcomes if self.valid(n) and (hi is None or n < hi)), default=0)

    def peak(self, n: int) -> int | None:
        return max((p.peak for p in self.outcomes.get(n, []) if p.peak), default=None)

    def predicted(self, n: int) -> float | None:
        """Where the budget runs out on the line from the baseline through the valid probe at n.
        None when memory does not follow N: a smaller valid probe (by FLAT_BELOW) used as much,
        as a heap sized from the cap does, so the line would only ever say "full"."""
        peak = self.peak(n)
        if peak is None or n <= 1 or peak <= self.baseline:
            return None
        for m in self.outcomes:
            smaller = self.peak(m) if m <= FLAT_BELOW * n and self.valid(m) else None
            if smaller is not None and smaller >= FLAT_PEAK * peak:
                return None
        slope = (peak - self.baseline) / (n - 1)
        return n + (self.budget - peak) / slope


def search(
    probe: Callable[[int], Probe],
    start: int,
    budget: int,
    baseline: int = 0,
    ceiling: int = MAX_N,
    confirm: bool = True,
) -> Found:
    """The largest valid N and the smallest failing N, within TOLERANCE of each other.

    Without a valid probe yet, steps down from the guess by 2 %, 6 %, 16 %, 41 %, then halves N
    (each step the cube of the last, at most MAX_DOWN). A valid probe's peak puts the next N on
    the line from the baseline (the runtime at N=1) through it, just inside the budget, or 2 %
    above it when the line says it is full; without a memory figure upward steps are 2 %, 4 %,
    8 %, 17 %, ... Inside a bracket the line's N is taken when it falls well inside, else the
    bracket is halved (in log space while wide). With confirm, the answer's valid N is run a
    second time: near a cap a runtime's peak varies from run to run, and an N that fits only
    sometimes is not its capacity; if it fails, the bracket moves below it and the search goes on.
    """
    state = _State(budget, baseline, {})
    n, up, down = max(1, min(start, ceiling)), FIRST_STEP, FIRST_STEP
    while True:
        result = probe(n)
        if n in state.outcomes and result.valid != state.valid(n):
            state.noisy = True
        state.outcomes.setdefault(n, []).append(result)
        lo, hi = state.lo, state.hi
        if hi is not None and any(state.valid(m) and m > hi for m in state.outcomes):
            state.noisy = True  # a larger N was valid: the boundary is not sharp here
        if hi is not None and (hi - lo <= max(1, TOLERANCE * hi) or hi == 1):
            if not confirm or lo == 0 or len(state.outcomes[lo]) > 1:
                return Found(lo, hi, state.noisy)
            n = lo  # confirm
            continue
        if hi is None:
            if lo >= ceiling:
                return Found(lo, None, state.noisy)
            n, up = _above(state, lo, ceiling, up)
        elif lo == 0:
            n, down = max(1, min(hi - 1, math.floor(hi / down))), min(MAX_DOWN, down**3)
        else:
            n = _inside(state, lo, hi)


def _above(state: _State, lo: int, ceiling: int, step: float) -> tuple[int, float]:
    """The next N above the largest valid one, and the next blind step."""
    edge = max(lo + 1, math.ceil(lo * FIRST_STEP))
    target = state.predicted(lo)
    if target is not None:
        n = max(edge, math.floor(AIM * target))
        return min(ceiling, n, math.ceil(MAX_JUMP * lo)), step
    return min(ceiling, max(lo + 1, math.ceil(lo * step))), step * step


def _inside(state: _State, lo: int, hi: int) -> int:
    """The next N inside (lo, hi): on the memory line when it lands well inside, else the middle."""
    target = state.predicted(lo)
    if target is not None:
        n = max(math.floor(AIM * target), math.ceil(lo * (1 + TOLERANCE)))
        if n <= hi - (hi - lo) // 4:
            return n  # on the line, or the edge 2 % above lo when the line says it is full
    return _middle(lo, hi)


def _middle(lo: int, hi: int) -> int:
    """The geometric mean of a wide bracket, else the midpoint."""
    if hi / lo > GEOMETRIC_ABOVE:
        return min(hi - 1, max(lo + 1, round(math.sqrt(lo * hi))))
    return (lo + hi) // 2
