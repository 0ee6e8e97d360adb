"""File descriptors for N connections: every connection is one in the server and one in the client.

Each run sets its server's and its client's RLIMIT_NOFILE (through the launcher, before exec, soft
and hard alike) to what runner.limits.files works out: N plus a headroom, within the ceiling this
process can grant (fs.nr_open with CAP_SYS_RESOURCE, else memrun's own hard limit). The numbers
live there alone, so the verdict that names a run's limit and the run agree. A run whose N cannot
fit is not started: the cell's row says which limit stops it, since a server that hits EMFILE at
accept() would only stall until its timeout.
"""

from __future__ import annotations

from dataclasses import dataclass

from runner.limits import files


@dataclass(frozen=True)
class Descriptors:
    """RLIMIT_NOFILE for one run's server and client, or why N connections cannot fit."""

    server: int
    client: int
    problem: str | None = None
    remedy: str | None = None


def for_connections(n: int) -> Descriptors:
    """The limits to give a run of N connections, or the one-line reason (with its remedy) why
    this machine cannot hold them."""
    try:
        got = files.run_nofile(n)
    except files.NofileError as e:
        text = str(e)
        problem, _, remedy = text.partition("): ")
        return Descriptors(0, 0, problem + ")" if remedy else text, remedy or None)
    return Descriptors(got.server, got.client)
