"""The connections workload's side of one measured run (a runner.measure.core.Companion).

Order: the server is forked; the client starts at once and retries until the server listens;
the server says `ready N` once every connection's task has read its first message; memrun then
holds the N connections for the run's sleep and tells the client to close them all, after
which the server must exit 0. A client that ends before it is told to (it gave up: the server
refused or dropped too much, it ran out of descriptors) ends the run: the server would wait for
connections that will never come.
"""

from __future__ import annotations

import time

from runner.workloads.connections.client import ClientReport, LoadClient


class Hold:
    """Holds a run's connections for `seconds` after `ready N`; report() is the client's report."""

    def __init__(self, client: LoadClient, seconds: float) -> None:
        self.client = client
        self.seconds = seconds
        self.closed_at: float | None = None  # when the client was told to close (monotonic)
        self.held_s: float | None = None  # seconds from `ready N` to that moment
        self._report: ClientReport | None = None

    @property
    def holding(self) -> bool:
        """Until the client is told to close: every connection it opened is still held."""
        return self.closed_at is None

    def begin(self) -> None:
        self.client.start()

    def step(self, ready_at: float | None) -> str | None:
        now = time.monotonic()
        if ready_at is not None and self.closed_at is None and now - ready_at >= self.seconds:
            self.client.close()
            self.closed_at, self.held_s = now, round(now - ready_at, 3)
        if self.closed_at is None and self.client.ended:
            return "the load client ended before memrun told it to close"
        return None

    def end(self) -> None:
        self._report = self.client.finish()

    def report(self) -> ClientReport | None:
        """The client's report once the run is over (None if it never began)."""
        return self._report
