"""File descriptors for N connections: every connection is one in the server and one in the client.

Each run sets its server's and its client's RLIMIT_NOFILE (through the launcher, before exec, soft
and hard alike) to N plus a headroom, never memrun's own. How far a limit can go is the hard limit
memrun has, or, with CAP_SYS_RESOURCE (root, normally), fs.nr_open. A run whose N cannot fit is
not started: the cell's row says which limit stops it, since a server that hits EMFILE at
accept() would only stall until its timeout.
"""

from __future__ import annotations

import resource
from dataclasses import dataclass
from pathlib import Path

SERVER_HEADROOM = 1024  # descriptors a runtime opens besides its connections (jars, epoll, pipes...)
SERVER_MINIMUM = 64  # below N + this, a server cannot even hold its listener, stdio and event loop
CLIENT_HEADROOM = 64  # the client's own: stdio, epoll, signalfd, sock_diag
CAP_SYS_RESOURCE = 24


def _capable() -> bool:
    """Whether this process may raise a hard limit (CAP_SYS_RESOURCE in its effective set)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("CapEff:"):
                return bool(int(line.split()[1], 16) >> CAP_SYS_RESOURCE & 1)
    except (OSError, ValueError, IndexError):
        pass
    return False


def _nr_open() -> int | None:
    try:
        return int(Path("/proc/sys/fs/nr_open").read_text())
    except (OSError, ValueError):
        return None


@dataclass(frozen=True)
class Ceiling:
    """The most RLIMIT_NOFILE a run can get here, and what sets it (for messages)."""

    most: int
    what: str  # what sets it, e.g. "fs.nr_open"
    remedy: str


def ceiling() -> Ceiling:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    nr_open = _nr_open()
    if _capable() and nr_open is not None:
        return Ceiling(nr_open, "fs.nr_open", "raise fs.nr_open (memrun sweep --raise-limits)")
    most = hard if hard != resource.RLIM_INFINITY else (nr_open or 1 << 20)
    return Ceiling(
        most,
        "the RLIMIT_NOFILE hard limit memrun runs under, which it cannot raise without CAP_SYS_RESOURCE",
        "run memrun with CAP_SYS_RESOURCE (root outside a restricted container), or start it "
        "under a higher hard limit (ulimit -Hn)",
    )


@dataclass(frozen=True)
class Descriptors:
    """RLIMIT_NOFILE for one run's server and client, or why N connections cannot fit."""

    server: int
    client: int
    problem: str | None = None
    remedy: str | None = None


def for_connections(n: int, limit: Ceiling | None = None) -> Descriptors:
    """The limits to give a run of N connections: N + SERVER_HEADROOM for the server (as much
    of it as the ceiling allows, at least N + SERVER_MINIMUM), N + CLIENT_HEADROOM for the client."""
    top = limit or ceiling()
    server = min(top.most, n + SERVER_HEADROOM)
    client = n + CLIENT_HEADROOM
    if server < n + SERVER_MINIMUM or client > top.most:
        need = n + max(SERVER_MINIMUM, CLIENT_HEADROOM)
        return Descriptors(
            server,
            min(client, top.most),
            f"{n:,} connections need {need:,} file descriptors in the server and in the client; "
            f"a process here can have at most {top.most:,} ({top.what})",
            top.remedy,
        )
    return Descriptors(server, client)
