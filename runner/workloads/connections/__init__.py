"""The connections workload: memory per idle TCP connection (tasks/README.md, "Connections protocol").

The server is measured exactly as a sleep program is (launcher, run cgroup, sampling, timeouts,
verdicts). What differs lives here: memrun's own load client (client.c, driven by client.py)
opens the N connections from a cgroup of its own, so it is never in the measured tree; hold.py
holds them for the run's sleep once the server says `ready N` and then closes them all; fds.py
gives the server and the client the file descriptors N connections need; judge.py turns the
server's verdict and the client's summary into the run's verdict; execute.py runs one cell.
This module only describes the workload, so that every layer can ask it without importing those.
"""

from __future__ import annotations

from runner.inputs import parse_size
from runner.limits.connections import DEFAULT_BUFFER
from runner.workload import Parameter, Words, register
from runner.workloads.descriptors import HoldsDescriptors
from runner.workloads.views import ShowsInPackage

MAX_BUFFER = 1 << 26  # 64 MiB per connection: more is surely a typo


def buffer_size(text: str) -> int:
    """`--buffer`: bytes each connection's task reads into (1024, 64KiB: sizes as --memory-cap
    takes them), from 1 byte to MAX_BUFFER."""
    value = parse_size(text)
    if value < 1 or value > MAX_BUFFER:
        raise ValueError(f"must be between 1 byte and {MAX_BUFFER:,} bytes, got {value:,}")
    return value


class Connections(HoldsDescriptors, ShowsInPackage):
    name = "connections"
    words = Words(
        noun="connections",
        unit="conn",
        per="connection",
        title="idle TCP connections",
        hold="hold",
        spawn="ready",
        against="against N idle TCP connections",
    )
    package = "runner.workloads.connections"
    holds_after_ready = True
    about = (
        "a server holding N idle TCP connections on 127.0.0.1, one task each in its runtime's idiom, "
        "opened by memrun's own load client (outside the measured cgroup), held for the sleep once "
        "the server says `ready N`, then closed"
    )
    sweep_help = (
        "--workload connections measures memory per idle TCP connection instead: each variant's server "
        '(tasks/README.md, "Connections protocol") accepts N connections from memrun\'s own load '
        "client, which runs in a cgroup of its own (its peak memory and CPU are recorded beside the "
        "server's), and reads one 16-byte message on each; once it says `ready N` the connections are "
        "held for the sleep, then closed, and the server must exit 0. A run is invalid when a "
        "connection was dropped or reset by the server before the close, the client could not open "
        "N, or the server never said `ready N`. Variants without the workload are skipped, by name."
    )
    capacity_help = (
        "--workload connections searches how many idle TCP connections a server holds in the budget "
        "(memrun's load client runs outside the capped cgroup); variants without it are not searched."
    )
    shown_help = (
        "connections: KiB per connection of user memory (RSS) and of kernel memory (the server's "
        "cgroup), the load client's own peak and CPU time; its figures (connections-*) split the cost "
        "per connection into the two."
    )
    placeholders = ("port", "buffer")
    parameters = (
        Parameter(
            "buffer",
            str(DEFAULT_BUFFER),
            "bytes each connection's task reads into (the server's {buffer}), the same for every "
            "runtime; recorded with every run, and runs of different sizes are other cells",
            buffer_size,
            metavar="SIZE",
        ),
    )
    validity = (
        "A run is a figure only if the server printed `ready N`, with the right N, before its sleep ran "
        "out (every connection's task had read its first message), memrun's load client saw all N "
        "connected and none closed or reset by the server while they were held, and the server exited "
        "0 once the client reset them. Any other run is kept as a row with its verdict, the reason and "
        "a remedy (`fd-limit` when descriptors ran out), never as a zero. Repeats of a cell give the "
        "median and (min–max); runs of different labels or toolchain versions never share a median."
    )
    program_html = (
        "Each server program takes <code>PORT N BUFFER_BYTES</code>, accepts N TCP connections on "
        "127.0.0.1 and runs one task per connection in its runtime's idiom, each reading into a "
        "buffer of its own; it prints <code>ready N</code> once every task has read its first "
        "16-byte message, and exits 0 when memrun's load client resets them after the sleep. memrun "
        "starts the server in its own process group and memory cgroup (its sockets charged to it) "
        "and the client in a cgroup of its own, outside the figures, and records, per run:"
    )

    def page_title(self, metric_title: str) -> str:
        return f"{metric_title} of a server holding N {self.words.title}"

    def cell_problem(self, n: int) -> tuple[str, str, str | None] | None:
        """Past the descriptors this process can grant (fds.for_connections): a run whose client
        could not open a single connection more is not started."""
        from runner.workloads.connections.fds import for_connections

        fit = for_connections(n)
        return ("fd-limit", f"not run: {fit.problem}", fit.remedy) if fit.problem else None


CONNECTIONS = register(Connections())
