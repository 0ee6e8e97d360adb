"""The http workload's side of one measured run (a runner.measure.core.Companion).

Order: the server is forked; the client starts at once and connects C times, retrying until the
server listens, then checks one 404; once it says `connected C`, memrun holds the connections
idle for IDLE_S (the idle figure), then sends the first rate (a warm-up, then the measured
window), and the next once a phase's line has come, in rising order. A phase that saturated the
server (saturation()) ends the load: a higher rate would only saturate it more. After the last
phase memrun stops the run (the server is killed then: it serves until killed), with LOAD_DONE as
the reason the run's judge expects.
"""

from __future__ import annotations

import resource
import time

from runner.workloads.web.client import HttpClient, HttpReport
from runner.workloads.web.judge import LOAD_DONE, saturation

IDLE_S = 1.0  # the C connections held idle before the first rate: the idle figure's samples


class Load:
    """Sends the rates of one run, one phase each; report() is the client's report."""

    def __init__(
        self, client: HttpClient, rates: list[int], warmup_s: float, window_s: float, slo_s: float
    ) -> None:
        self.client = client
        self.rates, self.warmup_s, self.window_s, self.slo_s = rates, warmup_s, window_s, slo_s
        self.began_at: float | None = None  # time.monotonic() at the fork (within a sample)
        self.sent = 0  # phases asked for
        self.done = False
        self._report: HttpReport | None = None
        self.own_cpu: list[tuple[float, float]] = []  # (monotonic, memrun's CPU s) at every step

    @property
    def holding(self) -> bool:
        return not self.done

    def begin(self) -> None:
        self.began_at = time.monotonic()
        self.client.start()

    def step(self, ready_at: float | None) -> str | None:
        me = resource.getrusage(resource.RUSAGE_SELF)
        self.own_cpu.append((time.monotonic(), me.ru_utime + me.ru_stime))
        if self.done:
            return LOAD_DONE
        if self.client.ended:
            return "the load client ended before the load was over"
        if self.client.connected_at is None or time.monotonic() - self.client.connected_at < IDLE_S:
            return None
        if self.sent == 0 or len(self.client.phases) == self.sent:
            last = self.client.phases[-1] if self.client.phases else None
            over = last is not None and (
                self.sent == len(self.rates)
                or saturation(last, self.rates[self.sent - 1], self.slo_s) is not None
            )
            if over:
                self.done = True
                return LOAD_DONE
            self.client.rate(self.rates[self.sent], self.warmup_s, self.window_s)
            self.sent += 1
        return None

    def end(self) -> None:
        self._report = self.client.finish()

    def report(self) -> HttpReport | None:
        """The client's report once the run is over (None if it never began)."""
        return self._report
