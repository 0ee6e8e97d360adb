"""What the network stack lets N loopback connections have: accept backlog, ports, conntrack.

The accept backlog (net.core.somaxconn, net.ipv4.tcp_max_syn_backlog). A listening socket's
queue of connections not yet accepted holds min(the backlog its listen() asked for, somaxconn).
When it is full, the kernel drops an incoming SYN (and the handshake's last ACK), counting
ListenOverflows and ListenDrops; the client's connect is retried after a second or more, and a
connection that stays dropped may never reach the server. Half-open handshakes are bounded by the
same backlog: past it, tcp_syncookies=1 (the default) answers with SYN cookies
(TCPReqQFullDoCookies), =0 drops (TCPReqQFullDrop). tcp_max_syn_backlog only counts when
tcp_syncookies=0: then the last quarter of it is kept for peers already seen, so SYNs are
dropped once 3/4 of it are half-open.

What the client's pacing needs: fewer connections outstanding (connect() begun, not yet accepted
by the server) than the listener's backlog. A finished connect() says nothing about accept(): on
loopback the handshake completes in the kernel whether or not the server runs. The exact gauge is
the listener's own queue, `listen_queue(port)` (inet_diag, what `ss -ltn` shows as Recv-Q/Send-Q),
and the proof afterwards is that `listen_counters()` did not move during the run. A larger
backlog only lets the client run further ahead of a busy server (a GC pause, a JIT); BACKLOG_WANTED
is the largest backlog every runtime can ask for.

Ports (net.ipv4.ip_local_port_range). A connection is unique by its 4-tuple, so with the server's
address and port fixed, each source address gives at most one connection per ephemeral port. With
bind() to a source address of 127.0.0.0/8 before connect() and IP_BIND_ADDRESS_NO_PORT, connect()
picks the port per source address: N connections need ceil(N / ports per source) addresses.

Conntrack (net.netfilter.nf_conntrack_max). Only where nf_conntrack is loaded
(/proc/sys/net/netfilter exists), and only if something asks it to track: a loaded module with
no rule using it leaves loopback connections untracked. Tracked, each connection holds an entry,
and a full table drops SYNs ("nf_conntrack: table full, dropping packet").
"""

from __future__ import annotations

import contextlib
import socket
import struct
from pathlib import Path

from runner.limits.host import Limits, int_value

BACKLOG_WANTED = 65_535  # the largest backlog every runtime can ask (16 bits in several, and Go's cap)
LOOPBACK_SOURCES = (1 << 24) - 2  # 127.0.0.1 .. 127.255.255.254
NETFILTER = Path("/proc/sys/net/netfilter")
CONNTRACK_COUNT = NETFILTER / "nf_conntrack_count"
# /proc/net/netstat counters that move when the listen queue overflows (TcpExt)
LISTEN_COUNTERS = (
    "ListenOverflows",
    "ListenDrops",
    "TCPReqQFullDoCookies",
    "TCPReqQFullDrop",
    "SyncookiesSent",
)


def ports_per_source(limits: Limits) -> int | None:
    """Ephemeral ports connect() can pick for one source address: the range less reserved ports."""
    low, high = int_value(limits, "port_low"), int_value(limits, "port_high")
    if low is None or high is None or high < low:
        return None
    return high - low + 1 - (int_value(limits, "reserved_ports") or 0)


def sources_needed(n: int, limits: Limits) -> int | None:
    """Source addresses of 127.0.0.0/8 the client needs for N connections to one server port."""
    ports = ports_per_source(limits)
    if not ports or ports <= 0:
        return None
    return max(1, -(-n // ports))


def backlog_needed(n: int) -> int:
    """The accept queue N connections want: all of them, up to BACKLOG_WANTED."""
    return min(n, BACKLOG_WANTED)


def syn_backlog_needed(n: int, limits: Limits) -> int | None:
    """tcp_max_syn_backlog N needs, or None where it is not used (tcp_syncookies != 0): the
    backlog's worth of half-open handshakes must stay under 3/4 of it."""
    if int_value(limits, "syncookies") != 0:
        return None
    return -(-4 * backlog_needed(n) // 3)


def conntrack_loaded(limits: Limits) -> bool:
    return limits.get("conntrack_max") is not None


def conntrack_tracks_loopback() -> bool | None:
    """Whether a loopback TCP connection gets a conntrack entry here: opens a few and watches
    nf_conntrack_count. None where conntrack is not loaded or the count cannot be read.

    Other traffic moves the count too, so tracking is said only when it grew by at least the
    connections opened; a count that does not move at all is the clear "not tracked".
    """
    k = 4

    def count() -> int | None:
        try:
            return int(CONNTRACK_COUNT.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    before = count()
    if before is None:
        return None
    opened: list[socket.socket] = []
    try:
        with socket.socket() as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen(k)
            for _ in range(k):
                client = socket.create_connection(listener.getsockname(), timeout=2)
                opened += [client, listener.accept()[0]]
            during = count()
    except OSError:
        return None
    finally:
        for s in opened:
            s.close()
    if during is None:
        return None
    return during - before >= k


def with_conntrack_probe(limits: Limits) -> Limits:
    """The limits plus conntrack_tracks (1, 0, or None when unknown) where conntrack is loaded: the
    probe opens sockets, so only the connections workload's readers pay for it."""
    if not conntrack_loaded(limits) or "conntrack_tracks" in limits:
        return limits
    tracks = conntrack_tracks_loopback()
    return {**limits, "conntrack_tracks": None if tracks is None else int(tracks)}


def listen_counters() -> dict[str, int]:
    """The TcpExt counters of /proc/net/netstat that say the listen queue overflowed (this network
    namespace, all listeners): read before and after a run, any growth means dropped or cookied
    handshakes. Empty when unreadable."""
    try:
        lines = Path("/proc/net/netstat").read_text().splitlines()
    except OSError:
        return {}
    out: dict[str, int] = {}
    for names, values in zip(lines[::2], lines[1::2], strict=False):
        if not names.startswith("TcpExt:"):
            continue
        for name, value in zip(names.split()[1:], values.split()[1:], strict=False):
            if name in LISTEN_COUNTERS:
                with contextlib.suppress(ValueError):
                    out[name] = int(value)
    return out


def overflowed(before: dict[str, int], after: dict[str, int]) -> str | None:
    """One phrase naming the counters that grew between two listen_counters(), or None."""
    grew = [
        (name, after[name] - before[name]) for name in LISTEN_COUNTERS if name in before and name in after
    ]
    grew = [(name, d) for name, d in grew if d > 0]
    if not grew:
        return None
    return "the accept backlog overflowed: " + ", ".join(f"{name} +{d:,}" for name, d in grew)


# inet_diag over NETLINK_SOCK_DIAG: the listener's queue, without walking every socket as
# /proc/net/tcp would (a dump restricted to TCP_LISTEN never visits established sockets).
_NETLINK_SOCK_DIAG = 4
_SOCK_DIAG_BY_FAMILY = 20
_NLM_F_REQUEST_DUMP = 0x1 | 0x300
_NLMSG_DONE, _NLMSG_ERROR = 3, 2
_TCP_LISTEN = 10


def listen_queue(port: int, address: str = "127.0.0.1") -> tuple[int, int] | None:
    """(connections waiting to be accepted, the backlog the kernel gave) of the TCP listener on
    address:port, or None when there is none. The backlog is min(listen()'s ask, somaxconn)."""
    request = struct.pack("=BBBxI", socket.AF_INET, socket.IPPROTO_TCP, 0, 1 << _TCP_LISTEN) + bytes(48)
    header = struct.pack("=IHHII", 16 + len(request), _SOCK_DIAG_BY_FAMILY, _NLM_F_REQUEST_DUMP, 1, 0)
    want = socket.inet_aton(address)
    found = None
    with socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, _NETLINK_SOCK_DIAG) as nl:
        nl.sendall(header + request)
        while True:
            data = nl.recv(65536)
            offset = 0
            while offset + 16 <= len(data):
                length, kind = struct.unpack_from("=IH", data, offset)
                if kind == _NLMSG_DONE or length < 16:
                    return found
                if kind == _NLMSG_ERROR:
                    raise OSError("inet_diag refused the dump")
                body = offset + 16
                # inet_diag_msg: family, state, timer, retrans, then the socket id (sport, dport
                # big-endian, src[16], dst[16], if, cookie[8]), expires, rqueue, wqueue, uid, inode
                sport = struct.unpack_from("!H", data, body + 4)[0]
                src = data[body + 8 : body + 12]
                rqueue, wqueue = struct.unpack_from("=II", data, body + 4 + 48 + 4)
                if sport == port and src in (want, bytes(4)):
                    found = (rqueue, wqueue)
                offset += (length + 3) & ~3
