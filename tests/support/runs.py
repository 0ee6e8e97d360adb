"""Runs as the verdict rules see them: a RunResult of a run that went well, to be overridden case by
case, and failure messages copied from real runs on the development machine (Linux 6.18, Rust 1.9x,
Temurin JDK 25, Elixir 1.14 / OTP 25), each produced as noted beside it, with the manifests'
failure tables they are judged by."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from runner import tasks
from runner.measure import RunResult

VARIANTS = tasks.load_all()


RUST_FAILURES = VARIANTS["rust-threads"].failures


JAVA_FAILURES = VARIANTS["java-threads"].failures


ELIXIR_FAILURES = VARIANTS["elixir"].failures


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


FD_TASKS = Path(__file__).resolve().parents[1] / "fixtures" / "fdtasks"
