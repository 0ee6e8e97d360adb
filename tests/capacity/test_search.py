"""runner.capacity.search: bracket, narrow and confirm a boundary against scripted oracles."""

from __future__ import annotations

from collections import Counter

import pytest

from runner.capacity import TOLERANCE, search
from runner.capacity.search import Probe, _State

MIB = 1 << 20


def _oracle(boundary: int, peak=None):  # type: ignore[no-untyped-def]
    """Valid up to boundary; peak(n) the memory a valid run reports (None: no figure)."""
    tried: list[int] = []

    def probe(n: int) -> Probe:
        tried.append(n)
        ok = n <= boundary
        return Probe(ok, peak(n) if ok and peak else None)

    return probe, tried


def _check(found, tried, boundary):  # type: ignore[no-untyped-def]
    assert found.max_n == max(n for n in tried if n <= boundary)
    assert found.first_failing_n is not None and found.first_failing_n > boundary >= found.max_n
    assert found.first_failing_n - found.max_n <= max(1, TOLERANCE * found.first_failing_n)
    assert not found.noisy


@pytest.mark.parametrize("boundary", [1, 7, 999, 60_000, 2_345_678])
@pytest.mark.parametrize("guess", [0.5, 0.97, 1.0, 1.04, 3.0])
def test_without_memory_figures_it_brackets_then_bisects(boundary, guess):
    probe, tried = _oracle(boundary)
    found = search(probe, max(1, int(boundary * guess)), budget=256 * MIB)
    _check(found, tried, boundary)
    counts = Counter(tried)
    assert counts[found.max_n] == 2, "the answer is confirmed by a second run"
    assert all(c == 1 for n, c in counts.items() if n != found.max_n), "no other N is run twice"
    if 0.95 <= guess <= 1.05 and boundary >= 1000:
        assert len(tried) <= 7, tried  # a good prediction costs few runs


@pytest.mark.parametrize("guess", [0.05, 0.3, 0.9, 1.5, 4.0])
def test_a_linear_memory_figure_leads_to_the_boundary_in_few_runs(guess):
    """1 KiB per task on a 10 MiB baseline in 256 MiB: the boundary is 251,658 tasks. From any
    valid probe the line lands just inside it; from a guess too high, steps down find one first."""
    budget, base, per = 256 * MIB, 10 * MIB, 1024
    boundary = (budget - base) // per
    probe, tried = _oracle(boundary, peak=lambda n: base + per * n)
    found = search(probe, int(boundary * guess), budget=budget, baseline=base)
    _check(found, tried, boundary)
    assert len(tried) <= (5 if guess < 1 else 9), tried


def test_a_heap_that_fills_the_cap_predicts_nothing_and_steps_two_percent():
    """A JVM sizes its heap from the cap: every valid run reports the cap nearly full."""
    budget = 256 * MIB
    probe, tried = _oracle(70_000, peak=lambda n: int(0.98 * budget))
    found = search(probe, 50_000, budget=budget, baseline=20 * MIB)
    _check(found, tried, 70_000)


def test_an_answer_that_fails_when_run_again_moves_the_bracket_below_it():
    """Valid once at the boundary, then not: the N that fits only sometimes is not the capacity."""
    runs: Counter[int] = Counter()

    def probe(n: int) -> Probe:
        runs[n] += 1
        if n == 1000:
            return Probe(runs[n] == 1)  # valid the first time only
        return Probe(n < 1000)

    found = search(probe, 1000, budget=256 * MIB)
    assert found.noisy
    assert found.first_failing_n == 1000
    assert found.max_n < 1000 and runs[found.max_n] == 2
    assert 1000 - found.max_n <= TOLERANCE * 1000


def test_a_failure_below_a_valid_n_is_trusted_over_it():
    """Valid at 1020 but failing at 1000 (noise near a cap): the answer stays below 1000."""
    state = _State(256 * MIB, 0, {900: [Probe(True)], 1000: [Probe(False)], 1020: [Probe(True)]})
    assert (state.lo, state.hi) == (900, 1000)


def test_without_confirmation_each_n_runs_once():
    probe, tried = _oracle(5000)
    found = search(probe, 4000, budget=256 * MIB, confirm=False)
    _check(found, tried, 5000)
    assert len(set(tried)) == len(tried)


def test_when_nothing_fits():
    probe, tried = _oracle(0)
    found = search(probe, 5000, budget=256 * MIB)
    assert (found.max_n, found.first_failing_n) == (0, 1)
    assert tried[-1] == 1


def test_the_ceiling_ends_a_search_that_never_fails():
    probe, _ = _oracle(10**9)
    found = search(probe, 100, budget=256 * MIB, ceiling=1000)
    assert (found.max_n, found.first_failing_n) == (1000, None)
