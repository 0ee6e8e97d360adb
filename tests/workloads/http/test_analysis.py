"""The http cells from stored runs: medians per rate, pooled histograms, percentile curves."""

from __future__ import annotations

import pandas as pd

from runner.workloads.http.analysis import percentile_curve, phase_cells


def _run(p99: int, achieved: float, buckets: list[list[int]], verdict: str = "valid") -> dict:
    phase = {
        "rate": 1000.0,
        "achieved_rate": achieved,
        "unanswered": 0,
        "latency": {"p50_us": 100, "p99_us": p99, "buckets": buckets},
        "service": {"p99_us": 50},
        "server": {"cpu_per_1k_s": 0.05, "peak_rss": 10_000_000},
        "cpu_s": 0.2,
    }
    client = {"phases": [phase], "idle": {"rss": 8_000_000}, "cgroup_peak": 1_000_000}
    row = {"variant": "v", "n": 100, "verdict": verdict, "client": client, "kind": "sweep"}
    return {**row, "params": {"slo": 0.1}}


def test_medians_over_valid_runs_and_pooled_buckets():
    runs = pd.DataFrame(
        [
            _run(1_000, 1000, [[100, 90], [1_000, 10]]),
            _run(3_000, 1000, [[100, 80], [3_000, 20]]),
            _run(9_999_000, 10, [[100, 1]], verdict="invalid"),
        ]
    )
    cells = phase_cells(runs)
    rate = cells[("v", 100)]["rates"][1000]
    assert rate["runs"] == 2 and rate["p99_us"] == 2_000 and not rate["saturated"]
    assert rate["buckets"] == [(100, 170), (1_000, 10), (3_000, 20)]
    assert cells[("v", 100)]["idle_rss"] == 8_000_000


def test_a_rate_most_runs_saturated_is_saturated():
    runs = pd.DataFrame([_run(1_000, 500, [[100, 1]]), _run(1_000, 1000, [[100, 1]])])
    assert phase_cells(runs)[("v", 100)]["rates"][1000]["saturated"], "a tie counts as saturated"


def test_percentile_curve():
    xs, ys = percentile_curve([(100, 90), (1_000, 9), (5_000, 1)])
    assert xs == [90.0, 99.0, 100.0] and ys == [0.1, 1.0, 5.0]
    assert percentile_curve([]) == ([], [])
