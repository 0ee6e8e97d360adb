"""runner.scheduling.warm: how much is touched before a fork, and that it is touched for real (the
kernel counts a fault for every page) and given back."""

from __future__ import annotations

import resource
from pathlib import Path

from runner.scheduling import warm
from runner.units import GIB, MIB


def test_the_predicted_peak_is_touched_within_half_the_free_memory_and_nothing_too_small():
    assert warm.size_for(2 * GIB, 16 * GIB) == 2 * GIB
    assert warm.size_for(2 * GIB, 1 * GIB) == 512 * MIB  # never more than half of what is free
    assert warm.size_for(2 * GIB, None) == 0  # free memory unknown: nothing
    assert warm.size_for(warm.WARM_MIN - 1, 16 * GIB) == 0
    assert warm.size_for(warm.WARM_MIN, 100 * MIB) == 0  # half of the free memory is too little
    assert warm.bound_s(0) == 0.0 and warm.bound_s(2 * GIB) == 2 * warm.WARM_S_PER_GIB


def _rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def test_every_page_is_faulted_in_and_given_back():
    size = 96 * MIB
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    rss = _rss()
    w = warm.warm(size)
    pages = size // resource.getpagesize()
    assert w.bytes == size and w.s > 0 and w.to_json()["bytes"] == size
    assert resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults >= pages
    assert _rss() < rss + 16 * MIB, "the touched memory was given back"
    assert warm.warm(0).bytes == 0
