"""What a capacity answer for the fake program may be: it holds 1 KiB a task on top of its
interpreter, so under a cap B it fits (B - M(1)) / 1 KiB tasks, M(1) its own N=1 peak there."""

from __future__ import annotations

from runner.capacity.search import NOISY_TOLERANCE, TOLERANCE


def within_arithmetic(result: dict) -> float:
    """How far an answer for the fake may lie from the arithmetic: 3 % for what the fake adds on
    top of its KiB a task, plus what the search itself leaves open: a noisy search's bracket is
    NOISY_TOLERANCE wide, not TOLERANCE (a guest's answer was 4.9 % under the arithmetic with its
    first failing N 0.2 % under it, 2026-11-27)."""
    return 0.03 + (NOISY_TOLERANCE - TOLERANCE if result["noisy"] else 0.0)
