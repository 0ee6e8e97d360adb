"""The tick protocol's histogram and summary lines, read as every program writes them."""

from __future__ import annotations

import pytest

from runner.workloads.tick.summary import BUCKETS, SummaryError, bucket, lowest_us, parse


def test_buckets_are_exact_below_256_us_then_under_1_percent_wide():
    assert [bucket(v) for v in (0, 1, 255)] == [0, 1, 255]
    assert bucket(-5) == 0
    assert bucket(256) == 256 and bucket(257) == 256 and bucket(258) == 257
    assert bucket((1 << 32) - 1) == BUCKETS - 1
    assert bucket(1 << 40) == BUCKETS - 1  # capped
    for v in (300, 1000, 20_000, 999_999, 12_000_000, 3_000_000_000):
        i = bucket(v)
        low, high = lowest_us(i), lowest_us(i + 1) if i + 1 < BUCKETS else 1 << 32
        assert low <= v < high
        assert (high - low) / low < 0.008  # more than two significant digits


def test_every_bucket_starts_where_the_last_ended():
    for i in range(1, BUCKETS):
        assert bucket(lowest_us(i)) == i and bucket(lowest_us(i) - 1) == i - 1


def test_the_summary_reads_into_percentiles_at_the_buckets_lowest_value():
    told = parse(
        [
            "ready 10",
            "tick periods 3 asked 30 achieved 29 checksum 7",
            f"lateness_us 5:10 {bucket(20_000)}:19 {bucket(900_000)}:1",
        ]
    )
    assert (told.periods, told.asked, told.achieved, told.checksum, told.recorded) == (3, 30, 29, 7, 30)
    stored = told.to_json()
    assert stored["lateness"]["count"] == 30
    assert stored["lateness"]["p50_us"] == pytest.approx(lowest_us(bucket(20_000)), rel=0.001)
    assert stored["lateness"]["max_us"] == pytest.approx(lowest_us(bucket(900_000)), rel=0.001)
    assert stored["lateness"]["hdr"]


@pytest.mark.parametrize(
    ("lines", "says"),
    [
        (["ready 1"], "no `tick periods"),
        (["tick periods 1 asked 1 achieved 1 checksum 0"], "no `lateness_us`"),
        (["tick periods 1 asked 1 achieved 1 checksum 0", "lateness_us 3328:1"], "is not BUCKET:COUNT"),
        (["tick periods 1 asked 1 achieved 1 checksum 0", "lateness_us 5-1"], "is not BUCKET:COUNT"),
    ],
)
def test_a_summary_off_the_protocol_says_what_is_wrong(lines, says):
    with pytest.raises(SummaryError, match=says):
        parse(lines)


def test_one_short_read_of_the_tree_does_not_decide_the_rss_at_ready():
    from runner.measure.result import Sample
    from runner.workloads.tick.judge import rss_at

    mib = 1 << 20
    timeline = [
        Sample(0.95, 200 * mib, 5, 1, None),
        Sample(1.0, mib, 5, 1, None),
        Sample(1.05, 200 * mib, 5, 1, None),
    ]
    assert rss_at(timeline, 0.99) == 200 * mib  # elixir-spawn's sample of 1 MiB at 100k, once
    assert rss_at(timeline, 1.2) is None
