"""The histograms are HdrHistogram's: the layout client.c uses is hdrh's, percentiles read as
hdrh reads them, the encoding round-trips, and the .hgrm file is HdrHistogram's own."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hdrh.histogram import HdrHistogram

from runner.analysis import hdr


def _both(values: list[int]) -> tuple[hdr.Hist, HdrHistogram]:
    theirs = HdrHistogram(hdr.LOWEST, hdr.HIGHEST, hdr.DIGITS)
    mine = hdr.Hist.empty()
    for v in values:
        theirs.record_value(v)
        mine.counts[hdr.index_of(v)] += 1
    return mine, theirs


def test_the_layout_and_the_percentiles_are_hdrhistograms():
    rng = random.Random(7)
    values = [int(rng.lognormvariate(11, 2.5)) for _ in range(5_000)] + [0, 1, 2047, 2048, 4096, hdr.HIGHEST]
    mine, theirs = _both([min(v, hdr.HIGHEST) for v in values])
    for v in values:
        assert hdr.index_of(v) == theirs.get_counts_array_index(min(v, hdr.HIGHEST)), v
    for p in (0.0, 1.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0):
        assert mine.percentile_ns(p) == theirs.get_value_at_percentile(p), p
    assert mine.max_ns() == theirs.get_max_value() and mine.min_ns() == theirs.get_min_value()
    assert abs(mine.mean_ns() - theirs.get_mean_value()) <= 1e-6 * theirs.get_mean_value()


def test_the_mean_is_the_one_its_hgrm_prints_to_the_nanosecond():
    """Below 2,048 ns each value has a range of its own, and HdrHistogram counts it at that value
    (lowest + half the range's size, in whole ns), not half a nanosecond above."""
    mine, theirs = _both([1, 3, 5, 1_000])
    assert mine.mean_ns() == theirs.get_mean_value() == (1 + 3 + 5 + 1_000) / 4
    printed = next(line for line in mine.hgrm(unit_ns=1.0).splitlines() if line.startswith("#[Mean"))
    assert printed.startswith(f"#[Mean    = {mine.mean_ns():12.3f},"), printed


def test_three_significant_digits():
    mine, _ = _both([123_456_789])
    assert abs(mine.percentile_ns(50) - 123_456_789) / 123_456_789 < 1e-3


def test_encoding_round_trips_and_hgrm_is_hdrhistograms_format():
    mine, _ = _both([1_000, 2_000, 3_000_000])
    back = hdr.Hist.decode(mine.encode())
    assert (back.counts == mine.counts).all()
    assert HdrHistogram.decode(mine.encode().encode()).get_total_count() == 3
    text = mine.hgrm()
    assert text.splitlines()[0].split() == ["Value", "Percentile", "TotalCount", "1/(1-Percentile)"]
    assert "3.000" in text or "3.001" in text, "values in ms"


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hgrm"


@pytest.mark.parametrize("name", ["three", "heavy", "lognormal"])
def test_the_hgrm_file_is_byte_for_byte_what_hdrhistograms_java_library_prints(name: str):
    """NAME.counts (value in ns, count) recorded into org.HdrHistogram.Histogram(1, 3.6e12, 3) of
    HdrHistogram 2.2.2 and printed by outputPercentileDistribution(out, 5, 1e6) gave NAME.hgrm:
    its ticks, Java's half-up rounding, the mean and deviation in ms, the footer."""
    mine = hdr.Hist.empty()
    for line in (FIXTURES / f"{name}.counts").read_text().splitlines():
        value, count = map(int, line.split())
        mine.counts[hdr.index_of(value)] += count
    assert mine.hgrm() == (FIXTURES / f"{name}.hgrm").read_text()


def test_too_few_samples_beyond_a_percentile():
    mine, _ = _both(list(range(1, 10_001)))
    assert mine.shown(99.9) and mine.shown(99) and not hdr.Hist.empty().shown(50)
    small, _ = _both(list(range(1, 1_000)))
    assert small.shown(99) is False and small.shown(90)


def test_an_empty_histogram_reads_none():
    h = hdr.Hist.empty()
    assert h.percentile_ns(50) is None and h.max_ns() is None and h.mean_ns() is None and h.encode() is None
