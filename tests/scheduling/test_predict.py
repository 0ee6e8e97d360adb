"""Predictions of a run's spawn, peak and end from the variant's runs at the same or smaller N."""

from __future__ import annotations

import pytest

from runner.results import RunRecord
from runner.scheduling.predict import (
    TYPICAL,
    UNKNOWN_BASE_BYTES,
    UNKNOWN_BASE_S,
    UNKNOWN_PER_TASK_BYTES,
    UNKNOWN_PER_TASK_S,
    errors,
    predict,
)
from runner.units import MIB
from runner.workload import get
from tests.support.runs import result

SLEEP = get("sleep")


def run(n: int, ready: float, peak: int, variant: str = "v", workload: str = "sleep") -> RunRecord:
    res = result(ready_n=n, ready_s=ready, wall_s=10.0 + ready / 10, peak_rss=peak, cgroup_peak=peak)
    return RunRecord(variant, n, "valid", sleep_s=10.0, result=res, workload=workload, label="here")


def test_nothing_known_gives_the_pessimistic_bounds():
    p = predict([], "v", 100_000, SLEEP)
    assert p.guessed == ("spawn", "peak") and p.warm == 0
    assert p.spawn_s == pytest.approx(UNKNOWN_BASE_S + 100_000 * UNKNOWN_PER_TASK_S)
    assert p.peak == UNKNOWN_BASE_BYTES + 100_000 * UNKNOWN_PER_TASK_BYTES


def test_an_eta_takes_typical_costs_where_the_scheduler_takes_bounds():
    """The ETA's guesses are a typical task's (a 1M cell of a variant not yet run: about 1 GiB and
    12 s, not 64 GiB and 300 s); what the scheduler admits on stays bounded."""
    typical, bound = predict([], "v", 1_000_000, SLEEP, TYPICAL), predict([], "v", 1_000_000, SLEEP)
    assert typical.peak == TYPICAL.base_bytes + 1_000_000 * TYPICAL.bytes < bound.peak / 30
    assert typical.spawn_s == pytest.approx(UNKNOWN_BASE_S + 1_000_000 * TYPICAL.spawn_s)
    assert typical.exit_s < bound.exit_s / 10 and typical.guessed == bound.guessed == ("spawn", "peak")
    once = [run(1, 0.1, 20 * MIB)]  # one smaller N: its peak and a typical cost per task above it
    assert predict(once, "v", 10_001, SLEEP, TYPICAL).peak == 20 * MIB + 10_000 * TYPICAL.bytes


def test_one_smaller_n_gives_its_figures_and_a_pessimistic_rate():
    p = predict([run(1, 0.1, 20 * MIB)], "v", 10_000, SLEEP)
    # no rate was measured: no sleep is chosen from it; the peak is a bound: nothing is touched for it
    assert p.guessed == ("spawn", "peak") and p.warm == 0
    assert p.spawn_s == pytest.approx(0.1 + 9_999 * UNKNOWN_PER_TASK_S)
    assert p.peak == 20 * MIB + 9_999 * UNKNOWN_PER_TASK_BYTES


def test_two_smaller_n_give_the_line_and_the_same_n_gives_itself():
    known = [run(1, 0.1, 20 * MIB), run(10_000, 0.2, 60 * MIB), run(100_000, 1.1, 420 * MIB)]
    p = predict(known, "v", 1_000_000, SLEEP)
    # the last segment's rate, 10 µs a task, or 100k's own 11 µs a task, whichever is slower
    assert p.spawn_s == pytest.approx(1.1 + 1.1 / 100_000 * 900_000)
    slower = [run(1, 0.1, 20 * MIB), run(10_000, 0.2, 60 * MIB), run(100_000, 2.0, 420 * MIB)]
    assert predict(slower, "v", 1_000_000, SLEEP).spawn_s == pytest.approx(2.0 + 1.8 / 90_000 * 900_000)
    assert p.peak == pytest.approx(420 * MIB + 400 * MIB / 99_999 * 900_000, rel=1e-6)
    assert p.guessed == () and p.warm == p.peak  # a line through measured N: its memory is touched first
    again = predict([*known, run(1_000_000, 10.5, 4000 * MIB)], "v", 1_000_000, SLEEP)
    assert again.spawn_s == 10.5 and again.peak == 4000 * MIB


def test_other_variants_and_workloads_say_nothing():
    other = [run(10_000, 5.0, 900 * MIB, variant="w"), run(10_000, 5.0, 900 * MIB, workload="connections")]
    assert predict(other, "v", 10_000, SLEEP).guessed == ("spawn", "peak")


def test_the_error_is_measured_over_predicted_less_one():
    p = predict([run(10_000, 2.0, 100 * MIB)], "v", 10_000, SLEEP)
    assert errors(p, 3.0, 80 * MIB) == {"spawn_error": 0.5, "peak_error": -0.2}
    assert errors(p, None, None) == {"spawn_error": None, "peak_error": None}
