"""A free TCP port on 127.0.0.1 for one run's server.

Chosen below the ephemeral range (ip_local_port_range), so that no client connection anywhere on
the machine can be holding it as its source port by the time the server binds it, and checked
free by binding it once. The server binds it a moment later: another program could take it in
between, which the run then shows as a server that cannot listen (an exit, or a timeout).
"""

from __future__ import annotations

import random
import socket
from pathlib import Path

LOWEST = 10_000  # below this live the well-known and registered services


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port(tries: int = 50) -> int:
    """A port nobody on 127.0.0.1 holds now: random below the ephemeral range, else any the
    kernel picks."""
    low = _ephemeral_low()
    if low > LOWEST + 100:
        for _ in range(tries):
            port = random.randrange(LOWEST, low)
            if _bindable(port):
                return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
