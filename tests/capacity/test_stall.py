"""runner.capacity.stall: the watch that ends a probe where its exit stalls, fed the samples of a
stored stall (Python's threads near 20k under 1 GiB) as they would arrive."""

from __future__ import annotations

from runner.capacity.stall import STALLED, StallWatch, room
from runner.judge.diagnose import STALL_S
from tests.support.timelines import _stalling


def _first_stop(samples, ready_s: float, sleep: float):  # type: ignore[no-untyped-def]
    watch = StallWatch(sleep)
    for i in range(1, len(samples) + 1):
        seen = samples[:i]
        if (stop := watch(seen, ready_s if seen[-1].t >= ready_s else None)) is not None:
            return seen[-1].t, stop
    return None


def test_a_stall_stops_the_probe_once_no_thread_has_ended_for_stall_s():
    """`ready` at 12 s, 19 s sleeps: every sleep is over at 31 s; a thousand end by 33 s, then
    none. The watch says so once the count has held STALL_S (read at most once a second)."""
    found = _first_stop(_stalling(90.0), ready_s=12.0, sleep=19.0)
    assert found is not None
    at, (code, why) = found
    assert code == STALLED and why.startswith("after every sleep was over, 19k threads stayed alive")
    assert 33.0 + STALL_S <= at <= 33.0 + STALL_S + 1.5, at


def test_threads_that_all_end_or_a_sleep_not_over_never_stop_it():
    assert _first_stop(_stalling(60.0, stuck=0), ready_s=12.0, sleep=19.0) is None  # all ended
    assert _first_stop(_stalling(30.0), ready_s=12.0, sleep=19.0) is None  # still asleep
    assert _first_stop(_stalling(60.0), ready_s=12.0, sleep=40.0) is None  # a longer sleep: not over


def test_the_timeout_leaves_room_for_a_stall_to_show():
    """`ready` may come as late as the sleep; the stall shows STALL_S after the sleep after it."""
    assert room(19.0) >= 2 * 19.0 + STALL_S + 1.0
