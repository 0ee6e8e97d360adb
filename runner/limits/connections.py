"""What N idle connections need of this machine, limit by limit (the connections workload).

One connection is a socket at each end: a descriptor in the server and one in memrun's client
(RLIMIT_NOFILE per process, fs.nr_open above it, fs.file-max for both together), a place in the
server's accept queue while the client connects (net.core.somaxconn, tcp_max_syn_backlog), an
ephemeral port of a source address (ip_local_port_range), a conntrack entry where loopback is
tracked, and kernel memory at both ends. `checks()` says, for each, its value here, what N needs
and whether N hits it; `hits()` is the part `predict()` and `--raise-limits` use.

These come on top of a variant's `[variant.per_task]` needs: a thread-per-connection server also
needs its threads (runner.limits.predict).
"""

from __future__ import annotations

from dataclasses import dataclass

from runner.limits import files, sockets
from runner.limits.hit import Hit, round_up
from runner.limits.host import HEADROOM, LABELS, Limits, int_value
from runner.units import KIB, count, size

# Bytes each task reads into unless `--buffer` says otherwise (tasks/README.md, connections
# protocol): written here only, below everything that needs it; the connections workload takes its
# parameter's default from here (runner.workloads.connections).
DEFAULT_BUFFER = 1024
# Slab per loopback connection, both ends together (TCP, sock_inode_cache, dentry, filp, ...),
# measured here from /proc/meminfo Slab over 9,000 connections held by one process: 7,542 and
# 8,409 bytes in two runs. The lower figure is the floor used to say whether N fits in memory.
KERNEL_BYTES_PER_CONNECTION = 7_500
# The least one connection can cost the server's own cgroup: its task's buffer, read into, and at
# least as much kernel memory (the accepted socket's file, dentry and inode are charged at accept).
# A floor on purpose: a budget divided by it bounds the N a capacity search can reach.
SERVER_FLOOR_BYTES = 2 * KIB

# Check.status values
OK, HIT, SLOWS, EXEMPT, UNUSED = "ok", "HIT", "slows", "not enforced", "not used"


@dataclass(frozen=True)
class Check:
    """One limit as the connections workload meets it at N."""

    limit: str  # its usual name
    value: str  # its value here, as shown
    needed: str  # what N needs, as shown ("" where nothing is needed)
    status: str  # OK, HIT (runs fail), SLOWS (connects stall or are retried), EXEMPT, UNUSED
    note: str  # why it matters, or why it does not here
    hit: Hit | None = None  # for HIT and SLOWS: the remedy, and the value --raise-limits sets


def _nofile(n: int, limits: Limits, role: str, spare: int, min_spare: int) -> Check:
    top, name = files.ceiling(limits)
    needed = n + min_spare
    value = f"{count(limits.get('nofile_soft'))} / {count(limits.get('nofile_hard'))} (memrun's own)"
    asked = f"{files.wanted(n, spare):,} set per run (N + {spare:,}, rounded; at least N + {min_spare})"
    label = f"RLIMIT_NOFILE ({role})"
    if top is None or needed <= top:
        return Check(label, value, asked, OK, f"memrun may set up to {count(top)}: {name}")
    hit = Hit(f"nofile_{role}", label, top, needed, None, files.remedy(needed, limits))
    return Check(label, value, asked, HIT, f"memrun may set at most {top:,}: {name}", hit)


def _nr_open(n: int, limits: Limits) -> Check:
    current = int_value(limits, "nr_open")
    needed = n + files.SERVER_MIN_SPARE
    note = "the kernel's ceiling for any RLIMIT_NOFILE"
    shown = f"{files.wanted(n, files.SERVER_SPARE):,} (the server's RLIMIT_NOFILE)"
    if current is None or needed <= current:
        return Check(LABELS["nr_open"], count(current), shown, OK, note)
    target = round_up(files.wanted(n, files.SERVER_SPARE))
    hit = Hit("nr_open", LABELS["nr_open"], current, needed, target, f"sysctl -w fs.nr_open={target}")
    return Check(LABELS["nr_open"], count(current), shown, HIT, note, hit)


def _file_max(n: int, limits: Limits) -> Check:
    current = int_value(limits, "file_max")
    open_now = int_value(limits, "files_open") or 0
    needed = open_now + 2 * n + files.SERVER_SPARE + files.CLIENT_SPARE
    shown = f"{needed:,} (2N for both ends + {open_now:,} open now + spares)"
    value = f"{count(current)} ({count(limits.get('files_open'))} open)"
    if not limits.get("file_max_enforced"):
        return Check(
            LABELS["file_max"], value, shown, EXEMPT, "memrun's runs hold CAP_SYS_ADMIN, which goes past it"
        )
    note = "file handles system-wide; past it every open fails with ENFILE"
    if current is None or needed <= current:
        return Check(LABELS["file_max"], value, shown, OK, note)
    target = round_up(needed + HEADROOM)
    hit = Hit("file_max", LABELS["file_max"], current, needed, target, f"sysctl -w fs.file-max={target}")
    return Check(LABELS["file_max"], value, shown, HIT, note, hit)


def _somaxconn(n: int, limits: Limits) -> Check:
    current = int_value(limits, "somaxconn")
    needed = sockets.backlog_needed(n)
    shown = f"{needed:,} (min(N, {sockets.BACKLOG_WANTED:,}))"
    note = (
        "caps every server's accept queue; the client must keep fewer connections than that "
        "waiting for accept(), or SYNs are dropped and retried after 1 s"
    )
    if current is None or needed <= current:
        return Check(LABELS["somaxconn"], count(current), shown, OK, note)
    target = min(round_up(needed, 1024), sockets.BACKLOG_WANTED)
    remedy = f"sysctl -w net.core.somaxconn={target}"
    hit = Hit("somaxconn", LABELS["somaxconn"], current, needed, target, remedy, fails=False)
    return Check(LABELS["somaxconn"], count(current), shown, SLOWS, note, hit)


def _syn_backlog(n: int, limits: Limits) -> Check:
    current = int_value(limits, "syn_backlog")
    needed = sockets.syn_backlog_needed(n, limits)
    if needed is None:
        cookies = count(limits.get("syncookies"))
        return Check(
            LABELS["syn_backlog"],
            count(current),
            "",
            UNUSED,
            f"tcp_syncookies={cookies}: half-open handshakes past the accept backlog get SYN cookies",
        )
    shown = f"{needed:,} (4/3 of the accept backlog: tcp_syncookies=0 drops past 3/4 of it)"
    note = "half-open handshakes; with tcp_syncookies=0 SYNs past 3/4 of it are dropped"
    if current is None or needed <= current:
        return Check(LABELS["syn_backlog"], count(current), shown, OK, note)
    target = round_up(needed, 1024)
    hit = Hit(
        "syn_backlog",
        LABELS["syn_backlog"],
        current,
        needed,
        target,
        f"sysctl -w net.ipv4.tcp_max_syn_backlog={target}",
        fails=False,
    )
    return Check(LABELS["syn_backlog"], count(current), shown, SLOWS, note, hit)


def _ports(n: int, limits: Limits) -> Check:
    low, high = limits.get("port_low"), limits.get("port_high")
    per_source = sockets.ports_per_source(limits)
    value = f"{low}-{high}: {count(per_source)} ports per source address"
    sources = sockets.sources_needed(n, limits)
    if sources is None:
        return Check(LABELS["port_range"], value, "", OK, "unreadable")
    shown = f"{sources:,} source address(es) of 127.0.0.0/8 (N / ports per source)"
    note = (
        "connect() after bind(IP_BIND_ADDRESS_NO_PORT) picks ports per source address; "
        f"from one address N could not pass {per_source:,}"
    )
    if sources <= sockets.LOOPBACK_SOURCES:
        return Check(LABELS["port_range"], value, shown, OK, note)
    hit = Hit("port_range", LABELS["port_range"], per_source, n, None, "widen net.ipv4.ip_local_port_range")
    return Check(LABELS["port_range"], value, shown, HIT, note, hit)


def _conntrack(n: int, limits: Limits) -> Check | None:
    if not sockets.conntrack_loaded(limits):
        return None  # not loaded: no limit, and nothing to say
    current = int_value(limits, "conntrack_max")
    in_use = int_value(limits, "conntrack_count") or 0
    value = f"{count(current)} ({in_use:,} in use)"
    needed = in_use + n
    shown = f"{needed:,} (one entry per connection + in use)"
    tracks = limits.get("conntrack_tracks")
    if tracks == 0:
        return Check(
            LABELS["conntrack_max"],
            value,
            shown,
            UNUSED,
            "loaded, but a loopback connection got no entry here",
        )
    note = "a full table drops SYNs" + ("" if tracks else " (whether loopback is tracked is unknown)")
    if current is None or needed <= current:
        return Check(LABELS["conntrack_max"], value, shown, OK, note)
    target = round_up(needed + HEADROOM)
    remedy = f"sysctl -w net.netfilter.nf_conntrack_max={target}"
    hit = Hit("conntrack_max", LABELS["conntrack_max"], current, needed, target, remedy)
    return Check(LABELS["conntrack_max"], value, shown, HIT, note, hit)


def _memory(n: int, limits: Limits, buffer: int) -> Check:
    available = int_value(limits, "mem_available")
    cgroup_max = int_value(limits, "mem_cgroup_max")
    current = min(available, cgroup_max) if available is not None and cgroup_max is not None else available
    per = KERNEL_BYTES_PER_CONNECTION + buffer
    needed = n * per
    kernel = KERNEL_BYTES_PER_CONNECTION / KIB
    shown = (
        f"at least {size(needed)} ({kernel:.1f} KiB of kernel memory for both ends + the {buffer:,}-byte "
        "buffer, per connection; the runtime's own cost comes on top)"
    )
    note = "MemAvailable" + (" (and memrun's cgroup limit)" if cgroup_max is not None else "")
    if current is None or needed <= current:
        return Check("memory", size(current), shown, OK, note)
    hit = Hit(
        "mem_available",
        "memory (MemAvailable)",
        current,
        needed,
        None,
        "none by sysctl: run fewer connections",
    )
    return Check("memory", size(current), shown, HIT, note, hit)


def checks(n: int, limits: Limits, buffer: int = DEFAULT_BUFFER) -> list[Check]:
    """Every limit N idle connections meet here, in the order a connection meets them.

    `limits` should come from sockets.with_conntrack_probe(read_limits()) for the conntrack line
    to say whether loopback is tracked; without the probe it is assumed tracked.
    """
    found = [
        _nofile(n, limits, "server", files.SERVER_SPARE, files.SERVER_MIN_SPARE),
        _nofile(n, limits, "client", files.CLIENT_SPARE, files.CLIENT_MIN_SPARE),
        _nr_open(n, limits),
        _file_max(n, limits),
        _somaxconn(n, limits),
        _syn_backlog(n, limits),
        _ports(n, limits),
        _conntrack(n, limits),
        _memory(n, limits, buffer),
    ]
    return [c for c in found if c is not None]


def hits(n: int, limits: Limits, buffer: int = DEFAULT_BUFFER) -> list[Hit]:
    """The limits N connections would exceed (failures and slowdowns alike), for predict()."""
    return [c.hit for c in checks(n, limits, buffer) if c.hit is not None]
