"""`--futex-hash SLOTS`: a larger per-process futex hash for every process of a run.

Linux 6.16+ sizes each process's futex hash from the online CPUs (limits.host.futex_hash_buckets:
16 buckets on 2 CPUs) and never grows it, so a run whose threads sleep in futex waits spends its
thread starts walking ever longer chains in the kernel (Java platform threads at 20k: 15.9 s to
`ready` instead of 3.0 s). The only knob is prctl(PR_FUTEX_HASH) from inside the process, so memrun
preloads a constructor that makes the call (futexhash.c) into every process of the run. Opt-in,
applied to whichever variants run, and recorded in each run (its environment and a flag reason).
"""

from __future__ import annotations

import ctypes
import functools
import os
import threading
from collections.abc import Mapping
from pathlib import Path

from runner.limits.host import Limits
from runner.measure.launcher import compiled
from runner.paths import BUILD_DIR

SOURCE = Path(__file__).with_name("futexhash.c")
SLOTS_ENV = "MEMRUN_FUTEX_HASH_SLOTS"
PR_FUTEX_HASH, GET_SLOTS = 78, 2
MAX_SLOTS = 1 << 24  # 16M buckets = 1 GiB of kernel memory per process: more is surely a typo


class FutexHashError(ValueError):
    """--futex-hash cannot be honoured: a bad size, or a kernel without PR_FUTEX_HASH."""


def check_slots(slots: int) -> None:
    """The kernel takes a power of two, at least 2 (0, the global hash, is not offered here)."""
    if slots < 2 or slots > MAX_SLOTS or slots & (slots - 1):
        raise FutexHashError(f"--futex-hash: {slots:,} is not a power of two from 2 to {MAX_SLOTS:,}")


@functools.cache
def kernel_slots() -> int | None:
    """This process's futex hash size as the kernel reports it (a thread is started first: the
    table exists once a process has a second thread), or None without PR_FUTEX_HASH. Asked once:
    every run with --futex-hash checks the kernel can take it."""
    threading.Thread(target=lambda: None).start()
    libc = ctypes.CDLL(None, use_errno=True)
    got = libc.prctl(PR_FUTEX_HASH, GET_SLOTS, 0, 0, 0)
    return None if got < 0 else int(got)


def slots_for(threads: int) -> int:
    """The table to ask for with that many threads: a bucket per thread, as a power of two."""
    return 1 << max(1, (threads - 1).bit_length())


def remedy(threads: int, then: str | None = None) -> str:
    """The remedy for a run slowed by a small futex hash, before whatever else it needs."""
    return f"--futex-hash {slots_for(threads)}" + (f", and {then}" if then else "")


def preload_path() -> Path:
    return BUILD_DIR / "tools" / "memrun-futexhash.so"


def ensure_preload() -> Path:
    """The preload library, (re)built when missing or older than its source."""
    return compiled(SOURCE, preload_path(), what="the futex-hash preload", flags=("-shared", "-fPIC"))


def environment(slots: int) -> dict[str, str]:
    """What a run's environment gains: the preload (built on first use) and the size it sets."""
    check_slots(slots)
    if kernel_slots() is None:
        raise FutexHashError(
            f"--futex-hash: this kernel ({os.uname().release}) has no per-process futex hash to "
            "resize (prctl PR_FUTEX_HASH, Linux 6.16+); its futex hash is not the bottleneck here"
        )
    lib = ensure_preload()
    preload = " ".join(p for p in (str(lib), os.environ.get("LD_PRELOAD", "")) if p)
    return {"LD_PRELOAD": preload, SLOTS_ENV: str(slots)}


def reason(slots: int) -> str:
    """The flag reason stored with each run that had it."""
    return (
        f"--futex-hash {slots}: every process asked the kernel for a futex hash of {slots:,} "
        "buckets (prctl PR_FUTEX_HASH, preloaded), instead of the default sized from the CPUs"
    )


def as_run_had(limits: Limits, env: Mapping[str, str]) -> Limits:
    """The limits a run had, given the environment it ran with: under --futex-hash each of its
    processes asked for its own futex hash (SLOTS_ENV says how large), so the host's default
    size, which read_limits() reports, is not the one its threads waited on. Judging a run on the
    default would name the small hash as the cause of a slowdown that the run had lifted."""
    slots = env.get(SLOTS_ENV)
    if not slots or not slots.isdigit():
        return limits
    return {**limits, "futex_hash_buckets": int(slots)}


def label(label: str, slots: int | None) -> str:
    """A sweep's default label with --futex-hash: its runs must never pool with plain ones."""
    return f"{label}+futex-hash-{slots}" if slots is not None else label
