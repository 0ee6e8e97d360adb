"""runner.judge.overlap, and the verdict rules built on it: what proves from outside that a run's N
waits overlapped. The end-to-end cases run the fake program of known cost under the real core."""

from __future__ import annotations

import pytest

from runner import tasks
from runner.execute import Settings, execute
from runner.judge import overlap, verdict
from runner.measure import RunSpec, Sample
from tests.support.cli import FIXTURE_TASKS
from tests.support.here import HERE
from tests.support.runs import result


def _timeline(*points: tuple[float, int]) -> list[Sample]:
    return [Sample(t, rss, 1, 1, None) for t, rss in points]


def test_hold_ratio_is_rss_at_ready_over_the_highest_until_the_first_wait_can_end():
    timeline = _timeline((0.1, 10), (0.5, 50), (1.0, 80), (2.0, 100), (9.0, 100), (10.5, 200))
    # `ready` at 0.5 s: 50 at the first sample from then, 100 the highest until 10 s (200 is later)
    assert overlap.hold_ratio(timeline, 0.5, 10.0) == 0.5
    assert overlap.hold_ratio(timeline, 2.0, 10.0) == 1.0


def test_hold_ratio_without_ready_or_samples_is_unknown():
    timeline = _timeline((0.1, 10), (20.0, 10))
    assert overlap.hold_ratio(timeline, None, 10.0) is None
    assert overlap.hold_ratio(timeline, 1.0, 10.0) is None  # no sample in [1, 10]
    assert overlap.hold_ratio(timeline, 11.0, 10.0) is None  # `ready` after the first wait could end


def test_the_window_ends_a_sleep_after_the_fork_or_after_ready():
    assert overlap.hold_window_end(False, 2.0, 10.0) == 10.0  # tasks that sleep from their start
    assert overlap.hold_window_end(True, 2.0, 10.0) == 12.0  # connections held from `ready` on
    assert overlap.hold_window_end(False, None, 10.0) is None


@pytest.mark.parametrize(("wall", "sleep", "proved"), [(10.3, 10, True), (19.9, 10, True), (20.0, 10, False)])
def test_timing_proves_overlap_below_twice_the_sleep(wall, sleep, proved):
    assert overlap.timing_proves_overlap(wall, sleep) is proved


def test_a_run_shorter_than_its_sleep_is_invalid():
    v = verdict.classify(result(wall_s=0.4, ready_s=0.3), 1000, 10, {}, HERE)
    assert (v.verdict, v.code) == ("invalid", "ended-before-sleep")
    assert v.reason == "the run ended after 0.40 s, before its 10 s sleep could: its tasks did not wait"


def test_a_valid_run_says_whether_its_timing_proves_overlap():
    assert verdict.classify(result(wall_s=11.0), 1000, 10, {}, HERE).overlap_by_timing is True
    late = verdict.classify(result(wall_s=25.0, ready_s=9.0), 1000, 10, {}, HERE)
    assert late.valid and late.overlap_by_timing is False  # valid on the program's `ready` alone


@pytest.fixture(scope="module")
def fake() -> tasks.Variant:
    variant = tasks.load_all(FIXTURE_TASKS)["fake"]
    assert not tasks.build_all([variant], log=lambda line: None)
    return variant


@pytest.mark.serial
@pytest.mark.unbuilt
def test_a_program_that_says_ready_and_exits_is_invalid(fake, monkeypatch):
    monkeypatch.setenv("FAKE_QUIT_AT_READY", "1")
    ex = execute(fake, 1000, 2.0)
    assert ex.result.exit_code == 0 and ex.result.ready_n == 1000
    assert (ex.judged.verdict, ex.judged.code) == ("invalid", "ended-before-sleep"), ex.judged
    record = ex.record()
    assert record.code == "ended-before-sleep" and "its tasks did not wait" in (record.reason or "")


@pytest.mark.serial
@pytest.mark.unbuilt
def test_memory_that_arrives_after_ready_shows_in_the_hold_ratio(fake, monkeypatch):
    # 40 MiB touched over 1 s after `ready`, against the interpreter's ~10 MB: a ratio near 0.2
    monkeypatch.setenv("FAKE_LATE_S", "1.0")
    late = execute(fake, 40_000, 2.0, Settings(RunSpec(interval=0.02))).record()
    assert late.verdict == "valid" and late.hold_ratio is not None
    assert late.hold_ratio < 0.5, late.hold_ratio
    monkeypatch.delenv("FAKE_LATE_S")
    held = execute(fake, 40_000, 2.0, Settings(RunSpec(interval=0.02))).record()
    assert held.hold_ratio is not None and held.hold_ratio >= overlap.HELD, held.hold_ratio
    assert held.overlap_by_timing is True
