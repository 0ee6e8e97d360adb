"""runner.bisection: the search itself, against series whose answer is known (no runs)."""

from __future__ import annotations

import math

import pytest

from runner.bisection import MAX_REPEATS, Probe, another_change, built, search

VERSIONS = [f"1.{i}.0" for i in range(40)]


def series(first_changed: int, before: float = 300.0, after: float = 460.0, noise=None, missing=()):
    """measure() for a fake series: per-task bytes `before` up to the change, `after` from it on."""
    calls: list[tuple[str, int]] = []

    def measure(version: str, runs: int) -> Probe:
        calls.append((version, runs))
        i = VERSIONS.index(version)
        if i in missing:
            return Probe(version, None, None, None, 0, None, problem="build failed")
        value = after if i >= first_changed else before
        if noise:
            value = noise(i, runs, value)
        return Probe(version, value, value * 1e5, 2e6, runs, 0.0)

    return measure, calls


@pytest.mark.parametrize("changed", [1, 2, 17, 29, 38, 39])
def test_finds_the_first_changed_version_within_the_bound(changed):
    measure, calls = series(changed)
    out = search(VERSIONS, measure, threshold=0.10)
    assert out.first_changed == VERSIONS[changed] and out.last_same == VERSIONS[changed - 1]
    assert built(out) <= math.ceil(math.log2(len(VERSIONS))) + 2 == out.bound
    assert len(calls) == built(out)  # no noise: one measurement per version


def test_no_change_in_the_range_is_said_after_two_builds():
    measure, calls = series(99)
    out = search(VERSIONS, measure, threshold=0.10)
    assert out.first_changed is None and "no change beyond 10%" in out.note and len(calls) == 2


def test_a_change_below_the_threshold_is_not_a_change():
    measure, _ = series(10, before=300.0, after=320.0)  # +6.7 %
    assert search(VERSIONS, measure, threshold=0.10).first_changed is None


def test_a_verdict_near_the_threshold_takes_more_runs_and_uses_their_median():
    # 1.19.0 is the first probe inside the range. One run says +12 % (a change); the median of
    # three says +2 % (no change), which is far enough from the threshold to stop there.
    def noise(i, runs, value):
        return (336.0 if runs == 1 else 306.0) if i == 19 else value

    measure, calls = series(30, noise=noise)
    out = search(VERSIONS, measure, threshold=0.10)
    assert out.first_changed == VERSIONS[30]
    assert [r for v, r in calls if v == VERSIONS[19]] == [1, 3]
    assert out.judged[VERSIONS[19]] is False


def test_runs_that_stay_in_doubt_stop_at_the_most_repeats():
    def noise(i, runs, value):
        return 336.0 if i == 19 else value  # +12 % however many runs

    measure, calls = series(30, noise=noise)
    out = search(VERSIONS, measure, threshold=0.10)
    assert [r for v, r in calls if v == VERSIONS[19]] == [1, 3, MAX_REPEATS]
    assert out.judged[VERSIONS[19]] is True and out.first_changed == VERSIONS[19]


def test_a_version_without_a_figure_is_skipped_for_its_neighbour():
    measure, _ = series(17, missing={19})
    out = search(VERSIONS, measure, threshold=0.10)
    assert out.first_changed == VERSIONS[17]
    assert VERSIONS[19] in {p.version for p in out.probes} and VERSIONS[19] not in out.judged


def test_without_a_reference_figure_there_is_no_answer():
    measure, calls = series(17, missing={0})
    out = search(VERSIONS, measure, threshold=0.10)
    assert out.first_changed is None and "no reference" in out.note and len(calls) == 1


def test_a_second_change_after_the_first_is_pointed_out():
    # 1.40 KiB up to 1.9.0, 0.24 from 1.10.0, 0.44 from 1.20.0: tokio's two steps, scaled down.
    def measure(version: str, runs: int) -> Probe:
        i = VERSIONS.index(version)
        value = 1434.0 if i < 10 else (248.0 if i < 20 else 455.0)
        return Probe(version, value, value * 1e5, 2e6, runs, 0.0)

    out = search(VERSIONS, measure, threshold=0.10)
    assert out.first_changed == VERSIONS[10]
    later = another_change(out)
    assert later is not None and VERSIONS.index(later.version) >= 20


def test_one_change_has_no_second():
    measure, _ = series(17)
    assert another_change(search(VERSIONS, measure, threshold=0.10)) is None
