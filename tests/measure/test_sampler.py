"""runner.measure.sampler: which of its reads of the cgroup a run's record keeps."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from runner.measure import measure
from runner.measure.sampler import Sampler
from tests.support.process import probe

MIB = 1 << 20


class _Cgroup:
    """A run cgroup with no process to read, whose usage and memory.stat are given read by read."""

    def __init__(self, reads: list[tuple[int, dict[str, int]]]) -> None:
        self._reads: Iterator[tuple[int, dict[str, int]]] = iter(reads)
        self._stat: dict[str, int] = {}

    def members(self, root: int) -> list[int]:
        return []

    def usage(self) -> int:
        usage, self._stat = next(self._reads)
        return usage

    def breakdown(self) -> dict[str, int]:
        return self._stat


def test_the_breakdown_is_the_last_read_at_the_highest_usage():
    """memory.stat read just after a fast growth lagged its usage by 37 MiB on CI: a later read at
    the same usage replaces it, a lower one does not."""
    stale, settled = {"anon": 224 * MIB, "kernel": 1}, {"anon": 261 * MIB, "kernel": 1}
    reads = [(100 * MIB, {"anon": 99 * MIB}), (262 * MIB, stale), (262 * MIB, settled), (200 * MIB, {})]
    s = Sampler(_Cgroup(reads))  # type: ignore[arg-type]
    for _ in reads:
        s.sample(0.0, 1, holding=False)
    assert (s.cg_best, s.breakdown) == (262 * MIB, settled)
    assert s.held == {} and s.held_best == -1  # nothing was held open


def test_the_holds_snapshot_competes_as_a_sample_does():
    s = Sampler(_Cgroup([(262 * MIB, {"anon": 224 * MIB, "kernel": 5})]))  # type: ignore[arg-type]
    s.sample(0.0, 1, holding=True)
    snapshot = {"anon": 261 * MIB, "kernel": 7}
    s.offer(262 * MIB, snapshot, holding=True)
    assert s.breakdown == snapshot and s.held == snapshot and s.held_best == 7
    s.offer(100 * MIB, {"anon": 0, "kernel": 9}, holding=False)  # lower, and nothing held
    assert s.breakdown == snapshot and s.held_best == 7


def test_a_point_is_stamped_as_its_reads_begin():
    """The RSS a point sums is never older than its time: a sampler held up in the cgroup's reads
    after the processes' stamps the point before them (a point stamped after `ready` must not
    carry an RSS read before it)."""

    class _Slow(_Cgroup):
        def usage(self) -> int:
            time.sleep(0.05)
            return super().usage()

    t0 = time.monotonic()
    s = Sampler(_Slow([(MIB, {})]))  # type: ignore[arg-type]
    s.sample(t0, 1, holding=False)
    assert time.monotonic() - t0 - s.timeline[0].t >= 0.05


# Serial, and not `unbuilt`: the CPU time a probe takes in a given wall time is what a busy core
# moves (beside the builds it got 0.33 s of user CPU in its 0.6 s).
@pytest.mark.serial
def test_timeline_records_the_trees_cpu_time():
    # 0.6 s of user CPU, then `ready 1` and 0.5 s idle: the last samples show it all, and CPU time
    # never goes back
    r = measure(probe("threads.py", "spin", 0.6), interval=0.05)
    assert r.exit_code == 0 and r.ready_n == 1
    cpu = [(s.user_s, s.sys_s) for s in r.timeline if s.procs]
    assert cpu and all(u is not None and s is not None for u, s in cpu)
    users = [u for u, _ in cpu]
    assert users == sorted(users) and 0.5 <= users[-1] <= 0.9, cpu[-3:]
    assert r.timeline[-1].row()[5:] == [r.timeline[-1].user_s, r.timeline[-1].sys_s]
