"""runner.limits.sockets: ports per source address, the accept backlog a listener really gets, the
counters that say it overflowed, and whether conntrack sees loopback."""

from __future__ import annotations

import socket
import time
from pathlib import Path

from runner.limits import read_limits, sockets
from tests.support.here import HERE_CONN


def test_sources_needed_over_127_0_0_0_8():
    assert sockets.ports_per_source(HERE_CONN) == 28_232
    assert sockets.sources_needed(1_000_000, HERE_CONN) == 36
    assert sockets.sources_needed(28_232, HERE_CONN) == 1
    assert sockets.sources_needed(28_233, HERE_CONN) == 2
    reserved = {**HERE_CONN, "reserved_ports": 232}
    assert sockets.ports_per_source(reserved) == 28_000
    assert sockets.sources_needed(1_000_000, reserved) == 36  # 35.7


def test_tcp_max_syn_backlog_counts_only_without_syn_cookies():
    assert sockets.syn_backlog_needed(1_000_000, HERE_CONN) is None
    assert sockets.syn_backlog_needed(1_000_000, {**HERE_CONN, "syncookies": 0}) == 87_380  # 4/3 of 65,535
    assert sockets.syn_backlog_needed(300, {**HERE_CONN, "syncookies": 0}) == 400


def test_a_listener_gets_min_of_its_backlog_and_somaxconn_and_its_queue_is_read():
    somaxconn = int(Path("/proc/sys/net/core/somaxconn").read_text())
    with socket.socket() as big, socket.socket() as small:
        for listener, asked in ((big, somaxconn + 1000), (small, 5)):
            listener.bind(("127.0.0.1", 0))
            listener.listen(asked)
        assert sockets.listen_queue(big.getsockname()[1]) == (0, somaxconn)
        port = small.getsockname()[1]
        clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
        assert sockets.listen_queue(port) == (3, 5)
        small.accept()[0].close()
        assert sockets.listen_queue(port) == (2, 5)
        for c in clients:
            c.close()
    assert sockets.listen_queue(port) is None


def test_an_overflowing_backlog_moves_the_listen_counters():
    before = sockets.listen_counters()
    assert set(before) >= {"ListenOverflows", "ListenDrops"}
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        clients = []
        for _ in range(6):  # never accepted: past the backlog SYNs are dropped
            c = socket.socket()
            c.setblocking(False)
            c.connect_ex(listener.getsockname())
            clients.append(c)
        time.sleep(0.2)
        after = sockets.listen_counters()
        for c in clients:
            c.close()
    assert after["ListenOverflows"] > before["ListenOverflows"]
    said = sockets.overflowed(before, after)
    assert said is not None and said.startswith("the accept backlog overflowed: ListenOverflows +")


def test_overflowed_says_nothing_when_no_counter_moved():
    counters = {"ListenOverflows": 5, "ListenDrops": 5}
    assert sockets.overflowed(counters, dict(counters)) is None
    grown = sockets.overflowed(counters, {"ListenOverflows": 7, "ListenDrops": 5})
    assert grown == "the accept backlog overflowed: ListenOverflows +2"


def test_the_conntrack_probe_runs_only_where_conntrack_is_loaded():
    without = {**HERE_CONN, "conntrack_max": None}
    without.pop("conntrack_tracks")
    assert "conntrack_tracks" not in sockets.with_conntrack_probe(without)
    here = read_limits()
    probed = sockets.with_conntrack_probe(here)
    if sockets.conntrack_loaded(here):
        assert probed["conntrack_tracks"] in (0, 1, None)
    else:
        assert "conntrack_tracks" not in probed
