"""The search for a capacity: bracket a monotone boundary from a guess, then bisect it."""

from __future__ import annotations

import math
from collections.abc import Callable

from runner.inputs import MAX_N

TOLERANCE = 0.02  # the search ends when the first failing N is within 2 % above the last valid one
FIRST_STEP = 1.02  # the first bracketing step (the tolerance: a good prediction costs two probes)
GEOMETRIC_ABOVE = 1.25  # a bracket wider than this ratio is halved in log space, narrower ones in N


def search(probe: Callable[[int], bool], start: int, ceiling: int = MAX_N) -> tuple[int, int | None]:
    """(largest valid N, smallest failing N) around a monotone boundary, starting at a guess.

    Steps away from the guess by 2 %, then 4 %, 8 %, 17 %, 37 %, ... (each step the square of the
    last) until the boundary is bracketed, then halves the bracket (in log space while it is wide)
    until the failing N is within TOLERANCE of the valid one. A prediction within 2 % costs two
    probes; one off by 4x (a heap sized from the cap) about a dozen.
    """
    lo, hi = 0, None  # lo: largest valid so far (0 = none); hi: smallest failing so far
    n, step = max(1, min(start, ceiling)), FIRST_STEP
    while True:
        if probe(n):
            lo = max(lo, n)
        else:
            hi = n if hi is None else min(hi, n)
        if hi is not None and (hi - lo <= max(1, TOLERANCE * hi) or hi == 1):
            return lo, hi
        if hi is None:
            if lo >= ceiling:
                return lo, None
            n, step = min(ceiling, max(lo + 1, math.ceil(lo * step))), step * step
        elif lo == 0:
            n, step = max(1, min(hi - 1, math.floor(hi / step))), step * step
        else:
            n = _middle(lo, hi)


def _middle(lo: int, hi: int) -> int:
    """The next N inside (lo, hi): the geometric mean of a wide bracket, else the midpoint."""
    if hi / lo > GEOMETRIC_ABOVE:
        return min(hi - 1, max(lo + 1, round(math.sqrt(lo * hi))))
    return (lo + hi) // 2
