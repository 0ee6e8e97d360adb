"""Descriptors for N connections: N plus headroom in the server and the client, within what the
machine lets a process have, and the reason when N cannot fit."""

from __future__ import annotations

import resource

from runner.connections import fds


def test_n_plus_headroom_within_the_ceiling():
    limit = fds.Ceiling(1_048_576, "fs.nr_open", "raise fs.nr_open")
    d = fds.for_connections(100_000, limit)
    assert (d.server, d.client, d.problem) == (101_024, 100_064, None)


def test_a_server_gets_less_headroom_near_the_ceiling_but_never_too_little():
    limit = fds.Ceiling(20_000, "the hard limit", "ulimit -Hn")
    assert fds.for_connections(19_500, limit).server == 20_000
    assert fds.for_connections(19_500, limit).problem is None
    d = fds.for_connections(19_990, limit)
    assert d.problem == (
        "19,990 connections need 20,054 file descriptors in the server and in the client; "
        "a process here can have at most 20,000 (the hard limit)"
    )
    assert d.remedy == "ulimit -Hn"


def test_the_ceiling_here_is_the_hard_limit_or_nr_open():
    top = fds.ceiling()
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if fds._capable():
        assert "fs.nr_open" in top.what
    else:
        assert top.most == hard and "CAP_SYS_RESOURCE" in top.what
