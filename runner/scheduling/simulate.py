"""The scheduler's rules (admit.choose) on a virtual clock: runs whose phases are given (measured
ones, or fakes in a test) started in the order and at the moments the rules allow, without a
process or a thread. What it is for: testing the decisions with a fake clock, and telling what a
sweep of known runs would take with a given --jobs (scripts/simulate_sweep.py; `sweep --jobs`'s
default was chosen with it).

A lane is a list of runs in order: each becomes ready to start when the previous one of its lane
has ended (a variant's larger N is predicted from its smaller ones). A run's truth (`Actual`)
says when it really says `ready` and exits; its Plan says what was predicted.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from runner.scheduling.admit import ENDING, HOLDING, SPAWNING, Flight, Plan, choose


@dataclass(frozen=True)
class Actual:
    """What a run really does: `ready` after ready_s (None: never), exit after wall_s, peak bytes."""

    ready_s: float | None
    wall_s: float
    peak: int = 0


@dataclass(frozen=True)
class Job:
    order: tuple
    plan: Plan
    actual: Actual
    flying: bool = False  # already in flight when the replay starts: placed at once, never admitted


@dataclass
class Trace:
    """When each run started and ended, and what it overlapped with, on the virtual clock."""

    start: dict[str, float] = field(default_factory=dict)
    end: dict[str, float] = field(default_factory=dict)
    phases: list[tuple[str, str, float, float]] = field(default_factory=list)  # run_id, phase, from, to

    @property
    def wall_s(self) -> float:
        return max(self.end.values(), default=0.0) - min(self.start.values(), default=0.0)

    def of(self, run_id: str) -> list[tuple[str, float, float]]:
        return [(p, a, b) for r, p, a, b in self.phases if r == run_id]

    def beside(self, run_id: str) -> list[tuple[str, str, float, float]]:
        """(other run, its phase, from, to) overlapping this run's life (absolute times)."""
        t0, t1 = self.start[run_id], self.end[run_id]
        out = []
        for r, p, a, b in self.phases:
            lo, hi = max(a, t0), min(b, t1)
            if r != run_id and hi > lo:
                out.append((r, p, lo, hi))
        return out


def _phases(job: Job, t0: float) -> list[tuple[str, float, float]]:
    a, plan = job.actual, job.plan
    end = t0 + a.wall_s
    if a.ready_s is None:
        return [(SPAWNING, t0, end)]
    ready = t0 + min(a.ready_s, a.wall_s)
    wake = plan.wake_at(t0, ready) or end
    hold_end = min(max(wake, ready), end)
    return [(SPAWNING, t0, ready), (HOLDING, ready, hold_end), (ENDING, hold_end, end)]


def _phase_at(phases: list[tuple[str, float, float]], now: float) -> str:
    for p, a, b in phases:
        if a <= now < b:
            return p
    return ENDING


def _ended(flying: dict, now: float, trace: Trace) -> None:
    """Move each run in flight to its phase at `now`; those over leave, into the trace."""
    for run_id, (_, job, flight, phases) in list(flying.items()):
        flight.phase = _phase_at(phases, now)
        flight.usage = job.actual.peak if flight.phase != SPAWNING else 0
        if now >= phases[-1][2]:
            del flying[run_id]
            trace.end[run_id] = phases[-1][2]
            trace.phases += [(run_id, p, a, b) for p, a, b in phases if b > a]


def run(
    lanes: Sequence[Sequence[Job]],
    jobs: int,
    budget: int | None,
    on_admit: Callable[[Job, float, dict[str, str]], None] | None = None,
) -> Trace:
    """Every lane to its end under the rules, with `budget` bytes free for runs (None: unknown).
    on_admit(job, when, why the others wait) is told each start."""
    trace, now = Trace(), 0.0
    queues = [list(lane) for lane in lanes]
    flying: dict[str, tuple[int, Job, Flight, list[tuple[str, float, float]]]] = {}
    for lane, queue in enumerate(queues):
        if queue and queue[0].flying:
            job = queue.pop(0)
            phases = _phases(job, now)
            flying[job.plan.run_id] = (
                lane,
                job,
                Flight(job.plan, SPAWNING, now, job.plan.wake_at(now, phases[0][2])),
                phases,
            )
            trace.start[job.plan.run_id] = now
    while any(queues) or flying:
        _ended(flying, now, trace)
        busy = {lane for lane, _, _, _ in flying.values()}
        heads = sorted(
            ((i, q[0]) for i, q in enumerate(queues) if q and i not in busy), key=lambda h: h[1].order
        )
        flights = [f for _, _, f, _ in flying.values()]
        free = None if budget is None else budget - sum(f.usage for f in flights)
        chosen, why = choose([j.plan for _, j in heads], now, flights, jobs, free)
        if chosen is not None:
            lane, job = next(h for h in heads if h[1].plan is chosen)
            queues[lane].pop(0)
            phases = _phases(job, now)
            flight = Flight(chosen, SPAWNING, now, chosen.wake_at(now, phases[0][2]))
            flying[chosen.run_id] = (lane, job, flight, phases)
            trace.start[chosen.run_id] = now
            if on_admit:
                on_admit(job, now, why)
            continue
        times = [b for _, _, _, ph in flying.values() for _, _, b in ph if b > now]
        now = min(times) if times else now + 0.1
    return trace


def remaining(flight: Flight, now: float) -> Job:
    """A run in flight as a job already flying at the replay's start: what is left of its
    predicted phases. It is placed as it is, never admitted again: the rules that let it start
    were met when it did."""
    plan, t0 = flight.plan, flight.t_fork if flight.t_fork is not None else now
    ready = t0 + plan.spawn_s
    end = max(ready, t0 + plan.sleep) + plan.exit_s
    left = dataclasses.replace(plan, sleep=max(0.0, t0 + plan.sleep - now), spawn_s=max(0.0, ready - now))
    return Job((-1,), left, Actual(max(0.0, ready - now), max(0.05, end - now), plan.peak), flying=True)


def predicted(order: tuple, plan: Plan) -> Job:
    """A run not started yet, as its plan predicts it: `ready` after its spawn, its end after its
    hold (from the fork, or from `ready` for a client's hold) and its exit."""
    hold_end = plan.spawn_s + plan.sleep if plan.holds_after_ready else max(plan.sleep, plan.spawn_s)
    return Job(order, plan, Actual(plan.spawn_s, hold_end + plan.exit_s, plan.peak))


def left_s(
    flights: Sequence[Flight], pending: Mapping[str, Sequence[Job]], now: float, jobs: int, free: int | None
) -> float:
    """Seconds until the last run ends (a sweep's ETA): the runs in flight as they are
    (`remaining`), then the lanes' runs not started, by variant (a lane's run waiting for its start
    first), replayed under the rules.

    free is what the machine has free now, which the runs in flight already hold: the replay
    counts their memory itself, so it is given back first (counted twice, it kept every large run
    waiting for the ones in flight to end, and a sweep 5 minutes from its end said 36)."""
    by_variant = {f.plan.variant: f for f in flights if not f.plan.instant}
    lanes = []
    for name in {*pending, *by_variant}:
        lane = [remaining(by_variant[name], now)] if name in by_variant else []
        lanes.append(lane + list(pending.get(name, [])))
    budget = None if free is None else free + sum(f.usage for f in by_variant.values())
    return run(lanes, jobs, budget).wall_s


@dataclass(frozen=True)
class Exits:
    """How runs ended after their sleep (Sweeping.exits): the variants that have valid runs, and
    the median seconds from the end of the sleep to the exit at each N."""

    variants: frozenset[str]
    at_n: dict[int, float]


def priced(plan: Plan, exits: Exits) -> Plan:
    """A plan with the exit an ETA counts: where nothing of its variant has ended yet, as the other
    variants' runs at its N ended, not the pessimistic bound. A run of a workload whose own phases
    follow its sleep (http's load rates: 82 s of a 92 s run) ends that much later, which no bound
    of a task's exit knows: the ETA of the http reference said 21 min where 110 were left."""
    if plan.instant or plan.variant in exits.variants or plan.n not in exits.at_n:
        return plan
    return dataclasses.replace(plan, exit_s=exits.at_n[plan.n])
