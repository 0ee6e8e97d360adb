"""The connections workload: memory per idle TCP connection (tasks/README.md, "Connections protocol").

The server is measured exactly as a sleep program is (launcher, run cgroup, sampling, timeouts,
verdicts). What differs lives here: memrun's own load client (client.c, driven by client.py)
opens the N connections from a cgroup of its own, so it is never in the measured tree; hold.py
holds them for the run's sleep once the server says `ready N` and then closes them all; fds.py
gives the server and the client the file descriptors N connections need; judge.py turns the
server's verdict and the client's summary into the run's verdict.
"""

from __future__ import annotations

CONNECTIONS = "connections"
DEFAULT_BUFFER = 1024  # bytes each connection's task reads into (the `{buffer}` placeholder)
