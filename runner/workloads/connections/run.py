"""What one connections run needs beyond a sleep run's: a port, descriptors, a client, a timeout.

runner.workloads.connections.execute calls plan() for each run, measures the server
with plan.hold as its companion, and judges with runner.workloads.connections.judge.
"""

from __future__ import annotations

from dataclasses import dataclass

from runner.workloads.connections.client import LoadClient
from runner.workloads.connections.fds import Descriptors, for_connections
from runner.workloads.connections.hold import Hold
from runner.workloads.connections.port import free_port

CONNECT_RATE = 2000  # connections per second the default timeout allows for (the slowest servers)


def default_timeout(n: int, sleep: float) -> float:
    """Bound every run: the sleep is held after `ready N`, which comes only once N connections
    are open and read, so the time to connect grows with N (a thread per connection at 2,000 a
    second); a stuck run still ends."""
    return sleep + 90 + n / CONNECT_RATE


@dataclass
class Plan:
    """One run of N connections: the server's port and descriptors, the client holding them."""

    port: int
    buffer: int
    descriptors: Descriptors
    hold: Hold


def plan(n: int, sleep: float, buffer: int, memory_cap: int | None) -> Plan:
    """A fresh port, the descriptors N needs (the caller checks descriptors.problem first: a run
    that cannot fit is better not started), and a client capped like the run."""
    port = free_port()
    fds = for_connections(n)
    client = LoadClient(port, n, nofile=fds.client, memory_cap=memory_cap)
    return Plan(port, buffer, fds, Hold(client, sleep))
