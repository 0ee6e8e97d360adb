"""The tick workload: N tasks that each keep state and wake on a timer (tasks/README.md, "Tick
protocol"), the question the sleep workload's readers asked next: what a task costs when it
keeps state and wakes, in memory, in CPU per wake, and in how late its wakes come.

The program is measured as a sleep program is (launcher, run cgroup, sampling); what differs
lives here: params.py reads `--state` and `--period`, summary.py the program's own account at
its end (wakes asked and achieved, the lateness histogram), judge.py the run's verdict,
execute.py one cell, show.py and figures.py its views. This module only describes the workload.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from runner.workload import Parameter, Words, register
from runner.workloads.tick import params as p
from runner.workloads.views import ShowsInPackage


class Tick(ShowsInPackage):
    name = "tick"
    words = Words(
        noun="tasks",
        unit="task",
        per="task",
        title="tasks that keep state and wake on a timer",
        hold="tick",
        spawn="ready",
        against="against N ticking tasks",
    )
    package = "runner.workloads.tick"
    # Its hold begins at `ready`: the program ticks for the sleep after it, so a long spawn is
    # never charged against the sleep (nor as lateness: its window starts after `ready`).
    holds_after_ready = True
    overlaps = False  # its tasks wake all the time: never idle, so it never shares the machine
    placeholders = ("state", "period_us")
    baseline = "sleep"  # its views set a ticking task's cost beside a sleeping one's
    default_ns = "1,1e4,1e5,1e6"
    about = "N tasks that each keep --state bytes and wake every --period, spread over the period"
    sweep_help = (
        "--workload tick measures tasks that work: each of the N tasks keeps --state bytes of its "
        'own and wakes every --period (tasks/README.md, "Tick protocol"), its first wakes spread '
        "over one period, reading and rewriting its state at each wake and recording how late the "
        "wake came. `ready N` comes once every task has woken once; the program then ticks for "
        "the sleep after it and reports its wakes and their lateness over the whole periods of "
        "that hold. A run whose wakes fall over 1 % short of those asked, or whose p99 lateness "
        'passes one period, "cannot keep up": a finding of a valid run, with the rate it held. '
        "Each --period is a sweep of its own; such runs never share the machine."
    )
    capacity_help = (
        "--workload tick searches how many ticking tasks (--state, --period) fit in the budget; "
        "a run that cannot keep up still counts as one that fit."
    )
    shown_help = (
        "tick: peak memory of N ticking tasks, wakes achieved, lateness p50/p99/p99.9/max, CPU per "
        "wake, and the cost of a ticking task over a sleeping one where the same folder has sleep "
        "runs at the same N; figures (tick-*) and the lateness as .hgrm files beside them."
    )
    parameters = (
        Parameter(
            "state",
            "1KiB",
            "bytes each task allocates and keeps (non-zero, different per task), read and rewritten "
            "at every wake; the same for every runtime",
            p.state_size,
            metavar="SIZE",
        ),
        Parameter(
            "period",
            "1s",
            "how often each task wakes; a comma-separated list is one sweep per period",
            p.periods,
            metavar="P1,P2,…",
            each=True,
        ),
    )
    validity = (
        "A run is a figure only if the program printed `ready N`, with the right N, no earlier than "
        "its last task's first wake was due, with the tree's RSS at that moment at least N times the "
        "state, ticked through at least one whole period after it, exited 0 and printed its summary. "
        "A run whose wakes fell over 1 % short of those asked, or whose p99 lateness passed a period, "
        "cannot keep up: a finding of a valid run, shown with the rate it held."
    )
    program_html = (
        "Each program takes <code>N SLEEP STATE_BYTES PERIOD_US</code>, spawns N tasks that each "
        "allocate their own state and wake every period at absolute due times (the first wakes "
        "spread over one period), read and rewrite their state at each wake and record its "
        "lateness; it prints <code>ready N</code> once every task has woken once, ticks for the "
        "sleep, then prints its wakes and its lateness histogram. memrun records, per run:"
    )

    def page_title(self, metric_title: str) -> str:
        return f"{metric_title} of N {self.words.title}"

    def ready_deadline(self, sleep: float, params: Mapping[str, Any]) -> float | None:
        """A cell whose N tasks cannot all exist under the thread limits here is stopped once its
        first wakes are long due (three periods) and its hold would have ended: 100k platform
        threads under pid_max would otherwise start threads until the timeout."""
        period = params.get("period")
        period = max(period) if isinstance(period, tuple | list) else float(period or 1.0)
        return sleep + 3 * period

    def progress(self, record: Any) -> str:
        """The wakes achieved and their p99 lateness, or, without a summary, when `ready` came."""
        told = record.client or {}
        if record.verdict != "valid" or not told.get("asked"):
            return super().progress(record)
        p99 = (told.get("lateness") or {}).get("p99_us")
        late = "no wake" if p99 is None else f"p99 {p99 / 1000:.3g} ms"
        behind = "" if told.get("keeps_up") else ", cannot keep up"
        return f"{told['achieved'] / told['asked']:.1%} of wakes, {late}{behind}"


TICK = register(Tick())
