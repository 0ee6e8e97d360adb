"""The http workload's parameters as typed, and the CPU split between server and client."""

from __future__ import annotations

import pytest

from runner.workloads.web import params


def test_durations_and_rates():
    assert params.duration("20s") == 20 and params.duration("500ms") == 0.5 and params.duration("1m") == 60
    assert params.duration("3") == 3
    assert params.duration("200us") == pytest.approx(2e-4)
    assert params.duration("50µs") == pytest.approx(5e-5)
    with pytest.raises(ValueError, match="not a duration"):
        params.duration("fast")
    with pytest.raises(ValueError, match="more than 0"):
        params.positive_duration("0s")
    assert params.rates("50k,1k,10k") == [1000, 10000, 50000], "sent in rising order"
    with pytest.raises(ValueError, match="more than once"):
        params.rates("1k,1000")


def test_cpu_lists_and_the_split():
    assert params.cpu_list("auto") == [] and params.cpu_list("0-2,5") == [0, 1, 2, 5]
    with pytest.raises(ValueError, match="not a CPU list"):
        params.cpu_list("first")
    assert params.split_cpus([], {0, 1}) == ([0], [1])
    assert params.split_cpus([], {0, 1, 2, 3}) == ([0, 1], [2, 3])
    assert params.split_cpus([3], {0, 1, 2, 3}) == ([3], [0, 1, 2])
    assert params.split_cpus([], {0}) == ([0], [0]), "one CPU: they share it, and the record says so"
    with pytest.raises(ValueError, match="CPU 7 is not one"):
        params.split_cpus([7], {0, 1})


def test_header_lines():
    """`|` between lines; none is None, as every run from before the option stored; a line that is
    no `NAME: VALUE`, a Host of the user's own and more than the client's buffer are refused."""
    assert params.headers("") is None and params.headers(" | ") is None
    assert params.headers("User-Agent: Go-http-client/1.1|X-Vegeta-Seq: 0") == [
        "User-Agent: Go-http-client/1.1",
        "X-Vegeta-Seq: 0",
    ]
    for bad in ("no colon", "Bad Name: x", "Name : x", "Host: example.com", "A: " + "x" * 800):
        with pytest.raises(ValueError):
            params.headers(bad)
