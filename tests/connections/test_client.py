"""memrun-connect, the load client: holds N connections, counts the ones a server drops, and
closes every one when told, leaving no socket behind (not even TIME-WAIT)."""

from __future__ import annotations

import subprocess
import time

import pytest

from runner.workloads.connections.client import LoadClient, ensure_client
from runner.workloads.connections.port import free_port
from tests.support.connections import sockets_on, start_server
from tests.support.process import processes_with

# the load client against the fake server, holding the machine lock; no task program (unbuilt)
pytestmark = [pytest.mark.serial, pytest.mark.unbuilt]


def _wait(condition, seconds: float) -> bool:  # type: ignore[no-untyped-def]
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.02)
    return False


def test_holds_n_connections_and_closes_them_all_leaving_no_socket(fake_server, machine):
    n, port = 3000, free_port()
    server = start_server(fake_server, port, n, FAKE_CONN_KIB="1")
    client = LoadClient(port, n, nofile=n + 64)
    client.start()
    try:
        assert _wait(lambda: client.connected_s is not None, 30), list(client.stderr)
        assert server.stdout.readline() == f"ready {n}\n"
        held = [s for s in sockets_on(port) if s.startswith("ESTAB")]
        assert len(held) == 2 * n  # both ends of every connection
    finally:
        report = client.finish()
    assert server.wait(timeout=30) == 0  # every task ended on the client's reset
    s = report.summary
    assert s is not None and report.exit_code == 0, report
    assert (s["connected"], s["dropped"], s["held"], s["closed"], s["connect_errors"]) == (n, 0, n, n, 0)
    assert s["listen_drops"] == 0 and s["error"] is None
    assert report.cgroup_peak and report.cgroup_peak > n * 2048, "its sockets' kernel memory is its own"
    assert report.user_s is not None and report.sys_s is not None
    assert sockets_on(port) == []  # no TIME-WAIT, no CLOSE-WAIT: nothing of the run is left
    assert processes_with(str(ensure_client())) == []
    assert client.cg.reason is None and not client.cg.path.exists()


def test_counts_the_connections_a_server_drops(fake_server, machine):
    n, port = 500, free_port()
    server = start_server(fake_server, port, n, FAKE_CONN_KIB="1", FAKE_DROP="25")
    client = LoadClient(port, n, nofile=n + 64)
    client.start()
    assert _wait(lambda: client.connected_s is not None, 30)
    assert server.stdout.readline() == f"ready {n}\n"
    time.sleep(0.5)
    report = client.finish()
    server.wait(timeout=30)
    assert report.summary["connected"] == n and report.summary["dropped"] == 25
    assert report.summary["held"] == n - 25 and report.summary["first_drop_s"] is not None
    assert sockets_on(port) == []


def test_retries_while_the_server_is_not_listening_yet(fake_server, machine):
    n, port = 100, free_port()
    client = LoadClient(port, n, nofile=n + 64)
    client.start()
    time.sleep(0.5)  # refused, again and again
    server = start_server(fake_server, port, n, FAKE_CONN_KIB="1")
    assert _wait(lambda: client.connected_s is not None, 30)
    report = client.finish()
    server.wait(timeout=30)
    assert report.summary["connected"] == n and report.summary["connect_errors"] == 0
    assert report.summary["refused_waits"] >= 10  # every 10 ms for half a second


def test_spreads_source_addresses_over_127_0_0_0_8(fake_server, machine):
    """Each source address has its own ephemeral ports: -s K binds connections to 127.0.0.2 and
    up, round robin, so N is not capped by one address's port range."""
    n, port = 400, free_port()
    server = start_server(fake_server, port, n, FAKE_CONN_KIB="1")
    client = subprocess.Popen(
        [str(ensure_client()), "-s", "4", str(port), str(n)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert client.stdout.readline().startswith(f"connected {n} ")
    peers = [line.split()[3] for line in sockets_on(port) if line.split()[4].endswith(f":{port}")]
    sources = {peer.rsplit(":", 1)[0] for peer in peers}
    assert sources == {"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"}
    out, _ = client.communicate("close\n", timeout=30)
    assert '"sources":4' in out and client.returncode == 0
    server.wait(timeout=30)


def test_a_killed_client_leaves_no_socket_either(fake_server, machine):
    """SO_LINGER 0 is set as each connection opens: the kernel's own close of a SIGKILLed
    client's descriptors resets them too, so not even TIME-WAIT is left."""
    import os
    import signal

    n, port = 300, free_port()
    server = start_server(fake_server, port, n, FAKE_CONN_KIB="1")
    client = LoadClient(port, n, nofile=n + 64)
    client.start()
    assert _wait(lambda: client.connected_s is not None, 30)
    os.kill(client.report.pid, signal.SIGKILL)
    report = client.finish()
    assert report.signal == "SIGKILL" and report.summary is None
    assert server.wait(timeout=30) == 0  # every task saw its reset and ended
    assert _wait(lambda: sockets_on(port) == [], 5), sockets_on(port)[:5]
