"""memrun's load client (client.c) for one run: built on first use, started as every workload's
client is (runner.workloads.launched: its own cgroup, through the launcher), told when to close,
and reported on: its own summary, its cgroup peak and its CPU time. The client itself closes
every connection when its stdin reaches EOF, so nothing is left behind either way.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from runner.measure.launcher import compiled
from runner.paths import BUILD_DIR
from runner.workloads.launched import FINISH_S, Ended, LaunchedClient, ended_fields, problem

SOURCE = Path(__file__).with_name("client.c")


def client_path() -> Path:
    return BUILD_DIR / "tools" / "memrun-connect"


def ensure_client() -> Path:
    """The client binary, (re)built when missing or older than its source."""
    return compiled(SOURCE, client_path(), what="the connections client")


@dataclass(frozen=True)
class ClientReport(Ended):
    """What one run's load client did and what it cost (how it ended: Ended's fields); stored in
    the run record as `client`.

    summary is the client's own account (client.c: connected, dropped, connect errors, listen
    drops, its elapsed times); None when it printed none (it could not start, or was killed)."""

    summary: dict[str, Any] | None = None
    connected_s: float | None = None  # seconds from its start to `connected N`

    def count(self, key: str) -> int:
        value = (self.summary or {}).get(key)
        return int(value) if isinstance(value, int | float) else 0

    @property
    def problem(self) -> str | None:
        """Why the client did not do its job, in words, or None."""
        return problem(self, self.summary)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class LoadClient(LaunchedClient):
    """The client of one run: start(), close() once the hold is over, finish() for the report."""

    def __init__(
        self,
        port: int,
        n: int,
        *,
        nofile: int,
        memory_cap: int | None = None,
        cgroup: str = "auto",
    ) -> None:
        super().__init__(nofile=nofile, memory_cap=memory_cap, cgroup=cgroup)
        self.port, self.n = port, n
        self.summary: dict[str, Any] | None = None
        self.connected_s: float | None = None

    def on_stdout(self, line: str) -> None:
        kind, _, rest = line.partition(" ")
        if kind == "connected":
            with contextlib.suppress(ValueError, IndexError):
                self.connected_s = float(rest.split()[1])
        elif kind == "summary":
            with contextlib.suppress(ValueError):
                self.summary = json.loads(rest)

    def start(self) -> None:
        """Build if needed, make its cgroup, start it (a failure is kept for the report, and the
        run is then stopped by Hold.step), never raised past here but a missing C compiler."""
        self.launch(ensure_client(), [str(self.port), str(self.n)])

    def finish(self, within_s: float = FINISH_S) -> ClientReport:
        """Close (if not yet told), wait for the client's summary and exit, kill it if it hangs,
        read its cgroup and remove it. Nothing of the client survives this call."""
        ended = self.end(within_s)
        return ClientReport(summary=self.summary, connected_s=self.connected_s, **ended_fields(ended))
