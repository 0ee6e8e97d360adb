"""The limits that cap threads, processes and connections on this machine, read as they are now.

Why: a runtime that uses one OS thread per task does not fail at a memory figure but at a kernel or
process limit, and which limit it was decides the remedy; the same holds for file descriptors and
the network sysctls under the connections workload. Every value that cannot be read is None, never
an exception: a table and a verdict must still come out on a machine that hides some.
"""

from __future__ import annotations

import contextlib
import os
import resource
from pathlib import Path

from runner.measure import cgroups

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
    # the connections workload (runner.limits.files, runner.limits.sockets)
    "nr_open": "fs/nr_open",
    "file_max": "fs/file-max",
    "somaxconn": "net/core/somaxconn",
    "syn_backlog": "net/ipv4/tcp_max_syn_backlog",
    "syncookies": "net/ipv4/tcp_syncookies",
    "conntrack_max": "net/netfilter/nf_conntrack_max",
    "conntrack_count": "net/netfilter/nf_conntrack_count",
}
LABELS = {
    "pid_max": "kernel.pid_max",
    "threads_max": "kernel.threads-max",
    "max_map_count": "vm.max_map_count",
    "overcommit_memory": "vm.overcommit_memory",
    "nr_open": "fs.nr_open",
    "file_max": "fs.file-max",
    "somaxconn": "net.core.somaxconn",
    "syn_backlog": "net.ipv4.tcp_max_syn_backlog",
    "syncookies": "net.ipv4.tcp_syncookies",
    "conntrack_max": "net.netfilter.nf_conntrack_max",
    "port_range": "net.ipv4.ip_local_port_range",
    "nofile_soft": "RLIMIT_NOFILE",
    "nproc_soft": "RLIMIT_NPROC",
    "pids_max": "cgroup pids.max",
    "commit_limit": "CommitLimit",
    "as_soft": "RLIMIT_AS",
    "mem_available": "memory",
}


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def read_int(path: Path) -> int | None:
    """The first number in a /proc or /sys file, or None when it cannot be read as one."""
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


FUTEX_HASH_MIN_BUCKETS = 16


def _kernel_config(option: str) -> str | None:
    """A CONFIG_ option of the running kernel ("y", "m", a number), from /proc/config.gz or
    /boot/config-RELEASE; None when neither is readable or the option is not set."""
    import gzip

    release = os.uname().release
    for path, opener in ((Path("/proc/config.gz"), gzip.open), (Path(f"/boot/config-{release}"), open)):
        with contextlib.suppress(OSError, EOFError), opener(path, "rt") as f:  # type: ignore[operator]
            for line in f:
                if line.startswith(option + "="):
                    return line.split("=", 1)[1].strip()
            return None
    return None


def futex_hash_buckets() -> int | None:
    """Buckets of the futex hash table a multi-threaded process gets by default, or None when the
    kernel has no per-process table (one global table, 256 buckets per CPU) or says nothing.

    Why it matters: Linux 6.16+ built with CONFIG_FUTEX_PRIVATE_HASH gives each process its own
    table of roundup_pow_of_two(4 x min(threads, online CPUs)) buckets, at least 16, and does not
    grow it with the threads. Every thread parked in a futex wait (a condition variable, a JVM
    sleep) sits in one bucket's chain, and every wake walks a chain: on 2 CPUs, 16 buckets, so
    with 20k waiting threads each wake walks ~1,250 of them and starting threads gets quadratic.
    The program itself can enlarge it (prctl PR_FUTEX_HASH); no sysctl does.
    """
    if _kernel_config("CONFIG_FUTEX_PRIVATE_HASH") != "y":
        return None
    cpus = os.sysconf("SC_NPROCESSORS_ONLN")
    return max(FUTEX_HASH_MIN_BUCKETS, 1 << (4 * cpus - 1).bit_length())


CAP_SYS_ADMIN = 21  # exempts from fs.file-max (and RLIMIT_NPROC)
CAP_SYS_RESOURCE = 24  # lets a process raise a hard rlimit (RLIMIT_NOFILE up to fs.nr_open)


def _in_initial_user_namespace() -> bool:
    """Capabilities count for system-wide limits only in the initial user namespace (the kernel's
    capable() checks there): root in a rootless container is not exempt from anything."""
    first = (_read_text(Path("/proc/self/uid_map")) or "").split()
    return first[:2] == ["0", "0"]


def has_capability(bit: int) -> bool:
    """Whether this process holds capability `bit` (effective set) where system-wide limits are
    decided. Root is not enough: a container may drop CAP_SYS_RESOURCE and keep the rest (this
    project's reference machine does), and then root cannot raise a hard RLIMIT_NOFILE."""
    for line in (_read_text(Path("/proc/self/status")) or "").splitlines():
        if line.startswith("CapEff:"):
            try:
                return bool(int(line.split()[1], 16) >> bit & 1) and _in_initial_user_namespace()
            except (IndexError, ValueError):
                return False
    return False


def _nproc_enforced() -> int:
    """0 for root in the initial user namespace: the kernel does not apply RLIMIT_NPROC to it.

    (Checked here: `prlimit --nproc=1000` lets root start 3000 threads, nobody gets EAGAIN at ~1000.)
    """
    if os.geteuid() != 0:
        return 1
    return 0 if _in_initial_user_namespace() else 1


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
    table = cgroups.mounts()
    for point, fstype, opts in table:
        if fstype == "cgroup" and controller in opts:
            own = cgroups.own_path(controller) or "/"
            base = Path(point)
            return _tightest(base, own, name_v1, 1 << 62), str(base / own.strip("/"))
    for point, fstype, _opts in table:
        if fstype != "cgroup2":
            continue
        base = Path(point)
        if controller not in (_read_text(base / "cgroup.controllers") or "").split():
            continue
        own = cgroups.own_path(None) or "/"
        return _tightest(base, own, name_v2), str(base / own.strip("/"))
    return None, None


def _files_open() -> int | None:
    """File handles allocated system-wide now (the first field of fs.file-nr): what fs.file-max
    already holds before a run adds its own."""
    return read_int(PROC_SYS / "fs/file-nr")


def _port_range() -> tuple[int | None, int | None]:
    text = _read_text(PROC_SYS / "net/ipv4/ip_local_port_range")
    try:
        low, high = (int(v) for v in (text or "").split())
    except ValueError:
        return None, None
    return low, high


def _reserved_ports(low: int | None, high: int | None) -> int | None:
    """How many ports of the ephemeral range net.ipv4.ip_local_reserved_ports takes out of it
    ("1000,2000-2010"): connect() never picks those."""
    text = _read_text(PROC_SYS / "net/ipv4/ip_local_reserved_ports")
    if text is None or low is None or high is None:
        return None
    reserved = 0
    for part in filter(None, text.replace(" ", "").split(",")):
        first, _, last = part.partition("-")
        try:
            a, b = int(first), int(last or first)
        except ValueError:
            continue
        reserved += max(0, min(b, high) - max(a, low) + 1)
    return reserved


def read_limits() -> Limits:
    """Every limit that caps how many threads, processes or connections a run can have, as of now.

    Keys: pid_max, threads_max, max_map_count, overcommit_memory, nproc_soft, nproc_hard,
    nproc_enforced (0 = root, exempt), stack_soft, as_soft (bytes or "unlimited"), pids_max
    ("max" = none), pids_cgroup, mem_cgroup_max, mem_total, mem_available, commit_limit,
    committed_as (bytes), threads_now, futex_hash_buckets (per process); for connections:
    nofile_soft, nofile_hard (this process's RLIMIT_NOFILE), cap_sys_resource (1 = may raise a
    hard rlimit), file_max_enforced (0 = CAP_SYS_ADMIN, exempt), nr_open, file_max, files_open,
    somaxconn, syn_backlog, syncookies, port_low, port_high, reserved_ports, conntrack_max and
    conntrack_count (None where conntrack is not loaded). A value that cannot be read is None,
    never an exception: the table and the verdicts must still come out on a machine that hides
    some of these.
    """
    limits: Limits = {key: read_int(PROC_SYS / rel) for key, rel in SYSCTLS.items()}
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
    limits["futex_hash_buckets"] = futex_hash_buckets()
    limits["nofile_soft"], limits["nofile_hard"] = _rlimit(resource.RLIMIT_NOFILE)
    limits["cap_sys_resource"] = int(has_capability(CAP_SYS_RESOURCE))
    limits["file_max_enforced"] = 0 if has_capability(CAP_SYS_ADMIN) else 1
    limits["files_open"] = _files_open()
    limits["port_low"], limits["port_high"] = _port_range()
    limits["reserved_ports"] = _reserved_ports(limits["port_low"], limits["port_high"])
    return limits


def int_value(limits: Limits, key: str) -> int | None:
    """A limit as an int, or None when unreadable or a word such as "unlimited"."""
    value = limits.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# What a run's memory cap leaves the rest of the machine: the larger of these.
CAP_RESERVE_BYTES = 1 << 30
CAP_RESERVE_SHARE = 0.10


def default_memory_cap(limits: Limits | None = None) -> int | None:
    """MemAvailable now, less a reserve (1 GiB or 10 % of RAM, whichever is larger): what one run
    may take without the host's OOM killer choosing among every process on the machine."""
    limits = read_limits() if limits is None else limits
    available, total = int_value(limits, "mem_available"), int_value(limits, "mem_total")
    if available is None:
        return None
    reserve = max(CAP_RESERVE_BYTES, int(CAP_RESERVE_SHARE * (total or available)))
    return max(available - reserve, 64 << 20)
