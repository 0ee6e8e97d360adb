"""runner.limits.futex: the --futex-hash preload, checked against what the kernel reports."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from runner.limits import futex, host
from tests.support.process import require

ROOT = Path(__file__).resolve().parents[2]
# What a process reads back from the kernel: the futex hash it has once it has a second thread.
READ_SLOTS = "from runner.limits.futex import kernel_slots; print(kernel_slots())"


def _slots_of_a_child(env: dict[str, str]) -> str:
    argv = [sys.executable, "-c", READ_SLOTS]
    p = subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    assert p.stderr == "", p.stderr
    return p.stdout.strip()


@pytest.mark.parametrize("slots", [0, 1, 3, 1000, 1 << 25])
def test_sizes_the_kernel_would_refuse_are_refused_here(slots):
    with pytest.raises(futex.FutexHashError, match="power of two"):
        futex.check_slots(slots)


def test_the_preload_sets_the_size_in_the_process_it_is_loaded_into():
    buckets = host.futex_hash_buckets()
    require(buckets is not None, "a kernel with a per-process futex hash (Linux 6.16+)")
    plain = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    assert _slots_of_a_child(plain) == str(buckets)  # the default, sized from the CPUs
    assert _slots_of_a_child({**plain, **futex.environment(65536)}) == "65536"


def test_labels_keep_runs_with_it_apart():
    assert futex.label("box", None) == "box"
    assert futex.label("box", 131072) == "box+futex-hash-131072"


def test_a_run_is_judged_on_the_hash_it_asked_for():
    limits = {"pid_max": 32768, "futex_hash_buckets": 16}
    assert futex.as_run_had(limits, {futex.SLOTS_ENV: "4096", "LD_PRELOAD": "x.so"}) == {
        "pid_max": 32768,
        "futex_hash_buckets": 4096,
    }
    assert futex.as_run_had(limits, {"LD_PRELOAD": "x.so"}) is limits  # a plain run: the default
    assert futex.as_run_had(limits, {futex.SLOTS_ENV: ""}) is limits
