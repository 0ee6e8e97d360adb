"""runner.limits: reading limits, predicting which one N hits, judging runs, raising and restoring.

The stderr lines below were copied from real failures on the development machine (Linux 6.18,
Rust 1.9x, Temurin JDK 25, Elixir 1.14 / OTP 25), each produced as noted beside it.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import replace
from pathlib import Path

import pytest

from runner import limits, tasks
from runner.measure import RunResult, Sample, measure
from runner.paths import BUILD_DIR
from tests.conftest import require

RUST = {"threads": 1, "maps": 4, "stack_kib": 2048}
JAVA = {"threads": 1, "maps": 2, "stack_kib": 1024}

# The development machine's defaults, frozen so the numbers below do not move with the host.
HERE: limits.Limits = {
    "pid_max": 32768,
    "threads_max": 192730,
    "max_map_count": 65530,
    "overcommit_memory": 0,
    "nproc_soft": 96365,
    "nproc_hard": 96365,
    "nproc_enforced": 0,
    "stack_soft": 8 * 1024 * 1024,
    "as_soft": "unlimited",
    "pids_max": "max",
    "pids_cgroup": "/sys/fs/cgroup/pids",
    "mem_cgroup_max": "max",
    "mem_total": 25_276_510_208,
    "mem_available": 24_843_108_352,
    "commit_limit": 12_638_253_056,
    "committed_as": 62_193_664,
    "threads_now": 82,
}

# rust-threads 100000 1, default limits: stops at ~16,370 threads, by SIGABRT (seen 3 of 3 here) ...
RUST_ABORT = [
    "",
    "thread 'main' (3438) panicked at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/std/src/"
    "thread/functions.rs:131:29:",
    'failed to spawn thread: Os { code: 11, kind: WouldBlock, message: "Resource temporarily unavailable" }',
    "stack backtrace:",
    "note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.",
    "",
    "thread '<unnamed>' (19811) panicked at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/std/"
    "src/sys/pal/unix/stack_overflow.rs:240:13:",
    "failed to set up alternative stack guard page: Cannot allocate memory (os error 12)",
    "stack backtrace:",
    "note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.",
    "fatal runtime error: failed to initiate panic, error 5, aborting",
]
# ... or by the main thread's panic alone, exit 101 (seen in a pid_max=5000 pid namespace and
# under a pids cgroup with pids.max=3000, 3 of 3 and 4 of 4).
RUST_PANIC = [
    "",
    "thread 'main' (9050) panicked at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/std/src/"
    "thread/functions.rs:131:29:",
    'failed to spawn thread: Os { code: 11, kind: WouldBlock, message: "Resource temporarily unavailable" }',
    "stack backtrace:",
    "note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.",
]
# java Main threads 10000 5 under pids.max=3000: exit 1 (the JVM's "pthread_create failed (EAGAIN)"
# warning goes to stdout, not here).
JAVA_OOME = [
    'Exception in thread "main" java.lang.OutOfMemoryError: unable to create native thread: possibly out '
    "of memory or process/resource limits reached",
    "\tat java.base/java.lang.Thread.start0(Native Method)",
    "\tat java.base/java.lang.Thread.start(Thread.java:1417)",
    "\tat Main.main(Main.java:56)",
]
# elixir ... -- 300000 3 without +P: exit 1 after 2.8 s.
ELIXIR_LIMIT = [
    "** (SystemLimitError) a system limit has been reached",
    "    :erlang.spawn_link(:proc_lib, :init_p, [#PID<0.96.0>, [], Task.Supervised, :reply, "
    "[{:nonode@nohost, #PID<0.96.0>, #PID<0.96.0>}, :nomonitor]])",
    "    (stdlib 4.2) proc_lib.erl:121: :proc_lib.spawn_link/3",
    "    (elixir 1.14.0) lib/task.ex:455: Task.async/3",
    "    lib/main.ex:7: Main.main/1",
]


def result(**fields: object) -> RunResult:
    """A RunResult of a run that went well; tests override what their case changes."""
    base = RunResult(
        argv=["prog"],
        started_at="2025-01-01T00:00:00+00:00",
        exit_code=0,
        signal=None,
        timed_out=False,
        interrupted=False,
        error=None,
        wall_s=11.0,
        user_s=0.1,
        sys_s=0.1,
        ready_n=1000,
        ready_s=0.5,
        stdout_other=0,
        peak_rss=50_000_000,
        peak_rss_source="kernel-hwm",
        hwm_max=50_000_000,
        hwm_sum=50_000_000,
        sampled_peak_rss=50_000_000,
        ru_maxrss=50_000_000,
        procs_max=1,
        threads_max=1001,
        pte_peak=None,
        cgroup_version="v1",
        cgroup_peak=60_000_000,
        cgroup_kernel_peak=None,
    )
    return replace(base, **fields)


def failed(**fields: object) -> RunResult:
    return result(ready_n=None, ready_s=None, **fields)


# ---------------------------------------------------------------- classify: thread limits


@pytest.mark.parametrize(
    ("exit_code", "sig", "stderr"), [(None, "SIGABRT", RUST_ABORT), (101, None, RUST_PANIC)]
)
def test_rust_threads_at_max_map_count_both_ways_of_dying(exit_code, sig, stderr):
    r = failed(exit_code=exit_code, signal=sig, stderr_tail=stderr, threads_max=16370, wall_s=0.87)
    v = limits.classify(r, 100_000, 1, RUST, HERE)
    assert (v.verdict, v.code) == ("failed", "thread-limit")
    assert v.reason.startswith("thread limit: vm.max_map_count (16,370 threads reached")
    assert v.remedy == "sysctl -w vm.max_map_count=401408; sysctl -w kernel.pid_max=102400"


def test_rust_threads_at_pid_max_in_a_small_pid_namespace():
    here = {**HERE, "pid_max": 5000, "threads_now": 5}
    r = failed(exit_code=101, stderr_tail=RUST_PANIC, threads_max=4994)
    v = limits.classify(r, 10_000, 3, RUST, here)
    assert v.code == "thread-limit"
    assert v.reason.startswith("thread limit: kernel.pid_max (4,994 threads reached")
    assert v.remedy == "sysctl -w kernel.pid_max=12288"


def test_java_threads_at_cgroup_pids_max():
    here = {**HERE, "pids_max": 3000, "pids_cgroup": "/sys/fs/cgroup/pids/box"}
    r = failed(exit_code=1, stderr_tail=JAVA_OOME, threads_max=3000)
    v = limits.classify(r, 10_000, 5, JAVA, here)
    assert v.code == "thread-limit"
    assert "cgroup pids.max" in v.reason and "exit 1" in v.reason
    assert v.remedy == "echo max > /sys/fs/cgroup/pids/box/pids.max (as root)"


def test_rlimit_nproc_when_not_root():
    here = {**HERE, "nproc_soft": 1000, "nproc_hard": 1000, "nproc_enforced": 1}
    r = failed(exit_code=101, stderr_tail=RUST_PANIC, threads_max=999)
    v = limits.classify(r, 3000, 1, RUST, here)
    assert v.reason.startswith("thread limit: RLIMIT_NPROC")
    assert "limits.conf" in v.remedy


def test_thread_failure_without_per_task_still_names_the_limit_it_can():
    r = failed(signal="SIGABRT", exit_code=None, stderr_tail=RUST_ABORT, threads_max=16370)
    v = limits.classify(r, 100_000, 1, None, HERE)
    assert v.code == "thread-limit"
    assert "probably vm.max_map_count" in v.reason


def test_thread_limit_when_nothing_is_near_says_unknown():
    r = failed(exit_code=101, stderr_tail=RUST_PANIC, threads_max=500)
    v = limits.classify(r, 100_000, 1, RUST, HERE)
    assert v.reason.startswith("thread limit: unknown limit")


# ---------------------------------------------------------------- classify: other outcomes


def test_elixir_without_plus_p():
    r = failed(exit_code=1, stderr_tail=ELIXIR_LIMIT, threads_max=21, procs_max=2)
    v = limits.classify(r, 300_000, 3, {}, HERE)
    assert (v.verdict, v.code) == ("failed", "erlang-process-limit")
    assert "SystemLimitError" in v.reason
    assert "+P 365536" in v.remedy


def test_not_started():
    v = limits.classify(failed(exit_code=None, error="execve: No such file or directory"), 1, 1, {}, HERE)
    assert (v.verdict, v.code) == ("failed", "not-started")
    assert v.reason.startswith("toolchain missing / cannot start")


def test_timeout_says_how_far_it_got():
    # java Main threads 100000 30 with a 60 s timeout: still starting threads when killed.
    r = failed(exit_code=None, signal="SIGKILL", timed_out=True, wall_s=60.21, threads_max=25490)
    v = limits.classify(r, 100_000, 30, JAVA, HERE)
    assert (v.verdict, v.code) == ("failed", "timeout")
    assert v.reason == "timeout after 60 s: 25,490 threads at most, no `ready` line"


def test_timeout_at_a_limit_names_it():
    timeline = [Sample(1.0, 1, 100, 1, None), Sample(50.0, 1, 32_400, 1, None)]
    r = failed(exit_code=None, signal="SIGKILL", timed_out=True, wall_s=60, threads_max=0, timeline=timeline)
    v = limits.classify(r, 100_000, 10, JAVA, HERE)
    assert "32,400 threads at most" in v.reason and "kernel.pid_max" in v.reason
    assert "sysctl -w kernel.pid_max=102400" in v.remedy


def test_sigkill_near_memory_is_out_of_memory():
    r = failed(exit_code=None, signal="SIGKILL", cgroup_peak=24_000_000_000)
    v = limits.classify(r, 1_000_000, 10, {}, HERE)
    assert (v.verdict, v.code) == ("failed", "out-of-memory")


def test_runtime_saying_out_of_memory():
    r = failed(exit_code=2, stderr_tail=["fatal error: runtime: out of memory", "", "goroutine 1 [running]:"])
    assert limits.classify(r, 1_000_000, 10, {}, HERE).code == "out-of-memory"


def test_other_signal_names_it_and_the_message():
    r = failed(exit_code=None, signal="SIGSEGV", stderr_tail=["boom", "\tat frame"])
    v = limits.classify(r, 10, 1, {}, HERE)
    assert (v.code, v.reason) == ("signal", "crashed by SIGSEGV: boom")


def test_sigkill_far_from_memory_is_a_crash_with_a_hint():
    v = limits.classify(failed(exit_code=None, signal="SIGKILL"), 10, 1, {}, HERE)
    assert v.code == "signal" and "dmesg" in v.reason


def test_nonzero_exit_quotes_the_message():
    r = failed(exit_code=2, stderr_tail=["usage: rust-threads N [SLEEP_SECONDS]"])
    v = limits.classify(r, 10, 1, {}, HERE)
    assert (v.verdict, v.code, v.reason) == (
        "failed",
        "exit",
        "exit 2: usage: rust-threads N [SLEEP_SECONDS]",
    )


def test_exit_zero_without_ready_is_invalid():
    v = limits.classify(result(ready_n=None, ready_s=None), 1000, 1, {}, HERE)
    assert (v.verdict, v.code) == ("invalid", "no-ready")


def test_ready_mismatch_is_invalid():
    v = limits.classify(result(ready_n=999), 1000, 1, {}, HERE)
    assert (v.verdict, v.code) == ("invalid", "ready-mismatch")


def test_java_spawning_longer_than_the_sleep():
    # java Main threads 100000 1, default limits: exit 0, `ready 100000` after 36.3 s, 6,199 threads.
    r = result(ready_n=100_000, ready_s=36.316206, wall_s=37.33, threads_max=6199)
    v = limits.classify(r, 100_000, 1, JAVA, HERE)
    assert (v.verdict, v.code) == ("invalid", "spawn-outlasted-sleep")
    assert v.reason == (
        "spawning took 36.3 s, longer than the 1 s sleep: the 100000 tasks were never all alive at once; "
        "threads peaked at 6,199, and N also exceeds kernel.pid_max, vm.max_map_count"
    )
    # a longer sleep alone would run into the limits: raise them first
    assert v.remedy == "--raise-limits (root), then --sleep 73"


def test_spawning_longer_than_the_sleep_within_limits_suggests_a_longer_sleep():
    # go at 1M tasks on 2 cores: no OS thread per task, no limit in the way
    r = result(ready_n=1_000_000, ready_s=12.2, wall_s=22.3, threads_max=5)
    v = limits.classify(r, 1_000_000, 10, {}, HERE)
    assert v.code == "spawn-outlasted-sleep"
    assert v.remedy == "use --sleep auto or --sleep 25"


def test_java_exit_zero_after_minutes_at_pid_max_asks_for_the_limit_first():
    # DESIGN.md trap 5: 100k platform threads under pid_max=32768 exited 0 after 132 s.
    r = result(ready_n=100_000, ready_s=131.0, wall_s=132.0, threads_max=32_500)
    v = limits.classify(r, 100_000, 10, JAVA, HERE)
    assert v.code == "spawn-outlasted-sleep" and "kernel.pid_max" in v.reason
    assert v.remedy.startswith("sysctl -w kernel.pid_max=102400")
    assert v.remedy.endswith("then use --sleep auto or --sleep 262")


def test_valid_run():
    v = limits.classify(result(ready_n=1000, ready_s=0.5), 1000, 10, RUST, HERE)
    assert (v.verdict, v.code, v.remedy) == ("valid", "ok", None)
    assert v.valid


def test_message_line_skips_frames_and_hints():
    assert limits.message_line(RUST_PANIC).startswith("failed to spawn thread")
    assert limits.message_line(JAVA_OOME).startswith('Exception in thread "main"')
    assert limits.message_line(ELIXIR_LIMIT).startswith("** (SystemLimitError)")
    assert limits.message_line([]) == ""


# ---------------------------------------------------------------- predict


def _hits(n: int, per_task: dict) -> dict[str, limits.Hit]:
    return {h.key: h for h in limits.predict(n, per_task, HERE)}


def test_predict_rust_threads_100k_on_the_defaults():
    hits = _hits(100_000, RUST)
    assert set(hits) == {"pid_max", "max_map_count"}
    assert hits["max_map_count"].current == 65530
    assert hits["max_map_count"].needed == 400_256
    assert hits["max_map_count"].remedy == "sysctl -w vm.max_map_count=401408"
    assert hits["pid_max"].needed == 100_000 + 82 + 64 + 300
    assert hits["pid_max"].remedy == "sysctl -w kernel.pid_max=102400"


def test_predict_1m_threads_also_hits_threads_max_and_memory():
    hits = _hits(1_000_000, JAVA)
    assert set(hits) == {"pid_max", "threads_max", "max_map_count", "mem_available"}
    assert hits["mem_available"].target is None and "run fewer" in hits["mem_available"].remedy


def test_predict_nothing_for_async_tasks_or_small_n():
    assert limits.predict(10_000_000, {}, HERE) == []
    assert limits.predict(10_000, RUST, HERE) == []


def test_predict_pid_max_beyond_the_kernel_maximum():
    hit = _hits(5_000_000, {"threads": 1})["pid_max"]
    assert hit.target == limits.PID_MAX_LIMIT and hit.remedy.startswith("impossible here")


def test_predict_strict_overcommit_and_rlimit_as():
    strict = {**HERE, "overcommit_memory": 2, "as_soft": 1 << 30}
    keys = {h.key for h in limits.predict(10_000, RUST, strict)}
    assert {"commit_limit", "as_soft"} <= keys


def test_max_n_matches_where_the_real_runs_stopped():
    # rust-threads really stopped at 16,366-16,374 threads under max_map_count 65530.
    n, hit = limits.max_n(RUST, HERE)
    assert hit.key == "max_map_count" and 16_000 < n <= 16_374
    n, hit = limits.max_n(JAVA, HERE)
    assert hit.key == "pid_max" and 32_000 < n < 32_768
    assert limits.max_n({}, HERE) is None


# ---------------------------------------------------------------- read_limits, manifests, report


def test_read_limits_here():
    here = limits.read_limits()
    for key in ("pid_max", "threads_max", "max_map_count", "threads_now", "mem_total"):
        assert isinstance(here[key], int) and here[key] > 0, key
    assert here["pids_max"] is None or here["pids_max"] == "max" or isinstance(here["pids_max"], int)
    assert set(HERE) <= set(here)


def test_read_limits_unreadable_is_none(monkeypatch, tmp_path):
    monkeypatch.setattr(limits, "PROC_SYS", tmp_path)
    monkeypatch.setattr(limits, "_read_text", lambda path: None)
    here = limits.read_limits()
    assert here["pid_max"] is None and here["threads_now"] is None and here["mem_total"] is None
    assert limits.classify(failed(exit_code=101, stderr_tail=RUST_PANIC), 10, 1, RUST, here).code == (
        "thread-limit"
    )


def test_manifests_declare_per_task_needs():
    variants = tasks.load_all()
    assert variants["rust-threads"].per_task == RUST
    assert variants["java-threads"].per_task == JAVA
    assert variants["java-virtual"].per_task == {} and variants["rust-tokio"].per_task == {}


def test_manifest_rejects_unknown_per_task_key(tmp_path):
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "task.toml").write_text(
        '[task]\ndescription = "x"\n[[build]]\ncommands = [["true"]]\n'
        '[[variant]]\nname = "t"\nrun = ["true"]\n[variant.per_task]\nthread = 1\n'
    )
    with pytest.raises(tasks.ManifestError, match="unknown key"):
        tasks.load_folder(folder)


def test_limits_report_names_the_limit_each_variant_hits():
    text = limits.limits_report(100_000, tasks.load_all().values())
    assert "vm.max_map_count" in text and "kernel.pid_max" in text
    rust = next(line for line in text.splitlines() if line.startswith("  rust-threads"))
    assert "1 OS thread(s), 4 mapping(s), 2048 KiB of stack per task" in rust
    async_line = next(line for line in text.splitlines() if "no OS thread" in line)
    assert "rust-tokio" in async_line and "go" in async_line
    assert "give --n" in limits.limits_report(None, tasks.load_all().values())


# ---------------------------------------------------------------- raising and restoring


def _read_map_count() -> int:
    return int(Path("/proc/sys/vm/max_map_count").read_text())


def _small_raise() -> tuple[int, list[dict]]:
    """An N whose only need is a few thousand more mappings than now: harmless for the machine."""
    current = _read_map_count()
    return current - limits.BASE_MAPS + 1, [{"maps": 1}]


def _can_write_sysctl() -> bool:
    return os.geteuid() == 0 and os.access("/proc/sys/vm/max_map_count", os.W_OK)


def test_raised_limits_raises_a_little_and_restores():
    require(_can_write_sysctl(), "root with a writable /proc/sys")
    before = _read_map_count()
    n, needs = _small_raise()
    log: list[str] = []
    with limits.raised_limits(n, needs, log.append) as raised:
        inside = _read_map_count()
    assert raised == ["vm.max_map_count"]
    assert before < inside <= before + limits.HEADROOM + limits.ROUND_TO
    assert _read_map_count() == before
    assert log == [
        f"vm.max_map_count {before} -> {inside}",
        f"vm.max_map_count {inside} -> {before} (restored)",
    ]


def test_raised_limits_restores_when_the_body_raises():
    require(_can_write_sysctl(), "root with a writable /proc/sys")
    before = _read_map_count()
    n, needs = _small_raise()
    with pytest.raises(RuntimeError, match="body failed"), limits.raised_limits(n, needs, lambda s: None):
        assert _read_map_count() > before
        raise RuntimeError("body failed")
    assert _read_map_count() == before


def test_raised_limits_restores_on_sigterm():
    require(_can_write_sysctl(), "root with a writable /proc/sys")
    require(signal.getsignal(signal.SIGTERM) == signal.SIG_DFL, "default SIGTERM disposition")
    before = _read_map_count()
    n, needs = _small_raise()
    with pytest.raises(limits.Terminated), limits.raised_limits(n, needs, lambda s: None):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler raises here, at once
    assert _read_map_count() == before
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


def test_raised_limits_leaves_a_callers_sigterm_handler_in_charge():
    def callers(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, callers)
    try:
        with limits.raised_limits(10, [RUST], print):
            assert signal.getsignal(signal.SIGTERM) is callers
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_limit_that_cannot_be_set_is_named_and_the_rest_put_back():
    values = {"a": 1}

    def write_a(value: int) -> None:
        values["a"] = value

    def refuse(value: int) -> None:
        raise PermissionError("read-only file system")

    changes = [limits.Change("a", 1, 10, write_a), limits.Change("kernel.pid_max", 32768, 102400, refuse)]
    refused = r"cannot set kernel\.pid_max to 102400"
    with pytest.raises(OSError, match=refused), limits.applied(changes, print):
        pass
    assert values == {"a": 1}


def test_raised_limits_needs_root_only_when_something_must_change(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    n, needs = _small_raise()
    with pytest.raises(limits.NotRootError, match="needs root"), limits.raised_limits(n, needs, print):
        pass
    with limits.raised_limits(10, [RUST], print) as raised:
        assert raised == []


def test_plan_takes_the_largest_need_of_all_variants():
    changes = {c.name: c.new for c in limits.plan(100_000, [RUST, JAVA, {}], HERE)}
    assert changes == {"kernel.pid_max": 102400, "vm.max_map_count": 401408}


def test_applied_restores_everything_in_reverse_even_past_a_failure():
    values = {"a": 1, "b": 2}
    order: list[str] = []

    def writer(name: str, fail_on: int | None = None):
        def write(value: int) -> None:
            if value == fail_on:
                raise OSError("read-only")
            order.append(f"{name}={value}")
            values[name] = value

        return write

    changes = [limits.Change("a", 1, 10, writer("a")), limits.Change("b", 2, 20, writer("b", fail_on=2))]
    log: list[str] = []
    with pytest.raises(KeyboardInterrupt), limits.applied(changes, log.append):
        raise KeyboardInterrupt
    assert order == ["a=10", "b=20", "a=1"]
    assert values == {"a": 1, "b": 20}
    assert "could not restore b to 2: read-only" in log


# ---------------------------------------------------------------- a real failure


@pytest.mark.slow
def test_real_rust_threads_100k_on_default_limits_is_a_thread_limit():
    binary = BUILD_DIR / "rust-threads" / "target" / "release" / "rust-threads"
    require(binary.exists(), "rust-threads built (memrun build rust-threads)")
    here = limits.read_limits()
    require(here["max_map_count"] == 65530, "the default vm.max_map_count")
    r = measure([str(binary), "100000", "1"], timeout=60)
    v = limits.classify(r, 100_000, 1, RUST, here)
    assert (r.exit_code, r.signal) in ((101, None), (None, "SIGABRT")), r.outcome()
    assert v.code == "thread-limit" and "vm.max_map_count" in v.reason, v
