"""The http workload's `.hgrm` files: the censored latencies apart from the answered ones."""

from __future__ import annotations

from runner.analysis.hdr import Hist, index_of
from runner.workloads.web.show import hgrm_parts


def _hist(values_ns: dict[int, int]) -> Hist:
    h = Hist.empty()
    for value, count in values_ns.items():
        h.counts[index_of(value)] += count
    return h


def test_censored_latencies_go_in_their_own_hgrm_never_mixed_unmarked():
    """The stored latency holds the censored values (lower bounds, at the drain's end); the
    latency `.hgrm` has the answered requests alone, and `-censored.hgrm` the censored ones."""
    censored = _hist({5_000_000_000: 30})
    latency = _hist({200_000: 60, 900_000: 10}) + censored
    send_lag = _hist({3_000: 70})
    parts = dict(hgrm_parts({"latency": latency, "censored": censored, "send_lag": send_lag}))
    assert list(parts) == ["", "-censored", "-send-lag"]
    assert parts[""].count == 70 and parts[""].max_ns() < 1_000_000, "no censored value in the latency file"
    assert parts["-censored"].count == 30 and parts["-censored"].min_ns() >= 4_990_000_000
    assert "Total count    =           70" in parts[""].hgrm()
    assert parts["-send-lag"] is send_lag


def test_with_nothing_censored_the_latency_hgrm_is_the_latency():
    latency = _hist({200_000: 60})
    parts = dict(hgrm_parts({"latency": latency, "censored": Hist.empty(), "send_lag": Hist.empty()}))
    assert parts[""] is latency and parts["-censored"].count == 0
