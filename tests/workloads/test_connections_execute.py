"""execute() for the connections workload: the server measured as a sleep program is, memrun's
load client beside it, and the run judged from both (real processes, real cgroups)."""

from __future__ import annotations

import dataclasses

import pytest

from runner.execute import Settings, execute
from runner.measure import RunSpec
from runner.measure.cgroups import detect
from runner.units import KIB
from tests.support.connections import KNOWN_KIB, fake, machine  # noqa: F401  (fixtures)
from tests.support.process import require

pytestmark = [pytest.mark.serial, pytest.mark.unbuilt]  # per-connection figures, holding the machine lock

HOLD = 1.0


def _with_env(monkeypatch, **env: str) -> None:
    for k, v in env.items():
        monkeypatch.setenv(k, v)


def test_known_cost_per_connection_within_3_percent(fake, machine):  # noqa: F811
    """The fake server holds 64 KiB per connection, written in full: the difference of two N's
    peak RSS per connection is that, within 3 % (malloc headers and page rounding are the rest)."""
    small, large = execute(fake, 1000, HOLD), execute(fake, 4000, HOLD)
    for ex in (small, large):
        assert ex.judged.valid, ex.judged
        assert ex.client["summary"]["connected"] == ex.n and ex.client["summary"]["dropped"] == 0
    per = (large.result.peak_rss - small.result.peak_rss) / 3000
    assert abs(per - KNOWN_KIB * KIB) / (KNOWN_KIB * KIB) < 0.03, per / KIB


def test_the_run_records_the_kernel_part_and_the_client_apart(fake, machine):  # noqa: F811
    require(detect()[0] is not None, "a writable memory cgroup")
    ex = execute(fake, 2000, HOLD)
    r = ex.result
    assert ex.judged.valid and ex.record().workload == "connections"
    assert ex.argv[-1] == "1024"  # the server's {buffer}: the parameter's default
    assert r.socket_accounting is True
    assert r.cgroup_breakdown.get("kernel", 0) > 2000 * KIB, "sockets, files, inodes: about 4 KiB each"
    # read while the 2,000 connections were held, not as the client closed them
    assert r.cgroup_breakdown_held.get("kernel", 0) >= r.cgroup_breakdown["kernel"] > 0
    client = ex.client
    assert client["cgroup_peak"] > 2000 * 2 * KIB, "the client's sockets are charged to its own cgroup"
    assert client["user_s"] is not None and client["sys_s"] is not None
    assert r.peak_rss < 2000 * 70 * KIB, "the client is not in the measured tree"


def test_a_server_that_drops_connections_is_invalid(fake, machine, monkeypatch):  # noqa: F811
    _with_env(monkeypatch, FAKE_DROP="10")
    ex = execute(fake, 200, HOLD)
    assert (ex.judged.verdict, ex.judged.code) == ("invalid", "dropped"), ex.judged
    assert "closed or reset 10 of 200 connections" in ex.judged.reason
    assert ex.result.exit_code == 0  # it exited 0: only the client saw what it did


def test_a_server_that_never_says_ready_is_invalid_quickly(fake, machine, monkeypatch):  # noqa: F811
    _with_env(monkeypatch, FAKE_NO_READY="1")
    ex = execute(fake, 100, HOLD, Settings(RunSpec(timeout=3)))
    assert (ex.judged.verdict, ex.judged.code) == ("failed", "timeout"), ex.judged
    assert "no `ready` line" in ex.judged.reason
    assert ex.result.wall_s < 10 and ex.client["summary"]["dropped"] == 0  # closed before the kill


def test_a_server_exiting_non_zero_fails(fake, machine, monkeypatch):  # noqa: F811
    _with_env(monkeypatch, FAKE_EXIT="3")
    ex = execute(fake, 50, HOLD)
    assert (ex.judged.verdict, ex.judged.code) == ("failed", "exit"), ex.judged


def test_a_server_that_does_not_listen_is_stopped_with_the_clients_words(fake, machine, monkeypatch):  # noqa: F811
    """The server's argv points at a port nobody listens on: the client waits, the run times out,
    and the reason says nothing accepted connections on that port."""
    _with_env(monkeypatch, FAKE_NO_READY="1")
    bad = dataclasses.replace(fake, run=["sleep", "30"])
    ex = execute(bad, 10, HOLD, Settings(RunSpec(timeout=2)))
    assert (
        ex.judged.code == "connect-failed"
        and "nothing accepted connections on 127.0.0.1:" in ex.judged.reason
    )


def test_the_server_gets_n_plus_headroom_descriptors(fake, machine, monkeypatch):  # noqa: F811
    """The launcher sets the server's RLIMIT_NOFILE before exec (N + headroom, within what the
    machine allows): the fake server prints the limit it got."""
    from runner.workloads.connections.fds import for_connections

    _with_env(monkeypatch, FAKE_SHOW_NOFILE="1")
    ex = execute(fake, 20, HOLD)
    assert ex.judged.valid
    assert f"nofile {for_connections(20).server}" in ex.result.stderr_tail
