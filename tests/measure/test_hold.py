"""The snapshot at the hold (runner.measure.hold) on programs of exactly known cost (tests/probes/
stacks.c, heap.c), read through the same path `memrun explain` reads: each known cost lands in
its own part within 2 %, and taking the snapshot changes no figure of the run."""

from __future__ import annotations

import statistics

import pytest

from runner.analysis import explain
from runner.measure import measure
from runner.results import RunRecord
from tests.support.cprobe import build

KiB = 1024
pytestmark = [pytest.mark.serial, pytest.mark.unbuilt]
SLEEP = 1.0


def record(argv: list[str], n: int) -> RunRecord:
    r = measure(argv, timeout=30)
    assert r.ok and r.ready_n == n and r.hold_split is not None, (r.outcome(), r.stderr_tail)
    return RunRecord(variant="probe", n=n, verdict="valid", sleep_s=SLEEP, label="here", result=r)


def split_of(make, n: int) -> explain.Split:  # type: ignore[no-untyped-def]
    found, notes = explain.splits([record(make(1), 1), record(make(n), n)])
    assert not notes and len(found) == 1, notes
    return found[0]


def parts(view: explain.View) -> dict[str, float]:
    return {k: p for k, _, p in view.parts}


def test_a_known_stack_per_thread_is_attributed_to_thread_stacks():
    stacks = build("stacks")
    n, stack_kib, touch_kib = 2000, 256, 64
    s = split_of(lambda k: [str(stacks), str(k), str(stack_kib), str(touch_kib), str(SLEEP)], n)
    rss = parts(s.rss)
    assert rss["stack"] == pytest.approx(touch_kib * KiB, rel=0.02), rss
    assert s.extra["stack_reserved"] == pytest.approx(stack_kib * KiB, rel=0.02)
    assert s.extra["guard"] == pytest.approx(4 * KiB, rel=0.02)
    assert s.extra["stacks"] == pytest.approx(1.0, rel=0.02) and s.extra["threads"] == pytest.approx(
        1.0, rel=0.02
    )
    assert abs(rss["heap"]) + abs(rss["anon"]) < 0.02 * touch_kib * KiB  # nothing else grows per thread
    assert s.rss.explained, (s.rss.total, s.rss.measured)
    # The kernel's side (cgroup v1 keeps one kernel total; the 16 KiB kernel stack alone is tested
    # on cgroup v2, tests/vm/guest): at least a kernel stack per thread, and the cgroup's parts
    # sum to its usage at the hold, which is its peak here.
    assert s.cgroup is not None and s.cgroup.explained, (s.cgroup.total, s.cgroup.measured)
    kernel = sum(p for k, _, p in s.cgroup.parts if k != "cg_user")
    assert kernel >= 16 * KiB


def test_a_known_heap_allocation_per_task_is_attributed_to_the_heap():
    heap = build("heap")
    n, size = 10_000, 4000
    s = split_of(lambda k: [str(heap), str(k), str(size), str(SLEEP)], n)
    rss = parts(s.rss)
    assert rss["heap"] == pytest.approx(size, rel=0.02), rss  # malloc's 16-byte header: +0.4 %
    assert abs(rss["stack"]) + abs(rss["anon"]) < 0.02 * size
    assert s.rss.explained and s.cgroup is not None and s.cgroup.explained


def test_the_snapshot_changes_no_figure_of_the_run():
    """The same program, three times with the snapshot and three times without, alternating: the
    medians of the peak RSS and of the cgroup peak agree within the run-to-run spread of this
    program here (±100 KiB of its 41 MB, shared-library pages faulted around)."""
    heap = build("heap")
    argv = [str(heap), "10000", "4000", "0.5"]
    taken, skipped = [], []
    for _ in range(3):
        with_it, without = measure(argv, timeout=30), measure(argv, timeout=30, at_hold=None)
        assert with_it.hold_split is not None and without.hold_split is None
        assert with_it.hold_split["t"] >= with_it.ready_s  # after `ready`, after that sample's marks
        taken.append(with_it)
        skipped.append(without)
    for metric in ("peak_rss", "cgroup_peak"):
        a = statistics.median(getattr(r, metric) for r in taken)
        b = statistics.median(getattr(r, metric) for r in skipped)
        assert abs(a - b) <= max(256 * KiB, 0.005 * b), (metric, a, b)
