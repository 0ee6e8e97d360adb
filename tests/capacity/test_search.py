"""runner.capacity.search: the bracket-and-bisect search against a monotone oracle."""

from __future__ import annotations

import pytest

from runner.capacity import TOLERANCE, search


def _oracle(boundary: int):  # type: ignore[no-untyped-def]
    tried: list[int] = []

    def probe(n: int) -> bool:
        tried.append(n)
        return n <= boundary

    return probe, tried


@pytest.mark.parametrize("boundary", [1, 7, 999, 60_000, 2_345_678])
@pytest.mark.parametrize("guess", [0.5, 0.97, 1.0, 1.04, 3.0])
def test_search_brackets_then_bisects_to_within_two_percent(boundary, guess):
    probe, tried = _oracle(boundary)
    lo, hi = search(probe, max(1, int(boundary * guess)))
    assert lo == max(n for n in tried if n <= boundary)
    assert hi is not None and hi > boundary >= lo
    assert hi - lo <= max(1, TOLERANCE * hi)
    assert len(set(tried)) == len(tried), "no N is run twice"
    if 0.95 <= guess <= 1.05 and boundary >= 1000:
        assert len(tried) <= 6, tried  # a good prediction costs few runs


def test_search_when_nothing_fits():
    probe, tried = _oracle(0)
    assert search(probe, 5000) == (0, 1)
    assert tried[-1] == 1
