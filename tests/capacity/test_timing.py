"""runner.capacity.timing: spawn times interpolated between measured N."""

from __future__ import annotations

import pytest

from runner.capacity import interpolate


def test_interpolate_interpolates_between_measured_n():
    points = [(1, 0.1), (10_000, 0.2), (1_000_000, 10.1)]
    assert interpolate(points, 1) == 0.1
    assert interpolate(points, 5_000) == pytest.approx(0.15, abs=0.001)  # not 1M's 10 s
    assert interpolate(points, 505_000) == pytest.approx(5.15, abs=0.01)
    assert interpolate(points, 2_000_000) == pytest.approx(20.1, abs=0.01)  # last slope onwards
    assert interpolate([(1, 0.3)], 50_000) == 0.3  # one point: no rate to extrapolate
    assert interpolate([], 10) is None
