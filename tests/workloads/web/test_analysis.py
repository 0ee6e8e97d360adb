"""The http cells from stored runs: histograms pooled as HdrHistogram pools them, the runs'
spread, percentiles shown only with enough samples beyond them, censored requests as lower bounds,
client-limited phases, and the first client's rows still shown (marked)."""

from __future__ import annotations

import pandas as pd

from runner.analysis.hdr import index_of
from runner.workloads.web.analysis import phase_cells, too_few
from runner.workloads.web.client import stored_phase


def _raw(values_us: dict[int, int]) -> dict:
    """A client-printed histogram: value (us) -> count."""
    counts: dict[int, int] = {}
    for v, n in values_us.items():
        counts[index_of(v * 1000)] = counts.get(index_of(v * 1000), 0) + n
    return {"count": sum(values_us.values()), "counts": [[i, n] for i, n in sorted(counts.items())]}


def _new_phase(latency: dict[int, int], lag: dict[int, int], censored: dict[int, int] | None = None) -> dict:
    cens = _raw(censored or {})
    lat = dict(latency)
    for v, n in (censored or {}).items():
        lat[v] = lat.get(v, 0) + n
    raw = {
        "rate": 1000.0,
        "scheduled": sum(lat.values()),
        "achieved_rate": 1000.0,
        "unanswered": cens["count"],
        "latency": _raw(lat),
        "service": _raw(latency),
        "send_lag": _raw(lag),
        "censored": cens,
        "server": {"cpu_per_1k_s": 0.05, "peak_rss": 10_000_000},
    }
    return stored_phase(raw)


def _row(phase: dict, verdict: str = "valid") -> dict:
    client = {"phases": [phase], "idle": {"rss": 8_000_000}, "cgroup_peak": 1_000_000}
    return {
        "variant": "v",
        "n": 100,
        "verdict": verdict,
        "client": client,
        "kind": "sweep",
        "params": {"slo": 0.1},
    }


def _old_phase(p99: int, achieved: float, buckets: list[list[int]]) -> dict:
    return {
        "rate": 1000.0,
        "achieved_rate": achieved,
        "unanswered": 0,
        "latency": {"p50_us": 100, "p99_us": p99, "buckets": buckets},
        "service": {"p99_us": 50},
        "server": {"cpu_per_1k_s": 0.05, "peak_rss": 10_000_000},
        "cpu_s": 0.2,
    }


def test_runs_pool_as_hdrhistogram_adds_and_their_spread_shows():
    a = _new_phase({100: 990, 1_000: 10}, {5: 1000})
    b = _new_phase({100: 980, 3_000: 20}, {5: 1000})
    invalid = _new_phase({9_000_000: 1000}, {5: 1000})
    cell = phase_cells(pd.DataFrame([_row(a), _row(b), _row(invalid, "invalid")]))[("v", 100)]
    r = cell["rates"][1000]
    assert r["runs"] == 2 and not r["old_client"] and not r["saturated"] and r["client_limited"] is None
    lat = r["latency"]
    assert lat["count"] == 2000, "the invalid run is left out"
    assert 100 <= lat["p50_us"] <= 100.1 and 1_000 <= lat["p99_us"] <= 1_001, "the 1,980th of 2,000"
    assert r["spread"]["p99_us"][0] < r["spread"]["p99_us"][1], "each run's own p99"
    assert not too_few(lat, "p99_us"), "20 samples beyond p99"
    assert too_few(lat, "p999_us"), "2 samples beyond p99.9: too few"
    assert cell["idle_rss"] == 8_000_000


def test_censored_requests_make_the_percentiles_they_reach_lower_bounds():
    phase = _new_phase({100: 900}, {5: 1000}, censored={5_000_000: 100})
    r = phase_cells(pd.DataFrame([_row(phase)]))[("v", 100)]["rates"][1000]
    lat = r["latency"]
    assert lat["censored"] == 100 and 4_990_000 <= lat["censored_min_us"] <= 5_000_000
    assert lat["lower_bound"]["p99_us"] and not lat["lower_bound"]["p50_us"]
    assert r["saturated"] and "unanswered" in r["why"]


def test_a_send_lag_over_a_tenth_of_p99_makes_the_cell_client_limited():
    phase = _new_phase({200: 1000}, {100: 1000})
    r = phase_cells(pd.DataFrame([_row(phase)]))[("v", 100)]["rates"][1000]
    assert r["client_limited"] and "send lag p99" in r["client_limited"]


def test_an_empty_histogram_stores_null_never_zero():
    phase = _new_phase({}, {})
    assert phase["latency"]["count"] == 0
    assert all(phase["latency"][k] is None for k in ("p50_us", "p99_us", "p999_us", "max_us", "mean_us"))
    assert phase["latency"]["hdr"] is None


def test_rows_of_the_first_client_still_show_marked_and_are_set_aside_beside_new_ones():
    old = [
        _row(_old_phase(1_000, 1000, [[100, 90], [1_000, 10]])),
        _row(_old_phase(3_000, 1000, [[100, 80], [3_000, 20]])),
    ]
    r = phase_cells(pd.DataFrame(old))[("v", 100)]["rates"][1000]
    assert r["old_client"] and r["runs"] == 2 and r["send_lag"] is None
    assert r["latency"]["count"] == 200 and 2_999 <= r["p99_us"] <= 3_002
    mixed = phase_cells(pd.DataFrame([*old, _row(_new_phase({100: 1000}, {5: 1000}))]))
    r = mixed[("v", 100)]["rates"][1000]
    assert not r["old_client"] and r["runs"] == 1 and r["set_aside_old"] == 2


def test_a_rate_most_runs_saturated_is_saturated():
    runs = pd.DataFrame([_row(_old_phase(1_000, 500, [[100, 1]])), _row(_old_phase(1_000, 1000, [[100, 1]]))])
    assert phase_cells(runs)[("v", 100)]["rates"][1000]["saturated"], "a tie counts as saturated"
