"""memrun's open-loop HTTP load client (client.c) for one run: built on first use, started as
every workload's client is (runner.workloads.launched: a cgroup of its own, through the launcher)
and on CPUs of its own, told which rate to send (`rate R WARMUP WINDOW`, one phase each), and
reported on: the phases it measured, its summary, its cgroup peak and CPU time."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from runner.analysis import hdr
from runner.measure.launcher import compiled
from runner.paths import BUILD_DIR
from runner.workloads.launched import FINISH_S, Ended, LaunchedClient, ended_fields, problem

SOURCE = Path(__file__).with_name("client.c")
DRAIN_S = 5.0  # after a window, how long answers to its requests may still come


def stored_phase(raw: dict[str, Any]) -> dict[str, Any]:
    """A `phase` line as the run record keeps it: every histogram the client printed as raw counts
        (latency from the scheduled time with the unanswered requests censored in it, service from
        the send, the client's send lag, the censored ones alone, the client's receive lag: from the
    kernel's receive time of each answer to when the client read it) read into percentiles and stored in
        HdrHistogram's encoding (runner.analysis.hdr); its counters as they came, among them what was
        not a right answer and never counted as one (`wrong`, of it `wrong_status` and
        `wrong_location`; `bad_framing`; `partial_sends`: judge.py makes a run with any invalid) and
        how the client worked (`client_busy`, `wakes`, `idle_wakes`)."""
    censored = raw.get("censored")
    return {
        **raw,
        "latency": hdr.summary(raw.get("latency"), censored),
        "service": hdr.summary(raw.get("service")),
        "send_lag": hdr.summary(raw.get("send_lag")),
        "censored": hdr.summary(censored),
        "recv_lag": hdr.summary(raw.get("recv_lag")),
    }


def client_path() -> Path:
    return BUILD_DIR / "tools" / "memrun-http"


def ensure_client() -> Path:
    """The client binary, (re)built when missing or older than its source."""
    return compiled(SOURCE, client_path(), what="the http load client")


@dataclass(frozen=True)
class HttpReport(Ended):
    """What one run's load client did and what it cost (how it ended: Ended's fields); stored in
    the run record as `client`.

    phases: one per rate sent (client.c's `phase` line: the rate achieved, latency from the
    scheduled time and from the send, wrong answers, bad framing, partial sends...), each with the
    server's figures over its window added by runner.workloads.web.execute (`server`); summary:
    the client's totals over the run (`wrong`, `bad_framing`, `partial_sends` and the first
    example of each, the 404 check)."""

    summary: dict[str, Any] | None = None
    connected_s: float | None = None  # seconds from the client's start to `connected C`
    connected_at: float | None = None  # time.monotonic() then
    listening_s: float | None = None  # seconds from its start until the server's port listened
    phases: list[dict[str, Any]] = field(default_factory=list)
    idle: dict[str, Any] | None = None  # the server once the C connections were open, before load
    cpus: dict[str, str] | None = None  # {"server": "0", "client": "1"}

    @property
    def problem(self) -> str | None:
        """Why the client did not do its job, in words, or None."""
        return problem(self, self.summary)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class HttpClient(LaunchedClient):
    """The client of one run: start(), rate() per phase, finish() for the report."""

    def __init__(
        self,
        port: int,
        c: int,
        images: int,
        *,
        nofile: int,
        memory_cap: int | None,
        cpus: str | None,
        spin_s: float = 0.0,
        wait: str = "auto",
        headers: Sequence[str] = (),
    ) -> None:
        super().__init__(nofile=nofile, memory_cap=memory_cap, cpus=cpus)
        self.port, self.c, self.images = port, c, images
        self.spin_s, self.wait, self.headers = spin_s, wait, tuple(headers)
        self.summary: dict[str, Any] | None = None
        self.connected_s: float | None = None
        self.connected_at: float | None = None  # time.monotonic() when `connected C` came
        self.listening_s: float | None = None  # seconds from the client's start until the port listened
        self.phases: list[dict[str, Any]] = []
        self.changed = threading.Event()  # set at every line that moves the load on

    def on_stdout(self, line: str) -> None:
        kind, _, rest = line.partition(" ")
        if kind == "connected":
            with contextlib.suppress(ValueError, IndexError):
                self.connected_s = float(rest.split()[1])
                self.listening_s = float(rest.split()[2])
            self.connected_at = time.monotonic()
        elif kind in ("phase", "summary"):
            with contextlib.suppress(ValueError):
                value = json.loads(rest)
                if kind == "phase":
                    self.phases.append(stored_phase(value))
                else:
                    self.summary = value
        self.changed.set()

    def start(self) -> None:
        """Build if needed and start it; it connects (retrying until the server listens)."""
        self.launch(
            ensure_client(),
            [
                *["-I", str(self.images), "-d", f"{DRAIN_S:g}", "-W", self.wait],
                *["-S", f"{self.spin_s * 1e6:g}"],
                *[arg for line in self.headers for arg in ("-H", line)],
                *[str(self.port), str(self.c)],
            ],
        )

    def rate(self, rate: int, warmup_s: float, window_s: float) -> None:
        """Send at `rate` for warmup_s, then measure for window_s (a `phase` line follows)."""
        self.send(f"rate {rate} {warmup_s:g} {window_s:g}")

    def finish(self, within_s: float = FINISH_S, **more: Any) -> HttpReport:
        """Close, wait for its summary and exit, read its cgroup and remove it."""
        ended = self.end(within_s)
        return HttpReport(
            summary=self.summary,
            connected_s=self.connected_s,
            connected_at=self.connected_at,
            listening_s=self.listening_s,
            phases=list(self.phases),
            **more,
            **ended_fields(ended),
        )
