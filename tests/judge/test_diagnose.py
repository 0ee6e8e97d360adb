"""runner.judge.diagnose on synthetic timelines (a plateau at a limit, a plateau below every limit, a
collapse of thread creation, and the shapes that must not be mistaken for either), then on real
runs of a probe that stops creating threads and of one whose creation slows down."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from runner.judge import verdict
from runner.judge.diagnose import cpu_rates, diagnose, net_rates, rounded, short_count
from runner.limits import futex
from runner.measure import Sample, measure
from tests.support.cli import ROOT
from tests.support.here import HERE, JAVA, RUST
from tests.support.process import probe
from tests.support.runs import JAVA_FAILURES, failed
from tests.support.timelines import _stalling, timeline


def rising_then_flat(level: int, rise_s: float, until: float) -> list[Sample]:
    return timeline(lambda t: 1 + min(level - 1, (level - 1) * t / rise_s), until)


def test_plateau_at_a_limit_names_it():
    # 5,000 threads in 1 s, then nothing new for 3 s; pid_max leaves room for 5,100
    tl = rising_then_flat(5000, 1.0, 4.0)
    limits = {"pid_max": 5200, "threads_now": 100}
    d = diagnose(tl, n=100_000, sleep_s=60, per_task=JAVA, limits=limits)
    assert d is not None and (d.kind, d.limit, d.capacity, d.threads) == ("limit", "pid_max", 5100, 5000)
    assert d.text.startswith("thread count stopped at 5,000, at kernel.pid_max 5,200 minus 100")
    assert "held 3.0 s" in d.text


def test_plateau_below_every_limit_says_so():
    tl = rising_then_flat(5000, 1.0, 4.0)
    d = diagnose(tl, n=100_000, sleep_s=60, per_task=JAVA, limits=HERE)
    assert d is not None and d.kind == "plateau" and d.limit is None
    assert "stopped at 5,000 threads" in d.text and "below every limit read here" in d.text


def test_rust_threads_cut_short_at_max_map_count():
    # rust-threads 100000 on default limits: 16,369 threads in 0.5 s, then SIGABRT (no plateau in time)
    tl = timeline(lambda t: 1 + min(16_368, 32_740 * t), 0.55)
    d = diagnose(tl, n=100_000, sleep_s=10, per_task=RUST, limits=HERE)
    assert d is not None and (d.kind, d.limit) == ("limit", "max_map_count")
    assert "vm.max_map_count 65,530 / 4 mappings per thread = 16,382 threads" in d.text


def test_creation_that_collapses_is_a_slowdown_with_the_kernel_share():
    # 3,000 threads/s up to 15k, then 150/s; 88 % of CPU in the kernel
    def threads(t: float) -> float:
        return 10 + (3000 * t if t <= 5 else 15_000 + 150 * (t - 5))

    tl = timeline(threads, 30.0, step=0.1, user_per_s=0.24, sys_per_s=1.76)
    d = diagnose(tl, n=100_000, sleep_s=60, per_task=JAVA, limits=HERE)
    assert d is not None and d.kind == "slowdown"
    assert d.text == "thread creation fell from 3,000/s to 150/s past 15k threads; 88 % of CPU in the kernel"
    assert d.cpu_busy is not None and abs(d.cpu_busy - 2.0) < 0.05


@pytest.mark.parametrize("sys_per_s, named", [(1.76, True), (0.2, False)])
def test_a_kernel_bound_slowdown_names_a_small_futex_hash(sys_per_s, named):
    def threads(t: float) -> float:
        return 10 + (3000 * t if t <= 5 else 15_000 + 150 * (t - 5))

    tl = timeline(threads, 30.0, step=0.1, user_per_s=0.24, sys_per_s=sys_per_s)
    d = diagnose(tl, n=100_000, sleep_s=60, per_task=JAVA, limits={**HERE, "futex_hash_buckets": 16})
    assert d is not None and d.kind == "slowdown"
    if named:  # 15k threads in 16 buckets
        assert (
            d.cause == "futex-hash"
            and "futex hash of 16 buckets" in d.text
            and f"~{d.threads // 16:,} of them" in d.text
        )
    else:  # the time went to user code: the kernel's tables are not the story
        assert d.cause is None and "futex" not in d.text


PYTHON_THREADS = {"threads": 1, "maps": 3}


def test_threads_that_stop_ending_after_their_sleep_are_a_stall_not_a_limit():
    """All 20,000 alive (`ready`), so no thread limit stopped them, though 20,010 threads of 3
    mappings are 92 % of vm.max_map_count: the timeline says they stopped ending, and the
    kernel's share, on a kernel with a 16-bucket futex hash, names it."""
    limits = {**HERE, "futex_hash_buckets": 16}
    d = diagnose(_stalling(90.0), n=20_000, sleep_s=19, per_task=PYTHON_THREADS, limits=limits, ready_s=12.0)
    assert d is not None and (d.kind, d.threads, d.limit) == ("stall", 19_000, None)
    assert abs(d.at_s - 33.0) <= 0.25 and d.kernel_share is not None and d.kernel_share > 0.9
    assert d.text.startswith("after every sleep was over, 19k threads stayed alive without ending for 57 s")
    assert d.cause == "futex-hash" and "futex hash of 16 buckets" in d.text
    plain = diagnose(
        _stalling(90.0), n=20_000, sleep_s=19, per_task=PYTHON_THREADS, limits=HERE, ready_s=12.0
    )
    assert plain is not None and plain.kind == "stall" and plain.cause is None and "futex" not in plain.text


@pytest.mark.parametrize(
    "until, stuck, why",
    [
        (40.0, 0, "every thread ended: a slow end, not a stall"),
        (30.0, 19_000, "stopped before the sleeps were over: nothing had to end yet"),
        (40.0, 19_000, "flat for 7 s only, under STALL_S"),
    ],
)
def test_no_stall_without_threads_held_past_the_sleep(until, stuck, why):
    d = diagnose(
        _stalling(until, stuck), n=20_000, sleep_s=19, per_task=PYTHON_THREADS, limits=HERE, ready_s=12.0
    )
    assert d is None or d.kind != "stall", why


def test_a_timeout_with_every_task_alive_names_no_thread_limit():
    """The verdict of such a run: the timeout and the stall, not "threads were at
    vm.max_map_count" with its remedy (the run that said so stalled at 20,138 threads, 92 % of
    the mapping limit, and four runs at that N ended in 30-40 s with a larger futex hash)."""
    r = replace(
        failed(exit_code=None, signal="SIGKILL", timed_out=True, wall_s=90.0, threads_max=20_010),
        ready_n=20_000,
        ready_s=12.0,
        timeline=_stalling(90.0),
    )
    v = verdict.classify(r, 20_000, 19, PYTHON_THREADS, {**HERE, "futex_hash_buckets": 16})
    assert v.code == "timeout" and "max_map_count" not in v.reason + (v.remedy or "")
    head = "timeout after 90 s: 20,010 threads at most, `ready 20000` after 12.0 s; after every sleep"
    assert v.reason.startswith(head)
    assert v.remedy is not None and v.remedy.startswith("--futex-hash ")
    blocked = replace(r, ready_n=None, ready_s=None)  # still creating: the limit is the story
    assert "vm.max_map_count" in verdict.classify(blocked, 20_000, 19, PYTHON_THREADS, HERE).reason


def test_a_run_that_asked_for_a_larger_futex_hash_is_judged_on_it():
    """A run with --futex-hash 65536 (its environment says so) whose spawn was slow for another
    reason: the slowdown is told, but not as the 16-bucket default hash it did not have (CI's
    larger-hash run took 18.7 s while the machine was busy and was told "~894 per bucket")."""

    def threads(t: float) -> float:
        return 10 + (3000 * t if t <= 5 else 15_000 + 150 * (t - 5))

    tl = timeline(threads, 30.0, step=0.1, user_per_s=0.24, sys_per_s=1.76)
    default = {**HERE, "futex_hash_buckets": 16}
    had = futex.as_run_had(default, {futex.SLOTS_ENV: "65536"})
    assert had["futex_hash_buckets"] == 65536 and default["futex_hash_buckets"] == 16
    d = diagnose(tl, n=100_000, sleep_s=60, per_task=JAVA, limits=had)
    assert d is not None and d.kind == "slowdown" and d.cause is None and "futex" not in d.text
    r = replace(failed(exit_code=None, signal="SIGKILL", timed_out=True, wall_s=30.0), timeline=tl)
    v = verdict.classify(r, 100_000, 60, JAVA, had)
    assert "futex" not in v.reason + (v.remedy or "")
    assert "futex hash of 16 buckets" in verdict.classify(r, 100_000, 60, JAVA, default).reason


def _cpu_clock(tl: list[Sample], cpu_at, kernel: float = 0.7) -> list[Sample]:
    """tl with the tree's CPU seconds at t given by cpu_at(t), `kernel` of it in the kernel."""
    return [replace(s, user_s=cpu_at(s.t) * (1 - kernel), sys_s=cpu_at(s.t) * kernel) for s in tl[1:]]


def test_a_thread_costing_ever_more_cpu_is_a_slowdown_though_the_start_was_starved():
    """Each thread costs 5x the CPU late that it cost early (6,000 threads per CPU second, then
    1,200), but the program had 0.3 CPUs for its first 4 s and a whole one after: per wall second
    1,800/s then 1,200/s, no collapse. The fall per CPU second is the futex hash's; it is named."""

    def cpu(t: float) -> float:
        return 0.3 * t if t <= 4 else 1.2 + (t - 4)

    def threads(t: float) -> float:
        return 10 + 6000 * cpu(t) if t <= 4 else 10 + 7200 + 1200 * (cpu(t) - 1.2)

    tl = _cpu_clock(timeline(threads, 12.0, step=0.05), cpu)
    d = diagnose(tl, n=100_000, sleep_s=60, per_task=JAVA, limits={**HERE, "futex_hash_buckets": 16})
    assert d is not None and d.kind == "slowdown" and d.cause == "futex-hash", d
    assert d.text.startswith("thread creation fell from 6,000/s to 1,200/s of CPU time past ")
    assert 6000 <= d.threads <= 7210, d.threads  # in the window where the cost rose (7,210 at 4 s)


def test_a_starved_start_whose_threads_cost_the_same_is_no_slowdown():
    """3,000 threads per CPU second throughout, 0.3 CPUs for 4 s and one after: the wall rate
    rises, the cost per thread holds, and there is nothing to tell."""

    def cpu(t: float) -> float:
        return 0.3 * t if t <= 4 else 1.2 + (t - 4)

    tl = _cpu_clock(timeline(lambda t: 10 + 3000 * cpu(t), 12.0, step=0.05), cpu)
    assert (
        diagnose(tl, n=100_000, sleep_s=60, per_task=JAVA, limits={**HERE, "futex_hash_buckets": 16}) is None
    )


def test_the_fall_is_placed_after_the_peak_not_at_a_slow_first_second():
    """400 threads/s for a second (the program starved), 4,000/s for one, then 600/s: the fall is
    past the peak's 4,400 threads, not past the first second's few (a run beside two busy loops
    was told "past 1 threads")."""

    def threads(t: float) -> float:
        return 1 + (400 * t if t <= 1 else 400 + 4000 * (t - 1) if t <= 2 else 4400 + 600 * (t - 2))

    tl = timeline(threads, 8.0, step=0.05, user_per_s=0.3, sys_per_s=0.7)
    d = diagnose(tl, n=20_000, sleep_s=8, per_task=JAVA, limits={**HERE, "futex_hash_buckets": 16})
    assert d is not None and d.kind == "slowdown" and d.threads >= 4000, d


def _stored(name: str) -> tuple[dict, list[Sample]]:
    data = json.loads((ROOT / "tests" / "fixtures" / "timelines" / name).read_text())
    return data["run"], [Sample.from_row(row) for row in data["timeline"]]


@pytest.mark.parametrize(
    "name, buckets, named",
    [
        ("java-threads-20k-beside-a-busy-core.json", 16, True),
        ("java-threads-20k-futex-hash-65536-beside-a-busy-core.json", 65536, False),
    ],
)
def test_real_java_threads_beside_a_busy_core(name, buckets, named):
    """Stored runs of java-threads at 20,000 with a busy loop beside them (tests/fixtures/timelines):
    with the default 16 buckets memrun told only the timeout (a full test run failed the same
    way); per CPU second the fall is there and is named. With 65,536 buckets nothing is."""
    run, tl = _stored(name)
    d = diagnose(
        tl,
        n=run["n"],
        sleep_s=run["sleep_s"],
        per_task=JAVA,
        limits={**HERE, "futex_hash_buckets": buckets},
        ready_s=run["ready_s"],
        user_s=run["user_s"],
        sys_s=run["sys_s"],
    )
    if named:
        assert "futex hash" not in run["reason"], "the stored reason is the one before this judge"
        assert d is not None and d.cause == "futex-hash" and "of CPU time" in d.text, d
    else:
        assert d is None or "futex" not in d.text, d


def test_slowdown_from_an_old_timeline_uses_the_whole_runs_cpu():
    tl = [
        replace(s, user_s=None, sys_s=None)
        for s in timeline(lambda t: 3000 * min(t, 5) + 150 * max(0, t - 5), 30, 0.1)
    ]
    d = diagnose(tl, n=100_000, sleep_s=60, per_task=JAVA, limits=HERE, user_s=40.0, sys_s=80.0)
    assert d is not None and d.text.endswith("; 67 % of CPU in the kernel (whole run)")


def test_steady_creation_is_nothing_to_report_even_after_tasks_end():
    # 1,000 threads/s for 20 s, each lives 5 s: the count rises for 5 s, then holds at 5,000 as
    # threads end as fast as new ones start. Only the first 5 s measure creation: steady.
    tl = timeline(lambda t: 1 + 1000 * min(t, 5.0), 20.0)
    assert diagnose(tl, n=20_000, sleep_s=5, per_task=JAVA, limits=HERE, ready_s=20.0) is None


def test_a_program_that_said_ready_has_no_plateau():
    tl = rising_then_flat(5000, 1.0, 4.0)
    assert diagnose(tl, n=5000, sleep_s=3, per_task=JAVA, limits=HERE, ready_s=1.0) is None


def test_runs_without_many_threads_are_not_diagnosed():
    tl = timeline(lambda t: 21, 5.0)  # a VM's scheduler threads, whatever N is
    assert diagnose(tl, n=1_000_000, sleep_s=10, per_task={}, limits=HERE) is None
    assert diagnose([], n=1, sleep_s=10, per_task={}, limits=HERE) is None


def test_rates_for_figures():
    tl = timeline(lambda t: 1000 * t, 2.0, user_per_s=0.5, sys_per_s=1.5)
    rates = net_rates(tl, 0.5)
    assert all(abs(r - 1000) < 60 for _, r in rates)
    cpu = cpu_rates(tl, 0.5)
    assert cpu and all(abs(u - 0.5) < 0.01 and abs(s - 1.5) < 0.01 for _, u, s in cpu)
    assert cpu_rates([replace(s, user_s=None, sys_s=None) for s in tl], 0.5) == []


def test_round_figures():
    assert (rounded(4270), rounded(818.4), rounded(37), rounded(0)) == ("4,300", "820", "37", "0")
    assert (short_count(16_369), short_count(8916), short_count(512)) == ("16k", "8,900", "512")


def test_verdict_reason_gets_the_timelines_cause():
    # java-threads 1e6 on default limits: killed at the timeout, creation collapsed long before
    tl = timeline(lambda t: 20 + (3000 * t if t <= 5 else 15_000 + 150 * (t - 5)), 12.0, 0.1, 0.3, 1.7)
    r = failed(exit_code=None, signal="SIGKILL", timed_out=True, wall_s=110, threads_max=16_000, timeline=tl)
    v = verdict.classify(r, 1_000_000, 60, JAVA, HERE, failures=JAVA_FAILURES)
    assert v.code == "timeout"
    assert v.reason.startswith(
        "timeout after 110 s: 16,069 threads at most, no `ready` line; thread creation fell"
    )
    assert "85 % of CPU in the kernel" in v.reason


def test_verdict_does_not_repeat_a_limit_it_already_names():
    from tests.support.runs import RUST_ABORT, RUST_FAILURES

    tl = timeline(lambda t: 1 + min(16_368, 32_740 * t), 0.55)
    r = failed(exit_code=None, signal="SIGABRT", threads_max=16_369, stderr_tail=RUST_ABORT, timeline=tl)
    v = verdict.classify(r, 100_000, 10, RUST, HERE, failures=RUST_FAILURES)
    assert (
        v.reason.count("vm.max_map_count") == 2
    )  # "thread limit: vm.max_map_count (... vm.max_map_count 65,530 / 4"
    assert "thread count stopped" not in v.reason


# ---------------------------------------------------------------- through real measure() runs


@pytest.mark.serial
@pytest.mark.unbuilt
def test_real_program_that_stops_creating_threads_is_a_plateau():
    r = measure(probe("threads.py", "plateau", 300), timeout=3)
    assert r.timed_out and max(s.threads for s in r.timeline) == 301
    d = diagnose(r.timeline, n=100_000, sleep_s=3600, per_task=JAVA, limits=HERE, ready_s=r.ready_s)
    assert d is not None and d.kind == "plateau" and d.threads == 301, d
    assert "stopped at 301 threads" in d.text
    # the same run on a machine whose pid_max leaves room for 330 threads: that limit is named
    d = diagnose(
        r.timeline, n=100_000, sleep_s=3600, per_task=JAVA, limits={"pid_max": 340, "threads_now": 10}
    )
    assert d is not None and (d.kind, d.limit) == ("limit", "pid_max"), d
    assert "kernel.pid_max 340 minus 10" in d.text


@pytest.mark.serial
@pytest.mark.unbuilt
def test_real_program_whose_creation_slows_down_is_a_slowdown():
    r = measure(probe("threads.py", "slowdown", 2e-5), timeout=4)
    assert r.timed_out and max(s.threads for s in r.timeline) > 300
    d = diagnose(r.timeline, n=100_000, sleep_s=3600, per_task=JAVA, limits=HERE, ready_s=r.ready_s)
    assert d is not None and d.kind == "slowdown", d
    assert d.peak_rate is not None and d.late_rate is not None and d.peak_rate >= 3 * d.late_rate
    assert d.kernel_share is not None  # from the sampled CPU times, not the run's totals
    assert "% of CPU in the kernel" in d.text and "(whole run)" not in d.text
