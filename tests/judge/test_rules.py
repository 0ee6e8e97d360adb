"""runner.judge.rules.exit_stalled: a probe stopped where its exit stalled, judged through
verdict.classify with the rules before and after it."""

from __future__ import annotations

from runner.judge import verdict
from tests.support.here import HERE
from tests.support.runs import result
from tests.support.timelines import _stalling

STALLED = {
    "exit_code": None,
    "signal": "SIGKILL",
    "wall_s": 23.0,
    "stopped_by": "exit-stalled",
    "stopped_reason": "after every sleep was over, 1k threads stayed alive without ending for 10 s",
    "memory_cap": 64 << 20,
    "cgroup_peak": 63 << 20,  # at the cap, reclaimed to stay under it: no OOM kill
    "cgroup_oom_kills": 0,
}


def test_a_run_stopped_where_its_exit_stalled_is_exit_stalled_with_the_futex_hash_remedy():
    judged = verdict.classify(result(**STALLED), 1000, 10.0, {"threads": 1}, limits=HERE)
    assert (judged.verdict, judged.code) == ("invalid", "exit-stalled")
    assert "every task waited its 10 s sleep under the cap" in judged.reason
    assert judged.remedy is not None and judged.remedy.startswith("--futex-hash 1024")


def test_an_oom_kill_on_the_way_is_out_of_memory_not_a_stall():
    judged = verdict.classify(result(**{**STALLED, "cgroup_oom_kills": 1}), 1000, 10.0, limits=HERE)
    assert judged.code == "out-of-memory"


def test_a_run_without_the_watch_is_judged_as_before():
    judged = verdict.classify(
        result(timed_out=True, exit_code=None, signal="SIGKILL"), 1000, 10.0, limits=HERE
    )
    assert judged.code == "timeout"


def test_a_stall_the_futex_hash_explains_names_its_remedy_once():
    """20,000 threads, `ready` at 12 s, 19 s sleeps, then stuck with the kernel busy, on a kernel
    whose per-process futex hash has 16 buckets: the reason says so, the remedy says it once."""
    stalled = {**STALLED, "ready_n": 20_000, "ready_s": 12.0, "wall_s": 44.0, "timeline": _stalling(44.0)}
    limits = {**HERE, "futex_hash_buckets": 16}
    judged = verdict.classify(result(**stalled), 20_000, 19.0, {"threads": 1}, limits=limits)
    assert judged.code == "exit-stalled" and "futex hash of 16 buckets" in judged.reason
    assert judged.remedy is not None and judged.remedy.count("--futex-hash") == 1, judged.remedy
