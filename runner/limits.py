"""Limits that cap threads and processes: read them, predict which one N hits, judge a run, raise them.

Why this exists: a runtime that uses one OS thread per task does not fail at a memory figure but at a
kernel or process limit (DESIGN.md, Traps 5-7), and which limit it was decides the remedy. On this
machine 100k Rust threads stop at ~16.4k threads because of vm.max_map_count, not pid_max; 100k Java
platform threads may exit 0 after minutes because the JVM keeps going; Erlang stops at 262144
processes. So a run is judged by what it reports (readiness line, exit, signal, stderr, threads
reached) against the limits that were in force, and every failure names the limit and its fix.

Per-task needs come from the manifest's optional `[variant.per_task]` table (tasks/README.md):
`threads` (OS threads per task), `maps` (memory mappings per task), `stack_kib` (virtual memory
reserved per task, which only matters under strict overcommit or RLIMIT_AS).
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import resource
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from runner.measure import cgroups
from runner.measure.result import MIB, RunResult
from runner.signals import Terminated as Terminated  # what raised_limits() turns SIGTERM into
from runner.signals import sigterm_raises

if TYPE_CHECKING:
    from runner.tasks import Variant

Limits = dict[str, int | str | None]

PROC_SYS = Path("/proc/sys")
UNLIMITED = "unlimited"  # an RLIMIT at RLIM_INFINITY
NO_MAX = "max"  # a cgroup limit that is not set
PID_MAX_LIMIT = 4_194_304  # the kernel refuses a larger kernel.pid_max on 64-bit
RESERVED_PIDS = 300  # once PIDs wrap, the kernel skips 1..299, so they are not available to a run
BASE_THREADS = 64  # the runtime's own threads (JVM ~19) and memrun's, on top of the tasks' threads
BASE_MAPS = 256  # the runtime's own mappings (measured: Rust binary 36, JVM 193)
HEADROOM = 1024  # added to a raised value so a slightly larger N or a stray process still fits
ROUND_TO = 4096  # raised values are rounded up to this: readable numbers, not much more than needed
# Kernel memory per idle OS thread, measured here as memory-cgroup peak / threads for Rust threads
# (16,370 threads: 620 MB; 10k: 365 MB): kernel stack 16 KiB + page tables + the touched stack pages.
THREAD_FLOOR_BYTES = 36 * 1024
NEAR = 0.9  # threads reached / capacity at or above this: that limit was hit
BYTE_KEYS = {"mem_available", "commit_limit", "as_soft"}  # limits counted in bytes, shown in GiB

SYSCTLS = {
    "pid_max": "kernel/pid_max",
    "threads_max": "kernel/threads-max",
    "max_map_count": "vm/max_map_count",
    "overcommit_memory": "vm/overcommit_memory",
}
LABELS = {
    "pid_max": "kernel.pid_max",
    "threads_max": "kernel.threads-max",
    "max_map_count": "vm.max_map_count",
    "overcommit_memory": "vm.overcommit_memory",
    "nproc_soft": "RLIMIT_NPROC",
    "pids_max": "cgroup pids.max",
    "commit_limit": "CommitLimit",
    "as_soft": "RLIMIT_AS",
    "mem_available": "memory",
}


# ---------------------------------------------------------------- reading


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _read_int(path: Path) -> int | None:
    text = _read_text(path)
    try:
        return int(text.split()[0]) if text else None
    except ValueError:
        return None


def _rlimit(which: int) -> tuple[int | str | None, int | str | None]:
    """(soft, hard), with RLIM_INFINITY spelled out so a table never shows 18446744073709551615."""
    try:
        soft, hard = resource.getrlimit(which)
    except (OSError, ValueError):
        return None, None

    def show(v: int) -> int | str:
        return UNLIMITED if v == resource.RLIM_INFINITY else v

    return show(soft), show(hard)


def _meminfo() -> dict[str, int]:
    """/proc/meminfo in bytes."""
    out: dict[str, int] = {}
    for line in (_read_text(Path("/proc/meminfo")) or "").splitlines():
        key, _, rest = line.partition(":")
        with contextlib.suppress(ValueError, IndexError):
            out[key] = int(rest.split()[0]) * 1024
    return out


def _threads_now() -> int | None:
    """Threads and processes on the whole system: they already hold PIDs and count to threads-max."""
    text = _read_text(Path("/proc/loadavg"))
    try:
        return int(text.split()[3].split("/")[1]) if text else None
    except (IndexError, ValueError):
        return None


def _nproc_enforced() -> int:
    """0 for root in the initial user namespace: the kernel does not apply RLIMIT_NPROC to it.

    (Checked here: `prlimit --nproc=1000` lets root start 3000 threads, nobody gets EAGAIN at ~1000.)
    """
    if os.geteuid() != 0:
        return 1
    first = (_read_text(Path("/proc/self/uid_map")) or "").split()
    return 0 if first[:2] == ["0", "0"] else 1


def _tightest(base: Path, own: str, name: str, unlimited_from: int | None = None) -> int | str | None:
    """The smallest `name` limit from this process's cgroup up to the root: each ancestor encloses it.

    A cgroup with no limit anywhere on the path gives "max"; an unreadable hierarchy gives None.
    """
    if not base.is_dir():
        return None
    found: list[int] = []
    path = base / own.strip("/")
    while True:
        value = _read_text(path / name)
        if value and value != NO_MAX:
            with contextlib.suppress(ValueError):
                number = int(value)
                if unlimited_from is None or number < unlimited_from:
                    found.append(number)
        if path == base or base not in path.parents:
            break
        path = path.parent
    return min(found) if found else NO_MAX


def _cgroup_limit(controller: str, name_v1: str, name_v2: str) -> tuple[int | str | None, str | None]:
    """(limit, cgroup directory) for a controller, v1 hierarchy first, then v2."""
    mounts = cgroups._mounts()
    for point, fstype, opts in mounts:
        if fstype == "cgroup" and controller in opts:
            own = cgroups._own_path(controller) or "/"
            base = Path(point)
            return _tightest(base, own, name_v1, 1 << 62), str(base / own.strip("/"))
    for point, fstype, _opts in mounts:
        if fstype != "cgroup2":
            continue
        base = Path(point)
        if controller not in (_read_text(base / "cgroup.controllers") or "").split():
            continue
        own = cgroups._own_path(None) or "/"
        return _tightest(base, own, name_v2), str(base / own.strip("/"))
    return None, None


def read_limits() -> Limits:
    """Every limit that caps how many threads or processes a run can have, as of now.

    Keys: pid_max, threads_max, max_map_count, overcommit_memory, nproc_soft, nproc_hard,
    nproc_enforced (0 = root, exempt), stack_soft, as_soft (bytes or "unlimited"), pids_max
    ("max" = none), pids_cgroup, mem_cgroup_max, mem_total, mem_available, commit_limit,
    committed_as (bytes), threads_now. A value that cannot be read is None, never an exception:
    the table and the verdicts must still come out on a machine that hides some of these.
    """
    limits: Limits = {key: _read_int(PROC_SYS / rel) for key, rel in SYSCTLS.items()}
    limits["nproc_soft"], limits["nproc_hard"] = _rlimit(resource.RLIMIT_NPROC)
    limits["nproc_enforced"] = _nproc_enforced()
    limits["stack_soft"] = _rlimit(resource.RLIMIT_STACK)[0]
    limits["as_soft"] = _rlimit(resource.RLIMIT_AS)[0]
    limits["pids_max"], limits["pids_cgroup"] = _cgroup_limit("pids", "pids.max", "pids.max")
    limits["mem_cgroup_max"] = _cgroup_limit("memory", "memory.limit_in_bytes", "memory.max")[0]
    mem = _meminfo()
    limits["mem_total"] = mem.get("MemTotal")
    limits["mem_available"] = mem.get("MemAvailable")
    limits["commit_limit"] = mem.get("CommitLimit")
    limits["committed_as"] = mem.get("Committed_AS")
    limits["threads_now"] = _threads_now()
    return limits


# ---------------------------------------------------------------- prediction


@dataclass(frozen=True)
class Hit:
    """One limit that N tasks would exceed, and how to lift it."""

    key: str  # key in read_limits(), e.g. "max_map_count"
    limit: str  # its usual name, e.g. "vm.max_map_count"
    current: int | str | None
    needed: int  # what N needs (same unit as current)
    target: int | None  # the value raised_limits() sets; None = not raised automatically
    remedy: str  # the exact command or step

    def describe(self) -> str:
        show = _size if self.key in BYTE_KEYS else _num
        return f"{self.limit}: {show(self.current)} < {show(self.needed)} needed -> {self.remedy}"


def _num(value: int | str | None) -> str:
    return "unreadable" if value is None else f"{value:,}" if isinstance(value, int) else value


def _size(value: int | str | None) -> str:
    """Bytes for people: GiB from 1 GiB up, else MiB."""
    if not isinstance(value, int):
        return _num(value)
    if value >= 1024 * MIB:
        return f"{value / (1024 * MIB):,.1f} GiB"
    return f"{value / MIB:,.0f} MiB"


def _round_up(value: int, step: int = ROUND_TO) -> int:
    return -(-value // step) * step


def _int(limits: Limits, key: str) -> int | None:
    value = limits.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _need(per_task: dict, key: str) -> int:
    return int(per_task.get(key, 0) or 0)


def _sysctl_hit(key: str, needed: int, limits: Limits, ceiling: int | None = None) -> Hit | None:
    """A kernel.* / vm.* limit below what N needs, and the sysctl that lifts it (with headroom)."""
    current = _int(limits, key)
    if current is None or needed <= current:
        return None
    target = _round_up(needed + HEADROOM)
    if ceiling is not None:
        target = min(ceiling, target)
    return Hit(key, LABELS[key], current, needed, target, f"sysctl -w {LABELS[key]}={target}")


def _pid_max_hit(threads: int, limits: Limits) -> Hit | None:
    if threads == 0:
        return None
    needed = threads + (_int(limits, "threads_now") or 0) + BASE_THREADS + RESERVED_PIDS
    hit = _sysctl_hit("pid_max", needed, limits, ceiling=PID_MAX_LIMIT)
    if hit and needed > PID_MAX_LIMIT:
        return Hit(
            hit.key,
            hit.limit,
            hit.current,
            needed,
            PID_MAX_LIMIT,
            f"impossible here: more than {PID_MAX_LIMIT:,} PIDs (the kernel maximum); run fewer tasks",
        )
    return hit


def _threads_max_hit(threads: int, limits: Limits) -> Hit | None:
    if threads == 0:
        return None
    return _sysctl_hit("threads_max", threads + (_int(limits, "threads_now") or 0) + BASE_THREADS, limits)


def _map_count_hit(maps: int, limits: Limits) -> Hit | None:
    return _sysctl_hit("max_map_count", maps + BASE_MAPS, limits) if maps else None


def _nproc_hit(threads: int, limits: Limits) -> Hit | None:
    """RLIMIT_NPROC counts every thread of the user; root is exempt, so this is for non-root runs."""
    current = _int(limits, "nproc_soft")
    if current is None or threads == 0 or not limits.get("nproc_enforced"):
        return None
    needed = threads + BASE_THREADS
    if needed <= current:
        return None
    target = _round_up(needed + HEADROOM)
    hard = limits.get("nproc_hard")
    if hard == UNLIMITED or (isinstance(hard, int) and hard >= target):
        remedy = f"ulimit -u {target}"
    else:
        remedy = f"raise the hard limit to {target} (nproc in /etc/security/limits.conf), or run as root"
    return Hit("nproc_soft", "RLIMIT_NPROC (ulimit -u)", current, needed, target, remedy)


def _pids_cgroup_hit(threads: int, limits: Limits) -> Hit | None:
    """Left to the user: a pids.max is usually a container's or a service's deliberate cap."""
    current = _int(limits, "pids_max")
    if current is None or threads == 0:
        return None
    needed = threads + BASE_THREADS
    if needed <= current:
        return None
    where = limits.get("pids_cgroup") or "<this cgroup>"
    return Hit(
        "pids_max", LABELS["pids_max"], current, needed, None, f"echo max > {where}/pids.max (as root)"
    )


def _memory_hit(threads: int, limits: Limits) -> Hit | None:
    """OS threads cost kernel memory that no sysctl removes; say so before a sweep swaps or OOMs."""
    available = _int(limits, "mem_available")
    if available is None or threads == 0:
        return None
    cgroup_max = _int(limits, "mem_cgroup_max")
    current = min(available, cgroup_max) if cgroup_max is not None else available
    needed = threads * THREAD_FLOOR_BYTES
    if needed <= current:
        return None
    return Hit(
        "mem_available",
        "memory (MemAvailable)",
        current,
        needed,
        None,
        f"none by sysctl: ~{THREAD_FLOOR_BYTES // 1024} KiB of kernel memory per OS thread; run fewer tasks",
    )


def _commit_hit(stack: int, limits: Limits) -> Hit | None:
    """Under vm.overcommit_memory=2 every thread stack is committed up front."""
    limit = _int(limits, "commit_limit")
    if limits.get("overcommit_memory") != 2 or limit is None or stack == 0:
        return None
    needed = stack + (_int(limits, "committed_as") or 0)
    if needed <= limit:
        return None
    return Hit(
        "commit_limit",
        "CommitLimit (vm.overcommit_memory=2)",
        limit,
        needed,
        None,
        "sysctl -w vm.overcommit_memory=0 (or raise vm.overcommit_ratio)",
    )


def _address_space_hit(stack: int, limits: Limits) -> Hit | None:
    current = _int(limits, "as_soft")
    if current is None or stack == 0 or stack <= current:
        return None
    return Hit("as_soft", "RLIMIT_AS (ulimit -v)", current, stack, None, "ulimit -v unlimited")


def predict(n: int, per_task: dict, limits: Limits) -> list[Hit]:
    """The limits N tasks of a variant would exceed, given what each task needs of the OS.

    A variant whose tasks need no OS thread and no mapping (async tasks, goroutines, Erlang
    processes) hits none of these; its limits are the runtime's own (Erlang +P) or memory.
    """
    threads = n * _need(per_task, "threads")
    maps = n * _need(per_task, "maps")
    stack = n * _need(per_task, "stack_kib") * 1024
    checks = [
        _pid_max_hit(threads, limits),
        _threads_max_hit(threads, limits),
        _map_count_hit(maps, limits),
        _nproc_hit(threads, limits),
        _pids_cgroup_hit(threads, limits),
        _commit_hit(stack, limits),
        _address_space_hit(stack, limits),
        _memory_hit(threads, limits),
    ]
    return [hit for hit in checks if hit is not None]


def max_n(per_task: dict, limits: Limits, ceiling: int = 100_000_000) -> tuple[int, Hit] | None:
    """The largest N that hits nothing, and the first limit N+1 hits; None when nothing caps it.

    A binary search over predict(): the needs grow with N, so the answer is one boundary.
    """
    if not predict(ceiling, per_task, limits):
        return None
    lo, hi = 0, ceiling  # predict(lo) is empty, predict(hi) is not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if predict(mid, per_task, limits):
            hi = mid
        else:
            lo = mid
    return lo, predict(hi, per_task, limits)[0]


# ---------------------------------------------------------------- classification

# Lines a runtime prints when the OS refused a new thread (each seen or documented):
THREAD_FAILURE = re.compile(
    "|".join(
        [
            r"failed to spawn thread",  # Rust std::thread::spawn panic -> exit 101
            r"alternative stack guard page",  # Rust: new thread's sigaltstack mmap, ENOMEM -> SIGABRT
            r"fatal runtime error: failed to initiate panic",  # Rust: second panic -> abort
            r"Resource temporarily unavailable",  # EAGAIN from clone(): PIDs, threads, NPROC, pids.max
            r"unable to create (?:new )?native thread",  # Java OutOfMemoryError
            r"pthread_create failed",  # JVM warning (JDK 21+ prints it on stdout), C programs
            r"newosproc|failed to create new OS thread",  # Go runtime
            r"can't start new thread",  # Python threading
            r"(?:thread|stack).*Cannot allocate memory",  # stack or guard mmap refused
        ]
    )
)
ERLANG_LIMIT = re.compile(r"system_limit|SystemLimitError|Too many processes")
OUT_OF_MEMORY = re.compile(
    r"out of memory|OutOfMemory|MemoryError|Cannot allocate \d+ bytes|heap out of memory", re.IGNORECASE
)
# stderr lines that are not the message: stack frames, backtrace headers, hints
NOISE = re.compile(r"^\s|^note:|^stack backtrace:|^$")


@dataclass(frozen=True)
class Verdict:
    """Whether one run's figure can be published, and if not, why and what to do."""

    verdict: Literal["valid", "invalid", "failed"]
    code: str  # short machine code, e.g. "thread-limit"
    reason: str  # one line
    remedy: str | None  # one line, or None

    @property
    def valid(self) -> bool:
        return self.verdict == "valid"


@dataclass(frozen=True)
class _Run:
    """What every rule needs, computed once."""

    result: RunResult
    n: int
    sleep_s: float
    per_task: dict
    limits: Limits

    @property
    def stderr(self) -> str:
        """The program's messages: stderr, plus stray stdout (the JVM warns there)."""
        return "\n".join([*self.result.stderr_tail, *self.result.stdout_tail])

    @property
    def threads(self) -> int:
        """Most threads seen: the figure that tells which limit stopped the run."""
        timeline = max((s.threads for s in self.result.timeline), default=0)
        return max(self.result.threads_max, timeline)


def message_line(stderr_tail: list[str]) -> str:
    """The line of stderr that says what went wrong, skipping stack frames and hints.

    Rust ends with "note: ... RUST_BACKTRACE", Java and Elixir with stack frames; the message is
    the last line that is neither.
    """
    for line in reversed(stderr_tail):
        if not NOISE.match(line):
            return line.strip()[:200]
    return next((line.strip()[:200] for line in reversed(stderr_tail) if line.strip()), "")


def _thread_capacities(run: _Run) -> dict[str, tuple[int, str]]:
    """How many threads each limit allowed this run: key -> (capacity, how it was worked out)."""
    limits, out = run.limits, {}
    now = _int(limits, "threads_now") or 0
    if (pid_max := _int(limits, "pid_max")) is not None:
        out["pid_max"] = (pid_max - now, f"kernel.pid_max {pid_max:,} minus {now:,} tasks already running")
    if (threads_max := _int(limits, "threads_max")) is not None:
        out["threads_max"] = (threads_max - now, f"kernel.threads-max {threads_max:,} minus {now:,} running")
    maps, threads = _need(run.per_task, "maps"), _need(run.per_task, "threads")
    if (count := _int(limits, "max_map_count")) is not None and maps and threads:
        per_thread = maps / threads
        out["max_map_count"] = (
            int(count / per_thread),
            f"vm.max_map_count {count:,} / {per_thread:g} mappings per thread",
        )
    if (nproc := _int(limits, "nproc_soft")) is not None and limits.get("nproc_enforced"):
        out["nproc_soft"] = (nproc, f"RLIMIT_NPROC {nproc:,}")
    if (pids := _int(limits, "pids_max")) is not None:
        out["pids_max"] = (pids, f"cgroup pids.max {pids:,}")
    return out


def _limits_reached(run: _Run) -> list[tuple[str, str]]:
    """The limits the thread count was at when the run stopped, closest first: (key, explanation)."""
    reached = run.threads
    near = []
    for key, (capacity, how) in _thread_capacities(run).items():
        if capacity > 0 and reached >= NEAR * capacity:
            near.append((reached / capacity, key, how))
    near.sort(reverse=True)
    # "Cannot allocate memory" comes from mmap: mappings, not PIDs, ran out.
    if "Cannot allocate memory" in run.stderr:
        near.sort(key=lambda item: item[1] != "max_map_count")
    return [(key, how) for _, key, how in near]


def _thread_remedy(run: _Run, keys: list[str]) -> str:
    """Commands for the limits that were reached, then for any other limit N would hit next.

    Lifting only the limit that stopped this run would just move the failure to the next one
    (100k Rust threads: vm.max_map_count at 16k, then kernel.pid_max at 32k).
    """
    per_task = {"threads": 1, **run.per_task}  # a thread failure means at least one thread per task
    hits = {hit.key: hit for hit in predict(run.n, per_task, run.limits)}
    parts = [
        hits[key].remedy if key in hits else f"raise {LABELS.get(key, key)} (see memrun limits --n {run.n})"
        for key in keys
    ]
    parts += [hit.remedy for key, hit in hits.items() if key not in keys and hit.target is not None]
    return "; ".join(parts) or f"see `memrun limits --n {run.n}`"


def _not_started(run: _Run) -> Verdict | None:
    if not run.result.error:
        return None
    return Verdict(
        "failed",
        "not-started",
        f"toolchain missing / cannot start: {run.result.error}",
        "run `memrun doctor` and `memrun build`",
    )


def _interrupted(run: _Run) -> Verdict | None:
    if not run.result.interrupted:
        return None
    return Verdict("failed", "interrupted", "interrupted by the user (Ctrl-C)", None)


def _timed_out(run: _Run) -> Verdict | None:
    r = run.result
    if not r.timed_out:
        return None
    ready = f"`ready {r.ready_n}` after {r.ready_s:.1f} s" if r.ready_s is not None else "no `ready` line"
    reason = f"timeout after {r.wall_s:.0f} s: {run.threads:,} threads at most, {ready}"
    reached = _limits_reached(run)
    if reached:
        reason += f"; threads were at {LABELS[reached[0][0]]} ({reached[0][1]})"
        return Verdict("failed", "timeout", reason, _thread_remedy(run, [k for k, _ in reached]))
    remedy = "the program was still starting tasks: give a longer --timeout" if r.ready_s is None else None
    return Verdict("failed", "timeout", reason, remedy)


def _erlang_limit(run: _Run) -> Verdict | None:
    if not ERLANG_LIMIT.search(run.stderr):
        return None
    return Verdict(
        "failed",
        "erlang-process-limit",
        f"Erlang process limit reached ({message_line(run.result.stderr_tail)})",
        f"start the VM with +P {run.n + 65536} (elixir --erl '+P {run.n + 65536}'; the manifest's "
        "[[variant.when]] rule does this above its min_n)",
    )


def _thread_limit(run: _Run) -> Verdict | None:
    r = run.result
    if r.exit_code == 0 or not THREAD_FAILURE.search(run.stderr):
        return None
    reached = _limits_reached(run)
    keys = [key for key, _ in reached]
    if reached:
        which = LABELS[keys[0]]
        why = reached[0][1] + (f"; also near {', '.join(LABELS[k] for k in keys[1:])}" if keys[1:] else "")
    elif "Cannot allocate memory" in run.stderr:
        which, why = "probably vm.max_map_count", "a thread stack mapping failed with ENOMEM"
        keys = ["max_map_count"]
    else:
        which, why = "unknown limit", "no limit read here is near the threads reached"
    outcome = f"killed by {r.signal}" if r.signal else f"exit {r.exit_code}"
    return Verdict(
        "failed",
        "thread-limit",
        f"thread limit: {which} ({run.threads:,} threads reached, {why}; {outcome})",
        _thread_remedy(run, keys),
    )


def _out_of_memory(run: _Run) -> Verdict | None:
    r = run.result
    peak = max(r.cgroup_peak or 0, r.peak_rss or 0)
    bounds = [b for b in (_int(run.limits, "mem_total"), _int(run.limits, "mem_cgroup_max")) if b]
    near_limit = (r.signal == "SIGKILL" and bool(bounds) and peak >= 0.8 * min(bounds)) or bool(
        r.cgroup_oom_kills
    )
    said_so = (r.signal or r.exit_code) and OUT_OF_MEMORY.search(run.stderr)
    if not (near_limit or said_so):
        return None
    detail = f"peak {peak / MIB:,.0f} MiB" + (f" of {min(bounds) / MIB:,.0f} MiB" if bounds else "")
    how = f"killed by {r.signal}" if r.signal else f"exit {r.exit_code}"
    return Verdict(
        "failed",
        "out-of-memory",
        f"out of memory: {how}, {detail}",
        "run fewer tasks or on a machine with more memory",
    )


def _signal(run: _Run) -> Verdict | None:
    r = run.result
    if not r.signal:
        return None
    last = message_line(r.stderr_tail)
    hint = " (the OOM killer or another process: see dmesg)" if r.signal == "SIGKILL" else ""
    return Verdict("failed", "signal", f"crashed by {r.signal}{hint}" + (f": {last}" if last else ""), None)


def _nonzero_exit(run: _Run) -> Verdict | None:
    r = run.result
    if r.exit_code == 0:
        return None
    last = message_line(r.stderr_tail)
    return Verdict("failed", "exit", f"exit {r.exit_code}" + (f": {last}" if last else ""), None)


def _no_ready(run: _Run) -> Verdict | None:
    if run.result.ready_n is not None:
        return None
    return Verdict(
        "invalid",
        "no-ready",
        "no readiness line: exit 0 but no `ready N` on stdout, so nothing shows all N were alive",
        "the program must print `ready N` once all N tasks are spawned (tasks/README.md)",
    )


def _ready_mismatch(run: _Run) -> Verdict | None:
    if run.result.ready_n == run.n:
        return None
    return Verdict(
        "invalid",
        "ready-mismatch",
        f"the program said `ready {run.result.ready_n}` but {run.n} tasks were asked for",
        "check how the program parses N",
    )


def _spawn_outlasted_sleep(run: _Run) -> Verdict | None:
    spawn = run.result.ready_s
    if spawn is None or spawn <= run.sleep_s:
        return None
    reason = (
        f"spawning took {spawn:.1f} s, longer than the {run.sleep_s:g} s sleep: "
        f"the {run.n} tasks were never all alive at once"
    )
    remedy = f"use --sleep auto or --sleep {math.ceil(2 * spawn)}"
    reached = _limits_reached(run)
    blocking = [hit for hit in predict(run.n, run.per_task, run.limits) if hit.target is not None]
    if reached:
        # A runtime that waits for a thread to end before starting the next (the JVM under pid_max)
        # is slow because of the limit: a longer sleep would only make it fail outright.
        keys = [key for key, _ in reached]
        reason += f"; threads peaked at {run.threads:,}, at {LABELS[keys[0]]}"
        remedy = f"{_thread_remedy(run, keys)}; then {remedy}"
    elif blocking:
        # Not stopped by a limit yet (threads peaked below it), but N tasks cannot all exist here:
        # a longer sleep alone would end at the limit, so --sleep auto does not re-run it.
        reason += f"; threads peaked at {run.threads:,}, and N also exceeds " + ", ".join(
            hit.limit for hit in blocking
        )
        remedy = f"--raise-limits (root), then --sleep {math.ceil(2 * spawn)}"
    return Verdict("invalid", "spawn-outlasted-sleep", reason, remedy)


RULES: list[Callable[[_Run], Verdict | None]] = [
    _not_started,
    _interrupted,
    _timed_out,
    _erlang_limit,
    _thread_limit,
    _out_of_memory,
    _signal,
    _nonzero_exit,
    _no_ready,
    _ready_mismatch,
    _spawn_outlasted_sleep,
]


def classify(
    result: RunResult,
    n: int,
    sleep_s: float,
    per_task: dict | None = None,
    limits: Limits | None = None,
) -> Verdict:
    """Judge one run: only a run that printed `ready N` in time and exited 0 measured N live tasks.

    The first rule that matches decides, most fundamental first (could it start, did it end, why
    did it fail), so a failure is never reported as the weaker "invalid". limits default to the
    ones in force now, which are the ones the run had unless they were changed in between.
    """
    run = _Run(result, n, sleep_s, per_task or {}, read_limits() if limits is None else limits)
    for rule in RULES:
        verdict = rule(run)
        if verdict is not None:
            return verdict
    return Verdict(
        "valid", "ok", f"`ready {n}` after {result.ready_s:.2f} s, within the {sleep_s:g} s sleep", None
    )


# ---------------------------------------------------------------- raising


class NotRootError(PermissionError):
    """Raising kernel limits needs root; the message lists the commands to run instead."""


@dataclass(frozen=True)
class Change:
    """One limit to set, and how."""

    name: str
    old: int
    new: int
    write: Callable[[int], None]


def _sysctl_writer(key: str) -> Callable[[int], None]:
    def write(value: int) -> None:
        (PROC_SYS / SYSCTLS[key]).write_text(f"{value}\n")

    return write


def _nproc_writer(hard: int | str | None) -> Callable[[int], None]:
    """Sets the soft limit, and the hard one where it is lower; children inherit both."""

    def write(value: int) -> None:
        new_hard = resource.RLIM_INFINITY if hard == UNLIMITED else max(value, int(hard or value))
        resource.setrlimit(resource.RLIMIT_NPROC, (value, new_hard))

    return write


def plan(n: int, per_task_list: Iterable[dict], limits: Limits) -> list[Change]:
    """What to raise so the most demanding variant fits N: only limits it would hit, to what it needs."""
    targets: dict[str, int] = {}
    for per_task in per_task_list:
        for hit in predict(n, per_task, limits):
            if hit.target is not None:
                targets[hit.key] = max(targets.get(hit.key, 0), hit.target)
    changes = []
    for key, target in targets.items():
        old = _int(limits, key)
        if old is None or target <= old:
            continue
        if key in SYSCTLS:
            changes.append(Change(LABELS[key], old, target, _sysctl_writer(key)))
        elif key == "nproc_soft":
            changes.append(Change("RLIMIT_NPROC", old, target, _nproc_writer(limits.get("nproc_hard"))))
    return changes


@contextlib.contextmanager
def applied(changes: list[Change], log: Callable[[str], None]) -> Iterator[None]:
    """Apply changes, then undo every one that was applied, however the body ends.

    Undo runs in reverse order and keeps going past a failure, so one stuck value does not leave
    the others raised.
    """
    done: list[Change] = []
    with sigterm_raises():
        try:
            for change in changes:
                try:
                    change.write(change.new)
                except (OSError, ValueError) as e:
                    raise OSError(f"cannot set {change.name} to {change.new}: {e}") from e
                done.append(change)
                log(f"{change.name} {change.old} -> {change.new}")
            yield
        finally:
            for change in reversed(done):
                try:
                    change.write(change.old)
                    log(f"{change.name} {change.new} -> {change.old} (restored)")
                except (OSError, ValueError) as e:
                    log(f"could not restore {change.name} to {change.old}: {e}")


@contextlib.contextmanager
def raised_limits(n: int, per_task_list: list[dict], log: Callable[[str], None]) -> Iterator[list[str]]:
    """Raise what N tasks of these variants need for the duration of the block, then put it back.

    Sysctls are written to /proc/sys directly (no shell, no sysctl binary). RLIMIT_NPROC is set on
    this process, so every run started inside the block inherits it. Puts values back on normal
    exit, exceptions, Ctrl-C and SIGTERM. Yields the names of the limits that were raised.
    """
    changes = plan(n, per_task_list, read_limits())
    if changes and os.geteuid() != 0:
        commands = "; ".join(
            f"ulimit -u {c.new}" if c.name == "RLIMIT_NPROC" else f"sysctl -w {c.name}={c.new}"
            for c in changes
        )
        raise NotRootError(f"raising limits for N={n} needs root; as root, run: {commands}")
    with applied(changes, log):
        yield [c.name for c in changes]


# ---------------------------------------------------------------- report


def _per_task_text(per_task: dict) -> str:
    words = {"threads": "OS thread(s)", "maps": "mapping(s)", "stack_kib": "KiB of stack"}
    return ", ".join(f"{v} {words.get(k, k)}" for k, v in per_task.items()) + " per task"


def _table(limits: Limits) -> list[str]:
    def row(name: str, value: str, why: str) -> str:
        return f"  {name:<27}{value:<22}{why}"

    def num(key: str) -> str:
        return _num(limits.get(key))

    def mem(key: str) -> str:
        return _size(limits.get(key))

    nproc_why = "threads per user" + ("" if limits.get("nproc_enforced") else "; not enforced for root")
    return [
        "Limits that cap threads and processes here:",
        row("kernel.pid_max", num("pid_max"), "every thread needs a PID, system-wide"),
        row("kernel.threads-max", num("threads_max"), "threads on the whole system"),
        row("vm.max_map_count", num("max_map_count"), "mappings per process (2-4 per thread stack)"),
        row("vm.overcommit_memory", num("overcommit_memory"), "2 = thread stacks count to CommitLimit"),
        row("RLIMIT_NPROC (ulimit -u)", f"{num('nproc_soft')} / {num('nproc_hard')}", nproc_why),
        row("RLIMIT_STACK (ulimit -s)", mem("stack_soft"), "glibc's default thread stack size"),
        row("RLIMIT_AS (ulimit -v)", mem("as_soft"), "address space per process"),
        row("cgroup pids.max", num("pids_max"), str(limits.get("pids_cgroup") or "no pids cgroup")),
        row("cgroup memory limit", mem("mem_cgroup_max"), "bytes this cgroup may use"),
        row("MemTotal / MemAvailable", f"{mem('mem_total')} / {mem('mem_available')}", ""),
        row("CommitLimit", mem("commit_limit"), f"committed now {mem('committed_as')}"),
        row("tasks running now", num("threads_now"), "threads + processes (/proc/loadavg)"),
    ]


def _variant_lines(n: int | None, name: str, per_task: dict, limits: Limits) -> list[str]:
    cap = max_n(per_task, limits)
    limit_text = f"up to N ~ {cap[0]:,} here, then {cap[1].limit}" if cap else "no limit here caps it"
    lines = [f"  {name} ({_per_task_text(per_task)}): {limit_text}"]
    if n is not None:
        hits = predict(n, per_task, limits)
        lines += [f"    {hit.describe()}" for hit in hits] or [f"    fits N = {n:,}"]
    return lines


def limits_report(n: int | None, variants: Iterable[Variant]) -> str:
    """Text for `memrun limits [--n N]`: the limits in force, and which variant hits which at N."""
    limits = read_limits()
    lines = _table(limits)
    variants = list(variants)
    threaded = [v for v in variants if v.per_task]
    title = f"At N = {n:,}:" if n is not None else "Per variant (give --n N to check one N):"
    lines += ["", title]
    for v in threaded:
        lines += _variant_lines(n, v.name, v.per_task, limits)
    others = [v.name for v in variants if not v.per_task]
    if others:
        lines.append(f"  no OS thread or mapping per task (none of the above applies): {', '.join(others)}")
    if n is not None and any(predict(n, v.per_task, limits) for v in threaded):
        lines += ["", "`memrun sweep --raise-limits` (as root) raises these, and restores them after."]
    return "\n".join(lines)
