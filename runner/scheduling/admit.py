"""Whether a run may start now beside the runs in flight: the rules, as a pure function of what is
known (no clock, no process: a test or a simulation gives the moment and the state).

A run has three phases: it *spawns* (fork to `ready N`: CPU-bound, its time is a figure), it
*holds* (every task waits until the earliest moment a wait can end: idle, its memory is the
figure, already built) and it *ends* (the tasks wake, the program exits: CPU-bound again). Only
holds are shared:

- a new run starts only while every run in flight holds, so at most one run spawns at a time and
  no spawn meets another run's wake or exit;
- and only while the runs in flight are idle in their holds, measured, not assumed: together they
  used less than HOLD_CPU_LIMIT of a core over the last second (a million BEAM processes, GHC
  threads or trio tasks asleep still take 0.2-0.5 of a core, and four such holds beside a spawn
  made it 1.5 to 2 times slower in an A/A comparison);
- and only if its spawn, predicted with a margin (SPAWN_MARGIN times, plus SPAWN_SLACK_S), after
  the touch of its predicted memory (runner.scheduling.warm, at its worst rate), ends before the
  earliest wake of the runs in flight: a wake (a million tasks at once) never falls
  inside another run's spawn, unless a spawn overruns its prediction (then both runs record it);
- and only if the predicted peaks fit: the new run's with MEMORY_MARGIN, plus what the runs in
  flight are still predicted to grow by, within what the machine may still give (memory.py);
- a run that must run alone (its workload's runs may not overlap, it raises limits or meets a
  thread limit) starts only with nothing in flight, and nothing starts beside it;
- runs start in the planned order; a later one may pass the first waiting run only if it is
  predicted to be over before the runs in flight are (the first one's earliest start), so it
  never holds the first back (EASY backfilling, as batch schedulers do it).
With `jobs` 1 the only rule left is the first: one run at a time, in the planned order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from runner.scheduling import warm
from runner.units import MIB, size

SPAWNING, HOLDING, ENDING = "spawn", "hold", "end"  # a run's phases, as `beside` stores them
SPAWN_MARGIN = 1.5  # haskell at 1M spawned in 2.05 x the time its 100k run predicted (reference sweep)
SPAWN_SLACK_S = 1.0
MEMORY_MARGIN = 1.5  # haskell at 1M peaked 1.45 x above the line through its smaller N
MEMORY_SLACK = 64 * MIB
EXIT_MARGIN = 1.5
HOLD_CPU_LIMIT = 0.1  # cores the holds in flight may use together while another run spawns
HOLD_CPU_WINDOW_S = 0.5  # the least of a hold measured before its CPU counts as known


def spawn_bound(spawn_s: float) -> float:
    """Seconds a spawn predicted at spawn_s is allowed before it counts as an overrun."""
    return SPAWN_MARGIN * spawn_s + SPAWN_SLACK_S


def start_bound(plan: Plan) -> float:
    """Seconds from its start to its `ready` at worst: the touch of its memory
    (runner.scheduling.warm), then its spawn."""
    return warm.bound_s(plan.warm) + spawn_bound(plan.spawn_s)


def memory_bound(peak: int) -> int:
    return int(MEMORY_MARGIN * peak) + MEMORY_SLACK


@dataclass(frozen=True)
class Plan:
    """A run waiting to start, as predicted (runner.scheduling.predict)."""

    run_id: str
    variant: str
    n: int
    spawn_s: float
    peak: int
    exit_s: float
    sleep: float
    holds_after_ready: bool = False  # its waits begin at `ready`, not at the fork (a client's hold)
    alone: str | None = None  # why it must run alone, or None
    instant: bool = False  # no run at all (the row of a cell that cannot run): only its turn matters
    warm: int = 0  # bytes to touch before its fork (runner.scheduling.warm; Prediction.warm)

    @property
    def name(self) -> str:
        return f"{self.variant} N={self.n:,}"

    def wake_at(self, t_fork: float, t_ready: float | None) -> float | None:
        """When its earliest wait can end (runner.judge.overlap.hold_window_end)."""
        if not self.holds_after_ready:
            return t_fork + self.sleep
        return None if t_ready is None else t_ready + self.sleep

    @property
    def lasts_s(self) -> float:
        """Its predicted life, with margins: the spawn or the hold, whichever ends later, and its end."""
        spawn = start_bound(self)
        hold = spawn + self.sleep if self.holds_after_ready else max(spawn, self.sleep)
        return hold + EXIT_MARGIN * self.exit_s + 1.0


@dataclass
class Flight:
    """A run in flight: its plan, its phase, when it forked, when its hold ends, what it uses now."""

    plan: Plan
    phase: str = SPAWNING
    t_fork: float | None = None  # None: admitted, not yet forked (it counts as spawning)
    wake_at: float | None = None  # when its hold ends (None: not known yet)
    usage: int = 0  # bytes it holds now (its cgroup's usage, else its RSS)
    cpu: float | None = 0.0  # cores its tree used over its hold's last second (None: not measured yet)

    def ends_by(self, now: float) -> float:
        """When it is predicted to be over."""
        return (self.t_fork if self.t_fork is not None else now) + self.plan.lasts_s

    def growth(self) -> int:
        """What it may still take beyond what it holds now, with the margin."""
        return max(0, memory_bound(self.plan.peak) - self.usage)


def _shared(plan: Plan, flights: Sequence[Flight], jobs: int) -> str | None:
    if plan.alone:
        return f"runs alone: {plan.alone}"
    for f in flights:
        if f.plan.alone:
            return f"{f.plan.name} runs alone"
    if len(flights) >= jobs:
        return f"{len(flights)} run(s) in flight (--jobs {jobs})"
    for f in flights:
        if f.phase != HOLDING:
            return f"{f.plan.name} is {'spawning' if f.phase == SPAWNING else 'ending'}"
    return busy(flights)


def busy(flights: Sequence[Flight]) -> str | None:
    """Why the holds in flight are not idle enough for a spawn beside them, or None."""
    for f in flights:
        if f.cpu is None:
            return f"measuring {f.plan.name}'s hold"
    used = sum(f.cpu or 0.0 for f in flights)
    if used >= HOLD_CPU_LIMIT:
        top = max(flights, key=lambda f: f.cpu or 0.0)
        return f"busy holds: {used:.2f} of a core ({top.plan.name} {top.cpu or 0.0:.2f})"
    return None


def _timing(plan: Plan, head: Plan, now: float, flights: Sequence[Flight]) -> str | None:
    wakes = [f for f in flights if f.wake_at is not None]
    if len(wakes) < len(flights):
        return "a run in flight has no known wake"
    first = min(wakes, key=lambda f: f.wake_at or 0.0)
    spawn = start_bound(plan)
    if now + spawn >= (first.wake_at or 0.0):
        left = (first.wake_at or 0.0) - now
        return f"spawn: ≈ {spawn:.1f} s would not end before {first.plan.name} wakes in {left:.1f} s"
    if plan is not head:
        reserved = max(f.ends_by(now) for f in flights)
        if now + plan.lasts_s > reserved:
            return f"order: would hold back {head.name}"
    return None


def _memory(plan: Plan, flights: Sequence[Flight], free: int | None) -> str | None:
    if free is None:
        return "memory: the machine's free memory cannot be read"
    need = memory_bound(plan.peak) + sum(f.growth() for f in flights)
    if need > free:
        return f"memory: ≈ {size(need)} needed, {size(free)} free"
    return None


def why_not(
    plan: Plan, head: Plan, now: float, flights: Sequence[Flight], jobs: int, free: int | None
) -> str | None:
    """Why plan may not start now (one phrase, for progress lines), or None: it may."""
    if plan.instant and jobs > 1:
        return None  # it takes nothing of the machine
    if not flights:
        return None if plan is head else f"order: {head.name} goes first"
    return _shared(plan, flights, jobs) or _timing(plan, head, now, flights) or _memory(plan, flights, free)


def choose(
    waiting: Sequence[Plan], now: float, flights: Sequence[Flight], jobs: int, free: int | None
) -> tuple[Plan | None, dict[str, str]]:
    """The run to start now (the first in waiting's order that may), and why each other waits.
    waiting: in the planned order. Once one starts it is spawning, and nothing else may start."""
    why: dict[str, str] = {}
    chosen = None
    for plan in waiting:
        if chosen is not None:
            why[plan.run_id] = f"{chosen.name} is spawning"
            continue
        reason = why_not(plan, waiting[0], now, flights, jobs, free)
        if reason is None:
            chosen = plan
        else:
            why[plan.run_id] = reason
    return chosen, why
