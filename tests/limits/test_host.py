"""runner.limits.host: the limits in force, read without ever raising."""

from __future__ import annotations

import pytest

from runner import tasks
from runner.judge import verdict
from runner.limits import host
from tests.support.here import HERE, RUST
from tests.support.runs import RUST_PANIC, failed

RUST_FAILURES = tasks.load_all()["rust-threads"].failures


def test_read_limits_here():
    here = host.read_limits()
    for key in ("pid_max", "threads_max", "max_map_count", "threads_now", "mem_total"):
        assert isinstance(here[key], int) and here[key] > 0, key
    assert here["pids_max"] is None or here["pids_max"] == "max" or isinstance(here["pids_max"], int)
    assert set(HERE) <= set(here)


@pytest.mark.parametrize(
    "config, cpus, buckets", [("y", 2, 16), ("y", 8, 32), ("y", 48, 256), (None, 2, None)]
)
def test_futex_hash_buckets_as_the_kernel_sizes_them(monkeypatch, config, cpus, buckets):
    monkeypatch.setattr(host, "_kernel_config", lambda option: config)
    monkeypatch.setattr(host.os, "sysconf", lambda name: cpus)
    assert host.futex_hash_buckets() == buckets


def test_futex_hash_buckets_here_read_the_running_kernels_config():
    # this machine: Linux 6.18 with CONFIG_FUTEX_PRIVATE_HASH=y, 2 CPUs (a prctl GET_SLOTS read 16)
    expected = 16 if host._kernel_config("CONFIG_FUTEX_PRIVATE_HASH") == "y" else None
    assert host.read_limits()["futex_hash_buckets"] == expected


def test_read_limits_unreadable_is_none(monkeypatch, tmp_path):
    monkeypatch.setattr(host, "PROC_SYS", tmp_path)
    monkeypatch.setattr(host, "_read_text", lambda path: None)
    here = host.read_limits()
    assert here["pid_max"] is None and here["threads_now"] is None and here["mem_total"] is None
    v = verdict.classify(
        failed(exit_code=101, stderr_tail=RUST_PANIC), 10, 1, RUST, here, failures=RUST_FAILURES
    )
    assert v.code == ("thread-limit")
