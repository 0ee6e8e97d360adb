"""runner.judge.verdict: judging runs, with each runtime's failure messages taken from its manifest.

The stderr lines below were copied from real failures on the development machine (Linux 6.18,
Rust 1.9x, Temurin JDK 25, Elixir 1.14 / OTP 25), each produced as noted beside it.
"""

from __future__ import annotations

import re
import resource
import shutil

import pytest

from runner import tasks
from runner.judge import verdict
from runner.limits import read_limits
from runner.measure import Sample, measure
from runner.paths import BUILD_DIR
from runner.workload import get
from runner.workload import get as get_workload
from tests.support.here import HERE, HERE_CONN, JAVA, PRIVILEGED, RUST
from tests.support.process import require
from tests.support.runs import (
    ELIXIR_FAILURES,
    FD_TASKS,
    JAVA_FAILURES,
    RUST_ABORT,
    RUST_FAILURES,
    RUST_PANIC,
    VARIANTS,
    failed,
    result,
)

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


# ---------------------------------------------------------------- classify: thread limits


@pytest.mark.parametrize(
    ("exit_code", "sig", "stderr"), [(None, "SIGABRT", RUST_ABORT), (101, None, RUST_PANIC)]
)
def test_rust_threads_at_max_map_count_both_ways_of_dying(exit_code, sig, stderr):
    r = failed(exit_code=exit_code, signal=sig, stderr_tail=stderr, threads_max=16370, wall_s=0.87)
    v = verdict.classify(r, 100_000, 1, RUST, HERE, failures=RUST_FAILURES)
    assert (v.verdict, v.code) == ("failed", "thread-limit")
    assert v.reason.startswith("thread limit: vm.max_map_count (16,370 threads reached")
    assert v.remedy == "sysctl -w vm.max_map_count=401408; sysctl -w kernel.pid_max=102400"


def test_rust_threads_at_pid_max_in_a_small_pid_namespace():
    here = {**HERE, "pid_max": 5000, "threads_now": 5}
    r = failed(exit_code=101, stderr_tail=RUST_PANIC, threads_max=4994)
    v = verdict.classify(r, 10_000, 3, RUST, here, failures=RUST_FAILURES)
    assert v.code == "thread-limit"
    assert v.reason.startswith("thread limit: kernel.pid_max (4,994 threads reached")
    assert v.remedy == "sysctl -w kernel.pid_max=12288"


def test_java_threads_at_cgroup_pids_max():
    here = {**HERE, "pids_max": 3000, "pids_cgroup": "/sys/fs/cgroup/pids/box"}
    r = failed(exit_code=1, stderr_tail=JAVA_OOME, threads_max=3000)
    v = verdict.classify(r, 10_000, 5, JAVA, here, failures=JAVA_FAILURES)
    assert v.code == "thread-limit"
    assert "cgroup pids.max" in v.reason and "exit 1" in v.reason
    assert v.remedy == "echo max > /sys/fs/cgroup/pids/box/pids.max (as root)"


def test_rlimit_nproc_when_not_root():
    here = {**HERE, "nproc_soft": 1000, "nproc_hard": 1000, "nproc_enforced": 1}
    r = failed(exit_code=101, stderr_tail=RUST_PANIC, threads_max=999)
    v = verdict.classify(r, 3000, 1, RUST, here, failures=RUST_FAILURES)
    assert v.reason.startswith("thread limit: RLIMIT_NPROC")
    assert "limits.conf" in v.remedy


def test_thread_failure_without_per_task_still_names_the_limit_it_can():
    r = failed(signal="SIGABRT", exit_code=None, stderr_tail=RUST_ABORT, threads_max=16370)
    v = verdict.classify(r, 100_000, 1, None, HERE)
    assert v.code == "thread-limit"
    assert "probably vm.max_map_count" in v.reason


def test_thread_limit_when_nothing_is_near_says_unknown():
    r = failed(exit_code=101, stderr_tail=RUST_PANIC, threads_max=500)
    v = verdict.classify(r, 100_000, 1, RUST, HERE, failures=RUST_FAILURES)
    assert v.reason.startswith("thread limit: unknown limit")


# ---------------------------------------------------------------- classify: other outcomes


def test_elixir_without_plus_p():
    r = failed(exit_code=1, stderr_tail=ELIXIR_LIMIT, threads_max=21, procs_max=2)
    v = verdict.classify(r, 300_000, 3, {}, HERE, failures=ELIXIR_FAILURES)
    assert (v.verdict, v.code) == ("failed", "erlang-process-limit")
    assert "SystemLimitError" in v.reason
    assert "+P 365536" in v.remedy


def test_not_started():
    v = verdict.classify(failed(exit_code=None, error="execve: No such file or directory"), 1, 1, {}, HERE)
    assert (v.verdict, v.code) == ("failed", "not-started")
    assert v.reason.startswith("toolchain missing / cannot start")


def test_timeout_says_how_far_it_got():
    # java Main threads 100000 30 with a 60 s timeout: still starting threads when killed.
    r = failed(exit_code=None, signal="SIGKILL", timed_out=True, wall_s=60.21, threads_max=25490)
    v = verdict.classify(r, 100_000, 30, JAVA, HERE, failures=JAVA_FAILURES)
    assert (v.verdict, v.code) == ("failed", "timeout")
    assert v.reason == "timeout after 60 s: 25,490 threads at most, no `ready` line"


def test_timeout_at_a_limit_names_it():
    timeline = [Sample(1.0, 1, 100, 1, None), Sample(50.0, 1, 32_400, 1, None)]
    r = failed(exit_code=None, signal="SIGKILL", timed_out=True, wall_s=60, threads_max=0, timeline=timeline)
    v = verdict.classify(r, 100_000, 10, JAVA, HERE, failures=JAVA_FAILURES)
    assert "32,400 threads at most" in v.reason and "kernel.pid_max" in v.reason
    assert "sysctl -w kernel.pid_max=102400" in v.remedy


def test_sigkill_near_memory_is_out_of_memory():
    r = failed(exit_code=None, signal="SIGKILL", cgroup_peak=24_000_000_000)
    v = verdict.classify(r, 1_000_000, 10, {}, HERE)
    assert (v.verdict, v.code) == ("failed", "out-of-memory")


def test_runtime_saying_out_of_memory():
    r = failed(exit_code=2, stderr_tail=["fatal error: runtime: out of memory", "", "goroutine 1 [running]:"])
    assert verdict.classify(r, 1_000_000, 10, {}, HERE).code == "out-of-memory"


# dotnet run 2132174 8 under a 1 GiB cap: `ready`, then SIGABRT 13 s in (.NET 8; frames shortened) ...
DOTNET_AGGREGATE = [
    "Unhandled exception. System.AggregateException: One or more errors occurred. (Exception of type "
    "'System.OutOfMemoryException' was thrown.)",
    " ---> System.OutOfMemoryException: Exception of type 'System.OutOfMemoryException' was thrown.",
    "   at System.Runtime.CompilerServices.AsyncTaskMethodBuilder`1.GetStateMachineBox[TStateMachine]"
    "(TStateMachine& stateMachine, Task`1& taskField)",
    "   at Program.<Main>c__AnonStorey0.<Main>c__async6.MoveNext()",
    "   --- End of inner exception stack trace ---",
    "   at System.Threading.Tasks.Task.Wait()",
    "   at Program.Main(String[] args)",
]
# ... and dotnet run 704808 under 256 MiB, while still queueing its tasks.
DOTNET_SCHEDULER = [
    "Unhandled exception. System.Threading.Tasks.TaskSchedulerException: An exception was thrown by a "
    "TaskScheduler.",
    " ---> System.OutOfMemoryException: Exception of type 'System.OutOfMemoryException' was thrown.",
    "   at System.Collections.Concurrent.ConcurrentQueueSegment`1..ctor(Int32 boundedLength)",
    "   at System.Threading.Tasks.Task.ScheduleAndStart(Boolean needsProtection)",
    "   --- End of inner exception stack trace ---",
    "   at Program.Main(String[] args)",
]


@pytest.mark.parametrize("stderr", [DOTNET_AGGREGATE, DOTNET_SCHEDULER])
def test_dotnets_out_of_memory_exception_is_out_of_memory_through_its_manifest(stderr):
    """The GC throws before the cgroup's limit is reached (peak 776 MiB of 1 GiB), so neither the
    OOM killer nor a generic "out of memory" says so; only the manifest's pattern does."""
    r = failed(
        exit_code=None, signal="SIGABRT", cgroup_peak=776 << 20, memory_cap=1 << 30, stderr_tail=stderr
    )
    assert verdict.classify(r, 2_132_174, 8, {}, HERE).code == "signal"
    for name in ("dotnet", "dotnet-delay"):
        v = verdict.classify(r, 2_132_174, 8, {}, HERE, VARIANTS[name].failures)
        assert (v.verdict, v.code) == ("failed", "out-of-memory"), v
        assert v.reason.startswith("out of memory: killed by SIGABRT, peak 776 MiB of 1,024 MiB")


def test_other_signal_names_it_and_the_message():
    r = failed(exit_code=None, signal="SIGSEGV", stderr_tail=["boom", "\tat frame"])
    v = verdict.classify(r, 10, 1, {}, HERE)
    assert (v.code, v.reason) == ("signal", "crashed by SIGSEGV: boom")


def test_sigkill_far_from_memory_is_a_crash_with_a_hint():
    v = verdict.classify(failed(exit_code=None, signal="SIGKILL"), 10, 1, {}, HERE)
    assert v.code == "signal" and "dmesg" in v.reason


def test_nonzero_exit_quotes_the_message():
    r = failed(exit_code=2, stderr_tail=["usage: rust-threads N [SLEEP_SECONDS]"])
    v = verdict.classify(r, 10, 1, {}, HERE)
    assert (v.verdict, v.code, v.reason) == (
        "failed",
        "exit",
        "exit 2: usage: rust-threads N [SLEEP_SECONDS]",
    )


def test_exit_zero_without_ready_is_invalid():
    v = verdict.classify(result(ready_n=None, ready_s=None), 1000, 1, {}, HERE)
    assert (v.verdict, v.code) == ("invalid", "no-ready")


def test_ready_mismatch_is_invalid():
    v = verdict.classify(result(ready_n=999), 1000, 1, {}, HERE)
    assert (v.verdict, v.code) == ("invalid", "ready-mismatch")


def test_java_spawning_longer_than_the_sleep():
    # java Main threads 100000 1, default limits: exit 0, `ready 100000` after 36.3 s, 6,199 threads.
    r = result(ready_n=100_000, ready_s=36.316206, wall_s=37.33, threads_max=6199)
    v = verdict.classify(r, 100_000, 1, JAVA, HERE, failures=JAVA_FAILURES)
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
    v = verdict.classify(r, 1_000_000, 10, {}, HERE)
    assert v.code == "spawn-outlasted-sleep"
    assert v.remedy == "use --sleep auto or --sleep 25"


def test_java_exit_zero_after_minutes_at_pid_max_asks_for_the_limit_first():
    # Seen here: 100k platform threads under pid_max=32768 exited 0 after 132 s.
    r = result(ready_n=100_000, ready_s=131.0, wall_s=132.0, threads_max=32_500)
    v = verdict.classify(r, 100_000, 10, JAVA, HERE, failures=JAVA_FAILURES)
    assert v.code == "spawn-outlasted-sleep" and "kernel.pid_max" in v.reason
    assert v.remedy.startswith("sysctl -w kernel.pid_max=102400")
    assert v.remedy.endswith("then use --sleep auto or --sleep 262")


def test_valid_run():
    v = verdict.classify(result(ready_n=1000, ready_s=0.5), 1000, 10, RUST, HERE, failures=RUST_FAILURES)
    assert (v.verdict, v.code, v.remedy) == ("valid", "ok", None)
    assert v.valid


def test_message_line_skips_frames_and_hints():
    assert verdict.message_line(RUST_PANIC).startswith("failed to spawn thread")
    assert verdict.message_line(JAVA_OOME).startswith('Exception in thread "main"')
    assert verdict.message_line(ELIXIR_LIMIT).startswith("** (SystemLimitError)")
    assert verdict.message_line([]) == ""


# ---------------------------------------------------------------- a real failure


@pytest.mark.serial
@pytest.mark.quiet  # thread limits are machine-wide: beside the other groups it once stopped at
# 12,682 threads with no limit read afterwards near it (2026-11-28); alone it meets vm.max_map_count
@pytest.mark.slow
def test_real_rust_threads_100k_on_default_limits_is_a_thread_limit():
    binary = BUILD_DIR / "rust-threads" / "target" / "release" / "rust-threads"
    require(binary.exists(), "rust-threads built (memrun build rust-threads)")
    here = read_limits()
    require(here["max_map_count"] == 65530, "the default vm.max_map_count")
    r = measure([str(binary), "100000", "1"], timeout=60)
    v = verdict.classify(r, 100_000, 1, RUST, here, failures=RUST_FAILURES)
    seen = (r.outcome(), r.threads_max, r.wall_s, r.sys_s, r.stderr_tail[-3:])
    assert (r.exit_code, r.signal) in ((101, None), (None, "SIGABRT")), seen
    assert v.code == "thread-limit" and "vm.max_map_count" in v.reason, v


# ---------------------------------------------------------------- a runtime the runner never heard of


def test_a_new_runtimes_failure_is_diagnosed_from_its_manifest_alone(tmp_path):
    """A throwaway task folder whose program dies with a made-up message: the verdict, reason and
    remedy in the stored row come from its task.toml, through the real CLI and a real run."""
    from tests.support.cli import FIXTURE_TASKS, rows, run

    tasks_dir = tmp_path / "tasks"
    shutil.copytree(FIXTURE_TASKS, tasks_dir)
    folder = tasks_dir / "frob"
    folder.mkdir()
    (folder / "frob.py").write_text(
        "import sys\nprint('frobnicator: widget pool exhausted at 7 widgets', file=sys.stderr)\nsys.exit(3)\n"
    )
    (folder / "task.toml").write_text(
        '[task]\ndescription = "test double: a runtime with a limit of its own"\n'
        '[tools.python]\nfind = ["{python}"]\n'
        '[[build]]\ncommands = [["{python}", "-m", "py_compile", "frob.py"]]\ninputs = ["frob.py"]\n'
        '[[variant]]\nname = "frob"\nrun = ["{python}", "{dir}/frob.py", "{n}", "{sleep}"]\n'
        'proof = { kind = "counter", how = "a fake" }\nmodel = "os-threads"\n'
        "[[failure]]\npattern = 'widget pool exhausted'\nmeans = \"runtime-limit\"\n"
        'code = "frob-widget-limit"\nreason = "frobnicator widget limit ({message})"\n'
        'remedy = "run with --widgets {n * 2 + 1}"\n'
    )
    out = tmp_path / "res"
    p = run(
        "sweep",
        "-r",
        "frob",
        "--n",
        "50",
        "--sleep",
        "1",
        "--out",
        str(out),
        tmp_path=tmp_path,
        env={"MEMRUN_TASKS": str(tasks_dir)},
    )
    assert p.returncode == 0, p.stderr
    (row,) = rows(out)
    assert (row["verdict"], row["code"], row["exit_code"]) == ("failed", "frob-widget-limit", 3)
    assert row["reason"] == "frobnicator widget limit (frobnicator: widget pool exhausted at 7 widgets)"
    assert row["remedy"] == "run with --widgets 101"


def test_message_line_skips_frame_addresses():
    # crystal-task 1000000 1 under the default vm.max_map_count: exit 11, every line after the
    # message a frame address ending in "[0x0] ???" (seen here).
    tail = [
        "Invalid memory access (signal 11) at address 0x40000",
        "[0x55ab536916c6] ?? +94194 in x",
        "[0x0] ???",
    ]
    assert verdict.message_line(tail) == "Invalid memory access (signal 11) at address 0x40000"


@pytest.mark.parametrize(
    "tail",
    [
        # crystal-task 1000000 10, the reference sweep (exit 11): fibers used up vm.max_map_count,
        # then the GC could not map the scheduler's queue and Crystal wrote through the NULL
        [
            "Invalid memory access (signal 11) at address 0x40000",
            "[0x55ab536916c6] ?? +94194 in x",
            "[0x0] ???",
        ],
        # crystal-task 100000 10 (exit 1): mmap refused a fiber stack
        [
            "Unhandled exception: Cannot allocate new fiber stack: Cannot allocate memory (RuntimeError)",
            "  from /usr/lib/crystal/lib/crystal/system/unix/fiber.cr:11:5 in 'checkout'",
        ],
    ],
)
def test_crystal_at_the_map_count_is_named_either_way_it_dies(tail):
    variant = VARIANTS["crystal"]
    code = 11 if "signal 11" in tail[0] else 1
    r = failed(exit_code=code, stderr_tail=tail, threads_max=1)
    v = verdict.classify(r, 100_000, 10, variant.per_task, HERE, failures=variant.failures)
    assert (v.verdict, v.code) == ("failed", "fiber-stack-limit"), v
    assert "vm.max_map_count" in v.reason
    assert v.remedy is not None and v.remedy.startswith("sysctl -w vm.max_map_count=265536")


def test_a_crystal_crash_elsewhere_is_not_blamed_on_the_map_count():
    variant = VARIANTS["crystal"]
    r = failed(exit_code=11, stderr_tail=["Invalid memory access (signal 11) at address 0x400000"])
    v = verdict.classify(r, 1000, 10, variant.per_task, HERE, failures=variant.failures)
    assert v.code == "exit", v


# ---------------------------------------------------------------- classify: file descriptors

# What runtimes print when accept() fails with EMFILE: Python and the JVM use the OS's strerror,
# Go lower-cases it (a runtime's wording: only a manifest entry knows it), Node names the errno.
PYTHON_EMFILE = ["OSError: [Errno 24] Too many open files"]
GO_EMFILE = ["2025/01/01 00:00:00 accept tcp 127.0.0.1:40000: accept4: too many open files"]
NODE_ENFILE = ["Error: accept ENFILE", "    at TCP.onconnection (node:net:2063:24)"]
CONNECTIONS = get("connections")
GO_FD = tasks.Failure(re.compile(r"accept4: too many open files"), "fd-limit", "fd-limit", None, None)
NODE_FD = tasks.Failure(re.compile(r"accept E[MN]FILE"), "fd-limit", "fd-limit", None, None)


def test_emfile_under_connections_names_the_runs_rlimit_nofile_and_the_ceiling_here():
    r = failed(exit_code=1, stderr_tail=PYTHON_EMFILE)
    v = verdict.classify(r, 50_000, 10, {}, HERE_CONN, workload=CONNECTIONS)
    assert (v.verdict, v.code) == ("failed", "fd-limit")
    assert v.reason == (
        "fd limit: RLIMIT_NOFILE of the run (20,000, memrun's hard RLIMIT_NOFILE (no CAP_SYS_RESOURCE to "
        "raise it); EMFILE) reached at N = 50,000 connections (exit 1): "
        "OSError: [Errno 24] Too many open files"
    )
    assert v.remedy is not None and "ulimit -Hn 51200" in v.remedy and "no sysctl lifts it" in v.remedy


def test_emfile_below_what_memrun_set_blames_the_program():
    r = failed(exit_code=1, stderr_tail=PYTHON_EMFILE)
    v = verdict.classify(r, 10_000, 10, {}, PRIVILEGED, workload=CONNECTIONS)
    assert "RLIMIT_NOFILE of the run (11,264, set by memrun for N = 10,000; EMFILE)" in v.reason
    assert v.remedy is not None and v.remedy.startswith("the program held more than 11,264 descriptors")


def test_emfile_above_fs_nr_open_asks_for_raise_limits():
    r = failed(exit_code=1, stderr_tail=PYTHON_EMFILE)
    v = verdict.classify(r, 1_048_400, 10, {}, PRIVILEGED, workload=CONNECTIONS)
    assert "RLIMIT_NOFILE of the run (1,048,576, fs.nr_open; EMFILE)" in v.reason
    assert v.remedy == "--raise-limits (root), or sysctl -w fs.nr_open=1049600"


def test_enfile_names_fs_file_max():
    r = failed(exit_code=1, stderr_tail=["socket.accept: OSError: [Errno 23] Too many open files in system"])
    v = verdict.classify(r, 1_000_000, 10, {}, HERE_CONN, workload=CONNECTIONS)
    assert v.code == "fd-limit"
    assert v.reason.startswith(
        "fd limit: fs.file-max (2,466,170 file handles system-wide, 633 open now; ENFILE)"
    )
    assert v.remedy == "--raise-limits (root), or sysctl -w fs.file-max=2002944"


def test_a_runtimes_own_wording_is_recognised_only_through_its_manifest():
    r = failed(exit_code=2, stderr_tail=GO_EMFILE)
    assert verdict.classify(r, 50_000, 10, {}, HERE_CONN, workload=CONNECTIONS).code == "exit"
    v = verdict.classify(r, 50_000, 10, {}, HERE_CONN, failures=[GO_FD], workload=CONNECTIONS)
    assert v.code == "fd-limit" and "RLIMIT_NOFILE of the run (20,000" in v.reason
    node = verdict.classify(
        failed(exit_code=1, stderr_tail=NODE_ENFILE), 50_000, 10, {}, HERE_CONN, [NODE_FD], CONNECTIONS
    )
    assert node.code == "fd-limit" and node.reason.startswith("fd limit: fs.file-max")


def test_a_server_stuck_on_emfile_is_fd_limit_not_a_timeout():
    r = failed(timed_out=True, exit_code=None, signal="SIGKILL", stderr_tail=GO_EMFILE * 3, wall_s=110.0)
    v = verdict.classify(r, 50_000, 10, {}, HERE_CONN, failures=[GO_FD], workload=CONNECTIONS)
    assert v.code == "fd-limit" and "(timed out)" in v.reason


def test_a_run_that_got_past_a_transient_emfile_stays_valid():
    r = result(ready_n=1000, stderr_tail=PYTHON_EMFILE)
    assert verdict.classify(r, 1000, 10, {}, HERE_CONN, workload=CONNECTIONS).valid


def test_emfile_under_sleep_is_the_limit_inherited_from_memrun():
    r = failed(exit_code=1, stderr_tail=PYTHON_EMFILE)
    v = verdict.classify(r, 50_000, 10, {}, {**HERE_CONN, "nofile_soft": 1024})
    assert (
        "RLIMIT_NOFILE of the run (1,024, inherited from memrun; EMFILE) reached at N = 50,000 tasks"
        in v.reason
    )
    assert v.remedy == "raise it in the shell that starts memrun (ulimit -n 51200): sleep runs inherit it"


def test_a_real_emfile_is_diagnosed_from_the_fixture_manifest(tmp_path):
    """The fixture runtime opens a descriptor per task and, at EMFILE, says so in its own words;
    memrun is started under a soft RLIMIT_NOFILE of 256 that its run inherits. Through the real
    CLI, the stored row names the limit, from the manifest entry alone."""
    from tests.support.cli import memrun, rows
    from tests.support.process import default_sigint

    def low_nofile() -> None:
        default_sigint()
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

    out = tmp_path / "res"
    p = memrun(
        "sweep",
        "-r",
        "fdtest",
        "--n",
        "1000",
        "--sleep",
        "1",
        "--out",
        str(out),
        tmp_path=tmp_path,
        env={"MEMRUN_TASKS": str(FD_TASKS)},
        preexec_fn=low_nofile,
    )
    _, err = p.communicate(timeout=3600)  # behind whatever measurement holds the machine
    assert p.returncode == 0, err
    (row,) = rows(out)
    assert (row["verdict"], row["code"], row["exit_code"]) == ("failed", "fd-limit", 1)
    assert re.fullmatch(
        r"fdtest ran out of descriptors \(fdtest: accept4: too many open files \(task \d+ of 1000\)\): "
        r"fd limit: RLIMIT_NOFILE of the run \(256, inherited from memrun; EMFILE\) reached at "
        r"N = 1,000 tasks \(exit 1\)",
        row["reason"],
    ), row["reason"]
    assert row["remedy"] == "raise it in the shell that starts memrun (ulimit -n 2048): sleep runs inherit it"


def test_the_servers_own_emfile_and_enfile_words_from_their_manifests():
    """Go's lower-case strerror and Elixir's atoms, as their task.toml entries describe them."""
    go = VARIANTS["go"].under(get_workload("connections"))
    elixir = VARIANTS["elixir"].under(get_workload("connections"))
    go_out = failed(exit_code=1, stderr_tail=GO_EMFILE)
    v = verdict.classify(go_out, 50_000, 10, {}, HERE_CONN, go.failures, CONNECTIONS)
    assert v.code == "fd-limit" and "RLIMIT_NOFILE of the run (20,000" in v.reason
    assert (
        verdict.classify(go_out, 50_000, 10, {}, HERE_CONN, VARIANTS["rust-tokio"].failures, CONNECTIONS).code
        == "exit"
    )
    enfile = failed(
        exit_code=1, stderr_tail=["** (MatchError) no match of right hand side value: {:error, :enfile}"]
    )
    v = verdict.classify(enfile, 50_000, 10, {}, HERE_CONN, elixir.failures, CONNECTIONS)
    assert v.code == "fd-limit" and v.reason.startswith("fd limit: fs.file-max")
